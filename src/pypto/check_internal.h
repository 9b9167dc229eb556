/*
 * check_internal.h - what the stage5-check files share: a gate record
 * (evidence, the first failure's category, missing evidence with who
 * supplies it), the review answers, and the Stage 4 rerun
 * (check_stage4.c) the driver (check_stage5.c) runs first.
 */
#ifndef TUNECTL_PYPTO_CHECK_INTERNAL_H
#define TUNECTL_PYPTO_CHECK_INTERNAL_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

typedef struct tc_pypto_gate {
	const char *id;
	const char *title;
	const char *category;		/* of the first failure (or a block) */
	tc_json *evidence;		/* strings */
	tc_json *missing;		/* [{what, owner, how}] */
	bool failed;
	bool skipped;
} tc_pypto_gate;

void tc_pypto_gate_init(tc_pypto_gate *g, const char *id, const char *title);
void tc_pypto_gate_note(tc_pypto_gate *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A failure; stage5_contract_blocked takes precedence over others. */
void tc_pypto_gate_fail(tc_pypto_gate *g, const char *category,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Evidence that is absent: what, who supplies it (optimizer, verifier,
 * orchestrator) and the command that produces it. */
void tc_pypto_gate_missing(tc_pypto_gate *g, const char *owner,
    const char *how, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Apply the verifier's answer to review item id (answers may be NULL). */
void tc_pypto_gate_review(tc_pypto_gate *g, const tc_json *answers,
    const char *id);

/* The inputs of the Stage 4 rerun. */
typedef struct tc_pypto_s4_in {
	const char *op_dir;
	const char *interpreter;
	double timeout_s;
	const tc_json *answers;		/* the review, or NULL */
	const tc_json *final_run;	/* tc_pypto_run_final_test(), or NULL */
} tc_pypto_s4_in;

/* Evaluate the 15 Stage 4 gates (g[0..14]: S4.1 .. S4.15). */
void tc_pypto_stage4_gates(const tc_pypto_s4_in *in, tc_pypto_gate *g);

#endif
