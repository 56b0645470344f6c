/* SPDX-License-Identifier: BSD-3-Clause */
/* services/view.h - compat: unbound-1.17: view: clauses.
 *
 * A view is a named set of local zones that clients select through
 * access-control-view (daemon/acl_list.c): a client's view answers
 * first; without view-first nothing else local answers, with it the
 * global local zones answer what the view leaves. Built once per config
 * snapshot (serve_env) and read-only afterwards, like the global local
 * zones; unbound-control's view_* commands edit a copy (views_copy) and
 * publish it. A view's response-ip rules live in the respip module
 * (respip/respip.c), which knows a client's view by its place here. */
#ifndef SERVICES_VIEW_H
#define SERVICES_VIEW_H
#include <stddef.h>

struct config_file;
struct local_zones;

struct view {
	char* name;
	/* compat: unbound-1.17: NULL when the view has no local-zone and no
	 * local-data: then the global zones answer, view-first or not */
	struct local_zones* lz;
	int isfirst;   /* view-first: yes */
};

struct views {
	size_t num;
	struct view* v;   /* in config order */
};

/* compat: unbound-1.17: Build all views of cfg (an empty set when there are
 * none). A view without a name, a duplicate name or a local-zone /
 * local-data Unbound would refuse is logged (log_err) and gives NULL. */
struct views* views_create(struct config_file* cfg);
void views_delete(struct views* vs);
/* A deep copy (each view's local zones copied), for a control command
 * to edit; NULL on OOM (logged). */
struct views* views_copy(const struct views* vs);
/* The view of that name, NULL if none. */
struct view* views_find(const struct views* vs, const char* name);
/* log-local-actions and rrset-roundrobin of cfg for every view's zones */
void views_set_flags(struct views* vs, const struct config_file* cfg);

#endif
