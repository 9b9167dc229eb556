/*
 * canon.c - canonical strings and relative artifact paths: the two value
 * rules the reference controller applies to every document field.
 */
#include <string.h>

#include "tunectl/canon.h"

bool
tc_py_isspace(unsigned long cp)
{
	if ((cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20))
		return true;
	switch (cp) {
	case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029:
	case 0x202f: case 0x205f: case 0x3000:
		return true;
	default:
		return cp >= 0x2000 && cp <= 0x200a;
	}
}

/* The code point starting at s[i] (WTF-8, already validated by the
 * reader; malformed bytes read as themselves). */
static unsigned long
decode_at(const unsigned char *s, size_t len, size_t i)
{
	unsigned char c = s[i];

	if (c < 0x80)
		return c;
	if ((c & 0xe0) == 0xc0 && i + 1 < len)
		return ((unsigned long)(c & 0x1f) << 6) | (s[i + 1] & 0x3f);
	if ((c & 0xf0) == 0xe0 && i + 2 < len)
		return ((unsigned long)(c & 0x0f) << 12) |
		    ((unsigned long)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
	if ((c & 0xf8) == 0xf0 && i + 3 < len)
		return ((unsigned long)(c & 0x07) << 18) |
		    ((unsigned long)(s[i + 1] & 0x3f) << 12) |
		    ((unsigned long)(s[i + 2] & 0x3f) << 6) | (s[i + 3] & 0x3f);
	return c;
}

static unsigned long
first_cp(const unsigned char *s, size_t len)
{
	return decode_at(s, len, 0);
}

static unsigned long
last_cp(const unsigned char *s, size_t len)
{
	size_t i = len - 1;

	while (i > 0 && (s[i] & 0xc0) == 0x80 && len - i < 4)
		i--;
	return decode_at(s, len, i);
}

static bool
has_content(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
		    (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;

		if (!tc_py_isspace(decode_at(s, len, i)))
			return true;
		i += n;
	}
	return false;
}

bool
tc_is_nonblank_string(const tc_json *v)
{
	if (!tc_json_is(v, TC_JSON_STRING))
		return false;
	return has_content((const unsigned char *)v->u.str.ptr, v->u.str.len);
}

bool
tc_is_canonical_string(const tc_json *v)
{
	const unsigned char *s;
	size_t len;

	if (!tc_json_is(v, TC_JSON_STRING) || v->u.str.len == 0)
		return false;
	s = (const unsigned char *)v->u.str.ptr;
	len = v->u.str.len;
	/* value == value.strip() and value.strip() != "" reduce to: the
	 * first and the last code point are not whitespace. */
	return !tc_py_isspace(first_cp(s, len)) && !tc_py_isspace(last_cp(s, len));
}

int
tc_require_canonical(const tc_json *v, const char *name, tc_error *err)
{
	if (tc_is_canonical_string(v))
		return 0;
	tc_error_set(err, "%s must be a non-empty canonical string", name);
	return -1;
}

bool
tc_is_relative_artifact_text(const char *s, size_t len)
{
	size_t i = 0;

	if (len > 0 && s[0] == '/')
		return false;
	/* pathlib parts: "/"-separated, so ".." must be a whole component. */
	while (i < len) {
		size_t j = i;

		while (j < len && s[j] != '/')
			j++;
		if (j - i == 2 && s[i] == '.' && s[i + 1] == '.')
			return false;
		i = j + 1;
	}
	return true;
}

int
tc_require_relative_artifact(const tc_json *v, const char *name, tc_error *err)
{
	if (tc_require_canonical(v, name, err) != 0)
		return -1;
	if (tc_is_relative_artifact_text(v->u.str.ptr, v->u.str.len))
		return 0;
	tc_error_set(err, "%s must be a relative artifact path", name);
	return -1;
}
