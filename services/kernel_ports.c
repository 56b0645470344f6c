/* SPDX-License-Identifier: BSD-3-Clause */
/* services/kernel_ports.c - may the kernel draw outgoing UDP source ports
 * (see kernel_ports.h). */
#include "config.h"
#include "services/kernel_ports.h"
#include "services/port_pool.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The first line of dir/name into buf ("" for an empty file); 0 when
 * the file cannot be opened. */
static int read_line(const char* dir, const char* name, char* buf,
	size_t len)
{
	char path[512];
	FILE* f;
	if(snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		(int)sizeof(path))
		return 0;
	if(!(f = fopen(path, "r")))
		return 0;
	if(!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	return 1;
}

void kernel_ports_read(const char* dir, struct kernel_ports* k)
{
	char buf[4096];
	const char* p;
	memset(k, 0, sizeof(*k));
	if(!read_line(dir, "ip_local_port_range", buf, sizeof(buf)) ||
		sscanf(buf, "%d %d", &k->lo, &k->hi) != 2 || k->lo < 1 ||
		k->hi > 65535 || k->lo > k->hi)
		return;
	/* an empty list is an empty line */
	if(!read_line(dir, "ip_local_reserved_ports", buf, sizeof(buf)))
		return;
	for(p = buf; *p && isspace((unsigned char)*p); p++)
		;
	k->reserved_empty = (*p == 0);
	k->readable = 1;
}

const char* kernel_ports_refusal(const struct kernel_ports* k,
	const uint8_t* avail)
{
	int port;
	if(!k->readable || k->lo < 1 || k->lo > k->hi ||
		k->hi >= PORT_SET_SIZE)
		return "the kernel's port range could not be read";
	if(!k->reserved_empty)
		return "net.ipv4.ip_local_reserved_ports is not empty";
	for(port = k->lo; port <= k->hi; port++)
		if(!avail[port])
			return "the kernel's port range is not all in "
				"outgoing-port-permit minus outgoing-port-avoid";
	return NULL;
}

int kernel_ports_usable(const struct kernel_ports* k, const uint8_t* avail)
{
	return kernel_ports_refusal(k, avail) == NULL;
}
