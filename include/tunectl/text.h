/*
 * text.h - Python's string rules, written once: UTF-8 decoding with an
 * explicit policy for invalid bytes, str.isspace() and str.strip(), the
 * reference's canonical string and relative artifact path (on bytes;
 * tunectl/canon.h applies them to JSON values), math.isclose(), repr()
 * of a str and format(x, ".Nf").
 *
 * Every module that needs "what is a character" or "strip like Python"
 * asks here, so the answer is the same everywhere.  Strings are byte
 * ranges (s, len) and may hold NUL bytes, as Python strings can.
 */
#ifndef TUNECTL_TEXT_H
#define TUNECTL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"

/*
 * What an ill-formed byte decodes to.  Python never holds one in a str:
 * text read with the strict codec has none (the read fails instead), and
 * text from the operating system (argv, file names) is decoded with
 * surrogateescape, which turns each undecodable byte b into U+DC00+b.
 */
enum tc_utf8_policy {
	/* Python's strict codec: no overlong forms, no surrogates, nothing
	 * above U+10FFFF.  An ill-formed sequence decodes to length 0. */
	TC_UTF8_STRICT,
	/* os.fsdecode(): the strict codec, and an ill-formed byte b reads
	 * as the one code point U+DC00+b (length 1).  An encoded surrogate
	 * is three ill-formed bytes. */
	TC_UTF8_ESCAPE,
	/* tc_json strings (WTF-8): like TC_UTF8_ESCAPE, but an encoded
	 * surrogate (ED A0..BF xx) is the lone surrogate it encodes. */
	TC_UTF8_WTF8,
	/* The WHATWG decoder (Node's readFileSync(path, "utf8")): each
	 * maximal ill-formed subpart reads as one U+FFFD. */
	TC_UTF8_REPLACE
};

/* Decode the code point at s[0..n) (n > 0) into *cp; returns the bytes
 * it takes (1..4: a sequence, an escaped byte or, under
 * TC_UTF8_REPLACE, a maximal ill-formed subpart), or 0 under
 * TC_UTF8_STRICT at an ill-formed sequence. */
size_t tc_utf8_decode(const char *s, size_t n, uint32_t *cp,
    enum tc_utf8_policy policy);

/* len(str): the code points of s[0..n) decoded under TC_UTF8_WTF8. */
size_t tc_utf8_length(const char *s, size_t n);

/* The byte offset of code point number index (from 0) of s[0..n), as
 * tc_utf8_length() counts them; n when the text is shorter. */
size_t tc_utf8_offset(const char *s, size_t n, size_t index);

/* bytes.decode("utf-8") succeeds: s[0..n) is strict UTF-8. */
bool tc_utf8_valid(const char *s, size_t n);
/* The same, failing with Python's message for the first ill-formed
 * sequence: "'utf-8' codec can't decode byte 0x80 in position 3: invalid
 * start byte" ("bytes in position 3-4" when several; the reasons
 * "invalid continuation byte" and "unexpected end of data"). */
bool tc_utf8_check(const char *s, size_t n, tc_error *err);

/* Encode cp (surrogates allowed, giving WTF-8) into dst; returns 1..4. */
size_t tc_utf8_encode(char *dst, uint32_t cp);

/* s[0..n) holds a lone surrogate encoded as WTF-8 (ED A0..BF xx): text
 * that str.encode("utf-8") refuses. */
bool tc_utf8_has_surrogate(const char *s, size_t n);

/* str.isprintable() of one code point (Unicode 14.0.0, Python 3.11). */
bool tc_py_isprintable(uint32_t cp);

/* Some code point of s[0..n) (decoded as WTF-8) lies in [lo, hi]: a
 * regular expression's character class such as [\u4e00-\u9fff]. */
bool tc_text_has_cp_in(const char *s, size_t n, uint32_t lo, uint32_t hi);

/* str.isspace() of one code point: what str.strip() removes. */
bool tc_py_isspace(uint32_t cp);

/* JavaScript's WhiteSpace and LineTerminator code points: what
 * String.prototype.trim() removes (the PyPTO state tool is TypeScript). */
bool tc_js_isspace(uint32_t cp);

/* Strip the code points is_space accepts from both ends of s[0..n)
 * decoded as WTF-8 (an ill-formed byte is never space): the kept bytes
 * are [*start, *end).  All-space text gives *start == *end == n. */
void tc_text_strip(const char *s, size_t n, bool (*is_space)(uint32_t),
    size_t *start, size_t *end);

/* str.strip(): tc_text_strip() with tc_py_isspace(). */
void tc_py_strip(const char *s, size_t n, size_t *start, size_t *end);

/* s.strip() of a C string, malloc'd; NULL when s is NULL or the result
 * is empty (Python's falsy ""). */
char *tc_py_strip_dup(const char *s);

/* s.strip() != "" (s NULL: not a string, false). */
bool tc_text_has_content(const char *s, size_t n);

/* The canonical string: s.strip() != "" and s == s.strip(). */
bool tc_text_is_canonical(const char *s, size_t n);

/* The path part of that rule alone: s does not start with "/" and has
 * no ".." component (PurePosixPath parts; a backslash is an ordinary
 * character).  Whitespace is not looked at. */
bool tc_text_is_relative_path(const char *s, size_t n);

/* The relative artifact path: a canonical string that is a relative
 * path as above. */
bool tc_text_is_relative_artifact(const char *s, size_t n);

/* The reference's checks with its messages: s NULL (not a string) or
 * not canonical: "<name> must be a non-empty canonical string"; then,
 * for the path, "<name> must be a relative artifact path". */
int tc_text_require_canonical(const char *s, size_t n, const char *name,
    tc_error *err);
int tc_text_require_relative_artifact(const char *s, size_t n,
    const char *name, tc_error *err);

/* math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol), as CPython computes
 * it (NaN is close to nothing, an infinity only to itself). */
bool tc_py_isclose(double a, double b, double rel, double abs_tol);

/* Append repr() of the str s[0..n) decoded under policy (TC_UTF8_WTF8
 * for JSON strings, TC_UTF8_ESCAPE for file names and arguments; the
 * others read as TC_UTF8_ESCAPE): quotes and escapes as CPython's
 * unicode_repr. */
void tc_py_repr_str(tc_buf *out, const char *s, size_t n,
    enum tc_utf8_policy policy);

/* Append format(x, ".<prec>f"): "nan", "inf", "-inf" spelled as Python
 * does (glibc would print "-nan"); otherwise exact, as glibc's %f is. */
void tc_py_fixed(tc_buf *out, double x, int prec);

#endif
