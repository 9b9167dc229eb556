/*
 * sha256.h - SHA-256 digests through OpenSSL's EVP API (libcrypto).
 * Every digest tunectl records is lowercase hex without a prefix unless a
 * format says otherwise ("sha256:<hex>" in lease manifests).
 */
#ifndef TUNECTL_SHA256_H
#define TUNECTL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "tunectl/error.h"

#define TC_SHA256_HEX_LEN 64

typedef struct tc_sha256 tc_sha256;	/* opaque streaming context */

tc_sha256 *tc_sha256_new(void);
void tc_sha256_update(tc_sha256 *ctx, const void *data, size_t len);
/* Finish, write 64 hex chars + NUL, and free the context. */
void tc_sha256_final_hex(tc_sha256 *ctx, char hex[TC_SHA256_HEX_LEN + 1]);

void tc_sha256_hex(const void *data, size_t len, char hex[TC_SHA256_HEX_LEN + 1]);

/* Stream a file in constant memory.  Returns 0, or -1 with err set to
 * "[Errno N] <strerror>: 'PATH'" (Python's OSError form). */
int tc_sha256_file(const char *path, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

#endif
