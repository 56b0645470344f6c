/* SPDX-License-Identifier: BSD-3-Clause */
/* util/strutil.h - small string helpers for the text parsers (control
 * command lines, option values, hints). */
#ifndef UTIL_STRUTIL_H
#define UTIL_STRUTIL_H

/* s past its leading spaces and tabs (the blanks between the words of a
 * command line or an option value). Like strchr, takes const and gives
 * the caller's own pointer back. */
static inline char* str_skip_blank(const char* s)
{
	while(*s == ' ' || *s == '\t')
		s++;
	return (char*)s;
}

#endif
