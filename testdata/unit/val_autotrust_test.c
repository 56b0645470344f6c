/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_autotrust_test.c - RFC 5011 trust points: the state
 * table's transitions (START, ADDPEND, VALID, MISSING, REVOKED, REMOVED)
 * with hold-downs and the pending count, keep-missing, the probe times,
 * the trusted lists the validator sees, and the file in Unbound's format
 * written and read back (val_ta_read_autofile), atomically, with the
 * unwritable cases. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "validator/val_autotrust.h"
#include "validator/val_anchor_read.h"
#include "util/log.h"

static char tmpdir[256];

/* Distinct public keys (the bytes need not be a valid RSA key here: the
 * table never checks signatures). */
#define KEY_A "AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3+/4R"
#define KEY_B "AwEAAbOFAxl+Lkt0UMglZizKEC1AxUu8zlj65KYatR5wBWMrh18TYzK/ig6Y"
#define KEY_C "AwEAAagAIKlVZrpC6Ia7gEzahOR+9W29euxhJhVVLOyQbSEW0O8gcCjFFVQU"
#define KEY_D "AwEAAdhKkFzM5IYLHOgVEj+FqGjMo4/whYUgnHMiUkVvC8V7RCcZvQwLFi/e"

static ldns_rr* key(int flags, const char* material)
{
	char buf[512];
	ldns_rr* rr = NULL;
	snprintf(buf, sizeof(buf), ". 172800 IN DNSKEY %d 3 8 %s", flags,
		material);
	assert_int_equal(ldns_rr_new_frm_str(&rr, buf, 0, NULL, NULL),
		LDNS_STATUS_OK);
	return rr;
}

static struct autr_point* root_point(void)
{
	uint8_t root = 0;
	struct autr_point* p = val_autr_point_new(&root, 1, LDNS_RR_CLASS_IN);
	assert_non_null(p);
	return p;
}

/* A DNSKEY set of the given keys (owned by the list). */
static ldns_rr_list* set_of(ldns_rr* a, ldns_rr* b, ldns_rr* c)
{
	ldns_rr_list* l = ldns_rr_list_new();
	if(a) ldns_rr_list_push_rr(l, a);
	if(b) ldns_rr_list_push_rr(l, b);
	if(c) ldns_rr_list_push_rr(l, c);
	return l;
}

static const struct autr_params PAR = { 100, 200, 1000, 1 };

static struct autr_key* find(struct autr_point* p, const char* m)
{
	ldns_rr* k = key(257, m);
	struct autr_key* ak = val_autr_find_key(p, k);
	ldns_rr_free(k);
	return ak;
}

static enum autr_state state_of(struct autr_point* p, const char* m)
{
	ldns_rr* k = key(257, m);
	struct autr_key* ak = val_autr_find_key(p, k);
	ldns_rr_free(k);
	return ak ? ak->s : (enum autr_state)-1;
}

static void probe(struct autr_point* p, ldns_rr_list* set, time_t now)
{
	int changed = 0;
	val_autr_holddown_exceed(p, now, &PAR, &changed);
	assert_true(val_autr_update(p, set, NULL, NULL, 172800, 86400 * 20, now,
		&PAR, &changed));
	ldns_rr_list_deep_free(set);
}

static void test_add_and_holddown(void** st)
{
	struct autr_point* p = root_point();
	(void)st;
	assert_non_null(val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID,
		0, 0));
	/* a new key is ADDPEND at its first sighting */
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1000);
	assert_int_equal(state_of(p, KEY_A), AUTR_STATE_VALID);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_ADDPEND);
	/* the configured key's hold-downs count from its first sighting */
	assert_int_equal(find(p, KEY_A)->last_change,
		1000);
	/* not before add-holddown (100 s) */
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1050);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_ADDPEND);
	assert_int_equal(find(p, KEY_B)->count, 2);
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1101);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_VALID);
	assert_int_equal(find(p, KEY_B)->count, 0);
	assert_int_equal(find(p, KEY_B)->last_change,
		1101);
	val_autr_point_delete(p);
}

static void test_pending_count_needed(void** st)
{
	/* seen once, then the hold-down passes: not VALID on time alone
	 * (Unbound wants two sightings) */
	struct autr_point* p = root_point();
	int changed = 0;
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 0);
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1000);
	val_autr_holddown_exceed(p, 5000, &PAR, &changed);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_ADDPEND);
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 5001);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_VALID);
	val_autr_point_delete(p);
}

static void test_addpend_key_gone(void** st)
{
	struct autr_point* p = root_point();
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 0);
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1000);
	probe(p, set_of(key(257, KEY_A), NULL, NULL), 1010);
	/* back to START, which is not kept */
	assert_int_equal((int)state_of(p, KEY_B), -1);
	assert_int_equal(p->n, 1);
	val_autr_point_delete(p);
}

static void test_missing_and_back(void** st)
{
	struct autr_point* p = root_point();
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 500);
	val_autr_point_add(p, key(257, KEY_B), AUTR_STATE_VALID, 0, 500);
	probe(p, set_of(key(257, KEY_A), NULL, NULL), 1000);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_MISSING);
	/* MISSING is still trusted */
	assert_true(val_autr_publish(p));
	assert_int_equal(ldns_rr_list_rr_count(val_autotrust_trusted(p, 0)),
		2);
	probe(p, set_of(key(257, KEY_A), key(257, KEY_B), NULL), 1100);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_VALID);
	/* keep-missing (1000 s) removes a long-missing key while another
	 * is VALID */
	probe(p, set_of(key(257, KEY_A), NULL, NULL), 1200);
	probe(p, set_of(key(257, KEY_A), NULL, NULL), 2100);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_MISSING);
	probe(p, set_of(key(257, KEY_A), NULL, NULL), 2201);
	assert_int_equal((int)state_of(p, KEY_B), -1);
	val_autr_point_delete(p);
}

static void test_revoke_and_remove(void** st)
{
	struct autr_point* p = root_point();
	struct autr_key* k;
	int changed = 0;
	ldns_rr* rev = key(257 | LDNS_KEY_REVOKE_KEY, KEY_A);
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 500);
	val_autr_point_add(p, key(257, KEY_B), AUTR_STATE_VALID, 0, 500);
	/* the prober found the revoked A signing the set itself */
	k = val_autr_find_key(p, rev);
	assert_non_null(k);
	val_autr_key_revoked(k, 1000, &changed);
	assert_true(changed);
	assert_int_equal(k->s, AUTR_STATE_REVOKED);
	assert_true(val_autr_rr_is_revoked(k->rr));
	assert_true(val_autr_publish(p));
	/* a revoked key is no longer trusted */
	assert_int_equal(ldns_rr_list_rr_count(val_autotrust_trusted(p, 0)),
		1);
	assert_true(val_autr_has_trust(p));
	/* del-holddown (200 s) counts from the revocation, published or
	 * not (as Unbound: a revoked key in the set is not "seen") */
	probe(p, set_of(rev, key(257, KEY_B), NULL), 1150);
	assert_int_equal(state_of(p, KEY_A), AUTR_STATE_REVOKED);
	probe(p, set_of(key(257, KEY_B), NULL, NULL), 1200);
	assert_int_equal(state_of(p, KEY_A), AUTR_STATE_REVOKED);
	/* then REMOVED, which is not kept */
	probe(p, set_of(key(257, KEY_B), NULL, NULL), 1201);
	assert_int_equal((int)state_of(p, KEY_A), -1);
	/* published revoked still: it does not come back */
	probe(p, set_of(key(257 | LDNS_KEY_REVOKE_KEY, KEY_A),
		key(257, KEY_B), NULL), 1300);
	assert_int_equal((int)state_of(p, KEY_A), -1);
	assert_int_equal(p->n, 1);
	val_autr_point_delete(p);
}

static void test_revoke_last_key(void** st)
{
	struct autr_point* p = root_point();
	int changed = 0;
	ldns_rr* rev = key(257 | LDNS_KEY_REVOKE_KEY, KEY_A);
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 500);
	val_autr_key_revoked(val_autr_find_key(p, rev), 1000, &changed);
	assert_false(val_autr_has_trust(p));
	p->revoked = 1;
	assert_true(val_autr_publish(p));
	assert_null(val_autotrust_trusted(p, 0));
	assert_null(val_autotrust_trusted(p, 1));
	ldns_rr_free(rev);
	val_autr_point_delete(p);
}

static void test_ds_start_and_zsk(void** st)
{
	/* a file that starts with a DS: the key it matches is VALID at
	 * once; the DS and a configured ZSK then go */
	struct autr_point* p = root_point();
	ldns_rr* ds = NULL;
	char dsm[3] = { 1, 0, 0 };
	int changed = 0;
	ldns_rr_list* set;
	(void)st;
	assert_int_equal(ldns_rr_new_frm_str(&ds, ". IN DS 20326 8 2 "
		"E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8"
		"EC8D", 0, NULL, NULL), LDNS_STATUS_OK);
	val_autr_point_add(p, ds, AUTR_STATE_VALID, 0, 0);
	val_autr_point_add(p, key(256, KEY_C), AUTR_STATE_VALID, 0, 0);
	assert_true(val_autr_publish(p));
	assert_int_equal(ldns_rr_list_rr_count(val_autotrust_trusted(p, 1)),
		1);
	set = set_of(key(257, KEY_A), key(257, KEY_B), key(256, KEY_C));
	assert_true(val_autr_update(p, set, dsm, NULL, 172800, 86400 * 20, 1000,
		&PAR, &changed));
	ldns_rr_list_deep_free(set);
	assert_int_equal(state_of(p, KEY_A), AUTR_STATE_VALID);
	assert_int_equal(state_of(p, KEY_B), AUTR_STATE_ADDPEND);
	assert_int_equal(p->n, 2);   /* DS and ZSK dropped */
	assert_true(val_autr_publish(p));
	assert_null(val_autotrust_trusted(p, 1));
	val_autr_point_delete(p);
}

static void test_unsupported_algorithm_skipped(void** st)
{
	struct autr_point* p = root_point();
	char sup[2] = { 1, 0 };
	int changed = 0;
	ldns_rr_list* set = set_of(key(257, KEY_A), key(257, KEY_B), NULL);
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 0);
	assert_true(val_autr_update(p, set, NULL, sup, 172800, 86400 * 20, 1000,
		&PAR, &changed));
	ldns_rr_list_deep_free(set);
	assert_int_equal((int)state_of(p, KEY_B), -1);
	val_autr_point_delete(p);
}

static void test_probe_times(void** st)
{
	struct autr_point* p = root_point();
	struct autr_params strict = { 100, 200, 1000, 0 };
	int changed = 0, i;
	ldns_rr_list* set = set_of(key(257, KEY_A), NULL, NULL);
	(void)st;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 0);
	/* TTL 2 days, signatures 20 days: 1 day and 4.8 hours */
	assert_true(val_autr_update(p, set, NULL, NULL, 172800, 86400 * 20,
		1000,
		&strict, &changed));
	assert_int_equal(p->query_interval, 86400);
	assert_int_equal(p->retry_time, 17280);
	/* 15 days at most; signatures expiring soon bring it down */
	assert_true(val_autr_update(p, set, NULL, NULL, 86400 * 60, 86400 * 8,
		1000, &strict, &changed));
	assert_int_equal(p->query_interval, 86400 * 4);
	assert_int_equal(p->retry_time, 69120);
	/* at least an hour, unless permit-small-holddown */
	assert_true(val_autr_update(p, set, NULL, NULL, 10, 86400, 1000,
		&strict,
		&changed));
	assert_int_equal(p->query_interval, 3600);
	assert_int_equal(p->retry_time, 3600);
	assert_true(val_autr_update(p, set, NULL, NULL, 10, 86400, 1000, &PAR,
		&changed));
	assert_int_equal(p->query_interval, 5);
	assert_int_equal(p->retry_time, 1);
	ldns_rr_list_deep_free(set);
	/* randomised within the last tenth, floor of an hour */
	for(i = 0; i < 50; i++) {
		time_t t = val_autr_next_probe(1000, 86400, 0,
			(uint32_t)rand());
		assert_true(t >= 1000 + 86400 - 8640 && t <= 1000 + 86400);
	}
	assert_true(val_autr_next_probe(1000, 10, 0, 0) >= 1000 + 3240);
	assert_int_equal(val_autr_next_probe(1000, 0, 1, 7), 1001);
	val_autr_point_delete(p);
}

/* What val_ta_read_autofile collected: one point, one anchor list. */
static void collect_free(struct ta_collect* c)
{
	val_autr_point_delete(c->autr[0]);
	free(c->autr);
	ldns_rr_list_deep_free(c->pts[0].rrs);
	free(c->pts);
}

static void test_file_round_trip(void** st)
{
	struct autr_point* p = root_point();
	struct ta_collect c;
	struct autr_point* q;
	char fname[512], text[8192];
	FILE* f;
	size_t n;
	(void)st;
	snprintf(fname, sizeof(fname), "%s/root.key", tmpdir);
	p->file = strdup(fname);
	p->last_queried = 1700000000;
	p->last_success = 1700000001;
	p->next_probe_time = 1700003600;
	p->query_failed = 2;
	p->query_interval = 43200;
	p->retry_time = 8640;
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 1600000000);
	val_autr_point_add(p, key(257, KEY_B), AUTR_STATE_ADDPEND, 3,
		1699990000);
	val_autr_point_add(p, key(257 | LDNS_KEY_REVOKE_KEY, KEY_C),
		AUTR_STATE_REVOKED, 0, 1699000000);
	val_autr_point_add(p, key(257, KEY_D), AUTR_STATE_START, 1,
		1699000000);
	assert_true(val_autr_write_file(p));
	f = fopen(fname, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	/* Unbound's lines, byte for byte where Unbound's reader cares */
	assert_non_null(strstr(text, "; autotrust trust anchor file\n"
		";;id: . 1\n;;last_queried: 1700000000 ;;"));
	assert_non_null(strstr(text, ";;query_failed: 2\n"
		";;query_interval: 43200\n;;retry_time: 8640\n"));
	assert_non_null(strstr(text, ";;state=2 [  VALID  ] ;;count=0 "
		";;lastchange=1600000000 ;;"));
	assert_non_null(strstr(text, ";;state=1 [ ADDPEND ] ;;count=3 "
		";;lastchange=1699990000 ;;"));
	assert_non_null(strstr(text, "DNSKEY\t385 3 8"));
	assert_non_null(strstr(text, ";;state=4 [ REVOKED ]"));
	assert_null(strstr(text, ";;state=0"));   /* START is not kept */
	/* no temporary file left behind */
	snprintf(text, sizeof(text), "%s.%d-autr", fname, (int)getpid());
	assert_int_not_equal(access(text, F_OK), 0);

	memset(&c, 0, sizeof(c));
	assert_true(val_ta_read_autofile(&c, fname));
	assert_int_equal(c.nautr, 1);
	q = c.autr[0];
	assert_string_equal(q->file, fname);
	assert_int_equal(q->last_queried, 1700000000);
	assert_int_equal(q->last_success, 1700000001);
	assert_int_equal(q->next_probe_time, 1700003600);
	assert_int_equal(q->query_failed, 2);
	assert_int_equal(q->query_interval, 43200);
	assert_int_equal(q->retry_time, 8640);
	assert_int_equal(q->n, 3);
	assert_int_equal(state_of(q, KEY_A), AUTR_STATE_VALID);
	assert_int_equal(find(q, KEY_B)->count, 3);
	assert_int_equal(find(q, KEY_B)->last_change,
		1699990000);
	assert_int_equal(state_of(q, KEY_C), AUTR_STATE_REVOKED);
	/* only VALID (and MISSING) keys are anchors */
	assert_int_equal(c.n, 1);
	assert_int_equal(ldns_rr_list_rr_count(c.pts[0].rrs), 1);
	collect_free(&c);
	val_autr_point_delete(p);
}

/* A file as Unbound 1.17 writes it (Debian's /var/lib/unbound/root.key
 * after a probe): the header and the state comment after ldns' key id
 * comment. */
static void test_read_unbound_file(void** st)
{
	struct ta_collect c;
	struct autr_point* q;
	char fname[512];
	FILE* f;
	(void)st;
	snprintf(fname, sizeof(fname), "%s/unbound.key", tmpdir);
	f = fopen(fname, "w");
	assert_non_null(f);
	fprintf(f, "; autotrust trust anchor file\n"
		";;id: . 1\n"
		";;last_queried: 1700000100 ;;Tue Nov 14 22:15:00 2023\n"
		";;last_success: 1700000100 ;;Tue Nov 14 22:15:00 2023\n"
		";;next_probe_time: 1700040000 ;;Wed Nov 15 09:20:00 2023\n"
		";;query_failed: 0\n"
		";;query_interval: 43200\n"
		";;retry_time: 8640\n"
		".\t172800\tIN\tDNSKEY\t257 3 8 %s ;{id = 20326 (ksk), "
		"size = 2048b} ;;state=2 [  VALID  ] ;;count=0 "
		";;lastchange=1502439637 ;;Fri Aug 11 08:20:37 2017\n"
		".\t172800\tIN\tDNSKEY\t257 3 8 %s ;{id = 38696 (ksk), "
		"size = 2048b} ;;state=1 [ ADDPEND ] ;;count=2 "
		";;lastchange=1699990000 ;;Tue Nov 14 19:26:40 2023\n",
		KEY_A, KEY_B);
	fclose(f);
	memset(&c, 0, sizeof(c));
	c.autr_write_name = "/elsewhere/root.key";
	assert_true(val_ta_read_autofile(&c, fname));
	assert_int_equal(c.nautr, 1);
	q = c.autr[0];
	assert_string_equal(q->file, "/elsewhere/root.key");
	assert_int_equal(q->next_probe_time, 1700040000);
	assert_int_equal(q->retry_time, 8640);
	assert_int_equal(state_of(q, KEY_A), AUTR_STATE_VALID);
	assert_int_equal(find(q, KEY_A)->last_change, 1502439637);
	assert_int_equal(state_of(q, KEY_B), AUTR_STATE_ADDPEND);
	assert_int_equal(find(q, KEY_B)->count, 2);
	/* the ADDPEND key is no anchor yet */
	assert_int_equal(ldns_rr_list_rr_count(c.pts[0].rrs), 1);
	collect_free(&c);
}

/* An owner whose text is over 255 characters (escaped bytes, as Unbound
 * writes them) and starts with '$': ldns alone reads neither back, the
 * file must still load (fuzz_autotrust found both). */
static void test_read_long_escaped_owner(void** st)
{
	struct ta_collect c;
	char fname[512], owner[400];
	size_t i, n = 0;
	FILE* f;
	(void)st;
	n += (size_t)snprintf(owner + n, sizeof(owner) - n, "\\$tt.");
	for(i = 0; i < 63; i++)
		n += (size_t)snprintf(owner + n, sizeof(owner) - n, "\\239");
	snprintf(owner + n, sizeof(owner) - n, ".example.");
	assert_true(strlen(owner) > 255);
	snprintf(fname, sizeof(fname), "%s/long.key", tmpdir);
	f = fopen(fname, "w");
	assert_non_null(f);
	fprintf(f, "; autotrust trust anchor file\n;;id: %s 1\n"
		"%s\t3600\tIN\tDNSKEY\t257 3 8 %s ;;state=2 [  VALID  ] "
		";;count=0 ;;lastchange=1502439637 ;;Fri Aug 11 08:20:37 "
		"2017\n", owner, owner, KEY_A);
	fclose(f);
	memset(&c, 0, sizeof(c));
	assert_true(val_ta_read_autofile(&c, fname));
	assert_int_equal(c.nautr, 1);
	assert_int_equal(c.autr[0]->namelen, 4 + 64 + 8 + 1);
	assert_int_equal(c.autr[0]->name[1], '$');
	assert_int_equal(state_of(c.autr[0], KEY_A), AUTR_STATE_VALID);
	collect_free(&c);
}

static void test_unwritable(void** st)
{
	struct autr_point* p = root_point();
	char d[512];
	(void)st;
	snprintf(d, sizeof(d), "%s/nodir/root.key", tmpdir);
	p->file = strdup(d);
	val_autr_point_add(p, key(257, KEY_A), AUTR_STATE_VALID, 0, 0);
	assert_false(val_autr_check_writable(p));
	assert_false(val_autr_write_file(p));
	free(p->file);
	snprintf(d, sizeof(d), "%s/ok.key", tmpdir);
	p->file = strdup(d);
	assert_true(val_autr_check_writable(p));
	val_autr_point_delete(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_holddown),
		cmocka_unit_test(test_pending_count_needed),
		cmocka_unit_test(test_addpend_key_gone),
		cmocka_unit_test(test_missing_and_back),
		cmocka_unit_test(test_revoke_and_remove),
		cmocka_unit_test(test_revoke_last_key),
		cmocka_unit_test(test_ds_start_and_zsk),
		cmocka_unit_test(test_unsupported_algorithm_skipped),
		cmocka_unit_test(test_probe_times),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_read_unbound_file),
		cmocka_unit_test(test_read_long_escaped_owner),
		cmocka_unit_test(test_unwritable),
	};
	int r;
	char cmd[300];
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/val_autotrust_test.XXXXXX");
	if(!mkdtemp(tmpdir))
		return 1;
	log_init(NULL, 0, NULL);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if(system(cmd) != 0)
		r = r ? r : 1;
	return r;
}
