/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_priv.c - private-address and private-domain filtering. */
#include "config.h"
#include "iterator/iter_priv.h"
#include "iterator/delegpt.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

struct priv_block {
	struct sockaddr_storage addr;
	socklen_t len;
	int net;
};

struct iter_priv {
	struct priv_block* blocks;
	size_t num_blocks;
	uint8_t (*domains)[LDNS_MAX_DOMAINLEN + 1];
	size_t num_domains;
};

static size_t count(const struct config_strlist* l)
{
	size_t n = 0;
	for(; l; l = l->next)
		n++;
	return n;
}

int iter_priv_create(const struct config_file* cfg, struct iter_priv** out)
{
	struct iter_priv* p;
	struct config_strlist* s;
	*out = NULL;
	if(!cfg->private_address)
		return 1;   /* private-domain alone changes nothing */
	p = calloc(1, sizeof(*p));
	if(!p || !(p->blocks = calloc(count(cfg->private_address),
		sizeof(*p->blocks))) || !(p->domains = calloc(
		count(cfg->private_domain) + 1, sizeof(*p->domains)))) {
		log_err("out of memory");
		iter_priv_delete(p);
		return 0;
	}
	for(s = cfg->private_address; s; s = s->next) {
		struct priv_block* b = &p->blocks[p->num_blocks];
		if(!netblockstrtoaddr(s->str, 0, &b->addr, &b->len, &b->net)) {
			log_err("private-address: bad netblock '%s'", s->str);
			iter_priv_delete(p);
			return 0;
		}
		p->num_blocks++;
	}
	for(s = cfg->private_domain; s; s = s->next) {
		if(!dname_from_str(s->str, p->domains[p->num_domains])) {
			log_err("private-domain: bad name '%s'", s->str);
			iter_priv_delete(p);
			return 0;
		}
		p->num_domains++;
	}
	*out = p;
	return 1;
}

void iter_priv_delete(struct iter_priv* p)
{
	if(!p)
		return;
	free(p->blocks);
	free(p->domains);
	free(p);
}

/* Is the A/AAAA record rr private (and not allowed by a domain)? */
static int rr_private(const struct iter_priv* p, const ldns_rr* rr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	ldns_rdf* rd;
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	if(ldns_rr_rd_count(rr) != 1)
		return 0;
	rd = ldns_rr_rdf(rr, 0);
	memset(&ss, 0, sizeof(ss));
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A && ldns_rdf_size(rd) == 4) {
		struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, ldns_rdf_data(rd), 4);
		len = sizeof(*s4);
	} else if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA &&
		ldns_rdf_size(rd) == 16) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, ldns_rdf_data(rd), 16);
		len = sizeof(*s6);
	} else
		return 0;
	for(i = 0; i < p->num_blocks; i++)
		if(addr_in_netblock(&ss, len, &p->blocks[i].addr,
			p->blocks[i].len, p->blocks[i].net))
			break;
	if(i == p->num_blocks)
		return 0;
	if(!delegpt_rdf_to_wire(ldns_rr_owner(rr), owner))
		return 1;
	for(i = 0; i < p->num_domains; i++)
		if(dname_subdomain_c(owner, p->domains[i]))
			return 0;
	return 1;
}

int iter_priv_filter(const struct iter_priv* p, ldns_rr_list* list)
{
	size_t i, keep = 0, n;
	if(!p || !list)
		return 0;
	n = ldns_rr_list_rr_count(list);
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		if(rr_private(p, rr)) {
			ldns_rr_free(rr);
			continue;
		}
		(void)ldns_rr_list_set_rr(list, rr, keep++);
	}
	ldns_rr_list_set_rr_count(list, keep);
	return (int)(n - keep);
}
