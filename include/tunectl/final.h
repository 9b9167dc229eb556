/*
 * final.h - the Final step's view of the schema 2 experiment ledger
 * (docs/spec/controller.md "The Final step's ledger"): loading the ledger a
 * Final result names, the final_e2e record, the classification -> Final status
 * mapping, and the optional report_summary with its evidence files.
 *
 * Every check runs in the reference's order and fails with the
 * reference's message, so the first error matches byte for byte.
 * Documents are untrusted: any tc_json may have any shape.
 */
#ifndef TUNECTL_FINAL_H
#define TUNECTL_FINAL_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* ---- the ledger (docs/spec/controller.md "Loading the Final ledger") ---- */

/*
 * _load_ledger(artifact_root, ledger_path): ledger_path (the Final
 * result's "ledger_path" value, any JSON type or NULL when absent) must be
 * a relative artifact path; <artifact_root>/<ledger_path> is read and
 * parsed (NaN/Infinity accepted, as Python's reader does), must be a
 * schema 2 ledger with an "experiments" object of well-formed entries, a
 * valid "final_e2e" and, when the key is present (even null), a valid
 * "report_summary" whose evidence lies under artifact_root.
 * Returns the parsed ledger (caller frees) or NULL with err set, e.g.
 * "ledger_path must be a relative artifact path",
 * "ledger_path cannot be read: [Errno 2] No such file or directory: '...'".
 */
tc_json *tc_final_load_ledger_value(const char *artifact_root,
    const tc_json *ledger_path, tc_error *err);
/* The same for a C string ledger_path (NULL reads as an absent key). */
tc_json *tc_final_load_ledger(const char *artifact_root,
    const char *ledger_path, tc_error *err);

/* Python's `ledger.get("schema_version") == 2` (2 and 2.0 pass, true and
 * "2" do not) on an object; false for anything else.  Shared with the
 * imported-ledger checks of derivation (docs/spec/controller.md
 * "Imported ledger checks"). */
bool tc_final_ledger_is_schema2(const tc_json *ledger);

/* docs/spec/controller.md "Loading the Final ledger" steps 3-5 on an already
 * parsed document: schema 2, "experiments" an object, every entry an object
 * with list "rounds"/"blockers" when present.  Messages as in
 * tc_final_load_ledger. */
int tc_final_check_ledger_shape(const tc_json *ledger, tc_error *err);

/* ---- docs/spec/controller.md "Final E2E record" final_e2e,
 * docs/spec/controller.md "Final status from classification" classification */

/* Validate ledger.final_e2e (NULL = absent key), including the
 * improvement_pct recomputed from the clean medians within
 * math.isclose(rel_tol=1e-6, abs_tol=1e-6). */
int tc_final_validate_e2e(const tc_json *final_e2e, tc_error *err);

/* The Final phase status a classification maps to: "accepted",
 * "no_gain", "not_run", "failed", "blocked"; NULL for anything else. */
const char *tc_final_status_for_class(const char *classification);
/* The same from a final_e2e object (its "classification"). */
const char *tc_final_status_for(const tc_json *final_e2e);

/* _terminal_outcome_label(status) of the report: 有收益 / 无收益 /
 * 未执行 / 失败或阻塞 (every other status, "invalid" included). */
const char *tc_final_outcome_label(const char *status);
/* The same label in English (the --lang en report): "beneficial",
 * "no gain", "not run", "failed or blocked". */
const char *tc_final_outcome_label_en(const char *status);

/* true for classifications that carry clean medians (beneficial, no_gain). */
bool tc_final_is_measured(const tc_json *final_e2e);

/* ---- report_summary (docs/spec/controller.md "Report summary") ---------- */

/* The six summary stages in rendering order, each with the kind a row of
 * that stage must declare and the session step it summarises. */
struct tc_summary_stage {
	const char *stage;		/* "stage_a", ... */
	const char *kind;		/* "screening", ... */
	const char *phase;		/* session phase */
	const char *optional_branch;	/* NULL: any (non-optional phases) */
};
extern const struct tc_summary_stage tc_summary_stages[];
#define TC_SUMMARY_STAGE_COUNT 6

/*
 * _validate_report_summary(summary, final_e2e, root): summary is the
 * report_summary value (any JSON type; NULL reads as null, which is
 * invalid); final_e2e the already validated ledger record; evidence
 * files must resolve (symlinks followed) to regular files inside
 * artifact_root.  Every message starts with "report_summary".
 */
int tc_final_validate_report_summary(const tc_json *summary,
    const tc_json *final_e2e, const char *artifact_root, tc_error *err);

/* ---- the Final-only checks of a phase result (docs/spec/controller.md
 * "Phase result validation" step 15) */

/*
 * The checks the controller adds for a final_e2e_report result after the
 * generic result checks (docs/spec/controller.md "Phase result validation"
 * steps 1-14, the session module's): the seven details_zh sections,
 * ledger_path, the whole ledger (docs/spec/controller.md
 * "Loading the Final ledger"), and status == map[final_e2e.classification].  On
 * success returns 0 and, when ledger is not NULL, hands the parsed ledger to
 * the caller.
 */
int tc_final_check_result(const tc_json *result, const char *artifact_root,
    tc_json **ledger, tc_error *err);
/* What a ledger read took in: the SHA-256 (hex) and size of the bytes
 * parsed, so that a caller binding the same file need not read it again;
 * sha256 is "" when no bytes were read. */
typedef struct tc_final_ledger_bytes {
	char sha256[65];
	uint64_t size;
} tc_final_ledger_bytes;
/* tc_final_check_result(), *bytes (when not NULL) getting what the ledger
 * read took in, whether or not the checks then passed. */
int tc_final_check_result_bytes(const tc_json *result,
    const char *artifact_root, tc_json **ledger, tc_final_ledger_bytes *bytes,
    tc_error *err);

/* FINAL_DETAIL_KEYS in order. */
extern const char *const tc_final_detail_keys[];
#define TC_FINAL_DETAIL_KEY_COUNT 7

/* ---- small predicates shared by the Final checks ------------------------ */

/* The reference's canonical string is tc_is_canonical_string()
 * (tunectl/canon.h). */

/* A number that is not a bool and is finite (math.isfinite); *out gets
 * float(v). */
bool tc_final_finite_number(const tc_json *v, double *out);

/* The report's arithmetic on two JSON numbers b (baseline) and c
 * (candidate), as Python evaluates it: float(c - b) (ints subtract
 * exactly), and delta = c - b; (-delta) / b * 100 (so two equal floats
 * give -0.0 and two equal ints +0.0). */
double tc_final_delta(const tc_json *b, const tc_json *c);
double tc_final_report_improvement(const tc_json *b, const tc_json *c);

#endif
