/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/env_reaper.h - frees replaced serve_envs in a thread of its own.
 *
 * A worker lets go of a replaced env some seconds after a reload
 * (worker.c's retire timer); when it is the last holder, the env's free
 * used to run in that worker and, with a million local-data names or a
 * big auth zone, stopped its answering for the length of the free (a
 * p99 spike right after every reload). The worker hands it here. */
#ifndef DAEMON_ENV_REAPER_H
#define DAEMON_ENV_REAPER_H

struct serve_env;
struct env_reaper;

/* Start the thread; NULL on error (logged). */
struct env_reaper* env_reaper_create(void);
/* Drop one reference to env; the last one queues the free to the
 * reaper's thread (r NULL, or out of memory: freed here). Thread-safe. */
void env_reaper_release(struct env_reaper* r, struct serve_env* env);
/* Free what is queued, stop and join the thread. NULL is fine. */
void env_reaper_delete(struct env_reaper* r);

#endif
