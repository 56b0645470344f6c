/* SPDX-License-Identifier: BSD-3-Clause */
/* util/dname.c - domain name helpers on wire-format names. ASCII-only
 * case folding through a table: no locale, no allocation. */
#include "config.h"
#include "util/dname.h"
#include "util/hash_mix.h"
#include <ldns/ldns.h>
#include <string.h>

/* ASCII lowercase table; bytes other than A-Z map to themselves. */
#define L4(x) (x), (x) + 1, (x) + 2, (x) + 3
#define L16(x) L4(x), L4((x) + 4), L4((x) + 8), L4((x) + 12)
#define L64(x) L16(x), L16((x) + 16), L16((x) + 32), L16((x) + 48)
static const uint8_t lower_tab[256] = {
	L64(0), 64, L16(97), L4(113), L4(117), 121, 122, 91, 92, 93, 94,
	95, L16(96), L16(112), L64(128), L64(192)
};
#define LOWER(c) (lower_tab[(uint8_t)(c)])

size_t dname_read_wire(const uint8_t* pkt, size_t pktlen, size_t* pos,
	uint8_t* out)
{
	size_t p = *pos, len = 0, end = 0;
	/* Each pointer must point before the start of the labels read so far
	 * (segment start), so targets strictly decrease: no loop can form. */
	size_t seg = p;
	int jumped = 0;
	for(;;) {
		uint8_t lab;
		if(p >= pktlen)
			return 0;
		lab = pkt[p];
		if((lab & 0xc0) == 0xc0) {
			size_t target;
			if(p + 1 >= pktlen)
				return 0;
			target = ((size_t)(lab & 0x3f) << 8) | pkt[p + 1];
			if(target >= seg)
				return 0; /* forward, self, or loop */
			if(!jumped) {
				end = p + 2;
				jumped = 1;
			}
			p = seg = target;
			continue;
		}
		if(lab & 0xc0)
			return 0; /* 01/10: extended or reserved label type */
		if(len + 1 + lab > LDNS_MAX_DOMAINLEN)
			return 0;
		if(p + 1 + lab > pktlen)
			return 0; /* truncated label */
		memcpy(out + len, pkt + p, (size_t)lab + 1);
		len += (size_t)lab + 1;
		p += (size_t)lab + 1;
		if(lab == 0)
			break;
	}
	*pos = jumped ? end : p;
	return len;
}

size_t dname_valid(const uint8_t* dname, size_t maxlen)
{
	size_t len = 0;
	for(;;) {
		uint8_t lab;
		if(len >= maxlen)
			return 0;
		lab = dname[len];
		if(lab > LDNS_MAX_LABELLEN)
			return 0; /* also rejects compression pointers */
		len += (size_t)lab + 1;
		if(len > LDNS_MAX_DOMAINLEN || len > maxlen)
			return 0;
		if(lab == 0)
			return len;
	}
}

/* Length of a valid uncompressed name, root byte included. */
static size_t name_len(const uint8_t* d)
{
	size_t n = 0;
	while(d[n])
		n += (size_t)d[n] + 1;
	return n + 1;
}

/* Lowercase 8 bytes at once (ASCII A-Z only). Label length bytes are
 * at most 63, below 'A', so a whole wire name can go through this. */
static uint64_t lower8(uint64_t w)
{
	const uint64_t h = 0x8080808080808080ULL, m = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t t = w & m;
	uint64_t ge_a = t + 0x3f3f3f3f3f3f3f3fULL;  /* >= 'A' sets bit 7 */
	uint64_t gt_z = t + 0x2525252525252525ULL;  /* > 'Z' sets bit 7 */
	uint64_t up = (ge_a ^ gt_z) & ~w & h;       /* ASCII and in range */
	return w | (up >> 2);
}

void dname_tolower(uint8_t* dname)
{
	size_t len = name_len(dname), i;
	uint64_t w;
	for(i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, dname + i, 8);
		w = lower8(w);
		memcpy(dname + i, &w, 8);
	}
	for(; i < len; i++)
		dname[i] = LOWER(dname[i]);
}

void dname_tolower_words(uint8_t* p, size_t n)
{
	size_t i;
	uint64_t w;
	for(i = 0; i < n; i += 8) {
		memcpy(&w, p + i, 8);
		w = lower8(w);
		memcpy(p + i, &w, 8);
	}
}

/* The type and class after a key's name of len bytes; the key's length. */
static size_t key_suffix(uint8_t* key, size_t len, uint16_t type,
	uint16_t rclass)
{
	key[len] = (uint8_t)(type >> 8);
	key[len + 1] = (uint8_t)type;
	key[len + 2] = (uint8_t)(rclass >> 8);
	key[len + 3] = (uint8_t)rclass;
	return len + 4;
}

size_t dname_key(uint8_t* key, const uint8_t* name, size_t len,
	uint16_t type, uint16_t rclass)
{
	memcpy(key, name, len);
	dname_tolower(key);
	return key_suffix(key, len, type, rclass);
}

int query_dname_compare(const uint8_t* a, const uint8_t* b)
{
	/* Lowercase byte streams are equal exactly when the names are:
	 * label lengths are not changed by lowercasing. The order is the
	 * lowercase byte order, consistent but not DNSSEC canonical. */
	size_t la = name_len(a), lb = name_len(b);
	size_t n = la < lb ? la : lb, i;
	uint64_t x, y;
	for(i = 0; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if(x != y && lower8(x) != lower8(y))
			break;
	}
	for(; i < n; i++) {
		uint8_t ca = LOWER(a[i]), cb = LOWER(b[i]);
		if(ca != cb)
			return (int)ca - (int)cb;
	}
	return (int)la - (int)lb;
}

int dname_count_labels(const uint8_t* dname)
{
	int n = 1;
	while(*dname) {
		dname += *dname + 1;
		n++;
	}
	return n;
}

/* n bytes of two wire names equal ignoring ASCII case, a word at a
 * time (lower8 leaves label length bytes alone, so the names' labels
 * line up exactly when the bytes agree). */
int dname_same(const uint8_t* a, const uint8_t* b, size_t n)
{
	size_t i;
	uint64_t x, y;
	for(i = 0; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if(x != y && lower8(x) != lower8(y))
			return 0;
	}
	for(; i < n; i++)
		if(a[i] != b[i] && LOWER(a[i]) != LOWER(b[i]))
			return 0;
	return 1;
}

int dname_subdomain_c(const uint8_t* name, const uint8_t* zone)
{
	/* in bytes: name is below zone when its labels reach a suffix as
	 * long as zone, and that suffix is zone (one walk of each name
	 * for its length, one of name to the suffix, one compare; counting
	 * labels first and then comparing walked both names twice) */
	size_t ln = name_len(name), lz = name_len(zone);
	while(ln > lz) {
		ln -= (size_t)*name + 1;
		name += *name + 1;
	}
	return ln == lz && dname_same(name, zone, lz);
}

const uint8_t* dname_remove_label(const uint8_t* dname)
{
	if(*dname == 0)
		return dname;
	return dname + *dname + 1;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t dname_from_str(const char* str, uint8_t* out)
{
	size_t len = 0, labstart = 0;
	if(str[0] == '.' && str[1] == 0) {
		out[0] = 0;
		return 1;
	}
	if(str[0] == 0)
		return 0;
	out[0] = 0;
	len = 1;
	while(*str) {
		uint8_t c;
		if(*str == '.') {
			size_t lab = len - labstart - 1;
			if(lab == 0)
				return 0; /* empty label */
			out[labstart] = (uint8_t)lab;
			labstart = len;
			if(len >= LDNS_MAX_DOMAINLEN)
				return 0;
			out[len++] = 0;
			str++;
			continue;
		}
		if(*str == '\\') {
			str++;
			if(is_digit(str[0]) && is_digit(str[1]) && is_digit(str[2])) {
				int v = (str[0]-'0')*100 + (str[1]-'0')*10 + (str[2]-'0');
				if(v > 255)
					return 0;
				c = (uint8_t)v;
				str += 3;
			} else if(*str) {
				c = (uint8_t)*str++;
			} else	return 0;
		} else	c = (uint8_t)*str++;
		if(len - labstart > LDNS_MAX_LABELLEN || len >= LDNS_MAX_DOMAINLEN)
			return 0;
		out[len++] = c;
	}
	/* close the last label; absolute even without a trailing dot */
	if(len - labstart - 1 > 0) {
		out[labstart] = (uint8_t)(len - labstart - 1);
		if(len >= LDNS_MAX_DOMAINLEN)
			return 0;
		out[len++] = 0;
	}
	return len;
}

/* Append s to buf at *n, keeping room for the terminator. */
static void put(char* buf, size_t buflen, size_t* n, const char* s, size_t k)
{
	if(*n + k + 1 > buflen)
		k = buflen - 1 - *n;
	memcpy(buf + *n, s, k);
	*n += k;
}

void dname_to_str(const uint8_t* dname, char* buf, size_t buflen)
{
	size_t n = 0;
	uint8_t lab;
	if(buflen == 0)
		return;
	if(*dname == 0) {
		put(buf, buflen, &n, ".", 1);
		buf[n] = 0;
		return;
	}
	while((lab = *dname++) != 0) {
		while(lab--) {
			uint8_t c = *dname++;
			char esc[5];
			/* escaped as ldns does */
			if(c == '.' || c == ';' || c == '(' || c == ')' ||
				c == '\\') {
				esc[0] = '\\';
				esc[1] = (char)c;
				put(buf, buflen, &n, esc, 2);
			} else if(c <= 0x20 || c >= 0x7f) {
				esc[0] = '\\';
				esc[1] = (char)('0' + c / 100);
				esc[2] = (char)('0' + (c / 10) % 10);
				esc[3] = (char)('0' + c % 10);
				put(buf, buflen, &n, esc, 4);
			} else {
				esc[0] = (char)c;
				put(buf, buflen, &n, esc, 1);
			}
		}
		put(buf, buflen, &n, ".", 1);
	}
	buf[n] = 0;
}

/* dname_hash's steps, shared with dname_key_hash: a word at a time
 * over the lowercased name (the root label's 0 not hashed), then the
 * tail's bytes and the length. */
static inline uint64_t hash_start(uint32_t seed)
{
	return seed ^ 0x5bd1e995ULL;
}

static inline uint64_t hash_word(uint64_t h, uint64_t lowered)
{
	return hash_mix(h, lowered);
}

static inline uint32_t hash_end(uint64_t h, uint64_t lowered_tail,
	size_t n)
{
	h = (h ^ lowered_tail ^ n) * HASH_MIX_MUL;
	h ^= h >> 32;
	h *= HASH_MIX_MUL;
	return (uint32_t)(h >> 32);
}

uint32_t dname_hash(const uint8_t* dname, uint32_t seed)
{
	uint64_t h = hash_start(seed), w;
	size_t len = name_len(dname) - 1, i;
	for(i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, dname + i, 8);
		h = hash_word(h, lower8(w));
	}
	for(w = 0; i < len; i++)
		w = (w << 8) | dname[i];
	return hash_end(h, lower8(w), len);
}

size_t dname_key_hash(uint8_t* key, const uint8_t* name, size_t len,
	uint16_t type, uint16_t rclass, uint32_t seed, uint32_t* hash)
{
	/* dname_hash's steps, on the words as they are lowercased into
	 * key (a cache lookup's key and hash were two passes and two
	 * walks over the labels) */
	uint64_t h = hash_start(seed), w;
	size_t n = len - 1, i;   /* the root label's 0 is not hashed */
	for(i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, name + i, 8);
		w = lower8(w);
		memcpy(key + i, &w, 8);
		h = hash_word(h, w);
	}
	for(w = 0; i < n; i++) {
		key[i] = LOWER(name[i]);
		w = (w << 8) | key[i];
	}
	key[n] = 0;
	*hash = hash_end(h, w, n);
	return key_suffix(key, len, type, rclass);
}

static int tolower_ascii(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* compat: unbound-1.17: Both name orders below: label by label from the root,
 * each label compared by lowercased bytes; len_first: a shorter label sorts
 * first before its bytes are looked at (Unbound's trees), else only when one
 * label is a prefix of the other (RFC 4034 canonical order). A name with fewer
 * labels sorts first. */
static int label_order(const uint8_t* a, const uint8_t* b, int len_first)
{
	const uint8_t* la[LDNS_MAX_DOMAINLEN], *lb[LDNS_MAX_DOMAINLEN];
	int na = 0, nb = 0;
	for(; *a; a += *a + 1)
		la[na++] = a;
	for(; *b; b += *b + 1)
		lb[nb++] = b;
	while(na > 0 && nb > 0) {
		const uint8_t* x = la[--na], *y = lb[--nb];
		int i, n = x[0] < y[0] ? x[0] : y[0];
		if(len_first && x[0] != y[0])
			return x[0] < y[0] ? -1 : 1;
		for(i = 1; i <= n; i++) {
			int cx = tolower_ascii(x[i]), cy = tolower_ascii(y[i]);
			if(cx != cy)
				return cx < cy ? -1 : 1;
		}
		if(x[0] != y[0])
			return x[0] < y[0] ? -1 : 1;
	}
	return na == nb ? 0 : na < nb ? -1 : 1;
}

int dname_canonical_compare(const uint8_t* a, const uint8_t* b)
{
	return label_order(a, b, 0);
}

/* compat: unbound-1.17: Unbound's order of names in its trees (dname_lab_cmp);
 * not RFC 4034 canonical order ("org." sorts before "arpa."). */
int dname_tree_compare(const uint8_t* a, const uint8_t* b)
{
	return label_order(a, b, 1);
}
