/*
 * format.c - the report formatting helpers (docs/spec/reports.md
 * "Formatting helpers"): Python's '%.6f' and '%+.6f', str() of a JSON value,
 * the Markdown table cell escaping of _summary_cell, and json.dumps with its
 * default separators.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tunectl/report.h"

void
tc_report_fmt_fixed6(tc_buf *out, double v, int with_sign)
{
	/* Python prints every NaN as "nan" (glibc may print "-nan"). */
	if (isnan(v)) {
		tc_buf_puts(out, with_sign ? "+nan" : "nan");
		return;
	}
	/* glibc's %f is exact, as CPython's float formatting is. */
	tc_buf_printf(out, with_sign ? "%+.6f" : "%.6f", v);
}

/* s[0..len) into a table cell: '|' escaped, newlines as <br>; the runs
 * between them copied whole (the cells of every report go through here). */
static void
cell_escape(tc_buf *out, const char *s, size_t len)
{
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		if (s[i] != '|' && s[i] != '\n')
			continue;
		tc_buf_add(out, s + run, i - run);
		tc_buf_puts(out, s[i] == '|' ? "\\|" : "<br>");
		run = i + 1;
	}
	tc_buf_add(out, s + run, len - run);
}

void
tc_report_cell_str(tc_buf *out, const char *s)
{
	if (s == NULL || *s == '\0') {
		tc_buf_puts(out, "N/A");
		return;
	}
	cell_escape(out, s, strlen(s));
}

void
tc_report_cell(tc_buf *out, const tc_json *v)
{
	tc_buf text = TC_BUF_INIT;

	if (v == NULL || tc_json_is(v, TC_JSON_NULL) ||
	    (tc_json_is(v, TC_JSON_STRING) && v->u.str.len == 0)) {
		tc_buf_puts(out, "N/A");
		return;
	}
	tc_json_str(&text, v);
	/* by length: a string may hold NUL, which str() keeps */
	cell_escape(out, text.data, text.len);
	tc_buf_free(&text);
}

static int
json_inline(tc_buf *out, const tc_json *v, tc_error *err)
{
	size_t i;

	switch (v->type) {
	case TC_JSON_ARRAY:
		tc_buf_putc(out, '[');
		for (i = 0; i < v->u.arr.len; i++) {
			if (i > 0)
				tc_buf_puts(out, ", ");
			if (json_inline(out, v->u.arr.items[i], err) != 0)
				return -1;
		}
		tc_buf_putc(out, ']');
		return 0;
	case TC_JSON_OBJECT:
		tc_buf_putc(out, '{');
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];
			tc_json *key = tc_json_new_stringn(m->key, m->key_len);
			int rc;

			if (i > 0)
				tc_buf_puts(out, ", ");
			rc = tc_json_write(out, key, 0, err);
			tc_json_free(key);
			if (rc != 0)
				return -1;
			tc_buf_puts(out, ": ");
			if (json_inline(out, m->value, err) != 0)
				return -1;
		}
		tc_buf_putc(out, '}');
		return 0;
	default:
		return tc_json_write(out, v, 0, err);
	}
}

int
tc_report_json_inline(tc_buf *out, const tc_json *v, tc_error *err)
{
	size_t mark = out->len;

	if (json_inline(out, v, err) == 0)
		return 0;
	/* leave out as it was */
	out->len = mark;
	if (out->data != NULL)
		out->data[mark] = '\0';
	return -1;
}
