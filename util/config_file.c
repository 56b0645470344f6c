/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_file.c - struct config_file: create with defaults, free,
 * print an option (unbound-checkconf -o), list what is not implemented,
 * and the checks across options that unbound-checkconf does. */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The cached last node of the list at head, NULL if unknown. */
static struct cfg_tail* tail_find(struct cfg_parser* p, void* head)
{
	int i;
	for(i = 0; i < CFG_TAILS; i++)
		if(p->tails[i].head == head)
			return &p->tails[i];
	return NULL;
}

static void tail_set(struct cfg_parser* p, void* head, void* tail)
{
	struct cfg_tail* t = tail_find(p, head);
	if(!t) {
		t = &p->tails[p->tail_next];
		p->tail_next = (p->tail_next + 1) % CFG_TAILS;
		t->head = head;
	}
	t->tail = tail;
}

int cfg_parser_strlist_append(struct cfg_parser* p,
	struct config_strlist** head, const char* s)
{
	struct config_strlist* n = calloc(1, sizeof(*n));
	struct cfg_tail* t = p ? tail_find(p, head) : NULL;
	void* key = head;
	if(!n || !(n->str = strdup(s))) {
		free(n);
		return 0;
	}
	if(t && t->tail && !((struct config_strlist*)t->tail)->next)
		((struct config_strlist*)t->tail)->next = n;
	else {
		while(*head)
			head = &(*head)->next;
		*head = n;
	}
	if(p)
		tail_set(p, key, n);
	return 1;
}

int cfg_parser_str2list_append(struct cfg_parser* p,
	struct config_str2list** head, const char* s1, const char* s2)
{
	struct config_str2list* n = calloc(1, sizeof(*n));
	struct cfg_tail* t = p ? tail_find(p, head) : NULL;
	void* key = head;
	if(!n || !(n->str = strdup(s1)) || !(n->str2 = strdup(s2))) {
		if(n)
			free(n->str);
		free(n);
		return 0;
	}
	if(t && t->tail && !((struct config_str2list*)t->tail)->next)
		((struct config_str2list*)t->tail)->next = n;
	else {
		while(*head)
			head = &(*head)->next;
		*head = n;
	}
	if(p)
		tail_set(p, key, n);
	return 1;
}

int cfg_strlist_append(struct config_strlist** head, const char* s)
{
	return cfg_parser_strlist_append(NULL, head, s);
}

int cfg_str2list_append(struct config_str2list** head, const char* s1,
	const char* s2)
{
	return cfg_parser_str2list_append(NULL, head, s1, s2);
}

void cfg_strlist_delete(struct config_strlist* p)
{
	while(p) {
		struct config_strlist* n = p->next;
		free(p->str);
		free(p);
		p = n;
	}
}

void cfg_str2list_free(struct config_str2list* p)
{
	while(p) {
		struct config_str2list* n = p->next;
		free(p->str);
		free(p->str2);
		free(p);
		p = n;
	}
}

/* Free the fields the table knows for the rows of clause; a field shared
 * by two rows (aliases) is set to NULL after the first. */
static void free_fields(void* base, unsigned clause)
{
	size_t i;
	for(i = 0; i < cfg_options_num; i++) {
		const struct cfg_option* o = &cfg_options[i];
		char* f;
		if(!(o->clauses & clause) || o->off == CFG_NOFIELD ||
			o->type == CT_CLAUSE)
			continue;
		f = (char*)base + o->off;
		if(o->type == CT_STR) {
			free(*(char**)f);
			*(char**)f = NULL;
		} else if(o->type == CT_STRLIST && (o->flags & CFGF_NAMED)) {
			cfg_str2list_free(*(struct config_str2list**)f);
			*(struct config_str2list**)f = NULL;
		} else if(o->type == CT_STRLIST) {
			cfg_strlist_delete(*(struct config_strlist**)f);
			*(struct config_strlist**)f = NULL;
		} else if(o->type == CT_STR2LIST || o->type == CT_STR3) {
			cfg_str2list_free(*(struct config_str2list**)f);
			*(struct config_str2list**)f = NULL;
		}
	}
}

static void free_stubs(struct config_stub* s, unsigned clause)
{
	while(s) {
		struct config_stub* n = s->next;
		free_fields(s, clause);
		free(s);
		s = n;
	}
}

void config_delete(struct config_file* cfg)
{
	if(!cfg)
		return;
	free_fields(cfg, CL_FIELDS);
	free(cfg->filename);
	free(cfg->module_conf_where);
	cfg_strlist_delete(cfg->local_zones_nodefault);
	cfg_str2list_free(cfg->unimplemented);
	cfg_str2list_free(cfg->notbuilt);
	free_stubs(cfg->stubs, CL_STUB);
	free_stubs(cfg->forwards, CL_FORWARD);
	while(cfg->views) {
		struct config_view* n = cfg->views->next;
		free_fields(cfg->views, CL_VIEW);
		free(cfg->views);
		cfg->views = n;
	}
	while(cfg->auths) {
		struct config_auth* n = cfg->auths->next;
		free_fields(cfg->auths, CL_AUTH | CL_RPZ);
		free(cfg->auths);
		cfg->auths = n;
	}
	free(cfg);
}

struct config_file* config_create(void)
{
	struct config_file* cfg = calloc(1, sizeof(*cfg));
	if(!cfg)
		return NULL;
	if(!cfg_option_defaults(cfg, CL_FIELDS)) {
		config_delete(cfg);
		return NULL;
	}
	return cfg;
}

/* compat: unbound-1.17: Print one value of o, normalised as Unbound prints it
 * ("4m" as 4194304). */
static void print_text(const struct cfg_option* o, const char* v, FILE* out)
{
	size_t sz;
	if((o->type == CT_MEMSIZE || o->type == CT_NUMSIZE) &&
		cfg_parse_memsize(v, &sz))
		fprintf(out, "%zu\n", sz);
	else if(o->type == CT_INT && (o->flags & CFGF_EMPTY0) && !v[0])
		fprintf(out, "0\n");
	else	fprintf(out, "%s\n", v);
}

static void print_field(const struct cfg_option* o, const char* f, FILE* out)
{
	const struct config_strlist* s;
	const struct config_str2list* s2;
	switch(o->type) {
	case CT_YESNO:
		fprintf(out, "%s\n", *(const int*)f ? "yes" : "no");
		break;
	case CT_INT:
		fprintf(out, "%d\n", *(const int*)f);
		break;
	case CT_NUMSIZE:
	case CT_MEMSIZE:
		fprintf(out, "%zu\n", *(const size_t*)f);
		break;
	case CT_DATE:
		/* compat: unbound-1.17: Unbound prints its 32-bit field
		 * unsigned: -1 as 4294967295 */
		if(*(const long long*)f < 0)
			fprintf(out, "%u\n", (unsigned)*(const long long*)f);
		else	fprintf(out, "%lld\n", *(const long long*)f);
		break;
	case CT_STR:
		fprintf(out, "%s\n", *(char* const*)f ? *(char* const*)f : "");
		break;
	case CT_STRLIST:
		if(o->flags & CFGF_NAMED) {
			for(s2 = *(struct config_str2list* const*)f; s2;
				s2 = s2->next)
				if(strcmp(s2->str, o->name) == 0)
					fprintf(out, "%s\n", s2->str2);
			break;
		}
		for(s = *(struct config_strlist* const*)f; s; s = s->next)
			fprintf(out, "%s\n", s->str);
		break;
	case CT_STR2LIST:
	case CT_STR3:
		for(s2 = *(struct config_str2list* const*)f; s2; s2 = s2->next)
			fprintf(out, "%s %s\n", s2->str, s2->str2);
		break;
	default:
		break;
	}
}

int config_print_option(struct config_file* cfg, const char* opt, FILE* out)
{
	const struct cfg_option* o = cfg_option_find(opt, CL_FIELDS);
	const struct config_str2list* u, *last = NULL;
	size_t n = strlen(opt);
	int list;
	if(!o)
		o = cfg_option_find(opt, CL_NONE);
	if(!cfg || !o || o->type == CT_CLAUSE || o->type == CT_INCLUDE ||
		o->type == CT_INCLUDE_TOP)
		return 0;
	if((o->clauses & CL_FIELDS) &&
		o->off != CFG_NOFIELD) {
		print_field(o, (const char*)cfg + o->off, out);
		return 1;
	}
	/* no field: the values as set, else the default */
	list = o->type == CT_STRLIST || o->type == CT_STR2LIST ||
		o->type == CT_STR3;
	for(u = (o->flags & CFGF_NOTBUILT) ? cfg->notbuilt :
		cfg->unimplemented; u; u = u->next) {
		size_t l = strlen(u->str);
		if(l <= n || u->str[l-n-1] != ':' ||
			strcmp(u->str + l - n, opt) != 0)
			continue;
		if(list)
			fprintf(out, "%s\n", u->str2);
		last = u;
	}
	if(list)
		return 1;
	if(last)
		print_text(o, last->str2, out);
	else	print_text(o, o->def ? o->def : "", out);
	return 1;
}

void config_log_unimplemented(struct config_file* cfg)
{
	const struct config_str2list* u;
	const char** seen = NULL;
	size_t nseen = 0, cap = 0, i;
	if(!cfg)
		return;
	for(u = cfg->unimplemented; u; u = u->next) {
		for(i = 0; i < nseen; i++)
			if(strcmp(seen[i], u->str) == 0)
				break;
		if(i < nseen)
			continue;
		if(nseen == cap) {
			const char** ns = realloc(seen,
				(cap = cap ? cap * 2 : 32) * sizeof(*seen));
			if(!ns)
				break;
			seen = ns;
		}
		seen[nseen++] = u->str;
		verbose(VERB_OPS, "option %s is not implemented yet, ignored",
			u->str);
	}
	free(seen);
}

static void check_err(struct config_file* cfg, int* ok, const char* format,
	...) __attribute__((format(printf, 3, 4)));

static void check_err(struct config_file* cfg, int* ok, const char* format,
	...)
{
	va_list args;
	fprintf(stderr, "%s: error: ", cfg->filename ? cfg->filename :
		"config");
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	*ok = 0;
}

static void check_interface(struct config_file* cfg, int* ok, const char* s)
{
	char err[512];
	if(!cfg_ifspec_ok(s, 1, err, sizeof(err)))
		check_err(cfg, ok, "%s", err);
}

static void check_names(struct config_file* cfg, int* ok)
{
	const struct config_stub* s;
	const struct config_view* v;
	const struct config_auth* a;
	for(s = cfg->stubs; s; s = s->next)
		if(!s->name)
			check_err(cfg, ok, "stub-zone without name");
	for(s = cfg->forwards; s; s = s->next)
		if(!s->name)
			check_err(cfg, ok, "forward-zone without name");
	for(v = cfg->views; v; v = v->next)
		if(!v->name)
			check_err(cfg, ok, "view without name");
	for(a = cfg->auths; a; a = a->next)
		if(!a->name)
			check_err(cfg, ok, "%s without name",
				a->isrpz ? "rpz" : "auth-zone");
}

int cfg_tls_protocols_parse(const char* s, int* tls12, int* tls13)
{
	*tls12 = *tls13 = 0;
	while(s && *s) {
		size_t n;
		while(*s == ' ' || *s == '\t')
			s++;
		n = strcspn(s, " \t");
		if(n == 7 && strncmp(s, "TLSv1.2", 7) == 0)
			*tls12 = 1;
		else if(n == 7 && strncmp(s, "TLSv1.3", 7) == 0)
			*tls13 = 1;
		else if(n)
			return 0;
		s += n;
	}
	return 1;
}

int config_check(struct config_file* cfg)
{
	int tls12, tls13;
	const struct config_strlist* p;
	int ok = 1;
	if(!cfg)
		return 0;
	if(cfg->verbosity < 0)
		check_err(cfg, &ok, "verbosity value < 0");
	if(cfg->num_threads < 1 || cfg->num_threads > 10000)
		check_err(cfg, &ok, "num-threads: %d is out of range 1..10000",
			cfg->num_threads);
	if(cfg->port < 1 || cfg->port > 65535)
		check_err(cfg, &ok, "port: %d is out of range 1..65535",
			cfg->port);
	for(p = cfg->ifs; p; p = p->next)
		check_interface(cfg, &ok, p->str);
	if(!cfg->do_ip4 && !cfg->do_ip6)
		check_err(cfg, &ok, "ip4 and ip6 are both disabled, pointless");
	if(!cfg->do_udp && !cfg->do_tcp)
		check_err(cfg, &ok, "udp and tcp are both disabled, pointless");
	if(cfg->edns_buffer_size < 512 || cfg->edns_buffer_size > 65535)
		check_err(cfg, &ok, "edns-buffer-size: %zu is out of range "
			"512..65535", cfg->edns_buffer_size);
	if(cfg->msg_buffer_size < 4096)
		check_err(cfg, &ok, "msg-buffer-size: %zu is too small (use "
			"4096 or more)", cfg->msg_buffer_size);
	/* compat: unbound-1.26: words TLSv1.2 and TLSv1.3 only, any order;
	 * none (an empty string) is accepted and then serves no version */
	if(!cfg_tls_protocols_parse(cfg->tls_protocols, &tls12, &tls13))
		check_err(cfg, &ok, "tls-protocols: \"%s\" is not a list of "
			"TLSv1.2 and TLSv1.3", cfg->tls_protocols);
	if(cfg->incoming_num_tcp < 0)
		check_err(cfg, &ok, "incoming-num-tcp: must not be negative");
	if(cfg->tcp_idle_timeout < 0)
		check_err(cfg, &ok, "tcp-idle-timeout: must not be negative");
	if(cfg->so_rcvbuf > (size_t)1 << 30 || cfg->so_sndbuf > (size_t)1 << 30)
		check_err(cfg, &ok, "so-rcvbuf/so-sndbuf: more than 1g");
	check_names(cfg, &ok);
	/* compat: unbound-1.17: as Unbound, which says it while parsing */
	if(cfg->fake_dsa)
		log_warn("test option fake_dsa is enabled");
	if(cfg->fake_sha1)
		log_warn("test option fake_sha1 is enabled");
	return ok;
}

int config_check_start(const struct config_file* cfg)
{
	/* compat: unbound-1.17: Unbound built without dnscrypt refuses to
	 * start (its unbound-checkconf accepts the config, as ours) */
	if(cfg->dnscrypt_enable) {
		log_err("dnscrypt enabled in config but unbound was not built "
			"with dnscrypt support");
		return 0;
	}
	return 1;
}

char* cfg_fname_after_chroot(const char* fname, struct config_file* cfg,
	int use_chdir)
{
	const char* chr = cfg->chrootdir && cfg->chrootdir[0] ?
		cfg->chrootdir : NULL;
	size_t cl = chr ? strlen(chr) : 0, len;
	const char* dir = NULL;
	char* r;
	if(chr && strncmp(chr, fname, cl) == 0)
		return strdup(fname); /* already a full path */
	if(fname[0] != '/' && use_chdir && cfg->directory &&
		cfg->directory[0]) {
		dir = cfg->directory;
		if(chr && strncmp(chr, dir, cl) == 0)
			dir += cl;
	}
	len = cl + (dir ? strlen(dir) + 1 : 0) + strlen(fname) + 1;
	if(!(r = malloc(len)))
		return NULL;
	snprintf(r, len, "%s%s%s%s", chr ? chr : "", dir ? dir : "",
		dir ? "/" : "", fname);
	return r;
}
