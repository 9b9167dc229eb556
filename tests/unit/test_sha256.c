/*
 * test_sha256.c - SHA-256 known answers, streaming equivalence, file and
 * descriptor hashing across the 1 MiB read size, Python-style errors;
 * the SHA-extension and portable compressions give the same digests at
 * every length around the block boundaries, fed in pieces of any size;
 * and both agree with libcrypto's SHA-256 (linked into this test only)
 * on random inputs of random lengths, fed in random pieces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "../../src/util/sha256_core.h"
#include "tunectl/buf.h"
#include "tunectl/sha256.h"

static void
known_answers_match_fips_180_vectors(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	static const char two_blocks[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	tc_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b"
	    "934ca495991b7852b855");
	tc_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a39617"
	    "7a9cb410ff61f20015ad");
	tc_sha256_hex(two_blocks, strlen(two_blocks), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff"
	    "2167f6ecedd419db06c1");
}

/* The digest of data[0..n) fed in pieces of 1..97 bytes (step-driven),
 * with the portable compression (portable) or the CPU's choice. */
static void
digest_pieces(const unsigned char *data, size_t n, unsigned step,
    bool portable, char hex[TC_SHA256_HEX_LEN + 1])
{
	tc_sha256 *ctx = tc_sha256_new();
	size_t off = 0;

	tc_sha256_core_force_portable(portable);
	while (off < n) {
		size_t k = 1 + (off * 31 + step) % 97;

		if (k > n - off)
			k = n - off;
		tc_sha256_update(ctx, data + off, k);
		off += k;
	}
	tc_sha256_final_hex(ctx, hex);
	tc_sha256_core_force_portable(false);
}

static void
both_compressions_agree_at_every_length(void **state)
{
	enum { MAX = 1200 };
	unsigned char *data = malloc(MAX);
	char a[TC_SHA256_HEX_LEN + 1], b[TC_SHA256_HEX_LEN + 1];
	char one[TC_SHA256_HEX_LEN + 1];
	uint32_t x = 12345;
	size_t n;

	(void)state;
	assert_non_null(data);
	for (n = 0; n < MAX; n++) {
		x = x * 1103515245u + 12345u;
		data[n] = (unsigned char)(x >> 16);
	}
	print_message("SHA extensions %s here\n",
	    tc_sha256_core_uses_shaext() ? "used" : "not used");
	for (n = 0; n <= MAX; n += n < 200 ? 1 : 37) {
		digest_pieces(data, n, (unsigned)n, false, a);
		digest_pieces(data, n, (unsigned)n + 7, true, b);
		assert_string_equal(a, b);
		tc_sha256_hex(data, n, one);
		assert_string_equal(a, one);
	}
	/* FIPS 180-2's one million 'a', through the portable code */
	memset(data, 'a', 1000);
	{
		tc_sha256 *ctx = tc_sha256_new();
		int i;

		tc_sha256_core_force_portable(true);
		for (i = 0; i < 1000; i++)
			tc_sha256_update(ctx, data, 1000);
		tc_sha256_final_hex(ctx, a);
		tc_sha256_core_force_portable(false);
		assert_string_equal(a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48"
		    "a497200e046d39ccc7112cd0");
	}
	free(data);
}

static void
streaming_updates_equal_one_shot(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_sha256 *ctx = tc_sha256_new();
	char chunk[1000];
	int i;

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	for (i = 0; i < 1000; i++)
		tc_sha256_update(ctx, chunk, sizeof(chunk));
	tc_sha256_update(ctx, chunk, 0);
	tc_sha256_final_hex(ctx, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497"
	    "200e046d39ccc7112cd0");
}

/* libcrypto is the well-kept implementation the program no longer links
 * (src/util/sha256_core.c says why); this test links it to hold ours to
 * it: 3,000 inputs of 0-9,000 random bytes, each fed in random pieces,
 * through the SHA-extension code where the CPU has it and through the
 * portable code. */
static void
both_compressions_agree_with_libcrypto(void **state)
{
	static unsigned char data[9000];
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	int pass, n;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		tc_sha256_core_force_portable(pass == 1);
		for (n = 0; n < 1500; n++) {
			unsigned char md[32];
			unsigned int mdlen = 0;
			char want[TC_SHA256_HEX_LEN + 1], got[TC_SHA256_HEX_LEN + 1];
			size_t len, off = 0, i;
			tc_sha256 *ctx;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			len = (size_t)(x >> 33) % sizeof(data);
			for (i = 0; i < len; i++) {
				x = x * 6364136223846793005ull + 1;
				data[i] = (unsigned char)(x >> 56);
			}
			assert_int_equal(EVP_Digest(data, len, md, &mdlen,
			    EVP_sha256(), NULL), 1);
			assert_int_equal(mdlen, 32);
			for (i = 0; i < 32; i++)
				snprintf(want + 2 * i, 3, "%02x", md[i]);
			ctx = tc_sha256_new();
			while (off < len) {
				size_t piece;

				x = x * 6364136223846793005ull + 1;
				piece = 1 + (size_t)(x >> 40) % 200;
				if (piece > len - off)
					piece = len - off;
				tc_sha256_update(ctx, data + off, piece);
				off += piece;
			}
			tc_sha256_final_hex(ctx, got);
			assert_string_equal(got, want);
		}
	}
	tc_sha256_core_force_portable(false);
}

static void
free_without_final_releases_the_context(void **state)
{
	tc_sha256 *ctx = tc_sha256_new();

	(void)state;
	tc_sha256_update(ctx, "x", 1);
	tc_sha256_free(ctx);	/* ASan/valgrind would report a leak */
	tc_sha256_free(NULL);
}

/* 3 MiB + 17 bytes of a fixed pattern (crosses the 1 MiB read size). */
static unsigned char *
pattern(size_t *len)
{
	size_t n = 3 * 1024 * 1024 + 17, i;
	unsigned char *d = tc_xmalloc(n);

	for (i = 0; i < n; i++)
		d[i] = (unsigned char)(i * 31 + 7);
	*len = n;
	return d;
}

static void
file_digest_streams_large_files_and_reports_size(void **state)
{
	char tmpl[] = "/tmp/tc-sha-XXXXXX";
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error err = TC_ERROR_INIT;
	uint64_t size = 0;
	size_t len;
	unsigned char *d = pattern(&len);
	int fd = mkstemp(tmpl);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, d, len), (ssize_t)len);
	close(fd);
	assert_int_equal(tc_sha256_file(tmpl, hex, &size, &err), 0);
	assert_string_equal(hex, "27f3f0120d4a72b66e7b58152c631644bd689231ebd4"
	    "487469b59226f1be13af");
	assert_int_equal(size, len);
	unlink(tmpl);
	free(d);
}

static void
fd_digest_reads_a_pipe_to_eof(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error err = TC_ERROR_INIT;
	uint64_t size = 0;
	size_t len;
	unsigned char *d = pattern(&len);
	int p[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t off = 0;

		close(p[0]);
		while (off < len) {	/* odd chunk sizes: short reads */
			size_t n = len - off < 70001 ? len - off : 70001;
			ssize_t w = write(p[1], d + off, n);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(tc_sha256_fd(p[0], "<pipe>", hex, &size, &err), 0);
	close(p[0]);
	waitpid(pid, NULL, 0);
	assert_string_equal(hex, "27f3f0120d4a72b66e7b58152c631644bd689231ebd4"
	    "487469b59226f1be13af");
	assert_int_equal(size, len);
	free(d);
}

static void
missing_file_reports_python_oserror(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_sha256_file("/nonexistent/x'y", hex, NULL, &err),
	    -1);
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: \"/nonexistent/x'y\"");
	tc_error_clear(&err);
}

static void
directory_reports_is_a_directory(void **state)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_sha256_file("/tmp", hex, NULL, &err), -1);
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 21] Is a directory: '/tmp'");
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_answers_match_fips_180_vectors),
		cmocka_unit_test(streaming_updates_equal_one_shot),
		cmocka_unit_test(both_compressions_agree_at_every_length),
		cmocka_unit_test(both_compressions_agree_with_libcrypto),
		cmocka_unit_test(free_without_final_releases_the_context),
		cmocka_unit_test(file_digest_streams_large_files_and_reports_size),
		cmocka_unit_test(fd_digest_reads_a_pipe_to_eof),
		cmocka_unit_test(missing_file_reports_python_oserror),
		cmocka_unit_test(directory_reports_is_a_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
