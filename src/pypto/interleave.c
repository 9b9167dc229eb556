/*
 * interleave.c - the interleaved A/B compare of Stage 5, which the
 * reference does not have: two separate rounds of the same code on a
 * shared machine can differ by more than any change the optimizer makes,
 * so a speedup is only claimed from the frozen baseline (A) and a
 * candidate (B) measured in turns, A then B, case by case, for at least
 * five pairs under the frozen protocol.  Per case: the paired ratios
 * A/B, their median and a 95 % percentile-bootstrap interval of that
 * median (src/num/stats_ext.c); the same over the target cases' per-pair
 * mean ratio.  A change counts as faster only when the interval lies
 * above 1, slower only when it lies below; anything else is no change.
 *
 * Archive: docs/perf/interleaved/ab_NNN/ with interleaved.json (the
 * record), baseline/ and final/ (each a collection of mode "interleaved"
 * in the round layout, one "repeat" per pair) and runner_baseline/,
 * runner_final/ (the exact bytes that ran).  tc_pypto_ab_load re-verifies
 * a record from those files and recomputes every figure.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/sha256.h"
#include "tunectl/stats.h"

#define AB_PARENT	"docs/perf/interleaved"
#define AB_RECORD	"interleaved.json"

/* ---- the figures -------------------------------------------------------------- */

/* median, 95 % interval, spread and the verdict of paired ratios. */
static void
ratio_figures(tc_json *o, const double *r, size_t n)
{
	double lo, hi;
	tc_json *ci = tc_json_new_array(), *sp = tc_json_new_array();

	(void)tc_bootstrap_median_ci(r, n, TC_BOOTSTRAP_RESAMPLES,
	    TC_BOOTSTRAP_SEED, &lo, &hi);
	tc_json_object_set(o, "median_ratio", tc_json_new_float(
	    tc_stat_median(r, n)));
	tc_json_array_push(ci, tc_json_new_float(lo));
	tc_json_array_push(ci, tc_json_new_float(hi));
	tc_json_object_set(o, "ci95", ci);
	tc_json_array_push(sp, tc_json_new_float(tc_stat_min(r, n)));
	tc_json_array_push(sp, tc_json_new_float(tc_stat_max(r, n)));
	tc_json_object_set(o, "spread", sp);
	tc_json_object_set_string(o, "change", lo > 1.0 ? "faster" :
	    hi < 1.0 ? "slower" : "no_change");
}

/* The raw pairs of a record: a[i][k], b[i][k] are case i's baseline and
 * final durations of pair k; rows owned when `own`. */
struct pairs {
	size_t nc, n;
	char **ids;
	double **a, **b;
	bool *target;
	bool own;
};

static void
pairs_init(struct pairs *p, size_t nc, size_t n, bool own)
{
	p->nc = nc;
	p->n = n;
	p->own = own;
	p->ids = tc_xcalloc(nc + 1, sizeof(*p->ids));
	p->a = tc_xcalloc(nc + 1, sizeof(*p->a));
	p->b = tc_xcalloc(nc + 1, sizeof(*p->b));
	p->target = tc_xcalloc(nc + 1, sizeof(*p->target));
}

static void
pairs_free(struct pairs *p)
{
	for (size_t i = 0; p->own && i < p->nc; i++) {
		free(p->a[i]);
		free(p->b[i]);
	}
	free(p->ids);
	free(p->a);
	free(p->b);
	free(p->target);
}

/*
 * The record's figures from the raw pairs.  The aggregate is the
 * per-pair (weighted, by default equal-weight) mean of the target cases'
 * ratios.
 */
static void
ab_figures(tc_json *rec, const struct pairs *pp, const tc_json *weights)
{
	tc_json *pcs = tc_json_new_array(), *agg = tc_json_new_object();
	tc_json *tids = tc_json_new_array();
	double *r = tc_xcalloc(pp->n, sizeof(*r));
	double *s = tc_xcalloc(pp->n, sizeof(*s));
	double wsum = 0;
	size_t i, k;

	for (i = 0; i < pp->nc; i++) {
		tc_json *c = tc_json_new_object();
		double w = 1;

		for (k = 0; k < pp->n; k++)
			r[k] = pp->a[i][k] / pp->b[i][k];
		tc_json_object_set_string(c, "case", pp->ids[i]);
		tc_json_object_set_bool(c, "target", pp->target[i]);
		tc_json_object_set(c, "baseline_us", tc_json_new_float_array(
		    pp->a[i], pp->n));
		tc_json_object_set(c, "final_us", tc_json_new_float_array(
		    pp->b[i], pp->n));
		tc_json_object_set(c, "ratios", tc_json_new_float_array(r,
		    pp->n));
		tc_json_object_set(c, "baseline_median_us", tc_json_new_float(
		    tc_stat_median(pp->a[i], pp->n)));
		tc_json_object_set(c, "final_median_us", tc_json_new_float(
		    tc_stat_median(pp->b[i], pp->n)));
		ratio_figures(c, r, pp->n);
		tc_json_array_push(pcs, c);
		if (!pp->target[i])
			continue;
		tc_json_array_push(tids, tc_json_new_string(pp->ids[i]));
		if (tc_json_is(weights, TC_JSON_OBJECT))
			(void)tc_json_number(tc_json_get(weights, pp->ids[i]), &w);
		wsum += w;
		for (k = 0; k < pp->n; k++)
			s[k] += w * r[k];
	}
	for (k = 0; k < pp->n; k++)
		s[k] = wsum > 0 ? s[k] / wsum : NAN;
	tc_json_object_set(agg, "cases", tids);
	tc_json_object_set_string(agg, "metric", tc_json_is(weights,
	    TC_JSON_OBJECT) ? "weighted_mean_of_case_ratios_per_pair" :
	    "equal_weight_mean_of_case_ratios_per_pair");
	tc_json_object_set(agg, "per_pair", tc_json_new_float_array(s, pp->n));
	ratio_figures(agg, s, pp->n);
	tc_json_object_set(rec, "per_case", pcs);
	tc_json_object_set(rec, "aggregate", agg);
	free(r);
	free(s);
}

static tc_json *
statistic_json(void)
{
	tc_json *st = tc_json_new_object();
	char *seed = tc_xasprintf("0x%016" PRIx64, TC_BOOTSTRAP_SEED);

	tc_json_object_set_string(st, "ratio", "baseline_us / final_us of one "
	    "pair (above 1: the final version is faster)");
	tc_json_object_set_string(st, "center", "median of the pairs' ratios");
	tc_json_object_set_string(st, "interval", "95% percentile bootstrap of "
	    "the median");
	tc_json_object_set_int(st, "resamples", TC_BOOTSTRAP_RESAMPLES);
	tc_json_object_set_string(st, "seed", seed);
	free(seed);
	tc_json_object_set_string(st, "rule", "faster when ci95[0] > 1, slower "
	    "when ci95[1] < 1, otherwise no_change (inside the noise)");
	return st;
}

/* ---- measuring ------------------------------------------------------------------ */

/* The bytes of the frozen baseline: the named file, else the first of
 * the current runner, docs/perf/baseline/<runner>, an experiment's
 * restore point, whose digest is the frozen starting runner's. */
static char *
baseline_source(const char *op_dir, const char *runner, const char *given,
    const char *want, tc_error *err)
{
	const char *name = tc_path_basename(runner);
	char hex[TC_SHA256_HEX_LEN + 1];
	char *p, *dir;
	DIR *d;
	struct dirent *e;

	if (given != NULL) {
		p = given[0] == '/' ? tc_xstrdup(given) : tc_path_join(op_dir,
		    given);
		if (tc_sha256_file(p, hex, NULL, err) != 0) {
			free(p);
			return NULL;
		}
		if (strcmp(hex, want) == 0)
			return p;
		tc_error_set(err, "--baseline-runner %s has sha256 %s, the frozen "
		    "baseline (starting_runner) is %s", given, hex, want);
		free(p);
		return NULL;
	}
	p = tc_xstrdup(runner);
	if (tc_sha256_file(p, hex, NULL, NULL) == 0 && strcmp(hex, want) == 0)
		return p;
	free(p);
	p = tc_xasprintf("%s/docs/perf/baseline/%s", op_dir, name);
	if (tc_sha256_file(p, hex, NULL, NULL) == 0 && strcmp(hex, want) == 0)
		return p;
	free(p);
	dir = tc_xasprintf("%s/docs/perf/experiments", op_dir);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			p = tc_xasprintf("%s/%s/restore/%s", dir, e->d_name, name);
			if (tc_sha256_file(p, hex, NULL, NULL) == 0 &&
			    strcmp(hex, want) == 0) {
				closedir(d);
				free(dir);
				return p;
			}
			free(p);
		}
		closedir(d);
	}
	free(dir);
	tc_error_set(err, "no copy of the frozen baseline runner (sha256 %s) "
	    "found: pass --baseline-runner FILE", want);
	return NULL;
}

/* Copy src into dir/<name> (the bytes that will run); its digest must be
 * sha. */
static char *
stage_copy(const char *dir, const char *name, const char *src,
    const char *sha, tc_error *err)
{
	size_t len = 0;
	char *text = tc_read_file(src, 0, &len, err), *dst;
	char hex[TC_SHA256_HEX_LEN + 1];

	if (text == NULL)
		return NULL;
	tc_sha256_hex(text, len, hex);
	if (strcmp(hex, sha) != 0) {
		tc_error_set(err, "%s changed while it was copied (sha256 %s, "
		    "expected %s)", src, hex, sha);
		free(text);
		return NULL;
	}
	dst = tc_xasprintf("%s/%s", dir, name);
	if (tc_write_atomic(dst, text, len, TC_WRITE_MKDIRS |
	    TC_WRITE_EXCLUSIVE, err) != 0) {
		free(dst);
		dst = NULL;
	} else if (access(src, X_OK) == 0 && chmod(dst, 0755) != 0) {
		/* a runner started without an interpreter runs as itself */
		tc_error_os(err, errno, dst);
		free(dst);
		dst = NULL;
	}
	free(text);
	return dst;
}

struct side {
	const char *label;		/* "baseline" | "final" */
	char *runner;			/* the staged copy */
	char sha[TC_SHA256_HEX_LEN + 1];
	tc_pypto_runctx rc;
	bool open;
	tc_pypto_repeat **reps;		/* [case][pair] */
};

static void
side_free(struct side *sd, size_t nc, size_t pairs)
{
	if (sd->open)
		tc_pypto_runctx_close(&sd->rc);
	for (size_t i = 0; sd->reps != NULL && i < nc; i++) {
		tc_pypto_free_repeats(sd->reps[i], pairs);
		free(sd->reps[i]);
	}
	free(sd->reps);
	free(sd->runner);
}

/* One measured run (warm-ups first) of one side, with the frozen
 * retries. */
static int
measure(struct side *sd, const tc_pypto_protocol *p, const char *case_id,
    tc_pypto_repeat *rep, tc_error *err)
{
	tc_pypto_protocol one = *p;
	long attempt;
	int rc = -1;

	one.repeats = 1;
	for (attempt = 0; attempt <= p->retry && rc != 0; attempt++) {
		tc_error_clear(err);
		tc_pypto_free_repeats(rep, 1);
		rc = tc_pypto_cmp_attempt(&sd->rc, &one, case_id, rep, err);
	}
	if (rc != 0)
		tc_error_prefix(err, "%s version, case %s: ", sd->label,
		    case_id != NULL ? case_id : "(single)");
	return rc;
}

/* Archive one side as a collection of mode "interleaved". */
static int
archive_side(tc_pypto_cmp *s, struct side *sd, const char *dir, long pairs,
    const char *cid, tc_error *err)
{
	char *sdir = tc_path_join(dir, sd->label), *cp;
	tc_json *col, *m;
	char *old_id = s->collection_id, *old_runner = s->runner;
	size_t i;
	int rc = -1;

	if (tc_mkdirs(sdir, err) != 0)
		goto out;
	s->collection_id = (char *)cid;
	s->runner = sd->runner;
	col = tc_pypto_cmp_collection(s, -1, "interleaved");
	s->collection_id = old_id;
	s->runner = old_runner;
	tc_json_object_set_int(col, "repeats", pairs);
	tc_json_object_set_string(col, "executable_sha256", sd->sha);
	for (i = 0; i < s->m.n; i++) {
		if ((m = tc_pypto_archive_case(sdir, cid, s->p.op_name,
		    s->p.timing_source, s->m.cases[i].id, sd->reps[i],
		    (size_t)pairs, err)) == NULL) {
			tc_json_free(col);
			goto out;
		}
		tc_json_free(m);
	}
	tc_json_object_set_string(col, "status", "complete");
	tc_json_object_set_int(col, "completed_cases", (int64_t)s->m.n);
	cp = tc_path_join(sdir, "collection.json");
	rc = tc_write_json(cp, col, TC_WRITE_EXCLUSIVE, err);
	free(cp);
	tc_json_free(col);
out:
	free(sdir);
	return rc;
}

static int
open_side(const tc_pypto_compare_opts *o, tc_pypto_cmp *s, struct side *sd,
    tc_error *err)
{
	char *keep = s->runner;
	int rc;

	/* Both versions run from a copy beside the record, with the
	 * operator directory first on PYTHONPATH, so that they import the
	 * same modules the same way. */
	s->runner = sd->runner;
	sd->rc.pythonpath = s->op_dir;
	rc = tc_pypto_cmp_open_runner(o, s, &sd->rc, &sd->open, err);
	s->runner = keep;
	if (rc != 0)
		tc_error_prefix(err, "%s version: ", sd->label);
	return rc;
}

/* A frozen target case (without a contract every case is one). */
static bool
is_target(const tc_json *contract, const char *id)
{
	const tc_json *ids = tc_json_get(tc_json_get(contract,
	    "optimization_target"), "case_ids");

	return !tc_json_is(ids, TC_JSON_ARRAY) || tc_pj_array_has_string(ids, id);
}

static tc_json *
record_of(tc_pypto_cmp *s, struct side *sd, const char *dir, long pairs,
    const char *cid)
{
	tc_json *rec = tc_json_new_object(), *proto = tc_json_new_object(), *x;
	const tc_json *weights = tc_json_get(tc_json_get(s->contract,
	    "selection"), "weights");
	struct pairs pp;
	char *rel;
	size_t i, k;

	pairs_init(&pp, s->m.n, (size_t)pairs, true);
	for (i = 0; i < s->m.n; i++) {
		pp.ids[i] = s->m.cases[i].id;
		pp.target[i] = is_target(s->contract, pp.ids[i]);
		pp.a[i] = tc_xcalloc((size_t)pairs, sizeof(double));
		pp.b[i] = tc_xcalloc((size_t)pairs, sizeof(double));
		for (k = 0; k < (size_t)pairs; k++) {
			pp.a[i][k] = sd[0].reps[i][k].duration_us;
			pp.b[i][k] = sd[1].reps[i][k].duration_us;
		}
	}
	tc_pj_doc_header(rec, "pypto_stage5_interleaved_compare");
	tc_json_object_set_string(rec, "collection_id", cid);
	tc_json_object_set_int(rec, "pairs", pairs);
	tc_json_object_set_string(rec, "order", "per pair, per case: the "
	    "baseline version, then the final version (ABAB...)");
	tc_json_object_set_string(proto, "target_op_name", s->p.op_name);
	tc_json_object_set_int(proto, "warmup", s->p.warmup);
	tc_json_object_set_string(proto, "timing_source", s->p.timing_source);
	tc_json_object_set_int(proto, "device_id", s->device);
	tc_json_object_set_int(proto, "seed", 42);
	tc_json_object_set(rec, "protocol", proto);
	for (i = 0; i < 2; i++) {
		x = tc_json_new_object();
		rel = tc_path_relative_to(sd[i].runner, s->op_dir);
		tc_json_object_set_string(x, "runner", rel != NULL ? rel : "");
		free(rel);
		tc_json_object_set_string(x, "sha256", sd[i].sha);
		rel = tc_xasprintf("%s/%s", dir, sd[i].label);
		tc_json_object_set_string(x, "collection", rel);
		free(rel);
		tc_json_object_set(rec, sd[i].label, x);
	}
	tc_json_object_set(rec, "statistic", statistic_json());
	ab_figures(rec, &pp, weights);
	pairs_free(&pp);
	return rec;
}

tc_json *
tc_pypto_interleave(const tc_pypto_compare_opts *o, const char *baseline,
    long pairs, char **out_dir, tc_error *err)
{
	tc_pypto_cmp s;
	struct side sd[2];
	const char *want;
	char *dir = NULL, *src = NULL, *cid = NULL, *rel = NULL, *p;
	char sha_end[TC_SHA256_HEX_LEN + 1];
	tc_json *rec = NULL;
	size_t i, k, side;

	memset(&s, 0, sizeof(s));
	memset(sd, 0, sizeof(sd));
	sd[0].label = "baseline";
	sd[1].label = "final";
	*out_dir = NULL;
	if (pairs < TC_PYPTO_AB_MIN_PAIRS || pairs > TC_PYPTO_AB_MAX_PAIRS) {
		tc_error_set(err, "an interleaved compare needs at least %d pairs "
		    "and at most %d (got %ld)", TC_PYPTO_AB_MIN_PAIRS,
		    TC_PYPTO_AB_MAX_PAIRS, pairs);
		return NULL;
	}
	if (tc_pypto_cmp_prepare(o, &s, err) != 0)
		goto out;
	want = tc_json_get_string(tc_json_get(s.contract, "starting_runner"),
	    "sha256");
	if (want == NULL) {
		tc_error_set(err, "an interleaved compare measures against the "
		    "frozen baseline: freeze the contract first (pypto cases "
		    "freeze)");
		goto out;
	}
	if ((src = baseline_source(s.op_dir, s.runner, baseline, want,
	    err)) == NULL)
		goto out;
	if ((dir = tc_pypto_reserve_dir(s.op_dir, AB_PARENT, "ab", err)) ==
	    NULL)
		goto out;
	*out_dir = tc_xstrdup(dir);
	rel = tc_path_relative_to(dir, s.op_dir);
	cid = o->collection_id != NULL ? tc_xstrdup(o->collection_id) :
	    tc_xstrdup(tc_path_basename(dir));
	snprintf(sd[0].sha, sizeof(sd[0].sha), "%s", want);
	snprintf(sd[1].sha, sizeof(sd[1].sha), "%s", s.sha_start);
	p = tc_path_join(dir, "runner_baseline");
	sd[0].runner = stage_copy(p, tc_path_basename(s.runner), src, want,
	    err);
	free(p);
	if (sd[0].runner == NULL)
		goto out;
	p = tc_path_join(dir, "runner_final");
	sd[1].runner = stage_copy(p, tc_path_basename(s.runner), s.runner,
	    s.sha_start, err);
	free(p);
	if (sd[1].runner == NULL || open_side(o, &s, &sd[0], err) != 0 ||
	    open_side(o, &s, &sd[1], err) != 0)
		goto out;
	for (side = 0; side < 2; side++) {
		sd[side].reps = tc_xcalloc(s.m.n + 1, sizeof(*sd[side].reps));
		for (i = 0; i < s.m.n; i++)
			sd[side].reps[i] = tc_xcalloc((size_t)pairs,
			    sizeof(tc_pypto_repeat));
	}
	for (k = 0; k < (size_t)pairs; k++)
		for (i = 0; i < s.m.n; i++)
			for (side = 0; side < 2; side++)
				if (measure(&sd[side], &s.p, s.p.case_arg != NULL ||
				    s.p.case_env != NULL || sd[side].rc.adapter ?
				    s.m.cases[i].id : NULL, &sd[side].reps[i][k],
				    err) != 0)
					goto out;
	if (tc_sha256_file(s.runner, sha_end, NULL, err) != 0 ||
	    strcmp(sha_end, s.sha_start) != 0) {
		tc_error_set(err, "the runner %s changed during the interleaved "
		    "compare (sha256 %s at the start, %s at the end)", s.runner,
		    s.sha_start, sha_end);
		goto out;
	}
	for (side = 0; side < 2; side++) {
		char *scid = tc_xasprintf("%s-%s", cid, sd[side].label);
		int r = archive_side(&s, &sd[side], dir, pairs, scid, err);

		free(scid);
		if (r != 0)
			goto out;
	}
	rec = record_of(&s, sd, rel, pairs, cid);
	p = tc_path_join(dir, AB_RECORD);
	if (tc_write_json(p, rec, TC_WRITE_EXCLUSIVE, err) != 0) {
		tc_json_free(rec);
		rec = NULL;
	}
	free(p);
	if (rec != NULL)
		tc_json_object_set_string(rec, "path", rel);
out:
	for (side = 0; side < 2; side++)
		side_free(&sd[side], s.m.n, (size_t)pairs);
	free(src);
	free(dir);
	free(rel);
	free(cid);
	tc_pypto_cmp_free(&s);
	return rec;
}

const tc_json *
tc_pypto_ab_case(const tc_json *rec, const char *id)
{
	const tc_json *pcs = tc_json_get(rec, "per_case");

	for (size_t i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len;
	    i++)
		if (strcmp(tc_json_get_string_or(pcs->u.arr.items[i], "case", ""),
		    id) == 0)
			return pcs->u.arr.items[i];
	return NULL;
}

/* ---- re-verification ------------------------------------------------------------- */

/* docs/perf/interleaved/ab_NNN, a real directory inside the op dir. */
static char *
resolve_ab(const char *op_dir, const char *rel, tc_error *err)
{
	const char *name = strrchr(rel, '/') != NULL ? strrchr(rel, '/') + 1 :
	    rel;
	char *want = tc_xasprintf("%s/ab_", AB_PARENT), *p = NULL;
	struct stat st;

	if (strncmp(rel, want, strlen(want)) != 0 || name != rel +
	    strlen(AB_PARENT) + 1 || strspn(name + 3, "0123456789") == 0 ||
	    name[3 + strspn(name + 3, "0123456789")] != '\0') {
		tc_error_set(err, "an interleaved compare lives in %s/ab_NNN: %s",
		    AB_PARENT, rel);
		goto out;
	}
	p = tc_path_join(op_dir, rel);
	if (!tc_path_is_within(p, op_dir) || lstat(p, &st) != 0 ||
	    !S_ISDIR(st.st_mode)) {
		tc_error_set(err, "interleaved compare %s is not a directory of "
		    "the operator", rel);
		free(p);
		p = NULL;
	}
out:
	free(want);
	return p;
}

/* One side: its collection re-verified, its runner copy with the
 * recorded digest, its samples in pair order. */
static int
load_side(const char *op_dir, const char *dir, const tc_json *rec,
    const char *label, tc_pypto_round *r, tc_error *err)
{
	const tc_json *x = tc_json_get(rec, label);
	const char *sha = tc_json_get_string(x, "sha256");
	const char *runner = tc_json_get_string(x, "runner");
	char *sdir = tc_path_join(dir, label), *rp = NULL;
	char hex[TC_SHA256_HEX_LEN + 1];
	int rc = -1;

	if (sha == NULL || runner == NULL) {
		tc_error_set(err, "the record names no %s runner and digest",
		    label);
		goto out;
	}
	if (tc_pypto_side_verify(sdir, r, err) != 0) {
		tc_error_prefix(err, "%s side: ", label);
		goto out;
	}
	if ((rp = tc_path_under_root(op_dir, runner, "runner copy", err)) ==
	    NULL)
		goto out;
	if (!tc_is_regular_file_nofollow(rp) ||
	    tc_sha256_file(rp, hex, NULL, err) != 0 || strcmp(hex, sha) != 0 ||
	    !tc_json_equal(tc_json_get(r->collection, "executable_sha256"),
	    tc_json_get(x, "sha256"))) {
		tc_error_set(err, "the %s runner that ran is not the recorded "
		    "one (sha256 %s)", label, sha);
		goto out;
	}
	rc = 0;
out:
	free(rp);
	free(sdir);
	return rc;
}

tc_json *
tc_pypto_ab_load(const char *op_dir, const char *rel, tc_error *err)
{
	char *dir = resolve_ab(op_dir, rel, err), *p;
	tc_json *rec = NULL, *again = NULL, *contract = NULL;
	tc_pypto_round r[2];
	struct pairs pp;
	int64_t pairs = 0;
	size_t i;

	memset(r, 0, sizeof(r));
	memset(&pp, 0, sizeof(pp));
	if (dir == NULL)
		return NULL;
	p = tc_path_join(dir, AB_RECORD);
	rec = tc_pj_load_object(p, "interleaved compare record", err);
	free(p);
	if (rec == NULL)
		goto fail;
	if (!tc_pj_int(tc_json_get(rec, "pairs"), &pairs) ||
	    pairs < TC_PYPTO_AB_MIN_PAIRS || pairs > TC_PYPTO_AB_MAX_PAIRS) {
		tc_error_set(err, "%s: pairs must be an integer in %d..%d", rel,
		    TC_PYPTO_AB_MIN_PAIRS, TC_PYPTO_AB_MAX_PAIRS);
		goto fail;
	}
	if (load_side(op_dir, dir, rec, "baseline", &r[0], err) != 0 ||
	    load_side(op_dir, dir, rec, "final", &r[1], err) != 0)
		goto fail;
	if (r[0].n != r[1].n) {
		tc_error_set(err, "%s: the two sides measure different cases", rel);
		goto fail;
	}
	pairs_init(&pp, r[0].n, (size_t)pairs, false);
	(void)tc_pypto_contract_load(op_dir, &contract, NULL);
	for (i = 0; i < pp.nc; i++) {
		if (strcmp(r[0].cases[i].id, r[1].cases[i].id) != 0 ||
		    r[0].cases[i].n_samples != (size_t)pairs ||
		    r[1].cases[i].n_samples != (size_t)pairs) {
			tc_error_set(err, "%s: case %s does not hold %lld pairs on "
			    "both sides", rel, r[0].cases[i].id, (long long)pairs);
			goto fail;
		}
		pp.ids[i] = r[0].cases[i].id;
		pp.a[i] = r[0].cases[i].samples;
		pp.b[i] = r[1].cases[i].samples;
		pp.target[i] = is_target(contract, pp.ids[i]);
	}
	again = tc_json_new_object();
	ab_figures(again, &pp, tc_json_get(tc_json_get(contract, "selection"),
	    "weights"));
	if (!tc_json_equal(tc_json_get(again, "per_case"), tc_json_get(rec,
	    "per_case")) || !tc_json_equal(tc_json_get(again, "aggregate"),
	    tc_json_get(rec, "aggregate"))) {
		tc_error_set(err, "%s: the recorded figures do not recompute from "
		    "the archived pairs", rel);
		goto fail;
	}
	tc_json_object_set_string(rec, "path", rel);
	goto out;
fail:
	tc_json_free(rec);
	rec = NULL;
out:
	tc_json_free(again);
	tc_json_free(contract);
	tc_pypto_round_free(&r[0]);
	tc_pypto_round_free(&r[1]);
	pairs_free(&pp);
	free(dir);
	return rec;
}

tc_json *
tc_pypto_ab_find(const char *op_dir, const char *baseline_sha,
    const char *final_sha, tc_error *err)
{
	char *parent = tc_path_join(op_dir, AB_PARENT);
	tc_json *found = tc_json_new_array();
	struct dirent **names = NULL;
	int n = scandir(parent, &names, NULL, alphasort), i;

	for (i = 0; i < n; i++) {
		char *rel;
		tc_json *rec;

		if (strncmp(names[i]->d_name, "ab_", 3) != 0)
			continue;
		/* A compare that failed or was cut short never wrote its
		 * record (written last): it is no evidence either way. */
		rel = tc_xasprintf("%s/%s/%s", parent, names[i]->d_name,
		    AB_RECORD);
		if (!tc_path_exists(rel)) {
			free(rel);
			continue;
		}
		free(rel);
		rel = tc_xasprintf("%s/%s", AB_PARENT, names[i]->d_name);
		rec = tc_pypto_ab_load(op_dir, rel, err);
		free(rel);
		if (rec == NULL) {
			tc_json_free(found);
			found = NULL;
			break;
		}
		if ((baseline_sha == NULL || strcmp(tc_json_get_string_or(
		    tc_json_get(rec, "baseline"), "sha256", ""),
		    baseline_sha) == 0) && (final_sha == NULL ||
		    strcmp(tc_json_get_string_or(tc_json_get(rec, "final"),
		    "sha256", ""), final_sha) == 0))
			tc_json_array_push(found, rec);
		else
			tc_json_free(rec);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(parent);
	return found;
}
