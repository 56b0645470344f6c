/* daemon/remote_option.c - unbound-control set_option OPTION: VALUE for
 * the options Unbound 1.17 lets set at run time; others, and bad values,
 * answer "error setting option" as there. The value goes through the
 * config parser's own checks into a copy of the config, which is
 * published as a new snapshot (get_option then shows it). */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

static char* skip_blank(char* s)
{
	while(*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The options Unbound 1.17's set_option takes (config_set_option);
 * others answer "error setting option" as there. */
static const char* const settable[] = {
	"verbosity", "statistics-interval", "outgoing-port-permit",
	"outgoing-port-avoid", "local-zone", "val-override-date",
	"local-data-ptr", "logfile", "log-time-ascii", "max-udp-size",
	"use-syslog", "log-identity", "extended-statistics",
	"statistics-cumulative", "shm-enable", "shm-key", "do-ip4", "do-ip6",
	"do-udp", "do-tcp", "tcp-upstream",
	"udp-upstream-without-downstream", "tcp-mss", "outgoing-tcp-mss",
	"tcp-idle-timeout", "edns-tcp-keepalive",
	"edns-tcp-keepalive-timeout", "ssl-upstream", "ssl-service-key",
	"ssl-service-pem", "ssl-port", "tls-cert-bundle", "tls-win-cert",
	"additional-tls-port", "tls-additional-ports", "tls-additional-port",
	"interface-automatic", "use-systemd", "do-daemonize", "port",
	"outgoing-range", "outgoing-num-tcp", "incoming-num-tcp",
	"edns-buffer-size", "msg-buffer-size", "msg-cache-size",
	"msg-cache-slabs", "num-queries-per-thread", "jostle-timeout",
	"so-rcvbuf", "so-sndbuf", "so-reuseport", "ip-transparent",
	"ip-freebind", "rrset-cache-size", "rrset-cache-slabs", "prefetch",
	"prefetch-key", "cache-max-ttl", "cache-max-negative-ttl",
	"cache-min-ttl", "infra-cache-min-rtt", "infra-host-ttl",
	"infra-cache-slabs", "infra-cache-numhosts", "delay-close",
	"udp-connect", "chroot", "username", "directory", "pidfile",
	"hide-identity", "hide-version", "hide-trustanchor",
	"hide-http-user-agent", "identity", "version", "http-user-agent",
	"nsid", "root-hints", "target-fetch-policy", "harden-glue",
	"harden-short-bufsize", "harden-large-queries",
	"harden-dnssec-stripped", "harden-below-nxdomain",
	"harden-referral-path", "harden-algo-downgrade", "use-caps-for-id",
	"caps-whitelist", "unwanted-reply-threshold", "private-address",
	"private-domain", "do-not-query-localhost", "do-not-query-address",
	"auto-trust-anchor-file", "trust-anchor-file", "trust-anchor",
	"trusted-keys-file", "trust-anchor-signaling", "root-key-sentinel",
	"domain-insecure", "val-bogus-ttl", "val-clean-additional",
	"val-log-level", "val-log-squelch", "log-queries", "log-replies",
	"log-local-actions", "log-servfail", "val-permissive-mode",
	"aggressive-nsec", "ignore-cd-flag", "serve-expired",
	"serve-expired-ttl-reset", "val-nsec3-keysize-iterations",
	"add-holddown", "del-holddown", "keep-missing",
	"permit-small-holddown", "key-cache-size", "key-cache-slabs",
	"neg-cache-size", "minimal-responses", "rrset-roundrobin",
	"local-data", "unblock-lan-zones", "insecure-lan-zones",
	"control-enable", "control-interface", "control-port",
	"server-key-file", "server-cert-file", "control-key-file",
	"control-cert-file", "module-config", "python-script",
	"disable-dnssec-lame-check", "ip-ratelimit", "ratelimit",
	"ip-ratelimit-size", "ratelimit-size", "ip-ratelimit-slabs",
	"ratelimit-slabs", "ip-ratelimit-factor", "ratelimit-factor",
	"low-rtt", "low-rtt-pct", "low-rtt-permil", "qname-minimisation",
	"qname-minimisation-strict", "define-tag", "val-sig-skew-min",
	"val-sig-skew-max", "outgoing-interface"
};

static int is_settable(const char* name)
{
	size_t i;
	for(i = 0; i < sizeof(settable) / sizeof(settable[0]); i++)
		if(strcmp(settable[i], name) == 0)
			return 1;
	return 0;
}

void rc_do_set_option(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	const struct cfg_option* o;
	struct cfg_parser p;
	struct config_file* cfg;
	char* val, *vals[3] = { NULL, NULL, NULL };
	size_t n;
	arg = skip_blank(arg);
	if(!rc_find_arg2(arg, &val, b))
		return;
	n = strlen(arg);
	if(n > 0 && arg[n-1] == ':')
		arg[n-1] = 0;
	o = cfg_option_find(arg, CL_SERVER | CL_REMOTE);
	if(!o || o->type == CT_CLAUSE || !is_settable(arg)) {
		strbuf_printf(b, "error setting option\n");
		return;
	}
	vals[0] = val;
	if(cfg_option_nargs(o) == 2) {
		/* "local-zone: name type" */
		if(!rc_find_arg2(val, &vals[1], b))
			return;
	}
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.fname = "set_option";
	p.clause = (o->clauses & CL_SERVER) ? CL_SERVER : CL_REMOTE;
	if(!cfg_option_apply(&p, o, vals) || p.errors ||
		!config_check(cfg)) {
		config_delete(cfg);
		strbuf_printf(b, "error setting option\n");
		return;
	}
	if(strcmp(arg, "verbosity") == 0)
		verbosity = (enum verbosity_value)cfg->verbosity;
	rc_publish_cfg(rc, cfg, b);
}
