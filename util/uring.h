/* SPDX-License-Identifier: BSD-3-Clause */
/* util/uring.h - a minimal io_uring: one submission and one completion
 * queue over the raw system calls (no liburing), with only what the
 * worker's wait needs (daemon/worker_wait.c): socket polls, sendmsg,
 * and one io_uring_enter that submits a loop turn's requests and waits
 * for the next completion with a deadline.
 *
 * Linux only; uring_create says why it cannot make a ring (no
 * io_uring in this kernel, or a seccomp filter that refuses it as
 * container runtimes do, or a kernel before 5.11: no timeout on the
 * wait). One thread uses a ring. */
#ifndef UTIL_URING_H
#define UTIL_URING_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/io_uring.h>

struct uring {
	int fd;
	unsigned features;     /* IORING_FEAT_* of this kernel */
	int abs_timer;         /* the wait takes an absolute deadline */
	/* the submission queue: the kernel reads entries head..tail */
	unsigned* sq_head;
	unsigned* sq_tail;
	unsigned sq_mask, sq_entries;
	unsigned sq_next;      /* this side's tail: written, not published */
	struct io_uring_sqe* sqes;
	/* the completion queue: this side reads entries head..tail */
	unsigned* cq_head;
	unsigned* cq_tail;
	unsigned cq_mask;
	struct io_uring_cqe* cqes;
	/* the mappings, for uring_delete */
	void* sq_map, *cq_map;
	size_t sq_map_len, cq_map_len, sqes_len;
};

/* A ring of at least entries submission slots; NULL with why (a short
 * reason for the log) filled when this system cannot make one. */
struct uring* uring_create(unsigned entries, char* why, size_t whylen);
/* Unmaps and closes; accepts NULL. Requests in flight are cancelled by
 * the kernel. */
void uring_delete(struct uring* r);

/* A zeroed submission entry, sent with the next uring_enter; NULL when
 * the queue is full (uring_sq_room says how many are left). */
static inline struct io_uring_sqe* uring_sqe(struct uring* r)
{
	struct io_uring_sqe* e;
	if(r->sq_next - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) >=
		r->sq_entries)
		return NULL;
	e = &r->sqes[r->sq_next & r->sq_mask];
	r->sq_next++;
	*e = (struct io_uring_sqe){ 0 };
	return e;
}

static inline unsigned uring_sq_room(const struct uring* r)
{
	return r->sq_entries - (r->sq_next -
		__atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE));
}

/* A poll for POLLIN on fd, one completion with user_data tag when fd
 * is readable (at once when it is readable already: level-triggered,
 * as an epoll without EPOLLET). 0 when the queue is full. */
int uring_poll_in(struct uring* r, int fd, uint64_t tag);

/* Does this kernel know request opcode op (IORING_REGISTER_PROBE,
 * Linux 5.6)? 0 when it does not or cannot say. */
int uring_op_supported(struct uring* r, unsigned op);

/* Submit what uring_sqe handed out and, when wait, wait for at least
 * one completion or until the deadline (NULL: none; absolute on
 * CLOCK_MONOTONIC when r->abs_timer, else relative). Returns the
 * requests submitted (0 and up), or -errno (EINTR: a signal; EBUSY,
 * EAGAIN: no room for completions now: reap them and try again).
 * Entries not submitted stay queued for the next call. */
int uring_enter(struct uring* r, int wait, const struct timespec* deadline);

/* The next completion, or NULL; uring_cqe_seen gives its slot back. */
static inline struct io_uring_cqe* uring_cqe_peek(struct uring* r)
{
	unsigned head = *r->cq_head;
	if(head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return NULL;
	return &r->cqes[head & r->cq_mask];
}

static inline void uring_cqe_seen(struct uring* r)
{
	__atomic_store_n(r->cq_head, *r->cq_head + 1, __ATOMIC_RELEASE);
}

#endif
