/*
 * tree.c - tc_json_parse(): build a tc_json tree from the reader's events.
 *
 * Array items and object members are collected on two stacks shared by the
 * whole parse and copied into exact-size arrays when their container
 * closes.  Members are then sorted by key (stable merge sort; input that is
 * already sorted costs one comparison per member) and duplicate keys are
 * dropped keeping the last, as a Python dict built from the pairs would.
 * Nodes, keys and the exact-size arrays are cut from a slab (slab.c).
 */
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* A finished value goes into the open container (or becomes the root). */
static void
add(struct tc_json__tree *t, tc_json *v)
{
	if (t->nframes == 0) {
		t->root = v;
	} else if (t->frames[t->nframes - 1].object) {
		t->mem[t->nmem - 1].value = v;
	} else {
		if (t->nitems == t->items_cap) {
			t->items_cap = t->items_cap ? t->items_cap * 2 : 256;
			t->items = tc_xrealloc(t->items, t->items_cap *
			    sizeof(*t->items));
		}
		t->items[t->nitems++] = v;
	}
}

static void
push_frame(struct tc_json__tree *t, bool object)
{
	if (t->nframes == t->frames_cap) {
		t->frames_cap = t->frames_cap ? t->frames_cap * 2 : 32;
		t->frames = tc_xrealloc(t->frames, t->frames_cap *
		    sizeof(*t->frames));
	}
	t->frames[t->nframes].object = object;
	t->frames[t->nframes].base = object ? t->nmem : t->nitems;
	t->nframes++;
}

static tc_json *
node(struct tc_json__tree *t, tc_json_type type)
{
	return tc_json__slab_node(&t->slab, type, NULL, 0);
}

static void
on_null(void *ctx)
{
	add(ctx, node(ctx, TC_JSON_NULL));
}

static void
on_bool(void *ctx, bool b)
{
	tc_json *v = node(ctx, TC_JSON_BOOL);

	v->u.b = b;
	add(ctx, v);
}

static void
on_int(void *ctx, const char *s, size_t len)
{
	struct tc_json__tree *t = ctx;

	add(t, tc_json__slab_node(&t->slab, TC_JSON_INT, s, len));
}

static void
on_float(void *ctx, double d)
{
	tc_json *v = node(ctx, TC_JSON_FLOAT);

	v->u.f = d;
	add(ctx, v);
}

static void
on_numeral(void *ctx, const char *s, size_t len)
{
	on_float(ctx, tc_json__parse_double(s, len));
}

static void
on_string(void *ctx, const char *s, size_t len, bool raw)
{
	struct tc_json__tree *t = ctx;

	(void)raw;	/* the tree copies the bytes either way */
	add(t, tc_json__slab_node(&t->slab, TC_JSON_STRING, s, len));
}

static void
on_begin_array(void *ctx)
{
	push_frame(ctx, false);
}

static void
on_end_array(void *ctx)
{
	struct tc_json__tree *t = ctx;
	size_t base = t->frames[--t->nframes].base;
	size_t n = t->nitems - base;
	tc_json *arr = node(t, TC_JSON_ARRAY);

	if (n > 0) {
		arr->u.arr.items = tc_json__slab_alloc(&t->slab, n *
		    sizeof(*arr->u.arr.items));
		memcpy(arr->u.arr.items, t->items + base, n *
		    sizeof(*arr->u.arr.items));
		arr->alloc |= TC_JSON__SLAB_KIDS;
	}
	arr->u.arr.len = arr->u.arr.cap = n;
	t->nitems = base;
	add(t, arr);
}

static void
on_begin_object(void *ctx)
{
	push_frame(ctx, true);
}

static void
on_key(void *ctx, const char *s, size_t len, bool raw)
{
	struct tc_json__tree *t = ctx;
	tc_json_member *m;

	(void)raw;
	if (t->nmem == t->mem_cap) {
		t->mem_cap = t->mem_cap ? t->mem_cap * 2 : 256;
		t->mem = tc_xrealloc(t->mem, t->mem_cap * sizeof(*t->mem));
	}
	m = &t->mem[t->nmem++];
	m->key = tc_json__slab_alloc(&t->slab, len + 1);
	memcpy(m->key, s, len);
	m->key[len] = '\0';
	m->key_len = len;
	m->value = NULL;
	m->head = tc_json__key_head(s, len);
}

static int
member_cmp(const tc_json_member *a, const tc_json_member *b)
{
	return tc_json__member_cmp(a, b->key, b->key_len, b->head);
}

/* Stable merge sort of m[0..n) by key, using tmp[0..n/2]. */
static void
sort_members(tc_json_member *m, size_t n, tc_json_member *tmp)
{
	size_t mid, i, j, k;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			tc_json_member x = m[i];

			for (j = i; j > 0 && member_cmp(&m[j - 1], &x) > 0; j--)
				m[j] = m[j - 1];
			m[j] = x;
		}
		return;
	}
	mid = n / 2;
	sort_members(m, mid, tmp);
	sort_members(m + mid, n - mid, tmp);
	if (member_cmp(&m[mid - 1], &m[mid]) <= 0)
		return;
	memcpy(tmp, m, mid * sizeof(*m));
	i = 0;
	j = mid;
	k = 0;
	while (i < mid && j < n) {
		/* on equal keys the earlier member goes first: stable */
		if (member_cmp(&m[j], &tmp[i]) < 0)
			m[k++] = m[j++];
		else
			m[k++] = tmp[i++];
	}
	while (i < mid)
		m[k++] = tmp[i++];
}

/* Sort m[0..n) and drop all but the last of equal keys; returns new n. */
static size_t
sort_and_dedupe(struct tc_json__tree *t, tc_json_member *m, size_t n)
{
	size_t i, out;

	for (i = 1; i < n; i++)
		if (member_cmp(&m[i - 1], &m[i]) >= 0)
			break;
	if (i >= n)
		return n;
	if (t->sort_tmp_cap < n) {
		free(t->sort_tmp);
		t->sort_tmp_cap = n;
		t->sort_tmp = tc_xmalloc(n * sizeof(*t->sort_tmp));
	}
	sort_members(m, n, t->sort_tmp);
	out = 0;
	for (i = 0; i < n; i++) {
		if (i + 1 < n && member_cmp(&m[i], &m[i + 1]) == 0) {
			tc_json__slab_release(m[i].key);
			tc_json_free(m[i].value);
			continue;
		}
		m[out++] = m[i];
	}
	return out;
}

static void
on_end_object(void *ctx)
{
	struct tc_json__tree *t = ctx;
	size_t base = t->frames[--t->nframes].base;
	size_t n = t->nmem - base;
	tc_json *obj = node(t, TC_JSON_OBJECT);

	if (n > 0)
		n = sort_and_dedupe(t, t->mem + base, n);

	if (n > 0) {
		obj->u.obj.members = tc_json__slab_alloc(&t->slab, n *
		    sizeof(*obj->u.obj.members));
		memcpy(obj->u.obj.members, t->mem + base, n *
		    sizeof(*obj->u.obj.members));
		obj->alloc |= TC_JSON__SLAB_KIDS;
	}
	obj->u.obj.len = obj->u.obj.cap = n;
	t->nmem = base;
	add(t, obj);
}

const struct tc_json__sink tc_json__tree_sink = {
	on_null, on_bool, on_int, on_float, on_numeral, on_string,
	on_begin_array, on_end_array, on_begin_object, on_key, on_end_object
};

tc_json *
tc_json__tree_finish(struct tc_json__tree *t, bool read_ok)
{
	size_t i;

	if (!read_ok) {
		/* Discard the partial document. */
		for (i = 0; i < t->nitems; i++)
			tc_json_free(t->items[i]);
		for (i = 0; i < t->nmem; i++) {
			tc_json__slab_release(t->mem[i].key);
			tc_json_free(t->mem[i].value);
		}
		tc_json_free(t->root);
		t->root = NULL;
	}
	tc_json__slab_done(&t->slab);
	free(t->frames);
	free(t->items);
	free(t->mem);
	free(t->sort_tmp);
	return t->root;
}

static tc_json *
parse(const char *text, size_t len, bool text_mode, tc_error *err)
{
	struct tc_json__tree t;

	memset(&t, 0, sizeof(t));
	return tc_json__tree_finish(&t, tc_json__read(text, len, text_mode,
	    &tc_json__tree_sink, &t, err));
}

tc_json *
tc_json_parse(const char *text, size_t len, tc_error *err)
{
	return parse(text, len, false, err);
}

tc_json *
tc_json_parse_text(const char *text, size_t len, tc_error *err)
{
	return parse(text, len, true, err);
}
