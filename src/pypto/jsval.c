/*
 * jsval.c - the slice of JavaScript value semantics the PyPTO state
 * machine reproduces: Number() coercion, number-to-string, template
 * string display of JSON values, String.prototype.trim() blankness and
 * Date.prototype.toISOString().  The reference state tool is TypeScript,
 * and its error messages interpolate values the JavaScript way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pypto_internal.h"

/* Trim JS whitespace (String.prototype.trim()): returns the start and
 * sets *len. */
static const char *
js_trim(const char *s, size_t *len)
{
	size_t a, b;

	tc_text_strip(s, strlen(s), tc_js_isspace, &a, &b);
	*len = b - a;
	return s + a;
}

bool
tc_js_is_blank(const char *s)
{
	size_t len;

	if (s == NULL)
		return true;
	(void)js_trim(s, &len);
	return len == 0;
}

static bool
all_digits(const char *s, size_t n, int base)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (d >= base)
			return false;
	}
	return true;
}

/* StrDecimalLiteral: [+-] (digits [. digits] | . digits) [e [+-] digits] */
static bool
decimal_literal(const char *s, size_t n)
{
	size_t i = 0, intd = 0, fracd = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, intd++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, fracd++;
	}
	if (intd + fracd == 0)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t ed = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, ed++;
		if (ed == 0)
			return false;
	}
	return i == n;
}

double
tc_js_number_of_string(const char *s)
{
	size_t n;
	const char *t = js_trim(s, &n);
	char *copy;
	double v;

	if (n == 0)
		return 0.0;
	if ((n == 8 && strncmp(t, "Infinity", 8) == 0) ||
	    (n == 9 && strncmp(t, "+Infinity", 9) == 0))
		return INFINITY;
	if (n == 9 && strncmp(t, "-Infinity", 9) == 0)
		return -INFINITY;
	if (n > 2 && t[0] == '0') {
		int base = 0;

		if (t[1] == 'x' || t[1] == 'X')
			base = 16;
		else if (t[1] == 'o' || t[1] == 'O')
			base = 8;
		else if (t[1] == 'b' || t[1] == 'B')
			base = 2;
		if (base != 0) {
			size_t i;

			if (!all_digits(t + 2, n - 2, base))
				return NAN;
			v = 0;
			for (i = 2; i < n; i++) {
				int c = (unsigned char)t[i];
				int d = c <= '9' ? c - '0' :
				    (c | 0x20) - 'a' + 10;

				v = v * base + d;
			}
			return v;
		}
	}
	if (!decimal_literal(t, n))
		return NAN;
	copy = tc_xstrndup(t, n);
	v = strtod(copy, NULL);
	free(copy);
	return v;
}

double
tc_js_number(const tc_json *v)
{
	double d;

	if (v == NULL)
		return NAN;
	switch (v->type) {
	case TC_JSON_NULL:
		return 0.0;
	case TC_JSON_BOOL:
		return v->u.b ? 1.0 : 0.0;
	case TC_JSON_INT:
		return strtod(v->u.int_text, NULL);
	case TC_JSON_FLOAT:
		return v->u.f;
	case TC_JSON_STRING:
		return tc_js_number_of_string(v->u.str.ptr);
	case TC_JSON_ARRAY: {
		tc_buf b = TC_BUF_INIT;

		tc_js_display(&b, v);
		d = tc_js_number_of_string(tc_buf_cstr(&b));
		tc_buf_free(&b);
		return d;
	}
	case TC_JSON_OBJECT:
		return NAN;
	}
	return NAN;
}

/* Shortest round-trip digits of a finite non-zero |x|: fills digits
 * (no dot) and returns n, the decimal exponent such that
 * x = 0.d1d2... * 10^n. */
static int
shortest_digits(double x, char *digits, size_t cap)
{
	char tmp[64];
	int prec, exp10;
	char *p, *e;
	size_t k = 0;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, x);
		if (strtod(tmp, NULL) == x)
			break;
	}
	/* tmp = "d.ddde[+-]XX" */
	e = strchr(tmp, 'e');
	exp10 = atoi(e + 1);
	for (p = tmp; p < e && k + 1 < cap; p++)
		if (*p >= '0' && *p <= '9')
			digits[k++] = *p;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	return exp10 + 1;
}

void
tc_js_format_number(tc_buf *out, double x)
{
	char digits[32];
	int n, k, i;

	if (isnan(x)) {
		tc_buf_puts(out, "NaN");
		return;
	}
	if (isinf(x)) {
		tc_buf_puts(out, x > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (x == 0) {
		tc_buf_puts(out, "0");
		return;
	}
	if (x < 0) {
		tc_buf_putc(out, '-');
		x = -x;
	}
	n = shortest_digits(x, digits, sizeof(digits));
	k = (int)strlen(digits);
	if (k <= n && n <= 21) {
		tc_buf_puts(out, digits);
		for (i = 0; i < n - k; i++)
			tc_buf_putc(out, '0');
	} else if (0 < n && n <= 21) {
		tc_buf_add(out, digits, (size_t)n);
		tc_buf_putc(out, '.');
		tc_buf_puts(out, digits + n);
	} else if (-6 < n && n <= 0) {
		tc_buf_puts(out, "0.");
		for (i = 0; i < -n; i++)
			tc_buf_putc(out, '0');
		tc_buf_puts(out, digits);
	} else {
		tc_buf_putc(out, digits[0]);
		if (k > 1) {
			tc_buf_putc(out, '.');
			tc_buf_puts(out, digits + 1);
		}
		tc_buf_printf(out, "e%c%d", n - 1 >= 0 ? '+' : '-',
		    abs(n - 1));
	}
}

void
tc_js_display(tc_buf *out, const tc_json *v)
{
	size_t i;

	if (v == NULL) {
		tc_buf_puts(out, "undefined");
		return;
	}
	switch (v->type) {
	case TC_JSON_NULL:
		tc_buf_puts(out, "null");
		break;
	case TC_JSON_BOOL:
		tc_buf_puts(out, v->u.b ? "true" : "false");
		break;
	case TC_JSON_INT:
	case TC_JSON_FLOAT:
		tc_js_format_number(out, tc_js_number(v));
		break;
	case TC_JSON_STRING:
		tc_buf_add(out, v->u.str.ptr, v->u.str.len);
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++) {
			const tc_json *item = v->u.arr.items[i];

			if (i > 0)
				tc_buf_putc(out, ',');
			if (item->type != TC_JSON_NULL)
				tc_js_display(out, item);
		}
		break;
	case TC_JSON_OBJECT:
		tc_buf_puts(out, "[object Object]");
		break;
	}
}

tc_json *
tc_js_number_json(double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) <= 9007199254740992.0)
		return tc_json_new_int((int64_t)x);
	return tc_json_new_float(x);
}

void
tc_js_iso_now(char out[32])
{
	struct timespec ts;
	struct tm tm;
	char big[128];
#ifdef TUNECTL_TEST_HOOKS
	/* A test hook: a fixed clock for reproducible state files. */
	const char *fixed = getenv("TUNECTL_PYPTO_NOW");

	if (fixed != NULL && *fixed != '\0' && strlen(fixed) < 32) {
		strcpy(out, fixed);
		return;
	}
#endif

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(big, sizeof(big), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000L));
	snprintf(out, 32, "%.31s", big);
}
