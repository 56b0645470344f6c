/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_query_udp.c - a client query over UDP, as bytes:
 * query_answer() (daemon/query.c), which the worker calls for each
 * datagram: parsing, access control, CHAOS, local zones, the message
 * cache fast path (pre-filled: fuzz_env.c) and reply encoding. No mesh:
 * a miss is answered SERVFAIL without sending anything.
 *
 * From the input, without changing it: the query ID picks the client
 * address (hence the access-control rule) and whether the answer is
 * 5 or 95 seconds after the cache was filled (fresh / prefetch /
 * expired entries); the header's Z bit picks the second config
 * (extended statistics, query and reply logging, rrset-roundrobin,
 * harden-short-bufsize: no, max-udp-size: 1232, harden-large-queries,
 * answer-cookie: yes with a cookie-secret, and allow_cookie for the
 * allow_snoop client).
 *
 * Checked besides the sanitizers: a reply to a well-formed query
 * parses (ldns), echoes its ID, is within 512 bytes without EDNS and
 * within the EDNS size and max-udp-size with it, where an EDNS size
 * under 512 counts as 512 (RFC 6891 6.2.5; with harden-short-bufsize:
 * no the daemon may send less, as Unbound, never more). */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "testdata/fuzz/fuzz_clients.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "daemon/query.h"
#include "util/config_file.h"
#include "util/msgparse.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct worker* w;
static struct serve_env* env_a, *env_b;
static uint8_t out[65535];

static void setup(void)
{
	struct daemon* d;
	char conf[8192];
	fuzz_quiet_logs();
	d = fuzz_daemon_create(FUZZ_SERVE_CONF);
	w = fuzz_worker_create(d);
	env_a = w->env;
	snprintf(conf, sizeof(conf), "%s", FUZZ_SERVE_CONF);
	/* the second config: a server: clause more (after the views) */
	*strstr(conf, "remote-control:") = 0;
	strncat(conf, "server:\n	extended-statistics: yes\n"
		"	log-queries: yes\n	log-replies: yes\n"
		"	rrset-roundrobin: yes\n	harden-short-bufsize: no\n"
		"	max-udp-size: 1232\n	harden-large-queries: yes\n"
		"	answer-cookie: yes\n"
		"	cookie-secret: \"000102030405060708090a0b0c0d0e0f\"\n"
		"	access-control: 192.0.2.0/24 allow_cookie\n",
		sizeof(conf) - strlen(conf) - 1);
	env_b = serve_env_derive(fuzz_config(conf), NULL, NULL);
	if(!env_b)
		abort();
}

/* The reply to a plain query must be a DNS message for it, in size. */
static void check_reply(const uint8_t* q, size_t qlen, size_t n,
	const struct config_file* cfg)
{
	struct query_info qi;
	ldns_pkt* p = NULL;
	size_t lim;
	if(query_parse(q, qlen, &qi) != PARSE_OK || qi.echo_rcode)
		return;
	if(n < LDNS_HEADER_SIZE || out[0] != q[0] || out[1] != q[1]) {
		fprintf(stderr, "reply of %zu bytes without the query ID\n", n);
		abort();
	}
	if(!qi.has_edns)
		lim = 512;
	else {
		lim = qi.edns_udp_size < 512 ? 512 : qi.edns_udp_size;
		if(lim > cfg->max_udp_size && cfg->max_udp_size >= 512)
			lim = cfg->max_udp_size;
	}
	if(n > lim) {
		fprintf(stderr, "UDP reply of %zu bytes, limit %zu\n", n, lim);
		abort();
	}
	if(ldns_wire2pkt(&p, out, n) != LDNS_STATUS_OK) {
		fprintf(stderr, "reply of %zu bytes does not parse\n", n);
		abort();
	}
	ldns_pkt_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct sockaddr_storage addr;
	struct client_info ci;
	unsigned id = size >= 2 ? (unsigned)(data[0] << 8 | data[1]) : 0;
	struct query_result r;
	if(!w)
		setup();
	fuzz_client(id >> 8, &addr, &ci.addrlen);
	ci.addr = &addr;
	ci.is_tcp = 0;
	ci.udp_fd = -1;
	ci.tcp = NULL;
	ci.doh = NULL;
	ci.peer = NULL;
	ci.dst = NULL;
	ci.peerlen = 0;
	w->env = size >= 4 && (data[3] & 0x40) ? env_b : env_a;
	w->now = FUZZ_T0 + ((id & 1) ? 95 : 5);
	r = query_answer(w, data, size, &ci, out, sizeof(out));
	switch(r.what) {
	case QUERY_DEFERRED:
		fprintf(stderr, "deferred without a mesh\n");
		abort();
	case QUERY_REPLY:
		check_reply(data, size, r.len, w->env->cfg);
		break;
	case QUERY_DROP:
		break;
	}
	return 0;
}
