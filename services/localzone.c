/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone.c - compat: unbound-1.17: local-zone: and local-data:
 * answers.
 *
 * Everything is built at create time into an arena: a hash table of zones
 * keyed on (class, name) and a hash table of data names keyed on (zone,
 * name), each name holding its RRsets as struct packed_rrset ready for
 * msg_add_rrset. Answering hashes the query name (and its parents, for
 * the closest enclosing zone), allocates nothing and takes no lock.
 * Semantics follow Unbound 1.17 (services/localzone.c there). */
#include "config.h"
#include "services/localzone.h"
#include "services/localzone_internal.h"
#include "services/view.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <ldns/ldns.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* const type_names[] = {
	"deny", "refuse", "static", "transparent", "typetransparent",
	"redirect", "nodefault", "inform", "inform_deny", "inform_redirect",
	"always_transparent", "block_a", "always_refuse", "always_nxdomain",
	"always_null", "noview", "always_nodata", "always_deny",
	"block_aaaa", "block_a_wdata", "block_aaaa_wdata"
};

enum localzone_type
local_zone_str2type(const char* s)
{
	size_t i;
	if(!s)
		return local_zone_invalid;
	for(i = 0; i < sizeof(type_names)/sizeof(type_names[0]); i++)
		if(strcmp(s, type_names[i]) == 0)
			return (enum localzone_type)i;
	return local_zone_invalid;
}

const char*
local_zone_type2str(enum localzone_type t)
{
	if((size_t)t < sizeof(type_names)/sizeof(type_names[0]))
		return type_names[t];
	return "badtyped";
}

/* ---- lookup ---- */

uint32_t
lz_node_seed(const struct lz_zone* z)
{
	return z->hn.hash * 2654435761u + 1;
}

struct lz_zone*
lz_zone_find(const struct local_zones* lz, const uint8_t* name, uint16_t dclass)
{
	struct ihash_node* n;
	uint32_t h;
	if(!lz->zones.count)
		return NULL;
	h = dname_hash(name, dclass);
	for(n = ihash_bucket(&lz->zones, h); n; n = n->next) {
		struct lz_zone* z = IHASH_ITEM(n, struct lz_zone, hn);
		if(n->hash == h && z->dclass == dclass &&
			query_dname_compare(z->name, name) == 0)
			return z;
	}
	return NULL;
}

/* The closest enclosing zone; for DS the parent side of a zone cut. */
struct lz_zone*
lz_zone_lookup(const struct local_zones* lz, const uint8_t* name,
	uint16_t dclass, uint16_t qtype)
{
	struct lz_zone* z;
	if(!lz->zones.count)
		return NULL;
	if(qtype == TYPE_DS && name[0] != 0)
		name = dname_remove_label(name);
	for(;;) {
		if((z = lz_zone_find(lz, name, dclass)) != NULL)
			return z;
		if(name[0] == 0)
			return NULL;
		name = dname_remove_label(name);
	}
}

struct lz_zone*
lz_zone_lookup_tags(const struct local_zones* lz, const uint8_t* name,
	uint16_t dclass, uint16_t qtype, uint64_t tags)
{
	struct lz_zone* z;
	if(!lz->zones.count)
		return NULL;
	if(qtype == TYPE_DS && name[0] != 0)
		name = dname_remove_label(name);
	for(;;) {
		if((z = lz_zone_find(lz, name, dclass)) != NULL &&
			(!z->tags || (z->tags & tags)))
			return z;
		if(name[0] == 0)
			return NULL;
		name = dname_remove_label(name);
	}
}

struct lz_node*
lz_node_find(const struct local_zones* lz, const struct lz_zone* z,
	const uint8_t* name)
{
	struct ihash_node* n;
	uint32_t h;
	if(!lz->names.count)
		return NULL;
	h = dname_hash(name, lz_node_seed(z));
	for(n = ihash_bucket(&lz->names, h); n; n = n->next) {
		struct lz_node* d = IHASH_ITEM(n, struct lz_node, hn);
		if(n->hash == h && d->zone == z &&
			query_dname_compare(d->name, name) == 0)
			return d;
	}
	return NULL;
}


int
lz_is_redirect(enum localzone_type t)
{
	return t == local_zone_redirect || t == local_zone_inform_redirect;
}

struct lz_rrset*
lz_node_type(const struct lz_node* d, uint16_t type)
{
	struct lz_rrset* r;
	for(r = d->rrsets; r; r = r->next)
		if(r->rr.type == type)
			return r;
	return NULL;
}
/* ---- answering ---- */

static const char*
type_str(uint16_t t, char* buf, size_t len)
{
	const ldns_rr_descriptor* d = ldns_rr_descript(t);
	if(d && d->_type == t && d->_name)
		return d->_name;
	snprintf(buf, len, "TYPE%u", (unsigned)t);
	return buf;
}

static const char*
class_str(uint16_t c, char* buf, size_t len)
{
	ldns_lookup_table* lt = ldns_lookup_by_id(ldns_rr_classes, (int)c);
	if(lt && lt->name)
		return lt->name;
	snprintf(buf, len, "CLASS%u", (unsigned)c);
	return buf;
}

/* compat: unbound-1.17: "ZONE TYPE IP@PORT QNAME QTYPE QCLASS" at log_info, as
 * Unbound. */
static void
inform_print(const struct lz_zone* z, const struct query_info* qi,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	char zname[1024], qname[1024], ip[128], tb[16], cb[16];
	dname_to_str(z->name, zname, sizeof(zname));
	dname_to_str(qi->qname, qname, sizeof(qname));
	addr_to_str(addr, addrlen, ip, sizeof(ip));
	log_info("%s %s %s@%u %s %s %s", zname, local_zone_type2str(z->type),
		ip, (unsigned)addr_port(addr), qname,
		type_str(qi->qtype, tb, sizeof(tb)),
		class_str(qi->qclass, cb, sizeof(cb)));
}

/* compat: unbound-1.17: Add an RRset to the answer; RRs with another TTL than
 * their predecessor start a new msg_add_rrset call, so each RR keeps its own
 * TTL as in Unbound (the encoder takes one TTL per call). */
static void
add_answer_runs(struct msg_builder* b, const struct packed_rrset* r,
	const uint32_t* ttls)
{
	size_t i = 0;
	if(!ttls) {
		(void)msg_add_rrset(b, SEC_ANSWER, r);
		return;
	}
	while(i < r->count) {
		struct packed_rrset part = *r;
		size_t j = i + 1;
		while(j < r->count && ttls[j] == ttls[i])
			j++;
		part.ttl = ttls[i];
		part.count = j - i;
		part.rdata = r->rdata + i;
		part.rdlen = r->rdlen + i;
		if(!msg_add_rrset(b, SEC_ANSWER, &part))
			return;
		i = j;
	}
}

/* An answer of one RRset, owned by the query name (its case echoed).
 * ttls, when not NULL, has the TTL of each RR. */
static size_t
encode_answer(const struct local_zones* lz, const struct query_info* qi,
	const struct packed_rrset* rrset, const uint32_t* ttls, uint8_t* out,
	size_t limit, uint16_t edns_size)
{
	struct msg_builder b;
	struct packed_rrset r = *rrset;
	const uint8_t* rd[LZ_ROTATE_MAX];
	uint16_t rl[LZ_ROTATE_MAX];
	uint32_t rt[LZ_ROTATE_MAX];
	r.owner = qi->qname;
	r.owner_len = qi->qname_len;
	if(lz->roundrobin && r.count > 1 && r.count <= LZ_ROTATE_MAX) {
		/* compat: unbound-1.17: rrset-roundrobin: Unbound rotates by
		 * query ID and time */
		size_t off = ((size_t)qi->id + (size_t)time(NULL)) % r.count, i;
		for(i = 0; i < r.count; i++) {
			size_t k = (i + off) % r.count;
			rd[i] = rrset->rdata[k];
			rl[i] = rrset->rdlen[k];
			if(ttls)
				rt[i] = ttls[k];
		}
		r.rdata = rd;
		r.rdlen = rl;
		if(ttls)
			ttls = rt;
	}
	msg_begin(&b, out, limit, qi, FLAG_AA | FLAG_RA, RCODE_NOERROR);
	add_answer_runs(&b, &r, ttls);
	return msg_finish(&b, qi, edns_size, RCODE_NOERROR);
}

/* A reply without answer: the rcode, and the zone's SOA (negative TTL)
 * in the authority section when the zone has one and soa is set. */
static size_t
encode_negative(const struct lz_zone* z, const struct query_info* qi,
	int rcode, int soa, uint8_t* out, size_t limit, uint16_t edns_size)
{
	struct msg_builder b;
	msg_begin(&b, out, limit, qi, FLAG_AA | FLAG_RA, rcode);
	if(soa && z->soa && qi->qname_len >= z->namelen) {
		struct packed_rrset r = z->soa_neg;
		/* the zone name is a suffix of the query name: echo its case */
		r.owner = qi->qname + (qi->qname_len - z->namelen);
		r.owner_len = z->namelen;
		(void)msg_add_rrset(&b, SEC_AUTHORITY, &r);
	}
	return msg_finish(&b, qi, edns_size, rcode);
}

/* compat: unbound-1.17: The RRset answering qtype at d: that type, or a CNAME,
 * whichever was configured first (as Unbound 1.17.1 answers). */
static const struct lz_rrset*
node_answer_type(const struct lz_node* d, uint16_t qtype)
{
	const struct lz_rrset* r;
	for(r = d->rrsets; r; r = r->next)
		if(r->rr.type == qtype || r->rr.type == TYPE_CNAME)
			return r;
	return NULL;
}

static int
ignores_data(enum localzone_type t)
{
	return t == local_zone_always_refuse ||
		t == local_zone_always_transparent ||
		t == local_zone_block_a || t == local_zone_block_aaaa ||
		t == local_zone_always_nxdomain ||
		t == local_zone_always_nodata || t == local_zone_always_deny;
}

/* Can a zone contain this name at all? (the TLD filter) */
static int
maybe_local(const struct local_zones* lz, const uint8_t* qname)
{
	int b;
	if(lz->has_root_zone)
		return 1;
	b = lz_tld_bit(qname);
	return b >= 0 && (lz->tld_bits[b >> 6] >> (b & 63)) & 1;
}

/* compat: unbound-1.17: a redirect type's CNAME answering another type
 * is a local alias (local_data_answer there): the CNAME, owned by the
 * query name, AA; the caller resolves its target. A target "*.name" is
 * the query name with name appended (TTL 0), and YXDOMAIN (AA) when
 * that is longer than a name may be (Unbound adds EDE "DNAME expansion
 * became too large" with ede: yes; not here). Out of line: cold. */
static enum localzone_result __attribute__((noinline))
alias_answer(const struct local_zones* zones, const struct query_info* qi,
	const struct packed_rrset* cname, int synth_ok, uint8_t* out,
	size_t limit, uint16_t edns_size, size_t* outlen)
{
	struct packed_rrset r = *cname;
	uint8_t target[LDNS_MAX_DOMAINLEN + 1];
	const uint8_t* rd = target;
	uint16_t rl;
	size_t tl = cname->count ? cname->rdlen[0] : 0;
	if(synth_ok && tl >= 3 && cname->rdata[0][0] == 1 &&
		cname->rdata[0][1] == '*') {
		/* the query name without its root label, then the
		 * target without its wildcard label */
		size_t n = qi->qname_len - 1 + tl - 2;
		if(n > LDNS_MAX_DOMAINLEN) {
			*outlen = msg_error_reply(out, limit, qi,
				LDNS_RCODE_YXDOMAIN, edns_size);
			if(*outlen >= LDNS_HEADER_SIZE)
				out[2] |= (uint8_t)(FLAG_AA >> 8);
			return LZ_ANSWERED;
		}
		memcpy(target, qi->qname, qi->qname_len - 1);
		memcpy(target + qi->qname_len - 1, cname->rdata[0] + 2,
			tl - 2);
		rl = (uint16_t)n;
		r.rdata = &rd;
		r.rdlen = &rl;
		r.count = 1;
		r.ttl = 0;
	}
	*outlen = encode_answer(zones, qi, &r, NULL, out, limit, edns_size);
	return LZ_ALIAS;
}

/* The answer of zone z (of zones) to qi, as a zone of type t (its own,
 * or the client's override or tag action); td: the client's tag data for
 * this zone (a redirect type answers with it), NULL if none. */
static enum localzone_result
answer_in_zone(const struct local_zones* zones, const struct lz_zone* z,
	enum localzone_type t, const struct lz_tag_data* td,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen, uint8_t* out, size_t limit, uint16_t edns_size,
	size_t* outlen)
{
	const struct lz_node* ld = NULL;
	if(addr && (zones->log_local_actions || t == local_zone_inform ||
		t == local_zone_inform_deny || t == local_zone_inform_redirect))
		inform_print(z, qi, addr, addrlen);

	if(__builtin_expect(td != NULL, 0) && lz_is_redirect(t)) {
		/* compat: unbound-1.17: access-control-tag-data, before the
		 * zone's own data */
		struct lz_tag_rrset tr;
		memset(&tr.rr, 0, sizeof(tr.rr));
		tr.mixed_ttl = 0;
		if(lz_tag_data_rrset(td, qi, &tr)) {
			/* compat: unbound-1.17: its CNAME is a local alias
			 * too (find_tag_datas), the target as it is */
			if(tr.rr.type == TYPE_CNAME &&
				qi->qtype != TYPE_CNAME)
				return alias_answer(zones, qi, &tr.rr, 0, out,
					limit, edns_size, outlen);
			*outlen = encode_answer(zones, qi, &tr.rr,
				tr.mixed_ttl ? tr.ttls : NULL, out, limit,
				edns_size);
			return LZ_ANSWERED;
		}
	}
	if(!ignores_data(t)) {
		ld = lz_node_find(zones, z, lz_is_redirect(t) ? z->name : qi->qname);
		if(ld) {
			const struct lz_rrset* r = node_answer_type(ld,
				qi->qtype);
			if(r) {
				if(__builtin_expect(r->rr.type == TYPE_CNAME,
					0) && qi->qtype != TYPE_CNAME &&
					lz_is_redirect(t))
					return alias_answer(zones, qi, &r->rr,
						1, out, limit, edns_size,
						outlen);
				*outlen = encode_answer(zones, qi, &r->rr,
					r->mixed_ttl ? r->ttls : NULL, out,
					limit, edns_size);
				return LZ_ANSWERED;
			}
		}
	}

	switch(t) {
	case local_zone_deny:
	case local_zone_always_deny:
	case local_zone_inform_deny:
		return LZ_DROP;
	case local_zone_refuse:
	case local_zone_always_refuse:
		*outlen = encode_negative(z, qi, RCODE_REFUSED, 0, out, limit,
			edns_size);
		return LZ_ANSWERED;
	case local_zone_static:
	case local_zone_redirect:
	case local_zone_inform_redirect:
	case local_zone_always_nxdomain:
	case local_zone_always_nodata: {
		int rcode = (ld || lz_is_redirect(t) ||
			t == local_zone_always_nodata) ?
			RCODE_NOERROR : RCODE_NXDOMAIN;
		*outlen = encode_negative(z, qi, rcode, 1, out, limit,
			edns_size);
		return LZ_ANSWERED;
	}
	case local_zone_typetransparent:
	case local_zone_always_transparent:
		return LZ_NO_ANSWER;
	case local_zone_block_a:
	case local_zone_block_a_wdata:
	case local_zone_block_aaaa:
	case local_zone_block_aaaa_wdata:
		/* compat: unbound-1.26: NODATA (no SOA) for the blocked type,
		 * DO or not; the rest is resolved (the _wdata types answer
		 * their local data first, above) */
		if(qi->qtype == ((t == local_zone_block_a ||
			t == local_zone_block_a_wdata) ? TYPE_A : TYPE_AAAA)) {
			*outlen = encode_negative(z, qi, RCODE_NOERROR, 0, out,
				limit, edns_size);
			return LZ_ANSWERED;
		}
		return LZ_NO_ANSWER;
	case local_zone_always_null:
		if(qi->qtype == TYPE_A || qi->qtype == TYPE_AAAA) {
			static const uint8_t zero[16];
			const uint8_t* rd = zero;
			uint16_t rl = qi->qtype == TYPE_A ? 4 : 16;
			struct packed_rrset r;
			memset(&r, 0, sizeof(r));
			r.owner = qi->qname;
			r.owner_len = qi->qname_len;
			r.type = qi->qtype;
			r.rclass = qi->qclass;
			r.ttl = 3600;
			r.count = 1;
			r.rdata = &rd;
			r.rdlen = &rl;
			*outlen = encode_answer(zones, qi, &r, NULL, out,
				limit, edns_size);
		} else {
			*outlen = encode_negative(z, qi, RCODE_NOERROR, 0, out,
				limit, edns_size);
		}
		return LZ_ANSWERED;
	default:
		break;
	}
	/* transparent, inform, nodefault, noview: NODATA for a name that
	 * has other data, else resolve normally */
	if(ld && ld->rrsets) {
		*outlen = encode_negative(z, qi, RCODE_NOERROR, 1, out, limit,
			edns_size);
		return LZ_ANSWERED;
	}
	return LZ_NO_ANSWER;
}

/* compat: unbound-1.17: the type zone z has for this client: a
 * local-zone-override for its address; else, z tagged, the action of the
 * first tag (lowest id) in common, whose data then goes to a redirect
 * (*td). Out of line: only zones with overrides or clients with tag
 * actions or data come here. */
static enum localzone_type __attribute__((noinline))
client_zone_type(const struct lz_zone* z, uint64_t tags,
	const struct lz_client_tags* ct, const struct sockaddr_storage* addr,
	socklen_t addrlen, const struct lz_tag_data** td)
{
	uint64_t common;
	int id;
	if(z->num_overrides) {
		enum localzone_type o = lz_override_type(z, addr, addrlen);
		if(o != local_zone_invalid) {
			verbose(VERB_ALGO, "local zone override to type %s",
				local_zone_type2str(o));
			return o;
		}
	}
	if(!ct || !(common = z->tags & tags))
		return z->type;
	id = __builtin_ctzll(common);
	*td = ct->data[id];
	if(ct->action[id]) {
		verbose(VERB_ALGO, "tag action [%d] to type %s", id,
			local_zone_type2str((enum localzone_type)
			(ct->action[id] - 1)));
		return (enum localzone_type)(ct->action[id] - 1);
	}
	return z->type;
}

/* local_zones_answer once the TLD filter passed; out of line so that
 * the common case (no zone can hold the name) costs no big prologue. */
static enum localzone_result __attribute__((noinline))
answer_zones(const struct local_zones* zones, uint64_t tags,
	const struct lz_client_tags* ct, const struct query_info* qi,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t limit, uint16_t edns_size, size_t* outlen)
{
	const struct lz_zone* z;
	const struct lz_tag_data* td = NULL;
	enum localzone_type t;
	/* local_zones_answer checked the arguments and the TLD filter */
	if(!(z = lz_zone_lookup_tags(zones, qi->qname, qi->qclass, qi->qtype,
		tags)))
		return LZ_NO_ANSWER;
	t = z->type;
	if(__builtin_expect(z->num_overrides != 0 || ct != NULL, 0))
		t = client_zone_type(z, tags, ct, addr, addrlen, &td);
	return answer_in_zone(zones, z, t, td, qi, addr, addrlen, out, limit,
		edns_size, outlen);
}

enum localzone_result
local_zones_answer(const struct local_zones* zones,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen, uint8_t* out, size_t limit, uint16_t edns_size,
	size_t* outlen)
{
	if(!zones || !qi || qi->qname_len == 0 ||
		!maybe_local(zones, qi->qname))
		return LZ_NO_ANSWER;
	return answer_zones(zones, 0, NULL, qi, addr, addrlen, out, limit,
		edns_size, outlen);
}

/* compat: unbound-1.17: a view's zone of a transparent kind that has nothing
 * for the question passes it on (Unbound's local_zone_does_not_cover). */
static int
zone_does_not_cover(const struct local_zones* lz, const struct lz_zone* z,
	const struct query_info* qi)
{
	const struct lz_node* d;
	/* compat: unbound-1.26: and block_a, block_aaaa (in a view they
	 * always pass on; the _wdata types do not) */
	if(z->type == local_zone_always_transparent ||
		z->type == local_zone_block_a ||
		z->type == local_zone_block_aaaa)
		return 1;
	if(z->type != local_zone_transparent &&
		z->type != local_zone_typetransparent &&
		z->type != local_zone_inform)
		return 0;
	d = lz_node_find(lz, z, qi->qname);
	if(z->type != local_zone_typetransparent)
		return d == NULL;
	return !d || !node_answer_type(d, qi->qtype);
}

enum localzone_result
local_zones_answer_client(const struct local_zones* zones,
	const struct view* view, uint64_t tags, const struct lz_client_tags* ct,
	const struct query_info* qi,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t limit, uint16_t edns_size, size_t* outlen)
{
	const struct local_zones* vz = view ? view->lz : NULL;
	const struct lz_zone* z = NULL;
	if(vz && qi && qi->qname_len != 0) {
		if(maybe_local(vz, qi->qname))
			z = lz_zone_lookup(vz, qi->qname, qi->qclass,
				qi->qtype);
		if(z && (z->type == local_zone_noview ||
			zone_does_not_cover(vz, z, qi)))
			z = NULL;
		if(z) {
			if(verbosity >= VERB_ALGO) {
				char zname[LDNS_MAX_DOMAINLEN * 4 + 1];
				dname_to_str(z->name, zname, sizeof(zname));
				verbose(VERB_ALGO, "using localzone %s %s "
					"from view %s", zname,
					local_zone_type2str(z->type),
					view->name);
			}
			return answer_in_zone(vz, z, z->type, NULL, qi, addr,
				addrlen, out, limit, edns_size, outlen);
		}
		if(!view->isfirst)
			return LZ_NO_ANSWER;
	}
	if(!zones || !qi || qi->qname_len == 0 ||
		!maybe_local(zones, qi->qname))
		return LZ_NO_ANSWER;
	return answer_zones(zones, tags, ct, qi, addr, addrlen, out, limit,
		edns_size, outlen);
}
