/*
 * test_skills.c - SKILL.md front matter, skill names, the support-role
 * table, and tree snapshots (what a support run compares to find what a
 * worker changed).
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
#include "tunectl/phases.h"
#include "tunectl/sha256.h"
#include "tunectl/skills.h"
#include "unit_fixture.h"

static int
parse(const char *text, char **name, char **description, tc_error *err)
{
	return tc_skill_front_matter(text, strlen(text), name, description, err);
}

static void
front_matter_gives_name_and_description(void **state)
{
	char *name, *desc;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(parse("---\nname: superkernel-s0-baseline\n"
	    "description: \"Measure S0: five runs.\"\nother: x\n---\n\n# S0\n",
	    &name, &desc, &err), 0);
	assert_string_equal(name, "superkernel-s0-baseline");
	assert_string_equal(desc, "Measure S0: five runs.");
	free(name);
	free(desc);
}

static void
front_matter_errors_name_what_is_wrong(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "# no front matter\n", "SKILL.md has no front matter" },
		{ "---\nname: a\ndescription: b\n", "is not closed" },
		{ "---\ndescription: b\n---\n", "front matter lacks name" },
		{ "---\nname: a-b\n---\n", "front matter lacks description" },
		{ "---\nname: A_b\ndescription: c\n---\n", "skill name is invalid: 'A_b'" },
		{ "---\nname: -ab\ndescription: c\n---\n", "skill name is invalid" },
		{ "---\nname: a--b\ndescription: c\n---\n", "skill name is invalid" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *name = NULL, *desc = NULL;
		tc_error err = TC_ERROR_INIT;

		assert_int_equal(parse(cases[i].text, &name, &desc, &err), -1);
		assert_null(name);
		assert_null(desc);
		assert_non_null(strstr(tc_error_msg(&err), cases[i].message));
		tc_error_clear(&err);
	}
}

static void
front_matter_refuses_an_overlong_description(void **state)
{
	tc_buf b = TC_BUF_INIT;
	char *name = NULL, *desc = NULL;
	tc_error err = TC_ERROR_INIT;
	int i;

	(void)state;
	tc_buf_puts(&b, "---\nname: x\ndescription: ");
	for (i = 0; i < TC_SKILL_DESCRIPTION_MAX + 1; i++)
		tc_buf_putc(&b, 'd');
	tc_buf_puts(&b, "\n---\n");
	assert_int_equal(parse(tc_buf_cstr(&b), &name, &desc, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "longer than 1024"));
	tc_error_clear(&err);
	tc_buf_free(&b);
}

static void
every_phase_skill_and_role_is_expected(void **state)
{
	const char *names[32];
	size_t n, i;
	int id;

	(void)state;
	n = tc_skills_expected(names, 32);
	assert_int_equal(n, TC_PHASE_COUNT + 1 + TC_SUPPORT_ROLE_COUNT + 1);
	for (id = 0; id < TC_PHASE_COUNT; id++)
		assert_string_equal(names[id], tc_phase_get((tc_phase_id)id)->skill);
	for (i = 0; i < n; i++) {
		assert_true(tc_skill_name_valid(names[i]));
		assert_string_not_equal(tc_skill_kind(names[i]), "other");
	}
	assert_string_equal(tc_skill_kind("superkernel-s0-baseline"), "phase");
	assert_string_equal(tc_skill_kind("superkernel-sk-prof-timeline"),
	    "support");
	assert_string_equal(tc_skill_kind("someone-elses-skill"), "other");
}

static void
support_roles_name_their_skills_and_phases(void **state)
{
	const tc_support_role *r;

	(void)state;
	r = tc_support_role_find("sk-fusion-performance-analyst");
	assert_non_null(r);
	assert_true(r->read_only);
	assert_string_equal(r->skill, "superkernel-fusion-performance-analysis");
	r = tc_support_role_find("sk-source-range-experiment-executor");
	assert_non_null(r);
	assert_false(r->read_only);
	assert_string_equal(r->branch, "source-range");
	assert_null(tc_support_role_find("sk-intake-preparation"));
	assert_null(tc_support_role_find(NULL));
}

static void
host_layouts_are_the_documented_directories(void **state)
{
	(void)state;
	assert_string_equal(tc_skills_host_subdir("claude"), ".claude/skills");
	assert_string_equal(tc_skills_host_subdir("codex"), ".agents/skills");
	assert_string_equal(tc_skills_host_subdir("opencode"), ".opencode/skills");
	assert_null(tc_skills_host_subdir("generic"));
}

/* ---- tree snapshots ------------------------------------------------------ */

static void
put(const char *dir, const char *rel, const char *text)
{
	char *path = tc_xasprintf("%s/%s", dir, rel);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(path);
}

static void
collect(const char *rel, void *ctx)
{
	tc_buf *b = ctx;

	tc_buf_printf(b, "%s;", rel);
}

static void
snapshots_name_added_removed_changed_and_retyped_paths(void **state)
{
	char *dir = unit_tmpdir("snap"), *p;
	const char *const skip[] = { "out", "c/skipped.txt", NULL };
	tc_tree_snap before, after;
	tc_error err = TC_ERROR_INIT;
	tc_buf changed = TC_BUF_INIT;
	size_t n;

	(void)state;
	assert_non_null(dir);
	p = tc_xasprintf("%s/c", dir);
	assert_int_equal(mkdir(p, 0777), 0);
	free(p);
	p = tc_xasprintf("%s/out", dir);
	assert_int_equal(mkdir(p, 0777), 0);
	free(p);
	put(dir, "a.txt", "a");
	put(dir, "c/b.txt", "b");
	put(dir, "c/gone.txt", "g");
	put(dir, "c/skipped.txt", "s");
	p = tc_xasprintf("%s/link", dir);
	assert_int_equal(symlink("a.txt", p), 0);
	free(p);
	assert_int_equal(tc_tree_snapshot(dir, skip, &before, &err), 0);
	/* a: 'f' a.txt, c, c/b.txt, c/gone.txt, link ('l'); out and c/skipped skipped */
	assert_int_equal(before.n, 5);

	put(dir, "a.txt", "A");			/* changed */
	put(dir, "c/new.txt", "n");		/* added */
	p = tc_xasprintf("%s/c/gone.txt", dir);	/* removed */
	assert_int_equal(unlink(p), 0);
	free(p);
	p = tc_xasprintf("%s/link", dir);	/* retargeted link */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("c/b.txt", p), 0);
	free(p);
	p = tc_xasprintf("%s/fifo", dir);	/* a FIFO is recorded, never opened */
	assert_int_equal(mkfifo(p, 0666), 0);
	free(p);
	put(dir, "out/free.txt", "x");		/* inside a skipped directory */
	put(dir, "c/skipped.txt", "S");		/* a skipped file */
	assert_int_equal(tc_tree_snapshot(dir, skip, &after, &err), 0);

	n = tc_tree_snap_diff(&before, &after, collect, &changed);
	assert_int_equal(n, 5);
	assert_string_equal(tc_buf_cstr(&changed),
	    "a.txt;c/gone.txt;c/new.txt;fifo;link;");
	tc_buf_reset(&changed);
	assert_int_equal(tc_tree_snap_diff(&after, &after, collect, &changed), 0);
	assert_string_equal(tc_buf_cstr(&changed), "");

	tc_tree_snap_free(&before);
	tc_tree_snap_free(&after);
	tc_buf_free(&changed);
	assert_int_equal(unit_rmtree(dir), 0);
	free(dir);
}

static void
snapshot_of_a_missing_directory_fails(void **state)
{
	tc_tree_snap s;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_int_equal(tc_tree_snapshot("/nonexistent/tunectl", NULL, &s,
	    &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "No such file or directory"));
	assert_int_equal(s.n, 0);
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(front_matter_gives_name_and_description),
		cmocka_unit_test(front_matter_errors_name_what_is_wrong),
		cmocka_unit_test(front_matter_refuses_an_overlong_description),
		cmocka_unit_test(every_phase_skill_and_role_is_expected),
		cmocka_unit_test(support_roles_name_their_skills_and_phases),
		cmocka_unit_test(host_layouts_are_the_documented_directories),
		cmocka_unit_test(snapshots_name_added_removed_changed_and_retyped_paths),
		cmocka_unit_test(snapshot_of_a_missing_directory_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
