/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_store.h - the rpz: policy as one read-only snapshot shared
 * by all workers (the respip module's global state): built once at
 * startup (the zone files read once, not per worker), and replaced
 * whole, built aside and published with a pointer swap, at a reload
 * (the zones read in the reload thread, published by the main thread),
 * when a zone transfer brings a new version of a zone
 * with primary: (services/xfr_consumer.h; main thread), and at
 * rpz_enable/rpz_disable. A snapshot shares the unchanged zones of the
 * one before it (reference counts).
 *
 * A worker holds a reference to the snapshot it uses; on each reply it
 * compares two generation counters (relaxed loads, no lock) with the
 * ones it took, and takes the new snapshot (under the store's lock, off
 * the hit path) only when one moved. The last holder frees an old
 * snapshot. */
#ifndef RESPIP_RPZ_STORE_H
#define RESPIP_RPZ_STORE_H
#include <stddef.h>

struct config_file;
struct rpz_policy;
struct rpz_store;
struct rpz_snap;

/* The store with cfg's rpz: clauses read (zone files; zones with
 * primaries registered for transfers). NULL: an error (logged). */
struct rpz_store* rpz_store_create(const struct config_file* cfg);
/* After the workers released their snapshots. */
void rpz_store_delete(struct rpz_store* s);
/* A reload's zones, read aside. */
struct rpz_store_prep;
/* A reload's first step (the reload thread, while the workers answer
 * with the policy in use): the zone files of cfg's rpz: clauses read.
 * A zone without primaries or URLs whose name and file did not change
 * since the store read it (the same path, device, inode, size and
 * modification time) is shared, not read again. NULL: out of memory
 * (logged; rpz_store_reload then reads the zones itself). A failed
 * read is kept in it for rpz_store_reload to report. Thread-safe
 * against the store's other users. */
struct rpz_store_prep* rpz_store_prepare(struct rpz_store* s,
	const struct config_file* cfg);
/* A prepared set no reload took. NULL is fine. */
void rpz_store_prep_delete(struct rpz_store_prep* p);
/* A reload: the rpz: clauses of cfg published, with the zones of prep
 * (taken over; cfg must be the config it was prepared from), or read
 * here when prep is NULL. 0: an error (logged), the old policy keeps
 * serving. Main thread. */
int rpz_store_reload(struct rpz_store* s, const struct config_file* cfg,
	struct rpz_store_prep* prep);
/* Bytes of the current snapshot (mem.mod.respip). */
size_t rpz_store_mem(struct rpz_store* s);

/* A worker's view of the store. */
struct rpz_reader {
	struct rpz_snap* snap;   /* held, NULL: none taken yet */
	unsigned gen, switch_gen;
};

/* The current policy for a reader (NULL: no rpz: clause): the held one
 * while neither generation moved, else the new one taken. */
const struct rpz_policy* rpz_reader_policy(struct rpz_store* s,
	struct rpz_reader* r);
/* Give the held snapshot back (worker deinit). */
void rpz_reader_clear(struct rpz_reader* r);

#endif
