/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.h - background threads (the reload thread, the
 * thread that frees old configs) run below the workers: a worker woken
 * by a query is preferred to them for the CPU. */
#ifndef UTIL_THREAD_PRIO_H
#define UTIL_THREAD_PRIO_H

/* How far a background thread's nice value goes above the process's
 * (to at most 19). */
#define THREAD_PRIO_BACKGROUND_NICE 10

/* Called by the thread itself, first thing: raises its nice value by
 * THREAD_PRIO_BACKGROUND_NICE, to at most 19 (Linux: per thread; never
 * lower than it was), then names it (`name`, up to 15 characters, as
 * top -H and /proc/PID/task/TID/comm show it; named last, so a thread
 * seen under its name runs lowered). Returns 1 when lowered, 0 when not
 * (already at 19, or refused: logged at verbosity 2; the thread runs on
 * at the workers' priority). */
int thread_prio_background(const char* name);

#endif
