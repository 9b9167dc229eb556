/*
 * utf8.c - the one UTF-8 codec: decoding under an explicit policy for
 * ill-formed bytes (strict, surrogateescape, WTF-8), validation with
 * Python's UnicodeDecodeError messages, encoding (WTF-8 for lone
 * surrogates), the lone-surrogate test and str.isprintable().
 */
#include <string.h>

#include "text_internal.h"

/*
 * The sequence at s[0..n) (n > 0) as Python's strict decoder (and the
 * WHATWG decoder) reads it: the shortest form, no surrogate, at most
 * U+10FFFF.  Returns its length with *why NULL when it is well-formed;
 * otherwise the length of its maximal ill-formed prefix (at least 1) and
 * *why in the words of Python's UnicodeDecodeError.
 */
static size_t
scan(const unsigned char *s, size_t n, const char **why)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, k;

	*why = NULL;
	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4) {
		*why = "invalid start byte";
		return 1;
	}
	if (c < 0xe0) {
		need = 1;
	} else if (c < 0xf0) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;		/* no overlong form */
		else if (c == 0xed)
			hi = 0x9f;		/* no surrogate */
	} else {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;		/* no overlong form */
		else if (c == 0xf4)
			hi = 0x8f;		/* nothing above U+10FFFF */
	}
	for (k = 1; k <= need; k++) {
		if (k >= n) {
			*why = "unexpected end of data";
			return k;
		}
		if (s[k] < lo || s[k] > hi) {
			*why = "invalid continuation byte";
			return k;
		}
		lo = 0x80;		/* the rule above is for the second byte */
		hi = 0xbf;
	}
	return need + 1;
}

/* The code point of a well-formed sequence of len bytes. */
static uint32_t
code_point(const unsigned char *s, size_t len)
{
	static const unsigned lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t v = s[0] & lead_mask[len];
	size_t i;

	for (i = 1; i < len; i++)
		v = (v << 6) | (s[i] & 0x3fu);
	return v;
}

/* ED A0..BF xx: a lone surrogate as WTF-8 writes it. */
static bool
is_encoded_surrogate(const unsigned char *s, size_t n)
{
	return n >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf &&
	    (s[2] & 0xc0) == 0x80;
}

size_t
tc_utf8_decode(const char *str, size_t n, uint32_t *cp,
    enum tc_utf8_policy policy)
{
	const unsigned char *s = (const unsigned char *)str;
	const char *why;
	size_t len = scan(s, n, &why);

	if (why == NULL) {
		*cp = code_point(s, len);
		return len;
	}
	switch (policy) {
	case TC_UTF8_STRICT:
		return 0;
	case TC_UTF8_REPLACE:
		*cp = 0xfffd;
		return len;
	case TC_UTF8_WTF8:
		if (is_encoded_surrogate(s, n)) {
			*cp = code_point(s, 3);
			return 3;
		}
		break;
	case TC_UTF8_ESCAPE:
		break;
	}
	*cp = 0xdc00u + s[0];
	return 1;
}

size_t
tc_utf8_length(const char *s, size_t n)
{
	size_t i = 0, count = 0;

	while (i < n) {
		uint32_t cp;

		i += tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_WTF8);
		count++;
	}
	return count;
}

size_t
tc_utf8_offset(const char *s, size_t n, size_t index)
{
	size_t i = 0;

	while (i < n && index-- > 0) {
		uint32_t cp;

		i += tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_WTF8);
	}
	return i;
}

static bool
utf8_error(tc_error *err, const unsigned char *base, size_t at, size_t nbad,
    const char *reason)
{
	if (nbad <= 1)
		tc_error_set(err, "'utf-8' codec can't decode byte 0x%02x in "
		    "position %zu: %s", base[at], at, reason);
	else
		tc_error_set(err, "'utf-8' codec can't decode bytes in "
		    "position %zu-%zu: %s", at, at + nbad - 1, reason);
	return false;
}

bool
tc_utf8_check(const char *str, size_t len, tc_error *err)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		const char *why;
		size_t k;

		/* Fast path: eight ASCII bytes at a time. */
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
			i += 8;
		}
		if (i >= len)
			break;
		k = scan(s + i, len - i, &why);
		if (why != NULL)
			return utf8_error(err, s, i, k, why);
		i += k;
	}
	return true;
}

bool
tc_utf8_valid(const char *s, size_t n)
{
	return tc_utf8_check(s, n, NULL);
}

size_t
tc_utf8_encode(char *dst, uint32_t cp)
{
	unsigned char *d = (unsigned char *)dst;

	if (cp < 0x80) {
		d[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (unsigned char)(0xc0 | (cp >> 6));
		d[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (unsigned char)(0xe0 | (cp >> 12));
		d[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (unsigned char)(0xf0 | (cp >> 18));
	d[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

bool
tc_utf8_has_surrogate(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i + 2 < n; i++)
		if (is_encoded_surrogate(p + i, n - i))
			return true;
	return false;
}

bool
tc_py_isprintable(uint32_t cp)
{
	size_t lo = 0, hi = tc_text__printable_len;

	if (cp < 0x80)
		return cp >= 0x20 && cp < 0x7f;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < tc_text__printable[mid][0])
			hi = mid;
		else if (cp > tc_text__printable[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}
