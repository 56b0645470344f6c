/* SPDX-License-Identifier: BSD-3-Clause */
/* dnstap/dnstap.c - dnstap frames from the workers to a Frame Streams
 * collector (dnstap/dnstap.h). Each worker packs a message with
 * protobuf-c into a buffer of its own and submits it to libfstrm's I/O
 * thread on its own single-producer queue; the I/O thread owns the
 * socket (unix, or TCP for dnstap-ip), reconnects, and frees the
 * buffers. */
#include "config.h"
#include "dnstap/dnstap.h"
#include "util/config_file.h"
#include "util/log.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dnstap_config_ok(const struct config_file* cfg)
{
	if(!cfg->dnstap_enable)
		return 1;
	if(!dnstap_built()) {
		/* compat: unbound-1.17: refused at start, as Unbound built
		 * without --enable-dnstap */
		log_err("dnstap enabled in config but not built with dnstap "
			"support");
		return 0;
	}
	return 1;
}

static int str_same(const char* a, const char* b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

int dnstap_same_config(const struct config_file* a,
	const struct config_file* b)
{
#define SAME_INT(f) (a->f == b->f)
#define SAME_STR(f) str_same(a->f, b->f)
	return SAME_INT(dnstap_enable) && SAME_INT(dnstap_bidirectional) &&
		SAME_STR(dnstap_socket_path) && SAME_STR(dnstap_ip) &&
		SAME_INT(dnstap_tls) && SAME_STR(dnstap_tls_server_name) &&
		SAME_STR(dnstap_tls_cert_bundle) &&
		SAME_STR(dnstap_tls_client_key_file) &&
		SAME_STR(dnstap_tls_client_cert_file) &&
		SAME_INT(dnstap_send_identity) &&
		SAME_INT(dnstap_send_version) && SAME_STR(dnstap_identity) &&
		SAME_STR(dnstap_version) && SAME_INT(dnstap_sample_rate) &&
		SAME_INT(dnstap_log_resolver_query_messages) &&
		SAME_INT(dnstap_log_resolver_response_messages) &&
		SAME_INT(dnstap_log_client_query_messages) &&
		SAME_INT(dnstap_log_client_response_messages) &&
		SAME_INT(dnstap_log_forwarder_query_messages) &&
		SAME_INT(dnstap_log_forwarder_response_messages) &&
		/* the TLS context reads these */
		SAME_STR(tls_cert_bundle) && SAME_INT(tls_use_sni) &&
		SAME_STR(chrootdir);
#undef SAME_INT
#undef SAME_STR
}

#ifdef HAVE_DNSTAP
#include <fstrm.h>
#include <netinet/in.h>
#include <pthread.h>
#include <protobuf-c/protobuf-c.h>
#include "dnstap/dnstap.pb-c.h"
#include "dnstap/dnstap_out.h"

#define DNSTAP_CONTENT_TYPE "protobuf:dnstap.Dnstap"

struct dnstap_tap {
	struct dnstap* dt;
	struct fstrm_iothr_queue* q;
	unsigned which;
	unsigned sample_rate;    /* 0, 1: every message; n: 1 in n */
	unsigned sample_count;
	uint64_t dropped;
} __attribute__((aligned(64)));

struct dnstap {
	atomic_int holders;      /* envs that share it (dnstap_share) */
	atomic_int users;        /* workers tapping it (dnstap_leave) */
	atomic_int stopper_started;
	pthread_t stopper;       /* closes the stream once users is 0 */
	struct fstrm_iothr* iothr;
	char* identity;          /* NULL: not sent */
	char* version;
	int num;
	struct dnstap_tap* taps;
};

int dnstap_built(void)
{
	return 1;
}

static char* identity_of(const struct config_file* cfg)
{
	char host[256];
	if(!cfg->dnstap_send_identity)
		return NULL;
	if(cfg->dnstap_identity && cfg->dnstap_identity[0])
		return strdup(cfg->dnstap_identity);
	/* compat: unbound-1.17: an empty dnstap-identity is the host name */
	if(gethostname(host, sizeof(host)) != 0)
		return strdup("");
	host[sizeof(host) - 1] = 0;
	return strdup(host);
}

static char* version_of(const struct config_file* cfg)
{
	if(!cfg->dnstap_send_version)
		return NULL;
	if(cfg->dnstap_version && cfg->dnstap_version[0])
		return strdup(cfg->dnstap_version);
	/* compat: unbound-1.17: the package's name and version */
	return strdup("unbound " PACKAGE_VERSION);
}

static unsigned which_of(const struct config_file* cfg)
{
	return (cfg->dnstap_log_client_query_messages ?
		DNSTAP_CLIENT_QUERY : 0) |
		(cfg->dnstap_log_client_response_messages ?
		DNSTAP_CLIENT_RESPONSE : 0) |
		(cfg->dnstap_log_resolver_query_messages ?
		DNSTAP_RESOLVER_QUERY : 0) |
		(cfg->dnstap_log_resolver_response_messages ?
		DNSTAP_RESOLVER_RESPONSE : 0) |
		(cfg->dnstap_log_forwarder_query_messages ?
		DNSTAP_FORWARDER_QUERY : 0) |
		(cfg->dnstap_log_forwarder_response_messages ?
		DNSTAP_FORWARDER_RESPONSE : 0);
}

/* The Frame Streams writer over cfg's collector connection
 * (dnstap_out.h); NULL, logged. */
static struct fstrm_writer* writer_of(const struct config_file* cfg)
{
	struct fstrm_rdwr* rw = dnstap_out_create(cfg);
	struct fstrm_writer_options* wo;
	struct fstrm_writer* w;
	if(!rw)
		return NULL;
	wo = fstrm_writer_options_init();
	fstrm_writer_options_add_content_type(wo, DNSTAP_CONTENT_TYPE,
		strlen(DNSTAP_CONTENT_TYPE));
	w = fstrm_writer_init(wo, &rw);
	fstrm_writer_options_destroy(&wo);
	if(!w) {
		if(rw)
			fstrm_rdwr_destroy(&rw);
		log_err("dnstap: could not make the frame streams writer");
	}
	return w;
}

struct dnstap* dnstap_create(const struct config_file* cfg, int num_workers,
	int* failed)
{
	struct dnstap* dt;
	struct fstrm_writer* w;
	struct fstrm_iothr_options* io;
	int i;
	*failed = 0;
	if(!cfg->dnstap_enable)
		return NULL;
	if(!dnstap_config_ok(cfg)) {
		*failed = 1;
		return NULL;
	}
	if(num_workers < 1)
		num_workers = 1;
	dt = calloc(1, sizeof(*dt));
	if(!dt || !(dt->taps = aligned_alloc(64, sizeof(*dt->taps) *
		(size_t)num_workers))) {
		free(dt);
		log_oom("dnstap");
		*failed = 1;
		return NULL;
	}
	memset(dt->taps, 0, sizeof(*dt->taps) * (size_t)num_workers);
	atomic_init(&dt->holders, 1);
	atomic_init(&dt->users, num_workers);
	atomic_init(&dt->stopper_started, 0);
	dt->num = num_workers;
	dt->identity = identity_of(cfg);
	dt->version = version_of(cfg);
	if(!(w = writer_of(cfg))) {
		dnstap_delete(dt);
		*failed = 1;
		return NULL;
	}
	io = fstrm_iothr_options_init();
	fstrm_iothr_options_set_num_input_queues(io, (size_t)num_workers);
	/* one producer per queue: the worker's thread; no lock */
	fstrm_iothr_options_set_queue_model(io, FSTRM_IOTHR_QUEUE_MODEL_SPSC);
	/* a collector that went away is tried again every second */
	fstrm_iothr_options_set_reopen_interval(io, 1);
	dt->iothr = fstrm_iothr_init(io, &w);
	fstrm_iothr_options_destroy(&io);
	if(!dt->iothr) {
		fstrm_writer_destroy(&w);
		log_err("dnstap: could not start the frame streams thread");
		dnstap_delete(dt);
		*failed = 1;
		return NULL;
	}
	for(i = 0; i < num_workers; i++) {
		struct dnstap_tap* t = &dt->taps[i];
		t->dt = dt;
		t->q = fstrm_iothr_get_input_queue_idx(dt->iothr, (size_t)i);
		t->which = which_of(cfg);
		t->sample_rate = cfg->dnstap_sample_rate > 1 ?
			(unsigned)cfg->dnstap_sample_rate : 0;
	}
	verbose(VERB_OPS, "dnstap started, %d queues", num_workers);
	return dt;
}

struct dnstap* dnstap_share(struct dnstap* dt)
{
	if(dt)
		atomic_fetch_add(&dt->holders, 1);
	return dt;
}

/* The I/O thread flushes, closes the stream (STOP, FINISH) and stops:
 * up to a few seconds with a slow collector, so never in a worker. */
static void* stopper_main(void* arg)
{
	struct dnstap* dt = arg;
	fstrm_iothr_destroy(&dt->iothr);
	verbose(VERB_DETAIL, "dnstap: the replaced stream to the collector "
		"is closed");
	return NULL;
}

void dnstap_leave(struct dnstap* dt)
{
	if(!dt || atomic_fetch_sub(&dt->users, 1) != 1)
		return;
	/* no thread: it is closed when the last config holding it goes */
	if(pthread_create(&dt->stopper, NULL, stopper_main, dt) == 0)
		atomic_store(&dt->stopper_started, 1);
}

void dnstap_delete(struct dnstap* dt)
{
	if(!dt || atomic_fetch_sub(&dt->holders, 1) != 1)
		return;
	if(atomic_load(&dt->stopper_started))
		pthread_join(dt->stopper, NULL);
	else if(dt->iothr)
		fstrm_iothr_destroy(&dt->iothr);
	free(dt->identity);
	free(dt->version);
	free(dt->taps);
	free(dt);
}

struct dnstap_tap* dnstap_tap_of(struct dnstap* dt, int num, unsigned which)
{
	if(!dt || num < 0 || num >= dt->num || !(dt->taps[num].which & which))
		return NULL;
	return &dt->taps[num];
}

int dnstap_logs(const struct dnstap_tap* t, unsigned which)
{
	return t && (t->which & which) != 0;
}

uint64_t dnstap_dropped(const struct dnstap_tap* t)
{
	return t ? t->dropped : 0;
}

/* compat: unbound-1.21: dnstap-sample-rate n: one message in n is
 * sent; unlike Unbound (one count under a lock), each worker counts its
 * own messages, so no lock is taken */
static int sampled_out(struct dnstap_tap* t)
{
	if(t->sample_rate == 0)
		return 0;
	if(++t->sample_count < t->sample_rate)
		return 1;
	t->sample_count = 0;
	return 0;
}

static void msg_init(struct dnstap_tap* t, Dnstap__Dnstap* d,
	Dnstap__Message* m, Dnstap__Message__Type type)
{
	dnstap__dnstap__init(d);
	dnstap__message__init(m);
	d->type = DNSTAP__DNSTAP__TYPE__MESSAGE;
	d->message = m;
	m->type = type;
	if(t->dt->identity) {
		d->identity.data = (uint8_t*)t->dt->identity;
		d->identity.len = strlen(t->dt->identity);
		d->has_identity = 1;
	}
	if(t->dt->version) {
		d->version.data = (uint8_t*)t->dt->version;
		d->version.len = strlen(t->dt->version);
		d->has_version = 1;
	}
}

/* The peer's address and port into the query or response side; the
 * other side (this server's own address) as the wildcard of the same
 * family, port 0, as Unbound sends without an outgoing-interface. */
static void fill_net(Dnstap__Message* m, const struct sockaddr_storage* a,
	enum dnstap_proto proto, int peer_is_query)
{
	static const uint8_t any[16];
	ProtobufCBinaryData* peer = peer_is_query ? &m->query_address :
		&m->response_address;
	uint32_t* peer_port = peer_is_query ? &m->query_port :
		&m->response_port;
	m->socket_protocol = (Dnstap__SocketProtocol)proto;
	m->has_socket_protocol = 1;
	if(a->ss_family == AF_INET6) {
		const struct sockaddr_in6* s = (const struct sockaddr_in6*)a;
		m->socket_family = DNSTAP__SOCKET_FAMILY__INET6;
		peer->data = (uint8_t*)s->sin6_addr.s6_addr;
		peer->len = 16;
		*peer_port = ntohs(s->sin6_port);
	} else if(a->ss_family == AF_INET) {
		const struct sockaddr_in* s = (const struct sockaddr_in*)a;
		m->socket_family = DNSTAP__SOCKET_FAMILY__INET;
		peer->data = (uint8_t*)&s->sin_addr.s_addr;
		peer->len = 4;
		*peer_port = ntohs(s->sin_port);
	} else
		return;
	m->has_socket_family = 1;
	if(peer_is_query) {
		m->has_query_address = m->has_query_port = 1;
	} else {
		m->has_response_address = m->has_response_port = 1;
		/* the outside side: ours is the query address */
		m->query_address.data = (uint8_t*)any;
		m->query_address.len = peer->len;
		m->query_port = 0;
		m->has_query_address = m->has_query_port = 1;
	}
}

static void fill_time(const struct timespec* ts, uint64_t* sec,
	protobuf_c_boolean* has_sec, uint32_t* nsec,
	protobuf_c_boolean* has_nsec)
{
	*sec = (uint64_t)ts->tv_sec;
	*nsec = (uint32_t)ts->tv_nsec;
	*has_sec = *has_nsec = 1;
}

/* Pack and queue d; a full queue or no memory drops it (counted). */
static void send_frame(struct dnstap_tap* t, const Dnstap__Dnstap* d)
{
	size_t len = dnstap__dnstap__get_packed_size(d);
	uint8_t* buf = malloc(len);
	if(!buf) {
		t->dropped++;
		return;
	}
	dnstap__dnstap__pack(d, buf);
	if(fstrm_iothr_submit(t->dt->iothr, t->q, buf, len,
		fstrm_free_wrapper, NULL) != fstrm_res_success) {
		free(buf);
		t->dropped++;
	}
}

/* The message's times and packet: the query time (when given), the
 * response time (now, for a response), and the packet in the query or
 * the response field. Client and outside messages differ only in which
 * of these they have. */
static void fill_payload(Dnstap__Message* m, const struct timespec* qtime,
	const uint8_t* pkt, size_t len, int is_response)
{
	if(qtime)
		fill_time(qtime, &m->query_time_sec, &m->has_query_time_sec,
			&m->query_time_nsec, &m->has_query_time_nsec);
	if(is_response) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		fill_time(&now, &m->response_time_sec,
			&m->has_response_time_sec, &m->response_time_nsec,
			&m->has_response_time_nsec);
		m->response_message.data = (uint8_t*)pkt;
		m->response_message.len = len;
		m->has_response_message = 1;
	} else {
		m->query_message.data = (uint8_t*)pkt;
		m->query_message.len = len;
		m->has_query_message = 1;
	}
}

static void client_msg(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, enum dnstap_proto proto,
	const uint8_t* pkt, size_t len, int is_response)
{
	Dnstap__Dnstap d;
	Dnstap__Message m;
	struct timespec now;
	if(sampled_out(t))
		return;
	msg_init(t, &d, &m, is_response ?
		DNSTAP__MESSAGE__TYPE__CLIENT_RESPONSE :
		DNSTAP__MESSAGE__TYPE__CLIENT_QUERY);
	fill_net(&m, addr, proto, 1);
	/* a client query is stamped now; its response only with its own
	 * time, as Unbound logs them */
	if(!is_response)
		clock_gettime(CLOCK_REALTIME, &now);
	fill_payload(&m, is_response ? NULL : &now, pkt, len, is_response);
	send_frame(t, &d);
}

void dnstap_client_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len)
{
	(void)addrlen;
	if(t && (t->which & DNSTAP_CLIENT_QUERY))
		client_msg(t, addr, proto, pkt, len, 0);
}

void dnstap_client_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len)
{
	(void)addrlen;
	if(t && (t->which & DNSTAP_CLIENT_RESPONSE))
		client_msg(t, addr, proto, pkt, len, 1);
}

/* RD in the query we sent: a forwarder's question (Unbound's rule). */
static int is_forward(const uint8_t* qpkt)
{
	return (qpkt[2] & 0x01) != 0;
}

static void outside_msg(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, enum dnstap_proto proto,
	const uint8_t* zone, size_t zonelen, const struct timespec* sent,
	const uint8_t* pkt, size_t len, Dnstap__Message__Type type,
	int is_response)
{
	Dnstap__Dnstap d;
	Dnstap__Message m;
	if(sampled_out(t))
		return;
	msg_init(t, &d, &m, type);
	fill_net(&m, addr, proto, 0);
	m.query_zone.data = (uint8_t*)zone;
	m.query_zone.len = zonelen;
	m.has_query_zone = 1;
	fill_payload(&m, sent, pkt, len, is_response);
	send_frame(t, &d);
}

void dnstap_outside_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* pkt, size_t len, const struct timespec* sent)
{
	int fwd;
	(void)addrlen;
	if(!t || len < 12)
		return;
	fwd = is_forward(pkt);
	if(!(t->which & (fwd ? DNSTAP_FORWARDER_QUERY :
		DNSTAP_RESOLVER_QUERY)))
		return;
	outside_msg(t, addr, proto, zone, zonelen, sent, pkt, len, fwd ?
		DNSTAP__MESSAGE__TYPE__FORWARDER_QUERY :
		DNSTAP__MESSAGE__TYPE__RESOLVER_QUERY, 0);
}

void dnstap_outside_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* qpkt, const struct timespec* sent,
	const uint8_t* pkt, size_t len)
{
	int fwd;
	(void)addrlen;
	if(!t)
		return;
	fwd = is_forward(qpkt);
	if(!(t->which & (fwd ? DNSTAP_FORWARDER_RESPONSE :
		DNSTAP_RESOLVER_RESPONSE)))
		return;
	outside_msg(t, addr, proto, zone, zonelen, sent, pkt, len, fwd ?
		DNSTAP__MESSAGE__TYPE__FORWARDER_RESPONSE :
		DNSTAP__MESSAGE__TYPE__RESOLVER_RESPONSE, 1);
}

#else /* !HAVE_DNSTAP */

int dnstap_built(void)
{
	return 0;
}

struct dnstap* dnstap_create(const struct config_file* cfg, int num_workers,
	int* failed)
{
	(void)num_workers;
	*failed = cfg->dnstap_enable && !dnstap_config_ok(cfg);
	return NULL;
}

struct dnstap* dnstap_share(struct dnstap* dt)
{
	return dt;
}

void dnstap_leave(struct dnstap* dt)
{
	(void)dt;
}

void dnstap_delete(struct dnstap* dt)
{
	(void)dt;
}

struct dnstap_tap* dnstap_tap_of(struct dnstap* dt, int num, unsigned which)
{
	(void)dt; (void)num; (void)which;
	return NULL;
}

int dnstap_logs(const struct dnstap_tap* t, unsigned which)
{
	(void)t; (void)which;
	return 0;
}

uint64_t dnstap_dropped(const struct dnstap_tap* t)
{
	(void)t;
	return 0;
}

void dnstap_client_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len)
{
	(void)t; (void)addr; (void)addrlen; (void)proto; (void)pkt; (void)len;
}

void dnstap_client_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len)
{
	(void)t; (void)addr; (void)addrlen; (void)proto; (void)pkt; (void)len;
}

void dnstap_outside_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* pkt, size_t len, const struct timespec* sent)
{
	(void)t; (void)addr; (void)addrlen; (void)proto; (void)zone;
	(void)zonelen; (void)pkt; (void)len; (void)sent;
}

void dnstap_outside_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* qpkt, const struct timespec* sent,
	const uint8_t* pkt, size_t len)
{
	(void)t; (void)addr; (void)addrlen; (void)proto; (void)zone;
	(void)zonelen; (void)qpkt; (void)sent; (void)pkt; (void)len;
}

#endif /* HAVE_DNSTAP */
