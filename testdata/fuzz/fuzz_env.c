/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_env.c - see fuzz_env.h. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "daemon/cachedump.h"
#include "services/tcp_conn.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/log.h"
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "testdata/fuzz/fuzz_clients.h"

const char* const FUZZ_SERVE_CONF =
	"server:\n"
	"	verbosity: 0\n"
	"	use-syslog: no\n"
	"	do-daemonize: no\n"
	"	access-control: 127.0.0.0/8 allow\n"
	"	access-control: 10.0.0.0/16 refuse\n"
	"	access-control: 10.1.0.0/16 deny\n"
	"	access-control: 10.2.0.0/16 deny_non_local\n"
	"	access-control: 10.3.0.0/16 refuse_non_local\n"
	"	access-control: 10.4.0.0/16 allow_setrd\n"
	"	access-control: 192.0.2.0/24 allow_snoop\n"
	"	access-control: ::1 allow\n"
	"	access-control: 2001:db8::/32 refuse\n"
	"	access-control-view: 10.4.0.0/16 fv\n"
	"	access-control-view: 192.0.2.0/24 fvf\n"
	"	define-tag: \"t1 t2\"\n"
	"	access-control-tag: ::1 \"t1\"\n"
	"	access-control-tag: 10.4.0.0/16 \"t2\"\n"
	"	serve-expired: yes\n"
	"	prefetch: yes\n"
	"	hide-identity: no\n"
	"	identity: \"fuzz.example\"\n"
	"	hide-version: no\n"
	"	local-zone: \"local.test.\" static\n"
	"	local-data: \"a.local.test. 300 IN A 192.0.2.10\"\n"
	"	local-data: \"a.local.test. 300 IN AAAA 2001:db8::10\"\n"
	"	local-data: \"local.test. 300 IN MX 10 mail.local.test.\"\n"
	"	local-data: 'txt.local.test. 300 IN TXT \"hello\" \"world\"'\n"
	"	local-data: \"cname.local.test. 300 IN CNAME a.local.test.\"\n"
	"	local-data-ptr: \"192.0.2.10 a.local.test.\"\n"
	"	local-zone: \"redirect.test.\" redirect\n"
	"	local-data: \"redirect.test. 300 IN A 192.0.2.11\"\n"
	"	local-zone: \"refuse.test.\" refuse\n"
	"	local-zone: \"deny.test.\" deny\n"
	"	local-zone: \"trans.test.\" transparent\n"
	"	local-data: \"x.trans.test. 300 IN A 192.0.2.12\"\n"
	"	local-zone: \"typetrans.test.\" typetransparent\n"
	"	local-data: \"typetrans.test. 300 IN A 192.0.2.13\"\n"
	"	local-zone: \"inform.test.\" inform\n"
	"	local-zone: \"nx.test.\" always_nxdomain\n"
	"	local-zone: \"nodata.test.\" always_nodata\n"
	"	local-zone: \"null.test.\" always_null\n"
	"	local-zone: \"alwaysrefuse.test.\" always_refuse\n"
	"	local-zone: \"blocka.test.\" block_a\n"
	"	local-zone: \"blocka6.test.\" block_aaaa_wdata\n"
	"	local-data: \"x.blocka6.test. 300 IN AAAA 2001:db8::15\"\n"
	"	local-zone-tag: \"sub.example.\" \"t1\"\n"
	"	local-zone: \"sub.example.\" static\n"
	"	local-data: \"www.sub.example. 60 IN A 192.0.2.14\"\n"
	"view:\n"
	"	name: \"fv\"\n"
	"	local-zone: \"local.test.\" static\n"
	"	local-data: \"a.local.test. 300 IN A 192.0.2.20\"\n"
	"	local-zone: \"trans.test.\" transparent\n"
	"	local-zone: \"inform.test.\" noview\n"
	"view:\n"
	"	name: \"fvf\"\n"
	"	view-first: yes\n"
	"	local-zone: \"typetrans.test.\" block_a\n"
	"	local-data-ptr: \"192.0.2.20 b.local.test.\"\n"
	"remote-control:\n"
	"	control-enable: no\n";

#define BIG_TXT(n) "big.example.\t3600\tIN\tTXT\t\"" #n \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"\n"

const char* const FUZZ_CACHE_DUMP =
	"START_RRSET_CACHE\n"
	";rrset 3600 4 0 8 0\n"
	"www.example.\t3600\tIN\tA\t192.0.2.1\n"
	"www.example.\t3600\tIN\tA\t192.0.2.2\n"
	"www.example.\t3600\tIN\tA\t192.0.2.3\n"
	"www.example.\t3600\tIN\tA\t192.0.2.4\n"
	";rrset 3600 2 0 8 0\n"
	"www.example.\t3600\tIN\tAAAA\t2001:db8::1\n"
	"www.example.\t3600\tIN\tAAAA\t2001:db8::2\n"
	";rrset 3600 1 0 8 0\n"
	"alias.example.\t3600\tIN\tCNAME\twww.example.\n"
	";rrset 3600 1 0 8 0\n"
	"alias2.example.\t3600\tIN\tCNAME\talias.example.\n"
	";rrset 3600 2 0 8 0\n"
	"example.\t3600\tIN\tNS\tns1.example.\n"
	"example.\t3600\tIN\tNS\tns2.example.\n"
	";rrset 3600 1 0 8 0\n"
	"ns1.example.\t3600\tIN\tA\t192.0.2.53\n"
	";rrset 3600 1 0 8 0\n"
	"ns2.example.\t3600\tIN\tAAAA\t2001:db8::53\n"
	";rrset 3600 1 0 8 0\n"
	"example.\t3600\tIN\tSOA\tns1.example. host.example. 1 3600 900 "
	"604800 300\n"
	";rrset 3600 2 0 8 0\n"
	"example.\t3600\tIN\tMX\t10 mail.example.\n"
	"example.\t3600\tIN\tMX\t20 mail2.example.\n"
	";rrset 3600 24 0 8 0\n"
	BIG_TXT(00) BIG_TXT(01) BIG_TXT(02) BIG_TXT(03) BIG_TXT(04)
	BIG_TXT(05) BIG_TXT(06) BIG_TXT(07) BIG_TXT(08) BIG_TXT(09)
	BIG_TXT(10) BIG_TXT(11) BIG_TXT(12) BIG_TXT(13) BIG_TXT(14)
	BIG_TXT(15) BIG_TXT(16) BIG_TXT(17) BIG_TXT(18) BIG_TXT(19)
	BIG_TXT(20) BIG_TXT(21) BIG_TXT(22) BIG_TXT(23)
	";rrset 100 1 0 8 0\n"
	"short.example.\t100\tIN\tA\t192.0.2.9\n"
	";rrset 30 1 0 8 0\n"
	"old.example.\t30\tIN\tA\t192.0.2.8\n"
	"END_RRSET_CACHE\n"
	"START_MSG_CACHE\n"
	"msg www.example. IN A 32896 1 3600 0 1 0 0\n"
	"www.example. IN A 0\n"
	"msg www.example. IN AAAA 32896 1 3600 0 1 0 0\n"
	"www.example. IN AAAA 0\n"
	"msg alias2.example. IN A 32896 1 3600 0 3 0 0\n"
	"alias2.example. IN CNAME 0\n"
	"alias.example. IN CNAME 0\n"
	"www.example. IN A 0\n"
	"msg nx.example. IN A 32899 1 300 0 0 1 0\n"
	"example. IN SOA 0\n"
	"msg www.example. IN MX 32896 1 300 0 0 1 0\n"
	"example. IN SOA 0\n"
	"msg example. IN MX 32896 1 3600 0 1 0 0\n"
	"example. IN MX 0\n"
	"msg example. IN NS 33920 1 3600 0 1 0 2\n"
	"example. IN NS 0\n"
	"ns1.example. IN A 0\n"
	"ns2.example. IN AAAA 0\n"
	"msg big.example. IN TXT 32896 1 3600 0 1 0 0\n"
	"big.example. IN TXT 0\n"
	"msg short.example. IN A 32896 1 100 0 1 0 0\n"
	"short.example. IN A 0\n"
	"msg old.example. IN A 32896 1 30 0 1 0 0\n"
	"old.example. IN A 0\n"
	"END_MSG_CACHE\n"
	"EOF\n";

void fuzz_quiet_logs(void)
{
	if(!getenv("FUZZ_VERBOSE"))
		log_init("/dev/null", 0, NULL);
	verbosity = 0;
}

struct config_file* fuzz_config(const char* text)
{
	struct config_file* cfg = config_create();
	if(!cfg || !config_read_text(cfg, "fuzz.conf", text, strlen(text)) ||
		!config_check(cfg)) {
		fprintf(stderr, "fuzz harness: its config has errors\n");
		abort();
	}
	return cfg;
}

/* The config as a file too, for the reload command. */
static char* write_conf(const char* text)
{
	char tmpl[] = "/tmp/unbound-fuzz-XXXXXX";
	int fd = mkstemp(tmpl);
	size_t n = strlen(text);
	if(fd == -1 || write(fd, text, n) != (ssize_t)n) {
		perror("fuzz harness: temporary config");
		abort();
	}
	close(fd);
	return strdup(tmpl);
}

static char* conf_file;

static void remove_conf(void)
{
	if(conf_file)
		unlink(conf_file);
}

struct daemon* fuzz_daemon_create(const char* conf_text)
{
	struct daemon* d = calloc(1, sizeof(*d));
	struct config_file* cfg = fuzz_config(conf_text);
	struct infra_settings is;
	size_t nr = 0, nm = 0;
	char err[256];
	if(!d)
		abort();
	pthread_mutex_init(&d->env_lock, NULL);
	atomic_init(&d->env_gen, 0);
	infra_settings_from_cfg(cfg, &is);
	d->infra = infra_create(&is);
	d->msg_cache = msg_cache_create_cfg(cfg);
	d->rrset_cache = rrset_cache_create_cfg(cfg);
	d->env = serve_env_derive(cfg, NULL, NULL);
	if(!d->infra || !d->msg_cache || !d->rrset_cache || !d->env)
		abort();
	if(!conf_file) {
		conf_file = write_conf(conf_text);
		atexit(remove_conf);
	}
	d->cfgfile = strdup(conf_file);
	if(!cache_load(d->rrset_cache, d->msg_cache, FUZZ_CACHE_DUMP,
		strlen(FUZZ_CACHE_DUMP), FUZZ_T0, &nr, &nm, err, sizeof(err)) ||
		nm < 10) {
		fprintf(stderr, "fuzz harness: cache dump: %s (%zu rrsets, "
			"%zu msgs)\n", err, nr, nm);
		abort();
	}
	return d;
}

struct worker* fuzz_worker_create(struct daemon* d)
{
	struct worker* w = aligned_alloc(64, (sizeof(struct worker) + 63) /
		64 * 64);
	if(!w)
		abort();
	memset(w, 0, sizeof(*w));
	w->daemon = d;
	w->post_fd = -1;
	w->env = daemon_env_acquire(d, &w->env_gen);
	w->now = FUZZ_T0 + 5;
	w->base = event_base_new();
	if(!w->base)
		abort();
	w->tcp = tcp_pool_create(w->base, 4, 10000, worker_tcp_answer, w);
	if(!w->tcp)
		abort();
	return w;
}

/* Read what the server sent; 0 when the server closed its side. */
static int drain(int fd, void (*got)(void*, const uint8_t*, size_t),
	void* garg)
{
	uint8_t buf[16384];
	for(;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if(r > 0) {
			if(got)
				got(garg, buf, (size_t)r);
			continue;
		}
		return r != 0;
	}
}

int fuzz_pump(struct event_base* base, int client, const uint8_t* data,
	size_t size, size_t chunk, int (*still_open)(void*), void* oarg,
	void (*got)(void*, const uint8_t*, size_t), void* garg)
{
	size_t pos = 0;
	int idle = 0, i;
	if(chunk == 0)
		chunk = 1;
	while(pos < size && still_open(oarg) && idle < 1000) {
		size_t n = size - pos < chunk ? size - pos : chunk;
		ssize_t w = write(client, data + pos, n);
		if(w > 0) {
			pos += (size_t)w;
			idle = 0;
		} else	idle++;
		event_base_loop(base, EVLOOP_NONBLOCK);
		(void)drain(client, got, garg);
	}
	(void)shutdown(client, SHUT_WR);
	for(i = 0; i < 1000 && still_open(oarg); i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		(void)drain(client, got, garg);
	}
	return !still_open(oarg);
}

void fuzz_client(unsigned i, struct sockaddr_storage* a, socklen_t* len)
{
	static const char* const addrs[FUZZ_NUM_CLIENTS] = {
		"127.0.0.1", "10.0.0.1", "10.1.0.1", "10.2.0.1", "10.3.0.1",
		"10.4.0.1", "192.0.2.1", "::1", "2001:db8::1", "198.51.100.1"
	};
	const char* s = addrs[i % FUZZ_NUM_CLIENTS];
	memset(a, 0, sizeof(*a));
	if(strchr(s, ':')) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)a;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(53000);
		(void)inet_pton(AF_INET6, s, &s6->sin6_addr);
		*len = (socklen_t)sizeof(*s6);
	} else {
		struct sockaddr_in* s4 = (struct sockaddr_in*)a;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(53000);
		(void)inet_pton(AF_INET, s, &s4->sin_addr);
		*len = (socklen_t)sizeof(*s4);
	}
}
