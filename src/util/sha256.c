/*
 * sha256.c - SHA-256 through OpenSSL's EVP interface, in memory and
 * streamed from files with large sequential reads.  Files are opened
 * with tc_open_regular_at, so a FIFO or device planted where evidence
 * belongs is refused instead of blocking or never ending.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"

#define READ_CHUNK	(1u << 20)

struct tc_sha256 {
	EVP_MD_CTX *md;
};

static void
crypto_fail(const char *what)
{
	fprintf(stderr, "tunectl: libcrypto: %s failed\n", what);
	abort();
}

/*
 * The SHA-256 implementation, fetched from the provider once: passing
 * EVP_sha256() makes OpenSSL 3 fetch it again on every init, which cost
 * more than hashing a session document.  A process hashes from one thread.
 */
static const EVP_MD *
sha256_md(void)
{
	static EVP_MD *md;

	if (md == NULL && (md = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL)
		crypto_fail("EVP_MD_fetch(SHA256)");
	return md;
}

tc_sha256 *
tc_sha256_new(void)
{
	tc_sha256 *ctx = tc_xmalloc(sizeof(*ctx));

	if ((ctx->md = EVP_MD_CTX_new()) == NULL)
		crypto_fail("EVP_MD_CTX_new");
	if (EVP_DigestInit_ex(ctx->md, sha256_md(), NULL) != 1)
		crypto_fail("EVP_DigestInit_ex(sha256)");
	return ctx;
}

void
tc_sha256_update(tc_sha256 *ctx, const void *data, size_t len)
{
	if (len > 0 && EVP_DigestUpdate(ctx->md, data, len) != 1)
		crypto_fail("EVP_DigestUpdate");
}

void
tc_sha256_free(tc_sha256 *ctx)
{
	if (ctx == NULL)
		return;
	EVP_MD_CTX_free(ctx->md);
	free(ctx);
}

void
tc_sha256_final_hex(tc_sha256 *ctx, char hex[TC_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (EVP_DigestFinal_ex(ctx->md, md, &n) != 1 || n != 32)
		crypto_fail("EVP_DigestFinal_ex");
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xF];
	}
	hex[TC_SHA256_HEX_LEN] = '\0';
	tc_sha256_free(ctx);
}

void
tc_sha256_hex(const void *data, size_t len, char hex[TC_SHA256_HEX_LEN + 1])
{
	tc_sha256 *ctx = tc_sha256_new();

	tc_sha256_update(ctx, data, len);
	tc_sha256_final_hex(ctx, hex);
}

int
tc_sha256_fd(int fd, const char *name, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	unsigned char *buf;
	tc_sha256 *ctx;
	uint64_t total = 0;
	size_t chunk = READ_CHUNK;
	struct stat st;
	bool stat_ok = fstat(fd, &st) == 0;

	if (stat_ok && S_ISDIR(st.st_mode)) {
		tc_error_os(err, EISDIR, name);
		return -1;
	}
	/* Most evidence is a few KiB: no 1 MiB buffer for it (the size is
	 * only a hint; a growing file is still read to EOF). */
	if (stat_ok && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size < READ_CHUNK)
		chunk = (size_t)st.st_size + 4096;
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	buf = tc_xmalloc(chunk);
	ctx = tc_sha256_new();
	for (;;) {
		ssize_t n = read(fd, buf, chunk);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			tc_error_os(err, errno, name);
			tc_sha256_free(ctx);
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		tc_sha256_update(ctx, buf, (size_t)n);
		total += (uint64_t)n;
	}
	free(buf);
	tc_sha256_final_hex(ctx, hex);
	if (size_out != NULL)
		*size_out = total;
	return 0;
}

int
tc_sha256_file_at(int dirfd, const char *name, unsigned open_flags,
    const char *display, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	int fd, rc;

	if ((fd = tc_open_regular_at(dirfd, name, open_flags)) < 0) {
		tc_error_os(err, errno, display);
		return -1;
	}
	rc = tc_sha256_fd(fd, display, hex, size_out, err);
	close(fd);
	return rc;
}

int
tc_sha256_file(const char *path, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	return tc_sha256_file_at(AT_FDCWD, path, 0, path, hex, size_out, err);
}
