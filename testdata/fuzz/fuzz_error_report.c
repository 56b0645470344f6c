/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_error_report.c - an upstream reply's Report-Channel
 * option (RFC 9567, error_report_agent in util/error_report.c), as any
 * server may send it with dns-error-reporting on. Checked besides the
 * sanitizers: an agent taken is one whole valid name of at most 255
 * bytes, not the root, and the report name made with it stays within
 * 255 bytes and is a valid name. */
#include "config.h"
#include "util/error_report.h"
#include "util/dname.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static const uint8_t qname[] = "\3www\7example";
	uint8_t agent[255], name[255];
	size_t n = error_report_agent(data, size, agent), q;
	if(n == 0)
		return 0;
	if(n < 3 || n > 255 || dname_valid(agent, n) != n)
		abort();
	q = error_report_qname(name, qname, sizeof(qname), 65535, 65535,
		agent, n);
	if(q > 255 || (q && dname_valid(name, q) != q))
		abort();
	return 0;
}
