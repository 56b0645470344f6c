/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip_set.c - the response-ip rules of one config (server: or a
 * view), checked and packed at start-up (see the header). */
#include "config.h"
#include "respip/respip_set.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char* name; enum respip_action a; } names[] = {
	{ "deny", RESPIP_DENY },
	{ "redirect", RESPIP_REDIRECT },
	{ "inform", RESPIP_INFORM },
	{ "inform_deny", RESPIP_INFORM_DENY },
	{ "always_transparent", RESPIP_ALWAYS_TRANSPARENT },
	{ "always_refuse", RESPIP_ALWAYS_REFUSE },
	{ "always_nxdomain", RESPIP_ALWAYS_NXDOMAIN },
	/* not for response-ip: (RPZ) */
	{ "always_nodata", RESPIP_ALWAYS_NODATA },
	{ "always_deny", RESPIP_ALWAYS_DENY }
};
#define CONFIGURABLE 7

enum respip_action respip_action_from_str(const char* s)
{
	size_t i;
	for(i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if(strcmp(names[i].name, s) == 0)
			return names[i].a;
	return RESPIP_NONE;
}

int respip_action_configurable(const char* s)
{
	size_t i;
	for(i = 0; i < CONFIGURABLE; i++)
		if(strcmp(names[i].name, s) == 0)
			return 1;
	return 0;
}

/* a rule's size, RPZ's IP triggers counted in them */
_Static_assert(sizeof(struct respip_rule) == 32, "respip_rule: 32 bytes");

/* Rules while the set is built: growing arrays. */
struct builder {
	struct respip_rule* r[2];   /* [0] IPv4, [1] IPv6 */
	size_t n[2], cap[2];
};

/* The rule for the netblock text (exact), made when create. */
static struct respip_rule* find_rule(struct builder* b, const char* ipstr,
	int create)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int net, nbytes, f;
	const uint8_t* a;
	size_t i;
	if(!netblockstrtoaddr(ipstr, 0, &ss, &len, &net) ||
		!(a = addr_bytes(&ss, len, &nbytes))) {
		log_err("cannot parse netblock: '%s'", ipstr);
		return NULL;
	}
	f = nbytes == 16;
	for(i = 0; i < b->n[f]; i++)
		if(b->r[f][i].net == net &&
			memcmp(b->r[f][i].addr, a, (size_t)nbytes) == 0)
			return &b->r[f][i];
	if(!create)
		return NULL;
	if(b->n[f] == b->cap[f]) {
		size_t nc = b->cap[f] ? b->cap[f] * 2 : 16;
		struct respip_rule* nr = realloc(b->r[f], nc * sizeof(*nr));
		if(!nr) {
			log_err("out of memory");
			return NULL;
		}
		b->r[f] = nr;
		b->cap[f] = nc;
	}
	memset(&b->r[f][b->n[f]], 0, sizeof(b->r[f][0]));
	memcpy(b->r[f][b->n[f]].addr, a, (size_t)nbytes);
	b->r[f][b->n[f]].net = (uint8_t)net;
	b->r[f][b->n[f]].is_ip6 = (uint8_t)f;
	return &b->r[f][b->n[f]++];
}

/* Append the record (as after an owner name) to the blob. Data of one
 * rule is contiguous: rules get their data in config order, so a rule's
 * later record must follow its earlier ones; a record for a rule whose
 * data is not at the blob's end is moved there with it. */
static int blob_add(struct respip_set* s, size_t* cap,
	struct respip_rule* r, const uint8_t* rec, size_t len)
{
	size_t need = s->blob_len + r->data_len + len;
	if(need > *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint8_t* nb;
		while(nc < need)
			nc *= 2;
		if(!(nb = realloc(s->blob, nc))) {
			log_err("out of memory");
			return 0;
		}
		s->blob = nb;
		*cap = nc;
	}
	if(r->data_len && r->data_off + r->data_len != s->blob_len) {
		memmove(s->blob + s->blob_len, s->blob + r->data_off,
			r->data_len);
		r->data_off = (uint32_t)s->blob_len;
		s->blob_len += r->data_len;
	} else if(!r->data_len)
		r->data_off = (uint32_t)s->blob_len;
	memcpy(s->blob + s->blob_len, rec, len);
	s->blob_len += len;
	r->data_len += (uint32_t)len;
	r->data_count++;
	return 1;
}

/* compat: unbound-1.17: one response-ip-data line, checked as Unbound's
 * respip_enter_rr (in its words). */
static int add_data(struct respip_set* s, size_t* cap, struct builder* b,
	const char* ipstr, const char* rrstr)
{
	struct respip_rule* r = find_rule(b, ipstr, 0);
	char text[65536];
	ldns_rr* rr = NULL;
	ldns_rdf* origin = NULL;
	ldns_buffer* buf = NULL;
	uint16_t type;
	size_t i;
	int ok = 0;
	if(!r || r->action == RESPIP_NONE) {
		log_err("cannot parse response-ip-data %s: response-ip node "
			"for %s not found", rrstr, ipstr);
		return 0;
	}
	if(r->action != RESPIP_REDIRECT) {
		log_err("cannot parse response-ip-data %s: response-ip action "
			"for %s is not redirect", rrstr, ipstr);
		return 0;
	}
	/* the owner is filled in at answer time: the root here */
	if(snprintf(text, sizeof(text), ". %s", rrstr) >= (int)sizeof(text) ||
		!(origin = ldns_dname_new_frm_str(".")) ||
		ldns_rr_new_frm_str(&rr, text, 3600, origin, NULL) !=
		LDNS_STATUS_OK || !rr) {
		log_err("bad response-ip-data: %s", rrstr);
		goto out;
	}
	type = (uint16_t)ldns_rr_get_type(rr);
	if(type == LDNS_RR_TYPE_CNAME && r->data_len) {
		log_err("CNAME response-ip data (%s) can not co-exist with "
			"other response-ip data for netblock %s", rrstr, ipstr);
		goto out;
	}
	if(r->data_is_cname) {
		log_err("response-ip data (%s) can not be added; CNAME "
			"response-ip data already in place for netblock %s",
			rrstr, ipstr);
		goto out;
	}
	if(type != LDNS_RR_TYPE_CNAME && ((!r->is_ip6 &&
		type != LDNS_RR_TYPE_A) || (r->is_ip6 &&
		type != LDNS_RR_TYPE_AAAA))) {
		log_err("response-ip data %s record type does not correspond "
			"to netblock %s address family", rrstr, ipstr);
		goto out;
	}
	/* type, class, TTL, rdlength, rdata: the wire form after the
	 * owner (uncompressed: the rdata names are whole) */
	if(!(buf = ldns_buffer_new(512))) {
		log_err("out of memory");
		goto out;
	}
	ldns_buffer_write_u16(buf, type);
	ldns_buffer_write_u16(buf, (uint16_t)ldns_rr_get_class(rr));
	ldns_buffer_write_u32(buf, ldns_rr_ttl(rr));
	ldns_buffer_write_u16(buf, 0);
	for(i = 0; i < ldns_rr_rd_count(rr); i++)
		if(ldns_rdf2buffer_wire_canonical(buf, ldns_rr_rdf(rr, i)) !=
			LDNS_STATUS_OK) {
			log_err("bad response-ip-data: %s", rrstr);
			goto out;
		}
	if(ldns_buffer_position(buf) - 10 > 65535) {
		log_err("bad response-ip-data: %s", rrstr);
		goto out;
	}
	ldns_buffer_write_u16_at(buf, 8,
		(uint16_t)(ldns_buffer_position(buf) - 10));
	if(!blob_add(s, cap, r, ldns_buffer_begin(buf),
		ldns_buffer_position(buf)))
		goto out;
	r->data_is_cname = type == LDNS_RR_TYPE_CNAME;
	ok = 1;
out:
	ldns_buffer_free(buf);
	ldns_rr_free(rr);
	ldns_rdf_deep_free(origin);
	return ok;
}

static int rule_cmp(const void* a, const void* b)
{
	const struct respip_rule* x = a, *y = b;
	if(x->net != y->net)
		return x->net > y->net ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

static void family_index(struct respip_family* f)
{
	size_t i;
	if(f->count)   /* no rules: no array (qsort wants one) */
		qsort(f->rules, f->count, sizeof(*f->rules), rule_cmp);
	f->num_nets = 0;
	for(i = 0; i < f->count; i++)
		if(i == 0 || f->rules[i].net != f->rules[i - 1].net) {
			f->nets[f->num_nets] = f->rules[i].net;
			f->nets_start[f->num_nets++] = i;
		}
	f->nets_start[f->num_nets] = f->count;
}

struct respip_set* respip_set_create(const struct config_str2list* actions,
	const struct config_str2list* data)
{
	return respip_set_create_tagged(NULL, NULL, actions, data);
}

struct respip_set* respip_set_create_tagged(const struct config_file* cfg,
	const struct config_str2list* tags,
	const struct config_str2list* actions,
	const struct config_str2list* data)
{
	struct respip_set* s = calloc(1, sizeof(*s));
	struct builder b;
	const struct config_str2list* p;
	size_t cap = 0;
	memset(&b, 0, sizeof(b));
	if(!s) {
		log_err("out of memory");
		return NULL;
	}
	/* compat: unbound-1.17: the tags first (they make the netblock's
	 * node), a later line for a netblock replacing the earlier */
	for(p = tags; p; p = p->next) {
		struct respip_rule* r = find_rule(&b, p->str, 1);
		uint64_t bits = 0;
		if(!r)
			goto fail;
		if(!cfg || !tags_parse_list(cfg, p->str2, &bits)) {
			log_err("cannot parse response-ip-tag: %s %s", p->str,
				p->str2);
			goto fail;
		}
		if(r->tag_idx) {
			log_warn("duplicate response-address-tag for '%s', "
				"overridden.", p->str);
			s->tag_sets[r->tag_idx - 1] = bits;
			continue;
		}
		if(s->num_tag_sets == 65535) {
			log_err("too many response-ip-tag lines: %s", p->str);
			goto fail;
		}
		if((s->num_tag_sets & (s->num_tag_sets - 1)) == 0) {
			size_t nc = s->num_tag_sets ? 2 * s->num_tag_sets : 4;
			uint64_t* nt = realloc(s->tag_sets, nc * sizeof(*nt));
			if(!nt) {
				log_err("out of memory");
				goto fail;
			}
			s->tag_sets = nt;
		}
		s->tag_sets[s->num_tag_sets++] = bits;
		r->tag_idx = (uint16_t)s->num_tag_sets;
	}
	/* compat: unbound-1.17: every action first, then the data (a data
	 * line may come before its response-ip line); a later action for a
	 * netblock replaces the earlier */
	for(p = actions; p; p = p->next) {
		struct respip_rule* r = find_rule(&b, p->str, 1);
		enum respip_action a = respip_action_from_str(p->str2);
		if(!r)
			goto fail;
		if(a == RESPIP_NONE) {
			log_err("unknown response-ip action %s", p->str2);
			goto fail;
		}
		if(r->action != RESPIP_NONE)
			verbose(VERB_QUERY, "duplicate response-ip action for "
				"'%s', overridden.", p->str);
		r->action = (uint8_t)a;
	}
	for(p = data; p; p = p->next)
		if(!add_data(s, &cap, &b, p->str, p->str2))
			goto fail;
	s->v4.rules = b.r[0];
	s->v4.count = b.n[0];
	s->v6.rules = b.r[1];
	s->v6.count = b.n[1];
	family_index(&s->v4);
	family_index(&s->v6);
	return s;
fail:
	free(b.r[0]);
	free(b.r[1]);
	free(s->blob);
	free(s->tag_sets);
	free(s);
	return NULL;
}

void respip_set_delete(struct respip_set* set)
{
	if(!set)
		return;
	free(set->v4.rules);
	free(set->v6.rules);
	free(set->blob);
	free(set->tag_sets);
	free(set);
}

void respip_set_index(struct respip_set* set)
{
	family_index(&set->v4);
	family_index(&set->v6);
}

int respip_set_empty(const struct respip_set* set)
{
	return !set || (set->v4.count == 0 && set->v6.count == 0);
}

const struct respip_rule* respip_set_lookup(const struct respip_set* set,
	const uint8_t* addr, size_t addrlen)
{
	const struct respip_family* f = addrlen == 16 ? &set->v6 : &set->v4;
	size_t i;
	for(i = 0; i < f->num_nets; i++) {
		uint8_t key[16];
		unsigned net = f->nets[i], full = net / 8, bits = net % 8;
		size_t lo = f->nets_start[i], hi = f->nets_start[i + 1];
		memset(key, 0, sizeof(key));
		memcpy(key, addr, full);
		if(bits)
			key[full] = (uint8_t)(addr[full] &
				(0xff << (8 - bits)));
		while(lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = memcmp(key, f->rules[mid].addr, 16);
			if(c == 0)
				return &f->rules[mid];
			if(c < 0)
				hi = mid;
			else	lo = mid + 1;
		}
	}
	return NULL;
}

size_t respip_set_mem(const struct respip_set* set)
{
	if(!set)
		return 0;
	return sizeof(*set) + (set->v4.count + set->v6.count) *
		sizeof(struct respip_rule) + set->blob_len +
		set->num_tag_sets * sizeof(*set->tag_sets);
}
