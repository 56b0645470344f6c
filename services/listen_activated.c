/* SPDX-License-Identifier: BSD-3-Clause */
/* services/listen_activated.c - sockets passed by systemd's socket
 * activation (use-systemd). See services/listen_activated.h. */
#include "config.h"
#include "services/listen_activated.h"
#include "util/log.h"
#include "util/net_help.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

/* sd_listen_fds(3): the first passed descriptor */
#define ACTIVATED_FD_START 3
/* more than any unit passes; bounds what a bad $LISTEN_FDS makes us
 * look at */
#define ACTIVATED_MAX 1024

struct activated_sock {
	int fd;
	int is_tcp;             /* a listening stream socket */
	int is_udp;             /* a datagram socket */
	int taken;              /* the caller owns it */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char name[64];          /* from $LISTEN_FDNAMES, for the log */
};

struct listen_activated {
	struct activated_sock* socks;
	int num;
};

/* A decimal number that is all of s, 0..max; -1 otherwise. */
static long env_number(const char* s, long max)
{
	char* end;
	long v;
	if(!s || !s[0])
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if(errno || *end || v < 0 || v > max)
		return -1;
	return v;
}

/* The i-th colon-separated name of $LISTEN_FDNAMES into buf. */
static void fd_name(const char* names, int i, char* buf, size_t len)
{
	const char* p = names;
	size_t n;
	buf[0] = 0;
	while(p && i-- > 0) {
		p = strchr(p, ':');
		if(p)
			p++;
	}
	if(!p)
		return;
	n = strcspn(p, ":");
	if(n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

/* What passed fd is: an inet socket bound somewhere, UDP or listening
 * TCP; 0 for anything else (a unix socket, a FIFO, a closed fd). */
static int describe(struct activated_sock* s)
{
	int type = 0, accepting = 0;
	socklen_t len = sizeof(type);
	if(getsockopt(s->fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
		return 0;
	s->addrlen = sizeof(s->addr);
	if(getsockname(s->fd, (struct sockaddr*)&s->addr, &s->addrlen) != 0
		|| (s->addr.ss_family != AF_INET &&
		s->addr.ss_family != AF_INET6))
		return 0;
	len = sizeof(accepting);
	if(getsockopt(s->fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len)
		!= 0)
		accepting = 0;
	s->is_tcp = type == SOCK_STREAM && accepting;
	s->is_udp = type == SOCK_DGRAM;
	return s->is_tcp || s->is_udp;
}

struct listen_activated* listen_activated_create(void)
{
	const char* pid_s = getenv("LISTEN_PID");
	const char* fds_s = getenv("LISTEN_FDS");
	struct listen_activated* a;
	long pid, n;
	int i;
	/* compat: unbound-1.17: Unbound's warnings when the variables are
	 * missing; it then binds the interfaces itself, as here */
	if(!pid_s) {
		log_warn("Systemd mandatory ENV variable is not defined: "
			"LISTEN_PID");
		return NULL;
	}
	if(!fds_s) {
		log_warn("Systemd mandatory ENV variable is not defined: "
			"LISTEN_FDS");
		return NULL;
	}
	pid = env_number(pid_s, LONG_MAX);
	n = env_number(fds_s, ACTIVATED_MAX);
	/* sd_listen_fds: the sockets are another process's when the pid
	 * is not ours (passed on through an exec) */
	if(pid != (long)getpid() || n <= 0) {
		log_warn("systemd: did not return socket, check unit "
			"configuration");
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if(!a || !(a->socks = calloc((size_t)n, sizeof(*a->socks)))) {
		free(a);
		log_err("out of memory");
		return NULL;
	}
	for(i = 0; i < (int)n; i++) {
		struct activated_sock* s = &a->socks[a->num];
		int fl;
		s->fd = ACTIVATED_FD_START + i;
		fd_name(getenv("LISTEN_FDNAMES"), i, s->name,
			sizeof(s->name));
		if(!describe(s)) {
			/* not ours to use or close: left as it is */
			log_warn("systemd: passed fd %d (%s) is not an IP "
				"datagram or listening stream socket, not "
				"used", s->fd, s->name);
			continue;
		}
		/* as sd_listen_fds: not inherited by what we exec; and
		 * the workers read without blocking */
		(void)fcntl(s->fd, F_SETFD, FD_CLOEXEC);
		fl = fcntl(s->fd, F_GETFL);
		if(fl != -1)
			(void)fcntl(s->fd, F_SETFL, fl | O_NONBLOCK);
		a->num++;
	}
	verbose(VERB_OPS, "systemd passed %d sockets", a->num);
	return a;
}

/* Same family, address and port. */
static int same_addr(const struct sockaddr_storage* x,
	const struct sockaddr_storage* y)
{
	if(x->ss_family != y->ss_family || addr_port(x) != addr_port(y))
		return 0;
	if(x->ss_family == AF_INET)
		return memcmp(&((const struct sockaddr_in*)x)->sin_addr,
			&((const struct sockaddr_in*)y)->sin_addr,
			sizeof(struct in_addr)) == 0;
	return memcmp(&((const struct sockaddr_in6*)x)->sin6_addr,
		&((const struct sockaddr_in6*)y)->sin6_addr,
		sizeof(struct in6_addr)) == 0;
}

int listen_activated_take(struct listen_activated* a,
	const struct sockaddr_storage* addr, int is_tcp)
{
	int i;
	if(!a)
		return -1;
	for(i = 0; i < a->num; i++) {
		struct activated_sock* s = &a->socks[i];
		if((is_tcp ? s->is_tcp : s->is_udp) &&
			same_addr(&s->addr, addr)) {
			s->taken = 1;
			return s->fd;
		}
	}
	return -1;
}

void listen_activated_delete(struct listen_activated* a)
{
	int i;
	if(!a)
		return;
	for(i = 0; i < a->num; i++) {
		struct activated_sock* s = &a->socks[i];
		if(s->taken)
			continue;
		log_warn("systemd: passed %s socket fd %d (%s) on port %d "
			"matches no interface: closed", s->is_tcp ? "tcp" :
			"udp", s->fd, s->name, addr_port(&s->addr));
		close(s->fd);
	}
	free(a->socks);
	free(a);
}
