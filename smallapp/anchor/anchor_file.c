/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_file.c - the root anchor file of unbound-anchor. */
#include "config.h"
#include "smallapp/anchor/anchor_file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int anchor_verb = 0;

const char* anchor_builtin_ds(void)
{
	return
". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D\n"
". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16\n";
}

/* ICANN Root CA, valid 2009-12-23 to 2029-12-18, as IANA publishes it
 * at https://data.iana.org/root-anchors/icannbundle.pem */
const char* anchor_builtin_cert(void)
{
	return
"-----BEGIN CERTIFICATE-----\n"
"MIIDdzCCAl+gAwIBAgIBATANBgkqhkiG9w0BAQsFADBdMQ4wDAYDVQQKEwVJQ0FO\n"
"TjEmMCQGA1UECxMdSUNBTk4gQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxFjAUBgNV\n"
"BAMTDUlDQU5OIFJvb3QgQ0ExCzAJBgNVBAYTAlVTMB4XDTA5MTIyMzA0MTkxMloX\n"
"DTI5MTIxODA0MTkxMlowXTEOMAwGA1UEChMFSUNBTk4xJjAkBgNVBAsTHUlDQU5O\n"
"IENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRYwFAYDVQQDEw1JQ0FOTiBSb290IENB\n"
"MQswCQYDVQQGEwJVUzCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAKDb\n"
"cLhPNNqc1NB+u+oVvOnJESofYS9qub0/PXagmgr37pNublVThIzyLPGCJ8gPms9S\n"
"G1TaKNIsMI7d+5IgMy3WyPEOECGIcfqEIktdR1YWfJufXcMReZwU4v/AdKzdOdfg\n"
"ONiwc6r70duEr1IiqPbVm5T05l1e6D+HkAvHGnf1LtOPGs4CHQdpIUcy2kauAEy2\n"
"paKcOcHASvbTHK7TbbvHGPB+7faAztABLoneErruEcumetcNfPMIjXKdv1V1E3C7\n"
"MSJKy+jAqqQJqjZoQGB0necZgUMiUv7JK1IPQRM2CXJllcyJrm9WFxY0c1KjBO29\n"
"iIKK69fcglKcBuFShUECAwEAAaNCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8B\n"
"Af8EBAMCAf4wHQYDVR0OBBYEFLpS6UmDJIZSL8eZzfyNa2kITcBQMA0GCSqGSIb3\n"
"DQEBCwUAA4IBAQAP8emCogqHny2UYFqywEuhLys7R9UKmYY4suzGO4nkbgfPFMfH\n"
"6M+Zj6owwxlwueZt1j/IaCayoKU3QsrYYoDRolpILh+FPwx7wseUEV8ZKpWsoDoD\n"
"2JFbLg2cfB8u/OlE4RYmcxxFSmXBg0yQ8/IoQt/bxOcEEhhiQ168H2yE5rxJMt9h\n"
"15nu5JBSewrCkYqYYmaxyOC3WrVGfHZxVI7MpIFcGdvSb2a1uyuua8l0BKgk3ujF\n"
"0/wsHNeP22qNyVO+XVBzrM8fk8BSUFuiT/6tZTYXRtEt5aKQZgXbKU5dUF3jT9qg\n"
"j/Br5BZw3X/zd325TvnswzMC1+ljLzHnQGGk\n"
"-----END CERTIFICATE-----\n";
}

/* a line that holds a record: not blank, not only a comment */
static int line_has_content(const char* line)
{
	while(*line == ' ' || *line == '\t')
		line++;
	return *line && *line != '\n' && *line != '\r' && *line != ';';
}

enum anchor_state anchor_file_state(const char* path)
{
	char line[10240];
	int content = 0;
	FILE* in = fopen(path, "r");
	if(!in) {
		if(errno == ENOENT) {
			if(anchor_verb) printf("%s does not exist\n", path);
			return ANCHOR_ABSENT;
		}
		fprintf(stderr, "error: %s: cannot access the file: %s\n",
			path, strerror(errno));
		return ANCHOR_UNREADABLE;
	}
	while(fgets(line, sizeof(line), in)) {
		if(strncmp(line, ";;REVOKED", 9) == 0) {
			fclose(in);
			if(anchor_verb) printf("%s : the trust point is revoked\n"
				"and the zone is considered unsigned.\n"
				"if you wish to re-enable, delete the file\n",
				path);
			return ANCHOR_REVOKED;
		}
		if(line_has_content(line))
			content = 1;
	}
	fclose(in);
	if(!content) {
		if(anchor_verb) printf("%s is empty\n", path);
		return ANCHOR_ABSENT;
	}
	if(anchor_verb) printf("%s has content\n", path);
	return ANCHOR_PRESENT;
}

/* Of an RFC 5011 state line, whether the key is one to trust:
 * ";;state=2 [  VALID  ]" or ";;state=3 [ MISSING ]" (Unbound's
 * numbers: 4 is REVOKED); a line without state is a plain anchor. */
static int state_trusted(const char* line)
{
	const char* s = strstr(line, ";;state=");
	if(!s)
		return 1;
	s += 8;
	return *s == '2' || *s == '3';
}

ldns_rr_list* anchor_file_keys(const char* path, int all_states)
{
	char line[10240];
	int lineno = 0;
	ldns_rr_list* keys;
	FILE* in = fopen(path, "r");
	if(!in)
		return NULL;
	keys = ldns_rr_list_new();
	while(keys && fgets(line, sizeof(line), in)) {
		ldns_rr* rr = NULL;
		char* semi;
		lineno++;
		if(!line_has_content(line) ||
			(!all_states && !state_trusted(line)))
			continue;
		if((semi = strchr(line, ';')) != NULL)
			*semi = 0;   /* base64 and hex have no ';' */
		if(ldns_rr_new_frm_str(&rr, line, 3600, NULL, NULL) !=
			LDNS_STATUS_OK) {
			if(anchor_verb)
				printf("%s:%d: not a record, ignored\n", path,
					lineno);
			continue;
		}
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DS &&
			ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY) {
			ldns_rr_free(rr);
			continue;
		}
		if(!ldns_rr_list_push_rr(keys, rr))
			ldns_rr_free(rr);
	}
	fclose(in);
	if(keys && ldns_rr_list_rr_count(keys) == 0) {
		ldns_rr_list_free(keys);
		keys = NULL;
	}
	return keys;
}

time_t anchor_file_last_success(const char* path)
{
	char line[1024];
	time_t t = 0;
	FILE* in = fopen(path, "r");
	if(!in)
		return 0;
	while(fgets(line, sizeof(line), in)) {
		if(strncmp(line, ";;last_success: ", 16) == 0) {
			char* end;
			long long v = strtoll(line + 16, &end, 10);
			if(end != line + 16 && v > 0)
				t = (time_t)v;
			break;
		}
	}
	fclose(in);
	if(anchor_verb) {
		if(t)
			printf("last successful probe: %s", ctime(&t));
		else
			printf("no last_success probe time in anchor file\n");
	}
	return t;
}

int anchor_file_has_addpend(const char* path)
{
	char line[10240];
	int found = 0;
	FILE* in = fopen(path, "r");
	if(!in)
		return 0;
	while(!found && fgets(line, sizeof(line), in))
		if(line[0] != ';' && strstr(line, "[ ADDPEND ]"))
			found = 1;
	fclose(in);
	if(found && anchor_verb)
		printf("RFC5011-state has ADDPEND keys\n");
	return found;
}

static int write_all(int fd, const char* p, size_t len)
{
	while(len > 0) {
		ssize_t n = write(fd, p, len);
		if(n < 0) {
			if(errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* compat: unbound-1.17: Where the directory is not writable but the file is (a
 * non-root user's file under a root-owned directory), rewrite it in place as
 * Unbound does: not atomic, but the only way in. */
static int write_in_place(const char* path, const char* text, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	if(fd < 0 || write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		fprintf(stderr, "error: %s: cannot write it: %s\n", path,
			strerror(errno));
		if(fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

int anchor_file_write(const char* path, const char* text, size_t len)
{
	size_t n = strlen(path) + 16;
	char* tmp = malloc(n);
	struct stat st;
	int have_old, fd;
	if(!tmp) {
		fprintf(stderr, "error: out of memory\n");
		return -1;
	}
	snprintf(tmp, n, "%s.XXXXXX", path);
	have_old = stat(path, &st) == 0;
	fd = mkstemp(tmp);
	if(fd < 0) {
		int err = errno;
		free(tmp);
		if(err == EACCES && have_old && access(path, W_OK) == 0)
			return write_in_place(path, text, len);
		fprintf(stderr, "error: %s: cannot create a temporary file "
			"next to it: %s\n", path, strerror(err));
		return -1;
	}
	/* the new file is the old one's: its mode and (for root, who
	 * may) its owner, so the daemon's user can still update it */
	if(have_old && (st.st_uid != geteuid() || st.st_gid != getegid()))
		(void)!fchown(fd, st.st_uid, st.st_gid);
	if(write_all(fd, text, len) < 0 ||
		fchmod(fd, have_old ? st.st_mode & 07777 : 0644) < 0 ||
		fsync(fd) < 0) {
		fprintf(stderr, "error: %s: write failed: %s\n", tmp,
			strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if(close(fd) < 0 || rename(tmp, path) < 0) {
		fprintf(stderr, "error: %s: cannot replace it: %s\n", path,
			strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
