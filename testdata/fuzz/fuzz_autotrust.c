/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_autotrust.c - the RFC 5011 state file
 * (auto-trust-anchor-file): the reader val_ta_read_autofile
 * (validator/val_anchor_read.c) on the input, and the writer
 * val_autr_write_fp (validator/val_autotrust_file.c) on what loaded.
 * Checked besides the sanitizers: what the daemon writes it reads back
 * (a file it wrote must load at the next start), to the same point:
 * the same header fields, the same keys with the same states, counts
 * and times, and written again the same text. The reader opens a file:
 * the input goes to a temporary file (in TMPDIR, /tmp by default). */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "validator/val_anchor_read.h"
#include "validator/val_autotrust.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char in_name[512], out_name[512];

static void collect_free(struct ta_collect* c)
{
	size_t i;
	for(i = 0; i < c->nautr; i++)
		val_autr_point_delete(c->autr[i]);
	free(c->autr);
	for(i = 0; i < c->n; i++)
		ldns_rr_list_deep_free(c->pts[i].rrs);
	free(c->pts);
	memset(c, 0, sizeof(*c));
}

static int write_file(const char* name, const void* data, size_t size)
{
	FILE* f = fopen(name, "wb");
	int ok;
	if(!f)
		abort();
	ok = fwrite(data, 1, size, f) == size;
	if(fclose(f) != 0 || !ok)
		abort();
	return 1;
}

/* The point written to out_name; returns the text (malloc'ed). */
static char* write_point(const struct autr_point* p)
{
	char* text = NULL;
	size_t len = 0;
	FILE* m = open_memstream(&text, &len);
	if(!m || !val_autr_write_fp(m, p) || fclose(m) != 0)
		abort();
	write_file(out_name, text, len);
	return text;
}

/* Only the keys the writer keeps (as Unbound: DNSKEYs not in START or
 * REMOVED). */
static int kept(const struct autr_key* k)
{
	return k->s != AUTR_STATE_START && k->s != AUTR_STATE_REMOVED &&
		ldns_rr_get_type(k->rr) == LDNS_RR_TYPE_DNSKEY;
}

static void must(int cond, const char* what)
{
	if(!cond) {
		fprintf(stderr, "fuzz_autotrust: written and read back: %s "
			"differs\n", what);
		abort();
	}
}

static void same_point(const struct autr_point* a,
	const struct autr_point* b)
{
	size_t i, j = 0;
	must(a->namelen == b->namelen && memcmp(a->name, b->name,
		a->namelen) == 0 && a->dclass == b->dclass, "the point");
	must(a->last_queried == b->last_queried &&
		a->last_success == b->last_success &&
		a->next_probe_time == b->next_probe_time &&
		a->query_failed == b->query_failed &&
		a->query_interval == b->query_interval &&
		a->retry_time == b->retry_time, "a header field");
	for(i = 0; i < a->n; i++) {
		const struct autr_key* k = &a->keys[i];
		if(!kept(k))
			continue;
		must(j < b->n, "the number of keys");
		must(ldns_rr_compare(k->rr, b->keys[j].rr) == 0, "a key");
		must(k->s == b->keys[j].s, "a key's state");
		must(k->count == b->keys[j].count, "a key's count");
		must(k->last_change == b->keys[j].last_change,
			"a key's lastchange");
		j++;
	}
	must(j == b->n, "the number of keys");
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct ta_collect c1, c2;
	char* t1, *t2;
	if(!in_name[0]) {
		const char* tmp = getenv("TMPDIR");
		fuzz_quiet_logs();
		snprintf(in_name, sizeof(in_name), "%s/fuzz_autotrust.%d.in",
			tmp ? tmp : "/tmp", (int)getpid());
		snprintf(out_name, sizeof(out_name), "%s/fuzz_autotrust.%d.out",
			tmp ? tmp : "/tmp", (int)getpid());
	}
	write_file(in_name, data, size);
	memset(&c1, 0, sizeof(c1));
	memset(&c2, 0, sizeof(c2));
	if(!val_ta_read_autofile(&c1, in_name) || c1.nautr != 1) {
		collect_free(&c1);
		unlink(in_name);
		return 0;
	}
	t1 = write_point(c1.autr[0]);
	if(!val_ta_read_autofile(&c2, out_name)) {
		/* nothing kept (every key START, REMOVED or a DS) is an
		 * empty file, refused as Unbound refuses it */
		size_t i;
		for(i = 0; i < c1.autr[0]->n; i++)
			must(!kept(&c1.autr[0]->keys[i]), "the file (it does "
				"not load)");
	} else {
		must(c2.nautr == 1, "the number of points");
		same_point(c1.autr[0], c2.autr[0]);
		t2 = write_point(c2.autr[0]);
		must(strcmp(t1, t2) == 0, "the text written");
		free(t2);
	}
	free(t1);
	collect_free(&c1);
	collect_free(&c2);
	unlink(in_name);
	unlink(out_name);
	return 0;
}
