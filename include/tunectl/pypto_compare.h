/*
 * pypto_compare.h - the Stage 5 formal compare (pypto-orchestration.md
 * docs/spec/pypto.md "Measurement protocol"), hardware-neutral: the reference's
 * NPU profiler is replaced by a pluggable timing source, everything else
 * (manifest, selector preflight, seed 42, warm-up before every repeat, trimmed
 * mean / median, retries, the runner's executable digest checked start to end,
 * the round archive of docs/spec/pypto.md "Archive layout" and the root
 * deliverables of docs/spec/pypto.md "Deliverables") follows the reference.
 *
 * Timing sources:
 *   process_timer    wall-clock duration of the measured runner process
 *   runner_reported  the runner prints one line per launch:
 *                    PYPTO_PERF_TASK {"op_name": "<name>", "duration_us": <n>}
 *                    and exactly one line must name the target Op Name
 */
#ifndef TUNECTL_PYPTO_COMPARE_H
#define TUNECTL_PYPTO_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_PYPTO_MARKER		"PYPTO_PERF_SELECTED_CASE="
#define TC_PYPTO_TASK_LINE	"PYPTO_PERF_TASK "

typedef struct tc_pypto_compare_opts {
	const char *op_dir;
	const char *manifest_path;
	const char *op_name;		/* NULL: from the frozen contract */
	const char *case_arg;
	const char *case_env;
	long warmup, repeats, retry;	/* < 0: frozen contract / tool default */
	long seed;			/* < 0: omitted; 0 means omitted too */
	long device;			/* < 0: env / auto */
	const char *timing_source;	/* NULL: frozen contract / process_timer */
	const char *collection_id;	/* NULL: env / generated */
	const char *interpreter;	/* NULL: "python3" */
	double timeout_s;		/* per runner invocation; <= 0: 600 */
	double retry_pause_s;		/* < 0: 0.5 */
	bool quick;			/* a quick screening run (below) */
} tc_pypto_compare_opts;

void tc_pypto_compare_opts_init(tc_pypto_compare_opts *o);

/*
 * Quick screening (--quick) runs under the frozen protocol too, but is
 * archived under docs/perf/quick/quick_NNN (never a round_NNN), writes
 * quick_performance.json / quick_performance.log / quick_perf_report.md
 * (never the formal deliverables) with profiling_mode "quick",
 * valid_for_target_met false and valid_for_formal_gate false: no formal
 * gate (round verification, selection, stage5-check) can ever accept it.
 */

/* Run a formal compare round.  On success returns performance.json's
 * content (also written with performance.log and perf_report.md) and
 * round_dir (malloc'd) names docs/perf/round_NNN.  On failure after the
 * round was reserved, collection.json is left with status "failed" and
 * round_dir is still set. */
tc_json *tc_pypto_compare(const tc_pypto_compare_opts *o, char **round_dir,
    tc_error *err);

/* The archive directory of a case: "case_" + re.sub('[^A-Za-z0-9_.-]+',
 * '_', id).strip('._') (or "case") + "_" + sha256(id)[:8] (malloc'd). */
char *tc_pypto_case_dir_name(const char *case_id);

/* ---- the interleaved A/B compare (interleave.c) -------------------------- */

#define TC_PYPTO_AB_MIN_PAIRS	5
#define TC_PYPTO_AB_MAX_PAIRS	1000	/* bounds what a record costs to re-verify */

/* Measure the frozen baseline (the bytes of baseline, or found by digest:
 * the runner itself, docs/perf/baseline/<runner>, an experiment's restore
 * point) and the current runner in turns, `pairs` (>= 5) pairs under the
 * frozen protocol, into docs/perf/interleaved/ab_NNN (*dir, malloc'd).
 * Returns the record (interleaved.json, plus "path"). */
tc_json *tc_pypto_interleave(const tc_pypto_compare_opts *o,
    const char *baseline, long pairs, char **dir, tc_error *err);

/* Re-verify the record at rel (docs/perf/interleaved/ab_NNN) from its
 * raw files and recompute its figures; returns it (plus "path"). */
tc_json *tc_pypto_ab_load(const char *op_dir, const char *rel,
    tc_error *err);

/* Every record of the op dir, re-verified (one that fails fails all:
 * NULL), in order, whose sides are these digests (NULL: any).  A
 * directory without its record (a compare that failed or was cut short)
 * is skipped. */
tc_json *tc_pypto_ab_find(const char *op_dir, const char *baseline_sha,
    const char *final_sha, tc_error *err);

/* A record's figures of one case (NULL when it has none). */
const tc_json *tc_pypto_ab_case(const tc_json *rec, const char *id);

/* The strict Stage 4 runner of an op dir: test_<dirname>.py, else the only
 * test_*.py (malloc'd). */
char *tc_pypto_find_runner(const char *op_dir, tc_error *err);

/* ---- archive verification (verify_round.c) -------------------------------- */

/* A per-launch row a runner reported (PYPTO_PERF_TASK lines). */
typedef struct tc_pypto_launch {
	char *op_name;
	char *task_type;		/* NULL when the line has none */
	double duration_us;
} tc_pypto_launch;

typedef struct tc_pypto_round_case {
	char *id;
	double aggregate_us;
	double *samples;
	size_t n_samples;
} tc_pypto_round_case;

typedef struct tc_pypto_round {
	char *path;			/* resolved round dir */
	int index;			/* NNN */
	tc_json *collection;		/* collection.json */
	tc_pypto_round_case *cases;
	size_t n;
} tc_pypto_round;

void tc_pypto_round_free(tc_pypto_round *r);

/* Re-verify one archived round from its raw files only: collection.json
 * complete, every case's measurement.json against its per-repeat CSV,
 * evidence_status.json and recomputed aggregate.  round may be
 * "docs/perf/round_NNN" relative to op_dir, or absolute; it must resolve
 * inside <op_dir>/docs/perf without symlinks.  Returns 0 or -1 with the
 * first inconsistency. */
int tc_pypto_round_verify(const char *op_dir, const char *round,
    tc_pypto_round *out, tc_error *err);

/* The same re-verification of one side (baseline/ or final/) of an
 * interleaved compare: collection.json of mode "interleaved", every
 * case's pairs (one "repeat" per pair) against their raw files.  dir is
 * resolved by the caller. */
int tc_pypto_side_verify(const char *dir, tc_pypto_round *out,
    tc_error *err);

/* The docs/spec/pypto.md "Round re-verification" re-verification of a compare
 * summary (performance.json) against its round: NULL when consistent, else a
 * malloc'd message. */
char *tc_pypto_performance_error(const char *op_dir, const tc_json *perf);

/* ---- rendering (report_render.c) ------------------------------------------ */

char *tc_pypto_render_perf_report(const tc_json *summary);
char *tc_pypto_render_perf_log(const tc_json *summary);

/* diagnose_bound_route() of a merged metric row (JSON object of column
 * -> text); rows without NPU ratio columns give insufficient_evidence. */
tc_json *tc_pypto_bound_route(const tc_json *merged, tc_error *err);

#endif
