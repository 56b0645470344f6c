/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz.c - the rpz: clauses as one policy, and the policy applied
 * to a reply on the wire (see the header). */
#include "config.h"
#include "respip/rpz.h"
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "util/wire_int.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_CNAME 5
#define T_OPT 41
#define T_ANY 255
#define F_QR 0x80
#define F_AA 0x04
#define F_TC 0x02
#define F_RD 0x01
#define F_RA 0x80
#define F_CD 0x10

/* compat: unbound-1.17: rpz-action-override's words. */
static int override_from_str(const char* s, enum rpz_action* a)
{
	static const struct { const char* s; enum rpz_action a; } t[] = {
		{ "nxdomain", RPZ_NXDOMAIN }, { "nodata", RPZ_NODATA },
		{ "passthru", RPZ_PASSTHRU }, { "drop", RPZ_DROP },
		{ "disabled", RPZ_DISABLED }, { "cname", RPZ_CNAME_OVERRIDE }
	};
	size_t i;
	for(i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if(strcmp(t[i].s, s) == 0) {
			*a = t[i].a;
			return 1;
		}
	return 0;
}

static void zone_clear(struct rpz_policy_zone* z)
{
	free(z->name);
	free(z->log_name);
}

void rpz_policy_delete(struct rpz_policy* p)
{
	size_t i;
	if(!p)
		return;
	for(i = 0; i < p->num; i++)
		zone_clear(&p->zones[i]);
	free(p->zones);
	free(p);
}

static int zone_setup(struct rpz_policy_zone* z, const struct config_auth* c,
	const struct config_file* cfg, rpz_zone_of_fn zone_of, void* arg)
{
	z->override = RPZ_NO_OVERRIDE;
	if(!(z->name = strdup(c->name)) || (c->rpz_log_name &&
		!(z->log_name = strdup(c->rpz_log_name)))) {
		log_err("out of memory");
		return 0;
	}
	if(c->rpz_action_override && !override_from_str(
		c->rpz_action_override, &z->override)) {
		/* compat: unbound-1.17: its words */
		log_err("rpz: invalid action override %s",
			c->rpz_action_override);
		return 0;
	}
	if(c->rpz_cname_override) {
		size_t len = dname_from_str(c->rpz_cname_override, z->cname);
		if(!len) {
			log_err("rpz: cannot parse cname override: %s",
				c->rpz_cname_override);
			return 0;
		}
		z->cname_len = len;
	}
	if(z->override == RPZ_CNAME_OVERRIDE && !z->cname_len) {
		log_err("rpz: cname override action without a cname "
			"override for %s", c->name);
		return 0;
	}
	if(c->rpz_tags && c->rpz_tags[0] && !tags_parse_list(cfg,
		c->rpz_tags, &z->tags)) {
		log_err("rpz: cannot parse tags for %s", c->name);
		return 0;
	}
	z->log = c->rpz_log;
	z->signal_nxdomain_ra = c->rpz_signal_nxdomain_ra;
	return (z->zone = zone_of(arg, c)) != NULL;
}

struct rpz_policy* rpz_policy_create_with(const struct config_file* cfg,
	int* none, rpz_zone_of_fn zone_of, void* arg)
{
	const struct config_auth* c;
	struct rpz_policy* p;
	size_t n = 0;
	*none = 0;
	for(c = cfg->auths; c; c = c->next)
		if(c->isrpz && c->name)
			n++;
	if(n == 0) {
		*none = 1;
		return NULL;
	}
	if(!(p = calloc(1, sizeof(*p))) ||
		!(p->zones = calloc(n, sizeof(*p->zones)))) {
		free(p);
		log_err("out of memory");
		return NULL;
	}
	for(c = cfg->auths; c; c = c->next) {
		if(!c->isrpz || !c->name)
			continue;
		if(!zone_setup(&p->zones[p->num++], c, cfg, zone_of, arg)) {
			rpz_policy_delete(p);
			return NULL;
		}
	}
	return p;
}

/* The names switched off by rpz_disable, and the generation. */
static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t (*switch_off)[LDNS_MAX_DOMAINLEN + 1];
static size_t switch_num;
static unsigned switch_gen;

int rpz_switch_set(const uint8_t* name, int enable)
{
	size_t i;
	int ok = 1;
	pthread_mutex_lock(&switch_lock);
	for(i = 0; i < switch_num; i++)
		if(query_dname_compare(switch_off[i], name) == 0)
			break;
	if(enable && i < switch_num)
		memmove(switch_off[i], switch_off[--switch_num],
			sizeof(switch_off[i]));
	else if(!enable && i == switch_num) {
		void* n = realloc(switch_off, (switch_num + 1) *
			sizeof(*switch_off));
		if(n) {
			switch_off = n;
			memcpy(switch_off[switch_num++], name,
				dname_valid(name, LDNS_MAX_DOMAINLEN + 1));
		} else	ok = 0;
	}
	__atomic_add_fetch(&switch_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&switch_lock);
	return ok;
}

unsigned rpz_switch_generation(void)
{
	return __atomic_load_n(&switch_gen, __ATOMIC_ACQUIRE);
}

void rpz_switch_apply(struct rpz_policy* p)
{
	size_t i, k;
	pthread_mutex_lock(&switch_lock);
	for(i = 0; i < p->num; i++) {
		uint8_t have[LDNS_MAX_DOMAINLEN + 1];
		p->zones[i].disabled = 0;
		if(!dname_from_str(p->zones[i].name, have))
			continue;
		for(k = 0; k < switch_num; k++)
			if(query_dname_compare(have, switch_off[k]) == 0)
				p->zones[i].disabled = 1;
	}
	pthread_mutex_unlock(&switch_lock);
}

size_t rpz_policy_mem(const struct rpz_policy* p)
{
	size_t i, m;
	if(!p)
		return 0;
	m = sizeof(*p) + p->num * sizeof(*p->zones);
	for(i = 0; i < p->num; i++)
		m += rpz_zone_mem(p->zones[i].zone);
	return m;
}

/* Step over the name at *pos (not following pointers). */
static int skip_name(const uint8_t* pkt, size_t len, size_t* pos)
{
	size_t p = *pos;
	while(p < len) {
		uint8_t l = pkt[p];
		if((l & 0xc0) == 0xc0) {
			*pos = p + 2;
			return *pos <= len;
		}
		if(l & 0xc0)
			return 0;
		p += (size_t)l + 1;
		if(l == 0) {
			*pos = p;
			return 1;
		}
	}
	return 0;
}

/* The OPT record of pkt (from the answer section at pos): where and how
 * long; *opt_len 0 when none. */
static void find_opt(const uint8_t* pkt, size_t len, size_t pos,
	size_t* opt_at, size_t* opt_len)
{
	size_t i, n = (size_t)wire_rd16(pkt + 6) + wire_rd16(pkt + 8) + wire_rd16(pkt + 10);
	*opt_len = 0;
	for(i = 0; i < n; i++) {
		size_t at = pos;
		if(!skip_name(pkt, len, &pos) || pos + 10 > len ||
			pos + 10 + wire_rd16(pkt + pos + 8) > len)
			return;
		if(wire_rd16(pkt + pos) == T_OPT) {
			*opt_at = at;
			*opt_len = pos + 10 + wire_rd16(pkt + pos + 8) - at;
		}
		pos += 10 + wire_rd16(pkt + pos + 8);
	}
}

/* One record (type, class, TTL, rdlength, rdata) owned by the question's
 * name (a pointer to it) at out+*o; 0 when it does not fit. */
static int put_rr(uint8_t* out, size_t cap, size_t* o, const uint8_t* rec)
{
	size_t rl = 10 + (size_t)wire_rd16(rec + 8);
	if(*o + 2 + rl > cap)
		return 0;
	out[*o] = 0xc0;
	out[*o + 1] = 12;
	memcpy(out + *o + 2, rec, rl);
	*o += 2 + rl;
	return 1;
}

/* compat: unbound-1.17: the answer a QNAME or client-ip trigger gives,
 * as its local zone answers: AA, no AD, the RD and CD of the query; for
 * local data the records of the question's type (a CNAME for any type);
 * NODATA when it has none of them. */
static enum rpz_outcome synth_reply(const struct rpz_policy_zone* z,
	enum rpz_action a, const uint8_t* data, size_t count,
	const uint8_t* pkt, size_t len, size_t qend, uint16_t qtype,
	uint8_t* out, size_t cap, size_t* outlen, int* cname_put)
{
	size_t o = qend, opt_at = 0, opt_len = 0, i, d = 0, an = 0;
	uint8_t rcode = 0, tc = 0;
	uint8_t cname_rec[10 + LDNS_MAX_DOMAINLEN + 1];
	find_opt(pkt, len, qend, &opt_at, &opt_len);
	if(qend > cap)
		return RPZ_OUT_PASS;
	memcpy(out, pkt, qend);
	switch(a) {
	case RPZ_NXDOMAIN:
		rcode = 3;
		break;
	case RPZ_TCP_ONLY:
		tc = F_TC;
		break;
	case RPZ_CNAME_OVERRIDE:
		memset(cname_rec, 0, 10);
		cname_rec[1] = T_CNAME;
		cname_rec[3] = 1;
		/* compat: unbound-1.17: TTL 0? its override record has
		 * the zone's default; 3600 here */
		cname_rec[6] = 0x0e;
		cname_rec[7] = 0x10;
		wire_wr16(cname_rec + 8, (uint16_t)z->cname_len);
		memcpy(cname_rec + 10, z->cname, z->cname_len);
		if(!put_rr(out, cap, &o, cname_rec))
			return RPZ_OUT_PASS;
		an = 1;
		*cname_put = qtype != T_CNAME;
		break;
	case RPZ_LOCAL_DATA: {
		const uint8_t* cname = NULL;
		for(i = 0, d = 0; i < count; i++) {
			const uint8_t* rec = data + d;
			uint16_t t = wire_rd16(rec);
			d += 10 + (size_t)wire_rd16(rec + 8);
			if(t == T_CNAME)
				cname = rec;
		}
		if(cname && qtype != T_CNAME) {
			if(!put_rr(out, cap, &o, cname))
				return RPZ_OUT_PASS;
			an = 1;
			*cname_put = 1;
			break;
		}
		for(i = 0, d = 0; i < count; i++) {
			const uint8_t* rec = data + d;
			uint16_t t = wire_rd16(rec);
			d += 10 + (size_t)wire_rd16(rec + 8);
			if(t != qtype && qtype != T_ANY)
				continue;
			if(!put_rr(out, cap, &o, rec))
				return RPZ_OUT_PASS;
			an++;
		}
		break;
	}
	default:
		break;
	}
	if(opt_len) {
		if(o + opt_len > cap)
			return RPZ_OUT_PASS;
		memcpy(out + o, pkt + opt_at, opt_len);
		o += opt_len;
	}
	out[2] = (uint8_t)(F_QR | (pkt[2] & 0x78) | F_AA | tc |
		(pkt[2] & F_RD));
	out[3] = (uint8_t)(F_RA | (pkt[3] & F_CD) | rcode);
	if(rcode == 3 && z->signal_nxdomain_ra)
		out[3] &= (uint8_t)~F_RA;
	wire_wr16(out + 6, (uint16_t)an);
	wire_wr16(out + 8, 0);
	wire_wr16(out + 10, opt_len ? 1 : 0);
	*outlen = o;
	return RPZ_OUT_CHANGED;
}

/* synth_reply; a CNAME put in for another type is to be chased: the
 * outcome then is chase (RPZ_OUT_ALIAS or RPZ_OUT_CHASE, as the trigger
 * wants it) instead of RPZ_OUT_CHANGED. */
static enum rpz_outcome synth(const struct rpz_policy_zone* z,
	enum rpz_action a, const uint8_t* data, size_t count,
	const uint8_t* pkt, size_t len, size_t qend, uint16_t qtype,
	uint8_t* out, size_t cap, size_t* outlen, enum rpz_outcome chase)
{
	int cname_put = 0;
	enum rpz_outcome o = synth_reply(z, a, data, count, pkt, len, qend,
		qtype, out, cap, outlen, &cname_put);
	return o == RPZ_OUT_CHANGED && cname_put ? chase : o;
}

static const char* type_str(uint16_t t, char* buf, size_t len)
{
	switch(t) {
	case 1: return "A";
	case 2: return "NS";
	case 5: return "CNAME";
	case 6: return "SOA";
	case 12: return "PTR";
	case 15: return "MX";
	case 16: return "TXT";
	case 28: return "AAAA";
	case 33: return "SRV";
	case 65: return "HTTPS";
	case 255: return "ANY";
	default:
		snprintf(buf, len, "TYPE%d", (int)t);
		return buf;
	}
}

/* compat: unbound-1.17: rpz-log's line, as its log_rpz_apply: "rpz:
 * applied [name] TRIGGER ACTION client@port qname type class". */
static void log_apply(const struct rpz_policy_zone* z, const char* trigger,
	const char* what, enum rpz_action a, const struct rpz_client* cl,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass)
{
	char src[64], name[LDNS_MAX_DOMAINLEN * 4 + 1], tb[16], cb[16];
	addr_to_str(cl->addr, cl->addrlen, src, sizeof(src));
	dname_to_str(qname, name, sizeof(name));
	if(qclass != 1)
		snprintf(cb, sizeof(cb), "CLASS%d", (int)qclass);
	log_info("rpz: applied %s%s%s%s%s%s %s %s@%u %s %s %s",
		z->log_name ? "[" : "", z->log_name ? z->log_name : "",
		z->log_name ? "] " : "", trigger, trigger[0] ? " " : "", what,
		rpz_action_name(a), src, (unsigned)addr_port(cl->addr), name,
		type_str(qtype, tb, sizeof(tb)), qclass == 1 ? "IN" : cb);
}

/* The trigger text: a name under the zone ("nx.bad.rpz.example.") or a
 * netblock ("192.0.2.0/24"). */
static void rule_str(const struct respip_rule* r, char* buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char a[64];
	memset(&ss, 0, sizeof(ss));
	if(r->is_ip6) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, r->addr, 16);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, r->addr, 4);
		sl = sizeof(*s4);
	}
	addr_to_str(&ss, sl, a, sizeof(a));
	snprintf(buf, len, "%s/%d", a, (int)r->net);
}

/* compat: unbound-1.17: a QNAME trigger is named as its local zone:
 * the owner without the zone's origin ("nx.bad.", "*.wild.bad."). */
static void name_str(const struct rpz_policy_zone* z,
	const struct rpz_name* n, char* buf, size_t len)
{
	dname_to_str(z->zone->blob + n->name_off, buf, len);
}

/* The question of the reply (or query) pkt: qname, qtype, qclass, and
 * where the question ends. 0: not one question. */
static int read_question(const uint8_t* pkt, size_t len, uint8_t* qname,
	size_t* qlen, uint16_t* qtype, uint16_t* qclass, size_t* qend)
{
	size_t pos = LDNS_HEADER_SIZE;
	if(len < LDNS_HEADER_SIZE || wire_rd16(pkt + 4) != 1 ||
		!(*qlen = dname_read_wire(pkt, len, &pos, qname)) ||
		pos + 4 > len)
		return 0;
	*qtype = wire_rd16(pkt + pos);
	*qclass = wire_rd16(pkt + pos + 2);
	*qend = pos + 4;
	return 1;
}

/* A client-ip or QNAME trigger that matched. */
struct rpz_match {
	const struct respip_rule* r;  /* client-ip, or NULL */
	const struct rpz_name* n;     /* QNAME, or NULL */
	enum rpz_action a;            /* override applied */
	const uint8_t* data;
	size_t count;
};

/* The first zone from *i on (enabled) whose client-ip, else QNAME,
 * trigger matches; 0 when none. */
static int next_trigger(const struct rpz_policy* p, size_t* i,
	const struct rpz_client* cl, const uint8_t* caddr, int nbytes,
	const uint8_t* qname, size_t qlen, struct rpz_match* m)
{
	for(; *i < p->num; (*i)++) {
		const struct rpz_policy_zone* z = &p->zones[*i];
		m->r = NULL;
		m->n = NULL;
		if(z->disabled || !rpz_zone_applies(z, cl->tags))
			continue;
		if(caddr)
			m->r = respip_set_lookup(z->zone->client, caddr,
				(size_t)nbytes);
		if(m->r) {
			m->a = rpz_action_from_respip(m->r->action);
			m->data = z->zone->blob + m->r->data_off;
			m->count = m->r->data_count;
		} else if((m->n = rpz_zone_lookup_qname(z->zone, qname,
			qlen))) {
			m->a = (enum rpz_action)m->n->action;
			m->data = z->zone->blob + m->n->data_off;
			m->count = m->n->data_count;
		} else
			continue;
		if(z->override != RPZ_NO_OVERRIDE)
			m->a = z->override;
		return 1;
	}
	return 0;
}

int rpz_policy_answers_query(const struct rpz_policy* p,
	const struct rpz_client* cl, const uint8_t* pkt, size_t len)
{
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];
	size_t qlen, qend, i = 0;
	uint16_t qtype, qclass;
	int nbytes;
	const uint8_t* caddr;
	struct rpz_match m;
	if(!read_question(pkt, len, qname, &qlen, &qtype, &qclass, &qend))
		return 0;
	caddr = addr_bytes(cl->addr, cl->addrlen, &nbytes);
	for(; next_trigger(p, &i, cl, caddr, nbytes, qname, qlen, &m); i++) {
		switch(m.a) {
		case RPZ_DISABLED:
			continue;   /* the next zone decides */
		case RPZ_NXDOMAIN:
		case RPZ_NODATA:
		case RPZ_DROP:
			return 1;
		case RPZ_TCP_ONLY:
			return !cl->is_tcp;
		case RPZ_LOCAL_DATA:
		case RPZ_CNAME_OVERRIDE:
			/* compat: unbound-1.17: answered before the
			 * name is resolved; a QNAME trigger's CNAME as
			 * a local alias: only its target is resolved
			 * (the worker chases it: MODULE_REPLY_ALIAS) */
			return 1;
		default:
			return 0;   /* passthru: resolved */
		}
	}
	return 0;
}

enum rpz_outcome rpz_policy_apply(const struct rpz_policy* p,
	const struct rpz_client* cl, const uint8_t* pkt, size_t len,
	uint8_t* out, size_t cap, size_t* outlen, enum rpz_action* applied)
{
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];
	size_t pos, qlen, i;
	uint16_t qtype, qclass;
	int nbytes;
	const uint8_t* caddr;
	struct rpz_match m;
	*applied = RPZ_ACTION_COUNT;
	if(!read_question(pkt, len, qname, &qlen, &qtype, &qclass, &pos))
		return RPZ_OUT_NONE;
	caddr = addr_bytes(cl->addr, cl->addrlen, &nbytes);
	/* a chased target's reply: only its addresses (below) */
	for(i = 0; !cl->chased && next_trigger(p, &i, cl, caddr, nbytes,
		qname, qlen, &m); i++) {
		const struct rpz_policy_zone* z = &p->zones[i];
		enum rpz_action a = m.a;
		char what[LDNS_MAX_DOMAINLEN * 4 + 80];
		if(z->log && !cl->quiet) {
			if(m.r)
				rule_str(m.r, what, sizeof(what));
			else	name_str(z, m.n, what, sizeof(what));
			log_apply(z, m.r ? "clientip" : "", what, a, cl, qname,
				qtype, qclass);
		}
		*applied = a;
		switch(a) {
		case RPZ_DISABLED:
			/* compat: unbound-1.17: logged and counted only */
			continue;
		case RPZ_PASSTHRU:
			return RPZ_OUT_PASS;
		case RPZ_DROP:
			return RPZ_OUT_DROPPED;
		case RPZ_TCP_ONLY:
			if(cl->is_tcp)
				return RPZ_OUT_PASS;
			/* fallthrough */
		default:
			/* compat: unbound-1.17: a QNAME trigger's CNAME
			 * is a local alias (its target resolved); a
			 * client-ip trigger's is answered as it is */
			return synth(z, a, m.data, m.count, pkt, len, pos,
				qtype, out, cap, outlen, m.r || cl->chased ?
				RPZ_OUT_CHANGED : RPZ_OUT_ALIAS);
		}
	}
	/* the answer's addresses */
	for(i = 0; i < p->num; i++) {
		const struct rpz_policy_zone* z = &p->zones[i];
		const struct respip_rule* r = NULL;
		enum respip_outcome o;
		enum rpz_action a;
		if(z->disabled || respip_set_empty(z->zone->ip) ||
			!rpz_zone_applies(z, cl->tags))
			continue;
		o = respip_rewrite(z->zone->ip, pkt, len, out, cap, outlen,
			&r);
		if(!r)
			continue;
		a = rpz_action_from_respip(r->action);
		if(z->override != RPZ_NO_OVERRIDE)
			a = z->override;
		if(z->log && !cl->quiet) {
			char what[64];
			rule_str(r, what, sizeof(what));
			log_apply(z, "", what, a, cl, qname, qtype, qclass);
		}
		*applied = a;
		switch(a) {
		case RPZ_DISABLED:
			continue;
		case RPZ_PASSTHRU:
			return RPZ_OUT_PASS;
		case RPZ_DROP:
			return RPZ_OUT_DROPPED;
		case RPZ_TCP_ONLY:
			if(cl->is_tcp)
				return RPZ_OUT_PASS;
			return synth(z, a, NULL, 0, pkt, len, pos, qtype, out,
				cap, outlen, RPZ_OUT_CHANGED);
		case RPZ_NXDOMAIN:
		case RPZ_NODATA:
		case RPZ_CNAME_OVERRIDE:
			if(z->override != RPZ_NO_OVERRIDE)
				return synth(z, a, NULL, 0, pkt, len, pos,
					qtype, out, cap, outlen,
					RPZ_OUT_CHASE);
			/* fallthrough */
		default:
			break;
		}
		switch(o) {
		case RESPIP_CHANGED:
			return RPZ_OUT_CHANGED;
		case RESPIP_CHASE:
			return RPZ_OUT_CHASE;
		case RESPIP_DROPPED:
			return RPZ_OUT_DROPPED;
		case RESPIP_PASS:
		default:
			return RPZ_OUT_PASS;
		}
	}
	return RPZ_OUT_NONE;
}
