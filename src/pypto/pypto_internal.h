/*
 * pypto_internal.h - helpers shared by the src/pypto/ files and nothing else:
 * JavaScript value semantics for the state machine (the reference state
 * tool is TypeScript), small JSON accessors, number formatting and the
 * file identity records.
 */
#ifndef TUNECTL_PYPTO_INTERNAL_H
#define TUNECTL_PYPTO_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

/* ---- JavaScript semantics (jsval.c) ------------------------------------ */

/* Number(string): trims JS whitespace, "" is 0, accepts decimal,
 * 0x/0o/0b integers and [+-]Infinity, NaN otherwise. */
double tc_js_number_of_string(const char *s);
/* Number(v) of a JSON value; v == NULL is undefined (NaN). */
double tc_js_number(const tc_json *v);
/* String(x) of a JS number ("3", "2.5", "NaN", "1e+21", "1e-7"). */
void tc_js_format_number(tc_buf *out, double x);
/* `${v}` of a JSON value; NULL prints "undefined". */
void tc_js_display(tc_buf *out, const tc_json *v);
/* s.trim() === "" (JS whitespace set, UTF-8 input). */
bool tc_js_is_blank(const char *s);
/* A JS number as JSON: an integer when integral and exactly
 * representable, else a float. */
tc_json *tc_js_number_json(double x);
/* new Date().toISOString(): "2026-01-01T00:00:00.000Z". */
void tc_js_iso_now(char out[32]);

/* ---- JSON helpers (jsonutil.c) ------------------------------------------ */

/* A strict int (not bool, not float) that fits int64. */
bool tc_pj_int(const tc_json *v, int64_t *out);
/* The strict int v, or dflt when v is absent or not one (for printing). */
int64_t tc_pj_int_or(const tc_json *v, int64_t dflt);
/* A finite number > 0 (int or float, not bool). */
bool tc_pj_positive(const tc_json *v, double *out);
/* Python repr() of a list of JSON values: "[1.0, 2.5]", "['a']". */
void tc_pj_pylist(tc_buf *out, const tc_json *arr);
/* A copy of v, or JSON null when v is absent (a member must never be a
 * NULL value: the writers would trip over it). */
tc_json *tc_pj_clone(const tc_json *v);
/* The head of every pypto document: schema_version 1 and its kind. */
void tc_pj_doc_header(tc_json *doc, const char *kind);
/* dst[key] = tc_pj_clone(src[key]) for each key of the NULL-terminated
 * list. */
void tc_pj_copy_members(tc_json *dst, const tc_json *src,
    const char *const *keys);
/* The next line of out (after *p) that starts with tag: *payload and
 * *len are the rest of that line, and *p moves past it.  false at the
 * end.  Lines end in \n, \r\n or \r. */
bool tc_pj_next_tagged_line(const char **p, const char *tag,
    const char **payload, size_t *len);
/* Append a formatted message to a JSON array (error and evidence lists). */
void tc_pj_push_fmt(tc_json *arr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tc_pj_push_vfmt(tc_json *arr, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The absolute path of an existing operator directory, or NULL with
 * "operator directory does not exist: DIR" (malloc'd). */
char *tc_pypto_op_dir_resolve(const char *op_dir, tc_error *err);
/* Arrays of strings. */
tc_json *tc_pj_string_array(char *const *items, size_t n);
/* Find a string in a JSON array of strings. */
bool tc_pj_array_has_string(const tc_json *arr, const char *s);
/* Lowercase hex check of exactly 64 chars. */
bool tc_pj_is_sha256_hex(const char *s);
/* The index of s in the NULL-terminated list, or -1 (also for s NULL). */
int tc_pypto__strv_index(const char *const *list, const char *s);
/* s is one of the NULL-terminated list (false for s NULL). */
bool tc_pypto__strv_has(const char *const *list, const char *s);
/* A POSIX environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool tc_pj_env_name_ok(const char *s);

/* ---- a helper program's output (capture.c) ------------------------------ */

typedef struct tc_pypto__capture {
	char *const *argv;
	const char *cwd;		/* NULL: ours */
	double timeout_s;
	const char *temp_prefix;	/* of the private directory */
	size_t limit;			/* bytes read back of each stream */
	tc_error *read_err;		/* says why stdout was not read back
					 * (NULL: nowhere) */
} tc_pypto__capture;

/* Run how->argv with stdin from /dev/null: *exit_code (124 when it timed
 * out), *out and *errt (when not NULL) what it wrote to stdout and stderr,
 * malloc'd, or NULL when not read back.  0, or -1 with err when it could
 * not be run. */
int tc_pypto__run_captured(const tc_pypto__capture *how, char **out,
    char **errt, int *exit_code, tc_error *err);

/* Read a JSON object file; "<label>: <error>" style messages are the
 * caller's; here the error is the reader's (Python form).  Refuses a
 * non-object root with "<what> must be a JSON object". */
tc_json *tc_pj_load_object(const char *path, const char *what, tc_error *err);

/* ---- Golden reports (golden.c) ------------------------------------------ */

struct tc_pypto_golden;
/* Reload into g the GOLDEN_PERF_REPORT.json beside a Golden contract's
 * path: NULL, or why it cannot be (malloc'd: the load error, or that the
 * report is not there). */
char *tc_pypto__golden_reload(const char *contract_path,
    struct tc_pypto_golden *g);

/* ---- item ledger (items.c) ---------------------------------------------- */

/* Index of a source kind in tc_pypto_source_kinds, or -1. */
int tc_pypto_item_kind_index(const char *kind);
/* Whether status closes an item of this kind. */
bool tc_pypto_item_terminal(const char *kind, const char *status);
/* The ledger's sequence, advanced by one and returned. */
int64_t tc_pypto__ledger_next_seq(tc_json *l);
/* How many of items (a JSON array, or NULL) have this source_kind. */
long tc_pypto__count_kind(const tc_json *items, const char *kind);
/* The item of the ledger with this item_id, or NULL. */
tc_json *tc_pypto__ledger_item(const tc_json *l, const char *id);

/* ---- statistics (pstats.c) ---------------------------------------------- */

/* The reference's per-case aggregate: trimmed mean (drop one min and one
 * max) for n >= 3, median otherwise. */
double tc_pypto_aggregate(const double *v, size_t n);
const char *tc_pypto_aggregation_method(size_t repeats);
double tc_pypto_mean(const double *v, size_t n);
double tc_pypto_median(const double *v, size_t n);
double tc_pypto_geomean(const double *v, size_t n);

/* ---- file identity ------------------------------------------------------- */

/* {path, sha256, size_bytes} of a file (path resolved strictly, must be a
 * regular file).  NULL + err on failure. */
tc_json *tc_pypto_source_record(const char *path, tc_error *err);
/* Re-check a recorded identity; returns NULL when it matches, else a
 * malloc'd message in the reference's words ("<label> source sha256
 * mismatch", ...). */
char *tc_pypto_source_record_error(const tc_json *record, const char *label);

/* ---- the final test run (precision.c) ----------------------------------- */

/* NULL when a final test's output passes (PASS lines with matched_ratio=
 * and max_abs_error=, at least min_pass of them, no FAIL line, no
 * Traceback / Error / Exception), else a malloc'd message. */
char *tc_pypto_precision_error(const char *out, const char *err_text,
    size_t min_pass);
/* Run python test_<op>.py now (every case): {argv, runner_sha256,
 * exit_code, timed_out, stdout_sha256, stdout_tail, stderr_tail, passed,
 * problem}.  NULL only when it cannot be started. */
tc_json *tc_pypto_run_final_test(const char *op_dir, const char *interpreter,
    double timeout_s, size_t min_pass, tc_error *err);

/* The ledger's row rules for an existing row (items.c). */
int tc_pypto_ledger_check_row(const tc_json *ledger, const tc_json *item,
    tc_error *err);


#endif
