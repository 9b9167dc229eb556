/*
 * strict.c - the strict evidence policy's check of a result about to be
 * sealed (and of every sealed result, by verify): the gate evidence its
 * status claims (strict_gates.c) and the transition rules that depend on
 * earlier steps:
 *
 *   rule 2  after a gate ended the chain (a critical intake blocker,
 *           an unstable S0, no Stage A winner, a blocked Stage O or a
 *           BASE failure that did not re-enter Stage O) the Final can
 *           only record not_run;
 *   rule 6  a re-entry Stage O works on the next ranked Stage A
 *           candidate, the one its step names;
 *   rule 8  P/FINAL (the source-range optional step) builds on the
 *           current mapped BASE incumbent only.
 *
 * Rules 6 and 7 also shape the schedule (reentry.c).  docs/controller.md
 * ("Evidence policies") numbers the rules.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "strict_internal.h"
#include "tunectl/evidence.h"

#define STRICT "strict evidence policy"

/* Did the step at i end the chain?  A failed BASE followed by its
 * re-entry steps did not.  (The steps a short-circuit sealed not_run come
 * after the one that ended it, so the first one found is the cause.) */
static bool
ends_chain(const tc_session *s, size_t i)
{
	const tc_json *step = tc_session_step_at(s, i);
	const tc_json *next = tc_session_step_at(s, i + 1);
	const char *outcome = tc_step_outcome(step);

	if (outcome == NULL || !tc_must_short_circuit(tc_step_phase(step), outcome))
		return false;
	return !(next != NULL && tc_json_get(next, "reentry_candidate") != NULL &&
	    tc_step_phase(next)->id == TC_PHASE_STAGE_O);
}

static int
check_rule2(const tc_session *s, const tc_json *result, tc_error *err)
{
	const char *status = tc_json_get_string(result, "status");
	size_t i;

	if (status == NULL || strcmp(status, "not_run") == 0)
		return 0;
	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);

		if (!tc_step_is_sealed(step))
			break;
		if (!ends_chain(s, i))
			continue;
		tc_error_set(err, STRICT ", rule 2: %s ended %s, so the Final "
		    "can only record not_run (a clean E2E runs only when every "
		    "gate admitted a candidate); this result says %s",
		    tc_step_id(step), tc_step_outcome(step), status);
		return -1;
	}
	return 0;
}

/* ---- rule 8 ------------------------------------------------------------ */

static bool
in_list(const tc_json *list, const tc_json *v)
{
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len; i++)
		if (tc_json_equal(list->u.arr.items[i], v))
			return true;
	return false;
}

/* Is v one of the artifacts a BASE result consumed or produced? */
static bool
base_has(const tc_json *base, const tc_json *v)
{
	return in_list(tc_json_get(base, "consumed_artifacts"), v) ||
	    in_list(tc_json_get(base, "produced_artifacts"), v);
}

/* The current mapped BASE: the last BASE that mapped an incumbent and
 * was not superseded (rule 7). */
static const tc_json *
current_base(const tc_session *s)
{
	const tc_json *current = NULL;
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *b = tc_session_step_at(s, i);
		const char *o = tc_step_outcome(b);

		if (tc_step_phase(b)->id == TC_PHASE_BASE && o != NULL &&
		    (strcmp(o, "succeeded") == 0 || strcmp(o, "no_gain") == 0) &&
		    tc_json_get(b, "superseded_by") == NULL)
			current = b;
	}
	return current;
}

/* A path of consumed that only another BASE (superseded or failed)
 * consumed or produced, or NULL. */
static const char *
foreign_input(const tc_session *s, const tc_json *consumed,
    const tc_json *current, const tc_json *cur, const char **from)
{
	size_t i, k;

	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *b = tc_session_step_at(s, i);
		tc_json *other;
		const char *hit = NULL;

		if (b == current || tc_step_phase(b)->id != TC_PHASE_BASE ||
		    !tc_step_is_sealed(b) ||
		    (other = tc_strict__sealed_result(s, tc_step_id(b))) == NULL)
			continue;
		for (k = 0; hit == NULL && k < consumed->u.arr.len; k++) {
			const tc_json *v = consumed->u.arr.items[k];

			if (base_has(other, v) && !base_has(cur, v))
				hit = tc_json_string(v);
		}
		tc_json_free(other);
		if (hit != NULL) {
			*from = tc_step_id(b);
			return hit;
		}
	}
	return NULL;
}

static int
check_rule8(const tc_session *s, const tc_json *step, const tc_json *result,
    tc_error *err)
{
	const tc_json *consumed = tc_json_get(result, "consumed_artifacts");
	const char *status = tc_json_get_string(result, "status");
	const tc_json *current;
	const char *hit, *from = NULL;
	tc_json *cur;
	size_t k;
	bool shares = false;
	int rc = 0;

	if (!sess_str_is(tc_json_get(step, "optional_branch"), "source-range") ||
	    status == NULL || strcmp(status, "not_run") == 0 ||
	    !tc_json_is(consumed, TC_JSON_ARRAY))
		return 0;
	if ((current = current_base(s)) == NULL)
		return 0;	/* a derived session: its import binds BASE */
	if ((cur = tc_strict__sealed_result(s, tc_step_id(current))) == NULL) {
		tc_error_set(err, STRICT ", rule 8: the result of the current "
		    "BASE %s cannot be read", tc_step_id(current));
		return -1;
	}
	for (k = 0; k < consumed->u.arr.len; k++)
		shares = shares || base_has(cur, consumed->u.arr.items[k]);
	if (!shares) {
		tc_error_set(err, STRICT ", rule 8: %s must build on the current "
		    "mapped BASE incumbent (%s), but it consumes none of that "
		    "step's artifacts", tc_step_id(step), tc_step_id(current));
		rc = -1;
	} else if ((hit = foreign_input(s, consumed, current, cur,
	    &from)) != NULL) {
		tc_error_set(err, STRICT ", rule 8: %s consumes %s of %s, a BASE "
		    "that is not the current mapped incumbent (%s)",
		    tc_step_id(step), hit, from, tc_step_id(current));
		rc = -1;
	}
	tc_json_free(cur);
	return rc;
}

/* ---- rule 6: the re-entry candidate ----------------------------------- */

static int
check_reentry(const tc_session *s, const tc_json *step, tc_error *err)
{
	const char *named = tc_json_get_string(step, "reentry_candidate");
	tc_session *before;
	char *next;
	size_t index = 0;
	int rc = 0;

	if (named == NULL || tc_step_phase(step)->id != TC_PHASE_STAGE_O)
		return 0;
	/* The candidate the re-entry takes is decided by the steps before
	 * it: drop this pair and everything after it. */
	before = tc_session_wrap(tc_json_clone(s->doc), s->path);
	(void)tc_session_find_step(before, tc_step_id(step), &index);
	while (before->steps->u.arr.len > index) {
		before->steps->u.arr.len--;
		tc_json_free(before->steps->u.arr.items[before->steps->u.arr.len]);
	}
	next = tc_strict__next_candidate(before);
	if (next == NULL || strcmp(next, named) != 0) {
		tc_error_set(err, STRICT ", rule 6: %s re-enters Stage O with %s, "
		    "but the next ranked eligible Stage A candidate is %s",
		    tc_step_id(step), named, next != NULL ? next : "none");
		rc = -1;
	}
	free(next);
	tc_session_free(before);
	return rc;
}

/* ---- the check of one result ------------------------------------------ */

int
tc_strict_check_result(const tc_session *s, const tc_json *step,
    const tc_json *result, tc_error *err)
{
	struct gate_set g;
	int rc = 0;

	/* A controller-generated short-circuit result claims nothing. */
	if (tc_json_get(result, "system_generated_by") != NULL)
		return 0;
	if (check_reentry(s, step, err) != 0)
		return -1;
	if (tc_strict__gates_load(s, step, result, &g, err) != 0)
		return -1;
	switch (tc_step_phase(step)->id) {
	case TC_PHASE_S0:
		rc = tc_strict__check_s0(s, step, result, &g, err);
		break;
	case TC_PHASE_STAGE_A:
		rc = tc_strict__check_stage_a(s, step, result, &g, err);
		break;
	case TC_PHASE_STAGE_O:
		rc = tc_strict__check_stage_o(s, step, result, &g, err);
		break;
	case TC_PHASE_OPTIONAL:
		rc = check_rule8(s, step, result, err);
		break;
	case TC_PHASE_FINAL:
		rc = check_rule2(s, result, err);
		if (rc == 0)
			rc = tc_strict__check_final(s, step, result, err);
		break;
	default:
		break;
	}
	tc_strict__gates_free(&g);
	return rc;
}
