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

/* Aborts (like tc_xmalloc) if libcrypto cannot provide SHA-256. */
tc_sha256 *tc_sha256_new(void);
void tc_sha256_update(tc_sha256 *ctx, const void *data, size_t len);
/* Finish, write 64 hex chars + NUL, and free the context. */
void tc_sha256_final_hex(tc_sha256 *ctx, char hex[TC_SHA256_HEX_LEN + 1]);
/* Free a context without finishing it (NULL is accepted). */
void tc_sha256_free(tc_sha256 *ctx);

void tc_sha256_hex(const void *data, size_t len, char hex[TC_SHA256_HEX_LEN + 1]);

/* Stream a file in constant memory (1 MiB reads, sequential read-ahead
 * advised).  Returns 0, or -1 with err set to
 * "[Errno N] <strerror>: 'PATH'" (Python's OSError form); a directory is
 * "[Errno 21] Is a directory: 'PATH'". */
int tc_sha256_file(const char *path, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

/* The same for an open descriptor read to EOF (e.g. stdin); name is only
 * used in error messages.  The descriptor is not closed. */
int tc_sha256_fd(int fd, const char *name, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

#endif
