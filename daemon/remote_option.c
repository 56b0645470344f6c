/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_option.c - compat: unbound-1.17: unbound-control set_option
 * OPTION: VALUE for the options Unbound 1.17 lets set at run time; others, and
 * bad values, answer "error setting option" as there. The value goes through
 * the config parser's own checks into a copy of the config, which is published
 * as a new snapshot (get_option then shows it). */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include "util/strutil.h"
#include <stdlib.h>
#include <string.h>

/* compat: unbound-1.17: The server: and remote-control: options that Unbound
 * 1.17's set_option refuses ("error setting option"): those its running
 * structures are built from once (interfaces, access control, tags, views,
 * client subnet), and a few it does not know there. All others are taken
 * (found with Debian's unbound 1.17 side by side). */
static const char* const not_settable[] = {
	"num-threads", "interface", "ip-address", "interface-action",
	"access-control", "access-control-tag", "access-control-tag-action",
	"access-control-tag-data", "access-control-view", "interface-tag",
	"interface-tag-action", "interface-tag-data", "interface-view",
	"local-zone-tag", "local-zone-override", "response-ip-tag",
	"caps-exempt", "edns-client-string", "edns-client-string-opcode",
	"dns64-synthall", "dns64-ignore-aaaa", "send-client-subnet",
	"client-subnet-zone", "client-subnet-always-forward",
	"max-client-subnet-ipv6", "max-client-subnet-ipv4",
	"min-client-subnet-ipv6", "min-client-subnet-ipv4",
	"max-ecs-tree-size-ipv4", "max-ecs-tree-size-ipv6",
	"ipsecmod-enabled", "ipsecmod-hook", "ipsecmod-strict",
	"ipsecmod-max-ttl", "ipsecmod-ignore-bogus", "ipsecmod-allow",
	"ipsecmod-whitelist", "control-use-cert",
	"dnscrypt-shared-secret-cache-slabs", "dnscrypt-nonce-cache-slabs"
};

static int is_settable(const char* name)
{
	size_t i;
	for(i = 0; i < sizeof(not_settable) / sizeof(not_settable[0]); i++)
		if(strcmp(not_settable[i], name) == 0)
			return 0;
	return 1;
}

void rc_do_set_option(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	const struct cfg_option* o;
	struct cfg_parser p;
	struct config_file* cfg;
	char* val, *vals[3] = { NULL, NULL, NULL };
	size_t n;
	arg = str_skip_blank(arg);
	if(!rc_find_arg2(arg, &val, b))
		return;
	n = strlen(arg);
	if(n > 0 && arg[n-1] == ':')
		arg[n-1] = 0;
	o = cfg_option_find(arg, CL_SERVER | CL_REMOTE);
	if(!o || o->type == CT_CLAUSE || !is_settable(arg)) {
		strbuf_printf(b, "error setting option\n");
		return;
	}
	vals[0] = val;
	if(cfg_option_nargs(o) == 2) {
		/* "local-zone: name type" */
		if(!rc_find_arg2(val, &vals[1], b))
			return;
	}
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.fname = "set_option";
	p.clause = (o->clauses & CL_SERVER) ? CL_SERVER : CL_REMOTE;
	if(!cfg_option_apply(&p, o, vals) || p.errors ||
		!config_check(cfg)) {
		config_delete(cfg);
		strbuf_printf(b, "error setting option\n");
		return;
	}
	if(strcmp(arg, "verbosity") == 0)
		verbosity = (enum verbosity_value)cfg->verbosity;
	/* a value the snapshot cannot be built from (a root-hints file
	 * that is not there) is refused too */
	rc_publish_cfg(rc, cfg, "error setting option", b);
}
