/*
 * reader.c - the JSON reader: CPython's json.loads language and messages.
 *
 * The grammar, the order of the checks and every error position follow
 * CPython's C scanner (Modules/_json.c) and json.decoder: the input is
 * first decoded as strict UTF-8 (so a decoding error wins over any syntax
 * error), then a leading U+FEFF is refused, then one value is scanned and
 * only whitespace may follow.  Positions are counted in code points; line
 * and column as json.JSONDecodeError computes them.
 *
 * Work happens on the bytes: positions are only computed when an error is
 * reported.  What was read goes to a sink as a stream of events (a value,
 * begin/end of a container, a key): tree.c builds tc_json trees from them,
 * canonical.c writes the canonical form directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

struct reader {
	const unsigned char *base, *end;
	bool text_mode;		/* positions as after universal newlines */
	int depth;
	tc_error *err;
	const struct tc_json__sink *sink;
	void *ctx;
	tc_buf scratch;		/* unescaped string bytes */
};

/* ---- errors ------------------------------------------------------------- */

static void
position(const struct reader *r, const unsigned char *at, size_t *pos,
    size_t *line, size_t *col)
{
	const unsigned char *q;
	size_t cp = 0, ln = 1;
	long long last_nl = -1;

	for (q = r->base; q < at; q++) {
		unsigned c = *q;

		if ((c & 0xc0) == 0x80)
			continue;
		if (c == '\n') {
			/* In text mode "\r\n" was read as one "\n". */
			if (r->text_mode && q > r->base && q[-1] == '\r')
				continue;
			ln++;
			last_nl = (long long)cp;
		} else if (c == '\r' && r->text_mode) {
			ln++;
			last_nl = (long long)cp;
		}
		cp++;
	}
	*pos = cp;
	*line = ln;
	*col = (size_t)((long long)cp - last_nl);
}

static const unsigned char *
fail_at(struct reader *r, const char *reason, const unsigned char *at)
{
	size_t pos, line, col;

	position(r, at, &pos, &line, &col);
	tc_error_set(r->err, "%s: line %zu column %zu (char %zu)", reason, line,
	    col, pos);
	return NULL;
}

static const unsigned char *
expecting_value(struct reader *r, const unsigned char *at)
{
	return fail_at(r, "Expecting value", at);
}

/* ---- scanning helpers --------------------------------------------------- */

static inline const unsigned char *
skip_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static inline bool
is_digit(unsigned c)
{
	return c - '0' < 10;
}

static int
hexval(unsigned c)
{
	if (c - '0' < 10)
		return (int)(c - '0');
	c |= 0x20;
	if (c - 'a' < 6)
		return (int)(c - 'a' + 10);
	return -1;
}

/* The four hex digits at p, or -1. */
static long
hex4(const unsigned char *p)
{
	int a = hexval(p[0]), b = hexval(p[1]), c = hexval(p[2]),
	    d = hexval(p[3]);

	if ((a | b | c | d) < 0)
		return -1;
	return ((long)a << 12) | (b << 8) | (c << 4) | d;
}

/*
 * Scan the string whose opening quote is at q.  On success, *s and *len hold
 * the decoded WTF-8 bytes (pointing into the input when there was no
 * escape, *raw set, else into r->scratch) and the position after the
 * closing quote is returned; NULL on error.
 */
static const unsigned char *
scan_string(struct reader *r, const unsigned char *q, const char **s,
    size_t *len, bool *raw)
{
	const unsigned char *end = r->end, *p = q + 1, *run;
	tc_buf *sb = &r->scratch;

	p = tc_json__scan_plain(p, end, false, false);
	*raw = p < end && *p == '"';
	if (*raw) {
		*s = (const char *)(q + 1);
		*len = (size_t)(p - q - 1);
		return p + 1;
	}
	tc_buf_reset(sb);
	run = q + 1;
	for (;;) {
		const unsigned char *bs;
		unsigned c;

		if (p >= end) {
			fail_at(r, "Unterminated string starting at", q);
			return NULL;
		}
		c = *p;
		if (c == '"')
			break;
		if (c < 0x20) {
			fail_at(r, "Invalid control character at", p);
			return NULL;
		}
		/* a backslash */
		tc_buf_add(sb, run, (size_t)(p - run));
		bs = p++;
		if (p >= end) {
			fail_at(r, "Unterminated string starting at", q);
			return NULL;
		}
		c = *p++;
		if (c != 'u') {
			char ch;

			switch (c) {
			case '"': ch = '"'; break;
			case '\\': ch = '\\'; break;
			case '/': ch = '/'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			default:
				fail_at(r, "Invalid \\escape", bs);
				return NULL;
			}
			tc_buf_putc(sb, ch);
		} else {
			const unsigned char *u = p - 1;
			long cp;
			char enc[4];

			/* CPython wants one more character after the four
			 * digits (the string must still be closed). */
			if (end - p <= 4 || (cp = hex4(p)) < 0) {
				fail_at(r, "Invalid \\uXXXX escape", u);
				return NULL;
			}
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && end - p > 6 &&
			    p[0] == '\\' && p[1] == 'u') {
				long lo = hex4(p + 2);

				if (lo < 0) {
					fail_at(r, "Invalid \\uXXXX escape",
					    p + 1);
					return NULL;
				}
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					p += 6;
				}
			}
			tc_buf_add(sb, enc, tc_utf8_encode(enc,
			    (uint32_t)cp));
		}
		run = p;
		p = tc_json__scan_plain(p, end, false, false);
	}
	tc_buf_add(sb, run, (size_t)(p - run));
	*s = sb->data;
	*len = sb->len;
	return p + 1;
}

/* ---- values ------------------------------------------------------------- */

static const unsigned char *parse_value(struct reader *r,
    const unsigned char *p);

static const unsigned char *
parse_number(struct reader *r, const unsigned char *p)
{
	const unsigned char *start = p, *end = r->end;
	bool is_float = false;
	size_t ndigits;

	if (*p == '-') {
		if (++p >= end)
			return expecting_value(r, start);
	}
	if (*p >= '1' && *p <= '9') {
		p++;
		while (p < end && is_digit(*p))
			p++;
	} else if (*p == '0') {
		p++;
	} else {
		return expecting_value(r, start);
	}
	if (end - p > 1 && *p == '.' && is_digit(p[1])) {
		is_float = true;
		p += 2;
		while (p < end && is_digit(*p))
			p++;
	}
	if (end - p > 1 && (*p == 'e' || *p == 'E')) {
		const unsigned char *e_start = p++;

		if (end - p > 1 && (*p == '-' || *p == '+'))
			p++;
		while (p < end && is_digit(*p))
			p++;
		if (is_digit(p[-1]))
			is_float = true;
		else
			p = e_start;
	}
	if (is_float) {
		r->sink->numeral(r->ctx, (const char *)start,
		    (size_t)(p - start));
		return p;
	}
	ndigits = (size_t)(p - start) - (*start == '-');
	if (ndigits > TC_JSON_MAX_INT_DIGITS) {
		tc_error_set(r->err, "Exceeds the limit (%d digits) for integer "
		    "string conversion: value has %zu digits; use "
		    "sys.set_int_max_str_digits() to increase the limit",
		    TC_JSON_MAX_INT_DIGITS, ndigits);
		return NULL;
	}
	if (p - start == 2 && start[0] == '-' && start[1] == '0')
		start++;	/* int("-0") is 0 */
	r->sink->int_value(r->ctx, (const char *)start, (size_t)(p - start));
	return p;
}

static bool
enter(struct reader *r, const char *what)
{
	if (++r->depth > TC_JSON_MAX_DEPTH) {
		tc_error_set(r->err, "maximum recursion depth exceeded while "
		    "decoding a JSON %s from a unicode string", what);
		return false;
	}
	return true;
}

static const unsigned char *
parse_array(struct reader *r, const unsigned char *p)
{
	const unsigned char *end = r->end;

	if (!enter(r, "array"))
		return NULL;
	r->sink->begin_array(r->ctx);
	p = skip_ws(p + 1, end);
	if (p >= end || *p != ']') {
		for (;;) {
			if ((p = parse_value(r, p)) == NULL)
				return NULL;
			p = skip_ws(p, end);
			if (p < end && *p == ']')
				break;
			if (p >= end || *p != ',')
				return fail_at(r, "Expecting ',' delimiter", p);
			p = skip_ws(p + 1, end);
		}
	}
	r->depth--;
	r->sink->end_array(r->ctx);
	return p + 1;
}

static const unsigned char *
parse_object(struct reader *r, const unsigned char *p)
{
	const unsigned char *end = r->end;

	if (!enter(r, "object"))
		return NULL;
	r->sink->begin_object(r->ctx);
	p = skip_ws(p + 1, end);
	if (p >= end || *p != '}') {
		for (;;) {
			const char *ks;
			size_t klen;
			bool raw;

			if (p >= end || *p != '"')
				return fail_at(r, "Expecting property name "
				    "enclosed in double quotes", p);
			if ((p = scan_string(r, p, &ks, &klen, &raw)) == NULL)
				return NULL;
			r->sink->key(r->ctx, ks, klen, raw);
			p = skip_ws(p, end);
			if (p >= end || *p != ':')
				return fail_at(r, "Expecting ':' delimiter", p);
			p = skip_ws(p + 1, end);
			if ((p = parse_value(r, p)) == NULL)
				return NULL;
			p = skip_ws(p, end);
			if (p < end && *p == '}')
				break;
			if (p >= end || *p != ',')
				return fail_at(r, "Expecting ',' delimiter", p);
			p = skip_ws(p + 1, end);
		}
	}
	r->depth--;
	r->sink->end_object(r->ctx);
	return p + 1;
}

static inline bool
word(const unsigned char *p, const unsigned char *end, const char *w,
    size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0;
}

static const unsigned char *
parse_value(struct reader *r, const unsigned char *p)
{
	const unsigned char *end = r->end;

	if (p >= end)
		return expecting_value(r, p);
	switch (*p) {
	case '"': {
		const char *s;
		size_t len;
		bool raw;

		if ((p = scan_string(r, p, &s, &len, &raw)) != NULL)
			r->sink->string_value(r->ctx, s, len, raw);
		return p;
	}
	case '{':
		return parse_object(r, p);
	case '[':
		return parse_array(r, p);
	case 'n':
		if (word(p, end, "null", 4)) {
			r->sink->null_value(r->ctx);
			return p + 4;
		}
		break;
	case 't':
		if (word(p, end, "true", 4)) {
			r->sink->bool_value(r->ctx, true);
			return p + 4;
		}
		break;
	case 'f':
		if (word(p, end, "false", 5)) {
			r->sink->bool_value(r->ctx, false);
			return p + 5;
		}
		break;
	case 'N':
		if (word(p, end, "NaN", 3)) {
			r->sink->float_value(r->ctx, __builtin_nan(""));
			return p + 3;
		}
		break;
	case 'I':
		if (word(p, end, "Infinity", 8)) {
			r->sink->float_value(r->ctx, __builtin_inf());
			return p + 8;
		}
		break;
	case '-':
		if (word(p, end, "-Infinity", 9)) {
			r->sink->float_value(r->ctx, -__builtin_inf());
			return p + 9;
		}
		break;
	default:
		break;
	}
	return parse_number(r, p);
}

/* ---- entry point -------------------------------------------------------- */

bool
tc_json__read(const char *text, size_t len, bool text_mode,
    const struct tc_json__sink *sink, void *ctx, tc_error *err)
{
	struct reader r;
	const unsigned char *p;

	if (len > TC_JSON_MAX_BYTES) {
		tc_error_set(err, "JSON document too large: more than %zu bytes",
		    TC_JSON_MAX_BYTES);
		return false;
	}
	if (text == NULL)
		text = "";
	memset(&r, 0, sizeof(r));
	r.base = (const unsigned char *)text;
	r.end = r.base + len;
	r.text_mode = text_mode;
	r.err = err;
	r.sink = sink;
	r.ctx = ctx;
	if (!tc_utf8_check((const char *)r.base, len, err))
		return false;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		fail_at(&r, "Unexpected UTF-8 BOM (decode using utf-8-sig)",
		    r.base);
		return false;
	}
	p = parse_value(&r, skip_ws(r.base, r.end));
	if (p != NULL) {
		p = skip_ws(p, r.end);
		if (p != r.end)
			p = fail_at(&r, "Extra data", p);
	}
	tc_buf_free(&r.scratch);
	return p != NULL;
}
