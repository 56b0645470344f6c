/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_dnsseclame.h - DNSSEC-lame servers (see
 * iter_dnsseclame.c): a reply without the signatures a signed zone has
 * sends the question to the zone's other servers. Internal to the
 * iterator; runs on upstream replies only, never on a cache hit. */
#ifndef ITERATOR_ITER_DNSSECLAME_H
#define ITERATOR_ITER_DNSSECLAME_H
#include <ldns/ldns.h>

struct iter_env;
struct iter_qstate;
struct scrub_result;
struct delegpt;

/* Is the zone iq->dp expected signed: a trust anchor with keys at its
 * name, its DS in the referral that led to it (iq->dp_ds), or its DS
 * in the RRset cache? */
int iter_dnssec_expected(const struct iter_env* env,
	const struct iter_qstate* iq);

/* An RRSIG in the answer or authority section of pkt? (Only an NS set
 * and glue can be left in wire form, iq->tail: no RRSIG there.) */
int iter_reply_has_dnssec(const ldns_pkt* pkt);

/* Does the reply show that it came from the zone dp (its SOA or NS set,
 * or its DNSKEY set in the answer; or a referral one label below it)?
 * Only then is the server marked in the infra cache: a server of both
 * a parent and its child may answer from the other zone. */
int iter_reply_from_zone(const ldns_pkt* pkt, const struct delegpt* dp);

/* The scrubbed reply from iq->sent_to, before it is used. When the
 * zone is expected signed and the reply, a usable one, carries no
 * RRSIG: the server is marked DNSSEC-lame (in the delegation point,
 * and in the infra cache when the reply is from the zone), the next
 * server is to be asked (iq->state ITER_TARGETS) and 1 is returned.
 * 0: go on with the reply (also with disable-dnssec-lame-check, to a
 * forwarder, from an auth zone, after 4 sends, or when every server
 * left was DNSSEC-lame: iq->dnssec_lame_query). */
int iter_dnsseclame_reply(struct iter_env* env, struct iter_qstate* iq,
	const ldns_pkt* pkt, const struct scrub_result* sr);

#endif
