/*
 * test_analysis.c - the fusion analysis's arithmetic and readers against
 * the reference's own expected values: robust statistics, the
 * classification and its tail and non-finite rules, the mapping coverage,
 * interval unions, launch-name operators, round ids, Python's float() on a
 * cell, and kernel_details.csv read as csv.DictReader reads it.
 */
#include <fcntl.h>
#include <math.h>
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

#include "../../src/analysis/analysis_internal.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

static const struct tc_analysis_thresholds defaults = { 3.0, 1.0, 3 };

static struct an_stats
stats_of(const double *v, size_t n)
{
	struct an_stats s;

	assert_true(tc_analysis__robust_stats(v, n, false, &s));
	return s;
}

/* The classification of baseline b against candidate c. */
static const char *
classify(const double *b, size_t nb, const double *c, size_t nc,
    tc_json **errors)
{
	struct an_stats sb = stats_of(b, nb), sc = stats_of(c, nc);
	struct an_classification cl;

	tc_analysis__classify(&sb, &sc, &defaults, NULL, &cl);
	if (errors != NULL)
		*errors = cl.errors;
	else
		tc_json_free(cl.errors);
	return cl.classification;
}

static void
classification_follows_the_reference_cases(void **state)
{
	static const double base[] = { 100, 101, 99 };
	static const double faster[] = { 94, 95, 96 };
	static const double slower[] = { 104, 105, 106 };
	static const double same[] = { 99, 100, 101 };

	(void)state;
	assert_string_equal(classify(base, 3, faster, 3, NULL), "beneficial");
	assert_string_equal(classify(base, 3, slower, 3, NULL), "regressed");
	assert_string_equal(classify(base, 3, same, 3, NULL), "neutral");
	assert_string_equal(classify(base, 2, faster, 2, NULL),
	    "insufficient_evidence");
}

static void
small_changes_stay_neutral(void **state)
{
	static const double b[] = { 100, 100, 100 };
	static const double c98[] = { 98, 98, 98 }, c95[] = { 95, 95, 95 };
	static const double c995[] = { 99.5, 99.5, 99.5 };
	static const double c1005[] = { 100.5, 100.5, 100.5 };
	static const double mad[] = { 90, 100, 110 };

	(void)state;
	assert_true(stats_of(mad, 3).mad.v == 10);
	assert_string_equal(classify(b, 3, c98, 3, NULL), "neutral");
	assert_string_equal(classify(b, 3, c95, 3, NULL), "beneficial");
	assert_string_equal(classify(b, 3, c995, 3, NULL), "neutral");
	assert_string_equal(classify(b, 3, c1005, 3, NULL), "neutral");
}

static bool
has_error(const tc_json *errors, const char *code)
{
	return tc_analysis__list_has(errors, code);
}

static void
tails_zeros_and_overflow_are_insufficient_evidence(void **state)
{
	static const double b[] = { 14.38, 15.66, 46.82 };
	static const double c[] = { 33.62, 35.24, 35.54 };
	static const double zeros[] = { 0, 0, 0 };
	static const double huge[] = { 1e308, 1e308, 1e308 };
	static const double neg[] = { -1e308, -1e308, -1e308 };
	tc_json *e;

	(void)state;
	assert_string_equal(classify(b, 3, c, 3, &e), "insufficient_evidence");
	assert_true(has_error(e, "minimum_sample_unrepresented_tail"));
	assert_true(has_error(e, "baseline_minimum_sample_unrepresented_tail"));
	tc_json_free(e);
	assert_string_equal(classify(zeros, 3, c, 3, &e),
	    "insufficient_evidence");
	assert_true(has_error(e, "non_finite_performance_statistics"));
	tc_json_free(e);
	assert_string_equal(classify(huge, 3, neg, 3, &e),
	    "insufficient_evidence");
	assert_true(has_error(e, "non_finite_derived_statistics"));
	tc_json_free(e);
}

static void
statistics_of_the_structural_record(void **state)
{
	static const double iv[] = { 42, 42.25, 42.5, 43 };
	static const double du[] = { 29.5, 30, 30.5, 31 };
	struct an_stats a, b;
	struct an_classification cl;

	(void)state;
	assert_true(tc_analysis__robust_stats(iv, 4, true, &a));
	assert_true(a.p50.v == 42.375 && a.p90.v == 42.85 && a.mad.v == 0.25);
	assert_true(a.mean.ok && a.mean.v == 42.4375);
	b = stats_of(du, 4);
	assert_true(b.p50.v == 30.25 && b.p90.v == 30.85 && b.mad.v == 0.5);
	tc_analysis__classify(&a, &b, &defaults, NULL, &cl);
	assert_true(cl.noise_pct.ok && cl.noise_pct.v == 3.3057851239669422);
	assert_string_equal(cl.classification, "beneficial");
	tc_json_free(cl.errors);
}

static tc_json *
decision(int raw, int children, const char *confidence, bool blocked)
{
	tc_json *d = tc_json_new_object(), *b = tc_json_new_array();

	tc_json_object_set_int(d, "device_id", 0);
	tc_json_object_set_string(d, "model_id", "7");
	tc_json_object_set_int(d, "raw_sk_id", raw);
	tc_json_object_set_int(d, "child_count", children);
	tc_json_object_set_string(d, "candidate_binding_status", "bound");
	tc_json_object_set_string(d, "mapping_confidence", confidence);
	if (blocked)
		tc_json_array_push(b,
		    tc_json_new_string("structural_replay_mismatch"));
	tc_json_object_set(d, "mapping_blockers", b);
	return d;
}

static void
mapping_coverage_counts_each_sk_once(void **state)
{
	tc_json *list = tc_json_new_array(), *cov;
	char *text;

	(void)state;
	tc_json_array_push(list, decision(1, 1, "exact_projected_trace", false));
	tc_json_array_push(list, decision(2, 2, "exact_projected_trace", false));
	tc_json_array_push(list, decision(3, 4, "ambiguous", true));
	tc_json_array_push(list, decision(4, 5, "exact_projected_trace", false));
	tc_json_array_push(list, decision(5, 9, "unmapped", true));
	tc_json_array_push(list, decision(5, 9, "unmapped", true));
	cov = tc_analysis__mapping_coverage(list);
	text = tc_json_canonical(cov, NULL, NULL);
	assert_string_equal(text, "{\"ambiguous_sk_ids\":1,\"blocker_counts\":"
	    "{\"structural_replay_mismatch\":2},\"bound_sk_ids\":5,"
	    "\"child_count_distribution\":{\"1\":1,\"2\":1,\"4\":1,\"5+\":2},"
	    "\"exact_projected_trace_sk_ids\":3,\"filtered_by_child_count\":0,"
	    "\"total_sk_ids\":5,\"unmapped_sk_ids\":1}");
	free(text);
	tc_json_free(cov);
	tc_json_free(list);
}

static void
interval_union_merges_overlaps(void **state)
{
	struct an_event ev[2] = {
		{ AN_NUM(1), AN_CUBE, 0, AN_NUM(10) },
		{ AN_NUM(2), AN_VECTOR, 2, AN_NUM(10) },
	};
	an_num u;

	(void)state;
	u = tc_analysis__interval_union(ev, 2);
	assert_true(u.ok && u.v == 10);
	ev[1].end = AN_NONE;
	assert_false(tc_analysis__interval_union(ev, 2).ok);
}

static void
operators_of_launch_names(void **state)
{
	static const struct { const char *name, *op; } t[] = {
		{ "static_kernel_GroupedMatmul_hash", "GroupedMatmul" },
		{ "aclnnMatmul_MatMulV2_0", "Matmul" },
		{ "aclnnInplaceAdd_x", "InplaceAdd" },
		{ "Add_12", "Add" },
		{ "_lead", "" },
		{ "x_static_kernel_Mul_1", "Mul" },
		{ "static_kernel_Mul", "static" },
	};
	size_t i;
	char *op;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		op = tc_analysis__op_from_function(t[i].name);
		assert_non_null(op);
		assert_string_equal(op, t[i].op);
		free(op);
	}
	assert_null(tc_analysis__op_from_function(""));
	assert_null(tc_analysis__op_from_function("aclnn_x"));
}

static void
sk_names_split_at_the_first_start_and_last_end(void **state)
{
	struct an_boundary b;

	(void)state;
	assert_true(tc_analysis__parse_sk_name("sk_12_decoder.layer.0.mlp_start_"
	    "static_kernel_A_h_end_x_end_static_kernel_B_h", &b));
	assert_string_equal(b.scope, "decoder.layer.0.mlp");
	assert_string_equal(b.start_function, "static_kernel_A_h_end_x");
	assert_string_equal(b.end_function, "static_kernel_B_h");
	assert_string_equal(b.start_op, "A");
	assert_string_equal(b.end_op, "B");
	tc_analysis__boundary_free(&b);
	assert_false(tc_analysis__parse_sk_name("sk_1_unnamed", &b));
	assert_false(tc_analysis__parse_sk_name("sk_x_a_start_b_end_c", &b));
	assert_true(tc_analysis__raw_sk_id("sk_42_a").v == 42);
	assert_false(tc_analysis__raw_sk_id("sk_a_1").ok);
	assert_int_equal(tc_analysis__core_family("MIX_AIC", "", "", ""), AN_MIX);
	assert_int_equal(tc_analysis__core_family("AI_VECTOR_CORE", "", "", ""),
	    AN_VECTOR);
	assert_int_equal(tc_analysis__core_family("AI_CORE", "", "", ""), AN_CUBE);
	assert_int_equal(tc_analysis__core_family("AI_CORE", "HcclAllReduce", "", ""),
	    AN_COMMUNICATION);
	assert_int_equal(tc_analysis__core_family("", "", "", ""), AN_OTHER);
}

static void
rounds_belong_to_their_candidate(void **state)
{
	(void)state;
	assert_true(tc_round_belongs_to_candidate("S4", "S4-BASE"));
	assert_true(tc_round_belongs_to_candidate("S4", "S4-AUTO"));
	assert_true(tc_round_belongs_to_candidate("S4", "S4-P1"));
	assert_true(tc_round_belongs_to_candidate("S4", "S4-P10"));
	assert_true(tc_round_belongs_to_candidate("S4", "S4-FINAL"));
	assert_false(tc_round_belongs_to_candidate("S4", "S4"));
	assert_false(tc_round_belongs_to_candidate("S4", "S4-P0"));
	assert_false(tc_round_belongs_to_candidate("S4", "Other-BASE"));
	assert_false(tc_round_belongs_to_candidate("S4", "S4-X1"));
	assert_false(tc_round_belongs_to_candidate("S4", "S4-FINAL-more"));
	assert_false(tc_round_belongs_to_candidate("S4", "S4-R1"));
	assert_false(tc_round_belongs_to_candidate(" S4", " S4-BASE"));
}

static void
cells_parse_as_python_float(void **state)
{
	static const struct { const char *in; bool ok; double v; } t[] = {
		{ " 2.5 ", true, 2.5 }, { "1_000", true, 1000 },
		{ "1e3", true, 1000 }, { ".5", true, 0.5 }, { "5.", true, 5 },
		{ "-0", true, 0 }, { "N/A", false, 0 }, { "", false, 0 },
		{ "inf", false, 0 }, { "nan", false, 0 }, { "1e400", false, 0 },
		{ "1e", false, 0 }, { "0x10", false, 0 }, { "1__0", false, 0 },
		{ "_1", false, 0 }, { "1,5", false, 0 }, { ".", false, 0 },
		/* float() reads decimal digits of any script and Unicode
		 * whitespace as their ASCII forms */
		{ "\xef\xbc\x96", true, 6 },			/* U+FF16 */
		{ "\xd9\xa1\xd9\xa2.5", true, 12.5 },	/* U+0661 U+0662 */
		{ "\xc2\xa0" "7\xe3\x80\x80", true, 7 },	/* U+00A0 .. U+3000 */
		{ "\xef\xbc\x96\xe2\x80\x83" "7", false, 0 },	/* inner U+2003 */
		{ "6\xc2\xb2", false, 0 },			/* U+00B2 is No */
		{ "\xff" "6", false, 0 },
		{ "\xc2\xa0N/A", false, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		an_num x = tc_analysis__to_float(t[i].in, strlen(t[i].in));

		assert_int_equal(x.ok, t[i].ok);
		if (t[i].ok)
			assert_true(x.v == t[i].v);
	}
	assert_true(tc_analysis__to_int("-7.9", 4).v == -7);
}

/* The threshold arguments, as argparse's type=float and type=int. */
static void
arguments_parse_as_python_float_and_int(void **state)
{
	static const struct { const char *in; bool ok; double v; } f[] = {
		{ " 2.5e0 ", true, 2.5 }, { "1_0", true, 10 }, { "-0", true, 0 },
		{ "\xef\xbc\x93", true, 3 }, { "inf", true, INFINITY },
		{ "1,5", false, 0 }, { "0x10", false, 0 }, { "", false, 0 },
	};
	static const struct { const char *in; bool ok; long v; } n[] = {
		{ " 4 ", true, 4 }, { "0_3", true, 3 }, { "-2", true, -2 },
		{ "\xd9\xa4", true, 4 }, { "3.0", false, 0 }, { "_3", false, 0 },
		{ "3_", false, 0 }, { "", false, 0 },
		{ "99999999999999999999", false, 0 },
	};
	size_t i;
	double d;
	long l;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		assert_int_equal(tc_analysis_py_float(f[i].in, &d), f[i].ok);
		if (f[i].ok)
			assert_true(d == f[i].v);
	}
	assert_true(tc_analysis_py_float("nan", &d) && isnan(d));
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		assert_int_equal(tc_analysis_py_int(n[i].in, &l), n[i].ok);
		if (n[i].ok)
			assert_int_equal(l, n[i].v);
	}
}

/* The cells the fast path reads (at most 19 digits, worth at most 2**53,
 * at most 22 after the point) and those just past it read as strtod. */
static void
plain_decimal_cells_round_as_strtod(void **state)
{
	static const char *const t[] = {
		"0.1", "4.20", "123456.789", "100000.00", "-3.75", "+2.5",
		"9007199254740992", "9007199254740993", "0.3000000000000000444",
		"1234567890123456789", "12345678901234567890",
		"0.0000000000000000000001", "0.00000000000000000000001",
		"1.7976931348623157", "00000000000000000001.5", "17.",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		an_num x = tc_analysis__to_float(t[i], strlen(t[i]));

		assert_true(x.ok);
		assert_memory_equal(&x.v, &(double){ strtod(t[i], NULL) },
		    sizeof(double));
	}
	assert_true(signbit(tc_analysis__to_float("-0.0", 4).v));
}

struct lines_seen {
	size_t rows, bad;
};

/* Row i is named k<i>, has step i and starts on line i + 2, unless it is
 * one of the multi-line rows (every 1000th, two lines). */
static int
on_numbered_row(void *ctx, const struct an_row *r, tc_error *err)
{
	struct lines_seen *s = ctx;
	char want[32];
	size_t i = s->rows++;

	(void)err;
	snprintf(want, sizeof(want), "k%zu", i);
	if (i % 1000 == 999)
		snprintf(want, sizeof(want), "k%zu\nx", i);
	if (strcmp(r->name, want) != 0 || r->line != i + 2 + i / 1000 ||
	    r->start != (double)i || strtoul(r->step_id, NULL, 10) != i)
		s->bad++;
	return 0;
}

/* Rows split in place and rows through the state machine (quoted, CRLF,
 * padded), across the reader's 1 MiB blocks, read alike. */
static void
split_and_quoted_rows_read_alike_across_blocks(void **state)
{
	char *dir = unit_tmpdir("analysis-blocks"), *path, hex[65];
	tc_buf b = TC_BUF_INIT;
	struct an_csv_sink sink = { NULL, NULL, NULL, NULL };
	struct lines_seen s = { 0, 0 };
	tc_error err = TC_ERROR_INIT;
	size_t i, n = 70000;

	(void)state;
	tc_buf_puts(&b, "Name,Start Time(us),Duration(us),Step Id\n");
	for (i = 0; i < n; i++) {
		if (i % 1000 == 999)
			tc_buf_printf(&b, "\"k%zu\nx\",%zu,1,%zu\n", i, i, i);
		else if (i % 777 == 5)
			tc_buf_printf(&b, "k%zu,%zu,1,%zu\r\n", i, i, i);
		else if (i % 555 == 7)
			tc_buf_printf(&b, "k%zu, %zu ,1, %zu\n", i, i, i);
		else
			tc_buf_printf(&b, "k%zu,%zu,1,%zu\n", i, i, i);
	}
	assert_true(b.len > (1u << 20));
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	assert_int_equal(tc_write_atomic(path, b.data, b.len, 0, &err), 0);
	sink.ctx = &s;
	sink.row = on_numbered_row;
	assert_int_equal(tc_analysis__kernel_details_read(path, &sink, NULL, hex,
	    &err), 0);
	assert_int_equal(s.rows, n);
	assert_int_equal(s.bad, 0);
	tc_buf_free(&b);
	free(path);
	unit_rmtree(dir);
	free(dir);
}

struct seen {
	char names[8][64];
	size_t rows, lines[8];
	char reasons[8][40];
	size_t rejected;
	char step[8][16];
};

static int
on_row(void *ctx, const struct an_row *r, tc_error *err)
{
	struct seen *s = ctx;

	(void)err;
	if (s->rows < 8) {
		snprintf(s->names[s->rows], 64, "%s", r->name);
		snprintf(s->step[s->rows], 16, "%s", r->step_id);
		s->lines[s->rows] = r->line;
	}
	s->rows++;
	return 0;
}

static int
on_rejected(void *ctx, const struct an_rejected *r, tc_error *err)
{
	struct seen *s = ctx;

	(void)err;
	if (s->rejected < 8)
		snprintf(s->reasons[s->rejected], 40, "%s", r->reason);
	s->rejected++;
	return 0;
}

static void
kernel_details_reads_as_dictreader(void **state)
{
	char *dir = unit_tmpdir("analysis-csv"), *path, hex[65];
	static const char csv[] =
	    "\xef\xbb\xbf" "Name,Start Time(us),Duration(us),Step Id\r\n"
	    "\"a,b\",0,1,3\r\n"
	    "\r\n"
	    "\"multi\nline\",1,2,4\n"
	    "x,N/A,1,5\n"
	    "y,1,,6\n"
	    "z,1,0,7\n"
	    "\"q\"\"uote\"tail,2,3\n"
	    "\"open,4,5";
	struct an_csv_sink sink;
	struct seen s;
	tc_error err = TC_ERROR_INIT;

	(void)state;
	memset(&s, 0, sizeof(s));
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	assert_int_equal(tc_write_atomic(path, csv, sizeof(csv) - 1, 0, &err),
	    0);
	sink.ctx = &s;
	sink.wants = NULL;
	sink.row = on_row;
	sink.rejected = on_rejected;
	assert_int_equal(tc_analysis__kernel_details_read(path, &sink, NULL, hex, &err), 0);
	assert_int_equal(s.rows, 3);
	/* the BOM stays in the first column's name, so "Name" is not
	 * found; the quoted comma and line break stay inside their fields */
	assert_string_equal(s.names[0], "");
	assert_string_equal(s.step[0], "3");
	assert_int_equal(s.lines[1], 4);
	assert_string_equal(s.step[1], "4");
	assert_string_equal(s.step[2], "");
	assert_int_equal(s.rejected, 4);
	assert_string_equal(s.reasons[0], "invalid_or_missing_start");
	assert_string_equal(s.reasons[1], "invalid_or_missing_duration");
	assert_string_equal(s.reasons[2], "non_positive_duration");
	assert_string_equal(s.reasons[3], "invalid_or_missing_start");
	free(path);
	unit_rmtree(dir);
	free(dir);
}

/* A run's digests: a profile hashed while read is known afterwards (and
 * its second read gives the same hex without hashing), another file or
 * the same file rewritten is hashed anew, and a NULL memo hashes. */
static void
file_digests_are_taken_once_per_unchanged_file(void **state)
{
	char *dir = unit_tmpdir("analysis-digests"), *path, *other;
	char hex[65], again[65], want[65];
	static const char csv[] = "Name,Start Time(us),Duration(us)\n"
	    "a,0,1\nb,1,2\n";
	struct an_digests memo;
	struct an_csv_sink sink;
	struct seen s;
	struct stat st;
	tc_error err = TC_ERROR_INIT;
	int fd;

	(void)state;
	memset(&memo, 0, sizeof(memo));
	memset(&s, 0, sizeof(s));
	memset(&sink, 0, sizeof(sink));
	sink.ctx = &s;
	sink.row = on_row;
	sink.rejected = on_rejected;
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	other = tc_xasprintf("%s/other.csv", dir);
	assert_int_equal(tc_write_atomic(path, csv, sizeof(csv) - 1, 0, &err),
	    0);
	assert_int_equal(tc_write_atomic(other, "x\n", 2, 0, &err), 0);
	tc_sha256_hex(csv, sizeof(csv) - 1, want);
	assert_int_equal(tc_analysis__kernel_details_read(path, &sink, &memo,
	    hex, &err), 0);
	assert_string_equal(hex, want);
	assert_int_equal(memo.n, 1);
	assert_int_equal(stat(path, &st), 0);
	memset(again, 0, sizeof(again));
	assert_true(tc_analysis__digest_known(&memo, &st, again));
	assert_string_equal(again, want);
	/* read again: the same rows, the hex from the memo */
	assert_int_equal(tc_analysis__kernel_details_read(path, &sink, &memo,
	    again, &err), 0);
	assert_string_equal(again, want);
	assert_int_equal(s.rows, 4);
	assert_int_equal(tc_analysis__file_digest(&memo, path, again, &err), 0);
	assert_string_equal(again, want);
	assert_int_equal(memo.n, 1);
	/* another file is hashed and noted beside it */
	assert_int_equal(tc_analysis__file_digest(&memo, other, again, &err), 0);
	tc_sha256_hex("x\n", 2, want);
	assert_string_equal(again, want);
	assert_int_equal(memo.n, 2);
	/* the profile rewritten (a new inode, new times): hashed anew */
	assert_int_equal(tc_write_atomic(path, "Name\n", 5, 0, &err), 0);
	tc_sha256_hex("Name\n", 5, want);
	assert_int_equal(tc_analysis__file_digest(&memo, path, again, &err), 0);
	assert_string_equal(again, want);
	/* and rewritten in place, growing: the size tells */
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	assert_int_equal(write(fd, "y\n", 2), 2);
	close(fd);
	tc_sha256_hex("Name\ny\n", 7, want);
	assert_int_equal(tc_analysis__file_digest(&memo, path, again, &err), 0);
	assert_string_equal(again, want);
	/* no memo: hashed, nothing noted */
	assert_int_equal(tc_analysis__file_digest(NULL, path, again, &err), 0);
	assert_string_equal(again, want);
	assert_false(tc_analysis__digest_known(NULL, &st, again));
	/* a missing file: the OS error, named */
	free(other);
	other = tc_xasprintf("%s/missing.csv", dir);
	assert_int_equal(tc_analysis__file_digest(&memo, other, again, &err),
	    -1);
	assert_non_null(strstr(tc_error_msg(&err), "missing.csv"));
	tc_error_clear(&err);
	free(path);
	free(other);
	unit_rmtree(dir);
	free(dir);
}

/* The candidate's SK rows (the projection's CSV reader): quoted fields
 * with commas, quotes and line breaks, padding stripped, blank records
 * skipped, CRLF, lone CR and a last line without a line end. */
static void
candidate_sk_rows_read_quoted_and_padded_fields(void **state)
{
	char *dir = unit_tmpdir("analysis-skrows"), *path;
	static const char csv[] =
	    "Step Id,Device_id,Model ID,Name,Type,Start Time(us),"
	    "Duration(us),Task ID,Stream ID,Accelerator Core,Block Num,"
	    "Mix Block Num\r\n"
	    "1,0,7,MatMul_1,AI_CORE,1.0,2.0,3,4,AI_CORE,1,0\r\n"
	    "\r\n"
	    "2, 0 ,7,\"sk_3_a,b_start_X_end_Y\",SuperKernel,\" 10.50 \","
	    "0.25\t,5,6,MIX_AIV,4,4\n"
	    "3,1,7,sk_4_s_start_A_end_B,SuperKernel,11,1e-1,5,6,"
	    "\"MIX\r\nAIV\",4,4\r"
	    "4,0,8,\"sk_5_q\"\"x_start_A_end_B\",SuperKernel,12,3,5,6,AIC,1,1";
	static const char extra[] =
	    "Step Id,Device_id,Model ID,Name,Type,Start Time(us),"
	    "Duration(us),Task ID,Stream ID,Accelerator Core,Block Num,"
	    "Mix Block Num\n1,0,7,x,y,1,1,1,1,c,1,1,\n";
	struct an_sk_row *rows;
	tc_error err = TC_ERROR_INIT;
	size_t n;

	(void)state;
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	assert_int_equal(tc_write_atomic(path, csv, sizeof(csv) - 1, 0, &err),
	    0);
	assert_int_equal(tc_analysis__candidate_sk_rows(path, &rows, &n, &err),
	    0);
	assert_int_equal(n, 3);
	assert_true(rows[0].step == 2 && rows[0].device == 0 &&
	    rows[0].model == 7 && rows[0].sk == 3);
	assert_string_equal(rows[0].start_text, "10.50");
	assert_string_equal(rows[0].dur_text, "0.25");
	assert_true(rows[1].step == 3 && rows[1].device == 1 &&
	    rows[1].sk == 4);
	assert_string_equal(rows[1].dur_text, "1e-1");
	assert_true(rows[2].model == 8 && rows[2].sk == 5);
	assert_string_equal(rows[2].start_text, "12");
	assert_null(rows[3].start_text);	/* the zeroed entry past n */
	tc_analysis__sk_rows_free(rows, n);
	assert_int_equal(tc_write_atomic(path, extra, sizeof(extra) - 1, 0,
	    &err), 0);
	assert_int_equal(tc_analysis__candidate_sk_rows(path, &rows, &n, &err),
	    -1);
	assert_string_equal(tc_error_msg(&err), "candidate kernel_details "
	    "row has extra columns");
	assert_null(rows);
	tc_error_clear(&err);
	free(path);
	unit_rmtree(dir);
	free(dir);
}

/* Each record as "recno:field\x1ffield\x1e"; stops at record stop_at. */
struct csv_log {
	tc_buf out;
	size_t stop_at;
};

static int
log_record(void *vctx, const struct an_csv_rec *rec, size_t recno,
    tc_error *err)
{
	struct csv_log *l = vctx;
	size_t i;

	tc_buf_printf(&l->out, "%zu:", recno);
	for (i = 0; i < rec->n; i++) {
		tc_buf_puts(&l->out, rec->f[i]);
		tc_buf_putc(&l->out, '\x1f');
	}
	tc_buf_putc(&l->out, '\x1e');
	if (recno == l->stop_at) {
		tc_error_set(err, "stopped at %zu", recno);
		return -1;
	}
	return 0;
}

/* A file read a piece at a time gives the records of its whole text:
 * a BOM, quoted fields holding commas, quotes and line breaks across the
 * pieces' edges, CRLF, lone CR, blank lines, a line longer than a piece,
 * no final line end; a callback's error stops both at the same record. */
static void
csv_file_records_equal_the_whole_texts(void **state)
{
	static const char *const lines[] = {
	    "a,b,c\n", "\"x,y\",\"q\"\"q\",\"line\nbreak\"\r\n", "\n",
	    "1,,3\r", "\"multi\nline\nfield\",z\n", "plain,row,here\n",
	    "tail\"quote,x\n", "\r\n",
	};
	char *dir = unit_tmpdir("analysis-csvfile"), *path;
	tc_buf text = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	bool long_line = false;
	size_t i, k;

	(void)state;
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	tc_buf_puts(&text, "\xef\xbb\xbf");
	for (i = 0; text.len < (size_t)4 << 20; i++) {
		if (text.len > ((size_t)1 << 20) - 300 &&
		    text.len < ((size_t)1 << 20) - 100) {
			/* the first piece's last LF inside a quoted field */
			while (text.len < ((size_t)1 << 20) - 41)
				tc_buf_putc(&text, 'p');
			tc_buf_putc(&text, '\n');
			tc_buf_printf(&text, "\"%29s\n%100s\",z\n", "q", "y");
		}
		tc_buf_puts(&text, lines[i % 8]);
		if (i % 997 == 0)
			tc_buf_printf(&text, "%zu,\"%*s\"\n", i, (int)(i % 50), "");
		if (!long_line && text.len > (size_t)2 << 20) {
			/* one line of 1.5 pieces */
			long_line = true;
			for (k = 0; k < ((size_t)3 << 19); k++)
				tc_buf_putc(&text, (char)('a' + k % 26));
			tc_buf_puts(&text, ",end\n");
		}
	}
	tc_buf_puts(&text, "last,\"open");	/* no line end, quote open */
	assert_int_equal(tc_write_atomic(path, text.data, text.len, 0, &err),
	    0);
	for (k = 0; k < 2; k++) {
		struct csv_log whole = { TC_BUF_INIT, 0 }, file = { TC_BUF_INIT,
		    0 };
		int rw, rf;

		whole.stop_at = file.stop_at = k == 0 ? 0 : 41234;
		rw = tc_analysis__csv_text_each(text.data, text.len, log_record,
		    &whole, &err);
		tc_error_clear(&err);
		rf = tc_analysis__csv_file_each(path, log_record, &file, &err);
		assert_int_equal(rf, rw);
		assert_int_equal(rf, k == 0 ? 0 : -1);
		if (k == 1)
			assert_string_equal(tc_error_msg(&err),
			    "stopped at 41234");
		tc_error_clear(&err);
		assert_true(whole.out.len > (k == 0 ? (size_t)3 << 20 : 4096));
		assert_int_equal(file.out.len, whole.out.len);
		assert_memory_equal(file.out.data, whole.out.data,
		    whole.out.len);
		tc_buf_free(&whole.out);
		tc_buf_free(&file.out);
	}
	/* a short text in pieces of every small size: each edge falls on
	 * each kind of byte (a BOM's, a quote, a CR, an LF in quotes) */
	{
		tc_buf small = TC_BUF_INIT;
		struct csv_log whole = { TC_BUF_INIT, 0 };
		size_t piece;

		tc_buf_puts(&small, "\xef\xbb\xbf");
		for (i = 0; i < 24; i++)
			tc_buf_puts(&small, lines[i % 8]);
		tc_buf_puts(&small, "x,\"y\"\"");
		assert_int_equal(tc_write_atomic(path, small.data, small.len, 0,
		    &err), 0);
		assert_int_equal(tc_analysis__csv_text_each(small.data, small.len,
		    log_record, &whole, &err), 0);
		for (piece = 1; piece <= 40; piece++) {
			struct csv_log l = { TC_BUF_INIT, 0 };

			assert_int_equal(tc_analysis__csv_file_each_sized(path,
			    piece, 1 << 20, false, log_record, &l, &err), 0);
			assert_int_equal(l.out.len, whole.out.len);
			assert_memory_equal(l.out.data, whole.out.data,
			    whole.out.len);
			tc_buf_free(&l.out);
		}
		tc_buf_free(&whole.out);
		tc_buf_free(&small);
		assert_int_equal(tc_write_atomic(path, text.data, text.len, 0,
		    &err), 0);
	}
	/* a line, or a quoted record, past the limit is refused */
	{
		struct csv_log l = { TC_BUF_INIT, 0 };
		tc_buf open = TC_BUF_INIT;

		assert_int_equal(tc_analysis__csv_file_each_sized(path, 4096,
		    (size_t)1 << 20, false, log_record, &l, &err), -1);
		assert_non_null(strstr(tc_error_msg(&err),
		    "record is too long: '"));
		assert_non_null(strstr(tc_error_msg(&err),
		    "kernel_details.csv' (more than 1048576 bytes)"));
		tc_error_clear(&err);
		tc_buf_reset(&l.out);
		tc_buf_puts(&open, "a,b\nc,\"");
		while (open.len < (size_t)3 << 20)
			tc_buf_puts(&open, "inside one quoted field\n");
		assert_int_equal(tc_write_atomic(path, open.data, open.len, 0,
		    &err), 0);
		assert_int_equal(tc_analysis__csv_file_each_sized(path, 4096,
		    (size_t)1 << 20, false, log_record, &l, &err), -1);
		assert_non_null(strstr(tc_error_msg(&err),
		    "record is too long: '"));
		assert_string_equal(tc_buf_cstr(&l.out), "1:a\x1f" "b\x1f\x1e");
		tc_error_clear(&err);
		tc_buf_free(&open);
		tc_buf_free(&l.out);
		assert_int_equal(tc_write_atomic(path, text.data, text.len, 0,
		    &err), 0);
	}
	/* the last record, its quote never closed, ends the file */
	{
		struct csv_log l = { TC_BUF_INIT, 0 };

		assert_int_equal(tc_analysis__csv_file_each(path, log_record, &l,
		    &err), 0);
		assert_non_null(strstr(tc_buf_cstr(&l.out),
		    "last\x1f" "open\x1f\x1e"));
		tc_buf_free(&l.out);
	}
	free(path);
	path = tc_xasprintf("%s/missing.csv", dir);
	assert_int_equal(tc_analysis__csv_file_each(path, log_record, NULL,
	    &err), -1);
	assert_non_null(strstr(tc_error_msg(&err),
	    "[Errno 2] No such file or directory: '"));
	tc_error_clear(&err);
	free(path);
	tc_buf_free(&text);
	unit_rmtree(dir);
	free(dir);
}

static void
an_oversized_field_names_file_and_line(void **state)
{
	char *dir = unit_tmpdir("analysis-big"), *path, hex[65];
	tc_buf b = TC_BUF_INIT;
	struct an_csv_sink sink = { NULL, NULL, NULL, NULL };
	tc_error err = TC_ERROR_INIT;
	size_t i;

	(void)state;
	tc_buf_puts(&b, "Name,Start Time(us)\nx,1\n");
	for (i = 0; i < 131073; i++)
		tc_buf_putc(&b, 'a');
	path = tc_xasprintf("%s/k.csv", dir);
	assert_int_equal(tc_write_atomic(path, b.data, b.len, 0, &err), 0);
	assert_int_equal(tc_analysis__kernel_details_read(path, &sink, NULL, hex, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "k.csv: line 3: field "
	    "larger than field limit (131072)"));
	tc_error_clear(&err);
	tc_buf_free(&b);
	free(path);
	unit_rmtree(dir);
	free(dir);
}

static void
canonical_ops_and_families(void **state)
{
	static const struct { const char *in, *op; } t[] = {
		{ "MatMulV2_1", "MatMulV2" }, { "RmsNorm_5", "RmsNorm" },
		{ "NOTIFY", "NOTIFY" }, { " n/a ", "UNKNOWN" },
		{ "[0/3] Add_2", "Add" }, { "Foo_0x1a_3", "Foo" },
		{ "Conv_FP16_ND", "Conv" }, { "all_reduce_3", "all_reduce" },
		{ "x_static_kernel_Mul_h", "Mul" }, { "__", "UNKNOWN" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *op = tc_analysis__canonical_op(t[i].in);

		assert_string_equal(op, t[i].op);
		free(op);
	}
	assert_string_equal(tc_analysis__canonical_core_family("AIC_ONLY"),
	    "AI_CORE");
	assert_string_equal(tc_analysis__canonical_core_family(" aiv_only "),
	    "AI_VECTOR_CORE");
	assert_string_equal(tc_analysis__canonical_core_family("wait"),
	    "CONTROL");
	assert_string_equal(tc_analysis__canonical_core_family("EVENT_RECORD"),
	    "CONTROL");
	assert_string_equal(tc_analysis__canonical_core_family("all_gather"),
	    "COMMUNICATION");
	assert_string_equal(tc_analysis__canonical_core_family(NULL),
	    "UNKNOWN");
}

/* The recorded case's origin graph: the fingerprint the reference
 * recorded as profile_origin_graph_fingerprint. */
static void
origin_graph_fingerprint_matches_the_record(void **state)
{
	const char *src = getenv("TUNECTL_SRC");
	char *path = tc_xasprintf("%s/tests/fixtures/analysis/in/held-out/"
	    "struct/graph/sk_graph_origin.json", src ? src : ".");
	tc_error err = TC_ERROR_INIT;
	tc_json *g = tc_json_parse_file(path, &err);
	char hex[65];

	(void)state;
	assert_non_null(g);
	assert_int_equal(tc_analysis__graph_fingerprint(g, hex, &err), 0);
	assert_string_equal(hex, "52a1d190df6a708c756592e1c60222f6d0966c65ce13"
	    "db5484395859ef9c5e80");
	tc_json_free(g);
	free(path);
}

/* The node keys of that graph: one counter over every node, stream by
 * stream, control nodes included, so sk 3's children (nodeIds 201 and
 * 202, after the WAIT node 200) are sk:n000007 and sk:n000008. */
static void
origin_graph_node_keys_count_control_nodes(void **state)
{
	const char *src = getenv("TUNECTL_SRC");
	char *path = tc_xasprintf("%s/tests/fixtures/analysis/in/held-out/"
	    "struct/graph/sk_graph_origin.json", src ? src : ".");
	tc_error err = TC_ERROR_INIT;
	tc_json *g = tc_json_parse_file(path, &err);
	struct an_gnode *nodes = NULL;
	size_t n = 0, ns = 0;

	(void)state;
	assert_non_null(g);
	assert_int_equal(tc_analysis__graph_nodes(g, &nodes, &n, &ns, &err), 0);
	assert_int_equal(n, 9);
	assert_int_equal(ns, 2);
	assert_int_equal(nodes[0].node_id, 100);
	assert_string_equal(nodes[0].key, "sk:n000000");
	assert_string_equal(nodes[0].stream_key, "sk:s000000");
	assert_string_equal(nodes[0].op, "MatMulV2");
	assert_string_equal(nodes[0].family, "AI_CORE");
	assert_true(nodes[2].topology_only);		/* NOTIFY 102 */
	assert_int_equal(nodes[6].node_id, 200);	/* WAIT */
	assert_true(nodes[6].topology_only);
	assert_string_equal(nodes[6].stream_key, "sk:s000001");
	assert_int_equal(nodes[7].node_id, 201);
	assert_string_equal(nodes[7].key, "sk:n000007");
	assert_string_equal(nodes[7].op, "Sigmoid");
	assert_string_equal(nodes[7].family, "AI_VECTOR_CORE");
	assert_int_equal(nodes[8].node_id, 202);
	assert_string_equal(nodes[8].key, "sk:n000008");
	assert_int_equal(nodes[8].pos, 2);
	tc_analysis__gnodes_free(nodes, n);
	tc_json_free(g);
	free(path);
}

/*
 * The Markdown renderer's check of the projected-trace evidence, given
 * occurrences as (native_pid, sk_id, step_id) of device 0, model 7 (a pid
 * below 0 is written as a string): the error it stops on, "" when it
 * passes that check (the report, which has no scope actions, may stop on
 * a later one).
 */
static char *
projected_check(const long (*occ)[3], size_t n)
{
	tc_buf b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	char *md, *r;
	size_t i;

	tc_buf_puts(&b, "{\"per_sk_decisions\": [{\"mapping_confidence\": "
	    "\"exact_projected_trace\", \"device_id\": 0, \"model_id\": \"7\", "
	    "\"raw_sk_id\": 1, \"child_count\": 2, \"identity\": "
	    "{\"ordered_child_op_sequence\": [\"Mul\", \"Add\"]}}], "
	    "\"candidate_binding_evidence\": {\"occurrences\": [");
	for (i = 0; i < n; i++) {
		tc_buf_printf(&b, "%s{\"process_identity\": {\"native_pid\": ",
		    i ? ", " : "");
		if (occ[i][0] < 0)
			tc_buf_puts(&b, "\"x\"");
		else
			tc_buf_printf(&b, "%ld", occ[i][0]);
		tc_buf_printf(&b, ", \"device_id\": 0, \"model_id\": 7, "
		    "\"sk_id\": %ld}, \"step_id\": %ld, \"status\": \"bound\", "
		    "\"blockers\": [], \"child_count\": 2, "
		    "\"ordered_child_ops\": [\"Mul\", \"Add\"]}", occ[i][1],
		    occ[i][2]);
	}
	tc_buf_puts(&b, "]}}");
	doc = tc_json_parse(tc_buf_cstr(&b), b.len, NULL);
	assert_non_null(doc);
	md = tc_analysis_markdown(doc, &err);
	r = tc_xstrdup(md == NULL && strstr(tc_error_msg(&err),
	    "projected-trace") != NULL ? tc_error_msg(&err) : "");
	free(md);
	tc_error_clear(&err);
	tc_json_free(doc);
	tc_buf_free(&b);
	return r;
}

static void
expect_projected(const long (*occ)[3], size_t n, const char *want)
{
	char *r = projected_check(occ, n);

	assert_string_equal(r, want);
	free(r);
}

static void
projected_trace_occurrences_pair_by_identity(void **state)
{
	static const char *const incomplete = "per_sk_decisions[0] "
	    "projected-trace occurrence evidence is incomplete";
	static const long good[][3] = { { 5, 1, 1 }, { 5, 1, 2 }, { 5, 1, 3 } };
	/* another SK's occurrences, in another process and on the same
	 * steps, interleaved: not the decision's, no conflict */
	static const long mixed[][3] = { { 9, 2, 1 }, { 5, 1, 1 }, { 9, 2, 2 },
	    { 5, 1, 2 }, { 5, 1, 3 }, { 8, 2, 3 } };
	static const long dup[][3] = { { 5, 1, 1 }, { 5, 1, 2 }, { 5, 1, 3 },
	    { 5, 1, 2 } };
	/* the same step in two processes: no duplicate, but incomplete */
	static const long step[][3] = { { 5, 1, 1 }, { 5, 1, 2 }, { 6, 1, 2 },
	    { 5, 1, 3 } };
	static const long pid[][3] = { { 5, 1, 1 }, { 5, 1, 2 }, { 6, 1, 3 } };
	static const long text[][3] = { { -1, 1, 1 }, { 5, 1, 2 }, { 5, 1, 3 } };
	static const long two[][3] = { { 5, 1, 1 }, { 5, 1, 2 }, { 5, 2, 3 } };

	(void)state;
	expect_projected(good, 3, "");
	expect_projected(mixed, 6, "");
	expect_projected(dup, 4, "per_sk_decisions[0] projected-trace "
	    "duplicate occurrence");
	expect_projected(step, 4, incomplete);
	expect_projected(pid, 3, incomplete);
	expect_projected(text, 3, incomplete);
	expect_projected(two, 3, incomplete);
}

/* The strict read (the candidate's profile): the records of a UTF-8
 * text as the whole text gives them, in pieces of every small size; a
 * BOM or a byte that is not UTF-8 anywhere is -2 with no error text,
 * even after a record failed; a failed record in valid text keeps its
 * error. */
static void
strict_csv_reads_check_utf8_before_records_count(void **state)
{
	char *dir = unit_tmpdir("analysis-strict"), *path;
	static const char valid[] = "a,b\n\xc3\xa9,\"\xe2\x82\xac\n\"\n"
	    "x,\xf0\x9f\x98\x80\r\ny,z\nlast,\xc3\xbc";
	static const char *const bad[] = {
		"\xef\xbb\xbf" "a,b\n",		/* a BOM */
		"a,b\nc,\xc3",			/* cut in a character */
		"a,b\nc,d\ne,f\n\xff,g\n",		/* after the stop */
		"a,\xed\xa0\x80\nc,d\n",		/* a surrogate */
	};
	struct csv_log whole = { TC_BUF_INIT, 0 };
	tc_error err = TC_ERROR_INIT;
	size_t piece, i;

	(void)state;
	path = tc_xasprintf("%s/kernel_details.csv", dir);
	assert_int_equal(tc_write_atomic(path, valid, sizeof(valid) - 1, 0,
	    &err), 0);
	assert_int_equal(tc_analysis__csv_text_each(valid, sizeof(valid) - 1,
	    log_record, &whole, &err), 0);
	for (piece = 1; piece <= 40; piece++) {
		struct csv_log l = { TC_BUF_INIT, 0 };

		assert_int_equal(tc_analysis__csv_file_each_sized(path, piece,
		    1 << 20, true, log_record, &l, &err), 0);
		assert_int_equal(l.out.len, whole.out.len);
		assert_memory_equal(l.out.data, whole.out.data, whole.out.len);
		tc_buf_free(&l.out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tc_write_atomic(path, bad[i], strlen(bad[i]), 0,
		    &err), 0);
		for (piece = 1; piece <= 12; piece++) {
			struct csv_log l = { TC_BUF_INIT, 2 };

			assert_int_equal(tc_analysis__csv_file_each_sized(path,
			    piece, 1 << 20, true, log_record, &l, &err), -2);
			assert_string_equal(tc_error_msg(&err), "");
			tc_buf_free(&l.out);
		}
		assert_int_equal(tc_analysis__csv_file_each_strict(path,
		    log_record, &whole, &err), -2);
		/* not strict: the same text reads */
		if (i == 0) {
			struct csv_log l = { TC_BUF_INIT, 0 };

			assert_int_equal(tc_analysis__csv_file_each(path,
			    log_record, &l, &err), 0);
			assert_string_equal(tc_buf_cstr(&l.out),
			    "1:a\x1f" "b\x1f\x1e");
			tc_buf_free(&l.out);
		}
	}
	/* valid text: the stopped record's error, once all is read */
	assert_int_equal(tc_write_atomic(path, "a,b\nc,d\ne,\xc3\xa9\n", 13, 0,
	    &err), 0);
	for (piece = 1; piece <= 12; piece++) {
		struct csv_log l = { TC_BUF_INIT, 2 };

		assert_int_equal(tc_analysis__csv_file_each_sized(path, piece,
		    1 << 20, true, log_record, &l, &err), -1);
		assert_string_equal(tc_error_msg(&err), "stopped at 2");
		tc_error_clear(&err);
		tc_buf_free(&l.out);
	}
	tc_buf_free(&whole.out);
	free(path);
	unit_rmtree(dir);
	free(dir);
}

/* One interval both ways: the same nanoseconds, or the same digits. */
static void
same_interval(const char *start, const char *dur)
{
	int64_t a[2], b[2];
	char *at[2], *bt[2];
	int i;

	tc_analysis__interval_ns(start, dur, a, at);
	tc_analysis__interval_ns_exact(start, dur, b, bt);
	for (i = 0; i < 2; i++) {
		if (at[i] != NULL || bt[i] != NULL) {
			assert_non_null(at[i]);
			assert_non_null(bt[i]);
			assert_string_equal(at[i], bt[i]);
		} else if (a[i] != b[i]) {
			fail_msg("%s + %s: end %d is %lld, exactly %lld", start,
			    dur, i, (long long)a[i], (long long)b[i]);
		}
		free(at[i]);
		free(bt[i]);
	}
}

/* A random plain decimal: nint digits before the point, nfrac after
 * (none: no point), or ".5"-like forms when nint is 0. */
static void
random_plain(char *buf, int nint, int nfrac, int nonzero)
{
	int i, k = 0;

	for (i = 0; i < nint; i++)
		buf[k++] = (char)('0' + (i == 0 && nint > 1 ? 1 + rand() % 9 :
		    rand() % 10));
	if (nfrac > 0 || rand() % 5 == 0)
		buf[k++] = '.';
	for (i = 0; i < nfrac; i++)
		buf[k++] = (char)('0' + rand() % 10);
	if (nonzero && k > 0 && buf[k - 1] == '.' && nint == 0)
		buf[k++] = '1';
	buf[k] = '\0';
	if (nonzero && strspn(buf, "0.") == strlen(buf)) {
		/* no nonzero digit yet: the last digit becomes one */
		if (k == 0 || buf[k - 1] == '.')
			buf[k++] = '7';
		else
			buf[k - 1] = '7';
		buf[k] = '\0';
	}
}

static void
interval_ns_matches_the_decimal_arithmetic(void **state)
{
	static const char *const cases[][2] = {
		{ "0", "0.001" }, { "10.50", "0.25" }, { "12", "3" },
		{ ".5", "5." }, { "1700000000123456.789", "4.50" },
		{ "999999999999999999", "1" },		/* 18 digits */
		{ "9999999999999999999", "1" },		/* 19: the decimals' */
		{ "123456789.123456789", "0.000000001" },
		{ "1.1234567891", "1" },		/* 10 after the point */
		{ "5", "123456789012345" },		/* 15 digits */
		{ "5", "1234567890123456" },		/* 16: the float's */
		{ "5", "0.1234567890123456" },
		{ "9223372036854775.807", "0.001" },	/* at int64's edge */
		{ "9223372036854775.807", "0.002" },	/* past it */
		{ "1e3", "2" }, { "0.00", "1E-3" },	/* not plain */
		{ "000000000000000000000012.5", "00000000000000000004.25" },
	};
	char s[64], d[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same_interval(cases[i][0], cases[i][1]);
	srand(7);
	for (i = 0; i < 20000; i++) {
		random_plain(s, rand() % 20, rand() % 12, 0);
		random_plain(d, rand() % 17, rand() % 12, 1);
		if (s[0] == '\0' || strcmp(s, ".") == 0)
			strcpy(s, "0");
		same_interval(s, d);
	}
}

/* One occurrence both ways: the same three doubles, bit for bit. */
static int
same_times(const char *const *start, const char *const *dur, size_t n)
{
	double a[3], b[3];
	int fast = tc_analysis__occurrence_times(start, dur, n, false, a);
	int i;

	(void)tc_analysis__occurrence_times(start, dur, n, true, b);
	for (i = 0; i < 3; i++)
		if (memcmp(&a[i], &b[i], sizeof(double)) != 0)
			fail_msg("%zu children from %s + %s: value %d is %.17g, "
			    "exactly %.17g", n, start[0], dur[0], i, a[i], b[i]);
	return fast;
}

static void
occurrence_times_match_the_decimal_arithmetic(void **state)
{
	static const char *const s1[] = { "10.5", "11", "10.75" };
	static const char *const d1[] = { "1.25", "0.5", "3" };
	static const char *const s2[] = { "1700000000123.456", "5" };	/* 2^60 */
	static const char *const d2[] = { "4.5", "123456789012345678901" };
	static const char *const s3[] = { "9007199254740993", "0" };
	static const char *const d3[] = { "1", "1" };	/* past 2^53 */
	char sb[17][48], db[17][48];
	const char *sp[17], *dp[17];
	size_t i, k, n, fast = 0;

	(void)state;
	assert_int_equal(same_times(s1, d1, 3), 1);
	assert_int_equal(same_times(s2, d2, 2), 0);
	assert_int_equal(same_times(s3, d3, 2), 0);
	srand(11);
	for (i = 0; i < 20000; i++) {
		long long base = (long long)(rand() % 1000000) * 1000000LL;

		n = 1 + (size_t)rand() % 17;	/* 17: past SMALL_CHILDREN */
		for (k = 0; k < n; k++) {
			/* mostly as msprof writes them: 3 decimals or fewer */
			int fs = rand() % 8 ? rand() % 4 : rand() % 10;
			int fd = rand() % 8 ? rand() % 4 : rand() % 10;

			snprintf(sb[k], sizeof(sb[k]), "%lld.%0*d",
			    base + rand() % 5000, fs > 0 ? fs : 1,
			    rand() % 10000);
			snprintf(db[k], sizeof(db[k]), "%d.%0*d", rand() % 3000,
			    fd > 0 ? fd : 1, 1 + rand() % 9999);
			sp[k] = sb[k];
			dp[k] = db[k];
		}
		fast += (size_t)same_times(sp, dp, n);
	}
	assert_true(fast > 10000);	/* most took the integers */
}

/* (value, position): ordered by value, then position (a stable sort). */
struct tagged_double {
	double v;
	size_t at;
};

static int
cmp_tagged_double(const void *a, const void *b)
{
	const struct tagged_double *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static void
sort_finite_is_a_stable_sort(void **state)
{
	static const double pick[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -2.5,
	    4.9e-324, -4.9e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
	    -1.7976931348623157e308, 1e-300, 3.0, 3.0, 1e16, 123.456 };
	struct tagged_double *t;
	double *v;
	size_t round, n, i;

	(void)state;
	srand(5);
	for (round = 0; round < 3000; round++) {
		n = round < 2900 ? (size_t)rand() % 64 : 1 + (size_t)rand() %
		    20000;
		v = tc_xmalloc((n + 1) * sizeof(*v));
		t = tc_xmalloc((n + 1) * sizeof(*t));
		for (i = 0; i < n; i++) {
			if (rand() % 2)
				v[i] = pick[(size_t)rand() % (sizeof(pick) /
				    sizeof(pick[0]))];
			else
				v[i] = ((double)rand() - RAND_MAX / 2) *
				    pow(10, rand() % 40 - 20);
			t[i].v = v[i];
			t[i].at = i;
		}
		qsort(t, n, sizeof(*t), cmp_tagged_double);
		tc_analysis__sort_finite(v, n);
		for (i = 0; i < n; i++)
			if (memcmp(&v[i], &t[i].v, sizeof(double)) != 0)
				fail_msg("n %zu: [%zu] is %.17g, stable sort "
				    "%.17g", n, i, v[i], t[i].v);
		free(v);
		free(t);
	}
}

/* tc_analysis__csv_plain_commas by the definition, byte by byte. */
static long
plain_commas_slowly(const char *s, size_t len, uint32_t *at, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\r')
			return -1;
		if (s[i] == ',' && n++ == max)
			return -1;
		if (s[i] == ',')
			at[n - 1] = (uint32_t)i;
	}
	return (long)n;
}

static void
plain_lines_split_at_every_comma(void **state)
{
	static const char alphabet[] = "ab,,,0.5\"\r\x80\xff\x01 ";
	char line[300];
	uint32_t a[AN_PLAIN_COMMAS], b[AN_PLAIN_COMMAS];
	size_t round, len, i, max;
	long na, nb;

	(void)state;
	srand(3);
	for (round = 0; round < 200000; round++) {
		len = (size_t)rand() % sizeof(line);
		max = round % 3 == 0 ? (size_t)rand() % 8 : AN_PLAIN_COMMAS;
		for (i = 0; i < len; i++)
			line[i] = rand() % 4 ? alphabet[rand() % 4] :
			    alphabet[(size_t)rand() % (sizeof(alphabet) - 1)];
		na = tc_analysis__csv_plain_commas(line, len, a, max);
		nb = plain_commas_slowly(line, len, b, max);
		assert_int_equal(na, nb);
		if (na > 0)
			assert_memory_equal(a, b, (size_t)na * sizeof(*a));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classification_follows_the_reference_cases),
		cmocka_unit_test(small_changes_stay_neutral),
		cmocka_unit_test(tails_zeros_and_overflow_are_insufficient_evidence),
		cmocka_unit_test(statistics_of_the_structural_record),
		cmocka_unit_test(mapping_coverage_counts_each_sk_once),
		cmocka_unit_test(interval_union_merges_overlaps),
		cmocka_unit_test(operators_of_launch_names),
		cmocka_unit_test(sk_names_split_at_the_first_start_and_last_end),
		cmocka_unit_test(rounds_belong_to_their_candidate),
		cmocka_unit_test(cells_parse_as_python_float),
		cmocka_unit_test(arguments_parse_as_python_float_and_int),
		cmocka_unit_test(plain_decimal_cells_round_as_strtod),
		cmocka_unit_test(kernel_details_reads_as_dictreader),
		cmocka_unit_test(file_digests_are_taken_once_per_unchanged_file),
		cmocka_unit_test(split_and_quoted_rows_read_alike_across_blocks),
		cmocka_unit_test(an_oversized_field_names_file_and_line),
		cmocka_unit_test(candidate_sk_rows_read_quoted_and_padded_fields),
		cmocka_unit_test(strict_csv_reads_check_utf8_before_records_count),
		cmocka_unit_test(canonical_ops_and_families),
		cmocka_unit_test(origin_graph_fingerprint_matches_the_record),
		cmocka_unit_test(origin_graph_node_keys_count_control_nodes),
		cmocka_unit_test(projected_trace_occurrences_pair_by_identity),
		cmocka_unit_test(csv_file_records_equal_the_whole_texts),
		cmocka_unit_test(interval_ns_matches_the_decimal_arithmetic),
		cmocka_unit_test(occurrence_times_match_the_decimal_arithmetic),
		cmocka_unit_test(sort_finite_is_a_stable_sort),
		cmocka_unit_test(plain_lines_split_at_every_comma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
