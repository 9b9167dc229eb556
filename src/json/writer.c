/*
 * writer.c - serialisation byte for byte like CPython's json.dumps with
 * sort_keys=True: the compact canonical form (separators "," ":"), the
 * ensure_ascii variant, the indent=2 form (separators "," ": "), the
 * allow_nan=False refusal, and the UTF-8 encoding step that refuses lone
 * surrogates with Python's UnicodeEncodeError text.  Also the digests of
 * the canonical form.
 *
 * Strings are copied in runs: an 8-bytes-at-a-time scan finds the next
 * byte that needs attention, and everything before it is one memcpy.
 * A digest never holds the whole canonical form: the writer hands it to
 * SHA-256 in pieces of about DIGEST_PIECE bytes as it goes; a streamed
 * write hands its text to the caller's sink the same way.  Once a
 * document has filled a piece, a second thread (the relay) takes the
 * pieces, hashing or sinking them in order while the writer fills the
 * next ones (up to RELAY_DEPTH wait); a small document never starts it.
 *
 * A hooked write hands each null node to the caller's hook, which may
 * write a value in its place through an emitter: the same bytes the
 * writer would give a tree of that value, from the caller's own records.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_internal.h"
#include "tunectl/heap.h"
#include "tunectl/sha256.h"

/* How much canonical text a digest keeps before hashing it: small
 * enough to stay in the cache, large enough for few calls. */
#define DIGEST_PIECE	((size_t)32 * 1024)

/* The pieces a relay takes: larger, as each costs a hand-off. */
#define RELAY_PIECE	((size_t)128 * 1024)

/* Items of an array rendered as one batch (tc_json_emit_items). */
#define ITEMS_BATCH	((size_t)256)

/* How deep an emitter's containers may nest below its placeholder. */
#define EMIT_DEPTH	32

struct relay;

struct writer {
	tc_buf *out;
	size_t piece;		/* hand over at this much text */
	struct relay *relay;	/* started at the first piece, or NULL */
	bool relay_failed;	/* could not start one: hand over here */
	tc_sha256 *sha;		/* a digest: hash and drop what was written */
	tc_json_sink sink;	/* a stream: hand over and drop it */
	void *sink_ctx;
	tc_error *sink_err;
	bool sink_failed;	/* the sink refused a piece: drop the rest */
	tc_json_hook hook;	/* asked for every null node, or NULL */
	void *hook_ctx;
	bool ascii;
	bool no_nan;
	bool indent;
	bool surrogate;		/* a lone surrogate went out as WTF-8 */
	bool nan_error;
};

static const char hexdig[] = "0123456789abcdef";

static inline char *
reserve(tc_buf *b, size_t n)
{
	if (b->cap - b->len < n + 1 || b->data == NULL)
		tc_buf_grow(b, n);
	return b->data + b->len;
}

static inline void
put(tc_buf *b, const void *s, size_t n)
{
	memcpy(reserve(b, n), s, n);
	b->len += n;
}

static inline void
putch(tc_buf *b, char c)
{
	*reserve(b, 1) = c;
	b->len++;
}

static inline char *
put_u4(char *d, unsigned v)
{
	d[0] = '\\';
	d[1] = 'u';
	d[2] = hexdig[(v >> 12) & 0xf];
	d[3] = hexdig[(v >> 8) & 0xf];
	d[4] = hexdig[(v >> 4) & 0xf];
	d[5] = hexdig[v & 0xf];
	return d + 6;
}

void
tc_json__write_string(tc_buf *out, const char *str, size_t len, bool ascii,
    bool *surrogate)
{
	const unsigned char *p = (const unsigned char *)str, *end = p + len;
	const unsigned char *run = p;

	putch(out, '"');
	for (;;) {
		unsigned c;
		char *d;

		p = tc_json__scan_plain(p, end, true, ascii);
		if (p >= end)
			break;
		c = *p;
		if (c >= 0x80 && !ascii) {
			/* Raw UTF-8 stays; only note lone surrogates. */
			size_t n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

			if (c == 0xed && end - p >= 2 && p[1] >= 0xa0)
				*surrogate = true;
			p += n < (size_t)(end - p) ? n : (size_t)(end - p);
			continue;
		}
		put(out, run, (size_t)(p - run));
		d = reserve(out, 12);
		if (c >= 0x80) {
			uint32_t cp;

			p += tc_utf8_decode((const char *)p, (size_t)(end - p),
			    &cp, TC_UTF8_WTF8);
			if (cp >= 0x10000) {
				cp -= 0x10000;
				d = put_u4(d, 0xd800 | (cp >> 10));
				d = put_u4(d, 0xdc00 | (cp & 0x3ff));
			} else {
				d = put_u4(d, cp);
			}
		} else {
			p++;
			*d++ = '\\';
			switch (c) {
			case '"': *d++ = '"'; break;
			case '\\': *d++ = '\\'; break;
			case '\n': *d++ = 'n'; break;
			case '\r': *d++ = 'r'; break;
			case '\t': *d++ = 't'; break;
			case '\b': *d++ = 'b'; break;
			case '\f': *d++ = 'f'; break;
			default:
				d = put_u4(d - 1, c);
				break;
			}
		}
		out->len = (size_t)(d - out->data);
		run = p;
	}
	put(out, run, (size_t)(end - run));
	putch(out, '"');
}

void
tc_json__newline_indent(tc_buf *out, size_t level)
{
	char *d = reserve(out, 1 + 2 * level);

	*d = '\n';
	memset(d + 1, ' ', 2 * level);
	out->len += 1 + 2 * level;
}

/* Give one piece to the digest or the sink (in whichever thread takes
 * it); a sink's failure is recorded in *failed and drops what follows. */
static void
take(struct writer *w, const char *data, size_t len, bool *failed)
{
	if (w->sha != NULL)
		tc_sha256_update(w->sha, data, len);
	else if (!*failed && w->sink(w->sink_ctx, data, len, w->sink_err) != 0)
		*failed = true;
}

/*
 * The second thread of a large digest or stream: it takes the pieces
 * the writer hands over, in order, while the writer fills the next.  Up
 * to RELAY_DEPTH pieces wait, so that neither side stalls the other at
 * every piece when one of them is briefly slower (a digest's writer
 * waiting for a batch of items, the relay for the disk).  Only the
 * relay touches the digest, the sink and its error until it is joined.
 */
#define RELAY_DEPTH	8

struct relay {
	struct writer *w;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	tc_buf ring[RELAY_DEPTH];	/* pieces from head on, count of them */
	size_t head, count;	/* the one at head is being taken */
	bool stop;		/* no more pieces: end */
	bool failed;		/* the sink refused a piece */
};

static void *
relay_main(void *arg)
{
	struct relay *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		tc_buf *piece;

		while (r->count == 0 && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->count == 0)
			break;
		piece = &r->ring[r->head];
		pthread_mutex_unlock(&r->mu);
		take(r->w, piece->data, piece->len, &r->failed);
		pthread_mutex_lock(&r->mu);
		r->head = (r->head + 1) % RELAY_DEPTH;
		r->count--;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void
relay_free(struct relay *r)
{
	size_t i;

	for (i = 0; i < RELAY_DEPTH; i++)
		tc_buf_free(&r->ring[i]);
	free(r);
}

/* Start the relay; false (the writer hands over itself) if it cannot. */
static bool
relay_start(struct writer *w)
{
	struct relay *r = tc_xcalloc(1, sizeof(*r));
	size_t i;

	r->w = w;
	for (i = 0; i < RELAY_DEPTH; i++)
		tc_buf_init(&r->ring[i]);
	if (pthread_mutex_init(&r->mu, NULL) != 0) {
		relay_free(r);
		return false;
	}
	if (pthread_cond_init(&r->cv, NULL) != 0) {
		pthread_mutex_destroy(&r->mu);
		relay_free(r);
		return false;
	}
	if (pthread_create(&r->thread, NULL, relay_main, r) != 0) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		relay_free(r);
		return false;
	}
	w->relay = r;
	w->piece = RELAY_PIECE;
	return true;
}

/* Wait for the last piece to be taken, end and join the relay; its
 * sink failure becomes the writer's. */
static void
relay_finish(struct writer *w)
{
	struct relay *r = w->relay;

	if (r == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	if (r->failed)
		w->sink_failed = true;
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	relay_free(r);
	w->relay = NULL;
}

/* Hand the text written so far to the digest or the sink: to the relay
 * (into a free place of its ring, its old buffer becoming the writer's),
 * else here. */
static void
hand_over(struct writer *w)
{
	struct relay *r;
	tc_buf t, *slot;

	if (w->relay == NULL && !w->relay_failed && !relay_start(w))
		w->relay_failed = true;
	if ((r = w->relay) == NULL) {
		take(w, w->out->data, w->out->len, &w->sink_failed);
		w->out->len = 0;
		return;
	}
	pthread_mutex_lock(&r->mu);
	while (r->count == RELAY_DEPTH)
		pthread_cond_wait(&r->cv, &r->mu);
	if (r->failed)
		w->sink_failed = true;
	slot = &r->ring[(r->head + r->count) % RELAY_DEPTH];
	t = *slot;
	*slot = *w->out;
	*w->out = t;
	r->count++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	w->out->len = 0;
	reserve(w->out, w->piece);
}

/* A digest or a stream hands over what it has written once there is
 * enough of it. */
static inline void
digest_piece(struct writer *w)
{
	if ((w->sha != NULL || w->sink != NULL) && w->out->len >= w->piece)
		hand_over(w);
}

struct tc_json_emitter {
	struct writer *w;
	size_t level;		/* the placeholder's */
	size_t depth;		/* containers open below it */
	size_t count[EMIT_DEPTH];	/* items written in each */
	bool key;		/* a key waits for its value */
};

static bool call_hook(struct writer *w, const tc_json *v, size_t level);
static bool write_member(struct writer *w, const tc_json_member *m, size_t n,
    size_t level, bool first);

static bool
write_value(struct writer *w, const tc_json *v, size_t level)
{
	tc_buf *out = w->out;
	size_t i;

	switch (v->type) {
	case TC_JSON_NULL:
		if (w->hook != NULL && call_hook(w, v, level))
			return !w->nan_error;
		put(out, "null", 4);
		return true;
	case TC_JSON_BOOL:
		if (v->u.b)
			put(out, "true", 4);
		else
			put(out, "false", 5);
		return true;
	case TC_JSON_INT:
		put(out, v->u.int_text, strlen(v->u.int_text));
		return true;
	case TC_JSON_FLOAT:
		if (w->no_nan && !__builtin_isfinite(v->u.f)) {
			w->nan_error = true;
			return false;
		}
		out->len += tc_json__format_double(reserve(out,
		    TC_JSON_DOUBLE_MAX), v->u.f, true);
		return true;
	case TC_JSON_STRING:
		tc_json__write_string(out, v->u.str.ptr, v->u.str.len, w->ascii,
		    &w->surrogate);
		return true;
	case TC_JSON_ARRAY:
		if (v->u.arr.len == 0) {
			put(out, "[]", 2);
			return true;
		}
		putch(out, '[');
		for (i = 0; i < v->u.arr.len; i++) {
			if (i > 0)
				putch(out, ',');
			if (w->indent)
				tc_json__newline_indent(out, level + 1);
			if (!write_value(w, v->u.arr.items[i], level + 1))
				return false;
			digest_piece(w);
			if (w->sink_failed)
				return false;
		}
		if (w->indent)
			tc_json__newline_indent(out, level);
		putch(out, ']');
		return true;
	case TC_JSON_OBJECT:
		if (v->u.obj.len == 0) {
			put(out, "{}", 2);
			return true;
		}
		putch(out, '{');
		if (!write_member(w, v->u.obj.members, v->u.obj.len, level + 1,
		    true))
			return false;
		if (w->indent)
			tc_json__newline_indent(out, level);
		putch(out, '}');
		return true;
	}
	return true;
}

/* n members of an object, at indentation level (their values' too);
 * first: none of the object's members went out before them. */
static bool
write_member(struct writer *w, const tc_json_member *m, size_t n,
    size_t level, bool first)
{
	tc_buf *out = w->out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 0 || !first)
			putch(out, ',');
		if (w->indent)
			tc_json__newline_indent(out, level);
		tc_json__write_string(out, m[i].key, m[i].key_len, w->ascii,
		    &w->surrogate);
		if (w->indent)
			put(out, ": ", 2);
		else
			putch(out, ':');
		if (!write_value(w, m[i].value, level))
			return false;
		digest_piece(w);
		if (w->sink_failed)
			return false;
	}
	return true;
}

/* ---- the emitter ---------------------------------------------------- */

static bool
call_hook(struct writer *w, const tc_json *v, size_t level)
{
	struct tc_json_emitter e;
	bool wrote;

	memset(&e, 0, sizeof(e));
	e.w = w;
	e.level = level;
	wrote = w->hook(w->hook_ctx, v, &e);
	if (e.depth != 0 || e.key)
		abort();	/* the hook left a container or key open */
	return wrote;
}

/* What goes before a value: nothing at the placeholder itself or after
 * a key, else the separator and indentation of the next item. */
static void
slot(tc_json_emitter *e)
{
	struct writer *w = e->w;

	if (e->depth == 0)
		return;
	if (e->key) {
		e->key = false;
		return;
	}
	if (e->count[e->depth - 1]++ > 0)
		putch(w->out, ',');
	if (w->indent)
		tc_json__newline_indent(w->out, e->level + e->depth);
}

static void
open_container(tc_json_emitter *e, char c)
{
	slot(e);
	if (e->depth == EMIT_DEPTH)
		abort();
	e->count[e->depth++] = 0;
	putch(e->w->out, c);
}

static void
close_container(tc_json_emitter *e, char c)
{
	struct writer *w = e->w;

	if (e->depth == 0 || e->key)
		abort();
	e->depth--;
	if (e->count[e->depth] > 0 && w->indent)
		tc_json__newline_indent(w->out, e->level + e->depth);
	putch(w->out, c);
	digest_piece(w);
}

void
tc_json_emit_object_begin(tc_json_emitter *e)
{
	open_container(e, '{');
}

void
tc_json_emit_object_end(tc_json_emitter *e)
{
	close_container(e, '}');
}

void
tc_json_emit_array_begin(tc_json_emitter *e)
{
	open_container(e, '[');
}

void
tc_json_emit_array_end(tc_json_emitter *e)
{
	close_container(e, ']');
}

void
tc_json_emit_key(tc_json_emitter *e, const char *key)
{
	struct writer *w = e->w;

	if (e->depth == 0 || e->key)
		abort();	/* a key outside an object, or twice */
	if (e->count[e->depth - 1]++ > 0)
		putch(w->out, ',');
	if (w->indent)
		tc_json__newline_indent(w->out, e->level + e->depth);
	tc_json__write_string(w->out, key, strlen(key), w->ascii,
	    &w->surrogate);
	if (w->indent)
		put(w->out, ": ", 2);
	else
		putch(w->out, ':');
	e->key = true;
}

void
tc_json_emit_null(tc_json_emitter *e)
{
	slot(e);
	put(e->w->out, "null", 4);
}

void
tc_json_emit_bool(tc_json_emitter *e, bool b)
{
	slot(e);
	if (b)
		put(e->w->out, "true", 4);
	else
		put(e->w->out, "false", 5);
}

void
tc_json_emit_int(tc_json_emitter *e, int64_t v)
{
	char tmp[24], *t = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	slot(e);
	do {
		*--t = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--t = '-';
	put(e->w->out, t, (size_t)(tmp + sizeof(tmp) - t));
}

void
tc_json_emit_int_text(tc_json_emitter *e, const char *digits)
{
	slot(e);
	put(e->w->out, digits, strlen(digits));
}

void
tc_json_emit_float(tc_json_emitter *e, double v)
{
	struct writer *w = e->w;

	slot(e);
	if (w->no_nan && !__builtin_isfinite(v)) {
		w->nan_error = true;	/* reported once the hook returns */
		put(w->out, "null", 4);
		return;
	}
	w->out->len += tc_json__format_double(reserve(w->out,
	    TC_JSON_DOUBLE_MAX), v, true);
}

void
tc_json_emit_string(tc_json_emitter *e, const char *s)
{
	slot(e);
	tc_json__write_string(e->w->out, s, strlen(s), e->w->ascii,
	    &e->w->surrogate);
}

void
tc_json_emit_value(tc_json_emitter *e, const tc_json *v)
{
	slot(e);
	if (!write_value(e->w, v, e->level + e->depth))
		e->w->nan_error = true;
}

unsigned
tc_json_emit_flags(const tc_json_emitter *e)
{
	const struct writer *w = e->w;

	return (w->ascii ? TC_JSON_ASCII : 0) |
	    (w->no_nan ? TC_JSON_NO_NAN : 0) |
	    (w->indent ? TC_JSON_INDENT : 0);
}

void
tc_json_emit_text(tc_json_emitter *e, const char *text, size_t len)
{
	slot(e);
	put(e->w->out, text, len);
	digest_piece(e->w);
}

bool
tc_json__surrogate_error(const char *s, size_t len, tc_error *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, pos = 0, n = 0;
	uint32_t first = 0;

	while (i < len) {
		if (p[i] == 0xed && i + 2 < len && p[i + 1] >= 0xa0) {
			(void)tc_utf8_decode(s + i, len - i, &first,
			    TC_UTF8_WTF8);
			while (i + 2 < len && p[i] == 0xed && p[i + 1] >= 0xa0) {
				n++;
				i += 3;
			}
			break;
		}
		if ((p[i] & 0xc0) != 0x80)
			pos++;
		i++;
	}
	if (n == 0)
		return false;
	if (n == 1)
		tc_error_set(err, "'utf-8' codec can't encode character "
		    "'\\u%04x' in position %zu: surrogates not allowed",
		    (unsigned)first, pos);
	else
		tc_error_set(err, "'utf-8' codec can't encode characters in "
		    "position %zu-%zu: surrogates not allowed", pos,
		    pos + n - 1);
	return true;
}

static void
writer_init(struct writer *w, tc_buf *out, unsigned flags, tc_json_hook hook,
    void *hook_ctx)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->piece = DIGEST_PIECE;
	w->hook = hook;
	w->hook_ctx = hook_ctx;
	w->ascii = (flags & TC_JSON_ASCII) != 0;
	w->no_nan = (flags & TC_JSON_NO_NAN) != 0;
	w->indent = (flags & TC_JSON_INDENT) != 0;
}

/* ---- arrays of many items ------------------------------------------ */

/*
 * The items of a large array are rendered in batches, the even ones by
 * the writer's thread straight into its text, the odd ones by a second
 * thread (the renderer) into a buffer the writer copies in when their
 * turn comes.  Each batch starts from the emitter's state at its first
 * item (count = its index, so the separators are the same), which is
 * why the text is the one a single thread writes.
 */
struct batches {
	struct writer *w;	/* the renderer's own: no digest, no sink */
	tc_json_emitter at;	/* the emitter inside the array */
	size_t n, nbatch;
	tc_json_item_fn fn;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ready;		/* the batch in text, or SIZE_MAX */
	bool stop;
	tc_buf text, scratch;
};

static void
render_batch(tc_json_emitter *e, size_t first, size_t n, tc_json_item_fn fn,
    void *ctx, tc_buf *scratch)
{
	size_t depth = e->depth, i;

	for (i = first; i < first + n; i++) {
		fn(ctx, i, e, scratch);
		if (e->depth != depth || e->key)
			abort();	/* the item left a container or key open */
	}
}

static size_t
batch_first(size_t k)
{
	return k * ITEMS_BATCH;
}

static size_t
batch_len(const struct batches *b, size_t k)
{
	size_t first = batch_first(k);

	return b->n - first < ITEMS_BATCH ? b->n - first : ITEMS_BATCH;
}

/* tc_json_items_threads(): -1 decide by the CPUs, 0 never, 1 always. */
static _Atomic int items_threads = -1;

void
tc_json_items_threads(int mode)
{
	atomic_store(&items_threads, mode < 0 ? -1 : mode > 0);
}

/* The CPUs this process may run on, counted at the first need. */
static pthread_mutex_t cpus_mu = PTHREAD_MUTEX_INITIALIZER;
static long ncpus = -1;

static long
count_cpus(void)
{
	cpu_set_t set;
	long n;

	pthread_mutex_lock(&cpus_mu);
	if (ncpus < 0) {
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			ncpus = CPU_COUNT(&set);
		else
			ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	}
	n = ncpus;
	pthread_mutex_unlock(&cpus_mu);
	return n;
}

/*
 * Whether a digest or a stream renders items on a second thread.  Its
 * writer and relay keep two CPUs busy already, and an analysis writes
 * its document, content fingerprint and Markdown at once: on two CPUs a
 * renderer only contends with them (a 1,000,000-row analysis took
 * 1.70 s with one and 1.48 s without, mean of 4 alternating runs), so
 * it starts only where four CPUs or more may run this process.
 */
static bool
second_renderer(void)
{
	int mode = atomic_load(&items_threads);

	if (mode >= 0)
		return mode == 1;
	return count_cpus() >= 4;
}

static void *
renderer_main(void *arg)
{
	struct batches *b = arg;
	size_t k;

	for (k = 1; k < b->nbatch; k += 2) {
		tc_json_emitter e = b->at;
		bool stop;

		pthread_mutex_lock(&b->mu);
		while (b->ready != SIZE_MAX && !b->stop)
			pthread_cond_wait(&b->cv, &b->mu);
		stop = b->stop;
		pthread_mutex_unlock(&b->mu);
		if (stop)
			break;
		b->text.len = 0;
		e.w = b->w;
		e.count[e.depth - 1] = batch_first(k);
		render_batch(&e, batch_first(k), batch_len(b, k), b->fn, b->ctx,
		    &b->scratch);
		pthread_mutex_lock(&b->mu);
		b->ready = k;
		pthread_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
	}
	return NULL;
}

void
tc_json_emit_items(tc_json_emitter *e, size_t n, tc_json_item_fn fn,
    void *ctx)
{
	struct writer *w = e->w, rw;
	struct batches b;
	tc_buf scratch = TC_BUF_INIT;
	size_t k;

	tc_json_emit_array_begin(e);
	memset(&b, 0, sizeof(b));
	b.nbatch = (n + ITEMS_BATCH - 1) / ITEMS_BATCH;
	/* only a digest or a stream is worth a second thread */
	if (b.nbatch < 2 || (w->sha == NULL && w->sink == NULL) ||
	    !second_renderer()) {
		render_batch(e, 0, n, fn, ctx, &scratch);
		tc_buf_free(&scratch);
		tc_json_emit_array_end(e);
		return;
	}
	writer_init(&rw, &b.text, 0, w->hook, w->hook_ctx);
	rw.ascii = w->ascii;
	rw.no_nan = w->no_nan;
	rw.indent = w->indent;
	b.w = &rw;
	b.at = *e;
	b.n = n;
	b.fn = fn;
	b.ctx = ctx;
	b.ready = SIZE_MAX;
	if (pthread_mutex_init(&b.mu, NULL) != 0) {
		render_batch(e, 0, n, fn, ctx, &scratch);
		goto done;
	}
	if (pthread_cond_init(&b.cv, NULL) != 0) {
		pthread_mutex_destroy(&b.mu);
		render_batch(e, 0, n, fn, ctx, &scratch);
		goto done;
	}
	if (pthread_create(&b.thread, NULL, renderer_main, &b) != 0) {
		pthread_cond_destroy(&b.cv);
		pthread_mutex_destroy(&b.mu);
		render_batch(e, 0, n, fn, ctx, &scratch);
		goto done;
	}
	for (k = 0; k < b.nbatch && !w->sink_failed; k++) {
		if (k % 2 == 0) {
			render_batch(e, batch_first(k), batch_len(&b, k), fn, ctx,
			    &scratch);
			continue;
		}
		pthread_mutex_lock(&b.mu);
		while (b.ready != k)
			pthread_cond_wait(&b.cv, &b.mu);
		pthread_mutex_unlock(&b.mu);
		put(w->out, b.text.data, b.text.len);
		e->count[e->depth - 1] += batch_len(&b, k);
		pthread_mutex_lock(&b.mu);
		b.ready = SIZE_MAX;
		pthread_cond_broadcast(&b.cv);
		pthread_mutex_unlock(&b.mu);
		digest_piece(w);
	}
	pthread_mutex_lock(&b.mu);
	b.stop = true;
	pthread_cond_broadcast(&b.cv);
	pthread_mutex_unlock(&b.mu);
	pthread_join(b.thread, NULL);
	pthread_cond_destroy(&b.cv);
	pthread_mutex_destroy(&b.mu);
	if (rw.surrogate)
		w->surrogate = true;
	if (rw.nan_error)
		w->nan_error = true;
done:
	tc_buf_free(&b.text);
	tc_buf_free(&b.scratch);
	tc_buf_free(&scratch);
	tc_json_emit_array_end(e);
}

/* ---- fragments ---------------------------------------------------- */

void
tc_json_fragment_render(tc_json_fragment *f, const tc_json_emitter *e,
    size_t below, const tc_json *obj)
{
	struct writer sub;

	memset(f, 0, sizeof(*f));
	if (obj->type != TC_JSON_OBJECT)
		abort();	/* a fragment is the members of an object */
	writer_init(&sub, &f->text, 0, NULL, NULL);
	sub.ascii = e->w->ascii;
	sub.no_nan = e->w->no_nan;
	sub.indent = e->w->indent;
	f->level = e->level + e->depth + below;
	f->nmembers = obj->u.obj.len;
	reserve(&f->text, 0);
	f->nan_error = !write_member(&sub, obj->u.obj.members,
	    obj->u.obj.len, f->level, true);
	f->surrogate = sub.surrogate;
}

void
tc_json_emit_fragment(tc_json_emitter *e, const tc_json_fragment *f)
{
	struct writer *w = e->w;

	/* only where it was rendered for: first in an object at its level */
	if (e->depth == 0 || e->key || e->count[e->depth - 1] != 0 ||
	    e->level + e->depth != f->level)
		abort();
	put(w->out, f->text.data, f->text.len);
	e->count[e->depth - 1] += f->nmembers;
	if (f->surrogate)
		w->surrogate = true;
	if (f->nan_error)
		w->nan_error = true;
}

void
tc_json_fragment_free(tc_json_fragment *f)
{
	tc_buf_free(&f->text);
	memset(f, 0, sizeof(*f));
}

int
tc_json_write(tc_buf *out, const tc_json *v, unsigned flags, tc_error *err)
{
	return tc_json_write_hook(out, v, flags, NULL, NULL, err);
}

int
tc_json_write_hook(tc_buf *out, const tc_json *v, unsigned flags,
    tc_json_hook hook, void *ctx, tc_error *err)
{
	struct writer w;
	size_t start = out->len;

	writer_init(&w, out, flags, hook, ctx);
	reserve(out, 0);
	if (!write_value(&w, v, 0)) {
		tc_error_set(err, "%s", TC_JSON_NAN_MSG);
		goto fail;
	}
	if (w.surrogate &&
	    tc_json__surrogate_error(out->data + start, out->len - start, err))
		goto fail;
	out->data[out->len] = '\0';
	return 0;
fail:
	out->len = start;
	out->data[out->len] = '\0';
	return -1;
}

int
tc_json_write_stream(const tc_json *v, unsigned flags, tc_json_hook hook,
    void *hook_ctx, tc_json_sink sink, void *sink_ctx, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	struct writer w;
	bool ok;

	writer_init(&w, &b, flags, hook, hook_ctx);
	w.sink = sink;
	w.sink_ctx = sink_ctx;
	w.sink_err = err;
	reserve(&b, DIGEST_PIECE);
	ok = write_value(&w, v, 0);
	relay_finish(&w);
	if (ok && !w.sink_failed && !w.surrogate && b.len > 0)
		take(&w, b.data, b.len, &w.sink_failed);
	tc_buf_free(&b);
	if (w.sink_failed)
		return -1;	/* the sink's own message */
	if (!ok) {
		tc_error_set(err, "%s", TC_JSON_NAN_MSG);
		return -1;
	}
	if (w.surrogate) {
		/* the message counts positions in the whole text: write it
		 * whole to find them (this write fails) */
		if (tc_json_write_hook(&b, v, flags, hook, hook_ctx, err) == 0)
			tc_error_set(err, "%s", "lone surrogate in the output");
		tc_buf_free(&b);
		return -1;
	}
	return 0;
}

char *
tc_json_canonical(const tc_json *v, size_t *len, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	if (tc_json_write(&b, v, 0, err) != 0) {
		tc_buf_free(&b);
		return NULL;
	}
	return tc_buf_detach(&b, len);
}

char *
tc_json_pretty(const tc_json *v, size_t *len, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	if (tc_json_write(&b, v, TC_JSON_INDENT, err) != 0) {
		tc_buf_free(&b);
		return NULL;
	}
	tc_buf_putc(&b, '\n');
	return tc_buf_detach(&b, len);
}

int
tc_json_digest_flags(const tc_json *v, unsigned flags, char hex[65],
    tc_error *err)
{
	return tc_json_digest_hook(v, flags, NULL, NULL, hex, err);
}

int
tc_json_digest_hook(const tc_json *v, unsigned flags, tc_json_hook hook,
    void *ctx, char hex[65], tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	struct writer w;
	bool ok;

	writer_init(&w, &b, flags, hook, ctx);
	w.sha = tc_sha256_new();
	reserve(&b, DIGEST_PIECE);
	ok = write_value(&w, v, 0);
	relay_finish(&w);
	if (ok && !w.surrogate) {
		tc_sha256_update(w.sha, b.data, b.len);
		tc_sha256_final_hex(w.sha, hex);
		tc_buf_free(&b);
		return 0;
	}
	tc_sha256_free(w.sha);
	tc_buf_free(&b);
	if (!ok) {
		tc_error_set(err, "%s", TC_JSON_NAN_MSG);
		return -1;
	}
	/* A lone surrogate went out: its message counts positions in the
	 * whole text, so write it whole (without this shortcut). */
	if (tc_json_write_hook(&b, v, flags, hook, ctx, err) != 0) {
		tc_buf_free(&b);
		return -1;
	}
	tc_sha256_hex(b.data, b.len, hex);
	tc_buf_free(&b);
	return 0;
}

int
tc_json_digest(const tc_json *v, char hex[65], tc_error *err)
{
	return tc_json_digest_flags(v, 0, hex, err);
}
