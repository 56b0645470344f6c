/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/missfloor.c - the floor for the cache-miss benchmark: a
 * "resolver" with no resolution logic. It reads client queries (UDP,
 * recvmmsg in batches of 32 as the daemon's worker), and for each one
 * opens a new UDP socket, binds it to a port drawn at random from
 * 1024-65535, connects it to the one upstream, registers it with epoll,
 * sends the query with a random ID; on the reply: recv, check the ID,
 * epoll_ctl DEL, close, and send the reply to the client with the
 * client's ID (sendto, one per reply, as the daemon). Unanswered
 * upstream queries are dropped after 2 s. The syscalls per miss are the
 * daemon's (Debian's Unbound adds getrandom, fcntl and setsockopt
 * calls; doc/performance.md, "The floor of a miss"), so its sys time
 * per miss is the kernel's floor for a design with a fresh random port
 * per upstream query, and user+sys the floor of the whole.
 *
 * Raw epoll, not libevent: nothing between the program and the kernel,
 * so every syscall is one the design needs and the user time is the
 * least any event loop can add (libevent's epoll backend makes the same
 * epoll_ctl calls for an EV_READ event added and deleted).
 *
 *   missfloor [options] LISTEN_ADDR LISTEN_PORT UPSTREAM_ADDR UPSTREAM_PORT
 *     -s   no connect: sendto/recvfrom, the reply's source address and
 *          port checked in user space (what udp-connect: no does)
 *     -f   O_NONBLOCK by fcntl (F_GETFL, F_SETFL) instead of
 *          SOCK_NONBLOCK in socket()
 *     -k   no epoll_ctl DEL before close (close removes it)
 *     -P N a pool of N sockets opened, bound to random ports and
 *          registered with epoll ahead; each is used for one query and
 *          closed, and a new one opened in its place (the same work
 *          per miss, moved out of the query's path)
 *     -a   no bind: connect picks the port (the kernel's ephemeral
 *          range, net.ipv4.ip_local_port_range), a reference only:
 *          not Unbound's outgoing-range/outgoing-port-permit
 *     -R N reuse N long-lived connected sockets (fixed ports), a
 *          reference only: NOT source-port randomisation per query
 *     -D N N long-lived sockets, never bound, registered with epoll
 *          once; each query: connect (the kernel binds a random port
 *          from net.ipv4.ip_local_port_range), send, recv, then
 *          connect(AF_UNSPEC), which for a socket that was not bound
 *          by bind() gives the port back: a new random port per query
 *          without socket, bind, epoll_ctl or close, but from the
 *          kernel's ephemeral range, not outgoing-port-permit's
 *     -H N the port drawn by us from 1024-65535 as the floor's; when it
 *          lies in net.ipv4.ip_local_port_range, one of N idle sockets
 *          as -D gets it through IP_LOCAL_PORT_RANGE [port, port]
 *          (Linux 6.3) and connect, and gives it back with
 *          connect(AF_UNSPEC); otherwise (or when that fails: a
 *          reserved port) socket and bind as the floor: the same
 *          ports, drawn the same way, for less where the range allows
 *          (but a busy port makes the kernel scan its whole table)
 *     -K N as -H, but for a port in that range the kernel draws it
 *          (no IP_LOCAL_PORT_RANGE; getsockname tells which): uniform
 *          over the whole 1024-65535 still, where the kernel's range
 *          has no reserved ports and lies inside the permitted one
 * Prints its counters on SIGINT/SIGTERM (stderr) and exits.
 * Build: cc -O2 -o missfloor missfloor.c (run.sh builds it).
 * In the miss benchmark (a third server beside the two resolvers, the
 * same NSD, names and CPU pinning; doc/performance.md, "The floor of a
 * miss"):
 *   contrib/bench/run.sh --misses --unsigned
 *   contrib/bench/run.sh --misses --unsigned --no-p99 \
 *       --floor-variant floor= --floor-variant nodel=-k \
 *       --floor-variant kernel=-K256      # LABEL=FLAGS, repeatable */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 32
#define PKT 4096
#define MAXFD 65536
#define TIMEOUT_NS 2000000000LL
#define PORT_LO 1024
#define PORT_HI 65535

struct pending {            /* an upstream query, by its socket's fd */
	int used;
	uint16_t up_id, client_id;
	struct sockaddr_in client;
	uint64_t gen;           /* matches the timeout ring's entry */
	int pooled;             /* -H: back to the idle list, not closed */
};

struct ring_ent { int fd; uint64_t gen; int64_t deadline; };

static struct pending pend[MAXFD];
static struct ring_ent* ring;   /* FIFO of sends: the timeouts */
static size_t ring_cap, ring_head, ring_len;
static uint64_t gen_next = 1;
static int ep, client_fd;
static struct sockaddr_in upstream;
static int opt_sendto, opt_fcntl, opt_nodel, opt_pool, opt_autobind,
	opt_reuse, opt_disconnect, opt_hybrid, opt_kernel;
static int eph_lo, eph_hi;      /* net.ipv4.ip_local_port_range */
static unsigned long long n_cheap, n_bound;
static int* pool;              /* -P, -R: fds ready for a query */
static int pool_len;
static volatile sig_atomic_t stop;
static unsigned long long n_in, n_out, n_timeout, n_badsrc, n_badid,
	n_bindretry, n_err;
static uint64_t rs[2];          /* xorshift128+: benchmark, not crypto */

static uint64_t rnd64(void)
{
	uint64_t x = rs[0], y = rs[1];
	rs[0] = y;
	x ^= x << 23;
	rs[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
	return rs[1] + y;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int s) { (void)s; stop = 1; }
static void expire(void);

static void drop(int fd)
{
	if(!opt_nodel)
		epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	pend[fd].used = 0;
	close(fd);
}

/* A new UDP socket on a random port (or the kernel's, -a); -1 on error. */
static int open_random(void)
{
	int tries;
	for(tries = 0; tries < 20; tries++) {
		struct sockaddr_in src;
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC |
			(opt_fcntl ? 0 : SOCK_NONBLOCK), 0);
		if(fd < 0)
			return -1;
		if(fd >= MAXFD) {
			close(fd);
			return -1;
		}
		if(opt_fcntl) {
			int fl = fcntl(fd, F_GETFL);
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		}
		if(opt_autobind)
			return fd;
		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		src.sin_addr.s_addr = htonl(INADDR_ANY);
		src.sin_port = htons((uint16_t)(PORT_LO +
			rnd64() % (PORT_HI - PORT_LO + 1)));
		if(bind(fd, (struct sockaddr*)&src, sizeof(src)) == 0)
			return fd;
		close(fd);
		if(errno != EADDRINUSE && errno != EACCES)
			return -1;
		n_bindretry++;
	}
	return -1;
}

static int watch(int fd)
{
	struct epoll_event ev;
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif

/* -H: a connected, watched socket on a port drawn from the whole
 * range; -1 on error. */
static int hybrid_socket(void)
{
	int tries;
	for(tries = 0; tries < 20; tries++) {
		int port = PORT_LO + (int)(rnd64() % (PORT_HI - PORT_LO + 1));
		struct sockaddr_in src;
		int fd;
		if(port >= eph_lo && port <= eph_hi) {
			uint32_t range = (uint32_t)port | (uint32_t)port << 16;
			if(pool_len > 0)
				fd = pool[--pool_len];
			else {
				fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
					SOCK_CLOEXEC, 0);
				if(fd < 0 || fd >= MAXFD || watch(fd) != 0) {
					if(fd >= 0)
						close(fd);
					return -1;
				}
			}
			if((opt_kernel || setsockopt(fd, IPPROTO_IP,
				IP_LOCAL_PORT_RANGE, &range, sizeof(range)) == 0)
				&& connect(fd, (struct sockaddr*)&upstream,
				sizeof(upstream)) == 0) {
				if(opt_kernel) {    /* which port, as a daemon
						     * must know for its pool */
					socklen_t sl = sizeof(src);
					if(getsockname(fd, (struct sockaddr*)&src,
						&sl) != 0)
						n_err++;
				}
				pend[fd].pooled = 1;
				n_cheap++;
				return fd;
			}
			pool[pool_len++] = fd;  /* busy or reserved: bind it */
		}
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
		if(fd < 0 || fd >= MAXFD) {
			if(fd >= 0)
				close(fd);
			return -1;
		}
		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		src.sin_port = htons((uint16_t)port);
		if(bind(fd, (struct sockaddr*)&src, sizeof(src)) != 0) {
			close(fd);
			n_bindretry++;
			continue;
		}
		if(watch(fd) != 0 || connect(fd, (struct sockaddr*)&upstream,
			sizeof(upstream)) != 0) {
			drop(fd);
			return -1;
		}
		pend[fd].pooled = 0;
		n_bound++;
		return fd;
	}
	return -1;
}

/* A socket for one upstream query, connected unless -s, watched by
 * epoll; -1 on error. */
static int upstream_socket(void)
{
	int fd;
	if(opt_hybrid)
		return hybrid_socket();
	if(pool_len > 0) {
		fd = pool[--pool_len];
		if(opt_reuse)
			return fd;          /* connected and watched since */
	} else if(opt_disconnect) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
		if(fd < 0 || fd >= MAXFD || watch(fd) != 0) {
			if(fd >= 0)
				close(fd);
			return -1;
		}
	} else {
		fd = open_random();
		if(fd < 0)
			return -1;
		if(watch(fd) != 0) {
			close(fd);
			return -1;
		}
	}
	if(!opt_sendto && connect(fd, (struct sockaddr*)&upstream,
		sizeof(upstream)) != 0) {
		drop(fd);
		return -1;
	}
	return fd;
}

/* -P: one opened, bound, watched socket more in the pool. */
static void pool_fill(void)
{
	while(opt_pool && pool_len < opt_pool) {
		int fd = open_random();
		if(fd < 0)
			return;
		if(watch(fd) != 0) {
			close(fd);
			return;
		}
		pool[pool_len++] = fd;
	}
}

static void start_query(uint8_t* q, size_t len, struct sockaddr_in* from)
{
	int fd;
	ssize_t r;
	struct pending* p;
	if(len < 12 || (q[2] & 0x80))
		return;
	fd = upstream_socket();
	if(fd < 0) {
		if(n_err++ < 3)
			perror("missfloor: upstream socket");
		return;
	}
	p = &pend[fd];
	p->used = 1;
	p->client = *from;
	p->client_id = (uint16_t)(q[0] << 8 | q[1]);
	p->up_id = (uint16_t)rnd64();
	q[0] = (uint8_t)(p->up_id >> 8);
	q[1] = (uint8_t)p->up_id;
	if(opt_sendto)
		r = sendto(fd, q, len, 0, (struct sockaddr*)&upstream,
			sizeof(upstream));
	else	r = send(fd, q, len, 0);
	if(r != (ssize_t)len) {
		if(n_err++ < 3)
			perror("missfloor: send");
		drop(fd);
		return;
	}
	if(ring_len == ring_cap)
		expire();
	if(ring_len == ring_cap) {      /* 2 s of sends behind a live one */
		if(n_err++ < 3)
			fprintf(stderr, "missfloor: timeout ring full\n");
		drop(fd);
		return;
	}
	p->gen = gen_next++;
	ring[(ring_head + ring_len++) % ring_cap] = (struct ring_ent){ fd,
		p->gen, now_ns() + TIMEOUT_NS };
}

/* The query is over: the socket goes (or back to the -R set). */
static void finish(int fd)
{
	static const struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	if((opt_disconnect || (opt_hybrid && pend[fd].pooled)) &&
		pool_len < MAXFD &&
		connect(fd, &unspec, sizeof(unspec)) == 0) {
		/* the port is given back; the next connect draws another */
		pend[fd].used = 0;
		pool[pool_len++] = fd;
		return;
	}
	if(opt_reuse && pool_len < MAXFD) {
		pend[fd].used = 0;
		pool[pool_len++] = fd;
		return;
	}
	drop(fd);
}

static void upstream_reply(int fd)
{
	uint8_t buf[PKT];
	struct pending* p = &pend[fd];
	ssize_t n;
	if(opt_sendto) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr*)&from,
			&fl);
		if(n >= 0 && (fl != sizeof(from) || from.sin_family != AF_INET
			|| from.sin_port != upstream.sin_port ||
			from.sin_addr.s_addr != upstream.sin_addr.s_addr)) {
			n_badsrc++;     /* not from the upstream: wait on */
			return;
		}
	} else	n = recv(fd, buf, sizeof(buf), 0);
	if(n < 0) {
		if(errno == EAGAIN || errno == EINTR)
			return;
		if(n_err++ < 3)
			perror("missfloor: recv");
		finish(fd);
		return;
	}
	if(!p->used)
		return;
	if(n < 12 || (uint16_t)(buf[0] << 8 | buf[1]) != p->up_id) {
		n_badid++;
		return;
	}
	buf[0] = (uint8_t)(p->client_id >> 8);
	buf[1] = (uint8_t)p->client_id;
	if(sendto(client_fd, buf, (size_t)n, 0, (struct sockaddr*)&p->client,
		sizeof(p->client)) == n)
		n_out++;
	finish(fd);
}

static void client_queries(void)
{
	static uint8_t bufs[BATCH][PKT];
	static struct sockaddr_in from[BATCH];
	static struct iovec iov[BATCH];
	static struct mmsghdr msg[BATCH];
	int i, n;
	for(;;) {
		for(i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = PKT;
			memset(&msg[i], 0, sizeof(msg[i]));
			msg[i].msg_hdr.msg_iov = &iov[i];
			msg[i].msg_hdr.msg_iovlen = 1;
			msg[i].msg_hdr.msg_name = &from[i];
			msg[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
		n = recvmmsg(client_fd, msg, BATCH, MSG_DONTWAIT, NULL);
		if(n <= 0)
			return;
		for(i = 0; i < n; i++) {
			n_in++;
			start_query(bufs[i], msg[i].msg_len, &from[i]);
		}
		if(n < BATCH)
			return;
	}
}

/* Pops the answered queries at the ring's head (replies come back
 * about in order, so it stays short) and times out the expired ones. */
static void expire(void)
{
	int64_t t = now_ns();
	while(ring_len > 0) {
		struct ring_ent e = ring[ring_head];
		int live = pend[e.fd].used && pend[e.fd].gen == e.gen;
		if(live && e.deadline > t)
			break;
		ring_head = (ring_head + 1) % ring_cap;
		ring_len--;
		if(live) {
			n_timeout++;
			finish(e.fd);
		}
	}
}

static int parse_addr(const char* a, const char* p, struct sockaddr_in* sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(p));
	return inet_pton(AF_INET, a, &sa->sin_addr) == 1;
}

int main(int argc, char** argv)
{
	struct sockaddr_in la;
	struct epoll_event evs[64];
	int c, i, one = 1;
	while((c = getopt(argc, argv, "sfkaP:R:D:H:K:")) != -1) {
		switch(c) {
		case 's': opt_sendto = 1; break;
		case 'f': opt_fcntl = 1; break;
		case 'k': opt_nodel = 1; break;
		case 'a': opt_autobind = 1; break;
		case 'P': opt_pool = atoi(optarg); break;
		case 'R': opt_reuse = atoi(optarg); break;
		case 'D': opt_disconnect = atoi(optarg); break;
		case 'H': opt_hybrid = atoi(optarg); break;
		case 'K': opt_hybrid = atoi(optarg); opt_kernel = 1; break;
		default: goto usage;
		}
	}
	if(argc - optind != 4 || !parse_addr(argv[optind], argv[optind + 1],
		&la) || !parse_addr(argv[optind + 2], argv[optind + 3],
		&upstream) || opt_pool < 0 || opt_reuse < 0 ||
		opt_pool > 30000 || opt_reuse > 30000 || opt_disconnect < 0 ||
		opt_disconnect > 30000 || (opt_reuse && (opt_pool ||
		opt_sendto)) || (opt_disconnect && (opt_pool || opt_sendto ||
		opt_reuse)) || opt_hybrid < 0 || opt_hybrid > 30000 ||
		(opt_hybrid && (opt_pool || opt_sendto || opt_reuse ||
		opt_disconnect || opt_autobind || opt_fcntl))) {
usage:
		fprintf(stderr, "usage: missfloor [-s] [-f] [-k] [-a] [-P N | "
			"-R N | -D N | -H N | -K N] LISTEN_ADDR PORT UPSTREAM_ADDR PORT\n");
		return 2;
	}
	if(getrandom(rs, sizeof(rs), 0) != sizeof(rs) || (rs[0] | rs[1]) == 0)
		rs[0] = (uint64_t)now_ns() | 1;
	ring_cap = 1 << 18;     /* > 2 s of sends at 100,000/s */
	ring = calloc(ring_cap, sizeof(*ring));
	pool = calloc(MAXFD, sizeof(int));  /* -R grows past N when all busy */
	ep = epoll_create1(EPOLL_CLOEXEC);
	client_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		0);
	if(!ring || !pool || ep < 0 || client_fd < 0)
		return 1;
	setsockopt(client_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if(bind(client_fd, (struct sockaddr*)&la, sizeof(la)) != 0) {
		perror("bind");
		return 1;
	}
	if(watch(client_fd) != 0)
		return 1;
	for(i = 0; i < opt_reuse; i++) {
		int fd = open_random();
		if(fd < 0 || connect(fd, (struct sockaddr*)&upstream,
			sizeof(upstream)) != 0 || watch(fd) != 0) {
			perror("reuse socket");
			return 1;
		}
		pool[pool_len++] = fd;
	}
	if(opt_hybrid) {
		FILE* f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
		if(!f || fscanf(f, "%d %d", &eph_lo, &eph_hi) != 2) {
			perror("ip_local_port_range");
			return 1;
		}
		fclose(f);
	}
	for(i = 0; i < opt_disconnect + opt_hybrid; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
			SOCK_CLOEXEC, 0);
		if(fd < 0 || fd >= MAXFD || watch(fd) != 0) {
			perror("disconnect socket");
			return 1;
		}
		pool[pool_len++] = fd;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	pool_fill();
	while(!stop) {
		int n = epoll_wait(ep, evs, 64, ring_len ? 100 : 1000);
		for(i = 0; i < n; i++) {
			if(evs[i].data.fd == client_fd)
				client_queries();
			else	upstream_reply(evs[i].data.fd);
		}
		pool_fill();
		expire();
	}
	fprintf(stderr, "missfloor: in %llu out %llu timeout %llu badsrc %llu "
		"badid %llu bindretry %llu err %llu", n_in, n_out, n_timeout,
		n_badsrc, n_badid, n_bindretry, n_err);
	if(opt_hybrid)
		fprintf(stderr, " kernel-bound %llu bound %llu (range %d-%d)",
			n_cheap, n_bound, eph_lo, eph_hi);
	fprintf(stderr, "\n");
	return 0;
}
