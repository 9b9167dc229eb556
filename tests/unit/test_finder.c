/*
 * test_finder.c - a fixed text's first occurrence in a stream given in
 * pieces (src/util/finder.c): the same offset however the stream is cut,
 * straddling matches included, and no match where there is none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tunectl/finder.h"

/* Feed text in pieces of the given sizes (cycled); the offset found or
 * -1. */
static int64_t
find_in_pieces(const char *pat, const char *text, size_t n,
    const size_t *sizes, size_t nsizes)
{
	tc_finder f;
	size_t at = 0, k = 0;

	tc_finder_init(&f, pat, strlen(pat));
	while (at < n) {
		size_t len = sizes[k++ % nsizes];

		if (len > n - at)
			len = n - at;
		if (tc_finder_feed(&f, text + at, len))
			break;
		at += len;
	}
	/* more pieces change nothing once found */
	if (f.at >= 0)
		assert_true(tc_finder_feed(&f, "xyz", 3));
	return f.at;
}

static void
every_cut_finds_the_first_match(void **state)
{
	static const char text[] = "{\n  \"a\": \"x\\n  \\\"k\\\": \",\n"
	    "  \"k\": \"0000\",\n  \"k\": \"1111\"\n}\n";
	static const char pat[] = "\n  \"k\": \"";
	size_t n = sizeof(text) - 1, want, i, j, s;
	const char *first = strstr(text, pat);

	(void)state;
	assert_non_null(first);
	want = (size_t)(first - text);
	/* one cut anywhere; two cuts anywhere */
	for (i = 0; i <= n; i++) {
		tc_finder f;

		tc_finder_init(&f, pat, sizeof(pat) - 1);
		(void)tc_finder_feed(&f, text, i);
		(void)tc_finder_feed(&f, text + i, n - i);
		assert_int_equal(f.at, (int64_t)want);
		for (j = i; j <= n; j++) {
			tc_finder_init(&f, pat, sizeof(pat) - 1);
			(void)tc_finder_feed(&f, text, i);
			(void)tc_finder_feed(&f, text + i, j - i);
			(void)tc_finder_feed(&f, text + j, n - j);
			assert_int_equal(f.at, (int64_t)want);
		}
	}
	/* pieces of one size, 1 to n bytes (empty pieces between) */
	for (s = 1; s <= n; s++) {
		size_t sizes[2] = { s, 0 };

		assert_int_equal(find_in_pieces(pat, text, n, sizes, 1),
		    (int64_t)want);
		assert_int_equal(find_in_pieces(pat, text, n, sizes, 2),
		    (int64_t)want);
	}
}

static void
no_match_and_edges(void **state)
{
	static const size_t ones[] = { 1 };
	static const size_t threes[] = { 3 };
	tc_finder f;

	(void)state;
	/* absent, and a prefix of it at the very end */
	assert_int_equal(find_in_pieces("abcd", "xxabcxxabc", 10, ones, 1),
	    -1);
	assert_int_equal(find_in_pieces("abcd", "xxabcxxabc", 10, threes, 1),
	    -1);
	/* at the very start and the very end */
	assert_int_equal(find_in_pieces("abcd", "abcdxx", 6, ones, 1), 0);
	assert_int_equal(find_in_pieces("abcd", "xxabcd", 6, ones, 1), 2);
	/* overlapping candidates: the first full one */
	assert_int_equal(find_in_pieces("aab", "aaaab", 5, ones, 1), 2);
	/* a one-byte text keeps no tail */
	assert_int_equal(find_in_pieces("b", "aaaab", 5, threes, 1), 4);
	/* the longest text a finder takes, cut in two */
	{
		char pat[TC_FINDER_MAX + 1], text[3 * TC_FINDER_MAX];

		memset(pat, 'p', TC_FINDER_MAX);
		pat[TC_FINDER_MAX - 1] = 'q';
		pat[TC_FINDER_MAX] = '\0';
		memset(text, 'p', sizeof(text));
		memcpy(text + 70, pat, TC_FINDER_MAX);
		tc_finder_init(&f, pat, TC_FINDER_MAX);
		assert_false(tc_finder_feed(&f, text, 100));
		assert_true(tc_finder_feed(&f, text + 100, sizeof(text) - 100));
		assert_int_equal(f.at, 70);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_cut_finds_the_first_match),
		cmocka_unit_test(no_match_and_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
