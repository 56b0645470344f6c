/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb_redis.c - the redis backend of cachedb: libhiredis's
 * asynchronous client on the worker's libevent loop, one connection per
 * worker to the server (and one to the replica, which takes the reads,
 * when redis-replica-server-host/path is set), as Unbound's connections
 * and commands: AUTH and SELECT after connecting, GET key, SET key value
 * (with EX when redis-expire-records).
 *
 * compat: unbound-1.17: Unbound's client blocks its thread for up to
 * redis-command-timeout on each command; here nothing blocks. A lookup
 * that gets no reply within the command timeout fails (the question goes
 * on to the iterator) and the connection is closed, so the commands
 * queued behind it fail at once too; a connection that does not come up
 * within the connect timeout is closed the same way. After a failure no
 * command is sent for a second (reads are misses, writes are skipped),
 * then the next command connects again. A failure is logged when the
 * server goes down, and again when it is back. */
#include "config.h"
#ifdef HAVE_HIREDIS
#include "cachedb/cachedb_backend.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/module.h"
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* compat: unbound-1.17: after a failure, the next connection is tried
 * this much later (its reconnect_interval) */
#define RECONNECT_WAIT_MS 1000
/* connections dropped from inside a hiredis callback, freed at the next
 * loop turn */
#define MAX_DYING 4

struct redis_be;

struct redis_conn {
	struct redis_be* be;
	const char* role;            /* "" or "replica ", for the log */
	char* host;
	int port;
	char* path;                  /* NULL: TCP */
	char* password;              /* NULL: no AUTH */
	int db;
	int connect_ms, command_ms;  /* 0: no timeout */
	redisAsyncContext* ac;       /* NULL: none */
	redisAsyncContext* dying[MAX_DYING];
	struct event* connect_timer;
	struct event* drop_timer;
	uint64_t retry_at_ms;        /* no connection before (monotonic) */
	int down;                    /* the failure was logged */
	int error_logged;            /* a command's error was logged */
};

struct redis_be {
	struct module_env* env;
	struct redis_conn primary, replica;
	int has_replica;
	int closing;                 /* destroy: no callbacks to the module */
};

/* One GET in flight. */
struct redis_ticket {
	struct redis_conn* conn;
	redisAsyncContext* ac;
	struct event* timer;         /* the command timeout; NULL: none */
	cachedb_lookup_cb cb;        /* NULL: cancelled */
	void* arg;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void ms_to_tv(int ms, struct timeval* tv)
{
	tv->tv_sec = ms / 1000;
	tv->tv_usec = (ms % 1000) * 1000;
}

/* The server failed (why): wait before the next connection; log it
 * once per outage. */
static void conn_failed(struct redis_conn* c, const char* why)
{
	c->retry_at_ms = now_ms() + RECONNECT_WAIT_MS;
	if(!c->down) {
		if(c->path)
			log_err("redis %sserver %s: %s; the cache in Redis is "
				"skipped, retried every second", c->role,
				c->path, why ? why : "failed");
		else
			log_err("redis %sserver %s port %d: %s; the cache in "
				"Redis is skipped, retried every second",
				c->role, c->host, c->port, why ? why : "failed");
	}
	c->down = 1;
}

/* A command was answered: the server works (again). */
static void conn_answers(struct redis_conn* c)
{
	if(c->down)
		log_info("redis %sserver answers again", c->role);
	c->down = 0;
	c->error_logged = 0;
}

/* Free ac now (not from inside one of its callbacks). */
static void drop_now(struct redis_conn* c, redisAsyncContext* ac)
{
	int i;
	if(c->ac == ac) {
		c->ac = NULL;
		evtimer_del(c->connect_timer);
	}
	for(i = 0; i < MAX_DYING; i++)
		if(c->dying[i] == ac)
			c->dying[i] = NULL;
	redisAsyncFree(ac);
}

/* Drop ac from inside one of its callbacks: freed at the next turn. */
static void drop_later(struct redis_conn* c, redisAsyncContext* ac)
{
	struct timeval tv = { 0, 0 };
	int i;
	if(c->ac == ac) {
		c->ac = NULL;
		evtimer_del(c->connect_timer);
	}
	for(i = 0; i < MAX_DYING; i++)
		if(!c->dying[i] || c->dying[i] == ac) {
			c->dying[i] = ac;
			break;
		}
	evtimer_add(c->drop_timer, &tv);
}

static void on_drop_timer(evutil_socket_t fd, short ev, void* arg)
{
	struct redis_conn* c = arg;
	int i;
	(void)fd;
	(void)ev;
	for(i = 0; i < MAX_DYING; i++)
		if(c->dying[i])
			drop_now(c, c->dying[i]);
}

/* hiredis frees the context after these two; forget it here. */
static void forget(struct redis_conn* c, const redisAsyncContext* ac)
{
	int i;
	if(c->ac == ac) {
		c->ac = NULL;
		evtimer_del(c->connect_timer);
	}
	for(i = 0; i < MAX_DYING; i++)
		if(c->dying[i] == ac)
			c->dying[i] = NULL;
}

static void on_connect(const redisAsyncContext* ac, int status)
{
	struct redis_conn* c = ac->data;
	if(!c || c->be->closing)
		return;
	if(status != REDIS_OK) {
		if(c->ac == ac)
			conn_failed(c, ac->errstr);
		forget(c, ac);
		return;
	}
	if(c->ac == ac) {
		evtimer_del(c->connect_timer);
		verbose(VERB_OPS, "Connection to Redis %sestablished",
			c->role);
	}
}

static void on_disconnect(const redisAsyncContext* ac, int status)
{
	struct redis_conn* c = ac->data;
	if(!c || c->be->closing)
		return;
	if(c->ac == ac && status != REDIS_OK)
		conn_failed(c, ac->errstr[0] ? ac->errstr : "disconnected");
	forget(c, ac);
}

/* The reply to AUTH or SELECT (what): refused, the connection goes. */
static void setup_reply(redisAsyncContext* ac, struct redis_conn* c,
	const redisReply* rep, const char* what)
{
	char why[256];
	if(!rep || c->be->closing || rep->type != REDIS_REPLY_ERROR)
		return;
	snprintf(why, sizeof(why), "%s refused: %.200s", what,
		rep->str ? rep->str : "");
	if(c->ac == ac)
		conn_failed(c, why);
	drop_later(c, ac);
}

static void on_auth(redisAsyncContext* ac, void* reply, void* privdata)
{
	setup_reply(ac, privdata, reply, "AUTH");
}

static void on_select(redisAsyncContext* ac, void* reply, void* privdata)
{
	setup_reply(ac, privdata, reply, "SELECT");
}

static void on_connect_timeout(evutil_socket_t fd, short ev, void* arg)
{
	struct redis_conn* c = arg;
	(void)fd;
	(void)ev;
	if(!c->ac)
		return;
	conn_failed(c, "connect timed out");
	drop_now(c, c->ac);
}

static redisAsyncContext* conn_connect(struct redis_conn* c)
{
	redisAsyncContext* ac;
	c->ac = NULL;
	ac = c->path ? redisAsyncConnectUnix(c->path) :
		redisAsyncConnect(c->host, c->port);
	if(!ac) {
		conn_failed(c, "out of memory");
		return NULL;
	}
	if(ac->err) {
		conn_failed(c, ac->errstr);
		redisAsyncFree(ac);
		return NULL;
	}
	ac->data = c;
	if(redisLibeventAttach(ac, c->be->env->base) != REDIS_OK) {
		conn_failed(c, "cannot attach to the event loop");
		redisAsyncFree(ac);
		return NULL;
	}
	redisAsyncSetConnectCallback(ac, on_connect);
	redisAsyncSetDisconnectCallback(ac, on_disconnect);
	c->ac = ac;
	if(c->password)
		(void)redisAsyncCommand(ac, on_auth, c, "AUTH %s",
			c->password);
	if(c->db > 0)
		(void)redisAsyncCommand(ac, on_select, c, "SELECT %d",
			c->db);
	if(c->connect_ms > 0) {
		struct timeval tv;
		ms_to_tv(c->connect_ms, &tv);
		evtimer_add(c->connect_timer, &tv);
	}
	return ac;
}

/* The connection to send on, made when there is none and the wait after
 * a failure is over; NULL: none now. */
static redisAsyncContext* conn_get(struct redis_conn* c)
{
	if(c->ac)
		return c->ac;
	if(now_ms() < c->retry_at_ms)
		return NULL;
	return conn_connect(c);
}

static int conn_init(struct redis_be* be, struct redis_conn* c,
	const char* role, const char* host, int port, const char* path,
	const char* password, int db, int timeout, int connect_timeout,
	int command_timeout)
{
	c->be = be;
	c->role = role;
	c->port = port;
	c->db = db;
	/* compat: unbound-1.17: 0 takes redis-timeout */
	c->connect_ms = connect_timeout ? connect_timeout : timeout;
	c->command_ms = command_timeout ? command_timeout : timeout;
	if(!(c->host = strdup(host ? host : "127.0.0.1")) ||
		(path && *path && !(c->path = strdup(path))) ||
		(password && *password && !(c->password = strdup(password))))
		return 0;
	c->connect_timer = evtimer_new(be->env->base, on_connect_timeout, c);
	c->drop_timer = evtimer_new(be->env->base, on_drop_timer, c);
	return c->connect_timer && c->drop_timer;
}

static void conn_free(struct redis_conn* c)
{
	int i;
	if(c->ac) {
		redisAsyncContext* ac = c->ac;
		c->ac = NULL;
		redisAsyncFree(ac);
	}
	for(i = 0; i < MAX_DYING; i++)
		if(c->dying[i]) {
			redisAsyncContext* ac = c->dying[i];
			c->dying[i] = NULL;
			redisAsyncFree(ac);
		}
	if(c->connect_timer)
		event_free(c->connect_timer);
	if(c->drop_timer)
		event_free(c->drop_timer);
	free(c->host);
	free(c->path);
	free(c->password);
}

static void redis_destroy(void* p)
{
	struct redis_be* be = p;
	if(!be)
		return;
	be->closing = 1;
	conn_free(&be->primary);
	if(be->has_replica)
		conn_free(&be->replica);
	free(be);
}

static void* redis_create(struct module_env* env, void* shared)
{
	const struct config_file* cfg = env->cfg;
	struct redis_be* be = calloc(1, sizeof(*be));
	(void)shared;
	if(!be || !env->base) {
		free(be);
		return NULL;
	}
	be->env = env;
	be->has_replica = (cfg->redis_replica_server_host &&
		*cfg->redis_replica_server_host) ||
		(cfg->redis_replica_server_path &&
		*cfg->redis_replica_server_path);
	if(!conn_init(be, &be->primary, "", cfg->redis_server_host,
		cfg->redis_server_port, cfg->redis_server_path,
		cfg->redis_server_password, cfg->redis_logical_db,
		cfg->redis_timeout, cfg->redis_connect_timeout,
		cfg->redis_command_timeout) || (be->has_replica &&
		!conn_init(be, &be->replica, "replica ",
		cfg->redis_replica_server_host,
		cfg->redis_replica_server_port,
		cfg->redis_replica_server_path,
		cfg->redis_replica_server_password,
		cfg->redis_replica_logical_db, cfg->redis_replica_timeout,
		cfg->redis_replica_connect_timeout,
		cfg->redis_replica_command_timeout))) {
		log_err("redis: out of memory");
		redis_destroy(be);
		return NULL;
	}
	/* connect now, so a wrong address is logged at start-up; as
	 * Unbound, the daemon starts anyway */
	(void)conn_get(&be->primary);
	if(be->has_replica)
		(void)conn_get(&be->replica);
	return be;
}

static void ticket_stop_timer(struct redis_ticket* t)
{
	if(t->timer) {
		event_free(t->timer);
		t->timer = NULL;
	}
}

static void on_get(redisAsyncContext* ac, void* reply, void* privdata)
{
	struct redis_ticket* t = privdata;
	struct redis_conn* c = t->conn;
	redisReply* rep = reply;
	cachedb_lookup_cb cb = t->cb;
	void* arg = t->arg;
	enum cachedb_lookup_result r = CACHEDB_LOOKUP_FAILED;
	const uint8_t* data = NULL;
	size_t len = 0;
	ticket_stop_timer(t);
	free(t);
	if(!cb || c->be->closing)
		return;
	if(rep && rep->type != REDIS_REPLY_ERROR && c->ac == ac)
		conn_answers(c);
	if(rep && rep->type == REDIS_REPLY_STRING) {
		r = CACHEDB_LOOKUP_FOUND;
		data = (const uint8_t*)rep->str;
		len = rep->len;
	} else if(rep && rep->type == REDIS_REPLY_NIL) {
		r = CACHEDB_LOOKUP_MISS;
	} else if(rep) {
		if(!c->error_logged)
			log_err("redis %sGET: %s", c->role,
				rep->type == REDIS_REPLY_ERROR && rep->str ?
				rep->str : "unexpected type of reply");
		c->error_logged = 1;
	}
	verbose(VERB_ALGO, "redis_lookup: %s",
		r == CACHEDB_LOOKUP_FOUND ? "found" :
		r == CACHEDB_LOOKUP_MISS ? "no data cached" : "failed");
	cb(arg, r, data, len);
}

static void on_get_timeout(evutil_socket_t fd, short ev, void* arg)
{
	struct redis_ticket* t = arg;
	struct redis_conn* c = t->conn;
	(void)fd;
	(void)ev;
	ticket_stop_timer(t);
	if(c->ac == t->ac)
		conn_failed(c, "command timed out");
	/* its callback and those of every command behind it run now, with
	 * no reply */
	drop_now(c, t->ac);
}

static enum cachedb_start redis_lookup(void* p, const char* key,
	cachedb_lookup_cb cb, void* arg, void** handle,
	enum cachedb_lookup_result* r, const uint8_t** data, size_t* len)
{
	struct redis_be* be = p;
	struct redis_conn* c = be->has_replica ? &be->replica : &be->primary;
	redisAsyncContext* ac = conn_get(c);
	struct redis_ticket* t;
	*r = CACHEDB_LOOKUP_FAILED;
	*data = NULL;
	*len = 0;
	*handle = NULL;
	if(!ac || !(t = calloc(1, sizeof(*t))))
		return CACHEDB_START_DONE;
	t->conn = c;
	t->ac = ac;
	t->cb = cb;
	t->arg = arg;
	verbose(VERB_ALGO, "redis_lookup of %s at the %sserver", key,
		c->role);
	if(redisAsyncCommand(ac, on_get, t, "GET %s", key) != REDIS_OK) {
		free(t);
		return CACHEDB_START_DONE;
	}
	if(c->command_ms > 0 &&
		(t->timer = evtimer_new(be->env->base, on_get_timeout, t))) {
		struct timeval tv;
		ms_to_tv(c->command_ms, &tv);
		evtimer_add(t->timer, &tv);
	}
	*handle = t;
	return CACHEDB_START_PENDING;
}

static void redis_cancel(void* p, void* handle)
{
	struct redis_ticket* t = handle;
	(void)p;
	/* hiredis calls on_get once still, which frees it */
	t->cb = NULL;
	ticket_stop_timer(t);
}

static void on_set(redisAsyncContext* ac, void* reply, void* privdata)
{
	struct redis_conn* c = privdata;
	redisReply* rep = reply;
	if(!rep || c->be->closing)
		return;
	if(rep->type != REDIS_REPLY_ERROR && c->ac == ac)
		conn_answers(c);
	if(rep->type == REDIS_REPLY_ERROR && !c->error_logged) {
		log_err("redis %sSET: %s", c->role, rep->str ? rep->str : "");
		c->error_logged = 1;
	}
}

static void redis_store(void* p, const char* key, const uint8_t* data,
	size_t len, uint32_t ttl)
{
	struct redis_be* be = p;
	const struct config_file* cfg = be->env->cfg;
	redisAsyncContext* ac = conn_get(&be->primary);
	if(!ac)
		return;
	/* compat: unbound-1.17: with serve-expired the key lives on for
	 * serve-expired-ttl more, and without a limit there it does not
	 * expire */
	if(cfg->redis_expire_records && (!cfg->serve_expired ||
		cfg->serve_expired_ttl > 0)) {
		uint64_t ex = (uint64_t)ttl + (cfg->serve_expired ?
			(uint64_t)cfg->serve_expired_ttl : 0);
		if(ex > UINT32_MAX)
			ex = UINT32_MAX;
		(void)redisAsyncCommand(ac, on_set, &be->primary,
			"SET %s %b EX %u", key, data, len, (unsigned)ex);
	} else
		(void)redisAsyncCommand(ac, on_set, &be->primary,
			"SET %s %b", key, data, len);
	verbose(VERB_ALGO, "redis_store %s (%d bytes)", key, (int)len);
}

const struct cachedb_backend_ops cachedb_redis_ops = {
	.name = "redis",
	.create = redis_create,
	.destroy = redis_destroy,
	.lookup = redis_lookup,
	.cancel = redis_cancel,
	.store = redis_store,
};
#endif /* HAVE_HIREDIS */
