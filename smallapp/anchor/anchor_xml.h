/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_xml.h - root-anchors.xml (RFC 7958) to DS. */
#ifndef ANCHOR_XML_H
#define ANCHOR_XML_H
#include <stddef.h>
#include <time.h>

/* The DS records of the KeyDigest elements of xml (len bytes) that are
 * valid at now, as anchor file text (a "; created by" comment, then one
 * ". IN DS tag alg digesttype digest" line each), malloc'ed; *nkeys is
 * their number (0: the root went unsigned). NULL on a parse error, a
 * wrong zone or a bad date, with a message on stderr. */
char* anchor_xml_to_ds(const char* xml, size_t len, time_t now, int* nkeys);

/* An xsd:dateTime, "YYYY-MM-DDThh:mm:ss[.frac][Z|+hh:mm|-hh:mm]", as
 * seconds since 1970 (UTC); 0 when it does not parse. */
time_t anchor_xml_date(const char* s);

#endif
