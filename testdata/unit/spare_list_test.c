/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/spare_list_test.c - util/spare_list.h: objects given
 * back are handed out again zeroed, at most max are kept, the rest and
 * the spares on clear are freed (ASan's leak check sees any left). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/spare_list.h"

struct obj {
	void* link;
	char data[40];
};

static int all_zero(const struct obj* o)
{
	size_t i;
	const unsigned char* b = (const unsigned char*)o;
	for(i = 0; i < sizeof(*o); i++)
		if(b[i])
			return 0;
	return 1;
}

static void test_reuse_zeroed(void** state)
{
	struct spare_list l;
	struct obj* a, *b;
	(void)state;
	spare_list_init(&l, 4);
	a = spare_zalloc(&l, sizeof(*a));
	assert_non_null(a);
	assert_true(all_zero(a));
	memset(a, 0x77, sizeof(*a));
	spare_free(&l, a);
	assert_int_equal(l.num, SPARE_LIST_KEEPS ? 1 : 0);
	b = spare_zalloc(&l, sizeof(*b));
	assert_non_null(b);
	assert_true(all_zero(b));
	if(SPARE_LIST_KEEPS)
		assert_ptr_equal(a, b);   /* the spare came back */
	assert_int_equal(l.num, 0);
	spare_free(&l, NULL);         /* a no-op */
	assert_int_equal(l.num, 0);
	spare_free(&l, b);
	spare_list_clear(&l);
	assert_int_equal(l.num, 0);
	assert_null(l.head);
}

static void test_at_most_max(void** state)
{
	struct spare_list l;
	struct obj* o[6];
	int i;
	(void)state;
	spare_list_init(&l, 3);
	for(i = 0; i < 6; i++) {
		o[i] = spare_zalloc(&l, sizeof(*o[i]));
		assert_non_null(o[i]);
	}
	for(i = 0; i < 6; i++)
		spare_free(&l, o[i]);   /* 3 kept, 3 freed */
	assert_int_equal(l.num, SPARE_LIST_KEEPS ? 3 : 0);
	for(i = 0; i < 6; i++) {
		o[i] = spare_zalloc(&l, sizeof(*o[i]));
		assert_non_null(o[i]);
		assert_true(all_zero(o[i]));
	}
	assert_int_equal(l.num, 0);
	for(i = 0; i < 6; i++)
		spare_free(&l, o[i]);
	spare_list_clear(&l);
	assert_int_equal(l.num, 0);
	/* usable after a clear */
	o[0] = spare_zalloc(&l, sizeof(*o[0]));
	assert_non_null(o[0]);
	spare_free(&l, o[0]);
	spare_list_clear(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse_zeroed),
		cmocka_unit_test(test_at_most_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
