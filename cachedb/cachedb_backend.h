/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb_backend.h - what the cachedb module needs of a store:
 * a per-worker handle that looks up and stores values by key. A lookup
 * may answer at once (an in-memory store) or later, through a callback
 * from the worker's event loop (Redis): the module suspends the question
 * meanwhile, and cancels the lookup when the question goes away. */
#ifndef CACHEDB_CACHEDB_BACKEND_H
#define CACHEDB_CACHEDB_BACKEND_H
#include <stddef.h>
#include <stdint.h>

struct module_env;
struct config_file;

/* How a lookup ended. */
enum cachedb_lookup_result {
	CACHEDB_LOOKUP_FOUND,   /* data, len: the value (valid during the
	                         * call only) */
	CACHEDB_LOOKUP_MISS,    /* nothing under the key */
	CACHEDB_LOOKUP_FAILED   /* no answer: the store is down, slow,
	                         * refused the command */
};

typedef void (*cachedb_lookup_cb)(void* arg, enum cachedb_lookup_result r,
	const uint8_t* data, size_t len);

/* What starting a lookup did. */
enum cachedb_start {
	CACHEDB_START_DONE,     /* answered at once: *r, *data, *len set
	                         * (data valid until the next call) */
	CACHEDB_START_PENDING   /* cb(arg, ...) comes later, from the
	                         * event loop, unless cancelled; *handle
	                         * names the lookup */
};

struct cachedb_backend_ops {
	const char* name;            /* backend: */
	/* Per worker (env->base is its event loop); shared: what the
	 * module's startup made for all workers. NULL on failure. */
	void* (*create)(struct module_env* env, void* shared);
	void (*destroy)(void* be);
	enum cachedb_start (*lookup)(void* be, const char* key,
		cachedb_lookup_cb cb, void* arg, void** handle,
		enum cachedb_lookup_result* r, const uint8_t** data,
		size_t* len);
	/* The lookup's callback will not be called. */
	void (*cancel)(void* be, void* handle);
	/* Store data under key; ttl: the value's smallest TTL (for
	 * stores that expire keys). No answer is awaited. */
	void (*store)(void* be, const char* key, const uint8_t* data,
		size_t len, uint32_t ttl);
};

/* The in-memory store for tests (cachedb/cachedb_testframe.c): one
 * value, shared by the workers, as Unbound's testframe backend. */
extern const struct cachedb_backend_ops cachedb_testframe_ops;
void* cachedb_testframe_shared_new(void);
void cachedb_testframe_shared_delete(void* shared);

/* Redis (cachedb/cachedb_redis.c), when built with libhiredis. */
#ifdef HAVE_HIREDIS
extern const struct cachedb_backend_ops cachedb_redis_ops;
#endif

#endif
