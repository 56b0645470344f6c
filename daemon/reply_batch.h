/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/reply_batch.h - UDP replies to clients that waited for the
 * mesh, sent together at the end of an event-loop turn (sendmmsg per
 * socket) instead of one sendto each as the answers come in: the
 * worker's flush event, made active by a batch's first reply, runs after
 * the turn's other callbacks. The turn's upstream replies then cost the
 * client one wake-up instead of one each (doc/performance.md,
 * "Prefetches, spares and replies at the end of a turn"). */
#ifndef DAEMON_REPLY_BATCH_H
#define DAEMON_REPLY_BATCH_H
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "util/log.h"
#include "util/sys_nocancel.h"

struct reply_batch;

/* NULL when out of memory (the caller then sends each reply at once). */
struct reply_batch* reply_batch_create(void);
/* Sends what is queued first. */
void reply_batch_delete(struct reply_batch* b);
/* Queue a copy of the reply to addr on fd. What is queued is sent first
 * when the queue is full or holds replies for another socket; a reply
 * too large for the queue is sent at once. */
void reply_batch_add(struct reply_batch* b, int fd,
	const struct sockaddr* addr, socklen_t addrlen, const uint8_t* reply,
	size_t len);
/* Send what is queued: sendmmsg, the rest after a reply the kernel
 * refused (a full buffer, an unreachable client) dropped. */
void reply_batch_flush(struct reply_batch* b);
/* Send the n datagrams of m on fd (sendmmsg without libc's
 * cancellation bookkeeping, again for the rest after a partial send);
 * one the kernel refuses is dropped and the rest still go. Inline: the
 * cache hits' replies go this way once a batch (24 instructions a hit
 * as a call into another file). */
static inline void udp_send_all(int fd, struct mmsghdr* m, int n)
{
	int i = 0;
	while(i < n) {
		int s = nc_sendmmsg(fd, m + i, (unsigned)(n - i), 0);
		if(s <= 0) {
			if(s < 0 && errno == EINTR)
				continue;
			/* a full socket buffer or an unreachable client:
			 * this reply is dropped, the rest go on */
			verbose(VERB_ALGO, "sendmmsg: %s",
				s < 0 ? strerror(errno) : "0 sent");
			i++;
			continue;
		}
		i += s;
	}
}
/* Replies queued and not yet sent. */
int reply_batch_queued(const struct reply_batch* b);

#endif
