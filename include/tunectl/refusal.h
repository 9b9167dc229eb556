/*
 * refusal.h - why a finished session did not end beneficial, in words and
 * numbers read from its sealed gate reports (src/report/refusal.c).
 */
#ifndef TUNECTL_REFUSAL_H
#define TUNECTL_REFUSAL_H

#include "tunectl/buf.h"
#include "tunectl/session.h"

enum tc_refusal_kind {
	TC_REFUSAL_NONE,	/* no step refused: the session ended beneficial */
	TC_REFUSAL_NOISE,	/* a stability gate (S0, O0, a re-check) refused */
	TC_REFUSAL_GATE,	/* a candidate gate (screening, promotion) refused */
	TC_REFUSAL_ENVIRONMENT,	/* intake found a blocker */
	TC_REFUSAL_FAILURE,	/* a phase failed or was invalid */
	TC_REFUSAL_OTHER	/* a refusal without gate evidence */
};

/*
 * Find the step that stopped the chain (the first sealed step whose
 * status short-circuits the session, or a Final step that did not settle
 * accepted), set *step_id to its id (owned by s; NULL when none), and
 * append to out one line naming it, one line per refused gate check of
 * the gate reports it produced ("stability gate (s0/stability.json):
 * spread 6.20 % > 5.0 % (...)"), the machine's load average at the end of
 * the refused run sets, or its blockers.  Returns what kind of refusal
 * it was.
 */
enum tc_refusal_kind tc_report_refusal(const tc_session *s, tc_buf *out,
    const char **step_id);

#endif
