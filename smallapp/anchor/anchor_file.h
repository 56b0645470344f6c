/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_file.h - unbound-anchor's root anchor file:
 * what is in it, the built-in anchors and certificate, atomic writes. */
#ifndef ANCHOR_FILE_H
#define ANCHOR_FILE_H
#include <stddef.h>
#include <time.h>
#include <ldns/ldns.h>

/* verbosity (-v), shared by the parts of unbound-anchor */
extern int anchor_verb;

/* The IANA root KSKs as DS records (key tags 20326 and 38696). */
const char* anchor_builtin_ds(void);
/* The ICANN Root CA certificate that signs root-anchors.p7s (PEM). */
const char* anchor_builtin_cert(void);

enum anchor_state {
	ANCHOR_ABSENT,   /* no file, or nothing but comments and blanks */
	ANCHOR_REVOKED,  /* ";;REVOKED": the root went unsigned (RFC 5011) */
	ANCHOR_PRESENT,  /* it has records */
	ANCHOR_UNREADABLE /* exists but cannot be read (message printed) */
};
enum anchor_state anchor_file_state(const char* path);

/* The keys to trust from the file: DS and DNSKEY records; of an RFC 5011
 * state file only the VALID and MISSING keys, unless all_states. NULL
 * when there are none or the file cannot be read. */
ldns_rr_list* anchor_file_keys(const char* path, int all_states);

/* ";;last_success: N" of an RFC 5011 state file, 0 when absent. */
time_t anchor_file_last_success(const char* path);
/* Whether a key in the file is in the ADDPEND state. */
int anchor_file_has_addpend(const char* path);

/* Replace path with len bytes of text: a temporary file in the same
 * directory, written, fsync'ed, then renamed over path, so a reader
 * sees the old file or the new one, never a part. 0 on success; -1
 * with a message on stderr, and path untouched. */
int anchor_file_write(const char* path, const char* text, size_t len);

#endif
