/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_autotrust_file.c - compat: unbound-1.17: writing an
 * auto-trust-anchor-file in Unbound's format (the header lines ;;id:,
 * ;;last_queried: ... and a ;;state=N [ NAME ] ;;count=N ;;lastchange=T
 * comment per key), so Debian's Unbound reads what this daemon writes and the
 * other way round. The reader is val_ta_read_autofile (val_anchor_read.c). */
#include "config.h"
#include "validator/val_autotrust.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* compat: unbound-1.17: ctime's text with its newline, as Unbound prints after
 * ";;". */
static const char* when(time_t t, char* buf)
{
	if(!ctime_r(&t, buf))
		strcpy(buf, "\n");
	return buf;
}

/* ldns prints an owner name whose first label starts with '@' or '$'
 * as is, and reads such a word back as the origin or a directive ($TT...
 * is taken for an unknown directive), so the file's point would not load
 * again (both found by fuzz_autotrust): that first character is escaped. */
static const char* at_escape(const char* name)
{
	return name[0] == '@' || name[0] == '$' ? "\\" : "";
}

int val_autr_write_fp(FILE* out, const struct autr_point* p)
{
	char tm[64];
	char* nm;
	ldns_rdf* d;
	size_t i;
	if(fprintf(out, "; autotrust trust anchor file\n") < 0)
		return 0;
	if(p->revoked && fprintf(out, ";;REVOKED\n"
		"; The zone has all keys revoked, and is\n"
		"; considered as if it has no trust anchors.\n"
		"; the remainder of the file is the last probe.\n"
		"; to restart the trust anchor, overwrite this file.\n"
		"; with one containing valid DNSKEYs or DSes.\n") < 0)
		return 0;
	d = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, p->namelen, p->name);
	nm = d ? ldns_rdf2str(d) : NULL;
	ldns_rdf_deep_free(d);
	if(!nm) {
		errno = ENOMEM;
		return 0;
	}
	if(fprintf(out, ";;id: %s%s %d\n", at_escape(nm), nm,
		(int)p->dclass) < 0) {
		free(nm);
		return 0;
	}
	free(nm);
	if(fprintf(out, ";;last_queried: %u ;;%s", (unsigned)p->last_queried,
		when(p->last_queried, tm)) < 0 ||
		fprintf(out, ";;last_success: %u ;;%s",
		(unsigned)p->last_success, when(p->last_success, tm)) < 0 ||
		fprintf(out, ";;next_probe_time: %u ;;%s",
		(unsigned)p->next_probe_time, when(p->next_probe_time, tm)) < 0
		|| fprintf(out, ";;query_failed: %d\n", p->query_failed) < 0 ||
		fprintf(out, ";;query_interval: %d\n",
		(int)p->query_interval) < 0 ||
		fprintf(out, ";;retry_time: %d\n", (int)p->retry_time) < 0)
		return 0;
	for(i = 0; i < p->n; i++) {
		const struct autr_key* k = &p->keys[i];
		char* s;
		size_t len;
		int r;
		/* compat: unbound-1.17: as Unbound: START and REMOVED keys and
		 * DS are not kept */
		if(k->s == AUTR_STATE_START || k->s == AUTR_STATE_REMOVED ||
			ldns_rr_get_type(k->rr) != LDNS_RR_TYPE_DNSKEY)
			continue;
		if(!(s = ldns_rr2str(k->rr))) {
			errno = ENOMEM;
			return 0;
		}
		len = strlen(s);
		while(len > 0 && (s[len-1] == '\n' || s[len-1] == ' '))
			s[--len] = 0;
		r = fprintf(out, "%s%s ;;state=%d [%s] ;;count=%d "
			";;lastchange=%u ;;%s", at_escape(s), s, (int)k->s,
			val_autr_state_str(k->s), k->count,
			(unsigned)k->last_change, when(k->last_change, tm));
		free(s);
		if(r < 0)
			return 0;
	}
	return 1;
}

/* "<file>.<pid>-<what>" next to the file, so rename() stays in one
 * file system. */
static int temp_name(const struct autr_point* p, const char* what,
	char* buf, size_t len)
{
	int n = snprintf(buf, len, "%s.%d-%s", p->file, (int)getpid(), what);
	return n > 0 && (size_t)n < len;
}

int val_autr_write_file(const struct autr_point* p)
{
	char tmp[4200];
	FILE* out;
	int fd, ok;
	if(!temp_name(p, "autr", tmp, sizeof(tmp))) {
		log_err("auto-trust-anchor-file %s: name too long", p->file);
		return 0;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if(fd < 0 || !(out = fdopen(fd, "w"))) {
		log_err("auto-trust-anchor-file %s: cannot write %s: %s",
			p->file, tmp, strerror(errno));
		if(fd >= 0)
			close(fd);
		return 0;
	}
	ok = val_autr_write_fp(out, p) && fflush(out) == 0 &&
		fsync(fileno(out)) == 0;
	if(!ok)
		log_err("auto-trust-anchor-file %s: cannot write %s: %s",
			p->file, tmp, strerror(errno));
	if(fclose(out) != 0 && ok) {
		log_err("auto-trust-anchor-file %s: cannot write %s: %s",
			p->file, tmp, strerror(errno));
		ok = 0;
	}
	if(ok && rename(tmp, p->file) != 0) {
		log_err("auto-trust-anchor-file %s: cannot replace it with "
			"%s: %s", p->file, tmp, strerror(errno));
		ok = 0;
	}
	if(!ok)
		(void)unlink(tmp);
	else	verbose(VERB_ALGO, "autotrust: wrote %s", p->file);
	return ok;
}

int val_autr_check_writable(const struct autr_point* p)
{
	char tmp[4200];
	int fd;
	if(!temp_name(p, "check", tmp, sizeof(tmp))) {
		log_err("auto-trust-anchor-file %s: name too long", p->file);
		return 0;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if(fd < 0) {
		log_err("auto-trust-anchor-file %s: cannot write in its "
			"directory (%s: %s); RFC 5011 updates need a directory "
			"the daemon may write to after chroot: and username:",
			p->file, tmp, strerror(errno));
		return 0;
	}
	close(fd);
	(void)unlink(tmp);
	if(access(p->file, F_OK) == 0 && access(p->file, R_OK) != 0) {
		log_err("auto-trust-anchor-file %s: cannot read it: %s",
			p->file, strerror(errno));
		return 0;
	}
	return 1;
}
