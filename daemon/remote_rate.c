/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_rate.c - the rate limit control commands: ratelimit_list and
 * ip_ratelimit_list (+a). Main thread; the tables lock inside
 * (services/cache/rate_zone.h, rate_ip.h). */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/remote.h"
#include "daemon/daemon.h"
#include "services/cache/infra.h"
#include "services/cache/rate_ip.h"
#include "services/cache/rate_zone.h"
#include "util/config_file.h"
#include "util/dname.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

struct rate_list {
	struct strbuf* b;
	int all;                        /* +a: every entry */
	int deflt;                      /* ratelimit or ip-ratelimit */
	const struct rate_domains* dom; /* ratelimit_list only */
};

/* compat: unbound-1.17: "example.com. 1200 limit 1000", as Unbound's
 * rate_list: without +a only a zone at or over its limit. Under the
 * slab lock: text only. */
static void zone_line(const uint8_t* zone, uint32_t rate, void* arg)
{
	struct rate_list* a = arg;
	char name[1100];
	int lim = rate_domains_limit(a->dom, zone, a->deflt);
	if(!a->all && (long long)rate < (long long)lim)
		return;
	dname_to_str(zone, name, sizeof(name));
	strbuf_printf(a->b, "%s %u limit %d\n", name, (unsigned)rate, lim);
}

/* compat: unbound-1.17: "127.0.0.1 1200 limit 1000", as Unbound's
 * ip_rate_list. */
static void ip_line(const char* addr, uint32_t rate, void* arg)
{
	struct rate_list* a = arg;
	if(!a->all && (long long)rate < (long long)a->deflt)
		return;
	strbuf_printf(a->b, "%s %u limit %d\n", addr, (unsigned)rate,
		a->deflt);
}

void rc_do_ratelimit_list(struct daemon_remote* rc, const char* arg,
	int ip, struct strbuf* b)
{
	const struct config_file* cfg = rc->d->env->cfg;
	struct rate_domains* dom = NULL;
	struct rate_list a;
	a.b = b;
	a.all = arg && strcmp(arg, "+a") == 0;
	a.deflt = ip ? cfg->ip_ratelimit : cfg->ratelimit;
	a.dom = NULL;
	if(!rc->d->infra || (!a.all && a.deflt == 0))
		return;   /* compat: unbound-1.17: nothing, not even "ok" */
	if(ip) {
		if(rc->d->env->ip_rates)
			rate_ip_walk(rc->d->env->ip_rates, time(NULL),
				cfg->ip_ratelimit_backoff, ip_line, &a);
		return;
	}
	if(cfg->ratelimit_for_domain || cfg->ratelimit_below_domain)
		a.dom = dom = rate_domains_create(cfg);
	rate_zone_walk(infra_zone_rates(rc->d->infra), time(NULL),
		cfg->ratelimit_backoff, zone_line, &a);
	rate_domains_delete(dom);
}
