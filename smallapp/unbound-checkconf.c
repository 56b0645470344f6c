/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/unbound-checkconf.c - compat: unbound-1.17: check unbound.conf for
 * errors, or print the value of one option (-o), as Unbound's
 * unbound-checkconf. */
#include "config.h"
#include "util/config_file.h"
#include "services/tls_server.h"
#include "util/log.h"
#include "daemon/acl_list.h"
#include "services/authzone.h"
#include "services/localzone.h"
#include "services/view.h"
#include "services/modstack.h"
#include "respip/respip_set.h"
#include "validator/val_anchor.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE* out)
{
	fprintf(out, "Usage:\tunbound-checkconf [-h] [-f] [-q] [-o option] "
		"[file]\n");
	fprintf(out, "\tChecks unbound configuration file for errors.\n");
	fprintf(out, "file\tif omitted %s is used.\n", CONFIGFILE);
	fprintf(out, "-o option\tprint value of option to stdout.\n");
	fprintf(out, "-f \t\toutput full pathname with chroot applied, eg. "
		"with -o pidfile.\n");
	fprintf(out, "-q \t\tquiet (suppress output on success).\n");
	fprintf(out, "-h\t\tshow this usage help.\n");
	fprintf(out, "Version %s\n", PACKAGE_VERSION);
}

/* -o: print the option; with -f, pidfile as seen outside the chroot. */
static int print_option(struct config_file* cfg, const char* opt, int final)
{
	if(final && strcmp(opt, "pidfile") == 0) {
		char* p = cfg_fname_after_chroot(cfg->pidfile ?
			cfg->pidfile : "", cfg, 1);
		if(!p) {
			fprintf(stderr, "unbound-checkconf: out of memory\n");
			return 1;
		}
		printf("%s\n", p);
		free(p);
		return 0;
	}
	if(!config_print_option(cfg, opt, stdout)) {
		fprintf(stderr, "unbound-checkconf: cannot print option '%s'\n",
			opt);
		return 1;
	}
	return 0;
}

/* Build what the daemon builds from the config, to find its errors. */
static int build_checks(struct config_file* cfg)
{
	struct acl_list* acl;
	struct local_zones* lz;
	struct auth_zones* az;
	struct val_anchors* anchors;
	struct respip_set* rs;
	const struct config_view* cv;
	int ok = 1;
	/* as the daemon: a module-config it cannot run (FILE:LINE) */
	if(!modstack_check_cfg(cfg))
		ok = 0;
	struct views* vs = views_create(cfg);
	if(!vs)
		ok = 0;
	if(!(acl = acl_list_create_views(cfg, vs)))
		ok = 0;
	acl_list_delete(acl);
	views_delete(vs);
	if(!(lz = local_zones_create(cfg)))
		ok = 0;
	local_zones_delete(lz);
	/* compat: unbound-1.17: the auth zones' files are read (check_auth):
	 * one that does not parse is an error */
	if(!auth_zones_create(cfg, 0, &az))
		ok = 0;
	auth_zones_delete(az);
	/* compat: unbound-1.17: the response-ip rules, as Unbound's
	 * checkconf builds its respip set (each error logged) */
	if(!(rs = respip_set_create_tagged(cfg,
		cfg->respip_tags, cfg->respip_actions, cfg->respip_data))) {
		fprintf(stderr, "%s: error: could not setup respip set\n",
			cfg->filename ? cfg->filename : "config");
		ok = 0;
	}
	respip_set_delete(rs);
	/* and each view's (Unbound's respip_views_apply_cfg) */
	for(cv = cfg->views; cv; cv = cv->next) {
		if(!cv->respip_actions && !cv->respip_data)
			continue;
		if(!(rs = respip_set_create(cv->respip_actions,
			cv->respip_data))) {
			fprintf(stderr, "%s: error: could not setup per-view "
				"respip sets\n", cfg->filename ? cfg->filename :
				"config");
			ok = 0;
		}
		respip_set_delete(rs);
	}
	/* a broken anchor file stops the daemon: report it (FILE:LINE) */
	if(!(anchors = val_anchors_create(cfg, VAL_PATHS_OUTSIDE, 1)))
		ok = 0;
	val_anchors_delete(anchors);
	/* as the daemon: a missing or unreadable TLS key or certificate
	 * is an error naming the file */
	if(tls_server_configured(cfg)) {
		SSL_CTX* ctx = tls_server_ctx_new(cfg, "dot");
		if(!ctx)
			ok = 0;
		tls_server_ctx_free(ctx);
	}
	return ok;
}

static int checkconf(const char* file, const char* opt, int final, int quiet)
{
	struct config_file* cfg = config_create();
	char full[PATH_MAX];
	int ok;
	if(!cfg) {
		fprintf(stderr, "unbound-checkconf: out of memory\n");
		return 1;
	}
	if(!config_read(cfg, file, NULL)) {
		config_delete(cfg);
		return 1;
	}
	if(opt) {
		ok = print_option(cfg, opt, final);
		config_delete(cfg);
		return ok;
	}
	ok = config_check(cfg);
	ok = build_checks(cfg) && ok;
	if(ok && !quiet) {
		verbosity = (enum verbosity_value)cfg->verbosity;
		config_log_unimplemented(cfg);
		if(final && realpath(file, full))
			file = full;
		printf("unbound-checkconf: no errors in %s\n", file);
	}
	config_delete(cfg);
	return ok ? 0 : 1;
}

int main(int argc, char** argv)
{
	const char* opt = NULL;
	int c, final = 0, quiet = 0;
	log_ident_set("unbound-checkconf");
	while((c = getopt(argc, argv, "fhqo:")) != -1) {
		switch(c) {
		case 'f':
			final = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'o':
			opt = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if(argc > 1) {
		usage(stderr);
		return 1;
	}
	return checkconf(argc == 1 ? argv[0] : CONFIGFILE, opt, final, quiet);
}
