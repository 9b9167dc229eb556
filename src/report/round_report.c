/*
 * round_report.c - the round report renderer (render_round_report.py,
 * docs/spec/reports.md "Round report"): loading round-report JSON, the cell
 * helpers (esc, portable, histogram, percent, scope/example text, op
 * sequences), the SK row order and the Markdown layout.
 *
 * Python evaluates these helpers on whatever the document holds; where it
 * would raise (a truthy non-object effective_fusion, a string child_count,
 * ...) the same exception is reported as "<Type>: <message>".
 */
#include <gmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/path.h"
#include "tunectl/report.h"
#include "tunectl/round_report.h"

struct rr {
	tc_error *err;
	bool failed;
};

static bool
rr_fail(struct rr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
rr_fail(struct rr *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		tc_error_vset(r->err, fmt, ap);
		va_end(ap);
		r->failed = true;
	}
	return false;
}

static const char *
type_name(const tc_json *v)
{
	return v == NULL ? "NoneType" : tc_json_type_name(v->type);
}

/* `a or b` */
static const tc_json *
or_else(const tc_json *a, const tc_json *b)
{
	return tc_json_truthy(a) ? a : b;
}

/* row.get(key): AttributeError unless row is a dict. */
static bool
row_get(struct rr *r, const tc_json *row, const char *key,
    const tc_json **out)
{
	if (!tc_json_is(row, TC_JSON_OBJECT))
		return rr_fail(r, "AttributeError: '%s' object has no attribute "
		    "'get'", type_name(row));
	*out = tc_json_get(row, key);
	return true;
}

/* Python iteration of a JSON value, as a new array (keys of a dict,
 * characters of a str). */
static tc_json *
py_iter(struct rr *r, const tc_json *v)
{
	tc_json *out;
	size_t i;

	if (tc_json_is(v, TC_JSON_ARRAY))
		return tc_json_clone(v);
	if (tc_json_is(v, TC_JSON_OBJECT)) {
		out = tc_json_new_array();
		for (i = 0; i < v->u.obj.len; i++)
			tc_json_array_push(out, tc_json_new_stringn(
			    v->u.obj.members[i].key, v->u.obj.members[i].key_len));
		return out;
	}
	if (tc_json_is(v, TC_JSON_STRING)) {
		const char *s = v->u.str.ptr;

		out = tc_json_new_array();
		for (i = 0; i < v->u.str.len;) {
			uint32_t cp;
			size_t k = tc_utf8_decode(s + i, v->u.str.len - i, &cp,
			    TC_UTF8_WTF8);

			tc_json_array_push(out, tc_json_new_stringn(s + i, k));
			i += k;
		}
		return out;
	}
	rr_fail(r, "TypeError: '%s' object is not iterable", type_name(v));
	return NULL;
}

/* value[:n] */
static tc_json *
py_slice(struct rr *r, const tc_json *v, long n)
{
	tc_json *all, *out;
	size_t i;

	if (tc_json_is(v, TC_JSON_OBJECT)) {
		rr_fail(r, "TypeError: unhashable type: 'slice'");
		return NULL;
	}
	if (!tc_json_is(v, TC_JSON_ARRAY) && !tc_json_is(v, TC_JSON_STRING)) {
		rr_fail(r, "TypeError: '%s' object is not subscriptable",
		    type_name(v));
		return NULL;
	}
	all = py_iter(r, v);
	out = tc_json_new_array();
	for (i = 0; i < all->u.arr.len && (long)i < n; i++)
		tc_json_array_push(out, tc_json_clone(all->u.arr.items[i]));
	tc_json_free(all);
	return out;
}

/* ---- cells -------------------------------------------------------------- */

static void
pystr(tc_buf *b, const tc_json *v)
{
	tc_json_str(b, v);
}

static void
replace_cell(tc_buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '|')
			tc_buf_puts(out, "\\|");
		else if (s[i] == '\n')
			tc_buf_puts(out, "<br>");
		else
			tc_buf_putc(out, s[i]);
	}
}

/* esc(v) */
static bool
esc(struct rr *r, tc_buf *out, const tc_json *v)
{
	tc_buf text = TC_BUF_INIT;
	size_t i;

	if (v == NULL || v->type == TC_JSON_NULL ||
	    (v->type == TC_JSON_STRING && v->u.str.len == 0)) {
		tc_buf_putc(out, '-');
		return true;
	}
	if (v->type == TC_JSON_BOOL) {
		tc_buf_puts(out, v->u.b ? "是" : "否");
		return true;
	}
	if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++) {
			if (i > 0)
				tc_buf_puts(&text, ", ");
			if (!esc(r, &text, v->u.arr.items[i])) {
				tc_buf_free(&text);
				return false;
			}
		}
		if (text.len == 0)
			tc_buf_putc(&text, '-');
	} else if (v->type == TC_JSON_OBJECT) {
		tc_error e = TC_ERROR_INIT;

		if (tc_report_json_inline(&text, v, &e) != 0) {
			rr_fail(r, "UnicodeEncodeError: %s", tc_error_msg(&e));
			tc_error_clear(&e);
			tc_buf_free(&text);
			return false;
		}
	} else {
		pystr(&text, v);
	}
	replace_cell(out, tc_buf_cstr(&text), text.len);
	tc_buf_free(&text);
	return true;
}

static void
esc_str(tc_buf *out, const char *s, size_t n)
{
	if (n == 0)
		tc_buf_putc(out, '-');
	else
		replace_cell(out, s, n);
}

static void
esc_buf(tc_buf *out, const tc_buf *b)
{
	esc_str(out, tc_buf_cstr(b), b->len);
}

/* portable(p) as text; *none when p is None (esc gives "-"). */
static void
portable(tc_buf *out, const tc_json *p)
{
	tc_buf s = TC_BUF_INIT;
	char *norm;

	if (p == NULL || p->type == TC_JSON_NULL) {
		tc_buf_putc(out, '-');
		return;
	}
	pystr(&s, p);
	norm = tc_path_normalize(tc_buf_cstr(&s));
	if (norm[0] == '/') {
		const char *base = strrchr(norm, '/') + 1;

		esc_str(out, base, strlen(base));
	} else {
		esc_str(out, norm, strlen(norm));
	}
	free(norm);
	tc_buf_free(&s);
}

/* Python int(str) for histogram keys: whitespace, sign, digits with
 * single underscores between them. */
static bool
parse_py_int(const char *s, size_t n, mpz_t z)
{
	tc_buf digits = TC_BUF_INIT;
	size_t a = 0, b = n, i;
	bool ok = true, prev_digit = false;

	while (a < b && (s[a] == ' ' || (s[a] >= '\t' && s[a] <= '\r')))
		a++;
	while (b > a && (s[b - 1] == ' ' || (s[b - 1] >= '\t' && s[b - 1] <= '\r')))
		b--;
	if (a < b && (s[a] == '+' || s[a] == '-')) {
		if (s[a] == '-')
			tc_buf_putc(&digits, '-');
		a++;
	}
	if (a == b)
		ok = false;
	for (i = a; i < b && ok; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			tc_buf_putc(&digits, s[i]);
			prev_digit = true;
		} else if (s[i] == '_' && prev_digit && i + 1 < b &&
		    s[i + 1] >= '0' && s[i + 1] <= '9') {
			prev_digit = false;
		} else {
			ok = false;
		}
	}
	if (ok)
		ok = mpz_set_str(z, tc_buf_cstr(&digits), 10) == 0;
	tc_buf_free(&digits);
	return ok;
}

struct hist_item {
	const tc_json_member *m;
	bool numeric;
	mpz_t value;
	size_t order;
};

static int
hist_cmp(const void *pa, const void *pb)
{
	const struct hist_item *a = pa, *b = pb;
	int c;

	if (a->numeric != b->numeric)
		return a->numeric ? -1 : 1;
	if (a->numeric)
		c = mpz_cmp(a->value, b->value);
	else {
		size_t n = a->m->key_len < b->m->key_len ? a->m->key_len :
		    b->m->key_len;

		c = memcmp(a->m->key, b->m->key, n);
		if (c == 0)
			c = a->m->key_len < b->m->key_len ? -1 :
			    a->m->key_len > b->m->key_len;
	}
	if (c == 0)
		c = a->order < b->order ? -1 : a->order > b->order;
	return c;
}

/* histogram(h) */
static bool
histogram(struct rr *r, tc_buf *out, const tc_json *h)
{
	struct hist_item *items;
	size_t i, n;

	if (!tc_json_truthy(h)) {
		tc_buf_putc(out, '-');
		return true;
	}
	if (!tc_json_is(h, TC_JSON_OBJECT))
		return rr_fail(r, "AttributeError: '%s' object has no attribute "
		    "'items'", type_name(h));
	n = h->u.obj.len;
	items = tc_xcalloc(n, sizeof(*items));
	for (i = 0; i < n; i++) {
		items[i].m = &h->u.obj.members[i];
		items[i].order = i;
		mpz_init(items[i].value);
		items[i].numeric = parse_py_int(items[i].m->key,
		    items[i].m->key_len, items[i].value);
	}
	qsort(items, n, sizeof(*items), hist_cmp);
	for (i = 0; i < n; i++) {
		if (i > 0)
			tc_buf_puts(out, ", ");
		tc_buf_add(out, items[i].m->key, items[i].m->key_len);
		tc_buf_putc(out, ':');
		pystr(out, items[i].m->value);
		mpz_clear(items[i].value);
	}
	free(items);
	return true;
}

/* Python float(str) (the decimal forms; no hex). */
static bool
parse_py_float(const char *s, size_t n, double *out)
{
	tc_buf t = TC_BUF_INIT;
	size_t a = 0, b = n, i;
	char *end;
	bool ok = true;

	while (a < b && (s[a] == ' ' || (s[a] >= '\t' && s[a] <= '\r')))
		a++;
	while (b > a && (s[b - 1] == ' ' || (s[b - 1] >= '\t' && s[b - 1] <= '\r')))
		b--;
	for (i = a; i < b; i++) {
		char c = s[i];

		if (c == '_' && i > a && i + 1 < b && s[i - 1] >= '0' &&
		    s[i - 1] <= '9' && s[i + 1] >= '0' && s[i + 1] <= '9')
			continue;
		if (c == 'x' || c == 'X' || c == '(' || c == '_' || c == '\0')
			ok = false;
		tc_buf_putc(&t, c);
	}
	if (ok && t.len > 0) {
		*out = strtod(t.data, &end);
		ok = *end == '\0';
	} else {
		ok = false;
	}
	tc_buf_free(&t);
	return ok;
}

/* percent(v) as text */
static bool
percent(struct rr *r, tc_buf *out, const tc_json *v)
{
	double d;

	if (v == NULL || v->type == TC_JSON_NULL) {
		tc_buf_putc(out, '-');
		return true;
	}
	switch (v->type) {
	case TC_JSON_BOOL:
		d = v->u.b ? 1.0 : 0.0;
		break;
	case TC_JSON_INT:
	case TC_JSON_FLOAT:
		if (!tc_json_number(v, &d))
			return rr_fail(r, "OverflowError: int too large to "
			    "convert to float");
		break;
	case TC_JSON_STRING:
		if (!parse_py_float(v->u.str.ptr, v->u.str.len, &d)) {
			tc_buf q = TC_BUF_INIT;

			tc_json_repr(&q, v);
			rr_fail(r, "ValueError: could not convert string to "
			    "float: %s", tc_buf_cstr(&q));
			tc_buf_free(&q);
			return false;
		}
		break;
	default:
		return rr_fail(r, "TypeError: float() argument must be a string "
		    "or a real number, not '%s'", type_name(v));
	}
	if (isnan(d))
		tc_buf_puts(out, "nan%");
	else
		tc_buf_printf(out, "%.2f%%", d);
	return true;
}

/* scope_text(row) */
static bool
scope_text(struct rr *r, tc_buf *out, const tc_json *row)
{
	const tc_json *scope, *bnd, *start = NULL, *end = NULL, *id;
	size_t mark = out->len;
	bool any = false;

	if (!row_get(r, row, "source_scope", &scope) ||
	    !row_get(r, row, "boundary", &bnd))
		return false;
	if (tc_json_truthy(scope)) {
		pystr(out, scope);
		any = true;
	}
	if (tc_json_truthy(bnd)) {
		if (!row_get(r, bnd, "start_op", &start) ||
		    !row_get(r, bnd, "end_op", &end))
			return false;
	}
	if (tc_json_truthy(start) || tc_json_truthy(end)) {
		if (any)
			tc_buf_puts(out, "; ");
		if (tc_json_truthy(start))
			pystr(out, start);
		else
			tc_buf_putc(out, '?');
		tc_buf_puts(out, " -> ");
		if (tc_json_truthy(end))
			pystr(out, end);
		else
			tc_buf_putc(out, '?');
		any = true;
	}
	(void)row_get(r, row, "scope_id", &id);
	if (id != NULL && id->type != TC_JSON_NULL) {
		if (any)
			tc_buf_puts(out, "; ");
		tc_buf_puts(out, "scope_id=");
		pystr(out, id);
		any = true;
	}
	if (!any && out->len == mark)
		tc_buf_putc(out, '-');
	return true;
}

/* example_text(row) */
static bool
example_text(struct rr *r, tc_buf *out, const tc_json *row)
{
	const tc_json *fn, *node, *stream, *names;
	bool any = false;

	if (!row_get(r, row, "example_function", &fn))
		return false;
	(void)row_get(r, row, "example_node_id", &node);
	(void)row_get(r, row, "example_stream_id", &stream);
	(void)row_get(r, row, "example_scope_names", &names);
	if (tc_json_truthy(fn)) {
		pystr(out, fn);
		any = true;
	}
	if (node != NULL && node->type != TC_JSON_NULL) {
		tc_buf_puts(out, any ? "; node=" : "node=");
		pystr(out, node);
		any = true;
	}
	if (stream != NULL && stream->type != TC_JSON_NULL) {
		tc_buf_puts(out, any ? "; stream=" : "stream=");
		pystr(out, stream);
		any = true;
	}
	if (tc_json_truthy(names)) {
		tc_json *items = py_iter(r, names);
		size_t i;

		if (items == NULL)
			return false;
		tc_buf_puts(out, any ? "; scope=" : "scope=");
		for (i = 0; i < items->u.arr.len; i++) {
			if (i > 0)
				tc_buf_putc(out, ',');
			pystr(out, items->u.arr.items[i]);
		}
		tc_json_free(items);
		any = true;
	}
	if (!any)
		tc_buf_putc(out, '-');
	return true;
}

/* op_sequence(row, limit=12) */
static bool
op_sequence(struct rr *r, tc_buf *out, const tc_json *row)
{
	const tc_json *ops, *children, *seq;
	tc_json *items;
	size_t i, kept = 0, total = 0;

	if (!row_get(r, row, "op_sequence", &ops) ||
	    !row_get(r, row, "child_functions", &children))
		return false;
	seq = or_else(ops, children);
	if (!tc_json_truthy(seq)) {
		tc_buf_putc(out, '-');
		return true;
	}
	if ((items = py_iter(r, seq)) == NULL)
		return false;
	for (i = 0; i < items->u.arr.len; i++)
		if (tc_json_truthy(items->u.arr.items[i]))
			total++;
	for (i = 0; i < items->u.arr.len && kept < 12; i++) {
		if (!tc_json_truthy(items->u.arr.items[i]))
			continue;
		if (kept++ > 0)
			tc_buf_puts(out, " -> ");
		pystr(out, items->u.arr.items[i]);
	}
	if (total > 12)
		tc_buf_printf(out, " -> ... 共%zu个", total);
	tc_json_free(items);
	return true;
}

/* ---- SK row order -------------------------------------------------------- */

struct sk_row {
	const tc_json *row;
	bool not_effective;
	bool is_int;		/* child key: -(child_count or 0) */
	mpz_t ival;
	double fval;
	char *name;		/* str(function or "") */
	size_t name_len;
	size_t order;
};

static int
num_cmp(const struct sk_row *a, const struct sk_row *b)
{
	if (a->is_int && b->is_int)
		return mpz_cmp(a->ival, b->ival);
	if (a->is_int)
		return isnan(b->fval) ? 0 : mpz_cmp_d(a->ival, b->fval);
	if (b->is_int)
		return isnan(a->fval) ? 0 : -mpz_cmp_d(b->ival, a->fval);
	if (a->fval < b->fval)
		return -1;
	return a->fval > b->fval;
}

static int
sk_cmp(const void *pa, const void *pb)
{
	const struct sk_row *a = pa, *b = pb;
	size_t n;
	int c;

	if (a->not_effective != b->not_effective)
		return a->not_effective ? 1 : -1;
	if ((c = num_cmp(a, b)) != 0)
		return c < 0 ? -1 : 1;
	n = a->name_len < b->name_len ? a->name_len : b->name_len;
	c = memcmp(a->name, b->name, n);
	if (c == 0)
		c = a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
	if (c == 0)
		c = a->order < b->order ? -1 : a->order > b->order;
	return c;
}

static void
free_sk_rows(struct sk_row *sr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		mpz_clear(sr[i].ival);
		free(sr[i].name);
	}
	free(sr);
}

/* sorted(rows, key=...)[:top]; NULL + exception on a bad row. */
static struct sk_row *
sort_sk_rows(struct rr *r, const tc_json *rows, size_t *n_out)
{
	struct sk_row *sr;
	size_t i, n = rows->u.arr.len;

	sr = tc_xcalloc(n ? n : 1, sizeof(*sr));
	for (i = 0; i < n; i++) {
		const tc_json *row = rows->u.arr.items[i], *eff, *child, *fn;
		tc_buf name = TC_BUF_INIT;

		sr[i].row = row;
		sr[i].order = i;
		mpz_init(sr[i].ival);
		if (!row_get(r, row, "counts_as_effective_fusion", &eff))
			break;
		(void)row_get(r, row, "child_count", &child);
		(void)row_get(r, row, "function", &fn);
		sr[i].not_effective = !tc_json_truthy(eff);
		child = tc_json_truthy(child) ? child : NULL;
		if (child == NULL) {
			sr[i].is_int = true;
		} else if (child->type == TC_JSON_INT) {
			sr[i].is_int = true;
			mpz_set_str(sr[i].ival, child->u.int_text, 10);
			mpz_neg(sr[i].ival, sr[i].ival);
		} else if (child->type == TC_JSON_BOOL) {
			sr[i].is_int = true;
			mpz_set_si(sr[i].ival, child->u.b ? -1 : 0);
		} else if (child->type == TC_JSON_FLOAT) {
			sr[i].fval = -child->u.f;
		} else {
			rr_fail(r, "TypeError: bad operand type for unary -: '%s'",
			    type_name(child));
			break;
		}
		if (tc_json_truthy(fn))
			pystr(&name, fn);
		sr[i].name = tc_buf_detach(&name, &sr[i].name_len);
	}
	if (r->failed) {
		for (; i < n; i++)
			mpz_init(sr[i].ival);
		free_sk_rows(sr, n);
		return NULL;
	}
	qsort(sr, n, sizeof(*sr), sk_cmp);
	*n_out = n;
	return sr;
}

/* ---- layout --------------------------------------------------------------- */

/* "| label | esc(value) |" with `value` = mapping.get(key, 0). */
static bool
metric_row(struct rr *r, tc_buf *out, const char *label,
    const tc_json *mapping, const char *key)
{
	const tc_json *v;
	tc_json *zero = NULL;
	bool ok;

	if (!row_get(r, mapping, key, &v))
		return false;
	if (v == NULL)
		v = zero = tc_json_new_int(0);
	tc_buf_printf(out, "| %s | ", label);
	ok = esc(r, out, v);
	tc_buf_puts(out, " |\n");
	tc_json_free(zero);
	return ok;
}

static bool
text_row(tc_buf *out, const char *label, const tc_buf *value)
{
	tc_buf_printf(out, "| %s | ", label);
	esc_buf(out, value);
	tc_buf_puts(out, " |\n");
	return true;
}

static bool
render_overview(struct rr *r, tc_buf *out, const tc_json *rep)
{
	const tc_json *ef = or_else(tc_json_get(rep, "effective_fusion"), NULL);
	const tc_json *sce = or_else(tc_json_get(rep, "single_child_exclusion"),
	    NULL);
	const tc_json *min = tc_json_get(rep, "min_child_nodes");
	tc_json *empty = tc_json_new_object();
	tc_buf t = TC_BUF_INIT;
	bool ok;

	if (ef == NULL)
		ef = empty;
	if (sce == NULL)
		sce = empty;
	tc_buf_puts(out, "### 融合概览\n\n| 指标 | 值 |\n| --- | --- |\n");
	tc_buf_puts(&t, "child_count >= ");
	if (min == NULL)
		tc_buf_putc(&t, '5');
	else
		pystr(&t, min);
	text_row(out, "结构描述阈值", &t);
	ok = metric_row(r, out, "融合组总数", ef, "total_group_count") &&
	    metric_row(r, out, "有效融合组", ef, "effective_group_count") &&
	    metric_row(r, out, "浅融合组", ef, "shallow_group_count") &&
	    metric_row(r, out, "单子算子 SK 数量", sce,
	    "single_child_group_count");
	if (ok) {
		tc_buf_puts(out, "| 性能动作来源 | fresh profiling analysis |\n");
		ok = metric_row(r, out, "2..4 子算子浅融合数量", sce,
		    "shallow_non_single_child_group_count") &&
		    metric_row(r, out, "有效 child 总数", ef,
		    "effective_child_node_total") &&
		    metric_row(r, out, "浅融合 child 总数", ef,
		    "shallow_child_node_total");
	}
	if (ok) {
		tc_buf_reset(&t);
		ok = histogram(r, &t, tc_json_get(ef,
		    "effective_child_count_histogram"));
		if (ok)
			text_row(out, "有效 child 分布", &t);
	}
	if (ok) {
		tc_buf_reset(&t);
		ok = histogram(r, &t, tc_json_get(ef,
		    "shallow_child_count_histogram"));
		if (ok)
			text_row(out, "浅融合 child 分布", &t);
	}
	if (ok)
		ok = metric_row(r, out, "有效预计 launch 减少", ef,
		    "effective_launch_reduction") &&
		    metric_row(r, out, "全部融合预计 launch 减少", ef,
		    "all_fused_launch_reduction");
	tc_buf_free(&t);
	tc_json_free(empty);
	return ok;
}

static bool
render_single_child(struct rr *r, tc_buf *out, const tc_json *rep, long top)
{
	const tc_json *sce = or_else(tc_json_get(rep, "single_child_exclusion"),
	    NULL), *cands = NULL;
	tc_json *rows;
	size_t i;

	tc_buf_puts(out, "### Child count 结构描述\n\nchild_count、深度和预计 "
	    "launch 减少只描述 metadata。所有可靠 mapped SK 都进入 fresh "
	    "profiling；keep/prune/reprofile/block 只由 profiling 分析决定。\n");
	if (sce != NULL && !row_get(r, sce, "candidates", &cands))
		return false;
	cands = or_else(cands, NULL);
	if (cands == NULL) {
		tc_buf_puts(out, "未发现 child_count == 1 的 SK。\n");
		return true;
	}
	if ((rows = py_slice(r, cands, top)) == NULL)
		return false;
	if (rows->u.arr.len == 0) {
		tc_buf_puts(out, "未发现 child_count == 1 的 SK。\n");
		tc_json_free(rows);
		return true;
	}
	tc_buf_puts(out, "| SK function | Scope / 边界 | 单子算子 | Path | "
	    "性能状态 |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < rows->u.arr.len; i++) {
		const tc_json *row = rows->u.arr.items[i], *fn, *cf, *ops, *path;
		tc_buf t = TC_BUF_INIT;

		if (!row_get(r, row, "function", &fn))
			break;
		(void)row_get(r, row, "child_functions", &cf);
		(void)row_get(r, row, "op_sequence", &ops);
		(void)row_get(r, row, "path", &path);
		tc_buf_puts(out, "| ");
		if (!esc(r, out, fn) || !scope_text(r, &t, row)) {
			tc_buf_free(&t);
			break;
		}
		tc_buf_puts(out, " | ");
		esc_buf(out, &t);
		tc_buf_puts(out, " | ");
		if (!esc(r, out, or_else(cf, ops))) {
			tc_buf_free(&t);
			break;
		}
		tc_buf_puts(out, " | ");
		portable(out, path);
		tc_buf_puts(out, " | pending profiling analysis |\n");
		tc_buf_free(&t);
	}
	tc_json_free(rows);
	return !r->failed;
}

static bool
sk_cell(struct rr *r, tc_buf *out, const tc_json *row, const char *key)
{
	const tc_json *v;

	tc_buf_puts(out, "| ");
	if (!row_get(r, row, key, &v) || !esc(r, out, v))
		return false;
	tc_buf_putc(out, ' ');
	return true;
}

static bool
render_sk_rows(struct rr *r, tc_buf *out, const tc_json *rep, long top)
{
	tc_json *rows = py_iter(r, tc_json_get(rep, "per_sk_fusion_table"));
	struct sk_row *sr;
	size_t n = 0, i;

	tc_buf_printf(out, "### SK 融合范围明细（最多 %ld 条）\n\n", top);
	if (rows == NULL)
		return false;
	sr = sort_sk_rows(r, rows, &n);
	if (sr == NULL) {
		tc_json_free(rows);
		return false;
	}
	if (n == 0)
		tc_buf_puts(out, "未发现 SK 融合组。\n");
	else
		tc_buf_puts(out, "| SK function | Scope / 边界 | Layer | Segments "
		    "| Child | 有效 | Streams | Launch 前/后 | 预计减少 | "
		    "Control core | Child op sequence | Path |\n| --- | --- | --- "
		    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (i = 0; i < n && (long)i < top; i++) {
		const tc_json *row = sr[i].row, *wo, *wi;
		tc_buf t = TC_BUF_INIT;
		bool ok;

		ok = sk_cell(r, out, row, "function");
		if (ok) {
			tc_buf_puts(out, "| ");
			ok = scope_text(r, &t, row);
			esc_buf(out, &t);
			tc_buf_putc(out, ' ');
		}
		ok = ok && sk_cell(r, out, row, "layer") &&
		    sk_cell(r, out, row, "segments") &&
		    sk_cell(r, out, row, "child_count") &&
		    sk_cell(r, out, row, "counts_as_effective_fusion") &&
		    sk_cell(r, out, row, "stream_ids");
		if (ok) {
			tc_buf_reset(&t);
			(void)row_get(r, row, "launch_count_without_sk", &wo);
			(void)row_get(r, row, "launch_count_with_sk", &wi);
			if (wo == NULL)
				tc_buf_putc(&t, '-');
			else
				pystr(&t, wo);
			tc_buf_putc(&t, '/');
			if (wi == NULL)
				tc_buf_putc(&t, '-');
			else
				pystr(&t, wi);
			tc_buf_puts(out, "| ");
			esc_buf(out, &t);
			tc_buf_putc(out, ' ');
		}
		ok = ok && sk_cell(r, out, row, "estimated_launch_reduction") &&
		    sk_cell(r, out, row, "control_core_mode");
		if (ok) {
			tc_buf_reset(&t);
			ok = op_sequence(r, &t, row);
			tc_buf_puts(out, "| ");
			esc_buf(out, &t);
			tc_buf_putc(out, ' ');
		}
		ok = ok && sk_cell(r, out, row, "path");
		tc_buf_puts(out, "|\n");
		tc_buf_free(&t);
		if (!ok)
			break;
	}
	free_sk_rows(sr, n);
	tc_json_free(rows);
	return !r->failed;
}

static bool
render_non_fusion(struct rr *r, tc_buf *out, const tc_json *rep, long top)
{
	tc_json *rows;
	size_t i;

	tc_buf_printf(out, "### 未融合或断裂原因（最多 %ld 条）\n\n", top);
	rows = py_slice(r, tc_json_get(rep, "non_fusion_operator_table"), top);
	if (rows == NULL)
		return false;
	if (rows->u.arr.len == 0)
		tc_buf_puts(out, "未发现未融合或 scope 断裂记录。\n");
	else
		tc_buf_puts(out, "| Source | Reason | Count | Percent | Op type | "
		    "Kernel type | Example | Detail | Action |\n| --- | --- | --- "
		    "| --- | --- | --- | --- | --- | --- |\n");
	for (i = 0; i < rows->u.arr.len; i++) {
		const tc_json *row = rows->u.arr.items[i], *pct, *det, *brk;
		tc_buf t = TC_BUF_INIT;
		bool ok;

		ok = sk_cell(r, out, row, "source") &&
		    sk_cell(r, out, row, "reason") &&
		    sk_cell(r, out, row, "count");
		if (ok) {
			(void)row_get(r, row, "percent", &pct);
			ok = percent(r, &t, pct);
			tc_buf_puts(out, "| ");
			esc_buf(out, &t);
			tc_buf_putc(out, ' ');
		}
		ok = ok && sk_cell(r, out, row, "op_type") &&
		    sk_cell(r, out, row, "kernel_type");
		if (ok) {
			tc_buf_reset(&t);
			ok = example_text(r, &t, row);
			tc_buf_puts(out, "| ");
			esc_buf(out, &t);
			tc_buf_putc(out, ' ');
		}
		if (ok) {
			(void)row_get(r, row, "example_detail", &det);
			(void)row_get(r, row, "example_break_reason", &brk);
			tc_buf_puts(out, "| ");
			ok = esc(r, out, or_else(det, brk));
			tc_buf_putc(out, ' ');
		}
		ok = ok && sk_cell(r, out, row, "action");
		tc_buf_puts(out, "|\n");
		tc_buf_free(&t);
		if (!ok)
			break;
	}
	tc_json_free(rows);
	return !r->failed;
}

/* Path(source).parent.name */
static char *
parent_name(const char *source)
{
	char *norm = tc_path_normalize(source);
	char *dir = tc_path_dirname(norm);
	const char *base = tc_path_basename(dir);
	char *out = tc_xstrdup(strcmp(base, ".") == 0 ? "" : base);

	free(norm);
	free(dir);
	return out;
}

static bool
render_one(struct rr *r, tc_buf *out, const tc_json *rep, const char *source,
    const tc_round_report_opts *o)
{
	const tc_json *name = tc_json_get(rep, "round_name");
	tc_json *src = tc_json_new_string(source);

	tc_buf_puts(out, "\n## ");
	if (tc_json_truthy(name)) {
		pystr(out, name);
	} else {
		char *p = parent_name(source);

		tc_buf_puts(out, p[0] != '\0' ? p : "unknown");
		free(p);
	}
	tc_buf_puts(out, "\n\n- 来源: `");
	portable(out, src);
	tc_json_free(src);
	tc_buf_puts(out, "`\n\n");
	if (!render_overview(r, out, rep))
		return false;
	tc_buf_putc(out, '\n');
	if (!render_single_child(r, out, rep, o->top_sk))
		return false;
	tc_buf_putc(out, '\n');
	if (!render_sk_rows(r, out, rep, o->top_sk))
		return false;
	tc_buf_putc(out, '\n');
	return render_non_fusion(r, out, rep, o->top_non_fusion);
}

int
tc_round_report_render(const tc_json *const *reports,
    const char *const *sources, size_t n, const tc_round_report_opts *o,
    tc_buf *out, tc_error *err)
{
	struct rr r = { err, false };
	tc_buf doc = TC_BUF_INIT;
	size_t i;

	tc_buf_printf(&doc, "# %s\n\n> 该报告由 `round-report.child-ge-5.json` 或 "
	    "`sk-meta-summary.json` 渲染，仅解释 metadata。profiler interval、"
	    "clean performance 和 promotion decision 仍以 `round-evidence.json` "
	    "或最终 `REPORT.md` 为准。\n", o->title != NULL ? o->title :
	    TC_ROUND_REPORT_TITLE);
	for (i = 0; i < n; i++) {
		if (!render_one(&r, &doc, reports[i], sources[i], o)) {
			tc_buf_free(&doc);
			return -1;
		}
	}
	tc_buf_add(out, tc_buf_cstr(&doc), doc.len);
	tc_buf_free(&doc);
	return 0;
}

/* ---- loading -------------------------------------------------------------- */

tc_json *
tc_round_report_extract(const tc_json *doc, const char *source, tc_error *err)
{
	static const char *const required[] = {
		"effective_fusion", "per_sk_fusion_table",
		"non_fusion_operator_table", NULL
	};
	const tc_json *inner = tc_json_get(doc, "round_report");
	tc_buf missing = TC_BUF_INIT;
	size_t i;

	if (tc_json_is(doc, TC_JSON_OBJECT) && tc_json_is(inner, TC_JSON_OBJECT))
		doc = inner;
	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_error_set(err, "ValueError: %s: expected a JSON object", source);
		return NULL;
	}
	for (i = 0; required[i] != NULL; i++) {
		if (tc_json_get(doc, required[i]) != NULL)
			continue;
		if (missing.len > 0)
			tc_buf_puts(&missing, ", ");
		tc_buf_puts(&missing, required[i]);
	}
	if (missing.len > 0) {
		tc_error_set(err, "ValueError: %s: missing round-report fields: %s",
		    source, missing.data);
		tc_buf_free(&missing);
		return NULL;
	}
	return tc_json_clone(doc);
}

tc_json *
tc_round_report_load(const char *path, tc_error *err)
{
	tc_error perr = TC_ERROR_INIT;
	char *source = tc_path_normalize(path);
	tc_json *doc = tc_json_parse_file(path, &perr), *rep = NULL;

	if (doc == NULL) {
		const char *m = tc_error_msg(&perr);
		const char *type = "JSONDecodeError";

		if (strncmp(m, "[Errno 2] ", 10) == 0)
			type = "FileNotFoundError";
		else if (strncmp(m, "[Errno 21] ", 11) == 0)
			type = "IsADirectoryError";
		else if (strncmp(m, "[Errno 13] ", 11) == 0)
			type = "PermissionError";
		else if (strncmp(m, "[Errno ", 7) == 0)
			type = "OSError";
		else if (strncmp(m, "'utf-8' codec", 13) == 0)
			type = "UnicodeDecodeError";
		else if (strncmp(m, "maximum recursion", 17) == 0)
			type = "RecursionError";
		else if (strncmp(m, "Exceeds the limit", 17) == 0)
			type = "ValueError";
		tc_error_set(err, "%s: %s", type, m);
		tc_error_clear(&perr);
	} else {
		rep = tc_round_report_extract(doc, source, err);
		tc_json_free(doc);
	}
	free(source);
	return rep;
}
