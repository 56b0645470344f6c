/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_env.h - what the fuzz harnesses share: a daemon
 * with a config, access control, local zones, hints and caches, built
 * from config text without sockets or threads, the caches pre-filled
 * through load_cache, and a worker that answers through query_answer
 * without a mesh (a cache miss is answered SERVFAIL, nothing is sent
 * upstream). Test code only: nothing here is a copy of the daemon's
 * logic, only the setup its tests need. */
#ifndef TESTDATA_FUZZ_FUZZ_ENV_H
#define TESTDATA_FUZZ_FUZZ_ENV_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct daemon;
struct worker;
struct event_base;

/* The time the caches are filled at; harnesses answer a little later. */
#define FUZZ_T0 ((time_t)1700000000)

/* Every harness's LLVMFuzzerTestOneInput; the regression driver
 * (regress_main.c) calls the same function. */
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Logs to /dev/null (stderr when FUZZ_VERBOSE is set), verbosity 0. */
void fuzz_quiet_logs(void);

/* A config from text (abort() when it has errors: a harness bug). */
struct config_file* fuzz_config(const char* text);

/* The config the query and control harnesses serve with: every kind
 * of access-control rule and local zone, serve-expired, prefetch. */
extern const char* const FUZZ_SERVE_CONF;

/* A daemon serving config text (also written to a temporary file,
 * d->cfgfile, for reload), its message and RRset caches filled from
 * FUZZ_CACHE_DUMP at FUZZ_T0. No workers, sockets or threads. */
struct daemon* fuzz_daemon_create(const char* conf_text);

/* The cache contents: answers, CNAME chains, NXDOMAIN and NODATA with
 * SOA, MX, big TXT (truncation), many-RR sets (roundrobin), short TTLs
 * (prefetch, expired). */
extern const char* const FUZZ_CACHE_DUMP;

/* A worker of d for query_answer and its TCP pool: an event base, a
 * TCP pool answering with worker_tcp_answer, no mesh. */
struct worker* fuzz_worker_create(struct daemon* d);

/* A stream exchange with a server side on base: data (size bytes, at
 * most chunk per write) goes into client (non-blocking, one end of a
 * socketpair whose other end the server reads), base runs without
 * blocking between writes, whatever comes back goes to got(garg, ...),
 * then the sending side is shut and base runs until still_open(oarg)
 * is 0. Returns 1 when the server closed, 0 when it did not within a
 * bound (a server that never lets go of a finished client). */
int fuzz_pump(struct event_base* base, int client, const uint8_t* data,
	size_t size, size_t chunk, int (*still_open)(void*), void* oarg,
	void (*got)(void*, const uint8_t*, size_t), void* garg);

#endif
