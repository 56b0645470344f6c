/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prom_metrics.c - write the statistics in the Prometheus text
 * format (version 0.0.4): every family gets # HELP and # TYPE, then its
 * samples; counters end in _total, gauges do not. */
#include "config.h"
#include "daemon/prom_metrics.h"
#include "daemon/stats.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One per-thread value of struct worker_stats. */
struct thread_metric {
	const char* name;    /* after "unbound_" */
	const char* type;    /* "counter" or "gauge" */
	const char* help;
	uint64_t (*get)(const struct worker_stats* s);
};

static uint64_t get_queries(const struct worker_stats* s)
{
	return s->num_queries;
}

/* compat: unbound-1.17: as Unbound's num.cachehits: every query not handed to
 * recursion */
static uint64_t get_cachehits(const struct worker_stats* s)
{
	return s->num_queries >= s->num_cachemiss ?
		s->num_queries - s->num_cachemiss : 0;
}

static uint64_t get_ip_ratelimited(const struct worker_stats* s)
{
	return s->num_ip_ratelimited;
}

static uint64_t get_cachemiss(const struct worker_stats* s)
{
	return s->num_cachemiss;
}

static uint64_t get_zero(const struct worker_stats* s)
{
	(void)s;
	return 0;
}

static uint64_t get_expired(const struct worker_stats* s)
{
	return s->num_expired;
}

static uint64_t get_recursive_replies(const struct worker_stats* s)
{
	return s->num_recursive_replies;
}

static uint64_t get_req_exceeded(const struct worker_stats* s)
{
	return s->req_exceeded;
}

static uint64_t get_req_overwritten(const struct worker_stats* s)
{
	return s->req_overwritten;
}

static uint64_t get_req_cur_all(const struct worker_stats* s)
{
	return s->req_cur_all;
}

static uint64_t get_req_cur_user(const struct worker_stats* s)
{
	return s->req_cur_user;
}

static uint64_t get_tcpusage(const struct worker_stats* s)
{
	return s->tcpusage;
}

static const struct thread_metric thread_metrics[] = {
	{ "queries_total", "counter", "Total number of queries received.",
		get_queries },
	{ "queries_ip_ratelimited_total", "counter", "Total number of "
		"queries that were dropped because of IP rate limiting "
		"(ip-ratelimit).", get_ip_ratelimited },
	{ "cache_hits_total", "counter", "Total number of queries that were "
		"answered without recursion (cache, local data).",
		get_cachehits },
	{ "cache_misses_total", "counter", "Total number of queries that "
		"needed recursive processing.", get_cachemiss },
	{ "prefetches_total", "counter", "Total number of cache prefetches "
		"performed.", get_zero },
	{ "expired_total", "counter", "Total number of queries answered "
		"with expired data (serve-expired).", get_expired },
	{ "recursive_replies_total", "counter", "Total number of replies "
		"sent to queries that needed recursive processing.",
		get_recursive_replies },
	{ "request_list_exceeded_total", "counter", "Number of queries that "
		"were dropped because the request list was full.",
		get_req_exceeded },
	{ "request_list_overwritten_total", "counter", "Total number of "
		"requests in the request list that were overwritten by newer "
		"entries.", get_req_overwritten },
	{ "request_list_current_all", "gauge", "Current size of the request "
		"list, including internally generated queries.",
		get_req_cur_all },
	{ "request_list_current_user", "gauge", "Current size of the request "
		"list, only counting the requests from client queries.",
		get_req_cur_user },
	{ "tcp_usage", "gauge", "TCP connections from clients open now.",
		get_tcpusage },
};

#define NUM_THREAD_METRICS \
	(sizeof(thread_metrics) / sizeof(thread_metrics[0]))

static void family(struct strbuf* b, const char* name, const char* type,
	const char* help)
{
	strbuf_printf(b, "# HELP unbound_%s %s\n# TYPE unbound_%s %s\n", name,
		help, name, type);
}

/* A label value with \, " and newline escaped (ldns names are plain,
 * but nothing here should be able to break the format). */
static void label_value(char* out, size_t len, const char* v)
{
	size_t o = 0;
	for(; *v && o + 3 < len; v++) {
		if(*v == '\\' || *v == '"') {
			out[o++] = '\\';
			out[o++] = *v;
		} else if(*v == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else	out[o++] = *v;
	}
	out[o] = 0;
}

static void sample_label(struct strbuf* b, const char* name,
	const char* label, const char* value, uint64_t v)
{
	char esc[128];
	label_value(esc, sizeof(esc), value);
	strbuf_printf(b, "unbound_%s{%s=\"%s\"} %llu\n", name, label, esc,
		(unsigned long long)v);
}

static void sample(struct strbuf* b, const char* name, uint64_t v)
{
	strbuf_printf(b, "unbound_%s %llu\n", name, (unsigned long long)v);
}

/* microseconds as decimal seconds, without trailing zeros */
static void secs_text(char* out, size_t len, uint64_t us)
{
	int n = snprintf(out, len, "%llu.%06llu", (unsigned long long)(us /
		1000000), (unsigned long long)(us % 1000000));
	while(n > 0 && out[n-1] == '0')
		out[--n] = 0;
	if(n > 0 && out[n-1] == '.')
		out[--n] = 0;
}

static void sample_secs(struct strbuf* b, const char* name, uint64_t us)
{
	char t[48];
	secs_text(t, sizeof(t), us);
	strbuf_printf(b, "unbound_%s %s\n", name, t);
}

static void write_threads(struct strbuf* b, const struct prom_input* in,
	const struct worker_stats* tot)
{
	size_t m;
	int i;
	for(m = 0; m < NUM_THREAD_METRICS; m++) {
		const struct thread_metric* tm = &thread_metrics[m];
		char name[96], tid[16];
		family(b, tm->name, tm->type, tm->help);
		for(i = 0; i < in->num_threads; i++) {
			snprintf(tid, sizeof(tid), "%d", i);
			sample_label(b, tm->name, "thread", tid,
				tm->get(&in->threads[i]));
		}
		snprintf(name, sizeof(name), "total_%s", tm->name);
		strbuf_printf(b, "# HELP unbound_%s %s Summed over all "
			"threads.\n# TYPE unbound_%s %s\n", name, tm->help,
			name, tm->type);
		sample(b, name, tm->get(tot));
	}
}

static void write_histogram(struct strbuf* b, const struct worker_stats* t)
{
	uint64_t cum = 0;
	int i;
	family(b, "response_time_seconds", "histogram", "Time to answer "
		"queries that needed recursive processing, in seconds.");
	/* the last bucket also holds everything above it: only +Inf */
	for(i = 0; i < STATS_HIST_BUCKETS - 1; i++) {
		char le[48];
		cum += t->rec_hist[i];
		secs_text(le, sizeof(le), stats_hist_bucket_hi_us(i));
		strbuf_printf(b, "unbound_response_time_seconds_bucket"
			"{le=\"%s\"} %llu\n", le, (unsigned long long)cum);
	}
	cum += t->rec_hist[STATS_HIST_BUCKETS - 1];
	strbuf_printf(b, "unbound_response_time_seconds_bucket{le=\"+Inf\"} "
		"%llu\n", (unsigned long long)cum);
	sample_secs(b, "response_time_seconds_sum", t->rec_time_us);
	/* the buckets' sum, so count and +Inf always agree */
	sample(b, "response_time_seconds_count", cum);
	family(b, "recursion_time_seconds_avg", "gauge", "Average time it "
		"took to answer queries that needed recursive processing.");
	sample_secs(b, "recursion_time_seconds_avg", t->rec_count ?
		t->rec_time_us / t->rec_count : 0);
	family(b, "recursion_time_seconds_median", "gauge", "The median of "
		"the time it took to answer queries that needed recursive "
		"processing.");
	strbuf_printf(b, "unbound_recursion_time_seconds_median %.6f\n",
		stats_hist_median(t));
}

/* A labelled family over a table of 256 counters indexed by code, with
 * names from an ldns function (types and classes). */
static void write_coded(struct strbuf* b, const char* name,
	const char* label, const char* help, const uint64_t* v,
	uint64_t other, char* (*tostr)(int))
{
	int i;
	family(b, name, "counter", help);
	for(i = 0; i < 256; i++) {
		char* t;
		if(v[i] == 0)
			continue;
		t = tostr(i);
		sample_label(b, name, label, t ? t : "?", v[i]);
		free(t);
	}
	if(other)
		sample_label(b, name, label, "other", other);
}

static char* type_str(int i)
{
	return ldns_rr_type2str((ldns_rr_type)i);
}

static char* class_str(int i)
{
	return ldns_rr_class2str((ldns_rr_class)i);
}

static void write_extended(struct strbuf* b, const struct worker_stats* t)
{
	static const char* flags[8] = { "QR", "AA", "TC", "RD", "RA", "Z",
		"AD", "CD" };
	char nm[32];
	int i;
	write_coded(b, "query_types_total", "type", "Total number of queries "
		"with a given query type.", t->qtype, t->qtype_other,
		type_str);
	write_coded(b, "query_classes_total", "class", "Total number of "
		"queries with a given query class.", t->qclass,
		t->qclass_other, class_str);
	family(b, "query_opcodes_total", "counter", "Total number of queries "
		"with a given query opcode.");
	for(i = 0; i < 16; i++) {
		ldns_lookup_table* o;
		if(t->opcode[i] == 0)
			continue;
		o = ldns_lookup_by_id(ldns_opcodes, i);
		if(o)
			snprintf(nm, sizeof(nm), "%s", o->name);
		else	snprintf(nm, sizeof(nm), "OPCODE%d", i);
		sample_label(b, "query_opcodes_total", "opcode", nm,
			t->opcode[i]);
	}
	family(b, "query_flags_total", "counter", "Total number of queries "
		"that had a given flag set in the header.");
	for(i = 0; i < 8; i++)
		sample_label(b, "query_flags_total", "flag", flags[i],
			t->qflags[i]);
	family(b, "query_ipv6_total", "counter", "Total number of queries "
		"that were made using IPv6 towards the server.");
	sample(b, "query_ipv6_total", t->qipv6);
	family(b, "query_tls_total", "counter", "Total number of queries "
		"that were made using TCP TLS towards the server.");
	sample(b, "query_tls_total", t->num_tls);
	family(b, "query_tls_resume_total", "counter", "Total number of "
		"queries that were made using TCP TLS on a resumed session.");
	sample(b, "query_tls_resume_total", t->num_tls_resume);
	family(b, "query_edns_present_total", "counter", "Total number of "
		"queries that had an EDNS OPT record present.");
	sample(b, "query_edns_present_total", t->edns_present);
	family(b, "query_edns_DO_total", "counter", "Total number of queries "
		"that had an EDNS OPT record with the DO (DNSSEC OK) bit set.");
	sample(b, "query_edns_DO_total", t->edns_do);
	family(b, "answer_rcodes_total", "counter", "Total number of answers "
		"to queries, from cache or from recursion, by response code.");
	for(i = 0; i < 16; i++) {
		ldns_lookup_table* r;
		/* compat: unbound-1.17: RCODEs 0-5 always, as Unbound's
		 * statistics */
		if(i > 5 && t->rcode[i] == 0)
			continue;
		r = ldns_lookup_by_id(ldns_rcodes, i);
		if(r)
			snprintf(nm, sizeof(nm), "%s", r->name);
		else	snprintf(nm, sizeof(nm), "RCODE%d", i);
		sample_label(b, "answer_rcodes_total", "rcode", nm,
			t->rcode[i]);
	}
	sample_label(b, "answer_rcodes_total", "rcode", "nodata",
		t->ans_nodata);
	/* names as unbound_exporter's (answers_bogus has no _total) */
	family(b, "answers_secure_total", "counter", "Total number of answers "
		"that were secure.");
	sample(b, "answers_secure_total", t->ans_secure);
	family(b, "answers_bogus", "counter", "Total number of answers that "
		"were bogus.");
	sample(b, "answers_bogus", t->ans_bogus);
	family(b, "query_ratelimited_total", "counter", "Total number of "
		"queries not sent upstream because of their zone's rate limit "
		"(ratelimit).");
	sample(b, "query_ratelimited_total", t->queries_ratelimited);
	family(b, "rrset_bogus_total", "counter", "Total number of rrsets "
		"marked bogus by the validator.");
	sample(b, "rrset_bogus_total", t->rrset_bogus);
	/* num.query.aggressive.<rcode> (unbound_exporter has no such
	 * family; named as its others, with the rcode as a label) */
	family(b, "query_aggressive_nsec_total", "counter", "Total number "
		"of queries answered from cached, validated NSEC records "
		"(aggressive-nsec), by response code.");
	sample_label(b, "query_aggressive_nsec_total", "rcode", "NOERROR",
		t->aggr_noerror);
	sample_label(b, "query_aggressive_nsec_total", "rcode", "NXDOMAIN",
		t->aggr_nxdomain);
	family(b, "unwanted_queries_total", "counter", "Total number of "
		"queries that were refused or dropped because they failed the "
		"access control settings.");
	sample(b, "unwanted_queries_total", t->unwanted_queries);
	family(b, "unwanted_replies_total", "counter", "Total number of "
		"replies that were unwanted or unsolicited.");
	sample(b, "unwanted_replies_total", t->unwanted_replies);
}

static void write_caches(struct strbuf* b, const struct stats_cache_info* c)
{
	family(b, "memory_caches_bytes", "gauge", "Memory in bytes in use by "
		"caches.");
	sample_label(b, "memory_caches_bytes", "cache", "rrset", c->mem_rrset);
	sample_label(b, "memory_caches_bytes", "cache", "message",
		c->mem_msg);
	family(b, "memory_modules_bytes", "gauge", "Memory in bytes in use "
		"by modules.");
	sample_label(b, "memory_modules_bytes", "module",
		stats_mem_mod_names[STATS_MOD_ITERATOR],
		c->mem_mod[STATS_MOD_ITERATOR]);
	sample_label(b, "memory_modules_bytes", "module",
		stats_mem_mod_names[STATS_MOD_VALIDATOR],
		c->mem_mod[STATS_MOD_VALIDATOR]);
	family(b, "memory_doh_bytes", "gauge", "Memory used by DoH buffers, "
		"in bytes.");
	sample_label(b, "memory_doh_bytes", "buffer", "query_buffer",
		c->mem_http_query);
	sample_label(b, "memory_doh_bytes", "buffer", "response_buffer",
		c->mem_http_response);
	family(b, "msg_cache_count", "gauge", "The number of messages "
		"cached.");
	sample(b, "msg_cache_count", c->msg_count);
	family(b, "rrset_cache_count", "gauge", "The number of RRsets "
		"cached.");
	sample(b, "rrset_cache_count", c->rrset_count);
	family(b, "infra_cache_count", "gauge", "The number of servers in "
		"the infrastructure cache.");
	sample(b, "infra_cache_count", c->infra_count);
	family(b, "key_cache_count", "gauge", "The number of zone keys in "
		"the key cache.");
	sample(b, "key_cache_count", c->key_count);
}

void prom_metrics_write(struct strbuf* b, const struct prom_input* in)
{
	struct worker_stats* tot = calloc(1, sizeof(*tot));
	int i;
	if(!tot) {
		b->oom = 1;
		return;
	}
	for(i = 0; i < in->num_threads; i++)
		stats_add(tot, &in->threads[i]);
	family(b, "up", "gauge", "Whether the metrics could be read (always "
		"1 when served by the daemon itself).");
	sample(b, "up", 1);
	write_threads(b, in, tot);
	family(b, "query_tcp_total", "counter", "Total number of queries "
		"that were made using TCP towards the server.");
	sample(b, "query_tcp_total", tot->num_tcp);
	family(b, "query_https_total", "counter", "Total number of DoH "
		"queries that were made towards the server.");
	sample(b, "query_https_total", tot->num_https);
	write_histogram(b, tot);
	if(in->extended)
		write_extended(b, tot);
	if(in->cache)
		write_caches(b, in->cache);
	family(b, "time_up_seconds_total", "counter", "Uptime since server "
		"boot in seconds.");
	sample_secs(b, "time_up_seconds_total", in->up_us);
	family(b, "time_now_seconds", "gauge", "Current time in seconds "
		"since 1970.");
	sample_secs(b, "time_now_seconds", in->now_us);
	free(tot);
}
