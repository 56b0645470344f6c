/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_options.h - the option table of unbound.conf; private to
 * util/config_*.c. One row says, for one option name in one or more
 * clauses: its value type, where the value is stored (offset into the
 * clause's struct, or a handler), whether this daemon implements it, and
 * its default as text (the same text a config file would hold). */
#ifndef UTIL_CONFIG_OPTIONS_H
#define UTIL_CONFIG_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

struct config_file;
struct config_strlist;
struct config_str2list;
struct config_stub;
struct config_view;
struct config_auth;

/* Clauses, as bits so one row can belong to several. */
enum cfg_clause {
	CL_NONE = 0,
	CL_SERVER = 1 << 0, CL_REMOTE = 1 << 1, CL_STUB = 1 << 2,
	CL_FORWARD = 1 << 3, CL_AUTH = 1 << 4, CL_VIEW = 1 << 5,
	CL_PYTHON = 1 << 6, CL_DYNLIB = 1 << 7, CL_DNSCRYPT = 1 << 8,
	CL_CACHEDB = 1 << 9, CL_DNSTAP = 1 << 10, CL_RPZ = 1 << 11,
	CL_IPSET = 1 << 12
};
/* The clauses whose options have fields in struct config_file. */
#define CL_FIELDS (CL_SERVER | CL_REMOTE | CL_CACHEDB | CL_DNSTAP | \
	CL_DNSCRYPT)

enum cfg_type {
	CT_CLAUSE,      /* starts a clause; no value */
	CT_INCLUDE,     /* include: pattern */
	CT_INCLUDE_TOP, /* include-toplevel: pattern */
	CT_YESNO,       /* "yes"/"no" into an int */
	CT_INT,         /* a number into an int */
	CT_NUMSIZE,     /* a plain non-negative number into a size_t */
	CT_MEMSIZE,     /* number with k/m/g into a size_t */
	CT_STR,         /* a string (char*), a later one replaces */
	CT_STRLIST,     /* strings accumulate (config_strlist, file order) */
	CT_STR2LIST,    /* two values a line (config_str2list, file order) */
	CT_STR3,        /* three values a line; no field, kept as text */
	CT_DATE         /* val-override-date: YYYYMMDDHHMMSS or a number of
	                 * seconds ("" and "0": none) into a long long */
};

/* flags */
#define CFGF_NUM2   0x1 /* second of two values must be a number */
#define CFGF_EMPTY0 0x2 /* "" is accepted as 0 (statistics-interval) */
#define CFGF_OBSOLETE 0x4 /* accepted, any value, ignored; Unbound's note
                           * logged (obsolete_note) */
#define CFGF_POW2   0x8 /* number must be a power of 2 (slabs) */
#define CFGF_IFSPEC 0x10 /* an address[@port], checked as interface: */
#define CFGF_NAMED  0x20 /* a CT_STRLIST row whose field is a
                          * config_str2list shared with other rows: each
                          * value is appended as (option name, value),
                          * so the rows keep file order between them */
#define CFGF_NSEC3ITER 0x40 /* "keysize iterations ..." pairs, ascending
                             * key sizes (val-nsec3-keysize-iterations) */
#define CFGF_MODULES 0x80 /* module-config: a string here; where it was
                           * set is kept (cfg->module_conf_where) for
                           * the daemon's and unbound-checkconf's check
                           * (services/modstack.h) */
#define CFGF_DNS64PREFIX 0x100 /* an RFC 6052 prefix (dns64-prefix:
                                * dns64/dns64_synth.h) */
#define CFGF_DNAME 0x200 /* a domain name */
#define CFGF_RESPIPACT 0x400 /* response-ip: the action a respip one */
#define CFGF_NSID 0x800 /* nsid: hex or ascii_TEXT (cfg_nsid_parse) */
#define CFGF_NOTBUILT 0x1000 /* of a feature this daemon does not have:
                              * checked, no effect, as in an Unbound
                              * configured without it */
/* compat: unbound-1.17: unlike Unbound (any length), an NSID of at most
 * this many bytes: its option goes into replies of any size */
#define CFG_NSID_MAX 1024

#define CFG_NOFIELD ((size_t)-1)

struct cfg_parser;
struct cfg_option;

/* Special storage; returns 0 after reporting an error with cfg_error. */
typedef int (*cfg_handler_t)(struct cfg_parser* p,
	const struct cfg_option* o, char** args);

struct cfg_option {
	const char* name;      /* without the colon */
	unsigned clauses;      /* enum cfg_clause bits */
	enum cfg_type type;
	size_t off;            /* into the clause's struct, or CFG_NOFIELD */
	cfg_handler_t handler; /* NULL: store by type at off */
	int implemented;       /* 1: this daemon acts on it as Unbound does
	                        * (CFGF_OBSOLETE, CFGF_NOTBUILT: by taking
	                        * it without effect, as Unbound) */
	unsigned flags;
	const char* def;       /* default as config text; NULL: none/unset */
	long long min, max;    /* numbers: allowed range, unless both 0 */
};

/* Last node of a list being appended to, so appending is O(1). */
struct cfg_tail {
	void* head;   /* address of the list head pointer */
	void* tail;   /* its last node */
};
#define CFG_TAILS 32

/* State of one config_read: shared by nested include files. */
struct cfg_parser {
	struct config_file* cfg;
	const char* chroot;      /* stripped from include paths */
	const char* fname;       /* file being read (for messages) */
	int line;                /* line being read */
	int errors;
	int depth;               /* include nesting */
	char* incdir;            /* relative includes: from directory: */
	int no_include;          /* config_read_text: include: is an error */
	unsigned clause;         /* current clause bit, CL_NONE outside */
	struct config_stub* stub;   /* current stub-/forward-zone */
	struct config_view* view;   /* current view */
	struct config_auth* auth;   /* current auth-zone/rpz */
	struct cfg_tail tails[CFG_TAILS];
	int tail_next;              /* slot to reuse when full */
};

extern const struct cfg_option cfg_options[];
extern const size_t cfg_options_num;

/* Row for name valid in clause (CL_NONE: any clause, clause rows
 * first); NULL if none. */
const struct cfg_option* cfg_option_find(const char* name, unsigned clause);
/* Name of a clause bit ("server"). */
const char* cfg_clause_name(unsigned clause);
/* Number of values the option takes. */
int cfg_option_nargs(const struct cfg_option* o);
/* Check and store the values; records unimplemented ones. 0 on error
 * (reported). */
int cfg_option_apply(struct cfg_parser* p, const struct cfg_option* o,
	char** args);
/* Set the table defaults of the rows of clause into base. 0 on malloc
 * failure. */
int cfg_option_defaults(void* base, unsigned clause);
/* Print the error "FILE:LINE: error: ..." and count it. */
void cfg_error(struct cfg_parser* p, const char* format, ...)
	__attribute__((format(printf, 2, 3)));
/* Is s an interface "address[@port]" (IPv6 with %scope allowed), or
 * with names set an existing interface's name[@port]? When not, a
 * message is put in err. */
/* compat: unbound-1.17: nsid: as Unbound reads it: "ascii_" and the
 * text, or an even number of hex digits. The option's data into out (cap
 * bytes); returns its length, -1 when s is neither or longer than cap.
 * "" is no NSID (0). */
int cfg_nsid_parse(const char* s, uint8_t* out, size_t cap);

int cfg_ifspec_ok(const char* s, int names, char* err, size_t errlen);
/* Append to lists, keeping file order. 0 on malloc failure; the strings
 * are copied. */
int cfg_strlist_append(struct config_strlist** head, const char* s);
int cfg_str2list_append(struct config_str2list** head, const char* s1,
	const char* s2);
/* The same, O(1) for lists appended to during this read (p may be
 * NULL). */
int cfg_parser_strlist_append(struct cfg_parser* p,
	struct config_strlist** head, const char* s);
int cfg_parser_str2list_append(struct cfg_parser* p,
	struct config_str2list** head, const char* s1, const char* s2);
void cfg_strlist_delete(struct config_strlist* p);
void cfg_str2list_free(struct config_str2list* p);

#endif
