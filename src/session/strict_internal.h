/*
 * strict_internal.h - shared by the files of the strict evidence policy
 * (strict.c, strict_gates.c, reentry.c) and nothing else: the gate
 * evidence a phase result cites, found through the provenance records
 * tunectl's gate commands leave beside their reports.
 */
#ifndef TUNECTL_STRICT_INTERNAL_H
#define TUNECTL_STRICT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/session.h"

enum gate_kind {
	GATE_STABILITY,		/* no candidates: the S0 / incumbent gate */
	GATE_SCREENING,		/* --selection-only */
	GATE_OPTION_TRIAL,	/* --option-trial */
	GATE_PROMOTION		/* final promotion */
};

/* One gate report a result cites, recomputed and found genuine. */
struct gate_report {
	char *rel;		/* the report, relative to the artifact root */
	tc_json *report;	/* its content */
	enum gate_kind kind;
	char *baseline;		/* the baseline run set, relative to the root */
};

/* Every gate report a result cites. */
struct gate_set {
	struct gate_report *items;
	size_t len;
};

/*
 * The gate reports a result produced: every produced path with a gate
 * provenance record beside it.  Each is computed again from
 * the inputs its record names and must be byte-identical to the report
 * on disk, and each of those inputs must be an artifact the result names
 * (or lie inside one), so that the seal binds it.  Fails naming the
 * first report that is not genuine.
 */
int tc_strict__gates_load(const tc_session *s, const tc_json *step,
    const tc_json *result, struct gate_set *set, tc_error *err);
void tc_strict__gates_free(struct gate_set *set);

/* The sealed result of the step with this id, read (NULL when the step
 * is not sealed or its result cannot be read). */
tc_json *tc_strict__sealed_result(const tc_session *s, const char *step_id);

/* The run set of S0's stable stability report (the frozen S0), relative
 * to the root; NULL with err set when S0 has none. */
char *tc_strict__frozen_s0(const tc_session *s, tc_error *err);

/* Is rel (an artifact-relative path) one of the result's named
 * artifacts, or inside one of them?  produced_only limits it to
 * produced_artifacts. */
bool tc_strict__names(const tc_json *result, const char *rel, bool produced_only);

/* The path of an absolute input relative to the artifact root (symlinks
 * resolved), or NULL when it lies outside. */
char *tc_strict__root_relative(const tc_session *s, const char *path);

/* The next ranked eligible Stage A candidate a re-entry after a failed
 * BASE would take (rule 6), given the candidates already tried; NULL
 * when there is none. */
char *tc_strict__next_candidate(const tc_session *s);

/* The per-claim checks (strict_gates.c). */
int tc_strict__check_s0(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err);
int tc_strict__check_stage_a(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err);
int tc_strict__check_stage_o(const tc_session *s, const tc_json *step,
    const tc_json *result, const struct gate_set *g, tc_error *err);
int tc_strict__check_final(const tc_session *s, const tc_json *step,
    const tc_json *result, tc_error *err);

#endif
