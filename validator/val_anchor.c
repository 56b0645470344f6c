/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_anchor.c - the trust anchor store: collecting the RRs
 * the readers find into trust points, keeping the usable ones, and the
 * closest-point lookup. The store is a sorted array of points (anchors
 * from files, shared by reference count between derived stores, and
 * domain-insecure points); a lookup does one binary search per label
 * of the name, from the name up. */
#include "config.h"
#include "validator/val_anchor.h"
#include "validator/val_sig.h"
#include "validator/val_anchor_read.h"
#include "validator/val_autotrust.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include <glob.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The anchors from files and trust-anchor:, shared by derived stores. */
struct anchor_keys {
	atomic_int refs;
	struct val_anchor* pts;
	size_t n;
};

struct val_anchors {
	struct anchor_keys* keys;
	struct val_anchor* insecure;   /* domain-insecure points */
	size_t ninsecure;
	const struct val_anchor** index; /* both, sorted, one per name */
	size_t n;
};

/* One list of what the signature checker verifies (validator/val_sig.c):
 * an anchor is usable exactly when its signatures can be checked. */
int val_anchor_algo_supported(uint8_t alg)
{
	return val_algo_supported(alg);
}

int val_anchor_digest_supported(uint8_t digest)
{
	return val_ds_digest_supported(digest);
}

/* --- collecting --- */

static int rr_name(const ldns_rr* rr, uint8_t* out, size_t* len)
{
	ldns_rdf* own = ldns_rr_owner(rr);
	size_t n = ldns_rdf_size(own);
	if(n == 0 || n > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(ldns_rdf_data(own), n) != n)
		return 0;
	memcpy(out, ldns_rdf_data(own), n);
	dname_tolower(out);
	*len = n;
	return 1;
}

static struct ta_point* point_get(struct ta_collect* c, const uint8_t* nm,
	size_t len, uint16_t dclass)
{
	size_t i;
	for(i = 0; i < c->n; i++)
		if(c->pts[i].namelen == len && c->pts[i].dclass == dclass &&
			memcmp(c->pts[i].name, nm, len) == 0)
			return &c->pts[i];
	if(c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct ta_point* p = realloc(c->pts, cap * sizeof(*p));
		if(!p)
			return NULL;
		c->pts = p;
		c->cap = cap;
	}
	memset(&c->pts[c->n], 0, sizeof(c->pts[0]));
	memcpy(c->pts[c->n].name, nm, len);
	c->pts[c->n].namelen = len;
	c->pts[c->n].dclass = dclass;
	if(!(c->pts[c->n].rrs = ldns_rr_list_new()))
		return NULL;
	return &c->pts[c->n++];
}

int val_ta_add_rr(struct ta_collect* c, ldns_rr* rr, const struct ta_where* w)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	size_t len, i;
	struct ta_point* p;
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DS &&
		ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY) {
		val_ta_error(w, "not a DS or DNSKEY record");
		ldns_rr_free(rr);
		return 0;
	}
	if(!rr_name(rr, nm, &len)) {
		val_ta_error(w, "bad owner name");
		ldns_rr_free(rr);
		return 0;
	}
	if(!(p = point_get(c, nm, len, ldns_rr_get_class(rr)))) {
		val_ta_error(w, "out of memory");
		ldns_rr_free(rr);
		return 0;
	}
	if((w->is_auto && p->from_static) || (!w->is_auto && p->from_auto)) {
		/* compat: unbound-1.17: as Unbound: "anchor cannot be with and
		 * without autotrust" */
		char buf[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(nm, buf, sizeof(buf));
		val_ta_error(w, "trust anchor %s is both in an "
			"auto-trust-anchor-file and configured otherwise", buf);
		ldns_rr_free(rr);
		return 0;
	}
	if(w->is_auto)
		p->from_auto = 1;
	else	p->from_static = 1;
	ldns_rr_set_ttl(rr, 0);   /* anchors have no TTL */
	for(i = 0; i < ldns_rr_list_rr_count(p->rrs); i++)
		if(ldns_rr_compare(ldns_rr_list_rr(p->rrs, i), rr) == 0) {
			ldns_rr_free(rr);   /* a duplicate */
			return 1;
		}
	if(!ldns_rr_list_push_rr(p->rrs, rr)) {
		val_ta_error(w, "out of memory");
		ldns_rr_free(rr);
		return 0;
	}
	return 1;
}

static void collect_free(struct ta_collect* c)
{
	size_t i;
	for(i = 0; i < c->n; i++)
		ldns_rr_list_deep_free(c->pts[i].rrs);
	free(c->pts);
	for(i = 0; i < c->nautr; i++)
		val_autr_point_delete(c->autr[i]);
	free(c->autr);
}

/* --- paths --- */

/* The name to open for a configured file name (see enum
 * val_anchor_paths); malloced. */
static char* anchor_path(const struct config_file* cfg, const char* fname,
	enum val_anchor_paths paths)
{
	const char* chr = cfg->chrootdir && cfg->chrootdir[0] ?
		cfg->chrootdir : NULL;
	if(paths == VAL_PATHS_INSIDE) {
		if(chr && strncmp(fname, chr, strlen(chr)) == 0)
			fname += strlen(chr);
		return strdup(fname);
	}
	return cfg_fname_after_chroot(fname, (struct config_file*)cfg, 1);
}

typedef int (*reader_t)(struct ta_collect*, const char*);

static int read_list(struct ta_collect* c, const struct config_file* cfg,
	const struct config_strlist* list, enum val_anchor_paths paths,
	reader_t reader, int globbing)
{
	for(; list; list = list->next) {
		char* p;
		int ok;
		if(!list->str || !list->str[0])
			/* compat: unbound-1.17: "" is no file, as Unbound */
			continue;
		if(!(p = anchor_path(cfg, list->str, paths))) {
			log_err("out of memory");
			return 0;
		}
		if(reader == val_ta_read_autofile) {
			/* written after chroot and chdir to directory: */
			free((char*)c->autr_write_name);
			if(!(c->autr_write_name = anchor_path(cfg, list->str,
				VAL_PATHS_INSIDE))) {
				log_err("out of memory");
				free(p);
				return 0;
			}
		}
		if(globbing && strpbrk(p, "*?[")) {
			glob_t g;
			size_t i;
			int r = glob(p, 0, NULL, &g);
			ok = 1;
			if(r == 0) {
				for(i = 0; ok && i < g.gl_pathc; i++)
					ok = reader(c, g.gl_pathv[i]);
				globfree(&g);
			} else if(r != GLOB_NOMATCH) {
				log_err("%s: cannot expand the file name "
					"pattern", p);
				ok = 0;
			}
			/* compat: unbound-1.17: no match: nothing to read, as
			 * Unbound */
		} else	ok = reader(c, p);
		free(p);
		if(!ok)
			return 0;
	}
	return 1;
}

/* --- building --- */

static int ds_usable(const ldns_rr* rr)
{
	return ldns_rr_rd_count(rr) >= 4 &&
		val_anchor_algo_supported(ldns_rdf2native_int8(
			ldns_rr_rdf(rr, 1))) &&
		val_anchor_digest_supported(ldns_rdf2native_int8(
			ldns_rr_rdf(rr, 2)));
}

static int dnskey_revoked(const ldns_rr* rr)
{
	return ldns_rr_rd_count(rr) >= 4 &&
		(ldns_rdf2native_int16(ldns_rr_rdf(rr, 0)) &
		LDNS_KEY_REVOKE_KEY);
}

static int dnskey_usable(const ldns_rr* rr)
{
	return ldns_rr_rd_count(rr) >= 4 && !dnskey_revoked(rr) &&
		val_anchor_algo_supported(ldns_rdf2native_int8(
			ldns_rr_rdf(rr, 2)));
}

/* Move the usable RRs of p into a; 0 on malloc failure, -1 when the
 * point has none that is not revoked (no anchor at all). */
static int point_build(struct ta_point* p, struct val_anchor* a)
{
	size_t i, nrevoked = 0, n = ldns_rr_list_rr_count(p->rrs);
	char buf[LDNS_MAX_DOMAINLEN * 4 + 8];
	memset(a, 0, sizeof(*a));
	if(!(a->name = malloc(p->namelen)))
		return 0;
	memcpy(a->name, p->name, p->namelen);
	a->namelen = p->namelen;
	a->namelabs = dname_count_labels(a->name);
	a->dclass = p->dclass;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(p->rrs, i);
		ldns_rr_list** to;
		int ok;
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_DS) {
			ok = ds_usable(rr);
			to = &a->ds;
		} else {
			ok = dnskey_usable(rr);
			nrevoked += dnskey_revoked(rr);
			to = &a->dnskey;
		}
		if(!ok)
			continue;
		if(!*to && !(*to = ldns_rr_list_new()))
			return 0;
		if(!(rr = ldns_rr_clone(rr)))
			return 0;
		if(!ldns_rr_list_push_rr(*to, rr)) {
			ldns_rr_free(rr);
			return 0;
		}
	}
	if(a->ds || a->dnskey)
		return 1;
	dname_to_str(a->name, buf, sizeof(buf));
	if(nrevoked == n) {
		log_warn("trust anchor %s: all its keys are revoked, it is "
			"not used", buf);
		return -1;
	}
	log_warn("trust anchor %s has no supported algorithms, the anchor "
		"is ignored (check if you need to upgrade unbound and "
		"openssl)", buf);
	a->kind = VAL_ANCHOR_UNSUPPORTED;
	return 1;
}

static void anchor_clear(struct val_anchor* a)
{
	val_autr_point_delete(a->autr);
	free(a->name);
	ldns_rr_list_deep_free(a->ds);
	ldns_rr_list_deep_free(a->dnskey);
}

static void keys_release(struct anchor_keys* k)
{
	size_t i;
	if(!k || atomic_fetch_sub(&k->refs, 1) != 1)
		return;
	for(i = 0; i < k->n; i++)
		anchor_clear(&k->pts[i]);
	free(k->pts);
	free(k);
}

static int point_cmp(const struct val_anchor* a, const struct val_anchor* b)
{
	if(a->dclass != b->dclass)
		return a->dclass < b->dclass ? -1 : 1;
	return dname_tree_compare(a->name, b->name);
}

static int index_cmp(const void* x, const void* y)
{
	return point_cmp(*(const struct val_anchor* const*)x,
		*(const struct val_anchor* const*)y);
}

/* The anchor of the point's name gets the point (taken over). A point
 * whose file has no usable key has no anchor and is dropped. */
static void attach_autr(struct anchor_keys* k, struct autr_point** pp)
{
	size_t i;
	struct autr_point* p = *pp;
	for(i = 0; i < k->n; i++) {
		struct val_anchor* a = &k->pts[i];
		if(a->namelen != p->namelen || a->dclass != p->dclass ||
			memcmp(a->name, p->name, p->namelen) != 0 ||
			a->kind != VAL_ANCHOR_KEYS || a->autr)
			continue;
		if(!val_autr_publish(p))
			return;   /* no memory: it stays a static anchor */
		a->autr = p;
		*pp = NULL;
		return;
	}
}

static struct anchor_keys* keys_read(const struct config_file* cfg,
	enum val_anchor_paths paths, int sources)
{
	struct ta_collect c;
	struct anchor_keys* k = calloc(1, sizeof(*k));
	const struct config_strlist* s;
	size_t i;
	int ok = 1;
	memset(&c, 0, sizeof(c));
	if(!k) {
		log_err("out of memory");
		return NULL;
	}
	atomic_init(&k->refs, 1);
	if(!sources)
		return k;
	ok = read_list(&c, cfg, cfg->trust_anchor_file_list, paths,
		val_ta_read_zonefile, 0);
	ok = ok && read_list(&c, cfg, cfg->trusted_keys_file_list, paths,
		val_ta_read_bindfile, 1);
	for(s = cfg->trust_anchor_list; ok && s; s = s->next)
		if(s->str && s->str[0])
			ok = val_ta_read_string(&c, s->str, cfg->filename);
	ok = ok && read_list(&c, cfg, cfg->auto_trust_anchor_file_list,
		paths, val_ta_read_autofile, 0);
	if(ok && c.n && !(k->pts = calloc(c.n, sizeof(*k->pts)))) {
		log_err("out of memory");
		ok = 0;
	}
	for(i = 0; ok && i < c.n; i++) {
		int r = point_build(&c.pts[i], &k->pts[k->n]);
		if(r == 0) {
			log_err("out of memory");
			anchor_clear(&k->pts[k->n]);
			ok = 0;
		} else if(r < 0)
			anchor_clear(&k->pts[k->n]);
		else	k->n++;
	}
	for(i = 0; ok && i < c.nautr; i++)
		attach_autr(k, &c.autr[i]);
	free((char*)c.autr_write_name);
	collect_free(&c);
	if(!ok) {
		keys_release(k);
		return NULL;
	}
	return k;
}

/* The domain-insecure points and the merged index for keys. */
static struct val_anchors* store_make(struct anchor_keys* keys,
	const struct config_file* cfg)
{
	struct val_anchors* a = calloc(1, sizeof(*a));
	const struct config_strlist* s;
	size_t n = 0, i, j;
	if(!a) {
		log_err("out of memory");
		keys_release(keys);
		return NULL;
	}
	a->keys = keys;
	for(s = cfg->domain_insecure; s; s = s->next)
		n++;
	if((n && !(a->insecure = calloc(n, sizeof(*a->insecure)))) ||
		!(a->index = calloc(n + keys->n + 1, sizeof(*a->index)))) {
		log_err("out of memory");
		val_anchors_delete(a);
		return NULL;
	}
	for(s = cfg->domain_insecure; s; s = s->next) {
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		size_t len = s->str ? dname_from_str(s->str, nm) : 0;
		struct val_anchor* p = &a->insecure[a->ninsecure];
		if(!len) {
			log_err("%s: domain-insecure: cannot parse name '%s'",
				cfg->filename ? cfg->filename : "config",
				s->str ? s->str : "");
			val_anchors_delete(a);
			return NULL;
		}
		dname_tolower(nm);
		if(!(p->name = malloc(len))) {
			log_err("out of memory");
			val_anchors_delete(a);
			return NULL;
		}
		memcpy(p->name, nm, len);
		p->namelen = len;
		p->namelabs = dname_count_labels(nm);
		p->dclass = LDNS_RR_CLASS_IN;
		p->kind = VAL_ANCHOR_INSECURE;
		a->ninsecure++;
	}
	/* anchors first: on a tie of names the anchor is kept */
	for(i = 0; i < keys->n; i++)
		a->index[a->n++] = &keys->pts[i];
	for(i = 0; i < a->ninsecure; i++)
		a->index[a->n++] = &a->insecure[i];
	qsort(a->index, a->n, sizeof(*a->index), index_cmp);
	for(i = 0, j = 0; i < a->n; i++) {
		if(j > 0 && point_cmp(a->index[j-1], a->index[i]) == 0) {
			if(a->index[i]->kind != VAL_ANCHOR_INSECURE)
				a->index[j-1] = a->index[i];
			continue;
		}
		a->index[j++] = a->index[i];
	}
	a->n = j;
	return a;
}

int val_anchors_in_use(const struct config_file* cfg)
{
	return !cfg->module_conf || strstr(cfg->module_conf, "validator");
}

struct val_anchors* val_anchors_create(const struct config_file* cfg,
	enum val_anchor_paths paths, int sources)
{
	struct anchor_keys* k = keys_read(cfg, paths, sources);
	return k ? store_make(k, cfg) : NULL;
}

struct val_anchors* val_anchors_derive(const struct val_anchors* old,
	const struct config_file* cfg)
{
	if(!old)
		return NULL;
	atomic_fetch_add(&old->keys->refs, 1);
	return store_make(old->keys, cfg);
}

void val_anchors_delete(struct val_anchors* a)
{
	size_t i;
	if(!a)
		return;
	for(i = 0; i < a->ninsecure; i++)
		free(a->insecure[i].name);
	free(a->insecure);
	free(a->index);
	keys_release(a->keys);
	free(a);
}

const ldns_rr_list* val_anchor_ds(const struct val_anchor* a)
{
	return a->autr ? val_autotrust_trusted(a->autr, 1) : a->ds;
}

const ldns_rr_list* val_anchor_dnskey(const struct val_anchor* a)
{
	return a->autr ? val_autotrust_trusted(a->autr, 0) : a->dnskey;
}

/* --- lookup --- */

static const struct val_anchor* find_exact(const struct val_anchors* a,
	const uint8_t* name, size_t namelen, uint16_t dclass)
{
	struct val_anchor key;
	size_t lo = 0, hi = a->n;
	key.name = (uint8_t*)name;
	key.namelen = namelen;
	key.dclass = dclass;
	while(lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = point_cmp(&key, a->index[mid]);
		if(c == 0)
			return a->index[mid];
		if(c < 0)
			hi = mid;
		else	lo = mid + 1;
	}
	return NULL;
}

const struct val_anchor* val_anchor_find(const struct val_anchors* a,
	const uint8_t* name, uint16_t dclass)
{
	size_t len;
	if(!a || a->n == 0 || !(len = dname_valid(name,
		LDNS_MAX_DOMAINLEN + 1)))
		return NULL;
	for(;;) {
		const struct val_anchor* p = find_exact(a, name, len, dclass);
		const uint8_t* up;
		/* compat: unbound-1.17: an RFC 5011 point whose keys were all
		 * revoked is no anchor any more (as Unbound removes it): look
		 * further up */
		if(p && !(p->autr && !val_anchor_ds(p) && !val_anchor_dnskey(p)))
			return p;
		if(name[0] == 0)
			return NULL;
		up = dname_remove_label(name);
		len -= (size_t)(up - name);
		name = up;
	}
}

int val_anchor_is_insecure(const struct val_anchors* a,
	const uint8_t* name)
{
	const struct val_anchor* p = val_anchor_find(a, name,
		LDNS_RR_CLASS_IN);
	return p && p->kind != VAL_ANCHOR_KEYS;
}

int val_anchors_check_writable(const struct val_anchors* a)
{
	size_t i;
	int ok = 1;
	for(i = 0; a && i < a->keys->n; i++)
		if(a->keys->pts[i].autr &&
			!val_autr_check_writable(a->keys->pts[i].autr))
			ok = 0;
	return ok;
}

size_t val_anchors_count(const struct val_anchors* a)
{
	return a ? a->n : 0;
}

int val_anchors_any_keys(const struct val_anchors* a)
{
	size_t i;
	for(i = 0; a && i < a->n; i++)
		if(a->index[i]->kind == VAL_ANCHOR_KEYS)
			return 1;
	return 0;
}

const struct val_anchor* val_anchors_get(const struct val_anchors* a,
	size_t i)
{
	return a && i < a->n ? a->index[i] : NULL;
}
