/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_query_https.c - DNS over HTTPS requests, as the
 * byte stream a cleartext HTTP/2 client (http-notls-downstream) sends
 * after its connection preface: the worker's DoH pool (services/doh.c:
 * nghttp2 session, the request checks of doh_req.c, the per-stream
 * status codes, the buffer budgets) answering with worker_doh_answer ->
 * query_answer, on one end of a socketpair (doh_pool_adopt, as accept
 * does). Config and caches as the UDP harness; no mesh.
 *
 * The harness sends the client preface and an empty SETTINGS frame
 * itself, so inputs are frames. The first input byte is not sent: its
 * low 3 bits pick the size of each write, the rest the client address.
 * Checked besides the sanitizers: the server closes the connection
 * once the client has sent everything and shut its side, and the
 * global query and response buffer counts are back to 0 after. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "testdata/fuzz/fuzz_clients.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "services/doh.h"
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct worker* w;
static struct doh_pool* pool;

/* "PRI * HTTP/2.0..." and a SETTINGS frame with no settings */
static const uint8_t preface[] =
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0";

static int still_open(void* arg)
{
	return doh_pool_num_open(arg) > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static const size_t chunks[8] = { 1, 2, 3, 7, 13, 100, 1500, 1 << 20 };
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint8_t* in;
	int sv[2];
#ifndef HAVE_NGHTTP2
	/* built without DNS over HTTPS: nothing to fuzz here */
	(void)data;
	(void)size;
	return 0;
#endif
	if(!w) {
		struct doh_settings s;
		fuzz_quiet_logs();
		w = fuzz_worker_create(fuzz_daemon_create(FUZZ_SERVE_CONF));
		memset(&s, 0, sizeof(s));
		s.endpoint = "/dns-query";
		s.max_streams = 8;
		s.max_conns = 2;
		s.idle_timeout_ms = 10000;
		/* small budgets, so that inputs can reach them */
		doh_set_mem_limits(4096, 4096);
		pool = doh_pool_create(w->base, &s, worker_doh_answer, NULL, w);
		if(!pool)
			abort();
	}
	if(size < 1)
		return 0;
	w->now = FUZZ_T0 + 5;
	fuzz_client(data[0] >> 3, &addr, &addrlen);
	if(!(in = malloc(sizeof(preface) - 1 + size - 1)))
		abort();
	memcpy(in, preface, sizeof(preface) - 1);
	memcpy(in + sizeof(preface) - 1, data + 1, size - 1);
	if(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		sv) != 0) {
		perror("socketpair");
		abort();
	}
	if(!doh_pool_adopt(pool, sv[0], NULL, &addr, addrlen)) {
		fprintf(stderr, "doh pool full: a connection was not closed\n");
		abort();
	}
	if(!fuzz_pump(w->base, sv[1], in, sizeof(preface) - 1 + size - 1,
		chunks[data[0] & 7], still_open, pool, NULL, NULL)) {
		fprintf(stderr, "the server kept the connection open after "
			"the client was done\n");
		abort();
	}
	close(sv[1]);
	free(in);
	if(doh_mem_query_buffer() != 0 || doh_mem_response_buffer() != 0) {
		fprintf(stderr, "DoH buffer memory counted after close: %zu "
			"%zu\n", doh_mem_query_buffer(),
			doh_mem_response_buffer());
		abort();
	}
	return 0;
}
