/*
 * test_path.c - pathlib normalisation, joining, parent/name, containment,
 * symlink resolution (strict and not) and the artifact-root guard.
 * Expected values were computed with Python 3.11's pathlib.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "unit_fixture.h"

/* ---- lexical ------------------------------------------------------------ */

static const struct {
	const char *in, *norm, *parent, *name;
} norm_table[] = {
	{ "", ".", ".", "" },
	{ ".", ".", ".", "" },
	{ "./", ".", ".", "" },
	{ "/", "/", "/", "" },
	{ "//", "//", "//", "" },
	{ "///", "/", "/", "" },
	{ "//a", "//a", "//", "a" },
	{ "///a//b", "/a/b", "/a", "b" },
	{ "a//b", "a/b", "a", "b" },
	{ "a/./b", "a/b", "a", "b" },
	{ "./a", "a", ".", "a" },
	{ "a/", "a", ".", "a" },
	{ "a/..", "a/..", "a", ".." },
	{ "../a", "../a", "..", "a" },
	{ "/..", "/..", "/", ".." },
	{ "/../a", "/../a", "/..", "a" },
	{ "a/b/../c", "a/b/../c", "a/b/..", "c" },
	{ "./../.", "..", ".", ".." },
	{ "a/.", "a", ".", "a" },
	{ "/./", "/", "/", "" },
	{ ".a", ".a", ".", ".a" },
	{ "a/.b/", "a/.b", "a", ".b" },
	{ "...", "...", ".", "..." },
	{ "//a/..", "//a/..", "//a", ".." },
	{ "//.", "//", "//", "" },
	{ "/a/b/", "/a/b", "/a", "b" },
	{ " a ", " a ", ".", " a " },
	{ "a b/c", "a b/c", "a b", "c" },
	{ "a\\b", "a\\b", ".", "a\\b" },
	{ "x/./././y//", "x/y", "x", "y" },
};

static void
normalize_matches_pathlib_str(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(norm_table) / sizeof(norm_table[0]); i++) {
		char *n = tc_path_normalize(norm_table[i].in);

		if (strcmp(n, norm_table[i].norm) != 0)
			fail_msg("normalize(%s) = %s, want %s",
			    norm_table[i].in, n, norm_table[i].norm);
		free(n);
	}
}

static void
dirname_matches_pathlib_parent(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(norm_table) / sizeof(norm_table[0]); i++) {
		char *d = tc_path_dirname(norm_table[i].in);

		if (strcmp(d, norm_table[i].parent) != 0)
			fail_msg("dirname(%s) = %s, want %s",
			    norm_table[i].in, d, norm_table[i].parent);
		free(d);
	}
}

static void
basename_of_normalised_path_matches_pathlib_name(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(norm_table) / sizeof(norm_table[0]); i++) {
		char *n = tc_path_normalize(norm_table[i].in);

		if (strcmp(tc_path_basename(n), norm_table[i].name) != 0)
			fail_msg("basename(%s) = %s, want %s", n,
			    tc_path_basename(n), norm_table[i].name);
		free(n);
	}
}

static void
join_matches_pathlib_division(void **state)
{
	static const struct {
		const char *a, *b, *want;
	} t[] = {
		{ "a", "b", "a/b" },
		{ "a", "/b", "/b" },
		{ "/x", "", "/x" },
		{ "", "a", "a" },
		{ "a", "//b", "//b" },
		{ "a", "..", "a/.." },
		{ "/a/", "./b/", "/a/b" },
		{ "a/b", "c/../d", "a/b/c/../d" },
		{ ".", ".", "." },
		{ "//", "b", "//b" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *j = tc_path_join(t[i].a, t[i].b);

		if (strcmp(j, t[i].want) != 0)
			fail_msg("join(%s, %s) = %s, want %s", t[i].a, t[i].b,
			    j, t[i].want);
		free(j);
	}
}

static void
is_within_compares_whole_components(void **state)
{
	(void)state;
	assert_true(tc_path_is_within("/a/b", "/a/b"));
	assert_true(tc_path_is_within("/a/b/c", "/a/b"));
	assert_true(tc_path_is_within("/a/b/c", "/a/b/"));
	assert_true(tc_path_is_within("/a", "/"));
	assert_false(tc_path_is_within("/a/bc", "/a/b"));
	assert_false(tc_path_is_within("/a", "/a/b"));
	assert_false(tc_path_is_within("/ab", "/a"));
	assert_false(tc_path_is_within("a", "/"));
}

static void
relative_to_strips_the_root(void **state)
{
	char *r;

	(void)state;
	r = tc_path_relative_to("/a/b/c/d", "/a/b");
	assert_string_equal(r, "c/d");
	free(r);
	r = tc_path_relative_to("/a/b", "/a/b");
	assert_string_equal(r, ".");
	free(r);
	r = tc_path_relative_to("/a/b", "/");
	assert_string_equal(r, "a/b");
	free(r);
	assert_null(tc_path_relative_to("/a/bc", "/a/b"));
}

static void
relative_artifact_predicate_matches_the_ledger(void **state)
{
	(void)state;
	assert_true(tc_path_is_relative_artifact("a"));
	assert_true(tc_path_is_relative_artifact("a/b.json"));
	assert_true(tc_path_is_relative_artifact("..a/b.."));
	assert_true(tc_path_is_relative_artifact("C:\\x"));
	assert_true(tc_path_is_relative_artifact("a b"));
	assert_false(tc_path_is_relative_artifact(NULL));
	assert_false(tc_path_is_relative_artifact(""));
	assert_false(tc_path_is_relative_artifact("   "));
	assert_false(tc_path_is_relative_artifact(" a"));
	assert_false(tc_path_is_relative_artifact("a\n"));
	assert_false(tc_path_is_relative_artifact("a\x1f"));
	assert_false(tc_path_is_relative_artifact("\xe3\x80\x80" "a"));	/* U+3000 */
	assert_false(tc_path_is_relative_artifact("a\xc2\xa0"));		/* U+00A0 */
	assert_false(tc_path_is_relative_artifact("/a"));
	assert_false(tc_path_is_relative_artifact(".."));
	assert_false(tc_path_is_relative_artifact("a/../b"));
	assert_false(tc_path_is_relative_artifact("a/.."));
	/* An invalid byte is not whitespace (surrogateescape). */
	assert_true(tc_path_is_relative_artifact("a\xff"));
}

static void
repr_quotes_like_python_and_escapes_undecodable_bytes(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
	tc_path_repr(&b, "a/b");
	assert_string_equal(tc_buf_cstr(&b), "'a/b'");
	tc_buf_reset(&b);
	tc_path_repr(&b, "it's");
	assert_string_equal(tc_buf_cstr(&b), "\"it's\"");
	tc_buf_reset(&b);
	tc_path_repr(&b, "x\xffy");
	assert_string_equal(tc_buf_cstr(&b), "'x\\udcffy'");
	tc_buf_reset(&b);
	tc_path_repr(&b, "\xe6\x97\xa5");	/* printable CJK stays literal */
	assert_string_equal(tc_buf_cstr(&b), "'\xe6\x97\xa5'");
	tc_buf_free(&b);
}

/* ---- filesystem fixture ------------------------------------------------- */

/*
 * <tmp>/root/{f, d/, d/up -> ../f, abs -> <tmp>/outside, esc -> ../outside,
 *             mid -> ../outside (used as an intermediate component),
 *             back -> ../root/f, loop -> loop, dangling -> nowhere}
 * <tmp>/outside/secret
 * <tmp>/loop1 -> loop2, <tmp>/loop2 -> loop1
 */
struct fx {
	char *tmp;
	char *root;
	char *outside;
	char *oldcwd;
};

static void
touch(const char *path)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs("x", fp);
	fclose(fp);
}

static void
link_at(const char *base, const char *name, const char *target)
{
	char *p = tc_xasprintf("%s/%s", base, name);

	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));
	char *p;

	f->tmp = unit_tmpdir("path");
	f->root = tc_xasprintf("%s/root", f->tmp);
	f->outside = tc_xasprintf("%s/outside", f->tmp);
	f->oldcwd = getcwd(NULL, 0);
	assert_int_equal(mkdir(f->root, 0777), 0);
	assert_int_equal(mkdir(f->outside, 0777), 0);
	p = tc_xasprintf("%s/d", f->root);
	assert_int_equal(mkdir(p, 0777), 0);
	free(p);
	p = tc_xasprintf("%s/f", f->root);
	touch(p);
	free(p);
	p = tc_xasprintf("%s/secret", f->outside);
	touch(p);
	free(p);
	link_at(f->root, "d/up", "../f");
	link_at(f->root, "abs", f->outside);
	link_at(f->root, "esc", "../outside");
	link_at(f->root, "mid", "../outside");
	link_at(f->root, "back", "../root/f");
	link_at(f->root, "loop", "loop");
	link_at(f->root, "dangling", "nowhere");
	link_at(f->tmp, "loop1", "loop2");
	link_at(f->tmp, "loop2", "loop1");
	assert_int_equal(chdir(f->tmp), 0);
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	if (chdir(f->oldcwd) != 0)
		return -1;
	if (unit_rmtree(f->tmp) != 0)
		return -1;
	free(f->tmp);
	free(f->root);
	free(f->outside);
	free(f->oldcwd);
	free(f);
	return 0;
}

/* Resolve rel (relative to the fixture's tmp dir) and compare with
 * want (also relative to tmp, "" for tmp itself). */
static void
expect_resolve(struct fx *f, const char *rel, const char *want)
{
	tc_error err = TC_ERROR_INIT;
	char *r = tc_path_resolve(rel, &err);
	char *w = want[0] != '\0' ? tc_xasprintf("%s/%s", f->tmp, want) :
	    tc_xstrdup(f->tmp);

	if (r == NULL)
		fail_msg("resolve(%s) failed: %s", rel, tc_error_msg(&err));
	if (strcmp(r, w) != 0)
		fail_msg("resolve(%s) = %s, want %s", rel, r, w);
	free(r);
	free(w);
}

static void
resolve_follows_links_and_keeps_missing_tails(void **state)
{
	struct fx *f = *state;

	expect_resolve(f, "root/d/up", "root/f");
	expect_resolve(f, "root/abs/secret", "outside/secret");
	expect_resolve(f, "root/dangling", "root/nowhere");
	expect_resolve(f, "root/dangling/x", "root/nowhere/x");
	expect_resolve(f, "root/f/x", "root/f/x");
	expect_resolve(f, "nope/x/..", "nope");
	expect_resolve(f, "root/d/../f", "root/f");
	expect_resolve(f, "root/abs/..", "");	/* ".." after the link */
	expect_resolve(f, "", "");
	expect_resolve(f, ".", "");
	expect_resolve(f, "./root//d/", "root/d");
}

static void
resolve_of_absolute_path_ignores_cwd(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *in = tc_xasprintf("%s/root/esc/secret", f->tmp);
	char *want = tc_xasprintf("%s/outside/secret", f->tmp);
	char *r;

	assert_int_equal(chdir("/"), 0);
	r = tc_path_resolve(in, &err);
	assert_non_null(r);
	assert_string_equal(r, want);
	free(r);
	r = tc_path_resolve("/..", &err);
	assert_string_equal(r, "/");
	free(r);
	free(in);
	free(want);
}

static void
resolve_reports_symlink_loops_like_pathlib(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *want;

	(void)f;
	assert_null(tc_path_resolve("loop1", &err));
	want = tc_xasprintf("Symlink loop from '%s/loop1'", f->tmp);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	/* pathlib names the unresolved link plus the rest of the path. */
	assert_null(tc_path_resolve("loop1/x", &err));
	want = tc_xasprintf("Symlink loop from '%s/loop1/x'", f->tmp);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	assert_null(tc_path_resolve("root/loop", &err));
	want = tc_xasprintf("Symlink loop from '%s/root/loop'", f->tmp);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	tc_error_clear(&err);
}

static void
strict_resolve_fails_on_missing_components_with_python_messages(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *r, *want;

	r = tc_path_resolve_strict("root/d/up", &err);
	want = tc_xasprintf("%s/root/f", f->tmp);
	assert_non_null(r);
	assert_string_equal(r, want);
	free(r);
	free(want);
	assert_null(tc_path_resolve_strict("root/nope", &err));
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: 'root/nope'");
	assert_null(tc_path_resolve_strict("root/nope/x", &err));
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: 'root/nope'");
	assert_null(tc_path_resolve_strict("root/f/x", &err));
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 20] Not a directory: 'root/f/x'");
	assert_null(tc_path_resolve_strict("root/dangling", &err));
	assert_string_equal(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: 'root/nowhere'");
	assert_null(tc_path_resolve_strict("loop1", &err));
	assert_string_equal(tc_error_msg(&err), "Symlink loop from 'loop1'");
	assert_null(tc_path_resolve_strict("loop1/x", &err));
	assert_string_equal(tc_error_msg(&err), "Symlink loop from 'loop1'");
	tc_error_clear(&err);
}

static void
under_root_refuses_bad_values_with_distinct_messages(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;

	assert_null(tc_path_under_root(f->root, NULL, "evidence", &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must be a non-empty relative path");
	assert_null(tc_path_under_root(f->root, " \t", "evidence", &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must be a non-empty relative path");
	assert_null(tc_path_under_root(f->root, "f ", "evidence", &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must not begin or end with whitespace: 'f '");
	assert_null(tc_path_under_root(f->root, "/etc/passwd", "evidence",
	    &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must be a relative path inside the artifact root, not "
	    "an absolute path: '/etc/passwd'");
	assert_null(tc_path_under_root(f->root, "d/../f", "evidence", &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must not contain a '..' component: 'd/../f'");
	assert_null(tc_path_under_root(f->root, "..", "evidence", &err));
	assert_string_equal(tc_error_msg(&err),
	    "evidence must not contain a '..' component: '..'");
	tc_error_clear(&err);
}

static void
expect_escape(struct fx *f, const char *value, const char *resolved_rel)
{
	tc_error err = TC_ERROR_INIT;
	char *want = tc_xasprintf("ledger_path escapes the artifact root: "
	    "'%s' resolves to '%s/%s'", value, f->tmp, resolved_rel);

	if (tc_path_under_root(f->root, value, "ledger_path", &err) != NULL)
		fail_msg("%s was accepted", value);
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	tc_error_clear(&err);
}

static void
under_root_refuses_symlinks_that_leave_the_root(void **state)
{
	struct fx *f = *state;

	expect_escape(f, "esc", "outside");			/* relative target */
	expect_escape(f, "abs", "outside");			/* absolute target */
	expect_escape(f, "mid/secret", "outside/secret");	/* intermediate */
	expect_escape(f, "mid/missing", "outside/missing");
}

static void
under_root_reports_loops_with_the_label(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *want = tc_xasprintf("ledger_path cannot be resolved: Symlink "
	    "loop from '%s/root/loop/x'", f->tmp);

	assert_null(tc_path_under_root(f->root, "loop/x", "ledger_path", &err));
	assert_string_equal(tc_error_msg(&err), want);
	free(want);
	tc_error_clear(&err);
}

static void
under_root_accepts_inside_paths_even_through_links(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *want = tc_xasprintf("%s/root/f", f->tmp);
	char *r;

	r = tc_path_under_root(f->root, "f", "x", &err);
	assert_string_equal(r, want);
	free(r);
	r = tc_path_under_root(f->root, "back", "x", &err);	/* out and in */
	assert_string_equal(r, want);
	free(r);
	r = tc_path_under_root(f->root, "d/up", "x", &err);
	assert_string_equal(r, want);
	free(r);
	free(want);
	/* Non-strict: a missing file still resolves inside the root. */
	want = tc_xasprintf("%s/root/d/new.json", f->tmp);
	r = tc_path_under_root(f->root, "./d//new.json", "x", &err);
	assert_string_equal(r, want);
	free(r);
	free(want);
	/* A relative root resolves against the cwd. */
	want = tc_xasprintf("%s/root/f", f->tmp);
	r = tc_path_under_root("root", "f", "x", &err);
	assert_string_equal(r, want);
	free(r);
	free(want);
	tc_error_clear(&err);
}

static void
under_root_requires_an_existing_root_directory(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *file = tc_xasprintf("%s/f", f->root);
	char *want = tc_xasprintf("artifact root must be an existing "
	    "directory: '%s'", file);

	assert_null(tc_path_under_root(file, "x", "x", &err));
	assert_string_equal(tc_error_msg(&err), want);
	assert_null(tc_path_under_root("no-such-root", "x", "x", &err));
	assert_string_equal(tc_error_msg(&err), "artifact root must be an "
	    "existing directory: 'no-such-root'");
	free(want);
	free(file);
	tc_error_clear(&err);
}

static void
within_strict_returns_path_and_relative_string(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *rel = NULL, *r, *want = tc_xasprintf("%s/root/f", f->tmp);

	r = tc_path_within_strict(f->root, "root/d/up", "parent session", &rel,
	    &err);
	assert_non_null(r);
	assert_string_equal(r, want);
	assert_string_equal(rel, "f");
	free(r);
	free(rel);
	free(want);
}

static void
within_strict_reports_the_reference_messages(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *rel = (char *)"unchanged";

	assert_null(tc_path_within_strict(f->root, "root/nope.json",
	    "imported artifact ledger", &rel, &err));
	assert_null(rel);
	assert_string_equal(tc_error_msg(&err), "imported artifact ledger "
	    "cannot be read: [Errno 2] No such file or directory: "
	    "'root/nope.json'");
	assert_null(tc_path_within_strict(f->root, "root/esc/secret", "role",
	    NULL, &err));
	assert_string_equal(tc_error_msg(&err),
	    "role must be inside the parent artifact root");
	assert_null(tc_path_within_strict(f->root, "root/d", "role", NULL,
	    &err));
	assert_string_equal(tc_error_msg(&err), "role must be a regular file");
	assert_null(tc_path_within_strict(f->root, "root/loop", "role", NULL,
	    &err));
	assert_string_equal(tc_error_msg(&err),
	    "role cannot be read: Symlink loop from 'root/loop'");
	tc_error_clear(&err);
}

static void
regular_file_tests_distinguish_links(void **state)
{
	(void)state;
	assert_true(tc_is_regular_file("root/back"));
	assert_false(tc_is_regular_file_nofollow("root/back"));
	assert_true(tc_is_regular_file_nofollow("root/f"));
	assert_false(tc_is_regular_file("root/d"));
	assert_true(tc_is_directory("root/abs"));
	assert_true(tc_path_exists("root/dangling"));
	assert_false(tc_is_regular_file("root/dangling"));
	assert_false(tc_path_exists("root/none"));
}

/* Below a resolved base, every relative path resolves as the joined
 * path does: links inside, links out, loops, missing tails. */
static void
resolve_below_matches_resolving_the_joined_path(void **state)
{
	static const char *const rels[] = {
		"f", "d/up", "abs/secret", "esc", "back", "dangling",
		"dangling/x", "f/x", "d/./up", "d//up/", ".", "loop", "nope/x",
	};
	struct fx *f = *state;
	tc_error e1 = TC_ERROR_INIT, e2 = TC_ERROR_INIT;
	char *base = tc_path_resolve(f->root, NULL);
	size_t i;

	assert_non_null(base);
	for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		char *joined = tc_path_join(base, rels[i]);
		char *want = tc_path_resolve(joined, &e1);
		char *got = tc_path_resolve_below(base, rels[i], &e2);

		if (want == NULL) {
			assert_null(got);
			assert_string_equal(tc_error_msg(&e2),
			    tc_error_msg(&e1));
		} else {
			assert_non_null(got);
			assert_string_equal(got, want);
		}
		free(joined);
		free(want);
		free(got);
	}
	free(base);
	tc_error_clear(&e1);
	tc_error_clear(&e2);
}

/* The resolved root is remembered between calls, but never past a change
 * of what the root names: a root swapped for a link to another directory
 * is resolved again. */
static void
under_root_sees_a_root_that_changed_between_calls(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *moved = tc_xasprintf("%s/root-moved", f->tmp);
	char *r, *want;

	r = tc_path_under_root("root", "f", "evidence", &err);
	want = tc_xasprintf("%s/root/f", f->tmp);
	assert_non_null(r);
	assert_string_equal(r, want);
	free(r);
	free(want);
	/* "root" now leads to outside/: secret is inside it */
	assert_int_equal(rename(f->root, moved), 0);
	link_at(f->tmp, "root", "outside");
	r = tc_path_under_root("root", "secret", "evidence", &err);
	want = tc_xasprintf("%s/outside/secret", f->tmp);
	assert_non_null(r);
	assert_string_equal(r, want);
	free(r);
	free(want);
	/* and a root that is gone is refused */
	assert_int_equal(unlink("root"), 0);
	assert_null(tc_path_under_root("root", "f", "evidence", &err));
	assert_string_equal(tc_error_msg(&err), "artifact root must be an "
	    "existing directory: 'root'");
	/* put the fixture back for its teardown */
	assert_int_equal(rename(moved, f->root), 0);
	free(moved);
	tc_error_clear(&err);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalize_matches_pathlib_str),
		cmocka_unit_test(dirname_matches_pathlib_parent),
		cmocka_unit_test(basename_of_normalised_path_matches_pathlib_name),
		cmocka_unit_test(join_matches_pathlib_division),
		cmocka_unit_test(is_within_compares_whole_components),
		cmocka_unit_test(relative_to_strips_the_root),
		cmocka_unit_test(relative_artifact_predicate_matches_the_ledger),
		cmocka_unit_test(repr_quotes_like_python_and_escapes_undecodable_bytes),
		FX(resolve_follows_links_and_keeps_missing_tails),
		FX(resolve_of_absolute_path_ignores_cwd),
		FX(resolve_reports_symlink_loops_like_pathlib),
		FX(strict_resolve_fails_on_missing_components_with_python_messages),
		FX(under_root_refuses_bad_values_with_distinct_messages),
		FX(under_root_refuses_symlinks_that_leave_the_root),
		FX(under_root_reports_loops_with_the_label),
		FX(under_root_accepts_inside_paths_even_through_links),
		FX(under_root_requires_an_existing_root_directory),
		FX(within_strict_returns_path_and_relative_string),
		FX(within_strict_reports_the_reference_messages),
		FX(regular_file_tests_distinguish_links),
		FX(resolve_below_matches_resolving_the_joined_path),
		FX(under_root_sees_a_root_that_changed_between_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
