/* daemon/worker.h - a worker thread: its own libevent loop, its UDP
 * sockets (or the shared ones) and its TCP connections. */
#ifndef DAEMON_WORKER_H
#define DAEMON_WORKER_H
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>

struct daemon;
struct serve_env;
struct event_base;
struct event;
struct tcp_pool;

/* Per-thread counters, summed on demand; never shared while counting. */
struct worker_stats {
	uint64_t num_queries;     /* queries received (answered or not) */
	uint64_t num_dropped;     /* queries deliberately not answered */
	uint64_t num_tcp;         /* queries over TCP */
	uint64_t num_local;       /* answered from local zones/chaos */
};

struct worker {
	int thread_num;
	pthread_t thr;
	struct daemon* daemon;
	struct event_base* base;
	/* the config snapshot this worker answers with, and its generation */
	struct serve_env* env;
	unsigned env_gen;
	struct event** events;   /* UDP read and TCP accept events */
	int num_events;
	struct tcp_pool* tcp;
	struct udp_batch* udp;   /* recvmmsg/sendmmsg buffers */
	struct worker_stats stats;
} __attribute__((aligned(64)));

/* Create a worker with its event base and events for its sockets; NULL
 * on failure. */
struct worker* worker_create(struct daemon* d, int num);
/* Start its thread. Returns 0 on failure. */
int worker_start(struct worker* w);
/* Ask the loop to stop (thread-safe) and wait for the thread. */
void worker_stop(struct worker* w);
void worker_delete(struct worker* w);
/* Make sure the worker answers with the current env (cheap check). */
void worker_refresh_env(struct worker* w);

#endif
