/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_zonefile.c - writing a transferred zone to its zone file
 * (text: ldns's job, off the query path, in the transfer thread). */
#include "config.h"
#include "services/xfr_zonefile.h"
#include "util/dname.h"
#include "util/log.h"
#include <errno.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One RR as text on out. 0 on an error. */
static int write_rr(FILE* out, const struct xfr_rr* r)
{
	uint8_t buf[256 + 10 + 65535];
	size_t n = r->owner_len, pos = 0;
	ldns_rr* lr = NULL;
	int ok;
	memcpy(buf, r->owner, n);
	buf[n] = (uint8_t)(r->type >> 8);
	buf[n+1] = (uint8_t)r->type;
	buf[n+2] = (uint8_t)(r->rclass >> 8);
	buf[n+3] = (uint8_t)r->rclass;
	buf[n+4] = (uint8_t)(r->ttl >> 24);
	buf[n+5] = (uint8_t)(r->ttl >> 16);
	buf[n+6] = (uint8_t)(r->ttl >> 8);
	buf[n+7] = (uint8_t)r->ttl;
	buf[n+8] = (uint8_t)(r->rdlen >> 8);
	buf[n+9] = (uint8_t)r->rdlen;
	memcpy(buf + n + 10, r->rdata, r->rdlen);
	if(ldns_wire2rr(&lr, buf, n + 10 + r->rdlen, &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		return 0;
	ldns_rr_print(out, lr);
	ok = !ferror(out);
	ldns_rr_free(lr);
	return ok;
}

int xfr_zonefile_write(const char* path, const uint8_t* zone,
	const struct xfr_rrs* content)
{
	char tmp[4096];
	FILE* out;
	size_t i;
	int ok = 1, pass;
	snprintf(tmp, sizeof(tmp), "%s.xfrtmp", path);
	if(!(out = fopen(tmp, "w"))) {
		log_err("could not open %s for writing: %s", tmp,
			strerror(errno));
		return 0;
	}
	/* the apex SOA first, then the rest in the order received */
	for(pass = 0; pass < 2 && ok; pass++)
		for(i = 0; i < content->n && ok; i++) {
			const struct xfr_rr* r = &content->v[i];
			int apex_soa = r->type == 6 &&
				query_dname_compare(r->owner, zone) == 0;
			if(apex_soa == (pass == 0))
				ok = write_rr(out, r);
		}
	if(fclose(out) != 0)
		ok = 0;
	if(!ok || rename(tmp, path) != 0) {
		log_err("could not write zone file %s: %s", path, ok ?
			strerror(errno) : "conversion or write error");
		unlink(tmp);
		return 0;
	}
	return 1;
}
