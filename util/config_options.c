/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_options.c - compat: unbound-1.17: the one table of unbound.conf
 * options (every name of Unbound 1.17 and of Unbound 1.26), their value types, storage, defaults and
 * whether this daemon implements them; plus checking and storing one option's
 * values. */
#include "config.h"
#include "util/config_options.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "dns64/dns64_synth.h"
#include "respip/respip_set.h"
#include "util/edns_cookie.h"
#include "util/net_help.h"
#include "iterator/iter_edns_strings.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int h_interface(struct cfg_parser* p, const struct cfg_option* o,
	char** args);
static int h_local_zone(struct cfg_parser* p, const struct cfg_option* o,
	char** args);
static int modules_where(struct cfg_parser* p);
static int h_edns_client_string(struct cfg_parser* p,
	const struct cfg_option* o, char** args);
static int edns_client_string_ok(struct cfg_parser* p,
	const struct cfg_option* o, char** args);
static int h_cookie_secret(struct cfg_parser* p,
	const struct cfg_option* o, char** args);

#define NOF CFG_NOFIELD
#define F(f) offsetof(struct config_file, f)
#define FS(f) offsetof(struct config_stub, f)
#define FV(f) offsetof(struct config_view, f)
#define FA(f) offsetof(struct config_auth, f)

/* clause start */
#define CLAUSE(n, c) { n, c, CT_CLAUSE, NOF, NULL, 1, 0, NULL, 0, 0 }
/* implemented server: option stored in struct config_file */
#define IMPL(n, t, f, d) { n, CL_SERVER, t, F(f), NULL, 1, 0, d, 0, 0 }
/* implemented, with a range for the number */
#define IMPLR(n, t, f, d, lo, hi) { n, CL_SERVER, t, F(f), NULL, 1, 0, d, \
	lo, hi }
/* implemented in a clause or with a field of its own (USE) */
#define USE(n, c, t, off, d) { n, c, t, off, NULL, 1, 0, d, 0, 0 }
/* not implemented, kept in a field of the clause's struct */
#define KEEP(n, c, t, off, d) { n, c, t, off, NULL, 0, 0, d, 0, 0 }
/* not implemented, no field: only checked and recorded */
#define SRV(n, t, d) { n, CL_SERVER, t, NOF, NULL, 0, 0, d, 0, 0 }
#define OTHER(n, c, t, d) { n, c, t, NOF, NULL, 0, 0, d, 0, 0 }
/* compat: unbound-1.17: obsolete in Unbound, which accepts any value and
 * ignores it (saying so for some: obsolete_note) */
#define OBSOLETE(n) { n, CL_SERVER, CT_STR, NOF, NULL, 1, CFGF_OBSOLETE, \
	NULL, 0, 0 }
/* compat: unbound-1.26: an option of a feature this daemon does not have,
 * taken as Unbound configured without it takes it: checked, no effect;
 * turning the feature on is refused (module-config:, dnscrypt-enable:) */
#define NOTBUILT(n, c, t, d) { n, c, t, NOF, NULL, 1, CFGF_NOTBUILT, d, \
	0, 0 }

/* a number of slabs: a power of 2 */
#define SLABS(n, c) { n, c, CT_INT, NOF, NULL, 0, CFGF_POW2, "4", 0, 0 }

#define CACHE_4M "4194304"

const struct cfg_option cfg_options[] = {
	CLAUSE("server", CL_SERVER),
	CLAUSE("remote-control", CL_REMOTE),
	CLAUSE("stub-zone", CL_STUB),
	CLAUSE("forward-zone", CL_FORWARD),
	CLAUSE("auth-zone", CL_AUTH),
	CLAUSE("view", CL_VIEW),
	CLAUSE("python", CL_PYTHON),
	CLAUSE("dynlib", CL_DYNLIB),
	CLAUSE("dnscrypt", CL_DNSCRYPT),
	CLAUSE("cachedb", CL_CACHEDB),
	CLAUSE("dnstap", CL_DNSTAP),
	CLAUSE("rpz", CL_RPZ),
	CLAUSE("ipset", CL_IPSET),
	{ "include", CL_NONE, CT_INCLUDE, NOF, NULL, 1, 0, NULL, 0, 0 },
	{ "include-toplevel", CL_NONE, CT_INCLUDE_TOP, NOF, NULL, 1, 0, NULL,
		0, 0 },

	/* server: implemented */
	IMPLR("verbosity", CT_INT, verbosity, "1", 0, INT_MAX),
	IMPLR("num-threads", CT_INT, num_threads, "1", 1, 10000),
	IMPLR("port", CT_INT, port, "53", 1, 65535),
	{ "interface", CL_SERVER, CT_STRLIST, F(ifs), h_interface, 1, 0, NULL,
		0, 0 },
	{ "ip-address", CL_SERVER, CT_STRLIST, F(ifs), h_interface, 1, 0,
		NULL, 0, 0 },
	IMPL("do-ip4", CT_YESNO, do_ip4, "yes"),
	IMPL("do-ip6", CT_YESNO, do_ip6, "yes"),
	IMPL("do-udp", CT_YESNO, do_udp, "yes"),
	IMPL("do-tcp", CT_YESNO, do_tcp, "yes"),
	IMPL("so-rcvbuf", CT_MEMSIZE, so_rcvbuf, "0"),
	IMPL("so-sndbuf", CT_MEMSIZE, so_sndbuf, "0"),
	IMPL("so-reuseport", CT_YESNO, so_reuseport, "yes"),
	IMPL("ip-freebind", CT_YESNO, ip_freebind, "no"),
	IMPL("interface-automatic", CT_YESNO, if_automatic, "no"),
	IMPL("interface-automatic-ports", CT_STR, if_automatic_ports, ""),
	IMPL("ip-transparent", CT_YESNO, ip_transparent, "no"),
	IMPLR("edns-buffer-size", CT_NUMSIZE, edns_buffer_size, "1232", 512,
		65535),
	IMPL("max-udp-size", CT_NUMSIZE, max_udp_size, "4096"),
	/* daemon/query.c: the largest TCP answer (doc/compat.md) */
	{ "msg-buffer-size", CL_SERVER, CT_NUMSIZE, F(msg_buffer_size), NULL,
		1, 0, "65552", 4096, INT_MAX },
	IMPLR("incoming-num-tcp", CT_INT, incoming_num_tcp, "10", 0,
		INT_MAX),
	IMPLR("tcp-reuse-timeout", CT_INT, tcp_reuse_timeout, "60000", 0,
		INT_MAX),
	/* compat: unbound-1.17: 0 is accepted (as Unbound): the outside
	 * network uses 1 */
	IMPLR("max-reuse-tcp-queries", CT_INT, max_reuse_tcp_queries, "200",
		0, INT_MAX),
	IMPLR("tcp-auth-query-timeout", CT_INT, tcp_auth_query_timeout,
		"3000", 0, INT_MAX),
	IMPLR("tcp-idle-timeout", CT_INT, tcp_idle_timeout, "30000", 0,
		INT_MAX),
	IMPL("do-daemonize", CT_YESNO, do_daemonize, "yes"),
	IMPL("pidfile", CT_STR, pidfile, PIDFILE),
	IMPL("logfile", CT_STR, logfile, NULL),
	IMPL("use-syslog", CT_YESNO, use_syslog, "yes"),
	IMPL("log-identity", CT_STR, log_identity, NULL),
	IMPL("log-time-ascii", CT_YESNO, log_time_ascii, "no"),
	IMPL("log-queries", CT_YESNO, log_queries, "no"),
	IMPL("log-replies", CT_YESNO, log_replies, "no"),
	IMPL("username", CT_STR, username, UB_USERNAME),
	IMPL("chroot", CT_STR, chrootdir, ""),
	IMPL("directory", CT_STR, directory, RUN_DIR),
	IMPL("access-control", CT_STR2LIST, acls, NULL),
	{ "local-zone", CL_SERVER, CT_STR2LIST, F(local_zones), h_local_zone,
		1, 0, NULL, 0, 0 },
	IMPL("local-data", CT_STRLIST, local_data, NULL),
	IMPL("local-data-ptr", CT_STRLIST, local_data_ptr, NULL),
	IMPL("unblock-lan-zones", CT_YESNO, unblock_lan_zones, "no"),
	IMPL("hide-identity", CT_YESNO, hide_identity, "no"),
	IMPL("hide-version", CT_YESNO, hide_version, "no"),
	IMPL("identity", CT_STR, identity, NULL),
	IMPL("version", CT_STR, version, NULL),

	/* server: kept in struct config_file for later work */
	{ "statistics-interval", CL_SERVER, CT_INT, F(stat_interval), NULL, 1,
		CFGF_EMPTY0, "0", 0, 0 },
	USE("statistics-cumulative", CL_SERVER, CT_YESNO, F(stat_cumulative),
		"no"),
	USE("extended-statistics", CL_SERVER, CT_YESNO, F(stat_extended),
		"no"),
	/* compat: unbound-1.17: the statistics in System V shared memory
	 * (daemon/stats_shm.h) */
	IMPL("shm-enable", CT_YESNO, shm_enable, "no"),
	IMPL("shm-key", CT_INT, shm_key, "11777"),
	USE("outgoing-interface", CL_SERVER, CT_STRLIST, F(out_ifs), NULL),
	USE("outgoing-range", CL_SERVER, CT_INT, F(outgoing_num_ports),
		"4096"),
	USE("outgoing-num-tcp", CL_SERVER, CT_INT, F(outgoing_num_tcp), "10"),
	USE("prefer-ip4", CL_SERVER, CT_YESNO, F(prefer_ip4), "no"),
	USE("prefer-ip6", CL_SERVER, CT_YESNO, F(prefer_ip6), "no"),
	IMPLR("ip-dscp", CT_INT, ip_dscp, "0", 0, 63),
	IMPL("tcp-mss", CT_INT, tcp_mss, "0"),
	IMPL("outgoing-tcp-mss", CT_INT, outgoing_tcp_mss, "0"),
	/* services/localzone.c: every local-zone answer logged */
	USE("log-local-actions", CL_SERVER, CT_YESNO, F(log_local_actions),
		"no"),
	USE("log-servfail", CL_SERVER, CT_YESNO, F(log_servfail), "no"),
	/* services/listen_activated.c: systemd's socket activation */
	IMPL("use-systemd", CT_YESNO, use_systemd, "no"),
	/* daemon/acl_list.c: a listening address's access entry */
	USE("interface-action", CL_SERVER, CT_STR2LIST, F(interface_actions),
		NULL),
	/* services/localzone_build.c: the default LAN zones insecure */
	USE("insecure-lan-zones", CL_SERVER, CT_YESNO, F(insecure_lan_zones),
		"no"),
	/* services/chaos.c: trustanchor.unbound refused */
	USE("hide-trustanchor", CL_SERVER, CT_YESNO, F(hide_trustanchor),
		"no"),
	{ "nsid", CL_SERVER, CT_STR, F(nsid), NULL, 1, CFGF_NSID, NULL, 0, 0 },
	USE("root-hints", CL_SERVER, CT_STRLIST, F(root_hints), NULL),
	USE("do-not-query-localhost", CL_SERVER, CT_YESNO,
		F(do_not_query_localhost), "yes"),
	USE("do-not-query-address", CL_SERVER, CT_STRLIST,
		F(donotqueryaddrs), NULL),
	USE("qname-minimisation", CL_SERVER, CT_YESNO, F(qname_minimisation),
		"yes"),
	USE("qname-minimisation-strict", CL_SERVER, CT_YESNO,
		F(qname_minimisation_strict), "no"),
	USE("use-caps-for-id", CL_SERVER, CT_YESNO, F(use_caps_for_id), "no"),
	USE("harden-glue", CL_SERVER, CT_YESNO, F(harden_glue), "yes"),
	USE("harden-dnssec-stripped", CL_SERVER, CT_YESNO,
		F(harden_dnssec_stripped), "yes"),
	USE("harden-below-nxdomain", CL_SERVER, CT_YESNO,
		F(harden_below_nxdomain), "yes"),
	USE("harden-referral-path", CL_SERVER, CT_YESNO,
		F(harden_referral_path), "no"),
	USE("minimal-responses", CL_SERVER, CT_YESNO, F(minimal_responses),
		"yes"),
	USE("rrset-roundrobin", CL_SERVER, CT_YESNO, F(rrset_roundrobin),
		"yes"),
	USE("prefetch", CL_SERVER, CT_YESNO, F(prefetch), "no"),
	USE("tcp-upstream", CL_SERVER, CT_YESNO, F(tcp_upstream), "no"),
	USE("udp-connect", CL_SERVER, CT_YESNO, F(udp_connect), "yes"),
	USE("target-fetch-policy", CL_SERVER, CT_STR, F(target_fetch_policy),
		"3 2 1 0 0"),
	USE("private-address", CL_SERVER, CT_STRLIST, F(private_address),
		NULL),
	USE("private-domain", CL_SERVER, CT_STRLIST, F(private_domain), NULL),
	USE("msg-cache-size", CL_SERVER, CT_MEMSIZE, F(msg_cache_size),
		CACHE_4M),
	{ "msg-cache-slabs", CL_SERVER, CT_INT, F(msg_cache_slabs), NULL, 1,
		CFGF_POW2, "4", 0, 0 },
	USE("rrset-cache-size", CL_SERVER, CT_MEMSIZE, F(rrset_cache_size),
		CACHE_4M),
	{ "rrset-cache-slabs", CL_SERVER, CT_INT, F(rrset_cache_slabs), NULL,
		1, CFGF_POW2, "4", 0, 0 },
	USE("num-queries-per-thread", CL_SERVER, CT_INT,
		F(num_queries_per_thread), "1024"),
	USE("jostle-timeout", CL_SERVER, CT_INT, F(jostle_time), "200"),
	USE("cache-max-ttl", CL_SERVER, CT_INT, F(max_ttl), "86400"),
	USE("cache-min-ttl", CL_SERVER, CT_INT, F(min_ttl), "0"),
	USE("cache-max-negative-ttl", CL_SERVER, CT_INT, F(max_negative_ttl),
		"3600"),
	/* compat: unbound-1.19: raises the TTL of negative answers in the
	 * message cache (services/cache/msgcache_store.c) */
	USE("cache-min-negative-ttl", CL_SERVER, CT_INT, F(min_negative_ttl),
		"0"),
	USE("infra-host-ttl", CL_SERVER, CT_INT, F(infra_host_ttl), "900"),
	USE("infra-cache-numhosts", CL_SERVER, CT_INT,
		F(infra_cache_numhosts), "10000"),
	USE("infra-cache-min-rtt", CL_SERVER, CT_INT, F(infra_cache_min_rtt),
		"50"),
	USE("serve-expired", CL_SERVER, CT_YESNO, F(serve_expired), "no"),
	USE("serve-expired-ttl", CL_SERVER, CT_INT, F(serve_expired_ttl),
		"0"),
	USE("serve-expired-reply-ttl", CL_SERVER, CT_INT,
		F(serve_expired_reply_ttl), "30"),
	USE("serve-expired-client-timeout", CL_SERVER, CT_INT,
		F(serve_expired_client_timeout), "0"),
	USE("serve-expired-ttl-reset", CL_SERVER, CT_YESNO,
		F(serve_expired_ttl_reset), "no"),
	USE("serve-original-ttl", CL_SERVER, CT_YESNO,
		F(serve_original_ttl), "no"),
	USE("ede-serve-expired", CL_SERVER, CT_YESNO, F(ede_serve_expired),
		"no"),
	{ "module-config", CL_SERVER, CT_STR, F(module_conf), NULL, 1,
		CFGF_MODULES, "validator iterator", 0, 0 },

	/* server: not implemented, no field */
	IMPL("statistics-inhibit-zero", CT_YESNO, stat_inhibit_zero, "yes"),
	/* services/port_pool.c, both in file order in one list */
	{ "outgoing-port-permit", CL_SERVER, CT_STRLIST, F(outgoing_port_ranges),
		NULL, 1, CFGF_NAMED, NULL, 0, 0 },
	{ "outgoing-port-avoid", CL_SERVER, CT_STRLIST, F(outgoing_port_ranges),
		NULL, 1, CFGF_NAMED, NULL, 0, 0 },
	/* services/stream_conn.c: replies waiting for their TCP/TLS client */
	IMPL("stream-wait-size", CT_MEMSIZE, stream_wait_size, CACHE_4M),
	/* services/outside_network.c: timed out UDP sockets kept open */
	IMPL("delay-close", CT_INT, delay_close, "0"),
	/* services/cache/infra.c: the rto of a server not heard from */
	USE("unknown-server-time-limit", CL_SERVER, CT_INT,
		F(unknown_server_time_limit), "376"),
	/* daemon/worker.c: a UDP reply older than this is dropped */
	IMPLR("discard-timeout", CT_INT, discard_timeout, "1900", 0,
		INT_MAX),
	USE("wait-limit", CL_SERVER, CT_INT, F(wait_limit), "1000"),
	/* daemon/wait_limit.c */
	{ "wait-limit-netblock", CL_SERVER, CT_STR2LIST,
		F(wait_limit_netblocks), NULL, 1, CFGF_NUM2, NULL, 0, 0 },
	{ "infra-cache-slabs", CL_SERVER, CT_INT, F(infra_cache_slabs), NULL,
		1, CFGF_POW2, "4", 0, 0 },
	USE("infra-cache-max-rtt", CL_SERVER, CT_INT, F(infra_cache_max_rtt),
		"120000"),
	/* read into the infra settings, but no probing of down servers
	 * after their back-off yet (services/cache/infra.c) */
	USE("infra-keep-probing", CL_SERVER, CT_YESNO, F(infra_keep_probing),
		"no"),
	OBSOLETE("infra-lame-ttl"),
	OBSOLETE("infra-cache-lame-size"),
	USE("define-tag", CL_SERVER, CT_STRLIST, F(define_tags), NULL),
	IMPL("edns-tcp-keepalive", CT_YESNO, do_tcp_keepalive, "no"),
	IMPLR("edns-tcp-keepalive-timeout", CT_INT, tcp_keepalive_timeout,
		"120000", 0, INT_MAX),
	IMPL("udp-upstream-without-downstream", CT_YESNO,
		udp_upstream_without_downstream, "no"),
	USE("tls-upstream", CL_SERVER, CT_YESNO, F(tls_upstream), "no"),
	USE("ssl-upstream", CL_SERVER, CT_YESNO, F(tls_upstream), "no"),
	/* DNS over TLS to clients (services/tls_server.c) */
	IMPL("tls-service-key", CT_STR, tls_service_key, ""),
	IMPL("ssl-service-key", CT_STR, tls_service_key, ""),
	IMPL("tls-service-pem", CT_STR, tls_service_pem, ""),
	IMPL("ssl-service-pem", CT_STR, tls_service_pem, ""),
	IMPLR("tls-port", CT_INT, tls_port, "853", 1, 65535),
	IMPLR("ssl-port", CT_INT, tls_port, "853", 1, 65535),
	USE("tls-cert-bundle", CL_SERVER, CT_STR, F(tls_cert_bundle), ""),
	USE("ssl-cert-bundle", CL_SERVER, CT_STR, F(tls_cert_bundle), ""),
	USE("tls-win-cert", CL_SERVER, CT_YESNO, F(tls_win_cert), "no"),
	USE("tls-system-cert", CL_SERVER, CT_YESNO, F(tls_system_cert), "no"),
	IMPL("tls-additional-port", CT_STRLIST, tls_additional_ports, NULL),
	IMPL("additional-tls-port", CT_STRLIST, tls_additional_ports, NULL),
	IMPL("additional-ssl-port", CT_STRLIST, tls_additional_ports, NULL),
	/* compat: unbound-1.17: an alias Unbound's lexer knows */
	IMPL("tls-additional-ports", CT_STRLIST, tls_additional_ports, NULL),
	IMPL("tls-session-ticket-keys", CT_STRLIST, tls_session_ticket_keys,
		NULL),
	IMPL("tls-ciphers", CT_STR, tls_ciphers, ""),
	IMPL("tls-ciphersuites", CT_STR, tls_ciphersuites, ""),
	IMPL("pad-responses", CT_YESNO, pad_responses, "yes"),
	IMPLR("pad-responses-block-size", CT_INT, pad_responses_block_size,
		"468", 1, 65535),
	/* services/outnet_tcp.c: queries on TLS connections */
	IMPL("pad-queries", CT_YESNO, pad_queries, "yes"),
	IMPLR("pad-queries-block-size", CT_INT, pad_queries_block_size, "128",
		1, INT_MAX),
	USE("tls-use-sni", CL_SERVER, CT_YESNO, F(tls_use_sni), "yes"),
	IMPLR("https-port", CT_INT, https_port, "443", 1, 65535),
	IMPL("http-endpoint", CT_STR, http_endpoint, "/dns-query"),
	IMPLR("http-max-streams", CT_INT, http_max_streams, "100", 1,
		INT_MAX),
	IMPL("http-query-buffer-size", CT_MEMSIZE, http_query_buffer_size,
		CACHE_4M),
	IMPL("http-response-buffer-size", CT_MEMSIZE,
		http_response_buffer_size, CACHE_4M),
	IMPL("http-nodelay", CT_YESNO, http_nodelay, "yes"),
	IMPL("http-notls-downstream", CT_YESNO, http_notls_downstream, "no"),
	IMPL("proxy-protocol-port", CT_STRLIST, proxy_protocol_ports, NULL),
	{ "tcp-connection-limit", CL_SERVER, CT_STR2LIST,
		F(tcp_conn_limits), NULL, 1, CFGF_NUM2, NULL, 0, 0 },
	USE("access-control-tag", CL_SERVER, CT_STR2LIST, F(acl_tags), NULL),
	/* services/localzone.c: a client's tag overrides of local zones */
	USE("access-control-tag-action", CL_SERVER, CT_STR3,
		F(acl_tag_actions), NULL),
	USE("access-control-tag-data", CL_SERVER, CT_STR3, F(acl_tag_datas),
		NULL),
	USE("access-control-view", CL_SERVER, CT_STR2LIST, F(acl_view), NULL),
	USE("interface-tag", CL_SERVER, CT_STR2LIST, F(interface_tags), NULL),
	USE("interface-tag-action", CL_SERVER, CT_STR3,
		F(interface_tag_actions), NULL),
	USE("interface-tag-data", CL_SERVER, CT_STR3, F(interface_tag_datas),
		NULL),
	USE("interface-view", CL_SERVER, CT_STR2LIST, F(interface_views),
		NULL),
	IMPL("log-tag-queryreply", CT_YESNO, log_tag_queryreply, "no"),
	/* services/xfr_http.c: auth-zone url: downloads */
	IMPL("hide-http-user-agent", CT_YESNO, hide_http_user_agent, "no"),
	IMPL("http-user-agent", CT_STR, http_user_agent, ""),
	IMPL("harden-short-bufsize", CT_YESNO, harden_short_bufsize, "yes"),
	USE("harden-large-queries", CL_SERVER, CT_YESNO,
		F(harden_large_queries), "no"),
	IMPL("harden-algo-downgrade", CT_YESNO, harden_algo_downgrade, "no"),
	/* iterator/iter_caps.c */
	USE("caps-exempt", CL_SERVER, CT_STRLIST, F(caps_exempt), NULL),
	USE("caps-whitelist", CL_SERVER, CT_STRLIST, F(caps_exempt), NULL),
	IMPL("aggressive-nsec", CT_YESNO, aggressive_nsec, "yes"),
	/* services/outside_network.c, the flush in daemon/worker.c */
	IMPLR("unwanted-reply-threshold", CT_INT, unwanted_threshold, "0",
		0, INT_MAX),
	IMPL("prefetch-key", CT_YESNO, prefetch_key, "no"),
	IMPL("deny-any", CT_YESNO, deny_any, "no"),   /* iterator.c */
	IMPL("disable-dnssec-lame-check", CT_YESNO,
		disable_dnssec_lame_check, "no"),
	IMPL("trust-anchor-file", CT_STRLIST, trust_anchor_file_list, NULL),
	IMPL("auto-trust-anchor-file", CT_STRLIST,
		auto_trust_anchor_file_list, NULL),
	IMPL("trust-anchor", CT_STRLIST, trust_anchor_list, NULL),
	IMPL("trusted-keys-file", CT_STRLIST, trusted_keys_file_list, NULL),
	IMPL("trust-anchor-signaling", CT_YESNO, trust_anchor_signaling,
		"yes"),
	IMPL("root-key-sentinel", CT_YESNO, root_key_sentinel, "yes"),
	IMPL("domain-insecure", CT_STRLIST, domain_insecure, NULL),
	IMPL("val-override-date", CT_DATE, val_date_override, "0"),
	IMPLR("val-sig-skew-min", CT_INT, val_sig_skew_min, "3600", 0,
		INT_MAX),
	IMPLR("val-sig-skew-max", CT_INT, val_sig_skew_max, "86400", 0,
		INT_MAX),
	IMPLR("val-max-restart", CT_INT, val_max_restart, "5", 0, INT_MAX),
	IMPLR("val-bogus-ttl", CT_INT, bogus_ttl, "60", 0, INT_MAX),
	IMPL("val-clean-additional", CT_YESNO, val_clean_additional, "yes"),
	IMPLR("val-log-level", CT_INT, val_log_level, "0", 0, INT_MAX),
	IMPL("val-permissive-mode", CT_YESNO, val_permissive_mode, "no"),
	IMPL("ignore-cd-flag", CT_YESNO, ignore_cd, "no"),
	{ "val-nsec3-keysize-iterations", CL_SERVER, CT_STR,
		F(val_nsec3_key_iterations), NULL, 1, CFGF_NSEC3ITER,
		"1024 150 2048 150 4096 150", 0, 0 },
	IMPL("zonemd-permissive-mode", CT_YESNO, zonemd_permissive_mode, "no"),
	IMPLR("add-holddown", CT_INT, add_holddown, "2592000", 0, INT_MAX),
	IMPLR("del-holddown", CT_INT, del_holddown, "2592000", 0, INT_MAX),
	IMPLR("keep-missing", CT_INT, keep_missing, "31622400", 0, INT_MAX),
	IMPL("permit-small-holddown", CT_YESNO, permit_small_holddown, "no"),
	IMPL("key-cache-size", CT_MEMSIZE, key_cache_size, CACHE_4M),
	{ "key-cache-slabs", CL_SERVER, CT_INT, F(key_cache_slabs), NULL, 1,
		CFGF_POW2, "4", 0, 0 },
	IMPL("neg-cache-size", CT_MEMSIZE, neg_cache_size, "1048576"),
	USE("local-zone-tag", CL_SERVER, CT_STR2LIST, F(local_zone_tags),
		NULL),
	USE("local-zone-override", CL_SERVER, CT_STR3,
		F(local_zone_overrides), NULL),
	/* the respip module (respip/); a view's own rules below */
	{ "response-ip", CL_SERVER, CT_STR2LIST, F(respip_actions), NULL, 1,
		CFGF_RESPIPACT, NULL, 0, 0 },
	{ "response-ip-data", CL_SERVER, CT_STR2LIST, F(respip_data), NULL,
		1, 0, NULL, 0, 0 },
	{ "response-ip", CL_VIEW, CT_STR2LIST, FV(respip_actions), NULL, 1,
		CFGF_RESPIPACT, NULL, 0, 0 },
	{ "response-ip-data", CL_VIEW, CT_STR2LIST, FV(respip_data), NULL,
		1, 0, NULL, 0, 0 },
	USE("response-ip-tag", CL_SERVER, CT_STR2LIST, F(respip_tags), NULL),
	/* rate limits (services/cache/rate_zone.c, rate_ip.c) */
	IMPLR("ratelimit", CT_INT, ratelimit, "0", 0, INT_MAX),
	IMPL("ratelimit-size", CT_MEMSIZE, ratelimit_size, CACHE_4M),
	{ "ratelimit-slabs", CL_SERVER, CT_INT, F(ratelimit_slabs), NULL, 1,
		CFGF_POW2, "4", 0, 0 },
	IMPLR("ratelimit-factor", CT_INT, ratelimit_factor, "10", 0,
		INT_MAX),
	IMPL("ratelimit-backoff", CT_YESNO, ratelimit_backoff, "no"),
	{ "ratelimit-for-domain", CL_SERVER, CT_STR2LIST,
		F(ratelimit_for_domain), NULL, 1, CFGF_NUM2, NULL, 0, 0 },
	{ "ratelimit-below-domain", CL_SERVER, CT_STR2LIST,
		F(ratelimit_below_domain), NULL, 1, CFGF_NUM2, NULL, 0, 0 },
	IMPLR("ip-ratelimit", CT_INT, ip_ratelimit, "0", 0, INT_MAX),
	IMPL("ip-ratelimit-size", CT_MEMSIZE, ip_ratelimit_size, CACHE_4M),
	{ "ip-ratelimit-slabs", CL_SERVER, CT_INT, F(ip_ratelimit_slabs),
		NULL, 1, CFGF_POW2, "4", 0, 0 },
	IMPLR("ip-ratelimit-factor", CT_INT, ip_ratelimit_factor, "10", 0,
		INT_MAX),
	IMPL("ip-ratelimit-backoff", CT_YESNO, ip_ratelimit_backoff, "no"),
	/* with DNS cookies (Unbound 1.21) */
	/* daemon/query.c */
	IMPLR("ip-ratelimit-cookie", CT_INT, ip_ratelimit_cookie, "0", 0,
		INT_MAX),
	/* sends to one server address per query state (iterator) */
	IMPLR("outbound-msg-retry", CT_INT, outbound_msg_retry, "5", 1,
		INT_MAX),
	/* iterator/iterator.c: sends per query state and per client query */
	IMPLR("max-sent-count", CT_INT, max_sent_count, "32", 0, INT_MAX),
	/* compat: unbound-1.22: CNAME/DNAME restarts of one query (the
	 * iterator); Unbound 1.17's fixed limit was 11 too */
	IMPLR("max-query-restarts", CT_INT, max_query_restarts, "11", 0,
		INT_MAX),
	/* iterator/iter_scrub.c: NS sets kept only in referrals */
	IMPL("iter-scrub-promiscuous", CT_YESNO, iter_scrub_promiscuous,
		"yes"),
	USE("fast-server-permil", CL_SERVER, CT_INT, F(fast_server_permil),
		"0"),
	IMPLR("fast-server-num", CT_INT, fast_server_num, "3", 1, INT_MAX),
	/* compat: unbound-1.17: old names of fast-server-permil, and
	 * low-rtt, which Unbound ignores (any value) */
	USE("low-rtt-permil", CL_SERVER, CT_INT, F(fast_server_permil), "0"),
	USE("low-rtt-pct", CL_SERVER, CT_INT, F(fast_server_permil), "0"),
	OBSOLETE("low-rtt"),
	/* compat: unbound-1.17: test options: DSA (and SHA1) signatures
	 * taken as valid without checking (validator/val_sig.h) */
	IMPL("fake-dsa", CT_YESNO, fake_dsa, "no"),
	IMPL("fake-sha1", CT_YESNO, fake_sha1, "no"),
	{ "edns-client-string", CL_SERVER, CT_STR2LIST, F(edns_client_strings),
		h_edns_client_string, 1, 0, NULL, 0, 0 },
	IMPLR("edns-client-string-opcode", CT_INT, edns_client_string_opcode,
		"65001", 0, 65535),
	IMPL("ede", CT_YESNO, ede, "no"),
	/* the dns64 module (dns64/): the prefix checked here, so a bad
	 * one is an error naming FILE:LINE */
	{ "dns64-prefix", CL_SERVER, CT_STR, F(dns64_prefix), NULL, 1,
		CFGF_DNS64PREFIX, "64:ff9b::/96", 0, 0 },
	IMPL("dns64-synthall", CT_YESNO, dns64_synthall, "no"),
	{ "dns64-ignore-aaaa", CL_SERVER, CT_STRLIST, F(dns64_ignore_aaaa),
		NULL, 1, CFGF_DNAME, NULL, 0, 0 },
	IMPL("answer-cookie", CT_YESNO, do_answer_cookie, "no"),
	{ "cookie-secret", CL_SERVER, CT_STR, NOF, h_cookie_secret, 1, 0, NULL,
		0, 0 },
	IMPL("cookie-secret-file", CT_STR, cookie_secret_file, NULL),
	/* the subnetcache module (subnetcache/) */
	IMPL("send-client-subnet", CT_STRLIST, client_subnet, NULL),
	{ "client-subnet-zone", CL_SERVER, CT_STRLIST, F(client_subnet_zone),
		NULL, 1, CFGF_DNAME, NULL, 0, 0 },
	IMPL("client-subnet-always-forward", CT_YESNO,
		client_subnet_always_forward, "no"),
	IMPLR("max-client-subnet-ipv6", CT_INT, max_client_subnet_ipv6, "56",
		0, 128),
	IMPLR("max-client-subnet-ipv4", CT_INT, max_client_subnet_ipv4, "24",
		0, 32),
	IMPLR("min-client-subnet-ipv6", CT_INT, min_client_subnet_ipv6, "0",
		0, 128),
	IMPLR("min-client-subnet-ipv4", CT_INT, min_client_subnet_ipv4, "0",
		0, 32),
	/* compat: unbound-1.17: deprecated in Unbound (1.17 to 1.26), which
	 * takes any value and ignores it: the option code stays 8 */
	OBSOLETE("client-subnet-opcode"),
	IMPL("max-ecs-tree-size-ipv4", CT_INT, max_ecs_tree_size_ipv4, "100"),
	IMPL("max-ecs-tree-size-ipv6", CT_INT, max_ecs_tree_size_ipv6, "100"),
	NOTBUILT("ipsecmod-enabled", CL_SERVER, CT_YESNO, "yes"),
	NOTBUILT("ipsecmod-hook", CL_SERVER, CT_STR, NULL),
	NOTBUILT("ipsecmod-strict", CL_SERVER, CT_YESNO, "no"),
	NOTBUILT("ipsecmod-max-ttl", CL_SERVER, CT_INT, "3600"),
	NOTBUILT("ipsecmod-ignore-bogus", CL_SERVER, CT_YESNO, "no"),
	NOTBUILT("ipsecmod-allow", CL_SERVER, CT_STRLIST, NULL),
	NOTBUILT("ipsecmod-whitelist", CL_SERVER, CT_STRLIST, NULL),

	/* server: options of Unbound 1.18 to 1.26 (each row says where) */
	/* daemon/worker.c: wait-limit for queries with a valid cookie */
	IMPLR("wait-limit-cookie", CT_INT, wait_limit_cookie, "10000", 0,
		INT_MAX),
	{ "wait-limit-cookie-netblock", CL_SERVER, CT_STR2LIST,
		F(wait_limit_cookie_netblocks), NULL, 1, CFGF_NUM2, NULL, 0,
		0 },
	/* iterator (upstream), daemon/query.c (clients) */
	IMPL("disable-edns-do", CT_YESNO, disable_edns_do, "no"),
	/* iterator/iter_resp.c, services/mesh.c: RFC 9567 reports */
	IMPL("dns-error-reporting", CT_YESNO, dns_error_reporting, "no"),
	/* iterator: IPv4-only servers through a NAT64 prefix (1.19);
	 * compat: unbound-1.19: nat64-prefix unset is dns64-prefix */
	IMPL("do-nat64", CT_YESNO, do_nat64, "no"),
	{ "nat64-prefix", CL_SERVER, CT_STR, F(nat64_prefix), NULL, 1,
		CFGF_DNS64PREFIX, NULL, 0, 0 },
	/* compat: unbound-1.18: the scrub always keeps only the known types
	 * (iter_scrub.c), as yes; no is read and not followed */
	IMPL("harden-unknown-additional", CT_YESNO,
		harden_unknown_additional, "no"),
	/* iterator/iter_scrub.c */
	IMPL("harden-unverified-glue", CT_YESNO, harden_unverified_glue,
		"no"),
	/* iterator/iter_scrub.c: limits on what a reply may bring */
	IMPLR("iter-scrub-ns", CT_INT, iter_scrub_ns, "20", 0, INT_MAX),
	IMPLR("iter-scrub-cname", CT_INT, iter_scrub_cname, "11", 0, INT_MAX),
	IMPLR("iter-scrub-rrsig", CT_INT, iter_scrub_rrsig, "8", 0, INT_MAX),
	IMPLR("max-global-quota", CT_INT, max_global_quota, "200", 0,
		INT_MAX),
	IMPL("log-destaddr", CT_YESNO, log_destaddr, "no"),
	IMPL("log-thread-id", CT_YESNO, log_thread_id, "no"),
	IMPL("log-time-iso", CT_YESNO, log_time_iso, "no"),
	/* compat: unbound-1.22: DNS over QUIC needs libngtcp2; without
	 * it Unbound takes quic-port as a port like any other */
	NOTBUILT("quic-port", CL_SERVER, CT_INT, "853"),
	NOTBUILT("quic-size", CL_SERVER, CT_MEMSIZE, "8m"),
	/* daemon/worker.c: SO_TIMESTAMPNS on the UDP sockets */
	IMPLR("sock-queue-timeout", CT_INT, sock_queue_timeout, "0", 0,
		INT_MAX),
	/* services/tls_server.c, daemon/remote.c: the listening contexts */
	IMPL("tls-protocols", CT_STR, tls_protocols, "TLSv1.2 TLSv1.3"),

	OBSOLETE("dlv-anchor-file"),
	OBSOLETE("dlv-anchor"),

	/* remote-control: */
	USE("control-enable", CL_REMOTE, CT_YESNO, F(remote_control_enable),
		"no"),
	USE("control-interface", CL_REMOTE, CT_STRLIST, F(control_ifs), NULL),
	USE("control-port", CL_REMOTE, CT_INT, F(control_port), "8953"),
	USE("control-use-cert", CL_REMOTE, CT_YESNO, F(control_use_cert),
		"yes"),
	USE("server-key-file", CL_REMOTE, CT_STR, F(server_key_file),
		RUN_DIR "/unbound_server.key"),
	USE("server-cert-file", CL_REMOTE, CT_STR, F(server_cert_file),
		RUN_DIR "/unbound_server.pem"),
	USE("control-key-file", CL_REMOTE, CT_STR, F(control_key_file),
		RUN_DIR "/unbound_control.key"),
	USE("control-cert-file", CL_REMOTE, CT_STR, F(control_cert_file),
		RUN_DIR "/unbound_control.pem"),
	/* compat: unbound-1.17: not in Unbound: statistics for Prometheus over
	 * HTTP */
	USE("prometheus-enable", CL_REMOTE, CT_YESNO, F(prom_enable), "no"),
	{ "prometheus-interface", CL_REMOTE, CT_STR, F(prom_interface), NULL,
		1, CFGF_IFSPEC, "127.0.0.1", 0, 0 },
	{ "prometheus-port", CL_REMOTE, CT_INT, F(prom_port), NULL, 1, 0,
		"9167", 1, 65535 },

	/* stub-zone: and forward-zone: (struct config_stub) */
	USE("name", CL_STUB | CL_FORWARD, CT_STR, FS(name), NULL),
	USE("stub-host", CL_STUB, CT_STRLIST, FS(hosts), NULL),
	USE("stub-addr", CL_STUB, CT_STRLIST, FS(addrs), NULL),
	USE("stub-prime", CL_STUB, CT_YESNO, FS(isprime), "no"),
	USE("stub-first", CL_STUB, CT_YESNO, FS(isfirst), "no"),
	USE("stub-tls-upstream", CL_STUB, CT_YESNO, FS(ssl_upstream), "no"),
	USE("stub-ssl-upstream", CL_STUB, CT_YESNO, FS(ssl_upstream), "no"),
	USE("stub-tcp-upstream", CL_STUB, CT_YESNO, FS(tcp_upstream), "no"),
	USE("stub-no-cache", CL_STUB, CT_YESNO, FS(no_cache), "no"),
	USE("forward-host", CL_FORWARD, CT_STRLIST, FS(hosts), NULL),
	USE("forward-addr", CL_FORWARD, CT_STRLIST, FS(addrs), NULL),
	USE("forward-first", CL_FORWARD, CT_YESNO, FS(isfirst), "no"),
	USE("forward-tls-upstream", CL_FORWARD, CT_YESNO, FS(ssl_upstream),
		"no"),
	USE("forward-ssl-upstream", CL_FORWARD, CT_YESNO, FS(ssl_upstream),
		"no"),
	USE("forward-tcp-upstream", CL_FORWARD, CT_YESNO, FS(tcp_upstream),
		"no"),
	USE("forward-no-cache", CL_FORWARD, CT_YESNO, FS(no_cache), "no"),

	/* auth-zone: and rpz: (struct config_auth) */
	USE("name", CL_AUTH | CL_RPZ, CT_STR, FA(name), NULL),
	USE("primary", CL_AUTH | CL_RPZ, CT_STRLIST, FA(masters), NULL),
	USE("master", CL_AUTH | CL_RPZ, CT_STRLIST, FA(masters), NULL),
	USE("url", CL_AUTH | CL_RPZ, CT_STRLIST, FA(urls), NULL),
	USE("allow-notify", CL_AUTH | CL_RPZ, CT_STRLIST, FA(allow_notify),
		NULL),
	USE("zonefile", CL_AUTH | CL_RPZ, CT_STR, FA(zonefile), NULL),
	USE("fallback-enabled", CL_AUTH, CT_YESNO, FA(fallback_enabled),
		"no"),
	USE("for-downstream", CL_AUTH, CT_YESNO, FA(for_downstream), "yes"),
	USE("for-downstream", CL_RPZ, CT_YESNO, FA(for_downstream), "no"),
	USE("for-upstream", CL_AUTH, CT_YESNO, FA(for_upstream), "yes"),
	USE("zonemd-check", CL_AUTH, CT_YESNO, FA(zonemd_check), "no"),
	USE("max-transfer-size", CL_AUTH | CL_RPZ, CT_MEMSIZE,
		FA(max_transfer_size), "0"),
	USE("max-transfer-time", CL_AUTH | CL_RPZ, CT_INT,
		FA(max_transfer_time), "0"),
	USE("zonemd-reject-absence", CL_AUTH, CT_YESNO,
		FA(zonemd_reject_absence), "no"),
	USE("rpz-action-override", CL_RPZ, CT_STR, FA(rpz_action_override),
		NULL),
	USE("rpz-cname-override", CL_RPZ, CT_STR, FA(rpz_cname_override),
		NULL),
	USE("rpz-log", CL_RPZ, CT_YESNO, FA(rpz_log), "no"),
	USE("rpz-log-name", CL_RPZ, CT_STR, FA(rpz_log_name), NULL),
	USE("rpz-signal-nxdomain-ra", CL_RPZ, CT_YESNO,
		FA(rpz_signal_nxdomain_ra), "no"),
	USE("tags", CL_RPZ, CT_STR, FA(rpz_tags), NULL),

	/* view: (struct config_view) */
	USE("name", CL_VIEW, CT_STR, FV(name), NULL),
	USE("local-zone", CL_VIEW, CT_STR2LIST, FV(local_zones), NULL),
	USE("local-data", CL_VIEW, CT_STRLIST, FV(local_data), NULL),
	USE("local-data-ptr", CL_VIEW, CT_STRLIST, FV(local_data_ptr), NULL),
	USE("view-first", CL_VIEW, CT_YESNO, FV(view_first), "no"),

	/* python:, dynlib: */
	NOTBUILT("python-script", CL_PYTHON, CT_STRLIST, NULL),
	NOTBUILT("dynlib-file", CL_DYNLIB, CT_STRLIST, NULL),

	/* dnscrypt: */
	/* compat: unbound-1.17: yes is refused at start (config_check) */
	USE("dnscrypt-enable", CL_DNSCRYPT, CT_YESNO, F(dnscrypt_enable),
		"no"),
	NOTBUILT("dnscrypt-port", CL_DNSCRYPT, CT_INT, "0"),
	NOTBUILT("dnscrypt-provider", CL_DNSCRYPT, CT_STR, NULL),
	NOTBUILT("dnscrypt-secret-key", CL_DNSCRYPT, CT_STRLIST, NULL),
	NOTBUILT("dnscrypt-provider-cert", CL_DNSCRYPT, CT_STRLIST, NULL),
	NOTBUILT("dnscrypt-provider-cert-rotated", CL_DNSCRYPT, CT_STRLIST, NULL),
	NOTBUILT("dnscrypt-shared-secret-cache-size", CL_DNSCRYPT, CT_MEMSIZE,
		CACHE_4M),
	{ "dnscrypt-shared-secret-cache-slabs", CL_DNSCRYPT, CT_INT, NOF,
		NULL, 1, CFGF_POW2 | CFGF_NOTBUILT, "4", 0, 0 },
	NOTBUILT("dnscrypt-nonce-cache-size", CL_DNSCRYPT, CT_MEMSIZE, CACHE_4M),
	{ "dnscrypt-nonce-cache-slabs", CL_DNSCRYPT, CT_INT, NOF, NULL, 1,
		CFGF_POW2 | CFGF_NOTBUILT, "4", 0, 0 },

	/* cachedb: */
	USE("backend", CL_CACHEDB, CT_STR, F(cachedb_backend), "testframe"),
	USE("secret-seed", CL_CACHEDB, CT_STR, F(cachedb_secret), "default"),
	USE("redis-server-host", CL_CACHEDB, CT_STR, F(redis_server_host),
		"127.0.0.1"),
	{ "redis-server-port", CL_CACHEDB, CT_INT, F(redis_server_port), NULL,
		1, 0, "6379", 0, 65535 },
	{ "redis-timeout", CL_CACHEDB, CT_INT, F(redis_timeout), NULL, 1, 0,
		"100", 0, INT_MAX },
	USE("redis-expire-records", CL_CACHEDB, CT_YESNO,
		F(redis_expire_records), "no"),
	USE("redis-server-path", CL_CACHEDB, CT_STR, F(redis_server_path), ""),
	USE("redis-server-password", CL_CACHEDB, CT_STR,
		F(redis_server_password), ""),
	{ "redis-logical-db", CL_CACHEDB, CT_INT, F(redis_logical_db), NULL,
		1, 0, "0", 0, INT_MAX },
	{ "redis-command-timeout", CL_CACHEDB, CT_INT,
		F(redis_command_timeout), NULL, 1, 0, "0", 0, INT_MAX },
	{ "redis-connect-timeout", CL_CACHEDB, CT_INT,
		F(redis_connect_timeout), NULL, 1, 0, "0", 0, INT_MAX },
	USE("redis-replica-server-host", CL_CACHEDB, CT_STR,
		F(redis_replica_server_host), ""),
	{ "redis-replica-server-port", CL_CACHEDB, CT_INT,
		F(redis_replica_server_port), NULL, 1, 0, "6379", 0, 65535 },
	USE("redis-replica-server-path", CL_CACHEDB, CT_STR,
		F(redis_replica_server_path), ""),
	USE("redis-replica-server-password", CL_CACHEDB, CT_STR,
		F(redis_replica_server_password), ""),
	{ "redis-replica-timeout", CL_CACHEDB, CT_INT,
		F(redis_replica_timeout), NULL, 1, 0, "100", 0, INT_MAX },
	{ "redis-replica-command-timeout", CL_CACHEDB, CT_INT,
		F(redis_replica_command_timeout), NULL, 1, 0, "0", 0, INT_MAX },
	{ "redis-replica-connect-timeout", CL_CACHEDB, CT_INT,
		F(redis_replica_connect_timeout), NULL, 1, 0, "0", 0, INT_MAX },
	{ "redis-replica-logical-db", CL_CACHEDB, CT_INT,
		F(redis_replica_logical_db), NULL, 1, 0, "0", 0, INT_MAX },
	USE("cachedb-no-store", CL_CACHEDB, CT_YESNO, F(cachedb_no_store),
		"no"),
	USE("cachedb-check-when-serve-expired", CL_CACHEDB, CT_YESNO,
		F(cachedb_check_when_serve_expired), "yes"),

	/* dnstap: (dnstap/dnstap.c; the collector connection, TCP, TLS and
	 * bidirectional or not: dnstap/dnstap_out.c) */
	USE("dnstap-enable", CL_DNSTAP, CT_YESNO, F(dnstap_enable), "no"),
	{ "dnstap-sample-rate", CL_DNSTAP, CT_INT, F(dnstap_sample_rate), NULL,
		1, 0, "0", 0, INT_MAX },
	USE("dnstap-bidirectional", CL_DNSTAP, CT_YESNO,
		F(dnstap_bidirectional), "yes"),
	USE("dnstap-socket-path", CL_DNSTAP, CT_STR, F(dnstap_socket_path),
		"/run/dnstap.sock"),
	USE("dnstap-ip", CL_DNSTAP, CT_STR, F(dnstap_ip), ""),
	USE("dnstap-tls", CL_DNSTAP, CT_YESNO, F(dnstap_tls), "yes"),
	USE("dnstap-tls-server-name", CL_DNSTAP, CT_STR,
		F(dnstap_tls_server_name), ""),
	USE("dnstap-tls-cert-bundle", CL_DNSTAP, CT_STR,
		F(dnstap_tls_cert_bundle), ""),
	USE("dnstap-tls-client-key-file", CL_DNSTAP, CT_STR,
		F(dnstap_tls_client_key_file), ""),
	USE("dnstap-tls-client-cert-file", CL_DNSTAP, CT_STR,
		F(dnstap_tls_client_cert_file), ""),
	USE("dnstap-send-identity", CL_DNSTAP, CT_YESNO,
		F(dnstap_send_identity), "no"),
	USE("dnstap-send-version", CL_DNSTAP, CT_YESNO,
		F(dnstap_send_version), "no"),
	USE("dnstap-identity", CL_DNSTAP, CT_STR, F(dnstap_identity), ""),
	USE("dnstap-version", CL_DNSTAP, CT_STR, F(dnstap_version), ""),
	USE("dnstap-log-resolver-query-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_resolver_query_messages), "no"),
	USE("dnstap-log-resolver-response-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_resolver_response_messages), "no"),
	USE("dnstap-log-client-query-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_client_query_messages), "no"),
	USE("dnstap-log-client-response-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_client_response_messages), "no"),
	USE("dnstap-log-forwarder-query-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_forwarder_query_messages), "no"),
	USE("dnstap-log-forwarder-response-messages", CL_DNSTAP, CT_YESNO,
		F(dnstap_log_forwarder_response_messages), "no"),

	/* ipset: */
	NOTBUILT("name-v4", CL_IPSET, CT_STR, NULL),
	NOTBUILT("name-v6", CL_IPSET, CT_STR, NULL),
};

const size_t cfg_options_num = sizeof(cfg_options) / sizeof(cfg_options[0]);

static const struct { unsigned bit; const char* name; } clause_names[] = {
	{ CL_SERVER, "server" }, { CL_REMOTE, "remote-control" },
	{ CL_STUB, "stub-zone" }, { CL_FORWARD, "forward-zone" },
	{ CL_AUTH, "auth-zone" }, { CL_VIEW, "view" },
	{ CL_PYTHON, "python" }, { CL_DYNLIB, "dynlib" },
	{ CL_DNSCRYPT, "dnscrypt" }, { CL_CACHEDB, "cachedb" },
	{ CL_DNSTAP, "dnstap" }, { CL_RPZ, "rpz" }, { CL_IPSET, "ipset" }
};

const char* cfg_clause_name(unsigned clause)
{
	size_t i;
	for(i = 0; i < sizeof(clause_names) / sizeof(clause_names[0]); i++)
		if(clause_names[i].bit == clause)
			return clause_names[i].name;
	return "(none)";
}

static int is_anywhere(const struct cfg_option* o)
{
	return o->type == CT_CLAUSE || o->type == CT_INCLUDE ||
		o->type == CT_INCLUDE_TOP;
}

const struct cfg_option* cfg_option_find(const char* name, unsigned clause)
{
	size_t i;
	const struct cfg_option* any = NULL;
	for(i = 0; i < cfg_options_num; i++) {
		const struct cfg_option* o = &cfg_options[i];
		if(o->name[0] != name[0] || strcmp(o->name, name) != 0)
			continue;
		if(is_anywhere(o) || (o->clauses & clause))
			return o;
		if(!any)
			any = o;
	}
	return clause == CL_NONE ? any : NULL;
}

int cfg_option_nargs(const struct cfg_option* o)
{
	switch(o->type) {
	case CT_CLAUSE: return 0;
	case CT_STR2LIST: return 2;
	case CT_STR3: return 3;
	default: return 1;
	}
}

int cfg_parse_yesno(const char* s)
{
	if(strcmp(s, "yes") == 0)
		return 1;
	if(strcmp(s, "no") == 0)
		return 0;
	return -1;
}

/* A whole-string decimal integer in int range. */
static int parse_int(const char* s, int* res)
{
	char* end;
	long v;
	if(!*s || isspace((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if(*end || errno || v < INT_MIN || v > INT_MAX)
		return 0;
	*res = (int)v;
	return 1;
}

/* Digits only, into a size_t without overflow. */
static int parse_digits(const char* s, size_t len, size_t* res)
{
	size_t v = 0, i;
	if(len == 0)
		return 0;
	for(i = 0; i < len; i++) {
		if(!isdigit((unsigned char)s[i]))
			return 0;
		if(v > (SIZE_MAX - 9) / 10)
			return 0;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*res = v;
	return 1;
}

int cfg_parse_memsize(const char* s, size_t* res)
{
	size_t len = strlen(s), mult = 1, v;
	while(len > 0 && s[len-1] == ' ')
		len--;
	if(len > 1 && (s[len-1] == 'b' || s[len-1] == 'B'))
		len--;
	if(len > 1) {
		switch(tolower((unsigned char)s[len-1])) {
		case 'g': mult = (size_t)1024*1024*1024; len--; break;
		case 'm': mult = (size_t)1024*1024; len--; break;
		case 'k': mult = 1024; len--; break;
		default: break;
		}
	}
	while(len > 1 && s[len-1] == ' ')
		len--;
	if(!parse_digits(s, len, &v) || (v && v > SIZE_MAX / mult))
		return 0;
	*res = v * mult;
	return 1;
}

/* compat: unbound-1.17: val-override-date: "" or "0" none, 14 digits
 * YYYYMMDDHHMMSS (UTC), else a number of seconds (-1: dates are not checked),
 * as Unbound. */
static int parse_date(const char* s, long long* res, const char** err)
{
	struct tm tm;
	char* end;
	size_t i, len = strlen(s);
	if(len == 0 || strcmp(s, "0") == 0) {
		*res = 0;
		return 1;
	}
	if(len == 14) {
		int v[6], w[6] = { 4, 2, 2, 2, 2, 2 }, k, pos = 0;
		for(i = 0; i < len; i++)
			if(!isdigit((unsigned char)s[i]))
				break;
		if(i == len) {
			for(k = 0; k < 6; k++) {
				v[k] = 0;
				for(i = 0; i < (size_t)w[k]; i++)
					v[k] = v[k] * 10 + (s[pos++] - '0');
			}
			memset(&tm, 0, sizeof(tm));
			tm.tm_year = v[0] - 1900;
			tm.tm_mon = v[1] - 1;
			tm.tm_mday = v[2];
			tm.tm_hour = v[3];
			tm.tm_min = v[4];
			tm.tm_sec = v[5];
			if(v[0] < 1970 || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
				v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60) {
				*err = "bad date/time specification";
				return 0;
			}
			*res = (long long)timegm(&tm);
			return 1;
		}
	}
	errno = 0;
	*res = strtoll(s, &end, 10);
	if(*end || errno || end == s || *res == 0) {
		*err = "number expected (seconds, or a date as "
			"YYYYMMDDHHMMSS)";
		return 0;
	}
	return 1;
}

/* compat: unbound-1.17: val-nsec3-keysize-iterations: pairs of numbers, key
 * sizes ascending (Unbound refuses the rest when the validator starts). */
static int nsec3iter_ok(const char* s, const char** err)
{
	long prev_size = -1;
	int n = 0;
	while(*s) {
		char* end;
		long v;
		while(isspace((unsigned char)*s))
			s++;
		if(!*s)
			break;
		errno = 0;
		v = strtol(s, &end, 10);
		if(end == s || errno || v < 0 || (*end &&
			!isspace((unsigned char)*end))) {
			*err = "expected pairs of numbers (key size, "
				"iterations)";
			return 0;
		}
		if(n % 2 == 0) {
			if(v <= prev_size) {
				*err = "key sizes are not ascending";
				return 0;
			}
			prev_size = v;
		}
		n++;
		s = end;
	}
	if(n == 0 || n % 2 != 0) {
		*err = "expected pairs of numbers (key size, iterations)";
		return 0;
	}
	return 1;
}

/* Check the values for the type of o and, when base is not NULL and o has
 * a field, store them. Returns 1 fine, 0 bad value (*err says why), -1
 * out of memory. */
static int store_value(struct cfg_parser* p, void* base,
	const struct cfg_option* o, char** args, const char** err)
{
	char* field = (base && o->off != NOF) ? (char*)base + o->off : NULL;
	int i;
	size_t sz;
	switch(o->type) {
	case CT_YESNO:
		if((i = cfg_parse_yesno(args[0])) < 0) {
			*err = "expected yes or no";
			return 0;
		}
		if(field)
			*(int*)field = i;
		return 1;
	case CT_INT:
		if((o->flags & CFGF_EMPTY0) && args[0][0] == 0)
			i = 0;
		else if(!parse_int(args[0], &i)) {
			*err = "expected a number";
			return 0;
		}
		if((o->flags & CFGF_POW2) && (i < 0 || (i & (i - 1)) != 0)) {
			*err = "must be a power of 2";
			return 0;
		}
		if(field)
			*(int*)field = i;
		return 1;
	case CT_NUMSIZE:
		if(!parse_digits(args[0], strlen(args[0]), &sz)) {
			*err = "expected a number";
			return 0;
		}
		if(field)
			*(size_t*)field = sz;
		return 1;
	case CT_MEMSIZE:
		if(!cfg_parse_memsize(args[0], &sz)) {
			*err = "expected a size (a number, optionally with "
				"k, m or g)";
			return 0;
		}
		if(field)
			*(size_t*)field = sz;
		return 1;
	case CT_DATE: {
		long long d;
		if(!parse_date(args[0], &d, err))
			return 0;
		if(field)
			*(long long*)field = d;
		return 1;
	}
	case CT_STR:
		if((o->flags & CFGF_NSEC3ITER) && !nsec3iter_ok(args[0], err))
			return 0;
		if(field) {
			char* s = strdup(args[0]);
			if(!s)
				return -1;
			free(*(char**)field);
			*(char**)field = s;
		}
		return 1;
	case CT_STRLIST:
		if(field && (o->flags & CFGF_NAMED)) {
			if(!cfg_parser_str2list_append(p,
				(struct config_str2list**)field, o->name,
				args[0]))
				return -1;
			return 1;
		}
		if(field && !cfg_parser_strlist_append(p,
			(struct config_strlist**)field, args[0]))
			return -1;
		return 1;
	case CT_STR2LIST:
		if((o->flags & CFGF_NUM2) && !parse_int(args[1], &i)) {
			*err = "expected a number as second value";
			return 0;
		}
		if(field && !cfg_parser_str2list_append(p,
			(struct config_str2list**)field, args[0], args[1]))
			return -1;
		return 1;
	case CT_STR3:
		if(field) {
			/* the second and third joined (config_file.h) */
			size_t l1 = strlen(args[1]), l2 = strlen(args[2]);
			char* j = malloc(l1 + l2 + 2);
			int ok;
			if(!j)
				return -1;
			memcpy(j, args[1], l1);
			j[l1] = ' ';
			memcpy(j + l1 + 1, args[2], l2 + 1);
			ok = cfg_parser_str2list_append(p,
				(struct config_str2list**)field, args[0], j);
			free(j);
			if(!ok)
				return -1;
		}
		return 1;
	default:
		return 1;
	}
}

/* Does the value equal the option's default (so setting it changes
 * nothing)? Lists never do. */
static int is_default(const struct cfg_option* o, char** args)
{
	int a, b;
	size_t x, y;
	if(o->type == CT_STR)
		return strcmp(args[0], o->def ? o->def : "") == 0;
	if(!o->def)
		return 0;
	switch(o->type) {
	case CT_YESNO:
		return cfg_parse_yesno(args[0]) == cfg_parse_yesno(o->def);
	case CT_INT:
		if((o->flags & CFGF_EMPTY0) && !args[0][0])
			a = 0;
		else if(!parse_int(args[0], &a))
			return 0;
		return parse_int(o->def, &b) && a == b;
	case CT_NUMSIZE:
	case CT_MEMSIZE:
		return cfg_parse_memsize(args[0], &x) &&
			cfg_parse_memsize(o->def, &y) && x == y;
	default:
		return 0;
	}
}

void cfg_error(struct cfg_parser* p, const char* format, ...)
{
	va_list args;
	fprintf(stderr, "%s:%d: error: ", p->fname ? p->fname : "(none)",
		p->line);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	p->errors++;
}

/* The struct the options of the current clause are stored in. */
static void* clause_base(struct cfg_parser* p)
{
	switch(p->clause) {
	case CL_SERVER:
	case CL_REMOTE:
	case CL_CACHEDB:
	case CL_DNSCRYPT:
	case CL_DNSTAP: return p->cfg;
	case CL_STUB:
	case CL_FORWARD: return p->stub;
	case CL_VIEW: return p->view;
	case CL_AUTH:
	case CL_RPZ: return p->auth;
	default: return NULL;
	}
}

/* Remember "clause:option" = value for an option that does nothing (in
 * cfg->notbuilt for one of a feature not built). */
static int record_unimplemented(struct cfg_parser* p,
	const struct cfg_option* o, char** args)
{
	char key[128], val[4096];
	int i, n = cfg_option_nargs(o);
	size_t len = 0;
	snprintf(key, sizeof(key), "%s:%s", cfg_clause_name(p->clause),
		o->name);
	val[0] = 0;
	for(i = 0; i < n; i++) {
		int w = snprintf(val + len, sizeof(val) - len, "%s%s",
			i ? " " : "", args[i]);
		if(w < 0 || (size_t)w >= sizeof(val) - len)
			break; /* kept truncated: it is only shown */
		len += (size_t)w;
	}
	return cfg_parser_str2list_append(p, (o->flags & CFGF_NOTBUILT) ?
		&p->cfg->notbuilt : &p->cfg->unimplemented, key, val);
}

/* Is the (valid) number in args[0] in the range of o? */
static int in_range(struct cfg_parser* p, const struct cfg_option* o,
	char** args)
{
	long long v;
	size_t sz;
	int i;
	if(o->min == 0 && o->max == 0)
		return 1;
	if(o->type == CT_INT && parse_int(args[0], &i))
		v = i;
	else if(o->type == CT_NUMSIZE && cfg_parse_memsize(args[0], &sz))
		v = sz > (size_t)LLONG_MAX ? LLONG_MAX : (long long)sz;
	else	return 1;
	if(v >= o->min && v <= o->max)
		return 1;
	if(o->max == INT_MAX)
		cfg_error(p, "%s: %s is too small, it must be %lld or more",
			o->name, args[0], o->min);
	else	cfg_error(p, "%s: %s is out of range %lld..%lld", o->name,
			args[0], o->min, o->max);
	return 0;
}

/* compat: unbound-1.17: what Unbound logs when it reads an obsolete
 * option (its parser's words, at the same verbosity); low-rtt: nothing */
static void obsolete_note(const struct cfg_option* o, const char* value)
{
	if(strcmp(o->name, "infra-lame-ttl") == 0)
		verbose(VERB_DETAIL, "ignored infra-lame-ttl: %s (option "
			"removed, use infra-host-ttl)", value);
	else if(strcmp(o->name, "infra-cache-lame-size") == 0)
		verbose(VERB_DETAIL, "ignored infra-cache-lame-size: %s "
			"(option removed, use infra-cache-numhosts)", value);
	else if(strncmp(o->name, "dlv-anchor", 10) == 0)
		log_warn("option %s ignored: DLV is decommissioned", o->name);
}

int cfg_option_apply(struct cfg_parser* p, const struct cfg_option* o,
	char** args)
{
	const char* err = "bad value";
	char ebuf[256];
	int r;
	if(o->flags & CFGF_OBSOLETE) {
		obsolete_note(o, args[0]);
		return 1;
	}
	/* check first, store only good values */
	r = store_value(p, NULL, o, args, &err);
	if(r == 1 && !in_range(p, o, args))
		return 0;
	if(r == 1 && (o->handler == h_interface || (o->flags & CFGF_IFSPEC)) &&
		!cfg_ifspec_ok(args[0], o->handler == h_interface, ebuf,
		sizeof(ebuf))) {
		cfg_error(p, "%s", ebuf);
		return 0;
	}
	if(r == 1 && (o->flags & CFGF_DNS64PREFIX)) {
		struct dns64_prefix pf;
		if(!dns64_prefix_parse(args[0], &pf, ebuf, sizeof(ebuf))) {
			/* the same check for nat64-prefix: its own name */
			char* w = strstr(ebuf, "dns64");
			if(w && strcmp(o->name, "nat64-prefix") == 0) {
				memcpy(w, "nat64", 5);
				w[5] = '-';
			}
			cfg_error(p, "%s", ebuf);
			return 0;
		}
	}
	if(r == 1 && (o->flags & CFGF_RESPIPACT) &&
		!respip_action_configurable(args[1])) {
		/* compat: unbound-1.17: its words */
		cfg_error(p, "response-ip action: expected deny, redirect, "
			"inform, inform_deny, always_transparent, "
			"always_refuse or always_nxdomain");
		return 0;
	}
	if(r == 1 && (o->flags & CFGF_DNAME)) {
		uint8_t wire[LDNS_MAX_DOMAINLEN + 1];
		if(dname_from_str(args[0], wire) == 0) {
			/* compat: unbound-1.17: its words (dns64-ignore-aaaa,
			 * at the module's start there) */
			cfg_error(p, "cannot parse %s: %s", o->name, args[0]);
			return 0;
		}
	}
	if(r == 1 && (o->flags & CFGF_NSID)) {
		uint8_t nsid[CFG_NSID_MAX];
		if(cfg_nsid_parse(args[0], nsid, sizeof(nsid)) < 0) {
			/* compat: unbound-1.17: its words */
			cfg_error(p, "the NSID must be either a hex string or "
				"an ascii character string prepended with "
				"ascii_.");
			return 0;
		}
	}
	if(r == 1 && (o->flags & CFGF_MODULES) && !modules_where(p))
		r = -1;
	if(r == 1 && o->handler == h_cookie_secret &&
		!cookie_secret_from_hex(args[0], strlen(args[0]),
		p->cfg->cookie_secret)) {
		/* compat: unbound-1.21: its words */
		cfg_error(p, "expected 128 bit hex string");
		return 0;
	}
	if(r == 1 && o->handler == h_edns_client_string &&
		!edns_client_string_ok(p, o, args))
		return 0;
	if(r == 1)
		r = store_value(p, o->handler ? NULL : clause_base(p), o, args,
			&err);
	if(r == 1 && o->handler)
		r = o->handler(p, o, args) ? 1 : -1;
	if(r == 0) {
		if(cfg_option_nargs(o) == 1)
			cfg_error(p, "%s for %s:, got '%s'", err, o->name,
				args[0]);
		else	cfg_error(p, "%s for %s:", err, o->name);
		return 0;
	}
	if(r > 0 && (!o->implemented || (o->flags & CFGF_NOTBUILT)) &&
		!is_default(o, args))
		r = record_unimplemented(p, o, args) ? 1 : -1;
	if(r < 0) {
		cfg_error(p, "out of memory");
		return 0;
	}
	return 1;
}

int cfg_option_defaults(void* base, unsigned clause)
{
	size_t i;
	for(i = 0; i < cfg_options_num; i++) {
		const struct cfg_option* o = &cfg_options[i];
		char* args[1];
		const char* err;
		if(!(o->clauses & clause) || is_anywhere(o) || o->off == NOF ||
			!o->def)
			continue;
		args[0] = (char*)o->def;
		if(store_value(NULL, base, o, args, &err) < 0)
			return 0;
	}
	return 1;
}

int cfg_nsid_parse(const char* s, uint8_t* out, size_t cap)
{
	size_t n = 0;
	if(strncasecmp(s, "ascii_", 6) == 0) {
		n = strlen(s + 6);
		if(n > cap)
			return -1;
		memcpy(out, s + 6, n);
		return (int)n;
	}
	if(strlen(s) % 2 != 0 || strlen(s) / 2 > cap)
		return -1;
	for(; s[0]; s += 2) {
		char hex[3] = { s[0], s[1], 0 };
		if(!isxdigit((unsigned char)s[0]) ||
			!isxdigit((unsigned char)s[1]))
			return -1;
		out[n++] = (uint8_t)strtoul(hex, NULL, 16);
	}
	return (int)n;
}

int cfg_ifspec_ok(const char* s, int names, char* err, size_t errlen)
{
	char buf[256];
	char* at;
	struct addrinfo hints, *res = NULL;
	if(strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "interface '%.64s...': too long", s);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	if((at = strchr(buf, '@'))) {
		char* end;
		long port;
		*at = 0;
		port = strtol(at + 1, &end, 10);
		if(!at[1] || *end || port < 1 || port > 65535) {
			snprintf(err, errlen, "interface '%s': bad port number "
				"after @", s);
			return 0;
		}
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST;
	hints.ai_family = AF_UNSPEC;
	if(buf[0] && getaddrinfo(buf, NULL, &hints, &res) == 0) {
		freeaddrinfo(res);
		return 1;
	}
	/* compat: unbound-1.17: interface: takes an interface name too
	 * (services/listen_dnsport.c binds its addresses) */
	if(buf[0] && names && if_nametoindex(buf) != 0)
		return 1;
	if(buf[0] && if_nametoindex(buf) != 0)
		snprintf(err, errlen, "interface '%s': interface names are "
			"not supported, give its IP address", s);
	else	snprintf(err, errlen, "cannot parse interface specified as "
			"'%s'", s);
	return 0;
}

/* module-config: where it was set, "FILE:LINE" (the stack's check is
 * not the parser's: services/modstack.h). */
static int modules_where(struct cfg_parser* p)
{
	char buf[1100];
	snprintf(buf, sizeof(buf), "%s:%d", p->fname ? p->fname : "(none)",
		p->line);
	free(p->cfg->module_conf_where);
	return (p->cfg->module_conf_where = strdup(buf)) != NULL;
}

static int h_interface(struct cfg_parser* p, const struct cfg_option* o,
	char** args)
{
	(void)o;
	if(!cfg_parser_strlist_append(p, &p->cfg->ifs, args[0]))
		return 0;
	p->cfg->num_ifs++;
	return 1;
}

/* cookie-secret: 128 bits in hex, parsed by the check before */
static int h_cookie_secret(struct cfg_parser* p,
	const struct cfg_option* o, char** args)
{
	(void)o;
	/* checked (and stored) before, in cfg_option_apply's checks */
	(void)args;
	p->cfg->cookie_secret_len = COOKIE_SECRET_SIZE;
	return 1;
}

/* edns-client-string: netblock string; checked while parsing so that a
 * bad one is refused by unbound-checkconf and at reload, not only at
 * start. 0: not good (said). */
static int edns_client_string_ok(struct cfg_parser* p,
	const struct cfg_option* o, char** args)
{
	struct sockaddr_storage a;
	socklen_t alen;
	int net;
	if(!netblockstrtoaddr(args[0], 0, &a, &alen, &net)) {
		cfg_error(p, "%s: cannot parse netblock %s", o->name, args[0]);
		return 0;
	}
	if(strlen(args[1]) > EDNS_STRING_MAX) {
		cfg_error(p, "%s: string of %zu bytes, at most %d are "
			"supported", o->name, strlen(args[1]), EDNS_STRING_MAX);
		return 0;
	}
	return 1;
}

static int h_edns_client_string(struct cfg_parser* p,
	const struct cfg_option* o, char** args)
{
	(void)o;
	return cfg_parser_str2list_append(p, &p->cfg->edns_client_strings,
		args[0], args[1]);
}

static int h_local_zone(struct cfg_parser* p, const struct cfg_option* o,
	char** args)
{
	(void)o;
	if(!cfg_parser_str2list_append(p, &p->cfg->local_zones, args[0],
		args[1]))
		return 0;
	if(strcmp(args[1], "nodefault") == 0 &&
		!cfg_parser_strlist_append(p, &p->cfg->local_zones_nodefault,
		args[0]))
		return 0;
	return 1;
}

