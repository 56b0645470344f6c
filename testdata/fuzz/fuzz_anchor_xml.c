/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_anchor_xml.c - unbound-anchor's root-anchors.xml
 * reader (anchor_xml_to_ds, smallapp/anchor/anchor_xml.c) on the input
 * as the XML document, at a fixed time, and the DS text it makes,
 * written as the anchor file (anchor_file_write) and read back as the
 * daemon's anchor (anchor_file_keys, smallapp/anchor/anchor_file.c).
 * No network. Checked besides the sanitizers: every line of the output
 * is one DS record of the root that ldns reads, there are as many as
 * the reader counted, and the written file gives back those records
 * (a root-anchors.xml that unbound-anchor accepts must not leave an
 * anchor file the resolver cannot use). The file goes to TMPDIR
 * (/tmp by default). */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "smallapp/anchor/anchor_file.h"
#include "smallapp/anchor/anchor_xml.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <unistd.h>

static char out_name[512];

static void must(int cond, const char* what)
{
	if(!cond) {
		fprintf(stderr, "fuzz_anchor_xml: %s\n", what);
		abort();
	}
}

/* Does rr hold the numbers and digest the line spells (ldns reads a
 * number too large wrapped and an odd hex digit count padded)? */
static int same_fields(const char* line, const ldns_rr* rr)
{
	unsigned long tag, alg, dt;
	char dig[4096], *got;
	int same;
	if(sscanf(line, ". IN DS %lu %lu %lu %4095s", &tag, &alg, &dt, dig)
		!= 4)
		return 0;
	if(tag != ldns_rdf2native_int16(ldns_rr_rdf(rr, 0)) ||
		alg != ldns_rdf2native_int8(ldns_rr_rdf(rr, 1)) ||
		dt != ldns_rdf2native_int8(ldns_rr_rdf(rr, 2)))
		return 0;
	got = ldns_rdf2str(ldns_rr_rdf(rr, 3));
	must(got != NULL, "out of memory");
	same = strcasecmp(got, dig) == 0;
	free(got);
	return same;
}

/* The DS records of the text, each line checked. */
static ldns_rr_list* ds_lines(char* text, int nkeys)
{
	ldns_rr_list* l = ldns_rr_list_new();
	char* line = text, *nl;
	must(l != NULL, "out of memory");
	must(strncmp(text, "; created by unbound-anchor on ", 31) == 0,
		"no comment line first");
	line = strchr(text, '\n');
	must(line != NULL, "the comment line has no end");
	for(line++; *line; line = nl + 1) {
		ldns_rr* rr = NULL;
		nl = strchr(line, '\n');
		must(nl != NULL, "a line without its end");
		*nl = 0;
		must(ldns_rr_new_frm_str(&rr, line, 3600, NULL, NULL) ==
			LDNS_STATUS_OK, "a line ldns does not read");
		*nl = '\n';
		must(ldns_rr_get_type(rr) == LDNS_RR_TYPE_DS &&
			ldns_rdf_size(ldns_rr_owner(rr)) == 1 &&
			ldns_rr_rd_count(rr) == 4,
			"a record that is not a DS of the root");
		must(same_fields(line, rr), "ldns reads another DS than the "
			"line says");
		must(ldns_rr_list_push_rr(l, rr), "out of memory");
	}
	must(ldns_rr_list_rr_count(l) == (size_t)nkeys,
		"DS lines and the key count differ");
	return l;
}

/* anchor_xml_to_ds with its messages (stderr) to /dev/null for the
 * call only, so that the sanitizers' reports still show. */
static char* quiet_to_ds(const uint8_t* data, size_t size, int* nkeys)
{
	static int devnull = -1;
	int saved = -1;
	char* text;
	if(!getenv("FUZZ_VERBOSE")) {
		if(devnull < 0 && (devnull = open("/dev/null", O_WRONLY)) < 0)
			abort();
		fflush(stderr);
		if((saved = dup(2)) < 0 || dup2(devnull, 2) < 0)
			abort();
	}
	text = anchor_xml_to_ds((const char*)data, size, FUZZ_T0, nkeys);
	if(saved >= 0) {
		fflush(stderr);
		if(dup2(saved, 2) < 0)
			abort();
		close(saved);
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	int nkeys = -1;
	char* text;
	ldns_rr_list* want, *got;
	if(!out_name[0]) {
		const char* tmp = getenv("TMPDIR");
		fuzz_quiet_logs();
		snprintf(out_name, sizeof(out_name), "%s/fuzz_anchor_xml.%d",
			tmp ? tmp : "/tmp", (int)getpid());
	}
	if(size > 1 << 20)
		return 0;
	text = quiet_to_ds(data, size, &nkeys);
	if(!text)
		return 0;
	want = ds_lines(text, nkeys);
	must(anchor_file_write(out_name, text, strlen(text)) == 0,
		"the anchor file was not written");
	got = anchor_file_keys(out_name, 0);
	if(nkeys == 0)
		must(got == NULL, "keys read from a file without any");
	else {
		must(got != NULL, "no keys read back");
		must(ldns_rr_list_compare(want, got) == 0,
			"the keys read back differ from the lines");
	}
	ldns_rr_list_deep_free(want);
	ldns_rr_list_deep_free(got);
	free(text);
	unlink(out_name);
	return 0;
}
