/* SPDX-License-Identifier: BSD-3-Clause */
/* services/listen_dnsport.c - open the listening sockets, probing
 * SO_REUSEPORT at run time and falling back to shared sockets. */
#include "config.h"
#include "services/listen_dnsport.h"
#include "services/listen_activated.h"
#include "services/udp_pktinfo.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/filter.h>

#define TCP_BACKLOG 256

/* How an open attempt went. */
enum open_result { OPEN_OK, OPEN_FAIL, OPEN_NO_REUSEPORT };

static void set_bufsize(int fd, int opt, int force_opt, size_t size,
	const char* name)
{
	int sz = size > 0x7fffffff ? 0x7fffffff : (int)size;
	if(size == 0)
		return;
	/* root may exceed the system maximum with the FORCE variant */
	if(setsockopt(fd, SOL_SOCKET, force_opt, &sz, sizeof(sz)) == 0)
		return;
	if(setsockopt(fd, SOL_SOCKET, opt, &sz, sizeof(sz)) != 0)
		log_warn("setsockopt(%s, %d) failed: %s", name, sz,
			strerror(errno));
}

/* Socket options that do not depend on SO_REUSEPORT. */
static int set_common_opts(int fd, const struct config_file* cfg,
	int family, int is_tcp)
{
	int on = 1;
	if(family == AF_INET6 &&
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) != 0) {
		log_err("setsockopt(IPV6_V6ONLY) failed: %s", strerror(errno));
		return 0;
	}
	if(is_tcp && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		sizeof(on)) != 0)
		log_warn("setsockopt(SO_REUSEADDR) failed: %s", strerror(errno));
	/* compat: unbound-1.17: a DSCP the kernel refuses is a warning */
	if(!fd_set_dscp(fd, family, cfg->ip_dscp))
		log_warn("error setting IP DiffServ codepoint %d on %s socket: "
			"%s", cfg->ip_dscp, is_tcp ? "TCP" : "UDP",
			strerror(errno));
	if(cfg->ip_freebind && setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on,
		sizeof(on)) != 0)
		log_warn("setsockopt(IP_FREEBIND) failed: %s", strerror(errno));
	if(cfg->ip_transparent && setsockopt(fd, IPPROTO_IP, IP_TRANSPARENT,
		&on, sizeof(on)) != 0)
		log_warn("setsockopt(IP_TRANSPARENT) failed: %s",
			strerror(errno));
	if(!is_tcp) {
		/* compat: unbound-1.17: Replies must not be dropped for a path
		 * MTU we learned from a spoofed ICMP; fragment if needed (as
		 * Unbound does). */
		int omit = IP_PMTUDISC_OMIT;
		if(family == AF_INET)
			(void)setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &omit,
				sizeof(omit));
		set_bufsize(fd, SO_RCVBUF, SO_RCVBUFFORCE, cfg->so_rcvbuf,
			"SO_RCVBUF");
		set_bufsize(fd, SO_SNDBUF, SO_SNDBUFFORCE, cfg->so_sndbuf,
			"SO_SNDBUF");
	}
	return 1;
}

/* TLS writes whole records, often two in a row (session tickets, then
 * the answer): Nagle would hold the second for the client's delayed
 * ACK (40 ms). Accepted sockets inherit it from the listener. */
static void set_nodelay(int fd)
{
	int on = 1;
	if(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)) != 0)
		log_warn("setsockopt(TCP_NODELAY) failed: %s", strerror(errno));
}

/* compat: unbound-1.17: tcp-mss: the segment size the listener
 * advertises in its SYN-ACK (accepted sockets inherit it); a value the
 * kernel refuses is logged and the socket kept. 0: nothing is set. */
static void set_listen_mss(int fd, int mss)
{
	if(mss <= 0)
		return;
	if(setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)) != 0)
		log_err(" setsockopt(.. TCP_MAXSEG ..) failed: %s",
			strerror(errno));
	else	verbose(VERB_ALGO, " tcp socket mss set to %d", mss);
}

/* Create and bind one socket. *fd is -1 on failure. */
static enum open_result open_one(const struct config_file* cfg,
	const struct sockaddr_storage* addr, socklen_t addrlen, int is_tcp,
	int reuseport, int is_first, int* fd, const char* ifname)
{
	int on = 1, s;
	*fd = -1;
	s = socket(addr->ss_family, (is_tcp ? SOCK_STREAM : SOCK_DGRAM) |
		SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if(s == -1) {
		log_err("cannot open %s socket for %s: %s", is_tcp ? "tcp" :
			"udp", ifname, strerror(errno));
		return OPEN_FAIL;
	}
	if(!set_common_opts(s, cfg, addr->ss_family, is_tcp)) {
		close(s);
		return OPEN_FAIL;
	}
	if(reuseport && setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &on,
		sizeof(on)) != 0) {
		log_warn("setsockopt(SO_REUSEPORT) failed: %s; falling back "
			"to one shared socket per interface (fallback)",
			strerror(errno));
		close(s);
		return OPEN_NO_REUSEPORT;
	}
	if(bind(s, (const struct sockaddr*)addr, addrlen) != 0) {
		int e = errno;
		close(s);
		if(reuseport && !is_first && e == EADDRINUSE) {
			log_warn("second bind with SO_REUSEPORT on %s failed: "
				"%s; falling back to one shared socket per "
				"interface (fallback)", ifname, strerror(e));
			return OPEN_NO_REUSEPORT;
		}
		log_err("cannot bind %s socket to %s port %d: %s",
			is_tcp ? "tcp" : "udp", ifname, addr_port(addr),
			strerror(e));
		return OPEN_FAIL;
	}
	if(is_tcp) {
		int qlen = 5;
		set_listen_mss(s, cfg->tcp_mss);
		/* queries arrive with the handshake's final ACK mostly */
		(void)setsockopt(s, IPPROTO_TCP, TCP_DEFER_ACCEPT, &qlen,
			sizeof(qlen));
		if(listen(s, TCP_BACKLOG) != 0) {
			log_err("listen on %s failed: %s", ifname,
				strerror(errno));
			close(s);
			return OPEN_FAIL;
		}
	}
	*fd = s;
	return OPEN_OK;
}

/* With SO_REUSEPORT the kernel picks a socket by hashing the client's
 * address and port, so a few busy clients (a forwarder, dnsperf's 32
 * sockets) load the workers unevenly, and one client socket always
 * lands on one worker. A UDP query is independent of the one before,
 * so the group's sockets are chosen at random per datagram instead: a
 * classic BPF program for the group (Linux 4.5+), "return random % n";
 * an index beyond the group (a socket closed) makes the kernel fall
 * back to the hash. TCP keeps the hash: a connection is one choice.
 * Returns 0 when the kernel refuses (then the hash it is). */
static int spread_udp_queries(int fd, int nsocks)
{
#ifdef SO_ATTACH_REUSEPORT_CBPF
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			(uint32_t)(SKF_AD_OFF + SKF_AD_RANDOM)),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, (uint32_t)nsocks),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_fprog prog;
	prog.len = (unsigned short)(sizeof(code) / sizeof(code[0]));
	prog.filter = code;
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
		sizeof(prog)) == 0;
#else
	(void)fd;
	(void)nsocks;
	errno = ENOPROTOOPT;  /* headers older than Linux 4.5 */
	return 0;
#endif
}

/* The fields of a socket that is open (bound or passed). */
static void fill_socket(const struct config_file* cfg,
	struct listen_socket* s, const struct sockaddr_storage* addr,
	socklen_t addrlen, int is_tcp, int pktinfo, int thread)
{
	s->is_tcp = is_tcp;
	s->is_pktinfo = pktinfo;
	s->is_https = is_tcp && addr_port(addr) == cfg->https_port;
	s->is_tls = is_tcp && listen_port_is_tls(cfg, addr_port(addr));
	if(s->is_tls)
		set_nodelay(s->fd);
	/* compat: unbound-1.17: not on the https-port: Unbound reads no
	 * PROXYv2 header over DoH */
	s->is_proxy = !s->is_https && listen_port_is_proxy(cfg,
		addr_port(addr));
	s->thread = thread;
	memcpy(&s->addr, addr, addrlen);
	s->addrlen = addrlen;
}

/* Use a socket systemd passed (bound already; a stream one listening):
 * the options that still apply after bind. */
static enum open_result adopt_one(const struct config_file* cfg, int fd,
	int is_tcp, int pktinfo, int* out, const char* ifname)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int family = AF_INET;
	if(getsockname(fd, (struct sockaddr*)&a, &len) == 0)
		family = a.ss_family;
	*out = -1;
	if(!fd_set_dscp(fd, family, cfg->ip_dscp))
		log_warn("error setting IP DiffServ codepoint %d on %s socket: "
			"%s", cfg->ip_dscp, is_tcp ? "TCP" : "UDP",
			strerror(errno));
	if(is_tcp) {
		int qlen = 5;
		set_listen_mss(fd, cfg->tcp_mss);
		(void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &qlen,
			sizeof(qlen));
	} else {
		set_bufsize(fd, SO_RCVBUF, SO_RCVBUFFORCE, cfg->so_rcvbuf,
			"SO_RCVBUF");
		set_bufsize(fd, SO_SNDBUF, SO_SNDBUFFORCE, cfg->so_sndbuf,
			"SO_SNDBUF");
		if(pktinfo && !udp_pktinfo_enable(fd, family))
			return OPEN_FAIL;
	}
	verbose(VERB_OPS, "using %s socket fd %d passed by systemd for %s",
		is_tcp ? "tcp" : "udp", fd, ifname);
	*out = fd;
	return OPEN_OK;
}

/* A growing list of the addresses to listen on, with their names for
 * the logs (each name owned here). */
struct addr_list {
	struct sockaddr_storage* addrs;
	socklen_t* lens;
	char** names;
	int num, cap;
};

static int addr_list_add(struct addr_list* l, const char* s, int port)
{
	struct sockaddr_storage a;
	socklen_t len;
	if(!extstrtoaddr(s, port, &a, &len))
		return 0;
	if(l->num == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		void* p;
		if(!(p = realloc(l->addrs, (size_t)cap * sizeof(*l->addrs))))
			return -1;
		l->addrs = p;
		if(!(p = realloc(l->lens, (size_t)cap * sizeof(*l->lens))))
			return -1;
		l->lens = p;
		if(!(p = realloc(l->names, (size_t)cap * sizeof(*l->names))))
			return -1;
		l->names = p;
		l->cap = cap;
	}
	if(!(l->names[l->num] = strdup(s)))
		return -1;
	l->addrs[l->num] = a;
	l->lens[l->num] = len;
	l->num++;
	return 1;
}

static void addr_list_clear(struct addr_list* l)
{
	int i;
	for(i = 0; i < l->num; i++)
		free(l->names[i]);
	free(l->addrs);
	free(l->lens);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

/* compat: unbound-1.17: an interface given by name ("eth0", "lo@5353")
 * listens on every IPv4 and IPv6 address the interface has at start
 * (getifaddrs), each with the @port; an IPv6 address with a scope gets
 * %ifname. Returns the number added, -1 out of memory. */
static int add_ifname(struct addr_list* l, struct ifaddrs* ifas,
	const char* spec, int port)
{
	const char* at = strrchr(spec, '@');
	size_t namelen = at ? (size_t)(at - spec) : strlen(spec);
	struct ifaddrs* ifa;
	int added = 0;
	for(ifa = ifas; ifa; ifa = ifa->ifa_next) {
		char a[INET6_ADDRSTRLEN + 1], sc[IF_NAMESIZE + 1];
		char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 16];
		int r;
		if(strlen(ifa->ifa_name) != namelen ||
			strncmp(ifa->ifa_name, spec, namelen) != 0 ||
			!ifa->ifa_addr)
			continue;
		sc[0] = 0;
		if(ifa->ifa_addr->sa_family == AF_INET) {
			struct sockaddr_in* in = (void*)ifa->ifa_addr;
			if(!inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a)))
				continue;
		} else if(ifa->ifa_addr->sa_family == AF_INET6) {
			struct sockaddr_in6* in6 = (void*)ifa->ifa_addr;
			if(!inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a)))
				continue;
			if(in6->sin6_scope_id && !if_indextoname(
				in6->sin6_scope_id, sc))
				sc[0] = 0;
		} else	continue;
		snprintf(buf, sizeof(buf), "%s%s%s%s", a, sc[0] ? "%" : "", sc,
			at ? at : "");
		verbose(VERB_ALGO, "interface %s has address %s", spec, buf);
		if((r = addr_list_add(l, buf, port)) < 0)
			return -1;
		added += r;
	}
	return added;
}

/* interface-automatic applies: it needs UDP (as Unbound: without
 * do-udp the interface lines are used). */
static int automatic_on(const struct config_file* cfg)
{
	return cfg->if_automatic && cfg->do_udp;
}

/* compat: unbound-1.17: interface-automatic listens on :: and 0.0.0.0,
 * the interface lines unused, on each port of interface-automatic-ports
 * (separated by spaces) or, when that is empty, on port. A number out of
 * range or text that is not one is an error, logged as Unbound does.
 * Returns the number of addresses, -1 on error. */
static int collect_automatic(const struct config_file* cfg,
	struct addr_list* l)
{
	const char* list = cfg->if_automatic_ports ? cfg->if_automatic_ports
		: "";
	const char* now = list;
	int any = 0;
	while(1) {
		int port = cfg->port;
		if(*list) {
			char* after;
			long v;
			while(isspace((unsigned char)*now))
				now++;
			if(!*now)
				break;
			v = strtol(now, &after, 10);
			if(v < 0 || v > 65535) {
				log_err("interface-automatic-ports port number "
					"out of range, at position %d of '%s'",
					(int)(now - list) + 1, list);
				return -1;
			}
			if(after == now) {
				log_err("interface-automatic-ports could not be "
					"parsed, at position %d of '%s'",
					(int)(now - list) + 1, list);
				return -1;
			}
			now = after;
			port = (int)v;
		} else if(any)
			break;
		any = 1;
		if((cfg->do_ip6 && addr_list_add(l, "::0", port) <= 0) ||
			(cfg->do_ip4 && addr_list_add(l, "0.0.0.0", port) <= 0))
			return -1;
	}
	return l->num;
}

/* The interfaces to listen on: the configured ones (addresses or
 * interface names), or localhost; with interface-automatic the
 * wildcard addresses. */
static int collect_addrs(const struct config_file* cfg,
	struct addr_list* l, int* implicit)
{
	const struct config_strlist* p;
	static const char* const defaults[] = { "127.0.0.1", "::1" };
	struct ifaddrs* ifas = NULL;
	int r = 0;
	memset(l, 0, sizeof(*l));
	*implicit = cfg->ifs == NULL;
	if(automatic_on(cfg)) {
		/* :: is optional, as ::1 is: a host without IPv6 */
		*implicit = 1;
		return collect_automatic(cfg, l);
	}
	for(p = cfg->ifs; p; p = p->next) {
		if((r = addr_list_add(l, p->str, cfg->port)) < 0)
			break;
		if(r > 0)
			continue;
		if(!ifas && getifaddrs(&ifas) != 0) {
			log_err("failed to list interfaces: getifaddrs: %s",
				strerror(errno));
			ifas = NULL;
			r = -1;
			break;
		}
		if((r = add_ifname(l, ifas, p->str, cfg->port)) <= 0) {
			if(r == 0)
				log_err("cannot parse interface specified as "
					"'%s'", p->str);
			r = -1;
			break;
		}
	}
	if(ifas)
		freeifaddrs(ifas);
	if(r < 0)
		return -1;
	if(!cfg->ifs) {
		int i;
		for(i = 0; i < 2; i++) {
			if((i == 0 && !cfg->do_ip4) || (i == 1 && !cfg->do_ip6))
				continue;
			if(addr_list_add(l, defaults[i], cfg->port) <= 0)
				return -1;
		}
	}
	return l->num;
}

static int family_enabled(const struct config_file* cfg, int family)
{
	return family == AF_INET6 ? cfg->do_ip6 : cfg->do_ip4;
}

/* Open everything in one mode; OPEN_NO_REUSEPORT asks the caller to try
 * again without SO_REUSEPORT. */
static enum open_result open_all(const struct config_file* cfg,
	int num_threads, int reuseport, struct listen_activated* act,
	struct listen_sockets* ls)
{
	struct addr_list l;
	struct sockaddr_storage* addrs;
	socklen_t* lens;
	char** names;
	int implicit, n, i, proto, t, afd;
	int per = reuseport ? num_threads : 1;
	enum open_result res = OPEN_OK;

	n = collect_addrs(cfg, &l, &implicit);
	addrs = l.addrs;
	lens = l.lens;
	names = l.names;
	ls->num = 0;
	ls->socks = n > 0 ? calloc((size_t)(n * 2 * per),
		sizeof(*ls->socks)) : NULL;
	if(n <= 0 || !ls->socks) {
		if(n == 0)
			log_err("no interfaces to listen on");
		res = OPEN_FAIL;
		goto out;
	}
	for(i = 0; i < n && res == OPEN_OK; i++) {
		if(!family_enabled(cfg, addrs[i].ss_family))
			continue;
		for(proto = 0; proto < 2 && res == OPEN_OK; proto++) {
			int is_tcp = proto == 1;
			int pktinfo = !is_tcp && automatic_on(cfg);
			if((is_tcp && !cfg->do_tcp) || (!is_tcp && !cfg->do_udp))
				continue;
			/* compat: unbound-1.17: an automatic tls-port or
			 * https-port has TCP only */
			if(pktinfo && (listen_port_is_tls(cfg,
				addr_port(&addrs[i])) || addr_port(&addrs[i]) ==
				cfg->https_port))
				continue;
			afd = listen_activated_take(act, &addrs[i], is_tcp);
			if(afd != -1) {
				/* one passed socket, shared by the workers */
				struct listen_socket* s = &ls->socks[ls->num];
				res = adopt_one(cfg, afd, is_tcp, pktinfo,
					&s->fd, names[i]);
				if(res != OPEN_OK)
					break;
				fill_socket(cfg, s, &addrs[i], lens[i], is_tcp,
					pktinfo, -1);
				s->is_activated = 1;
				ls->num++;
				continue;
			}
			for(t = 0; t < per; t++) {
				struct listen_socket* s = &ls->socks[ls->num];
				res = open_one(cfg, &addrs[i], lens[i], is_tcp,
					reuseport, t == 0, &s->fd, names[i]);
				if(res == OPEN_FAIL && implicit &&
					addrs[i].ss_family == AF_INET6 &&
					t == 0 && proto == 0) {
					/* no IPv6 on this host: the implicit
					 * ::1 is optional */
					verbose(VERB_OPS, "skipping ::1");
					res = OPEN_OK;
					break;
				}
				if(res == OPEN_OK && pktinfo &&
					!udp_pktinfo_enable(s->fd,
					addrs[i].ss_family)) {
					close(s->fd);
					res = OPEN_FAIL;
				}
				if(res != OPEN_OK)
					break;
				fill_socket(cfg, s, &addrs[i], lens[i], is_tcp,
					pktinfo, reuseport ? t : -1);
				ls->num++;
			}
			/* the group is complete: spread it per datagram */
			if(res == OPEN_OK && t == per && !is_tcp && per > 1 &&
				!spread_udp_queries(ls->socks[ls->num - 1].fd,
				per))
				verbose(VERB_OPS, "SO_ATTACH_REUSEPORT_CBPF on "
					"%s failed: %s; UDP queries go to workers "
					"by the kernel's hash", names[i],
					strerror(errno));
		}
	}
	if(res == OPEN_OK && ls->num == 0) {
		log_err("no sockets to listen on (check do-udp, do-tcp, "
			"do-ip4, do-ip6 and interface)");
		res = OPEN_FAIL;
	}
out:
	if(res != OPEN_OK) {
		for(i = 0; i < ls->num; i++)
			if(!ls->socks[i].is_activated)
				close(ls->socks[i].fd);
		free(ls->socks);
		ls->socks = NULL;
		ls->num = 0;
	}
	addr_list_clear(&l);
	return res;
}

struct listen_sockets* listen_sockets_open(const struct config_file* cfg,
	int num_threads)
{
	struct listen_sockets* ls = calloc(1, sizeof(*ls));
	struct listen_activated* act = NULL;
	enum open_result r;
	if(!ls)
		return NULL;
	/* compat: unbound-1.17: use-systemd: passed sockets first */
	if(cfg->use_systemd)
		act = listen_activated_create();
	ls->reuseport = cfg->so_reuseport;
	r = open_all(cfg, num_threads, ls->reuseport, act, ls);
	if(r == OPEN_NO_REUSEPORT) {
		/* the warning was logged where it failed, once */
		ls->reuseport = 0;
		r = open_all(cfg, num_threads, 0, act, ls);
	}
	listen_activated_delete(act);
	if(r != OPEN_OK) {
		free(ls);
		return NULL;
	}
	verbose(VERB_ALGO, "opened %d listening sockets%s", ls->num,
		ls->reuseport ? " (per-thread SO_REUSEPORT)" : " (shared)");
	return ls;
}

void listen_sockets_close(struct listen_sockets* ls)
{
	int i;
	if(!ls)
		return;
	for(i = 0; i < ls->num; i++)
		if(ls->socks[i].fd != -1)
			close(ls->socks[i].fd);
	free(ls->socks);
	free(ls);
}

int listen_port_is_tls(const struct config_file* cfg, int port)
{
	const struct config_strlist* p;
	if(port == cfg->tls_port)
		return 1;
	for(p = cfg->tls_additional_ports; p; p = p->next)
		if(p->str && atoi(p->str) == port)
			return 1;
	return 0;
}

int listen_port_is_proxy(const struct config_file* cfg, int port)
{
	const struct config_strlist* p;
	for(p = cfg->proxy_protocol_ports; p; p = p->next)
		if(p->str && atoi(p->str) == port)
			return 1;
	return 0;
}

int listen_sockets_have_tls(const struct listen_sockets* ls)
{
	int i;
	for(i = 0; ls && i < ls->num; i++)
		if(ls->socks[i].is_tls)
			return 1;
	return 0;
}
