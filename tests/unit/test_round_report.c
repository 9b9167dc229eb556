/*
 * test_round_report.c - the round report renderer (render_round_report.py,
 * docs/spec/reports.md "Round report"): the reference's
 * RoundReportRenderingTest (docs/spec/reports.md "Round report"), the exact
 * layout, every cell helper, and the Python errors the reference lets escape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tunectl/round_report.h"

/* _round_report(round_name="S2") */
#define FIXTURE \
	"{\"round_name\": \"S2\", \"min_child_nodes\": 5, " \
	"\"effective_fusion\": {\"total_group_count\": 2, " \
	"\"effective_group_count\": 1, \"shallow_group_count\": 1, " \
	"\"effective_child_node_total\": 6, \"shallow_child_node_total\": 2, " \
	"\"effective_child_count_histogram\": {\"6\": 1}, " \
	"\"shallow_child_count_histogram\": {\"2\": 1}, " \
	"\"effective_launch_reduction\": 5, \"all_fused_launch_reduction\": 6}, " \
	"\"per_sk_fusion_table\": [" \
	"{\"function\": \"sk_shallow\", \"child_count\": 2, " \
	"\"counts_as_effective_fusion\": false}, " \
	"{\"function\": \"sk_eff|pipe\", \"scope_id\": 7, \"boundary\": " \
	"{\"start_op\": \"MatMul\", \"end_op\": \"Add\"}, \"source_scope\": " \
	"\"decoder.layer.0.attention\", \"layer\": 0, \"segments\": 1, " \
	"\"child_count\": 6, \"counts_as_effective_fusion\": true, " \
	"\"launch_count_without_sk\": 6, \"launch_count_with_sk\": 1, " \
	"\"estimated_launch_reduction\": 5, \"stream_ids\": [1, 2], " \
	"\"control_core_mode\": \"aic\", \"op_sequence\": [\"MatMul\", " \
	"\"Add|Pipe\", \"Norm\"], \"path\": \"/tmp/sk_eff\"}], " \
	"\"non_fusion_operator_table\": [{\"source\": \"ge\", \"reason\": " \
	"\"OP_UNSUPPORT\", \"count\": 3, \"percent\": 75.0, \"op_type\": " \
	"\"Custom|Op\", \"kernel_type\": \"AICPU\", \"example_function\": " \
	"\"f1\", \"example_node_id\": 12, \"example_scope_names\": [\"a\", " \
	"\"b\"], \"example_detail\": \"missing\\nline\", \"action\": " \
	"\"keep\"}]}"

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fprintf(stderr, "# %s\n", tc_error_msg(&err));
	assert_non_null(v);
	return v;
}

/* Render one document (as the loader would have extracted it). */
static char *
render(const char *text, const char *source, long top_sk, long top_nf)
{
	tc_json *doc = parse(text);
	tc_error err = TC_ERROR_INIT;
	tc_json *rep = tc_round_report_extract(doc, source, &err);
	tc_round_report_opts o = { NULL, top_sk, top_nf };
	const tc_json *reps[1];
	const char *srcs[1] = { source };
	tc_buf out = TC_BUF_INIT;

	assert_non_null(rep);
	reps[0] = rep;
	if (tc_round_report_render(reps, srcs, 1, &o, &out, &err) != 0)
		fprintf(stderr, "# %s\n", tc_error_msg(&err));
	assert_null(err.msg);
	tc_json_free(rep);
	tc_json_free(doc);
	return tc_buf_detach(&out, NULL);
}

/* The render fails with this Python exception line. */
static void
expect_render_error(const char *text, const char *expected)
{
	tc_json *doc = parse(text);
	tc_error err = TC_ERROR_INIT;
	tc_json *rep = tc_round_report_extract(doc, "x/r.json", &err);
	tc_round_report_opts o = { NULL, 20, 20 };
	const tc_json *reps[1];
	const char *srcs[1] = { "x/r.json" };
	tc_buf out = TC_BUF_INIT;

	assert_non_null(rep);
	reps[0] = rep;
	assert_int_equal(tc_round_report_render(reps, srcs, 1, &o, &out, &err), -1);
	assert_string_equal(tc_error_msg(&err), expected);
	tc_error_clear(&err);
	tc_buf_free(&out);
	tc_json_free(rep);
	tc_json_free(doc);
}

static void
expect_contains(const char *md, const char *needle)
{
	if (strstr(md, needle) == NULL)
		fprintf(stderr, "# missing: %s\n%s\n", needle, md);
	assert_non_null(strstr(md, needle));
}

/* A minimal report with one SK row / non-fusion row given as JSON. */
static char *
render_rows(const char *sk_row, const char *nf_row)
{
	char text[4096];

	snprintf(text, sizeof(text), "{\"effective_fusion\": {}, "
	    "\"per_sk_fusion_table\": [%s], \"non_fusion_operator_table\": [%s]}",
	    sk_row != NULL ? sk_row : "", nf_row != NULL ? nf_row : "");
	return render(text, "R1/round-report.json", 20, 20);
}

/* ---- the reference's tests ----------------------------------------------- */

static void
test_render_markdown_summarizes_round_fusion_for_humans(void **state)
{
	char *md = render(FIXTURE, "S2/round-report.child-ge-5.json", 1, 1);

	(void)state;
	expect_contains(md, "# SuperKernel 单轮融合报告");
	expect_contains(md, "## S2");
	expect_contains(md, "child_count >= 5");
	expect_contains(md, "| 有效融合组 | 1 |");
	expect_contains(md, "| 浅融合组 | 1 |");
	expect_contains(md, "sk_eff\\|pipe");
	expect_contains(md, "decoder.layer.0.attention; MatMul -> Add; scope_id=7");
	expect_contains(md, "MatMul -> Add\\|Pipe -> Norm");
	expect_contains(md, "OP_UNSUPPORT");
	expect_contains(md, "Custom\\|Op");
	expect_contains(md, "missing<br>line");
	assert_null(strstr(md, "sk_shallow"));
	free(md);
}

static void
test_render_markdown_keeps_single_child_descriptive_without_a1_or_gate(void **state)
{
	const char *text = "{\"round_name\": \"S3\", \"effective_fusion\": {}, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": [], "
	    "\"single_child_exclusion\": {\"single_child_group_count\": 1, "
	    "\"candidates\": [{\"function\": \"sk_single\", \"child_functions\": "
	    "[\"static_kernel_MatMul\"], \"exclusion_status\": \"proposed\", "
	    "\"path\": \"/abs/dir/sk_single.o\"}]}}";
	char *md = render(text, "S3/round-report.json", 20, 20);

	(void)state;
	expect_contains(md, "### Child count 结构描述");
	expect_contains(md, "profiling");
	expect_contains(md, "| sk_single | - | static_kernel_MatMul | "
	    "sk_single.o | pending profiling analysis |");
	assert_null(strstr(md, "S3-A1"));
	assert_null(strstr(md, "必须调整"));
	assert_null(strstr(md, "proposed"));
	free(md);
}

static void
test_rejects_json_without_round_report_shape(void **state)
{
	tc_json *doc = parse("{\"effective_fusion\": {}}");
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_round_report_extract(doc, "S9/x.json", &err));
	assert_string_equal(tc_error_msg(&err), "ValueError: S9/x.json: missing "
	    "round-report fields: per_sk_fusion_table, non_fusion_operator_table");
	tc_json_free(doc);
	doc = parse("[1]");
	assert_null(tc_round_report_extract(doc, "S9/x.json", &err));
	assert_string_equal(tc_error_msg(&err), "ValueError: S9/x.json: expected "
	    "a JSON object");
	tc_error_clear(&err);
	tc_json_free(doc);
}

static void
test_full_metadata_summary_uses_its_round_report(void **state)
{
	tc_json *doc = parse("{\"round_report\": {\"round_name\": \"S1\", "
	    "\"effective_fusion\": {}, \"per_sk_fusion_table\": [], "
	    "\"non_fusion_operator_table\": []}, \"other\": 1}");
	tc_error err = TC_ERROR_INIT;
	tc_json *rep = tc_round_report_extract(doc, "S1/sk-meta-summary.json", &err);

	(void)state;
	assert_non_null(rep);
	assert_string_equal(tc_json_get_string(rep, "round_name"), "S1");
	assert_null(tc_json_get(rep, "other"));
	tc_json_free(rep);
	tc_json_free(doc);
}

/* ---- the layout ----------------------------------------------------------------- */

static void
test_render_reproduces_the_reference_layout_byte_for_byte(void **state)
{
	static const char expected[] =
	    "# SuperKernel 单轮融合报告\n"
	    "\n"
	    "> 该报告由 `round-report.child-ge-5.json` 或 `sk-meta-summary.json` "
	    "渲染，仅解释 metadata。profiler interval、clean performance 和 "
	    "promotion decision 仍以 `round-evidence.json` 或最终 `REPORT.md` "
	    "为准。\n"
	    "\n"
	    "## S2\n"
	    "\n"
	    "- 来源: `S2/round-report.child-ge-5.json`\n"
	    "\n"
	    "### 融合概览\n"
	    "\n"
	    "| 指标 | 值 |\n"
	    "| --- | --- |\n"
	    "| 结构描述阈值 | child_count >= 5 |\n"
	    "| 融合组总数 | 2 |\n"
	    "| 有效融合组 | 1 |\n"
	    "| 浅融合组 | 1 |\n"
	    "| 单子算子 SK 数量 | 0 |\n"
	    "| 性能动作来源 | fresh profiling analysis |\n"
	    "| 2..4 子算子浅融合数量 | 0 |\n"
	    "| 有效 child 总数 | 6 |\n"
	    "| 浅融合 child 总数 | 2 |\n"
	    "| 有效 child 分布 | 6:1 |\n"
	    "| 浅融合 child 分布 | 2:1 |\n"
	    "| 有效预计 launch 减少 | 5 |\n"
	    "| 全部融合预计 launch 减少 | 6 |\n"
	    "\n"
	    "### Child count 结构描述\n"
	    "\n"
	    "child_count、深度和预计 launch 减少只描述 metadata。所有可靠 mapped SK "
	    "都进入 fresh profiling；keep/prune/reprofile/block 只由 profiling "
	    "分析决定。\n"
	    "未发现 child_count == 1 的 SK。\n"
	    "\n"
	    "### SK 融合范围明细（最多 20 条）\n"
	    "\n"
	    "| SK function | Scope / 边界 | Layer | Segments | Child | 有效 | "
	    "Streams | Launch 前/后 | 预计减少 | Control core | Child op sequence "
	    "| Path |\n"
	    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
	    "--- |\n"
	    "| sk_eff\\|pipe | decoder.layer.0.attention; MatMul -> Add; "
	    "scope_id=7 | 0 | 1 | 6 | 是 | 1, 2 | 6/1 | 5 | aic | MatMul -> "
	    "Add\\|Pipe -> Norm | /tmp/sk_eff |\n"
	    "| sk_shallow | - | - | - | 2 | 否 | - | -/- | - | - | - | - |\n"
	    "\n"
	    "### 未融合或断裂原因（最多 20 条）\n"
	    "\n"
	    "| Source | Reason | Count | Percent | Op type | Kernel type | "
	    "Example | Detail | Action |\n"
	    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
	    "| ge | OP_UNSUPPORT | 3 | 75.00% | Custom\\|Op | AICPU | f1; "
	    "node=12; scope=a,b | missing<br>line | keep |\n";
	char *md = render(FIXTURE, "S2/round-report.child-ge-5.json", 20, 20);

	(void)state;
	if (strcmp(md, expected) != 0)
		fprintf(stderr, "# got:\n%s\n", md);
	assert_string_equal(md, expected);
	free(md);
}

static void
test_empty_tables_are_replaced_by_sentences(void **state)
{
	char *md = render_rows(NULL, NULL);

	(void)state;
	expect_contains(md, "### SK 融合范围明细（最多 20 条）\n\n未发现 SK 融合组。\n");
	expect_contains(md, "### 未融合或断裂原因（最多 20 条）\n\n"
	    "未发现未融合或 scope 断裂记录。\n");
	expect_contains(md, "| 融合组总数 | 0 |");
	expect_contains(md, "| 有效 child 分布 | - |");
	expect_contains(md, "## R1\n");
	free(md);
}

static void
test_round_name_falls_back_to_parent_directory_then_unknown(void **state)
{
	const char *text = "{\"round_name\": \"\", \"effective_fusion\": null, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": []}";
	char *md = render(text, "runs//S7/./round-report.json", 20, 20);

	(void)state;
	expect_contains(md, "## S7\n\n- 来源: `runs/S7/round-report.json`\n");
	free(md);
	md = render(text, "round-report.json", 20, 20);
	expect_contains(md, "## unknown\n");
	free(md);
	md = render(text, "/abs/S8/round-report.json", 20, 20);
	expect_contains(md, "## S8\n\n- 来源: `round-report.json`\n");
	free(md);
}

static void
test_several_inputs_render_in_argument_order(void **state)
{
	tc_json *a = parse("{\"round_name\": \"A\", \"effective_fusion\": {}, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": []}");
	tc_json *b = parse("{\"round_name\": \"B\", \"effective_fusion\": {}, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": []}");
	const tc_json *reps[2] = { b, a };
	const char *srcs[2] = { "b.json", "a.json" };
	tc_round_report_opts o = { "标题", 3, 4 };
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;
	const char *pa, *pb;

	(void)state;
	assert_int_equal(tc_round_report_render(reps, srcs, 2, &o, &out, &err), 0);
	assert_non_null(strstr(out.data, "# 标题\n"));
	pb = strstr(out.data, "## B\n");
	pa = strstr(out.data, "## A\n");
	assert_non_null(pa);
	assert_non_null(pb);
	assert_true(pb < pa);
	assert_non_null(strstr(out.data, "（最多 3 条）"));
	assert_non_null(strstr(out.data, "（最多 4 条）"));
	assert_non_null(strstr(out.data, "记录。\n\n## A\n"));
	tc_buf_free(&out);
	tc_json_free(a);
	tc_json_free(b);
}

/* ---- cells ----------------------------------------------------------------- */

static void
test_sk_rows_sort_effective_first_then_child_count_then_name(void **state)
{
	const char *text = "{\"effective_fusion\": {}, \"per_sk_fusion_table\": ["
	    "{\"function\": \"z\", \"child_count\": 9, "
	    "\"counts_as_effective_fusion\": false},"
	    "{\"function\": \"b\", \"child_count\": 5, "
	    "\"counts_as_effective_fusion\": true},"
	    "{\"function\": \"a\", \"child_count\": 5.0, "
	    "\"counts_as_effective_fusion\": 1},"
	    "{\"function\": \"c\", \"child_count\": 7, "
	    "\"counts_as_effective_fusion\": true},"
	    "{\"function\": null, \"child_count\": null, "
	    "\"counts_as_effective_fusion\": true}], "
	    "\"non_fusion_operator_table\": []}";
	char *md = render(text, "x/r.json", 20, 20);
	const char *c = strstr(md, "| c |"), *a = strstr(md, "| a |");
	const char *b = strstr(md, "| b |"), *z = strstr(md, "| z |");
	const char *none = strstr(md, "| - | - | - | - | - | 是 |");

	(void)state;
	assert_true(c != NULL && a != NULL && b != NULL && z != NULL &&
	    none != NULL);
	assert_true(c < a && a < b && b < none && none < z);
	free(md);
	md = render(text, "x/r.json", 2, 20);
	assert_non_null(strstr(md, "| c |"));
	assert_non_null(strstr(md, "| a |"));
	assert_null(strstr(md, "| b |"));
	free(md);
}

static void
test_histograms_sort_integer_keys_numerically_before_other_keys(void **state)
{
	char *md = render("{\"effective_fusion\": {"
	    "\"effective_child_count_histogram\": {\"10\": 1, \"2\": 3, "
	    "\"x\": 4, \" 7 \": 2, \"-1\": 5, \"1_0\": 6}}, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": []}",
	    "x/r.json", 20, 20);

	(void)state;
	expect_contains(md, "| 有效 child 分布 | -1:5, 2:3,  7 :2, 10:1, 1_0:6, "
	    "x:4 |");
	free(md);
}

static void
test_cells_escape_pipes_newlines_and_render_python_values(void **state)
{
	char *md = render_rows("{\"function\": \"f\", \"layer\": {\"b\": [1, "
	    "true], \"a\": \"x|y\"}, \"segments\": [\"p|q\", null, \"\", [3]], "
	    "\"child_count\": 1.5, \"stream_ids\": [], \"path\": \"\", "
	    "\"launch_count_without_sk\": null, \"launch_count_with_sk\": 2.0, "
	    "\"estimated_launch_reduction\": 1e+20, \"control_core_mode\": "
	    "false}", NULL);

	(void)state;
	expect_contains(md, "| f | - | {\"a\": \"x\\|y\", \"b\": [1, true]} | "
	    "p\\\\|q, -, -, 3 | 1.5 | - | - | None/2.0 | 1e+20 | 否 | - | - |");
	free(md);
}

static void
test_percent_example_and_detail_cells(void **state)
{
	char *md = render_rows(NULL, "{\"percent\": \"12.345\", "
	    "\"example_stream_id\": 0, \"example_break_reason\": \"brk\", "
	    "\"example_detail\": \"\", \"count\": 0}");

	(void)state;
	expect_contains(md, "| - | - | 0 | 12.35% | - | - | stream=0 | brk | - |");
	free(md);
	md = render_rows(NULL, "{\"percent\": 2, \"example_scope_names\": \"ab\", "
	    "\"example_function\": \"\"}");
	expect_contains(md, "| - | - | - | 2.00% | - | - | scope=a,b | - | - |");
	free(md);
}

static void
test_long_op_sequences_are_truncated_with_a_count(void **state)
{
	char *md = render_rows("{\"function\": \"f\", \"child_functions\": [\"o1\", "
	    "\"o2\", \"\", \"o3\", \"o4\", \"o5\", \"o6\", \"o7\", \"o8\", \"o9\", "
	    "\"o10\", \"o11\", \"o12\", \"o13\", null]}", NULL);

	(void)state;
	expect_contains(md, "| o1 -> o2 -> o3 -> o4 -> o5 -> o6 -> o7 -> o8 -> "
	    "o9 -> o10 -> o11 -> o12 -> ... 共13个 |");
	free(md);
}

static void
test_top_non_fusion_keeps_input_order(void **state)
{
	char *md;
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "{\"effective_fusion\": {}, "
	    "\"per_sk_fusion_table\": [], \"non_fusion_operator_table\": ["
	    "{\"reason\": \"R2\"}, {\"reason\": \"R1\"}, {\"reason\": \"R3\"}]}");
	md = render(text, "x/r.json", 20, 2);
	assert_true(strstr(md, "R2") < strstr(md, "R1"));
	assert_null(strstr(md, "R3"));
	free(md);
}

/* ---- Python errors ---------------------------------------------------------- */

static void
test_malformed_values_raise_the_reference_python_errors(void **state)
{
	(void)state;
	expect_render_error("{\"effective_fusion\": [1], \"per_sk_fusion_table\": "
	    "[], \"non_fusion_operator_table\": []}",
	    "AttributeError: 'list' object has no attribute 'get'");
	expect_render_error("{\"effective_fusion\": {}, \"per_sk_fusion_table\": "
	    "[{\"child_count\": \"6\"}], \"non_fusion_operator_table\": []}",
	    "TypeError: bad operand type for unary -: 'str'");
	expect_render_error("{\"effective_fusion\": {}, \"per_sk_fusion_table\": "
	    "null, \"non_fusion_operator_table\": []}",
	    "TypeError: 'NoneType' object is not iterable");
	expect_render_error("{\"effective_fusion\": {}, \"per_sk_fusion_table\": "
	    "[], \"non_fusion_operator_table\": [{\"percent\": \"x\"}]}",
	    "ValueError: could not convert string to float: 'x'");
	expect_render_error("{\"effective_fusion\": {"
	    "\"shallow_child_count_histogram\": [1]}, \"per_sk_fusion_table\": [], "
	    "\"non_fusion_operator_table\": []}",
	    "AttributeError: 'list' object has no attribute 'items'");
	expect_render_error("{\"effective_fusion\": {}, \"per_sk_fusion_table\": "
	    "[7], \"non_fusion_operator_table\": []}",
	    "AttributeError: 'int' object has no attribute 'get'");
}

static void
test_load_reports_missing_files_and_bad_json(void **state)
{
	tc_error err = TC_ERROR_INIT;
	char path[] = "/tmp/tunectl-rr.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"a\":", 5), 5);
	close(fd);
	assert_null(tc_round_report_load(path, &err));
	assert_non_null(strstr(tc_error_msg(&err), "JSONDecodeError: Expecting "
	    "value"));
	unlink(path);
	assert_null(tc_round_report_load("/nonexistent/r.json", &err));
	assert_string_equal(tc_error_msg(&err), "FileNotFoundError: [Errno 2] No "
	    "such file or directory: '/nonexistent/r.json'");
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_markdown_summarizes_round_fusion_for_humans),
		cmocka_unit_test(test_render_markdown_keeps_single_child_descriptive_without_a1_or_gate),
		cmocka_unit_test(test_rejects_json_without_round_report_shape),
		cmocka_unit_test(test_full_metadata_summary_uses_its_round_report),
		cmocka_unit_test(test_render_reproduces_the_reference_layout_byte_for_byte),
		cmocka_unit_test(test_empty_tables_are_replaced_by_sentences),
		cmocka_unit_test(test_round_name_falls_back_to_parent_directory_then_unknown),
		cmocka_unit_test(test_several_inputs_render_in_argument_order),
		cmocka_unit_test(test_sk_rows_sort_effective_first_then_child_count_then_name),
		cmocka_unit_test(test_histograms_sort_integer_keys_numerically_before_other_keys),
		cmocka_unit_test(test_cells_escape_pipes_newlines_and_render_python_values),
		cmocka_unit_test(test_percent_example_and_detail_cells),
		cmocka_unit_test(test_long_op_sequences_are_truncated_with_a_count),
		cmocka_unit_test(test_top_non_fusion_keeps_input_order),
		cmocka_unit_test(test_malformed_values_raise_the_reference_python_errors),
		cmocka_unit_test(test_load_reports_missing_files_and_bad_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
