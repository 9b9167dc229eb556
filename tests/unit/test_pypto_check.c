/*
 * test_pypto_check.c - the performance gates P1-P8 of stage5-check on a
 * complete, deterministic Stage 5 evidence set (shell runner, a discovery
 * run, three formal rounds, a timeline per case, closed ledger with
 * indexed sources, candidate table, report evidence block, the
 * verifier's review), then one defect at a time: each must fail its gate
 * with the reference's failure category, and missing evidence is named,
 * never passed.  (The Stage 4 rerun and P5 run Python and are covered by
 * the pipeline walk.)
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

#include "tunectl/fileio.h"
#include "tunectl/pypto.h"
#include "tunectl/pypto_stage5.h"
#include "unit_fixture.h"

/* As long as the directory unit_tmpdir_into() makes under /tmp. */
static char root[sizeof("/tmp/tunectl-pypto-check.XXXXXX")];
static char op[128];

static const char runner_fmt[] =
"#!/bin/sh\n"
"# version %s\n"
"dir=$(dirname \"$0\")\n"
"n=$(cat \"$dir/.count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$dir/.count\"\n"
"id=\"\"\n"
"[ \"$1\" = --case-id ] && id=$2\n"
"case \"$id\" in a) d=%d ;; b) d=%d ;; *) exit 2 ;; esac\n"
"echo \"PYPTO_PERF_TASK {\\\"op_name\\\": \\\"k\\\", \\\"duration_us\\\": $((d + n %% 3))}\"\n"
"echo \"PYPTO_PERF_SELECTED_CASE=$id\"\n";

static void
write_rel(const char *rel, const char *text)
{
	char p[512];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", op, rel);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
runner(const char *version, int da, int db)
{
	char text[2048], p[256];

	snprintf(text, sizeof(text), runner_fmt, version, da, db);
	write_rel("test_op.py", text);
	snprintf(p, sizeof(p), "%s/test_op.py", op);
	chmod(p, 0755);
}

static void
compare(const char *id)
{
	tc_pypto_compare_opts o;
	tc_error err = TC_ERROR_INIT;
	char mp[256], *round = NULL;
	tc_json *s;

	snprintf(mp, sizeof(mp), "%s/PERFORMANCE_CASES.json", op);
	tc_pypto_compare_opts_init(&o);
	o.op_dir = op;
	o.manifest_path = mp;
	o.interpreter = "";
	o.collection_id = id;
	o.retry_pause_s = 0;
	s = tc_pypto_compare(&o, &round, &err);
	if (s == NULL)
		fail_msg("compare %s: %s", id, tc_error_msg(&err));
	tc_json_free(s);
	free(round);
}

/* The interleaved compare of the current runner against the baseline's
 * bytes (kept at root/baseline_runner), as the optimizer's final compare
 * runs it; the record (plus "path"). */
static tc_json *
interleave(void)
{
	tc_pypto_compare_opts o;
	tc_error err = TC_ERROR_INIT;
	char mp[256], bp[256], *dir = NULL;
	tc_json *rec;

	snprintf(mp, sizeof(mp), "%s/PERFORMANCE_CASES.json", op);
	snprintf(bp, sizeof(bp), "%s/baseline_runner", root);
	tc_pypto_compare_opts_init(&o);
	o.op_dir = op;
	o.manifest_path = mp;
	o.interpreter = "";
	o.collection_id = "ab";
	o.retry_pause_s = 0;
	rec = tc_pypto_interleave(&o, bp, TC_PYPTO_AB_MIN_PAIRS, &dir, &err);
	if (rec == NULL)
		fail_msg("interleaved compare: %s", tc_error_msg(&err));
	free(dir);
	return rec;
}

static double
aggregate(int round, const char *id)
{
	tc_pypto_round r;
	tc_error err = TC_ERROR_INIT;
	char rel[64];
	double v = 0;
	size_t i;

	snprintf(rel, sizeof(rel), "docs/perf/round_%03d", round);
	assert_int_equal(tc_pypto_round_verify(op, rel, &r, &err), 0);
	for (i = 0; i < r.n; i++)
		if (strcmp(r.cases[i].id, id) == 0)
			v = r.cases[i].aggregate_us;
	tc_pypto_round_free(&r);
	return v;
}

static tc_json *evidence;	/* the report block, edited per test */
static tc_json *review;		/* the verifier's answers, edited per test */

static void
discover(void)
{
	tc_pypto_discover_opts o;
	tc_error err = TC_ERROR_INIT;
	char mp[256];
	tc_json *d;

	snprintf(mp, sizeof(mp), "%s/PERFORMANCE_CASES.json", op);
	memset(&o, 0, sizeof(o));
	o.op_dir = op;
	o.manifest_path = mp;
	o.case_id = "a";
	o.kernel = "k";
	o.case_arg = "--case-id";
	o.warmup = 0;
	o.device = -1;
	o.interpreter = "";
	if ((d = tc_pypto_discover(&o, &err)) == NULL)
		fail_msg("discover: %s", tc_error_msg(&err));
	tc_json_free(d);
}

static void
timeline(const char *id)
{
	tc_pypto_timeline_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *t;

	memset(&o, 0, sizeof(o));
	o.op_dir = op;
	o.case_id = id;
	o.interpreter = "";
	if ((t = tc_pypto_timeline(&o, &err)) == NULL)
		fail_msg("timeline %s: %s", id, tc_error_msg(&err));
	tc_json_free(t);
}

/* Every review item answered "pass". */
static void
make_review(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *items;
	size_t i;

	tc_json_free(review);
	review = tc_pypto_review_template(op, &err);
	assert_non_null(review);
	items = tc_json_get(review, "items");
	for (i = 0; i < items->u.arr.len; i++) {
		tc_json_object_set_string(items->u.arr.items[i], "verdict", "pass");
		tc_json_object_set_string(items->u.arr.items[i], "basis",
		    "reviewed for the test");
	}
}

static void
write_report(void)
{
	tc_error err = TC_ERROR_INIT;
	char *js = tc_json_pretty(evidence, NULL, &err);
	tc_buf b = TC_BUF_INIT;

	tc_buf_puts(&b, "# report\n\ntext\n\n```json stage5-evidence\n");
	tc_buf_puts(&b, js);
	tc_buf_puts(&b, "```\n");
	write_rel("PERFORMANCE_REPORT.md", tc_buf_cstr(&b));
	tc_buf_free(&b);
	free(js);
}

static tc_json *
case_evidence(const char *id, const char *shape)
{
	tc_json *c = tc_json_new_object(), *o;
	double b = aggregate(1, id), f = aggregate(3, id);

	tc_json_object_set_string(c, "case", id);
	tc_json_object_set_string(c, "shape", shape);
	tc_json_object_set_string(c, "dtype", "fp16");
	tc_json_object_set(c, "baseline_us", tc_json_new_float(b));
	tc_json_object_set(c, "final_us", tc_json_new_float(f));
	tc_json_object_set(c, "speedup", tc_json_new_float(b / f));
	o = tc_json_new_object();
	tc_json_object_set_string(o, "status", "data_movement_bound");
	tc_json_object_set_string(o, "basis", "model + A/B");
	tc_json_object_set(c, "roofline_terminal", o);
	o = tc_json_new_object();
	tc_json_object_set_string(o, "status", "not_applicable_with_dag");
	tc_json_object_set_string(o, "basis", "one work item");
	tc_json_object_set_string(o, "dag", "dag.md");
	tc_json_object_set(c, "pipeline_evidence", o);
	o = tc_json_new_object();
	tc_json_object_set_bool(o, "dominant", false);
	tc_json_object_set_string(o, "basis", "A/B");
	tc_json_object_set(c, "scalar_evidence", o);
	return c;
}

static int
setup(void **st)
{
	tc_error err = TC_ERROR_INIT;
	tc_pypto_freeze_opts f;
	tc_pypto_ledger_op lop;
	tc_json *doc, *pcs, *t, *ab, *fi;
	char lp[256], mp[256], bp[256];
	size_t i;
	int k;
	static const char *const kinds[] = { "kb_selected", "general_method",
	    "knowledge_card", "template" };

	(void)st;
	unit_tmpdir_into(root, sizeof(root), "pypto-check");
	snprintf(op, sizeof(op), "%s/op", root);
	mkdir(op, 0777);
	write_rel("SPEC.md", "# spec\n```json machine-contract\n{\"schema_version\": "
	    "1, \"p0_cases\": [{\"name\": \"a\"}, {\"name\": \"b\"}], "
	    "\"perf_target\": null}\n```\n");
	write_rel("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": ["
	    "{\"id\": \"a\", \"shape\": \"[1,8]\", \"dtype\": \"fp16\"}, {\"id\": "
	    "\"b\", \"shape\": \"[2,8]\", \"dtype\": \"fp16\"}], "
	    "\"optimization_target\": {\"case_ids\": [\"a\", \"b\"], "
	    "\"selection_mode\": \"all_p0_no_questions\"}}");
	write_rel("dispatch.json", "{\"stage4_path\": \"L0\", "
	    "\"optimization_target\": {\"case_ids\": [\"b\", \"a\"], "
	    "\"selection_mode\": \"all_p0_no_questions\"}}");
	write_rel("dag.md", "single work item\n");
	write_rel("DESIGN_BINDINGS.json", "{\"schema_version\": 1, \"bindings\": []}");
	write_rel("index.md", "| item_id | lifecycle | stage5_eligible |\n| --- | --- | "
	    "--- |\n| x-01 | draft | no |\n");
	runner("baseline", 1000, 2000);
	snprintf(mp, sizeof(mp), "%s/PERFORMANCE_CASES.json", op);
	memset(&f, 0, sizeof(f));
	f.op_dir = op;
	f.manifest_path = mp;
	f.op_name = "k";
	f.warmup = 0;
	f.repeats = 3;
	f.retry = 0;
	f.timing_source = "runner_reported";
	f.case_arg = "--case-id";
	f.stability_kind = "relative";
	f.stability_value = "0.1";
	f.promotion_rule = "quick speedup > 1.1";
	discover();
	{
		static char dp[256];

		snprintf(dp, sizeof(dp), "%s/docs/perf/discovery.json", op);
		f.discovery_path = dp;
		f.op_name = NULL;
	}
	doc = tc_pypto_contract_freeze(&f, &err);
	if (doc == NULL)
		fail_msg("freeze: %s", tc_error_msg(&err));
	tc_json_free(doc);
	compare("base");
	snprintf(mp, sizeof(mp), "%s/test_op.py", op);
	snprintf(bp, sizeof(bp), "%s/baseline_runner", root);
	{
		tc_error err2 = TC_ERROR_INIT;
		size_t len;
		char *bytes = tc_read_file(mp, 0, &len, &err2);

		assert_non_null(bytes);
		assert_int_equal(tc_write_atomic(bp, bytes, len, 0, &err2), 0);
		assert_int_equal(chmod(bp, 0755), 0);
		free(bytes);
	}
	runner("fast", 500, 1000);
	compare("cand");
	compare("final");
	ab = interleave();
	timeline("a");
	timeline("b");
	/* a closed ledger: every preset enumerated empty, swept */
	snprintf(lp, sizeof(lp), "%s/ledger.json", op);
	memset(&lop, 0, sizeof(lop));
	lop.verb = TC_LEDGER_INIT;
	tc_json_free(tc_pypto_ledger_apply_file(lp, &lop, &err));
	for (k = 0; k < 4; k++) {
		char ip[256];

		snprintf(ip, sizeof(ip), "%s/%s", op, k == 0 ?
		    "DESIGN_BINDINGS.json" : "index.md");
		lop.verb = TC_LEDGER_SOURCE;
		lop.kind = kinds[k];
		lop.count = -1;
		lop.index = ip;
		lop.ref = "index: no active row";
		doc = tc_pypto_ledger_apply_file(lp, &lop, &err);
		assert_non_null(doc);
		tc_json_free(doc);
	}
	lop.verb = TC_LEDGER_SWEEP;
	lop.scope = "final code";
	lop.findings = "none";
	doc = tc_pypto_ledger_apply_file(lp, &lop, &err);
	assert_non_null(doc);
	tc_json_free(doc);
	write_rel("candidates.json", "{\"candidates\": [{\"candidate_id\": "
	    "\"baseline\", \"evaluation_order\": 0, \"round\": "
	    "\"docs/perf/round_001\", \"correct\": true, \"compliant\": true, "
	    "\"correctness_evidence\": \"e\", \"compliance_evidence\": \"e\"}, "
	    "{\"candidate_id\": \"fast\", \"evaluation_order\": 1, \"round\": "
	    "\"docs/perf/round_002\", \"correct\": true, \"compliant\": true, "
	    "\"correctness_evidence\": \"e\", \"compliance_evidence\": \"e\"}]}");
	evidence = tc_json_new_object();
	tc_json_object_set_string(evidence, "baseline_collection_id", "base");
	tc_json_object_set_string(evidence, "baseline_round",
	    "docs/perf/round_001");
	tc_json_object_set_string(evidence, "final_collection_id", "final");
	tc_json_object_set_string(evidence, "final_round", "docs/perf/round_003");
	{
		tc_json *perf;
		char pp[256];

		snprintf(pp, sizeof(pp), "%s/performance.json", op);
		perf = tc_json_parse_file(pp, &err);
		tc_json_object_set(evidence, "final_source_sha256", tc_json_clone(
		    tc_json_get(perf, "executable_sha256")));
		tc_json_free(perf);
	}
	tc_json_object_set_string(evidence, "ledger", "ledger.json");
	tc_json_object_set_string(evidence, "candidates", "candidates.json");
	tc_json_object_set_string(evidence, "best_candidate_id", "fast");
	t = tc_json_new_object();
	tc_json_object_set_string(t, "kind", "unavailable");
	tc_json_object_set_string(t, "reason", "no Golden contract on a CPU host");
	tc_json_object_set(evidence, "target", t);
	pcs = tc_json_new_array();
	tc_json_array_push(pcs, case_evidence("a", "[1,8]"));
	tc_json_array_push(pcs, case_evidence("b", "[2,8]"));
	tc_json_object_set(evidence, "per_case", pcs);
	/* the result: the interleaved compare's figures, as the report gives */
	for (i = 0; i < pcs->u.arr.len; i++)
		tc_json_object_set(pcs->u.arr.items[i], "interleaved",
		    tc_json_clone(tc_pypto_ab_case(ab, tc_json_get_string(
		    pcs->u.arr.items[i], "case"))));
	fi = tc_json_new_object();
	tc_json_object_set(fi, "path", tc_json_clone(tc_json_get(ab, "path")));
	tc_json_object_set(fi, "aggregate", tc_json_clone(tc_json_get(ab,
	    "aggregate")));
	tc_json_object_set(evidence, "final_interleaved", fi);
	tc_json_object_set_string(evidence, "result", tc_json_get_string(
	    tc_json_get(ab, "aggregate"), "change"));
	tc_json_free(ab);
	write_report();
	make_review();
	return 0;
}

static int
teardown(void **st)
{
	(void)st;
	tc_json_free(evidence);
	evidence = NULL;
	tc_json_free(review);
	review = NULL;
	return unit_rmtree(root);
}

static tc_json *
check(void)
{
	tc_pypto_check_opts o;
	tc_error err = TC_ERROR_INIT;
	char dp[256];
	tc_json *r;

	snprintf(dp, sizeof(dp), "%s/dispatch.json", op);
	memset(&o, 0, sizeof(o));
	o.op_dir = op;
	o.dispatch_path = dp;
	o.interpreter = "";
	o.review = review;
	o.gates = "P1,P2,P3,P4,P6,P7,P8";
	r = tc_pypto_check_stage5(&o, &err);
	if (r == NULL)
		fail_msg("check: %s", tc_error_msg(&err));
	return r;
}

static const char *
gate_status(const tc_json *r, const char *gate)
{
	const tc_json *gs = tc_json_get(r, "gates");
	size_t i;

	for (i = 0; i < gs->u.arr.len; i++)
		if (strcmp(tc_json_get_string(gs->u.arr.items[i], "gate"), gate) == 0)
			return tc_json_get_string(gs->u.arr.items[i], "status");
	return "?";
}

/* The check fails exactly on gate with category. */
static void
expect_failure(const char *gate, const char *category)
{
	tc_json *r = check();

	if (strcmp(gate_status(r, gate), "FAIL") != 0) {
		char *t = tc_pypto_check_render(r);

		fail_msg("gate %s is %s, expected FAIL:\n%s", gate,
		    gate_status(r, gate), t);
	}
	assert_string_equal(tc_json_get_string(r, "verdict"), "FAILED");
	assert_string_equal(tc_json_get_string(r, "failure_category"), category);
	tc_json_free(r);
}

static void
clean_evidence_passes_every_performance_gate(void **st)
{
	tc_json *r = check();
	char *text;
	static const char *const gates[] = { "P1", "P2", "P3", "P4", "P6", "P7",
	    "P8", NULL };
	size_t i;

	(void)st;
	text = tc_pypto_check_render(r);
	for (i = 0; gates[i] != NULL; i++)
		if (strcmp(gate_status(r, gates[i]), "PASS") != 0)
			fail_msg("gate %s is %s:\n%s", gates[i], gate_status(r,
			    gates[i]), text);
	/* a check of a gate selection is never a PASS */
	assert_string_equal(tc_json_get_string(r, "verdict"), "NOT_COMPLETE");
	assert_true(tc_json_truthy(tc_json_get(r, "partial")));
	assert_null(strstr(text, "PASSED"));
	free(text);
	tc_json_free(r);
}

static bool
has_string(const tc_json *arr, const char *s)
{
	size_t i;

	for (i = 0; tc_json_is(arr, TC_JSON_ARRAY) && i < arr->u.arr.len; i++)
		if (tc_json_string(arr->u.arr.items[i]) != NULL &&
		    strcmp(tc_json_string(arr->u.arr.items[i]), s) == 0)
			return true;
	return false;
}

static const tc_json *
gate_missing(const tc_json *r, const char *gate)
{
	const tc_json *gs = tc_json_get(r, "gates");
	size_t i;

	for (i = 0; i < gs->u.arr.len; i++)
		if (strcmp(tc_json_get_string(gs->u.arr.items[i], "gate"), gate) == 0)
			return tc_json_get(gs->u.arr.items[i], "missing");
	return NULL;
}

static void
missing_timeline_is_named_with_its_command(void **st)
{
	char *name = tc_pypto_case_dir_name("b"), p[512];
	tc_json *r;
	const tc_json *m;

	(void)st;
	snprintf(p, sizeof(p), "%s/docs/perf/round_003/%s/instruction_timeline/"
	    "timeline_evidence.json", op, name);
	free(name);
	assert_int_equal(unlink(p), 0);
	r = check();
	assert_string_equal(gate_status(r, "P3"), "INCOMPLETE");
	m = gate_missing(r, "P3");
	assert_int_equal(m->u.arr.len, 1);
	assert_string_equal(tc_json_get_string(m->u.arr.items[0], "owner"),
	    "optimizer");
	assert_non_null(strstr(tc_json_get_string(m->u.arr.items[0], "what"),
	    "tunectl pypto timeline --op-dir OP --case-id b"));
	assert_true(has_string(tc_json_get(r, "missing_owners"),
	    "optimizer"));
	tc_json_free(r);
}

static void
tampered_timeline_fails_p3(void **st)
{
	char *name = tc_pypto_case_dir_name("a"), p[512];
	tc_error err = TC_ERROR_INIT;
	tc_json *t;

	(void)st;
	snprintf(p, sizeof(p), "%s/docs/perf/round_003/%s/instruction_timeline/"
	    "timeline_evidence.json", op, name);
	free(name);
	t = tc_json_parse_file(p, &err);
	tc_json_object_set_string(t, "collection_id", "cand");
	assert_int_equal(tc_write_json(p, t, 0, &err), 0);
	tc_json_free(t);
	expect_failure("P3", "performance_evidence_invalid");
}

static void
unanswered_review_items_are_the_verifiers(void **st)
{
	tc_json *r;
	const tc_json *m;

	(void)st;
	tc_json_free(review);
	review = NULL;
	r = check();
	assert_string_equal(gate_status(r, "P8"), "INCOMPLETE");
	m = gate_missing(r, "P8");
	assert_int_equal(m->u.arr.len, 6);	/* 2 cases x roofline/pipeline/scalar */
	assert_string_equal(tc_json_get_string(m->u.arr.items[0], "owner"),
	    "verifier");
	assert_string_equal(gate_status(r, "P7"), "INCOMPLETE");
	tc_json_free(r);
}

static void
failed_review_item_fails_its_gate(void **st)
{
	tc_json *items = tc_json_get(review, "items");
	size_t i;

	(void)st;
	for (i = 0; i < items->u.arr.len; i++)
		if (strcmp(tc_json_get_string(items->u.arr.items[i], "id"),
		    "P8.b.roofline") == 0) {
			tc_json_object_set_string(items->u.arr.items[i], "verdict",
			    "fail");
			tc_json_object_set_string(items->u.arr.items[i],
			    "failure_category", "performance_evidence_invalid");
		}
	expect_failure("P8", "performance_evidence_invalid");
}

static void
stale_review_is_refused(void **st)
{
	tc_json *r;

	(void)st;
	tc_json_object_set_string(review, "runner_sha256", "0000000000000000000000"
	    "000000000000000000000000000000000000000000");
	r = check();
	assert_non_null(strstr(tc_json_get_string(r, "review_error"),
	    "a review of another version is stale"));
	assert_string_equal(gate_status(r, "P8"), "INCOMPLETE");
	tc_json_free(r);
}

static void
undiscovered_op_name_fails_p2(void **st)
{
	(void)st;
	/* the frozen discovery record no longer has its digest */
	write_rel("docs/perf/discovery.json", "{\"kind\": \"edited\"}\n");
	expect_failure("P2", "performance_evidence_invalid");
}

static void
changed_source_index_fails_p7(void **st)
{
	(void)st;
	write_rel("index.md", "| item_id | lifecycle | stage5_eligible |\n| --- | "
	    "--- | --- |\n| x-01 | active | yes |\n");
	expect_failure("P7", "performance_item_coverage_invalid");
}

static void
invalid_dispatch_runs_no_gate(void **st)
{
	tc_json *r;

	(void)st;
	write_rel("dispatch.json", "{\"stage4_path\": \"L2\", "
	    "\"optimization_target\": {\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"user_selected\"}}");
	r = check();
	assert_string_equal(tc_json_get_string(r, "failure_category"),
	    "dispatch_invalid");
	assert_int_equal(tc_json_get(r, "gates")->u.arr.len, 0);
	tc_json_free(r);
	write_rel("dispatch.json", "{\"stage4_path\": \"L0\", "
	    "\"optimization_target\": {\"case_ids\": [], \"selection_mode\": "
	    "\"user_selected\"}}");
	r = check();
	assert_string_equal(tc_json_get_string(r, "failure_category"),
	    "dispatch_invalid");
	tc_json_free(r);
}

static void
missing_deliverable_fails_p1(void **st)
{
	char p[256];

	(void)st;
	snprintf(p, sizeof(p), "%s/performance.log", op);
	unlink(p);
	expect_failure("P1", "performance_evidence_invalid");
}

static void
corrupt_frozen_manifest_blocks_the_contract(void **st)
{
	(void)st;
	write_rel("PERFORMANCE_CASES.json", "{\"schema_version\": 1, \"cases\": [");
	expect_failure("P2", "stage5_contract_blocked");
}

static void
dispatch_target_mismatch_fails_p2(void **st)
{
	(void)st;
	write_rel("dispatch.json", "{\"stage4_path\": \"L1\", "
	    "\"optimization_target\": {\"case_ids\": [\"a\"], \"selection_mode\": "
	    "\"user_selected\"}}");
	expect_failure("P2", "performance_evidence_invalid");
}

static void
edited_baseline_sample_fails_p3(void **st)
{
	char *name = tc_pypto_case_dir_name("a"), p[512];
	tc_error err = TC_ERROR_INIT;
	tc_json *m;

	(void)st;
	snprintf(p, sizeof(p), "%s/docs/perf/round_001/%s/measurement.json", op,
	    name);
	free(name);
	m = tc_json_parse_file(p, &err);
	tc_json_array_push(tc_json_get(m, "duration_samples_us"),
	    tc_json_new_float(1.0));
	assert_int_equal(tc_write_json(p, m, 0, &err), 0);
	tc_json_free(m);
	expect_failure("P3", "performance_evidence_invalid");
}

static void
copied_aggregate_fails_p4(void **st)
{
	const tc_json *pcs = tc_json_get(evidence, "per_case");
	double fa;

	(void)st;
	assert_true(tc_json_number(tc_json_get(pcs->u.arr.items[0], "final_us"),
	    &fa));
	tc_json_object_set(pcs->u.arr.items[1], "final_us",
	    tc_json_new_float(fa));
	write_report();
	expect_failure("P4", "performance_evidence_invalid");
}

static void
wrong_speedup_fails_p4(void **st)
{
	const tc_json *pcs = tc_json_get(evidence, "per_case");

	(void)st;
	tc_json_object_set(pcs->u.arr.items[0], "speedup",
	    tc_json_new_float(2.5));
	write_report();
	expect_failure("P4", "performance_evidence_invalid");
}

static void
undisclosed_missing_target_fails_p6(void **st)
{
	(void)st;
	tc_json_object_set_string(tc_json_get(evidence, "target"), "reason", " ");
	write_report();
	expect_failure("P6", "performance_evidence_invalid");
}

static void
wrong_best_version_fails_p7(void **st)
{
	(void)st;
	tc_json_object_set_string(evidence, "best_candidate_id", "baseline");
	write_report();
	expect_failure("P7", "performance_item_coverage_invalid");
}

static void
open_ledger_item_fails_p7(void **st)
{
	tc_pypto_ledger_op lop;
	tc_error err = TC_ERROR_INIT;
	char lp[256];
	tc_json *l;

	(void)st;
	snprintf(lp, sizeof(lp), "%s/ledger.json", op);
	memset(&lop, 0, sizeof(lop));
	lop.verb = TC_LEDGER_SOURCE;
	lop.kind = "template";
	lop.count = 1;
	lop.ref = "templates/INDEX.md: one row";
	l = tc_pypto_ledger_apply_file(lp, &lop, &err);
	assert_non_null(l);
	tc_json_free(l);
	expect_failure("P7", "performance_item_coverage_invalid");
}

static void
unverified_pipeline_fails_p8(void **st)
{
	const tc_json *pcs = tc_json_get(evidence, "per_case");

	(void)st;
	tc_json_object_set_string(tc_json_get(pcs->u.arr.items[1],
	    "pipeline_evidence"), "status", "unverified");
	write_report();
	expect_failure("P8", "performance_evidence_invalid");
}

static void
final_code_must_be_the_measured_code(void **st)
{
	(void)st;
	runner("edited after the final compare", 500, 1000);
	expect_failure("P3", "performance_evidence_invalid");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    clean_evidence_passes_every_performance_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    missing_timeline_is_named_with_its_command, setup, teardown),
		cmocka_unit_test_setup_teardown(tampered_timeline_fails_p3, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    unanswered_review_items_are_the_verifiers, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_review_item_fails_its_gate,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(stale_review_is_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(undiscovered_op_name_fails_p2, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(changed_source_index_fails_p7, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(invalid_dispatch_runs_no_gate,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(missing_deliverable_fails_p1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    corrupt_frozen_manifest_blocks_the_contract, setup, teardown),
		cmocka_unit_test_setup_teardown(dispatch_target_mismatch_fails_p2,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(edited_baseline_sample_fails_p3,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(copied_aggregate_fails_p4, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(wrong_speedup_fails_p4, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(undisclosed_missing_target_fails_p6,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(wrong_best_version_fails_p7, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(open_ledger_item_fails_p7, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(unverified_pipeline_fails_p8, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(final_code_must_be_the_measured_code,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
