/*
 * parse_digest.c - tc_json_parse_file_digest(): one read of a document
 * gives both its canonical digest and a tree of what the caller's rules
 * look at.
 *
 * The reader's events go to two sinks: the canonical writer (canonical.c)
 * sees every one, so the digest is that of the whole document (when the
 * caller wants one); the tree builder (tree.c) sees every one except the
 * contents of the top-level members the caller names as "type only".
 * Such a member still reaches the tree as an empty array or object (a
 * scalar is kept whole), so a rule that checks its type gets the same
 * answer as with a full parse, while its items cost neither nodes nor
 * memory.
 */
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"
#include "tunectl/sha256.h"

struct split {
	struct tc_json__canon canon;
	struct tc_json__tree tree;
	const char *const *type_only;
	size_t depth;		/* containers open, the root included */
	size_t skip_at;		/* depth inside a type-only container, or 0 */
	bool digest;		/* canon gets the events too */
	bool next_is_type_only;	/* the last root key was one of them */
};

/* Does the tree get this event?  Inside a type-only container it does
 * not: the container itself arrives, its contents do not. */
static inline bool
to_tree(const struct split *x)
{
	return x->skip_at == 0;
}

/* A scalar value arrives: does the tree get it too?  A type-only member
 * that is a scalar is kept whole (it costs one node). */
static bool
scalar_to_tree(struct split *x)
{
	x->next_is_type_only = false;
	return to_tree(x);
}

static void
on_null(void *ctx)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.null_value(&x->canon);
	if (scalar_to_tree(x))
		tc_json__tree_sink.null_value(&x->tree);
}

static void
on_bool(void *ctx, bool b)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.bool_value(&x->canon, b);
	if (scalar_to_tree(x))
		tc_json__tree_sink.bool_value(&x->tree, b);
}

static void
on_int(void *ctx, const char *s, size_t len)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.int_value(&x->canon, s, len);
	if (scalar_to_tree(x))
		tc_json__tree_sink.int_value(&x->tree, s, len);
}

static void
on_float(void *ctx, double d)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.float_value(&x->canon, d);
	if (scalar_to_tree(x))
		tc_json__tree_sink.float_value(&x->tree, d);
}

static void
on_numeral(void *ctx, const char *s, size_t len)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.numeral(&x->canon, s, len);
	if (scalar_to_tree(x))
		tc_json__tree_sink.numeral(&x->tree, s, len);
}

static void
on_string(void *ctx, const char *s, size_t len, bool raw)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.string_value(&x->canon, s, len, raw);
	if (scalar_to_tree(x))
		tc_json__tree_sink.string_value(&x->tree, s, len, raw);
}

static void
begin(struct split *x, bool object)
{
	if (x->digest && object)
		tc_json__canon_sink.begin_object(&x->canon);
	else if (x->digest)
		tc_json__canon_sink.begin_array(&x->canon);
	x->depth++;
	if (!to_tree(x))
		return;
	if (object)
		tc_json__tree_sink.begin_object(&x->tree);
	else
		tc_json__tree_sink.begin_array(&x->tree);
	if (x->next_is_type_only)
		x->skip_at = x->depth;
	x->next_is_type_only = false;
}

static void
end(struct split *x, bool object)
{
	if (x->digest && object)
		tc_json__canon_sink.end_object(&x->canon);
	else if (x->digest)
		tc_json__canon_sink.end_array(&x->canon);
	if (x->skip_at == x->depth)
		x->skip_at = 0;		/* the type-only container closes */
	x->depth--;
	if (!to_tree(x))
		return;
	if (object)
		tc_json__tree_sink.end_object(&x->tree);
	else
		tc_json__tree_sink.end_array(&x->tree);
}

static void
on_begin_array(void *ctx)
{
	begin(ctx, false);
}

static void
on_end_array(void *ctx)
{
	end(ctx, false);
}

static void
on_begin_object(void *ctx)
{
	begin(ctx, true);
}

static void
on_end_object(void *ctx)
{
	end(ctx, true);
}

static bool
named(const char *const *list, const char *s, size_t len)
{
	for (; list != NULL && *list != NULL; list++)
		if (strlen(*list) == len && memcmp(*list, s, len) == 0)
			return true;
	return false;
}

static void
on_key(void *ctx, const char *s, size_t len, bool raw)
{
	struct split *x = ctx;

	if (x->digest)
		tc_json__canon_sink.key(&x->canon, s, len, raw);
	if (!to_tree(x))
		return;
	tc_json__tree_sink.key(&x->tree, s, len, raw);
	x->next_is_type_only = x->depth == 1 && named(x->type_only, s, len);
}

static const struct tc_json__sink split_sink = {
	on_null, on_bool, on_int, on_float, on_numeral, on_string,
	on_begin_array, on_end_array, on_begin_object, on_key, on_end_object
};

tc_json *
tc_json_parse_file_digest(const char *path, const char *const *type_only,
    char hex[65], tc_error *err)
{
	struct split x;
	tc_buf canonical = TC_BUF_INIT;
	size_t len;
	char *text = tc_json_read_path(path, &len, err);
	tc_json *root;
	bool ok;

	if (text == NULL)
		return NULL;
	memset(&x, 0, sizeof(x));
	x.type_only = type_only;
	x.digest = hex != NULL;
	/* Compact, sorted, ensure_ascii=False: tc_json_digest()'s form. */
	if (x.digest)
		tc_json__canon_init(&x.canon, TC_JSON_TEXT_POSITIONS,
		    &canonical, len);
	ok = tc_json__read(text, len, true, &split_sink, &x, err);
	root = tc_json__tree_finish(&x.tree, ok);
	if (x.digest) {
		if (tc_json__canon_finish(&x.canon, ok, text, len, err) == 0) {
			tc_sha256_hex(canonical.data, canonical.len, hex);
		} else {
			/* a reading error, or the writer's (a lone
			 * surrogate) */
			tc_json_free(root);
			root = NULL;
		}
	}
	tc_buf_free(&canonical);
	free(text);
	return root;
}
