/*
 * value.c - the tc_json value model: constructors, ownership (free,
 * clone), object and array editing, and typed lookups.
 *
 * A string node and an integer node are one allocation: the bytes live
 * right after the struct (see tc_json__new_inline), which halves the
 * allocations of a parsed document.  Objects keep their members sorted by
 * key bytes (code point order), so lookups are binary searches and every
 * writer emits sorted keys for free.
 *
 * A parsed document is cut from shared chunks (slab.c): its nodes, item
 * and member arrays and keys are released to their chunk, not freed, and
 * an array or object moves its items or members to malloc'd memory the
 * first time it grows (unshare_items, unshare_members).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

tc_json *
tc_json__new_node(tc_json_type t)
{
	tc_json *v = tc_xcalloc(1, sizeof(*v));

	v->type = t;
	return v;
}

tc_json *
tc_json__new_inline(tc_json_type t, const char *s, size_t len)
{
	return tc_json__fill_inline(tc_xmalloc(sizeof(tc_json) + len + 1), t,
	    s, len);
}

tc_json *
tc_json__fill_inline(void *mem, tc_json_type t, const char *s, size_t len)
{
	tc_json *v = mem;
	char *p = (char *)(v + 1);

	memset(v, 0, sizeof(*v));
	v->type = t;
	if (t != TC_JSON_STRING && t != TC_JSON_INT)
		return v;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	if (t == TC_JSON_STRING) {
		v->u.str.ptr = p;
		v->u.str.len = len;
	} else {
		v->u.int_text = p;
	}
	return v;
}

static bool
is_inline(const tc_json *v, const char *p)
{
	return p == (const char *)(v + 1);
}

/* free() or release a piece of v, by where v keeps it. */
static void
free_piece(const tc_json *v, unsigned flag, void *p)
{
	if (p == NULL)
		return;
	if (v->alloc & flag)
		tc_json__slab_release(p);
	else
		free(p);
}

/* Before an array grows: its items into malloc'd memory. */
static void
unshare_items(tc_json *arr)
{
	tc_json **items;

	if (!(arr->alloc & TC_JSON__SLAB_KIDS))
		return;
	items = tc_xmalloc((arr->u.arr.len + 1) * sizeof(*items));
	memcpy(items, arr->u.arr.items, arr->u.arr.len * sizeof(*items));
	tc_json__slab_release(arr->u.arr.items);
	arr->u.arr.items = items;
	arr->u.arr.cap = arr->u.arr.len + 1;
	arr->alloc &= ~TC_JSON__SLAB_KIDS;
}

/* Before an object gains a member: its members and keys into malloc'd
 * memory. */
static void
unshare_members(tc_json *obj)
{
	tc_json_member *m;
	size_t i, n = obj->u.obj.len;

	if (!(obj->alloc & TC_JSON__SLAB_KIDS))
		return;
	m = tc_xmalloc((n + 1) * sizeof(*m));
	for (i = 0; i < n; i++) {
		m[i] = obj->u.obj.members[i];
		m[i].key = tc_xstrndup(m[i].key, m[i].key_len);
		tc_json__slab_release(obj->u.obj.members[i].key);
	}
	tc_json__slab_release(obj->u.obj.members);
	obj->u.obj.members = m;
	obj->u.obj.cap = n + 1;
	obj->alloc &= ~TC_JSON__SLAB_KIDS;
}

/* ---- constructors ------------------------------------------------------- */

tc_json *
tc_json_new_null(void)
{
	return tc_json__new_node(TC_JSON_NULL);
}

tc_json *
tc_json_new_bool(bool b)
{
	tc_json *v = tc_json__new_node(TC_JSON_BOOL);

	v->u.b = b;
	return v;
}

tc_json *
tc_json_new_int(int64_t i)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)i);

	return tc_json__new_inline(TC_JSON_INT, tmp, (size_t)n);
}

static bool
valid_int_text(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		return s[1] == '\0';
	if (*s < '1' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	return *s == '\0';
}

tc_json *
tc_json_new_int_text(const char *decimal)
{
	if (!valid_int_text(decimal)) {
		fprintf(stderr, "tunectl: internal error: invalid integer "
		    "text '%s'\n", decimal);
		abort();
	}
	if (strcmp(decimal, "-0") == 0)
		decimal = "0";
	return tc_json__new_inline(TC_JSON_INT, decimal, strlen(decimal));
}

tc_json *
tc_json_new_float(double f)
{
	tc_json *v = tc_json__new_node(TC_JSON_FLOAT);

	v->u.f = f;
	return v;
}

tc_json *
tc_json_new_float_array(const double *v, size_t n)
{
	tc_json *a = tc_json_new_array();

	for (size_t i = 0; i < n; i++)
		tc_json_array_push(a, tc_json_new_float(v[i]));
	return a;
}

tc_json *
tc_json_new_string(const char *s)
{
	return tc_json__new_inline(TC_JSON_STRING, s, strlen(s));
}

tc_json *
tc_json_new_stringn(const char *s, size_t len)
{
	return tc_json__new_inline(TC_JSON_STRING, s, len);
}

tc_json *
tc_json_new_array(void)
{
	return tc_json__new_node(TC_JSON_ARRAY);
}

tc_json *
tc_json_new_object(void)
{
	return tc_json__new_node(TC_JSON_OBJECT);
}

/* ---- ownership ---------------------------------------------------------- */

void
tc_json_free(tc_json *v)
{
	size_t i;

	if (v == NULL)
		return;
	switch (v->type) {
	case TC_JSON_INT:
		if (!is_inline(v, v->u.int_text))
			free(v->u.int_text);
		break;
	case TC_JSON_STRING:
		if (!is_inline(v, v->u.str.ptr))
			free(v->u.str.ptr);
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++)
			tc_json_free(v->u.arr.items[i]);
		free_piece(v, TC_JSON__SLAB_KIDS, v->u.arr.items);
		break;
	case TC_JSON_OBJECT:
		for (i = 0; i < v->u.obj.len; i++) {
			free_piece(v, TC_JSON__SLAB_KIDS,
			    v->u.obj.members[i].key);
			tc_json_free(v->u.obj.members[i].value);
		}
		free_piece(v, TC_JSON__SLAB_KIDS, v->u.obj.members);
		break;
	case TC_JSON_NULL:
	case TC_JSON_BOOL:
	case TC_JSON_FLOAT:
		break;
	}
	free_piece(v, TC_JSON__SLAB_NODE, v);
}

tc_json *
tc_json_clone(const tc_json *v)
{
	tc_json *c;
	size_t i;

	if (v == NULL)
		return NULL;
	switch (v->type) {
	case TC_JSON_INT:
		return tc_json__new_inline(TC_JSON_INT, v->u.int_text,
		    strlen(v->u.int_text));
	case TC_JSON_STRING:
		return tc_json__new_inline(TC_JSON_STRING, v->u.str.ptr,
		    v->u.str.len);
	case TC_JSON_ARRAY:
		c = tc_json__new_node(TC_JSON_ARRAY);
		if (v->u.arr.len > 0) {
			c->u.arr.items = tc_xmalloc(v->u.arr.len *
			    sizeof(*c->u.arr.items));
			for (i = 0; i < v->u.arr.len; i++)
				c->u.arr.items[i] = tc_json_clone(v->u.arr.items[i]);
		}
		c->u.arr.len = c->u.arr.cap = v->u.arr.len;
		return c;
	case TC_JSON_OBJECT:
		c = tc_json__new_node(TC_JSON_OBJECT);
		if (v->u.obj.len > 0) {
			c->u.obj.members = tc_xmalloc(v->u.obj.len *
			    sizeof(*c->u.obj.members));
			for (i = 0; i < v->u.obj.len; i++) {
				const tc_json_member *m = &v->u.obj.members[i];

				c->u.obj.members[i].key =
				    tc_xstrndup(m->key, m->key_len);
				c->u.obj.members[i].key_len = m->key_len;
				c->u.obj.members[i].value = tc_json_clone(m->value);
				c->u.obj.members[i].head = m->head;
			}
		}
		c->u.obj.len = c->u.obj.cap = v->u.obj.len;
		return c;
	case TC_JSON_NULL:
	case TC_JSON_BOOL:
	case TC_JSON_FLOAT:
		break;
	}
	c = tc_json__new_node(v->type);
	c->u = v->u;
	return c;
}

/* ---- arrays and objects ------------------------------------------------- */

void
tc_json_array_push(tc_json *arr, tc_json *item)
{
	unshare_items(arr);
	if (arr->u.arr.len == arr->u.arr.cap) {
		arr->u.arr.cap = arr->u.arr.cap ? arr->u.arr.cap * 2 : 4;
		arr->u.arr.items = tc_xrealloc(arr->u.arr.items,
		    arr->u.arr.cap * sizeof(*arr->u.arr.items));
	}
	arr->u.arr.items[arr->u.arr.len++] = item;
}

/* Index of key in obj, or -(insertion point) - 1. */
static ptrdiff_t
find_member(const tc_json *obj, const char *key, size_t key_len)
{
	size_t lo = 0, hi = obj->u.obj.len;
	uint64_t head = tc_json__key_head(key, key_len);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const tc_json_member *m = &obj->u.obj.members[mid];
		int c = tc_json__member_cmp(m, key, key_len, head);

		if (c == 0)
			return (ptrdiff_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(ptrdiff_t)lo - 1;
}

void
tc_json_object_setn(tc_json *obj, const char *key, size_t key_len,
    tc_json *value)
{
	ptrdiff_t i = find_member(obj, key, key_len);
	size_t at;
	tc_json_member *m;

	if (i >= 0) {
		m = &obj->u.obj.members[i];
		if (m->value != value)
			tc_json_free(m->value);
		m->value = value;
		return;
	}
	at = (size_t)(-i - 1);
	unshare_members(obj);
	if (obj->u.obj.len == obj->u.obj.cap) {
		obj->u.obj.cap = obj->u.obj.cap ? obj->u.obj.cap * 2 : 4;
		obj->u.obj.members = tc_xrealloc(obj->u.obj.members,
		    obj->u.obj.cap * sizeof(*obj->u.obj.members));
	}
	m = obj->u.obj.members;
	memmove(&m[at + 1], &m[at], (obj->u.obj.len - at) * sizeof(*m));
	m[at].key = tc_xstrndup(key, key_len);
	m[at].key_len = key_len;
	m[at].value = value;
	m[at].head = tc_json__key_head(key, key_len);
	obj->u.obj.len++;
}

void
tc_json_object_set(tc_json *obj, const char *key, tc_json *value)
{
	tc_json_object_setn(obj, key, strlen(key), value);
}

void
tc_json_object_set_string(tc_json *obj, const char *key, const char *s)
{
	tc_json_object_set(obj, key, tc_json_new_string(s));
}

void
tc_json_object_set_int(tc_json *obj, const char *key, int64_t i)
{
	tc_json_object_set(obj, key, tc_json_new_int(i));
}

void
tc_json_object_set_bool(tc_json *obj, const char *key, bool b)
{
	tc_json_object_set(obj, key, tc_json_new_bool(b));
}

void
tc_json_object_set_null(tc_json *obj, const char *key)
{
	tc_json_object_set(obj, key, tc_json_new_null());
}

void
tc_json_object_set_string_or_null(tc_json *obj, const char *key,
    const char *s)
{
	tc_json_object_set(obj, key, s != NULL ? tc_json_new_string(s) :
	    tc_json_new_null());
}

tc_json *
tc_json_object_take(tc_json *obj, const char *key)
{
	ptrdiff_t i;
	tc_json_member *m;
	tc_json *v;

	if (!tc_json_is(obj, TC_JSON_OBJECT))
		return NULL;
	if ((i = find_member(obj, key, strlen(key))) < 0)
		return NULL;
	m = obj->u.obj.members;
	v = m[i].value;
	free_piece(obj, TC_JSON__SLAB_KIDS, m[i].key);
	memmove(&m[i], &m[i + 1], (obj->u.obj.len - (size_t)i - 1) *
	    sizeof(*m));
	obj->u.obj.len--;
	return v;
}

bool
tc_json_object_remove(tc_json *obj, const char *key)
{
	tc_json *v;

	if (!tc_json_is(obj, TC_JSON_OBJECT))
		return false;
	if (find_member(obj, key, strlen(key)) < 0)
		return false;
	v = tc_json_object_take(obj, key);
	tc_json_free(v);
	return true;
}

/* ---- queries ------------------------------------------------------------ */

tc_json *
tc_json_getn(const tc_json *obj, const char *key, size_t key_len)
{
	ptrdiff_t i;

	if (!tc_json_is(obj, TC_JSON_OBJECT))
		return NULL;
	i = find_member(obj, key, key_len);
	return i >= 0 ? obj->u.obj.members[i].value : NULL;
}

const char *
tc_json_get_string(const tc_json *obj, const char *key)
{
	return tc_json_string(tc_json_get(obj, key));
}

const char *
tc_json_get_string_or(const tc_json *obj, const char *key, const char *dflt)
{
	const char *s = tc_json_string(tc_json_get(obj, key));

	return s != NULL ? s : dflt;
}

tc_json *
tc_json_get_object(const tc_json *obj, const char *key)
{
	tc_json *v = tc_json_get(obj, key);

	return tc_json_is(v, TC_JSON_OBJECT) ? v : NULL;
}

tc_json *
tc_json_get_array(const tc_json *obj, const char *key)
{
	tc_json *v = tc_json_get(obj, key);

	return tc_json_is(v, TC_JSON_ARRAY) ? v : NULL;
}

const char *
tc_json_string(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_STRING) ? v->u.str.ptr : NULL;
}

bool
tc_json_int64(const tc_json *v, int64_t *out)
{
	const char *s;
	bool neg;
	uint64_t acc = 0, limit;

	if (!tc_json_is(v, TC_JSON_INT))
		return false;
	s = v->u.int_text;
	neg = *s == '-';
	if (neg)
		s++;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s != '\0'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (acc > (limit - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	if (out != NULL)
		*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return true;
}

bool
tc_json_number(const tc_json *v, double *out)
{
	double d;

	if (tc_json_is(v, TC_JSON_FLOAT)) {
		d = v->u.f;
	} else if (tc_json_is(v, TC_JSON_INT)) {
		/* Decimal text read as a float is rounded once, correctly,
		 * like float(int); out-of-range values give +-inf. */
		const char *s = v->u.int_text;
		size_t len = strlen(s);
		int64_t i;

		if (tc_json_int64(v, &i) && i > -(INT64_C(1) << 53) &&
		    i < (INT64_C(1) << 53))
			d = (double)i;
		else
			d = tc_json__parse_double(s, len);
	} else {
		return false;
	}
	if (out != NULL)
		*out = d;
	return true;
}

const char *
tc_json_type_name(tc_json_type t)
{
	switch (t) {
	case TC_JSON_NULL:
		return "NoneType";
	case TC_JSON_BOOL:
		return "bool";
	case TC_JSON_INT:
		return "int";
	case TC_JSON_FLOAT:
		return "float";
	case TC_JSON_STRING:
		return "str";
	case TC_JSON_ARRAY:
		return "list";
	case TC_JSON_OBJECT:
		return "dict";
	}
	return "object";
}

bool
tc_json_truthy(const tc_json *v)
{
	if (v == NULL)
		return false;
	switch (v->type) {
	case TC_JSON_NULL:
		return false;
	case TC_JSON_BOOL:
		return v->u.b;
	case TC_JSON_INT:
		return strcmp(v->u.int_text, "0") != 0;
	case TC_JSON_FLOAT:
		return v->u.f != 0.0;
	case TC_JSON_STRING:
		return v->u.str.len > 0;
	case TC_JSON_ARRAY:
		return v->u.arr.len > 0;
	case TC_JSON_OBJECT:
		return v->u.obj.len > 0;
	}
	return false;
}
