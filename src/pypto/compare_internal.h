/*
 * compare_internal.h - the pieces of the formal compare shared between
 * compare.c (orchestration), runner.c (running the Stage 4 runner and the
 * timing sources), archive.c (the round archive) and summary.c
 * (performance.json).
 */
#ifndef TUNECTL_PYPTO_COMPARE_INTERNAL_H
#define TUNECTL_PYPTO_COMPARE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"

#define TC_PYPTO_TIMING_CSV	"timing.csv"

/* ---- runner.c ---------------------------------------------------------------- */

typedef struct tc_pypto_runctx {
	const char *runner;		/* absolute test_<op>.py */
	const char *interpreter;	/* "" = execute the runner itself */
	const char *manifest;		/* for the function adapter */
	const char *case_arg;
	const char *case_env;
	bool adapter;
	long device;
	double timeout_s;
	const char *pythonpath;		/* prepended to PYTHONPATH; NULL: kept */
	char *session;			/* private temp dir (owned) */
	char *adapter_path;		/* adapter script in session (owned) */
	unsigned serial;
} tc_pypto_runctx;

typedef struct tc_pypto_run {
	char **argv;			/* NULL-terminated, owned */
	int exit_code;
	bool timed_out;
	double wall_s;
	char *out;			/* stdout text */
	char *err;			/* stderr text */
} tc_pypto_run;

int tc_pypto_runctx_open(tc_pypto_runctx *c, tc_error *err);
void tc_pypto_runctx_close(tc_pypto_runctx *c);
/* Run the runner once for case_id (NULL for a single-case runner without
 * selector).  Returns -1 only when it could not be started. */
int tc_pypto_run_once(tc_pypto_runctx *c, const char *case_id,
    tc_pypto_run *r, tc_error *err);
void tc_pypto_run_free(tc_pypto_run *r);
/* warmup warm-up runs, then the run kept in *r; a run that exits non-zero
 * is "<what> warm-up failed (exit N): <stderr tail>" ("<what> run ..."
 * for the last).  Returns 0 or -1. */
int tc_pypto_run_warmed(tc_pypto_runctx *c, const char *case_id,
    long warmup, const char *what, tc_pypto_run *r, tc_error *err);
/* "msg: <last 500 chars of stderr>" style tail (malloc'd). */
char *tc_pypto_tail(const char *s, size_t n);

/* The selector preflight (docs/spec/pypto.md "Case manifest"): the unknown id
 * must fail, every known id must succeed with exactly one marker line. */
int tc_pypto_selector_preflight(tc_pypto_runctx *c, char *const *ids,
    size_t n, tc_error *err);

/* One timed row of a measured run. */
typedef struct tc_pypto_row {
	char *op_name;
	double duration_us;
	char *task_type;		/* NULL when not reported */
} tc_pypto_row;

/* Extract the rows of one measured run for the timing source, and the
 * single target duration (exactly one row must name op_name). */
int tc_pypto_timing_rows(const char *source, const tc_pypto_run *r,
    const char *op_name, tc_pypto_row **rows, size_t *n, double *duration,
    tc_error *err);
void tc_pypto_rows_free(tc_pypto_row *rows, size_t n);
/* Every PYPTO_PERF_TASK line of a runner's stdout, in order. */
int tc_pypto_reported_rows(const char *out, tc_pypto_row **rows, size_t *n,
    tc_error *err);

/* ---- archive.c ----------------------------------------------------------------- */

/* mkdir <op>/docs/perf/round_NNN with the smallest free NNN. */
char *tc_pypto_reserve_round(const char *op_dir, tc_error *err);
/* The same for <op>/<parent>/<prefix>_NNN (quick_NNN). */
char *tc_pypto_reserve_dir(const char *op_dir, const char *parent,
    const char *prefix, tc_error *err);

typedef struct tc_pypto_repeat {
	tc_pypto_row *rows;
	size_t n_rows;
	double duration_us;
	tc_pypto_run run;
} tc_pypto_repeat;

/* Write case_<safe>/repeat_NNN/... and measurement.json for one case;
 * returns the measurement document (owned by caller). */
tc_json *tc_pypto_archive_case(const char *round_dir, const char *collection_id,
    const char *op_name, const char *timing_source, const char *case_id,
    tc_pypto_repeat *reps, size_t n, tc_error *err);

/* The per-repeat CSV text (also used by the verifier's tests). */
char *tc_pypto_timing_csv(const tc_pypto_row *rows, size_t n,
    const char *case_id, size_t repeat, const char *collection_id,
    const char *timing_source);

/* Parse a CSV file strictly (UTF-8, quotes); header row in *header. */
int tc_pypto_csv_read(const char *path, tc_json **header, tc_json **rows,
    tc_error *err);

/* The merged metric row a timing CSV row stands for and its diagnosis. */
tc_json *tc_pypto_repeat_diagnosis(tc_error *err);

/* ---- compare.c: what the interleaved compare (interleave.c) shares ------------ */

/* The effective protocol: CLI values, else the frozen contract, else the
 * reference tool's defaults (warm-up 3, repeats 1, retry 2). */
typedef struct tc_pypto_protocol {
	const char *op_name;
	long warmup, repeats, retry;
	const char *timing_source;
	const char *case_arg, *case_env;
} tc_pypto_protocol;

/* One compare in the making. */
typedef struct tc_pypto_cmp {
	tc_pypto_manifest m;
	tc_pypto_protocol p;
	tc_json *contract;
	char *op_dir;
	char *runner;
	char *collection_id;
	char *round;
	tc_json *collection;
	char *collection_path;
	tc_json **measurements;
	long device;
	const char *device_source;
	char sha_start[65];
} tc_pypto_cmp;

/* Argument, frozen-contract, manifest and selector checks; the runner
 * and its digest. */
int tc_pypto_cmp_prepare(const tc_pypto_compare_opts *o, tc_pypto_cmp *s,
    tc_error *err);
/* Open the runner context for s->runner and run the selector
 * preflight. */
int tc_pypto_cmp_open_runner(const tc_pypto_compare_opts *o, tc_pypto_cmp *s,
    tc_pypto_runctx *rc, bool *rc_open, tc_error *err);
/* p->repeats measured runs of one case (warm-ups before each) into
 * reps[]. */
int tc_pypto_cmp_attempt(tc_pypto_runctx *rc, const tc_pypto_protocol *p,
    const char *case_id, tc_pypto_repeat *reps, tc_error *err);
void tc_pypto_free_repeats(tc_pypto_repeat *reps, size_t n);
/* collection.json in progress: the protocol, the cases, the runner. */
tc_json *tc_pypto_cmp_collection(const tc_pypto_cmp *s, long seed,
    const char *mode);
void tc_pypto_cmp_free(tc_pypto_cmp *s);

/* ---- summary.c ------------------------------------------------------------------- */

typedef struct tc_pypto_summary_in {
	const char *op_dir;
	const tc_pypto_manifest *m;
	tc_json *const *measurements;	/* per case, same order as m->cases */
	long warmup, repeats;
	long seed;			/* < 0 omitted */
	long device;
	const char *device_source;
	const char *op_name;
	const char *case_selector_kind;
	const char *case_selector_name;
	const char *timing_source;
	const char *collection_id;
	const char *round_dir;
	const char *executable_sha256;
	bool quick;
} tc_pypto_summary_in;

tc_json *tc_pypto_summary(const tc_pypto_summary_in *in);

/* Recompute the Golden target block of a summary from per-case ratios:
 * used by both the writer and the verifier. */
void tc_pypto_ratio_stats(const double *ratios, size_t n, tc_json *stats_out);

const char *tc_pypto_timing_method(const char *source);

#endif
