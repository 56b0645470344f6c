/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.h - background threads (the reload thread, the
 * thread that frees old configs) run below the workers: a worker that
 * wakes with a query takes the CPU from them at once. */
#ifndef UTIL_THREAD_PRIO_H
#define UTIL_THREAD_PRIO_H

/* The nice value a background thread takes where its scheduling class
 * cannot be changed (and beside SCHED_IDLE, where the class can). */
#define THREAD_PRIO_BACKGROUND_NICE 19

/* Called by the thread itself, first thing: names it (`name`, up to 15
 * characters, as top -H and /proc/PID/task/TID/comm show it) and puts
 * it below the workers (Linux: SCHED_IDLE, else nice 19). Returns 1 when
 * the priority was lowered, 0 when not (logged at verbosity 2; the
 * thread runs on at the workers' priority). */
int thread_prio_background(const char* name);

#endif
