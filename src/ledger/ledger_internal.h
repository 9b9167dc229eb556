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
bool tc_ledger__string(const tc_json *v, const char **s, size_t *n);
/* v is a string equal to s. */
bool tc_ledger__is(const tc_json *v, const char *s);
/* v is a string equal to one of the NULL-terminated list. */
bool tc_ledger__in(const tc_json *v, const char *const *list);
/* Python ==, with NULL standing for a missing key (None). */
bool tc_ledger__eq(const tc_json *a, const tc_json *b);
/* v is a string with value != value.strip(). */
bool tc_ledger__has_surrounding_ws(const tc_json *v);
/* Python truthiness of a JSON value (NULL is falsy). */
/* list or dict: the values the reference's set membership cannot hash. */
bool tc_ledger__unhashable(const tc_json *v);
/* The posix-normalised form of a relative-artifact string value. */
char *tc_ledger__posix(const tc_json *v);

/* ---- sets of strings (unique) ------------------------------------ */

/* items are in insertion order until tc_ledger__set_sort() (join and repr sort
 * on their own). */
typedef struct lx_set {
	lx_str *items;
	size_t len, cap;
	size_t *slots, nslots;	/* hash index: item index + 1, 0 empty */
	bool unsorted;
} lx_set;

#define LX_SET_INIT { NULL, 0, 0, NULL, 0, false }

bool tc_ledger__set_add(lx_set *s, const char *p, size_t n);	/* true if new */
bool tc_ledger__set_addz(lx_set *s, const char *p);
bool tc_ledger__set_has(const lx_set *s, const char *p, size_t n);
bool tc_ledger__set_hasz(const lx_set *s, const char *p);
/* The position of the item in s->items, or -1. */
long tc_ledger__set_index(const lx_set *s, const char *p, size_t n);
bool tc_ledger__set_equal(const lx_set *a, const lx_set *b);
/* Put the items in code point order. */
void tc_ledger__set_sort(lx_set *s);
/* out := a & b (out must be empty). */
void tc_ledger__set_intersect(const lx_set *a, const lx_set *b, lx_set *out);
void tc_ledger__set_union_into(lx_set *dst, const lx_set *src);
/* Sorted items joined with ", ". */
void tc_ledger__set_join(tc_buf *b, const lx_set *s);
/* Python list repr of the sorted items: ['a', 'b'] or []. */
void tc_ledger__set_repr(tc_buf *b, const lx_set *s);
void tc_ledger__set_free(lx_set *s);

/* ---- maps string -> set of strings ------------------------------------- */

typedef struct lx_map {
	lx_str *keys;
	lx_set *vals;
	size_t len, cap;
	size_t *slots, nslots;
	bool unsorted;
} lx_map;

#define LX_MAP_INIT { NULL, NULL, 0, 0, NULL, 0, false }

void tc_ledger__map_add(lx_map *m, const char *k, size_t kn, const char *v,
    size_t vn);
const lx_set *tc_ledger__map_get(const lx_map *m, const char *k, size_t kn);
/* Put the keys in code point order (values move with them). */
void tc_ledger__map_sort(lx_map *m);
void tc_ledger__map_free(lx_map *m);

/* ---- errors ----------------------------------------------------------- */

/* Append one formatted message to a JSON array of strings. */
void tc_ledger__err(tc_json *errors, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tc_ledger__err_buf(tc_json *errors, const tc_buf *msg);
/* "; ".join(errors) into b. */
void tc_ledger__join_errors(tc_buf *b, const tc_json *errors);

/* ---- shared validation pieces ------------------------------------------- */

/* docs/spec/ledger.md "Structural validation" S2 JSON value scan:
 * "{loc} must contain finite JSON numbers" for every non-finite float,
 * pre-order. */
void tc_ledger__value_scan(const tc_json *v, const char *loc, tc_json *errors);

/* Canonical JSON for the ledger's comparisons (sort_keys, compact,
 * ensure_ascii, no NaN); malloc'd, never NULL for scanned documents. */
char *tc_ledger__canonical(const tc_json *v, size_t *len);
bool tc_ledger__canonical_equal(const tc_json *a, const tc_json *b);

/* Path-scan vocabulary (docs/spec/ledger.md "Ledger enumerations"). */
bool tc_ledger__is_path_key(const char *key, size_t n);
const char *tc_ledger__role_for_key(const char *key, size_t n);
const char *tc_ledger__role_for_name(const char *posix_path);

/* docs/spec/ledger.md "Artifact-path scanning" role registry of a document:
 * path -> roles. */
void tc_ledger__collect_roles(const tc_json *doc, lx_map *path_roles);

/* docs/spec/ledger.md "Merging into a schema 2 ledger" steps 5 and 6 (also run
 * by the schema 1 migration): 0 or -1 with the reference's message. */
int tc_ledger__check_legacy(const tc_json *legacy, tc_error *err);
int tc_ledger__check_verified(const tc_json *list, tc_error *err);

/* The reference's structural-exception wording for an unhashable value. */
char *tc_ledger__unhashable_message(const tc_json *v);

#endif
