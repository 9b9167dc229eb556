/*
 * sha256.c - SHA-256 in memory and streamed from files with large
 * sequential reads (the hash itself: sha256_core.c).  Files are opened
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

#include "sha256_core.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"

#define READ_CHUNK	(1u << 20)

struct tc_sha256 {
	struct tc_sha256_core c;
};

static void
to_hex(const unsigned char md[TC_SHA256_DIGEST_LEN],
    char hex[TC_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < TC_SHA256_DIGEST_LEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xF];
	}
	hex[TC_SHA256_HEX_LEN] = '\0';
}

tc_sha256 *
tc_sha256_new(void)
{
	tc_sha256 *ctx = tc_xmalloc(sizeof(*ctx));

	tc_sha256_core_init(&ctx->c);
	return ctx;
}

void
tc_sha256_update(tc_sha256 *ctx, const void *data, size_t len)
{
	if (len > 0)
		tc_sha256_core_update(&ctx->c, data, len);
}

void
tc_sha256_free(tc_sha256 *ctx)
{
	free(ctx);
}

void
tc_sha256_final_hex(tc_sha256 *ctx, char hex[TC_SHA256_HEX_LEN + 1])
{
	unsigned char md[TC_SHA256_DIGEST_LEN];

	tc_sha256_core_final(&ctx->c, md);
	to_hex(md, hex);
	tc_sha256_free(ctx);
}

/* In memory: no context on the heap. */
void
tc_sha256_hex(const void *data, size_t len, char hex[TC_SHA256_HEX_LEN + 1])
{
	unsigned char md[TC_SHA256_DIGEST_LEN];
	struct tc_sha256_core c;

	tc_sha256_core_init(&c);
	tc_sha256_core_update(&c, data, len);
	tc_sha256_core_final(&c, md);
	to_hex(md, hex);
}

/* tc_sha256_fd with the descriptor's fstat made (stat_ok false: it
 * failed). */
static int
sha256_fd_stat(int fd, const struct stat *st, bool stat_ok, const char *name,
    char hex[TC_SHA256_HEX_LEN + 1], uint64_t *size_out, tc_error *err)
{
	unsigned char *buf;
	tc_sha256 *ctx;
	uint64_t total = 0, sized = 0;
	size_t chunk = READ_CHUNK;
	bool regular = stat_ok && S_ISREG(st->st_mode);

	if (stat_ok && S_ISDIR(st->st_mode)) {
		tc_error_os(err, EISDIR, name);
		return -1;
	}
	/* Most evidence is a few KiB: no 1 MiB buffer for it, and no
	 * read-ahead advice for what one read takes (the size is only a
	 * hint; a growing file is still read to EOF). */
	if (regular && st->st_size > 0)
		sized = (uint64_t)st->st_size;
	if (regular && st->st_size >= 0 &&
	    (uint64_t)st->st_size < READ_CHUNK)
		chunk = (size_t)st->st_size + 4096;
	else
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	buf = tc_xmalloc(chunk);
	ctx = tc_sha256_new();
	for (;;) {
		ssize_t n = read(fd, buf, chunk);

		if (n < 0) {
			if (tc_read_retry(fd, regular))
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
		/* short, and ending where fstat put the end: EOF, without a
		 * read of 0 bytes to hear it (a file that grew is read on) */
		if (total == sized && (size_t)n < chunk)
			break;
	}
	free(buf);
	tc_sha256_final_hex(ctx, hex);
	if (size_out != NULL)
		*size_out = total;
	return 0;
}

int
tc_sha256_fd(int fd, const char *name, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	struct stat st;
	bool stat_ok = fstat(fd, &st) == 0;

	return sha256_fd_stat(fd, &st, stat_ok, name, hex, size_out, err);
}

int
tc_sha256_file_at(int dirfd, const char *name, unsigned open_flags,
    const char *display, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	struct stat st;
	int fd, rc;

	if ((fd = tc_open_regular_stat_at(dirfd, name, open_flags, &st)) < 0) {
		tc_error_os(err, errno, display);
		return -1;
	}
	rc = sha256_fd_stat(fd, &st, true, display, hex, size_out, err);
	close(fd);
	return rc;
}

int
tc_sha256_file(const char *path, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err)
{
	return tc_sha256_file_at(AT_FDCWD, path, 0, path, hex, size_out, err);
}
