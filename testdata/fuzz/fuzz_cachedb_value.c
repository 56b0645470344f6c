/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_cachedb_value.c - a value read from the cachedb
 * backend (cachedb_value_decode, cachedb/cachedb_value.c): outside input,
 * anyone who can write to the Redis can put anything under a key. The
 * question asked is www.example.com. A IN (the seeds hold answers to it)
 * at a fixed time. Checked besides the sanitizers: an accepted value has
 * its three sections, and encoded again it decodes to the same rcode and
 * record counts; a refused one leaves the result empty. */
#include "config.h"
#include "cachedb/cachedb_value.h"
#include "util/module.h"
#include "util/msgparse.h"
#include <stdlib.h>
#include <string.h>

/* www.example.com. */
static const uint8_t qname[] = { 3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm',
	'p', 'l', 'e', 3, 'c', 'o', 'm', 0 };
/* the seeds were stored at 1700000000 */
#define FUZZ_NOW ((time_t)1700000100)

static size_t count(const ldns_rr_list* l)
{
	return l ? ldns_rr_list_rr_count(l) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct module_result res, again;
	static uint8_t buf[CACHEDB_VALUE_MAX];
	enum cachedb_value_verdict v;
	uint32_t ttl = 0;
	size_t n;
	memset(&res, 0, sizeof(res));
	memset(&again, 0, sizeof(again));
	v = cachedb_value_decode(data, size, qname, sizeof(qname), TYPE_A,
		CLASS_IN, FUZZ_NOW, &res);
	if(v != CACHEDB_VALUE_OK) {
		if(res.answer || res.authority || res.additional)
			abort();
		return 0;
	}
	if(!res.answer || !res.authority || !res.additional ||
		(res.rcode != RCODE_NOERROR && res.rcode != RCODE_NXDOMAIN))
		abort();
	n = cachedb_value_encode(&res, qname, sizeof(qname), TYPE_A,
		CLASS_IN, 0, FUZZ_NOW, buf, sizeof(buf), &ttl);
	/* a decoded value has TTLs above 0 and fits, as it came */
	if(n) {
		if(cachedb_value_decode(buf, n, qname, sizeof(qname), TYPE_A,
			CLASS_IN, FUZZ_NOW, &again) != CACHEDB_VALUE_OK ||
			again.rcode != res.rcode ||
			count(again.answer) > count(res.answer) ||
			count(again.authority) > count(res.authority) ||
			count(again.additional) > count(res.additional))
			abort();
		module_result_free_lists(&again);
	}
	module_result_free_lists(&res);
	return 0;
}
