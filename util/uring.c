/* SPDX-License-Identifier: BSD-3-Clause */
/* util/uring.c - a minimal io_uring over the raw system calls
 * (util/uring.h). */
#include "config.h"
#include "util/uring.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Flags newer than the system headers may know (the kernel's ABI). */
#ifndef IORING_ENTER_ABS_TIMER
#define IORING_ENTER_ABS_TIMER (1U << 5)   /* Linux 6.12 */
#endif

#if defined(__NR_io_uring_setup) && defined(__NR_io_uring_enter)

static int sys_setup(unsigned entries, struct io_uring_params* p)
{
	return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(int fd, unsigned submit, unsigned wait,
	unsigned flags, const void* arg, size_t argsz)
{
	return (int)syscall(__NR_io_uring_enter, fd, submit, wait, flags,
		arg, argsz);
}

/* Does the wait take an absolute deadline (Linux 6.12)? A deadline in
 * the past returns at once where it does; older kernels refuse the
 * flag (EINVAL). */
static int probe_abs_timer(struct uring* r)
{
	struct timespec zero = { 0, 0 };
	struct io_uring_getevents_arg arg;
	int n;
	memset(&arg, 0, sizeof(arg));
	arg.ts = (uint64_t)(uintptr_t)&zero;
	n = sys_enter(r->fd, 0, 1, IORING_ENTER_GETEVENTS |
		IORING_ENTER_EXT_ARG | IORING_ENTER_ABS_TIMER, &arg,
		sizeof(arg));
	return n >= 0 || errno == ETIME;
}

struct uring* uring_create(unsigned entries, char* why, size_t whylen)
{
	/* completions run in this thread when it waits (DEFER_TASKRUN,
	 * Linux 6.1), else whenever it enters the kernel (COOP, 5.19) */
	static const unsigned try_flags[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0
	};
	struct io_uring_params p;
	struct uring* r = calloc(1, sizeof(*r));
	size_t i;
	int fd = -1;
	if(!r) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	r->fd = -1;
	for(i = 0; i < sizeof(try_flags) / sizeof(try_flags[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = try_flags[i];
		fd = sys_setup(entries, &p);
		if(fd >= 0 || errno != EINVAL)
			break;
	}
	if(fd < 0) {
		snprintf(why, whylen, "io_uring_setup: %s", strerror(errno));
		free(r);
		return NULL;
	}
	r->fd = fd;
	r->features = p.features;
	if(!(p.features & IORING_FEAT_EXT_ARG)) {
		/* a wait with a timeout needs IORING_ENTER_EXT_ARG */
		snprintf(why, whylen, "io_uring without a timed wait "
			"(Linux before 5.11)");
		uring_delete(r);
		return NULL;
	}
	r->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	r->cq_map_len = p.cq_off.cqes + p.cq_entries *
		sizeof(struct io_uring_cqe);
	if(p.features & IORING_FEAT_SINGLE_MMAP) {
		if(r->cq_map_len > r->sq_map_len)
			r->sq_map_len = r->cq_map_len;
		r->cq_map_len = 0;
	}
	r->sq_map = mmap(NULL, r->sq_map_len, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	if(r->sq_map == MAP_FAILED) {
		r->sq_map = NULL;
		goto fail_map;
	}
	if(r->cq_map_len) {
		r->cq_map = mmap(NULL, r->cq_map_len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
		if(r->cq_map == MAP_FAILED) {
			r->cq_map = NULL;
			goto fail_map;
		}
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if(r->sqes == MAP_FAILED) {
		r->sqes = NULL;
		goto fail_map;
	}
	{
		char* sq = r->sq_map;
		char* cq = r->cq_map ? r->cq_map : r->sq_map;
		unsigned* array = (unsigned*)(sq + p.sq_off.array);
		r->sq_head = (unsigned*)(sq + p.sq_off.head);
		r->sq_tail = (unsigned*)(sq + p.sq_off.tail);
		r->sq_mask = *(unsigned*)(sq + p.sq_off.ring_mask);
		r->sq_entries = p.sq_entries;
		r->cq_head = (unsigned*)(cq + p.cq_off.head);
		r->cq_tail = (unsigned*)(cq + p.cq_off.tail);
		r->cq_mask = *(unsigned*)(cq + p.cq_off.ring_mask);
		r->cqes = (struct io_uring_cqe*)(cq + p.cq_off.cqes);
		/* entries are used in ring order: the index array maps
		 * slot i to entry i, once */
		for(i = 0; i < p.sq_entries; i++)
			array[i] = (unsigned)i;
		r->sq_next = *r->sq_tail;
	}
	r->abs_timer = probe_abs_timer(r);
	return r;
fail_map:
	snprintf(why, whylen, "io_uring mmap: %s", strerror(errno));
	uring_delete(r);
	return NULL;
}

void uring_delete(struct uring* r)
{
	if(!r)
		return;
	if(r->sqes)
		munmap(r->sqes, r->sqes_len);
	if(r->cq_map)
		munmap(r->cq_map, r->cq_map_len);
	if(r->sq_map)
		munmap(r->sq_map, r->sq_map_len);
	if(r->fd != -1)
		close(r->fd);
	free(r);
}

int uring_op_supported(struct uring* r, unsigned op)
{
	/* the probe, with room for 256 opcodes */
	union {
		struct io_uring_probe p;
		char room[sizeof(struct io_uring_probe) +
			256 * sizeof(struct io_uring_probe_op)];
	} u;
#ifdef __NR_io_uring_register
	memset(&u, 0, sizeof(u));
	if(op >= 256 || syscall(__NR_io_uring_register, r->fd,
		IORING_REGISTER_PROBE, &u.p, 256) < 0)
		return 0;
	return op <= u.p.last_op &&
		(u.p.ops[op].flags & IO_URING_OP_SUPPORTED) != 0;
#else
	(void)r;
	(void)op;
	(void)u;
	return 0;
#endif
}

int uring_poll_in(struct uring* r, int fd, uint64_t tag)
{
	struct io_uring_sqe* e = uring_sqe(r);
	if(!e)
		return 0;
	e->opcode = IORING_OP_POLL_ADD;
	e->fd = fd;
	/* the 16-bit field: the kernel reads it right on either byte
	 * order (poll32_events needs its halves swapped on big-endian) */
	e->poll_events = POLLIN;
	e->user_data = tag;
	return 1;
}

int uring_enter(struct uring* r, int wait, const struct timespec* deadline)
{
	struct io_uring_getevents_arg arg;
	/* all the kernel has not taken yet, also those a call before
	 * left (no room for their completions then) */
	unsigned submit = r->sq_next - __atomic_load_n(r->sq_head,
		__ATOMIC_ACQUIRE);
	unsigned flags = 0;
	int n;
	/* the entries are written before the kernel may see the tail */
	__atomic_store_n(r->sq_tail, r->sq_next, __ATOMIC_RELEASE);
	if(wait) {
		flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
		memset(&arg, 0, sizeof(arg));
		if(deadline) {
			arg.ts = (uint64_t)(uintptr_t)deadline;
			if(r->abs_timer)
				flags |= IORING_ENTER_ABS_TIMER;
		}
	}
	n = sys_enter(r->fd, submit, wait ? 1 : 0, flags, wait ? &arg : NULL,
		wait ? sizeof(arg) : 0);
	if(n < 0) {
		if(errno == ETIME)
			return 0;   /* the deadline passed, nothing completed */
		return -errno;
	}
	return n;
}

#else /* no io_uring system calls on this system */

struct uring* uring_create(unsigned entries, char* why, size_t whylen)
{
	(void)entries;
	snprintf(why, whylen, "no io_uring on this system");
	return NULL;
}

void uring_delete(struct uring* r)
{
	(void)r;
}

int uring_poll_in(struct uring* r, int fd, uint64_t tag)
{
	(void)r;
	(void)fd;
	(void)tag;
	return 0;
}

int uring_op_supported(struct uring* r, unsigned op)
{
	(void)r;
	(void)op;
	return 0;
}

int uring_enter(struct uring* r, int wait, const struct timespec* deadline)
{
	(void)r;
	(void)wait;
	(void)deadline;
	return -ENOSYS;
}

#endif
