/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_source.c - compat: unbound-1.17: the transfer engine:
 * sources, their SOA timers (refresh, retry, expire), failover between
 * primaries, IXFR with AXFR fallback, NOTIFY, and the hand-over of a
 * new version to the main thread. One thread of its own; the sources'
 * schedule is under the engine's lock, the content only in the thread. */
#include "config.h"
#include "services/xfr_source.h"
#include "services/xfr_net.h"
#include "services/xfr_http.h"
#include "services/tls_client.h"
#include "services/xfr_zonefile.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <event2/event.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TYPE_AXFR_ 252
#define TYPE_IXFR_ 251
#define PROBE_MS 1000     /* compat: unbound-1.17: a probe waits ~1s */
#define IDLE_MS 10000     /* a transfer's longest silence */

struct xfr_primary {
	struct sockaddr_storage addr;
	socklen_t len;
	char* text;
	char* tls_name;   /* after '#': transfers over TLS; NULL: TCP */
	struct sockaddr_storage probe;   /* where the SOA probe goes */
	socklen_t probe_len;
	int tls_port, dns_port;          /* for the probe (set_probe) */
	/* a host name (its port in port): looked up before each use, in
	 * the engine's thread; len is 0 until it has an address */
	char* host;
	char port[8];
};

#define HOST_ADDRS 8      /* the addresses of a host name tried */

struct xfr_allow {
	struct sockaddr_storage addr;
	socklen_t len;
	int net;
};

struct xfr_src {
	uint8_t zone[256];
	size_t zone_len;
	char zname[256 * 4 + 8];
	struct xfr_primary* prim;
	size_t nprim;
	struct xfr_allow* allow;
	size_t nallow;
	struct xfr_url* urls;
	size_t nurl;
	char* cabundle;
	char* user_agent;   /* NULL: no User-Agent header */
	SSL_CTX* tls_ctx;   /* a reference, for the TLS primaries */
	int tls_use_sni;
	char* zonefile;
	size_t max_size;
	int max_time;
	int tcp_mss;        /* outgoing-tcp-mss, 0: none */
	int (*accept)(void* arg, const struct xfr_rrs* content);
	void* accept_arg;
	void (*accept_free)(void* arg);
	xfr_publish_fn publish;   /* NULL: the engine's */
	void* publish_arg;
	/* the thread's: the content served now */
	struct xfr_rrs content;
	int have, expired;
	struct xfr_soa soa;
	time_t expire_at;
	/* under the lock: when to check next */
	time_t next;
};

struct xfr_engine {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thr;
	int running;
	atomic_int stop;
	struct xfr_src** srcs;
	size_t n;
	struct event_base* base;
	xfr_publish_fn publish;
	void* arg;
};

static time_t now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct xfr_engine* xfr_engine_create(struct event_base* main_base,
	xfr_publish_fn publish, void* arg)
{
	struct xfr_engine* e = calloc(1, sizeof(*e));
	pthread_condattr_t ca;
	if(!e)
		return NULL;
	pthread_mutex_init(&e->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&e->stop, 0);
	e->base = main_base;
	e->publish = publish;
	e->arg = arg;
	return e;
}

static void src_delete(struct xfr_src* s)
{
	size_t i;
	if(!s)
		return;
	for(i = 0; i < s->nprim; i++) {
		free(s->prim[i].text);
		free(s->prim[i].tls_name);
		free(s->prim[i].host);
	}
	tls_client_ctx_free(s->tls_ctx);
	free(s->prim);
	free(s->allow);
	free(s->urls);
	free(s->cabundle);
	free(s->user_agent);
	free(s->zonefile);
	if(s->accept_free)
		s->accept_free(s->accept_arg);
	xfr_rrs_clear(&s->content);
	free(s);
}

void xfr_engine_stop(struct xfr_engine* e)
{
	size_t i;
	if(!e)
		return;
	if(e->running) {
		pthread_mutex_lock(&e->lock);
		atomic_store(&e->stop, 1);
		pthread_cond_signal(&e->cond);
		pthread_mutex_unlock(&e->lock);
		pthread_join(e->thr, NULL);
		e->running = 0;
	}
	pthread_mutex_lock(&e->lock);
	for(i = 0; i < e->n; i++)
		src_delete(e->srcs[i]);
	free(e->srcs);
	e->srcs = NULL;
	e->n = 0;
	atomic_store(&e->stop, 0);
	pthread_mutex_unlock(&e->lock);
}

void xfr_engine_delete(struct xfr_engine* e)
{
	if(!e)
		return;
	xfr_engine_stop(e);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/* "ADDR", "ADDR@PORT", "ADDR#tlsname", "ADDR@PORT#tlsname" (compat:
 * unbound-1.17: a name after '#' means TLS, on port 853 unless '@'
 * says another; '@853' without a name is plain TCP). Unbound also takes
 * host names (looked up with its own resolver): numeric addresses only
 * here. */
static void set_probe(struct xfr_primary* p);
static int host_parse(const char* text, int defport, struct xfr_primary* p);

static int primary_parse(const char* text, const struct xfr_source_cfg* c,
	struct xfr_primary* p)
{
	char buf[256];
	char* hash;
	snprintf(buf, sizeof(buf), "%s", text);
	if((hash = strchr(buf, '#')) != NULL) {
		*hash++ = 0;
		if(!*hash) {
			log_err("auth zone primary %s: no name after '#'",
				text);
			return 0;
		}
		if(!c->tls_ctx) {
			log_err("auth zone primary %s: no TLS context for the "
				"transfer over TLS", text);
			return 0;
		}
		if(!(p->tls_name = strdup(hash))) {
			log_err("out of memory");
			return 0;
		}
	}
	p->tls_port = c->tls_port;
	p->dns_port = c->dns_port;
	if(!extstrtoaddr(buf, p->tls_name ? 853 : 53, &p->addr, &p->len)) {
		/* compat: unbound-1.17: a host name (as OpenWrt's and many
		 * installers' root zone copies name their primaries) */
		if(!host_parse(buf, p->tls_name ? 853 : 53, p)) {
			log_err("auth zone primary %s: not an IP address or "
				"host name", text);
			return 0;
		}
		return (p->text = strdup(text)) != NULL;
	}
	set_probe(p);
	return (p->text = strdup(text)) != NULL;
}

/* p's SOA probe address from p->addr. */
static void set_probe(struct xfr_primary* p)
{
	p->probe = p->addr;
	p->probe_len = p->len;
	/* compat: unbound-1.17: a TLS primary at tls-port is probed at
	 * port (the DNS port, 53 unless set) over UDP */
	if(p->tls_name && addr_port(&p->probe) == p->tls_port &&
		p->dns_port > 0) {
		if(p->probe.ss_family == AF_INET6)
			((struct sockaddr_in6*)&p->probe)->sin6_port =
				htons((uint16_t)p->dns_port);
		else	((struct sockaddr_in*)&p->probe)->sin_port =
				htons((uint16_t)p->dns_port);
	}
}

/* "NAME" or "NAME@PORT" into p->host and p->port: letters, digits,
 * '-', '_' and '.', a label at least. */
static int host_parse(const char* text, int defport, struct xfr_primary* p)
{
	const char* at = strchr(text, '@');
	size_t n = at ? (size_t)(at - text) : strlen(text), i;
	int port = defport;
	if(n == 0 || n > 253)
		return 0;
	for(i = 0; i < n; i++)
		if(!isalnum((unsigned char)text[i]) && text[i] != '-' &&
			text[i] != '_' && text[i] != '.')
			return 0;
	if(at) {
		char* end;
		long v = strtol(at + 1, &end, 10);
		if(*end || v <= 0 || v > 65535)
			return 0;
		port = (int)v;
	}
	if(!(p->host = malloc(n + 1)))
		return 0;
	memcpy(p->host, text, n);
	p->host[n] = 0;
	snprintf(p->port, sizeof(p->port), "%d", port);
	p->len = 0;
	return 1;
}

/* The addresses of p's host name (at most max), looked up now with the
 * system's resolver (compat: unbound-1.17 asks its own; the engine's
 * thread may wait here, as for a url's host). 0 when there are none. */
static int host_lookup(struct xfr_src* s, struct xfr_primary* p,
	struct sockaddr_storage* addrs, socklen_t* lens, int max)
{
	struct addrinfo hints, *res = NULL, *ai;
	int n = 0, e;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if((e = getaddrinfo(p->host, p->port, &hints, &res)) != 0) {
		verbose(VERB_OPS, "auth zone %s: primary %s: cannot resolve "
			"%s: %s", s->zname, p->text, p->host, gai_strerror(e));
		return 0;
	}
	for(ai = res; ai && n < max; ai = ai->ai_next) {
		if((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
			ai->ai_addrlen > sizeof(addrs[n]))
			continue;
		memcpy(&addrs[n], ai->ai_addr, ai->ai_addrlen);
		lens[n++] = (socklen_t)ai->ai_addrlen;
	}
	freeaddrinfo(res);
	return n;
}

/* p now at addr (under the lock: a NOTIFY is matched against it from
 * the main thread). */
static void primary_at(struct xfr_engine* e, struct xfr_primary* p,
	const struct sockaddr_storage* addr, socklen_t len)
{
	pthread_mutex_lock(&e->lock);
	p->addr = *addr;
	p->len = len;
	set_probe(p);
	pthread_mutex_unlock(&e->lock);
}

int xfr_engine_add(struct xfr_engine* e, const struct xfr_source_cfg* c,
	const struct xfr_rrs* content)
{
	struct xfr_src* s = calloc(1, sizeof(*s));
	const struct config_strlist* l;
	struct xfr_src** ns;
	size_t n;
	if(!s) {
		if(c->accept_free)
			c->accept_free(c->accept_arg);
		goto oom;
	}
	s->accept = c->accept;
	s->accept_arg = c->accept_arg;
	s->accept_free = c->accept_free;
	s->zone_len = dname_valid(c->zone, 256);
	memcpy(s->zone, c->zone, s->zone_len);
	dname_tolower(s->zone);
	dname_to_str(s->zone, s->zname, sizeof(s->zname));
	for(n = 0, l = c->primaries; l; l = l->next)
		n++;
	if(n && !(s->prim = calloc(n, sizeof(*s->prim))))
		goto oom;
	for(l = c->primaries; l; l = l->next) {
		/* counted first: a failed parse frees what it made */
		s->nprim++;
		if(!primary_parse(l->str, c, &s->prim[s->nprim - 1]))
			goto fail;
	}
	for(n = 0, l = c->allow_notify; l; l = l->next)
		n++;
	if(n && !(s->allow = calloc(n, sizeof(*s->allow))))
		goto oom;
	for(l = c->allow_notify; l; l = l->next) {
		struct xfr_allow* a = &s->allow[s->nallow];
		if(!netblockstrtoaddr(l->str, 53, &a->addr, &a->len,
			&a->net)) {
			/* compat: unbound-1.17: host names are looked up
			 * there; numeric only here */
			log_err("auth zone %s: allow-notify %s is not an IP "
				"address or netblock", s->zname, l->str);
			goto fail;
		}
		s->nallow++;
	}
	for(n = 0, l = c->urls; l; l = l->next)
		n++;
	if(n && !(s->urls = calloc(n, sizeof(*s->urls))))
		goto oom;
	for(l = c->urls; l; l = l->next) {
		char err[128];
		if(!xfr_url_parse(l->str, &s->urls[s->nurl], err,
			sizeof(err))) {
			log_err("auth zone %s: url %s: %s", s->zname, l->str,
				err);
			goto fail;
		}
		s->nurl++;
	}
	if(c->cabundle && c->cabundle[0] && !(s->cabundle =
		strdup(c->cabundle)))
		goto oom;
	if(c->user_agent && !(s->user_agent = strdup(c->user_agent)))
		goto oom;
	if(c->tls_ctx) {
		if(!SSL_CTX_up_ref(c->tls_ctx))
			goto oom;
		s->tls_ctx = c->tls_ctx;
		s->tls_use_sni = c->tls_use_sni;
	}
	if(c->zonefile && c->zonefile[0] && !(s->zonefile =
		strdup(c->zonefile)))
		goto oom;
	s->max_size = c->max_transfer_size;
	s->max_time = c->max_transfer_time;
	s->tcp_mss = c->tcp_mss;
	s->publish = c->publish;
	s->publish_arg = c->publish_arg;
	xfr_rrs_init(&s->content);
	if(content && content->n) {
		if(!xfr_rrs_copy(&s->content, content))
			goto oom;
		s->have = xfr_rrs_soa(&s->content, s->zone, &s->soa);
		if(s->have)
			s->expire_at = now_s() + (time_t)s->soa.expire;
	}
	s->next = now_s();
	pthread_mutex_lock(&e->lock);
	if(!(ns = realloc(e->srcs, (e->n + 1) * sizeof(*ns)))) {
		pthread_mutex_unlock(&e->lock);
		goto oom;
	}
	e->srcs = ns;
	e->srcs[e->n++] = s;
	pthread_mutex_unlock(&e->lock);
	return 1;
oom:
	log_err("out of memory");
fail:
	src_delete(s);
	return 0;
}

/* the hand-over to the main thread */
struct handover {
	xfr_publish_fn publish;
	void* arg;
	uint8_t zone[256];
	struct xfr_rrs* content;
};

static void handover_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct handover* h = arg;
	(void)fd;
	(void)ev;
	h->publish(h->arg, h->zone, h->content);
	free(h);
}

/* Publish a copy of s's content (or NULL: expired). */
static void publish(struct xfr_engine* e, struct xfr_src* s, int expired)
{
	struct handover* h = calloc(1, sizeof(*h));
	struct timeval tv = { 0, 0 };
	if(!h)
		goto oom;
	h->publish = s->publish ? s->publish : e->publish;
	h->arg = s->publish ? s->publish_arg : e->arg;
	memcpy(h->zone, s->zone, s->zone_len);
	if(!expired) {
		if(!(h->content = malloc(sizeof(*h->content))))
			goto oom;
		if(!xfr_rrs_copy(h->content, &s->content)) {
			free(h->content);
			goto oom;
		}
	}
	if(event_base_once(e->base, -1, EV_TIMEOUT, handover_cb, h, &tv)
		== 0)
		return;
	if(h->content) {
		xfr_rrs_clear(h->content);
		free(h->content);
	}
oom:
	free(h);
	log_err("auth zone %s: out of memory handing over a new version",
		s->zname);
}

static time_t at_least_1(uint32_t v)
{
	return v ? (time_t)v : 1;
}

/* A check succeeded (SOA answered, or a transfer): the lease is new. */
static void renewed(struct xfr_engine* e, struct xfr_src* s)
{
	time_t now = now_s();
	s->expire_at = now + (time_t)s->soa.expire;
	pthread_mutex_lock(&e->lock);
	s->next = now + at_least_1(s->soa.refresh);
	pthread_mutex_unlock(&e->lock);
}

/* w's result applied to s's content, into *next (s unchanged). 1 on
 * success; 0 with err set. */
static int take_result(struct xfr_src* s, struct xfr_wire* w,
	struct xfr_rrs* next, struct xfr_soa* soa, char* err, size_t errlen)
{
	size_t i;
	if(w->kind == XFR_KIND_FULL) {
		*next = w->full;
		xfr_rrs_init(&w->full);
		*soa = w->soa;
		return 1;
	}
	/* XFR_KIND_DIFF: on a copy, so a bad sequence changes nothing */
	if(!xfr_rrs_copy(next, &s->content)) {
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	for(i = 0; i < w->ndiffs; i++) {
		if(!xfr_rrs_apply(next, &w->diffs[i].del, &w->diffs[i].add,
			err, errlen)) {
			xfr_rrs_clear(next);
			return 0;
		}
	}
	if(!xfr_rrs_soa(next, s->zone, soa) || soa->serial !=
		w->soa.serial) {
		snprintf(err, errlen, "the zone after the IXFR does not have "
			"the new SOA serial %u", (unsigned)w->soa.serial);
		xfr_rrs_clear(next);
		return 0;
	}
	return 1;
}

enum outcome { GOT_NEW, GOT_SAME, GOT_NOTHING, GOT_STOPPED };

/* One transfer from primary p: IXFR first when there is content to
 * apply it to, AXFR when there is none, when the primary asks for it
 * or when the IXFR fails. */
static enum outcome transfer(struct xfr_engine* e, struct xfr_src* s,
	struct xfr_primary* p)
{
	struct xfr_wire w;
	struct xfr_rrs next;
	struct xfr_soa soa;
	char err[256];
	enum xfr_net_result r;
	int ixfr = s->have;
	struct xfr_tls tls = { s->tls_ctx, p->tls_name, s->tls_use_sni };
	for(;;) {
		const char* kind = ixfr ? "IXFR" : "AXFR";
		err[0] = 0;
		xfr_wire_init(&w, s->zone, 0, ixfr ? TYPE_IXFR_ : TYPE_AXFR_,
			CLASS_IN, s->soa.serial, s->max_size);
		r = xfr_net_transfer(&p->addr, p->len, p->tls_name ? &tls :
			NULL, &w, IDLE_MS, s->max_time, s->tcp_mss, &e->stop,
			err, sizeof(err));
		if(r == XFR_NET_STOPPED) {
			xfr_wire_clear(&w);
			return GOT_STOPPED;
		}
		if(r == XFR_NET_OK && w.kind == XFR_KIND_UPTODATE) {
			xfr_wire_clear(&w);
			verbose(VERB_ALGO, "auth zone %s: %s from %s: serial %u "
				"is current", s->zname, kind, p->text,
				(unsigned)s->soa.serial);
			return GOT_SAME;
		}
		if(r == XFR_NET_OK && w.kind != XFR_KIND_NEED_AXFR &&
			take_result(s, &w, &next, &soa, err, sizeof(err))) {
			xfr_wire_clear(&w);
			if(s->accept && !s->accept(s->accept_arg, &next)) {
				/* logged by accept */
				log_err("auth zone %s: %s from %s: serial %u "
					"refused%s", s->zname, kind, p->text,
					(unsigned)soa.serial, s->have ?
					", the version served stays" : "");
				xfr_rrs_clear(&next);
				return GOT_NOTHING;
			}
			xfr_rrs_clear(&s->content);
			s->content = next;
			s->soa = soa;
			verbose(VERB_OPS, "auth zone %s: %s from %s: serial %u, "
				"%zu records", s->zname, w.kind ==
				XFR_KIND_DIFF ? "IXFR" : kind, p->text,
				(unsigned)s->soa.serial, s->content.n);
			return GOT_NEW;
		}
		xfr_wire_clear(&w);
		if(r == XFR_NET_OK && w.kind == XFR_KIND_NEED_AXFR)
			verbose(VERB_ALGO, "auth zone %s: %s asks for AXFR",
				s->zname, p->text);
		else if(s->have)
			log_err("auth zone %s: %s from %s failed: %s; serial %u "
				"keeps serving", s->zname, kind, p->text, err,
				(unsigned)s->soa.serial);
		else
			log_err("auth zone %s: %s from %s failed: %s",
				s->zname, kind, p->text, err);
		if(!ixfr)
			return GOT_NOTHING;
		ixfr = 0;
	}
}

/* The new version of s: on disk and to the consumer. */
static void have_new(struct xfr_engine* e, struct xfr_src* s)
{
	s->have = 1;
	s->expired = 0;
	if(s->zonefile)
		xfr_zonefile_write(s->zonefile, s->zone, &s->content);
	publish(e, s, 0);
}

static void failed(struct xfr_engine* e, struct xfr_src* s);

/* A download from each url in turn (compat: unbound-1.17: url: with
 * primaries: their SOA serial says when; without: the SOA refresh
 * timer, the downloaded serial compared with the one served). */
static void check_urls(struct xfr_engine* e, struct xfr_src* s)
{
	size_t i;
	char err[256];
	if(s->nprim && s->have) {
		int answered = 0;
		for(i = 0; i < s->nprim && !atomic_load(&e->stop); i++) {
			uint32_t serial = 0;
			enum xfr_net_result r = xfr_net_probe(&s->prim[i].probe,
				s->prim[i].probe_len, s->zone, s->zone_len, CLASS_IN,
				PROBE_MS, &serial, &e->stop, err, sizeof(err));
			if(r == XFR_NET_STOPPED)
				return;
			if(r != XFR_NET_OK)
				continue;
			answered = 1;
			if(!xfr_serial_newer(serial, s->soa.serial)) {
				renewed(e, s);
				return;
			}
			break;
		}
		if(!answered)
			verbose(VERB_ALGO, "auth zone %s: no primary answered "
				"the SOA probe, downloading", s->zname);
	}
	for(i = 0; i < s->nurl && !atomic_load(&e->stop); i++) {
		struct xfr_url* u = &s->urls[i];
		struct xfr_rrs next;
		struct xfr_soa soa;
		enum xfr_net_result r = xfr_http_fetch(u, s->cabundle,
			s->user_agent, s->zone,
			s->max_size, IDLE_MS, s->max_time, s->tcp_mss,
			&e->stop, &next,
			err, sizeof(err));
		if(r == XFR_NET_STOPPED)
			return;
		if(r != XFR_NET_OK) {
			log_err("auth zone %s: download from %s://%s:%s%s "
				"failed: %s%s", s->zname, u->tls ? "https" :
				"http", u->host, u->port, u->path, err,
				s->have ? "; the version served stays" : "");
			continue;
		}
		if(!xfr_rrs_soa(&next, s->zone, &soa)) {
			xfr_rrs_clear(&next);
			continue;
		}
		if(s->have && !xfr_serial_newer(soa.serial, s->soa.serial)) {
			verbose(VERB_ALGO, "auth zone %s: download from %s:%s: "
				"serial %u is current", s->zname, u->host,
				u->port, (unsigned)soa.serial);
			xfr_rrs_clear(&next);
			renewed(e, s);
			return;
		}
		if(s->accept && !s->accept(s->accept_arg, &next)) {
			log_err("auth zone %s: download from %s:%s: serial %u "
				"refused%s", s->zname, u->host, u->port,
				(unsigned)soa.serial, s->have ? ", the version "
				"served stays" : "");
			xfr_rrs_clear(&next);
			continue;
		}
		xfr_rrs_clear(&s->content);
		s->content = next;
		s->soa = soa;
		verbose(VERB_OPS, "auth zone %s: downloaded from %s:%s: serial "
			"%u, %zu records", s->zname, u->host, u->port,
			(unsigned)soa.serial, s->content.n);
		renewed(e, s);
		have_new(e, s);
		return;
	}
	failed(e, s);
}

static int check_primary(struct xfr_engine* e, struct xfr_src* s,
	struct xfr_primary* p, int probe, int* answered);

/* One check of s: each primary's SOA in turn; a newer serial is
 * transferred from the primary that has it. When no primary answers
 * the probe, a transfer is tried from each (compat: unbound-1.17: as
 * Unbound, for primaries that answer only over TCP). */
static void check(struct xfr_engine* e, struct xfr_src* s)
{
	size_t i;
	int answered = 0, probe;
	if(s->nurl) {
		check_urls(e, s);
		return;
	}
	/* the probing pass, then (none answered) the transferring one */
	for(probe = 1; probe >= 0 && !answered; probe--)
		for(i = 0; i < s->nprim && !atomic_load(&e->stop); i++)
			if(check_primary(e, s, &s->prim[i], probe, &answered))
				return;
	failed(e, s);
}

/* One primary (each address of a host name in turn): its SOA first when
 * probe is set (*answered set when it replies), then a transfer.
 * 1: the check is over (renewed, a new version, or the engine stops). */
static int check_primary(struct xfr_engine* e, struct xfr_src* s,
	struct xfr_primary* p, int probe, int* answered)
{
	struct sockaddr_storage addrs[HOST_ADDRS];
	socklen_t lens[HOST_ADDRS];
	char err[256];
	int j, n = 1;
	if(p->host && (n = host_lookup(s, p, addrs, lens, HOST_ADDRS)) == 0)
		return 0;
	for(j = 0; j < n && !atomic_load(&e->stop); j++) {
		enum outcome o;
		if(p->host)
			primary_at(e, p, &addrs[j], lens[j]);
		if(probe) {
			uint32_t serial = 0;
			enum xfr_net_result r = xfr_net_probe(&p->probe,
				p->probe_len, s->zone, s->zone_len, CLASS_IN,
				PROBE_MS, &serial, &e->stop, err, sizeof(err));
			if(r == XFR_NET_STOPPED)
				return 1;
			if(r != XFR_NET_OK) {
				verbose(VERB_ALGO, "auth zone %s: probe of "
					"%s: %s", s->zname, p->text, err);
				continue;
			}
			*answered = 1;
			if(s->have && !xfr_serial_newer(serial,
				s->soa.serial)) {
				verbose(VERB_ALGO, "auth zone %s: %s has "
					"serial %u, current", s->zname,
					p->text, (unsigned)serial);
				renewed(e, s);
				return 1;
			}
		}
		o = transfer(e, s, p);
		if(o == GOT_STOPPED)
			return 1;
		if(o == GOT_NEW || o == GOT_SAME) {
			renewed(e, s);
			if(o == GOT_NEW)
				have_new(e, s);
			return 1;
		}
	}
	return 0;
}

/* Every primary (or url) failed: retry; past expire the zone goes. */
static void failed(struct xfr_engine* e, struct xfr_src* s)
{
	if(atomic_load(&e->stop))
		return;
	pthread_mutex_lock(&e->lock);
	s->next = now_s() + (s->have ? at_least_1(s->soa.retry) : 10);
	pthread_mutex_unlock(&e->lock);
	if(s->have && !s->expired && now_s() >= s->expire_at) {
		log_err("auth zone %s: expired: no primary answered for the "
			"SOA's expire time (%u s); the zone is not served",
			s->zname, (unsigned)s->soa.expire);
		s->expired = 1;
		publish(e, s, 1);
	}
}

static void* engine_thread(void* arg)
{
	struct xfr_engine* e = arg;
	pthread_mutex_lock(&e->lock);
	while(!atomic_load(&e->stop)) {
		time_t now = now_s(), first = 0;
		struct xfr_src* due = NULL;
		size_t i;
		for(i = 0; i < e->n; i++) {
			if(!due || e->srcs[i]->next < first) {
				due = e->srcs[i];
				first = due->next;
			}
		}
		if(due && first <= now) {
			/* a notify during the check starts another */
			due->next = now + 3600;
			pthread_mutex_unlock(&e->lock);
			check(e, due);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		if(due) {
			struct timespec ts = { first, 0 };
			pthread_cond_timedwait(&e->cond, &e->lock, &ts);
		} else
			pthread_cond_wait(&e->cond, &e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

int xfr_engine_start(struct xfr_engine* e)
{
	if(e->running || e->n == 0)
		return 1;
	atomic_store(&e->stop, 0);
	if(pthread_create(&e->thr, NULL, engine_thread, e) != 0) {
		log_err("cannot start the zone transfer thread");
		return 0;
	}
	e->running = 1;
	return 1;
}

static struct xfr_src* find(struct xfr_engine* e, const uint8_t* zone)
{
	size_t i;
	for(i = 0; i < e->n; i++)
		if(query_dname_compare(e->srcs[i]->zone, zone) == 0)
			return e->srcs[i];
	return NULL;
}

static int same_host(const struct sockaddr_storage* a, socklen_t alen,
	const struct sockaddr_storage* b, socklen_t blen)
{
	int na, nb;
	const uint8_t* x = addr_bytes(a, alen, &na);
	const uint8_t* y = addr_bytes(b, blen, &nb);
	return x && y && na == nb && memcmp(x, y, (size_t)na) == 0;
}

enum xfr_notify_result xfr_engine_notify(struct xfr_engine* e,
	const uint8_t* zone, const struct sockaddr_storage* addr,
	socklen_t addrlen)
{
	struct xfr_src* s;
	size_t i;
	int ok = 0;
	if(!e)
		return XFR_NOTIFY_NOZONE;
	pthread_mutex_lock(&e->lock);
	if(!(s = find(e, zone))) {
		pthread_mutex_unlock(&e->lock);
		return XFR_NOTIFY_NOZONE;
	}
	for(i = 0; i < s->nallow && !ok; i++)
		ok = addr_in_netblock(addr, addrlen, &s->allow[i].addr,
			s->allow[i].len, s->allow[i].net);
	for(i = 0; i < s->nprim && !ok; i++)
		ok = same_host(addr, addrlen, &s->prim[i].addr,
			s->prim[i].len);
	if(ok) {
		s->next = now_s();
		pthread_cond_signal(&e->cond);
	}
	pthread_mutex_unlock(&e->lock);
	return ok ? XFR_NOTIFY_OK : XFR_NOTIFY_REFUSED;
}

int xfr_engine_transfer_now(struct xfr_engine* e, const uint8_t* zone)
{
	struct xfr_src* s;
	if(!e)
		return 0;
	pthread_mutex_lock(&e->lock);
	if((s = find(e, zone)) != NULL) {
		s->next = now_s();
		pthread_cond_signal(&e->cond);
	}
	pthread_mutex_unlock(&e->lock);
	return s != NULL;
}

int xfr_engine_has(struct xfr_engine* e, const uint8_t* zone)
{
	int r;
	if(!e)
		return 0;
	pthread_mutex_lock(&e->lock);
	r = find(e, zone) != NULL;
	pthread_mutex_unlock(&e->lock);
	return r;
}
