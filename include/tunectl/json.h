/*
 * json.h - tunectl's JSON value model, reader and writers.
 *
 * The reader accepts what CPython's json.loads accepts (RFC 8259 plus the
 * tokens NaN, Infinity, -Infinity, duplicate keys with the last value kept,
 * integers of any size kept as decimal text) and rejects everything else
 * with CPython's message, e.g. "Expecting value: line 1 column 1 (char 0)".
 *
 * The writers reproduce CPython's json.dumps byte for byte with
 * sort_keys=True: compact canonical form (separators "," ":"), the same
 * with ensure_ascii=True, and the indent=2 pretty form.
 *
 * Ownership: every tc_json node owns its children.  Functions that take a
 * "tc_json *item" argument to insert take ownership of it.  Free a tree with
 * tc_json_free().  The bytes of a string (u.str.ptr) or integer
 * (u.int_text) may share the node's allocation: never free() or realloc()
 * them yourself; to change a value, replace the node.  Do not free() or
 * realloc() an array's items or an object's members either: a parsed
 * document keeps them in shared chunks (use the functions below).
 */
#ifndef TUNECTL_JSON_H
#define TUNECTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/fileio.h"
#include "tunectl/text.h"

/* Documented reader limits (see docs/json.md). */
#define TC_JSON_MAX_DEPTH	1000		/* nested arrays/objects */
#define TC_JSON_MAX_BYTES	TC_READ_MAX_BYTES	/* 1 GiB of input */
#define TC_JSON_MAX_INT_DIGITS	4300		/* CPython's int/str limit */

typedef enum tc_json_type {
	TC_JSON_NULL,
	TC_JSON_BOOL,
	TC_JSON_INT,		/* JSON number without fraction/exponent */
	TC_JSON_FLOAT,		/* any other number (binary64) */
	TC_JSON_STRING,
	TC_JSON_ARRAY,
	TC_JSON_OBJECT
} tc_json_type;

typedef struct tc_json tc_json;

typedef struct tc_json_member {
	char *key;		/* WTF-8, NUL-terminated (may contain NUL: use key_len) */
	size_t key_len;
	tc_json *value;
	/* Private to src/json: the key's first 8 bytes as a big-endian
	 * number, zero past its end, so that a lookup mostly compares one
	 * word per member (json_internal.h, tc_json__member_cmp). */
	uint64_t head;
} tc_json_member;

struct tc_json {
	tc_json_type type;
	/* Where the node's memory lives: private to src/json (zero for a
	 * node made on the stack). */
	unsigned alloc;
	union {
		bool b;
		/* Decimal text of the integer: optional '-', no leading zeros,
		 * never "-0" (normalised to "0", as Python's int() does). */
		char *int_text;
		double f;
		struct {
			char *ptr;	/* WTF-8 (lone surrogates allowed), NUL-terminated */
			size_t len;
		} str;
		struct {
			tc_json **items;
			size_t len, cap;
		} arr;
		struct {
			/* Always sorted by key in code point order (byte order
			 * of the UTF-8), keys unique. */
			tc_json_member *members;
			size_t len, cap;
		} obj;
	} u;
};

/* ---- reading ---------------------------------------------------------- */

/* Parse a complete document.  On error returns NULL and sets err to the
 * CPython message (see ../shared/reference/json-errors.md). */
tc_json *tc_json_parse(const char *text, size_t len, tc_error *err);

/* Read and parse a file.  I/O errors are reported in Python's form:
 * "[Errno 2] No such file or directory: 'PATH'".  Error positions are
 * those of json.load(open(PATH)), i.e. of tc_json_parse_text(). */
tc_json *tc_json_parse_file(const char *path, tc_error *err);

/* Parse text that was read from a file or stream: the same as
 * tc_json_parse(), except that error positions are counted as Python
 * counts them after reading the file in text mode, where universal
 * newlines turn "\r\n" and "\r" into "\n" (json.load(f),
 * json.loads(path.read_text())). */
tc_json *tc_json_parse_text(const char *text, size_t len, tc_error *err);

/*
 * Read and parse a file as tc_json_parse_file() does and, from the same
 * read, put in hex (unless NULL) what tc_json_digest() would give for the
 * whole document.  The top-level members named in type_only (NULL-terminated,
 * may be NULL) are read and digested but kept only as their type: an
 * array or object member stands in the tree empty, a scalar one whole.
 * For a rule that reads only their type; NULL with err set on any error
 * of the parse or the digest, in that order.
 */
tc_json *tc_json_parse_file_digest(const char *path,
    const char *const *type_only, char hex[65], tc_error *err);

/* What tc_json_digest() gives for each item of an array, in order: hex[i]
 * is item i's, or "" where it was not taken (the caller digests that item
 * itself).  n items; owned by the caller (tc_json_item_digests_free). */
typedef struct {
	char (*hex)[65];
	size_t n, cap;
} tc_json_item_digests;

/*
 * Read and parse a file as tc_json_parse_file() does (same tree, same
 * errors) and, from the same read, put in items what tc_json_digest()
 * gives for each item of the array that the root object's member key
 * holds (none when it is absent or not an array).  An item that is not a
 * container, or whose digest tc_json_digest() would word differently (a
 * lone surrogate, a non-finite number or a duplicate key inside it), gets
 * "".  On NULL items is empty.
 */
tc_json *tc_json_parse_file_items_digest(const char *path, const char *key,
    tc_json_item_digests *items, tc_error *err);
void tc_json_item_digests_free(tc_json_item_digests *items);

/* Read a whole file / descriptor with read(2), at most TC_JSON_MAX_BYTES
 * (larger input fails with "JSON document too large: ...").  The result
 * is malloc'd and NUL-terminated.  OS errors as for tc_json_parse_file. */
char *tc_json_read_path(const char *path, size_t *len, tc_error *err);
char *tc_json_read_fd(int fd, size_t *len, tc_error *err);

/* Pretty JSON (tc_json_pretty) written atomically by tc_write_atomic()
 * (tunectl/fileio.h, whose TC_WRITE_* flags apply). */
int tc_write_json(const char *path, const tc_json *v, unsigned flags,
    tc_error *err);
/* The same with tc_write_atomic_at. */
int tc_write_json_at(int dirfd, const char *name, const char *display,
    const tc_json *v, unsigned flags, tc_error *err);

/* ---- writing ---------------------------------------------------------- */

enum {
	TC_JSON_ASCII	= 1 << 0,	/* ensure_ascii=True */
	TC_JSON_NO_NAN	= 1 << 1,	/* allow_nan=False: refuse NaN/Infinity */
	TC_JSON_INDENT	= 1 << 2,	/* indent=2, separators (",", ": ") */
	/* tc_json_reformat() only: error positions as tc_json_parse_text() */
	TC_JSON_TEXT_POSITIONS = 1 << 3
};

/* Append the serialisation of v (keys sorted) to out.  Without
 * TC_JSON_ASCII, a lone surrogate cannot be encoded as UTF-8 and fails
 * with Python's "'utf-8' codec can't encode character '\ud800' in
 * position N: surrogates not allowed" (N counted in the whole output).
 * TC_JSON_NO_NAN fails with "Out of range float values are not JSON
 * compliant".  Returns 0 or -1; on failure out is left as it was. */
int tc_json_write(tc_buf *out, const tc_json *v, unsigned flags, tc_error *err);

/* Read a document and append its serialisation in one pass without
 * building a tree: the bytes and errors of tc_json_parse() (or, with
 * TC_JSON_TEXT_POSITIONS, tc_json_parse_text()) followed by
 * tc_json_write(flags), several times faster.  Returns 0 or -1; on
 * failure out is left as it was. */
int tc_json_reformat(const char *text, size_t len, unsigned flags,
    tc_buf *out, tc_error *err);

/* Canonical form: sort_keys, compact, ensure_ascii=False.  malloc'd. */
char *tc_json_canonical(const tc_json *v, size_t *len, tc_error *err);

/* Pretty form of every file tunectl writes: indent=2, sort_keys,
 * ensure_ascii=False, plus one trailing "\n".  malloc'd. */
char *tc_json_pretty(const tc_json *v, size_t *len, tc_error *err);

/* Lowercase hex SHA-256 of the canonical form (65 bytes with NUL). */
int tc_json_digest(const tc_json *v, char hex[65], tc_error *err);

/* Same with extra writer flags (e.g. TC_JSON_ASCII | TC_JSON_NO_NAN). */
int tc_json_digest_flags(const tc_json *v, unsigned flags, char hex[65],
    tc_error *err);

/* ---- writing from the caller's own records ---------------------------
 *
 * A document too large to hold as a tree (one object per profiled
 * occurrence, say) keeps placeholders instead: null nodes whose identity
 * the caller knows.  The hooked writers call hook(ctx, node, e) for every
 * null node they meet; a hook that returns true has written one value in
 * its place through the emitter e, which puts out exactly the bytes the
 * writer would give a tree of that value (same flags, same indentation);
 * false lets the null go out as null.  The hook must close what it opens.
 *
 * The emitter writes keys as given: give them in sorted order, as the
 * writers would (another order is another document).  A non-finite
 * float under TC_JSON_NO_NAN fails the whole write with the usual
 * message; a lone surrogate in a string fails it as tc_json_write does.
 */
typedef struct tc_json_emitter tc_json_emitter;
typedef bool (*tc_json_hook)(void *ctx, const tc_json *placeholder,
    tc_json_emitter *e);

/* tc_json_write() and tc_json_digest_flags() with a hook (NULL: none). */
int tc_json_write_hook(tc_buf *out, const tc_json *v, unsigned flags,
    tc_json_hook hook, void *ctx, tc_error *err);
int tc_json_digest_hook(const tc_json *v, unsigned flags, tc_json_hook hook,
    void *ctx, char hex[65], tc_error *err);

/* Where a streamed write puts its text, piece by piece (about 32 KiB
 * each, the last one shorter): 0, or -1 with err set, which stops the
 * write. */
typedef int (*tc_json_sink)(void *ctx, const char *data, size_t len,
    tc_error *err);

/* tc_json_write_hook() for a document too large to hold as text: the
 * same bytes go to sink as they are written, and only a piece is kept
 * at a time.  Returns 0, or -1 with err (the writer's message, or the
 * sink's); on failure the sink may already have taken part of the text
 * (a lone surrogate is only found at the end), which the caller
 * discards. */
int tc_json_write_stream(const tc_json *v, unsigned flags, tc_json_hook hook,
    void *hook_ctx, tc_json_sink sink, void *sink_ctx, tc_error *err);

void tc_json_emit_object_begin(tc_json_emitter *e);
void tc_json_emit_object_end(tc_json_emitter *e);
void tc_json_emit_array_begin(tc_json_emitter *e);
void tc_json_emit_array_end(tc_json_emitter *e);
/* The next member's key; its value follows with one of the calls below. */
void tc_json_emit_key(tc_json_emitter *e, const char *key);
void tc_json_emit_null(tc_json_emitter *e);
void tc_json_emit_bool(tc_json_emitter *e, bool b);
void tc_json_emit_int(tc_json_emitter *e, int64_t v);
/* An integer given as its decimal digits (valid JSON, any size). */
void tc_json_emit_int_text(tc_json_emitter *e, const char *digits);
void tc_json_emit_float(tc_json_emitter *e, double v);
void tc_json_emit_string(tc_json_emitter *e, const char *s);
/* A whole tree (hooked too: its nulls reach the hook). */
void tc_json_emit_value(tc_json_emitter *e, const tc_json *v);

/*
 * The form e writes in (TC_JSON_ASCII, TC_JSON_NO_NAN, TC_JSON_INDENT),
 * and one value the caller rendered in that form itself: exactly the
 * bytes the calls above would put out for it here (the caller checks
 * NO_NAN and, without ASCII, lone surrogates).  For values written a
 * million times from parts that repeat; anything else should use the
 * calls above.
 */
unsigned tc_json_emit_flags(const tc_json_emitter *e);
void tc_json_emit_text(tc_json_emitter *e, const char *text, size_t len);

/*
 * An array of n items, item i written by fn(ctx, i, e, scratch) as one
 * value through e (scratch: a buffer fn may use, its thread's own).  A
 * digest or a stream of many items may render batches of them on a
 * second thread while the writer's thread renders the others: fn, and the
 * write's hook, must then be safe to call from two threads at once
 * (read what they share, write only through e and scratch).  The text
 * is the one a single thread writes.
 */
typedef void (*tc_json_item_fn)(void *ctx, size_t i, tc_json_emitter *e,
    tc_buf *scratch);
void tc_json_emit_items(tc_json_emitter *e, size_t n, tc_json_item_fn fn,
    void *ctx);
/* Whether tc_json_emit_items() may use that second thread: -1 (the
 * default) where four CPUs or more may run the process, 0 never, 1
 * always (tests of both ways).  Process-wide. */
void tc_json_items_threads(int mode);

/*
 * Members that many objects written through one emitter share (same keys,
 * same values, first in each object): rendered once, then copied into
 * each object in place of writing them again.  Render them for the
 * object that will be open `below` containers deeper than e is now (the
 * emitter's flags and indentation); the members are obj's (an object,
 * its nulls written as null, not handed to a hook).  Emit the fragment
 * right after tc_json_emit_object_begin() of such an object, before any
 * key; anywhere else aborts (the text would be wrong).  The fragment
 * holds only text: it may outlive obj, not the write.
 */
typedef struct tc_json_fragment {
	tc_buf text;
	size_t nmembers;
	size_t level;		/* the members' indentation level */
	bool surrogate;		/* a lone surrogate is in the text */
	bool nan_error;		/* a non-finite float under TC_JSON_NO_NAN */
} tc_json_fragment;

void tc_json_fragment_render(tc_json_fragment *f, const tc_json_emitter *e,
    size_t below, const tc_json *obj);
void tc_json_emit_fragment(tc_json_emitter *e, const tc_json_fragment *f);
void tc_json_fragment_free(tc_json_fragment *f);

/* Python repr() of the value, for messages: 'str', True, None, [1, 'a'],
 * {'k': 1} (keys in sorted order). */
void tc_json_repr(tc_buf *out, const tc_json *v);
/* Python str() of the value: a string as its text, anything else as
 * repr() (so lists and dicts show their items' repr). */
void tc_json_str(tc_buf *out, const tc_json *v);
/* Python repr() of a string value's WTF-8 bytes (tc_py_repr_str). */
static inline void
tc_json_repr_string(tc_buf *out, const char *s, size_t len)
{
	tc_py_repr_str(out, s, len, TC_UTF8_WTF8);
}

/* Python float repr (shortest round trip): "10.0", "1e-07", "inf", "nan". */
void tc_json_format_double(tc_buf *out, double d);
/* The same for the double nearest coef * 10^exp10, made from the
 * decimal's own digits: true when that is its text (coef below 10^15,
 * exp10 within +-280), else false with nothing written. */
bool tc_json_format_decimal(tc_buf *out, uint64_t coef, int exp10);

/* ---- building --------------------------------------------------------- */

tc_json *tc_json_new_null(void);
tc_json *tc_json_new_bool(bool b);
tc_json *tc_json_new_int(int64_t i);
tc_json *tc_json_new_int_text(const char *decimal);	/* must be valid */
tc_json *tc_json_new_float(double f);
/* An array of n floats. */
tc_json *tc_json_new_float_array(const double *v, size_t n);
tc_json *tc_json_new_string(const char *s);
tc_json *tc_json_new_stringn(const char *s, size_t len);
tc_json *tc_json_new_array(void);
tc_json *tc_json_new_object(void);

void tc_json_array_push(tc_json *arr, tc_json *item);
/* Insert or replace (the old value is freed). */
void tc_json_object_set(tc_json *obj, const char *key, tc_json *value);
void tc_json_object_setn(tc_json *obj, const char *key, size_t key_len,
    tc_json *value);
/* Convenience setters. */
void tc_json_object_set_string(tc_json *obj, const char *key, const char *s);
void tc_json_object_set_int(tc_json *obj, const char *key, int64_t i);
void tc_json_object_set_bool(tc_json *obj, const char *key, bool b);
void tc_json_object_set_null(tc_json *obj, const char *key);
/* s as a string, or null when s is NULL. */
void tc_json_object_set_string_or_null(tc_json *obj, const char *key,
    const char *s);
/* Remove and return a member (NULL if absent); caller owns the result. */
tc_json *tc_json_object_take(tc_json *obj, const char *key);
/* Remove and free a member; returns true if it existed. */
bool tc_json_object_remove(tc_json *obj, const char *key);

tc_json *tc_json_clone(const tc_json *v);
void tc_json_free(tc_json *v);

/* ---- querying --------------------------------------------------------- */

static inline bool tc_json_is(const tc_json *v, tc_json_type t)
{
	return v != NULL && v->type == t;
}

/* Member lookup (binary search); NULL if v is not an object or lacks key.
 * tc_json_get is inline so that a literal key's length is folded at
 * compile time (no strlen at each of the many lookups a command makes). */
tc_json *tc_json_getn(const tc_json *obj, const char *key, size_t key_len);
static inline tc_json *tc_json_get(const tc_json *obj, const char *key)
{
	return tc_json_getn(obj, key, strlen(key));
}

/* Typed member lookups: NULL / false when absent or of another type. */
const char *tc_json_get_string(const tc_json *obj, const char *key);
/* The member's string, or dflt when it is absent or not a string. */
const char *tc_json_get_string_or(const tc_json *obj, const char *key,
    const char *dflt);
tc_json *tc_json_get_object(const tc_json *obj, const char *key);
tc_json *tc_json_get_array(const tc_json *obj, const char *key);

/* The string of a TC_JSON_STRING node, else NULL. */
const char *tc_json_string(const tc_json *v);
/* true when v is an integer (not bool) that fits in int64_t. */
bool tc_json_int64(const tc_json *v, int64_t *out);
/* true when v is an int or float (not bool); ints are converted with
 * correct rounding, as Python's float(int) does (an int beyond the double
 * range, where float() raises OverflowError, gives +-inf). */
bool tc_json_number(const tc_json *v, double *out);

/* Python truthiness (bool(v)): null, false, 0, 0.0, "", [] and {} are
 * false; a NULL v (an absent member) is false too. */
bool tc_json_truthy(const tc_json *v);

/* Python == between JSON values: objects unordered, 1 == 1.0 == true,
 * ints against floats exactly, NaN != NaN at the top level.  Inside
 * arrays and objects two NaN compare equal, as json.loads('[NaN]') ==
 * json.loads('[NaN]') does in Python (one shared NaN object, and
 * containers compare elements by identity first). */
bool tc_json_equal(const tc_json *a, const tc_json *b);

/* RFC 6901 JSON Pointer lookup ("" is the whole document).  Returns NULL
 * when the pointer is malformed or does not resolve; err says which. */
tc_json *tc_json_pointer(const tc_json *root, const char *pointer,
    tc_error *err);

/* true when the UTF-8/WTF-8 bytes hold a lone surrogate. */
static inline bool
tc_json_has_surrogate(const char *s, size_t len)
{
	return tc_utf8_has_surrogate(s, len);
}

/* Decode one code point of a string value's WTF-8 bytes at s (n >= 1
 * bytes left): tc_utf8_decode() under TC_UTF8_WTF8 (a lone surrogate
 * decodes as itself, an ill-formed byte b as U+DC00+b). */
static inline size_t
tc_json_decode_cp(const char *s, size_t n, uint32_t *cp)
{
	return tc_utf8_decode(s, n, cp, TC_UTF8_WTF8);
}

const char *tc_json_type_name(tc_json_type t);	/* Python type names: "dict", "list", "str", "int", "float", "bool", "NoneType" */

#endif
