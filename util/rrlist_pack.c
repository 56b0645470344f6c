/* SPDX-License-Identifier: BSD-3-Clause */
/* util/rrlist_pack.c - the RRsets of an ldns record list in the packed
 * form the encoder and the caches take (see the header). */
#include "config.h"
#include "util/rrlist_pack.h"
#include "util/msgencode.h"
#include <stdlib.h>
#include <string.h>

static int same_set(const ldns_rr* a, const ldns_rr* b)
{
	return ldns_rr_get_type(a) == ldns_rr_get_type(b) &&
		ldns_rr_get_class(a) == ldns_rr_get_class(b) &&
		ldns_dname_compare(ldns_rr_owner(a), ldns_rr_owner(b)) == 0;
}

int rrlist_for_each_rrset(const ldns_rr_list* list,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg)
{
	size_t n = ldns_rr_list_rr_count(list), i, j, k;
	uint8_t* used = NULL;
	const uint8_t** rd = NULL;
	uint16_t* rl = NULL;
	ldns_buffer* tmp = NULL;
	int ok = 0;
	if(n == 0)
		return 1;
	used = calloc(n, 1);
	rd = calloc(n, sizeof(*rd));
	rl = calloc(n, sizeof(*rl));
	tmp = ldns_buffer_new(1024);
	if(!used || !rd || !rl || !tmp)
		goto done;
	for(i = 0; i < n; i++) {
		ldns_rr* first = ldns_rr_list_rr(list, i);
		struct packed_rrset set;
		size_t off = 0;
		if(used[i])
			continue;
		memset(&set, 0, sizeof(set));
		set.owner = ldns_rdf_data(ldns_rr_owner(first));
		set.owner_len = ldns_rdf_size(ldns_rr_owner(first));
		set.type = (uint16_t)ldns_rr_get_type(first);
		set.rclass = (uint16_t)ldns_rr_get_class(first);
		set.ttl = ldns_rr_ttl(first);
		ldns_buffer_clear(tmp);
		for(j = i; j < n; j++) {
			ldns_rr* rr = ldns_rr_list_rr(list, j);
			size_t start = ldns_buffer_position(tmp);
			if(used[j] || !same_set(first, rr))
				continue;
			used[j] = 1;
			if(ldns_rr_rdata2buffer_wire(tmp, rr) != LDNS_STATUS_OK
				|| ldns_buffer_position(tmp) - start > 65535)
				goto done;
			rl[set.count++] = (uint16_t)(ldns_buffer_position(tmp)
				- start);
			if(ldns_rr_ttl(rr) < set.ttl)
				set.ttl = ldns_rr_ttl(rr);
		}
		for(k = 0; k < set.count; k++) {
			rd[k] = ldns_buffer_begin(tmp) + off;
			off += rl[k];
		}
		set.rdata = rd;
		set.rdlen = rl;
		if(!fn(arg, &set))
			goto done;
	}
	ok = 1;
done:
	free(used);
	free(rd);
	free(rl);
	ldns_buffer_free(tmp);
	return ok;
}
