/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats.c - compat: unbound-1.17: counting (worker side) and summing
 * and printing (main thread side) of the statistics, names and formats as
 * Unbound 1.17's unbound-control stats. */
#include "config.h"
#include "daemon/stats.h"
#include "util/config_file.h"
#include "util/msgparse.h"
#include <ldns/ldns.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

/* The fields from here on are gauges (see struct worker_stats). */
#define STATS_NUM_COUNTERS \
	(offsetof(struct worker_stats, req_max) / sizeof(uint64_t))
#define STATS_NUM_FIELDS (sizeof(struct worker_stats) / sizeof(uint64_t))

_Static_assert(sizeof(struct worker_stats) % sizeof(uint64_t) == 0,
	"struct worker_stats holds only uint64_t fields");

void strbuf_printf(struct strbuf* b, const char* fmt, ...)
{
	va_list ap;
	int n;
	if(b->oom)
		return;
	for(;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if(n < 0) {
			b->oom = 1;
			return;
		}
		if((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t nc = b->cap * 2 + (size_t)n + 256;
			char* ns = realloc(b->s, nc);
			if(!ns) {
				b->oom = 1;
				return;
			}
			b->s = ns;
			b->cap = nc;
		}
	}
}

void strbuf_clear(struct strbuf* b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

void stats_note_query(struct worker_stats* st, const struct query_info* qi,
	const struct sockaddr_storage* addr)
{
	int i;
	if(qi->qtype < 256)
		st->qtype[qi->qtype]++;
	else	st->qtype_other++;
	if(qi->qclass < 256)
		st->qclass[qi->qclass]++;
	else	st->qclass_other++;
	st->opcode[(qi->flags >> 11) & 0xf]++;
	if(addr && addr->ss_family == AF_INET6)
		st->qipv6++;
	/* QR AA TC RD RA Z AD CD: header bits 15, 10, 9, 8, 7, 6, 5, 4 */
	for(i = 0; i < 8; i++) {
		static const uint16_t bit[8] = { 0x8000, 0x0400, 0x0200,
			0x0100, 0x0080, 0x0040, 0x0020, 0x0010 };
		if(qi->flags & bit[i])
			st->qflags[i]++;
	}
	if(qi->has_edns) {
		st->edns_present++;
		if(qi->edns_do)
			st->edns_do++;
	}
}

void stats_note_reply(struct worker_stats* st, const uint8_t* reply,
	size_t len)
{
	int rc;
	if(len < 12)
		return;
	rc = reply[3] & 0xf;
	st->rcode[rc]++;
	if(rc == 0 && reply[6] == 0 && reply[7] == 0)
		st->ans_nodata++;
}

/* compat: unbound-1.17: Unbound's timehist buckets: [0,1us), [1,2us), ...
 * doubling up to [524288us, 1s), then [1s,2s), [2s,4s), ... [262144s,
 * 524288s). */
static uint64_t bucket_lo(int i)
{
	if(i == 0)
		return 0;
	if(i <= 20)
		return 1ULL << (i - 1);
	return 1000000ULL << (i - 21);
}

static uint64_t bucket_hi(int i)
{
	if(i < 20)
		return 1ULL << i;
	return 1000000ULL << (i - 20);
}

uint64_t stats_hist_bucket_hi_us(int i)
{
	return bucket_hi(i);
}

void stats_note_rectime(struct worker_stats* st, uint64_t us)
{
	int b = 0;
	/* below bucket 19's top the buckets are powers of 2: the bucket
	 * is the bit length (a walk from 0 was about 100 instructions a
	 * miss); above it the walk goes on from there */
	if(us > 0 && us < bucket_hi(19))
		b = 64 - __builtin_clzll(us);
	else if(us > 0)
		b = 19;
	while(b < STATS_HIST_BUCKETS - 1 && us >= bucket_hi(b))
		b++;
	st->rec_hist[b]++;
	st->rec_time_us += us;
	st->rec_count++;
}

void stats_note_reqlist(struct worker_stats* st, uint64_t n)
{
	st->req_sum += n;
	st->req_samples++;
	if(n > st->req_max)
		st->req_max = n;
}

void stats_snapshot(const struct worker_stats* live, struct worker_stats* out)
{
	const uint64_t* src = (const uint64_t*)live;
	uint64_t* dst = (uint64_t*)out;
	size_t i;
	for(i = 0; i < STATS_NUM_FIELDS; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void stats_subtract(struct worker_stats* a, const struct worker_stats* base)
{
	uint64_t* x = (uint64_t*)a;
	const uint64_t* y = (const uint64_t*)base;
	size_t i;
	for(i = 0; i < STATS_NUM_COUNTERS; i++)
		x[i] = x[i] >= y[i] ? x[i] - y[i] : 0;
}

void stats_add(struct worker_stats* tot, const struct worker_stats* a)
{
	uint64_t* x = (uint64_t*)tot;
	const uint64_t* y = (const uint64_t*)a;
	size_t i;
	for(i = 0; i < STATS_NUM_FIELDS; i++)
		x[i] += y[i];
	/* the largest mesh any thread had, not the sum */
	tot->req_max -= a->req_max;
	if(a->req_max > tot->req_max)
		tot->req_max = a->req_max;
}

double stats_hist_median(const struct worker_stats* s)
{
	uint64_t total = 0, seen = 0;
	int i;
	for(i = 0; i < STATS_HIST_BUCKETS; i++)
		total += s->rec_hist[i];
	if(total == 0)
		return 0.0;
	for(i = 0; i < STATS_HIST_BUCKETS; i++) {
		double lo, hi;
		if(seen + s->rec_hist[i] < (total + 1) / 2) {
			seen += s->rec_hist[i];
			continue;
		}
		/* compat: unbound-1.17: interpolate inside the bucket, as
		 * Unbound's timehist */
		lo = (double)bucket_lo(i);
		hi = (double)bucket_hi(i);
		return (lo + (hi - lo) * ((double)((total + 1) / 2 - seen) /
			(double)s->rec_hist[i])) / 1e6;
	}
	return 0.0;
}

static void print_secs(struct strbuf* b, const char* name, uint64_t us)
{
	strbuf_printf(b, "%s=%llu.%6.6u\n", name,
		(unsigned long long)(us / 1000000), (unsigned)(us % 1000000));
}

int stats_print_flags(const struct config_file* cfg)
{
	/* a 1.21 option set away from its default */
	int v = cfg->do_answer_cookie || cfg->sock_queue_timeout > 0 ||
		cfg->discard_timeout != 1900 ||
		cfg->wait_limit_netblocks || cfg->wait_limit_cookie_netblocks;
	return (cfg->do_answer_cookie ? STATS_COOKIES : 0) |
		(v ? STATS_DROPS : 0) |
		(cfg->dns_error_reporting ? STATS_ERROR_REPORTS : 0);
}

void stats_print_thread(struct strbuf* b, const char* p,
	const struct worker_stats* s, int flags)
{
	stats_print_thread_median(b, p, s, flags, stats_hist_median(s));
}

void stats_print_thread_median(struct strbuf* b, const char* p,
	const struct worker_stats* s, int flags, double median)
{
	char name[64];
	strbuf_printf(b, "%s.num.queries=%llu\n", p,
		(unsigned long long)s->num_queries);
	strbuf_printf(b, "%s.num.queries_ip_ratelimited=%llu\n", p,
		(unsigned long long)s->num_ip_ratelimited);
	/* compat: unbound-1.18: these lines are 1.18's; printed only with
	 * answer-cookie on, so a 1.17 configuration gets 1.17's names */
	if(flags & STATS_COOKIES) {
		strbuf_printf(b, "%s.num.queries_cookie_valid=%llu\n", p,
			(unsigned long long)s->num_cookie_valid);
		strbuf_printf(b, "%s.num.queries_cookie_client=%llu\n", p,
			(unsigned long long)s->num_cookie_client);
		strbuf_printf(b, "%s.num.queries_cookie_invalid=%llu\n", p,
			(unsigned long long)s->num_cookie_invalid);
	}
	/* compat: unbound-1.21: in Unbound's order */
	if(flags & STATS_DROPS) {
		strbuf_printf(b, "%s.num.queries_discard_timeout=%llu\n", p,
			(unsigned long long)s->num_discard_timeout);
		strbuf_printf(b, "%s.num.queries_wait_limit=%llu\n", p,
			(unsigned long long)s->num_wait_limited);
	}
	/* compat: unbound-1.17: as Unbound: every query not handed to
	 * recursion */
	strbuf_printf(b, "%s.num.cachehits=%llu\n", p,
		(unsigned long long)(s->num_queries >= s->num_cachemiss ?
		s->num_queries - s->num_cachemiss : 0));
	strbuf_printf(b, "%s.num.cachemiss=%llu\n", p,
		(unsigned long long)s->num_cachemiss);
	strbuf_printf(b, "%s.num.prefetch=%llu\n", p,
		(unsigned long long)s->num_prefetch);
	if(flags & STATS_DROPS)
		strbuf_printf(b, "%s.num.queries_timed_out=%llu\n", p,
			(unsigned long long)s->num_sock_timed_out);
	strbuf_printf(b, "%s.num.expired=%llu\n", p,
		(unsigned long long)s->num_expired);
	strbuf_printf(b, "%s.num.recursivereplies=%llu\n", p,
		(unsigned long long)s->num_recursive_replies);
	/* compat: unbound-1.23: before requestlist.avg, as Unbound */
	if(flags & STATS_ERROR_REPORTS)
		strbuf_printf(b, "%s.num.dns_error_reports=%llu\n", p,
			(unsigned long long)s->dns_error_reports);
	strbuf_printf(b, "%s.requestlist.avg=%g\n", p, s->req_samples ?
		(double)s->req_sum / (double)s->req_samples : 0.0);
	strbuf_printf(b, "%s.requestlist.max=%llu\n", p,
		(unsigned long long)s->req_max);
	strbuf_printf(b, "%s.requestlist.overwritten=%llu\n", p,
		(unsigned long long)s->req_overwritten);
	strbuf_printf(b, "%s.requestlist.exceeded=%llu\n", p,
		(unsigned long long)s->req_exceeded);
	strbuf_printf(b, "%s.requestlist.current.all=%llu\n", p,
		(unsigned long long)s->req_cur_all);
	strbuf_printf(b, "%s.requestlist.current.user=%llu\n", p,
		(unsigned long long)s->req_cur_user);
	snprintf(name, sizeof(name), "%s.recursion.time.avg", p);
	print_secs(b, name, s->rec_count ? s->rec_time_us / s->rec_count : 0);
	strbuf_printf(b, "%s.recursion.time.median=%g\n", p, median);
	strbuf_printf(b, "%s.tcpusage=%llu\n", p,
		(unsigned long long)s->tcpusage);
}

static uint64_t ts_us(const struct timespec* t)
{
	return (uint64_t)t->tv_sec * 1000000 + (uint64_t)t->tv_nsec / 1000;
}

void stats_print_time(struct strbuf* b, const struct timespec* now,
	const struct timespec* start, const struct timespec* last)
{
	uint64_t n = ts_us(now), s = ts_us(start), l = ts_us(last);
	print_secs(b, "time.now", n);
	print_secs(b, "time.up", n >= s ? n - s : 0);
	print_secs(b, "time.elapsed", n >= l ? n - l : 0);
}

static void print_named(struct strbuf* b, const char* what, const char* nm,
	uint64_t v)
{
	strbuf_printf(b, "num.%s.%s=%llu\n", what, nm, (unsigned long long)v);
}

static char* type_name(int i)
{
	return ldns_rr_type2str((ldns_rr_type)i);
}

static char* class_name(int i)
{
	return ldns_rr_class2str((ldns_rr_class)i);
}

/* num.<what>.<name>=N for the 256 counts (the zero ones with show_zero
 * only), then the count of the numbers above them as "other". */
static void print_by_number(struct strbuf* b, const char* what,
	const uint64_t counts[256], uint64_t other, char* (*name)(int),
	int show_zero)
{
	int i;
	for(i = 0; i < 256; i++) {
		char* t;
		if(counts[i] == 0 && !show_zero)
			continue;
		t = name(i);
		print_named(b, what, t ? t : "?", counts[i]);
		free(t);
	}
	if(other || show_zero)
		print_named(b, what, "other", other);
}

/* The name of code i in ldns' table, or fallback followed by i. */
static const char* code_name(char* nm, size_t len, ldns_lookup_table* tab,
	int i, const char* fallback)
{
	ldns_lookup_table* e = ldns_lookup_by_id(tab, i);
	if(e)
		snprintf(nm, len, "%s", e->name);
	else	snprintf(nm, len, "%s%d", fallback, i);
	return nm;
}

static void print_hist_time(char* buf, size_t len, uint64_t us)
{
	snprintf(buf, len, "%6.6llu.%6.6llu", (unsigned long long)(us /
		1000000), (unsigned long long)(us % 1000000));
}

const char* const stats_mem_mod_names[STATS_MEM_MODS] = { "iterator",
	"validator", "respip", "subnet" };
const char* const stats_mem_mod_modules[STATS_MEM_MODS] = { "iterator",
	"validator", "respip", "subnetcache" };

void stats_print_extended(struct strbuf* b, const struct worker_stats* s,
	const struct stats_cache_info* c)
{
	static const char* flags[8] = { "QR", "AA", "TC", "RD", "RA", "Z",
		"AD", "CD" };
	char nm[32];
	int i;
	strbuf_printf(b, "mem.cache.rrset=%zu\n", c->mem_rrset);
	strbuf_printf(b, "mem.cache.message=%zu\n", c->mem_msg);
	for(i = 0; i < STATS_MEM_MODS; i++)
		strbuf_printf(b, "mem.mod.%s=%zu\n", stats_mem_mod_names[i],
			c->mem_mod[i]);
	strbuf_printf(b, "mem.streamwait=%zu\n"
		"mem.http.query_buffer=%zu\nmem.http.response_buffer=%zu\n",
		c->mem_stream_wait, c->mem_http_query, c->mem_http_response);
	for(i = 0; i < STATS_HIST_BUCKETS; i++) {
		char lo[32], hi[32];
		print_hist_time(lo, sizeof(lo), bucket_lo(i));
		print_hist_time(hi, sizeof(hi), bucket_hi(i));
		strbuf_printf(b, "histogram.%s.to.%s=%llu\n", lo, hi,
			(unsigned long long)s->rec_hist[i]);
	}
	print_by_number(b, "query.type", s->qtype, s->qtype_other, type_name,
		c->show_zero);
	print_by_number(b, "query.class", s->qclass, s->qclass_other,
		class_name, c->show_zero);
	for(i = 0; i < 16; i++) {
		if(s->opcode[i] == 0 && !c->show_zero)
			continue;
		print_named(b, "query.opcode", code_name(nm, sizeof(nm),
			ldns_opcodes, i, "OPCODE"), s->opcode[i]);
	}
	strbuf_printf(b, "num.query.tcp=%llu\n",
		(unsigned long long)s->num_tcp);
	strbuf_printf(b, "num.query.tcpout=%llu\nnum.query.udpout=%llu\n"
		"num.query.tls=%llu\nnum.query.tls%sresume=%llu\n",
		(unsigned long long)s->qtcp_out,
		(unsigned long long)s->qudp_out,
		(unsigned long long)s->num_tls, c->shm_names ? "_" : ".",
		(unsigned long long)s->num_tls_resume);
	strbuf_printf(b, "num.query.ipv6=%llu\n",
		(unsigned long long)s->qipv6);
	strbuf_printf(b, "num.query.https=%llu\n",
		(unsigned long long)s->num_https);
	for(i = 0; i < 8; i++)
		print_named(b, "query.flags", flags[i], s->qflags[i]);
	strbuf_printf(b, "num.query.edns.present=%llu\n",
		(unsigned long long)s->edns_present);
	strbuf_printf(b, "num.query.edns.DO=%llu\n",
		(unsigned long long)s->edns_do);
	for(i = 0; i < 16; i++) {
		/* compat: unbound-1.17: RCODEs 0-5 always, as Unbound */
		if(i > 5 && s->rcode[i] == 0 && !c->show_zero)
			continue;
		print_named(b, "answer.rcode", code_name(nm, sizeof(nm),
			ldns_rcodes, i, "RCODE"), s->rcode[i]);
	}
	if(s->ans_nodata || c->show_zero)
		print_named(b, "answer.rcode", "nodata", s->ans_nodata);
	strbuf_printf(b, "num.query.ratelimited=%llu\nnum.answer.secure=%llu\n"
		"num.answer.bogus=%llu\nnum.rrset.bogus=%llu\n"
		"num.query.aggressive.NOERROR=%llu\n"
		"num.query.aggressive.NXDOMAIN=%llu\n",
		(unsigned long long)s->queries_ratelimited,
		(unsigned long long)s->ans_secure,
		(unsigned long long)s->ans_bogus,
		(unsigned long long)s->rrset_bogus,
		(unsigned long long)s->aggr_noerror,
		(unsigned long long)s->aggr_nxdomain);
	/* compat: unbound-1.17: printed by a build with cachedb; here once
	 * the module answered or refused something */
	if(s->cachedb_answers || s->cachedb_refused)
		strbuf_printf(b, "num.query.cachedb=%llu\n"
			"num.query.cachedb.refused=%llu\n",
			(unsigned long long)s->cachedb_answers,
			(unsigned long long)s->cachedb_refused);
	strbuf_printf(b, "unwanted.queries=%llu\nunwanted.replies=%llu\n",
		(unsigned long long)s->unwanted_queries,
		(unsigned long long)s->unwanted_replies);
	strbuf_printf(b, "msg.cache.count=%zu\nrrset.cache.count=%zu\n"
		"infra.cache.count=%zu\nkey.cache.count=%zu\n", c->msg_count,
		c->rrset_count, c->infra_count, c->key_count);
	/* compat: unbound-1.17: the RPZ actions applied, those not zero,
	 * in its order (rpz-no-override never) */
	for(i = 0; i < 10; i++) {
		static const char* rpz_names[10] = { "rpz-nxdomain",
			"rpz-nodata", "rpz-passthru", "rpz-drop", "rpz-tcp-only",
			"rpz-invalid", "rpz-local-data", "rpz-disabled",
			"rpz-cname-override", "rpz-no-override" };
		if(i == 9 || (s->rpz_action[i] == 0 && !c->show_zero))
			continue;
		strbuf_printf(b, "num.rpz.action.%s=%llu\n", rpz_names[i],
			(unsigned long long)s->rpz_action[i]);
	}
	strbuf_printf(b, "num.query.authzone.up=%llu\n"
		"num.query.authzone.down=%llu\n"
		"num.query.subnet=%llu\nnum.query.subnet_cache=%llu\n",
		(unsigned long long)s->auth_up,
		(unsigned long long)s->num_auth_down,
		/* compat: unbound-1.17: subnet answers from upstream and
		 * from the module's cache together, then the second */
		(unsigned long long)(s->subnet_answers +
		s->subnet_cache_answers),
		(unsigned long long)s->subnet_cache_answers);
}
