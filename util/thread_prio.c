/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.c - see util/thread_prio.h.
 *
 * Why: a reload builds the new config in a thread of its own (seconds
 * of CPU for a 1,000,000-name zone) and the reaper frees the old one;
 * on a machine with as many cores as busy threads a worker woken by a
 * query waited for the scheduler to take a core from them (the
 * cache-hit p99 while a fast_reload built: 5.08 ms against 0.70 ms
 * without a reload, doc/performance.md "Reload"). At nice 19 such a
 * thread weighs 15 against a worker's 1024: a woken worker is ahead
 * of it for the CPU, and it still gets the CPU the workers leave.
 * Not SCHED_IDLE (weight 3, preempted at every wake-up): with the
 * daemon and its client on one busy core, a 1,000,000-name build got
 * 1.6 s of CPU in 3 minutes (its wait for the CPU: 170 s) and did not
 * finish; the main thread, which answers the control channel, is not
 * lowered. */
#include "config.h"
#include "util/thread_prio.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#ifdef __linux__
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
	int lowered = setpriority(PRIO_PROCESS, (id_t)tid,
		THREAD_PRIO_BACKGROUND_NICE) == 0;
	if(!lowered)
		verbose(VERB_DETAIL, "%s thread: setpriority: %s", name,
			strerror(errno));
#  ifdef __GLIBC__
	(void)pthread_setname_np(pthread_self(), name);
#  endif
	return lowered;
#else
	(void)name;
	return 0;
#endif
}
