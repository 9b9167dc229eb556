/*
 * canon.h - the reference controller's two value rules for documents:
 * canonical strings (_require_string) and relative artifact paths
 * (_relative_artifact), with their exact messages.
 *
 * A canonical string is a JSON string that is non-empty after Python's
 * str.strip() and equal to its strip()ped form (Unicode whitespace as
 * str.isspace() defines it).  A relative artifact path is a canonical
 * string that does not start with "/" and has no ".." component.
 */
#ifndef TUNECTL_CANON_H
#define TUNECTL_CANON_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* Python str.isspace() of one code point. */
bool tc_py_isspace(unsigned long cp);

/* _requireable: a string with non-whitespace content (no canonical-form
 * requirement). */
bool tc_is_nonblank_string(const tc_json *v);

/* The canonical-string rule on a JSON value (NULL = absent = None). */
bool tc_is_canonical_string(const tc_json *v);
/* The same, failing with "<name> must be a non-empty canonical string". */
int tc_require_canonical(const tc_json *v, const char *name, tc_error *err);

/* The path rule on a C string of len bytes (no canonical check). */
bool tc_is_relative_artifact_text(const char *s, size_t len);
/* _relative_artifact: the canonical message first, then
 * "<name> must be a relative artifact path". */
int tc_require_relative_artifact(const tc_json *v, const char *name,
    tc_error *err);

#endif
