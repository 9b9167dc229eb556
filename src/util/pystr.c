/*
 * pystr.c - Python's str rules the reference applies to document fields:
 * str.isspace() and str.strip() (and JavaScript's trim() for the
 * TypeScript state tool), code points in a class, the canonical
 * string and the relative artifact path (with their messages),
 * math.isclose() and format(x, ".Nf").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "text_internal.h"

bool
tc_text_has_cp_in(const char *s, size_t n, uint32_t lo, uint32_t hi)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp;

		i += tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_WTF8);
		if (cp >= lo && cp <= hi)
			return true;
	}
	return false;
}

bool
tc_py_isspace(uint32_t c)
{
	if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20))
		return true;
	switch (c) {
	case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029:
	case 0x202f: case 0x205f: case 0x3000:
		return true;
	default:
		return c >= 0x2000 && c <= 0x200a;
	}
}

bool
tc_js_isspace(uint32_t c)
{
	if ((c >= 0x09 && c <= 0x0d) || c == 0x20)
		return true;
	switch (c) {
	case 0xa0: case 0x1680: case 0x2028: case 0x2029: case 0x202f:
	case 0x205f: case 0x3000: case 0xfeff:
		return true;
	default:
		return c >= 0x2000 && c <= 0x200a;
	}
}

void
tc_text_strip(const char *s, size_t n, bool (*is_space)(uint32_t),
    size_t *start, size_t *end)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, first = n, last = n;

	/* ASCII ends are code points of their own (never part of a longer
	 * sequence): when neither is a space, nothing is stripped */
	if (n > 0 && u[0] < 0x80 && u[n - 1] < 0x80 && !is_space(u[0]) &&
	    !is_space(u[n - 1])) {
		*start = 0;
		*end = n;
		return;
	}
	while (i < n) {
		uint32_t cp;
		size_t k = tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_WTF8);

		if (!is_space(cp)) {
			if (first == n)
				first = i;
			last = i + k;
		}
		i += k;
	}
	*start = first;
	*end = last;
}

void
tc_py_strip(const char *s, size_t n, size_t *start, size_t *end)
{
	tc_text_strip(s, n, tc_py_isspace, start, end);
}

char *
tc_py_strip_dup(const char *s)
{
	size_t a, b;

	if (s == NULL)
		return NULL;
	tc_py_strip(s, strlen(s), &a, &b);
	return a < b ? tc_xstrndup(s + a, b - a) : NULL;
}

bool
tc_text_has_content(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t a, b;

	if (s == NULL || n == 0)
		return false;
	/* an ASCII byte that is not a space is such a code point itself */
	if ((u[0] < 0x80 && !tc_py_isspace(u[0])) ||
	    (u[n - 1] < 0x80 && !tc_py_isspace(u[n - 1])))
		return true;
	tc_py_strip(s, n, &a, &b);
	return a < b;
}

/* Is the first code point of u[0..n) (n > 0) a space, as tc_py_strip()
 * decodes it? */
static bool
first_is_space(const unsigned char *u, size_t n)
{
	uint32_t cp;

	if (u[0] < 0x80)
		return tc_py_isspace(u[0]);
	(void)tc_utf8_decode((const char *)u, n, &cp, TC_UTF8_WTF8);
	return tc_py_isspace(cp);
}

/* Could the last code point of s[0..n) be a space?  A space that is not
 * ASCII is a well-formed 2- or 3-byte sequence, so the last code point
 * is one only when such a sequence ends the text (whether it is the last
 * code point depends on what comes before: the caller then strips). */
static bool
may_end_in_space(const char *s, size_t n)
{
	size_t k;

	for (k = 2; k <= 3 && k <= n; k++) {
		uint32_t cp;

		if (tc_utf8_decode(s + n - k, k, &cp, TC_UTF8_WTF8) == k &&
		    tc_py_isspace(cp))
			return true;
	}
	return false;
}

bool
tc_text_is_canonical(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t a, b;

	if (s == NULL || n == 0)
		return false;
	/* An ASCII byte is a code point of its own (never part of a longer
	 * sequence, well-formed or not): when both ends are ASCII they are
	 * the first and last code points, and only they decide. */
	if (u[0] < 0x80 && u[n - 1] < 0x80)
		return !tc_py_isspace(u[0]) && !tc_py_isspace(u[n - 1]);
	/* Otherwise the first code point is the one decoded at 0, and the
	 * last, when it is a space, is one of the 2- or 3-byte sequences
	 * that end the text: with neither end a space, the text (Chinese
	 * prose, mostly) is not walked.  An end that may be a space takes
	 * the full strip, which finds where the last code point starts. */
	if (first_is_space(u, n))
		return false;
	if (u[n - 1] < 0x80)
		return !tc_py_isspace(u[n - 1]);
	if (!may_end_in_space(s, n))
		return true;
	tc_py_strip(s, n, &a, &b);
	return a == 0 && b == n;
}

/* A ".." component of a POSIX path (PurePosixPath(...).parts). */
static bool
has_dotdot(const char *s, size_t n)
{
	size_t i = 0;

	while (i <= n) {
		size_t j = i;

		while (j < n && s[j] != '/')
			j++;
		if (j - i == 2 && s[i] == '.' && s[i + 1] == '.')
			return true;
		i = j + 1;
	}
	return false;
}

bool
tc_text_is_relative_path(const char *s, size_t n)
{
	return s != NULL && (n == 0 || s[0] != '/') && !has_dotdot(s, n);
}

bool
tc_text_is_relative_artifact(const char *s, size_t n)
{
	return tc_text_is_canonical(s, n) && tc_text_is_relative_path(s, n);
}

int
tc_text_require_canonical(const char *s, size_t n, const char *name,
    tc_error *err)
{
	if (tc_text_is_canonical(s, n))
		return 0;
	tc_error_set(err, "%s must be a non-empty canonical string", name);
	return -1;
}

int
tc_text_require_relative_artifact(const char *s, size_t n, const char *name,
    tc_error *err)
{
	if (tc_text_require_canonical(s, n, name, err) != 0)
		return -1;
	if (tc_text_is_relative_artifact(s, n))
		return 0;
	tc_error_set(err, "%s must be a relative artifact path", name);
	return -1;
}

bool
tc_py_isclose(double a, double b, double rel, double abs_tol)
{
	double diff;

	/* CPython's math_isclose_impl, step for step: a NaN fails every
	 * comparison below. */
	if (a == b)
		return true;
	if (isinf(a) || isinf(b))
		return false;
	diff = fabs(b - a);
	return diff <= fabs(rel * b) || diff <= fabs(rel * a) ||
	    diff <= abs_tol;
}

void
tc_py_fixed(tc_buf *out, double x, int prec)
{
	if (isnan(x))
		tc_buf_puts(out, "nan");
	else if (isinf(x))
		tc_buf_puts(out, x > 0 ? "inf" : "-inf");
	else
		tc_buf_printf(out, "%.*f", prec, x);
}
