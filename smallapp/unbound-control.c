/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/unbound-control.c - compat: unbound-1.17: send one command to the
 * daemon's remote control and print the answer, as Unbound's unbound-control:
 * unbound-control [-c file] [-s server[@port]] [-q] command [args] The
 * interface, port and certificates come from the remote-control: clause of the
 * config. Exit 0, or 1 on an error (the answer's first line starts with
 * "error"), 3 for "status" when the daemon is not running. */
#include "config.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include "daemon/stats_shm.h"
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void usage(void)
{
	printf("Usage:\tunbound-control [options] command\n");
	printf("\tRemote control utility for unbound server.\n");
	printf("Options:\n");
	printf("  -c file\tconfig file, default is %s\n", CONFIGFILE);
	printf("  -s ip[@port]\tserver address, if omitted config is used.\n");
	printf("  -q\t\tquiet (don't print anything if it works ok).\n");
	printf("  -h\t\tshow this usage help.\n");
	printf("Commands:\n");
	printf("  status\t\tdisplay status of server\n");
	printf("  stop\t\t\tstops the server\n");
	printf("  reload\t\treloads the server (as SIGHUP)\n");
	printf("  fast_reload [+dpv]\treloads the server, keeping the "
		"caches\n");
	printf("  verbosity <number>\tchange logging detail\n");
	printf("  log_reopen\t\tclose and open the logfile\n");
	printf("  stats\t\t\tprint statistics\n");
	printf("  stats_noreset\t\tpeek at statistics\n");
	printf("  stats_shm\t\tprint statistics using shm\n");
	printf("  flush <name>\t\tflushes common types for name from cache\n");
	printf("  flush_type <name> <type>\tflush name, type from cache\n");
	printf("  flush_zone <name>\tflush everything at or under name\n");
	printf("  flush_stats\t\tflush statistics, make zero\n");
	printf("  get_option opt\t\tget option value\n");
	printf("  lookup <name>\t\tprint nameservers for name\n");
	printf("  dump_cache\t\tprint cache to stdout\n");
	printf("  load_cache\t\tload cache from stdin\n");
	printf("Version %s\n", PACKAGE_VERSION);
}

static void fatal(const char* cmd, const char* what)
{
	fprintf(stderr, "unbound-control: error: %s\n", what);
	if(cmd && strcmp(cmd, "status") == 0) {
		printf("unbound is stopped\n");
		exit(3);
	}
	exit(1);
}

/* compat: unbound-1.17: as Unbound's fatal_exit: the error on stderr with
 * the time and the program's name, exit 1 */
static void shm_fatal(const char* call, int arg)
{
	fprintf(stderr, "[%lld] unbound-control[%d:0] fatal error: %s(%d): "
		"%s\n", (long long)time(NULL), (int)getpid(), call, arg,
		strerror(errno));
	exit(1);
}

/* The segment key's id and its size; exits with Unbound's message when
 * there is none. */
static int shm_open_seg(int key, size_t* size)
{
	struct shmid_ds ds;
	int id = shmget((key_t)key, sizeof(int), SHM_R);
	if(id == -1)
		shm_fatal("shmget", key);
	if(shmctl(id, IPC_STAT, &ds) != 0)
		shm_fatal("shmctl", id);
	*size = ds.shm_segsz;
	return id;
}

/* compat: unbound-1.17: stats_shm: the statistics from the shared memory
 * of shm-key (no connection to the daemon), printed as stats_noreset
 * prints them. The segments are outside input: read only within their
 * sizes. */
static int stats_shm(const struct config_file* cfg, int quiet)
{
	size_t ctl_size, arr_size;
	int id_ctl = shm_open_seg(cfg->shm_key, &ctl_size);
	int id_arr = shm_open_seg(cfg->shm_key + 1, &arr_size);
	const struct ub_shm_stat_info* info;
	const struct ub_stats_info* arr;
	struct strbuf b;
	int n = cfg->num_threads;
	if(ctl_size < sizeof(*info) || arr_size < sizeof(*arr)) {
		fprintf(stderr, "unbound-control: error: shm-key %d: the "
			"segments are too small for the statistics\n",
			cfg->shm_key);
		return 1;
	}
	if((info = shmat(id_ctl, NULL, SHM_RDONLY)) == (void*)-1)
		shm_fatal("shmat", id_ctl);
	if((arr = shmat(id_arr, NULL, SHM_RDONLY)) == (void*)-1)
		shm_fatal("shmat", id_arr);
	/* the threads of the config, as Unbound; no more than are there */
	if(n < 0 || (size_t)n > arr_size / sizeof(*arr) - 1)
		n = (int)(arr_size / sizeof(*arr) - 1);
	memset(&b, 0, sizeof(b));
	if(!quiet) {
		stats_shm_print(&b, info, arr, n, cfg->stat_extended,
			cfg->stat_inhibit_zero);
		if(b.oom)
			fatal("stats_shm", "out of memory");
		fwrite(b.s, 1, b.len, stdout);
	}
	strbuf_clear(&b);
	(void)shmdt(info);
	(void)shmdt(arr);
	return 0;
}

/* Connect to the server; *is_unix tells whether it is a unix socket. */
static int contact(const char* svr, const struct config_file* cfg,
	const char* cmd, int* is_unix)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char err[512];
	int fd;
	if(!svr)
		svr = cfg->control_ifs ? cfg->control_ifs->str : "127.0.0.1";
	*is_unix = svr[0] == '/';
	if(*is_unix) {
		struct sockaddr_un sun;
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		if(strlen(svr) >= sizeof(sun.sun_path))
			fatal(cmd, "unix socket path too long");
		strcpy(sun.sun_path, svr);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if(fd == -1)
			fatal(cmd, "socket failed");
		if(connect(fd, (struct sockaddr*)&sun, sizeof(sun)) != 0) {
			snprintf(err, sizeof(err), "connect: %s for %s",
				strerror(errno), svr);
			fatal(cmd, err);
		}
		return fd;
	}
	if(!extstrtoaddr(svr, cfg->control_port, &addr, &len)) {
		snprintf(err, sizeof(err), "could not parse IP@port: %s", svr);
		fatal(cmd, err);
	}
	fd = socket(addr.ss_family, SOCK_STREAM, 0);
	if(fd == -1)
		fatal(cmd, "socket failed");
	if(connect(fd, (struct sockaddr*)&addr, len) != 0) {
		char ip[64];
		addr_to_str(&addr, len, ip, sizeof(ip));
		snprintf(err, sizeof(err), "connect: %s for %s port %d",
			strerror(errno), ip, addr_port(&addr));
		fatal(cmd, err);
	}
	return fd;
}

/* Mutual TLS: our control key and certificate, the server's certificate
 * as the only trusted one. */
static SSL* setup_ssl(int fd, const struct config_file* cfg, const char* cmd)
{
	SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
	SSL* ssl;
	if(!ctx)
		fatal(cmd, "could not allocate SSL_CTX pointer");
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if(!SSL_CTX_use_certificate_chain_file(ctx, cfg->control_cert_file))
		fatal(cmd, "Error setting up SSL_CTX client cert");
	if(!SSL_CTX_use_PrivateKey_file(ctx, cfg->control_key_file,
		SSL_FILETYPE_PEM) || !SSL_CTX_check_private_key(ctx))
		fatal(cmd, "Error setting up SSL_CTX client key");
	if(!SSL_CTX_load_verify_locations(ctx, cfg->server_cert_file, NULL))
		fatal(cmd, "Error setting up SSL_CTX verify, server cert");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if(!(ssl = SSL_new(ctx)))
		fatal(cmd, "could not SSL_new");
	SSL_CTX_free(ctx);  /* the SSL holds its own reference */
	SSL_set_connect_state(ssl);
	if(!SSL_set_fd(ssl, fd))
		fatal(cmd, "could not SSL_set_fd");
	if(SSL_do_handshake(ssl) != 1) {
		ERR_print_errors_fp(stderr);
		fatal(cmd, "SSL handshake failed");
	}
	if(SSL_get_verify_result(ssl) != X509_V_OK)
		fatal(cmd, "SSL verification failed");
	return ssl;
}

static void send_all(SSL* ssl, int fd, const char* buf, size_t len,
	const char* cmd)
{
	while(len > 0) {
		int n = ssl ? SSL_write(ssl, buf, (int)len) :
			(int)send(fd, buf, len, MSG_NOSIGNAL);
		if(n <= 0)
			fatal(cmd, "could not send command");
		buf += n;
		len -= (size_t)n;
	}
}

/* compat: unbound-1.17: The commands whose input lines come from stdin: as
 * Unbound's client, the lines follow the command line and a line "\004" ends
 * them. */
static int is_stdin_cmd(const char* cmd)
{
	return strcmp(cmd, "local_zones") == 0 ||
		strcmp(cmd, "local_zones_remove") == 0 ||
		strcmp(cmd, "local_datas") == 0 ||
		strcmp(cmd, "local_datas_remove") == 0 ||
		strcmp(cmd, "view_local_datas") == 0 ||
		strcmp(cmd, "view_local_datas_remove") == 0;
}

static void send_stdin(SSL* ssl, int fd, const char* cmd)
{
	char line[4096];
	while(fgets(line, (int)sizeof(line), stdin))
		send_all(ssl, fd, line, strlen(line), cmd);
	send_all(ssl, fd, "\004\n", 2, cmd);
}

/* Send the command, print the answer; returns the exit code. */
static int go_cmd(SSL* ssl, int fd, int quiet, int argc, char** argv)
{
	char buf[8192];
	int i, first = 1, was_error = 0;
	send_all(ssl, fd, "UBCT1 ", 6, argv[0]);
	for(i = 0; i < argc; i++) {
		if(i > 0)
			send_all(ssl, fd, " ", 1, argv[0]);
		send_all(ssl, fd, argv[i], strlen(argv[i]), argv[0]);
	}
	send_all(ssl, fd, "\n", 1, argv[0]);
	if(argc == 1 && strcmp(argv[0], "load_cache") == 0) {
		/* the dump follows the command, up to its "EOF" line */
		size_t n;
		while((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			send_all(ssl, fd, buf, n, argv[0]);
	} else if(is_stdin_cmd(argv[0]))
		send_stdin(ssl, fd, argv[0]);
	for(;;) {
		int n = ssl ? SSL_read(ssl, buf, (int)sizeof(buf) - 1) :
			(int)recv(fd, buf, sizeof(buf) - 1, 0);
		if(n <= 0) {
			/* TLS: only a close_notify is a clean end; a refused
			 * certificate shows up here with TLS 1.3 */
			if(ssl && SSL_get_error(ssl, n) != SSL_ERROR_ZERO_RETURN) {
				ERR_print_errors_fp(stderr);
				fatal(NULL, "could not SSL_read");
			}
			if(!ssl && n < 0)
				fatal(NULL, "could not recv");
			break;
		}
		buf[n] = 0;
		if(first && strncmp(buf, "error", 5) == 0) {
			printf("%s", buf);
			was_error = 1;
		} else if(!quiet || was_error)
			printf("%s", buf);
		first = 0;
	}
	fflush(stdout);
	return was_error;
}

int main(int argc, char** argv)
{
	const char* cfgfile = CONFIGFILE;
	const char* svr = NULL;
	/* static: still reachable (not a leak) when fatal() exits */
	static struct config_file* cfg;
	int c, quiet = 0, fd, is_unix, rc;
	SSL* ssl = NULL;
	while((c = getopt(argc, argv, "c:s:qh")) != -1) {
		switch(c) {
		case 'c':
			cfgfile = optarg;
			break;
		case 's':
			svr = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
		default:
			usage();
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if(argc == 0) {
		usage();
		return 1;
	}
	/* compat: unbound-1.17: the view_ ones take the view's name */
	if(is_stdin_cmd(argv[0]) && argc >= (strncmp(argv[0], "view_", 5)
		== 0 ? 3 : 2)) {
		char msg[256];
		snprintf(msg, sizeof(msg), "too many arguments for command "
			"'%s', content is piped in from stdin", argv[0]);
		fatal(NULL, msg);
	}
	cfg = config_create();
	if(!cfg)
		fatal(NULL, "out of memory");
	if(!config_read(cfg, cfgfile, NULL)) {
		fprintf(stderr, "unbound-control: error: could not read "
			"config file\n");
		return 1;
	}
	if(strcmp(argv[0], "stats_shm") == 0) {
		rc = stats_shm(cfg, quiet);
		config_delete(cfg);
		return rc;
	}
	if(!cfg->remote_control_enable)
		fprintf(stderr, "unbound-control: warning: control-enable is "
			"'no' in the config file.\n");
	signal(SIGPIPE, SIG_IGN);
	fd = contact(svr, cfg, argv[0], &is_unix);
	if(!is_unix && cfg->control_use_cert)
		ssl = setup_ssl(fd, cfg, argv[0]);
	rc = go_cmd(ssl, fd, quiet, argc, argv);
	if(ssl) {
		(void)SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	close(fd);
	config_delete(cfg);
	return rc;
}
