/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_file.h - compat: unbound-1.17: the parsed unbound.conf.
 *
 * One config_file is a complete snapshot: the daemon reads a new one on
 * SIGHUP and swaps it in whole. Every option name of unbound.conf(5) (as
 * of Unbound 1.17) is known to the option table in util/config_options.c;
 * options that are not implemented yet are accepted, type-checked, kept
 * in cfg->unimplemented (for `unbound-checkconf -o`) and listed once at
 * start-up by config_log_unimplemented(). Lists keep file order (the
 * first line of the file is the head of the list). */
#ifndef UTIL_CONFIG_FILE_H
#define UTIL_CONFIG_FILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct config_strlist {
	struct config_strlist* next;
	char* str;
};

struct config_str2list {
	struct config_str2list* next;
	char* str;
	char* str2;
};

/* a stub-zone: or forward-zone: clause */
struct config_stub {
	struct config_stub* next;
	char* name;
	struct config_strlist* hosts;   /* stub-host / forward-host */
	struct config_strlist* addrs;   /* stub-addr / forward-addr */
	int isprime;                    /* stub-prime */
	int isfirst;                    /* stub-first / forward-first */
	int tcp_upstream;
	int ssl_upstream;
	int no_cache;
};

/* a view: clause */
struct config_view {
	struct config_view* next;
	char* name;
	struct config_str2list* local_zones;
	struct config_strlist* local_data;
	struct config_strlist* local_data_ptr;
	/* the view's own response-ip: and response-ip-data: (respip/) */
	struct config_str2list* respip_actions;
	struct config_str2list* respip_data;
	int view_first;
};

/* an auth-zone: or rpz: clause */
struct config_auth {
	struct config_auth* next;
	char* name;
	struct config_strlist* masters;
	struct config_strlist* urls;
	struct config_strlist* allow_notify;
	char* zonefile;
	int for_downstream, for_upstream, fallback_enabled, isrpz;
	size_t max_transfer_size;   /* bytes, 0: no limit (unbound-1.26) */
	int max_transfer_time;      /* seconds, 0: no limit */
	int zonemd_check, zonemd_reject_absence;   /* RFC 8976 */
	/* rpz: only (respip/rpz.c) */
	char* rpz_action_override;
	char* rpz_cname_override;
	int rpz_log;
	char* rpz_log_name;
	int rpz_signal_nxdomain_ra;
	char* rpz_tags;            /* tags: (rpz), define-tag names */
};

struct config_file {
	/* where it was read from */
	char* filename;

	/* server: general */
	int verbosity;
	int num_threads;
	int port;
	struct config_strlist* ifs;      /* interface: (text, may have @port) */
	int num_ifs;
	struct config_strlist* out_ifs;  /* outgoing-interface: */
	int do_ip4, do_ip6, do_udp, do_tcp;
	int prefer_ip4, prefer_ip6;      /* the iterator's choice of server */
	int fast_server_permil;          /* fast-server-permil, 0: off */
	int fast_server_num;
	size_t so_rcvbuf;               /* 0: leave the OS default */
	size_t so_sndbuf;
	int so_reuseport;
	int ip_freebind;
	int ip_transparent;
	int ip_dscp;
	/* interface-automatic: wildcard UDP sockets with IP_PKTINFO, on the
	 * ports of interface-automatic-ports ("": port) */
	int if_automatic;
	char* if_automatic_ports;
	size_t edns_buffer_size;        /* default 1232 */
	/* compat: unbound-1.17: default 4096 (as Unbound 1.17) */
	size_t max_udp_size;
	size_t msg_buffer_size;         /* default 65552 */
	int incoming_num_tcp;           /* per thread, default 10 */
	int outgoing_num_tcp;           /* per thread, default 10 */
	int tcp_reuse_timeout;          /* msec an idle upstream TCP
	                                 * connection is kept, default 60000 */
	int max_reuse_tcp_queries;      /* per upstream connection, 200 */
	int tcp_auth_query_timeout;     /* msec, least TCP query timeout,
	                                 * default 3000 */
	int tcp_idle_timeout;           /* msec, default 30000 */
	int tcp_mss;                    /* TCP_MAXSEG of the listening TCP,
	                                 * TLS and HTTPS sockets; 0: the
	                                 * system's */
	int outgoing_tcp_mss;           /* TCP_MAXSEG of upstream TCP and TLS
	                                 * connections; 0: the system's */
	int delay_close;                /* msec a timed out upstream UDP
	                                 * socket stays open; 0: none */
	int udp_upstream_without_downstream;  /* do-udp: no still asks
	                                 * upstreams over UDP */
	size_t stream_wait_size;        /* bytes of TCP/TLS replies waiting
	                                 * for their client, all threads */

	/* server: DNS over HTTPS to clients (services/doh.c) */
	int https_port;                 /* default 443 */
	char* http_endpoint;            /* default /dns-query */
	int http_max_streams;           /* per connection, default 100 */
	size_t http_query_buffer_size;  /* all threads, default 4m */
	size_t http_response_buffer_size;
	int http_nodelay;               /* default yes */
	int http_notls_downstream;      /* default no */

	/* server: DNS over TLS to clients (services/tls_server.c) */
	char* tls_service_key;           /* "" or NULL: no TLS service */
	char* tls_service_pem;           /* certificate chain */
	int tls_port;                    /* default 853 */
	struct config_strlist* tls_additional_ports;
	struct config_strlist* proxy_protocol_ports;  /* PROXYv2 in front */
	struct config_strlist* tls_session_ticket_keys; /* 80-byte files */
	char* tls_ciphers;               /* TLS 1.2 cipher list, "" default */
	char* tls_ciphersuites;          /* TLS 1.3 suites, "" default */
	int pad_responses;               /* RFC 7830 padding to TLS clients */
	int pad_responses_block_size;    /* default 468 (RFC 8467) */
	char* tls_protocols;             /* "TLSv1.2 TLSv1.3": the versions
	                                  * served (and to unbound-control) */
	int do_tcp_keepalive;            /* RFC 7828 to TCP clients */
	int tcp_keepalive_timeout;       /* ms: their idle timeout then */

	/* server: daemon life cycle and logging */
	int do_daemonize;               /* default yes */
	char* pidfile;
	char* logfile;
	/* compat: unbound-1.17: default yes (as Unbound) */
	int use_syslog;
	char* log_identity;
	int log_time_ascii;
	int log_time_iso;       /* with log_time_ascii: ISO 8601 */
	int log_thread_id;      /* the Linux thread id in the prefix */
	int log_tag_queryreply; /* "query:"/"reply:" for "info:" */
	int log_destaddr;       /* log-replies: " on udp ADDR PORT" */
	int log_queries;
	int log_replies;
	int log_local_actions;
	int log_servfail;
	char* username;
	char* chrootdir;
	char* directory;
	int use_systemd;
	int dns_error_reporting;        /* RFC 9567 (util/error_report.h) */

	/* server: access control */
	struct config_str2list* acls;   /* access-control: netblock action */
	struct config_str2list* acl_view; /* access-control-view: block view */
	struct config_str2list* acl_tags; /* access-control-tag: block tags */
	/* the three-value options (CT_STR3) keep their first value in str
	 * and the other two, joined by one space, in str2: "netblock",
	 * "tag action"; "netblock", "tag RR-text"; "zone", "netblock type" */
	struct config_str2list* acl_tag_actions; /* access-control-tag-action */
	struct config_str2list* acl_tag_datas;   /* access-control-tag-data */
	struct config_str2list* local_zone_overrides; /* local-zone-override */
	/* tcp-connection-limit: netblock limit (services/conn_limit.h) */
	struct config_str2list* tcp_conn_limits;
	struct config_strlist* define_tags;    /* define-tag: "name ..." */
	struct config_str2list* local_zone_tags; /* local-zone-tag: zone tags */
	struct config_str2list* interface_actions; /* interface-action: */
	struct config_str2list* interface_views;   /* interface-view: */
	struct config_str2list* interface_tags;    /* interface-tag: */
	/* interface-tag-action, -tag-data: as acl_tag_actions, _datas */
	struct config_str2list* interface_tag_actions;
	struct config_str2list* interface_tag_datas;

	/* server: local zones */
	struct config_str2list* local_zones;   /* local-zone: name type */
	struct config_strlist* local_zones_nodefault; /* names with nodefault */
	struct config_strlist* local_data;      /* local-data: "RR text" */
	struct config_strlist* local_data_ptr;  /* local-data-ptr: "ip name" */
	int unblock_lan_zones;
	int insecure_lan_zones;

	/* server: DNSSEC validation (validator/) */
	struct config_strlist* trust_anchor_file_list;     /* zone files */
	struct config_strlist* auto_trust_anchor_file_list; /* RFC 5011 */
	struct config_strlist* trust_anchor_list;    /* "RR" lines */
	struct config_strlist* trusted_keys_file_list; /* BIND format */
	struct config_strlist* domain_insecure;   /* negative trust anchors */
	/* val-override-date: seconds since 1970 (given as YYYYMMDDHHMMSS or
	 * a number); 0: the clock, -1: signature dates are not checked */
	long long val_date_override;
	int val_sig_skew_min;            /* seconds, default 3600 */
	int val_sig_skew_max;            /* seconds, default 86400 */
	int val_max_restart;             /* default 5 */
	int bogus_ttl;                   /* val-bogus-ttl, default 60 */
	int val_clean_additional;        /* default yes */
	int val_permissive_mode;
	int ignore_cd;                   /* ignore-cd-flag */
	int val_log_level;
	char* val_nsec3_key_iterations;  /* "1024 150 2048 150 4096 150" */
	size_t key_cache_size;           /* default 4m */
	int key_cache_slabs;             /* default 4 */
	int aggressive_nsec;             /* RFC 8198, default yes */
	size_t neg_cache_size;           /* its bound, default 1m */
	int harden_algo_downgrade;
	int zonemd_permissive_mode;      /* ZONEMD failures only logged */
	int ede;                         /* RFC 8914 Extended DNS Errors */
	int fake_dsa, fake_sha1;         /* test options: val_crypto_faked */
	/* DNS cookies to clients (RFC 7873, RFC 9018; util/edns_cookie.h) */
	int do_answer_cookie;             /* answer-cookie, default no */
	uint8_t cookie_secret[16];        /* cookie-secret, else random */
	int cookie_secret_len;            /* 16 once set, 0 before */
	char* cookie_secret_file;         /* its secrets win when set */
	int trust_anchor_signaling;      /* RFC 8145 _ta-XXXX queries */
	int root_key_sentinel;           /* RFC 8509 sentinel labels */

	/* server: identity */
	int hide_identity;
	int hide_version;
	int hide_trustanchor;
	char* identity;   /* NULL: hostname */
	char* version;    /* NULL: package version */
	char* nsid;       /* RFC 5001: cfg_nsid_parse's text, NULL none */

	/* server: resolution (used from the iterator issue on) */
	struct config_strlist* root_hints;
	int outgoing_num_ports;          /* outgoing-range */
	int outbound_msg_retry;          /* sends per server address, 5 */
	int do_not_query_localhost;      /* default yes */
	struct config_strlist* donotqueryaddrs;
	int qname_minimisation;
	int qname_minimisation_strict;
	int use_caps_for_id;
	int harden_glue;
	int harden_dnssec_stripped;
	int harden_below_nxdomain;
	int harden_referral_path;
	int harden_large_queries;
	int harden_short_bufsize;
	int minimal_responses;
	int rrset_roundrobin;
	/* the dns64 module: the RFC 6052 prefix (checked by the parser),
	 * synthesise for every AAAA question, names whose AAAA records are
	 * ignored */
	char* dns64_prefix;
	int dns64_synthall;
	struct config_strlist* dns64_ignore_aaaa;
	/* NAT64 (iterator): IPv4 addresses of servers reached through the
	 * prefix (nat64-prefix; NULL: dns64-prefix) */
	int do_nat64;
	char* nat64_prefix;
	/* the subnetcache module (RFC 7871 ECS): the servers (netblocks)
	 * and zones that get the option, and its prefix limits */
	struct config_strlist* client_subnet;
	struct config_strlist* client_subnet_zone;
	int client_subnet_always_forward;
	/* edns-client-string: netblock string (iterator/iter_edns_strings.h) */
	struct config_str2list* edns_client_strings;
	int edns_client_string_opcode;   /* its option code */
	int max_client_subnet_ipv4, max_client_subnet_ipv6;
	int min_client_subnet_ipv4, min_client_subnet_ipv6;
	int max_ecs_tree_size_ipv4, max_ecs_tree_size_ipv6;
	/* the cachedb module (cachedb/, the cachedb: clause): the backend
	 * ("redis", "testframe"), the key's secret, the Redis servers (the
	 * replica takes the reads when set) and timeouts in ms */
	char* cachedb_backend;
	char* cachedb_secret;
	int cachedb_no_store;
	int cachedb_check_when_serve_expired;
	char* redis_server_host;
	int redis_server_port;
	char* redis_server_path;
	char* redis_server_password;
	int redis_timeout, redis_command_timeout, redis_connect_timeout;
	int redis_logical_db;
	int redis_expire_records;
	char* redis_replica_server_host;
	int redis_replica_server_port;
	char* redis_replica_server_path;
	char* redis_replica_server_password;
	int redis_replica_timeout, redis_replica_command_timeout;
	int redis_replica_connect_timeout;
	int redis_replica_logical_db;
	/* dnscrypt: dnscrypt-enable; yes is refused (not built here) */
	int dnscrypt_enable;
	/* dnstap (dnstap/dnstap.c, the dnstap: clause): where the frames
	 * go (a unix socket, or dnstap-ip over TCP), what is logged */
	int dnstap_enable;
	int dnstap_bidirectional;
	char* dnstap_socket_path;
	char* dnstap_ip;
	int dnstap_tls;
	char* dnstap_tls_server_name;
	char* dnstap_tls_cert_bundle;
	char* dnstap_tls_client_key_file;
	char* dnstap_tls_client_cert_file;
	int dnstap_send_identity, dnstap_send_version;
	char* dnstap_identity;
	char* dnstap_version;
	int dnstap_sample_rate;
	int dnstap_log_resolver_query_messages;
	int dnstap_log_resolver_response_messages;
	int dnstap_log_client_query_messages;
	int dnstap_log_client_response_messages;
	int dnstap_log_forwarder_query_messages;
	int dnstap_log_forwarder_response_messages;
	/* the respip module: response-ip: netblock action, and
	 * response-ip-data: netblock "RR" (server: clause) and
	 * response-ip-tag: netblock "tag ..." */
	struct config_str2list* respip_actions;
	struct config_str2list* respip_data;
	struct config_str2list* respip_tags;
	int prefetch;
	int prefetch_key;                /* DNSKEYs refetched before expiry */
	/* RFC 5011 (auto-trust-anchor-file), in seconds */
	int add_holddown, del_holddown, keep_missing;
	int permit_small_holddown;
	int tcp_upstream;
	int udp_connect;
	/* DNS over TLS to upstreams (services/tls_client.h) */
	int tls_upstream;               /* tls-upstream / ssl-upstream */
	char* tls_cert_bundle;          /* tls-cert-bundle (PEM), "" none */
	int tls_system_cert;            /* tls-system-cert */
	/* compat: unbound-1.17: tls-win-cert: as Unbound on Linux, the system
	 * store too */
	int tls_win_cert;
	int tls_use_sni;                /* tls-use-sni */
	int pad_queries;                /* RFC 8467 padding to TLS upstreams */
	int pad_queries_block_size;     /* default 128 */
	/* auth-zone url: downloads (services/xfr_http.c) */
	int hide_http_user_agent;       /* no User-Agent header */
	char* http_user_agent;          /* "": PACKAGE_NAME/PACKAGE_VERSION */
	char* target_fetch_policy;
	struct config_strlist* private_address;
	struct config_strlist* private_domain;
	size_t msg_cache_size;
	int msg_cache_slabs;
	size_t rrset_cache_size;
	int rrset_cache_slabs;
	int num_queries_per_thread;
	int wait_limit;              /* replies waiting per client address */
	int wait_limit_cookie;       /* the same with a valid cookie */
	/* wait-limit-netblock, wait-limit-cookie-netblock: netblock and
	 * limit (-1: none) lines (daemon/wait_limit.h) */
	struct config_str2list* wait_limit_netblocks;
	struct config_str2list* wait_limit_cookie_netblocks;
	int discard_timeout;         /* ms a UDP reply may wait, 0: off */
	int sock_queue_timeout;      /* s a UDP query may wait in the
	                              * socket buffer, 0: off */
	int unwanted_threshold;      /* unwanted-reply-threshold, 0: off */
	int deny_any;                /* deny-any */
	int harden_unknown_additional; /* read; always so (iter_scrub.c) */
	int harden_unverified_glue; /* glue only below the delegation */
	int disable_edns_do;         /* disable-edns-do, see edns_do_off */
	int disable_dnssec_lame_check; /* iterator/iter_dnsseclame.h */
	int jostle_time;
	int max_ttl, min_ttl, max_negative_ttl;
	int infra_host_ttl;
	int infra_cache_numhosts;
	int infra_cache_min_rtt;
	int infra_cache_slabs;           /* power of 2, default 4 */
	int infra_cache_max_rtt;         /* ms, the top timeout, 120000 */
	int infra_keep_probing;          /* probe servers that are down */
	int unknown_server_time_limit;   /* ms, rto of a new server, 376 */
	/* outgoing-port-permit and outgoing-port-avoid in file order (each
	 * marks on the set the earlier ones left): str is "permit" or
	 * "avoid", str2 the port or range as written */
	struct config_str2list* outgoing_port_ranges;
	struct config_strlist* caps_exempt; /* caps-exempt, caps-whitelist */
	int max_query_restarts;          /* CNAME/DNAME restarts, 11 */
	/* iterator work and scrub limits (iterator/iter_scrub.h) */
	int max_sent_count;      /* sends per query state, reset on restart
	                          * and referral, 32 */
	int max_global_quota;    /* sends per client query, all sub-queries,
	                          * 200 */
	int iter_scrub_ns;       /* NS records kept of one set, 20 */
	int iter_scrub_cname;    /* CNAME/DNAME hops kept of a reply, 11 */
	int iter_scrub_rrsig;    /* RRSIGs kept per RRset, 8 */
	int iter_scrub_promiscuous; /* NS sets only in referrals, yes */
	int min_negative_ttl;            /* cache-min-negative-ttl, 0: off */
	/* rate limits (services/cache/rate_zone.h, rate_ip.h) */
	int ratelimit;                   /* qps to one zone's servers, 0 off */
	size_t ratelimit_size;           /* bytes, default 4m */
	int ratelimit_slabs;
	int ratelimit_factor;            /* 1 in factor let through, 0 none */
	int ratelimit_backoff;
	struct config_str2list* ratelimit_for_domain;   /* name qps */
	struct config_str2list* ratelimit_below_domain; /* name qps */
	int ip_ratelimit;                /* qps per client address, 0 off */
	int ip_ratelimit_cookie;         /* the same with a valid cookie */
	size_t ip_ratelimit_size;
	int ip_ratelimit_slabs;
	int ip_ratelimit_factor;
	int ip_ratelimit_backoff;
	int serve_expired;
	int serve_expired_ttl;
	int serve_expired_reply_ttl;
	int serve_expired_client_timeout;
	int serve_expired_ttl_reset;     /* a failed refresh extends the
	                                  * serve-expired-ttl window */
	int serve_original_ttl;          /* TTLs as received, not aged */
	int ede_serve_expired;           /* EDE 3 on stale answers */
	char* module_conf;
	/* "FILE:LINE" of module-config: (NULL: the default), for the error
	 * of the stack's check (services/modstack.h): the parser keeps the
	 * text only */
	char* module_conf_where;

	/* server: statistics */
	int stat_interval;
	int stat_cumulative;
	int stat_extended;
	int stat_inhibit_zero;  /* extended stats: zero counters left out */
	int shm_enable;         /* the statistics in shared memory */
	int shm_key;            /* its segments: shm-key and shm-key + 1 */

	/* clauses */
	struct config_stub* stubs;
	struct config_stub* forwards;
	struct config_view* views;
	struct config_auth* auths;

	/* remote-control: */
	int remote_control_enable;
	struct config_strlist* control_ifs;
	int control_port;
	int control_use_cert;
	char* server_key_file;
	char* server_cert_file;
	char* control_key_file;
	char* control_cert_file;
	/* Prometheus metrics over HTTP (an extension, daemon/prometheus.h) */
	int prom_enable;
	char* prom_interface;    /* address[@port] */
	int prom_port;

	/* Options accepted but not implemented yet, set in the file to a
	 * value other than their default: str is "clause:option"
	 * ("server:prefetch-key"), str2 the value(s) as written. */
	struct config_str2list* unimplemented;
	/* the same for options of features not built (CFGF_NOTBUILT):
	 * kept for unbound-checkconf -o only, never logged */
	struct config_str2list* notbuilt;
};

/* compat: unbound-1.17: A config with Unbound's defaults. NULL when out of
 * memory. */
struct config_file* config_create(void);
/* compat: unbound-1.17: Read filename into cfg (include: and include-toplevel:
 * with globs are followed, relative names from the current directory or from a
 * directory: given earlier; chroot, when not NULL, is stripped from the front
 * of the file name and include names that start with it, as Unbound does when
 * it reloads inside its chroot). Every error is printed to stderr as
 * FILE:LINE: error: MESSAGE and reading goes on to report more; returns 1 when
 * there was no error, 0 otherwise (and then prints "read FILE failed: N errors
 * in configuration file"). */
int config_read(struct config_file* cfg, const char* filename,
	const char* chroot);
/* Read len bytes of config text (need not end in NUL), named name in
 * messages, into cfg, as config_read reads a file, except that include:
 * and include-toplevel: are not followed (each is an error): nothing
 * but text is read. For the config fuzz harness and tests. */
int config_read_text(struct config_file* cfg, const char* name,
	const char* text, size_t len);
/* A deep copy (util/config_copy.c); NULL when out of memory. */
struct config_file* config_copy(const struct config_file* cfg);
/* Free everything. NULL is fine. */
void config_delete(struct config_file* cfg);
/* Print the value of option opt (name without the colon, e.g.
 * "num-threads") as unbound-checkconf -o does: one value a line, lists
 * one item a line. Returns 1 if the option is known, 0 if not. */
int config_print_option(struct config_file* cfg, const char* opt, FILE* out);
/* Log, once, at verbosity >= 1, the options set in this config that are
 * accepted but not implemented yet (one line each). */
void config_log_unimplemented(struct config_file* cfg);
/* Semantic checks across options (interfaces parse as addresses,
 * num-threads >= 1, sizes in range, port in range, ...) as
 * unbound-checkconf does after parsing. Access control and local zones
 * are checked by building them (acl_list_create, local_zones_create).
 * Errors are printed to stderr; returns 1 when fine. */
int config_check(struct config_file* cfg);
/* What only the daemon refuses, at start and reload (unbound-checkconf
 * accepts it, as Unbound's): a feature this build does not have turned
 * on (dnscrypt-enable: yes). 1: good; 0: logged why. */
int config_check_start(const struct config_file* cfg);
/* The path of fname as seen from outside the chroot (for
 * unbound-checkconf -f -o pidfile): chrootdir is prepended unless fname
 * already starts with it, and directory too when fname is relative and
 * use_chdir is set. Malloced; NULL when out of memory. */
char* cfg_fname_after_chroot(const char* fname, struct config_file* cfg,
	int use_chdir);
/* tls-protocols: which of TLS 1.2 and 1.3 the words of s name (NULL
 * or "": neither). 0 when a word is something else. */
int cfg_tls_protocols_parse(const char* s, int* tls12, int* tls13);
/* Parse "yes"/"no" (1/0), -1 if neither. */
int cfg_parse_yesno(const char* s);
/* compat: unbound-1.17: Parse a size with optional k/m/g (case-insensitive,
 * binary multiples as Unbound: 1k = 1024). Returns 1 and sets *res on success.
 */
int cfg_parse_memsize(const char* s, size_t* res);

#endif
