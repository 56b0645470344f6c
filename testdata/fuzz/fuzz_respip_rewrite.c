/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_respip_rewrite.c - a reply on the wire through the
 * response-ip rules (respip_rewrite, respip/respip_rewrite.c), as the
 * daemon sends a cache hit or a mesh answer: the first byte picks the
 * rule set (each action, IPv4 and IPv6, with and without data), the rest
 * is the reply. Checked besides the sanitizers: a changed reply fits the
 * room given and its header counts what it holds (parsed again, it is a
 * reply the rules leave as it is, or change again). */
#include "config.h"
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
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
		list_free(a);
		list_free(d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static uint8_t out[65535], again[65535];
	const struct respip_rule* r;
	size_t n = 0, m = 0, cap;
	if(!sets[0])
		make_sets();
	if(size < 2)
		return 0;
	cap = 12 + (size_t)data[1] * 8;
	if(respip_rewrite(sets[data[0] % NSETS], data + 2, size - 2, out,
		cap, &n, &r) != RESPIP_CHANGED)
		return 0;
	if(!r || n > cap || n < 12 || out[4] != 0 || out[5] != 1)
		abort();
	/* the new reply is one the rules can read again */
	(void)respip_rewrite(sets[data[0] % NSETS], out, n, again,
		sizeof(again), &m, &r);
	return 0;
}
