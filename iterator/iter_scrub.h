/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_scrub.h - compat: unbound-1.17: make an upstream reply safe to
 * use before anything in it is believed (Unbound's scrubber, simplified):
 *
 * - the reply must be a QUERY response (QR=1) to our question: one
 *   question with the qname (case-insensitive), qtype and qclass sent;
 *   else it is thrown away whole;
 * - every record must be in the class asked and under the zone of the
 *   server that was asked (its bailiwick); others are dropped;
 * - answer: only the chain from the qname is kept: a DNAME above the
 *   current name is kept with the CNAME synthesized from it (TTL 0, as
 *   Unbound; a server's own CNAME for that name is dropped), else a
 *   CNAME at the current name moves it to the target; the records of
 *   qtype at the final name end it; RRSIGs of kept sets are kept, everything else goes;
 * - authority: NS and SOA only at the final name or one of its parents
 *   (one owner each), DS/NSEC/NSEC3/RRSIG under the zone; nothing else;
 *   with a positive answer, the SOA goes;
 * - additional: only A/AAAA for names that a kept NS record (authority,
 *   or the answer to an NS query) names; the rest goes (a poisoning
 *   attempt for a name the server is not authoritative for ends here).
 *   With harden-glue: no, such addresses outside the zone are kept too
 *   (the referral then uses them, as Unbound uses them from its cache).
 *
 * compat: unbound-1.21: with harden-unverified-glue, glue under the zone
 * that is not strictly below the owner of the reply's NS set (the zone
 * delegated to, or the zone whose NS set answers) goes too: the server
 * asked is not authoritative for that name in the new zone, so the
 * iterator resolves the address itself. With unverified_aside such glue
 * is handed back apart (scrub_result's unverified), for the iterator's
 * last resort, as Unbound keeps it apart in its cache.
 *
 * compat: unbound-1.22: limits on what one reply may bring (struct
 * scrub_opts): an NS set is cut to iter-scrub-ns records (their glue
 * goes with them; a signed one in an answer goes whole, as Unbound), the
 * answer's chain ends after iter-scrub-cname CNAME/DNAME hops (the
 * iterator asks for the rest itself), an RRset keeps at most
 * iter-scrub-rrsig RRSIGs. With iter-scrub-promiscuous (on by
 * default) an authority NS set is not kept in an answer or an error
 * reply: it could poison the delegation of names the reply does not
 * answer.
 * compat: unbound-1.17: an NXDOMAIN's or a NODATA's (with SOA) NS set
 * goes in any case.
 *
 * Work is bounded by the packet (at most 65535 bytes of records). */
#ifndef ITERATOR_ITER_SCRUB_H
#define ITERATOR_ITER_SCRUB_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>

struct scrub_result {
	/* The name the answer chain ends at (the qname if no CNAME/DNAME). */
	uint8_t sname[LDNS_MAX_DOMAINLEN + 1];
	size_t snamelen;
	int final_found;     /* records of qtype at sname in the answer */
	int chain_len;       /* CNAMEs (incl. synthesized) kept */
	int removed;         /* records dropped */
	int clipped;         /* of those, by the limits of scrub_opts */
	int dname_too_long;  /* a DNAME made a name over 255 (YXDOMAIN) */
	/* A NOERROR reply without AA, answer or SOA whose NS set the scrub
	 * took out: a referral above the zone asked, or one beside it that
	 * left the reply empty. The server is lame for the zone (RFC 4697
	 * 2.3), not saying NODATA. */
	int lame_referral;
	/* harden-unverified-glue with scrub_opts' unverified_aside: copies
	 * of the glue records that went for not being below the NS set's
	 * owner; NULL when none. The caller frees it
	 * (ldns_rr_list_deep_free), whatever the status. */
	ldns_rr_list* unverified;
};

/* How the scrub is done: the options of unbound.conf it follows. */
struct scrub_opts {
	int harden_glue;     /* harden-glue: glue outside the zone goes */
	int unverified_glue; /* harden-unverified-glue: glue not strictly
	                      * below the NS set's owner goes */
	int unverified_aside; /* and a copy of it goes to the result's
	                       * unverified list */
	int max_ns;          /* iter-scrub-ns; 0: no limit */
	int max_chain;       /* iter-scrub-cname */
	int max_sigs;        /* iter-scrub-rrsig */
	int promiscuous;     /* iter-scrub-promiscuous: an NS set goes
	                      * but in a referral to a zone below */
};

/* compat: unbound-1.22: the defaults of iter-scrub-ns, -cname, -rrsig */
#define SCRUB_MAX_NS 20
#define SCRUB_MAX_CHAIN 11
#define SCRUB_MAX_SIGS 8

/* o with Unbound's default limits and the given harden_glue
 * (harden-unverified-glue off). */
void scrub_opts_default(struct scrub_opts* o, int harden_glue);

enum scrub_status {
	SCRUB_OK = 0,
	SCRUB_BAD_QUESTION,  /* no/other question, not a response, opcode */
	SCRUB_NOMEM
};

/* Scrub pkt in place for the question (qname wire, qtype, qclass) sent
 * to a server of zone (wire). Records are removed from pkt's sections
 * (and freed); synthesized CNAMEs are inserted. harden_glue: the option
 * (1: glue outside the zone goes). */
enum scrub_status iter_scrub_message(ldns_pkt* pkt, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass, const uint8_t* zone,
	struct scrub_result* res, int harden_glue);

/* iter_scrub_message with the options of o (the iterator's). */
enum scrub_status iter_scrub_message_opts(ldns_pkt* pkt,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass,
	const uint8_t* zone, struct scrub_result* res,
	const struct scrub_opts* o);

/* A reply's one question record, read from the wire (reply_tail.c). */
struct scrub_question {
	const uint8_t* name;   /* wire, uncompressed */
	uint16_t type, rclass;
};

/* iter_scrub_message for a pkt whose question section was not made:
 * wq is its one question record (the check is the same: qr, opcode,
 * name, type and class). */
enum scrub_status iter_scrub_message_wireq(ldns_pkt* pkt,
	const struct scrub_question* wq, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass, const uint8_t* zone,
	struct scrub_result* res, const struct scrub_opts* o);

/* compat: unbound-1.17: Is name the name a record of list (a scrubbed
 * answer) asks additional processing for (Unbound's: NS, MX, KX, SRV
 * targets)? For the glue rule here and in iter_tail.c. */
int iter_scrub_answer_target(const ldns_rr_list* list, const uint8_t* name);

/* compat: unbound-1.21: may glue for name be used with
 * harden-unverified-glue, the reply's NS set being of nsowner? Only
 * strictly below it (a NULL nsowner: no NS set, no check). */
int iter_scrub_glue_verified(const uint8_t* name, const uint8_t* nsowner);

#endif
