/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_anchor_read.c - compat: unbound-1.17: reading the anchor
 * sources: zone files (trust-anchor-file), trust-anchor: lines and Unbound's
 * RFC 5011 state files (auto-trust-anchor-file). BIND's format is in
 * val_anchor_bind.c. ldns parses the RRs; these readers only find them and say
 * where an error is. */
#include "config.h"
#include "validator/val_anchor_read.h"
#include "validator/val_autotrust.h"
#include "util/dname.h"
#include "util/log.h"
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void val_ta_error(const struct ta_where* w, const char* format, ...)
{
	char msg[1024];
	va_list args;
	va_start(args, format);
	vsnprintf(msg, sizeof(msg), format, args);
	va_end(args);
	if(w->line > 0)
		log_err("%s:%d: %s", w->file, w->line, msg);
	else	log_err("%s: %s", w->file, msg);
}

static FILE* open_or_log(const char* fname)
{
	FILE* in = fopen(fname, "r");
	if(!in) {
		struct ta_where w = { fname, 0, 0 };
		val_ta_error(&w, "cannot open trust anchor file: %s",
			strerror(errno));
	}
	return in;
}

/* Does the file end with a newline? (ldns counts the newline that
 * ends a record, so the record's line is one less, unless it was the
 * last line without one.) */
static int ends_with_newline(FILE* in)
{
	int c = '\n';
	if(fseek(in, -1, SEEK_END) == 0)
		c = getc(in);
	rewind(in);
	return c == '\n';
}

int val_ta_read_zonefile(struct ta_collect* c, const char* fname)
{
	FILE* in = open_or_log(fname);
	uint32_t ttl = 3600;
	ldns_rdf* origin = NULL, *prev = NULL;
	int line = 1, ok = 1, n = 0, nl;
	uint16_t dclass = 0;
	if(!in)
		return 0;
	nl = ends_with_newline(in);
	while(ok && !feof(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, &origin,
			&prev, &line);
		struct ta_where w = { fname, (feof(in) && !nl) ? line :
			line - 1, 0 };
		if(s == LDNS_STATUS_SYNTAX_EMPTY || s == LDNS_STATUS_SYNTAX_TTL
			|| s == LDNS_STATUS_SYNTAX_ORIGIN)
			continue;
		if(s != LDNS_STATUS_OK) {
			val_ta_error(&w, "%s", ldns_get_errorstr_by_id(s));
			ldns_rr_free(rr);
			ok = 0;
			break;
		}
		/* compat: unbound-1.17: as Unbound: the output of dig (with
		 * RRSIGs, SOA) loads */
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DS &&
			ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY) {
			ldns_rr_free(rr);
			continue;
		}
		if(n > 0 && ldns_rr_get_class(rr) != dclass) {
			char* c1 = ldns_rr_class2str(ldns_rr_get_class(rr));
			char* c2 = ldns_rr_class2str(dclass);
			val_ta_error(&w,
				"class %s differs from class %s of the "
				"records before it", c1 ? c1 : "?",
				c2 ? c2 : "?");
			free(c1);
			free(c2);
			ldns_rr_free(rr);
			ok = 0;
			break;
		}
		dclass = ldns_rr_get_class(rr);
		ok = val_ta_add_rr(c, rr, &w);
		n++;
	}
	if(ok && n == 0)
		verbose(VERB_OPS, "trust-anchor-file %s has no DS or DNSKEY "
			"records", fname);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	fclose(in);
	return ok;
}

/* The next token of record text as ldns's tokenizer reads it: blanks
 * separate, parentheses are dropped, a backslash keeps the next
 * character, a ';' ends the text. Returns the text after it. */
static const char* next_rr_token(const char* s, char* tok, size_t len)
{
	size_t n = 0;
	while(*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		*s == '(' || *s == ')')
		s++;
	for(; *s && *s != ';' && *s != ' ' && *s != '\t' && *s != '\n' &&
		*s != '\r'; s++) {
		if(*s == '(' || *s == ')')
			continue;
		if(*s == '\\' && s[1]) {
			if(n + 1 < len)
				tok[n++] = *s;
			s++;
		}
		if(n + 1 < len)
			tok[n++] = *s;
	}
	tok[n] = 0;
	return s;
}

/* Does the text name DS or DNSKEY as its type? Found as ldns finds it:
 * the owner (none when the text starts blank), a TTL if the next token
 * starts with a digit, a class if it names one, then the type. The
 * readers of keys ask this before ldns parses the rdata: ldns leaks
 * memory on malformed rdata of some other types (IPSECKEY, CERT:
 * fuzz_autotrust), and a key file has no use for those. */
static int text_is_key_type(const char* text)
{
	char tok[256];
	ldns_rr_type t;
	if(*text != ' ' && *text != '\t')
		text = next_rr_token(text, tok, sizeof(tok));
	text = next_rr_token(text, tok, sizeof(tok));
	if(isdigit((unsigned char)tok[0]))
		text = next_rr_token(text, tok, sizeof(tok));
	if(ldns_get_rr_class_by_name(tok) != 0)
		(void)next_rr_token(text, tok, sizeof(tok));
	t = ldns_get_rr_type_by_name(tok);
	return t == LDNS_RR_TYPE_DS || t == LDNS_RR_TYPE_DNSKEY;
}

/* ldns_rr_new_frm_str reads the owner into a 255-byte buffer, so an
 * owner of 255 characters or more (a name of escaped bytes: \148 is four
 * characters for one byte; Unbound writes and reads such names) would
 * not load: a long owner is parsed here and ldns gets "@" with it as the
 * origin. A record starting with a blank keeps ldns's previous owner. */
static ldns_status rr_from_text(ldns_rr** rr, const char* text, uint32_t ttl,
	ldns_rdf* origin, ldns_rdf** prev)
{
	char tok[1100], *line;
	ldns_rdf* own;
	ldns_status s;
	size_t n = strcspn(text, " \t\n");   /* 0 when it starts blank */
	if(n < 128 || n >= sizeof(tok))
		return ldns_rr_new_frm_str(rr, text, ttl, origin, prev);
	memcpy(tok, text, n);
	tok[n] = 0;
	if(!(own = ldns_dname_new_frm_str(tok)))
		return LDNS_STATUS_DOMAINNAME_OVERFLOW;
	if(!ldns_dname_str_absolute(tok)) {
		s = origin ? ldns_dname_cat(own, origin) :
			LDNS_STATUS_SYNTAX_DNAME_ERR;
		if(s != LDNS_STATUS_OK) {
			ldns_rdf_deep_free(own);
			return s;
		}
	}
	if(!(line = malloc(strlen(text + n) + 2))) {
		ldns_rdf_deep_free(own);
		return LDNS_STATUS_MEM_ERR;
	}
	line[0] = '@';
	strcpy(line + 1, text + n);
	s = ldns_rr_new_frm_str(rr, line, ttl, own, NULL);
	free(line);
	if(s == LDNS_STATUS_OK && prev) {
		ldns_rdf_deep_free(*prev);
		*prev = own;
	} else
		ldns_rdf_deep_free(own);
	return s;
}

/* A DS or DNSKEY record from text; NULL, or what is wrong with it.
 * The type is checked before ldns parses (text_is_key_type) and again
 * on what it parsed. */
static const char* key_from_text(ldns_rr** rr, const char* text,
	uint32_t ttl, ldns_rdf* origin, ldns_rdf** prev)
{
	ldns_status s;
	*rr = NULL;
	if(!text_is_key_type(text))
		return "not a DS or DNSKEY record";
	s = rr_from_text(rr, text, ttl, origin, prev);
	if(s != LDNS_STATUS_OK) {
		ldns_rr_free(*rr);
		*rr = NULL;
		return ldns_get_errorstr_by_id(s);
	}
	if(ldns_rr_get_type(*rr) != LDNS_RR_TYPE_DS &&
		ldns_rr_get_type(*rr) != LDNS_RR_TYPE_DNSKEY) {
		ldns_rr_free(*rr);
		*rr = NULL;
		return "not a DS or DNSKEY record";
	}
	return NULL;
}

int val_ta_read_string(struct ta_collect* c, const char* str,
	const char* cfgfile)
{
	struct ta_where w = { cfgfile ? cfgfile : "config", 0, 0 };
	ldns_rr* rr;
	const char* err = key_from_text(&rr, str, 3600, NULL, NULL);
	if(err) {
		val_ta_error(&w, "trust-anchor: \"%s\": %s", str, err);
		return 0;
	}
	return val_ta_add_rr(c, rr, &w);
}

/* --- auto-trust-anchor-file --- */

/* The ';' that starts the comment of a record line, or NULL: not one
 * escaped with a backslash, as ldns writes a ';' inside an owner name
 * (such a name was cut there, and the written file did not load
 * again: fuzz_autotrust). */
static const char* comment_start(const char* s)
{
	for(; *s; s++) {
		if(*s == '\\' && s[1])
			s++;
		else if(*s == ';')
			return s;
	}
	return NULL;
}

/* One logical record: lines joined while parentheses are open (their
 * comments dropped; the last line keeps its comment, which carries the
 * state). *first is the line it starts on. 1 read, 0 end, -1 error. */
static int read_record(FILE* in, char* buf, size_t len, int* line,
	int* first, const char** err)
{
	size_t used = 0;
	int depth = 0;
	char part[8192];
	buf[0] = 0;
	while(fgets(part, sizeof(part), in)) {
		size_t i, plen = strlen(part);
		(*line)++;
		if(used == 0)
			*first = *line;
		if(plen == sizeof(part) - 1 && part[plen-1] != '\n') {
			*err = "line too long";
			return -1;
		}
		for(i = 0; i < plen && part[i] != ';'; i++) {
			if(part[i] == '\\' && i + 1 < plen) {
				i++;   /* an escaped character */
				continue;
			}
			if(part[i] == '(')
				depth++;
			else if(part[i] == ')' && --depth < 0) {
				*err = "too many ')'";
				return -1;
			}
		}
		if(depth > 0) {
			/* drop the comment and newline, join with a space */
			part[i] = 0;
			plen = strlen(part);
			while(plen > 0 && (part[plen-1] == '\n' ||
				part[plen-1] == '\r'))
				part[--plen] = 0;
		}
		if(used + plen + 2 > len) {
			*err = "record too long";
			return -1;
		}
		memcpy(buf + used, part, plen);
		used += plen;
		buf[used] = 0;
		if(depth == 0)
			return 1;
		buf[used++] = ' ';
		buf[used] = 0;
	}
	if(depth > 0) {
		*err = "'(' without ')' before the end of the file";
		return -1;
	}
	return used > 0 ? 1 : 0;
}

/* The state in the ";;state=N" comment; no state: VALID (a plain
 * DS/DNSKEY file, as Debian ships it). Unknown numbers: START. */
static int record_state(const char* rec)
{
	const char* c = comment_start(rec);
	const char* s = c ? strstr(c, "state=") : NULL;
	if(!s)
		return AUTR_STATE_VALID;
	s += 6;
	if(*s >= '0' && *s <= '5')
		return *s - '0';
	return AUTR_STATE_START;
}

static int dnskey_revoked(const ldns_rr* rr)
{
	return ldns_rr_get_type(rr) == LDNS_RR_TYPE_DNSKEY &&
		ldns_rr_rd_count(rr) > 0 &&
		(ldns_rdf2native_int16(ldns_rr_rdf(rr, 0)) &
		LDNS_KEY_REVOKE_KEY);
}

/* ";;id: NAME CLASS" names the trust point of the file. */
static int parse_id(const char* s, uint8_t* name, size_t* namelen,
	uint16_t* dclass, const struct ta_where* w)
{
	char nm[1100];
	unsigned cl;
	ldns_rdf* d;
	if(sscanf(s, "%1023s %u", nm, &cl) != 2 || cl > 65535 ||
		!(d = ldns_dname_new_frm_str(nm))) {
		val_ta_error(w, "cannot parse the ;;id: line");
		return 0;
	}
	ldns_dname2canonical(d);
	*namelen = ldns_rdf_size(d);
	memcpy(name, ldns_rdf_data(d), *namelen);
	ldns_rdf_deep_free(d);
	*dclass = (uint16_t)cl;
	return 1;
}

/* State kept while reading one auto-trust-anchor-file. */
struct auto_read {
	struct ta_collect* c;
	ldns_rdf* origin, *prev;
	uint32_t ttl;
	int have_id;
	uint8_t id[LDNS_MAX_DOMAINLEN + 1];
	size_t idlen;
	uint16_t idclass;
	ldns_rr* first;         /* owner and class of the file's keys */
	int used;               /* keys that are anchors */
	struct autr_point* pt;  /* every key with its state */
	int revoked;            /* ;;REVOKED */
	time_t hdr[6];          /* ;;last_queried: ... ;;retry_time: */
};

/* compat: unbound-1.17: The header lines Unbound writes, in the order of
 * auto_read.hdr. */
static const char* const hdr_names[6] = { ";;last_queried: ",
	";;last_success: ", ";;next_probe_time: ", ";;query_failed: ",
	";;query_interval: ", ";;retry_time: " };

/* compat: unbound-1.17: The writer prints the times as 32-bit unsigned and the
 * others as int (Unbound's format): larger values are read as the
 * largest it writes, so a file written back reads the same (found by
 * fuzz_autotrust). */
static void auto_header(struct auto_read* r, const char* p)
{
	int i;
	for(i = 0; i < 6; i++)
		if(strncmp(p, hdr_names[i], strlen(hdr_names[i])) == 0) {
			long long v = strtoll(p + strlen(hdr_names[i]), NULL,
				10);
			long long max = i < 3 ? (long long)UINT32_MAX :
				(long long)INT_MAX;
			r->hdr[i] = v > 0 ? (time_t)(v > max ? max : v) : 0;
		}
}

/* ";;count=N" and ";;lastchange=T" of a key's comment; 0 if absent. */
static long long comment_num(const char* rec, const char* what)
{
	const char* c = comment_start(rec);
	const char* s = c ? strstr(c, what) : NULL;
	long long v;
	if(!s)
		return 0;
	v = strtoll(s + strlen(what), NULL, 10);
	/* the writer prints 32 bits unsigned (see auto_header) */
	return v > 0 ? (v > (long long)UINT32_MAX ? (long long)UINT32_MAX :
		v) : 0;
}

/* The key, with its state, for the RFC 5011 point of the file. */
static int auto_point_key(struct auto_read* r, const ldns_rr* rr,
	int state, long long count, long long lastchange)
{
	ldns_rr* c;
	if(!r->pt) {
		ldns_rdf* own = ldns_rr_owner(rr);
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		size_t i, len = ldns_rdf_size(own);
		if(len == 0 || len > sizeof(nm))
			return 0;
		memcpy(nm, ldns_rdf_data(own), len);
		for(i = 0; i < len; i++)
			nm[i] = (uint8_t)tolower(nm[i]);
		if(!(r->pt = val_autr_point_new(nm, len,
			ldns_rr_get_class(rr))))
			return 0;
	}
	if(!(c = ldns_rr_clone(rr)))
		return 0;
	return val_autr_point_add(r->pt, c, (enum autr_state)state,
		count > 250 ? 250 : (int)count, (time_t)lastchange) != NULL;
}

/* Hand the point over to the collection (or drop it). */
static int auto_point_done(struct auto_read* r, const char* fname, int ok)
{
	struct autr_point** a;
	struct autr_point* p = r->pt;
	const char* wname = r->c->autr_write_name ? r->c->autr_write_name :
		fname;
	r->pt = NULL;
	if(!p)
		return ok;
	if(!ok || r->revoked) {   /* a revoked point is not probed */
		val_autr_point_delete(p);
		return ok;
	}
	if( !(p->file = strdup(wname)) || !(a = realloc(r->c->autr,
		(r->c->nautr + 1) * sizeof(*a)))) {
		val_autr_point_delete(p);
		if(ok)
			log_err("out of memory");
		return 0;
	}
	p->last_queried = r->hdr[0];
	p->last_success = r->hdr[1];
	p->next_probe_time = r->hdr[2];
	p->query_failed = (int)r->hdr[3];
	p->query_interval = r->hdr[4];
	p->retry_time = r->hdr[5];
	p->revoked = r->revoked;
	r->c->autr = a;
	a[r->c->nautr++] = p;
	return 1;
}

/* $ORIGIN and $TTL lines; 1 handled, 0 not one, -1 error. */
static int auto_directive(struct auto_read* r, char* rec,
	const struct ta_where* w)
{
	char* p = rec, *end;
	while(isspace((unsigned char)*p))
		p++;
	if(strncmp(p, "$ORIGIN", 7) == 0 && isspace((unsigned char)p[7])) {
		char nm[1100];
		char* c = (char*)comment_start(p);
		if(c)
			*c = 0;   /* "$ORIGIN e.;x": e. */
		if(sscanf(p + 7, "%1023s", nm) != 1) {
			val_ta_error(w, "$ORIGIN without a name");
			return -1;
		}
		ldns_rdf_deep_free(r->origin);
		if(!(r->origin = ldns_dname_new_frm_str(nm))) {
			val_ta_error(w, "cannot parse $ORIGIN %s", nm);
			return -1;
		}
		return 1;
	}
	if(strncmp(p, "$TTL", 4) == 0 && isspace((unsigned char)p[4])) {
		unsigned long v = strtoul(p + 4, &end, 10);
		if(end == p + 4) {
			val_ta_error(w, "cannot parse $TTL");
			return -1;
		}
		r->ttl = (uint32_t)v;
		return 1;
	}
	return 0;
}

/* One key record: parse, check it belongs to the file's point, and
 * add it when its state makes it an anchor. */
static int auto_key(struct auto_read* r, char* rec, const struct ta_where* w)
{
	int state = record_state(rec);
	char* semi = (char*)comment_start(rec);
	char rec_comment[512];
	ldns_rr* rr = NULL;
	const char* err;
	rec_comment[0] = 0;
	if(semi) {
		size_t n;
		snprintf(rec_comment, sizeof(rec_comment), "%s", semi);
		*semi = 0;
		/* ldns refuses some base64 (a short last group) followed
		 * by blanks that it takes at the end of the text: the
		 * comment's blanks go too (fuzz_autotrust) */
		n = strlen(rec);
		while(n > 0 && isspace((unsigned char)rec[n-1]))
			rec[--n] = 0;
	}
	if((err = key_from_text(&rr, rec, r->ttl, r->origin, &r->prev))) {
		val_ta_error(w, "%s", err);
		return 0;
	}
	/* ldns joins a relative owner to $ORIGIN without the 255-byte
	 * bound: such a point would be written with an ;;id: that does
	 * not print (fuzz_autotrust) */
	if(dname_valid(ldns_rdf_data(ldns_rr_owner(rr)), ldns_rdf_size(
		ldns_rr_owner(rr))) != ldns_rdf_size(ldns_rr_owner(rr))) {
		val_ta_error(w, "bad owner name");
		ldns_rr_free(rr);
		return 0;
	}
	if(r->have_id) {
		ldns_rdf* own = ldns_rr_owner(rr);
		if(ldns_rdf_size(own) != r->idlen || ldns_rr_get_class(rr) !=
			r->idclass || strncasecmp((char*)ldns_rdf_data(own),
			(char*)r->id, r->idlen) != 0) {
			val_ta_error(w,
				"the record is not for the trust point of "
				"the ;;id: line");
			ldns_rr_free(rr);
			return 0;
		}
	} else if(r->first && (ldns_dname_compare(ldns_rr_owner(r->first),
		ldns_rr_owner(rr)) != 0 || ldns_rr_get_class(r->first) !=
		ldns_rr_get_class(rr))) {
		/* compat: unbound-1.17: Unbound: "file has mismatching data
		 * inside" */
		val_ta_error(w,
			"an auto-trust-anchor-file holds one trust point; "
			"this record has another owner or class");
		ldns_rr_free(rr);
		return 0;
	}
	if(!r->first && !(r->first = ldns_rr_clone(rr))) {
		ldns_rr_free(rr);
		val_ta_error(w, "out of memory");
		return 0;
	}
	if(!auto_point_key(r, rr, state, comment_num(rec_comment, ";;count="),
		comment_num(rec_comment, ";;lastchange="))) {
		ldns_rr_free(rr);
		val_ta_error(w, "out of memory");
		return 0;
	}
	if((state != AUTR_STATE_VALID && state != AUTR_STATE_MISSING) ||
		dnskey_revoked(rr)) {
		ldns_rr_free(rr);
		return 1;
	}
	r->used++;
	return val_ta_add_rr(r->c, rr, w);
}

int val_ta_read_autofile(struct ta_collect* c, const char* fname)
{
	FILE* in = open_or_log(fname);
	struct auto_read r;
	char rec[65536];
	int line = 0, first = 0, res, ok = 1;
	const char* err = NULL;
	if(!in)
		return 0;
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.ttl = 3600;
	while(ok && (res = read_record(in, rec, sizeof(rec), &line, &first,
		&err)) != 0) {
		struct ta_where w = { fname, first, 1 };
		char* p = rec;
		if(res < 0) {
			w.line = line;
			val_ta_error(&w, "%s", err);
			ok = 0;
			break;
		}
		while(isspace((unsigned char)*p))
			p++;
		if(strncmp(p, ";;REVOKED", 9) == 0) {
			if(r.have_id || r.first) {
				val_ta_error(&w,
					";;REVOKED must be at the start "
					"of the file");
				ok = 0;
				break;
			}
			/* compat: unbound-1.17: as Unbound: all keys were
			 * revoked, no anchor */
			log_warn("trust anchor %s has been revoked", fname);
			r.revoked = 1;
			goto done;
		}
		if(strncmp(p, ";;id: ", 6) == 0) {
			if(r.have_id || r.first) {
				val_ta_error(&w,
					"an auto-trust-anchor-file holds "
					"one trust point, a second ;;id: line");
				ok = 0;
				break;
			}
			ok = parse_id(p + 6, r.id, &r.idlen, &r.idclass, &w);
			r.have_id = ok;
			continue;
		}
		if(*p == ';' || *p == 0) {
			auto_header(&r, p);   /* ;;last_queried: and such */
			continue;
		}
		if((res = auto_directive(&r, p, &w)) != 0) {
			ok = res > 0;
			continue;
		}
		ok = auto_key(&r, p, &w);
	}
	if(ok && !r.first) {
		struct ta_where w = { fname, 0, 1 };
		val_ta_error(&w, "no trust anchor keys in the file");
		ok = 0;
	} else if(ok && r.used == 0)
		log_warn("auto-trust-anchor-file %s has no key in state VALID "
			"or MISSING: no anchor for it", fname);
done:
	ok = auto_point_done(&r, fname, ok);
	ldns_rr_free(r.first);
	ldns_rdf_deep_free(r.origin);
	ldns_rdf_deep_free(r.prev);
	fclose(in);
	return ok;
}
