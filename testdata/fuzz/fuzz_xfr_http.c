/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_xfr_http.c - an auth-zone url: download's response
 * (services/xfr_http.c) as a web server sends it: byte 0 picks the body
 * limit (bits 0-1: 64, 4096, 1 MiB) and whether the input is split in
 * two reads (bit 2, at byte 1's offset); the rest is the response. The
 * parser sees it as the download loop does (each read appended, the
 * close last), and a complete body is read as zone text for example.com.
 * Checked besides the sanitizers: an error says why, a body lies inside
 * the input and within the limit. Also the url parser on the input. */
#include "config.h"
#include "services/xfr_http.h"
#include <stdlib.h>
#include <string.h>

static const uint8_t ZONE[] = "\007example\003com";

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static const size_t limits[4] = { 64, 4096, 1048576, 1048576 };
	size_t max, split, off = 0, blen = 0, n;
	uint8_t* buf;
	char err[256];
	enum xfr_http_state st = XFR_HTTP_MORE;
	if(size < 2)
		return 0;
	max = limits[data[0] & 3];
	split = (data[0] & 4) ? data[1] % (size - 1) : size - 2;
	n = size - 2;
	if(!(buf = malloc(n + 1)))
		return 0;
	memcpy(buf, data + 2, n);
	buf[n] = 0;
	{
		struct xfr_url u;
		char text[512];
		size_t t = n < sizeof(text) - 1 ? n : sizeof(text) - 1;
		memcpy(text, buf, t);
		text[t] = 0;
		err[0] = 0;
		if(!xfr_url_parse(text, &u, err, sizeof(err)) && !err[0])
			abort();
	}
	if(split > n)
		split = n;
	err[0] = 0;
	if(split < n)
		st = xfr_http_parse(buf, split, 0, max, &off, &blen, err,
			sizeof(err));
	if(st == XFR_HTTP_MORE) {
		err[0] = 0;
		st = xfr_http_parse(buf, n, 1, max, &off, &blen, err,
			sizeof(err));
	}
	if(st == XFR_HTTP_ERROR && !err[0])
		abort();
	if(st == XFR_HTTP_MORE)
		abort();   /* at the close it must decide */
	if(st == XFR_HTTP_DONE) {
		struct xfr_rrs l;
		if(off > n || blen > n - off || blen > max)
			abort();
		if(xfr_zonetext_parse((const char*)buf + off, blen, ZONE, &l,
			err, sizeof(err)))
			xfr_rrs_clear(&l);
		else if(!err[0])
			abort();
	}
	free(buf);
	return 0;
}
