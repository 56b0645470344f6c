/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_rpz_zone.c - an RPZ zone's records made into its
 * triggers (rpz_builder_add, respip/rpz_zone.c), as a zone file or a
 * transfer gives them: the input is records one after another, each an
 * uncompressed owner name, then type, class, TTL, rdlength and rdata as
 * on the wire, under the origin rpz.example. The zone is then asked for
 * each owner (QNAME and wildcard), for addresses (.rpz-ip,
 * .rpz-client-ip), and applied to a reply for the first owner. Checked
 * besides the sanitizers: the names are sorted and unique, every
 * trigger's data lies in the zone's blob, a rewritten reply fits. */
#include "config.h"
#include "respip/rpz.h"
#include "respip/rpz_zone.h"
#include "respip/respip_set.h"
#include "util/dname.h"
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t origin[] = "\003rpz\007example";

static void check_zone(const struct rpz_zone* z)
{
	size_t i;
	for(i = 0; i < z->num_names; i++) {
		const struct rpz_name* n = &z->names[i];
		if(n->name_off + n->name_len > z->blob_len ||
			n->data_off + n->data_len > z->blob_len)
			abort();
		if(i > 0) {
			const struct rpz_name* p = &z->names[i - 1];
			size_t l = p->name_len < n->name_len ? p->name_len :
				n->name_len;
			int c = memcmp(z->blob + p->name_off, z->blob +
				n->name_off, l);
			if(c > 0 || (c == 0 && p->name_len >= n->name_len))
				abort();
		}
	}
}

/* A reply for name (A, one address 192.0.2.1, an OPT record) in buf. */
static size_t reply_for(const uint8_t* name, size_t nlen, uint8_t* buf)
{
	static const uint8_t head[] = { 0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1,
		0, 0, 0, 1 };
	static const uint8_t tail[] = { 0, 1, 0, 1, 0xc0, 12, 0, 1, 0, 1,
		0, 0, 0, 60, 0, 4, 192, 0, 2, 1, 0, 0, 41, 4, 0xd0, 0, 0, 0,
		0, 0, 0 };
	memcpy(buf, head, sizeof(head));
	memcpy(buf + sizeof(head), name, nlen);
	memcpy(buf + sizeof(head) + nlen, tail, sizeof(tail));
	return sizeof(head) + nlen + sizeof(tail);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static uint8_t pkt[1024], out[65535];
	struct rpz_builder* b = rpz_builder_create(origin);
	const uint8_t* first = NULL;
	size_t first_len = 0, pos = 0;
	struct rpz_zone* z;
	if(!b)
		abort();
	while(pos < size) {
		size_t nlen = dname_valid(data + pos, size - pos);
		const uint8_t* rr;
		uint16_t rdlen;
		if(!nlen || pos + nlen + 10 > size)
			break;
		rr = data + pos + nlen;
		rdlen = (uint16_t)((rr[8] << 8) | rr[9]);
		if(pos + nlen + 10 + rdlen > size)
			break;
		if(!rpz_builder_add(b, data + pos, nlen,
			(uint16_t)((rr[0] << 8) | rr[1]),
			(uint16_t)((rr[2] << 8) | rr[3]),
			(uint32_t)rr[4] << 24 | (uint32_t)rr[5] << 16 |
			(uint32_t)rr[6] << 8 | rr[7], rr + 10, rdlen))
			abort();
		if(!first) {
			first = data + pos;
			first_len = nlen;
		}
		pos += nlen + 10 + rdlen;
	}
	if(!(z = rpz_builder_finish(b)))
		abort();
	check_zone(z);
	if(first) {
		static const uint8_t v4[4] = { 192, 0, 2, 1 };
		static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
		struct rpz_policy_zone pz;
		struct rpz_policy p;
		struct rpz_client cl;
		struct sockaddr_storage ss;
		enum rpz_action a;
		enum rpz_outcome o;
		size_t n = 0, len;
		(void)rpz_zone_lookup_qname(z, first, first_len);
		(void)respip_set_lookup(z->ip, v4, 4);
		(void)respip_set_lookup(z->client, v6, 16);
		memset(&pz, 0, sizeof(pz));
		pz.name = "rpz.example.";
		pz.zone = z;
		pz.override = RPZ_NO_OVERRIDE;
		p.zones = &pz;
		p.num = 1;
		memset(&ss, 0, sizeof(ss));
		memset(&cl, 0, sizeof(cl));
		ss.ss_family = AF_INET;
		cl.addr = &ss;
		cl.addrlen = sizeof(struct sockaddr_in);
		cl.is_tcp = 0;
		len = reply_for(first, first_len, pkt);
		o = rpz_policy_apply(&p, &cl, pkt, len, out, 512, &n, &a);
		if((o == RPZ_OUT_CHANGED || o == RPZ_OUT_CHASE ||
			o == RPZ_OUT_ALIAS) && (n > 512 || n < 12 ||
			out[5] != 1))
			abort();
	}
	rpz_zone_delete(z);
	return 0;
}
