/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/unbound.c - compat: unbound-1.17: main(): command line flags as
 * Unbound's, then the config is read and checked before anything is bound. */
#include "config.h"
#include "daemon/daemon.h"
#include "services/modstack.h"
#include "util/alloc_policy.h"
#include "util/config_file.h"
#include "util/log.h"
#include <event2/event.h>
#include <ldns/ldns.h>
#include <openssl/opensslv.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	printf("usage:  unbound [options]\n");
	printf("	start unbound daemon DNS resolver.\n");
	printf("-h	this help.\n");
	printf("-c file	config file to read instead of %s\n", CONFIGFILE);
	printf("	file format is described in unbound.conf(5).\n");
	printf("-d	do not fork into the background.\n");
	printf("-p	do not create a pidfile.\n");
	printf("-v	verbose (more times to increase verbosity).\n");
	printf("-V	show version number and build options.\n");
	printf("Version %s\n", PACKAGE_VERSION);
}

static void print_version(void)
{
	const struct module_func_block* m;
	size_t i;
	printf("Version %s\n\n", PACKAGE_VERSION);
	printf("A caching DNS resolver, drop-in compatible with Unbound.\n");
	printf("Linked libs: libevent %s, ldns %s, %s\n",
		event_get_version(), ldns_version(), OPENSSL_VERSION_TEXT);
	/* compat: unbound-1.17: the names module-config: takes */
	printf("Linked modules:");
	for(i = 0; (m = modstack_known(i)) != NULL; i++)
		printf(" %s", m->name);
	printf("\n");
	printf("Config file: %s\n", CONFIGFILE);
}

int main(int argc, char* argv[])
{
	const char* cfgfile = CONFIGFILE;
	struct daemon d;
	struct serve_env* env;
	char absname[PATH_MAX];
	int c, no_pidfile = 0;

	memset(&d, 0, sizeof(d));
	/* before the caches and threads: RSS follows the live heap */
	(void)alloc_policy_init();
	log_ident_set("unbound");
	while((c = getopt(argc, argv, "c:dhpvV")) != -1) {
		switch(c) {
		case 'c':
			cfgfile = optarg;
			break;
		case 'd':
			d.debug_mode++;
			break;
		case 'p':
			no_pidfile = 1;
			break;
		case 'v':
			d.cmdline_verbose++;
			break;
		case 'V':
			print_version();
			return 0;
		case 'h':
		case '?':
		default:
			usage();
			return 1;
		}
	}
	if(optind != argc) {
		usage();
		return 1;
	}
	/* reloads happen after chdir: remember where the file is */
	if(realpath(cfgfile, absname))
		cfgfile = absname;
	d.cfgfile = strdup(cfgfile);
	if(!d.cfgfile)
		return 1;
	verbosity = (enum verbosity_value)d.cmdline_verbose;
	env = serve_env_create(d.cfgfile, d.cmdline_verbose);
	if(!env) {
		fprintf(stderr, "[%d] unbound: fatal error: could not read "
			"config file %s\n", (int)getpid(), d.cfgfile);
		free(d.cfgfile);
		return 1;
	}
	if(no_pidfile) {
		free(env->cfg->pidfile);
		env->cfg->pidfile = NULL;
	}
	c = daemon_run(&d, env);
	free(d.cfgfile);
	return c;
}
