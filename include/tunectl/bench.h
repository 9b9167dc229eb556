/*
 * bench.h - measurement run sets, their statistics, and the numeric gates
 * of the reference tool analyze_performance.py (S0 stability, candidate
 * screening / final promotion, the option trial, selection and ranking,
 * screening-matrix v2 and winner-option-matrix v1 validation).
 *
 * Everything follows docs/spec/gates.md "The performance analysis";
 * section numbers below refer to it.  The reference distinguishes errors
 * that argparse reports (ValueError: exit 2) from tracebacks (exit 1); the
 * functions here return that exit status directly:
 *
 *   TC_BENCH_OK (0)            success
 *   TC_BENCH_FAIL (1)          the reference would end in a traceback
 *                              (unreadable rank log, invalid Decimal
 *                              numeral, zero baseline mean, write error)
 *   TC_BENCH_VALUE_ERROR (2)   the reference's ValueError / parser.error,
 *                              with the reference's message in err
 *
 * Run-set layout (docs/spec/gates.md "Run-set layout"): DIR/run-* directories
 * (sorted by path string), each with rank logs log_<rank>.log holding lines
 * "Inference time (decode|prefill): <ms> ms".  A run set written by
 * `tunectl bench run` additionally has DIR/runset.json (its summary and
 * environment fingerprint); the reader loads it when present but the
 * numbers always come from the logs.
 */
#ifndef TUNECTL_BENCH_H
#define TUNECTL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/stats.h"

enum {
	TC_BENCH_OK = 0,
	TC_BENCH_FAIL = 1,
	TC_BENCH_VALUE_ERROR = 2
};

/* Constants of the reference (docs/spec/gates.md "S0 baseline stability",
 * "Candidate evaluation", "Command-line conventions" defaults). */
#define TC_S0_REQUIRED_RUNS		5
#define TC_S0_MAX_SPREAD_PCT		5.0
#define TC_CANDIDATE_MIN_RUNS		3
#define TC_DEFAULT_WARMUP		8
#define TC_DEFAULT_EXPECTED_RANKS	8
#define TC_DEFAULT_MIN_IMPROVEMENT_PCT	2.0
#define TC_OPTION_TRIAL_MIN_IMPROVEMENT_PCT 0.0

#define TC_RUNSET_SCHEMA	"tunectl-runset-v1"	/* runset.json */

/* ---- run sets (docs/spec/gates.md "Run-set layout", "Run-set statistics") */

typedef struct tc_rank_summary {
	long rank;
	char *log_path;
	tc_stats decode;		/* post-warmup decode samples */
	const double *samples;		/* decode.count values, log order (a
					 * view into the run set's pool) */
	char *mean_exact_ms;		/* str(sum(Decimal) / count) */
	size_t prefill_count;
	const double *prefill;		/* every prefill sample (view) */
} tc_rank_summary;

typedef struct tc_run_summary {
	char *path;			/* str(run directory) */
	long warmup;
	size_t rank_count;		/* distinct ranks (duplicates overwrite) */
	tc_rank_summary *ranks;		/* sorted by rank */
	tc_stats decode;		/* pooled over ranks, rank order */
	const double *samples;		/* decode.count values (view) */
	bool has_prefill;
	const double *prefill_samples;	/* prefill.count values (view) */
	tc_stats prefill;		/* valid when has_prefill */
	long worst_rank;		/* largest mean, first on ties */
	double worst_rank_mean_ms;
	char *worst_rank_mean_exact_ms;
} tc_run_summary;

typedef struct tc_runset {
	char *path;			/* str(Path(DIR)) */
	size_t run_count;
	tc_run_summary *runs;		/* sorted by path string */
	tc_stats decode;		/* pooled over every run and rank */
	double *samples;		/* decode.count values: the pooled
					 * samples of every run's ranks; run and
					 * rank views point into it ... */
	double *log_samples;		/* ... or into this pool of every log's
					 * samples, when a run held two logs of
					 * one rank (else NULL) */
	double *prefill_pool;
	double *run_worst_rank_means_ms;		/* run_count values */
	char **run_worst_rank_means_exact_ms;		/* run_count strings */
	double median_run_worst_rank_mean_ms;
	double worst_rank_mean_ms;	/* mean over runs: the headline metric */
	/* DIR/runset.json when bench run wrote one, else NULL (owned);
	 * manifest_error says why a present runset.json was not loaded. */
	tc_json *manifest;
	char *manifest_error;
} tc_runset;

typedef struct tc_runset_opts {
	long warmup;			/* --warmup, Python slice semantics */
	long expected_ranks;		/* --expected-ranks */
	/* Two logs of a run whose names parse to one rank (log_3.log and
	 * log_03.log): refused unless this is set, and then summarised as
	 * the reference does (--reference-output). */
	bool allow_duplicate_ranks;
} tc_runset_opts;

#define TC_RUNSET_OPTS_INIT \
	{ TC_DEFAULT_WARMUP, TC_DEFAULT_EXPECTED_RANKS, false }

/*
 * Read and summarise a run set.  Errors carry the reference's messages:
 * "{DIR}: no run-* directories found",
 * "{run_dir}: expected {n} rank logs, found {m}",
 * "{log}: no decode samples remain after warmup={W}", and unless
 * opts->allow_duplicate_ranks "{run_dir}: rank logs {a} and {b} both
 * name rank {r}" (all exit 2), and
 * "[Errno N] ...: '{log}'" / "invalid decimal numeral '{text}' in {log}
 * (decimal.InvalidOperation)"
 * (exit 1).  Returns a TC_BENCH_* status; *out is set only on success.
 */
int tc_runset_load(const char *dir, const tc_runset_opts *opts,
    tc_runset **out, tc_error *err);

/* The rank count DIR/runset.json records (bench run writes it), or 0 when
 * there is no valid runset.json or it records none: what --expected-ranks
 * defaults to before the reference's 8. */
long tc_runset_recorded_ranks(const char *dir);
void tc_runset_free(tc_runset *rs);

/* paired.c: whether base and cand were measured in one interleaved
 * measurement (bench ab; their runset.json "interleaved" records name the
 * same sides, base as side A, cand another side, and both hold run k of
 * every round k), so that run k of each was taken in the same round. */
bool tc_runset_paired(const tc_runset *base, const tc_runset *cand);
/* The half of tc_runset_paired() the two manifests (runset.json) decide:
 * their "interleaved" records name the same sides, base's as side A and
 * cand's another.  A reader of a gate report that holds the runs but not
 * the loaded run sets (report html) checks the rounds itself. */
bool tc_runset_manifests_interleaved(const tc_json *base_manifest,
    const tc_json *cand_manifest);
/* The bootstrap 95 % interval of cand's improvement over base: paired by
 * round when tc_runset_paired() (tc_bootstrap_paired_improvement_ci),
 * else each run set resampled on its own (tc_bootstrap_improvement_ci).
 * *paired (may be NULL) says which.  Returns false when no round was
 * usable (NaN bounds). */
bool tc_runset_improvement_ci(const tc_runset *base, const tc_runset *cand,
    unsigned resamples, uint64_t seed, double *lo, double *hi, bool *paired);

/* The reference's RunSet object (docs/spec/gates.md "Report JSON"), samples_ms
 * included. */
tc_json *tc_runset_to_json(const tc_runset *rs);
/* One Stats block with its samples (docs/spec/gates.md "Run-set statistics"
 * item 2). */
tc_json *tc_stats_to_json(const tc_stats *s, const double *samples);

/* improvement_pct = (B - C) / B * 100 over worst_rank_mean_ms.  Returns
 * TC_BENCH_FAIL ("float division by zero") when B == 0. */
int tc_improvement_pct(const tc_runset *baseline, const tc_runset *cand,
    double *out, tc_error *err);

/* ---- S0 stability (docs/spec/gates.md "S0 baseline stability") ---------- */

typedef struct tc_stability {
	bool stable;
	bool check_required_run_count;
	bool check_max_spread_pct;
	size_t count;
	double *values;			/* the float list (owned) */
	bool has_spread_ms, has_mean_ms, has_spread_pct;
	double spread_ms, mean_ms, spread_pct;
	double max_spread_pct;		/* the limit judged against */
} tc_stability;

/* values: per-run worst-rank means; exact: the matching Decimal strings
 * or NULL (then Decimal(repr(v)) is used).  A string that is not a
 * Decimal empties the Decimal list, as the reference does. */
void tc_stability_eval(const double *values, const char *const *exact,
    size_t n, tc_stability *out);
void tc_stability_eval_runset(const tc_runset *rs, tc_stability *out);
/* Judge s again against another spread limit (--max-spread-pct): the
 * evaluations use TC_S0_MAX_SPREAD_PCT, the reference's. */
void tc_stability_set_limit(tc_stability *s, double max_spread_pct);
void tc_stability_free(tc_stability *s);
tc_json *tc_stability_to_json(const tc_stability *s);

/* ---- promotion / screening / option trial (docs/spec/gates.md
 * "Candidate evaluation") */

typedef enum tc_gate_mode {
	TC_GATE_FINAL_PROMOTION,	/* default */
	TC_GATE_SELECTION_ONLY,		/* --selection-only */
	TC_GATE_OPTION_TRIAL		/* --option-trial */
} tc_gate_mode;

typedef struct tc_gate_policy {
	double min_improvement_pct;		/* --min-improvement-pct */
	double allow_p90_regression_pct;
	double allow_stddev_regression_pct;
	double max_spread_pct;			/* --max-spread-pct (S0) */
} tc_gate_policy;

#define TC_GATE_POLICY_INIT { TC_DEFAULT_MIN_IMPROVEMENT_PCT, 0.0, 0.0, \
	TC_S0_MAX_SPREAD_PCT }

typedef struct tc_evaluation {
	bool passed;			/* promoted / eligible / accepted */
	bool strict_gain;		/* option trial */
	double min_improvement_pct;	/* effective */
	bool baseline_stable, baseline_min_runs, candidate_min_runs;
	bool deep_fusion_replay, mean_improvement, median_run_direction;
	bool p90_no_material_regression, stddev_no_material_regression;
	/* NAN-free: has_* false means JSON null */
	bool has_mean, has_median, has_p90, has_stddev;
	double mean_improvement_pct, median_run_improvement_pct;
	double p90_regression_pct, stddev_regression_pct;
} tc_evaluation;

/* evaluate_promotion over two summaries; replay_valid is the replay
 * check's value (true for whole_scope). */
void tc_evaluate(const tc_runset *baseline, const tc_runset *cand,
    const tc_gate_policy *policy, tc_gate_mode mode, bool replay_valid,
    tc_evaluation *out);

/* Whether every check of e passes, with improvement standing for the
 * mean-improvement check (e->mean_improvement for the reference rule). */
bool tc_evaluation_passes(const tc_evaluation *e, bool improvement);

/*
 * Apply the interval rules beyond the reference to e (docs/measurement.md
 * "Deciding by the interval", "A stability rule for a loaded machine"):
 * ci_ok/ci_lo is the bootstrap interval's lower bound (ci_ok false: none).
 * Returns whether the interval clears the threshold (excludes 0, lo >=
 * the effective threshold, lo > 0 for an option trial).  With relative
 * and a clearing interval, the baseline-spread and stddev checks count as
 * passed (*waived_stable / *waived_stddev say which were failing; may be
 * NULL); with decide_by_ci the interval stands for the mean-improvement
 * check.  e->passed is recomputed when either rule is on.
 */
bool tc_evaluation_apply_interval(tc_evaluation *e, bool ci_ok,
    double ci_lo, bool decide_by_ci, bool relative, bool *waived_stable,
    bool *waived_stddev);

/* Set the evaluation's measured figures in o: mean_improvement_pct,
 * median_run_improvement_pct, p90_regression_pct and
 * stddev_regression_pct (null when not measured). */
void tc_evaluation_set_figures(tc_json *o, const tc_evaluation *e);

/* ---- the whole tool (compare_candidates,
 * docs/spec/gates.md "Order of a comparison") */

typedef struct tc_name_path {
	const char *name;
	const char *value;		/* path or promotion mode */
} tc_name_path;

typedef struct tc_analyze_opts {
	const char *baseline;
	const tc_name_path *candidates;	size_t ncandidates;
	const tc_name_path *replays;	size_t nreplays;
	const tc_name_path *modes;	size_t nmodes;
	bool selection_only;
	bool option_trial;
	const tc_json *screening_matrix;	/* NULL unless given */
	tc_runset_opts runset;
	tc_gate_policy policy;
	/* Beyond the reference. */
	bool significance;		/* pass also needs CI lower bound > 0 */
	bool decide_by_ci;		/* --decide-by ci: the improvement check
					 * is the bootstrap interval's, not the
					 * mean's (docs/measurement.md) */
	bool stability_relative;	/* --stability relative: an interval
					 * clearing the threshold waives the
					 * baseline-spread and stddev checks */
	bool strict_environment;	/* refuse differing fingerprints */
	bool reference_output;		/* omit the "tunectl" report key */
	const char *replay_validator;	/* external replay recomputation */
	unsigned bootstrap_resamples;	/* 0: TC_BOOTSTRAP_RESAMPLES */
	uint64_t bootstrap_seed;
	bool bootstrap_seed_set;	/* else TC_BOOTSTRAP_SEED */
} tc_analyze_opts;

void tc_analyze_opts_init(tc_analyze_opts *o);

/*
 * Run the whole analysis.  On success, when report is non-NULL, *report
 * is the reference's report (docs/spec/gates.md "Report JSON") plus, unless
 * reference_output, a "tunectl" object with the statistics extensions and
 * environment warnings (building it is optional because samples_ms makes it
 * large); table (may be NULL) receives the docs/spec/gates.md "Stdout table"
 * stdout table; warnings (may be NULL) receives human lines for stderr.
 * Returns a TC_BENCH_* status.
 */
int tc_analyze(const tc_analyze_opts *o, tc_json **report, tc_buf *table,
    tc_buf *warnings, tc_error *err);

/*
 * A report's negative verdict in words: for a stability report that is
 * not stable, and for every candidate whose evaluation failed a check,
 * one line "<label>[ NAME]: <check> <value> (<threshold>); ..." appended
 * to out.  Returns whether anything was refused.
 */
bool tc_gate_explain(const tc_json *report, const char *label, tc_buf *out);

/* ---- provenance: computing a report again (provenance.c) -------------- */

#define TC_GATE_PROVENANCE_SCHEMA "tunectl-gate-provenance-v1"

/*
 * The record `gate --json-out R` writes beside R (R.provenance.json):
 * {"schema_version", "command": "gate analyze", "cwd", "baseline",
 * "candidates": [{"name", "path"}], "replay_evidence": [{"name", "path"}],
 * "promotion_modes": [{"name", "mode"}], "selection_only", "option_trial",
 * "screening_matrix" (path or null), "warmup", "expected_ranks",
 * "min_improvement_pct", "allow_p90_regression_pct",
 * "allow_stddev_regression_pct", "significance", "decide_by" ("mean" or
 * "ci"; a record without it decides by the mean), "stability_rule"
 * ("reference" or "relative"; absent: reference), "max_spread_pct"
 * (absent: 5.0), "strict_environment",
 * "reference_output", "bootstrap_resamples", "bootstrap_seed" (or null),
 * "replay_validator" (or null)}; paths exactly as given.
 */
tc_json *tc_analyze_provenance(const tc_analyze_opts *o,
    const char *screening_matrix_path);

/* The bytes --json-out writes for a report: ASCII JSON, indent 2, "\n". */
int tc_analyze_report_text(const tc_json *report, tc_buf *out,
    tc_error *err);

/*
 * Run the analysis a provenance record describes and append the report
 * text --json-out would have written to text.  Refuses a malformed
 * record ("gate provenance is malformed: <field>"), relative input paths
 * and a --replay-validator (recomputing must never run a program the
 * record names); analysis errors are the gate's own messages.
 */
int tc_analyze_recompute(const tc_json *prov, tc_buf *text, tc_error *err);

/* ---- document validators ------------------------------------------------ */

/* Screening matrix v2 (docs/spec/gates.md "Screening matrix v2") against the
 * --candidate names; returns the screening_matrix output object or NULL with
 * the reference message. */
tc_json *tc_screening_matrix_validate(const tc_json *doc,
    const char *const *names, size_t nnames, tc_error *err);

/* Stage-A option controls (docs/spec/gates.md "Stage-A option controls") of
 * every candidate directory. */
tc_json *tc_stage_a_controls(const tc_name_path *cands, size_t n,
    tc_error *err);

/* The same checks on candidate configs before they run: {policy,
 * required_empty_fields, configs: [{path, sha256, explicitly_empty} or
 * {path, explicitly_empty: false, error}], all_explicitly_empty}. */
tc_json *tc_stage_a_configs_check(const char *const *paths, size_t n);

/* Winner option matrix v1 (docs/spec/gates.md "Winner option matrix v1", prose
 * only; rules in docs/measurement.md).  Returns the validation object or NULL +
 * err. */
tc_json *tc_option_matrix_validate(const tc_json *doc, tc_error *err);

/* A replay recomputation done in this process: the verdict on the report
 * at path (resolved) for the expected candidate, a JSON object with a
 * boolean "valid" and "failure_reason".  The layer that can recompute a
 * replay from SK metadata (src/analysis) sits beside this one, so the
 * program installs it (the tunectl CLI does, in main). */
typedef tc_json *(*tc_replay_recompute_fn)(const char *path,
    const char *expected);
void tc_replay_set_recompute(tc_replay_recompute_fn fn);

/* Deep-fusion replay evidence (docs/spec/gates.md "Replay evidence"): the
 * specified early checks, then the external validator (CMD REPORT NAME printing
 * a JSON object with a boolean "valid"), else the recomputation installed by
 * tc_replay_set_recompute(), or failure_reason
 * "replay_recomputation_unavailable" without either.  Returns the validation
 * object; NULL only when the validator could not be run (err set). */
tc_json *tc_replay_validate(const char *path, const char *expected,
    const char *validator, tc_error *err);

/* ---- environment fingerprint -------------------------------------------- */

/* CPU model, core count, governor, kernel, compiler, load average. */
tc_json *tc_env_fingerprint(void);
/* Keys whose values differ (load average excluded: it is a reading, not
 * an identity); a malloc'd ", "-joined list, or NULL when identical. */
char *tc_env_fingerprint_diff(const tc_json *a, const tc_json *b);

/* ---- bench run / ab ----------------------------------------------------- */

typedef struct tc_bench_run_opts {
	long runs;
	long ranks;			/* 1 */
	long warmup_samples;		/* -1: 8, or 0 for wall time */
	long warmup_runs;		/* discarded processes run first */
	const char *metric_regex;	/* NULL: the reference regex */
	bool metric_stderr;		/* the regex reads stderr, not stdout */
	const char *metric_file;	/* a JSON file of the run directory */
	const char *metric_pointer;	/* RFC 6901 into metric_file */
	bool metric_higher;		/* the figure read is better higher:
					 * its reciprocal is logged */
	double timeout_s;		/* <= 0: none */
	char *const *argv;		/* the workload command */
	const char *out_dir;
} tc_bench_run_opts;

/* Run opts->runs clean processes into out_dir (created; must not hold
 * run-* directories yet) and write runset.json.  Returns TC_BENCH_*;
 * a workload that fails gives TC_BENCH_FAIL after everything is
 * recorded. */
int tc_bench_run(const tc_bench_run_opts *o, tc_buf *log, tc_error *err);

/* Interleaved A/B: run k of A, then run k of B, for k = 1..runs, into
 * out_a and out_b (two ordinary run sets). */
int tc_bench_ab(const tc_bench_run_opts *a, const tc_bench_run_opts *b,
    tc_buf *log, tc_error *err);

/* Interleaved runs of n sides (2 to 26, roles A, B, C, ...): warm-up k of
 * every side in turn, then run k of every side in turn, into n ordinary
 * run sets.  Each runset.json records its role, every side's run set and
 * the order the runs were taken in ("A B C A B C ..."). */
int tc_bench_interleave(const tc_bench_run_opts *sides, size_t n,
    tc_buf *log, tc_error *err);

#endif
