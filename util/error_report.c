/* SPDX-License-Identifier: BSD-3-Clause */
/* util/error_report.c - RFC 9567 error reports: the agent from a reply,
 * the report query's name. See util/error_report.h. */
#include "config.h"
#include "util/error_report.h"
#include "util/dname.h"
#include "util/edns_pad.h"
#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 255

size_t error_report_agent(const uint8_t* pkt, size_t len, uint8_t* out)
{
	const uint8_t* data = NULL;
	int l = edns_get_option(pkt, len, EDNS_OPT_REPORT_CHANNEL, &data);
	size_t n;
	if(l <= 0 || l > NAME_MAX_LEN)
		return 0;
	n = dname_valid(data, (size_t)l);
	/* compat: unbound-1.23: a name, not the root (at least one label:
	 * 3 bytes); unlike Unbound, bytes after the name refuse it too */
	if(n < 3 || n != (size_t)l)
		return 0;
	memcpy(out, data, n);
	dname_tolower(out);
	return n;
}

/* Append a label holding the decimal v at out+*pos; 0: no room. */
static int put_number(uint8_t* out, size_t* pos, long v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%ld", v);
	if(n <= 0 || *pos + 1 + (size_t)n > NAME_MAX_LEN)
		return 0;
	out[(*pos)++] = (uint8_t)n;
	memcpy(out + *pos, num, (size_t)n);
	*pos += (size_t)n;
	return 1;
}

static int put_bytes(uint8_t* out, size_t* pos, const void* b, size_t n)
{
	if(*pos + n > NAME_MAX_LEN)
		return 0;
	memcpy(out + *pos, b, n);
	*pos += n;
	return 1;
}

size_t error_report_qname(uint8_t* out, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, int ede, const uint8_t* agent,
	size_t agent_len)
{
	size_t pos = 0;
	if(qname_len < 1 || agent_len < 1)
		return 0;
	/* the qname without its root label, the agent with it */
	if(!put_bytes(out, &pos, "\3_er", 4) ||
		!put_number(out, &pos, (long)qtype) ||
		!put_bytes(out, &pos, qname, qname_len - 1) ||
		!put_number(out, &pos, (long)ede) ||
		!put_bytes(out, &pos, "\3_er", 4) ||
		!put_bytes(out, &pos, agent, agent_len))
		return 0;
	return pos;
}
