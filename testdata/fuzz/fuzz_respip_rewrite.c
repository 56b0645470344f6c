/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_respip_rewrite.c - a reply on the wire through the
 * response-ip rules (respip_rewrite, respip/respip_rewrite.c), as the
 * daemon sends a cache hit or a mesh answer: the first byte picks the
 * rule set (each action, IPv4 and IPv6, with and without data) and, in
 * its high bits, a client with response-ip-tag actions (every action,
 * with tag data: an A record, a CNAME for AAAA), the rest is the
 * reply. Checked besides the sanitizers: a changed reply fits the
 * room given and its header counts what it holds (parsed again, it is a
 * reply the rules leave as it is, or change again). A changed reply is
 * also merged with the input as its CNAME target's reply
 * (services/reply_chase.h, both modes): the merge fits its room. */
#include "config.h"
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
#include "services/reply_chase.h"
#include "util/config_file.h"
#include <stdlib.h>
#include <string.h>

#define NSETS 8

static struct config_str2list* item(const char* a, const char* b,
	struct config_str2list* next)
{
	struct config_str2list* n = calloc(1, sizeof(*n));
	if(!n)
		abort();
	n->str = strdup(a);
	n->str2 = strdup(b);
	n->next = next;
	return n;
}

static void list_free(struct config_str2list* l)
{
	while(l) {
		struct config_str2list* n = l->next;
		free(l->str);
		free(l->str2);
		free(l);
		l = n;
	}
}

static struct respip_set* sets[NSETS];

static void make_sets(void)
{
	static const char* actions[NSETS] = { "deny", "redirect", "inform",
		"inform_deny", "always_transparent", "always_refuse",
		"always_nxdomain", "redirect" };
	int i;
	for(i = 0; i < NSETS; i++) {
		struct config_str2list* a = item("0.0.0.0/0", actions[i],
			item("::/0", actions[i], item("192.0.2.0/24",
			"redirect", NULL)));
		struct config_str2list* d = item("192.0.2.0/24", "A 10.0.0.1",
			item("192.0.2.0/24", "A 10.0.0.2", NULL));
		if(i == 7)
			d = item("0.0.0.0/0", "CNAME target.example.",
				item("::/0", "AAAA 2001:db8::1", d));
		if(!(sets[i] = respip_set_create(a, d)))
			abort();
		/* every rule tagged: tag 0 on even sets, tag 5 on odd */
		if(!(sets[i]->tag_sets = malloc(sizeof(uint64_t))))
			abort();
		sets[i]->tag_sets[0] = (uint64_t)1 << (i & 1 ? 5 : 0);
		sets[i]->num_tag_sets = 1;
		for(size_t k = 0; k < sets[i]->v4.count; k++)
			sets[i]->v4.rules[k].tag_idx = 1;
		for(size_t k = 0; k < sets[i]->v6.count; k++)
			sets[i]->v6.rules[k].tag_idx = 1;
		list_free(a);
		list_free(d);
	}
}

static enum respip_action fuzz_tag_action(void* arg, int tag)
{
	(void)tag;
	return (enum respip_action)(*(const uint8_t*)arg % 14);
}

/* tag data: A 10.9.9.9 for A, CNAME t.example. for anything else */
static size_t fuzz_tag_data(void* arg, int tag, uint16_t type,
	uint16_t rclass, uint8_t* buf, size_t cap, size_t* len)
{
	static const uint8_t a[] = { 0, 1, 0, 1, 0, 0, 14, 16, 0, 4,
		10, 9, 9, 9 };
	static const uint8_t cname[] = { 0, 5, 0, 1, 0, 0, 14, 16, 0, 11,
		1, 't', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0 };
	const uint8_t* rec = type == 1 ? a : cname;
	size_t n = type == 1 ? sizeof(a) : sizeof(cname);
	(void)arg;
	(void)tag;
	(void)rclass;
	if(n > cap)
		return 0;
	memcpy(buf, rec, n);
	*len = n;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static uint8_t out[65535], again[65535];
	const struct respip_rule* r;
	size_t n = 0, m = 0, cap;
	struct respip_tag_client tc;
	enum respip_action act;
	uint8_t which;
	if(!sets[0])
		make_sets();
	if(size < 2)
		return 0;
	which = (uint8_t)(data[0] >> 4);
	tc.tags = (uint64_t)1 << 5 | 1;
	tc.action = fuzz_tag_action;
	tc.data = fuzz_tag_data;
	tc.arg = &which;
	cap = 12 + (size_t)data[1] * 8;
	switch(respip_rewrite_client(sets[data[0] % NSETS], data[0] & 8 ?
		&tc : NULL, data + 2, size - 2, out, cap, &n, &r, &act)) {
	case RESPIP_CHANGED:
	case RESPIP_CHASE:
		break;
	default:
		return 0;
	}
	if(!r || n > cap || n < 12 || out[4] != 0 || out[5] != 1)
		abort();
	/* the new reply is one the rules can read again */
	(void)respip_rewrite(sets[data[0] % NSETS], out, n, again,
		sizeof(again), &m, &r);
	{
		uint8_t target[256];
		size_t tl, k = reply_chase_merge(out, n, data + 2, size - 2,
			data[0] & 16 ? REPLY_CHASE_ALIAS : REPLY_CHASE_MERGE,
			again, cap);
		if(k > cap || (k && k < 12))
			abort();
		(void)reply_chase_target(out, n, target, &tl);
		if(reply_chase_servfail(out, n, again, cap) > cap)
			abort();
	}
	return 0;
}
