/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_signal.c - compat: unbound-1.17: key tag signalling (RFC 8145
 * section 5) and the root key sentinel (RFC 8509), as Unbound 1.17 does them.
 */
#include "config.h"
#include "validator/val_signal.h"
#include "validator/val_anchor.h"
#include "services/mesh.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TA_LABEL_TAGS ((LDNS_MAX_LABELLEN - 3) / 5)   /* "_ta" + "-XXXX"s */
#define SENTINEL_IS "root-key-sentinel-is-ta-"
#define SENTINEL_NOT "root-key-sentinel-not-ta-"
#define SENTINEL_TAG_LEN 5

static int tag_cmp(const void* a, const void* b)
{
	return (int)*(const uint16_t*)a - (int)*(const uint16_t*)b;
}

size_t val_anchor_keytags(const struct val_anchor* a, uint16_t* tags,
	size_t max)
{
	/* the keys trusted now (RFC 5011 updates change them) */
	const ldns_rr_list* ds = val_anchor_ds(a);
	const ldns_rr_list* dnskey = val_anchor_dnskey(a);
	size_t n = 0, i;
	if(a->kind != VAL_ANCHOR_KEYS)
		return 0;
	for(i = 0; ds && i < ldns_rr_list_rr_count(ds) && n < max; i++) {
		ldns_rdf* t = ldns_rr_rdf(ldns_rr_list_rr(ds, i), 0);
		if(t && ldns_rdf_size(t) == 2)
			tags[n++] = ldns_rdf2native_int16(t);
	}
	for(i = 0; dnskey && i < ldns_rr_list_rr_count(dnskey) && n < max;
		i++)
		tags[n++] = ldns_calc_keytag(ldns_rr_list_rr(dnskey, i));
	qsort(tags, n, sizeof(*tags), tag_cmp);
	return n;
}

size_t val_ta_signal_name(const struct val_anchor* a, uint8_t* out)
{
	uint16_t tags[TA_LABEL_TAGS];
	char label[LDNS_MAX_LABELLEN + 1] = "_ta";
	size_t n = val_anchor_keytags(a, tags, TA_LABEL_TAGS), len = 3, i;
	if(n == 0)
		return 0;
	for(i = 0; i < n; i++)
		len += (size_t)snprintf(label + len, sizeof(label) - len,
			"-%04x", (unsigned)tags[i]);
	if(1 + len + a->namelen > LDNS_MAX_DOMAINLEN)
		return 0;
	out[0] = (uint8_t)len;
	memcpy(out + 1, label, len);
	memcpy(out + 1 + len, a->name, a->namelen);
	return 1 + len + a->namelen;
}

void val_ta_signal(struct module_qstate* qs, const struct val_anchor* a)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	if(!qs->env->mesh || val_ta_signal_name(a, name) == 0)
		return;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(name, n, sizeof(n));
		verbose(VERB_ALGO, "keytag query: %s", n);
	}
	/* compat: unbound-1.17: Unbound asks class IN; the answer is of no use
	 * to anyone */
	(void)mesh_new_detached(qs->env->mesh, name, LDNS_RR_TYPE_NULL,
		LDNS_RR_CLASS_IN, qs->depth + 1);
}

/* The key tag after prefix in label (length-prefixed), -1 when the
 * label is not prefix followed by exactly five decimal digits of a
 * 16-bit number. */
static long sentinel_tag(const uint8_t* label, const char* prefix)
{
	size_t plen = strlen(prefix);
	long v = 0;
	if(label[0] != plen + SENTINEL_TAG_LEN ||
		strncasecmp((const char*)label + 1, prefix, plen) != 0)
		return -1;
	for(size_t i = 0; i < SENTINEL_TAG_LEN; i++) {
		uint8_t c = label[1 + plen + i];
		if(c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	return v <= 65535 ? v : -1;
}

static int root_has_tag(const struct val_anchors* anchors, uint16_t qclass,
	uint16_t tag)
{
	uint16_t tags[256];
	const uint8_t root[1] = { 0 };
	const struct val_anchor* a = anchors ? val_anchor_find(anchors, root,
		qclass) : NULL;
	size_t n;
	if(!a || a->namelen != 1)
		return 0;
	n = val_anchor_keytags(a, tags, sizeof(tags) / sizeof(tags[0]));
	for(size_t i = 0; i < n; i++)
		if(tags[i] == tag)
			return 1;
	return 0;
}

int val_sentinel_fails(const struct val_anchors* anchors,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass)
{
	long tag;
	/* compat: unbound-1.17: RFC 8509 section 3: the sentinel acts on
	 * A and AAAA questions only, as Unbound */
	if(qtype != TYPE_A && qtype != TYPE_AAAA)
		return 0;
	if((tag = sentinel_tag(qname, SENTINEL_IS)) >= 0)
		return !root_has_tag(anchors, qclass, (uint16_t)tag);
	if((tag = sentinel_tag(qname, SENTINEL_NOT)) >= 0)
		return root_has_tag(anchors, qclass, (uint16_t)tag);
	return 0;
}
