/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats_shm.c - compat: unbound-1.17: shm-enable: the two System V
 * shared memory segments of the statistics, made at the start, written by
 * the main thread at each statistics-interval and removed at exit. The
 * counters are read from the workers' own (stats_snapshot): nothing is
 * added to the query path. */
#include "config.h"
#include "daemon/stats_shm.h"
#include "util/config_file.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

struct stats_shm {
	int key;
	int id_ctl, id_arr;       /* segments key and key + 1 */
	int num;                  /* threads: arr has num + 1 entries */
	struct ub_shm_stat_info* ctl;
	struct ub_stats_info* arr;
	struct worker_stats total; /* scratch for the sum */
	struct ub_stats_info entry; /* scratch: an entry before its copy */
};

/* A segment left at key by an earlier run (or anything else there):
 * removed, as Unbound does, so ours is made to our size. */
static void remove_old(int key)
{
	int id = shmget((key_t)key, sizeof(int), SHM_R);
	if(id >= 0)
		(void)shmctl(id, IPC_RMID, NULL);
}

struct stats_shm* stats_shm_create(const struct config_file* cfg,
	int num_threads)
{
	struct stats_shm* s = calloc(1, sizeof(*s));
	size_t arr_size = sizeof(struct ub_stats_info) *
		((size_t)num_threads + 1);
	void* p;
	if(!s) {
		log_err("shm fail: malloc failure");
		return NULL;
	}
	s->key = cfg->shm_key;
	s->num = num_threads;
	s->id_ctl = s->id_arr = -1;
	if(cfg->stat_interval == 0)
		log_warn("shm-enable is yes but statistics-interval is 0");
	remove_old(s->key);
	remove_old(s->key + 1);
	s->id_ctl = shmget((key_t)s->key, sizeof(struct ub_shm_stat_info),
		IPC_CREAT | 0644);
	if(s->id_ctl < 0) {
		log_err("SHM failed(id_ctl) cannot shmget(key %d) %s", s->key,
			strerror(errno));
		goto fail;
	}
	s->id_arr = shmget((key_t)(s->key + 1), arr_size, IPC_CREAT | 0644);
	if(s->id_arr < 0) {
		log_err("SHM failed(id_arr) cannot shmget(key %d + 1) %s",
			s->key, strerror(errno));
		goto fail;
	}
	if((p = shmat(s->id_ctl, NULL, 0)) == (void*)-1) {
		log_err("SHM failed(ctl) cannot shmat(%d) %s", s->id_ctl,
			strerror(errno));
		goto fail;
	}
	s->ctl = p;
	if((p = shmat(s->id_arr, NULL, 0)) == (void*)-1) {
		log_err("SHM failed(arr) cannot shmat(%d) %s", s->id_arr,
			strerror(errno));
		goto fail;
	}
	s->arr = p;
	memset(s->ctl, 0, sizeof(*s->ctl));
	memset(s->arr, 0, arr_size);
	s->ctl->num_threads = num_threads;
	return s;
fail:
	/* unlike Unbound, a half-made pair is not left behind */
	stats_shm_delete(s);
	return NULL;
}

void stats_shm_delete(struct stats_shm* s)
{
	if(!s)
		return;
	verbose(VERB_DETAIL, "SHM shutdown - KEY [%d] - ID CTL [%d] ARR [%d] "
		"- PTR CTL [%p] ARR [%p]", s->key, s->id_ctl, s->id_arr,
		(void*)s->ctl, (void*)s->arr);
	if(s->id_ctl >= 0)
		(void)shmctl(s->id_ctl, IPC_RMID, NULL);
	if(s->id_arr >= 0)
		(void)shmctl(s->id_arr, IPC_RMID, NULL);
	if(s->ctl)
		(void)shmdt(s->ctl);
	if(s->arr)
		(void)shmdt(s->arr);
	free(s);
}

int stats_shm_key(const struct stats_shm* s)
{
	return s->key;
}

/* a - b, both absolute, as seconds and microseconds (0 if negative) */
static void span(long long* sec, long long* usec, const struct timespec* a,
	const struct timespec* b)
{
	long long us = ((long long)a->tv_sec - (long long)b->tv_sec) * 1000000
		+ (a->tv_nsec - b->tv_nsec) / 1000;
	if(us < 0)
		us = 0;
	*sec = us / 1000000;
	*usec = us % 1000000;
}

void stats_shm_write(struct stats_shm* s, const struct worker_stats* th,
	int n, const struct stats_cache_info* ci, int extended,
	const struct timespec* now, const struct timespec* start,
	const struct timespec* last)
{
	struct ub_shm_stat_info* c = s->ctl;
	int i;
	if(n > s->num)
		n = s->num;
	memset(&s->total, 0, sizeof(s->total));
	/* each entry is made aside and copied in: made in place, a reader
	 * (stats_shm takes no lock, as Unbound's) could find it zeroed
	 * (seen under ASan: the threads 0, the total 6) */
	for(i = 0; i < n; i++) {
		stats_shm_from_worker(&s->entry, &th[i], ci, extended);
		memcpy(&s->arr[i + 1], &s->entry, sizeof(s->entry));
		stats_add(&s->total, &th[i]);
	}
	stats_shm_from_worker(&s->entry, &s->total, ci, extended);
	memcpy(&s->arr[0], &s->entry, sizeof(s->entry));
	c->num_threads = s->num;
	c->time.now_sec = (long long)now->tv_sec;
	c->time.now_usec = (long long)(now->tv_nsec / 1000);
	span(&c->time.up_sec, &c->time.up_usec, now, start);
	span(&c->time.elapsed_sec, &c->time.elapsed_usec, now, last);
	c->mem.msg = (long long)ci->mem_msg;
	c->mem.rrset = (long long)ci->mem_rrset;
	c->mem.val = (long long)ci->mem_mod[STATS_MOD_VALIDATOR];
	c->mem.iter = (long long)ci->mem_mod[STATS_MOD_ITERATOR];
	c->mem.respip = (long long)ci->mem_mod[STATS_MOD_RESPIP];
	c->mem.subnet = (long long)ci->mem_mod[STATS_MOD_SUBNET];
	/* not built here: ipsecmod, dnscrypt, dynlib */
	c->mem.ipsecmod = 0;
	c->mem.dnscrypt_shared_secret = c->mem.dnscrypt_nonce = 0;
	c->mem.dynlib = 0;
}
