/*
 * sha256_core.h - SHA-256 itself (FIPS 180-4), for sha256.c: a context,
 * its update and its final digest.  The blocks are compressed with the
 * x86 SHA extensions where glibc reports them, in portable C elsewhere.
 */
#ifndef TUNECTL_SHA256_CORE_H
#define TUNECTL_SHA256_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_SHA256_DIGEST_LEN 32

struct tc_sha256_core {
	uint32_t h[8];
	uint64_t total;		/* bytes hashed */
	unsigned char buf[64];	/* the block being filled */
	size_t fill;
};

void tc_sha256_core_init(struct tc_sha256_core *c);
void tc_sha256_core_update(struct tc_sha256_core *c, const void *data,
    size_t len);
void tc_sha256_core_final(struct tc_sha256_core *c,
    unsigned char md[TC_SHA256_DIGEST_LEN]);

/* Which compression runs: true for the SHA extensions. */
bool tc_sha256_core_uses_shaext(void);

/* Tests only (defined in TUNECTL_TEST_HOOKS builds, the unit tests'
 * library): every later block uses the portable code (on) or the choice
 * made from the CPU again (off). */
void tc_sha256_core_force_portable(bool on);

#endif
