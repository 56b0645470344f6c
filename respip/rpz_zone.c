/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_zone.c - a response policy zone's records made into its
 * triggers (see the header). The builder collects one item per record,
 * sorts them by trigger, and packs each trigger's records together. */
#include "config.h"
#include "respip/rpz_zone.h"
#include "respip/respip_set.h"
#include "util/dname.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

#define T_NS 2
#define T_SOA 6
#define T_CNAME 5
#define T_DNAME 39
#define T_DS 43
#define T_RRSIG 46
#define T_NSEC 47
#define T_DNSKEY 48
#define T_NSEC3 50
#define T_NSEC3PARAM 51

enum trigger_kind { TRIG_QNAME, TRIG_IP, TRIG_CLIENT, TRIG_NSIP };

/* One record, as a trigger and its data (in the builder's blob). */
struct item {
	uint8_t kind;        /* enum trigger_kind */
	uint8_t action;      /* enum rpz_action */
	uint8_t net, is_ip6;
	uint8_t addr[16];
	uint32_t name_off, name_len;  /* QNAME: its name */
	uint32_t rec_off, rec_len;    /* local data: the record */
	uint32_t seq;                 /* zone order */
};

struct rpz_builder {
	uint8_t origin[LDNS_MAX_DOMAINLEN + 1];
	size_t origin_len;
	struct item* items;
	size_t num, cap;
	uint8_t* blob;
	size_t blob_len, blob_cap;
	size_t ignored;
};

static const char* action_names[RPZ_ACTION_COUNT] = {
	"rpz-nxdomain", "rpz-nodata", "rpz-passthru", "rpz-drop",
	"rpz-tcp-only", "rpz-invalid", "rpz-local-data", "rpz-disabled",
	"rpz-cname-override", "rpz-no-override"
};

const char* rpz_action_name(enum rpz_action a)
{
	if((unsigned)a < RPZ_ACTION_COUNT)
		return action_names[a];
	return "rpz-unknown-action";
}

uint8_t rpz_action_to_respip(enum rpz_action a)
{
	switch(a) {
	case RPZ_NXDOMAIN: return RESPIP_ALWAYS_NXDOMAIN;
	case RPZ_NODATA: return RESPIP_ALWAYS_NODATA;
	case RPZ_DROP: return RESPIP_ALWAYS_DENY;
	case RPZ_LOCAL_DATA: return RESPIP_REDIRECT;
	case RPZ_TCP_ONLY: return RESPIP_INFORM;
	case RPZ_PASSTHRU:
	default: return RESPIP_ALWAYS_TRANSPARENT;
	}
}

enum rpz_action rpz_action_from_respip(uint8_t a)
{
	switch(a) {
	case RESPIP_ALWAYS_NXDOMAIN: return RPZ_NXDOMAIN;
	case RESPIP_ALWAYS_NODATA: return RPZ_NODATA;
	case RESPIP_ALWAYS_DENY: return RPZ_DROP;
	case RESPIP_REDIRECT: return RPZ_LOCAL_DATA;
	case RESPIP_INFORM: return RPZ_TCP_ONLY;
	default: return RPZ_PASSTHRU;
	}
}

struct rpz_builder* rpz_builder_create(const uint8_t* origin)
{
	struct rpz_builder* b = calloc(1, sizeof(*b));
	size_t n = dname_valid(origin, LDNS_MAX_DOMAINLEN + 1);
	if(!b || !n) {
		free(b);
		log_err("rpz: out of memory");
		return NULL;
	}
	memcpy(b->origin, origin, n);
	dname_tolower(b->origin);
	b->origin_len = n;
	return b;
}

void rpz_builder_delete(struct rpz_builder* b)
{
	if(!b)
		return;
	free(b->items);
	free(b->blob);
	free(b);
}

static int blob_add(struct rpz_builder* b, const void* p, size_t n,
	uint32_t* off)
{
	if(b->blob_len + n > b->blob_cap) {
		size_t nc = b->blob_cap ? b->blob_cap * 2 : 4096;
		uint8_t* nb;
		while(nc < b->blob_len + n)
			nc *= 2;
		if(nc > UINT32_MAX || !(nb = realloc(b->blob, nc)))
			return 0;
		b->blob = nb;
		b->blob_cap = nc;
	}
	*off = (uint32_t)b->blob_len;
	memcpy(b->blob + b->blob_len, p, n);
	b->blob_len += n;
	return 1;
}

/* compat: unbound-1.17: as rpz_rr_to_action: a CNAME's target names the
 * action, other types are local data, the zone's own types none. */
static enum rpz_action rr_action(uint16_t type, const uint8_t* rdata,
	size_t rdlen)
{
	size_t n;
	int labs;
	switch(type) {
	case T_SOA: case T_NS: case T_DNAME: case T_DNSKEY: case T_DS:
	case T_RRSIG: case T_NSEC: case T_NSEC3: case T_NSEC3PARAM:
		return RPZ_INVALID;
	case T_CNAME:
		break;
	default:
		return RPZ_LOCAL_DATA;
	}
	if(rdlen < 1 || (n = dname_valid(rdata, rdlen)) != rdlen)
		return RPZ_INVALID;
	labs = dname_count_labels(rdata);
	if(labs == 1)
		return RPZ_NXDOMAIN;
	if(labs == 2) {
		if(dname_subdomain_c(rdata, (const uint8_t*)"\001*"))
			return RPZ_NODATA;
		if(dname_subdomain_c(rdata, (const uint8_t*)"\014rpz-passthru"))
			return RPZ_PASSTHRU;
		if(dname_subdomain_c(rdata, (const uint8_t*)"\010rpz-drop"))
			return RPZ_DROP;
		if(dname_subdomain_c(rdata, (const uint8_t*)"\014rpz-tcp-only"))
			return RPZ_TCP_ONLY;
	}
	{
		/* the last label before the root: rpz-anything is invalid */
		const uint8_t* p = rdata, *last = rdata;
		while(*p) {
			last = p;
			p += *p + 1;
		}
		if(last[0] >= 4 && strncasecmp((const char*)last + 1, "rpz-",
			4) == 0)
			return RPZ_INVALID;
	}
	return RPZ_LOCAL_DATA;
}

/* The label at lab as a decimal number up to max; -1 when not one. */
static long lab_num(const uint8_t* lab, long max)
{
	long v = 0;
	int i;
	if(lab[0] == 0 || lab[0] > 3)
		return -1;
	for(i = 1; i <= lab[0]; i++) {
		if(lab[i] < '0' || lab[i] > '9')
			return -1;
		v = v * 10 + (lab[i] - '0');
	}
	return v <= max ? v : -1;
}

/* compat: unbound-1.17: the RPZ reversed prefix notation: nlabs labels
 * (labs[0] the prefix length, then the address's parts, last first):
 * "24.0.2.0.192" is 192.0.2.0/24; "64.zz.db8.2001" 2001:db8::/64. 0 when
 * it is not one (or bits past the prefix are set). */
static int parse_prefix(const uint8_t* const* labs, int nlabs,
	struct item* it)
{
	long net = lab_num(labs[0], 128);
	int i, n = nlabs - 1, g, zz = -1, groups = 0;
	uint16_t part[8];
	memset(it->addr, 0, sizeof(it->addr));
	if(net < 0 || n < 1)
		return 0;
	if(n == 4 && net <= 32) {
		int ok = 1;
		for(i = 0; i < 4 && ok; i++) {
			long o = lab_num(labs[4 - i], 255);
			if(o < 0)
				ok = 0;
			else	it->addr[i] = (uint8_t)o;
		}
		if(ok) {
			it->is_ip6 = 0;
			it->net = (uint8_t)net;
			goto check;
		}
	}
	/* IPv6: groups of up to four hex digits, "zz" for the :: */
	if(n > 8)
		return 0;
	for(i = n; i >= 1; i--) {
		const uint8_t* l = labs[i];
		unsigned v = 0;
		int k;
		if(l[0] == 2 && (l[1] | 0x20) == 'z' && (l[2] | 0x20) == 'z') {
			if(zz >= 0)
				return 0;
			zz = groups;
			continue;
		}
		if(l[0] < 1 || l[0] > 4)
			return 0;
		for(k = 1; k <= l[0]; k++) {
			int c = l[k] | 0x20, d;
			if(l[k] >= '0' && l[k] <= '9')
				d = l[k] - '0';
			else if(c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else	return 0;
			v = v * 16 + (unsigned)d;
		}
		part[groups++] = (uint16_t)v;
	}
	if((zz < 0 && groups != 8) || (zz >= 0 && groups > 7))
		return 0;
	for(i = 0, g = 0; i < 8; i++) {
		uint16_t v;
		if(zz >= 0 && i >= zz && i < zz + (8 - groups))
			v = 0;
		else	v = part[g++];
		it->addr[2 * i] = (uint8_t)(v >> 8);
		it->addr[2 * i + 1] = (uint8_t)v;
	}
	it->is_ip6 = 1;
	it->net = (uint8_t)net;
check:
	{
		int full = it->net / 8, bits = it->net % 8, len = it->is_ip6 ?
			16 : 4;
		if(bits && (it->addr[full] & (0xff >> bits)))
			return 0;
		for(i = full + (bits ? 1 : 0); i < len; i++)
			if(it->addr[i])
				return 0;
	}
	return 1;
}

static int label_is(const uint8_t* lab, const char* s)
{
	size_t n = strlen(s);
	return lab[0] == n && strncasecmp((const char*)lab + 1, s, n) == 0;
}

static int ignore(struct rpz_builder* b, const uint8_t* owner,
	const char* why)
{
	if(verbosity >= 2) {
		char buf[LDNS_MAX_DOMAINLEN * 4 + 1];
		dname_to_str(owner, buf, sizeof(buf));
		verbose(2, "rpz: record of %s skipped: %s", buf, why);
	}
	b->ignored++;
	return 1;
}

int rpz_builder_add(struct rpz_builder* b, const uint8_t* owner,
	size_t owner_len, uint16_t type, uint16_t rclass, uint32_t ttl,
	const uint8_t* rdata, size_t rdlen)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1], rec[10];
	const uint8_t* labs[LDNS_MAX_DOMAINLEN / 2 + 2];
	int nlabs = 0, rel;
	size_t rel_len;
	uint32_t dummy;
	struct item it;
	const uint8_t* p;
	if(owner_len > sizeof(name) || dname_valid(owner, owner_len) !=
		owner_len || rdlen > 65535)
		return ignore(b, (const uint8_t*)"", "malformed");
	memcpy(name, owner, owner_len);
	dname_tolower(name);
	if(!dname_subdomain_c(name, b->origin))
		return ignore(b, name, "outside the zone");
	for(p = name; *p; p += *p + 1)
		labs[nlabs++] = p;
	rel = nlabs - dname_count_labels(b->origin) + 1;
	if(rel <= 0)
		return ignore(b, name, "the zone's apex");
	rel_len = (size_t)(labs[rel - 1] + labs[rel - 1][0] + 1 - name);
	memset(&it, 0, sizeof(it));
	it.action = (uint8_t)rr_action(type, rdata, rdlen);
	if(it.action == RPZ_INVALID)
		return ignore(b, name, "no RPZ action");
	it.seq = (uint32_t)b->num;
	if(label_is(labs[rel - 1], "rpz-ip") || label_is(labs[rel - 1],
		"rpz-client-ip") || label_is(labs[rel - 1], "rpz-nsip")) {
		it.kind = label_is(labs[rel - 1], "rpz-ip") ? TRIG_IP :
			label_is(labs[rel - 1], "rpz-nsip") ? TRIG_NSIP :
			TRIG_CLIENT;
		if(!parse_prefix(labs, rel - 1, &it))
			return ignore(b, name, "not an address prefix");
	} else {
		/* QNAME, and NSDNAME (kept with its rpz-nsdname label:
		 * rpz_nstrigger.c looks the NS names up that way) */
		uint8_t z = 0;
		it.kind = TRIG_QNAME;
		if(!blob_add(b, name, rel_len, &it.name_off) ||
			!blob_add(b, &z, 1, &dummy))
			return 0;
		it.name_len = (uint32_t)rel_len + 1;
	}
	if(it.action == RPZ_LOCAL_DATA) {
		rec[0] = (uint8_t)(type >> 8); rec[1] = (uint8_t)type;
		rec[2] = (uint8_t)(rclass >> 8); rec[3] = (uint8_t)rclass;
		rec[4] = (uint8_t)(ttl >> 24); rec[5] = (uint8_t)(ttl >> 16);
		rec[6] = (uint8_t)(ttl >> 8); rec[7] = (uint8_t)ttl;
		rec[8] = (uint8_t)(rdlen >> 8); rec[9] = (uint8_t)rdlen;
		if(!blob_add(b, rec, 10, &it.rec_off) || !blob_add(b, rdata,
			rdlen, &dummy))
			return 0;
		it.rec_len = (uint32_t)(10 + rdlen);
	}
	if(b->num == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct item* ni = realloc(b->items, nc * sizeof(*ni));
		if(!ni)
			return 0;
		b->items = ni;
		b->cap = nc;
	}
	b->items[b->num++] = it;
	return 1;
}

/* The builder's items, for qsort's comparator. */
static const uint8_t* sort_blob;

static int name_cmp(const uint8_t* a, size_t al, const uint8_t* b,
	size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if(c)
		return c;
	return al < bl ? -1 : (al > bl ? 1 : 0);
}

static int item_cmp(const void* x, const void* y)
{
	const struct item* a = x, *b = y;
	int c;
	if(a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if(a->kind == TRIG_QNAME)
		c = name_cmp(sort_blob + a->name_off, a->name_len,
			sort_blob + b->name_off, b->name_len);
	else if(a->is_ip6 != b->is_ip6)
		c = a->is_ip6 < b->is_ip6 ? -1 : 1;
	else if(a->net != b->net)
		c = a->net < b->net ? -1 : 1;
	else	c = memcmp(a->addr, b->addr, 16);
	if(c)
		return c;
	return a->seq < b->seq ? -1 : (a->seq > b->seq ? 1 : 0);
}

static int same_trigger(const struct item* a, const struct item* b,
	const uint8_t* blob)
{
	if(a->kind != b->kind)
		return 0;
	if(a->kind == TRIG_QNAME)
		return name_cmp(blob + a->name_off, a->name_len,
			blob + b->name_off, b->name_len) == 0;
	return a->is_ip6 == b->is_ip6 && a->net == b->net &&
		memcmp(a->addr, b->addr, 16) == 0;
}

void rpz_zone_delete(struct rpz_zone* z)
{
	if(!z)
		return;
	free(z->blob);
	free(z->names);
	/* the sets borrow the zone's blob */
	if(z->ip)
		z->ip->blob = NULL;
	if(z->client)
		z->client->blob = NULL;
	if(z->nsip)
		z->nsip->blob = NULL;
	respip_set_delete(z->ip);
	respip_set_delete(z->client);
	respip_set_delete(z->nsip);
	free(z);
}

/* compat: unbound-1.17: a trigger's records decide its action: one that
 * names an action (a CNAME to ".", "*.", rpz-...) wins, first in zone
 * order; else its records are local data. Packs the data of items
 * [i, j) into dst (at *dst_len) and returns the action. */
static enum rpz_action merge(const struct item* items, size_t i, size_t j,
	const uint8_t* src, uint8_t* dst, size_t* dst_len, uint32_t* off,
	uint32_t* len, uint16_t* count)
{
	size_t k;
	*off = (uint32_t)*dst_len;
	*len = 0;
	*count = 0;
	for(k = i; k < j; k++)
		if(items[k].action != RPZ_LOCAL_DATA)
			return (enum rpz_action)items[k].action;
	for(k = i; k < j; k++) {
		memcpy(dst + *dst_len, src + items[k].rec_off,
			items[k].rec_len);
		*dst_len += items[k].rec_len;
		*len += items[k].rec_len;
		(*count)++;
	}
	return RPZ_LOCAL_DATA;
}

static struct respip_set* new_set(void)
{
	return calloc(1, sizeof(struct respip_set));
}

/* An IP trigger as a respip rule of set (whose blob is the zone's). */
static int add_rule(struct respip_set* s, const struct item* it,
	enum rpz_action a, uint32_t off, uint32_t len, uint16_t count)
{
	struct respip_family* f = it->is_ip6 ? &s->v6 : &s->v4;
	struct respip_rule* r;
	if((f->count & (f->count - 1)) == 0 || f->count == 0) {
		size_t nc = f->count ? f->count * 2 : 4;
		struct respip_rule* nr = realloc(f->rules, nc * sizeof(*nr));
		if(!nr)
			return 0;
		f->rules = nr;
	}
	r = &f->rules[f->count++];
	memset(r, 0, sizeof(*r));
	memcpy(r->addr, it->addr, 16);
	r->net = it->net;
	r->is_ip6 = it->is_ip6;
	r->action = rpz_action_to_respip(a);
	r->data_off = off;
	r->data_len = len;
	r->data_count = count;
	return 1;
}

struct rpz_zone* rpz_builder_finish(struct rpz_builder* b)
{
	struct rpz_zone* z = calloc(1, sizeof(*z));
	size_t i, j, used = 0;
	if(!z || !(z->ip = new_set()) || !(z->client = new_set()) ||
		!(z->nsip = new_set()))
		goto oom;
	sort_blob = b->blob;
	if(b->num)
		qsort(b->items, b->num, sizeof(*b->items), item_cmp);
	/* the packed blob is no larger than the builder's */
	if(!(z->blob = malloc(b->blob_len ? b->blob_len : 1)))
		goto oom;
	if(b->num && !(z->names = calloc(b->num, sizeof(*z->names))))
		goto oom;
	for(i = 0; i < b->num; i = j) {
		const struct item* it = &b->items[i];
		uint32_t off, len;
		uint16_t count;
		enum rpz_action a;
		for(j = i + 1; j < b->num && j - i < 65535 && same_trigger(it,
			&b->items[j], b->blob); j++)
			;
		if(it->kind == TRIG_QNAME) {
			struct rpz_name* n = &z->names[z->num_names++];
			n->name_off = (uint32_t)used;
			n->name_len = (uint16_t)it->name_len;
			memcpy(z->blob + used, b->blob + it->name_off,
				it->name_len);
			used += it->name_len;
			a = merge(b->items, i, j, b->blob, z->blob, &used,
				&off, &len, &count);
			n->action = (uint8_t)a;
			n->data_off = off;
			n->data_len = len;
			n->data_count = count;
			continue;
		}
		a = merge(b->items, i, j, b->blob, z->blob, &used, &off, &len,
			&count);
		if(!add_rule(it->kind == TRIG_IP ? z->ip : it->kind ==
			TRIG_NSIP ? z->nsip : z->client, it, a, off, len,
			count))
			goto oom;
	}
	z->blob_len = used;
	z->ip->blob = z->blob;
	z->ip->blob_len = used;
	z->client->blob = z->blob;
	z->client->blob_len = used;
	z->nsip->blob = z->blob;
	z->nsip->blob_len = used;
	respip_set_index(z->ip);
	respip_set_index(z->client);
	respip_set_index(z->nsip);
	z->num_ignored = b->ignored;
	rpz_builder_delete(b);
	return z;
oom:
	log_err("rpz: out of memory");
	rpz_builder_delete(b);
	rpz_zone_delete(z);
	return NULL;
}

size_t rpz_zone_mem(const struct rpz_zone* z)
{
	if(!z)
		return 0;
	return sizeof(*z) + z->blob_len + z->num_names * sizeof(*z->names) +
		(z->ip->v4.count + z->ip->v6.count + z->client->v4.count +
		z->client->v6.count + z->nsip->v4.count + z->nsip->v6.count) *
		sizeof(struct respip_rule);
}

static const struct rpz_name* find(const struct rpz_zone* z,
	const uint8_t* key, size_t klen)
{
	size_t lo = 0, hi = z->num_names;
	while(lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rpz_name* n = &z->names[mid];
		int c = name_cmp(key, klen, z->blob + n->name_off,
			n->name_len);
		if(c == 0)
			return n;
		if(c < 0)
			hi = mid;
		else	lo = mid + 1;
	}
	return NULL;
}

const struct rpz_name* rpz_zone_lookup_qname(const struct rpz_zone* z,
	const uint8_t* q, size_t qlen)
{
	uint8_t lq[LDNS_MAX_DOMAINLEN + 1], key[LDNS_MAX_DOMAINLEN + 3];
	const struct rpz_name* n;
	size_t s;
	if(!z->num_names || qlen > LDNS_MAX_DOMAINLEN + 1 || qlen < 1)
		return NULL;
	memcpy(lq, q, qlen);
	dname_tolower(lq);
	if((n = find(z, lq, qlen)))
		return n;
	/* compat: unbound-1.17: "*.wild" covers the names below wild, not
	 * wild itself; the closest one first */
	key[0] = 1;
	key[1] = '*';
	for(s = 0; lq[s]; ) {
		s += (size_t)lq[s] + 1;
		if(s >= qlen)
			break;
		memcpy(key + 2, lq + s, qlen - s);
		if((n = find(z, key, qlen - s + 2)))
			return n;
	}
	return NULL;
}
