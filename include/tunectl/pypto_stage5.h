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
 * The inputs Stage 5 must read before anything else (§3.1): SPEC.md with
 * its machine contract, both Goldens, EXPLORE_REPORT.md,
 * PRO_MATERIAL_INDEX.md, MEMORY.md, DESIGN.md, DESIGN_BINDINGS.json,
 * module_interfaces.yaml, the final test_<op>.py with a test for every
 * SPEC P0 case, and each class's KB_SELECTION.json and KB_USAGE.json.
 * Returns {status: "PASS"|"stage5_contract_blocked", inputs:[{name, role,
 * status: present|missing|unparseable, detail}], missing:[names]}.
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

#endif
