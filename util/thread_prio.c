/* SPDX-License-Identifier: BSD-3-Clause */
/* util/thread_prio.c - see util/thread_prio.h.
 *
 * Why: a reload builds the new config in a thread of its own (seconds
 * of CPU for a 1,000,000-name zone) and the reaper frees the old one;
 * on a machine with as many cores as busy threads a worker woken by a
 * query waited for the scheduler to take a core from them (the
 * cache-hit p99 while a fast_reload built: 5.08 ms against 0.70 ms
 * without a reload, doc/performance.md "Reload"). Ten nice levels
 * below a worker such a thread weighs 110 against the worker's 1024: a
 * woken worker is ahead of it for the CPU (its deadline comes first),
 * and it still gets the CPU the workers leave, and a tenth of a CPU a
 * busy worker keeps. Not lower: at nice 19 (weight 15) the
 * 1,000,000-name build pinned to one busy core with its client took
 * 158 s against 7 to 16 s (nice +10: 16 to 25 s), with no lower p99;
 * under SCHED_IDLE (weight 3) it got 1.6 s of CPU in 3 minutes. The
 * main thread, which answers the control channel, is not lowered. */
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
	int lowered = 0;
#ifdef __linux__
	/* the nice value is per thread on Linux: the thread's id, not 0,
	 * which POSIX reads as the whole process */
	id_t tid = (id_t)syscall(SYS_gettid);
	int cur, want;
	errno = 0;
	cur = getpriority(PRIO_PROCESS, tid);
	want = cur + THREAD_PRIO_BACKGROUND_NICE;
	if(want > 19)
		want = 19;
	if(errno != 0)
		verbose(VERB_DETAIL, "%s thread: getpriority: %s", name,
			strerror(errno));
	else if(want > cur) {
		if(setpriority(PRIO_PROCESS, tid, want) == 0)
			lowered = 1;
		else	verbose(VERB_DETAIL, "%s thread: setpriority: %s",
				name, strerror(errno));
	}
#  ifdef __GLIBC__
	(void)pthread_setname_np(pthread_self(), name);
#  endif
#endif
	(void)name;
	return lowered;
}
