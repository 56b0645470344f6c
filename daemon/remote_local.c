/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_local.c - compat: unbound-1.17: the local zone commands of
 * unbound-control: local_zone, local_zone_remove, local_data,
 * local_data_remove, their bulk forms that read lines after the command
 * (local_zones, ...), and list_local_zones / list_local_data. Answers as
 * Unbound 1.17 words them.
 *
 * A change is made on a copy of the current local zones and published
 * as a new serve_env (daemon_env_publish), so workers never see a
 * structure being changed; a bulk command applies all its lines to one
 * copy when its input ends, so two clients at once do not undo each
 * other. As in Unbound, a reload forgets these changes. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "daemon/remote.h"
#include "daemon/daemon_xfr.h"
#include "services/authzone.h"
#include "services/xfr_source.h"
#include "services/localzone.h"
#include "services/view.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/strutil.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

enum lz_op { OP_ZONE, OP_ZONE_REMOVE, OP_DATA, OP_DATA_REMOVE };

/* compat: unbound-1.17: Unbound's find_arg2: cut arg at its first blank; the
 * rest, without leading blanks, is the second argument. */
int rc_find_arg2(char* arg, char** arg2, struct strbuf* b)
{
	char* s = arg;
	while(*s && *s != ' ' && *s != '\t')
		s++;
	if(!*s) {
		strbuf_printf(b, "error could not find next argument after "
			"%s\n", arg);
		return 0;
	}
	*s = 0;
	*arg2 = str_skip_blank(s + 1);
	return 1;
}

/* Apply one line of op to lz (a private copy); errors go to b. Sets
 * *removed when something was removed (lz then needs compacting). */
static int apply_op(struct local_zones* lz, enum lz_op op, char* arg,
	int line, int* removed, struct strbuf* b)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	char* arg2;
	enum localzone_type t;
	arg = str_skip_blank(arg);
	switch(op) {
	case OP_ZONE:
		if(!rc_find_arg2(arg, &arg2, b) || !rc_parse_name(arg, nm, b))
			return 0;
		if((t = local_zone_str2type(arg2)) == local_zone_invalid) {
			strbuf_printf(b, "error not a zone type. %s\n", arg2);
			return 0;
		}
		if(!local_zones_set_zone(lz, nm, t)) {
			strbuf_printf(b, "error out of memory\n");
			return 0;
		}
		return 1;
	case OP_ZONE_REMOVE:
		if(!rc_parse_name(arg, nm, b))
			return 0;
		if(local_zones_remove_zone(lz, nm))
			*removed = 1;
		return 1;
	case OP_DATA:
		/* compat: unbound-1.17: the text is checked first: ldns takes
		 * some text that Unbound refuses ("name. BOGUS")
		 */
		if(!rc_rr_check(arg, line, b))
			return 0;
		if(!local_zones_add_rr(lz, arg)) {
			rc_rr_refused(arg, line, b);
			return 0;
		}
		return 1;
	case OP_DATA_REMOVE:
		if(!rc_parse_name(arg, nm, b))
			return 0;
		local_zones_remove_data(lz, nm);
		*removed = 1;
		return 1;
	}
	return 0;
}

/* Publish lz (a private, edited copy) with a copy of the config. */
static int publish(struct daemon_remote* rc, struct local_zones* lz,
	int removed, struct strbuf* b)
{
	struct config_file* cfg;
	struct serve_env* env;
	if(removed) {
		struct local_zones* c = local_zones_copy(lz);
		local_zones_delete(lz);
		if(!(lz = c)) {
			strbuf_printf(b, "error out of memory\n");
			return 0;
		}
	}
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		local_zones_delete(lz);
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	if(!(env = serve_env_derive(cfg, lz, rc->d->env))) {
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	daemon_env_publish(rc->d, env);
	return 1;
}

static void do_single(struct daemon_remote* rc, enum lz_op op, char* arg,
	struct strbuf* b)
{
	struct local_zones* lz = local_zones_copy(rc->d->env->lz);
	int removed = 0;
	if(!lz) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	if(!apply_op(lz, op, arg, 0, &removed, b)) {
		local_zones_delete(lz);
		return;
	}
	if(publish(rc, lz, removed, b))
		strbuf_printf(b, "ok\n");
}

static void out_line(void* arg, const char* line)
{
	strbuf_printf(arg, "%s", line);
}

/* ---- views: view_local_zone, view_local_data, ... ---- */

/* compat: unbound-1.17: A copy of the views to edit, *v the one named (NULL
 * and "no view with name: NAME" when there is none). create: a view without
 * local zones gets an empty set, with Unbound's default zones when
 * defaults is set and the view is not view-first (view_local_zone does
 * so, view_local_data not, as Unbound). */
static struct views* view_edit_start(struct daemon_remote* rc,
	const char* name, int create, int defaults, struct view** v,
	struct strbuf* b)
{
	struct views* vs;
	if(!views_find(rc->d->env->views, name)) {
		strbuf_printf(b, "no view with name: %s\n", name);
		return NULL;
	}
	if(!(vs = views_copy(rc->d->env->views))) {
		strbuf_printf(b, "error out of memory\n");
		return NULL;
	}
	*v = views_find(vs, name);
	if(create && !(*v)->lz && !((*v)->lz = local_zones_create_view(NULL,
		NULL, NULL, defaults && !(*v)->isfirst, 0,
		rc->d->env->cfg))) {
		views_delete(vs);
		strbuf_printf(b, "error out of memory\n");
		return NULL;
	}
	return vs;
}

/* Publish the edited views vs (taken over) with copies of the global
 * zones and the config. */
static int view_publish(struct daemon_remote* rc, struct views* vs,
	struct view* v, int removed, struct strbuf* b)
{
	struct config_file* cfg;
	struct local_zones* lz;
	struct serve_env* env;
	if(removed && v->lz) {
		struct local_zones* c = local_zones_copy(v->lz);
		if(!c) {
			views_delete(vs);
			strbuf_printf(b, "error out of memory\n");
			return 0;
		}
		local_zones_delete(v->lz);
		v->lz = c;
	}
	if(!(lz = local_zones_copy(rc->d->env->lz))) {
		views_delete(vs);
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		views_delete(vs);
		local_zones_delete(lz);
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	if(!(env = serve_env_derive_views(cfg, lz, vs, rc->d->env))) {
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	daemon_env_publish(rc->d, env);
	return 1;
}

/* view_local_zone, view_local_zone_remove, view_local_data,
 * view_local_data_remove: "VIEW ARGS" */
static void do_view_single(struct daemon_remote* rc, enum lz_op op,
	char* arg, struct strbuf* b)
{
	struct views* vs;
	struct view* v;
	char* arg2;
	int removed = 0;
	if(!rc_find_arg2(arg, &arg2, b))
		return;
	if(!(vs = view_edit_start(rc, arg, op == OP_ZONE || op == OP_DATA,
		op == OP_ZONE, &v, b)))
		return;
	if(!v->lz) {
		/* compat: unbound-1.17: nothing to remove from */
		views_delete(vs);
		strbuf_printf(b, "ok\n");
		return;
	}
	if(!apply_op(v->lz, op, arg2, 0, &removed, b)) {
		views_delete(vs);
		return;
	}
	if(view_publish(rc, vs, v, removed, b))
		strbuf_printf(b, "ok\n");
}

/* view_list_local_zones, view_list_local_data */
static void do_view_list(struct daemon_remote* rc, char* name, int data,
	struct strbuf* b)
{
	const struct view* v = views_find(rc->d->env->views, name);
	if(!v) {
		strbuf_printf(b, "no view with name: %s\n", name);
		return;
	}
	if(v->lz && !local_zones_list(v->lz, data, out_line, b))
		strbuf_printf(b, "error out of memory\n");
}

/* ---- bulk commands: lines until "\004" (or the end of input) ---- */

/* At most this much input is kept for one bulk command (the lines are
 * applied when it ends); more is refused. */
#define RC_BULK_MAX (64u * 1024 * 1024)

struct rc_bulk {
	enum lz_op op;
	char* view;       /* view_local_datas(_remove): the view's name */
	struct strbuf errors;  /* found while reading (over-long lines) */
	char* buf;        /* the lines, each ended by a 0 */
	size_t len, cap;
	int overflow;
};

static const struct {
	const char* cmd;
	enum lz_op op;
} bulk_cmds[] = {
	{ "local_zones", OP_ZONE }, { "local_zones_remove", OP_ZONE_REMOVE },
	{ "local_datas", OP_DATA }, { "local_datas_remove", OP_DATA_REMOVE },
	{ "view_local_datas", OP_DATA },
	{ "view_local_datas_remove", OP_DATA_REMOVE }
};

struct rc_bulk* rc_bulk_start(const char* cmd)
{
	size_t i, n;
	struct rc_bulk* k;
	cmd = str_skip_blank((char*)cmd);
	n = strcspn(cmd, " \t");
	for(i = 0; i < sizeof(bulk_cmds) / sizeof(bulk_cmds[0]); i++)
		if(strlen(bulk_cmds[i].cmd) == n &&
			strncmp(cmd, bulk_cmds[i].cmd, n) == 0)
			break;
	if(i == sizeof(bulk_cmds) / sizeof(bulk_cmds[0]))
		return NULL;
	if(!(k = calloc(1, sizeof(*k))))
		return NULL;
	k->op = bulk_cmds[i].op;
	if(strncmp(cmd, "view_", 5) == 0 &&
		!(k->view = strdup(str_skip_blank((char*)cmd + n)))) {
		free(k);
		return NULL;
	}
	return k;
}

int rc_bulk_line(struct rc_bulk* k, const char* line)
{
	size_t n = strlen(line) + 1;
	if(line[0] == 0x04 && line[1] == 0)
		return 0;
	if(k->overflow || k->len + n > RC_BULK_MAX) {
		k->overflow = 1;
		return 1;
	}
	if(k->len + n > k->cap) {
		size_t nc = k->cap ? k->cap * 2 : 4096;
		char* nb;
		while(nc < k->len + n)
			nc *= 2;
		if(!(nb = realloc(k->buf, nc))) {
			k->overflow = 1;
			return 1;
		}
		k->buf = nb;
		k->cap = nc;
	}
	memcpy(k->buf + k->len, line, n);
	k->len += n;
	return 1;
}

void rc_bulk_finish(struct daemon_remote* rc, struct rc_bulk* k,
	struct strbuf* b)
{
	struct local_zones* lz;
	struct views* vs = NULL;
	struct view* v = NULL;
	size_t pos = 0;
	int num = 0, removed = 0, lineno = 0;
	if(k->view) {
		/* compat: unbound-1.17: no lines are used for a view that
		 * is not there, or (remove) that has no local zones */
		if(!(vs = view_edit_start(rc, k->view, k->op == OP_DATA, 0,
			&v, b))) {
			rc_bulk_delete(k);
			return;
		}
		if(!v->lz) {
			views_delete(vs);
			strbuf_printf(b, "removed 0 datas\n");
			rc_bulk_delete(k);
			return;
		}
		lz = v->lz;
	} else if(!(lz = local_zones_copy(rc->d->env->lz))) {
		strbuf_printf(b, "error out of memory\n");
		rc_bulk_delete(k);
		return;
	}
	if(k->errors.len)
		strbuf_printf(b, "%s", k->errors.s);
	if(k->overflow)
		strbuf_printf(b, "error input too long, only the first %u "
			"bytes are used\n", RC_BULK_MAX);
	while(pos < k->len) {
		char* line = k->buf + pos;
		pos += strlen(line) + 1;
		lineno++;
		if(apply_op(lz, k->op, line, lineno, &removed, b))
			num++;
		else if(k->op != OP_DATA)
			/* compat: unbound-1.17: Unbound 1.17 says this for all
			 * but local_datas */
			strbuf_printf(b, "error for input line: %s\n", line);
	}
	if(vs ? !view_publish(rc, vs, v, removed, b) :
		!publish(rc, lz, removed, b))
		num = 0;
	strbuf_printf(b, "%s %d %s\n", k->op == OP_ZONE || k->op == OP_DATA ?
		"added" : "removed", num, k->op == OP_ZONE ||
		k->op == OP_ZONE_REMOVE ? "zones" : "datas");
	rc_bulk_delete(k);
}

void rc_bulk_too_long(struct rc_bulk* k, const char* start)
{
	/* a few reports are enough; the input is bounded anyway */
	if(k->errors.len < 4096)
		strbuf_printf(&k->errors, "error for input line: %.40s...: "
			"line too long (more than %d bytes), ignored\n",
			start, RC_LINE_MAX);
}

void rc_bulk_delete(struct rc_bulk* k)
{
	if(!k)
		return;
	strbuf_clear(&k->errors);
	free(k->buf);
	free(k->view);
	free(k);
}

/* compat: unbound-1.17: auth_zone_reload NAME: the zone's file read again
 * (a new version built aside and published); transfers start over from
 * it. Unbound's words for the errors. */
static void do_auth_zone_reload(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	struct daemon* d = rc->d;
	const struct config_auth* c;
	struct auth_zones* az;
	uint8_t nm[256];
	char* path = NULL;
	if(!rc_parse_name(arg, nm, b))
		return;
	if(!auth_zones_has(d->env->auth, nm)) {
		strbuf_printf(b, "error no auth-zone %s\n", arg);
		return;
	}
	for(c = d->env->cfg->auths; c; c = c->next) {
		uint8_t cn[256];
		if(!c->isrpz && c->name && dname_from_str(c->name, cn) &&
			query_dname_compare(cn, nm) == 0)
			break;
	}
	if(c && c->zonefile && c->zonefile[0] && !(path =
		daemon_xfr_inside_path(d->env->cfg, c->zonefile))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	az = auth_zones_reread(d->env->auth, nm, path, c && c->masters);
	free(path);
	if(!az) {
		strbuf_printf(b, "error failed to read %s\n", arg);
		return;
	}
	auth_zones_zonemd_check(az, d->env->cfg, d->env->anchors, nm);
	daemon_publish_auth(d, az);
	if(xfr_engine_has(d->xfr, nm)) {
		daemon_xfr_stop(d);
		daemon_xfr_start(d);
	}
	strbuf_printf(b, "ok\n");
}

/* compat: unbound-1.17: auth_zone_transfer NAME: the primaries' SOA
 * asked now, the zone transferred when it is newer. */
static void do_auth_zone_transfer(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	uint8_t nm[256];
	if(!rc_parse_name(arg, nm, b))
		return;
	if(!xfr_engine_transfer_now(rc->d->xfr, nm)) {
		strbuf_printf(b, "error zone xfr task not found %s\n", arg);
		return;
	}
	strbuf_printf(b, "ok\n");
}

static int word_is(const char* p, const char* cmd)
{
	size_t n = strlen(cmd);
	return strncmp(p, cmd, n) == 0 && (p[n] == 0 || p[n] == ' ' ||
		p[n] == '\t');
}

int rc_local_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b)
{
	size_t i;
	args = str_skip_blank(args);
	if(word_is(p, "local_zone"))
		do_single(rc, OP_ZONE, args, b);
	else if(word_is(p, "local_zone_remove"))
		do_single(rc, OP_ZONE_REMOVE, args, b);
	else if(word_is(p, "local_data"))
		do_single(rc, OP_DATA, args, b);
	else if(word_is(p, "local_data_remove"))
		do_single(rc, OP_DATA_REMOVE, args, b);
	else if(word_is(p, "view_local_zone"))
		do_view_single(rc, OP_ZONE, args, b);
	else if(word_is(p, "view_local_zone_remove"))
		do_view_single(rc, OP_ZONE_REMOVE, args, b);
	else if(word_is(p, "view_local_data"))
		do_view_single(rc, OP_DATA, args, b);
	else if(word_is(p, "view_local_data_remove"))
		do_view_single(rc, OP_DATA_REMOVE, args, b);
	else if(word_is(p, "view_list_local_zones"))
		do_view_list(rc, args, 0, b);
	else if(word_is(p, "view_list_local_data"))
		do_view_list(rc, args, 1, b);
	else if(word_is(p, "list_local_zones")) {
		if(!local_zones_list(rc->d->env->lz, 0, out_line, b))
			strbuf_printf(b, "error out of memory\n");
	} else if(word_is(p, "list_auth_zones")) {
		if(!daemon_list_zones(rc->d, out_line, b))
			strbuf_printf(b, "error out of memory\n");
	} else if(word_is(p, "auth_zone_reload")) {
		do_auth_zone_reload(rc, args, b);
	} else if(word_is(p, "auth_zone_transfer")) {
		do_auth_zone_transfer(rc, args, b);
	} else if(word_is(p, "list_local_data")) {
		if(!local_zones_list(rc->d->env->lz, 1, out_line, b))
			strbuf_printf(b, "error out of memory\n");
	} else {
		/* a bulk command whose lines were not read (remote.c reads
		 * them; reached only when it could not start): no lines */
		for(i = 0; i < sizeof(bulk_cmds) / sizeof(bulk_cmds[0]); i++)
			if(word_is(p, bulk_cmds[i].cmd)) {
				struct rc_bulk* k = rc_bulk_start(p);
				if(!k) {
					strbuf_printf(b, "error out of "
						"memory\n");
					return 1;
				}
				rc_bulk_finish(rc, k, b);
				return 1;
			}
		return 0;
	}
	return 1;
}
