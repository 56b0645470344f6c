/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/env_reaper.c - a queue of serve_envs to free and one thread
 * that frees them, off the worker threads. */
#include "config.h"
#include "daemon/env_reaper.h"
#include "daemon/daemon.h"
#include "util/alloc_policy.h"
#include "util/log.h"
#include "util/thread_prio.h"
#include <pthread.h>
#include <stdlib.h>

struct reap_item {
	struct reap_item* next;
	struct serve_env* env;
};

struct env_reaper {
	pthread_t thr;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct reap_item* queue;   /* under lock */
	int stop;                  /* under lock */
};

static void* reaper_main(void* arg)
{
	struct env_reaper* r = arg;
	/* the frees and the trim below the workers (util/thread_prio.c) */
	(void)thread_prio_background("env-reaper");
	pthread_mutex_lock(&r->lock);
	for(;;) {
		struct reap_item* it = r->queue;
		if(!it) {
			if(r->stop)
				break;
			pthread_cond_wait(&r->wake, &r->lock);
			continue;
		}
		r->queue = it->next;
		pthread_mutex_unlock(&r->lock);
		serve_env_free(it->env);
		free(it);
		/* a big config's pages back to the system (glibc keeps them
		 * in its arenas otherwise) */
		alloc_policy_trim();
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct env_reaper* env_reaper_create(void)
{
	struct env_reaper* r = calloc(1, sizeof(*r));
	if(!r) {
		log_err("out of memory");
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	if(pthread_create(&r->thr, NULL, reaper_main, r) != 0) {
		log_err("could not start the thread that frees old configs");
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		free(r);
		return NULL;
	}
	return r;
}

void env_reaper_release(struct env_reaper* r, struct serve_env* env)
{
	struct reap_item* it;
	if(!serve_env_drop(env))
		return;
	if(!r || !(it = malloc(sizeof(*it)))) {
		serve_env_free(env);
		return;
	}
	it->env = env;
	pthread_mutex_lock(&r->lock);
	it->next = r->queue;
	r->queue = it;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

void env_reaper_delete(struct env_reaper* r)
{
	if(!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thr, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
