/*
 * pypto_stage5.h - the Stage 5 contract as tunectl commands (docs/pypto.md
 * "The Stage 5 contract"): the required inputs, the frozen inputs and the
 * updatable-only boundary, the optimizer handoff with its three exits,
 * the discovery run of the exact Op Name, the experiment loop, the
 * hardware-neutral instruction timeline, the verifier's review evidence
 * and the rendered PERFORMANCE_REPORT.md.
 */
#ifndef TUNECTL_PYPTO_STAGE5_H
#define TUNECTL_PYPTO_STAGE5_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* ---- required inputs (inputs.c) ------------------------------------------------ */

/*
 * The inputs Stage 5 must read before anything else (docs/spec/pypto.md
 * "Stage 5 inputs and boundary"): SPEC.md with its machine contract, both
 * Goldens, EXPLORE_REPORT.md, PRO_MATERIAL_INDEX.md, MEMORY.md, DESIGN.md,
 * DESIGN_BINDINGS.json, module_interfaces.yaml, the final test_<op>.py with a
 * test for every SPEC P0 case, and each class's KB_SELECTION.json and
 * KB_USAGE.json.  Returns {status: "PASS"|"stage5_contract_blocked",
 * inputs:[{name, role, status: present|missing|unparseable, detail}],
 * missing:[names]}.
 */
tc_json *tc_pypto_inputs_check(const char *op_dir);

/* ---- frozen inputs and the updatable boundary (boundary.c) ------------------------ */

/*
 * Compare the operator directory with the Stage 5 entry snapshot: every
 * frozen input unchanged, no change outside the updatable set, and the
 * as-built DESIGN_BINDINGS.json / KB_USAGE.json keeping every selected KB
 * obligation (not dropped, downgraded or rewritten).  Returns {frozen:
 * [...], violations: [{path, change, category}], obligations: [...],
 * category} (category null when clean).
 */
tc_json *tc_pypto_boundary_check(const char *op_dir, const tc_json *entry,
    tc_error *err);

/* The same against the snapshot bound in the op dir's state (the entry
 * confirmation's), with the bound record as "entry". */
tc_json *tc_pypto_boundary_now(const char *op_dir, tc_error *err);

/* ---- the optimizer handoff (handoff.c) ----------------------------------------- */

/*
 * Validate an optimizer handoff (schema "pypto_optimizer_handoff" 1) with
 * its three exits: closed (deliverables, per-case results, a closed
 * ledger, the best version), env_error (the environment triage: hardware
 * or software, with raw evidence) and stage5_contract_blocked (the root
 * cause, the frozen inputs concerned, raw evidence).  state, when given,
 * supplies the confirmed optimization_target the handoff must carry
 * verbatim.  Returns 0, or -1 with every problem in *report.errors (and
 * the first in err); *report also has {valid, exit, triage}.
 */
int tc_pypto_handoff_validate(const char *op_dir, const tc_json *handoff,
    const tc_json *state, tc_json **report, tc_error *err);

/* The triage of an env_error handoff or return: {action:
 * "redispatch_other_device"|"stop_and_report", device_id}. */
tc_json *tc_pypto_env_triage(const tc_json *env_triage);

/* A stage5_contract_blocked handoff for an inputs report that is not a
 * PASS (pypto inputs --handoff-out). */
tc_json *tc_pypto_blocked_handoff(const char *op_dir,
    const tc_json *inputs_report, const tc_json *optimization_target);

/* ---- discovery of the exact Op Name (discover.c) -------------------------------- */

#define TC_PYPTO_DISCOVERY	"docs/perf/discovery.json"

typedef struct tc_pypto_discover_opts {
	const char *op_dir;
	const char *manifest_path;
	const char *case_id;		/* one known case */
	const char *kernel;		/* the @pl.jit function name */
	const char *case_arg, *case_env;	/* the runner's selector, if any */
	long warmup;			/* < 0: 3 */
	long device;			/* < 0: 0 */
	const char *interpreter;	/* NULL: python3 */
	double timeout_s;
} tc_pypto_discover_opts;

/* Run one known case once (after warm-ups), list every launch by exact
 * Op Name and select the one carrying the kernel name launched exactly
 * once; write docs/perf/discovery.json exclusively.  Refused when the
 * target is ambiguous (the table is in the message). */
tc_json *tc_pypto_discover(const tc_pypto_discover_opts *o, tc_error *err);

/* ---- the experiment loop (experiment.c) ---------------------------------------- */

typedef struct tc_pypto_experiment_opts {
	const char *op_dir;
	const char *ledger_path;	/* NULL: docs/perf/optimization_ledger.json */
	const char *candidates_path;	/* NULL: docs/perf/candidates.json */
	char *const *item_ids;		/* start: the item(s) served */
	size_t n_items;
	char *const *changes;		/* start: exactly one */
	size_t n_changes;
	const char *hypothesis, *metric, *risk;
	const char *reason, *reason_code;	/* reject */
	const char *round;		/* baseline: docs/perf/round_NNN */
	const char *correctness_evidence;	/* baseline */
	const char *compliance_evidence;	/* formal, baseline */
	bool not_compliant;		/* formal, baseline: recorded, never ranked */
	const char *interpreter;
	double timeout_s;
} tc_pypto_experiment_opts;

/* verb: start | correctness | quick | formal | accept | restore | reject |
 * baseline (see experiment.c).  Returns what the step recorded. */
tc_json *tc_pypto_experiment(const char *verb,
    const tc_pypto_experiment_opts *o, tc_error *err);

/* ---- the instruction timeline (timeline.c) -------------------------------------- */

typedef struct tc_pypto_timeline_opts {
	const char *op_dir;
	const char *case_id;
	const char *interpreter;	/* NULL: python3 */
	double timeout_s;
} tc_pypto_timeline_opts;

/* Collect the timeline of one P0 case on the final code (after the final
 * compare) into the final round: case_<id>_<sha8>/instruction_timeline/
 * (timeline_evidence.json, collection.log), published at once and never
 * replaced.  Returns the evidence. */
tc_json *tc_pypto_timeline(const tc_pypto_timeline_opts *o, tc_error *err);
/* NULL when the case's timeline in round_dir is bound to that final
 * compare (collection.json given), else a malloc'd message. */
char *tc_pypto_timeline_error(const char *round_dir, const char *case_id,
    const tc_json *collection);
/* The pipe class of an instruction name. */
const char *tc_pypto_pipe_class(const char *instruction);
/* The events of one target window as the runner reported them (lines
 * "PYPTO_PERF_EVENT {...}" in out), clipped to [0, window_us]: an object
 * with monitored_lanes, pipe_event_counts, instruction_event_counts,
 * same_lane_pipe_interval_overlap and events.  NULL with err set when an
 * event line is malformed. */
tc_json *tc_pypto_timeline_window(const char *out, double window_us,
    tc_error *err);

/* ---- the verifier's review evidence (review.c) ---------------------------------- */

/* The review items stage5-check asks the verifier to answer for this op
 * dir: [{id, title, question, allowed_categories}]. */
tc_json *tc_pypto_review_items(const char *op_dir);
/* A review document to fill in, bound to the current final test. */
tc_json *tc_pypto_review_template(const char *op_dir, tc_error *err);
/* Validate a review against the items and the runner digest; *answers
 * maps each answered id to {verdict, failure_category, basis}
 * (unanswered template items are absent).  -1 when the review is
 * malformed or stale. */
int tc_pypto_review_read(const tc_json *review, const tc_json *items,
    const char *runner_sha, tc_json **answers, tc_error *err);

/* ---- PERFORMANCE_REPORT.md (deliver.c) ------------------------------------------- */

typedef struct tc_pypto_report_opts {
	const char *op_dir;
	const char *terminal_path;	/* NULL: docs/perf/terminal_evidence.json */
	const char *target_unavailable_reason;	/* the raw reason, when neither
						 * a user target nor a Golden
						 * contract exists */
	const char *interpreter;	/* the final correctness run */
	double timeout_s;
} tc_pypto_report_opts;

/* Render PERFORMANCE_REPORT.md (and docs/perf/selection.json) from the
 * frozen contract, the ledger, the candidate table recomputed from the
 * rounds, the final performance.json (which must measure the selected
 * version), the terminal evidence and a final correctness run made now.
 * Returns the evidence block written. */
tc_json *tc_pypto_render_report(const tc_pypto_report_opts *o, tc_error *err);

#endif
