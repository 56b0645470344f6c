/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/cachedump_internal.h - shared by the dump (cachedump.c) and the
 * load (cacheload.c) of the cache text format. */
#ifndef DAEMON_CACHEDUMP_INTERNAL_H
#define DAEMON_CACHEDUMP_INTERNAL_H

/* compat: unbound-1.17: Our trust level (enum rrset_trust) as Unbound's
 * number, and back; -1 for a number Unbound does not have. */
int cachedump_trust_to_unbound(int trust);
int cachedump_trust_from_unbound(unsigned t);

#endif
