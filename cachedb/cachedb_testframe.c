/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb_testframe.c - compat: unbound-1.17: the testframe
 * backend of cachedb: an in-memory store of one value (the last stored),
 * shared by the workers under a lock, for tests without a database. */
#include "config.h"
#include "cachedb/cachedb_backend.h"
#include "cachedb/cachedb_value.h"
#include "util/log.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct testframe_shared {
	pthread_mutex_t lock;
	char key[CACHEDB_KEY_LEN];   /* "": empty */
	uint8_t* data;
	size_t len;
};

/* Per worker: where a found value is copied for the caller. */
struct testframe_be {
	struct testframe_shared* sh;
	uint8_t* buf;
	size_t len;
};

void* cachedb_testframe_shared_new(void)
{
	struct testframe_shared* sh = calloc(1, sizeof(*sh));
	if(!sh)
		return NULL;
	pthread_mutex_init(&sh->lock, NULL);
	return sh;
}

void cachedb_testframe_shared_delete(void* shared)
{
	struct testframe_shared* sh = shared;
	if(!sh)
		return;
	pthread_mutex_destroy(&sh->lock);
	free(sh->data);
	free(sh);
}

static void* tf_create(struct module_env* env, void* shared)
{
	struct testframe_be* be;
	(void)env;
	if(!shared || !(be = calloc(1, sizeof(*be))))
		return NULL;
	be->sh = shared;
	return be;
}

static void tf_destroy(void* p)
{
	struct testframe_be* be = p;
	if(!be)
		return;
	free(be->buf);
	free(be);
}

static enum cachedb_start tf_lookup(void* p, const char* key,
	cachedb_lookup_cb cb, void* arg, void** handle,
	enum cachedb_lookup_result* r, const uint8_t** data, size_t* len)
{
	struct testframe_be* be = p;
	struct testframe_shared* sh = be->sh;
	(void)cb;
	(void)arg;
	*handle = NULL;
	*r = CACHEDB_LOOKUP_MISS;
	pthread_mutex_lock(&sh->lock);
	if(sh->data && strcmp(sh->key, key) == 0) {
		uint8_t* b = realloc(be->buf, sh->len ? sh->len : 1);
		if(b) {
			be->buf = b;
			memcpy(b, sh->data, sh->len);
			be->len = sh->len;
			*data = b;
			*len = be->len;
			*r = CACHEDB_LOOKUP_FOUND;
		} else
			*r = CACHEDB_LOOKUP_FAILED;
	}
	pthread_mutex_unlock(&sh->lock);
	verbose(VERB_ALGO, "testframe_lookup of %s: %s", key,
		*r == CACHEDB_LOOKUP_FOUND ? "found" : "none");
	return CACHEDB_START_DONE;
}

static void tf_cancel(void* be, void* handle)
{
	(void)be;
	(void)handle;
}

static void tf_store(void* p, const char* key, const uint8_t* data,
	size_t len, uint32_t ttl)
{
	struct testframe_be* be = p;
	struct testframe_shared* sh = be->sh;
	uint8_t* d = malloc(len ? len : 1);
	(void)ttl;
	if(!d) {
		log_err("cachedb testframe: out of memory");
		return;
	}
	memcpy(d, data, len);
	pthread_mutex_lock(&sh->lock);
	free(sh->data);
	sh->data = d;
	sh->len = len;
	snprintf(sh->key, sizeof(sh->key), "%s", key);
	pthread_mutex_unlock(&sh->lock);
	verbose(VERB_ALGO, "testframe_store %s (%d bytes)", key, (int)len);
}

const struct cachedb_backend_ops cachedb_testframe_ops = {
	.name = "testframe",
	.create = tf_create,
	.destroy = tf_destroy,
	.lookup = tf_lookup,
	.cancel = tf_cancel,
	.store = tf_store,
};
