/*
 * pypto_items.h - the Stage 5 optimisation-item ledger
 * (docs/spec/pypto.md "Item ledger").  The reference keeps the ledger in
 * PERFORMANCE_REPORT.md prose; tunectl gives it a JSON format
 * (docs/pypto.md "The item ledger") with the
 * docs/spec/pypto.md "Item ledger row" fields and enforces:
 *
 *   - exactly five source kinds, processed in order: an item is closed
 *     only after every item of an earlier kind is closed (or parked as an
 *     enabler);
 *   - a preset source (the first four kinds) is enumerated, with its
 *     denominator, before its items are registered, and never holds more
 *     items than its denominator;
 *   - per-kind terminal statuses (kb_selected: already_implemented,
 *     not_triggered, implemented; the others: accepted, rejected,
 *     not_applicable, unsupported) and the non-terminal pending, unknown,
 *     enabler, blocked;
 *   - rejected needs a concrete reason (reason codes quick_not_promoted,
 *     control_faster, no_stable_gain);
 *   - bottleneck_derived items only after the four preset sources are
 *     closed, each with its mechanism, minimal change, risk, stop
 *     condition and fresh analysis;
 *   - invalidated evidence reopens the original id; a second row for the
 *     same id or source identity is refused.
 *
 * Every mutation appends a history event with a sequence number, so
 * "registered after the presets were closed" can be re-checked later.
 */
#ifndef TUNECTL_PYPTO_ITEMS_H
#define TUNECTL_PYPTO_ITEMS_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_PYPTO_LEDGER_DEFAULT	"docs/perf/optimization_ledger.json"

extern const char *const tc_pypto_source_kinds[];	/* the five, in order */

tc_json *tc_pypto_ledger_new(void);

/* Structural and rule validation of a whole ledger.  With require_closed
 * the ledger must also be complete: every preset source enumerated and
 * fully registered, every item terminal, and a final sweep recorded.
 * Returns a report {valid, errors:[...], counts, closure}; *ok tells. */
tc_json *tc_pypto_ledger_validate(const tc_json *ledger, bool require_closed,
    bool *ok);

/* Mutations (in memory).  now is the timestamp to record. */
int tc_pypto_ledger_source(tc_json *ledger, const char *kind, long count,
    const char *ref, const char *now, tc_error *err);
/* The same with the source's index record (tc_pypto_source_index): the
 * count is the index's; a given count >= 0 must agree. */
int tc_pypto_ledger_source_indexed(tc_json *ledger, const char *kind,
    long count, const char *ref, const tc_json *index, const char *now,
    tc_error *err);
int tc_pypto_ledger_add(tc_json *ledger, const tc_json *item, const char *now,
    tc_error *err);
int tc_pypto_ledger_close(tc_json *ledger, const char *item_id,
    const char *status, const char *reason, const char *reason_code,
    const tc_json *evidence, const char *now, tc_error *err);
int tc_pypto_ledger_park(tc_json *ledger, const char *item_id,
    const char *status, const char *reason, const char *now, tc_error *err);
int tc_pypto_ledger_reopen(tc_json *ledger, const char *item_id,
    const char *reason, const char *now, tc_error *err);
int tc_pypto_ledger_sweep(tc_json *ledger, const char *scope,
    const char *findings, const char *now, tc_error *err);

/* What to work on next: {phase, next, bottleneck_derived_allowed,
 * open_items, complete}. */
tc_json *tc_pypto_ledger_next(const tc_json *ledger);

/* ---- file wrapper: lock, load, mutate, validate, atomic write ---------- */

typedef enum tc_pypto_ledger_verb {
	TC_LEDGER_INIT, TC_LEDGER_SOURCE, TC_LEDGER_ADD, TC_LEDGER_CLOSE,
	TC_LEDGER_PARK, TC_LEDGER_REOPEN, TC_LEDGER_SWEEP
} tc_pypto_ledger_verb;

typedef struct tc_pypto_ledger_op {
	tc_pypto_ledger_verb verb;
	const char *kind;
	long count;
	const char *ref;
	const tc_json *item;
	const char *item_id;
	const char *status;
	const char *reason;
	const char *reason_code;
	const tc_json *evidence;
	const char *scope;
	const char *findings;
	const char *index;		/* source: the authoritative index file */
} tc_pypto_ledger_op;

/* Lock the ledger file, load and validate it, call fn, validate again and
 * write atomically; returns the updated ledger (NULL + err when fn or a
 * validation fails: nothing is written). */
typedef int (*tc_pypto_ledger_fn)(tc_json *ledger, void *ctx,
    const char *now, tc_error *err);
tc_json *tc_pypto_ledger_update(const char *path, tc_pypto_ledger_fn fn,
    void *ctx, tc_error *err);

/* Apply one operation to the ledger file; returns the updated ledger. */
tc_json *tc_pypto_ledger_apply_file(const char *path,
    const tc_pypto_ledger_op *op, tc_error *err);

/* ---- source indexes (source_index.c) ----------------------------------- */

/* Re-enumerate a preset source from its index file: {path (absolute),
 * sha256, count, ids}.  kb_selected: DESIGN_BINDINGS.json obligations by
 * atomic key "class|field|reference|req_id"; the other three: the
 * Markdown table rows with lifecycle "active" and stage5_eligible "yes". */
tc_json *tc_pypto_source_index(const char *kind, const char *path,
    tc_error *err);
/* The key of an item as its index lists it (malloc'd). */
char *tc_pypto_item_index_id(const tc_json *item);
char *tc_pypto_kb_key_text(const tc_json *kb_key);

/* ---- experiments (experiment.c) --------------------------------------- */

/* The experiment records of a ledger: one change each, at most one open,
 * a rejected one restored to its restore point, an accepted one formally
 * compared.  Problems are appended to errors. */
void tc_pypto_experiments_validate(const tc_json *ledger, tc_json *errors);

/* Load a ledger file (JSON object). */
tc_json *tc_pypto_ledger_load(const char *path, tc_error *err);

#endif
