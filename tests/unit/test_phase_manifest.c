/*
 * test_phase_manifest.c - phase manifests (docs/spec/controller.md
 * "Phase manifest loading"): each loading message in order, the shipped
 * manifests, the share-directory search and its environment override, and the
 * plan built for a current task.
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
#include "tunectl/json.h"
#include "tunectl/phase.h"
#include "unit_fixture.h"

struct fx {
	char *dir;
	char *tools;
	char *manifest;
};

static int
fx_setup(void **state)
{
	struct fx *f = tc_xcalloc(1, sizeof(*f));
	char *tool;

	f->dir = unit_tmpdir("phase");
	f->tools = tc_xasprintf("%s/tools", f->dir);
	f->manifest = tc_xasprintf("%s/phase.json", f->dir);
	tool = tc_xasprintf("%s/a.py", f->tools);
	assert_int_equal(tc_write_atomic(tool, "", 0, TC_WRITE_MKDIRS, NULL), 0);
	free(tool);
	tool = tc_xasprintf("%s/b.py", f->tools);
	assert_int_equal(tc_write_atomic(tool, "", 0, 0, NULL), 0);
	free(tool);
	unsetenv(TC_TOOLS_DIR_ENV);
	unsetenv(TC_PHASES_DIR_ENV);
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc = unit_rmtree(f->dir);

	unsetenv(TC_TOOLS_DIR_ENV);
	unsetenv(TC_PHASES_DIR_ENV);
	free(f->manifest);
	free(f->tools);
	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* Load a manifest text; returns the error message (malloc'd) or NULL. */
static char *
load(struct fx *f, const char *text, tc_phase_manifest **out)
{
	tc_error err = TC_ERROR_INIT;
	tc_phase_manifest *m = NULL;
	char *msg = NULL;

	unlink(f->manifest);
	assert_int_equal(tc_write_atomic(f->manifest, text, strlen(text), 0,
	    NULL), 0);
	if (tc_phase_manifest_load(f->manifest, f->tools, &m, &err) != 0) {
		msg = tc_xstrdup(tc_error_msg(&err));
		tc_error_clear(&err);
	}
	if (out != NULL)
		*out = m;
	else
		tc_phase_manifest_free(m);
	return msg;
}

#define HEAD "{\"schema_version\": \"superkernel-phase-manifest-v1\", "

static void
expect_load_error(struct fx *f, const char *text, const char *want)
{
	char *msg = load(f, text, NULL);

	assert_non_null(msg);
	assert_string_equal(msg, want);
	free(msg);
}

static void
test_manifest_messages_in_order(void **state)
{
	struct fx *f = *state;

	expect_load_error(f, "{\"schema_version\": \"x\"}",
	    "phase manifest schema_version is invalid");
	expect_load_error(f, "[]", "phase manifest schema_version is invalid");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"runtime_tools\": [\"a.py\"]}",
	    "phase manifest is missing required fields");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": []}",
	    "phase manifest runtime_tools is invalid");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"x/a.py\"]}",
	    "phase manifest runtime_tools is invalid");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"..\"]}",
	    "phase manifest runtime_tools is invalid");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"\"]}",
	    "phase manifest runtime_tools is invalid");
	expect_load_error(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"c.py\", \"a.py\", \"d.py\"]}",
	    "phase manifest references missing runtime tools: c.py, d.py");
	expect_load_error(f, "{", "Expecting property name enclosed in double "
	    "quotes: line 1 column 2 (char 1)");
}

static void
test_manifest_loads_tools_in_order(void **state)
{
	struct fx *f = *state;
	tc_phase_manifest *m = NULL;
	char *msg = load(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"b.py\", \"a.py\"]}", &m);

	assert_null(msg);
	assert_non_null(m);
	assert_int_equal(m->ntools, 2);
	assert_string_equal(m->tools[0], "b.py");
	assert_string_equal(m->tools[1], "a.py");
	assert_string_equal(tc_json_string(m->phase), "p");
	assert_true(m->path[0] == '/');
	tc_phase_manifest_free(m);
}

static void
test_share_dir_honours_the_environment(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *dir;

	setenv(TC_TOOLS_DIR_ENV, f->tools, 1);
	dir = tc_share_dir("/nonexistent/bin/tunectl", "tools", &err);
	assert_non_null(dir);
	assert_string_equal(dir, f->tools);
	free(dir);
}

static void
test_share_dir_searches_installed_then_source_layouts(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	char *exe = tc_xasprintf("%s/prefix/bin/tunectl", f->dir);
	char *installed = tc_xasprintf("%s/prefix/share/tunectl/tools", f->dir);
	char *src_exe = tc_xasprintf("%s/src/build/mine/tunectl", f->dir);
	char *src = tc_xasprintf("%s/src/share/phases", f->dir);
	char *dir;

	assert_int_equal(tc_mkdirs(installed, NULL), 0);
	assert_int_equal(tc_mkdirs(src, NULL), 0);
	dir = tc_share_dir(exe, "tools", &err);
	assert_non_null(dir);
	assert_string_equal(dir, installed);
	free(dir);
	dir = tc_share_dir(src_exe, "phases", &err);
	assert_non_null(dir);
	assert_string_equal(dir, src);
	free(dir);
	assert_null(tc_share_dir(exe, "phases", &err));
	assert_non_null(strstr(tc_error_msg(&err),
	    "no tunectl phases directory found (set TUNECTL_PHASES_DIR)"));
	tc_error_clear(&err);
	free(exe);
	free(installed);
	free(src_exe);
	free(src);
}

static void
test_shipped_manifests_load_against_shipped_tools(void **state)
{
	static const char *const phases[] = {
		"intake_preparation", "s0_baseline", "stage_a_scope_selection",
		"stage_o_option_tuning", "base_profile_source_mapping",
		"optional_experiments", "final_e2e_report"
	};
	const char *src = getenv("TUNECTL_SRC");
	char *tools, *root;
	size_t i;

	(void)state;
	root = tc_xstrdup(src != NULL ? src : ".");
	tools = tc_xasprintf("%s/share/tools", root);
	for (i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		char *path = tc_xasprintf("%s/share/phases/%s/phase.json", root,
		    phases[i]);
		tc_error err = TC_ERROR_INIT;
		tc_phase_manifest *m = NULL;
		char *skill = tc_xasprintf("superkernel-%s", phases[i]);
		char *p;

		for (p = skill; *p != '\0'; p++)
			if (*p == '_')
				*p = '-';
		assert_int_equal(tc_phase_manifest_load(path, tools, &m, &err),
		    0);
		assert_string_equal(tc_json_string(m->phase), phases[i]);
		assert_string_equal(tc_json_string(m->skill), skill);
		tc_phase_manifest_free(m);
		free(skill);
		free(path);
	}
	free(tools);
	free(root);
}

static void
test_plan_lists_each_tool_with_help(void **state)
{
	struct fx *f = *state;
	const char *cur = "{\"session_fingerprint\": \"ff\", \"session_path\": "
	    "\"/s.json\", \"step\": {\"step_id\": \"s0-baseline\"}}";
	tc_error err = TC_ERROR_INIT;
	tc_phase_manifest *m = NULL;
	tc_json *current, *plan, *cmds;
	char *msg = load(f, HEAD "\"phase\": \"p\", \"agent_id\": \"a\", "
	    "\"skill\": \"s\", \"runtime_tools\": [\"a.py\", \"b.py\"]}", &m);
	char *want;

	assert_null(msg);
	current = tc_json_parse(cur, strlen(cur), &err);
	plan = tc_phase_plan(m, current);
	assert_string_equal(tc_json_get_string(plan, "task_fingerprint"), "ff");
	assert_string_equal(tc_json_get_string(plan, "phase_manifest"), m->path);
	cmds = tc_json_get_array(plan, "commands");
	assert_int_equal(cmds->u.arr.len, 2);
	want = tc_xasprintf("%s/b.py", m->tools_dir);
	assert_string_equal(tc_json_string(tc_json_get_array(cmds->u.arr.items[1],
	    "argv")->u.arr.items[0]), want);
	assert_string_equal(tc_json_get_string(tc_json_get(plan, "handoff"),
	    "step_id"), "s0-baseline");
	free(want);
	tc_json_free(plan);
	tc_json_free(current);
	tc_phase_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_manifest_messages_in_order,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_manifest_loads_tools_in_order, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_share_dir_honours_the_environment, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(
		    test_share_dir_searches_installed_then_source_layouts,
		    fx_setup, fx_teardown),
		cmocka_unit_test(
		    test_shipped_manifests_load_against_shipped_tools),
		cmocka_unit_test_setup_teardown(
		    test_plan_lists_each_tool_with_help, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
