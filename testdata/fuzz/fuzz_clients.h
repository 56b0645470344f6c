/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_clients.h - client addresses for the query
 * harnesses, one per access-control rule of FUZZ_SERVE_CONF. */
#ifndef TESTDATA_FUZZ_FUZZ_CLIENTS_H
#define TESTDATA_FUZZ_FUZZ_CLIENTS_H
#include <sys/socket.h>

#define FUZZ_NUM_CLIENTS 10
/* The address of client i (modulo FUZZ_NUM_CLIENTS): allow (127/8, ::1),
 * refuse, deny, deny_non_local, refuse_non_local, allow_setrd,
 * allow_snoop, refuse (IPv6), and one no rule names (refused). */
void fuzz_client(unsigned i, struct sockaddr_storage* a, socklen_t* len);

#endif
