/* SPDX-License-Identifier: BSD-3-Clause */
/* util/error_report.h - compat: unbound-1.23: DNS error reporting (RFC
 * 9567, dns-error-reporting:): the reporting agent an authoritative
 * server names in the Report-Channel EDNS option (code 18) of its reply,
 * and the report query's name,
 * _er.<qtype>.<qname>.<extended error code>._er.<agent>, as Unbound
 * builds it. The iterator reads the agent from each upstream reply of a
 * state (services/mesh.c sends the report when the state fails with an
 * extended error); nothing here runs unless the option is on. */
#ifndef UTIL_ERROR_REPORT_H
#define UTIL_ERROR_REPORT_H
#include <stddef.h>
#include <stdint.h>

#define EDNS_OPT_REPORT_CHANNEL 18

/* The agent domain of the Report-Channel option in the reply pkt into
 * out (room for 255 bytes), lowercased; its length. 0: no option, or
 * its data is not exactly one uncompressed wire name, or the name is
 * the root (RFC 9567: not a valid agent). */
size_t error_report_agent(const uint8_t* pkt, size_t len, uint8_t* out);

/* The report query's name into out (room for 255 bytes) for the
 * question (qname, a wire name, and qtype) that failed with extended
 * error ede, to agent (a wire name); its length. 0 when it would be
 * longer than a domain name may be (Unbound skips that report too). */
size_t error_report_qname(uint8_t* out, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, int ede, const uint8_t* agent,
	size_t agent_len);

#endif
