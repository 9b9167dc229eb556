/*
 * canonical.c - tc_json_reformat(): read a document and write it in any of
 * the writer forms in one pass, without building a tree.
 *
 * The output is produced as the reader reports values.  Arrays need no
 * help.  Each member of an object is written as it comes ("key":value);
 * when the object closes and its keys were not already sorted and unique,
 * the members' byte ranges are sorted by key (stable, the last duplicate
 * wins) and the object's text is rearranged once.  Errors are those of
 * tc_json_parse_text() + tc_json_write(): reading errors first, then
 * allow_nan=False, then the UTF-8 encoding of the complete output.
 */
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* Room for n more bytes (and the NUL): the common case without a call. */
static inline void
reserve(tc_buf *b, size_t n)
{
	if (b->cap - b->len <= n)
		tc_buf_grow(b, n);
}

static inline void
put(tc_buf *b, const void *s, size_t n)
{
	reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static inline void
putch(tc_buf *b, char ch)
{
	reserve(b, 1);
	b->data[b->len++] = ch;
}

/* Separator and indentation before a value inside an array. */
static inline void
before_value(struct tc_json__canon *c)
{
	struct tc_json__cframe *f;

	if (c->nframes == 0)
		return;
	f = &c->frames[c->nframes - 1];
	if (f->object)
		return;		/* the key wrote it */
	if (f->count++ > 0)
		putch(c->out, ',');
	if (c->indent)
		tc_json__newline_indent(c->out, c->nframes);
}

static void
push_frame(struct tc_json__canon *c, bool object)
{
	struct tc_json__cframe *f;

	if (c->nframes == c->frames_cap) {
		c->frames_cap = c->frames_cap ? c->frames_cap * 2 : 32;
		c->frames = tc_xrealloc(c->frames, c->frames_cap *
		    sizeof(*c->frames));
	}
	f = &c->frames[c->nframes++];
	f->object = object;
	f->count = 0;
	f->first_entry = c->nentries;
	f->key_mark = c->keys.len;
}

static void
on_null(void *ctx)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	put(c->out, "null", 4);
}

static void
on_bool(void *ctx, bool b)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	if (b)
		put(c->out, "true", 4);
	else
		put(c->out, "false", 5);
}

static void
on_int(void *ctx, const char *s, size_t len)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	put(c->out, s, len);
}

static void
on_float(void *ctx, double d)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	if (!__builtin_isfinite(d))
		c->nan_seen = true;
	tc_buf_grow(c->out, TC_JSON_DOUBLE_MAX);
	c->out->len += tc_json__format_double(c->out->data + c->out->len, d,
	    true);
}

static void
on_numeral(void *ctx, const char *s, size_t len)
{
	struct tc_json__canon *c = ctx;

	if (!tc_json__numeral_is_repr(s, len)) {
		on_float(ctx, tc_json__parse_double(s, len));
		return;
	}
	before_value(c);
	put(c->out, s, len);
}

/* A string as the writer puts it; one the reader found without an
 * escape is copied as it stands (see the sink's raw). */
static void
write_string(struct tc_json__canon *c, const char *s, size_t len, bool raw)
{
	if (raw && !c->ascii) {
		putch(c->out, '"');
		put(c->out, s, len);
		putch(c->out, '"');
		return;
	}
	tc_json__write_string(c->out, s, len, c->ascii, &c->surrogate);
}

static void
on_string(void *ctx, const char *s, size_t len, bool raw)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	write_string(c, s, len, raw);
}

static void
on_begin(void *ctx, bool object)
{
	struct tc_json__canon *c = ctx;

	before_value(c);
	putch(c->out, object ? '{' : '[');
	push_frame(c, object);
}

static void
on_begin_array(void *ctx)
{
	on_begin(ctx, false);
}

static void
on_begin_object(void *ctx)
{
	on_begin(ctx, true);
}

static void
on_end_array(void *ctx)
{
	struct tc_json__canon *c = ctx;
	struct tc_json__cframe *f = &c->frames[--c->nframes];

	if (f->count > 0 && c->indent)
		tc_json__newline_indent(c->out, c->nframes);
	putch(c->out, ']');
}

static void
on_key(void *ctx, const char *s, size_t len, bool raw)
{
	struct tc_json__canon *c = ctx;
	struct tc_json__cframe *f = &c->frames[c->nframes - 1];
	struct tc_json__centry *e;

	if (f->count++ > 0) {
		c->entries[c->nentries - 1].end = c->out->len;
		putch(c->out, ',');
	}
	if (c->nentries == c->entries_cap) {
		c->entries_cap = c->entries_cap ? c->entries_cap * 2 : 256;
		c->entries = tc_xrealloc(c->entries, c->entries_cap *
		    sizeof(*c->entries));
	}
	e = &c->entries[c->nentries++];
	e->key_off = c->keys.len;
	e->key_len = len;
	put(&c->keys, s, len);
	e->start = c->out->len;
	if (c->indent)
		tc_json__newline_indent(c->out, c->nframes);
	write_string(c, s, len, raw);
	if (c->indent)
		put(c->out, ": ", 2);
	else
		putch(c->out, ':');
}

static inline int
entry_cmp(const struct tc_json__canon *c, const struct tc_json__centry *a,
    const struct tc_json__centry *b)
{
	return tc_json__keycmp(c->keys.data + a->key_off, a->key_len,
	    c->keys.data + b->key_off, b->key_len);
}

/* Stable merge sort of e[0..n) by key, using tmp[0..n/2]. */
static void
sort_entries(const struct tc_json__canon *c, struct tc_json__centry *e,
    size_t n, struct tc_json__centry *tmp)
{
	size_t mid, i, j, k;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			struct tc_json__centry x = e[i];

			for (j = i; j > 0 && entry_cmp(c, &e[j - 1], &x) > 0; j--)
				e[j] = e[j - 1];
			e[j] = x;
		}
		return;
	}
	mid = n / 2;
	sort_entries(c, e, mid, tmp);
	sort_entries(c, e + mid, n - mid, tmp);
	if (entry_cmp(c, &e[mid - 1], &e[mid]) <= 0)
		return;
	memcpy(tmp, e, mid * sizeof(*e));
	i = 0;
	j = mid;
	k = 0;
	while (i < mid && j < n) {
		if (entry_cmp(c, &e[j], &tmp[i]) < 0)
			e[k++] = e[j++];
		else
			e[k++] = tmp[i++];
	}
	while (i < mid)
		e[k++] = tmp[i++];
}

/* Put the n members starting at entry e in key order, last duplicate
 * kept, rewriting the object's text. */
static void
rearrange(struct tc_json__canon *c, struct tc_json__centry *e, size_t n)
{
	tc_buf *out = c->out;
	size_t base = e[0].start, i;
	bool first = true;

	tc_buf_reset(&c->tmp);
	put(&c->tmp, out->data + base, e[n - 1].end - base);
	if (c->sort_tmp_cap < n) {
		free(c->sort_tmp);
		c->sort_tmp_cap = n;
		c->sort_tmp = tc_xmalloc(n * sizeof(*c->sort_tmp));
	}
	sort_entries(c, e, n, c->sort_tmp);
	out->len = base;
	for (i = 0; i < n; i++) {
		if (i + 1 < n && entry_cmp(c, &e[i], &e[i + 1]) == 0) {
			c->dup_dropped = true;
			continue;
		}
		if (!first)
			putch(out, ',');
		first = false;
		put(out, c->tmp.data + (e[i].start - base), e[i].end - e[i].start);
	}
}

static void
on_end_object(void *ctx)
{
	struct tc_json__canon *c = ctx;
	struct tc_json__cframe *f = &c->frames[--c->nframes];

	if (f->count > 0) {
		struct tc_json__centry *e = c->entries + f->first_entry;
		size_t n = c->nentries - f->first_entry, i;

		e[n - 1].end = c->out->len;
		for (i = 1; i < n; i++)
			if (entry_cmp(c, &e[i - 1], &e[i]) >= 0)
				break;
		if (i < n)
			rearrange(c, e, n);
		if (c->indent)
			tc_json__newline_indent(c->out, c->nframes);
	}
	putch(c->out, '}');
	c->nentries = f->first_entry;
	c->keys.len = f->key_mark;
}

const struct tc_json__sink tc_json__canon_sink = {
	on_null, on_bool, on_int, on_float, on_numeral, on_string,
	on_begin_array, on_end_array, on_begin_object, on_key, on_end_object
};

void
tc_json__canon_init(struct tc_json__canon *c, unsigned flags, tc_buf *out,
    size_t len)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->start = out->len;
	c->flags = flags;
	c->ascii = (flags & TC_JSON_ASCII) != 0;
	c->indent = (flags & TC_JSON_INDENT) != 0;
	/* Room for the usual case (output no longer than the input), so the
	 * buffer is not copied while it grows. */
	tc_buf_grow(out, len + 64);
}

int
tc_json__canon_finish(struct tc_json__canon *c, bool read_ok,
    const char *text, size_t len, tc_error *err)
{
	tc_buf *out = c->out;
	int rc = -1;

	if (!read_ok)
		goto done;
	if ((c->flags & TC_JSON_NO_NAN) && c->nan_seen) {
		tc_json *v;

		if (!c->dup_dropped) {
			tc_error_set(err, "%s", TC_JSON_NAN_MSG);
			goto done;
		}
		/* The non-finite value may have been a dropped duplicate:
		 * let the tree writer decide. */
		out->len = c->start;
		v = (c->flags & TC_JSON_TEXT_POSITIONS) ?
		    tc_json_parse_text(text, len, err) :
		    tc_json_parse(text, len, err);
		rc = v != NULL ? tc_json_write(out, v, c->flags &
		    ~TC_JSON_TEXT_POSITIONS, err) : -1;
		tc_json_free(v);
		goto done;
	}
	if (c->surrogate && tc_json__surrogate_error(out->data + c->start,
	    out->len - c->start, err))
		goto done;
	rc = 0;
done:
	if (rc != 0)
		out->len = c->start;
	out->data[out->len] = '\0';
	free(c->frames);
	free(c->entries);
	free(c->sort_tmp);
	tc_buf_free(&c->keys);
	tc_buf_free(&c->tmp);
	return rc;
}

int
tc_json_reformat(const char *text, size_t len, unsigned flags, tc_buf *out,
    tc_error *err)
{
	struct tc_json__canon c;
	bool ok;

	tc_json__canon_init(&c, flags, out, len);
	ok = tc_json__read(text, len, (flags & TC_JSON_TEXT_POSITIONS) != 0,
	    &tc_json__canon_sink, &c, err);
	return tc_json__canon_finish(&c, ok, text, len, err);
}
