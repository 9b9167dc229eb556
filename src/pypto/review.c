/*
 * review.c - the verifier's review evidence for stage5-check: the parts of
 * the gates that are a judgement (semantic no-cheating, buffer and sync
 * edges, Vector selection, knowledge usage, the wrapper boundary, the
 * Roofline / pipeline / Scalar derivations, the promotion rule applied)
 * are answered item by item in one document bound to the digest of the
 * final test it reviewed:
 *
 *   {"schema_version": 1, "kind": "pypto_stage5_review",
 *    "runner_sha256": "<sha256 of test_<op>.py reviewed>",
 *    "reviewer": "...",
 *    "items": [{"id": "S4.6", "verdict": "pass"|"fail",
 *               "failure_category": "<when fail>", "basis": "..."}]}
 *
 * pypto review template prints the items to answer; stage5-check reads
 * the answers, refuses a review of another version of the code, and
 * names every item that is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

struct item_def {
	const char *id;
	const char *title;
	const char *question;
	const char *categories;		/* comma list */
};

static const struct item_def s4_items[] = {
	{ "S4.3", "device", "Do the tests obtain the device from "
	  "<op>_golden._get_device() and never hard-code different device ids "
	  "per test?", "other" },
	{ "S4.4", "precision standard (semantic)", "Is precision judged against "
	  "the CPU FP32 <op>_golden_cpu (scheme-A mixed tolerance), never "
	  "against the NPU <op>_golden?", "precision_failure,cheating" },
	{ "S4.5", "no cheating (semantic)", "No host value-dependent transform, "
	  "the kernel produces the final outputs directly, the wrapper narrows "
	  "no declared dim, dtype or parameter range, and the test data matches "
	  "DESIGN section 8?", "cheating" },
	{ "S4.6", "buffer and sync edges", "Rotating tiles use make_tile_group, "
	  "make_tile only single-use scratch, no manual sync on auto_mutex "
	  "tiles, explicit barriers complete and minimal?",
	  "perf_violation,design_violation" },
	{ "S4.7", "Vector selection consistency", "Does every Vector step match "
	  "the frozen vector_selection of DESIGN section 1?",
	  "perf_violation,design_violation" },
	{ "S4.10", "generalization (DESIGN section 8)", "Do the test cases match "
	  "DESIGN section 8's target case table?",
	  "incomplete_structure,cheating" },
	{ "S4.11", "dynamic dims", "Are dynamic dimensions declared the way the "
	  "API documentation and official samples do (no invented API)?",
	  "other,design_violation" },
	{ "S4.12", "entry naming and optional signature", "Do the tests call "
	  "<op>_wrapper (never the kernel) and do optional parameters default "
	  "to None as the cases require?", "signature_mismatch" },
	{ "S4.14", "knowledge usage", "Does every selected KB requirement's usage "
	  "point at a DESIGN decision and a real file/symbol of the final "
	  "test_<op>.py, with its verification method run?",
	  "kb_usage_invalid,kb_selection_invalid,design_violation" },
	{ "S4.15", "wrapper boundary", "Do the wrapper and every reachable host "
	  "helper only check parameters, read listed metadata, derive Python "
	  "integers, torch.empty declared outputs and launch the kernel once?",
	  "wrapper_boundary_violation,design_violation" },
	{ NULL, NULL, NULL, NULL }
};

static void
push_item(tc_json *list, const char *id, const char *title,
    const char *question, const char *cats)
{
	tc_json *i = tc_json_new_object(), *c = tc_json_new_array();
	char *copy = tc_xstrdup(cats), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		tc_json_array_push(c, tc_json_new_string(tok));
	free(copy);
	tc_json_object_set_string(i, "id", id);
	tc_json_object_set_string(i, "title", title);
	tc_json_object_set_string(i, "question", question);
	tc_json_object_set(i, "allowed_categories", c);
	tc_json_array_push(list, i);
}

/* The questions asked of every manifest case: id P8.<case>.<suffix>, the
 * question "Case <case>: <question>". */
static const struct {
	const char *suffix, *title, *question;
} per_case[] = {
	{ "roofline", "Roofline derivation",
	  "is the roofline_terminal status derived from workload, necessary "
	  "bytes and platform peaks (with sources), and verified by the final "
	  "collection?" },
	{ "pipeline", "pipeline evidence",
	  "does the pipeline_evidence status follow from the timeline and the "
	  "current Tile DAG / slot / stage mapping (or the attached DAG)?" },
	{ "scalar", "Scalar evidence",
	  "does scalar_evidence.dominant follow from the hot region and a "
	  "single-variable A/B, not from a ratio alone?" },
};

tc_json *
tc_pypto_review_items(const char *op_dir)
{
	tc_json *list = tc_json_new_array();
	char *mp = tc_path_join(op_dir, "PERFORMANCE_CASES.json");
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	bool loaded = tc_pypto_manifest_load(mp, &m, &err) == 0;
	size_t i, k, with = 0;

	free(mp);
	tc_error_clear(&err);
	for (i = 0; s4_items[i].id != NULL; i++)
		push_item(list, s4_items[i].id, s4_items[i].title,
		    s4_items[i].question, s4_items[i].categories);
	for (i = 0; loaded && i < m.n; i++)
		with += m.cases[i].test_function != NULL;
	if (!loaded || with != m.n)
		push_item(list, "P2.mapping", "case mapping through the selector",
		    "Does each manifest case run exactly its Stage 4 P0 test through "
		    "the runner's own selector (one-to-one)?",
		    "performance_evidence_invalid");
	push_item(list, "P7.promotion", "promotion and autonomous-phase audit",
	    "Was every quick-screened candidate promoted or rejected by the "
	    "frozen promotion rule, did the autonomous phase start after the "
	    "presets closed, and is no version that should have been promoted "
	    "missing from the candidate table?",
	    "performance_item_coverage_invalid");
	for (i = 0; loaded && i < m.n; i++) {
		for (k = 0; k < sizeof(per_case) / sizeof(per_case[0]); k++) {
			char id[256], q[512];

			snprintf(id, sizeof(id), "P8.%s.%s", m.cases[i].id,
			    per_case[k].suffix);
			snprintf(q, sizeof(q), "Case %s: %s", m.cases[i].id,
			    per_case[k].question);
			push_item(list, id, per_case[k].title, q,
			    "performance_evidence_invalid");
		}
	}
	if (loaded)
		tc_pypto_manifest_free(&m);
	return list;
}

tc_json *
tc_pypto_review_template(const char *op_dir, tc_error *err)
{
	char *runner = tc_pypto_find_runner(op_dir, err);
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_json *t, *items;
	size_t i;

	if (runner == NULL || tc_sha256_file(runner, hex, NULL, err) != 0) {
		free(runner);
		return NULL;
	}
	free(runner);
	t = tc_json_new_object();
	tc_pj_doc_header(t, "pypto_stage5_review");
	tc_json_object_set_string(t, "runner_sha256", hex);
	tc_json_object_set_string(t, "reviewer", "pypto-pro-op-verifier");
	items = tc_pypto_review_items(op_dir);
	for (i = 0; i < items->u.arr.len; i++) {
		tc_json *it = items->u.arr.items[i];

		tc_json_object_set_null(it, "verdict");
		tc_json_object_set_null(it, "failure_category");
		tc_json_object_set_null(it, "basis");
	}
	tc_json_object_set(t, "items", items);
	return t;
}

static const tc_json *
item_def(const tc_json *items, const char *id)
{
	size_t i;

	for (i = 0; i < items->u.arr.len; i++)
		if (strcmp(tc_json_get_string(items->u.arr.items[i], "id"), id) == 0)
			return items->u.arr.items[i];
	return NULL;
}

int
tc_pypto_review_read(const tc_json *review, const tc_json *items,
    const char *runner_sha, tc_json **answers, tc_error *err)
{
	const tc_json *list = tc_json_get(review, "items");
	const char *sha = tc_json_get_string(review, "runner_sha256");
	int64_t sv;
	size_t i;

	*answers = NULL;
	if (!tc_json_is(review, TC_JSON_OBJECT) ||
	    !tc_pj_int(tc_json_get(review, "schema_version"), &sv) || sv != 1 ||
	    tc_json_get_string(review, "kind") == NULL ||
	    strcmp(tc_json_get_string(review, "kind"), "pypto_stage5_review") !=
	    0 || !tc_json_is(list, TC_JSON_ARRAY)) {
		tc_error_set(err, "the review is not a pypto_stage5_review "
		    "(schema_version 1, items)");
		return -1;
	}
	if (sha == NULL || runner_sha == NULL || strcmp(sha, runner_sha) != 0) {
		tc_error_set(err, "the review covers test_<op>.py sha256 %s, the "
		    "final code is %s: a review of another version is stale",
		    sha != NULL ? sha : "(none)", runner_sha != NULL ? runner_sha :
		    "(unreadable)");
		return -1;
	}
	*answers = tc_json_new_object();
	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *a = list->u.arr.items[i];
		const char *id = tc_json_get_string(a, "id");
		const char *v = tc_json_get_string(a, "verdict");
		const char *c = tc_json_get_string(a, "failure_category");
		const char *basis = tc_json_get_string(a, "basis");
		const tc_json *def = id != NULL ? item_def(items, id) : NULL;
		tc_json *ans;

		if (def == NULL) {
			tc_error_set(err, "review item %s is not one stage5-check asks "
			    "for", id != NULL ? id : "(no id)");
			goto fail;
		}
		if (tc_json_get(*answers, id) != NULL) {
			tc_error_set(err, "review item %s is answered twice", id);
			goto fail;
		}
		if (v == NULL && tc_json_get(a, "verdict") != NULL &&
		    tc_json_get(a, "verdict")->type == TC_JSON_NULL)
			continue;	/* an unanswered template item */
		if (v == NULL || (strcmp(v, "pass") != 0 &&
		    strcmp(v, "fail") != 0)) {
			tc_error_set(err, "review item %s: verdict must be pass or "
			    "fail", id);
			goto fail;
		}
		if (basis == NULL || tc_js_is_blank(basis)) {
			tc_error_set(err, "review item %s: a verdict states its basis "
			    "(the commands run, what was read)", id);
			goto fail;
		}
		if (strcmp(v, "fail") == 0 && (c == NULL ||
		    !tc_pj_array_has_string(tc_json_get(def,
		    "allowed_categories"), c))) {
			tc_error_set(err, "review item %s: a fail names one of its "
			    "failure categories", id);
			goto fail;
		}
		ans = tc_json_new_object();
		tc_json_object_set_string(ans, "verdict", v);
		tc_json_object_set(ans, "failure_category", c != NULL ?
		    tc_json_new_string(c) : tc_json_new_null());
		tc_json_object_set_string(ans, "basis", basis);
		tc_json_object_set(*answers, id, ans);
	}
	return 0;
fail:
	tc_json_free(*answers);
	*answers = NULL;
	return -1;
}
