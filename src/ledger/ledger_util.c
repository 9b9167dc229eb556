/*
 * ledger_util.c - the experiment ledger's small building blocks: Python
 * string semantics (str(), truthiness, ==; strip is tunectl/text.h),
 * sorted string sets and maps, error lists, the JSON value scan and
 * canonical comparisons.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

/* ---- strings ------------------------------------------------------------ */

bool
tc_ledger__string(const tc_json *v, const char **s, size_t *n)
{
	if (!tc_json_is(v, TC_JSON_STRING))
		return false;
	*s = v->u.str.ptr;
	*n = v->u.str.len;
	return true;
}

bool
tc_ledger__is(const tc_json *v, const char *s)
{
	size_t n = strlen(s);

	return tc_json_is(v, TC_JSON_STRING) && v->u.str.len == n &&
	    memcmp(v->u.str.ptr, s, n) == 0;
}

bool
tc_ledger__in(const tc_json *v, const char *const *list)
{
	for (; *list != NULL; list++)
		if (tc_ledger__is(v, *list))
			return true;
	return false;
}

bool
tc_ledger__eq(const tc_json *a, const tc_json *b)
{
	if (a == NULL || b == NULL) {
		const tc_json *o = a == NULL ? b : a;

		return o == NULL || o->type == TC_JSON_NULL;
	}
	return tc_json_equal(a, b);
}

bool
tc_ledger__has_surrounding_ws(const tc_json *v)
{
	const char *s;
	size_t n, a, b;

	if (!tc_ledger__string(v, &s, &n))
		return false;
	tc_py_strip(s, n, &a, &b);
	return a != 0 || b != n;
}

bool
tc_ledger__unhashable(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_ARRAY) || tc_json_is(v, TC_JSON_OBJECT);
}

char *
tc_ledger__posix(const tc_json *v)
{
	const char *s;
	size_t n;
	char *tmp, *out;

	if (!tc_ledger__string(v, &s, &n))
		return NULL;
	tmp = tc_xstrndup(s, n);
	out = tc_path_normalize(tmp);
	free(tmp);
	return out;
}

char *
tc_ledger__unhashable_message(const tc_json *v)
{
	return tc_xasprintf(TC_LEDGER_EXCEPTION_PREFIX
	    "TypeError: unhashable type: '%s'",
	    tc_json_is(v, TC_JSON_ARRAY) ? "list" : "dict");
}

/* ---- sets --------------------------------------------------------------- */

/*
 * Sets and maps are hash tables over an item array in insertion order
 * (open addressing, FNV-1a), sorted lazily when an order is needed, so
 * that hostile documents with huge collections stay O(n log n).
 */

static int
str_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return c;
	return an < bn ? -1 : an > bn ? 1 : 0;
}

static uint64_t
str_hash(const char *p, size_t n)
{
	uint64_t h = UINT64_C(1469598103934665603);
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Slot of (p, n) in a table of `nslots` (a power of two) over keys:
 * the slot holding it, or the empty slot where it would go. */
static size_t
probe(const size_t *slots, size_t nslots, const lx_str *keys, const char *p,
    size_t n)
{
	size_t i = (size_t)str_hash(p, n) & (nslots - 1);

	for (;;) {
		size_t k = slots[i];

		if (k == 0 || (keys[k - 1].n == n &&
		    memcmp(keys[k - 1].p, p, n) == 0))
			return i;
		i = (i + 1) & (nslots - 1);
	}
}

static void
rehash(size_t **slots, size_t *nslots, const lx_str *keys, size_t len)
{
	size_t i, want = 16;

	while (want < len * 2 + 2)
		want *= 2;
	free(*slots);
	*slots = tc_xcalloc(want, sizeof(**slots));
	*nslots = want;
	for (i = 0; i < len; i++)
		(*slots)[probe(*slots, want, keys, keys[i].p, keys[i].n)] = i + 1;
}

static lx_str
str_dup(const char *p, size_t n)
{
	lx_str s;

	s.p = tc_xmalloc(n + 1);
	memcpy(s.p, p, n);
	s.p[n] = '\0';
	s.n = n;
	return s;
}

bool
tc_ledger__set_add(lx_set *s, const char *p, size_t n)
{
	size_t slot;

	if ((s->len + 1) * 2 >= s->nslots)
		rehash(&s->slots, &s->nslots, s->items, s->len);
	slot = probe(s->slots, s->nslots, s->items, p, n);
	if (s->slots[slot] != 0)
		return false;
	if (s->len == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->items = tc_xrealloc(s->items, s->cap * sizeof(*s->items));
	}
	if (s->len > 0 && str_cmp(s->items[s->len - 1].p, s->items[s->len - 1].n,
	    p, n) > 0)
		s->unsorted = true;
	s->items[s->len++] = str_dup(p, n);
	s->slots[slot] = s->len;
	return true;
}

bool
tc_ledger__set_addz(lx_set *s, const char *p)
{
	return tc_ledger__set_add(s, p, strlen(p));
}

bool
tc_ledger__set_has(const lx_set *s, const char *p, size_t n)
{
	if (s->len == 0)
		return false;
	return s->slots[probe(s->slots, s->nslots, s->items, p, n)] != 0;
}

long
tc_ledger__set_index(const lx_set *s, const char *p, size_t n)
{
	size_t k;

	if (s->len == 0)
		return -1;
	k = s->slots[probe(s->slots, s->nslots, s->items, p, n)];
	return k == 0 ? -1 : (long)(k - 1);
}

bool
tc_ledger__set_hasz(const lx_set *s, const char *p)
{
	return tc_ledger__set_has(s, p, strlen(p));
}

static int
lx_str_qcmp(const void *a, const void *b)
{
	const lx_str *x = a, *y = b;

	return str_cmp(x->p, x->n, y->p, y->n);
}

void
tc_ledger__set_sort(lx_set *s)
{
	if (!s->unsorted)
		return;
	qsort(s->items, s->len, sizeof(*s->items), lx_str_qcmp);
	rehash(&s->slots, &s->nslots, s->items, s->len);
	s->unsorted = false;
}

bool
tc_ledger__set_equal(const lx_set *a, const lx_set *b)
{
	size_t i;

	if (a->len != b->len)
		return false;
	for (i = 0; i < a->len; i++)
		if (!tc_ledger__set_has(b, a->items[i].p, a->items[i].n))
			return false;
	return true;
}

void
tc_ledger__set_intersect(const lx_set *a, const lx_set *b, lx_set *out)
{
	size_t i;

	for (i = 0; i < a->len; i++)
		if (tc_ledger__set_has(b, a->items[i].p, a->items[i].n))
			tc_ledger__set_add(out, a->items[i].p, a->items[i].n);
}

void
tc_ledger__set_union_into(lx_set *dst, const lx_set *src)
{
	size_t i;

	for (i = 0; i < src->len; i++)
		tc_ledger__set_add(dst, src->items[i].p, src->items[i].n);
}

/* Sorting is a cache operation: the set's contents do not change. */
static lx_set *
sorted(const lx_set *s)
{
	lx_set *m = (lx_set *)(uintptr_t)s;

	tc_ledger__set_sort(m);
	return m;
}

void
tc_ledger__set_join(tc_buf *b, const lx_set *set)
{
	const lx_set *s = sorted(set);
	size_t i;

	for (i = 0; i < s->len; i++) {
		if (i > 0)
			tc_buf_puts(b, ", ");
		tc_buf_add(b, s->items[i].p, s->items[i].n);
	}
}

void
tc_ledger__set_repr(tc_buf *b, const lx_set *set)
{
	const lx_set *s = sorted(set);
	size_t i;

	tc_buf_putc(b, '[');
	for (i = 0; i < s->len; i++) {
		if (i > 0)
			tc_buf_puts(b, ", ");
		tc_json_repr_string(b, s->items[i].p, s->items[i].n);
	}
	tc_buf_putc(b, ']');
}

void
tc_ledger__set_free(lx_set *s)
{
	size_t i;

	for (i = 0; i < s->len; i++)
		free(s->items[i].p);
	free(s->items);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/* ---- maps --------------------------------------------------------------- */

void
tc_ledger__map_add(lx_map *m, const char *k, size_t kn, const char *v, size_t vn)
{
	size_t slot, i;

	if ((m->len + 1) * 2 >= m->nslots)
		rehash(&m->slots, &m->nslots, m->keys, m->len);
	slot = probe(m->slots, m->nslots, m->keys, k, kn);
	if (m->slots[slot] == 0) {
		if (m->len == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 8;
			m->keys = tc_xrealloc(m->keys, m->cap * sizeof(*m->keys));
			m->vals = tc_xrealloc(m->vals, m->cap * sizeof(*m->vals));
		}
		if (m->len > 0 && str_cmp(m->keys[m->len - 1].p,
		    m->keys[m->len - 1].n, k, kn) > 0)
			m->unsorted = true;
		m->keys[m->len] = str_dup(k, kn);
		memset(&m->vals[m->len], 0, sizeof(m->vals[m->len]));
		m->len++;
		m->slots[slot] = m->len;
	}
	i = m->slots[slot] - 1;
	tc_ledger__set_add(&m->vals[i], v, vn);
}

const lx_set *
tc_ledger__map_get(const lx_map *m, const char *k, size_t kn)
{
	size_t slot;

	if (m->len == 0)
		return NULL;
	slot = probe(m->slots, m->nslots, m->keys, k, kn);
	return m->slots[slot] != 0 ? &m->vals[m->slots[slot] - 1] : NULL;
}

struct map_entry {
	lx_str key;
	lx_set val;
};

static int
entry_cmp(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	return str_cmp(x->key.p, x->key.n, y->key.p, y->key.n);
}

void
tc_ledger__map_sort(lx_map *m)
{
	struct map_entry *e;
	size_t i;

	if (!m->unsorted)
		return;
	e = tc_xmalloc((m->len ? m->len : 1) * sizeof(*e));
	for (i = 0; i < m->len; i++) {
		e[i].key = m->keys[i];
		e[i].val = m->vals[i];
	}
	qsort(e, m->len, sizeof(*e), entry_cmp);
	for (i = 0; i < m->len; i++) {
		m->keys[i] = e[i].key;
		m->vals[i] = e[i].val;
	}
	free(e);
	rehash(&m->slots, &m->nslots, m->keys, m->len);
	m->unsorted = false;
}

void
tc_ledger__map_free(lx_map *m)
{
	size_t i;

	for (i = 0; i < m->len; i++) {
		free(m->keys[i].p);
		tc_ledger__set_free(&m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- errors ------------------------------------------------------------- */

void
tc_ledger__err(tc_json *errors, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("tunectl: out of memory\n", stderr);
		abort();
	}
	tc_json_array_push(errors, tc_json_new_stringn(msg, (size_t)n));
	free(msg);
}

void
tc_ledger__err_buf(tc_json *errors, const tc_buf *msg)
{
	tc_json_array_push(errors, tc_json_new_stringn(tc_buf_cstr(msg),
	    msg->len));
}

void
tc_ledger__join_errors(tc_buf *b, const tc_json *errors)
{
	size_t i;

	for (i = 0; i < errors->u.arr.len; i++) {
		const tc_json *e = errors->u.arr.items[i];

		if (i > 0)
			tc_buf_puts(b, "; ");
		tc_json_str(b, e);
	}
}

/* ---- scan and canonical form ------------------------------------------- */

static void
scan(const tc_json *v, tc_buf *loc, tc_json *errors)
{
	size_t i, mark = loc->len;

	switch (v->type) {
	case TC_JSON_FLOAT:
		if (!isfinite(v->u.f)) {
			tc_buf_puts(loc, " must contain finite JSON numbers");
			tc_ledger__err_buf(errors, loc);
		}
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++) {
			tc_buf_printf(loc, "[%zu]", i);
			scan(v->u.arr.items[i], loc, errors);
			loc->len = mark;
			loc->data[mark] = '\0';
		}
		break;
	case TC_JSON_OBJECT:
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];

			tc_buf_putc(loc, '.');
			tc_buf_add(loc, m->key, m->key_len);
			scan(m->value, loc, errors);
			loc->len = mark;
			loc->data[mark] = '\0';
		}
		break;
	default:
		break;
	}
	loc->len = mark;
	if (loc->data != NULL)
		loc->data[mark] = '\0';
}

void
tc_ledger__value_scan(const tc_json *v, const char *loc, tc_json *errors)
{
	tc_buf b = TC_BUF_INIT;

	tc_buf_puts(&b, loc);
	scan(v, &b, errors);
	tc_buf_free(&b);
}

char *
tc_ledger__canonical(const tc_json *v, size_t *len)
{
	tc_buf b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;

	if (tc_json_write(&b, v, TC_JSON_ASCII | TC_JSON_NO_NAN, &err) != 0) {
		/* Only a non-finite float fails; scanned documents have
		 * none, and the fallback still compares consistently. */
		tc_error_clear(&err);
		tc_buf_reset(&b);
		(void)tc_json_write(&b, v, TC_JSON_ASCII, NULL);
	}
	return tc_buf_detach(&b, len);
}

bool
tc_ledger__canonical_equal(const tc_json *a, const tc_json *b)
{
	size_t an, bn;
	char *x = tc_ledger__canonical(a, &an), *y = tc_ledger__canonical(b, &bn);
	bool eq = an == bn && memcmp(x, y, an) == 0;

	free(x);
	free(y);
	return eq;
}

/* ---- path keys and roles (docs/spec/ledger.md "Ledger enumerations",
 * "Artifact-path scanning") */

static const char *const path_keys[] = {
	"artifact", "artifacts", "baseline_profile", "candidate_profile",
	"clean", "config", "metadata", "path", "profiler",
	"profiling_analysis_result", "replay", "round_evidence",
	"round_report", "source_evidence", "source_path",
	"source_profiling_analysis_result", NULL
};

static bool
key_is(const char *key, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(key, s, n) == 0;
}

bool
tc_ledger__is_path_key(const char *key, size_t n)
{
	size_t i;

	for (i = 0; path_keys[i] != NULL; i++)
		if (key_is(key, n, path_keys[i]))
			return true;
	return false;
}

const char *
tc_ledger__role_for_key(const char *key, size_t n)
{
	size_t i;

	if (key_is(key, n, "source_path"))
		return "source_evidence";
	if (key_is(key, n, "source_profiling_analysis_result"))
		return "profiling_analysis_result";
	if (key_is(key, n, "artifact") || key_is(key, n, "artifacts") ||
	    key_is(key, n, "path"))
		return "artifact";
	for (i = 0; path_keys[i] != NULL; i++)
		if (key_is(key, n, path_keys[i]))
			return path_keys[i];
	return NULL;
}

const char *
tc_ledger__role_for_name(const char *posix_path)
{
	static const struct {
		const char *needle, *role;
	} rules[] = {
		{ "profiling-analysis", "profiling_analysis_result" },
		{ "round-report", "round_report" },
		{ "round-evidence", "round_evidence" },
		{ "source-map", "source_evidence" },
		{ "source-evidence", "source_evidence" },
		{ "sk-meta", "metadata" },
		{ "metadata", "metadata" },
		{ "replay", "replay" },
		{ "profiler", "profiler" },
		{ "config", "config" },
		{ "clean", "clean" },
	};
	size_t n = strlen(posix_path), i, j = 0;
	char *low = tc_xmalloc(n + 1);
	const char *role = "artifact";

	/* str.lower() only matters for the ASCII needles here; the one
	 * non-ASCII character that lowercases to a plain ASCII letter is
	 * U+212A KELVIN SIGN ('k', as in "sk-meta"). */
	for (i = 0; i < n; i++) {
		char c = posix_path[i];

		if (c == '\xe2' && i + 2 < n && posix_path[i + 1] == '\x84' &&
		    posix_path[i + 2] == '\xaa') {
			low[j++] = 'k';
			i += 2;
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (c == '_')
			c = '-';
		low[j++] = c;
	}
	low[j] = '\0';
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (strstr(low, rules[i].needle) != NULL) {
			role = rules[i].role;
			break;
		}
	}
	free(low);
	return role;
}
