/* SPDX-License-Identifier: BSD-3-Clause */
/* dnstap/dnstap_out.h - the byte stream to the dnstap collector, as a
 * libfstrm rdwr that libfstrm's I/O thread opens, writes, reads and
 * closes (never a worker): a unix socket (dnstap-socket-path), TCP
 * (dnstap-ip) or TLS (dnstap-ip with dnstap-tls: yes, the server name
 * checked against the CAs of dnstap-tls-cert-bundle, else
 * tls-cert-bundle; a client certificate when configured).
 *
 * compat: unbound-1.17: dnstap-bidirectional: yes (the default) gives
 * the rdwr a read method, so libfstrm does Frame Streams' handshake
 * (READY, ACCEPT, START; STOP, FINISH at the end) on every transport;
 * no: no read method, the stream starts with START at once, as
 * Unbound's.
 *
 * Connect, reads and writes have a time limit, so a collector that is
 * stuck holds the I/O thread at most that long at a time (the workers'
 * queues fill and drop meanwhile) and never keeps the daemon from
 * stopping. */
#ifndef DNSTAP_DNSTAP_OUT_H
#define DNSTAP_DNSTAP_OUT_H

struct config_file;
struct fstrm_rdwr;

/* The rdwr for cfg's collector, not connected yet (libfstrm opens it,
 * and again after a failure). NULL, logged: a bad dnstap-ip, a socket
 * path too long, TLS files that cannot be read. */
struct fstrm_rdwr* dnstap_out_create(const struct config_file* cfg);

#endif
