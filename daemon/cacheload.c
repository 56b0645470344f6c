/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/cacheload.c - compat: unbound-1.17: load_cache: read Unbound's cache
 * dump text (see cachedump.h) into the caches. The text is read twice: once to
 * check every line (nothing stored), then, only if all of it is good, to
 * store. So a malformed dump leaves the caches as they were, and a count in
 * the text never sizes an allocation by itself (arrays grow with the lines
 * actually read). */
#include "config.h"
#include "daemon/cachedump.h"
#include "daemon/cachedump_internal.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/dname.h"
#include "util/wire_int.h"
#include <ldns/ldns.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reply has at most this many RRs (each at least 11 bytes). */
#define MAX_REFS (65535 / 11)

struct loader {
	const char* p, *end;     /* input not read yet */
	size_t lineno;
	char* line;              /* the current line, NUL-terminated */
	int apply;               /* 0: check only */
	struct rrset_cache* rc;
	struct msg_cache* mc;
	time_t now;
	size_t rrsets, msgs;
	char* err;
	size_t errlen;
	ldns_buffer* wb;         /* rdata to wire */
	uint8_t* pkt;            /* a reply being made, 65535 bytes */
};

static int fail(struct loader* l, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct loader* l, const char* fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(l->err, l->errlen, "line %lu: %s", (unsigned long)l->lineno,
		msg);
	return 0;
}

/* The next line into l->line (without "\n" or "\r\n"); 0 at the end of
 * the input or for a line that is too long (err set). */
static int next_line(struct loader* l)
{
	const char* nl;
	size_t n;
	if(l->p >= l->end) {
		l->lineno++;
		return fail(l, "unexpected end of input");
	}
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
	l->lineno++;
	if(n > CACHEDUMP_LINE_MAX)
		return fail(l, "line too long");
	memcpy(l->line, l->p, n);
	if(n && l->line[n - 1] == '\r')
		n--;
	l->line[n] = 0;
	l->p = nl ? nl + 1 : l->end;
	if(memchr(l->line, 0, n))
		return fail(l, "NUL byte in line");
	return 1;
}

static int expect(struct loader* l, const char* what)
{
	if(!next_line(l))
		return 0;
	if(strcmp(l->line, what) != 0)
		return fail(l, "expected %s", what);
	return 1;
}

/* A decimal number 0..max. */
static int parse_num(const char* s, unsigned long max, unsigned long* v)
{
	char* end;
	if(!s || *s < '0' || *s > '9')
		return 0;
	*v = strtoul(s, &end, 10);
	return *end == 0 && *v <= max;
}

/* Split line into at most max words; returns how many. */
static int split(char* line, char** w, int max)
{
	int n = 0;
	char* save = NULL, *t;
	for(t = strtok_r(line, " \t", &save); t;
		t = strtok_r(NULL, " \t", &save)) {
		if(n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

/* An RRset being read: RRs and RRSIGs as wire rdata. */
struct set_rd {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	size_t owner_len;
	uint16_t type, rclass;
	size_t n[2];             /* RRs, RRSIGs */
	size_t cap[2];
	const uint8_t** rd[2];
	uint16_t* rl[2];
	uint8_t* data;           /* all rdata, offsets in off[] until done */
	size_t used, datacap;
	size_t* off[2];
};

static void set_free(struct set_rd* s)
{
	int k;
	for(k = 0; k < 2; k++) {
		free(s->rd[k]);
		free(s->rl[k]);
		free(s->off[k]);
	}
	free(s->data);
}

/* Append one rdata (k: 0 RR, 1 RRSIG). 0 when out of memory. */
static int set_add(struct set_rd* s, int k, const uint8_t* d, size_t n)
{
	if(s->n[k] == s->cap[k]) {
		size_t cap = s->cap[k] ? s->cap[k] * 2 : 8;
		uint16_t* rl = realloc(s->rl[k], cap * sizeof(*rl));
		size_t* off;
		if(!rl)
			return 0;
		s->rl[k] = rl;
		if(!(off = realloc(s->off[k], cap * sizeof(*off))))
			return 0;
		s->off[k] = off;
		s->cap[k] = cap;
	}
	/* also for an empty first rdata: its pointer is data + offset */
	if(s->datacap - s->used < n || !s->data) {
		size_t cap = s->datacap ? s->datacap * 2 : 1024;
		uint8_t* d2;
		while(cap - s->used < n)
			cap *= 2;
		if(!(d2 = realloc(s->data, cap)))
			return 0;
		s->data = d2;
		s->datacap = cap;
	}
	memcpy(s->data + s->used, d, n);
	s->off[k][s->n[k]] = s->used;
	s->rl[k][s->n[k]] = (uint16_t)n;
	s->n[k]++;
	s->used += n;
	return 1;
}

/* Raw bytes in the loaded text make a name whose escaped form (\DDD,
 * as dump_cache writes it) may be longer than ldns reads back as an
 * owner (at most LDNS_MAX_DOMAINLEN - 1 characters, trailing dot
 * included): such a name is refused, so that a dump always loads. */
static int owner_text_loads(const ldns_rdf* own)
{
	char* t = ldns_rdf2str(own);
	size_t tl = t ? strlen(t) : 0;
	free(t);
	return tl > 0 && tl < LDNS_MAX_DOMAINLEN;
}

/* Read RR line i of the set (sig: an RRSIG is expected). */
static int load_rr(struct loader* l, struct set_rd* s, int sig, int first,
	int* bad)
{
	ldns_rr* rr = NULL;
	ldns_status st;
	const ldns_rdf* own;
	int ok = 0;
	if(!next_line(l))
		return 0;
	if(strncmp(l->line, "BADRR", 5) == 0) {
		/* compat: unbound-1.17: Unbound wrote what it could not print:
		 * skip */
		*bad = 1;
		return 1;
	}
	st = ldns_rr_new_frm_str(&rr, l->line, 3600, NULL, NULL);
	if(st != LDNS_STATUS_OK)
		return fail(l, "cannot parse rr: %s",
			ldns_get_errorstr_by_id(st));
	own = ldns_rr_owner(rr);
	if(!own || ldns_rdf_get_type(own) != LDNS_RDF_TYPE_DNAME ||
		ldns_rdf_size(own) > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(ldns_rdf_data(own), ldns_rdf_size(own)) !=
		ldns_rdf_size(own)) {
		fail(l, "bad owner name");
		goto out;
	}
	if(!owner_text_loads(own)) {
		fail(l, "owner name too long as text");
		goto out;
	}
	if(sig && ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG) {
		fail(l, "expected an RRSIG");
		goto out;
	}
	if(first) {
		memcpy(s->owner, ldns_rdf_data(own), ldns_rdf_size(own));
		s->owner_len = ldns_rdf_size(own);
		s->type = (uint16_t)ldns_rr_get_type(rr);
		s->rclass = (uint16_t)ldns_rr_get_class(rr);
	} else if(ldns_rdf_size(own) != s->owner_len ||
		query_dname_compare(ldns_rdf_data(own), s->owner) != 0 ||
		(uint16_t)ldns_rr_get_class(rr) != s->rclass ||
		(!sig && (uint16_t)ldns_rr_get_type(rr) != s->type)) {
		fail(l, "rr does not belong to the rrset");
		goto out;
	}
	ldns_buffer_clear(l->wb);
	if(ldns_rr_rdata2buffer_wire(l->wb, rr) != LDNS_STATUS_OK ||
		ldns_buffer_position(l->wb) > 65535) {
		fail(l, "rdata too long");
		goto out;
	}
	if(!set_add(s, sig, ldns_buffer_begin(l->wb),
		ldns_buffer_position(l->wb))) {
		fail(l, "out of memory");
		goto out;
	}
	ok = 1;
out:
	ldns_rr_free(rr);
	return ok;
}

/* l->line is ";rrset ...": read it and its RRs; store when applying. */
static int load_rrset(struct loader* l)
{
	char* w[8], *s = l->line + 6;
	unsigned long ttl, count, sigs, trust, sec;
	struct set_rd set;
	int nsec_apex = 0, bad = 0, ok = 0, n, t;
	size_t i;
	if(strncmp(l->line, ";rrset", 6) != 0 || (*s && *s != ' '))
		return fail(l, "expected ';rrset'");
	n = split(s, w, 6);
	if(n >= 1 && strcmp(w[0], "nsec_apex") == 0) {
		nsec_apex = 1;
		memmove(w, w + 1, sizeof(w[0]) * 5);
		n--;
	}
	if(n != 5 || !parse_num(w[0], 0xffffffffUL, &ttl) ||
		!parse_num(w[1], 65535, &count) ||
		!parse_num(w[2], 65535, &sigs) ||
		!parse_num(w[3], 0xffffffffUL, &trust) ||
		!parse_num(w[4], 5, &sec) || count + sigs > 65535)
		return fail(l, "bad rrset spec");
	if(count + sigs == 0)
		return fail(l, "bad rrset without contents");
	if((t = cachedump_trust_from_unbound((unsigned)trust)) < 0)
		return fail(l, "bad trust value %lu", trust);
	memset(&set, 0, sizeof(set));
	for(i = 0; i < count + sigs; i++)
		if(!load_rr(l, &set, i >= count, i == 0, &bad))
			goto out;
	ok = 1;
	/* an RRset of only RRSIGs is not kept here (nothing answers it) */
	if(l->apply && !bad && set.n[0] > 0 && ttl > 0) {
		struct packed_rrset rr, sg;
		int k;
		for(k = 0; k < 2; k++) {
			set.rd[k] = calloc(set.n[k] + 1, sizeof(*set.rd[k]));
			if(!set.rd[k]) {
				ok = fail(l, "out of memory");
				goto out;
			}
			for(i = 0; i < set.n[k]; i++)
				set.rd[k][i] = set.data + set.off[k][i];
		}
		memset(&rr, 0, sizeof(rr));
		rr.owner = set.owner;
		rr.owner_len = set.owner_len;
		rr.type = set.type;
		rr.rclass = set.rclass;
		rr.ttl = (uint32_t)ttl;
		sg = rr;
		sg.type = TYPE_RRSIG;
		rr.count = set.n[0];
		rr.rdata = set.rd[0];
		rr.rdlen = set.rl[0];
		sg.count = set.n[1];
		sg.rdata = set.rd[1];
		sg.rdlen = set.rl[1];
		if(rrset_cache_store(l->rc, &rr, set.n[1] ? &sg : NULL,
			nsec_apex ? RRSET_FLAG_NSEC_APEX : 0,
			(enum rrset_trust)t, 1, l->now) == RRSET_STORED)
			l->rrsets++;
	}
out:
	set_free(&set);
	return ok;
}

/* "NAME CLASS TYPE" words into wire name, class and type. */
static int parse_question(struct loader* l, char** w, uint8_t* nm,
	size_t* nmlen, uint16_t* rclass, uint16_t* type)
{
	ldns_rdf* rdf = NULL;
	if(ldns_str2rdf_dname(&rdf, w[0]) != LDNS_STATUS_OK || !rdf ||
		ldns_rdf_size(rdf) > LDNS_MAX_DOMAINLEN + 1) {
		ldns_rdf_deep_free(rdf);
		return fail(l, "cannot parse name %s", w[0]);
	}
	*nmlen = ldns_rdf_size(rdf);
	memcpy(nm, ldns_rdf_data(rdf), *nmlen);
	ldns_rdf_deep_free(rdf);
	if(dname_valid(nm, *nmlen) != *nmlen)
		return fail(l, "cannot parse name %s", w[0]);
	*rclass = (uint16_t)ldns_get_rr_class_by_name(w[1]);
	*type = (uint16_t)ldns_get_rr_type_by_name(w[2]);
	if(*rclass == 0)
		return fail(l, "cannot parse class %s", w[1]);
	if(*type == 0)
		return fail(l, "cannot parse type %s", w[2]);
	return 1;
}

/* Make the reply from the RRsets found and store it. */
static void store_msg(struct loader* l, const struct query_info* qi,
	unsigned flags, uint32_t ttl, int security, struct rrset_entry** e,
	const unsigned* nsets)
{
	uint8_t* pkt = l->pkt;
	size_t pos, k = 0, i;
	int sec;
	uint16_t counts[3] = { 0, 0, 0 };
	memset(pkt, 0, LDNS_HEADER_SIZE);
	/* compat: unbound-1.17: Unbound sets AD per reply from the security
	 * status; this cache keeps it in the template (each reply clears it as
	 * asked) */
	if(security == SEC_SECURE)
		flags |= FLAG_AD;
	wire_wr16(pkt + 2, (uint16_t)((flags | FLAG_QR) & ~FLAG_TC));
	wire_wr16(pkt + 4, 1);
	pos = LDNS_HEADER_SIZE;
	memcpy(pkt + pos, qi->qname, qi->qname_len);
	pos += qi->qname_len;
	wire_wr16(pkt + pos, qi->qtype);
	wire_wr16(pkt + pos + 2, qi->qclass);
	pos += 4;
	for(sec = 0; sec < 3; sec++) {
		for(i = 0; i < nsets[sec]; i++, k++) {
			struct packed_rrset rr;
			size_t j;
			rrset_entry_view(e[k], l->now, &rr, NULL);
			if(rr.ttl > ttl)
				rr.ttl = ttl;
			for(j = 0; j < rr.count; j++) {
				if(pos + rr.owner_len + 10 + rr.rdlen[j] >
					65535 || counts[sec] == 65535)
					return;  /* too large: not stored */
				memcpy(pkt + pos, rr.owner, rr.owner_len);
				pos += rr.owner_len;
				wire_wr16(pkt + pos, rr.type);
				wire_wr16(pkt + pos + 2, rr.rclass);
				wire_wr32(pkt + pos + 4, rr.ttl);
				wire_wr16(pkt + pos + 8, rr.rdlen[j]);
				pos += 10;
				memcpy(pkt + pos, rr.rdata[j], rr.rdlen[j]);
				pos += rr.rdlen[j];
				counts[sec]++;
			}
		}
		wire_wr16(pkt + 6 + 2 * sec, counts[sec]);
	}
	/* compat: unbound-1.17: the security status is kept, as Unbound's
	 * load_cache does */
	if(msg_cache_store_sec(l->mc, qi, msg_cache_hash(l->mc, qi), pkt,
		pos, l->now, security))
		l->msgs++;
}

/* l->line is "msg ...": read it and its references; store when
 * applying and every RRset is in the RRset cache. */
static int load_msg(struct loader* l)
{
	char* w[12];
	unsigned long flags, qd, ttl, sec, cnt[3], f;
	unsigned nsets[3];
	struct rrset_entry** e = NULL;
	struct query_info qi;
	size_t total, i;
	int bad = 0, ok = 0, k;
	if(split(l->line, w, 11) != 11 || strcmp(w[0], "msg") != 0)
		return fail(l, "expected msg");
	memset(&qi, 0, sizeof(qi));
	if(!parse_question(l, w + 1, qi.qname, &qi.qname_len, &qi.qclass,
		&qi.qtype))
		return 0;
	if(!parse_num(w[4], 0xffff, &flags) || !parse_num(w[5], 0xffff, &qd)
		|| !parse_num(w[6], 0xffffffffUL, &ttl) ||
		!parse_num(w[7], 5, &sec) ||
		!parse_num(w[8], MAX_REFS, &cnt[0]) ||
		!parse_num(w[9], MAX_REFS, &cnt[1]) ||
		!parse_num(w[10], MAX_REFS, &cnt[2]) ||
		cnt[0] + cnt[1] + cnt[2] > MAX_REFS)
		return fail(l, "cannot parse numbers");
	total = cnt[0] + cnt[1] + cnt[2];
	for(k = 0; k < 3; k++)
		nsets[k] = (unsigned)cnt[k];
	if(l->apply && total && !(e = calloc(total, sizeof(*e))))
		return fail(l, "out of memory");
	for(i = 0; i < total; i++) {
		char* r[5];
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		size_t nmlen;
		uint16_t rclass, type;
		if(!next_line(l))
			goto out;
		if(strncmp(l->line, "BADREF", 6) == 0) {
			bad = 1;
			continue;
		}
		if(split(l->line, r, 4) != 4) {
			fail(l, "expected a reference: name class type flags");
			goto out;
		}
		if(!parse_question(l, r, nm, &nmlen, &rclass, &type))
			goto out;
		if(!parse_num(r[3], 0xffffffffUL, &f)) {
			fail(l, "cannot parse flags: %s", r[3]);
			goto out;
		}
		if(!l->apply || bad)
			continue;
		/* compat: unbound-1.17: Unbound's other key flags (a negative
		 * answer's SOA, parent side) are not kept apart in our RRset
		 * cache */
		e[i] = rrset_cache_lookup(l->rc, nm, type, rclass,
			(uint32_t)f & RRSET_FLAG_NSEC_APEX, l->now);
		if(!e[i])
			bad = 1;  /* expired or not loaded: skip the message */
	}
	ok = 1;
	if(l->apply && !bad && ttl > 0)
		store_msg(l, &qi, (unsigned)flags, (uint32_t)ttl, (int)sec, e,
			nsets);
out:
	for(i = 0; e && i < total; i++)
		if(e[i])
			rrset_cache_release(l->rc, e[i]);
	free(e);
	return ok;
}

static int load_all(struct loader* l)
{
	if(!expect(l, "START_RRSET_CACHE"))
		return 0;
	for(;;) {
		if(!next_line(l))
			return 0;
		if(strcmp(l->line, "END_RRSET_CACHE") == 0)
			break;
		if(!load_rrset(l))
			return 0;
	}
	if(!expect(l, "START_MSG_CACHE"))
		return 0;
	for(;;) {
		if(!next_line(l))
			return 0;
		if(strcmp(l->line, "END_MSG_CACHE") == 0)
			break;
		if(!load_msg(l))
			return 0;
	}
	return expect(l, "EOF");
}

int cache_load(struct rrset_cache* rc, struct msg_cache* mc,
	const char* text, size_t len, time_t now, size_t* rrsets,
	size_t* msgs, char* err, size_t errlen)
{
	struct loader l;
	int pass, ok = 1;
	memset(&l, 0, sizeof(l));
	l.rc = rc;
	l.mc = mc;
	l.now = now;
	l.err = err;
	l.errlen = errlen;
	l.line = malloc(CACHEDUMP_LINE_MAX + 1);
	l.wb = ldns_buffer_new(65536);
	l.pkt = malloc(65535);
	if(!l.line || !l.wb || !l.pkt) {
		snprintf(err, errlen, "out of memory");
		ok = 0;
	}
	for(pass = 0; ok && pass < 2; pass++) {
		l.p = text;
		l.end = text + len;
		l.lineno = 0;
		l.apply = pass;
		ok = load_all(&l);
	}
	free(l.line);
	free(l.pkt);
	if(l.wb)
		ldns_buffer_free(l.wb);
	*rrsets = l.rrsets;
	*msgs = l.msgs;
	return ok;
}
