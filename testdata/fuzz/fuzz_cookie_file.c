/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_cookie_file.c - a cookie-secret-file's text
 * (cookie_secrets_parse, util/edns_cookie.c), as the daemon reads it at
 * start and reload. Checked besides the sanitizers: what parses is
 * written back and parses to the same secrets (the control commands
 * rewrite the file), and a failure names a line inside the input. */
#include "config.h"
#include "util/edns_cookie.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct cookie_secrets s, r;
	char text[COOKIE_SECRETS_MAX * 33];
	int line, i, j;
	const char* err = cookie_secrets_parse((const char*)data, size, &s,
		&line);
	if(err) {
		if(line < 1 || (size_t)line > size + 1 || s.count != 0)
			abort();
		return 0;
	}
	if(s.count < 0 || s.count > COOKIE_SECRETS_MAX)
		abort();
	for(i = 0; i < s.count; i++) {
		for(j = 0; j < COOKIE_SECRET_SIZE; j++)
			snprintf(text + i * 33 + 2 * j, 3, "%02x",
				s.secret[i][j]);
		text[i * 33 + 32] = '\n';
	}
	if(cookie_secrets_parse(text, (size_t)s.count * 33, &r, &line) ||
		r.count != s.count ||
		memcmp(r.secret, s.secret, sizeof(s.secret[0]) *
		(size_t)s.count) != 0)
		abort();
	return 0;
}
