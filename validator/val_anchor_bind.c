/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_anchor_bind.c - compat: unbound-1.17: trusted-keys-file:
 * anchors in BIND's named.conf syntax. As Unbound 1.17, only trusted-keys
 * statements are read; everything else in the file is skipped, also the
 * managed-keys and trust-anchors statements (checked against Debian's Unbound:
 * it takes no anchor from them, however broken, so a BIND file with a stale
 * managed key does not make a drop-in start failing validation). An entry is
 * name flags protocol algorithm "base64 key"; and, accepted beyond what
 * Unbound reads in the statement, BIND 9.15's   name static-key|initial-key
 * flags protocol algorithm "key";   name static-ds|initial-ds keytag algorithm
 * digesttype "hex"; Comments: #, // and C style. */
#include "config.h"
#include "validator/val_anchor_read.h"
#include "util/log.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOK_MAX 16384

enum tok_kind { TOK_END = 0, TOK_WORD, TOK_QUOTED, TOK_SPECIAL, TOK_ERROR };

struct lexer {
	FILE* in;
	int line;
	char text[TOK_MAX];
	int tok_line;            /* line the last token started on */
	const char* err;
};

static int lex_getc(struct lexer* l)
{
	int c = getc(l->in);
	if(c == '\n')
		l->line++;
	return c;
}

static void lex_ungetc(struct lexer* l, int c)
{
	if(c == EOF)
		return;
	if(c == '\n')
		l->line--;
	ungetc(c, l->in);
}

/* Skip white space and comments; the next character, or EOF. */
static int skip_blank(struct lexer* l)
{
	int c;
	while((c = lex_getc(l)) != EOF) {
		if(isspace(c))
			continue;
		if(c == '#') {
			while((c = lex_getc(l)) != EOF && c != '\n')
				;
			continue;
		}
		if(c == '/') {
			int d = lex_getc(l);
			if(d == '/') {
				while((c = lex_getc(l)) != EOF && c != '\n')
					;
				continue;
			}
			if(d == '*') {
				int prev = 0;
				while((c = lex_getc(l)) != EOF &&
					!(prev == '*' && c == '/'))
					prev = c;
				if(c == EOF) {
					l->err = "comment not closed before the "
						"end of the file";
					return EOF;
				}
				continue;
			}
			lex_ungetc(l, d);
		}
		return c;
	}
	return EOF;
}

static enum tok_kind next_token(struct lexer* l)
{
	size_t n = 0;
	int c = skip_blank(l);
	l->tok_line = l->line;
	l->text[0] = 0;
	if(c == EOF)
		return l->err ? TOK_ERROR : TOK_END;
	if(c == '{' || c == '}' || c == ';') {
		l->text[0] = (char)c;
		l->text[1] = 0;
		return TOK_SPECIAL;
	}
	if(c == '"') {
		while((c = lex_getc(l)) != EOF && c != '"') {
			if(n + 1 >= TOK_MAX) {
				l->err = "quoted string too long";
				return TOK_ERROR;
			}
			l->text[n++] = (char)c;
		}
		l->text[n] = 0;
		if(c == EOF) {
			l->err = "quoted string not closed before the end "
				"of the file";
			return TOK_ERROR;
		}
		return TOK_QUOTED;
	}
	do {
		if(n + 1 >= TOK_MAX) {
			l->err = "word too long";
			return TOK_ERROR;
		}
		l->text[n++] = (char)c;
		c = lex_getc(l);
	} while(c != EOF && !isspace(c) && c != '{' && c != '}' && c != ';'
		&& c != '"');
	lex_ungetc(l, c);
	l->text[n] = 0;
	return TOK_WORD;
}

/* Append s to buf without its white space (key data may be split). */
static int append_data(char* buf, size_t len, const char* s)
{
	size_t n = strlen(buf);
	for(; *s; s++) {
		if(isspace((unsigned char)*s))
			continue;
		if(n + 2 >= len)
			return 0;
		buf[n++] = *s;
	}
	buf[n] = 0;
	return 1;
}

/* The RR text of one entry, read up to its ';'. 1 done, 0 error
 * (logged), -1 the closing '}' was read instead. */
static int read_entry(struct lexer* l, struct ta_collect* c,
	const char* fname)
{
	static const char* nums_names[] = { "initial-key", "static-key",
		"initial-ds", "static-ds" };
	char name[1100], rrtext[TOK_MAX + 1200], data[TOK_MAX];
	const char* type = "DNSKEY";
	char nums[3][16];
	int nnum = 0, i, start;
	enum tok_kind k = next_token(l);
	struct ta_where w = { fname, l->tok_line, 0 };
	ldns_rr* rr = NULL;
	ldns_status s;
	if(k == TOK_SPECIAL && l->text[0] == '}')
		return -1;
	if(k != TOK_WORD && k != TOK_QUOTED) {
		val_ta_error(&w, "%s", k == TOK_ERROR ? l->err : k == TOK_END ?
			"the end of the file before '}'" :
			"expected a domain name");
		return 0;
	}
	start = l->tok_line;
	if(strlen(l->text) + 2 > sizeof(name)) {
		val_ta_error(&w, "domain name too long");
		return 0;
	}
	memcpy(name, l->text, strlen(l->text) + 1);
	if(!name[0] || name[strlen(name)-1] != '.')
		strcat(name, ".");
	data[0] = 0;
	while((k = next_token(l)) != TOK_SPECIAL || l->text[0] != ';') {
		w.line = l->tok_line;
		if(k == TOK_ERROR || k == TOK_END || k == TOK_SPECIAL) {
			val_ta_error(&w, "%s", k == TOK_ERROR ? l->err :
				k == TOK_END ? "the end of the file before ';'"
				: "expected ';' after the key");
			return 0;
		}
		for(i = 0; i < 4 && nnum == 0 && !data[0]; i++)
			if(k == TOK_WORD && strcmp(l->text, nums_names[i]) == 0)
				break;
		if(i < 4 && nnum == 0 && !data[0]) {
			type = i >= 2 ? "DS" : "DNSKEY";
			continue;
		}
		if(nnum < 3 && k == TOK_WORD) {
			if(strlen(l->text) >= sizeof(nums[0])) {
				val_ta_error(&w, "bad key: '%.20s...' is not a "
					"number", l->text);
				return 0;
			}
			memcpy(nums[nnum++], l->text, strlen(l->text) + 1);
			continue;
		}
		if(!append_data(data, sizeof(data), l->text)) {
			val_ta_error(&w, "key data too long");
			return 0;
		}
	}
	w.line = start;
	if(nnum < 3 || !data[0]) {
		val_ta_error(&w,
			"bad key: expected name, %s, then the key data",
			strcmp(type, "DS") == 0 ? "key tag, algorithm, digest "
			"type" : "flags, protocol, algorithm");
		return 0;
	}
	snprintf(rrtext, sizeof(rrtext), "%s IN %s %s %s %s %s", name, type,
		nums[0], nums[1], nums[2], data);
	s = ldns_rr_new_frm_str(&rr, rrtext, 3600, NULL, NULL);
	if(s != LDNS_STATUS_OK) {
		val_ta_error(&w, "bad key: %s", ldns_get_errorstr_by_id(s));
		ldns_rr_free(rr);
		return 0;
	}
	return val_ta_add_rr(c, rr, &w);
}

/* After the statement keyword: { entries } ; */
static int read_block(struct lexer* l, struct ta_collect* c,
	const char* fname)
{
	enum tok_kind k = next_token(l);
	struct ta_where w = { fname, l->tok_line, 0 };
	int r;
	if(k != TOK_SPECIAL || l->text[0] != '{') {
		val_ta_error(&w, "expected '{'");
		return 0;
	}
	while((r = read_entry(l, c, fname)) == 1)
		;
	if(r == 0)
		return 0;
	k = next_token(l);
	w.line = l->tok_line;
	if(k != TOK_SPECIAL || l->text[0] != ';') {
		val_ta_error(&w, "expected ';' after '}'");
		return 0;
	}
	return 1;
}

int val_ta_read_bindfile(struct ta_collect* c, const char* fname)
{
	struct lexer* l = calloc(1, sizeof(*l));
	enum tok_kind k;
	int ok = 1;
	if(!l) {
		log_err("out of memory");
		return 0;
	}
	if(!(l->in = fopen(fname, "r"))) {
		struct ta_where w = { fname, 0, 0 };
		val_ta_error(&w, "cannot open trusted-keys-file: %s",
			strerror(errno));
		free(l);
		return 0;
	}
	l->line = 1;
	verbose(VERB_QUERY, "reading in bind-compat-mode: '%s'", fname);
	while(ok && (k = next_token(l)) != TOK_END) {
		if(k == TOK_ERROR) {
			struct ta_where w = { fname, l->tok_line, 0 };
			val_ta_error(&w, "%s", l->err);
			ok = 0;
		} else if(k == TOK_WORD && strcmp(l->text, "trusted-keys") == 0)
			ok = read_block(l, c, fname);
		else if(k == TOK_WORD && (strcmp(l->text, "managed-keys") == 0
			|| strcmp(l->text, "trust-anchors") == 0))
			verbose(VERB_OPS, "%s:%d: %s statement ignored, as "
				"Unbound does: only trusted-keys is read", fname,
				l->tok_line, l->text);
	}
	fclose(l->in);
	free(l);
	return ok;
}
