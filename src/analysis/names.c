/*
 * names.c - the text and number rules the analyzer applies to profiler
 * cells and launch names: Python's float() on a cell, int() of it, the
 * operator of a launch name, the core family of a row, the parts of an
 * SK launch name, str.splitlines(), and a few JSON conveniences.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/text.h"

const char *const tc_analysis__family_names[AN_NFAMILY] = {
	"CUBE", "VECTOR", "MIX", "COMMUNICATION", "OTHER"
};

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits with single underscores between them, as float() reads a digit
 * run; appends the digits to out and returns how many bytes it took. */
static size_t
digit_run(const char *s, size_t n, char *out, size_t *len)
{
	size_t i = 0;

	while (i < n) {
		if (is_digit(s[i])) {
			out[(*len)++] = s[i++];
			continue;
		}
		if (s[i] == '_' && i > 0 && i + 1 < n && is_digit(s[i - 1]) &&
		    is_digit(s[i + 1])) {
			i++;
			continue;
		}
		break;
	}
	return i;
}

static bool
word_is(const char *s, size_t n, const char *word)
{
	size_t i;

	if (n != strlen(word))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

/*
 * float(s) for the common cell: [+-]digits[.digits] with at most 19
 * digits, worth at most 2**53, and at most 22 of them after the point.
 * Both the integer and the power of ten are exact doubles, so one
 * division is correctly rounded: what strtod gives (Clinger's fast
 * path).  False for anything else.
 */
static bool
fast_float(const char *s, size_t n, double *out)
{
	static const double p10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22
	};
	uint64_t m = 0;
	size_t i = 0, digits = 0, frac = 0;
	bool neg = false, dot = false;
	double v;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		if (is_digit(s[i])) {
			if (++digits > 19)
				return false;
			m = m * 10 + (uint64_t)(s[i] - '0');
			frac += dot;
		} else if (s[i] == '.' && !dot) {
			dot = true;
		} else {
			return false;
		}
	}
	if (digits == 0 || m > (UINT64_C(1) << 53) || frac > 22)
		return false;
	v = (double)m / p10[frac];
	*out = neg ? -v : v;
	return true;
}

/* float(s) of Python for stripped ASCII text; false where it raises.
 * The digits (underscores dropped) are copied for strtod, which would
 * otherwise also take hex and "infinity" spellings float() refuses. */
static bool
py_float(const char *s, size_t n, double *out)
{
	char stack[96], *b = n + 4 <= sizeof(stack) ? stack :
	    tc_xmalloc(n + 4);
	size_t i = 0, len = 0, k, intd, fracd = 0;
	bool neg = false, ok = false;

	if (fast_float(s, n, out)) {
		ok = true;
		goto done;
	}
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (word_is(s + i, n - i, "inf") || word_is(s + i, n - i, "infinity")) {
		*out = neg ? -INFINITY : INFINITY;
		ok = true;
		goto done;
	}
	if (word_is(s + i, n - i, "nan")) {
		*out = NAN;
		ok = true;
		goto done;
	}
	if (neg)
		b[len++] = '-';
	k = len;
	i += digit_run(s + i, n - i, b, &len);
	intd = len - k;
	if (i < n && s[i] == '.') {
		b[len++] = '.';
		i++;
		k = len;
		i += digit_run(s + i, n - i, b, &len);
		fracd = len - k;
	}
	if (intd + fracd == 0)
		goto done;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		b[len++] = 'e';
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			b[len++] = s[i++];
		k = len;
		i += digit_run(s + i, n - i, b, &len);
		if (len == k)
			goto done;
	}
	if (i != n)
		goto done;
	b[len] = '\0';
	*out = strtod(b, NULL);
	ok = true;
done:
	if (b != stack)
		free(b);
	return ok;
}

/*
 * The first code point (the zero) of each run of ten Unicode decimal
 * digits (category Nd; Unicode 14.0, Python 3.11's unicodedata), in
 * order: float() reads each as the ASCII digit of its value.
 */
static const uint32_t decimal_zeros[] = {
	0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6,
	0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090,
	0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0,
	0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50,
	0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0,
	0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0,
	0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
	0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0,
	0x1E950, 0x1FBF0
};

/* unicodedata.decimal(cp, -1) */
static int
py_decimal(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(decimal_zeros) / sizeof(decimal_zeros[0]); i++)
		if (cp >= decimal_zeros[i] && cp < decimal_zeros[i] + 10)
			return (int)(cp - decimal_zeros[i]);
	return -1;
}

/*
 * What float() does to non-ASCII text before it parses: whitespace reads
 * as a space, a decimal digit of any script as its ASCII digit, anything
 * else as a character no number holds ('?').  Returns the ASCII copy
 * (the caller frees it) and its length in *len.
 */
static char *
py_float_ascii(const char *s, size_t n, size_t *len)
{
	char *b = tc_xmalloc(n + 1);
	size_t i = 0, k = 0, step;
	uint32_t cp;
	int d;

	while (i < n) {
		step = tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_REPLACE);
		i += step;
		if (tc_py_isspace(cp))
			b[k++] = ' ';
		else if ((d = py_decimal(cp)) >= 0)
			b[k++] = (char)('0' + d);
		else
			b[k++] = cp < 0x80 ? (char)cp : '?';
	}
	b[k] = '\0';
	*len = k;
	return b;
}

static bool
has_non_ascii(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

an_num
tc_analysis__to_float(const char *s, size_t n)
{
	size_t a, e;
	double v;

	if (s == NULL)
		return AN_NONE;
	if (n > 0 && s[0] > 0x20 && s[0] < 0x7f && s[n - 1] > 0x20 &&
	    s[n - 1] < 0x7f) {
		a = 0;
		e = n;
	} else {
		tc_py_strip(s, n, &a, &e);
	}
	if (a == e || (e - a == 3 && memcmp(s + a, "N/A", 3) == 0))
		return AN_NONE;
	if (!py_float(s + a, e - a, &v)) {
		/* float() reads other scripts' digits (and whitespace) too */
		size_t len;
		char *ascii;
		bool ok;

		if (!has_non_ascii(s + a, e - a))
			return AN_NONE;
		ascii = py_float_ascii(s + a, e - a, &len);
		tc_py_strip(ascii, len, &a, &e);
		ok = a < e && py_float(ascii + a, e - a, &v);
		free(ascii);
		if (!ok)
			return AN_NONE;
	}
	if (!isfinite(v))
		return AN_NONE;
	return AN_NUM(v);
}

an_num
tc_analysis__to_int(const char *s, size_t n)
{
	an_num x = tc_analysis__to_float(s, n);

	if (x.ok)
		x.v = trunc(x.v) + 0.0;
	return x;
}

tc_json *
tc_analysis__json_int(double v)
{
	char text[400];

	if (fabs(v) < 9.2e18)
		return tc_json_new_int((int64_t)v);
	snprintf(text, sizeof(text), "%.0f", v);
	return tc_json_new_int_text(text);
}

tc_json *
tc_analysis__json_float(an_num x)
{
	return x.ok ? tc_json_new_float(x.v) : tc_json_new_null();
}

tc_json *
tc_analysis__json_intnum(an_num x)
{
	return x.ok ? tc_analysis__json_int(x.v) : tc_json_new_null();
}

char *
tc_analysis__utf8_replace(const char *s, size_t n, size_t *outlen)
{
	tc_buf b = TC_BUF_INIT;
	size_t i = 0, k;
	uint32_t cp;
	char enc[4];

	if (tc_utf8_valid(s, n)) {
		char *r = tc_xstrndup(s, n);

		if (outlen != NULL)
			*outlen = n;
		return r;
	}
	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			tc_buf_putc(&b, s[i++]);
			continue;
		}
		k = tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_REPLACE);
		tc_buf_add(&b, enc, tc_utf8_encode(enc, cp));
		i += k;
	}
	tc_buf_grow(&b, 0);
	if (outlen != NULL)
		*outlen = b.len;
	return tc_buf_detach(&b, NULL);
}

char *
tc_analysis__strip_dup(const char *s, size_t n)
{
	size_t a, e;

	tc_py_strip(s, n, &a, &e);
	return tc_xstrndup(s + a, e - a);
}

static bool
is_alnum(char c)
{
	return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

char *
tc_analysis__op_from_function(const char *name)
{
	const char *p = name, *us;
	static const char marker[] = "static_kernel_";
	size_t ml = sizeof(marker) - 1;

	if (name == NULL || name[0] == '\0')
		return NULL;
	while ((p = strstr(p, marker)) != NULL) {
		const char *q = p + ml, *r = q;

		if (p == name || p[-1] == '_') {
			while (is_alnum(*r))
				r++;
			if (r > q && *r == '_')
				return tc_xstrndup(q, (size_t)(r - q));
		}
		p++;
	}
	if (strncmp(name, "aclnn", 5) == 0) {
		const char *tail = name + 5;

		us = strchr(tail, '_');
		if ((us != NULL ? us : tail + strlen(tail)) == tail)
			return NULL;
		return us != NULL ? tc_xstrndup(tail, (size_t)(us - tail)) :
		    tc_xstrdup(tail);
	}
	us = strchr(name, '_');
	return us != NULL ? tc_xstrndup(name, (size_t)(us - name)) :
	    tc_xstrdup(name);
}

/* needle (lower case) occurs in hay, ASCII case ignored */
static bool
contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i, j;

	for (i = 0; hay[i] != '\0'; i++) {
		for (j = 0; j < n; j++) {
			char c = hay[i + j];

			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != needle[j])
				break;
		}
		if (j == n)
			return true;
	}
	return false;
}

/* A marker of the upper-cased "accelerator_core kernel_type" text: no
 * marker holds a space, so each part is searched on its own. */
static bool
upper_has(const char *a, const char *b, const char *lower_marker)
{
	return contains_nocase(a, lower_marker) ||
	    contains_nocase(b, lower_marker);
}

enum an_family
tc_analysis__core_family(const char *accelerator_core, const char *op_type,
    const char *name, const char *kernel_type)
{
	static const char *const comm[] = { "allreduce", "reducescatter",
	    "allgather", "alltoall", "broadcast", "send", "recv", "hccl" };
	const char *ac = accelerator_core ? accelerator_core : "";
	const char *kt = kernel_type ? kernel_type : "";
	size_t i;

	for (i = 0; i < sizeof(comm) / sizeof(comm[0]); i++)
		if (contains_nocase(op_type ? op_type : "", comm[i]) ||
		    contains_nocase(name ? name : "", comm[i]))
			return AN_COMMUNICATION;
	if (upper_has(ac, kt, "mix"))
		return AN_MIX;
	if (upper_has(ac, kt, "ai_vector") || upper_has(ac, kt, "aiv") ||
	    upper_has(ac, kt, "vector"))
		return AN_VECTOR;
	if (upper_has(ac, kt, "ai_core") || upper_has(ac, kt, "aic") ||
	    upper_has(ac, kt, "cube"))
		return AN_CUBE;
	return AN_OTHER;
}

bool
tc_analysis__parse_sk_name(const char *name, struct an_boundary *b)
{
	size_t n = strlen(name), i = 3, q;

	memset(b, 0, sizeof(*b));
	if (strncmp(name, "sk_", 3) != 0 || !is_digit(name[i]) ||
	    memchr(name, '\n', n) != NULL)
		return false;
	while (is_digit(name[i]))
		i++;
	if (name[i] != '_')
		return false;
	i++;
	/* the shortest scope whose rest splits as _start_X_end_Y, X and Y
	 * non-empty, X as long as possible */
	for (q = i + 1; q + 7 <= n; q++) {
		size_t after = q + 7, r;

		if (memcmp(name + q, "_start_", 7) != 0)
			continue;
		for (r = n; r-- > after + 1;) {
			if (r + 5 >= n || memcmp(name + r, "_end_", 5) != 0)
				continue;
			b->scope = tc_analysis__strip_dup(name + i, q - i);
			b->start_function = tc_xstrndup(name + after,
			    r - after);
			b->end_function = tc_xstrdup(name + r + 5);
			b->start_op = tc_analysis__op_from_function(b->start_function);
			b->end_op = tc_analysis__op_from_function(b->end_function);
			return true;
		}
	}
	return false;
}

void
tc_analysis__boundary_free(struct an_boundary *b)
{
	free(b->scope);
	free(b->start_function);
	free(b->end_function);
	free(b->start_op);
	free(b->end_op);
	memset(b, 0, sizeof(*b));
}

tc_json *
tc_analysis__boundary_json(const struct an_boundary *b)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_string(o, "scope", b->scope);
	tc_json_object_set_string(o, "start_function", b->start_function);
	tc_json_object_set_string(o, "end_function", b->end_function);
	tc_json_object_set_string_or_null(o, "start_op", b->start_op);
	tc_json_object_set_string_or_null(o, "end_op", b->end_op);
	return o;
}

an_num
tc_analysis__raw_sk_id(const char *name)
{
	size_t i = 3;

	if (name == NULL || strncmp(name, "sk_", 3) != 0 || !is_digit(name[i]))
		return AN_NONE;
	while (is_digit(name[i]))
		i++;
	if (name[i] != '_')
		return AN_NONE;
	return AN_NUM(strtod(name + 3, NULL));
}

tc_json *
tc_analysis__raw_sk_id_json(const char *name)
{
	size_t start = 3, end;
	char *digits;
	tc_json *v;

	if (!tc_analysis__raw_sk_id(name).ok)
		return tc_json_new_null();
	for (end = start; is_digit(name[end]); end++)
		;
	while (start + 1 < end && name[start] == '0')
		start++;	/* int("007") is 7 */
	digits = tc_xstrndup(name + start, end - start);
	v = tc_json_new_int_text(digits);
	free(digits);
	return v;
}

/* The length of the line break at s[0..n), 0 when none starts there. */
static size_t
line_break(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];

	if (c == '\r')
		return n > 1 && s[1] == '\n' ? 2 : 1;
	if (c == '\n' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d ||
	    c == 0x1e)
		return 1;
	if (c == 0xc2 && n > 1 && (unsigned char)s[1] == 0x85)
		return 2;
	if (c == 0xe2 && n > 2 && (unsigned char)s[1] == 0x80 &&
	    ((unsigned char)s[2] == 0xa8 || (unsigned char)s[2] == 0xa9))
		return 3;
	return 0;
}

void
tc_analysis__splitlines(const char *text, size_t n,
    void (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
	size_t start = 0, i = 0, k;

	while (i < n) {
		if ((k = line_break(text + i, n - i)) == 0) {
			i++;
			continue;
		}
		fn(ctx, text + start, i - start);
		i += k;
		start = i;
	}
	if (start < n)
		fn(ctx, text + start, n - start);
}

void
tc_analysis__skip_space(const char *s, size_t n, size_t *i)
{
	uint32_t cp;
	size_t k;

	while (*i < n) {
		k = tc_utf8_decode(s + *i, n - *i, &cp, TC_UTF8_WTF8);
		if (k == 0 || !tc_py_isspace(cp))
			return;
		*i += k;
	}
}

bool
tc_analysis__list_has(const tc_json *list, const char *s)
{
	size_t i;

	for (i = 0; list != NULL && i < list->u.arr.len; i++) {
		const char *t = tc_json_string(list->u.arr.items[i]);

		if (t != NULL && strcmp(t, s) == 0)
			return true;
	}
	return false;
}

void
tc_analysis__list_add_unique(tc_json *list, const char *s)
{
	if (!tc_analysis__list_has(list, s))
		tc_json_array_push(list, tc_json_new_string(s));
}

int
tc_analysis__ascii_digest(const tc_json *v, char hex[65], tc_error *err)
{
	return tc_json_digest_flags(v, TC_JSON_ASCII | TC_JSON_NO_NAN, hex,
	    err);
}

/* Append to path the location of the first non-finite float under v
 * ("$.key" for a member, "[i]" for an item; members in key order);
 * false when there is none. */
static bool
nonfinite_walk(const tc_json *v, tc_buf *path)
{
	size_t i, mark = path->len;

	if (v->type == TC_JSON_FLOAT)
		return !isfinite(v->u.f);
	if (v->type != TC_JSON_ARRAY && v->type != TC_JSON_OBJECT)
		return false;
	for (i = 0; i < (v->type == TC_JSON_ARRAY ? v->u.arr.len :
	    v->u.obj.len); i++) {
		path->len = mark;
		if (v->type == TC_JSON_ARRAY) {
			tc_buf_printf(path, "[%zu]", i);
			if (nonfinite_walk(v->u.arr.items[i], path))
				return true;
		} else {
			tc_buf_printf(path, ".%s", v->u.obj.members[i].key);
			if (nonfinite_walk(v->u.obj.members[i].value, path))
				return true;
		}
	}
	path->len = mark;
	return false;
}

/* Byte offset of code point n of s (UTF-8), or len. */
static size_t
code_point_offset(const char *s, size_t len, size_t n)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && n-- == 0)
			break;
	return i;
}

int
tc_analysis__nonstandard_error(const tc_json *v, tc_error *err)
{
	enum { MAX_LOCATION = 96, EDGE = (MAX_LOCATION - 3) / 2 };
	tc_buf path = TC_BUF_INIT;
	size_t points = 0, i;

	tc_buf_putc(&path, '$');
	if (!nonfinite_walk(v, &path)) {
		tc_buf_free(&path);
		return -1;
	}
	for (i = 0; i < path.len; i++)
		points += ((unsigned char)path.data[i] & 0xC0) != 0x80;
	if (points <= MAX_LOCATION)
		tc_error_set(err, "%.*s must contain only standard JSON values",
		    (int)path.len, path.data);
	else {
		size_t head = code_point_offset(path.data, path.len, EDGE);
		size_t tail = code_point_offset(path.data, path.len,
		    points - EDGE);

		tc_error_set(err, "%.*s...%.*s must contain only standard JSON "
		    "values", (int)head, path.data, (int)(path.len - tail),
		    path.data + tail);
	}
	tc_buf_free(&path);
	return 0;
}

/*
 * The SK name the structural loader splits (sk_<id>_<scope>_start_<start>
 * _end_<end>): an id of 1..19 digits within int64, the first "_start_"
 * after it, the last "_end_" after that, scope (stripped), start and end
 * not empty.  The parts are malloc'd where asked for.
 */
bool
tc_analysis__sk_name_parts(const char *name, int64_t *sk, char **scope,
    char **start, char **end)
{
	const char *id = name + 3, *us, *body, *st, *en = NULL, *p;
	size_t a, e;
	uint64_t v = 0;

	if (strncmp(name, "sk_", 3) != 0 || strlen(name) > 65536 ||
	    (us = strchr(id, '_')) == NULL || us == id || us - id > 19)
		return false;
	for (p = id; p < us; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > INT64_MAX)
		return false;
	body = us + 1;
	if ((st = strstr(body, "_start_")) == NULL)
		return false;
	for (p = strstr(name, "_end_"); p != NULL; p = strstr(p + 1, "_end_"))
		en = p;
	if (en == NULL || en <= st + 7 || en[5] == '\0')
		return false;
	tc_py_strip(body, (size_t)(st - body), &a, &e);
	if (a == e)
		return false;
	if (sk != NULL)
		*sk = (int64_t)v;
	if (scope != NULL)
		*scope = tc_xstrndup(body + a, e - a);
	if (start != NULL)
		*start = tc_xstrndup(st + 7, (size_t)(en - st - 7));
	if (end != NULL)
		*end = tc_xstrdup(en + 5);
	return true;
}

/*
 * float(text) of Python, as argparse's type=float applies it: whitespace
 * around, "_" between digits, the decimal digits of any script, "inf",
 * "infinity" and "nan" in any case; false where it raises ValueError.
 */
bool
tc_analysis_py_float(const char *text, double *out)
{
	size_t n = strlen(text), a, e, len;
	char *ascii = py_float_ascii(text, n, &len);
	bool ok;

	tc_py_strip(ascii, len, &a, &e);
	ok = a < e && py_float(ascii + a, e - a, out);
	free(ascii);
	return ok;
}

/*
 * int(text) of Python (base 10), as argparse's type=int applies it:
 * whitespace around, a sign, "_" between digits, leading zeros and the
 * decimal digits of any script; false where it raises ValueError or the
 * value does not fit a long.
 */
bool
tc_analysis_py_int(const char *text, long *out)
{
	size_t n = strlen(text), a, e, len, i;
	char *ascii = py_float_ascii(text, n, &len);
	bool ok = true, neg = false, digit = false;
	long v = 0;

	tc_py_strip(ascii, len, &a, &e);
	i = a;
	if (i < e && (ascii[i] == '+' || ascii[i] == '-'))
		neg = ascii[i++] == '-';
	for (; ok && i < e; i++) {
		int d = ascii[i] - '0';

		if (ascii[i] == '_' && digit && i + 1 < e &&
		    ascii[i + 1] >= '0' && ascii[i + 1] <= '9')
			continue;
		if (d < 0 || d > 9) {
			ok = false;
			break;
		}
		digit = true;
		if (v > (LONG_MAX - d) / 10)
			ok = false;
		else
			v = v * 10 + d;
	}
	free(ascii);
	if (!ok || !digit)
		return false;
	*out = neg ? -v : v;
	return true;
}
