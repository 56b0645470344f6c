/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/cachedump.h - compat: unbound-1.17: the RRset and message caches to
 * and from Unbound's dump_cache text format (unbound-control dump_cache /
 * load_cache):
 *
 *   START_RRSET_CACHE
 *   ;rrset [nsec_apex] TTL RR-COUNT RRSIG-COUNT TRUST SECURITY
 *   one zone-file line per RR, then per RRSIG
 *   END_RRSET_CACHE
 *   START_MSG_CACHE
 *   msg QNAME QCLASS QTYPE FLAGS QDCOUNT TTL SECURITY AN NS AR
 *   one "OWNER CLASS TYPE FLAGS" line per RRset of the reply
 *   END_MSG_CACHE
 *   EOF
 *
 * TTLs are seconds left, so a load counts them from the time it runs.
 * Our message cache keeps whole replies, not references: a reply's
 * RRsets that the RRset cache does not hold (a negative answer's SOA)
 * are written into the RRset section too, so the dump is complete for
 * us and for Unbound. Main thread only; the caches lock inside. */
#ifndef DAEMON_CACHEDUMP_H
#define DAEMON_CACHEDUMP_H
#include <stddef.h>
#include <time.h>

struct rrset_cache;
struct msg_cache;
struct strbuf;

/* compat: unbound-1.17: Longest line load accepts (Unbound reads into a 64 KiB
 * buffer). */
#define CACHEDUMP_LINE_MAX 65535

/* Write both caches' fresh entries, "EOF" last. */
void cache_dump(struct rrset_cache* rc, struct msg_cache* mc, time_t now,
	struct strbuf* out);

/* compat: unbound-1.17: Read a dump (len bytes, up to and including the "EOF"
 * line) into the caches. The whole text is checked first: on any error nothing
 * is stored, 0 is returned and err says what and on which line. A message
 * whose RRsets are missing (expired, or BADRR/BADREF in the dump) is skipped,
 * as Unbound does. *rrsets and *msgs count what was stored. */
int cache_load(struct rrset_cache* rc, struct msg_cache* mc,
	const char* text, size_t len, time_t now, size_t* rrsets,
	size_t* msgs, char* err, size_t errlen);

#endif
