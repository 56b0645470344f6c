/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip.c - compat: unbound-1.17: the respip module. Unbound's
 * respip rewrites the result in the module and again on each cache hit in
 * its worker; here the result goes up and into the message cache as it
 * came (so a blocked name is a cache hit next time, as in Unbound), and
 * the rules apply to each client's reply on the wire, in one place
 * (filter_reply), for the mesh's answers and the cache's alike. Its
 * presence in the stack sets the stack's query_before_cache flag: the
 * cache-hit path reads that one flag and costs nothing without respip.
 *
 * The rules are the config's (respip_set.h), one copy per worker, made
 * again on reload. A view's own set comes with views (client->view). */
#include "config.h"
#include "respip/respip.h"
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH_SIZE 65535

/* Per worker: the rules, and room to build a new reply in. */
struct respip_env {
	struct respip_set* set;
	uint8_t scratch[SCRATCH_SIZE];
};

/* The start's rules, checked once (a bad rule stops the start, as
 * Unbound's "could not set up response IP set"); mem.mod.respip. */
static void* respip_startup(const struct config_file* cfg)
{
	return respip_set_create(cfg->respip_actions, cfg->respip_data);
}

static void respip_destartup(void* global)
{
	respip_set_delete(global);
}

static size_t respip_get_mem(void* global)
{
	return respip_set_mem(global);
}

/* In the stack, every reply is looked at (a reload may add rules):
 * filter_reply sets the stack's flag (services/modstack.c). */

static int respip_init(struct module_env* env, int id)
{
	struct respip_env* re = calloc(1, sizeof(*re));
	if(!re) {
		log_err("respip: out of memory");
		return 0;
	}
	env->modinfo[id] = re;
	if(!(re->set = respip_set_create(env->cfg->respip_actions,
		env->cfg->respip_data))) {
		log_err("could not set up response IP set");
		return 0;
	}
	return 1;
}

static void respip_deinit(struct module_env* env, int id)
{
	struct respip_env* re = env->modinfo[id];
	if(!re)
		return;
	respip_set_delete(re->set);
	free(re);
	env->modinfo[id] = NULL;
}

static void respip_reconfigure(struct module_env* env, int id)
{
	struct respip_env* re = env->modinfo[id];
	struct respip_set* s = respip_set_create(env->cfg->respip_actions,
		env->cfg->respip_data);
	/* a set that fails (checked before the reload took it: out of
	 * memory) keeps the old rules */
	if(!s)
		return;
	respip_set_delete(re->set);
	re->set = s;
}

/* The result goes up as it came: the rules apply per client, on the
 * reply (respip_filter_reply). */
static enum module_state respip_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	(void)qs;
	(void)id;
	(void)reply;
	if(ev == MODULE_EVENT_NEW)
		return MODULE_WAIT_MODULE;
	return MODULE_FINISHED;
}

static void respip_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	(void)sub;
	(void)id;
	(void)super;
}

static void respip_clear(struct module_qstate* qs, int id)
{
	qs->minfo[id] = NULL;
}

static const char* type_name(uint16_t t, char* buf, size_t len)
{
	switch(t) {
	case 1: return "A";
	case 28: return "AAAA";
	case 255: return "ANY";
	default:
		snprintf(buf, len, "TYPE%d", (int)t);
		return buf;
	}
}

/* compat: unbound-1.17: the inform line, as Unbound's respip_inform_print:
 * "192.0.2.0/24 inform 127.0.0.1@40000 www.example.com. A IN". */
static void log_inform(const struct respip_rule* r,
	const struct module_reply_client* client, const uint8_t* pkt,
	size_t len)
{
	char block[64], src[64], name[1024], tb[16], cb[16];
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	size_t pos = LDNS_HEADER_SIZE;
	struct sockaddr_storage ss;
	uint16_t qtype, qclass;
	const char* cls;
	memset(&ss, 0, sizeof(ss));
	if(!dname_read_wire(pkt, len, &pos, q) || pos + 4 > len)
		return;
	qtype = (uint16_t)((pkt[pos] << 8) | pkt[pos + 1]);
	qclass = (uint16_t)((pkt[pos + 2] << 8) | pkt[pos + 3]);
	if(r->is_ip6) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, r->addr, 16);
		addr_to_str(&ss, sizeof(*s6), block, sizeof(block));
	} else {
		struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, r->addr, 4);
		addr_to_str(&ss, sizeof(*s4), block, sizeof(block));
	}
	addr_to_str(client->addr, client->addrlen, src, sizeof(src));
	dname_to_str(q, name, sizeof(name));
	if(qclass == 1)
		cls = "IN";
	else {
		snprintf(cb, sizeof(cb), "CLASS%d", (int)qclass);
		cls = cb;
	}
	log_info("%s/%d inform %s@%u %s %s %s", block, (int)r->net, src,
		(unsigned)addr_port(client->addr), name,
		type_name(qtype, tb, sizeof(tb)), cls);
}

static enum module_reply_verdict respip_filter_reply(struct module_env* env,
	int id, const struct module_reply_client* client, uint8_t* pkt,
	size_t* len, size_t cap)
{
	struct respip_env* re = env->modinfo[id];
	const struct respip_rule* rule;
	size_t n = 0;
	enum respip_outcome o;
	if(!re || respip_set_empty(re->set))
		return MODULE_REPLY_KEEP;
	o = respip_rewrite(re->set, pkt, *len, re->scratch,
		cap < SCRATCH_SIZE ? cap : SCRATCH_SIZE, &n, &rule);
	if(rule && (rule->action == RESPIP_INFORM ||
		rule->action == RESPIP_INFORM_DENY))
		log_inform(rule, client, pkt, *len);
	switch(o) {
	case RESPIP_DROPPED:
		return MODULE_REPLY_DROP;
	case RESPIP_CHANGED:
		memcpy(pkt, re->scratch, n);
		*len = n;
		return MODULE_REPLY_CHANGED;
	case RESPIP_PASS:
	default:
		return MODULE_REPLY_KEEP;
	}
}

const struct module_func_block respip_module_block = {
	.name = "respip",
	.startup = respip_startup,
	.destartup = respip_destartup,
	.get_mem = respip_get_mem,
	.filter_reply = respip_filter_reply,
	.init = respip_init,
	.deinit = respip_deinit,
	.reconfigure = respip_reconfigure,
	.operate = respip_operate,
	.inform_super = respip_inform_super,
	.clear = respip_clear,
};
