/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/reply_batch_test.c - the worker's end-of-turn UDP reply
 * queue (daemon/reply_batch.c), over real loopback sockets: replies come
 * out in order, each to its address; the queue sends what it holds when
 * full, when the socket changes and when flushed; a reply the kernel
 * refuses is dropped and the rest still go. */
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
#include <unistd.h>
#include "daemon/reply_batch.h"

/* a UDP socket on 127.0.0.1, any port; its address in *a */
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

/* the datagrams waiting on fd, each checked to be "reply N" in order
 * from first; returns how many */
static int drain(int fd, int first)
{
	char buf[128], want[32];
	int n = 0;
	for(;;) {
		ssize_t r = recv(fd, buf, sizeof(buf) - 1, 0);
		if(r < 0) {
			assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
			return n;
		}
		buf[r] = 0;
		snprintf(want, sizeof(want), "reply %d", first + n);
		assert_string_equal(buf, want);
		n++;
	}
}

static void add(struct reply_batch* b, int fd, const struct sockaddr_in* to,
	int n)
{
	char msg[32];
	int len = snprintf(msg, sizeof(msg), "reply %d", n);
	reply_batch_add(b, fd, (const struct sockaddr*)to, sizeof(*to),
		(const uint8_t*)msg, (size_t)len);
}

static void test_order_and_flush(void** state)
{
	struct sockaddr_in ca, cb, s1a, s2a;
	int c1 = udp_on_loopback(&ca), c2 = udp_on_loopback(&cb);
	int s1 = udp_on_loopback(&s1a), s2 = udp_on_loopback(&s2a);
	struct reply_batch* b = reply_batch_create();
	int i;
	(void)state;
	assert_non_null(b);
	/* queued: nothing sent before the flush */
	for(i = 0; i < 10; i++)
		add(b, s1, i % 2 ? &cb : &ca, i);
	assert_int_equal(reply_batch_queued(b), 10);
	assert_int_equal(drain(c1, 0), 0);
	reply_batch_flush(b);
	assert_int_equal(reply_batch_queued(b), 0);
	/* each to its own address, in order */
	{
		char buf[32];
		for(i = 0; i < 10; i++) {
			int fd = i % 2 ? c2 : c1;
			ssize_t r = recv(fd, buf, sizeof(buf) - 1, 0);
			char want[32];
			assert_true(r > 0);
			buf[r] = 0;
			snprintf(want, sizeof(want), "reply %d", i);
			assert_string_equal(buf, want);
		}
	}
	/* full: the first 64 go when the 65th comes */
	for(i = 0; i < 65; i++)
		add(b, s1, &ca, i);
	assert_int_equal(reply_batch_queued(b), 1);
	assert_int_equal(drain(c1, 0), 64);
	reply_batch_flush(b);
	assert_int_equal(drain(c1, 64), 1);
	/* another socket: what the first one queued goes first */
	add(b, s1, &ca, 0);
	add(b, s1, &ca, 1);
	add(b, s2, &ca, 2);
	assert_int_equal(reply_batch_queued(b), 1);
	assert_int_equal(drain(c1, 0), 2);
	reply_batch_delete(b);   /* sends the rest */
	assert_int_equal(drain(c1, 2), 1);
	close(c1);
	close(c2);
	close(s1);
	close(s2);
}

/* a reply the kernel refuses (to port 0) is dropped, the ones after it
 * are sent; a reply larger than the queue goes at once */
static void test_refused_and_large(void** state)
{
	struct sockaddr_in ca, sa, bad;
	int c = udp_on_loopback(&ca), s = udp_on_loopback(&sa);
	struct reply_batch* b = reply_batch_create();
	static uint8_t big[70000];
	(void)state;
	assert_non_null(b);
	bad = ca;
	bad.sin_port = 0;
	add(b, s, &ca, 0);
	add(b, s, &bad, 99);
	add(b, s, &ca, 1);
	reply_batch_flush(b);
	assert_int_equal(drain(c, 0), 2);
	/* too large for UDP as well: refused by sendto, nothing queued */
	reply_batch_add(b, s, (const struct sockaddr*)&ca, sizeof(ca), big,
		sizeof(big));
	assert_int_equal(reply_batch_queued(b), 0);
	assert_int_equal(drain(c, 0), 0);
	reply_batch_delete(b);
	close(c);
	close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_flush),
		cmocka_unit_test(test_refused_and_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
