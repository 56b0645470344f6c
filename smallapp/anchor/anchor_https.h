/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_https.h - fetch a file over HTTPS. */
#ifndef ANCHOR_HTTPS_H
#define ANCHOR_HTTPS_H
#include <stddef.h>
#include <sys/socket.h>

struct anchor_addr {
	struct sockaddr_storage addr;   /* with the port */
	socklen_t len;
};

/* GET https://host/path from one of the n addresses (tried in random
 * order until one gives a 200 with a complete body). The server's
 * certificate is not checked: the S/MIME signature is what protects
 * the data, TLS only hides it. sni: send host as TLS SNI. src: a
 * source address to bind to, or NULL. The body, malloc'ed and NUL
 * terminated, its length in *len; NULL with a message on stderr. */
char* anchor_https_get(const struct anchor_addr* addrs, int n,
	const char* host, const char* path, int sni, const char* src,
	size_t* len);

#endif
