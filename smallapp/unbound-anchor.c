/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/unbound-anchor.c - compat: unbound-1.17: set up or update the root
 * trust anchor file, as Unbound's unbound-anchor: a missing or empty file gets
 * the built-in root anchors; a file whose keys sign the root DNSKEY set (asked
 * of the root servers, or -f/-C servers) is fine; otherwise, when the root
 * answered and the last successful RFC 5011 probe is older than 30 days (or
 * with -F), root-anchors.xml and its S/MIME signature are fetched over HTTPS,
 * checked against the ICANN certificate (-c) and written as DS records (RFC
 * 7958). Exit 1 when the file was written, 0 otherwise (also on errors: the
 * old file stays). */
#include "config.h"
#include "smallapp/anchor/anchor_file.h"
#include "smallapp/anchor/anchor_https.h"
#include "smallapp/anchor/anchor_probe.h"
#include "smallapp/anchor/anchor_smime.h"
#include "smallapp/anchor/anchor_xml.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/x509.h>

#define ROOT_ANCHOR_FILE "/usr/share/dns/root.key"
#define ROOT_CERT_FILE "/etc/unbound/icannbundle.pem"
#define URLNAME "data.iana.org"
#define XMLNAME "root-anchors/root-anchors.xml"
#define P7SNAME "root-anchors/root-anchors.p7s"
#define P7SIGNER "dnssec@iana.org"
#define HTTPS_PORT 443
/* RFC 5011 should have fixed a failure younger than this */
#define CERTUPDATE_LEEWAY (30 * 24 * 3600)

struct anchor_opts {
	const char* anchor_file, *cert_file, *url, *xml_path, *p7s_path;
	const char* signer;
	struct anchor_dns_opts dns;
	int resolv_fallback, force, port, sni;
};

static void usage(void)
{
	printf("Usage:\tunbound-anchor [opts]\n");
	printf("\tSetup or update root anchor. Most options have defaults.\n");
	printf("\tRun this program before you start the validator.\n\n");
	printf("\tThe anchor and cert have default builtin content\n");
	printf("\tif the file does not exist or is empty.\n\n");
	printf("-a file\t\troot key file, default %s\n", ROOT_ANCHOR_FILE);
	printf("\t\tThe key is input and output for this tool.\n");
	printf("-c file\t\tcert file, default %s\n", ROOT_CERT_FILE);
	printf("-l\t\tlist builtin key and cert on stdout\n");
	printf("-u name\t\tserver in https url, default %s\n", URLNAME);
	printf("-S\t\tdo not use SNI for the https connection\n");
	printf("-x path\t\tpathname to xml in url, default %s\n", XMLNAME);
	printf("-s path\t\tpathname to p7s in url, default %s\n", P7SNAME);
	printf("-n name\t\tsigner's subject emailAddress, default %s\n",
		P7SIGNER);
	printf("-b address\tsource address to bind to\n");
	printf("-4\t\twork using IPv4 only\n");
	printf("-6\t\twork using IPv6 only\n");
	printf("-f resolv.conf\tuse given resolv.conf\n");
	printf("-r root.hints\tuse given root.hints\n"
		"\t\tbuiltin root hints are used by default\n");
	printf("-R\t\tfallback from resolv.conf to root if it fails\n");
	printf("-v\t\tmore verbose\n");
	printf("-C conf\t\tdebug, read config\n");
	printf("-P port\t\tuse port for https connect, default 443\n");
	printf("-F \t\tdebug, force update with cert\n");
	printf("-h\t\tshow this usage help\n");
	printf("Version %s\n", PACKAGE_VERSION);
	printf("BSD licensed, see LICENSE in source package for details.\n");
	exit(1);
}

static int write_text(const char* file, const char* text)
{
	return anchor_file_write(file, text, strlen(text));
}

/* compat: unbound-1.17: The file of an unsigned root: RFC 5011's revoked trust
 * point, which Unbound reads as "no anchor". */
static int write_unsigned_root(const char* file)
{
	char buf[512];
	time_t now = time(NULL);
	snprintf(buf, sizeof(buf), "; autotrust trust anchor file\n"
		";;REVOKED\n;;id: . 1\n"
		"; This file was written by unbound-anchor on %s"
		"; It indicates that the root does not use DNSSEC\n"
		"; to restart DNSSEC overwrite this file with a\n"
		"; valid trustanchor or (empty-it and run unbound-anchor)\n",
		ctime(&now));
	return write_text(file, buf);
}

static int probe_date_allows_certupdate(const char* file)
{
	int pending = anchor_file_has_addpend(file);
	time_t last = anchor_file_last_success(file);
	time_t now = time(NULL);
	if(now < anchor_xml_date("2010-07-15T00:00:00Z")) {
		if(anchor_verb) printf("the date is before the root was "
			"first signed, please correct the clock\n");
		return 0;
	}
	if(last == 0 || pending)
		return 1;
	if(now < last) {
		if(anchor_verb) printf("the last successful probe is in the "
			"future, clock was modified\n");
		return 0;
	}
	if(now - last >= CERTUPDATE_LEEWAY) {
		if(anchor_verb) printf("the last successful probe was more "
			"than 30 days ago\n");
		return 1;
	}
	if(anchor_verb) printf("the last successful probe is recent\n");
	return 0;
}

/* Fetch, check and write; 1 when the file was written. */
static int do_certupdate(const struct anchor_opts* o, ldns_resolver* res)
{
	STACK_OF(X509)* trust = anchor_certs_read(o->cert_file);
	struct anchor_addr* addrs = NULL;
	char* xml = NULL, *p7s = NULL, *ds = NULL;
	size_t xlen = 0, plen = 0;
	int n = 0, nkeys = 0, written = 0;
	if(!trust) {
		fprintf(stderr, "error: out of memory\n");
		return 0;
	}
	addrs = anchor_resolve_name(res, o->url, o->port, o->dns.ip4only,
		o->dns.ip6only, &n);
	if(!addrs)
		goto done;
	if(!(xml = anchor_https_get(addrs, n, o->url, o->xml_path, o->sni,
		o->dns.source, &xlen)))
		goto done;
	if(!(p7s = anchor_https_get(addrs, n, o->url, o->p7s_path, o->sni,
		o->dns.source, &plen)))
		goto done;
	if(!anchor_p7_verify(xml, xlen, p7s, plen, trust, o->signer))
		goto done;
	if(!(ds = anchor_xml_to_ds(xml, xlen, time(NULL), &nkeys)))
		goto done;
	if(nkeys == 0)
		written = write_unsigned_root(o->anchor_file) == 0;
	else
		written = write_text(o->anchor_file, ds) == 0;
	if(written && anchor_verb)
		printf("success: the anchor has been updated using the cert\n");
done:
	if(!written)
		fprintf(stderr, "unbound-anchor: %s left unchanged\n",
			o->anchor_file);
	free(ds);
	free(xml);
	free(p7s);
	free(addrs);
	sk_X509_pop_free(trust, X509_free);
	return written;
}

static struct anchor_probe probe(const struct anchor_opts* o, int use_rc,
	ldns_resolver** res)
{
	struct anchor_probe p = { 0, LDNS_RCODE_SERVFAIL, 0 };
	ldns_rr_list* keys = anchor_file_keys(o->anchor_file, 0);
	*res = anchor_resolver(&o->dns, use_rc);
	if(*res)
		p = anchor_probe_root(*res, keys);
	ldns_rr_list_deep_free(keys);
	return p;
}

static int do_root_update_work(const struct anchor_opts* o)
{
	int used_builtin = 0, rcode, r;
	ldns_resolver* res = NULL;
	struct anchor_probe p;
	ldns_rr_list* keys;
	switch(anchor_file_state(o->anchor_file)) {
	case ANCHOR_REVOKED:
	case ANCHOR_UNREADABLE:
		return 0;
	case ANCHOR_ABSENT:
		if(write_text(o->anchor_file, anchor_builtin_ds()) != 0)
			return 0;
		used_builtin = 1;
		break;
	case ANCHOR_PRESENT:
		/* no DS or DNSKEY record at all (in any RFC 5011 state):
		 * nothing to start from, as if it were empty */
		if((keys = anchor_file_keys(o->anchor_file, 1)) == NULL) {
			if(anchor_verb) printf("%s has no usable DS or DNSKEY "
				"record\n", o->anchor_file);
			if(write_text(o->anchor_file, anchor_builtin_ds()) != 0)
				return 0;
			used_builtin = 1;
		}
		ldns_rr_list_deep_free(keys);
		break;
	}
	p = probe(o, 1, &res);
	rcode = p.rcode;
	if(o->resolv_fallback && o->dns.resolv_conf && !p.secure) {
		if(anchor_verb) printf("%s failed, retrying direct\n",
			o->dns.resolv_conf);
		ldns_resolver_deep_free(res);
		p = probe(o, 0, &res);
		if(p.rcode == LDNS_RCODE_NOERROR)
			rcode = LDNS_RCODE_NOERROR;
	}
	if(p.secure && !o->force) {
		if(anchor_verb) printf("success: the anchor is ok\n");
		r = used_builtin;
	} else if(o->force || (rcode == LDNS_RCODE_NOERROR &&
		probe_date_allows_certupdate(o->anchor_file))) {
		if(o->force && anchor_verb) printf("debug cert update forced\n");
		r = do_certupdate(o, res) ? 1 : used_builtin;
	} else {
		if(anchor_verb) printf("fail: the anchor is NOT ok and could "
			"not be fixed\n");
		r = used_builtin;
	}
	ldns_resolver_deep_free(res);
	return r;
}

int main(int argc, char* argv[])
{
	struct anchor_opts o;
	int c, list = 0;
	memset(&o, 0, sizeof(o));
	o.anchor_file = ROOT_ANCHOR_FILE;
	o.cert_file = ROOT_CERT_FILE;
	o.url = URLNAME;
	o.xml_path = XMLNAME;
	o.p7s_path = P7SNAME;
	o.signer = P7SIGNER;
	o.port = HTTPS_PORT;
	o.sni = 1;
	while((c = getopt(argc, argv, "46C:FRSP:a:b:c:f:hln:r:s:u:vx:")) != -1) {
		switch(c) {
		case 'l': list = 1; break;
		case '4': o.dns.ip4only = 1; break;
		case '6': o.dns.ip6only = 1; break;
		case 'a': o.anchor_file = optarg; break;
		case 'b': o.dns.source = optarg; break;
		case 'c': o.cert_file = optarg; break;
		case 'u': o.url = optarg; break;
		case 'S': o.sni = 0; break;
		case 'x': o.xml_path = optarg; break;
		case 's': o.p7s_path = optarg; break;
		case 'n': o.signer = optarg; break;
		case 'f': o.dns.resolv_conf = optarg; break;
		case 'r': o.dns.root_hints = optarg; break;
		case 'R': o.resolv_fallback = 1; break;
		case 'C': o.dns.conf = optarg; break;
		case 'F': o.force = 1; break;
		case 'P': {
			char* end;
			long v = strtol(optarg, &end, 10);
			if(*end || v <= 0 || v > 65535) {
				fprintf(stderr, "error: -P %s: not a port\n",
					optarg);
				usage();
			}
			o.port = (int)v;
			break;
		}
		case 'v': anchor_verb++; break;
		case '?':
		case 'h':
		default:
			usage();
		}
	}
	if(optind != argc)
		usage();
	if(list) {
		printf("%s\n%s\n", anchor_builtin_ds(), anchor_builtin_cert());
		return 0;
	}
	return do_root_update_work(&o);
}
