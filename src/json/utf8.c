/*
 * utf8.c - code points in tc_json strings: WTF-8 decoding and encoding
 * (UTF-8 plus lone surrogates as 3-byte sequences), the surrogate test,
 * and Python's notion of a printable character (for repr()).
 */
#include "json_internal.h"

size_t
tc_json__decode_cp(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf && n >= 2 && (s[1] & 0xc0) == 0x80) {
		*cp = ((c & 0x1fu) << 6) | (s[1] & 0x3fu);
		return 2;
	}
	if (c >= 0xe0 && c <= 0xef && n >= 3 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80) {
		uint32_t v = ((c & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) |
		    (s[2] & 0x3fu);

		if (v >= 0x800) {
			*cp = v;
			return 3;
		}
	}
	if (c >= 0xf0 && c <= 0xf4 && n >= 4 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) {
		uint32_t v = ((c & 0x07u) << 18) | ((s[1] & 0x3fu) << 12) |
		    ((s[2] & 0x3fu) << 6) | (s[3] & 0x3fu);

		if (v >= 0x10000 && v <= 0x10ffff) {
			*cp = v;
			return 4;
		}
	}
	*cp = 0xdc00 + c;
	return 1;
}

size_t
tc_json__encode_cp(char *dst, uint32_t cp)
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

size_t
tc_json_decode_cp(const char *s, size_t n, uint32_t *cp)
{
	return tc_json__decode_cp((const unsigned char *)s, n, cp);
}

bool
tc_json_has_surrogate(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	/* U+D800..U+DFFF is ED A0..BF xx in WTF-8. */
	for (i = 0; i + 2 < len; i++)
		if (p[i] == 0xed && p[i + 1] >= 0xa0 && p[i + 1] <= 0xbf &&
		    (p[i + 2] & 0xc0) == 0x80)
			return true;
	return false;
}

bool
tc_json__is_printable(uint32_t cp)
{
	size_t lo = 0, hi = tc_json__printable_len;

	if (cp < 0x80)
		return cp >= 0x20 && cp < 0x7f;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < tc_json__printable[mid][0])
			hi = mid;
		else if (cp > tc_json__printable[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}
