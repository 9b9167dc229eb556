/*
 * derive_internal.h - what derivation (derive.c) and the evidence import's
 * re-validation (evidence_import.c) share: files read once so that the
 * digest recorded and the content checked are of the same bytes, the
 * artifact roles, and the BASE result's declared artifacts.
 */
#ifndef TUNECTL_DERIVE_INTERNAL_H
#define TUNECTL_DERIVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* The artifact roles in the reference's order (docs/spec/controller.md
 * "Derivation preconditions" step 14). */
enum { DER_ANALYSIS, DER_LEDGER, DER_SOURCE_MAP, DER_ROLE_COUNT };
extern const char *const tc_derive__role_names[DER_ROLE_COUNT];
/* The label of each role's content checks ("profiling analysis", ...). */
extern const char *const tc_derive__role_labels[DER_ROLE_COUNT];

/* A file read once. */
struct der_file {
	char *bytes;		/* NULL when not read */
	size_t len;
	char sha256[65];	/* of the bytes */
};

/* Read path; errors in Python's OSError form (bare). */
int tc_derive__file_read(struct der_file *f, const char *path, tc_error *err);
void tc_derive__file_free(struct der_file *f);

/* Parse the bytes as json.load does: "<label> cannot be read: <error>";
 * with want_object, a non-object is "<label> must be a JSON object". */
tc_json *tc_derive__file_parse(const struct der_file *f, const char *label,
    bool want_object, tc_error *err);

/* The role of that name, or -1. */
int tc_derive__role_of(const char *name, size_t len);

/* Does this mode require (and content-check) a source scope map? */
bool tc_derive__mode_needs_source_map(const char *mode);

/* Is path (a JSON string) an element of the result's consumed_artifacts
 * or produced_artifacts (exact string match)? */
bool tc_derive__result_declares(const tc_json *result, const tc_json *path);

/* Two resolved roots that are equal or nested. */
bool tc_derive__roots_overlap(const char *a, const char *b);

/* Run the content checks on the parsed analysis, ledger and (for
 * source-range and both) source map, in the reference's order. */
int tc_derive__check_contents(tc_json *const docs[DER_ROLE_COUNT], const char *mode,
    tc_error *err);

#endif
