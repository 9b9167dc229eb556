/*
 * attest_internal.h - what the files of src/attest/ share (not part of
 * the public API): the DER and PEM forms of Ed25519 key files
 * (keyfile.c), which keys.c reads and writes.
 */
#ifndef TUNECTL_ATTEST_INTERNAL_H
#define TUNECTL_ATTEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"

#define TC_PEM_PRIVATE_KEY	"PRIVATE KEY"
#define TC_PEM_PUBLIC_KEY	"PUBLIC KEY"

/* The DER SubjectPublicKeyInfo of an Ed25519 public key (RFC 8410). */
void tc_keyfile_spki(const unsigned char pk[32], unsigned char der[44]);
/* The DER PKCS#8 PrivateKeyInfo (version 0) of an Ed25519 seed. */
void tc_keyfile_pkcs8(const unsigned char seed[32], unsigned char der[48]);
/* The public key of a DER SubjectPublicKeyInfo; -1 when it is not an
 * Ed25519 one. */
int tc_keyfile_parse_spki(const unsigned char *der, size_t len,
    unsigned char pk[32]);
/* The seed of a DER PKCS#8 PrivateKeyInfo (version 0); -1 when it is
 * not an Ed25519 one. */
int tc_keyfile_parse_pkcs8(const unsigned char *der, size_t len,
    unsigned char seed[32]);
/* der in PEM armor with label, 64 base64 characters a line, appended to
 * out (the text OpenSSL writes). */
void tc_keyfile_pem(tc_buf *out, const char *label, const unsigned char *der,
    size_t len);
/* The DER bytes of the first PEM block labelled label in text (malloc'd,
 * *der_len set); NULL when there is none, its base64 is malformed or it
 * has headers (an encrypted key). */
unsigned char *tc_keyfile_unpem(const char *text, size_t len,
    const char *label, size_t *der_len);

#endif
