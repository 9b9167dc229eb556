/*
 * repr.c - Python's repr() of JSON values, for messages: 'str' (through
 * tc_py_repr_str, tunectl/text.h), True/False/None, ints, float repr,
 * [a, b] and {'k': v} with keys in sorted order.
 */
#include "json_internal.h"

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
