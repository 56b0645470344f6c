/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/acl_list.c - access-control: longest-prefix match of the client.
 *
 * Per address family, the prefix lengths that occur are kept in an array
 * (longest first); each length has a small open-addressing hash table of
 * the masked netblock addresses. A lookup masks the client address to each
 * length in turn and probes; the first hit is the longest match. All of it
 * is built once and only read afterwards, so lookups need no lock.
 * Addresses are two 64-bit big-endian words (IPv4 in the top half of the
 * first), so masking, hashing and comparing are a few word operations. */
#include "config.h"
#include "daemon/acl_list.h"
#include "services/view.h"
#include "services/localzone.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/hash_mix.h"
#include "util/net_help.h"
#include "util/log.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An address as two words, most significant byte first. */
struct acl_key {
	uint64_t w[2];
};

/* One netblock: the masked address and its action. */
struct acl_entry {
	struct acl_key addr;
	enum acl_access action;
	int used;
	int unheld;                /* a default /0 (acl_add_unheld) */
	struct acl_policy* policy; /* view, tags; NULL: none */
};

/* All netblocks of one prefix length, hashed on the masked address. */
struct acl_prefix {
	int net;
	struct acl_key mask;   /* net leading one bits */
	size_t size;           /* power of two */
	size_t count;
	struct acl_entry* tab;
};

/* One address family. */
struct acl_family {
	int nbytes;            /* 4 or 16 */
	int num;               /* prefix lengths present */
	struct acl_prefix prefix[129]; /* sorted, longest first */
};

/* compat: unbound-1.17: a listening address's entry (interface-*) */
struct acl_iface {
	struct sockaddr_storage addr;   /* with the port */
	socklen_t addrlen;
	enum acl_access action;         /* refuse unless interface-action */
	struct acl_policy* policy;      /* view, tags; NULL: none */
};

struct acl_list {
	struct acl_family v4, v6;
	/* the policy of Unbound's default /0 entries: a client that no
	 * configured netblock holds (interface-* may then apply) */
	struct acl_policy unheld;
	struct acl_iface* ifaces;       /* NULL: no interface-* line */
	size_t num_ifaces;
};

static const char* action_names[] = {
	"deny", "refuse", "deny_non_local", "refuse_non_local", "allow",
	"allow_setrd", "allow_snoop", "allow_cookie"
};

int
acl_parse_action(const char* s)
{
	size_t i;
	if(!s)
		return -1;
	for(i = 0; i < sizeof(action_names)/sizeof(action_names[0]); i++)
		if(strcmp(s, action_names[i]) == 0)
			return (int)i;
	return -1;
}

const char*
acl_action_str(enum acl_access a)
{
	if((size_t)a < sizeof(action_names)/sizeof(action_names[0]))
		return action_names[a];
	return "unknown";
}

/* The address bytes (4 or 16) as a key. */
static struct acl_key
acl_key_of(const uint8_t* a, int n)
{
	struct acl_key k = { { 0, 0 } };
	uint32_t v4;
	if(n == 4) {
		memcpy(&v4, a, 4);
		k.w[0] = (uint64_t)__builtin_bswap32(v4) << 32;
	} else {
		memcpy(&k.w[0], a, 8);
		memcpy(&k.w[1], a + 8, 8);
		k.w[0] = __builtin_bswap64(k.w[0]);
		k.w[1] = __builtin_bswap64(k.w[1]);
	}
	return k;
}

/* The first net bits set. */
static struct acl_key
acl_mask_of(int net)
{
	struct acl_key m;
	m.w[0] = net <= 0 ? 0 : net >= 64 ? ~(uint64_t)0 :
		~(uint64_t)0 << (64 - net);
	m.w[1] = net <= 64 ? 0 : net >= 128 ? ~(uint64_t)0 :
		~(uint64_t)0 << (128 - net);
	return m;
}

/* A multiplicative mix of both words; the top bits index the table. */
static size_t
acl_hash(const struct acl_key* k)
{
	uint64_t h = (k->w[0] ^ (k->w[1] * HASH_FOLD_MUL)) * HASH_MIX_MUL;
	return (size_t)(h >> 32);
}

static inline __attribute__((always_inline)) struct acl_entry*
prefix_find(const struct acl_prefix* p, const struct acl_key* a)
{
	size_t mask = p->size - 1, i = acl_hash(a) & mask;
	while(p->tab[i].used) {
		if(p->tab[i].addr.w[0] == a->w[0] &&
			p->tab[i].addr.w[1] == a->w[1])
			return &p->tab[i];
		i = (i + 1) & mask;
	}
	return NULL;
}

/* Insert or (when replace) overwrite; returns 0 on out of memory. */
static int
prefix_insert(struct acl_prefix* p, const struct acl_key* a,
	enum acl_access action, int replace)
{
	struct acl_entry* e;
	size_t mask, i;
	if(p->size && (e = prefix_find(p, a))) {
		if(replace)
			e->action = action;
		return 1;
	}
	if((p->count + 1) * 2 > p->size) {
		/* grow to keep the load at most one half */
		size_t nsize = p->size ? p->size * 2 : 8, k;
		struct acl_entry* old = p->tab;
		size_t osize = p->size;
		p->tab = calloc(nsize, sizeof(*p->tab));
		if(!p->tab) {
			p->tab = old;
			return 0;
		}
		p->size = nsize;
		p->count = 0;
		for(k = 0; k < osize; k++)
			if(old[k].used) {
				(void)prefix_insert(p, &old[k].addr,
					old[k].action, 0);
				struct acl_entry* ne = prefix_find(p,
					&old[k].addr);
				ne->policy = old[k].policy;
				ne->unheld = old[k].unheld;
			}
		free(old);
	}
	mask = p->size - 1;
	i = acl_hash(a) & mask;
	while(p->tab[i].used)
		i = (i + 1) & mask;
	p->tab[i].addr = *a;
	p->tab[i].action = action;
	p->tab[i].used = 1;
	p->count++;
	return 1;
}

/* The table for prefix length net, created (kept sorted) if absent. */
static struct acl_prefix*
family_prefix(struct acl_family* f, int net)
{
	int i, j;
	for(i = 0; i < f->num; i++) {
		if(f->prefix[i].net == net)
			return &f->prefix[i];
		if(f->prefix[i].net < net)
			break;
	}
	for(j = f->num; j > i; j--)
		f->prefix[j] = f->prefix[j-1];
	memset(&f->prefix[i], 0, sizeof(f->prefix[i]));
	f->prefix[i].net = net;
	f->prefix[i].mask = acl_mask_of(net);
	f->num++;
	return &f->prefix[i];
}

/* The table and key of a netblock; 0 if it does not parse. */
static int
acl_block(struct acl_list* acl, const char* block, struct acl_prefix** p,
	struct acl_key* k)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net, n;
	const uint8_t* bytes;
	struct acl_family* f;
	if(!netblockstrtoaddr(block, 53, &addr, &addrlen, &net) ||
		!(bytes = addr_bytes(&addr, addrlen, &n)))
		return 0;
	f = (n == 16) ? &acl->v6 : &acl->v4;
	*p = family_prefix(f, net);
	*k = acl_key_of(bytes, n);
	/* netblockstrtoaddr masked it already; again, to be sure */
	k->w[0] &= (*p)->mask.w[0];
	k->w[1] &= (*p)->mask.w[1];
	return 1;
}

/* Add "netblock action"; replace says whether it overrides an existing
 * entry for the same netblock (config lines do; defaults do not). */
static int
acl_add(struct acl_list* acl, const char* block, const char* action,
	int replace)
{
	int a = acl_parse_action(action);
	struct acl_prefix* p;
	struct acl_key k;
	if(a < 0) {
		log_err("access control type %s unknown",
			action ? action : "(null)");
		return 0;
	}
	if(!acl_block(acl, block, &p, &k)) {
		log_err("cannot parse access control: %s %s",
			block ? block : "(null)", action);
		return 0;
	}
	if(!prefix_insert(p, &k, (enum acl_access)a, replace)) {
		log_err("out of memory");
		return 0;
	}
	return 1;
}

/* compat: unbound-1.17: access-control-view and -tag: the netblock's
 * entry (allow when it has none: "tags are pointless otherwise", as
 * Unbound), its policy made if it has none. NULL on error, logged. */
static struct acl_policy*
acl_policy_of(struct acl_list* acl, const char* block)
{
	struct acl_prefix* p;
	struct acl_key k;
	struct acl_entry* e;
	if(!acl_block(acl, block, &p, &k)) {
		log_err("cannot parse netblock: %s", block ? block : "(null)");
		return NULL;
	}
	if(!prefix_insert(p, &k, acl_allow, 0)) {
		log_err("out of memory");
		return NULL;
	}
	e = prefix_find(p, &k);
	if(!e->policy && !(e->policy = calloc(1, sizeof(*e->policy))))
		log_err("out of memory");
	return e->policy;
}

static int
acl_add_view(struct acl_list* acl, const struct views* vs, const char* block,
	const char* name)
{
	struct acl_policy* pol = acl_policy_of(acl, block);
	if(!pol)
		return 0;
	if(!(pol->view = views_find(vs, name))) {
		log_err("no view with name: %s", name ? name : "(null)");
		return 0;
	}
	return 1;
}

static int
acl_add_tags(struct acl_list* acl, const struct config_file* cfg,
	const char* block, const char* list)
{
	struct acl_policy* pol = acl_policy_of(acl, block);
	if(!pol)
		return 0;
	if(!tags_parse_list(cfg, list, &pol->tags)) {
		log_err("cannot parse access-control-tag: %s %s", block,
			list ? list : "");
		return 0;
	}
	return 1;
}

/* compat: unbound-1.17: access-control-tag-action ("tag type") and
 * access-control-tag-data ("tag RR-text"), joined in str2 */
static int
acl_add_tag_change(struct acl_list* acl, const struct config_file* cfg,
	const char* block, const char* tag_rest, int data)
{
	struct acl_policy* pol = acl_policy_of(acl, block);
	if(!pol)
		return 0;
	if(data)
		return lz_client_tags_data(cfg, &pol->tag_changes, block,
			tag_rest);
	return lz_client_tags_action(cfg, &pol->tag_changes, block,
		tag_rest);
}

/* compat: unbound-1.17: the default refuse of a /0: Unbound has none
 * but refuses on the interface a client no netblock holds came to;
 * here the entry is marked (the unheld policy) so that the query path
 * asks the interface's entry then, only when interface-* lines exist. */
static int
acl_add_unheld(struct acl_list* acl, const char* block)
{
	struct acl_prefix* p;
	struct acl_key k;
	int had;
	if(!acl_block(acl, block, &p, &k))
		return 0;
	had = p->size && prefix_find(p, &k);
	if(!acl_add(acl, block, "refuse", 0))
		return 0;
	if(!had)
		prefix_find(p, &k)->unheld = 1;
	return 1;
}

/* With interface lines, the unheld entries get the unheld policy, which
 * the query path's refuse branch looks for (without, they have none and
 * nothing changes). */
static void
acl_mark_unheld(struct acl_list* acl)
{
	struct acl_family* f[2];
	int i, j;
	size_t k;
	if(!acl->num_ifaces)
		return;
	f[0] = &acl->v4;
	f[1] = &acl->v6;
	for(j = 0; j < 2; j++)
		for(i = 0; i < f[j]->num; i++)
			for(k = 0; k < f[j]->prefix[i].size; k++)
				if(f[j]->prefix[i].tab[k].used &&
					f[j]->prefix[i].tab[k].unheld)
					f[j]->prefix[i].tab[k].policy =
						&acl->unheld;
}

/* The configured listening addresses (interface:, or Unbound's defaults
 * 127.0.0.1 and ::1), with cfg->port unless "@port" is given; an
 * interface named (eth0) is left out. */
static int
iface_configured(const struct config_file* cfg,
	const struct sockaddr_storage* a, socklen_t alen)
{
	const struct config_strlist* p;
	struct sockaddr_storage b;
	socklen_t blen;
	if(!cfg->ifs) {
		return (extstrtoaddr("127.0.0.1", cfg->port, &b, &blen) &&
			sockaddr_cmp(a, alen, &b, blen) == 0) ||
			(cfg->do_ip6 && extstrtoaddr("::1", cfg->port, &b,
			&blen) && sockaddr_cmp(a, alen, &b, blen) == 0);
	}
	for(p = cfg->ifs; p; p = p->next)
		if(extstrtoaddr(p->str, cfg->port, &b, &blen) &&
			sockaddr_cmp(a, alen, &b, blen) == 0)
			return 1;
	return 0;
}

/* The entry of interface str, made (refuse) on first use; NULL (logged
 * as Unbound does, action says which message) when str is no
 * configured interface. */
static struct acl_iface*
acl_iface_of(struct acl_list* acl, const struct config_file* cfg,
	const char* str, int action)
{
	struct sockaddr_storage a;
	socklen_t alen;
	size_t i;
	struct acl_iface* n;
	if(!extstrtoaddr(str, cfg->port, &a, &alen)) {
		log_err("cannot parse interface: %s", str);
		return NULL;
	}
	for(i = 0; i < acl->num_ifaces; i++)
		if(sockaddr_cmp(&acl->ifaces[i].addr, acl->ifaces[i].addrlen,
			&a, alen) == 0)
			return &acl->ifaces[i];
	if(!iface_configured(cfg, &a, alen)) {
		if(action)
			log_err("cannot update ACL on non-configured "
				"interface: %s %d", str, cfg->port);
		else	log_err("non-configured interface: %s", str);
		return NULL;
	}
	if(!(n = realloc(acl->ifaces, (acl->num_ifaces + 1) * sizeof(*n)))) {
		log_err("out of memory");
		return NULL;
	}
	acl->ifaces = n;
	n = &acl->ifaces[acl->num_ifaces++];
	memset(n, 0, sizeof(*n));
	n->addr = a;
	n->addrlen = alen;
	n->action = acl_refuse;
	return n;
}

static struct acl_policy*
acl_iface_policy(struct acl_list* acl, const struct config_file* cfg,
	const char* str)
{
	struct acl_iface* f = acl_iface_of(acl, cfg, str, 0);
	if(!f)
		return NULL;
	if(!f->policy && !(f->policy = calloc(1, sizeof(*f->policy))))
		log_err("out of memory");
	return f->policy;
}

/* compat: unbound-1.17: interface-action, -view, -tag, -tag-action and
 * -tag-data */
static int
acl_add_interfaces(struct acl_list* acl, const struct config_file* cfg,
	const struct views* vs)
{
	const struct config_str2list* p;
	struct acl_policy* pol;
	if(!cfg)
		return 1;
	for(p = cfg->interface_actions; p; p = p->next) {
		struct acl_iface* f = acl_iface_of(acl, cfg, p->str, 1);
		int a = acl_parse_action(p->str2);
		if(!f)
			return 0;
		if(a < 0) {
			log_err("access control type %s unknown", p->str2);
			return 0;
		}
		f->action = (enum acl_access)a;
	}
	for(p = cfg->interface_views; p; p = p->next) {
		if(!(pol = acl_iface_policy(acl, cfg, p->str)))
			return 0;
		if(!(pol->view = views_find(vs, p->str2))) {
			log_err("no view with name: %s", p->str2);
			return 0;
		}
	}
	for(p = cfg->interface_tags; p; p = p->next) {
		if(!(pol = acl_iface_policy(acl, cfg, p->str)))
			return 0;
		if(!tags_parse_list(cfg, p->str2, &pol->tags)) {
			log_err("cannot parse interface-tag: %s %s", p->str,
				p->str2);
			return 0;
		}
	}
	for(p = cfg->interface_tag_actions; p; p = p->next)
		if(!(pol = acl_iface_policy(acl, cfg, p->str)) ||
			!lz_client_tags_action(cfg, &pol->tag_changes, p->str,
			p->str2))
			return 0;
	for(p = cfg->interface_tag_datas; p; p = p->next)
		if(!(pol = acl_iface_policy(acl, cfg, p->str)) ||
			!lz_client_tags_data(cfg, &pol->tag_changes, p->str,
			p->str2))
			return 0;
	return 1;
}

int
acl_list_unheld(const struct acl_list* acl, struct acl_match m)
{
	return acl && acl->num_ifaces && m.policy == &acl->unheld;
}

struct acl_match
acl_list_interface(const struct acl_list* acl,
	const struct sockaddr_storage* local, socklen_t locallen)
{
	struct acl_match r = { acl_refuse, NULL };
	const struct acl_iface* wild = NULL;
	size_t i;
	for(i = 0; i < acl->num_ifaces; i++) {
		const struct acl_iface* f = &acl->ifaces[i];
		int n;
		const uint8_t* b;
		if(sockaddr_cmp(&f->addr, f->addrlen, local, locallen) == 0) {
			r.action = f->action;
			r.policy = f->policy;
			return r;
		}
		/* a wildcard listener: a stream's local address is the
		 * one it was sent to, not the listener's */
		if(f->addr.ss_family == local->ss_family &&
			addr_port(&f->addr) == addr_port(local) &&
			(b = addr_bytes(&f->addr, f->addrlen, &n)) &&
			(n == 4 ? memcmp(b, "\0\0\0\0", 4) == 0 :
			memcmp(b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
			16) == 0))
			wild = f;
	}
	if(wild) {
		r.action = wild->action;
		r.policy = wild->policy;
	}
	return r;
}

struct acl_list*
acl_list_create(struct config_file* cfg)
{
	return acl_list_create_views(cfg, NULL);
}

struct acl_list*
acl_list_create_views(struct config_file* cfg, const struct views* vs)
{
	struct config_str2list* p;
	struct acl_list* acl = calloc(1, sizeof(*acl));
	if(!acl) {
		log_err("out of memory");
		return NULL;
	}
	acl->v4.nbytes = 4;
	acl->v6.nbytes = 16;
	for(p = cfg ? cfg->acls : NULL; p; p = p->next) {
		if(!acl_add(acl, p->str, p->str2, 1)) {
			acl_list_delete(acl);
			return NULL;
		}
	}
	for(p = cfg ? cfg->acl_view : NULL; p; p = p->next) {
		if(!acl_add_view(acl, vs, p->str, p->str2)) {
			acl_list_delete(acl);
			return NULL;
		}
	}
	for(p = cfg ? cfg->acl_tags : NULL; p; p = p->next) {
		if(!acl_add_tags(acl, cfg, p->str, p->str2)) {
			acl_list_delete(acl);
			return NULL;
		}
	}
	for(p = cfg ? cfg->acl_tag_actions : NULL; p; p = p->next) {
		if(!acl_add_tag_change(acl, cfg, p->str, p->str2, 0)) {
			acl_list_delete(acl);
			return NULL;
		}
	}
	for(p = cfg ? cfg->acl_tag_datas : NULL; p; p = p->next) {
		if(!acl_add_tag_change(acl, cfg, p->str, p->str2, 1)) {
			acl_list_delete(acl);
			return NULL;
		}
	}
	/* compat: unbound-1.17: Unbound's defaults, used only where the config
	 * has no line for that exact netblock */
	if(!acl_add_unheld(acl, "0.0.0.0/0") ||
		!acl_add(acl, "127.0.0.0/8", "allow", 0) ||
		((!cfg || cfg->do_ip6) &&
		(!acl_add_unheld(acl, "::0/0") ||
		!acl_add(acl, "::1", "allow", 0) ||
		!acl_add(acl, "::ffff:127.0.0.1", "allow", 0)))) {
		acl_list_delete(acl);
		return NULL;
	}
	if(!acl_add_interfaces(acl, cfg, vs)) {
		acl_list_delete(acl);
		return NULL;
	}
	acl_mark_unheld(acl);
	return acl;
}

void
acl_list_delete(struct acl_list* acl)
{
	struct acl_family* f[2];
	int i, j;
	size_t k;
	if(!acl)
		return;
	f[0] = &acl->v4;
	f[1] = &acl->v6;
	for(j = 0; j < 2; j++)
		for(i = 0; i < f[j]->num; i++) {
			struct acl_prefix* p = &f[j]->prefix[i];
			for(k = 0; k < p->size; k++)
				if(p->tab[k].used && p->tab[k].policy &&
					p->tab[k].policy != &acl->unheld) {
					lz_client_tags_delete(
						p->tab[k].policy->tag_changes);
					free(p->tab[k].policy);
				}
			free(p->tab);
		}
	for(k = 0; k < acl->num_ifaces; k++) {
		if(acl->ifaces[k].policy)
			lz_client_tags_delete(
				acl->ifaces[k].policy->tag_changes);
		free(acl->ifaces[k].policy);
	}
	free(acl->ifaces);
	free(acl);
}

enum acl_access
acl_list_lookup(const struct acl_list* acl,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	return acl_list_match(acl, addr, addrlen).action;
}

struct acl_match
acl_list_match(const struct acl_list* acl,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	const struct acl_family* f;
	const uint8_t* bytes;
	struct acl_key k, m;
	struct acl_match r = { acl_deny, NULL };
	int n, i;
	if(!acl || !addr)
		return r;
	if(addr->ss_family == AF_INET &&
		addrlen >= (socklen_t)sizeof(struct sockaddr_in)) {
		/* the common case, without the generic address walk */
		uint32_t v4 = ((const struct sockaddr_in*)addr)->sin_addr.s_addr;
		k.w[0] = (uint64_t)__builtin_bswap32(v4) << 32;
		k.w[1] = 0;
		f = &acl->v4;
	} else {
		if(!(bytes = addr_bytes(addr, addrlen, &n)))
			return r;
		f = (n == 16) ? &acl->v6 : &acl->v4;
		k = acl_key_of(bytes, n);
	}
	for(i = 0; i < f->num; i++) {
		const struct acl_prefix* p = &f->prefix[i];
		const struct acl_entry* e;
		m.w[0] = k.w[0] & p->mask.w[0];
		m.w[1] = k.w[1] & p->mask.w[1];
		if((e = prefix_find(p, &m)) != NULL) {
			r.action = e->action;
			r.policy = e->policy;
			return r;
		}
	}
	/* compat: unbound-1.17: no netblock matches: Unbound drops */
	return r;
}
