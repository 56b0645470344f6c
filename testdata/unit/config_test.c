/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/config_test.c - unit tests for the unbound.conf parser,
 * the option table, config_check and config_print_option. Inputs are
 * written to a temporary directory; real configs (Debian's default
 * and example config) come from testdata/conf/ in the source tree. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"

static char tmpdir[256];

/* testdata/conf of the source tree: $CONF_TEST_DIR, else next to this
 * source file. The build names this file relative to the build
 * directory, which is two levels above this test program. */
static const char* confdir(void)
{
	static char d[2048];
	char exe[1024], *slash;
	const char* e = getenv("CONF_TEST_DIR");
	ssize_t n;
	int i;
	if(e)
		return e;
	snprintf(d, sizeof(d), "%s", __FILE__);
	if((slash = strrchr(d, '/')))
		*slash = 0;
	else	snprintf(d, sizeof(d), ".");
	if(d[0] == '/' || access(d, F_OK) == 0 ||
		(n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0) {
		strncat(d, "/../conf", sizeof(d) - strlen(d) - 1);
		return d;
	}
	exe[n] = 0;
	for(i = 0; i < 3 && (slash = strrchr(exe, '/')); i++)
		*slash = 0; /* strip testdata/unit/config_test */
	snprintf(d, sizeof(d), "%s/%s", exe, __FILE__);
	*strrchr(d, '/') = 0;
	strncat(d, "/../conf", sizeof(d) - strlen(d) - 1);
	return d;
}

static char* path_of(const char* name)
{
	static char p[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", tmpdir, name);
	return p[i];
}

static void write_file(const char* name, const char* text)
{
	FILE* f = fopen(path_of(name), "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Run config_read on text (as file name), stderr captured into err. */
static int read_text(struct config_file* cfg, const char* name,
	const char* text, char* err, size_t errlen)
{
	int fd, saved, ok;
	ssize_t n;
	char* errfile = path_of("stderr.txt");
	if(text)
		write_file(name, text);
	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	close(fd);
	ok = config_read(cfg, path_of(name), NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fd = open(errfile, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, err, errlen - 1);
	close(fd);
	err[n > 0 ? n : 0] = 0;
	return ok;
}

/* Read text into a fresh config; expect success. */
static struct config_file* good(const char* text)
{
	char err[4096];
	struct config_file* cfg = config_create();
	assert_non_null(cfg);
	if(!read_text(cfg, "t.conf", text, err, sizeof(err)))
		fail_msg("unexpected errors: %s", err);
	return cfg;
}

/* Read text; expect failure with msg (if given) at "t.conf:LINE:". */
static void bad(const char* text, int line, const char* msg)
{
	char err[4096], where[600];
	struct config_file* cfg = config_create();
	assert_non_null(cfg);
	assert_int_equal(read_text(cfg, "t.conf", text, err, sizeof(err)), 0);
	snprintf(where, sizeof(where), "%s:%d: error: ", path_of("t.conf"),
		line);
	if(!strstr(err, where))
		fail_msg("expected '%s' in: %s", where, err);
	if(msg && !strstr(err, msg))
		fail_msg("expected '%s' in: %s", msg, err);
	assert_non_null(strstr(err, "errors in configuration file"));
	config_delete(cfg);
}

/* config_print_option output as a string. */
static char* printed(struct config_file* cfg, const char* opt)
{
	static char buf[4096];
	FILE* f;
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	if(!config_print_option(cfg, opt, f))
		snprintf(buf, sizeof(buf), "UNKNOWN");
	fclose(f);
	return buf;
}

/* config_check with its messages (expected ones) silenced. */
static int check_quiet(struct config_file* cfg)
{
	int saved, fd, r;
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
	r = config_check(cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return r;
}

static int has_unimpl(struct config_file* cfg, const char* key,
	const char* val)
{
	const struct config_str2list* u;
	for(u = cfg->unimplemented; u; u = u->next)
		if(strcmp(u->str, key) == 0 && (!val || strcmp(u->str2, val)
			== 0))
			return 1;
	return 0;
}

static void test_defaults(void** state)
{
	struct config_file* cfg = config_create();
	(void)state;
	assert_non_null(cfg);
	assert_int_equal(cfg->verbosity, 1);
	assert_int_equal(cfg->num_threads, 1);
	assert_int_equal(cfg->port, 53);
	assert_null(cfg->ifs);
	assert_int_equal(cfg->num_ifs, 0);
	assert_true(cfg->do_ip4 && cfg->do_ip6 && cfg->do_udp && cfg->do_tcp);
	assert_int_equal(cfg->so_reuseport, 1);
	assert_int_equal(cfg->so_rcvbuf, 0);
	assert_int_equal(cfg->edns_buffer_size, 1232);
	assert_int_equal(cfg->max_udp_size, 4096);
	assert_int_equal(cfg->msg_buffer_size, 65552);
	assert_int_equal(cfg->incoming_num_tcp, 10);
	assert_int_equal(cfg->tcp_idle_timeout, 30000);
	assert_int_equal(cfg->outgoing_num_tcp, 10);
	assert_int_equal(cfg->tcp_reuse_timeout, 60000);
	assert_int_equal(cfg->max_reuse_tcp_queries, 200);
	assert_int_equal(cfg->tcp_auth_query_timeout, 3000);
	assert_false(has_unimpl(cfg, "server:tcp-reuse-timeout", NULL));
	assert_int_equal(cfg->do_daemonize, 1);
	assert_int_equal(cfg->use_syslog, 1);
	assert_string_equal(cfg->pidfile, PIDFILE);
	assert_string_equal(cfg->directory, RUN_DIR);
	assert_string_equal(cfg->username, UB_USERNAME);
	assert_string_equal(cfg->chrootdir, "");
	assert_null(cfg->logfile);
	assert_null(cfg->log_identity);
	assert_null(cfg->identity);
	assert_null(cfg->version);
	assert_int_equal(cfg->msg_cache_size, 4 * 1024 * 1024);
	assert_int_equal(cfg->rrset_cache_size, 4 * 1024 * 1024);
	assert_int_equal(cfg->do_not_query_localhost, 1);
	assert_int_equal(cfg->qname_minimisation, 1);
	assert_int_equal(cfg->outgoing_num_ports, 4096);
	assert_int_equal(cfg->num_queries_per_thread, 1024);
	assert_int_equal(cfg->control_port, 8953);
	assert_int_equal(cfg->remote_control_enable, 0);
	assert_string_equal(cfg->target_fetch_policy, "3 2 1 0 0");
	assert_null(cfg->unimplemented);
	assert_string_equal(printed(cfg, "so-reuseport"), "yes\n");
	assert_string_equal(printed(cfg, "msg-cache-size"), "4194304\n");
	assert_string_equal(printed(cfg, "identity"), "\n");
	assert_string_equal(printed(cfg, "access-control"), "");
	/* no field: the default from the table */
	assert_string_equal(printed(cfg, "stream-wait-size"), "4194304\n");
	assert_string_equal(printed(cfg, "tls-use-sni"), "yes\n");
	assert_string_equal(printed(cfg, "no-such-option"), "UNKNOWN");
	assert_string_equal(printed(cfg, "server"), "UNKNOWN");
	assert_int_equal(config_check(cfg), 1);
	config_delete(cfg);
	config_delete(NULL);
}

static void test_types(void** state)
{
	struct config_file* cfg;
	(void)state;
	cfg = good("server:\n do-ip6: no\n num-threads: 4\n"
		" msg-cache-size: 8m\n rrset-cache-size: 1G\n"
		" so-rcvbuf: 4k\n so-sndbuf: 123\n edns-buffer-size: 4096\n"
		" pidfile: \"/tmp/x.pid\"\n logfile: /tmp/log\n"
		" statistics-interval: \"\"\n cache-min-ttl: -1\n");
	assert_int_equal(cfg->do_ip6, 0);
	assert_int_equal(cfg->num_threads, 4);
	assert_int_equal(cfg->msg_cache_size, 8 * 1024 * 1024);
	assert_int_equal(cfg->rrset_cache_size, 1024 * 1024 * 1024);
	assert_int_equal(cfg->so_rcvbuf, 4096);
	assert_int_equal(cfg->so_sndbuf, 123);
	assert_int_equal(cfg->edns_buffer_size, 4096);
	assert_string_equal(cfg->pidfile, "/tmp/x.pid");
	assert_string_equal(cfg->logfile, "/tmp/log");
	assert_int_equal(cfg->stat_interval, 0);
	assert_int_equal(cfg->min_ttl, -1);
	assert_string_equal(printed(cfg, "do-ip6"), "no\n");
	assert_string_equal(printed(cfg, "num-threads"), "4\n");
	config_delete(cfg);
	cfg = good("server:\n tcp-reuse-timeout: 500\n"
		" max-reuse-tcp-queries: 0\n tcp-auth-query-timeout: 1000\n");
	assert_int_equal(cfg->tcp_reuse_timeout, 500);
	assert_int_equal(cfg->max_reuse_tcp_queries, 0);
	assert_int_equal(cfg->tcp_auth_query_timeout, 1000);
	assert_string_equal(printed(cfg, "max-reuse-tcp-queries"), "0\n");
	config_delete(cfg);
	bad("server:\n tcp-reuse-timeout: -1\n", 2, NULL);
	cfg = good("server:\n outbound-msg-retry: 2\n");
	assert_int_equal(cfg->outbound_msg_retry, 2);
	config_delete(cfg);
	cfg = good("server:\n");
	assert_int_equal(cfg->outbound_msg_retry, 5);
	config_delete(cfg);
	/* as Unbound's S_NUMBER_NONZERO */
	bad("server:\n outbound-msg-retry: 0\n", 2, NULL);

	bad("server:\n do-ip4: YES\n", 2, "expected yes or no");
	bad("server:\n do-ip4: 1\n", 2, "expected yes or no");
	bad("server:\n num-threads: two\n", 2, "expected a number");
	bad("server:\n num-threads: 2abc\n", 2, "expected a number");
	bad("server:\n num-threads: 99999999999\n", 2, "expected a number");
	bad("server:\n edns-buffer-size: 4k\n", 2, "expected a number");
	bad("server:\n edns-buffer-size: -1\n", 2, "expected a number");
	bad("server:\n msg-cache-size: 4q\n", 2, "expected a size");
	bad("server:\n msg-cache-size: m\n", 2, "expected a size");
	bad("server:\n msg-cache-size: 99999999999999999999g\n", 2,
		"expected a size");
	bad("server:\n msg-cache-slabs: 3\n", 2, "power of 2");
	bad("server:\n ratelimit-for-domain: example.com. x\n", 2,
		"second value");
}

static void test_memsize(void** state)
{
	size_t v;
	(void)state;
	assert_true(cfg_parse_memsize("0", &v) && v == 0);
	assert_true(cfg_parse_memsize("1024", &v) && v == 1024);
	assert_true(cfg_parse_memsize("1k", &v) && v == 1024);
	assert_true(cfg_parse_memsize("1K", &v) && v == 1024);
	assert_true(cfg_parse_memsize("2kb", &v) && v == 2048);
	assert_true(cfg_parse_memsize("4m", &v) && v == 4194304);
	assert_true(cfg_parse_memsize("4MB", &v) && v == 4194304);
	assert_true(cfg_parse_memsize("4 m", &v) && v == 4194304);
	assert_true(cfg_parse_memsize("1g", &v) && v == 1073741824);
	assert_true(cfg_parse_memsize("10b", &v) && v == 10);
	assert_false(cfg_parse_memsize("", &v));
	assert_false(cfg_parse_memsize("k", &v));
	assert_false(cfg_parse_memsize("-1", &v));
	assert_false(cfg_parse_memsize("1x", &v));
	assert_false(cfg_parse_memsize("1.5m", &v));
	assert_int_equal(cfg_parse_yesno("yes"), 1);
	assert_int_equal(cfg_parse_yesno("no"), 0);
	assert_int_equal(cfg_parse_yesno("Yes"), -1);
	assert_int_equal(cfg_parse_yesno(""), -1);
}

static void test_syntax(void** state)
{
	struct config_file* cfg;
	(void)state;
	/* several options on a line, no space after the colon, comments */
	cfg = good("# comment\nserver: verbosity: 3 port: 5353 # c: x\n"
		"server:do-udp:no\n\n\t  # indented comment\n"
		"server: identity: \"my # server\" version: 'v \"1\"'\n"
		"server: log-identity: a#b\n");
	assert_int_equal(cfg->verbosity, 3);
	assert_int_equal(cfg->port, 5353);
	assert_int_equal(cfg->do_udp, 0);
	assert_string_equal(cfg->identity, "my # server");
	assert_string_equal(cfg->version, "v \"1\"");
	assert_string_equal(cfg->log_identity, "a#b");
	config_delete(cfg);

	/* two-value options, quoted values with spaces, values on the next
	 * line, an empty quoted value, backslash kept as written */
	cfg = good("server:\n local-zone: example.com static\n"
		" local-zone: \"home.lan.\" \"transparent\"\n"
		" local-data: \"www.example.com. IN A 192.0.2.1\"\n"
		" local-data: 'txt.example.com. TXT \"a b\"'\n"
		" local-data-ptr: \"192.0.2.1 www.example.com\"\n"
		" access-control:\n  10.0.0.0/8\n  allow\n"
		" chroot: \"\"\n identity: \"a\\\"b\"\n");
	assert_string_equal(cfg->local_zones->str, "example.com");
	assert_string_equal(cfg->local_zones->str2, "static");
	assert_string_equal(cfg->local_zones->next->str, "home.lan.");
	assert_string_equal(cfg->local_zones->next->str2, "transparent");
	assert_string_equal(cfg->local_data->str,
		"www.example.com. IN A 192.0.2.1");
	assert_string_equal(cfg->local_data->next->str,
		"txt.example.com. TXT \"a b\"");
	assert_string_equal(cfg->local_data_ptr->str,
		"192.0.2.1 www.example.com");
	assert_string_equal(cfg->acls->str, "10.0.0.0/8");
	assert_string_equal(cfg->acls->str2, "allow");
	assert_string_equal(cfg->chrootdir, "");
	assert_string_equal(cfg->identity, "a\\\"b");
	config_delete(cfg);

	/* empty file and clause without options */
	cfg = good("");
	config_delete(cfg);
	cfg = good("server:\nremote-control:\npython:\ndynlib:\n");
	config_delete(cfg);
}

static void test_errors(void** state)
{
	(void)state;
	bad("server:\n verbosity: 1\n no-such-option: 1\n", 3,
		"unknown option 'no-such-option:'");
	bad("server:\n control-enable: yes\n", 2, "not valid in clause");
	bad("remote-control:\n verbosity: 2\n", 2, "not valid in clause");
	bad("stub-zone:\n name: x\n forward-addr: 1.2.3.4\n", 3,
		"not valid in clause");
	bad("verbosity: 2\n", 1, "inside a clause");
	bad("Server:\n", 1, "unknown option");
	bad("server:\n verbosity 2\n", 2, "not an option name");
	bad("server:\n verbosity: 1 2\n", 2, "not an option name");
	bad("server:\n pidfile:\n port: 5\n", 2, "missing value");
	bad("server:\n pidfile:", 2, "missing value");
	bad("server:\n local-zone: example.com.\n", 2, "missing value");
	bad("server:\n\n identity: \"abc\n port: 5\n", 3,
		"newline inside quoted string");
	bad("server:\n identity: 'abc", 2, "end of file inside quoted");
	bad("server:\n include: nonexistent-file.conf\n", 2,
		"cannot open include file");
	bad("server:\n include: \"\"\n", 2, "empty include file name");
	/* errors do not stop the reading: both are reported */
	{
		char err[4096];
		struct config_file* cfg = config_create();
		assert_false(read_text(cfg, "t.conf", "server:\n port: x\n"
			" do-tcp: maybe\n verbosity: 4\n", err, sizeof(err)));
		assert_non_null(strstr(err, "t.conf:2: error:"));
		assert_non_null(strstr(err, "t.conf:3: error:"));
		assert_non_null(strstr(err, "2 errors in configuration file"));
		assert_int_equal(cfg->verbosity, 4);
		config_delete(cfg);
	}
	/* a NUL byte */
	{
		char err[4096];
		struct config_file* cfg = config_create();
		FILE* f = fopen(path_of("nul.conf"), "w");
		fwrite("server:\n\0x: 1\n", 1, 14, f);
		fclose(f);
		assert_false(read_text(cfg, "nul.conf", NULL, err,
			sizeof(err)));
		config_delete(cfg);
	}
	/* a missing main file */
	{
		char err[4096];
		struct config_file* cfg = config_create();
		assert_false(read_text(cfg, "missing.conf", NULL, err,
			sizeof(err)));
		assert_non_null(strstr(err, "missing.conf"));
		config_delete(cfg);
	}
}

static void test_repeat(void** state)
{
	struct config_file* cfg;
	const struct config_strlist* s;
	(void)state;
	cfg = good("server:\n interface: 127.0.0.1\n ip-address: ::1\n"
		" interface: 127.0.0.2@5353\n port: 1\n port: 2\n"
		" access-control: 10.0.0.0/8 allow\n"
		" access-control: 10.1.0.0/16 refuse\n"
		" local-zone: a.example. nodefault\n"
		" local-zone: b.example. static\n");
	s = cfg->ifs;
	assert_string_equal(s->str, "127.0.0.1");
	assert_string_equal(s->next->str, "::1");
	assert_string_equal(s->next->next->str, "127.0.0.2@5353");
	assert_null(s->next->next->next);
	assert_int_equal(cfg->num_ifs, 3);
	assert_int_equal(cfg->port, 2);
	assert_string_equal(cfg->acls->next->str2, "refuse");
	assert_string_equal(cfg->local_zones_nodefault->str, "a.example.");
	assert_null(cfg->local_zones_nodefault->next);
	assert_string_equal(cfg->local_zones->str2, "nodefault");
	assert_string_equal(cfg->local_zones->next->str, "b.example.");
	assert_string_equal(printed(cfg, "interface"),
		"127.0.0.1\n::1\n127.0.0.2@5353\n");
	assert_string_equal(printed(cfg, "access-control"),
		"10.0.0.0/8 allow\n10.1.0.0/16 refuse\n");
	config_delete(cfg);
}

/* Long lists are appended in O(1) and keep order, also interleaved,
 * across clauses and over two config_read calls. */
static void test_many(void** state)
{
	struct config_file* cfg;
	const struct config_strlist* s;
	const struct config_str2list* s2;
	FILE* f;
	char err[4096];
	int i;
	(void)state;
	f = fopen(path_of("many.conf"), "w");
	assert_non_null(f);
	fprintf(f, "server:\n");
	for(i = 0; i < 100000; i++) {
		fprintf(f, " local-data: \"h%d.example. A 192.0.2.1\"\n", i);
		if(i % 1000 == 0)
			fprintf(f, " access-control: 10.%d.0.0/16 allow\n"
				"stub-zone: name: s%d stub-addr: 192.0.2.%d\n"
				" stub-addr: 192.0.2.%d\nserver:\n", i / 1000,
				i, i / 1000, i / 1000 + 1);
	}
	fclose(f);
	cfg = config_create();
	assert_true(read_text(cfg, "many.conf", NULL, err, sizeof(err)));
	assert_true(read_text(cfg, "t.conf", "server: local-data: "
		"\"last. A 192.0.2.1\" stub-zone: name: last\n", err,
		sizeof(err)));
	for(i = 0, s = cfg->local_data; s && i < 100000; i++, s = s->next) {
		char want[64];
		snprintf(want, sizeof(want), "h%d.example. A 192.0.2.1", i);
		assert_string_equal(s->str, want);
	}
	assert_int_equal(i, 100000);
	assert_string_equal(s->str, "last. A 192.0.2.1");
	for(i = 0, s2 = cfg->acls; s2; s2 = s2->next)
		i++;
	assert_int_equal(i, 100);
	assert_string_equal(cfg->stubs->addrs->next->str, "192.0.2.1");
	assert_string_equal(cfg->stubs->next->name, "s1000");
	assert_string_equal(cfg->stubs->next->addrs->str, "192.0.2.1");
	config_delete(cfg);
}

static void test_include(void** state)
{
	struct config_file* cfg;
	char text[2048];
	(void)state;
	mkdir(path_of("inc.d"), 0700);
	write_file("inc.d/b.conf", "server:\n local-data: \"b. A 1.1.1.2\"\n");
	write_file("inc.d/a.conf", "  local-data: \"a. A 1.1.1.1\"\n");
	write_file("inc.d/c.txt", "garbage\n");
	/* include: continues the clause; the glob is sorted */
	snprintf(text, sizeof(text), "server:\n include: \"%s/inc.d/*.conf\"\n"
		" verbosity: 2\n", tmpdir);
	cfg = good(text);
	assert_string_equal(cfg->local_data->str, "a. A 1.1.1.1");
	assert_string_equal(cfg->local_data->next->str, "b. A 1.1.1.2");
	assert_int_equal(cfg->verbosity, 2);
	config_delete(cfg);
	/* a pattern that matches nothing is fine */
	snprintf(text, sizeof(text), "server:\n include: %s/inc.d/*.none\n",
		tmpdir);
	cfg = good(text);
	config_delete(cfg);
	/* errors inside an included file name that file and its line */
	write_file("inc.d/err.inc", "server:\n\n port: x\n");
	snprintf(text, sizeof(text), "server:\n include: %s/inc.d/err.inc\n",
		tmpdir);
	{
		char err[4096], where[600];
		cfg = config_create();
		assert_false(read_text(cfg, "t.conf", text, err, sizeof(err)));
		snprintf(where, sizeof(where), "%s:3: error:",
			path_of("inc.d/err.inc"));
		assert_non_null(strstr(err, where));
		config_delete(cfg);
	}
	/* an include loop ends with an error, not a crash */
	write_file("loop.conf", "server:\n include: loop.conf\n");
	snprintf(text, sizeof(text), "server:\n directory: \"%s\"\n"
		" include: loop.conf\n", tmpdir);
	{
		char err[4096];
		cfg = config_create();
		assert_false(read_text(cfg, "t.conf", text, err, sizeof(err)));
		assert_non_null(strstr(err, "loop.conf:2: error: include "
			"files nested too deep"));
		config_delete(cfg);
	}
	/* relative includes follow directory: */
	write_file("rel.conf", "server: port: 4242\n");
	snprintf(text, sizeof(text), "server:\n directory: \"%s\"\n"
		" include: rel.conf\n", tmpdir);
	cfg = good(text);
	assert_int_equal(cfg->port, 4242);
	config_delete(cfg);
}

static void test_include_toplevel(void** state)
{
	struct config_file* cfg;
	char text[2048];
	(void)state;
	mkdir(path_of("top.d"), 0700);
	write_file("top.d/1.conf", "remote-control:\n control-enable: yes\n");
	write_file("top.d/2.conf", "server:\n port: 5300\n");
	snprintf(text, sizeof(text), "server:\n verbosity: 2\n"
		"include-toplevel: \"%s/top.d/*.conf\"\nserver:\n"
		" do-tcp: no\n", tmpdir);
	cfg = good(text);
	assert_int_equal(cfg->remote_control_enable, 1);
	assert_int_equal(cfg->port, 5300);
	assert_int_equal(cfg->do_tcp, 0);
	config_delete(cfg);
	/* after include-toplevel: a clause must start again */
	snprintf(text, sizeof(text), "server:\n"
		"include-toplevel: \"%s/top.d/*.conf\"\n do-tcp: no\n", tmpdir);
	bad(text, 3, "inside a clause");
	/* and the included file starts outside any clause */
	write_file("top.d/3.noclause", "port: 1\n");
	snprintf(text, sizeof(text), "server:\n"
		"include-toplevel: %s/top.d/3.noclause\n", tmpdir);
	{
		char err[4096];
		cfg = config_create();
		assert_false(read_text(cfg, "t.conf", text, err, sizeof(err)));
		assert_non_null(strstr(err, "3.noclause:1: error:"));
		config_delete(cfg);
	}
}

static void test_chroot_include(void** state)
{
	struct config_file* cfg;
	char text[2048];
	(void)state;
	mkdir(path_of("root"), 0700);
	write_file("root/ch.conf", "server: port: 99\n");
	snprintf(text, sizeof(text), "server:\n include: %s/root/ch.conf\n",
		tmpdir);
	write_file("t.conf", text);
	/* the chroot is not a prefix of the include: opened as written */
	cfg = config_create();
	assert_true(config_read(cfg, path_of("t.conf"), "/nonexistent-root"));
	assert_int_equal(cfg->port, 99);
	config_delete(cfg);
	/* inside the chroot "<tmpdir>/root", the file is "/ch.conf" */
	cfg = config_create();
	assert_false(config_read(cfg, path_of("t.conf"), path_of("root")));
	config_delete(cfg);
}

static void test_clauses(void** state)
{
	struct config_file* cfg;
	(void)state;
	cfg = good("stub-zone:\n name: \"example.com\"\n stub-addr: 192.0.2.1\n"
		" stub-addr: 192.0.2.2\n stub-prime: yes\n"
		"forward-zone:\n name: \".\"\n forward-addr: 127.0.0.1@5353\n"
		" forward-first: yes\n forward-tls-upstream: yes\n"
		"view:\n name: v1\n local-zone: example.org. static\n"
		" view-first: yes\n"
		"auth-zone:\n name: a.example\n zonefile: a.zone\n"
		"rpz:\n name: rpz.example\n rpz-log: yes\n tags: \"a\"\n"
		"remote-control:\n control-enable: yes\n"
		" control-interface: 127.0.0.1\n control-port: 8954\n"
		"dnstap:\n dnstap-enable: no\n"
		"cachedb:\n backend: redis\n"
		"python:\n python-script: x.py\n"
		"ipset:\n name-v4: set4\n");
	assert_string_equal(cfg->stubs->name, "example.com");
	assert_string_equal(cfg->stubs->addrs->next->str, "192.0.2.2");
	assert_int_equal(cfg->stubs->isprime, 1);
	assert_string_equal(cfg->forwards->name, ".");
	assert_int_equal(cfg->forwards->isfirst, 1);
	assert_int_equal(cfg->forwards->ssl_upstream, 1);
	assert_string_equal(cfg->views->name, "v1");
	assert_string_equal(cfg->views->local_zones->str2, "static");
	assert_int_equal(cfg->views->view_first, 1);
	assert_null(cfg->local_zones); /* the view's zone is not global */
	assert_string_equal(cfg->auths->name, "a.example");
	assert_int_equal(cfg->auths->for_downstream, 1);
	assert_int_equal(cfg->auths->isrpz, 0);
	assert_int_equal(cfg->auths->next->isrpz, 1);
	assert_int_equal(cfg->auths->next->for_downstream, 0);
	assert_int_equal(cfg->remote_control_enable, 1);
	assert_int_equal(cfg->control_port, 8954);
	assert_int_equal(config_check(cfg), 1);
	/* stub and forward zones are implemented, over TLS too */
	assert_false(has_unimpl(cfg, "stub-zone:name", NULL));
	assert_false(has_unimpl(cfg, "forward-zone:forward-addr", NULL));
	assert_false(has_unimpl(cfg, "forward-zone:forward-first", NULL));
	assert_false(has_unimpl(cfg, "forward-zone:forward-tls-upstream",
		NULL));
	/* views are implemented */
	assert_false(has_unimpl(cfg, "view:local-zone", NULL));
	/* RPZ is implemented (respip/rpz.c), its tags too */
	assert_false(has_unimpl(cfg, "rpz:rpz-log", NULL));
	assert_false(has_unimpl(cfg, "rpz:tags", NULL));
	/* the cachedb module's options are implemented (cachedb/) */
	assert_false(has_unimpl(cfg, "cachedb:backend", NULL));
	assert_string_equal(cfg->cachedb_backend, "redis");
	/* ipset and python are not built: no effect, not listed as not
	 * implemented, printed all the same */
	assert_false(has_unimpl(cfg, "ipset:name-v4", NULL));
	assert_false(has_unimpl(cfg, "python:python-script", NULL));
	assert_string_equal(printed(cfg, "name-v4"), "set4\n");
	assert_false(has_unimpl(cfg, "dnstap:dnstap-enable", NULL));
	assert_string_equal(printed(cfg, "backend"), "redis\n");
	assert_string_equal(printed(cfg, "python-script"), "x.py\n");
	config_delete(cfg);
	/* a clause without a name is found by config_check */
	cfg = good("stub-zone:\n stub-addr: 192.0.2.1\n");
	assert_int_equal(check_quiet(cfg), 0);
	config_delete(cfg);
}

/* The lines config_log_unimplemented writes at verbosity 1 (and none
 * at 0), each checked to be the "not implemented" line. */
static size_t unimpl_log_lines(struct config_file* cfg)
{
	char text[256];
	int fd, saved;
	FILE* f;
	size_t n = 0;
	fflush(stderr);
	saved = dup(2);
	fd = open(path_of("log.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	verbosity = VERB_OPS;
	config_log_unimplemented(cfg);
	verbosity = NO_VERBOSE;
	config_log_unimplemented(cfg); /* silent */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(path_of("log.txt"), "r");
	assert_non_null(f);
	while(fgets(text, sizeof(text), f)) {
		assert_non_null(strstr(text, "is not implemented yet, ignored"));
		n++;
	}
	fclose(f);
	verbosity = VERB_OPS;
	return n;
}

static void test_unimplemented(void** state)
{
	struct config_file* cfg;
	(void)state;
	cfg = good("server:\n prefetch: yes\n ede-serve-expired: yes\n"
		" quic-size: 16m\n deny-any: no\n harden-glue: yes\n"
		" msg-cache-size: 4m\n key-cache-size: 8m\n"
		" domain-insecure: a.example\n domain-insecure: b.example\n"
		" access-control-tag-action: 10.0.0.0/8 t1 refuse\n"
		" dns-error-reporting: yes\n"
		" verbosity: 2\n interface: 127.0.0.1\n"
		" module-config: \"iterator\"\n");
	/* set to something else than the default: recorded */
	assert_false(has_unimpl(cfg, "server:prefetch", NULL));  /* done */
	assert_false(has_unimpl(cfg, "server:ede-serve-expired", NULL));
	assert_int_equal(cfg->ede_serve_expired, 1);
	/* DNS over QUIC is not built: no effect, not listed, printed */
	assert_false(has_unimpl(cfg, "server:quic-size", NULL));
	assert_string_equal(printed(cfg, "quic-size"), "16777216\n");
	/* the last option of issue 29 done: none is left unimplemented */
	assert_false(has_unimpl(cfg, "server:dns-error-reporting", NULL));
	/* a three-value option kept: the second and third joined */
	assert_false(has_unimpl(cfg, "server:access-control-tag-action",
		NULL));
	assert_non_null(cfg->acl_tag_actions);
	assert_string_equal(cfg->acl_tag_actions->str, "10.0.0.0/8");
	assert_string_equal(cfg->acl_tag_actions->str2, "t1 refuse");
	assert_string_equal(printed(cfg, "access-control-tag-action"),
		"10.0.0.0/8 t1 refuse\n");
	assert_false(has_unimpl(cfg, "server:module-config", NULL)); /* done */
	/* default values and implemented options: not recorded */
	assert_false(has_unimpl(cfg, "server:deny-any", NULL));
	assert_false(has_unimpl(cfg, "server:harden-glue", NULL));
	assert_false(has_unimpl(cfg, "server:msg-cache-size", NULL));
	assert_false(has_unimpl(cfg, "server:verbosity", NULL));
	assert_false(has_unimpl(cfg, "server:interface", NULL));
	assert_false(has_unimpl(cfg, "server:key-cache-size", NULL));
	assert_false(has_unimpl(cfg, "server:domain-insecure", NULL));
	assert_int_equal(cfg->key_cache_size, 8 * 1024 * 1024);
	/* still stored where a field exists, and printable */
	assert_int_equal(cfg->prefetch, 1);
	assert_string_equal(printed(cfg, "prefetch"), "yes\n");
	assert_string_equal(printed(cfg, "ede-serve-expired"), "yes\n");
	assert_string_equal(printed(cfg, "domain-insecure"),
		"a.example\nb.example\n");
	/* nothing left to log (quic-size: not built, not logged) */
	assert_int_equal(unimpl_log_lines(cfg), 0);
	config_delete(cfg);
}

/* No row of the table is left unimplemented today; the recording (and
 * so the start-up log line) is kept for the next option that would be:
 * a row of its own, not in the table, set away from its default. */
static void test_unimplemented_row(void** state)
{
	static const struct cfg_option row = { "no-such-feature", CL_SERVER,
		CT_YESNO, CFG_NOFIELD, NULL, 0, 0, "no", 0, 0 };
	struct cfg_parser p;
	char yes[] = "yes", no[] = "no";
	char* args[1];
	size_t i;
	(void)state;
	for(i = 0; i < cfg_options_num; i++)
		assert_true(cfg_options[i].implemented);
	memset(&p, 0, sizeof(p));
	p.cfg = config_create();
	assert_non_null(p.cfg);
	p.fname = "t.conf";
	p.clause = CL_SERVER;
	args[0] = no;
	assert_int_equal(cfg_option_apply(&p, &row, args), 1);
	assert_false(has_unimpl(p.cfg, "server:no-such-feature", NULL));
	args[0] = yes;
	assert_int_equal(cfg_option_apply(&p, &row, args), 1);
	assert_true(has_unimpl(p.cfg, "server:no-such-feature", "yes"));
	assert_int_equal(unimpl_log_lines(p.cfg), 1);
	config_delete(p.cfg);
}

static void test_check(void** state)
{
	struct config_file* cfg;
	(void)state;
	cfg = good("server:\n interface: 127.0.0.1\n interface: ::1@5353\n"
		" interface: 0.0.0.0@53\n interface: fe80::1%lo\n"
		" edns-buffer-size: 65535\n msg-buffer-size: 4096\n"
		" pad-queries: no\n tls-protocols: \"TLSv1.3\"\n");
	assert_int_equal(config_check(cfg), 1);
	/* msg-buffer-size is kept, checked and acted on */
	assert_false(has_unimpl(cfg, "server:msg-buffer-size", NULL));
	assert_int_equal(cfg->msg_buffer_size, 4096);
	assert_false(has_unimpl(cfg, "server:pad-queries", NULL));
	assert_false(has_unimpl(cfg, "server:tls-protocols", NULL));
	/* the same checks hold for values set by a program */
	cfg->port = 0;
	assert_int_equal(check_quiet(cfg), 0);
	cfg->port = 53;
	cfg->num_threads = 0;
	assert_int_equal(check_quiet(cfg), 0);
	cfg->num_threads = 1;
	cfg->edns_buffer_size = 100;
	assert_int_equal(check_quiet(cfg), 0);
	cfg->edns_buffer_size = 1232;
	assert_int_equal(check_quiet(cfg), 1);
	/* tls-protocols: TLSv1.2 and TLSv1.3 only; "" is accepted */
	free(cfg->tls_protocols);
	cfg->tls_protocols = strdup("TLSv1.2 TLSv1.1");
	assert_int_equal(check_quiet(cfg), 0);
	free(cfg->tls_protocols);
	cfg->tls_protocols = strdup("TLSv1.3x");
	assert_int_equal(check_quiet(cfg), 0);
	free(cfg->tls_protocols);
	cfg->tls_protocols = strdup("");
	assert_int_equal(check_quiet(cfg), 1);
	config_delete(cfg);
	/* values out of range are found while reading, with their line */
	bad("server:\n interface: 127.0.0.1@0\n", 2, "bad port number");
	bad("server:\n interface: 1.2.3.4@x\n", 2, "bad port number");
	bad("server:\n\n interface: not-an-address\n", 3,
		"cannot parse interface");
	/* an interface name is taken by interface: (its addresses are
	 * bound at start), not where only an address will do */
	cfg = good("server:\n interface: lo\n interface: lo@5353\n");
	config_delete(cfg);
	bad("server:\n interface: nosuch-if0\n", 2, "cannot parse interface");
	bad("remote-control:\n prometheus-interface: lo\n", 2,
		"interface names are not supported");
	bad("server:\n num-threads: 0\n", 2, "out of range 1..10000");
	bad("server:\n port: 0\n", 2, "out of range 1..65535");
	bad("server:\n port: 65536\n", 2, "out of range");
	bad("server:\n edns-buffer-size: 511\n", 2, "out of range");
	bad("server:\n msg-buffer-size: 1000\n", 2, "too small");
	bad("server:\n pad-queries-block-size: 0\n", 2, "too small");
	bad("server:\n verbosity: -1\n", 2, "too small");
	bad("server:\n incoming-num-tcp: -1\n", 2, "too small");
	/* checks across options */
	cfg = good("server:\n do-udp: no\n do-tcp: no\n");
	assert_int_equal(check_quiet(cfg), 0);
	config_delete(cfg);
	cfg = good("server:\n do-ip4: no\n do-ip6: no\n");
	assert_int_equal(check_quiet(cfg), 0);
	config_delete(cfg);
}

static void test_fname_after_chroot(void** state)
{
	struct config_file* cfg = good("server:\n chroot: /var/ub\n"
		" directory: /var/ub/etc\n");
	char* p;
	(void)state;
	p = cfg_fname_after_chroot("/run/u.pid", cfg, 1);
	assert_string_equal(p, "/var/ub/run/u.pid");
	free(p);
	p = cfg_fname_after_chroot("/var/ub/u.pid", cfg, 1);
	assert_string_equal(p, "/var/ub/u.pid");
	free(p);
	p = cfg_fname_after_chroot("u.pid", cfg, 1);
	assert_string_equal(p, "/var/ub/etc/u.pid");
	free(p);
	config_delete(cfg);
}

/* Real configs: the files must load with no error. */
static void read_real(const char* file)
{
	char path[1200], err[8192];
	int fd, saved, ok;
	ssize_t n;
	struct config_file* cfg = config_create();
	snprintf(path, sizeof(path), "%s/%s", confdir(), file);
	fflush(stderr);
	saved = dup(2);
	fd = open(path_of("real.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	ok = config_read(cfg, path, NULL) && config_check(cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fd = open(path_of("real.txt"), O_RDONLY);
	n = read(fd, err, sizeof(err) - 1);
	close(fd);
	err[n > 0 ? n : 0] = 0;
	if(!ok || err[0])
		fail_msg("%s: %s", path, err);
	config_delete(cfg);
}

static void test_real_configs(void** state)
{
	char text[2048];
	struct config_file* cfg;
	(void)state;
	read_real("example-unbound.conf");
	read_real("debian/unbound.conf");
	read_real("../../doc/example.conf");
	/* Debian's unbound.conf with its include pointing at our copy */
	snprintf(text, sizeof(text), "include-toplevel: \"%s/debian/"
		"unbound.conf.d/*.conf\"\n", confdir());
	cfg = good(text);
	assert_int_equal(cfg->remote_control_enable, 1);
	assert_string_equal(cfg->control_ifs->str, "/run/unbound.ctl");
	assert_false(has_unimpl(cfg, "server:auto-trust-anchor-file", NULL));
	assert_non_null(cfg->auto_trust_anchor_file_list);
	assert_string_equal(cfg->auto_trust_anchor_file_list->str,
		"/var/lib/unbound/root.key");
	assert_null(cfg->auto_trust_anchor_file_list->next);
	config_delete(cfg);
}

/* The validator's options: Unbound 1.17's defaults, values, -o
 * output, deep copies and bad values. */
static void test_validator_options(void** state)
{
	struct config_file* cfg = config_create(), *c;
	(void)state;
	assert_non_null(cfg);
	assert_null(cfg->trust_anchor_file_list);
	assert_null(cfg->auto_trust_anchor_file_list);
	assert_null(cfg->trust_anchor_list);
	assert_null(cfg->trusted_keys_file_list);
	assert_null(cfg->domain_insecure);
	assert_int_equal(cfg->val_date_override, 0);
	assert_int_equal(cfg->val_sig_skew_min, 3600);
	assert_int_equal(cfg->val_sig_skew_max, 86400);
	assert_int_equal(cfg->val_max_restart, 5);
	assert_int_equal(cfg->bogus_ttl, 60);
	assert_int_equal(cfg->val_clean_additional, 1);
	assert_int_equal(cfg->val_permissive_mode, 0);
	assert_int_equal(cfg->ignore_cd, 0);
	assert_int_equal(cfg->val_log_level, 0);
	assert_string_equal(cfg->val_nsec3_key_iterations,
		"1024 150 2048 150 4096 150");
	assert_int_equal(cfg->key_cache_size, 4 * 1024 * 1024);
	assert_int_equal(cfg->key_cache_slabs, 4);
	assert_int_equal(cfg->harden_algo_downgrade, 0);
	assert_int_equal(cfg->harden_dnssec_stripped, 1);
	assert_int_equal(cfg->ede, 0);
	assert_string_equal(printed(cfg, "val-override-date"), "0\n");
	assert_string_equal(printed(cfg, "trust-anchor-file"), "");
	assert_string_equal(printed(cfg, "key-cache-size"), "4194304\n");
	config_delete(cfg);

	cfg = good("server:\n trust-anchor-file: a.key\n"
		" trust-anchor-file: \"/x/b.key\"\n"
		" auto-trust-anchor-file: /var/lib/unbound/root.key\n"
		" trust-anchor: \". DS 20326 8 2 E06D44B8\"\n"
		" trusted-keys-file: /etc/bind/*.keys\n"
		" domain-insecure: corp.example\n"
		" val-override-date: 20240102030405\n"
		" val-sig-skew-min: 10\n val-sig-skew-max: 20\n"
		" val-max-restart: 0\n val-bogus-ttl: 5\n"
		" val-clean-additional: no\n val-permissive-mode: yes\n"
		" ignore-cd-flag: yes\n val-log-level: 2\n"
		" val-nsec3-keysize-iterations: \"1024 0 4096 100\"\n"
		" key-cache-size: 1m\n key-cache-slabs: 8\n"
		" harden-algo-downgrade: yes\n harden-dnssec-stripped: no\n"
		" ede: yes\n");
	assert_string_equal(cfg->trust_anchor_file_list->str, "a.key");
	assert_string_equal(cfg->trust_anchor_file_list->next->str,
		"/x/b.key");
	assert_string_equal(cfg->trust_anchor_list->str,
		". DS 20326 8 2 E06D44B8");
	assert_int_equal(cfg->val_date_override, 1704164645LL);
	assert_int_equal(cfg->val_sig_skew_min, 10);
	assert_int_equal(cfg->val_sig_skew_max, 20);
	assert_int_equal(cfg->val_max_restart, 0);
	assert_int_equal(cfg->bogus_ttl, 5);
	assert_int_equal(cfg->val_clean_additional, 0);
	assert_int_equal(cfg->val_permissive_mode, 1);
	assert_int_equal(cfg->ignore_cd, 1);
	assert_int_equal(cfg->val_log_level, 2);
	assert_int_equal(cfg->key_cache_size, 1024 * 1024);
	assert_int_equal(cfg->key_cache_slabs, 8);
	assert_int_equal(cfg->harden_algo_downgrade, 1);
	assert_int_equal(cfg->harden_dnssec_stripped, 0);
	assert_int_equal(cfg->ede, 1);
	assert_null(cfg->unimplemented);
	/* -o as Unbound prints them */
	assert_string_equal(printed(cfg, "trust-anchor-file"),
		"a.key\n/x/b.key\n");
	assert_string_equal(printed(cfg, "val-override-date"),
		"1704164645\n");
	assert_string_equal(printed(cfg, "val-nsec3-keysize-iterations"),
		"1024 0 4096 100\n");
	assert_string_equal(printed(cfg, "ignore-cd-flag"), "yes\n");
	assert_string_equal(printed(cfg, "key-cache-slabs"), "8\n");
	/* a deep copy: lists and strings are its own */
	c = config_copy(cfg);
	assert_non_null(c);
	assert_ptr_not_equal(c->trust_anchor_file_list,
		cfg->trust_anchor_file_list);
	assert_ptr_not_equal(c->trust_anchor_file_list->next->str,
		cfg->trust_anchor_file_list->next->str);
	assert_string_equal(c->trust_anchor_file_list->next->str,
		"/x/b.key");
	assert_ptr_not_equal(c->auto_trust_anchor_file_list,
		cfg->auto_trust_anchor_file_list);
	assert_ptr_not_equal(c->trust_anchor_list, cfg->trust_anchor_list);
	assert_ptr_not_equal(c->trusted_keys_file_list,
		cfg->trusted_keys_file_list);
	assert_ptr_not_equal(c->domain_insecure, cfg->domain_insecure);
	assert_ptr_not_equal(c->val_nsec3_key_iterations,
		cfg->val_nsec3_key_iterations);
	assert_string_equal(c->val_nsec3_key_iterations, "1024 0 4096 100");
	assert_int_equal(c->val_date_override, 1704164645LL);
	assert_int_equal(c->key_cache_size, 1024 * 1024);
	config_delete(cfg);   /* the copy stands alone (ASan checks) */
	assert_string_equal(c->trusted_keys_file_list->str,
		"/etc/bind/*.keys");
	config_delete(c);

	/* seconds and -1 (no date checks) */
	cfg = good("server:\n val-override-date: 1700000000\n");
	assert_int_equal(cfg->val_date_override, 1700000000LL);
	config_delete(cfg);
	cfg = good("server:\n val-override-date: -1\n");
	assert_int_equal(cfg->val_date_override, -1);
	assert_string_equal(printed(cfg, "val-override-date"),
		"4294967295\n");
	config_delete(cfg);
	cfg = good("server:\n val-override-date: \"\"\n");
	assert_int_equal(cfg->val_date_override, 0);
	config_delete(cfg);

	/* bad values name file and line */
	bad("server:\n val-override-date: 20241302030405\n", 2,
		"bad date/time specification");
	bad("server:\n\n val-override-date: tomorrow\n", 3,
		"number expected");
	bad("server:\n val-bogus-ttl: -1\n", 2, "val-bogus-ttl");
	bad("server:\n val-sig-skew-min: lots\n", 2, "expected a number");
	bad("server:\n val-permissive-mode: maybe\n", 2,
		"expected yes or no");
	bad("server:\n key-cache-slabs: 3\n", 2, "power of 2");
	bad("server:\n key-cache-size: 4q\n", 2, "expected a size");
	bad("server:\n val-nsec3-keysize-iterations: \"1024 150 2048\"\n",
		2, "pairs of numbers");
	bad("server:\n val-nsec3-keysize-iterations: \"2048 1 1024 1\"\n",
		2, "not ascending");
	bad("server:\n val-nsec3-keysize-iterations: \"1024 x\"\n", 2,
		"pairs of numbers");
	bad("server:\n ede: 1\n", 2, "expected yes or no");
}

static int setup(void** state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/config_test.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void** state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dns64-prefix: an RFC 6052 prefix, refused at load with FILE:LINE;
 * dns64-synthall, dns64-ignore-aaaa in their fields. */
static void test_dns64_options(void** state)
{
	struct config_file* cfg;
	(void)state;
	cfg = good("server:\n");
	assert_string_equal(cfg->dns64_prefix, "64:ff9b::/96");
	assert_int_equal(cfg->dns64_synthall, 0);
	assert_null(cfg->dns64_ignore_aaaa);
	config_delete(cfg);
	cfg = good("server:\n dns64-prefix: 2001:db8:122:300::/56\n"
		" dns64-synthall: yes\n dns64-ignore-aaaa: a.example\n"
		" dns64-ignore-aaaa: b.example.\n");
	assert_string_equal(cfg->dns64_prefix, "2001:db8:122:300::/56");
	assert_int_equal(cfg->dns64_synthall, 1);
	assert_string_equal(cfg->dns64_ignore_aaaa->str, "a.example");
	assert_string_equal(cfg->dns64_ignore_aaaa->next->str, "b.example.");
	assert_false(has_unimpl(cfg, "server:dns64-synthall", NULL));
	assert_string_equal(printed(cfg, "dns64-prefix"),
		"2001:db8:122:300::/56\n");
	config_delete(cfg);
	bad("server:\n dns64-prefix: 192.0.2.0/24\n", 2,
		"dns64_prefix is not IPv6: 192.0.2.0/24");
	bad("server:\n\n dns64-prefix: 64:ff9b::/80\n", 3,
		"dns64-prefix length is not 32, 40, 48, 56, 64 or 96: "
		"64:ff9b::/80");
	bad("server:\n dns64-prefix: 64:ff9b::\n", 2,
		"dns64-prefix length is not");
	bad("server:\n dns64-prefix: 64:ff9b::1/96\n", 2,
		"dns64-prefix has bits set after its length 96: 64:ff9b::1/96");
	bad("server:\n dns64-prefix: 2001:db8:0:0:1::/64\n", 2,
		"bits set after its length 64");
	bad("server:\n dns64-prefix: 2001:db8::x/96\n", 2,
		"cannot parse dns64-prefix netblock");
	bad("server:\n dns64-prefix: 64:ff9b::/\n", 2,
		"cannot parse dns64-prefix netblock");
	/* NAT64: unset is NULL (the iterator takes dns64-prefix) */
	cfg = good("server:\n");
	assert_int_equal(cfg->do_nat64, 0);
	assert_null(cfg->nat64_prefix);
	config_delete(cfg);
	cfg = good("server:\n do-nat64: yes\n nat64-prefix: 2001:db8::/96\n");
	assert_int_equal(cfg->do_nat64, 1);
	assert_string_equal(cfg->nat64_prefix, "2001:db8::/96");
	assert_false(has_unimpl(cfg, "server:do-nat64", NULL));
	config_delete(cfg);
	bad("server:\n nat64-prefix: 192.0.2.0/24\n", 2,
		"nat64-prefix is not IPv6: 192.0.2.0/24");
	bad("server:\n nat64-prefix: 64:ff9b::/80\n", 2,
		"nat64-prefix length is not 32, 40, 48, 56, 64 or 96");
	bad("server:\n dns64-ignore-aaaa: a..b\n", 2,
		"cannot parse dns64-ignore-aaaa: a..b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_memsize),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_include_toplevel),
		cmocka_unit_test(test_chroot_include),
		cmocka_unit_test(test_clauses),
		cmocka_unit_test(test_unimplemented),
		cmocka_unit_test(test_unimplemented_row),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_fname_after_chroot),
		cmocka_unit_test(test_real_configs),
		cmocka_unit_test(test_validator_options),
		cmocka_unit_test(test_dns64_options),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
