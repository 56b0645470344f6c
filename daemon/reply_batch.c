/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/reply_batch.c - UDP replies queued for one sendmmsg at the end
 * of an event-loop turn (reply_batch.h). */
#include "config.h"
#include "daemon/reply_batch.h"
#include "util/log.h"
#include "util/sys_nocancel.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* replies per sendmmsg, and the bytes they may hold together (a reply
 * is at most the client's EDNS size, mostly far less) */
#define BATCH_MAX 64
#define BATCH_BYTES (64 * 1024)

struct reply_batch {
	int fd;      /* the socket of the queued replies */
	int n;       /* queued */
	size_t used; /* bytes of buf taken */
	struct mmsghdr msg[BATCH_MAX];
	struct iovec iov[BATCH_MAX];
	struct sockaddr_storage addr[BATCH_MAX];
	uint8_t buf[BATCH_BYTES];
};

struct reply_batch* reply_batch_create(void)
{
	struct reply_batch* b = calloc(1, sizeof(*b));
	int i;
	if(!b)
		return NULL;
	b->fd = -1;
	for(i = 0; i < BATCH_MAX; i++) {
		b->msg[i].msg_hdr.msg_iov = &b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 1;
		b->msg[i].msg_hdr.msg_name = &b->addr[i];
	}
	return b;
}

void reply_batch_delete(struct reply_batch* b)
{
	if(!b)
		return;
	reply_batch_flush(b);
	free(b);
}

int reply_batch_queued(const struct reply_batch* b)
{
	return b->n;
}

void reply_batch_flush(struct reply_batch* b)
{
	udp_send_all(b->fd, b->msg, b->n);
	b->n = 0;
	b->used = 0;
	b->fd = -1;
}

void reply_batch_add(struct reply_batch* b, int fd,
	const struct sockaddr* addr, socklen_t addrlen, const uint8_t* reply,
	size_t len)
{
	int i;
	if(len > BATCH_BYTES || addrlen > (socklen_t)sizeof(b->addr[0])) {
		if(nc_sendto(fd, reply, len, 0, addr, addrlen) < 0)
			verbose(VERB_ALGO, "sendto: %s", strerror(errno));
		return;
	}
	if(b->n > 0 && (b->fd != fd || b->n == BATCH_MAX ||
		b->used + len > BATCH_BYTES))
		reply_batch_flush(b);
	i = b->n++;
	b->fd = fd;
	memcpy(b->buf + b->used, reply, len);
	b->iov[i].iov_base = b->buf + b->used;
	b->iov[i].iov_len = len;
	memcpy(&b->addr[i], addr, addrlen);
	b->msg[i].msg_hdr.msg_namelen = addrlen;
	b->used += len;
}
