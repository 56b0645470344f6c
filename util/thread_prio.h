/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.h - background threads (the reload thread, the
 * thread that frees old configs) run below the workers: a worker woken
 * by a query is preferred to them for the CPU. */
#ifndef UTIL_THREAD_PRIO_H
#define UTIL_THREAD_PRIO_H

/* The nice value of a background thread. */
#define THREAD_PRIO_BACKGROUND_NICE 19

/* Called by the thread itself, first thing: lowers it to nice
 * THREAD_PRIO_BACKGROUND_NICE (Linux: per thread) and then names it
 * (`name`, up to 15 characters, as top -H and /proc/PID/task/TID/comm
 * show it; named last, so a thread seen under its name runs lowered).
 * Returns 1 when lowered, 0 when not (logged at verbosity 2; the thread
 * runs on at the workers' priority). */
int thread_prio_background(const char* name);

#endif
