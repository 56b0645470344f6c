/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_anchor_read.h - internal to validator/val_anchor*.c:
 * the readers of the anchor sources put RRs into a collection of trust
 * points, from which val_anchor.c builds the store. */
#ifndef VALIDATOR_VAL_ANCHOR_READ_H
#define VALIDATOR_VAL_ANCHOR_READ_H
#include <ldns/ldns.h>

/* RRs seen for one owner name and class, before algorithm checks. */
struct ta_point {
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];   /* lowercased */
	size_t namelen;
	uint16_t dclass;
	ldns_rr_list* rrs;      /* DS and DNSKEY, no duplicates */
	int from_auto;          /* seen in an auto-trust-anchor-file */
	int from_static;        /* seen in another source */
};

struct autr_point;

struct ta_collect {
	struct ta_point* pts;
	size_t n, cap;
	/* auto-trust-anchor-file: every key with its RFC 5011 state, one
	 * point per file (val_autotrust.h), and the name the file is to
	 * be written under (after chroot; set before val_ta_read_autofile,
	 * NULL: the name it was read from) */
	struct autr_point** autr;
	size_t nautr;
	const char* autr_write_name;
};

/* Where an RR came from, for messages. */
struct ta_where {
	const char* file;
	int line;
	int is_auto;            /* auto-trust-anchor-file */
};

/* Add rr (taken over, also on error) to its point; only DS and DNSKEY
 * are accepted. 0 on error, logged as "FILE:LINE: ...". */
int val_ta_add_rr(struct ta_collect* c, ldns_rr* rr, const struct ta_where* w);
/* Log "FILE:LINE: message" (line 0: "FILE: message") with log_err. */
void val_ta_error(const struct ta_where* w, const char* format, ...)
	__attribute__((format(printf, 2, 3)));

/* The readers; fname is opened, shown names it in messages. Each
 * returns 0 after logging an error. */
int val_ta_read_zonefile(struct ta_collect* c, const char* fname);
int val_ta_read_bindfile(struct ta_collect* c, const char* fname);
int val_ta_read_autofile(struct ta_collect* c, const char* fname);
/* A trust-anchor: line; cfgfile names the config in messages. */
int val_ta_read_string(struct ta_collect* c, const char* str,
	const char* cfgfile);

#endif
