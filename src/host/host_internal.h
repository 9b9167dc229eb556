/*
 * host_internal.h - what the files of src/host/ share beyond the attempt
 * mechanics (tunectl/attempt.h): the receipt checks of run-next's
 * recovery (receipt.c).
 */
#ifndef TUNECTL_HOST_INTERNAL_H
#define TUNECTL_HOST_INTERNAL_H

#include <stdbool.h>

#include "tunectl/attempt.h"
#include "tunectl/json.h"

/* ---- receipt.c ------------------------------------------------------------ */

/* The note of a receipt that recovery wrote itself. */
#define TC_RECOVERY_NOTE "the controller stopped after sealing this step " \
	"and before writing its receipt; the receipt was completed by a " \
	"later run-next"

/*
 * Could tunectl itself have written this passed receipt for step (a
 * sealed step of session_id) in attempt a?  Every field it can re-derive
 * must match: schema, session, step, phase, agent, skill, the attempt
 * number, the four attempt paths, the task's and the result's digests as
 * they are on disk, "passed", timestamps in tunectl's form with
 * started_at <= finished_at, and nothing tunectl never writes.  A receipt
 * planted by a host fails unless it is exactly what tunectl would have
 * written, which binds nothing new.
 */
bool tc_receipt_rederivable(const tc_json *receipt, const tc_json *step,
    const char *session_id, const tc_attempt *a);

/* ---- attempt_run.c -------------------------------------------------------- */

/*
 * What every receipt tunectl starts says of its attempt, a phase step's
 * or a support task's: the attempt number, started_at (now), the
 * attempt-relative task, result and log paths, the task's and the runner
 * argv's digests.
 */
void tc_host__receipt_attempt(tc_json *r, const tc_attempt *a,
    const char *task_sha, const char *argv_sha);

#endif
