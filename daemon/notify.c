/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/notify.c - compat: unbound-1.17: sd_notify's datagrams to
 * $NOTIFY_SOCKET, written here (no libsystemd). See daemon/notify.h. */
#include "config.h"
#include "daemon/notify.h"
#include "util/log.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct daemon_notify {
	int fd;
};

/* compat: unbound-1.17: Unbound's words when sd_notify fails (there a
 * fatal error) */
static void notify_failed(int err)
{
	const char* env = getenv("NOTIFY_SOCKET");
	log_err("sd_notify failed %s: %s. Make sure that unbound has "
		"access/permission to use the socket presented by systemd.",
		env ? env : "", strerror(err));
}

/* The address of name: a path, or '@' and an abstract name. 0 when it
 * is neither or too long. */
static int notify_addr(const char* name, struct sockaddr_un* sun,
	socklen_t* len)
{
	size_t n = strlen(name);
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if((name[0] != '/' && name[0] != '@') || n < 2 ||
		n >= sizeof(sun->sun_path))
		return 0;
	memcpy(sun->sun_path, name, n);
	if(name[0] == '@')
		sun->sun_path[0] = 0;   /* Linux's abstract namespace */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
		(name[0] == '/'));
	return 1;
}

enum notify_open daemon_notify_create(struct daemon_notify** out)
{
	const char* name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	/* a stuck manager holds the main thread no longer than this */
	struct timeval tv = { 2, 0 };
	socklen_t len;
	int fd;
	*out = NULL;
	if(!name || !name[0])
		return NOTIFY_NONE;
	if(!notify_addr(name, &sun, &len)) {
		notify_failed(EAFNOSUPPORT);
		return NOTIFY_FAILED;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if(fd == -1) {
		notify_failed(errno);
		return NOTIFY_FAILED;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if(connect(fd, (struct sockaddr*)&sun, len) != 0) {
		notify_failed(errno);
		close(fd);
		return NOTIFY_FAILED;
	}
	if(!(*out = calloc(1, sizeof(**out)))) {
		log_err("out of memory");
		close(fd);
		return NOTIFY_FAILED;
	}
	(*out)->fd = fd;
	return NOTIFY_OPENED;
}

int daemon_notify_send(struct daemon_notify* n, const char* state)
{
	if(!n)
		return 1;
	verbose(VERB_ALGO, "sd_notify: %s", state);
	if(send(n->fd, state, strlen(state), MSG_NOSIGNAL) < 0) {
		notify_failed(errno);
		return 0;
	}
	return 1;
}

void daemon_notify_reloading(struct daemon_notify* n)
{
	struct timespec t;
	char buf[64];
	if(!n)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		(unsigned long long)t.tv_sec * 1000000ULL +
		(unsigned long long)t.tv_nsec / 1000);
	(void)daemon_notify_send(n, buf);
}

void daemon_notify_delete(struct daemon_notify* n)
{
	if(!n)
		return;
	close(n->fd);
	free(n);
}
