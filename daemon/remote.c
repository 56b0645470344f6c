/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote.c - the control channel: read one "UBCT1 cmd\n" line,
 * run the command in the main thread, write the answer, close. The
 * connections (accept, TLS, non-blocking I/O, the RC_TIMEOUT_SECS bound
 * without progress) are services/stream_conn.c's; this file is the
 * protocol on top and the listening sockets. */
#include "config.h"
#include "daemon/remote.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "daemon/reload.h"
#include "daemon/stats.h"
#include "services/stream_conn.h"
#include "services/tls_server.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include "util/log.h"
#include "util/strutil.h"
#include <event2/event.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

/* RC_READ: the command line (in the connection's input buffer);
 * RC_DATA: what the client sends after it (load_cache: a cache dump up
 * to its "EOF" line); RC_BULK: the lines of a bulk command (local_datas,
 * ...: up to a "\004" line); RC_WRITE: the answer is queued. */
enum rc_state { RC_READ, RC_DATA, RC_BULK, RC_WAIT, RC_WRITE };

/* A connection waits this long for a deferred answer (a reload that
 * builds a big config: minutes, not RC_TIMEOUT_SECS) */
#define RC_WAIT_MS (3600 * 1000)

/* The protocol's state of one connection (by its slot). */
struct rc_conn {
	enum rc_state state;
	struct strbuf out;
	int after;               /* enum rc_after, once written */
	int want_data;           /* the command reads data (RC_DATA) */
	char* data;
	size_t datalen, datacap;
	size_t scan;             /* start of the first line not ended yet */
	struct rc_bulk* bulk;    /* a bulk command reading its lines */
	int skip_line;           /* dropping the rest of a too long line */
	struct rc_ticket* ticket; /* RC_WAIT: the answer comes to it */
};

/* Append n bytes to the command's data; 0 when over the limit or out
 * of memory. */
static int data_add(struct daemon_remote* rc, struct rc_conn* r,
	const char* p, size_t n)
{
	if(r->datalen + n > rc_data_max(rc)) {
		log_warn("load_cache: more data than %lu bytes",
			(unsigned long)rc_data_max(rc));
		return 0;
	}
	if(r->datacap - r->datalen < n + 1) {
		size_t cap = r->datacap ? r->datacap : 65536;
		char* d;
		while(cap - r->datalen < n + 1)
			cap *= 2;
		if(!(d = realloc(r->data, cap)))
			return 0;
		r->data = d;
		r->datacap = cap;
	}
	memcpy(r->data + r->datalen, p, n);
	r->datalen += n;
	return 1;
}

/* Has the data reached its "EOF" line? Looks only at lines ended since
 * the last call. */
static int data_complete(struct rc_conn* r)
{
	char* nl;
	while(r->scan < r->datalen && (nl = memchr(r->data + r->scan, '\n',
		r->datalen - r->scan))) {
		size_t n = (size_t)(nl - (r->data + r->scan));
		const char* l = r->data + r->scan;
		r->scan += n + 1;
		if((n == 3 && memcmp(l, "EOF", 3) == 0) ||
			(n == 4 && memcmp(l, "EOF\r", 4) == 0)) {
			r->datalen = r->scan;  /* what follows is not ours */
			return 1;
		}
	}
	return 0;
}

/* The lines of a bulk command that are in the input buffer; 1 when its
 * input has ended (the "\004" line). */
static int bulk_lines(struct rc_conn* r, struct stream_conn* c)
{
	char* line = (char*)c->in;
	char* nl;
	while((nl = memchr(line, '\n', c->in_len)) != NULL) {
		int more;
		if(r->skip_line) {
			/* the end of an over-long line */
			r->skip_line = 0;
			stream_in_consume(c, (size_t)(nl + 1 - line));
			continue;
		}
		*nl = 0;
		if(nl > line && nl[-1] == '\r')
			nl[-1] = 0;
		more = rc_bulk_line(r->bulk, line);
		stream_in_consume(c, (size_t)(nl + 1 - line));
		if(!more)
			return 1;
	}
	return 0;
}

/* Apply the bulk command's lines and queue its answer. */
static void bulk_finish(struct daemon_remote* rc, struct rc_conn* r)
{
	struct rc_bulk* k = r->bulk;
	r->bulk = NULL;
	rc_bulk_finish(rc, k, &r->out);
	if(r->out.oom) {
		strbuf_clear(&r->out);
		strbuf_printf(&r->out, "error out of memory\n");
	}
	r->state = RC_WRITE;
}

/* A complete command line (its '\n' at nl): run it and queue the
 * answer, or get ready for the input that follows it. */
static void run_line(struct daemon_remote* rc, struct rc_conn* r,
	struct stream_conn* c, char* nl)
{
	char* line = (char*)c->in;
	char* cmd;
	*nl = 0;
	if(strncmp(line, "UBCT", 4) != 0) {
		/* not a control client: close without an answer */
		verbose(VERB_QUERY, "control connection has bad magic string");
		return;
	}
	if(atoi(line + 4) != 1) {
		strbuf_printf(&r->out, "error version mismatch\n");
		return;
	}
	cmd = line + 4;
	while(*cmd && *cmd != ' ')
		cmd++;
	cmd = str_skip_blank(cmd);
	if(nl > line && nl[-1] == '\r')
		nl[-1] = 0;
	if((r->bulk = rc_bulk_start(cmd)) != NULL) {
		/* its lines follow: keep what came after the command */
		stream_in_consume(c, (size_t)(nl + 1 - line));
		return;
	}
	if(rc_cmd_wants_data(cmd)) {
		/* the bytes after the command line are the first data */
		size_t rest = c->in_len - (size_t)(nl + 1 - line);
		r->want_data = 1;
		if(!data_add(rc, r, "", 0) || (rest && !data_add(rc, r,
			nl + 1, rest)))
			r->want_data = -1;
		stream_in_consume(c, c->in_len);
		return;
	}
	rc->cur_slot = c->slot;
	rc->deferred = NULL;
	r->after = rc_cmd_execute(rc, cmd, &r->out);
	if(rc->deferred) {
		r->ticket = rc->deferred;
		r->ticket->gen = c->gen;
		rc->deferred = NULL;
	}
	if(r->out.oom) {
		strbuf_clear(&r->out);
		strbuf_printf(&r->out, "error out of memory\n");
	}
}

/* Input arrived (or ended): go as far as it allows. */
static void rc_readable(void* arg, struct stream_conn* c)
{
	struct daemon_remote* rc = arg;
	struct rc_conn* r = &rc->slots[c->slot];
	char* nl;
	if(r->state == RC_DATA || r->state == RC_BULK)
		stream_conn_touch(c);  /* a long input: the limit is per read */
	for(;;) {
		switch(r->state) {
		case RC_READ:
			nl = memchr(c->in, '\n', c->in_len);
			if(!nl) {
				if(c->eof) {
					stream_conn_close(c);
					return;
				}
				/* the rest of a too long line is read and
				 * dropped before the answer: closing with input
				 * unread resets the connection, and the client
				 * would not see the answer */
				if(c->in_len >= RC_LINE_MAX) {
					r->skip_line = 1;
					stream_in_consume(c, c->in_len);
				}
				return;
			}
			/* a command runs: not idle any more */
			stream_conn_set_busy(c, 1);
			if(r->skip_line)
				strbuf_printf(&r->out, "error command line "
					"too long\n");
			else	run_line(rc, r, c, nl);
			r->state = r->want_data ? RC_DATA : r->bulk ? RC_BULK :
				r->ticket ? RC_WAIT : RC_WRITE;
			if(r->state == RC_WAIT)
				stream_conn_set_timeout(c, RC_WAIT_MS);
			break;
		case RC_DATA:
			if(r->want_data > 0 && c->in_len > 0 && !data_add(rc,
				r, (char*)c->in, c->in_len))
				r->want_data = -1;
			stream_in_consume(c, c->in_len);
			if(r->want_data < 0) {
				strbuf_printf(&r->out, "error load failed\n");
				r->state = RC_WRITE;
			} else if(data_complete(r)) {
				rc_do_load_cache(rc, r->data, r->datalen,
					&r->out);
				r->state = RC_WRITE;
			} else if(c->eof) {
				/* the input ended before its "EOF" line */
				r->want_data = -1;
			} else	return;
			break;
		case RC_BULK:
			if(bulk_lines(r, c) || c->eof) {
				bulk_finish(rc, r);
				break;
			}
			if(c->in_len >= RC_LINE_MAX) {
				/* a line too long: reported, and its bytes
				 * are dropped up to its end; the lines after
				 * it still count */
				if(!r->skip_line)
					rc_bulk_too_long(r->bulk, (char*)c->in);
				r->skip_line = 1;
				stream_in_consume(c, c->in_len);
			}
			return;
		case RC_WAIT:
			/* rc_answer_deferred writes the answer */
			stream_conn_pause_read(c, 1);
			return;
		case RC_WRITE:
			/* the layer writes it (a long answer to a client
			 * that reads it: the time limit is for a write that
			 * makes no progress), then closes */
			stream_conn_give(c, r->out.s, r->out.len);
			memset(&r->out, 0, sizeof(r->out));
			stream_conn_finish(c, 0, 0);
			return;
		}
	}
}

static void rc_opened(void* arg, struct stream_conn* c)
{
	struct daemon_remote* rc = arg;
	memset(&rc->slots[c->slot], 0, sizeof(rc->slots[c->slot]));
	rc->slots[c->slot].state = RC_READ;
}

static void rc_closed(void* arg, struct stream_conn* c,
	enum stream_close_why why)
{
	struct daemon_remote* rc = arg;
	struct rc_conn* r = &rc->slots[c->slot];
	int after = r->after;
	if(why == STREAM_CLOSE_TIMEOUT)
		verbose(VERB_OPS, "remote control connection timed out");
	if(why == STREAM_CLOSE_TIMEOUT || why == STREAM_CLOSE_EVICTED ||
		why == STREAM_CLOSE_SHUTDOWN)
		after = RC_AFTER_NONE;
	if(r->ticket) {
		/* gone before its answer: the reload goes on without it */
		daemon_reload_forget(rc->d, r->ticket);
		free(r->ticket);
		r->ticket = NULL;
	}
	if(why == STREAM_CLOSE_SHUTDOWN) {
		/* stopping: a bulk command's lines are not applied */
		rc_bulk_delete(r->bulk);
		r->bulk = NULL;
	}
	/* compat: unbound-1.17: input cut short: apply what came, as Unbound
	 * does */
	if(r->bulk)
		rc_bulk_finish(rc, r->bulk, &r->out);
	strbuf_clear(&r->out);
	free(r->data);
	memset(r, 0, sizeof(*r));
	rc_cmd_after(rc, after);
}

void rc_answer_deferred(struct rc_ticket* t, const char* text)
{
	struct daemon_remote* rc = t->rc;
	struct stream_conn* c = stream_pool_conn(rc->pool, t->slot);
	struct rc_conn* r = &rc->slots[t->slot];
	if(c->state == STREAM_FREE || c->gen != t->gen || r->ticket != t ||
		r->state != RC_WAIT) {
		free(t);   /* not expected: rc_closed forgets it */
		return;
	}
	r->ticket = NULL;
	free(t);
	strbuf_printf(&r->out, "%s", text);
	if(r->out.oom) {
		strbuf_clear(&r->out);
		strbuf_printf(&r->out, "error out of memory\n");
	}
	r->state = RC_WRITE;
	stream_conn_set_timeout(c, RC_TIMEOUT_SECS * 1000);
	stream_conn_give(c, r->out.s, r->out.len);
	memset(&r->out, 0, sizeof(r->out));
	stream_conn_finish(c, 0, 0);
	(void)stream_conn_flush(c);
}

static const struct stream_proto rc_proto = {
	"remote control", rc_opened, rc_readable, NULL, NULL, rc_closed
};

/* The TLS context: our key and certificate, and clients must show a
 * certificate signed by the server certificate (unbound-control-setup
 * signs the control certificate with the server key). */
static SSL_CTX* setup_ctx(const struct config_file* cfg)
{
	SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
	STACK_OF(X509_NAME)* names;
	if(!ctx) {
		log_err("could not SSL_CTX_new");
		return NULL;
	}
	/* partial writes, so a long answer to a slow reader shows its
	 * progress, are set per connection (services/stream_tls.c) */
	tls_server_set_protocols(ctx, cfg);
	if(!SSL_CTX_use_certificate_chain_file(ctx, cfg->server_cert_file)) {
		log_err("error for cert file: %s", cfg->server_cert_file);
		goto fail;
	}
	if(!SSL_CTX_use_PrivateKey_file(ctx, cfg->server_key_file,
		SSL_FILETYPE_PEM)) {
		log_err("error for private key file: %s",
			cfg->server_key_file);
		goto fail;
	}
	if(!SSL_CTX_check_private_key(ctx)) {
		log_err("error: key %s does not match cert %s",
			cfg->server_key_file, cfg->server_cert_file);
		goto fail;
	}
	if(!SSL_CTX_load_verify_locations(ctx, cfg->server_cert_file, NULL)) {
		log_err("error in SSL_CTX verify locations");
		goto fail;
	}
	if((names = SSL_load_client_CA_file(cfg->server_cert_file)))
		SSL_CTX_set_client_CA_list(ctx, names);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER |
		SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

static int open_unix(struct rc_listener* l, const char* path)
{
	struct sockaddr_un sun;
	int fd;
	if(strlen(path) >= sizeof(sun.sun_path)) {
		log_err("control-interface %s: path too long", path);
		return 0;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if(fd == -1) {
		log_err("control-interface %s: socket: %s", path,
			strerror(errno));
		return 0;
	}
	(void)unlink(path);  /* a stale socket from an earlier run */
	if(bind(fd, (struct sockaddr*)&sun, sizeof(sun)) != 0 ||
		listen(fd, 16) != 0) {
		log_err("control-interface %s: %s", path, strerror(errno));
		close(fd);
		return 0;
	}
	/* compat: unbound-1.17: as Unbound: owner and group may control */
	(void)chmod(path, 0660);
	l->fd = fd;
	l->unix_path = strdup(path);
	l->use_ssl = 0;
	return 1;
}

static int open_tcp(struct rc_listener* l, const char* ifc, int port)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int fd, on = 1;
	if(!extstrtoaddr(ifc, port, &addr, &len)) {
		log_err("control-interface: cannot parse '%s'", ifc);
		return 0;
	}
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		SOCK_CLOEXEC, 0);
	if(fd == -1) {
		log_err("control-interface %s: socket: %s", ifc,
			strerror(errno));
		return 0;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if(addr.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
			sizeof(on));
	if(bind(fd, (struct sockaddr*)&addr, len) != 0 ||
		listen(fd, 16) != 0) {
		log_err("can't bind control-interface %s port %d: %s", ifc,
			port, strerror(errno));
		close(fd);
		return 0;
	}
	l->fd = fd;
	return 1;
}

struct daemon_remote* daemon_remote_create(struct daemon* d,
	struct config_file* cfg)
{
	struct daemon_remote* rc = calloc(1, sizeof(*rc));
	struct config_strlist* s;
	static const char* defaults[] = { "127.0.0.1", "::1" };
	int i, need_ssl = 0;
	if(!rc)
		return NULL;
	rc->d = d;
	clock_gettime(CLOCK_REALTIME, &rc->start);
	rc->last = rc->start;
	if(!cfg->remote_control_enable)
		return rc;
	for(s = cfg->control_ifs; s; s = s->next)
		if(s->str[0] != '/')
			need_ssl = cfg->control_use_cert;
	if(!cfg->control_ifs)
		need_ssl = cfg->control_use_cert;
	if(need_ssl && !(rc->ctx = setup_ctx(cfg)))
		goto fail;
	if(!cfg->control_ifs) {
		for(i = 0; i < 2; i++) {
			struct rc_listener* l = &rc->listen[rc->num_listen];
			l->owner = rc;
			l->use_ssl = need_ssl;
			/* ::1 may be missing on a host without IPv6 */
			if(open_tcp(l, defaults[i], cfg->control_port))
				rc->num_listen++;
			else if(i == 0)
				goto fail;
		}
		return rc;
	}
	for(s = cfg->control_ifs; s; s = s->next) {
		struct rc_listener* l = &rc->listen[rc->num_listen];
		if(rc->num_listen >= RC_MAX_LISTEN) {
			log_err("too many control-interface lines");
			goto fail;
		}
		l->owner = rc;
		l->use_ssl = need_ssl;
		if(!(s->str[0] == '/' ? open_unix(l, s->str) :
			open_tcp(l, s->str, cfg->control_port)))
			goto fail;
		rc->num_listen++;
	}
	return rc;
fail:
	daemon_remote_delete(rc);
	return NULL;
}

static void stat_timer_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct daemon_remote* rc = arg;
	int iv = rc->d->env->cfg->stat_interval;
	(void)fd;
	(void)ev;
	rc_log_stats(rc);
	if(iv > 0) {
		struct timeval tv = { iv, 0 };
		evtimer_add(rc->stat_timer, &tv);
	}
}

/* The connection pool on rc->base (for listeners, or an adopted
 * socket). 0 on out of memory. */
static int make_pool(struct daemon_remote* rc)
{
	struct stream_pool_cfg cfg;
	if(rc->pool)
		return 1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_conns = RC_MAX_CONNS;
	cfg.in_cap = RC_LINE_MAX;
	cfg.timeout_ms = RC_TIMEOUT_SECS * 1000;
	/* a new connection closes the oldest that has not sent its command
	 * line yet, so clients that connect and say nothing cannot lock the
	 * others out */
	cfg.evict_idle = 1;
	cfg.write_touches = 1;
	cfg.outq_progress = 1;
	if(!rc->slots)
		rc->slots = calloc(RC_MAX_CONNS, sizeof(*rc->slots));
	rc->pool = stream_pool_create(rc->base, &cfg, &rc_proto, rc);
	return rc->slots && rc->pool;
}

int daemon_remote_start(struct daemon_remote* rc, struct event_base* base)
{
	int i, iv = rc->d->env->cfg->stat_interval;
	rc->base = base;
	if(rc->num_listen > 0 && !make_pool(rc))
		return 0;
	for(i = 0; i < rc->num_listen; i++) {
		struct rc_listener* l = &rc->listen[i];
		if(!stream_pool_add_listener(rc->pool, l->fd, l->use_ssl ?
			rc->ctx : NULL))
			return 0;
	}
	if(!(rc->stat_timer = evtimer_new(base, stat_timer_cb, rc)))
		return 0;
	if(iv > 0) {
		struct timeval tv = { iv, 0 };
		evtimer_add(rc->stat_timer, &tv);
	}
	return 1;
}

int daemon_remote_adopt(struct daemon_remote* rc, int fd, int use_ssl)
{
	if(!rc->base || !make_pool(rc) || !stream_pool_adopt(rc->pool, fd,
		use_ssl ? rc->ctx : NULL)) {
		close(fd);
		return 0;
	}
	return 1;
}

void daemon_remote_delete(struct daemon_remote* rc)
{
	int i;
	if(!rc)
		return;
	stream_pool_delete(rc->pool);
	free(rc->slots);
	for(i = 0; i < rc->num_listen; i++) {
		struct rc_listener* l = &rc->listen[i];
		close(l->fd);
		if(l->unix_path) {
			(void)unlink(l->unix_path);
			free(l->unix_path);
		}
	}
	if(rc->stat_timer)
		event_free(rc->stat_timer);
	SSL_CTX_free(rc->ctx);
	free(rc->base_stats);
	free(rc);
}
