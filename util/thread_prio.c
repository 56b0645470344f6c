/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.c - see util/thread_prio.h.
 *
 * Why: a reload builds the new config in a thread of its own (seconds
 * of CPU for a 1,000,000-name zone) and the reaper frees the old one;
 * on a machine with as many cores as busy threads, a worker woken by a
 * query waited for the scheduler to take the core from them (the
 * cache-hit p99 while a fast_reload built: 5.08 ms against 0.70 ms
 * without a reload, doc/performance.md "Reload"). SCHED_IDLE: a woken
 * thread of any other class preempts it at once, and the kernel counts
 * a CPU that runs only SCHED_IDLE threads as idle when it places a
 * woken worker. The cost: while the workers keep every CPU busy, a
 * reload waits for them (Unbound's fast_reload stops the workers
 * instead); the main thread, which answers the control channel, is not
 * lowered. Nice 19 is the fallback where the class cannot be set. */
#include "config.h"
#include "util/thread_prio.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int thread_prio_background(const char* name)
{
#ifdef __linux__
	/* the nice value is per thread on Linux: the thread's id, not 0,
	 * which POSIX reads as the whole process */
	int tid = (int)syscall(SYS_gettid);
	int lowered = 0;
	if(setpriority(PRIO_PROCESS, (id_t)tid, THREAD_PRIO_BACKGROUND_NICE)
		== 0)
		lowered = 1;
	else	verbose(VERB_DETAIL, "%s thread: setpriority: %s", name,
			strerror(errno));
#  if defined(SCHED_IDLE) && !defined(THREAD_PRIO_NO_IDLE_CLASS)
	{
		struct sched_param sp;
		int r;
		memset(&sp, 0, sizeof(sp));
		if((r = pthread_setschedparam(pthread_self(), SCHED_IDLE,
			&sp)) == 0)
			lowered = 1;
		else	verbose(VERB_DETAIL, "%s thread: SCHED_IDLE: %s",
				name, strerror(r));
	}
#  endif
	/* named last: a thread seen under its name runs lowered (the
	 * test reads /proc for it) */
#  ifdef __GLIBC__
	(void)pthread_setname_np(pthread_self(), name);
#  endif
	return lowered;
#else
	(void)name;
	return 0;
#endif
}
