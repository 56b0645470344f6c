/* daemon/remote.c - the control channel: accept, (TLS) handshake, read
 * one "UBCT1 cmd\n" line, run the command in the main thread, write the
 * answer, close. Each step is non-blocking on the main event base and
 * bounded by RC_TIMEOUT_SECS without progress. */
#include "config.h"
#include "daemon/remote.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "daemon/stats.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include "util/log.h"
#include <event2/event.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <unistd.h>

/* RC_DATA: reading what the client sends after the command line
 * (load_cache: a cache dump up to its "EOF" line); RC_BULK: the lines
 * of a bulk command (local_datas, ...: up to a "\004" line). */
enum rc_state { RC_HANDSHAKE, RC_READ, RC_DATA, RC_BULK, RC_WRITE };

struct rc_conn {
	struct rc_conn* next, *prev;
	struct daemon_remote* rc;
	int fd;
	SSL* ssl;                /* NULL: plain (unix socket, no cert) */
	struct event* ev;
	struct event* timer;
	enum rc_state state;
	char line[RC_LINE_MAX + 1];
	size_t linelen;
	struct strbuf out;
	size_t outpos;
	int after;               /* enum rc_after, once written */
	int want_data;           /* the command reads data (RC_DATA) */
	char* data;
	size_t datalen, datacap;
	size_t scan;             /* start of the first line not ended yet */
	struct rc_bulk* bulk;    /* a bulk command reading its lines */
	int skip_line;           /* dropping the rest of a too long line */
	int outq;                /* bytes the kernel had yet to send after our
	                          * last write (RC_WRITE), -1: unknown */
};

static void conn_cb(evutil_socket_t fd, short ev, void* arg);

/* Bytes written to fd that the peer has not taken yet, or -1. */
static int unsent(int fd)
{
	int q;
	return ioctl(fd, SIOCOUTQ, &q) == 0 ? q : -1;
}

/* Accept new connections or not (at the limit). */
static void set_accepting(struct daemon_remote* rc, int on)
{
	int i;
	for(i = 0; i < rc->num_listen; i++) {
		if(!rc->listen[i].ev)
			continue;
		if(on)
			(void)event_add(rc->listen[i].ev, NULL);
		else	(void)event_del(rc->listen[i].ev);
	}
}

static void conn_close(struct rc_conn* c)
{
	struct daemon_remote* rc = c->rc;
	int after = c->after;
	if(c->prev)
		c->prev->next = c->next;
	else	rc->conns = c->next;
	if(c->next)
		c->next->prev = c->prev;
	rc->num_conns--;
	if(c->ssl) {
		if(c->state == RC_WRITE)
			(void)SSL_shutdown(c->ssl);
		SSL_free(c->ssl);
	}
	if(c->ev)
		event_free(c->ev);
	if(c->timer)
		event_free(c->timer);
	close(c->fd);
	/* input cut short: apply what came, as Unbound does */
	if(c->bulk)
		rc_bulk_finish(rc, c->bulk, &c->out);
	strbuf_free(&c->out);
	free(c->data);
	free(c);
	/* accept again if we had stopped at the limit */
	if(rc->num_conns == RC_MAX_CONNS - 1)
		set_accepting(rc, 1);
	rc_cmd_after(rc, after);
}

/* Wait for fd to be readable or writable, then call conn_cb. */
static int conn_wait(struct rc_conn* c, short what)
{
	if(c->ev)
		event_del(c->ev);
	else if(!(c->ev = event_new(c->rc->base, c->fd, what, conn_cb, c)))
		return 0;
	event_assign(c->ev, c->rc->base, c->fd, what, conn_cb, c);
	return event_add(c->ev, NULL) == 0;
}

/* The SSL or socket step wants to wait: arm the right event. Returns 0
 * to close. n is the I/O call's result. */
static int conn_io_wait(struct rc_conn* c, int n)
{
	if(c->ssl) {
		int e = SSL_get_error(c->ssl, n);
		if(e == SSL_ERROR_WANT_READ)
			return conn_wait(c, EV_READ);
		if(e == SSL_ERROR_WANT_WRITE)
			return conn_wait(c, EV_WRITE);
		if(c->state == RC_HANDSHAKE) {
			unsigned long err = ERR_peek_last_error();
			verbose(VERB_OPS, "remote control connection failed "
				"TLS handshake: %s", err ? ERR_reason_error_string(
				err) : "connection closed");
		}
		ERR_clear_error();
		return 0;
	}
	if(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		errno == EINTR))
		return conn_wait(c, c->state == RC_WRITE ? EV_WRITE : EV_READ);
	return 0;
}

/* Append n bytes to the command's data; 0 when over the limit or out
 * of memory. */
static int data_add(struct rc_conn* c, const char* p, size_t n)
{
	if(c->datalen + n > rc_data_max(c->rc)) {
		log_warn("load_cache: more data than %lu bytes",
			(unsigned long)rc_data_max(c->rc));
		return 0;
	}
	if(c->datacap - c->datalen < n + 1) {
		size_t cap = c->datacap ? c->datacap : 65536;
		char* d;
		while(cap - c->datalen < n + 1)
			cap *= 2;
		if(!(d = realloc(c->data, cap)))
			return 0;
		c->data = d;
		c->datacap = cap;
	}
	memcpy(c->data + c->datalen, p, n);
	c->datalen += n;
	return 1;
}

/* Has the data reached its "EOF" line? Looks only at lines ended since
 * the last call. */
static int data_complete(struct rc_conn* c)
{
	char* nl;
	while(c->scan < c->datalen && (nl = memchr(c->data + c->scan, '\n',
		c->datalen - c->scan))) {
		size_t n = (size_t)(nl - (c->data + c->scan));
		const char* l = c->data + c->scan;
		c->scan += n + 1;
		if((n == 3 && memcmp(l, "EOF", 3) == 0) ||
			(n == 4 && memcmp(l, "EOF\r", 4) == 0)) {
			c->datalen = c->scan;  /* what follows is not ours */
			return 1;
		}
	}
	return 0;
}

/* The lines of a bulk command that are in the buffer; 1 when its input
 * has ended (the "\004" line). */
static int conn_bulk_lines(struct rc_conn* c)
{
	char* nl;
	while((nl = memchr(c->line, '\n', c->linelen)) != NULL) {
		int more;
		if(c->skip_line) {
			/* the end of an over-long line */
			c->skip_line = 0;
			c->linelen -= (size_t)(nl + 1 - c->line);
			memmove(c->line, nl + 1, c->linelen);
			continue;
		}
		*nl = 0;
		if(nl > c->line && nl[-1] == '\r')
			nl[-1] = 0;
		more = rc_bulk_line(c->bulk, c->line);
		c->linelen -= (size_t)(nl + 1 - c->line);
		memmove(c->line, nl + 1, c->linelen);
		if(!more)
			return 1;
	}
	return 0;
}

/* Apply the bulk command's lines and queue its answer. */
static void conn_bulk_finish(struct rc_conn* c)
{
	struct rc_bulk* k = c->bulk;
	c->bulk = NULL;
	rc_bulk_finish(c->rc, k, &c->out);
	if(c->out.oom) {
		strbuf_free(&c->out);
		strbuf_printf(&c->out, "error out of memory\n");
	}
	c->state = RC_WRITE;
}

/* A complete line: run it, queue the answer. */
static void conn_run(struct rc_conn* c)
{
	char* nl = memchr(c->line, '\n', c->linelen);
	char* cmd;
	if(nl)
		*nl = 0;
	c->line[c->linelen] = 0;
	if(strncmp(c->line, "UBCT", 4) != 0) {
		/* not a control client: close without an answer */
		verbose(VERB_QUERY, "control connection has bad magic string");
		return;
	}
	if(atoi(c->line + 4) != 1) {
		strbuf_printf(&c->out, "error version mismatch\n");
		return;
	}
	cmd = c->line + 4;
	while(*cmd && *cmd != ' ')
		cmd++;
	while(*cmd == ' ' || *cmd == '\t')
		cmd++;
	if(nl && nl > c->line && nl[-1] == '\r')
		nl[-1] = 0;
	if(nl && (c->bulk = rc_bulk_start(cmd)) != NULL) {
		/* its lines follow: keep what came after the command */
		c->linelen -= (size_t)(nl + 1 - c->line);
		memmove(c->line, nl + 1, c->linelen);
		return;
	}
	if(rc_cmd_wants_data(cmd)) {
		/* the bytes after the command line are the first data */
		size_t rest = nl ? c->linelen - (size_t)(nl + 1 - c->line) : 0;
		c->want_data = 1;
		if(!data_add(c, "", 0) || (rest && !data_add(c, nl + 1, rest)))
			c->want_data = -1;
		return;
	}
	c->after = rc_cmd_execute(c->rc, cmd, &c->out);
	if(c->out.oom) {
		strbuf_free(&c->out);
		strbuf_printf(&c->out, "error out of memory\n");
	}
}

static void conn_step(struct rc_conn* c)
{
	int n;
	for(;;) {
		switch(c->state) {
		case RC_HANDSHAKE:
			if(!c->ssl) {
				c->state = RC_READ;
				break;
			}
			ERR_clear_error();
			n = SSL_accept(c->ssl);
			if(n != 1) {
				if(!conn_io_wait(c, n))
					conn_close(c);
				return;
			}
			c->state = RC_READ;
			break;
		case RC_READ:
			if(c->linelen >= RC_LINE_MAX) {
				/* the rest of the line is read and dropped
				 * before the answer: closing with input unread
				 * resets the connection, and the client would
				 * not see the answer */
				c->skip_line = 1;
				c->linelen = 0;
			}
			if(c->ssl)
				n = SSL_read(c->ssl, c->line + c->linelen,
					(int)(RC_LINE_MAX - c->linelen));
			else	n = (int)recv(c->fd, c->line + c->linelen,
					RC_LINE_MAX - c->linelen, 0);
			if(n <= 0) {
				if(n == 0 || !conn_io_wait(c, n))
					conn_close(c);
				return;
			}
			c->linelen += (size_t)n;
			if(!memchr(c->line, '\n', c->linelen))
				break;
			if(c->skip_line) {
				strbuf_printf(&c->out, "error command line "
					"too long\n");
				c->state = RC_WRITE;
				break;
			}
			conn_run(c);
			c->state = c->want_data ? RC_DATA : c->bulk ? RC_BULK :
				RC_WRITE;
			break;
		case RC_DATA:
			if(c->want_data < 0) {
				strbuf_printf(&c->out, "error load failed\n");
				c->state = RC_WRITE;
				break;
			}
			if(data_complete(c)) {
				rc_do_load_cache(c->rc, c->data, c->datalen,
					&c->out);
				c->state = RC_WRITE;
				break;
			}
			if(c->ssl)
				n = SSL_read(c->ssl, c->line, RC_LINE_MAX);
			else	n = (int)recv(c->fd, c->line, RC_LINE_MAX, 0);
			if(n == 0) {
				/* the input ended before its "EOF" line */
				c->want_data = -1;
				break;
			}
			if(n < 0) {
				if(!conn_io_wait(c, n))
					conn_close(c);
				return;
			}
			if(!data_add(c, c->line, (size_t)n))
				c->want_data = -1;
			else {
				/* a long dump: the time limit is per read */
				struct timeval tv = { RC_TIMEOUT_SECS, 0 };
				(void)evtimer_add(c->timer, &tv);
			}
			break;
		case RC_BULK:
			if(conn_bulk_lines(c)) {
				conn_bulk_finish(c);
				break;
			}
			if(c->linelen >= RC_LINE_MAX) {
				/* a line too long: reported, and its bytes
				 * are dropped up to its end; the lines after
				 * it still count */
				if(!c->skip_line)
					rc_bulk_too_long(c->bulk, c->line);
				c->skip_line = 1;
				c->linelen = 0;
			}
			if(c->ssl)
				n = SSL_read(c->ssl, c->line + c->linelen,
					(int)(RC_LINE_MAX - c->linelen));
			else	n = (int)recv(c->fd, c->line + c->linelen,
					RC_LINE_MAX - c->linelen, 0);
			if(n == 0) {
				conn_bulk_finish(c);
				break;
			}
			if(n < 0) {
				if(!conn_io_wait(c, n))
					conn_close(c);
				return;
			}
			c->linelen += (size_t)n;
			/* a long input may take longer than one command */
			if(c->timer) {
				struct timeval tv = { RC_TIMEOUT_SECS, 0 };
				evtimer_add(c->timer, &tv);
			}
			break;
		case RC_WRITE:
			if(c->outpos >= c->out.len) {
				conn_close(c);
				return;
			}
			if(c->ssl)
				n = SSL_write(c->ssl, c->out.s + c->outpos,
					(int)(c->out.len - c->outpos));
			else	n = (int)send(c->fd, c->out.s + c->outpos,
					c->out.len - c->outpos, MSG_NOSIGNAL);
			if(n <= 0) {
				if(!conn_io_wait(c, n))
					conn_close(c);
				return;
			}
			c->outpos += (size_t)n;
			/* a long answer to a client that reads it: the time
			 * limit is for a write that makes no progress */
			c->outq = unsent(c->fd);
			if(c->timer) {
				struct timeval tv = { RC_TIMEOUT_SECS, 0 };
				(void)evtimer_add(c->timer, &tv);
			}
			break;
		}
	}
}

static void conn_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	conn_step(arg);
}

static void conn_timeout_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct rc_conn* c = arg;
	(void)fd;
	(void)ev;
	if(c->state == RC_WRITE) {
		/* the socket is full, but the client may be reading it
		 * slowly (the kernel holds up to megabytes): that is
		 * progress too */
		int q = unsent(c->fd);
		if(q >= 0 && c->outq >= 0 && q < c->outq) {
			struct timeval tv = { RC_TIMEOUT_SECS, 0 };
			c->outq = q;
			(void)evtimer_add(c->timer, &tv);
			return;
		}
	}
	verbose(VERB_OPS, "remote control connection timed out");
	c->after = RC_AFTER_NONE;
	conn_close(c);
}

/* At the limit: the oldest connection that has not sent its command
 * line yet makes room, so clients that connect and say nothing cannot
 * lock the others out; 0 if every one is running a command. */
static int evict_oldest_idle(struct daemon_remote* rc)
{
	struct rc_conn* c, *victim = NULL;
	for(c = rc->conns; c; c = c->next)
		if(c->state == RC_HANDSHAKE || c->state == RC_READ)
			victim = c;  /* the list has the newest first */
	if(!victim)
		return 0;
	verbose(VERB_OPS, "remote control: %d connections, closing the "
		"oldest idle one", rc->num_conns);
	victim->after = RC_AFTER_NONE;
	conn_close(victim);
	return 1;
}

int daemon_remote_adopt(struct daemon_remote* rc, int fd, int use_ssl)
{
	struct timeval tv = { RC_TIMEOUT_SECS, 0 };
	struct rc_conn* c;
	if(!(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return 0;
	}
	c->rc = rc;
	c->fd = fd;
	c->outq = -1;
	c->next = rc->conns;
	if(rc->conns)
		rc->conns->prev = c;
	rc->conns = c;
	rc->num_conns++;
	c->timer = evtimer_new(rc->base, conn_timeout_cb, c);
	if(!c->timer || evtimer_add(c->timer, &tv) != 0) {
		conn_close(c);
		return 0;
	}
	if(use_ssl) {
		if(!(c->ssl = SSL_new(rc->ctx)) || !SSL_set_fd(c->ssl, fd)) {
			log_err("could not SSL_new for remote control");
			conn_close(c);
			return 0;
		}
	}
	conn_step(c);
	return 1;
}

static void accept_cb(evutil_socket_t lfd, short ev, void* arg)
{
	struct rc_listener* l = arg;
	struct daemon_remote* rc = l->owner;
	int fd;
	(void)ev;
	if(rc->num_conns >= RC_MAX_CONNS && !evict_oldest_idle(rc)) {
		/* every slot runs a command: wait for one to finish */
		set_accepting(rc, 0);
		return;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if(fd == -1) {
		if(errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			verbose(VERB_ALGO, "remote accept: %s", strerror(errno));
		return;
	}
	(void)daemon_remote_adopt(rc, fd, l->use_ssl);
}

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
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* SSL_write returns after each record, so a long answer to a slow
	 * reader shows its progress (the time bound is per write) */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE);
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
	/* as Unbound: owner and group may control */
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

int daemon_remote_start(struct daemon_remote* rc, struct event_base* base)
{
	int i, iv = rc->d->env->cfg->stat_interval;
	rc->base = base;
	for(i = 0; i < rc->num_listen; i++) {
		struct rc_listener* l = &rc->listen[i];
		l->ev = event_new(base, l->fd, EV_READ | EV_PERSIST, accept_cb,
			l);
		if(!l->ev || event_add(l->ev, NULL) != 0)
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

void daemon_remote_delete(struct daemon_remote* rc)
{
	int i;
	if(!rc)
		return;
	while(rc->conns) {
		rc->conns->after = RC_AFTER_NONE;
		/* stopping: a bulk command's lines are not applied */
		rc_bulk_free(rc->conns->bulk);
		rc->conns->bulk = NULL;
		conn_close(rc->conns);
	}
	for(i = 0; i < rc->num_listen; i++) {
		struct rc_listener* l = &rc->listen[i];
		if(l->ev)
			event_free(l->ev);
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
