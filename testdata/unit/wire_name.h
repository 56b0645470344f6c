/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/wire_name.h - W("a.example."): a name in wire form for
 * the unit tests, from one of four rotating buffers (so a call can take
 * a few at once). Include after cmocka.h and util/dname.h. */
#ifndef TESTDATA_UNIT_WIRE_NAME_H
#define TESTDATA_UNIT_WIRE_NAME_H

static const uint8_t* W(const char* s)
{
	static uint8_t bufs[4][256];
	static int i;
	uint8_t* b = bufs[i++ & 3];
	assert_true(dname_from_str(s, b) > 0);
	return b;
}

#endif
