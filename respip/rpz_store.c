/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_store.c - the shared rpz: policy snapshot (see the header):
 * the zones read once, transferred versions swapped in, the policy
 * rebuilt aside around them and published whole. */
#include "config.h"
#include "respip/rpz_store.h"
#include "respip/rpz.h"
#include "respip/rpz_load.h"
#include "respip/rpz_zone.h"
#include "services/xfr_consumer.h"
#include "services/xfr_rr.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One version of one zone, shared by the snapshots that use it. */
struct zone_ref {
	atomic_size_t refs;
	struct rpz_zone* zone;
	uint32_t serial;
	int have_soa;
};

struct rpz_snap {
	atomic_size_t refs;
	struct rpz_policy* policy;   /* its zones borrowed from zrefs */
	struct zone_ref** zrefs;
	size_t num;
	unsigned switch_gen;         /* the rpz_enable/disable state in it */
};

/* An rpz: clause as the store keeps it. */
struct store_zone {
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	char* text;             /* the name: line */
	char* path;             /* the zone file as opened now; NULL: none */
	int xfr;                /* has primaries or URLs: transferred */
	struct zone_ref* ref;   /* the version served now */
	struct stat st;         /* the file when it was read */
	int have_st;            /* st is set: a reload may keep ref */
};

struct rpz_store_prep {
	struct store_zone* zones;
	size_t num;
	int failed;             /* a zone could not be read (logged) */
};

struct rpz_store {
	pthread_mutex_t lock;   /* cur, zones, cfg; held briefly */
	unsigned gen;           /* moves at each publish (atomic) */
	struct rpz_snap* cur;   /* NULL: no rpz: clause */
	struct config_file* cfg;   /* the clauses' settings (a copy) */
	struct store_zone* zones;
	size_t num;
};

static void zref_release(struct zone_ref* z)
{
	if(!z || atomic_fetch_sub(&z->refs, 1) != 1)
		return;
	rpz_zone_delete(z->zone);
	free(z);
}

static struct zone_ref* zref_create(struct rpz_zone* zone, uint32_t serial,
	int have_soa)
{
	struct zone_ref* z = calloc(1, sizeof(*z));
	if(!z) {
		rpz_zone_delete(zone);
		log_err("out of memory");
		return NULL;
	}
	atomic_init(&z->refs, 1);
	z->zone = zone;
	z->serial = serial;
	z->have_soa = have_soa;
	return z;
}

static void snap_release(struct rpz_snap* p)
{
	size_t i;
	if(!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	rpz_policy_delete(p->policy);
	for(i = 0; i < p->num; i++)
		zref_release(p->zrefs[i]);
	free(p->zrefs);
	free(p);
}

static void zones_delete(struct store_zone* z, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		free(z[i].text);
		free(z[i].path);
		zref_release(z[i].ref);
	}
	free(z);
}

/* The policy's zones, in clause order, from the store's. */
struct zone_walk {
	struct rpz_store* s;
	size_t at;
};

static struct rpz_zone* walk_zone(void* arg, const struct config_auth* c)
{
	struct zone_walk* w = arg;
	(void)c;
	if(w->at >= w->s->num)
		return NULL;
	return w->s->zones[w->at++].ref->zone;
}

/* A snapshot of s's zones and settings (s->lock held, or before it is
 * shared), with the rpz_enable/rpz_disable state. NULL: no clause, or
 * an error (logged). */
static struct rpz_snap* snap_build(struct rpz_store* s)
{
	struct rpz_snap* p;
	struct zone_walk w = { s, 0 };
	size_t i;
	int none = 0;
	if(!s->num)
		return NULL;
	if(!(p = calloc(1, sizeof(*p))) ||
		!(p->zrefs = calloc(s->num, sizeof(*p->zrefs)))) {
		free(p);
		log_err("out of memory");
		return NULL;
	}
	atomic_init(&p->refs, 1);
	if(!(p->policy = rpz_policy_create_with(s->cfg, &none, walk_zone,
		&w))) {
		free(p->zrefs);
		free(p);
		return NULL;
	}
	p->switch_gen = rpz_switch_generation();
	rpz_switch_apply(p->policy);
	for(i = 0; i < s->num; i++) {
		p->zrefs[i] = s->zones[i].ref;
		atomic_fetch_add(&p->zrefs[i]->refs, 1);
	}
	p->num = s->num;
	return p;
}

/* Make p the current snapshot (s->lock held). */
static void publish_locked(struct rpz_store* s, struct rpz_snap* p)
{
	struct rpz_snap* old = s->cur;
	s->cur = p;
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	snap_release(old);
}

/* The zone file's path as the process opens it now (in the chroot). */
static char* inside_path(const struct config_file* cfg, const char* f)
{
	const char* chr = cfg->chrootdir;
	char* p;
	if(!f || !f[0])
		return NULL;
	if(chr && chr[0] && strncmp(f, chr, strlen(chr)) == 0)
		f += strlen(chr);
	if(!(p = strdup(f)))
		log_err("out of memory");
	return p;
}

static struct store_zone* find_zone(struct rpz_store* s, const uint8_t* nm);

static int same_file(const struct stat* a, const struct stat* b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
		a->st_size == b->st_size &&
		a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
		a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* A reload: the version of z that old (the store, NULL at the start)
 * serves, when z's file is the one it read then: a zone without
 * transfers, the same name and path, the file unchanged. */
static struct zone_ref* zone_unchanged(struct rpz_store* old,
	const struct store_zone* z)
{
	struct store_zone* o;
	struct zone_ref* ref = NULL;
	if(!old || z->xfr || !z->have_st)
		return NULL;
	pthread_mutex_lock(&old->lock);
	if((o = find_zone(old, z->name)) && !o->xfr && o->have_st &&
		o->path && strcmp(o->path, z->path) == 0 &&
		same_file(&o->st, &z->st)) {
		ref = o->ref;
		atomic_fetch_add(&ref->refs, 1);
	}
	pthread_mutex_unlock(&old->lock);
	return ref;
}

/* Read clause c into z, or share the version old serves when its file
 * did not change. 0: an error (logged). */
static int zone_read(struct store_zone* z, const struct config_auth* c,
	const struct config_file* cfg, struct rpz_store* old)
{
	struct rpz_zone* zone;
	const char* path;
	uint32_t serial = 0;
	int have = 0;
	if(!dname_from_str(c->name, z->name)) {
		log_err("rpz: cannot parse zone name: %s", c->name);
		return 0;
	}
	if(!(z->text = strdup(c->name)) || (c->zonefile && c->zonefile[0] &&
		!(z->path = inside_path(cfg, c->zonefile)))) {
		log_err("out of memory");
		return 0;
	}
	z->xfr = c->masters != NULL || c->urls != NULL;
	/* taken before the read: a change while it reads is seen at the
	 * next reload */
	z->have_st = z->path && stat(z->path, &z->st) == 0 &&
		S_ISREG(z->st.st_mode);
	if((z->ref = zone_unchanged(old, z))) {
		verbose(VERB_ALGO, "rpz: zone %s: %s unchanged, kept",
			z->text, z->path);
		return 1;
	}
	path = z->path;
	/* compat: unbound-1.17: with primaries or URLs, a zone file not
	 * there yet is an empty zone until the first transfer */
	if(z->xfr && path && access(path, F_OK) != 0 && errno == ENOENT)
		path = NULL;
	if(!(zone = rpz_zone_load(c->name, path, &serial, &have)))
		return 0;
	return (z->ref = zref_create(zone, serial, have)) != NULL;
}

/* cfg's clauses read into *out (*n of them), sharing the unchanged
 * ones of old (NULL: none). 0: an error (logged). */
static int zones_read(const struct config_file* cfg, struct store_zone** out,
	size_t* n, struct rpz_store* old)
{
	const struct config_auth* c;
	size_t k = 0;
	*out = NULL;
	*n = 0;
	for(c = cfg->auths; c; c = c->next)
		if(c->isrpz && c->name)
			k++;
	if(!k)
		return 1;
	if(!(*out = calloc(k, sizeof(**out)))) {
		log_err("out of memory");
		return 0;
	}
	for(c = cfg->auths; c; c = c->next) {
		if(!c->isrpz || !c->name)
			continue;
		if(!zone_read(&(*out)[(*n)++], c, cfg, old)) {
			zones_delete(*out, *n);
			*out = NULL;
			*n = 0;
			return 0;
		}
	}
	return 1;
}

static struct store_zone* find_zone(struct rpz_store* s, const uint8_t* nm)
{
	size_t i;
	for(i = 0; i < s->num; i++)
		if(query_dname_compare(s->zones[i].name, nm) == 0)
			return &s->zones[i];
	return NULL;
}

/* The transfer engine's start: the content served now, read from the
 * zone file (for the IXFR serial). Main thread. */
static int xfr_content(void* arg, const uint8_t* zone, struct xfr_rrs* out)
{
	struct rpz_store* s = arg;
	struct store_zone* z = find_zone(s, zone);
	if(!z || !z->path || !z->ref->have_soa)
		return 1;
	if(!rpz_zone_file_rrs(z->text, z->path, out))
		xfr_rrs_clear(out);   /* logged: transfer it whole */
	return 1;
}

/* A transferred version (NULL: expired): a new zone built aside, then a
 * new snapshot published. Main thread. */
static void xfr_publish(void* arg, const uint8_t* zone,
	struct xfr_rrs* content)
{
	struct rpz_store* s = arg;
	struct store_zone* z;
	struct rpz_zone* nz;
	struct zone_ref* ref;
	struct rpz_snap* p;
	struct xfr_rrs none;
	uint32_t serial = 0;
	int have = 0;
	xfr_rrs_init(&none);
	/* compat: unbound-1.17: an expired RPZ zone applies no triggers */
	nz = rpz_zone_from_rrs(zone, content ? content : &none, &serial,
		&have);
	if(content) {
		xfr_rrs_clear(content);
		free(content);
	}
	if(!nz || !(ref = zref_create(nz, serial, have)))
		return;   /* logged; the old version serves on */
	pthread_mutex_lock(&s->lock);
	if(!(z = find_zone(s, zone))) {
		/* a reload removed the zone */
		pthread_mutex_unlock(&s->lock);
		zref_release(ref);
		return;
	}
	zref_release(z->ref);
	z->ref = ref;
	if((p = snap_build(s)))
		publish_locked(s, p);
	pthread_mutex_unlock(&s->lock);
	verbose(VERB_ALGO, "rpz: zone %s now serial %u, %u triggers",
		z->text, (unsigned)serial, (unsigned)nz->num_names);
}

static int zone_serial(void* arg, const uint8_t* zone, uint32_t* serial)
{
	struct rpz_store* s = arg;
	struct store_zone* z;
	int have = 0;
	pthread_mutex_lock(&s->lock);
	if((z = find_zone(s, zone)) && z->ref->have_soa) {
		*serial = z->ref->serial;
		have = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return have;
}

/* Register the zones (again): those with primaries for transfers, all
 * for list_auth_zones. */
static int register_xfr(struct rpz_store* s)
{
	const struct config_auth* c;
	size_t i = 0;
	xfr_consumer_unregister(s);
	for(c = s->cfg ? s->cfg->auths : NULL; c; c = c->next) {
		struct xfr_consumer xc;
		struct store_zone* z;
		if(!c->isrpz || !c->name)
			continue;
		z = &s->zones[i++];
		memset(&xc, 0, sizeof(xc));
		xc.zone = z->name;
		xc.serial = zone_serial;
		xc.arg = s;
		if(!z->xfr) {
			if(!xfr_consumer_register(&xc))
				return 0;
			continue;
		}
		xc.primaries = c->masters;
		xc.urls = c->urls;
		xc.allow_notify = c->allow_notify;
		xc.zonefile = z->path;
		xc.max_transfer_size = c->max_transfer_size;
		xc.max_transfer_time = c->max_transfer_time;
		xc.content = xfr_content;
		xc.publish = xfr_publish;
		xc.arg = s;
		if(!xfr_consumer_register(&xc))
			return 0;
	}
	return 1;
}

/* Take cfg and its zones (read already) into s and publish. */
static int install(struct rpz_store* s, const struct config_file* cfg,
	struct store_zone* zones, size_t n)
{
	struct config_file* copy = n ? config_copy(cfg) : NULL;
	struct config_file* old_cfg;
	struct store_zone* old_zones;
	struct rpz_snap* p = NULL;
	size_t old_n;
	if(n && !copy) {
		log_err("out of memory");
		zones_delete(zones, n);
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	old_cfg = s->cfg;
	old_zones = s->zones;
	old_n = s->num;
	s->cfg = copy;
	s->zones = zones;
	s->num = n;
	if(n && !(p = snap_build(s))) {
		/* put the old ones back: they serve on */
		s->cfg = old_cfg;
		s->zones = old_zones;
		s->num = old_n;
		pthread_mutex_unlock(&s->lock);
		config_delete(copy);
		zones_delete(zones, n);
		return 0;
	}
	publish_locked(s, p);
	pthread_mutex_unlock(&s->lock);
	config_delete(old_cfg);
	zones_delete(old_zones, old_n);
	return register_xfr(s);
}

struct rpz_store* rpz_store_create(const struct config_file* cfg)
{
	struct rpz_store* s = calloc(1, sizeof(*s));
	struct store_zone* zones;
	size_t n;
	if(!s) {
		log_err("out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->gen = 1;
	if(!zones_read(cfg, &zones, &n, NULL) || !install(s, cfg, zones, n)) {
		rpz_store_delete(s);
		return NULL;
	}
	return s;
}

void rpz_store_delete(struct rpz_store* s)
{
	if(!s)
		return;
	xfr_consumer_unregister(s);
	snap_release(s->cur);
	zones_delete(s->zones, s->num);
	config_delete(s->cfg);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct rpz_store_prep* rpz_store_prepare(struct rpz_store* s,
	const struct config_file* cfg)
{
	struct rpz_store_prep* p = calloc(1, sizeof(*p));
	if(!p) {
		log_err("out of memory");
		return NULL;
	}
	p->failed = !zones_read(cfg, &p->zones, &p->num, s);
	return p;
}

void rpz_store_prep_delete(struct rpz_store_prep* p)
{
	if(!p)
		return;
	zones_delete(p->zones, p->num);
	free(p);
}

int rpz_store_reload(struct rpz_store* s, const struct config_file* cfg,
	struct rpz_store_prep* prep)
{
	struct store_zone* zones;
	size_t n;
	int ok;
	if(prep) {
		ok = !prep->failed;
		zones = prep->zones;
		n = prep->num;
		prep->zones = NULL;
		prep->num = 0;
		rpz_store_prep_delete(prep);
	} else	ok = zones_read(cfg, &zones, &n, s);
	if(!ok || !install(s, cfg, zones, n)) {
		log_err("rpz: the reload's zones could not be read; the "
			"previous ones serve on");
		return 0;
	}
	return 1;
}

size_t rpz_store_mem(struct rpz_store* s)
{
	size_t m;
	pthread_mutex_lock(&s->lock);
	m = sizeof(*s) + s->num * sizeof(*s->zones) +
		(s->cur ? rpz_policy_mem(s->cur->policy) : 0);
	pthread_mutex_unlock(&s->lock);
	return m;
}

/* A generation moved: take the current snapshot (rebuilt first when
 * rpz_enable/rpz_disable changed since it was built). */
static void reader_refresh(struct rpz_store* s, struct rpz_reader* r)
{
	struct rpz_snap* old = r->snap;
	unsigned sw;
	pthread_mutex_lock(&s->lock);
	sw = rpz_switch_generation();
	if(s->cur && s->cur->switch_gen != sw) {
		struct rpz_snap* p = snap_build(s);
		if(p)
			publish_locked(s, p);
	}
	r->snap = s->cur;
	if(r->snap)
		atomic_fetch_add(&r->snap->refs, 1);
	r->gen = __atomic_load_n(&s->gen, __ATOMIC_RELAXED);
	r->switch_gen = sw;
	pthread_mutex_unlock(&s->lock);
	snap_release(old);
}

const struct rpz_policy* rpz_reader_policy(struct rpz_store* s,
	struct rpz_reader* r)
{
	if(__builtin_expect(__atomic_load_n(&s->gen, __ATOMIC_RELAXED) !=
		r->gen || rpz_switch_generation() != r->switch_gen, 0))
		reader_refresh(s, r);
	return r->snap ? r->snap->policy : NULL;
}

void rpz_reader_clear(struct rpz_reader* r)
{
	snap_release(r->snap);
	r->snap = NULL;
	r->gen = 0;
}
