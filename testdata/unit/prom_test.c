/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/prom_test.c - the Prometheus endpoint's pure parts: the
 * HTTP request classification (good, incomplete, malformed, oversized,
 * other paths and methods), the response head, and the exposition text
 * (per-thread and total values, counter/gauge types, the cumulative
 * histogram, extended families only when asked for). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/stats.h"
#include "daemon/prom_http.h"
#include "daemon/prom_metrics.h"

static enum prom_req classify(const char* s)
{
	return prom_http_classify(s, strlen(s));
}

static void test_classify_good(void** state)
{
	(void)state;
	assert_int_equal(classify("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
		PROM_REQ_METRICS);
	assert_int_equal(classify("GET /metrics HTTP/1.0\n\n"),
		PROM_REQ_METRICS);
	assert_int_equal(classify("\r\nGET /metrics?x=1 HTTP/1.1\r\n"
		"Accept: text/plain;version=0.0.4;q=1,*/*;q=0.1\r\n"
		"User-Agent: Prometheus/2.45.0\r\n\r\n"), PROM_REQ_METRICS);
	assert_int_equal(classify("HEAD /metrics HTTP/1.1\r\n\r\n"),
		PROM_REQ_METRICS_HEAD);
	assert_int_equal(classify("GET / HTTP/1.1\r\n\r\n"),
		PROM_REQ_NOT_FOUND);
	assert_int_equal(classify("GET /metricsx HTTP/1.1\r\n\r\n"),
		PROM_REQ_NOT_FOUND);
	assert_int_equal(classify("GET /metrics/ HTTP/1.1\r\n\r\n"),
		PROM_REQ_NOT_FOUND);
	assert_int_equal(classify("POST /metrics HTTP/1.1\r\n"
		"Content-Length: 3\r\n\r\nabc"), PROM_REQ_BAD_METHOD);
	assert_int_equal(classify("DELETE /metrics HTTP/1.1\r\n\r\n"),
		PROM_REQ_BAD_METHOD);
	/* lowercase is another method (methods are case-sensitive) */
	assert_int_equal(classify("get /metrics HTTP/1.1\r\n\r\n"),
		PROM_REQ_BAD_METHOD);
}

static void test_classify_incomplete(void** state)
{
	const char* full = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
	size_t i;
	(void)state;
	assert_int_equal(prom_http_classify("", 0), PROM_REQ_INCOMPLETE);
	/* every strict prefix is incomplete, never bad */
	for(i = 0; i < strlen(full); i++)
		assert_int_equal(prom_http_classify(full, i),
			PROM_REQ_INCOMPLETE);
	assert_int_equal(prom_http_classify(full, strlen(full)),
		PROM_REQ_METRICS);
}

static void test_classify_bad(void** state)
{
	static const char* bad[] = {
		"GET\r\n\r\n",
		"GET /metrics\r\n\r\n",
		"GET /metrics HTTP/2.0\r\n\r\n",
		"GET /metrics HTTP/1.1 extra\r\n\r\n",
		"GET  /metrics HTTP/1.1\r\n\r\n",
		"GET metrics HTTP/1.1\r\n\r\n",
		"G(T /metrics HTTP/1.1\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n",
		"GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nA: b\rc\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  /* TLS hello */
		"SSH-2.0-OpenSSH_9.2\r\n",  /* no space after the method */
		"GET /metrics HTTP/1.1\r\nA: \x01\r\n\r\n",
	};
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum prom_req r = classify(bad[i]);
		if(r != PROM_REQ_BAD)
			fail_msg("case %zu: %d, not BAD", i, (int)r);
	}
	/* a NUL is bad even before the line ends */
	assert_int_equal(prom_http_classify("GET /m\0", 7), PROM_REQ_BAD);
}

static void test_classify_oversized(void** state)
{
	char* buf = malloc(PROM_REQ_MAX);
	size_t n;
	(void)state;
	assert_non_null(buf);
	/* an endless header: incomplete until the limit, then bad */
	n = (size_t)snprintf(buf, PROM_REQ_MAX, "GET /metrics HTTP/1.1\r\n"
		"X-Long: ");
	memset(buf + n, 'a', PROM_REQ_MAX - n);
	assert_int_equal(prom_http_classify(buf, PROM_REQ_MAX - 1),
		PROM_REQ_INCOMPLETE);
	assert_int_equal(prom_http_classify(buf, PROM_REQ_MAX), PROM_REQ_BAD);
	/* endless empty lines */
	memset(buf, '\n', PROM_REQ_MAX);
	assert_int_equal(prom_http_classify(buf, PROM_REQ_MAX), PROM_REQ_BAD);
	free(buf);
	/* a whole head over the limit, blank line included: bad too, as
	 * every shorter prefix of it said (found by fuzz_prom_http) */
	buf = malloc(PROM_REQ_MAX + 64);
	assert_non_null(buf);
	n = (size_t)snprintf(buf, 64, "GET /metrics HTTP/1.1\r\nX: ");
	memset(buf + n, 'y', PROM_REQ_MAX + 60 - n);
	memcpy(buf + PROM_REQ_MAX - 3, "\r\n\r\n", 4);
	assert_int_equal(prom_http_classify(buf, PROM_REQ_MAX + 1),
		PROM_REQ_BAD);
	memcpy(buf + PROM_REQ_MAX - 4, "\r\n\r\n", 4);
	assert_int_equal(prom_http_classify(buf, PROM_REQ_MAX),
		PROM_REQ_METRICS);
	free(buf);
}

static void test_head_and_errors(void** state)
{
	struct strbuf b = { NULL, 0, 0, 0 };
	const char* body;
	(void)state;
	prom_http_head(&b, 200, "text/plain; version=0.0.4", 12);
	assert_string_equal(b.s, "HTTP/1.1 200 OK\r\nContent-Type: text/plain;"
		" version=0.0.4\r\nContent-Length: 12\r\nConnection: close\r\n"
		"\r\n");
	strbuf_clear(&b);
	assert_int_equal(prom_http_error(PROM_REQ_BAD_METHOD, &body), 405);
	prom_http_head(&b, 405, "text/plain", strlen(body));
	assert_non_null(strstr(b.s, "405 Method Not Allowed\r\n"));
	assert_non_null(strstr(b.s, "\r\nAllow: GET, HEAD\r\n"));
	strbuf_clear(&b);
	assert_int_equal(prom_http_error(PROM_REQ_NOT_FOUND, &body), 404);
	assert_int_equal(prom_http_error(PROM_REQ_BAD, &body), 400);
	assert_string_equal(body, "400 bad request\n");
}

/* The value of the sample line that starts with "name " exactly. */
static const char* value_of(const char* text, const char* sample)
{
	size_t n = strlen(sample);
	const char* p = text;
	while(p && *p) {
		if(strncmp(p, sample, n) == 0 && p[n] == ' ')
			return p + n + 1;
		p = strchr(p, '\n');
		if(p)
			p++;
	}
	return NULL;
}

static long long num_of(const char* text, const char* sample)
{
	const char* v = value_of(text, sample);
	if(!v)
		fail_msg("no sample %s", sample);
	return strtoll(v, NULL, 10);
}

static void test_metrics(void** state)
{
	struct worker_stats* t = calloc(2, sizeof(*t));
	struct stats_cache_info ci = { .mem_rrset = 1000, .mem_msg = 2000,
		.rrset_count = 3, .msg_count = 4, .infra_count = 5,
		.key_count = 6, .mem_mod[STATS_MOD_VALIDATOR] = 7000 };
	struct prom_input in;
	struct strbuf b = { NULL, 0, 0, 0 };
	(void)state;
	assert_non_null(t);
	t[0].num_queries = 10;
	t[0].num_cachemiss = 4;
	t[1].num_queries = 5;
	t[1].num_cachemiss = 1;
	t[0].req_cur_all = 2;
	t[1].req_cur_all = 3;
	t[0].qtype[1] = 9;
	t[1].qtype[28] = 6;
	t[0].rcode[0] = 12;
	t[1].rcode[3] = 2;
	t[1].ans_nodata = 1;
	t[0].unwanted_queries = 2;
	t[1].unwanted_replies = 3;
	t[0].ans_secure = 8;
	t[1].ans_secure = 1;
	t[1].ans_bogus = 2;
	t[0].rrset_bogus = 5;
	t[0].aggr_nxdomain = 7;
	stats_note_rectime(&t[0], 0);         /* bucket 0: < 1 us */
	stats_note_rectime(&t[0], 1500);      /* [1024, 2048) us */
	stats_note_rectime(&t[1], 3000000);   /* [2, 4) s */
	memset(&in, 0, sizeof(in));
	in.threads = t;
	in.num_threads = 2;
	in.cache = &ci;
	in.up_us = 61500000;
	in.now_us = 1700000000123456ULL;
	prom_metrics_write(&b, &in);
	assert_false(b.oom);
	assert_int_equal(num_of(b.s, "unbound_queries_total{thread=\"0\"}"),
		10);
	assert_int_equal(num_of(b.s, "unbound_queries_total{thread=\"1\"}"),
		5);
	assert_int_equal(num_of(b.s, "unbound_total_queries_total"), 15);
	assert_int_equal(num_of(b.s, "unbound_cache_hits_total{thread=\"0\"}"),
		6);
	assert_int_equal(num_of(b.s, "unbound_total_cache_hits_total"), 10);
	assert_int_equal(num_of(b.s, "unbound_total_cache_misses_total"), 5);
	assert_int_equal(num_of(b.s, "unbound_total_request_list_current_all"),
		5);
	assert_non_null(strstr(b.s, "# TYPE unbound_queries_total counter\n"));
	assert_non_null(strstr(b.s, "# TYPE unbound_request_list_current_all "
		"gauge\n"));
	assert_non_null(strstr(b.s, "# TYPE unbound_response_time_seconds "
		"histogram\n"));
	/* cumulative buckets; the upper bounds in seconds */
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"0.000001\"}"), 1);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"0.001024\"}"), 1);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"0.002048\"}"), 2);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"2\"}"), 2);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"4\"}"), 3);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_bucket"
		"{le=\"+Inf\"}"), 3);
	assert_int_equal(num_of(b.s, "unbound_response_time_seconds_count"),
		3);
	assert_int_equal(strncmp(value_of(b.s,
		"unbound_response_time_seconds_sum"), "3.0015\n", 7), 0);
	assert_int_equal(num_of(b.s, "unbound_memory_caches_bytes"
		"{cache=\"rrset\"}"), 1000);
	assert_int_equal(num_of(b.s, "unbound_memory_caches_bytes"
		"{cache=\"message\"}"), 2000);
	assert_int_equal(num_of(b.s, "unbound_msg_cache_count"), 4);
	assert_int_equal(num_of(b.s, "unbound_key_cache_count"), 6);
	assert_int_equal(num_of(b.s, "unbound_memory_modules_bytes"
		"{module=\"validator\"}"), 7000);
	assert_non_null(strstr(b.s, "\nunbound_time_up_seconds_total 61.5\n"));
	assert_non_null(strstr(b.s, "# TYPE unbound_time_up_seconds_total "
		"counter\n"));
	assert_non_null(strstr(b.s, "\nunbound_time_now_seconds "
		"1700000000.123456\n"));
	/* not extended: no type or rcode families */
	assert_null(strstr(b.s, "unbound_query_types_total"));
	assert_null(strstr(b.s, "unbound_answer_rcodes_total"));
	assert_null(strstr(b.s, "unbound_unwanted_queries_total"));
	assert_null(strstr(b.s, "unbound_answers_secure_total"));
	strbuf_clear(&b);

	in.extended = 1;
	prom_metrics_write(&b, &in);
	/* the DNSSEC counters, summed over threads, unbound_exporter's
	 * names */
	assert_int_equal(num_of(b.s, "unbound_answers_secure_total"), 9);
	assert_int_equal(num_of(b.s, "unbound_answers_bogus"), 2);
	assert_int_equal(num_of(b.s, "unbound_rrset_bogus_total"), 5);
	assert_int_equal(num_of(b.s, "unbound_query_aggressive_nsec_total"
		"{rcode=\"NXDOMAIN\"}"), 7);
	assert_int_equal(num_of(b.s, "unbound_query_types_total{type=\"A\"}"),
		9);
	assert_int_equal(num_of(b.s, "unbound_query_types_total"
		"{type=\"AAAA\"}"), 6);
	assert_int_equal(num_of(b.s, "unbound_answer_rcodes_total"
		"{rcode=\"NOERROR\"}"), 12);
	assert_int_equal(num_of(b.s, "unbound_answer_rcodes_total"
		"{rcode=\"NXDOMAIN\"}"), 2);
	assert_int_equal(num_of(b.s, "unbound_answer_rcodes_total"
		"{rcode=\"REFUSED\"}"), 0);
	assert_int_equal(num_of(b.s, "unbound_answer_rcodes_total"
		"{rcode=\"nodata\"}"), 1);
	assert_non_null(strstr(b.s, "# TYPE unbound_answer_rcodes_total "
		"counter\n"));
	assert_int_equal(num_of(b.s, "unbound_unwanted_queries_total"), 2);
	assert_int_equal(num_of(b.s, "unbound_unwanted_replies_total"), 3);
	/* every line is a comment or "name[{labels}] value" */
	{
		char* copy = strdup(b.s), *save = NULL, *line;
		for(line = strtok_r(copy, "\n", &save); line;
			line = strtok_r(NULL, "\n", &save)) {
			if(line[0] == '#')
				continue;
			if(strncmp(line, "unbound_", 8) != 0 ||
				!strchr(line, ' '))
				fail_msg("bad sample line: %s", line);
		}
		free(copy);
	}
	strbuf_clear(&b);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_good),
		cmocka_unit_test(test_classify_incomplete),
		cmocka_unit_test(test_classify_bad),
		cmocka_unit_test(test_classify_oversized),
		cmocka_unit_test(test_head_and_errors),
		cmocka_unit_test(test_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
