/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_edns_strings.c - edns-client-string: netblock to EDNS
 * option (see the header). A linear longest-match: the list is short
 * and it runs only when a query goes upstream. */
#include "config.h"
#include "iterator/iter_edns_strings.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdlib.h>
#include <string.h>

static enum edns_strings_result add_entry(struct edns_string* e,
	const char* block, const char* str)
{
	size_t n = strlen(str);
	if(!netblockstrtoaddr(block, 0, &e->addr, &e->addrlen, &e->net)) {
		log_err("cannot parse edns-client-string netblock: %s",
			block);
		return EDNS_STRINGS_BAD_NETBLOCK;
	}
	if(n > EDNS_STRING_MAX) {
		log_err("edns-client-string for %s: string of %zu bytes, "
			"at most %d are supported", block, n,
			EDNS_STRING_MAX);
		return EDNS_STRINGS_TOO_LONG;
	}
	memcpy(e->data, str, n);
	e->len = n;
	return EDNS_STRINGS_OK;
}

enum edns_strings_result edns_strings_create(const struct config_file* cfg,
	struct edns_strings** out)
{
	const struct config_str2list* p;
	struct edns_strings* es;
	size_t n = 0;
	*out = NULL;
	for(p = cfg->edns_client_strings; p; p = p->next)
		n++;
	if(n == 0)
		return EDNS_STRINGS_OK;
	es = calloc(1, sizeof(*es));
	if(!es || !(es->list = calloc(n, sizeof(*es->list)))) {
		free(es);
		log_err("edns-client-string: out of memory");
		return EDNS_STRINGS_NOMEM;
	}
	es->opcode = (uint16_t)cfg->edns_client_string_opcode;
	for(p = cfg->edns_client_strings; p; p = p->next) {
		enum edns_strings_result r = add_entry(&es->list[es->num],
			p->str, p->str2);
		if(r != EDNS_STRINGS_OK) {
			edns_strings_delete(es);
			return r;
		}
		es->num++;
	}
	*out = es;
	return EDNS_STRINGS_OK;
}

void edns_strings_delete(struct edns_strings* es)
{
	if(!es)
		return;
	free(es->list);
	free(es);
}

const struct edns_string* edns_strings_lookup(const struct edns_strings* es,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	const struct edns_string* best = NULL;
	size_t i;
	if(!es)
		return NULL;
	for(i = 0; i < es->num; i++) {
		const struct edns_string* e = &es->list[i];
		if((!best || e->net > best->net) && addr_in_netblock(addr,
			addrlen, &e->addr, e->addrlen, e->net))
			best = e;
	}
	return best;
}

void edns_strings_append(const struct edns_strings* es,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* buf, size_t* len, size_t cap)
{
	const struct edns_string* e = edns_strings_lookup(es, addr, addrlen);
	uint8_t* p;
	if(!e || *len + 4 + e->len > cap)
		return;
	p = buf + *len;
	p[0] = (uint8_t)(es->opcode >> 8);
	p[1] = (uint8_t)es->opcode;
	p[2] = (uint8_t)(e->len >> 8);
	p[3] = (uint8_t)e->len;
	memcpy(p + 4, e->data, e->len);
	*len += 4 + e->len;
}
