/*
 * canon.h - the reference controller's two value rules for documents,
 * applied to JSON values: canonical strings (_require_string) and
 * relative artifact paths (_relative_artifact), with their exact
 * messages.  The rules themselves live in tunectl/text.h; a value that is
 * absent (NULL) or not a string never passes.
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
#include "tunectl/text.h"

/* The bytes of a string value, or NULL (with *len 0) for anything else. */
static inline const char *
tc_canon_bytes(const tc_json *v, size_t *len)
{
	if (!tc_json_is(v, TC_JSON_STRING)) {
		*len = 0;
		return NULL;
	}
	*len = v->u.str.len;
	return v->u.str.ptr;
}

/* _requireable: a string with non-whitespace content (no canonical-form
 * requirement); Python's isinstance(v, str) and v.strip(). */
static inline bool
tc_is_nonblank_string(const tc_json *v)
{
	size_t n;
	const char *s = tc_canon_bytes(v, &n);

	return tc_text_has_content(s, n);
}

/* The canonical-string rule on a JSON value (NULL = absent = None). */
static inline bool
tc_is_canonical_string(const tc_json *v)
{
	size_t n;
	const char *s = tc_canon_bytes(v, &n);

	return tc_text_is_canonical(s, n);
}

/* The same, failing with "<name> must be a non-empty canonical string". */
static inline int
tc_require_canonical(const tc_json *v, const char *name, tc_error *err)
{
	size_t n;
	const char *s = tc_canon_bytes(v, &n);

	return tc_text_require_canonical(s, n, name, err);
}

/* The relative-artifact-path rule on a JSON value. */
static inline bool
tc_is_relative_artifact(const tc_json *v)
{
	size_t n;
	const char *s = tc_canon_bytes(v, &n);

	return tc_text_is_relative_artifact(s, n);
}

/* _relative_artifact: the canonical message first, then
 * "<name> must be a relative artifact path". */
static inline int
tc_require_relative_artifact(const tc_json *v, const char *name,
    tc_error *err)
{
	size_t n;
	const char *s = tc_canon_bytes(v, &n);

	return tc_text_require_relative_artifact(s, n, name, err);
}

#endif
