/*
 * inputs.c - the Stage 5 required-input check (pypto-orchestration.md
 * docs/spec/pypto.md "Stage 5 inputs and boundary"): every authoritative input
 * the optimizer must read before anything else exists and parses.  One that
 * does not is a frozen input Stage 5 may not rebuild: the exit is
 * stage5_contract_blocked.
 *
 * The skill's own sources ($CANNBOT_CONFIG_ROOT: performance-constraints,
 * the general methods, card and template indexes) live outside the
 * operator directory; the item ledger records and re-checks them
 * (pypto items source --index).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "stage5_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_stage5.h"

static void
add(tc_json *list, tc_json *missing, const char *name, const char *role,
    const char *status, const char *detail)
{
	tc_json *i = tc_json_new_object();

	tc_json_object_set_string(i, "name", name);
	tc_json_object_set_string(i, "role", role);
	tc_json_object_set_string(i, "status", status);
	if (detail != NULL)
		tc_json_object_set_string(i, "detail", detail);
	else
		tc_json_object_set_null(i, "detail");
	tc_json_array_push(list, i);
	if (strcmp(status, "present") != 0)
		tc_json_array_push(missing, tc_json_new_string(name));
}

/* A regular, non-empty file. */
static void
need_file(tc_json *list, tc_json *missing, const char *op_dir,
    const char *name, const char *role)
{
	char *p = tc_path_join(op_dir, name);
	tc_error err = TC_ERROR_INIT;
	size_t len = 0;
	char *text = tc_is_regular_file_nofollow(p) ?
	    tc_read_file(p, 0, &len, &err) : NULL;

	if (text == NULL)
		add(list, missing, name, role, "missing", tc_error_msg(&err)[0] ?
		    tc_error_msg(&err) : "no such regular file");
	else if (len == 0)
		add(list, missing, name, role, "unparseable", "the file is empty");
	else
		add(list, missing, name, role, "present", NULL);
	free(text);
	free(p);
	tc_error_clear(&err);
}

/* The operator's own file <op><suffix> (its Golden scripts). */
static void
need_op_file(tc_json *list, tc_json *missing, const char *op_dir,
    const char *suffix, const char *role)
{
	char *name = tc_xasprintf("%s%s", tc_path_basename(op_dir), suffix);

	need_file(list, missing, op_dir, name, role);
	free(name);
}

/* An input a loader read: present when it loaded, else missing (no such
 * file) or unparseable, with the loader's message (cleared here). */
static void
add_loaded(tc_json *list, tc_json *missing, const char *name,
    const char *role, bool loaded, tc_error *err)
{
	if (loaded)
		add(list, missing, name, role, "present", NULL);
	else
		add(list, missing, name, role, strstr(tc_error_msg(err),
		    "Errno 2") != NULL ? "missing" : "unparseable",
		    tc_error_msg(err));
	tc_error_clear(err);
}

/* Every SPEC P0 case has a test: a top-level "def test_...(" whose name
 * contains the case name. */
static char *
p0_without_test(const char *runner_text, const tc_json *p0)
{
	tc_buf miss = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < p0->u.arr.len; i++) {
		const char *name = tc_json_string(p0->u.arr.items[i]);
		const char *p = runner_text;
		bool found = false;

		while (!found && (p = strstr(p, "def test_")) != NULL) {
			size_t n = strcspn(p + 4, "(: \t\n");
			char *fn = tc_xstrndup(p + 4, n);

			found = (p == runner_text || p[-1] == '\n') &&
			    strstr(fn, name) != NULL;
			free(fn);
			p += 4;
		}
		if (!found)
			tc_buf_printf(&miss, "%s%s", miss.len ? ", " : "", name);
	}
	return tc_buf_detach(&miss, NULL);
}

static void
check_runner(tc_json *list, tc_json *missing, const char *op_dir,
    const tc_json *p0)
{
	char *name = tc_xasprintf("test_%s.py", tc_path_basename(op_dir));
	char *p = tc_path_join(op_dir, name);
	tc_error err = TC_ERROR_INIT;
	char *text = tc_is_regular_file_nofollow(p) ?
	    tc_read_file(p, 0, NULL, &err) : NULL;

	if (text == NULL) {
		add(list, missing, name, "final_test", "missing",
		    "the final Stage 4 test is the starting point of Stage 5");
	} else if (p0 != NULL) {
		char *miss = p0_without_test(text, p0);

		if (*miss != '\0') {
			char *d = tc_xasprintf("no Stage 4 test for SPEC P0 "
			    "case(s): %s", miss);

			add(list, missing, name, "final_test", "unparseable", d);
			free(d);
		} else {
			add(list, missing, name, "final_test", "present", NULL);
		}
		free(miss);
	} else {
		add(list, missing, name, "final_test", "present", NULL);
	}
	free(text);
	free(p);
	free(name);
	tc_error_clear(&err);
}

static void
check_json_object(tc_json *list, tc_json *missing, const char *op_dir,
    const char *rel, const char *role)
{
	char *p = tc_path_join(op_dir, rel);
	tc_error err = TC_ERROR_INIT;
	tc_json *v;

	if (!tc_path_exists(p)) {
		add(list, missing, rel, role, "missing", "no such file");
	} else if ((v = tc_pj_load_object(p, rel, &err)) == NULL) {
		add(list, missing, rel, role, "unparseable", tc_error_msg(&err));
	} else {
		add(list, missing, rel, role, "present", NULL);
		tc_json_free(v);
	}
	tc_error_clear(&err);
	free(p);
}

static void
check_kb(tc_json *list, tc_json *missing, const char *op_dir)
{
	tc_json *sel = tc_pypto_kb_selection_files(op_dir);
	bool flat = false, split = false;
	size_t i;

	for (i = 0; i < sel->u.arr.len; i++) {
		const char *rel = tc_json_string(sel->u.arr.items[i]);

		if (strchr(rel, '/') != NULL)
			split = true;
		else
			flat = true;
	}
	if (sel->u.arr.len == 0) {
		add(list, missing, "KB_SELECTION.json", "kb_selection", "missing",
		    "no KB_SELECTION.json (flat) or <class>/KB_SELECTION.json "
		    "(split)");
		add(list, missing, "KB_USAGE.json", "kb_usage", "missing",
		    "the usage record of the class");
	} else if (flat && split) {
		add(list, missing, "KB_SELECTION.json", "kb_selection",
		    "unparseable", "flat and split KB layouts may not coexist");
	}
	for (i = 0; i < sel->u.arr.len; i++) {
		const char *rel = tc_json_string(sel->u.arr.items[i]);
		char *dir = tc_path_dirname(rel);
		char *usage = strcmp(dir, ".") == 0 ?
		    tc_xstrdup("KB_USAGE.json") :
		    tc_xasprintf("%s/KB_USAGE.json", dir);

		check_json_object(list, missing, op_dir, rel, "kb_selection");
		check_json_object(list, missing, op_dir, usage, "kb_usage");
		free(usage);
		free(dir);
	}
	tc_json_free(sel);
}

tc_json *
tc_pypto_inputs_check(const char *op_dir)
{
	tc_json *out = tc_json_new_object(), *list = tc_json_new_array();
	tc_json *missing = tc_json_new_array(), *spec, *p0 = NULL, *ob;
	tc_error err = TC_ERROR_INIT;
	bool fusion;
	long count;
	static const char *const docs[][2] = {
		{ "EXPLORE_REPORT.md", "exploration_report" },
		{ "PRO_MATERIAL_INDEX.md", "material_index" },
		{ "MEMORY.md", "memory" },
		{ "DESIGN.md", "design" },
	};
	size_t i;

	/* A SPEC.md that loads but names no P0 case is unparseable too. */
	spec = tc_pypto_spec_contract(op_dir, &err);
	if (spec != NULL &&
	    (p0 = tc_pypto_spec_p0_names(spec))->u.arr.len == 0)
		add(list, missing, "SPEC.md", "spec", "unparseable",
		    "the machine contract lists no P0 case");
	else
		add_loaded(list, missing, "SPEC.md", "spec", spec != NULL, &err);
	tc_json_free(spec);
	need_op_file(list, missing, op_dir, "_golden.py", "golden");
	need_op_file(list, missing, op_dir, "_golden_cpu.py", "golden_cpu");
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		need_file(list, missing, op_dir, docs[i][0], docs[i][1]);
	ob = tc_pypto_kb_obligations(op_dir, &err);
	add_loaded(list, missing, "DESIGN_BINDINGS.json", "design_bindings",
	    ob != NULL, &err);
	tc_json_free(ob);
	add_loaded(list, missing, "module_interfaces.yaml", "module_interfaces",
	    tc_pypto_module_interfaces(op_dir, &fusion, &count, &err) == 0,
	    &err);
	check_runner(list, missing, op_dir, p0);
	check_kb(list, missing, op_dir);
	tc_json_object_set_string(out, "status", missing->u.arr.len == 0 ?
	    "PASS" : "stage5_contract_blocked");
	tc_json_object_set_string(out, "operator_dir", op_dir);
	tc_json_object_set(out, "inputs", list);
	tc_json_object_set(out, "missing", missing);
	tc_json_free(p0);
	return out;
}
