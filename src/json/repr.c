/*
 * repr.c - Python's repr() of JSON values, for messages: 'str' (quotes
 * and escapes chosen as CPython's unicode_repr does), True/False/None,
 * ints, float repr, [a, b] and {'k': v} with keys in sorted order.
 */
#include <stdio.h>
#include <string.h>

#include "json_internal.h"

void
tc_json_repr_string(tc_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	bool squote = memchr(s, '\'', len) != NULL;
	bool dquote = memchr(s, '"', len) != NULL;
	char quote = squote && !dquote ? '"' : '\'';

	tc_buf_putc(out, quote);
	while (p < end) {
		uint32_t cp;
		size_t n = tc_json__decode_cp(p, (size_t)(end - p), &cp);

		if (cp == (uint32_t)quote || cp == '\\') {
			tc_buf_putc(out, '\\');
			tc_buf_putc(out, (char)cp);
		} else if (cp == '\t') {
			tc_buf_add(out, "\\t", 2);
		} else if (cp == '\n') {
			tc_buf_add(out, "\\n", 2);
		} else if (cp == '\r') {
			tc_buf_add(out, "\\r", 2);
		} else if (cp < 0x20 || cp == 0x7f) {
			tc_buf_printf(out, "\\x%02x", (unsigned)cp);
		} else if (cp < 0x7f) {
			tc_buf_putc(out, (char)cp);
		} else if (tc_json__is_printable(cp)) {
			tc_buf_add(out, p, n);
		} else if (cp <= 0xff) {
			tc_buf_printf(out, "\\x%02x", (unsigned)cp);
		} else if (cp <= 0xffff) {
			tc_buf_printf(out, "\\u%04x", (unsigned)cp);
		} else {
			tc_buf_printf(out, "\\U%08x", (unsigned)cp);
		}
		p += n;
	}
	tc_buf_putc(out, quote);
}

void
tc_json_repr(tc_buf *out, const tc_json *v)
{
	char tmp[TC_JSON_DOUBLE_MAX];
	size_t i;

	if (v == NULL) {
		tc_buf_puts(out, "None");
		return;
	}
	switch (v->type) {
	case TC_JSON_NULL:
		tc_buf_puts(out, "None");
		break;
	case TC_JSON_BOOL:
		tc_buf_puts(out, v->u.b ? "True" : "False");
		break;
	case TC_JSON_INT:
		tc_buf_puts(out, v->u.int_text);
		break;
	case TC_JSON_FLOAT:
		tc_buf_add(out, tmp, tc_json__format_double(tmp, v->u.f, false));
		break;
	case TC_JSON_STRING:
		tc_json_repr_string(out, v->u.str.ptr, v->u.str.len);
		break;
	case TC_JSON_ARRAY:
		tc_buf_putc(out, '[');
		for (i = 0; i < v->u.arr.len; i++) {
			if (i > 0)
				tc_buf_add(out, ", ", 2);
			tc_json_repr(out, v->u.arr.items[i]);
		}
		tc_buf_putc(out, ']');
		break;
	case TC_JSON_OBJECT:
		tc_buf_putc(out, '{');
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];

			if (i > 0)
				tc_buf_add(out, ", ", 2);
			tc_json_repr_string(out, m->key, m->key_len);
			tc_buf_add(out, ": ", 2);
			tc_json_repr(out, m->value);
		}
		tc_buf_putc(out, '}');
		break;
	}
}

void
tc_json_str(tc_buf *out, const tc_json *v)
{
	if (v != NULL && v->type == TC_JSON_STRING)
		tc_buf_add(out, v->u.str.ptr, v->u.str.len);
	else
		tc_json_repr(out, v);
}
