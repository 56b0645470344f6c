/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_query_tcp.c - client queries over TCP, as the
 * byte stream a client sends: the worker's TCP pool
 * (services/tcp_conn.c: 2-byte framing, several queries per
 * connection, partial reads, output room, half-close) answering with
 * worker_tcp_answer -> query_answer, as in the daemon, on one end of a
 * socketpair (tcp_pool_adopt, as accept does). Config and caches as the
 * UDP harness; no mesh.
 *
 * The first input byte is not sent: its low 3 bits pick the size of
 * each write (1 byte up to all at once), the rest the client address.
 * Checked besides the sanitizers: every reply frame holds at least a
 * header, and the server closes the connection once the client has
 * sent everything and shut its side. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "testdata/fuzz/fuzz_clients.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "services/tcp_conn.h"
#include "util/msgparse.h"
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct worker* w;

/* Reply framing, followed across reads. */
struct frames {
	size_t hdr;       /* length bytes seen of the current frame (0-2) */
	size_t need;      /* body bytes still to come */
	uint8_t len0;
	size_t count;
};

static void got(void* arg, const uint8_t* p, size_t n)
{
	struct frames* f = arg;
	while(n > 0) {
		if(f->need > 0) {
			size_t k = n < f->need ? n : f->need;
			f->need -= k;
			p += k;
			n -= k;
			continue;
		}
		if(f->hdr == 0) {
			f->len0 = *p++;
			n--;
			f->hdr = 1;
			continue;
		}
		f->need = (size_t)f->len0 << 8 | *p++;
		n--;
		f->hdr = 0;
		f->count++;
		if(f->need < LDNS_HEADER_SIZE) {
			fprintf(stderr, "TCP reply frame of %zu bytes\n",
				f->need);
			abort();
		}
	}
}

static int still_open(void* arg)
{
	return tcp_pool_num_open(arg) > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static const size_t chunks[8] = { 1, 2, 3, 7, 13, 100, 1500, 1 << 20 };
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct frames f;
	int sv[2];
	if(!w) {
		fuzz_quiet_logs();
		w = fuzz_worker_create(fuzz_daemon_create(FUZZ_SERVE_CONF));
	}
	if(size < 1)
		return 0;
	w->now = FUZZ_T0 + 5;
	fuzz_client(data[0] >> 3, &addr, &addrlen);
	if(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		sv) != 0) {
		perror("socketpair");
		abort();
	}
	if(!tcp_pool_adopt(w->tcp, sv[0], &addr, addrlen)) {
		fprintf(stderr, "tcp pool full: a connection was not closed\n");
		abort();
	}
	memset(&f, 0, sizeof(f));
	if(!fuzz_pump(w->base, sv[1], data + 1, size - 1, chunks[data[0] & 7],
		still_open, w->tcp, got, &f)) {
		fprintf(stderr, "the server kept the connection open after "
			"the client was done\n");
		abort();
	}
	close(sv[1]);
	return 0;
}
