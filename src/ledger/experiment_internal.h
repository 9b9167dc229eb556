/*
 * experiment_internal.h - the state of one structural validation of an
 * experiment result (docs/spec/ledger.md "Structural validation"), shared by
 * experiment_validate.c (top level, rounds, profiles, sequence, analysis maps),
 * experiment_decisions.c (decisions, whole-scope, per-round semantics) and
 * experiment_paths.c (artifact paths and roles).
 */
#ifndef TUNECTL_EXPERIMENT_INTERNAL_H
#define TUNECTL_EXPERIMENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ledger_internal.h"
#include "tunectl/json.h"

enum xkind {
	XK_NONE = -1,		/* not a valid round_kind */
	XK_BASE,
	XK_PRUNE,
	XK_FINAL,
	XK_AOT
};

struct xround {
	const tc_json *obj;	/* NULL when the item is not an object */
	enum xkind kind;
	bool registered;	/* its round_id was registered (R2) */
	bool passed;		/* lifecycle.profiling == "passed" (R7) */
};

struct xv {
	const tc_json *r;	/* the result */
	tc_json *errors;	/* array of strings */
	char *exc;		/* set once the reference would raise */

	bool whole_scope;	/* promotion_mode == "whole_scope" */
	const tc_json *promotion_mode;	/* NULL: absent (the default) */

	size_t nrounds;
	struct xround *rounds;
	lx_set passed;		/* profiling-passed round ids */
	lx_set round_ids;	/* registered round ids (R2), in round order */
	size_t *round_pos;	/* round_pos[k]: round index of round_ids item k */

	size_t *seq;		/* optimisation sequence (round indices) */
	size_t nseq;

	/* M1-normalised analysis maps (never NULL). */
	const tc_json *agents, *results;
	tc_json *empty, *empty_list;

	/* D0-normalised decision collections (arrays, never NULL). */
	const tc_json *decisions, *unresolved;

	/* Profile paths of every round (for M7). */
	lx_set all_baseline_paths, all_candidate_paths;
};

/* The registered round with this round_id (Python ==), or -1. */
long tc_experiment__round_index(const struct xv *x, const tc_json *round_id);

/* Profiling binding checks B1-B4 with prefix P; source may be NULL. */
void tc_experiment__binding_checks(struct xv *x, const tc_json *obj, const char *P,
    const tc_json *source);

/* "<prefix> must be a list" / "... must contain non-empty strings" /
 * "... must not contain duplicate range IDs" (R10, K4). */
void tc_experiment__string_list_check(struct xv *x, const tc_json *v,
    const char *prefix);

/* {x for x in v if isinstance(x, str)} when v is a list, else empty. */
void tc_experiment__string_set(const tc_json *v, lx_set *out);

/* Record the reference's TypeError for an unhashable value. */
void tc_experiment__raise_unhashable(struct xv *x, const tc_json *v);

/* The phases of experiment_decisions.c and experiment_paths.c. */
void tc_experiment__check_decisions(struct xv *x);
void tc_experiment__check_whole_scope(struct xv *x);
void tc_experiment__check_round_semantics(struct xv *x);
void tc_experiment__check_artifact_paths(struct xv *x);

#endif
