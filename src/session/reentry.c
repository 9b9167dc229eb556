/*
 * reentry.c - the two transition rules of the strict evidence policy
 * that change the schedule, recorded so that a reference reader of an
 * ordinary session never notices:
 *
 *   rule 6  a BASE sealed "failed" (a default-winner failure) re-enters
 *           Stage O with the next ranked eligible Stage A candidate: the
 *           steps stage-o-option-tuning-<n> and
 *           base-profile-source-mapping-<n> (n = 2, 3, ...) are inserted
 *           after it, each naming the candidate in "reentry_candidate",
 *           as the reference inserts a derived BASE.  Only when no
 *           ranked candidate is left does the failure short-circuit.
 *   rule 7  an accepted multistream of a "both" session supersedes the
 *           BASE it builds on: that step gains "superseded_by":
 *           "base-profile-derived".
 *
 * tc_strict_schedule() checks, on every load of a strict session, that
 * re-entry steps and superseded marks are exactly where these rules put
 * them, and hands the canonical-schedule check the steps without the
 * re-entry pairs.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "strict_internal.h"
#include "tunectl/evidence.h"

#define STRICT "strict evidence policy"
#define REENTRY_O	"stage-o-option-tuning-"
#define REENTRY_BASE	"base-profile-source-mapping-"

/* ---- rule 6 ------------------------------------------------------------ */

/* Is id prefix + n with n >= 2 written without a leading zero? */
static bool
reentry_number(const char *id, const char *prefix, long *n)
{
	size_t len = strlen(prefix);
	const char *p;
	char *end;

	if (id == NULL || strncmp(id, prefix, len) != 0)
		return false;
	p = id + len;
	if (*p < '1' || *p > '9')
		return false;
	*n = strtol(p, &end, 10);
	return *end == '\0' && *n >= 2 && *n < 10000;
}

static bool
tried(const tc_session *s, const char *seed, const char *name)
{
	size_t i;

	if (seed != NULL && strcmp(seed, name) == 0)
		return true;
	for (i = 0; i < tc_session_step_count(s); i++) {
		const char *c = tc_json_get_string(tc_session_step_at(s, i),
		    "reentry_candidate");

		if (c != NULL && strcmp(c, name) == 0)
			return true;
	}
	return false;
}

char *
tc_strict__next_candidate(const tc_session *s)
{
	const tc_json *step = tc_session_find_step(s, "stage-a-scope-selection",
	    NULL);
	tc_json *result;
	struct gate_set g;
	const char *seed;
	char *next = NULL;
	size_t i, k;

	if (step == NULL || !sess_str_is(tc_json_get(step, "outcome_status"),
	    "accepted") || (result = tc_strict__sealed_result(s,
	    "stage-a-scope-selection")) == NULL)
		return NULL;
	seed = tc_json_get_string(result, "selected_candidate");
	if (seed != NULL && tc_strict__gates_load(s, step, result, &g, NULL) == 0) {
		for (i = 0; next == NULL && i < g.len; i++) {
			const tc_json *sel = tc_json_get(g.items[i].report,
			    "selection");
			const tc_json *ranked = tc_json_get(sel,
			    "ranked_eligible_candidates");

			if (g.items[i].kind != GATE_SCREENING ||
			    !sess_str_is(tc_json_get(sel,
			    "selected_for_deep_analysis"), seed) ||
			    !tc_json_is(ranked, TC_JSON_ARRAY))
				continue;
			for (k = 0; next == NULL && k < ranked->u.arr.len; k++) {
				const char *c = tc_json_string(ranked->u.arr.items[k]);

				if (c != NULL && !tried(s, seed, c))
					next = tc_xstrdup(c);
			}
		}
		tc_strict__gates_free(&g);
	}
	tc_json_free(result);
	return next;
}

static tc_json *
reentry_step(const char *prefix, long n, tc_phase_id phase,
    const char *candidate)
{
	char *id = tc_xasprintf("%s%ld", prefix, n);
	tc_json *step = tc_step_new(id, phase, NULL, false);

	tc_json_object_set_string(step, "reentry_candidate", candidate);
	free(id);
	return step;
}

bool
tc_strict_reenter(tc_session *s, size_t base_index)
{
	const tc_json *base = tc_session_step_at(s, base_index);
	char *next;
	long n = 2, m;
	size_t i;

	if (tc_step_phase(base)->id != TC_PHASE_BASE ||
	    tc_json_truthy(tc_json_get(base, "derived_family_rebase")) ||
	    !sess_str_is(tc_json_get(base, "outcome_status"), "failed"))
		return false;
	if ((next = tc_strict__next_candidate(s)) == NULL)
		return false;
	for (i = 0; i < tc_session_step_count(s); i++)
		if (reentry_number(tc_step_id(tc_session_step_at(s, i)),
		    REENTRY_O, &m))
			n++;
	tc_schedule_insert(s->steps, base_index,
	    reentry_step(REENTRY_BASE, n, TC_PHASE_BASE, next));
	tc_schedule_insert(s->steps, base_index,
	    reentry_step(REENTRY_O, n, TC_PHASE_STAGE_O, next));
	tc_session_refresh(s);
	free(next);
	return true;
}

int
tc_strict_check_reentered(const tc_session *s, size_t base_index,
    tc_error *err)
{
	const tc_json *base = tc_session_step_at(s, base_index);
	const tc_json *next = tc_session_step_at(s, base_index + 1);
	tc_session *then;
	char *candidate;
	int rc = 0;

	if (tc_step_phase(base)->id != TC_PHASE_BASE ||
	    tc_json_truthy(tc_json_get(base, "derived_family_rebase")) ||
	    !sess_str_is(tc_json_get(base, "outcome_status"), "failed") ||
	    (next != NULL && tc_json_get(next, "reentry_candidate") != NULL))
		return 0;
	/* What the seal of this BASE saw: the steps up to it. */
	then = tc_session_wrap(tc_json_clone(s->doc), s->path);
	while (then->steps->u.arr.len > base_index + 1) {
		then->steps->u.arr.len--;
		tc_json_free(then->steps->u.arr.items[then->steps->u.arr.len]);
	}
	candidate = tc_strict__next_candidate(then);
	if (candidate != NULL) {
		tc_error_set(err, STRICT ", rule 6: %s failed, but the session "
		    "did not re-enter Stage O with the next ranked eligible Stage A "
		    "candidate %s", tc_step_id(base), candidate);
		rc = -1;
	}
	free(candidate);
	tc_session_free(then);
	return rc;
}

/* ---- rule 7 ------------------------------------------------------------ */

/* The BASE an accepted multistream at ms supersedes: the last BASE
 * before it that mapped an incumbent.  -1 when there is none. */
static long
superseded_index(const tc_json *steps, size_t ms)
{
	long found = -1;
	size_t i;

	for (i = 0; i < ms; i++) {
		const tc_json *b = steps->u.arr.items[i];
		const tc_phase *p = tc_phase_of(tc_json_get(b, "phase"));

		if (p != NULL && p->id == TC_PHASE_BASE &&
		    sess_str_is(tc_json_get(b, "state"), "sealed") &&
		    (sess_str_is(tc_json_get(b, "outcome_status"), "succeeded") ||
		    sess_str_is(tc_json_get(b, "outcome_status"), "no_gain")))
			found = (long)i;
	}
	return found;
}

void
tc_strict_mark_superseded(tc_session *s, size_t multistream_index)
{
	long b = superseded_index(s->steps, multistream_index);

	if (b >= 0)
		tc_json_object_set_string(tc_session_step_at(s, (size_t)b),
		    "superseded_by", "base-profile-derived");
}

/* Where rule 7 puts the superseded mark: the index, or -1. */
static long
expected_mark(const tc_json *doc, const tc_json *steps)
{
	size_t i;

	if (!sess_str_is(tc_json_get(doc, "optional_mode"), "both"))
		return -1;
	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *st = steps->u.arr.items[i];

		if (sess_str_is(tc_json_get(st, "step_id"), "optional-multistream") &&
		    sess_str_is(tc_json_get(st, "state"), "sealed") &&
		    sess_str_is(tc_json_get(st, "outcome_status"), "accepted"))
			return superseded_index(steps, i);
	}
	return -1;
}

static int
check_marks(const tc_json *doc, const tc_json *steps, tc_error *err)
{
	long want = expected_mark(doc, steps);
	size_t i;

	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *st = steps->u.arr.items[i];
		const tc_json *mark = tc_json_get(st, "superseded_by");
		bool expected = (long)i == want;

		if (expected && sess_str_is(mark, "base-profile-derived"))
			continue;
		if (!expected && mark == NULL)
			continue;
		tc_error_set(err, STRICT ", rule 7: %s %s", tc_json_get_string(st,
		    "step_id"), expected ? "is the BASE an accepted multistream "
		    "superseded, but it is not marked superseded_by "
		    "base-profile-derived" : "is marked superseded, but no "
		    "accepted multistream superseded it");
		return -1;
	}
	return 0;
}

/* ---- the schedule of a strict session ---------------------------------- */

static bool
plain_step(const tc_json *st, tc_phase_id phase, const char *candidate)
{
	const tc_phase *p = tc_phase_of(tc_json_get(st, "phase"));

	return p != NULL && p->id == phase &&
	    tc_json_is(tc_json_get(st, "optional_branch"), TC_JSON_NULL) &&
	    tc_json_is(tc_json_get(st, "derived_family_rebase"), TC_JSON_BOOL) &&
	    !tc_json_get(st, "derived_family_rebase")->u.b &&
	    sess_str_is(tc_json_get(st, "reentry_candidate"), candidate);
}

/* Is the re-entry pair at i, i + 1 (numbered n) where rule 6 puts it? */
static bool
legal_pair(const tc_json *steps, size_t i, long n, long pairs)
{
	const tc_json *prev = i > 0 ? steps->u.arr.items[i - 1] : NULL;
	const tc_json *o = steps->u.arr.items[i];
	const tc_json *base = i + 1 < steps->u.arr.len ?
	    steps->u.arr.items[i + 1] : NULL;
	const tc_phase *pp = prev != NULL ?
	    tc_phase_of(tc_json_get(prev, "phase")) : NULL;
	const char *cand = tc_json_get_string(o, "reentry_candidate");
	long m;

	return n == pairs + 2 && cand != NULL && *cand != '\0' &&
	    base != NULL &&
	    reentry_number(tc_json_get_string(base, "step_id"), REENTRY_BASE,
	    &m) && m == n &&
	    plain_step(o, TC_PHASE_STAGE_O, cand) &&
	    plain_step(base, TC_PHASE_BASE, cand) &&
	    pp != NULL && pp->id == TC_PHASE_BASE &&
	    sess_str_is(tc_json_get(prev, "state"), "sealed") &&
	    sess_str_is(tc_json_get(prev, "outcome_status"), "failed");
}

int
tc_strict_schedule(const tc_json *doc, tc_json **canon, tc_error *err)
{
	const tc_json *steps = tc_json_get(doc, "steps");
	tc_json *out = tc_json_new_array();
	long n, pairs = 0;
	size_t i;

	*canon = NULL;
	for (i = 0; i < steps->u.arr.len; i++) {
		const tc_json *st = steps->u.arr.items[i];
		const char *id = tc_json_get_string(st, "step_id");

		if (reentry_number(id, REENTRY_O, &n)) {
			if (!legal_pair(steps, i, n, pairs))
				goto bad;
			pairs++;
			i++;
			continue;
		}
		if (reentry_number(id, REENTRY_BASE, &n) ||
		    tc_json_get(st, "reentry_candidate") != NULL)
			goto bad;
		tc_json_array_push(out, tc_json_clone(st));
	}
	if (check_marks(doc, steps, err) != 0) {
		tc_json_free(out);
		return -1;
	}
	*canon = out;
	return 0;
bad:
	tc_json_free(out);
	tc_error_set(err, "session steps do not match the canonical schedule");
	return -1;
}
