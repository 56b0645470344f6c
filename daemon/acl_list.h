/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/acl_list.h - access-control: which clients may ask what.
 * Longest-prefix match of the client address over the configured
 * netblocks, built once per config snapshot, read-only afterwards. */
#ifndef DAEMON_ACL_LIST_H
#define DAEMON_ACL_LIST_H
#include <stdint.h>
#include <sys/socket.h>

struct config_file;
struct lz_client_tags;
struct view;
struct views;

enum acl_access {
	acl_deny = 0,          /* drop the query */
	acl_refuse,            /* answer REFUSED */
	acl_deny_non_local,    /* local zones answer; everything else dropped */
	acl_refuse_non_local,  /* local zones answer; everything else REFUSED */
	acl_allow,             /* recursion for RD=1 queries */
	acl_allow_setrd,       /* as allow, RD=0 treated as RD=1 */
	acl_allow_snoop,       /* as allow, RD=0 (cache snooping) allowed too */
	acl_allow_cookie       /* as allow; over UDP only with a valid DNS
	                        * cookie (daemon/query_cookie.h) */
};

struct acl_list;

/* compat: unbound-1.17: Build from cfg->acls over Unbound's defaults
 * (0.0.0.0/0 and ::0/0 refuse, 127.0.0.0/8, ::1 and ::ffff:127.0.0.1 allow). A
 * later line for the same netblock replaces an earlier one. A bad netblock or
 * action is printed as an error (log_err); returns NULL then. */
struct acl_list* acl_list_create(struct config_file* cfg);
/* compat: unbound-1.17: as acl_list_create, with access-control-view:
 * each netblock named there gets its view from vs (borrowed: vs must
 * outlive the acl_list); a netblock without an access-control line gets
 * allow, as in Unbound. An unknown view name is an error ("no view with
 * name: NAME"). */
struct acl_list* acl_list_create_views(struct config_file* cfg,
	const struct views* vs);
/* (access-control-tag, -tag-action and -tag-data: as access-control-view,
 * the netblock's entry, allow when it has none, gets the tags, their
 * actions and data; a tag no define-tag names is an error.) */
void acl_list_delete(struct acl_list* acl);
/* The action for a client address. Lock-free, read-only. */
enum acl_access acl_list_lookup(const struct acl_list* acl,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* What a netblock's clients get besides the action: their view and tags.
 * Only entries with an access-control-view or -tag line have one, so a
 * config without them has none. The respip module's per-client data
 * (response-ip of a view, response-ip-tag) goes here too. */
struct acl_policy {
	const struct view* view;   /* access-control-view, or NULL */
	uint64_t tags;             /* access-control-tag (services/tags.h) */
	/* access-control-tag-action and -data (services/localzone.h); NULL:
	 * none */
	struct lz_client_tags* tag_changes;
};

/* The action and policy (NULL: none) of a client; one lookup, for the
 * query path (two registers back). */
struct acl_match {
	enum acl_access action;
	const struct acl_policy* policy;
};
struct acl_match acl_list_match(const struct acl_list* acl,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* compat: unbound-1.17: interface-action, -view, -tag, -tag-action,
 * -tag-data: a client that no access-control netblock holds (Unbound's
 * defaults hold 127.0.0.0/8 and ::1) gets the entry of the listening
 * address its query came to: refuse unless interface-action says else.
 * acl_list_unheld: m is such a client's match and interface lines exist
 * (a refuse, so the query path asks only on its refuse branch). */
int acl_list_unheld(const struct acl_list* acl, struct acl_match m);
/* The entry of local (address and port the query came to; a wildcard
 * listener's entry when it has none): refuse, no policy, if none. */
struct acl_match acl_list_interface(const struct acl_list* acl,
	const struct sockaddr_storage* local, socklen_t locallen);
/* Parse an action name ("allow_snoop"); -1 if unknown. */
int acl_parse_action(const char* s);
const char* acl_action_str(enum acl_access a);

#endif
