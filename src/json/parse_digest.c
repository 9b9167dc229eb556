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
 *
 * tc_json_parse_file_items_digest() instead gives the canonical digest of
 * each item of one top-level array member (a sidecar's records, whose
 * chain links digest each record): the canonical writer sees the events
 * of one item at a time, and the item's text is hashed when it closes.
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
	/* items mode (items_key set): the canonical writer gets the events
	 * of one item of the root's items_key array at a time */
	const char *items_key;
	bool next_is_items;	/* the last root key was items_key */
	bool in_items;		/* inside its array (depth 2) */
	tc_json_item_digests *items;
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
static void item_scalar(struct split *x);

static bool
scalar_to_tree(struct split *x)
{
	x->next_is_type_only = false;
	if (x->items_key != NULL)
		item_scalar(x);
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

/* ---- items mode ---------------------------------------------------- */

static void
item_push(struct split *x, const char *hex)
{
	tc_json_item_digests *d = x->items;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->hex = tc_xrealloc(d->hex, d->cap * sizeof(*d->hex));
	}
	/* a digest, or "" for an item digested later: copy what is there */
	memcpy(d->hex[d->n++], hex, strnlen(hex, 64) + 1);
}

/* A scalar arrives: an item of the array has no digest taken here (the
 * caller digests it from the tree), and a root member is not the array. */
static void
item_scalar(struct split *x)
{
	if (x->in_items && x->depth == 2)
		item_push(x, "");
	x->next_is_items = false;
}

/* A container opens (depth not yet counted): the array, or one of its
 * items, whose events the canonical writer now gets as a document of
 * its own. */
static void
item_begin(struct split *x, bool object)
{
	if (x->depth == 1 && x->next_is_items) {
		/* a duplicate key: the last one is the tree's */
		x->next_is_items = false;
		x->items->n = 0;
		x->in_items = !object;
		return;
	}
	x->next_is_items = false;
	if (!x->in_items || x->depth != 2)
		return;
	x->canon.out->len = 0;
	x->canon.nan_seen = x->canon.dup_dropped = x->canon.surrogate = false;
	x->digest = true;
}

/* A container has closed (depth not yet uncounted): an item's text is
 * complete and hashed, unless it holds what tc_json_digest() words
 * differently (a lone surrogate, a non-finite number, a duplicate key:
 * left to the caller). */
static void
item_end(struct split *x)
{
	char hex[65] = "";

	if (x->in_items && x->depth == 2) {
		x->in_items = false;
		return;
	}
	if (!x->in_items || x->depth != 3)
		return;
	if (!x->canon.nan_seen && !x->canon.dup_dropped &&
	    !x->canon.surrogate)
		tc_sha256_hex(x->canon.out->data, x->canon.out->len, hex);
	item_push(x, hex);
	x->digest = false;
}

/* ---- both modes ---------------------------------------------------- */

static void
begin(struct split *x, bool object)
{
	if (x->items_key != NULL)
		item_begin(x, object);
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
	if (x->items_key != NULL)
		item_end(x);
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
	if (x->items_key != NULL && x->depth == 1)
		x->next_is_items = strlen(x->items_key) == len &&
		    memcmp(x->items_key, s, len) == 0;
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

tc_json *
tc_json_parse_file_items_digest(const char *path, const char *key,
    tc_json_item_digests *items, tc_error *err)
{
	struct split x;
	tc_error ignored = TC_ERROR_INIT;
	tc_buf canonical = TC_BUF_INIT;
	size_t len;
	char *text = tc_json_read_path(path, &len, err);
	tc_json *root;
	bool ok;

	memset(items, 0, sizeof(*items));
	if (text == NULL)
		return NULL;
	memset(&x, 0, sizeof(x));
	x.items_key = key;
	x.items = items;
	tc_json__canon_init(&x.canon, 0, &canonical, len);
	ok = tc_json__read(text, len, true, &split_sink, &x, err);
	root = tc_json__tree_finish(&x.tree, ok);
	/* the items were checked one by one; this only frees */
	x.canon.surrogate = false;
	(void)tc_json__canon_finish(&x.canon, ok, text, len, &ignored);
	tc_error_clear(&ignored);
	/* an earlier duplicate of key may have been the array */
	if (root == NULL || !tc_json_is(tc_json_get(root, key), TC_JSON_ARRAY))
		tc_json_item_digests_free(items);
	tc_buf_free(&canonical);
	free(text);
	return root;
}

void
tc_json_item_digests_free(tc_json_item_digests *items)
{
	free(items->hex);
	memset(items, 0, sizeof(*items));
}
