/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/uring_test.c - the minimal io_uring (util/uring.c) over
 * loopback UDP sockets: a poll completes when its socket is readable,
 * at once when it already is (level-triggered, as the worker's wait
 * relies on); a sendmsg entry goes out with the enter that waits; the
 * wait ends at its deadline with nothing completed. Skipped where the
 * system has no usable io_uring (the daemon then waits in epoll). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "util/uring.h"

static int udp_on_loopback(struct sockaddr_in* a)
{
	socklen_t l = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr*)a, sizeof(*a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr*)a, &l), 0);
	return fd;
}

static struct uring* ring_or_skip(void)
{
	char why[128];
	struct uring* r = uring_create(8, why, sizeof(why));
	if(!r) {
		fprintf(stderr, "no io_uring here (%s): skipped\n", why);
		skip();
	}
	return r;
}

/* the deadline ms from now, as r's wait takes it */
static struct timespec deadline_in(const struct uring* r, int ms)
{
	struct timespec t = { 0, 0 };
	if(r->abs_timer)
		clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if(t.tv_nsec >= 1000000000) {
		t.tv_nsec -= 1000000000;
		t.tv_sec++;
	}
	return t;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* the completions there now: their count, the last one's tag and
 * result in *tag, *res */
static int reap(struct uring* r, uint64_t* tag, int* res)
{
	struct io_uring_cqe* c;
	int n = 0;
	while((c = uring_cqe_peek(r))) {
		*tag = c->user_data;
		*res = c->res;
		uring_cqe_seen(r);
		n++;
	}
	return n;
}

static void test_poll_level_and_deadline(void** state)
{
	struct uring* r = ring_or_skip();
	struct sockaddr_in sa, ca;
	int s = udp_on_loopback(&sa), c = udp_on_loopback(&ca);
	struct timespec dl;
	uint64_t tag = 0;
	int res = 0;
	double t0;
	char buf[16];
	(void)state;
	/* nothing to read: the wait ends at its deadline, empty */
	assert_true(uring_poll_in(r, s, 7));
	dl = deadline_in(r, 40);
	t0 = now_ms();
	assert_true(uring_enter(r, 1, &dl) >= 0);
	assert_true(now_ms() - t0 >= 30.0);
	assert_int_equal(reap(r, &tag, &res), 0);
	/* a datagram completes the poll in flight */
	assert_int_equal(sendto(c, "q", 1, 0, (struct sockaddr*)&sa,
		sizeof(sa)), 1);
	dl = deadline_in(r, 5000);
	assert_true(uring_enter(r, 1, &dl) >= 0);
	assert_int_equal(reap(r, &tag, &res), 1);
	assert_int_equal(tag, 7);
	assert_true(res > 0);
	/* not read: a new poll completes at once (level-triggered) */
	assert_true(uring_poll_in(r, s, 8));
	dl = deadline_in(r, 5000);
	t0 = now_ms();
	assert_true(uring_enter(r, 1, &dl) >= 0);
	assert_true(now_ms() - t0 < 1000.0);
	assert_int_equal(reap(r, &tag, &res), 1);
	assert_int_equal(tag, 8);
	/* read: the next poll waits again */
	assert_int_equal(recv(s, buf, sizeof(buf), 0), 1);
	assert_true(uring_poll_in(r, s, 9));
	dl = deadline_in(r, 20);
	assert_true(uring_enter(r, 1, &dl) >= 0);
	assert_int_equal(reap(r, &tag, &res), 0);
	uring_delete(r);
	close(s);
	close(c);
}

/* sendmsg entries leave with the enter that waits, in order; with
 * IOSQE_CQE_SKIP_SUCCESS (where the kernel has it) only failures
 * complete */
static void test_sendmsg_with_wait(void** state)
{
	struct uring* r = ring_or_skip();
	struct sockaddr_in sa, ca, bad;
	int s = udp_on_loopback(&sa), c = udp_on_loopback(&ca);
	struct msghdr m[3];
	struct iovec iov[3];
	char text[3][8];
	struct timespec dl;
	uint64_t tag = 0;
	int res = 0, i, n;
	char buf[16];
	(void)state;
	bad = ca;
	bad.sin_port = 0;   /* refused: the failure completes */
	for(i = 0; i < 3; i++) {
		snprintf(text[i], sizeof(text[i]), "r%d", i);
		iov[i].iov_base = text[i];
		iov[i].iov_len = strlen(text[i]);
		memset(&m[i], 0, sizeof(m[i]));
		m[i].msg_name = i == 1 ? &bad : &ca;
		m[i].msg_namelen = sizeof(ca);
		m[i].msg_iov = &iov[i];
		m[i].msg_iovlen = 1;
	}
	for(i = 0; i < 3; i++) {
		struct io_uring_sqe* e = uring_sqe(r);
		assert_non_null(e);
		e->opcode = IORING_OP_SENDMSG;
		e->fd = s;
		e->addr = (uint64_t)(uintptr_t)&m[i];
		e->len = 1;
		e->msg_flags = MSG_DONTWAIT;
		e->user_data = 100 + (uint64_t)i;
		if(r->features & IORING_FEAT_CQE_SKIP)
			e->flags = IOSQE_CQE_SKIP_SUCCESS;
	}
	dl = deadline_in(r, 5000);
	assert_int_equal(uring_enter(r, 1, &dl), 3);
	n = reap(r, &tag, &res);
	if(r->features & IORING_FEAT_CQE_SKIP) {
		assert_int_equal(n, 1);
		assert_int_equal(tag, 101);
		assert_true(res < 0);
	}
	/* the two to ca arrived, in order, when the enter returned */
	assert_int_equal(recv(c, buf, sizeof(buf), MSG_DONTWAIT), 2);
	assert_memory_equal(buf, "r0", 2);
	assert_int_equal(recv(c, buf, sizeof(buf), MSG_DONTWAIT), 2);
	assert_memory_equal(buf, "r2", 2);
	assert_true(recv(c, buf, sizeof(buf), MSG_DONTWAIT) < 0);
	uring_delete(r);
	close(s);
	close(c);
}

/* the queue says when it is full, and has room again once submitted */
static void test_queue_full(void** state)
{
	struct uring* r = ring_or_skip();
	unsigned room = uring_sq_room(r), i;
	(void)state;
	assert_true(room >= 8);
	for(i = 0; i < room; i++) {
		struct io_uring_sqe* e = uring_sqe(r);
		assert_non_null(e);
		e->opcode = IORING_OP_NOP;
		e->user_data = i;
	}
	assert_null(uring_sqe(r));
	assert_int_equal(uring_enter(r, 0, NULL), (int)room);
	assert_int_equal(uring_sq_room(r), room);
	uring_delete(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll_level_and_deadline),
		cmocka_unit_test(test_sendmsg_with_wait),
		cmocka_unit_test(test_queue_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
