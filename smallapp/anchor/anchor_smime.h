/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_smime.h - the S/MIME (PKCS#7 detached)
 * signature of root-anchors.xml. */
#ifndef ANCHOR_SMIME_H
#define ANCHOR_SMIME_H
#include <stddef.h>
#include <openssl/x509.h>

/* The trusted certificates of file (PEM, one or more); the built-in
 * ICANN Root CA when file is missing, empty or holds no certificate.
 * NULL only when out of memory. */
STACK_OF(X509)* anchor_certs_read(const char* file);

/* Whether p7s (DER PKCS#7 signedData, len p7len) is a valid detached
 * signature over data (len), by a certificate in the signature that
 * chains to one of trust, whose key usage allows digital signatures
 * and, unless signer is NULL or "", whose subject emailAddress is
 * signer. 1 when it is; 0 with a message on stderr. */
int anchor_p7_verify(const char* data, size_t len, const char* p7s,
	size_t p7len, STACK_OF(X509)* trust, const char* signer);

#endif
