/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_parse.c - compat: unbound-1.17: reading unbound.conf text:
 * tokens, clauses, include: and include-toplevel: with glob patterns. Tokens
 * follow Unbound's lexer: an option name ends at its colon
 * ("server:verbosity:1" is three tokens), a value is a quoted string or runs
 * to whitespace, and '#' starts a comment where a token would start. */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INCLUDE_DEPTH 64
#define MAX_FILE_SIZE ((size_t)1 << 30)

/* One file being read; tokens point into buf. */
struct cfg_lex {
	char* buf;
	size_t len, pos;
	int line;
};

enum tok_kind { TOK_EOF, TOK_WORD, TOK_QUOTED, TOK_BAD };

struct token {
	enum tok_kind kind;
	const char* s;
	size_t n;
	int line;
	size_t start;      /* position, to put the token back */
	int start_line;
};

static void skip_blank(struct cfg_lex* lx)
{
	while(lx->pos < lx->len) {
		char c = lx->buf[lx->pos];
		if(c == '\n') {
			lx->line++;
			lx->pos++;
		} else if(c == ' ' || c == '\t' || c == '\r') {
			lx->pos++;
		} else if(c == '#') {
			while(lx->pos < lx->len && lx->buf[lx->pos] != '\n')
				lx->pos++;
		} else	break;
	}
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* compat: unbound-1.17: Read a quoted string; the quote char is at pos.
 * Backslash pairs are kept as written (as Unbound does). */
static void read_quoted(struct cfg_parser* p, struct cfg_lex* lx,
	struct token* t)
{
	char q = lx->buf[lx->pos++];
	t->s = lx->buf + lx->pos;
	while(lx->pos < lx->len) {
		char c = lx->buf[lx->pos];
		if(c == q) {
			t->n = (size_t)(lx->buf + lx->pos - t->s);
			t->kind = TOK_QUOTED;
			lx->pos++;
			return;
		}
		if(c == '\n') {
			p->line = lx->line;
			cfg_error(p, "newline inside quoted string, no end %c",
				q);
			t->kind = TOK_BAD;
			return; /* the newline is counted by skip_blank */
		}
		if(c == '\\' && lx->pos + 1 < lx->len &&
			lx->buf[lx->pos+1] != '\n')
			lx->pos++;
		lx->pos++;
	}
	p->line = lx->line;
	cfg_error(p, "end of file inside quoted string, no end %c", q);
	t->kind = TOK_BAD;
}

/* Next token. name_mode: an unquoted token ends after its first colon. */
static void next_token(struct cfg_parser* p, struct cfg_lex* lx,
	struct token* t, int name_mode)
{
	t->start = lx->pos;
	t->start_line = lx->line;
	skip_blank(lx);
	t->line = lx->line;
	t->s = lx->buf + lx->pos;
	t->n = 0;
	if(lx->pos >= lx->len) {
		t->kind = TOK_EOF;
		return;
	}
	if(lx->buf[lx->pos] == '"' || lx->buf[lx->pos] == '\'') {
		read_quoted(p, lx, t);
		return;
	}
	while(lx->pos < lx->len) {
		char c = lx->buf[lx->pos];
		if(is_space(c) || c == '"' || c == '\'')
			break;
		if(c == '\\' && lx->pos + 1 < lx->len &&
			lx->buf[lx->pos+1] != '\n')
			lx->pos++;
		lx->pos++;
		if(name_mode && c == ':')
			break;
	}
	t->n = (size_t)(lx->buf + lx->pos - t->s);
	t->kind = TOK_WORD;
}

static void put_back(struct cfg_lex* lx, const struct token* t)
{
	lx->pos = t->start;
	lx->line = t->start_line;
}

/* An unquoted word "name:" where name is a known option or clause. */
static const struct cfg_option* word_is_option(const struct token* t)
{
	char name[64];
	if(t->kind != TOK_WORD || t->n < 2 || t->n > sizeof(name) ||
		t->s[t->n-1] != ':')
		return NULL;
	memcpy(name, t->s, t->n - 1);
	name[t->n-1] = 0;
	return cfg_option_find(name, CL_NONE);
}

/* Read the n values of option o into args (malloced). 0 on error
 * (reported; args freed). */
static int read_values(struct cfg_parser* p, struct cfg_lex* lx,
	const struct cfg_option* o, int n, char** args)
{
	int i, j;
	for(i = 0; i < n; i++) {
		struct token t;
		next_token(p, lx, &t, 0);
		if(t.kind == TOK_BAD)
			goto fail;
		if(t.kind == TOK_EOF || word_is_option(&t)) {
			put_back(lx, &t);
			cfg_error(p, "missing value for %s: (it takes %d)",
				o->name, n);
			goto fail;
		}
		if(!(args[i] = strndup(t.s, t.n))) {
			cfg_error(p, "out of memory");
			goto fail;
		}
	}
	return 1;
fail:
	for(j = 0; j < i; j++)
		free(args[j]);
	return 0;
}

static void free_args(char** args, int n)
{
	int i;
	for(i = 0; i < n; i++)
		free(args[i]);
}

static int start_clause(struct cfg_parser* p, unsigned clause)
{
	struct config_file* cfg = p->cfg;
	p->clause = clause;
	p->stub = NULL;
	p->view = NULL;
	p->auth = NULL;
	if(clause == CL_STUB || clause == CL_FORWARD) {
		struct config_stub* s = calloc(1, sizeof(*s)), **pp;
		if(!s)
			return 0;
		pp = clause == CL_STUB ? &cfg->stubs : &cfg->forwards;
		while(*pp)
			pp = &(*pp)->next;
		*pp = s;
		p->stub = s;
		return cfg_option_defaults(s, clause);
	}
	if(clause == CL_VIEW) {
		struct config_view* v = calloc(1, sizeof(*v)), **pp;
		if(!v)
			return 0;
		for(pp = &cfg->views; *pp; pp = &(*pp)->next)
			;
		*pp = v;
		p->view = v;
		return cfg_option_defaults(v, clause);
	}
	if(clause == CL_AUTH || clause == CL_RPZ) {
		struct config_auth* a = calloc(1, sizeof(*a)), **pp;
		if(!a)
			return 0;
		for(pp = &cfg->auths; *pp; pp = &(*pp)->next)
			;
		*pp = a;
		a->isrpz = clause == CL_RPZ;
		p->auth = a;
		return cfg_option_defaults(a, clause);
	}
	return 1;
}

static int parse_file(struct cfg_parser* p, const char* fname);

/* compat: unbound-1.17: Paths with these characters are glob patterns (as
 * Unbound). */
static int has_glob(const char* s)
{
	return strpbrk(s, "*?[{~") != NULL;
}

/* compat: unbound-1.17: Relative include names follow a directory: seen
 * earlier, as Unbound (which chdirs there while parsing). */
static char* include_path(struct cfg_parser* p, const char* name)
{
	size_t cl = p->chroot ? strlen(p->chroot) : 0;
	char* r;
	if(cl && strncmp(name, p->chroot, cl) == 0)
		name += cl;
	if(name[0] == '/' || name[0] == '~' || !p->incdir) {
		r = strdup(name);
	} else {
		size_t n = strlen(p->incdir) + strlen(name) + 2;
		if((r = malloc(n)))
			snprintf(r, n, "%s/%s", p->incdir, name);
	}
	return r;
}

static void include_one(struct cfg_parser* p, const char* path, int toplevel)
{
	const char* fname = p->fname;
	int line = p->line, r;
	if(p->depth >= MAX_INCLUDE_DEPTH) {
		cfg_error(p, "include files nested too deep (an include "
			"loop?): %s", path);
		return;
	}
	if(toplevel)
		(void)start_clause(p, CL_NONE);
	p->depth++;
	r = parse_file(p, path);
	p->depth--;
	p->fname = fname;
	p->line = line;
	if(r < 0)
		cfg_error(p, "cannot open include file '%s': %s", path,
			strerror(errno));
	if(toplevel)
		(void)start_clause(p, CL_NONE);
}

static void do_include(struct cfg_parser* p, const char* name, int toplevel)
{
	char* path;
	glob_t g;
	size_t i;
	int r;
	if(!name[0]) {
		cfg_error(p, "empty include file name");
		return;
	}
	if(!(path = include_path(p, name))) {
		cfg_error(p, "out of memory");
		return;
	}
	if(!has_glob(path)) {
		include_one(p, path, toplevel);
		free(path);
		return;
	}
	memset(&g, 0, sizeof(g));
	r = glob(path, GLOB_ERR | GLOB_BRACE | GLOB_TILDE, NULL, &g);
	if(r == 0) {
		for(i = 0; i < g.gl_pathc; i++)
			include_one(p, g.gl_pathv[i], toplevel);
	} else if(r == GLOB_NOMATCH) {
		if(toplevel)
			(void)start_clause(p, CL_NONE);
	} else {
		cfg_error(p, "include: cannot expand '%s': %s", path,
			r == GLOB_NOSPACE ? "out of memory" : strerror(errno));
	}
	globfree(&g);
	free(path);
}

/* After an option name that is wrong, skip the rest of its line. */
static void skip_line(struct cfg_parser* p, struct cfg_lex* lx, int line)
{
	struct token t;
	for(;;) {
		next_token(p, lx, &t, 1);
		if(t.kind == TOK_EOF || t.kind == TOK_BAD)
			return;
		if(t.line != line || (t.kind == TOK_WORD && t.n &&
			t.s[t.n-1] == ':')) {
			put_back(lx, &t);
			return;
		}
	}
}

static void set_incdir(struct cfg_parser* p, const char* dir)
{
	size_t cl = p->chroot ? strlen(p->chroot) : 0;
	char* d;
	if(cl && strncmp(dir, p->chroot, cl) == 0)
		dir += cl;
	if(!dir[0])
		return;
	if(!(d = include_path(p, dir))) {
		cfg_error(p, "out of memory");
		return;
	}
	free(p->incdir);
	p->incdir = d;
}

static void statement(struct cfg_parser* p, struct cfg_lex* lx,
	const struct token* t)
{
	char name[64], *args[3];
	const struct cfg_option* o;
	int n;
	if(t->kind == TOK_QUOTED || t->n < 2 || t->s[t->n-1] != ':') {
		cfg_error(p, "syntax error: '%.*s' is not an option name "
			"(those end with ':')", (int)(t->n > 200 ? 200 : t->n),
			t->s);
		skip_line(p, lx, t->line);
		return;
	}
	if(t->n > sizeof(name)) {
		cfg_error(p, "unknown option '%.*s'", 64, t->s);
		skip_line(p, lx, t->line);
		return;
	}
	memcpy(name, t->s, t->n - 1);
	name[t->n - 1] = 0;
	o = cfg_option_find(name, p->clause);
	if(o && p->clause == CL_NONE && o->type != CT_CLAUSE &&
		o->type != CT_INCLUDE && o->type != CT_INCLUDE_TOP)
		o = NULL; /* outside a clause only clauses and includes */
	if(!o) {
		const struct cfg_option* any = cfg_option_find(name, CL_NONE);
		if(!any)
			cfg_error(p, "unknown option '%s:'", name);
		else if(p->clause == CL_NONE)
			cfg_error(p, "option '%s:' must be inside a clause, "
				"such as %s: (is a clause missing after an "
				"include-toplevel:?)", name,
				cfg_clause_name(any->clauses & -any->clauses));
		else	cfg_error(p, "option '%s:' is not valid in clause "
				"'%s:' (it belongs in %s:)", name,
				cfg_clause_name(p->clause),
				cfg_clause_name(any->clauses & -any->clauses));
		skip_line(p, lx, t->line);
		return;
	}
	if(o->type == CT_CLAUSE) {
		if(!start_clause(p, o->clauses))
			cfg_error(p, "out of memory");
		return;
	}
	n = cfg_option_nargs(o);
	if(!read_values(p, lx, o, n, args))
		return;
	p->line = t->line;
	if((o->type == CT_INCLUDE || o->type == CT_INCLUDE_TOP) &&
		p->no_include) {
		cfg_error(p, "%s: is not followed in this text", o->name);
	} else if(o->type == CT_INCLUDE || o->type == CT_INCLUDE_TOP) {
		do_include(p, args[0], o->type == CT_INCLUDE_TOP);
	} else if(cfg_option_apply(p, o, args) &&
		strcmp(o->name, "directory") == 0 && p->clause == CL_SERVER) {
		set_incdir(p, args[0]);
	}
	free_args(args, n);
}

/* Load a file into memory. NULL with errno set on failure. */
static char* load_file(const char* fname, size_t* len)
{
	FILE* in = fopen(fname, "r");
	char* buf = NULL;
	size_t cap = 0, n = 0;
	if(!in)
		return NULL;
	for(;;) {
		size_t r;
		if(n + 4096 > cap) {
			char* nb;
			if(cap >= MAX_FILE_SIZE) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap ? cap * 2 : 8192;
			if(!(nb = realloc(buf, cap))) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, in);
		n += r;
		if(r == 0) {
			if(ferror(in))
				goto fail;
			break;
		}
	}
	fclose(in);
	*len = n;
	return buf;
fail:
	fclose(in);
	free(buf);
	return NULL;
}

/* Parse the text buf (len bytes; modified in place by the lexer, and
 * freed here) as the file fname. */
static void parse_text(struct cfg_parser* p, const char* fname, char* buf,
	size_t len)
{
	struct cfg_lex lx;
	struct token t;
	memset(&lx, 0, sizeof(lx));
	lx.buf = buf;
	lx.len = len;
	lx.line = 1;
	p->fname = fname;
	p->line = 1;
	if(memchr(lx.buf, 0, lx.len)) {
		cfg_error(p, "the file contains a NUL byte, it is not a "
			"text file");
		free(lx.buf);
		return;
	}
	for(;;) {
		next_token(p, &lx, &t, 1);
		if(t.kind == TOK_EOF)
			break;
		p->line = t.line;
		if(t.kind == TOK_BAD)
			continue;
		statement(p, &lx, &t);
		p->fname = fname;
	}
	free(lx.buf);
}

/* Parse one file; -1 (errno set) when it cannot be read. */
static int parse_file(struct cfg_parser* p, const char* fname)
{
	size_t len;
	char* buf = load_file(fname, &len);
	if(!buf)
		return -1;
	parse_text(p, fname, buf, len);
	return 0;
}

int config_read_text(struct config_file* cfg, const char* name,
	const char* text, size_t len)
{
	struct cfg_parser p;
	char* buf = malloc(len ? len : 1);
	if(!cfg || !buf) {
		free(buf);
		return 0;
	}
	if(len)
		memcpy(buf, text, len);
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.no_include = 1;
	parse_text(&p, name, buf, len);
	free(p.incdir);
	if(p.errors) {
		fprintf(stderr, "read %s failed: %d errors in configuration "
			"file\n", name, p.errors);
		return 0;
	}
	return 1;
}

int config_read(struct config_file* cfg, const char* filename,
	const char* chroot)
{
	struct cfg_parser p;
	const char* fname = filename;
	size_t cl = chroot ? strlen(chroot) : 0;
	glob_t g;
	size_t i;
	if(!cfg || !filename)
		return 0;
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.chroot = chroot;
	if(cl && strncmp(fname, chroot, cl) == 0)
		fname += cl;
	if(!cfg->filename || strcmp(cfg->filename, filename) != 0) {
		char* f = strdup(filename);
		if(!f) {
			fprintf(stderr, "%s: error: out of memory\n", filename);
			return 0;
		}
		free(cfg->filename);
		cfg->filename = f;
	}
	if(has_glob(fname)) {
		int r;
		memset(&g, 0, sizeof(g));
		r = glob(fname, GLOB_ERR | GLOB_BRACE | GLOB_TILDE, NULL, &g);
		if(r != 0) {
			fprintf(stderr, "%s: error: no config file matches\n",
				fname);
			p.errors++;
		}
		for(i = 0; r == 0 && i < g.gl_pathc; i++) {
			if(parse_file(&p, g.gl_pathv[i]) < 0) {
				fprintf(stderr, "%s: error: cannot open config "
					"file: %s\n", g.gl_pathv[i],
					strerror(errno));
				p.errors++;
			}
		}
		globfree(&g);
	} else if(parse_file(&p, fname) < 0) {
		fprintf(stderr, "%s: error: cannot open config file: %s\n",
			fname, strerror(errno));
		p.errors++;
	}
	free(p.incdir);
	if(p.errors) {
		fprintf(stderr, "read %s failed: %d errors in configuration "
			"file\n", filename, p.errors);
		return 0;
	}
	return 1;
}
