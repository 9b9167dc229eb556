/*
 * verify_round.c - machine re-verification of archived compare evidence
 * (docs/spec/pypto.md "Round re-verification", batch_evidence_error): a round
 * is re-read from its raw files (collection.json, measurement.json, every
 * repeat's timing CSV, evidence_status.json and, for runner_reported
 * timing, the runner's own output in collection.log), and a
 * performance.json is checked field by field against its round and the
 * frozen Golden contract.  Edited samples, swapped CSVs and copied
 * aggregates all surface here.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"

void
tc_pypto_round_free(tc_pypto_round *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->cases[i].id);
		free(r->cases[i].samples);
	}
	free(r->cases);
	free(r->path);
	tc_json_free(r->collection);
	memset(r, 0, sizeof(*r));
}

/* Resolve a round path inside <op>/docs/perf with no symlink on the way. */
static char *
resolve_round(const char *op_dir, const char *round, int *index,
    tc_error *err)
{
	char *perf_raw = tc_path_join(op_dir, "docs/perf");
	char *perf = tc_path_resolve_strict(perf_raw, err);
	char *cand, *probe, *resolved = NULL;
	const char *name;
	struct stat st;

	free(perf_raw);
	if (perf == NULL)
		return NULL;
	if (round == NULL || round[0] == '\0') {
		tc_error_set(err, "deep_profile_round is missing");
		free(perf);
		return NULL;
	}
	cand = round[0] == '/' ? tc_path_normalize(round) :
	    tc_path_join(op_dir, round);
	probe = tc_xstrdup(cand);
	for (;;) {
		char *parent;
		char *rp = tc_path_resolve(probe, NULL);
		bool at_root = rp != NULL && strcmp(rp, perf) == 0;

		free(rp);
		if (at_root || strcmp(probe, "/") == 0 || strcmp(probe, ".") == 0)
			break;
		if (lstat(probe, &st) == 0 && S_ISLNK(st.st_mode)) {
			tc_error_set(err, "evidence path must not contain symlinks: "
			    "%s", probe);
			goto out;
		}
		parent = tc_path_dirname(probe);
		free(probe);
		probe = parent;
	}
	if ((resolved = tc_path_resolve_strict(cand, err)) == NULL)
		goto out;
	if (!tc_path_is_within(resolved, perf) || strcmp(resolved, perf) == 0) {
		tc_error_set(err, "evidence round resolves outside %s: %s", perf,
		    resolved);
		free(resolved);
		resolved = NULL;
		goto out;
	}
	name = tc_path_basename(resolved);
	if (strncmp(name, "round_", 6) != 0 || !isdigit((unsigned char)name[6]) ||
	    strchr(resolved + strlen(perf) + 1, '/') != NULL) {
		tc_error_set(err, "evidence round must be %s/round_NNN: %s", perf,
		    resolved);
		free(resolved);
		resolved = NULL;
		goto out;
	}
	*index = atoi(name + 6);
out:
	free(probe);
	free(cand);
	free(perf);
	return resolved;
}

static bool
diag_contract_ok(const tc_json *d)
{
	const char *k = tc_json_get_string(d, "evidence_kind");
	const char *r = tc_json_get_string(d, "roofline_terminal_status");
	const char *p = tc_json_get_string(d, "pipeline_overlap_status");
	const tc_json *c = tc_json_get(d, "completion_eligible");

	return k != NULL && strcmp(k, "op_summary_ratio_route") == 0 &&
	    r != NULL && strcmp(r, "insufficient_evidence") == 0 &&
	    p != NULL && strcmp(p, "unverified") == 0 &&
	    tc_json_is(c, TC_JSON_BOOL) && !c->u.b;
}

static long
header_index(const tc_json *header, const char *name)
{
	size_t i;

	for (i = 0; i < header->u.arr.len; i++) {
		const char *h = tc_json_string(header->u.arr.items[i]);

		if (h != NULL && strcmp(h, name) == 0)
			return (long)i;
	}
	return -1;
}

static const char *
cell(const tc_json *row, long idx)
{
	const char *s;

	if (idx < 0 || (size_t)idx >= row->u.arr.len)
		return NULL;
	s = tc_json_string(row->u.arr.items[idx]);
	return s;
}

/* The rows of the runner's stdout as archived in collection.log. */
static int
log_rows(const char *repeat_dir, tc_pypto_row **rows, size_t *n, tc_error *err)
{
	char *p = tc_path_join(repeat_dir, "collection.log");
	char *text = tc_read_file(p, 64u << 20, NULL, err);
	char *so, *se;
	tc_pypto_run run;
	int rc;

	free(p);
	if (text == NULL)
		return -1;
	so = strstr(text, "\n--- stdout ---\n");
	se = so != NULL ? strstr(so, "\n--- stderr ---\n") : NULL;
	if (so == NULL || se == NULL) {
		tc_error_set(err, "collection.log lacks its stdout section");
		free(text);
		return -1;
	}
	*se = '\0';
	memset(&run, 0, sizeof(run));
	run.out = so + strlen("\n--- stdout ---\n");
	rc = tc_pypto_reported_rows(run.out, rows, n, err);
	free(text);
	return rc;
}

struct case_ctx {
	const char *op_name;
	const char *collection_id;
	const char *source;
	long repeats;
};

/* Whether a repeat's evidence_status.json names this collection, case,
 * Op Name, timing source and bound diagnosis. */
static bool
status_names(const tc_json *status, const struct case_ctx *cx,
    const char *case_id, const tc_json *diag)
{
	static const char *const fields[] = { "collection_id", "case",
	    "target_op_name", "timing_source", NULL };
	const char *want[4];
	bool same;
	size_t i;

	want[0] = cx->collection_id;
	want[1] = case_id;
	want[2] = cx->op_name;
	want[3] = cx->source;
	same = tc_json_get(status, "bound_diagnosis") != NULL &&
	    tc_json_equal(tc_json_get(status, "bound_diagnosis"), diag);
	for (i = 0; same && fields[i] != NULL; i++)
		same = tc_json_get_string(status, fields[i]) != NULL &&
		    strcmp(tc_json_get_string(status, fields[i]), want[i]) == 0;
	return same;
}

/* The repeat's directory and its evidence_status.json (status_names). */
static int
check_repeat_status(const struct case_ctx *cx, const char *case_id,
    size_t r, const char *dir, const tc_json *diag, tc_error *err)
{
	char *sp;
	tc_error inner = TC_ERROR_INIT;
	tc_json *status;
	struct stat st;
	bool same;

	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		tc_error_set(err, "repeat evidence directory mismatch: %s repeat "
		    "%zu", case_id, r);
		return -1;
	}
	sp = tc_path_join(dir, "evidence_status.json");
	status = tc_json_parse_file(sp, &inner);
	free(sp);
	if (status == NULL) {
		tc_error_set(err, "cannot read repeat evidence status %s/%zu: %s",
		    case_id, r, tc_error_msg(&inner));
		tc_error_clear(&inner);
		return -1;
	}
	same = status_names(status, cx, case_id, diag);
	tc_json_free(status);
	if (!same) {
		tc_error_set(err, "repeat evidence status mismatch: %s repeat %zu",
		    case_id, r);
		return -1;
	}
	return 0;
}

/* The columns of the archived timing CSV. */
struct timing_cols {
	long name, dur, kase, rep, col, src;
};

/* Every column present once, none repeated. */
static bool
timing_columns(const tc_json *header, struct timing_cols *c)
{
	size_t i, k;

	for (i = 0; i < header->u.arr.len; i++)
		for (k = 0; k < i; k++)
			if (tc_json_equal(header->u.arr.items[i],
			    header->u.arr.items[k]))
				return false;
	c->name = header_index(header, "Op Name");
	c->dur = header_index(header, "Task Duration(us)");
	c->kase = header_index(header, "Case");
	c->rep = header_index(header, "Repeat");
	c->col = header_index(header, "Collection ID");
	c->src = header_index(header, "Timing Source");
	return c->name >= 0 && c->dur >= 0 && c->kase >= 0 && c->rep >= 0 &&
	    c->col >= 0 && c->src >= 0;
}

/* The one row of the target Op Name, which must belong to this case,
 * repeat and collection. */
static const tc_json *
target_row(const struct case_ctx *cx, const char *case_id, size_t r,
    const tc_json *rows, const struct timing_cols *tc, tc_error *err)
{
	const tc_json *hit = NULL;
	const char *c, *rp, *col, *src;
	size_t i, matched = 0;
	char want[24];

	for (i = 0; i < rows->u.arr.len; i++) {
		char *s = tc_py_strip_dup(cell(rows->u.arr.items[i], tc->name));

		if (s != NULL && strcmp(s, cx->op_name) == 0) {
			matched++;
			hit = rows->u.arr.items[i];
		}
		free(s);
	}
	if (matched != 1) {
		tc_buf q = TC_BUF_INIT;

		tc_json_repr_string(&q, cx->op_name, strlen(cx->op_name));
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: archived "
		    "timing %s expected exactly one row for target_op_name=%s; "
		    "found %zu", case_id, r, TC_PYPTO_TIMING_CSV, tc_buf_cstr(&q),
		    matched);
		tc_buf_free(&q);
		return NULL;
	}
	c = cell(hit, tc->kase);
	rp = cell(hit, tc->rep);
	col = cell(hit, tc->col);
	src = cell(hit, tc->src);
	snprintf(want, sizeof(want), "%zu", r);
	if (c == NULL || strcmp(c, case_id) != 0 || rp == NULL ||
	    strcmp(rp, want) != 0 || col == NULL ||
	    strcmp(col, cx->collection_id) != 0 || src == NULL ||
	    strcmp(src, cx->source) != 0) {
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: "
		    "archived timing row belongs to case %s repeat %s of "
		    "collection %s", case_id, r, c != NULL ? c : "?",
		    rp != NULL ? rp : "?", col != NULL ? col : "?");
		return NULL;
	}
	return hit;
}

/* A runner-reported timing must be the runner's own output, row for row,
 * as collection.log kept it. */
static int
check_log_rows(const char *case_id, size_t r, const char *dir,
    const tc_json *rows, const struct timing_cols *tc, tc_error *err)
{
	tc_error inner = TC_ERROR_INIT;
	tc_pypto_row *lr = NULL;
	size_t i, nl = 0;
	bool same;

	if (log_rows(dir, &lr, &nl, &inner) != 0) {
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: %s",
		    case_id, r, tc_error_msg(&inner));
		tc_error_clear(&inner);
		return -1;
	}
	same = nl == rows->u.arr.len;
	for (i = 0; same && i < nl; i++) {
		const char *nm = cell(rows->u.arr.items[i], tc->name);
		const char *ds = cell(rows->u.arr.items[i], tc->dur);
		double d = strtod(ds != NULL ? ds : "", NULL);

		same = nm != NULL && strcmp(nm, lr[i].op_name) == 0 &&
		    d == lr[i].duration_us;
	}
	tc_pypto_rows_free(lr, nl);
	if (!same) {
		tc_error_set(err, "archived timing does not reproduce the runner "
		    "output in collection.log: %s repeat %zu", case_id, r);
		return -1;
	}
	return 0;
}

/* The rows of a repeat's archived timing CSV, its columns in *tc; NULL
 * when the file is missing, unparseable or not of the timing schema. */
static tc_json *
read_timing(const char *case_id, size_t r, const char *dir,
    struct timing_cols *tc, tc_error *err)
{
	char *cp = tc_path_join(dir, TC_PYPTO_TIMING_CSV);
	tc_json *header = NULL, *rows = NULL;
	tc_error inner = TC_ERROR_INIT;
	struct stat st;
	bool ok = false;

	if (lstat(cp, &st) != 0 || !S_ISREG(st.st_mode))
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: missing "
		    "archived timing: %s", case_id, r, TC_PYPTO_TIMING_CSV);
	else if (tc_pypto_csv_read(cp, &header, &rows, &inner) != 0)
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: cannot "
		    "parse archived timing %s: %s", case_id, r,
		    TC_PYPTO_TIMING_CSV, tc_error_msg(&inner));
	else if (!timing_columns(header, tc))
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: invalid "
		    "archived timing schema: %s", case_id, r, TC_PYPTO_TIMING_CSV);
	else
		ok = true;
	if (!ok) {
		tc_json_free(rows);
		rows = NULL;
	}
	tc_error_clear(&inner);
	tc_json_free(header);
	free(cp);
	return rows;
}

/* Whether the bound diagnosis recorded for a repeat is the one its
 * timing CSV yields now. */
static bool
diagnosis_reproduces(const tc_json *diag)
{
	tc_json *recomputed = tc_pypto_repeat_diagnosis(NULL);
	bool same = recomputed != NULL && tc_json_equal(recomputed, diag);

	tc_json_free(recomputed);
	return same;
}

static int
check_repeat(const struct case_ctx *cx, const char *case_id, size_t r,
    const char *dir, double sample, const tc_json *diag, tc_error *err)
{
	tc_json *rows;
	struct timing_cols tc = { 0 };	/* set by read_timing() */
	const tc_json *hit;
	const char *ds;
	double dur;
	char *end;
	int rc = -1;

	if (check_repeat_status(cx, case_id, r, dir, diag, err) != 0 ||
	    (rows = read_timing(case_id, r, dir, &tc, err)) == NULL)
		return -1;
	if ((hit = target_row(cx, case_id, r, rows, &tc, err)) == NULL)
		goto out;
	ds = cell(hit, tc.dur);
	dur = strtod(ds != NULL ? ds : "", &end);
	if (ds == NULL || *end != '\0' || !isfinite(dur) || dur <= 0) {
		tc_error_set(err, "invalid raw evidence for %s repeat %zu: archived "
		    "target row has invalid Task Duration(us)", case_id, r);
		goto out;
	}
	if (!tc_py_isclose(dur, sample, 1e-9, 1e-6)) {
		tc_error_set(err, "raw timing duration mismatch: %s repeat %zu",
		    case_id, r);
		goto out;
	}
	if (!diagnosis_reproduces(diag)) {
		tc_error_set(err, "raw bound diagnosis mismatch: %s repeat %zu",
		    case_id, r);
		goto out;
	}
	if (strcmp(cx->source, "runner_reported") == 0 &&
	    check_log_rows(case_id, r, dir, rows, &tc, err) != 0)
		goto out;
	rc = 0;
out:
	tc_json_free(rows);
	return rc;
}

/* Whether every one of the n items of list v is a string equal to want. */
static bool
all_equal(const tc_json *v, size_t n, const char *want)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_ARRAY) || v->u.arr.len != n)
		return false;
	for (i = 0; i < n; i++)
		if (tc_json_string(v->u.arr.items[i]) == NULL ||
		    strcmp(tc_json_string(v->u.arr.items[i]), want) != 0)
			return false;
	return true;
}

/* The per-repeat lists of a case's measurement: a valid bound diagnosis,
 * a positive duration (into out->samples) and the target Op Name for
 * each of the n repeats. */
static int
check_case_lists(const struct case_ctx *cx, const tc_json *m,
    const char *case_id, size_t n, tc_pypto_round_case *out, tc_error *err)
{
	const tc_json *diags = tc_json_get(m, "repeat_bound_diagnoses");
	const tc_json *samples = tc_json_get(m, "duration_samples_us");
	size_t i;

	if (!tc_json_is(diags, TC_JSON_ARRAY) || diags->u.arr.len != n) {
		tc_error_set(err, "per-case bound diagnoses are invalid: %s",
		    case_id);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!diag_contract_ok(diags->u.arr.items[i])) {
			tc_error_set(err, "per-case bound diagnosis contract is "
			    "invalid: %s", case_id);
			return -1;
		}
	out->samples = tc_xcalloc(n + 1, sizeof(double));
	for (i = 0; tc_json_is(samples, TC_JSON_ARRAY) &&
	    samples->u.arr.len == n && i < n; i++)
		if (!tc_pj_positive(samples->u.arr.items[i], &out->samples[i]))
			break;
	if (!tc_json_is(samples, TC_JSON_ARRAY) || samples->u.arr.len != n ||
	    i != n) {
		tc_error_set(err, "per-case duration samples are invalid: %s",
		    case_id);
		return -1;
	}
	out->n_samples = n;
	if (!all_equal(tc_json_get(m, "selected_op_names"), n, cx->op_name)) {
		tc_error_set(err, "per-case selected Op Names are invalid: %s",
		    case_id);
		return -1;
	}
	return 0;
}

/* Each repeat's evidence directory and timing file are where the
 * archive puts them, and each repeat's evidence holds. */
static int
check_case_repeats(const struct case_ctx *cx, const tc_json *m,
    const char *case_dir, const char *case_id, size_t n,
    const double *samples, tc_error *err)
{
	const tc_json *diags = tc_json_get(m, "repeat_bound_diagnoses");
	const tc_json *dirs = tc_json_get(m, "repeat_evidence_dirs");
	const tc_json *files = tc_json_get(m, "timing_source_files");
	size_t i;

	if (!tc_json_is(dirs, TC_JSON_ARRAY) || dirs->u.arr.len != n) {
		tc_error_set(err, "per-case repeat evidence directories are "
		    "invalid: %s", case_id);
		return -1;
	}
	if (tc_json_get_string(m, "timing_source_metric") == NULL ||
	    strcmp(tc_json_get_string(m, "timing_source_metric"), cx->source) ||
	    !tc_json_is(files, TC_JSON_ARRAY) || files->u.arr.len != n) {
		tc_error_set(err, "per-case timing source mismatch: %s", case_id);
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *want = tc_xasprintf("%s/repeat_%03zu", case_dir, i + 1);
		char *wantf = tc_path_join(want, TC_PYPTO_TIMING_CSV);
		const char *got = tc_json_string(dirs->u.arr.items[i]);
		const char *gotf = tc_json_string(files->u.arr.items[i]);
		bool ok = got != NULL && strcmp(got, want) == 0;
		bool okf = gotf != NULL && strcmp(gotf, wantf) == 0;

		if (!ok)
			tc_error_set(err, "repeat evidence directory mismatch: %s "
			    "repeat %zu", case_id, i + 1);
		else if (!okf)
			tc_error_set(err, "per-case timing source mismatch: %s",
			    case_id);
		if (ok && okf && check_repeat(cx, case_id, i + 1, want,
		    samples[i], diags->u.arr.items[i], err) != 0)
			ok = false;
		free(want);
		free(wantf);
		if (!ok || !okf)
			return -1;
	}
	return 0;
}

static int
check_case(const struct case_ctx *cx, const char *round, const char *case_id,
    tc_pypto_round_case *out, tc_error *err)
{
	char *dn = tc_pypto_case_dir_name(case_id);
	char *case_dir = tc_path_join(round, dn);
	char *mp = tc_path_join(case_dir, "measurement.json");
	tc_json *m = NULL;
	tc_error inner = TC_ERROR_INIT;
	double agg;
	size_t n = (size_t)cx->repeats;
	int rc = -1;

	free(dn);
	memset(out, 0, sizeof(*out));
	if (!tc_is_regular_file(mp)) {
		tc_error_set(err, "missing per-case measurement: %s", case_id);
		goto out;
	}
	if ((m = tc_json_parse_file(mp, &inner)) == NULL) {
		tc_error_set(err, "cannot read per-case measurement %s: %s",
		    case_id, tc_error_msg(&inner));
		goto out;
	}
	if (tc_json_get_string(m, "collection_id") == NULL ||
	    strcmp(tc_json_get_string(m, "collection_id"), cx->collection_id) ||
	    tc_json_get_string(m, "target_op_name") == NULL ||
	    strcmp(tc_json_get_string(m, "target_op_name"), cx->op_name) ||
	    tc_json_get_string(m, "case") == NULL ||
	    strcmp(tc_json_get_string(m, "case"), case_id)) {
		tc_error_set(err, "per-case measurement metadata mismatch: %s",
		    case_id);
		goto out;
	}
	if (check_case_lists(cx, m, case_id, n, out, err) != 0 ||
	    check_case_repeats(cx, m, case_dir, case_id, n, out->samples,
	    err) != 0)
		goto out;
	if (tc_json_get_string(m, "aggregation_method") == NULL ||
	    strcmp(tc_json_get_string(m, "aggregation_method"),
	    tc_pypto_aggregation_method(n)) != 0) {
		tc_error_set(err, "per-case aggregation method mismatch: %s",
		    case_id);
		goto out;
	}
	out->aggregate_us = tc_pypto_aggregate(out->samples, n);
	if (!tc_pj_positive(tc_json_get(m, "aggregate_us"), &agg) ||
	    !tc_py_isclose(agg, out->aggregate_us, 1e-9, 1e-6)) {
		tc_error_set(err, "per-case aggregate is not reproducible: %s",
		    case_id);
		goto out;
	}
	out->id = tc_xstrdup(case_id);
	rc = 0;
out:
	if (rc != 0) {
		free(out->samples);
		out->samples = NULL;
	}
	tc_error_clear(&inner);
	tc_json_free(m);
	free(mp);
	free(case_dir);
	return rc;
}

static int verify_collection(tc_pypto_round *out, const char *mode,
    tc_error *err);

int
tc_pypto_round_verify(const char *op_dir, const char *round,
    tc_pypto_round *out, tc_error *err)
{
	memset(out, 0, sizeof(*out));
	if ((out->path = resolve_round(op_dir, round, &out->index, err)) == NULL)
		return -1;
	return verify_collection(out, "compare", err);
}

int
tc_pypto_side_verify(const char *dir, tc_pypto_round *out, tc_error *err)
{
	memset(out, 0, sizeof(*out));
	out->path = tc_xstrdup(dir);
	return verify_collection(out, "interleaved", err);
}

/* The collection in out->path, of the given mode, re-verified case by
 * case from its raw files. */
static int
verify_collection(tc_pypto_round *out, const char *mode, tc_error *err)
{
	char *cp;
	tc_json *c = NULL;
	const tc_json *ids;
	struct case_ctx cx;
	int64_t v;
	size_t i;
	char *msg;
	tc_error inner = TC_ERROR_INIT;

	cp = tc_path_join(out->path, "collection.json");
	c = tc_json_parse_file(cp, &inner);
	free(cp);
	if (c == NULL) {
		tc_error_set(err, "cannot load collection manifest: %s",
		    tc_error_msg(&inner));
		tc_error_clear(&inner);
		goto fail;
	}
	out->collection = c;
	if (tc_json_get_string(c, "status") == NULL ||
	    strcmp(tc_json_get_string(c, "status"), "complete") != 0 ||
	    tc_json_get_string(c, "mode") == NULL ||
	    strcmp(tc_json_get_string(c, "mode"), mode) != 0) {
		tc_error_set(err, "collection manifest is not a complete %s",
		    mode);
		goto fail;
	}
	cx.collection_id = tc_json_get_string(c, "collection_id");
	cx.op_name = tc_json_get_string(c, "target_op_name");
	cx.source = tc_json_get_string(c, "timing_source");
	if (cx.collection_id == NULL || cx.op_name == NULL || cx.source == NULL) {
		tc_error_set(err, "collection manifest lacks collection_id, "
		    "target_op_name or timing_source");
		goto fail;
	}
	if (!tc_pj_int(tc_json_get(c, "repeats"), &v) || v < 1) {
		tc_error_set(err, "collection repeats is invalid");
		goto fail;
	}
	cx.repeats = (long)v;
	if (!tc_pj_int(tc_json_get(c, "seed"), &v) || v != 42) {
		tc_error_set(err, "collection seed must be 42");
		goto fail;
	}
	if ((msg = tc_pypto_case_source_error(tc_json_get(c,
	    "performance_cases"))) != NULL) {
		tc_error_set(err, "%s", msg);
		free(msg);
		goto fail;
	}
	ids = tc_json_get(c, "expected_cases");
	if (!tc_json_is(ids, TC_JSON_ARRAY) || ids->u.arr.len == 0) {
		tc_error_set(err, "collection manifest has no expected cases");
		goto fail;
	}
	if (!tc_pj_int(tc_json_get(c, "completed_cases"), &v) ||
	    (size_t)v != ids->u.arr.len) {
		tc_error_set(err, "collection manifest did not complete every "
		    "expected case");
		goto fail;
	}
	out->cases = tc_xcalloc(ids->u.arr.len, sizeof(*out->cases));
	for (i = 0; i < ids->u.arr.len; i++) {
		const char *id = tc_json_string(ids->u.arr.items[i]);

		if (id == NULL) {
			tc_error_set(err, "collection manifest has an invalid "
			    "expected case");
			goto fail;
		}
		if (check_case(&cx, out->path, id, &out->cases[i], err) != 0)
			goto fail;
		out->n++;
	}
	return 0;
fail:
	tc_pypto_round_free(out);
	return -1;
}

/* ---- performance.json against its round (docs/spec/pypto.md
 * "Round re-verification") */

static char *
golden_checks(const tc_json *perf, const tc_json *pcs, const tc_json *ids,
    double *ratios, size_t *nr)
{
	const tc_json *pc = tc_json_get(perf, "performance_cases");
	const tc_json *gc = tc_json_get(pc, "golden_contract");
	tc_pypto_golden g;
	char *msg;
	size_t i, j;

	*nr = 0;
	if (!tc_json_is(gc, TC_JSON_OBJECT))
		return NULL;
	if (tc_json_get_string(gc, "path") == NULL)
		return tc_xstrdup("cannot reload Golden target contract: 'path'");
	if ((msg = tc_pypto__golden_reload(tc_json_get_string(gc, "path"),
	    &g)) != NULL)
		return msg;
	if (!tc_json_equal(tc_json_get(g.metadata, "device_id"),
	    tc_json_get(perf, "device_id"))) {
		msg = tc_xstrdup("Golden/PyPTO physical device mismatch");
		goto out;
	}
	if (g.n != ids->u.arr.len) {
		msg = tc_xstrdup("Golden target case ids do not exactly match "
		    "collection manifest");
		goto out;
	}
	for (i = 0; i < ids->u.arr.len; i++) {
		const char *id = tc_json_string(ids->u.arr.items[i]);
		const tc_json *row = NULL;
		double asc = 0, ratio, f;
		static const char *const fields[] = {
			"golden_reference_ratio", "default_target_ratio"
		};
		size_t k;
		const tc_json *met;

		for (j = 0; j < g.n; j++)
			if (strcmp(g.cases[j].id, id) == 0)
				break;
		if (j == g.n) {
			msg = tc_xstrdup("Golden target case ids do not exactly "
			    "match collection manifest");
			goto out;
		}
		for (k = 0; k < pcs->u.arr.len; k++)
			if (tc_json_get_string(pcs->u.arr.items[k], "case") != NULL &&
			    strcmp(tc_json_get_string(pcs->u.arr.items[k], "case"),
			    id) == 0)
				row = pcs->u.arr.items[k];
		(void)tc_json_number(tc_json_get(row, "asc_us"), &asc);
		ratio = g.cases[j].per_iteration_us / asc;
		if (!isfinite(ratio) || ratio <= 0) {
			msg = tc_xasprintf("Golden target ratio is invalid: %s", id);
			goto out;
		}
		ratios[(*nr)++] = ratio;
		for (k = 0; k < 2; k++)
			if (!tc_pj_positive(tc_json_get(row, fields[k]), &f) ||
			    !tc_py_isclose(f, ratio, 1e-9, 1e-6)) {
				msg = tc_xasprintf("performance.json %s mismatch: %s",
				    fields[k], id);
				goto out;
			}
		met = tc_json_get(row, "default_target_met");
		if (!tc_json_is(met, TC_JSON_BOOL) || met->u.b != (ratio >= 1.0)) {
			msg = tc_xasprintf("performance.json case target decision "
			    "mismatch: %s", id);
			goto out;
		}
	}
out:
	tc_pypto_golden_free(&g);
	return msg;
}

static char *
target_checks(const tc_json *perf, const double *ratios, size_t nr, size_t n)
{
	bool valid = nr > 0 && nr == n, met = valid;
	const tc_json *v = tc_json_get(perf, "valid_for_target_met");
	const tc_json *m = tc_json_get(perf, "default_target_met");
	const tc_json *out = tc_json_get(perf, "golden_reference_ratio_stats");
	tc_json *stats = tc_json_new_object();
	static const char *const keys[] = { "geomean", "mean", "median", "min",
	    "max", NULL };
	size_t i;
	char *msg = NULL;

	for (i = 0; i < nr; i++)
		if (ratios[i] < 1.0)
			met = false;
	if ((tc_json_is(v, TC_JSON_BOOL) && v->u.b) != valid) {
		msg = tc_xstrdup("performance.json target-evidence validity "
		    "mismatch");
		goto out;
	}
	if ((tc_json_is(m, TC_JSON_BOOL) && m->u.b) != met) {
		msg = tc_xstrdup("performance.json target decision mismatch");
		goto out;
	}
	tc_pypto_ratio_stats(ratios, nr, stats);
	for (i = 0; keys[i] != NULL; i++) {
		const tc_json *e = tc_json_get(stats, keys[i]);
		const tc_json *a = tc_json_get(out, keys[i]);
		double ev, av;

		if (e->type == TC_JSON_NULL) {
			if (a != NULL && a->type != TC_JSON_NULL) {
				msg = tc_xasprintf("performance.json Golden ratio "
				    "stats mismatch: %s", keys[i]);
				goto out;
			}
		} else if (!tc_json_number(e, &ev) || !tc_pj_positive(a, &av) ||
		    !tc_py_isclose(av, ev, 1e-9, 1e-6)) {
			msg = tc_xasprintf("performance.json Golden ratio stats "
			    "mismatch: %s", keys[i]);
			goto out;
		}
	}
out:
	tc_json_free(stats);
	return msg;
}

/* performance.json restates its collection: id, Op Name, protocol, case
 * source, executable and timing source.  A malloc'd reason, or NULL. */
static char *
collection_mismatch(const tc_json *c, const tc_json *perf)
{
	static const char *const proto[] = { "device_id", "seed", "warmup",
	    "repeats", NULL };
	static const int64_t minima[] = { 0, 0, 0, 1 };
	size_t i;
	int64_t v;

	if (!tc_json_equal(tc_json_get(c, "collection_id"),
	    tc_json_get(perf, "collection_id")))
		return tc_xstrdup("collection id mismatch");
	if (tc_json_get_string(perf, "target_op_name") == NULL ||
	    !tc_json_equal(tc_json_get(c, "target_op_name"),
	    tc_json_get(perf, "target_op_name")))
		return tc_xstrdup("target op mismatch");
	for (i = 0; proto[i] != NULL; i++) {
		if (!tc_pj_int(tc_json_get(perf, proto[i]), &v) || v < minima[i])
			return tc_xasprintf("performance.json %s is invalid",
			    proto[i]);
		if (!tc_json_equal(tc_json_get(c, proto[i]),
		    tc_json_get(perf, proto[i])))
			return tc_xasprintf("collection protocol mismatch: %s",
			    proto[i]);
	}
	if (!tc_json_equal(tc_json_get(c, "performance_cases"),
	    tc_json_get(perf, "performance_cases")))
		return tc_xstrdup("performance case source mismatch between "
		    "manifest and performance.json");
	if (!tc_json_equal(tc_json_get(c, "executable_sha256"),
	    tc_json_get(perf, "executable_sha256")))
		return tc_xstrdup("executable_sha256 mismatch between "
		    "performance.json and collection.json");
	if (!tc_json_equal(tc_json_get(c, "timing_source"),
	    tc_json_get(perf, "timing_source_metric")))
		return tc_xstrdup("per-case timing source mismatch: timing source "
		    "differs between performance.json and collection.json");
	return NULL;
}

/* performance.json's row of a case restates the case's archived
 * measurement.  A malloc'd reason, or NULL. */
static char *
case_row_mismatch(const tc_pypto_round *r, size_t i, const tc_json *pcs)
{
	const tc_pypto_round_case *rc = &r->cases[i];
	const tc_json *row = NULL;
	char *dn = tc_pypto_case_dir_name(rc->id);
	char *case_dir = tc_path_join(r->path, dn);
	char *mp = tc_path_join(case_dir, "measurement.json");
	tc_error err = TC_ERROR_INIT;
	char *msg = NULL;
	tc_json *m;
	size_t k;
	double asc;

	free(dn);
	free(case_dir);
	for (k = 0; k < pcs->u.arr.len; k++) {
		const char *cid = tc_json_get_string(pcs->u.arr.items[k], "case");

		if (cid != NULL && strcmp(cid, rc->id) == 0)
			row = pcs->u.arr.items[k];
	}
	if (row == NULL) {
		free(mp);
		return tc_xstrdup("performance.json per_case ids do not match "
		    "collection manifest");
	}
	m = tc_json_parse_file(mp, &err);
	free(mp);
	tc_error_clear(&err);
	if (m == NULL)
		return tc_xasprintf("missing per-case measurement: %s", rc->id);
	if (!tc_json_equal(tc_json_get(row, "repeat_bound_diagnoses"),
	    tc_json_get(m, "repeat_bound_diagnoses")))
		msg = tc_xasprintf("performance.json bound diagnoses "
		    "mismatch: %s", rc->id);
	else if (!tc_json_equal(tc_json_get(row, "duration_samples_us"),
	    tc_json_get(m, "duration_samples_us")))
		msg = tc_xasprintf("performance.json duration samples "
		    "mismatch: %s", rc->id);
	else if (!tc_json_equal(tc_json_get(row, "selected_op_names"),
	    tc_json_get(m, "selected_op_names")))
		msg = tc_xasprintf("performance.json selected Op Names "
		    "mismatch: %s", rc->id);
	else if (!tc_json_equal(tc_json_get(row, "timing_source_files"),
	    tc_json_get(m, "timing_source_files")) ||
	    !tc_json_equal(tc_json_get(row, "timing_source_metric"),
	    tc_json_get(m, "timing_source_metric")))
		msg = tc_xasprintf("per-case timing source mismatch: %s", rc->id);
	else if (!tc_pj_positive(tc_json_get(row, "asc_us"), &asc) ||
	    !tc_py_isclose(asc, rc->aggregate_us, 1e-9, 1e-6))
		msg = tc_xasprintf("performance.json PyPTO duration "
		    "mismatch: %s", rc->id);
	tc_json_free(m);
	return msg;
}

char *
tc_pypto_performance_error(const char *op_dir, const tc_json *perf)
{
	tc_pypto_round r;
	tc_error err = TC_ERROR_INIT;
	const tc_json *pcs, *ids;
	char *msg = NULL;
	double *ratios = NULL;
	size_t i, nr = 0;

	if (tc_json_get_string(perf, "profiling_mode") == NULL ||
	    strcmp(tc_json_get_string(perf, "profiling_mode"), "compare") != 0)
		return tc_xstrdup("profiling_mode is not compare");
	if (tc_pypto_round_verify(op_dir, tc_json_get_string(perf,
	    "deep_profile_round"), &r, &err) != 0) {
		msg = tc_xstrdup(tc_error_msg(&err));
		tc_error_clear(&err);
		return msg;
	}
	if ((msg = collection_mismatch(r.collection, perf)) != NULL)
		goto out;
	ids = tc_json_get(r.collection, "expected_cases");
	pcs = tc_json_get(perf, "per_case");
	if (!tc_json_is(pcs, TC_JSON_ARRAY) || pcs->u.arr.len != ids->u.arr.len) {
		msg = tc_xstrdup("performance.json per_case does not cover every "
		    "expected case");
		goto out;
	}
	for (i = 0; i < r.n; i++)
		if ((msg = case_row_mismatch(&r, i, pcs)) != NULL)
			goto out;
	ratios = tc_xcalloc(r.n + 1, sizeof(double));
	if ((msg = golden_checks(perf, pcs, ids, ratios, &nr)) != NULL)
		goto out;
	msg = target_checks(perf, ratios, nr, r.n);
out:
	free(ratios);
	tc_pypto_round_free(&r);
	return msg;
}
