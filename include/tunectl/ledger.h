/*
 * ledger.h - the schema 2 experiment ledger: validation of experiment
 * results, merging them into a ledger, the conditional performance
 * evidence index, migration from schema 1, and the final_e2e record built
 * from two measured run sets.
 *
 * The behaviour is the reference tool experiment_ledger.py as described in
 * docs/spec/ledger.md "Experiment ledger" (section numbers
 * below refer to it).  Every message is the reference's, byte for byte,
 * in the reference's order.  Documents are untrusted: every tc_json
 * argument may have any shape.
 *
 * What tunectl cannot do: the reference re-validates and re-analyses each
 * profiling analysis file with an external analyser (recommend_sk_strategy
 * and analyze_fusion_performance,
 * docs/spec/ledger.md "Artifact evidence validation" [EXT] steps) whose
 * behaviour is not specified.  tunectl runs every artifact check the
 * specification defines (artifact root, analysis file paths, binding of the
 * analysis to the experiment and its rounds, input and profile files) and
 * leaves the analyser steps to an optional hook (tc_ledger_analyzer).  Without
 * a hook a result can be valid but is never "artifact_evidence_validated", so a
 * merge never adds it to artifact_validated_experiment_ids and none of its
 * decisions is promoted into conditional_performance_evidence.
 */
#ifndef TUNECTL_LEDGER_H
#define TUNECTL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_LEDGER_SCHEMA_VERSION 2

/* The prefix of the single error the
 * docs/spec/ledger.md "The validation wrapper" wrapper reports for any
 * exception (type errors and every artifact-evidence failure). */
#define TC_LEDGER_EXCEPTION_PREFIX \
	"experiment result contains invalid JSON value types: "

/* ---- reading (docs/spec/json.md "Reading JSON",
 * docs/spec/ledger.md "Ledger CLI behaviour") */

/*
 * Parse ledger / experiment-result JSON the way experiment_ledger.py
 * reads it: CPython's json with NaN, Infinity and -Infinity refused with
 * "non-standard JSON constant NaN" (etc.) at the point the reference's
 * parser would meet them.  On failure err holds "<PythonType>: <message>",
 * e.g. "ValueError: non-standard JSON constant NaN",
 * "JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
 * "FileNotFoundError: [Errno 2] No such file or directory: 'x.json'".
 */
tc_json *tc_ledger_parse(const char *text, size_t len, tc_error *err);
tc_json *tc_ledger_read_file(const char *path, tc_error *err);

/* The Python exception class of an OSError-style message
 * "[Errno N] ...": FileNotFoundError, IsADirectoryError, ... */
const char *tc_ledger_os_error_type(const char *msg);

/* ---- predicates (docs/spec/ledger.md "Predicates") ---------------------- */

/* Non-empty, canonical strings and relative artifact paths: canon.h. */
bool tc_ledger_contains_chinese(const tc_json *v);	/* U+4E00..U+9FFF */
bool tc_ledger_rfc6901_pointer(const tc_json *v);	/* absolute pointer */
/* Decision-level mapping predicates over a decision object. */
bool tc_ledger_performance_exact(const tc_json *decision);
bool tc_ledger_source_actionable(const tc_json *decision);

/* The docs/spec/ledger.md "Ledger enumerations" enumerations, NULL-terminated,
 * in the reference's order. */
extern const char *const tc_ledger_round_kinds[];
extern const char *const tc_ledger_scope_kinds[];
extern const char *const tc_ledger_classifications[];
extern const char *const tc_ledger_actions[];
extern const char *const tc_ledger_decision_statuses[];
extern const char *const tc_ledger_promotion_modes[];
extern const char *const tc_ledger_mapping_methods[];
extern const char *const tc_ledger_mapping_confidences[];

/* ---- the analyser hook (docs/spec/ledger.md "Artifact evidence validation"
 * [EXT]) */

/*
 * Called once per profiling round, after the analysis file was located
 * and parsed, where the reference runs _validate_analysis: return 0 and
 * the analyser's normalised per-SK decisions and scope actions (two JSON
 * arrays of objects with "range_id", owned by the caller afterwards), or
 * -1 with a message (reported verbatim behind "<L> ...").  `reanalyze`
 * (may be NULL) stands for the read-only re-analysis and comparison
 * steps; it runs after the binding checks.
 */
typedef struct tc_ledger_analyzer {
	int (*analyze)(void *ctx, const tc_json *result, const char *round_id,
	    const char *analysis_path, const tc_json *analysis,
	    tc_json **decisions, tc_json **actions, tc_error *err);
	int (*reanalyze)(void *ctx, const tc_json *result,
	    const char *round_id, const char *analysis_path,
	    const tc_json *analysis, tc_error *err);
	void *ctx;
} tc_ledger_analyzer;

/*
 * The hook as an external program (`--analysis-validator CMD`): runs
 * `program ANALYSIS_PATH ROUND_ID RESULT_PATH` (no shell, stdin /dev/null,
 * 600 s); exit 0 with {"per_sk_decisions": [...], "scope_actions": [...]}
 * on stdout passes, any other exit fails with the program's last stderr
 * line.  cmd must outlive the hook.
 */
typedef struct tc_ledger_command {
	const char *program;
	const char *result_path;
} tc_ledger_command;

void tc_ledger_command_analyzer(tc_ledger_analyzer *an, tc_ledger_command *cmd);

typedef struct tc_ledger_opts {
	const char *artifact_root;	/* NULL: structural checks only */
	const tc_ledger_analyzer *analyzer;	/* NULL: none available */
} tc_ledger_opts;

/* ---- experiment results (docs/spec/ledger.md "Experiment ledger") ------- */

/* docs/spec/ledger.md "Structural validation" structural validation: a JSON
 * array of error strings (empty when valid).  A Python exception of the
 * reference (unhashable list/dict) is reported as the single
 * docs/spec/ledger.md "The validation wrapper" wrapper error. */
tc_json *tc_experiment_structural_errors(const tc_json *result);

/* docs/spec/ledger.md "Artifact-path scanning": relative-path errors of any
 * document ("<loc> must be a relative artifact path"), appended to errors; loc
 * is the location prefix ("" for none). */
void tc_ledger_relative_path_errors(const tc_json *doc, const char *loc,
    tc_json *errors);

/* docs/spec/ledger.md "Artifact-path scanning": the role registry of a
 * document, as an object { "<posix path>": ["<role>", ...sorted] }. */
tc_json *tc_ledger_paths_by_role(const tc_json *doc);

/*
 * docs/spec/ledger.md "The validation wrapper" validate_experiment_result: the
 * object {"valid", "artifact_evidence_validated",
 * "conditional_evidence_eligible",
 *  "errors"}.  opts may be NULL (structural only).
 */
tc_json *tc_experiment_validate(const tc_json *result,
    const tc_ledger_opts *opts);

/* docs/spec/ledger.md "Artifact evidence validation" alone (the result must be
 * structurally valid).  Returns 1 when the evidence was validated (analyser
 * hook present and every check passed), 0 when every specified check passed but
 * no analyser was available, -1 with the reference's ValueError message in err.
 */
int tc_experiment_validate_artifacts(const tc_json *result,
    const tc_ledger_opts *opts, tc_error *err);

/* ---- the ledger (docs/spec/ledger.md "Merging into a schema 2 ledger",
 * "Conditional performance evidence", "Schema 1 migration") */

/*
 * merge_experiment_result: returns the new ledger (ledger and result are
 * not modified) or NULL with the reference's ValueError message in err
 * (without the "ValueError: " prefix).
 */
tc_json *tc_ledger_merge(const tc_json *ledger, const tc_json *result,
    const tc_ledger_opts *opts, tc_error *err);

/*
 * The preparation half of a merge (docs/spec/ledger.md
 * "Merging into a schema 2 ledger" steps 2-9; schema 1 migrates as in
 * docs/spec/ledger.md "Schema 1 migration"): returns the normalised schema 2
 * ledger, with schema_version 2 and the derived index rebuilt, or NULL + err.
 * `tunectl ledger migrate`.
 */
tc_json *tc_ledger_prepare(const tc_json *ledger, tc_error *err);

/* docs/spec/ledger.md "Schema 1 migration" alone: a schema 1 ledger to schema 2
 * (no other checks). */
tc_json *tc_ledger_migrate_v1(const tc_json *ledger, tc_error *err);

/* docs/spec/ledger.md "Conditional performance evidence": the conditional index
 * of the experiments (an object) whose ids are in validated (an array of
 * strings); NULL + err on a conflict. */
tc_json *tc_ledger_conditional_index(const tc_json *experiments,
    const tc_json *validated, tc_error *err);

/* ---- final_e2e from two run sets (docs/spec/controller.md "Final E2E record")
 */

typedef struct tc_final_e2e_opts {
	const char *candidate_id;
	const char *scope_strategy;
	const char *reason_zh;
	const tc_json *option_config;	/* object */
	const char *const *evidence;	/* relative artifact paths */
	size_t nevidence;
	/* Measured classification: both run-set directories set. */
	const char *baseline_dir;
	const char *candidate_dir;
	long warmup, expected_ranks;
	double min_improvement_pct;
	double allow_p90_regression_pct;
	double allow_stddev_regression_pct;
	/* The gate flags beyond the reference (docs/measurement.md):
	 * --decide-by ci, --stability relative, --max-spread-pct. */
	bool decide_by_ci, stability_relative;
	double max_spread_pct;
	/* Unmeasured classification: "not_run", "failed" or "blocked". */
	const char *classification;
} tc_final_e2e_opts;

void tc_final_e2e_opts_init(tc_final_e2e_opts *o);

/*
 * Build the final_e2e object.  Measured: baseline/candidate metric sets
 * from the run sets (median_ms = median over runs of the per-run
 * worst-rank mean, p90_ms/stddev_ms/sample_count over the pooled decode
 * samples, run_count = runs), improvement_pct = (B - C) / B * 100 over
 * the medians, classification "beneficial" when the final promotion gate
 * of analyze_performance passes (docs/spec/gates.md "Candidate evaluation",
 * replay not required) and the improvement is positive, else "no_gain".  *gate
 * (may be NULL) receives the gate checks for the caller to print.  The object
 * passes tc_final_validate_e2e.  Returns NULL + err on failure.
 */
tc_json *tc_final_e2e_build(const tc_final_e2e_opts *o, tc_json **gate,
    tc_error *err);

/* ---- provenance of final_e2e (final_e2e_provenance.c) -------------------- */

#define TC_FINAL_E2E_PROVENANCE_SCHEMA "tunectl-final-e2e-provenance-v1"

/* The record `ledger final-e2e` writes beside the ledger it wrote
 * (LEDGER.provenance.json): {"schema_version", "command": "ledger
 * final-e2e", "cwd", "baseline", "candidate" (run-set paths as given, or
 * null), "classification" (an unmeasured one, or null), "warmup",
 * "expected_ranks", "min_improvement_pct", "allow_p90_regression_pct",
 * "allow_stddev_regression_pct"}. */
tc_json *tc_final_e2e_provenance(const tc_final_e2e_opts *o);

/* Compute the measured fields (classification, baseline, candidate,
 * improvement_pct) again from the run sets a record names and compare
 * them with final_e2e's: "final_e2e <field> is not what tunectl ledger
 * final-e2e computes from its run sets".  Refuses relative paths. */
int tc_final_e2e_recheck(const tc_json *prov, const tc_json *final_e2e,
    tc_error *err);

/* Store final_e2e into a schema 2 ledger (a copy is returned).  Refuses
 * to replace an existing final_e2e unless replace is true. */
tc_json *tc_ledger_set_final_e2e(const tc_json *ledger,
    const tc_json *final_e2e, bool replace, tc_error *err);

#endif
