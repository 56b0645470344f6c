/* SPDX-License-Identifier: BSD-3-Clause */
/* services/zonemd.c - compat: unbound-1.17: ZONEMD (RFC 8976) checks as
 * Unbound's auth_zone_verify_zonemd makes them: DNSSEC first (with a
 * trust anchor at the apex), then absence, then the digests. The digest
 * is computed here with OpenSSL over the RRs in RFC 4034 canonical form
 * and order, duplicates once, the apex ZONEMD RRset and its RRSIGs left
 * out (RFC 8976 3.3). */
#include "config.h"
#include "services/zonemd.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "validator/val_nsec3_hash.h"
#include "validator/val_sig.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TYPE_ZONEMD_ 63
#define TYPE_NSEC3PARAM_ 51

/* One RR of the digest: its content entry and canonical rdata. */
struct canon_rr {
	const struct xfr_rr* rr;
	uint8_t* rd;    /* canonical rdata (malloced) */
	uint16_t rdlen;
};

/* Lowercase the wire name at rd[*pos]; advances *pos. 0: malformed. */
static int lower_name(uint8_t* rd, size_t len, size_t* pos)
{
	while(*pos < len) {
		uint8_t l = rd[*pos];
		size_t i;
		if(l == 0) {
			(*pos)++;
			return 1;
		}
		if(l > 63 || *pos + 1 + l > len)
			return 0;
		for(i = *pos + 1; i <= *pos + l; i++)
			if(rd[i] >= 'A' && rd[i] <= 'Z')
				rd[i] += 'a' - 'A';
		*pos += 1 + l;
	}
	return 0;
}

/* Skip one character-string at rd[*pos]. */
static int skip_str(const uint8_t* rd, size_t len, size_t* pos)
{
	if(*pos >= len || *pos + 1 + rd[*pos] > len)
		return 0;
	*pos += 1 + rd[*pos];
	return 1;
}

/* RFC 4034 6.2 item 3 with RFC 6840 5.1 (NSEC's next name keeps its
 * case): the names in the rdata of these types are lowercased. A
 * malformed rdata is hashed as it is. */
static void canon_rdata(uint16_t type, uint8_t* rd, size_t len)
{
	size_t pos = 0;
	switch(type) {
	case 2: case 3: case 4: case 5: case 7: case 8: case 9: case 12:
	case 30: case 39:  /* NS MD MF CNAME MB MG MR PTR NXT DNAME */
		(void)lower_name(rd, len, &pos);
		break;
	case 6: case 14: case 17:  /* SOA MINFO RP */
		if(lower_name(rd, len, &pos))
			(void)lower_name(rd, len, &pos);
		break;
	case 15: case 18: case 21: case 36:  /* MX AFSDB RT KX */
		pos = 2;
		(void)lower_name(rd, len, &pos);
		break;
	case 26:  /* PX */
		pos = 2;
		if(lower_name(rd, len, &pos))
			(void)lower_name(rd, len, &pos);
		break;
	case 33:  /* SRV */
		pos = 6;
		(void)lower_name(rd, len, &pos);
		break;
	case 35:  /* NAPTR */
		pos = 4;
		if(skip_str(rd, len, &pos) && skip_str(rd, len, &pos) &&
			skip_str(rd, len, &pos))
			(void)lower_name(rd, len, &pos);
		break;
	case 24: case 46:  /* SIG RRSIG: the signer */
		pos = 18;
		(void)lower_name(rd, len, &pos);
		break;
	case 38:  /* A6 */
		if(len > 0 && rd[0] > 0 && rd[0] <= 128) {
			pos = 1 + (size_t)(128 - rd[0]) / 8;
			(void)lower_name(rd, len, &pos);
		}
		break;
	default:
		break;
	}
}

static int canon_cmp(const void* a, const void* b)
{
	const struct canon_rr* x = a, *y = b;
	size_t n;
	int c = dname_canonical_compare(x->rr->owner, y->rr->owner);
	if(c != 0)
		return c;
	if(x->rr->type != y->rr->type)
		return x->rr->type < y->rr->type ? -1 : 1;
	n = x->rdlen < y->rdlen ? x->rdlen : y->rdlen;
	if((c = memcmp(x->rd, y->rd, n)) != 0)
		return c;
	return (int)x->rdlen - (int)y->rdlen;
}

/* Is r left out of the digest (RFC 8976 3.3.1): the apex ZONEMD and the
 * RRSIGs that cover it, anything outside the zone or of another class
 * than the SOA's. */
static int left_out(const struct xfr_rr* r, const uint8_t* zone,
	uint16_t dclass)
{
	int apex = query_dname_compare(r->owner, zone) == 0;
	if(r->rclass != dclass || !dname_subdomain_c(r->owner, zone))
		return 1;
	if(apex && r->type == TYPE_ZONEMD_)
		return 1;
	if(apex && r->type == TYPE_RRSIG && r->rdlen >= 2 &&
		((r->rdata[0] << 8) | r->rdata[1]) == TYPE_ZONEMD_)
		return 1;
	return 0;
}

static uint16_t zone_class(const struct xfr_rrs* l, const uint8_t* zone)
{
	size_t i;
	for(i = 0; i < l->n; i++)
		if(l->v[i].type == TYPE_SOA && query_dname_compare(
			l->v[i].owner, zone) == 0)
			return l->v[i].rclass;
	return CLASS_IN;
}

size_t zonemd_digest(const struct xfr_rrs* content, const uint8_t* zone,
	int hashalgo, uint8_t* out)
{
	const EVP_MD* md = hashalgo == ZONEMD_HASH_SHA384 ? EVP_sha384() :
		hashalgo == ZONEMD_HASH_SHA512 ? EVP_sha512() : NULL;
	uint16_t dclass = zone_class(content, zone);
	struct canon_rr* v;
	EVP_MD_CTX* ctx = NULL;
	size_t i, n = 0, ret = 0;
	unsigned int len = 0;
	if(!md)
		return 0;
	if(!(v = calloc(content->n ? content->n : 1, sizeof(*v))))
		return 0;
	for(i = 0; i < content->n; i++) {
		const struct xfr_rr* r = &content->v[i];
		if(left_out(r, zone, dclass))
			continue;
		v[n].rr = r;
		v[n].rdlen = r->rdlen;
		if(!(v[n].rd = malloc(r->rdlen ? r->rdlen : 1)))
			goto done;
		memcpy(v[n].rd, r->rdata, r->rdlen);
		canon_rdata(r->type, v[n].rd, r->rdlen);
		n++;
	}
	qsort(v, n, sizeof(*v), canon_cmp);
	if(!(ctx = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(ctx, md, NULL))
		goto done;
	for(i = 0; i < n; i++) {
		const struct xfr_rr* r = v[i].rr;
		uint8_t hdr[10];
		if(i > 0 && canon_cmp(&v[i-1], &v[i]) == 0)
			continue;   /* a duplicate counts once */
		hdr[0] = (uint8_t)(r->type >> 8);
		hdr[1] = (uint8_t)r->type;
		hdr[2] = (uint8_t)(r->rclass >> 8);
		hdr[3] = (uint8_t)r->rclass;
		hdr[4] = (uint8_t)(r->ttl >> 24);
		hdr[5] = (uint8_t)(r->ttl >> 16);
		hdr[6] = (uint8_t)(r->ttl >> 8);
		hdr[7] = (uint8_t)r->ttl;
		hdr[8] = (uint8_t)(v[i].rdlen >> 8);
		hdr[9] = (uint8_t)v[i].rdlen;
		/* the owner is kept lowercased (services/xfr_rr.h) */
		if(!EVP_DigestUpdate(ctx, r->owner, r->owner_len) ||
			!EVP_DigestUpdate(ctx, hdr, sizeof(hdr)) ||
			!EVP_DigestUpdate(ctx, v[i].rd, v[i].rdlen))
			goto done;
	}
	if(EVP_DigestFinal_ex(ctx, out, &len))
		ret = len;
done:
	EVP_MD_CTX_free(ctx);
	for(i = 0; i < n; i++)
		free(v[i].rd);
	free(v);
	return ret;
}

/* ---- the apex RRsets as ldns lists, for the validator's functions ---- */

static ldns_rr* to_ldns(const struct xfr_rr* r)
{
	ldns_rr* rr = ldns_rr_new();
	ldns_rdf* owner;
	uint8_t* buf;
	size_t pos = 0;
	if(!rr)
		return NULL;
	if(!(owner = ldns_dname_new_frm_data((uint16_t)r->owner_len,
		r->owner))) {
		ldns_rr_free(rr);
		return NULL;
	}
	ldns_rr_set_owner(rr, owner);
	ldns_rr_set_type(rr, (ldns_rr_type)r->type);
	ldns_rr_set_class(rr, (ldns_rr_class)r->rclass);
	ldns_rr_set_ttl(rr, r->ttl);
	if(!(buf = malloc((size_t)r->rdlen + 2))) {
		ldns_rr_free(rr);
		return NULL;
	}
	buf[0] = (uint8_t)(r->rdlen >> 8);
	buf[1] = (uint8_t)r->rdlen;
	memcpy(buf + 2, r->rdata, r->rdlen);
	if(ldns_wire2rdf(rr, buf, (size_t)r->rdlen + 2, &pos) !=
		LDNS_STATUS_OK) {
		free(buf);
		ldns_rr_free(rr);
		return NULL;
	}
	free(buf);
	return rr;
}

/* The RRs at owner of type t (sigs: the RRSIGs there that cover t)
 * into a new list; NULL when there are none or on an error. */
static ldns_rr_list* rrset_of(const struct xfr_rrs* l, const uint8_t* owner,
	uint16_t t, int sigs)
{
	ldns_rr_list* out = NULL;
	size_t i;
	for(i = 0; i < l->n; i++) {
		const struct xfr_rr* r = &l->v[i];
		ldns_rr* rr;
		if(query_dname_compare(r->owner, owner) != 0)
			continue;
		if(sigs ? (r->type != TYPE_RRSIG || r->rdlen < 2 ||
			((r->rdata[0] << 8) | r->rdata[1]) != t) :
			r->type != t)
			continue;
		if(!out && !(out = ldns_rr_list_new()))
			return NULL;
		if(!(rr = to_ldns(r)) || !ldns_rr_list_push_rr(out, rr)) {
			ldns_rr_free(rr);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
	}
	return out;
}

struct dnssec_ctx {
	struct val_sig_ctx* sig;
	struct val_sig_settings set;
	struct val_keyset* keys;
	time_t now;
};

/* Verify the RRset of type t at owner with the zone's trusted keys. */
static int verify_rrset(struct dnssec_ctx* d, const struct xfr_rrs* l,
	const uint8_t* owner, uint16_t t)
{
	ldns_rr_list* set = rrset_of(l, owner, t, 0);
	ldns_rr_list* sigs = rrset_of(l, owner, t, 1);
	struct val_verify_result res;
	enum sec_status s = SEC_BOGUS;
	memset(&res, 0, sizeof(res));
	if(set && sigs)
		s = val_verify_rrset(d->sig, set, sigs, d->keys, &d->set,
			d->now, NULL, &res);
	ldns_rr_list_deep_free(set);
	ldns_rr_list_deep_free(sigs);
	return s == SEC_SECURE;
}

/* The type bitmap (RFC 4034 4.1.2) at bm of len bytes has type t? */
static int bitmap_has(const uint8_t* bm, size_t len, uint16_t t)
{
	size_t pos = 0;
	while(pos + 2 <= len) {
		uint8_t win = bm[pos], blen = bm[pos+1];
		if(blen == 0 || blen > 32 || pos + 2 + blen > len)
			return 0;
		if(win == (t >> 8)) {
			uint8_t lo = (uint8_t)(t & 0xff);
			return (lo / 8) < blen &&
				(bm[pos + 2 + lo / 8] & (0x80 >> (lo % 8)));
		}
		pos += 2 + (size_t)blen;
	}
	return 0;
}

/* An RR of type t at owner, or NULL. */
static const struct xfr_rr* find_rr(const struct xfr_rrs* l,
	const uint8_t* owner, uint16_t t)
{
	size_t i;
	for(i = 0; i < l->n; i++)
		if(l->v[i].type == t && query_dname_compare(l->v[i].owner,
			owner) == 0)
			return &l->v[i];
	return NULL;
}

/* The absence of ZONEMD proven by the apex NSEC or NSEC3 (Unbound's
 * zonemd_check_dnssec_absence). NULL: proven; else the reason. */
static const char* absence_proof(struct dnssec_ctx* d,
	const struct xfr_rrs* l, const uint8_t* zone)
{
	const struct xfr_rr* nsec = find_rr(l, zone, TYPE_NSEC);
	const struct xfr_rr* p;
	uint8_t hash[64], owner[256];
	size_t hlen, i;
	if(nsec) {
		size_t pos = 0;
		if(!verify_rrset(d, l, zone, TYPE_NSEC))
			return "DNSSEC verify failed for NSEC RRset";
		/* skip the next name */
		while(pos < nsec->rdlen && nsec->rdata[pos] != 0)
			pos += 1 + (size_t)nsec->rdata[pos];
		pos++;
		if(pos <= nsec->rdlen && bitmap_has(nsec->rdata + pos,
			nsec->rdlen - pos, TYPE_ZONEMD_))
			return "DNSSEC NSEC bitmap says type ZONEMD exists";
		return NULL;
	}
	if(!(p = find_rr(l, zone, TYPE_NSEC3PARAM_)) || p->rdlen < 5 ||
		(size_t)p->rdata[4] + 5 > p->rdlen)
		return "zone has no NSEC information but ZONEMD missing";
	hlen = val_nsec3_hash_compute(zone, p->rdata[0],
		(uint16_t)((p->rdata[2] << 8) | p->rdata[3]), p->rdata + 5,
		p->rdata[4], hash);
	if(hlen == 0)
		return "zone has no NSEC information but ZONEMD missing";
	{
		char b32[128];
		size_t zlen = 0, blen;
		while(zone[zlen] != 0)
			zlen += 1 + (size_t)zone[zlen];
		zlen++;
		blen = val_nsec3_b32hex_encode(hash, hlen, b32);
		if(blen > 63 || 1 + blen + zlen > sizeof(owner))
			return "zone has no NSEC3 domain for the apex but "
				"ZONEMD missing";
		owner[0] = (uint8_t)blen;
		memcpy(owner + 1, b32, blen);
		memcpy(owner + 1 + blen, zone, zlen);
	}
	for(i = 0; i < l->n; i++) {
		const struct xfr_rr* r = &l->v[i];
		size_t pos;
		if(r->type != TYPE_NSEC3 || query_dname_compare(r->owner,
			owner) != 0 || r->rdlen < 5)
			continue;
		if(!verify_rrset(d, l, owner, TYPE_NSEC3))
			return "DNSSEC verify failed for NSEC3 RRset";
		/* hash alg, flags, iterations, salt, next hash, bitmap */
		pos = 5 + (size_t)r->rdata[4];
		if(pos >= r->rdlen || pos + 1 + r->rdata[pos] > r->rdlen)
			return "DNSSEC verify failed for NSEC3 RRset";
		pos += 1 + (size_t)r->rdata[pos];
		if(bitmap_has(r->rdata + pos, r->rdlen - pos, TYPE_ZONEMD_))
			return "DNSSEC NSEC3 bitmap says type ZONEMD exists";
		return NULL;
	}
	return "zone has no NSEC3 domain for the apex but ZONEMD missing";
}

/* The zone's DNSKEY RRset made secure by the trust anchor (Unbound's
 * zonemd_get_dnskey_from_anchor): 1 secure (d->keys set), 0 insecure
 * (an anchor without supported algorithms), -1 failed. */
static int keys_from_anchor(struct dnssec_ctx* d, const struct xfr_rrs* l,
	const uint8_t* zone, const struct zonemd_params* p)
{
	ldns_rr_list* keys = rrset_of(l, zone, TYPE_DNSKEY, 0);
	ldns_rr_list* sigs = rrset_of(l, zone, TYPE_DNSKEY, 1);
	struct val_verify_result res;
	enum sec_status s = SEC_BOGUS;
	memset(&res, 0, sizeof(res));
	if(keys) {
		if(p->ta_ds)
			s = val_verify_dnskey_with_ds(d->sig, keys, sigs ?
				sigs : keys, p->ta_ds, &d->set, d->now, NULL,
				&res, &d->keys);
		if(s != SEC_SECURE && p->ta_dnskey)
			s = val_verify_dnskey_with_keys(d->sig, keys, sigs ?
				sigs : keys, p->ta_dnskey, &d->set, d->now,
				NULL, &res, &d->keys);
	}
	ldns_rr_list_deep_free(keys);
	ldns_rr_list_deep_free(sigs);
	if(s == SEC_SECURE && d->keys)
		return 1;
	return s == SEC_INSECURE ? 0 : -1;
}

/* The ZONEMD RRs' digests (Unbound's auth_zone_zonemd_check_hash): one
 * RR that is supported and matches is enough. NULL: verified; else why
 * not. *unsupported: no RR was of a supported scheme and algorithm. */
static const char* check_digests(const struct xfr_rrs* l,
	const uint8_t* zone, int* unsupported)
{
	struct xfr_soa soa;
	const char* reason = "zone has no ZONEMD";
	size_t i, j;
	int only_unsupported = 1;
	*unsupported = 0;
	if(!xfr_rrs_soa(l, zone, &soa))
		return "zone has no SOA serial";
	for(i = 0; i < l->n; i++) {
		const struct xfr_rr* r = &l->v[i], *o;
		uint8_t gen[64];
		size_t glen;
		int dup = 0;
		if(r->type != TYPE_ZONEMD_ || query_dname_compare(r->owner,
			zone) != 0)
			continue;
		if(r->rdlen < 6) {
			reason = "ZONEMD rdata malformed";
			only_unsupported = 0;
			continue;
		}
		for(j = 0; j < l->n; j++) {
			o = &l->v[j];
			if(j != i && o->type == TYPE_ZONEMD_ && o->rdlen >= 6 &&
				query_dname_compare(o->owner, zone) == 0 &&
				o->rdata[4] == r->rdata[4] &&
				o->rdata[5] == r->rdata[5])
				dup = 1;
		}
		if(dup) {
			reason = "ZONEMD RRSet contains more than one RR with "
				"the same scheme and hash algorithm";
			only_unsupported = 0;
			continue;
		}
		if((((uint32_t)r->rdata[0] << 24) | ((uint32_t)r->rdata[1]
			<< 16) | ((uint32_t)r->rdata[2] << 8) | r->rdata[3])
			!= soa.serial) {
			reason = "ZONEMD serial is wrong";
			only_unsupported = 0;
			continue;
		}
		if(r->rdata[4] != ZONEMD_SCHEME_SIMPLE ||
			(r->rdata[5] != ZONEMD_HASH_SHA384 &&
			r->rdata[5] != ZONEMD_HASH_SHA512)) {
			/* compat: unbound-1.17: passes when no supported
			 * one failed */
			*unsupported = 1;
			continue;
		}
		only_unsupported = 0;
		if(r->rdlen - 6 < 12) {
			reason = "digest length too small, less than 12";
			continue;
		}
		if(!(glen = zonemd_digest(l, zone, r->rdata[5], gen))) {
			reason = "out of memory";
			continue;
		}
		if(glen != (size_t)(r->rdlen - 6)) {
			reason = "incorrect digest length";
			continue;
		}
		if(memcmp(gen, r->rdata + 6, glen) != 0) {
			reason = "incorrect digest";
			continue;
		}
		*unsupported = 0;
		return NULL;
	}
	if(*unsupported && only_unsupported)
		return NULL;
	*unsupported = 0;
	return reason;
}

static enum zonemd_outcome say(char* why, size_t whylen, const char* s,
	enum zonemd_outcome o)
{
	snprintf(why, whylen, "%s", s);
	return o;
}

enum zonemd_outcome zonemd_verify(const struct xfr_rrs* content,
	const uint8_t* zone, const struct zonemd_params* p, char* why,
	size_t whylen)
{
	struct dnssec_ctx d;
	const char* reason;
	int absent = find_rr(content, zone, TYPE_ZONEMD_) == NULL;
	int absence_proven = 0, unsupported = 0, secure = 0;
	memset(&d, 0, sizeof(d));
	if(p->ta_ds || p->ta_dnskey) {
		int k;
		val_sig_settings_init(&d.set);
		d.set.date_override = p->date_override;
		d.now = time(NULL);
		if(!(d.sig = val_sig_ctx_create()))
			return say(why, whylen, "out of memory",
				ZONEMD_FAILED);
		k = keys_from_anchor(&d, content, zone, p);
		if(k < 0) {
			val_sig_ctx_delete(d.sig);
			return say(why, whylen, "verify DNSKEY RRset with "
				"trust anchor failed", ZONEMD_FAILED);
		}
		secure = k == 1;
	}
	if(secure) {
		reason = NULL;
		if(absent)
			reason = absence_proof(&d, content, zone);
		else if(!verify_rrset(&d, content, zone, TYPE_SOA))
			reason = "DNSSEC verify failed for SOA RRset";
		else if(!verify_rrset(&d, content, zone, TYPE_ZONEMD_))
			reason = "DNSSEC verify failed for ZONEMD RRset";
		absence_proven = absent && !reason;
		val_keyset_delete(d.keys);
		val_sig_ctx_delete(d.sig);
		if(reason)
			return say(why, whylen, reason, ZONEMD_FAILED);
	} else if(d.sig)
		val_sig_ctx_delete(d.sig);
	if(absent && p->reject_absence)
		return say(why, whylen, "ZONEMD absent and that is not allowed "
			"by config", ZONEMD_FAILED);
	if(absent)
		return say(why, whylen, absence_proven ? "DNSSEC verified "
			"nonexistence of ZONEMD" : "no ZONEMD present",
			ZONEMD_OK);
	if((reason = check_digests(content, zone, &unsupported)) != NULL)
		return say(why, whylen, reason, ZONEMD_FAILED);
	return say(why, whylen, unsupported ? "ZONEMD unsupported algorithm"
		: "ZONEMD verification successful", ZONEMD_OK);
}
