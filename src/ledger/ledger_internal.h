/*
 * ledger_internal.h - helpers shared by the experiment-ledger sources
 * (experiment_*.c, ledger_*.c): Python string predicates, sorted string
 * sets and maps with Python set semantics, error-list building.  Not part
 * of the public API.
 */
#ifndef TUNECTL_LEDGER_INTERNAL_H
#define TUNECTL_LEDGER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/canon.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

/* ---- strings ------------------------------------------------------------ */

/* A length-delimited string (JSON strings may hold NUL). */
typedef struct lx_str {
	char *p;
	size_t n;
} lx_str;

/* The string of v, or false. */
bool lx_string(const tc_json *v, const char **s, size_t *n);
/* v is a string equal to s. */
bool lx_is(const tc_json *v, const char *s);
/* v is a string equal to one of the NULL-terminated list. */
bool lx_in(const tc_json *v, const char *const *list);
/* Python ==, with NULL standing for a missing key (None). */
bool lx_eq(const tc_json *a, const tc_json *b);
/* v is a string with value != value.strip(). */
bool lx_has_surrounding_ws(const tc_json *v);
/* Python truthiness of a JSON value (NULL is falsy). */
/* list or dict: the values the reference's set membership cannot hash. */
bool lx_unhashable(const tc_json *v);
/* The posix-normalised form of a relative-artifact string value. */
char *lx_posix(const tc_json *v);

/* ---- sets of strings (unique) ------------------------------------ */

/* items are in insertion order until lx_set_sort() (join and repr sort
 * on their own). */
typedef struct lx_set {
	lx_str *items;
	size_t len, cap;
	size_t *slots, nslots;	/* hash index: item index + 1, 0 empty */
	bool unsorted;
} lx_set;

#define LX_SET_INIT { NULL, 0, 0, NULL, 0, false }

bool lx_set_add(lx_set *s, const char *p, size_t n);	/* true if new */
bool lx_set_addz(lx_set *s, const char *p);
bool lx_set_has(const lx_set *s, const char *p, size_t n);
bool lx_set_hasz(const lx_set *s, const char *p);
/* The position of the item in s->items, or -1. */
long lx_set_index(const lx_set *s, const char *p, size_t n);
bool lx_set_equal(const lx_set *a, const lx_set *b);
/* Put the items in code point order. */
void lx_set_sort(lx_set *s);
/* out := a & b (out must be empty). */
void lx_set_intersect(const lx_set *a, const lx_set *b, lx_set *out);
void lx_set_union_into(lx_set *dst, const lx_set *src);
/* Sorted items joined with ", ". */
void lx_set_join(tc_buf *b, const lx_set *s);
/* Python list repr of the sorted items: ['a', 'b'] or []. */
void lx_set_repr(tc_buf *b, const lx_set *s);
void lx_set_free(lx_set *s);

/* ---- maps string -> set of strings ------------------------------------- */

typedef struct lx_map {
	lx_str *keys;
	lx_set *vals;
	size_t len, cap;
	size_t *slots, nslots;
	bool unsorted;
} lx_map;

#define LX_MAP_INIT { NULL, NULL, 0, 0, NULL, 0, false }

void lx_map_add(lx_map *m, const char *k, size_t kn, const char *v,
    size_t vn);
const lx_set *lx_map_get(const lx_map *m, const char *k, size_t kn);
/* Put the keys in code point order (values move with them). */
void lx_map_sort(lx_map *m);
void lx_map_free(lx_map *m);

/* ---- errors ----------------------------------------------------------- */

/* Append one formatted message to a JSON array of strings. */
void lx_err(tc_json *errors, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lx_err_buf(tc_json *errors, const tc_buf *msg);
/* "; ".join(errors) into b. */
void lx_join_errors(tc_buf *b, const tc_json *errors);

/* ---- shared validation pieces ------------------------------------------- */

/* §3.5 S2 JSON value scan: "{loc} must contain finite JSON numbers" for
 * every non-finite float, pre-order. */
void lx_value_scan(const tc_json *v, const char *loc, tc_json *errors);

/* Canonical JSON for the ledger's comparisons (sort_keys, compact,
 * ensure_ascii, no NaN); malloc'd, never NULL for scanned documents. */
char *lx_canonical(const tc_json *v, size_t *len);
bool lx_canonical_equal(const tc_json *a, const tc_json *b);

/* Path-scan vocabulary (§3.2). */
bool lx_is_path_key(const char *key, size_t n);
const char *lx_role_for_key(const char *key, size_t n);
const char *lx_role_for_name(const char *posix_path);

/* §3.6 role registry of a document: path -> roles. */
void lx_collect_roles(const tc_json *doc, lx_map *path_roles);

/* §3.9 steps 5 and 6 (also run by the schema 1 migration): 0 or -1 with
 * the reference's message. */
int lx_check_legacy(const tc_json *legacy, tc_error *err);
int lx_check_verified(const tc_json *list, tc_error *err);

/* The reference's structural-exception wording for an unhashable value. */
char *lx_unhashable_message(const tc_json *v);

#endif
