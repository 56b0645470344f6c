/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_prom_http.c - the Prometheus endpoint's HTTP
 * request head parser (prom_http_classify, daemon/prom_http.c) on the
 * bytes a client sends, and the response head it leads to. Checked
 * besides the sanitizers: the verdict on a prefix of the input is
 * "read more" or the verdict on the whole input (the server decides
 * as bytes arrive, so a prefix must not decide otherwise). */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "daemon/prom_http.h"
#include "daemon/stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* verdict(enum prom_req r)
{
	static const char* const n[] = { "incomplete", "metrics",
		"metrics-head", "not-found", "bad-method", "bad" };
	return (unsigned)r < 6 ? n[r] : "?";
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	const char* buf = (const char*)data;
	enum prom_req full = prom_http_classify(buf, size), part;
	struct strbuf b = { NULL, 0, 0, 0 };
	const char* body = NULL;
	size_t i, step = size <= 1024 ? 1 : size / 64;
	for(i = 0; i < size; i += step) {
		part = prom_http_classify(buf, i);
		if(part != PROM_REQ_INCOMPLETE && part != full) {
			fprintf(stderr, "%zu bytes: %s, all %zu bytes: %s\n",
				i, verdict(part), size, verdict(full));
			abort();
		}
	}
	if(full == PROM_REQ_METRICS || full == PROM_REQ_METRICS_HEAD)
		prom_http_head(&b, 200, "text/plain; version=0.0.4", size);
	else if(full != PROM_REQ_INCOMPLETE)
		prom_http_head(&b, prom_http_error(full, &body), "text/plain",
			body ? strlen(body) : 0);
	strbuf_clear(&b);
	return 0;
}
