/*
 * fuzz_sk_meta.c - libFuzzer target for the SuperKernel metadata reader
 * and summary of "tunectl analyze sk-meta" (src/analysis/skm_logs.c,
 * skm_summary.c).
 *
 * Input: up to three parts separated by FZ_SEP: sk_fused_nodes.log,
 * sk_fusion_fail_reasons.log and sk_scope_split.log of one model
 * directory (missing parts are empty logs).  Invariants: the summary is
 * made; it counts one model and one log of each name; fused_node_records
 * is the sum of the trusted child counts and fusion_proven says whether
 * it is positive; every group's counts agree with its nodes; the round
 * report has one row per group; the reasons counted add up to the records
 * they come from and are known reason names; the deep auto-scope plan
 * splits the groups into selected and skipped; and both documents
 * serialise as the command prints them.
 */
#include "fuzz_common.h"
#include "tunectl/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *skm_root;

static int64_t
skm_int(const tc_json *o, const char *key)
{
	int64_t v = -1;

	FZ_REQUIRE(tc_json_int64(tc_json_get(o, key), &v));
	return v;
}

static size_t
skm_len(const tc_json *o, const char *key)
{
	const tc_json *v = tc_json_get(o, key);

	FZ_REQUIRE(tc_json_is(v, TC_JSON_ARRAY));
	return v->u.arr.len;
}

static bool
skm_known_reason(const char *r)
{
	static const char *const known[] = { "NOT_IN_SCOPE",
	    "IN_UNFUSIBLE_SCOPE", "EXCEED_CORE_MAX", "EXCEED_SCOPE_MAX",
	    "OP_UNSUPPORT", "DYNAMIC_TASK_UNSUPPORT", "SIMT_OP_UNSUPPORT",
	    "UNFUSIBLE_NODE", "DEADLOCK_DETECTED", "SYNCALL_OP_DROP",
	    "DEBUG_PER_OP_MAX_CORE", "RESOURCE_INSUFFICIENT", "EXTERNAL_DEPEND",
	    "EXIST_DEADLOCK", "ISOLATED_EVENT", "KERNEL_ATTR_GET_FAILED",
	    "NO_TARGET_NODE", "UNRECOVERABLE_FAIL", "SUCCESS", "UNKNOWN", NULL };
	size_t i;

	for (i = 0; known[i] != NULL; i++)
		if (strcmp(known[i], r) == 0)
			return true;
	return false;
}

/* The counts of an object of reason -> count: all known, summing to n. */
static void
skm_reason_counts(const tc_json *counts, int64_t n)
{
	int64_t sum = 0, c;
	size_t i;

	FZ_REQUIRE(tc_json_is(counts, TC_JSON_OBJECT));
	for (i = 0; i < counts->u.obj.len; i++) {
		FZ_REQUIRE(skm_known_reason(counts->u.obj.members[i].key));
		FZ_REQUIRE(tc_json_int64(counts->u.obj.members[i].value, &c));
		sum += c;
	}
	FZ_REQUIRE(sum == n);
}

static void
skm_check_groups(const tc_json *doc)
{
	const tc_json *groups = tc_json_get(doc, "sk_inventory");
	int64_t total = 0;
	size_t i;

	FZ_REQUIRE(tc_json_is(groups, TC_JSON_ARRAY));
	for (i = 0; i < groups->u.arr.len; i++) {
		const tc_json *g = groups->u.arr.items[i];
		int64_t parsed = (int64_t)skm_len(g, "nodes");
		bool mismatch = tc_json_truthy(tc_json_get(g,
		    "node_count_mismatch"));

		FZ_REQUIRE(skm_int(g, "parsed_node_count") == parsed);
		FZ_REQUIRE(mismatch == (skm_int(g, "node_count") != parsed));
		FZ_REQUIRE(skm_int(g, "trusted_child_count") == parsed);
		total += parsed;
	}
	FZ_REQUIRE(skm_int(doc, "fused_group_count") ==
	    (int64_t)groups->u.arr.len);
	FZ_REQUIRE(skm_int(doc, "fused_node_records") == total);
	FZ_REQUIRE(tc_json_truthy(tc_json_get(doc, "fusion_proven")) ==
	    (total > 0));
	FZ_REQUIRE(skm_len(tc_json_get(doc, "round_report"),
	    "per_sk_fusion_table") == groups->u.arr.len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const logs[] = { "model_1/sk_fused_nodes.log",
	    "model_1/sk_fusion_fail_reasons.log", "model_1/sk_scope_split.log" };
	struct tc_sk_meta_args a = { NULL, 20, "S1", NULL, 5 };
	const char *parts[3];
	size_t lens[3], n, i;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc, *plan;
	const tc_json *files, *breaks;
	tc_buf out = TC_BUF_INIT;

	if (skm_root == NULL)
		skm_root = fz_mkroot("sk-meta");
	fz_reset_root(skm_root);
	n = fz_split(data, size, parts, lens, 3);
	for (i = 0; i < 3; i++)
		fz_write(skm_root, logs[i], i < n ? parts[i] : "",
		    i < n ? lens[i] : 0);
	a.root = skm_root;
	a.sample_limit = size % 7 == 0 ? -1 : 20;
	doc = tc_sk_meta_summary(&a, &err);
	FZ_REQUIRE(doc != NULL);
	FZ_REQUIRE(skm_int(doc, "model_count") == 1);
	files = tc_json_get(doc, "files");
	for (i = 0; i < 3; i++)
		FZ_REQUIRE(skm_int(files, strchr(logs[i], '/') + 1) == 1);
	skm_check_groups(doc);
	breaks = tc_json_get(doc, "scope_break_summary");
	skm_reason_counts(tc_json_get(doc, "reason_counts"),
	    skm_int(tc_json_get(doc, "fusion_failure_summary"),
	    "record_count") > 0 ? skm_int(tc_json_get(doc,
	    "fusion_failure_summary"), "record_count") :
	    skm_int(breaks, "record_count"));
	FZ_REQUIRE(skm_int(breaks, "raw_record_count") >=
	    skm_int(breaks, "record_count"));
	plan = tc_sk_meta_plan(doc, 5, a.sample_limit);
	FZ_REQUIRE(skm_int(plan, "selected_group_count") +
	    skm_int(plan, "skipped_group_count") ==
	    skm_int(doc, "fused_group_count"));
	FZ_REQUIRE(tc_json_write(&out, doc, TC_JSON_ASCII | TC_JSON_INDENT,
	    &err) == 0);
	FZ_REQUIRE(tc_json_write(&out, plan, TC_JSON_ASCII | TC_JSON_INDENT,
	    &err) == 0);
	tc_buf_free(&out);
	tc_json_free(plan);
	tc_json_free(doc);
	tc_error_clear(&err);
	return 0;
}
