/*
 * skm_summary.c - "tunectl analyze sk-meta": the summary of TorchAir
 * SuperKernel metadata (the reference's analyze_sk_meta.py) that proves
 * whether fusion occurred: the fused-group inventory, child counts,
 * layers, control-core evidence, fragmentation, the fusion-failure and
 * scope-break tables, the break action plan, the per-round report and
 * the deep auto-scope plan.  docs/analysis.md lists every field.
 *
 * Lists keep the reference's order (file, then line, then the stated
 * sorts, all stable); objects are printed with sorted keys, so their
 * member order never matters here.  Ratios are IEEE doubles computed as
 * the reference writes them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skm_internal.h"
#include "tunectl/text.h"

static const char guardrail_control_core[] =
    "isScheModeOn is the AOT metadata evidence for scheduling/control-core "
    "mode. Confirm the field semantics against the active CANN revision "
    "before changing runtime scheduling policy.";
static const char disconnect_interpretation[] =
    "This is a fragmentation indicator, not fusion coverage. Scope logs may "
    "include markers and repeated fragments, so do not divide by model op "
    "count.";
static const char layer_coverage_limit[] =
    "Only deterministic layer names found in scope metadata are counted. "
    "Missing layers are evidence gaps, not zero-SK layers.";
static const char exclusion_policy[] =
    "Compatibility-only child-count inventory. It never adjusts scope, "
    "blocks profiling, or controls promotion; fresh profiling analysis "
    "decides action.";
static const char filter_policy[] =
    "Child-count thresholds and effective/shallow labels are descriptive "
    "metadata only. Every reliably mapped SK proceeds to profiling; fresh "
    "profiling analysis alone decides keep, prune, reprofile, or block.";
static const char plan_guardrail[] =
    "Translate these ranges back to source-level scope markers before "
    "running a manual candidate. Child count is descriptive and must not "
    "select or reject a range; fresh profiling analysis decides performance "
    "action. Do not cross collectives, dynamic-task operators, cache "
    "mutation, or dependencies unless the source mapping proves the same "
    "ordering as S1_auto.";
static const char *const minimal_break_sequence[] = {
	"remove scope/marker mistakes and split resource-heavy regions",
	"test only evidence-matched options accepted by the active wrapper",
	"re-run fusion and correctness to prove the break count decreased",
	"defer OP_UNSUPPORT, non-static/unknown symbols, and operator adaptation",
	NULL
};
static const char *const required_round_fields[] = {
	"descriptive child-count threshold and effective/shallow labels",
	"all reliable SK groups proceed to fresh profiling analysis",
	"single-child and shallow groups carry no metadata-derived action",
	"per-SK child operator count and child list",
	"unfused operator/reason table",
	"launch reduction estimate from metadata",
	"external fresh deep-fusion replay status and artifact link in "
	    "round-evidence.json or the final report",
	"external profiler comparison status and artifact link in "
	    "round-evidence.json or the final report",
	"external clean-performance and promotion status and artifact link in "
	    "round-evidence.json or the final report",
	NULL
};

/* ---- values ---------------------------------------------------------------- */

int64_t
tc_analysis__skm_int(const tc_json *o, const char *key)
{
	int64_t v;

	return tc_json_int64(tc_json_get(o, key), &v) ? v : 0;
}

static bool
flag(const tc_json *o, const char *key)
{
	const tc_json *v = tc_json_get(o, key);

	return v != NULL && v->type == TC_JSON_BOOL && v->u.b;
}

static size_t
len_of(const tc_json *list)
{
	return list != NULL && list->type == TC_JSON_ARRAY ? list->u.arr.len : 0;
}

static const tc_json *
item(const tc_json *list, size_t i)
{
	return list->u.arr.items[i];
}

static int64_t
trusted(const tc_json *g)
{
	return tc_analysis__skm_int(g, "trusted_child_count");
}

static const char *
str_or_empty(const tc_json *o, const char *key)
{
	const char *s = tc_json_get_string(o, key);

	return s != NULL ? s : "";
}

/* node.get("op_type") or node.get("func_name") */
static const char *
op_or_func(const tc_json *node)
{
	const char *op = tc_json_get_string(node, "op_type");

	return op != NULL && op[0] != '\0' ? op : str_or_empty(node, "func_name");
}

/* Python's x / y of two counts. */
static tc_json *
ratio(double x, double y)
{
	return tc_json_new_float(x / y);
}

/* The length of list[:k] (k < 0 drops the last -k). */
static size_t
slice_len(size_t len, long k)
{
	if (k >= 0)
		return (size_t)k < len ? (size_t)k : len;
	return (size_t)-k >= len ? 0 : len - (size_t)-k;
}

static tc_json *
first_n(const tc_json *list, long k)
{
	tc_json *out = tc_json_new_array();
	size_t i, n = slice_len(len_of(list), k);

	for (i = 0; i < n; i++)
		tc_json_array_push(out, tc_json_clone(item(list, i)));
	return out;
}

static tc_json *
string_list(const char *const *s)
{
	tc_json *out = tc_json_new_array();

	while (*s != NULL)
		tc_json_array_push(out, tc_json_new_string(*s++));
	return out;
}

static int
cmp_str(const tc_json *a, const tc_json *b)
{
	size_t la = a != NULL && a->type == TC_JSON_STRING ? a->u.str.len : 0;
	size_t lb = b != NULL && b->type == TC_JSON_STRING ? b->u.str.len : 0;
	int c = memcmp(la ? a->u.str.ptr : "", lb ? b->u.str.ptr : "",
	    la < lb ? la : lb);

	return c != 0 ? c : (la > lb) - (la < lb);
}

/* ---- a stable merge sort ------------------------------------------------- */

typedef int (*skm_cmp)(const tc_json *a, const tc_json *b);

/* Sort v[0..n) stably by before(x, y) ("x goes first"). */
static void
merge_sort(const void **v, const void **tmp, size_t n,
    bool (*before)(const void *x, const void *y, const void *ctx),
    const void *ctx)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(v, tmp, h, before, ctx);
	merge_sort(v + h, tmp, n - h, before, ctx);
	while (i < h && j < n)
		tmp[k++] = before(v[j], v[i], ctx) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static bool
json_before(const void *x, const void *y, const void *ctx)
{
	const skm_cmp *cmp = ctx;

	return (*cmp)(x, y) < 0;
}

static void
sort_list(tc_json *list, skm_cmp cmp)
{
	size_t n = len_of(list), i;
	const void **v, **tmp;

	if (n < 2)
		return;
	v = tc_xmalloc(n * sizeof(*v));
	tmp = tc_xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++)
		v[i] = list->u.arr.items[i];
	merge_sort(v, tmp, n, json_before, &cmp);
	for (i = 0; i < n; i++)
		list->u.arr.items[i] = (tc_json *)(uintptr_t)v[i];
	free(v);
	free(tmp);
}

static int
by_string(const tc_json *a, const tc_json *b)
{
	return cmp_str(a, b);
}

void
tc_analysis__sort_strings(tc_json *list)
{
	sort_list(list, by_string);
}

/* ---- counters (collections.Counter) --------------------------------------- */

struct counter {
	struct an_map index;	/* key -> position + 1 */
	tc_json **keys;		/* the key as printed (a string, or a
				 * value for the pattern counters) */
	size_t *counts;
	size_t len, cap;
	size_t total;
};

/* Count key; shown is what the entry prints (NULL: key itself). */
static void
count_keyed(struct counter *c, const char *key, const tc_json *shown)
{
	bool created = false;
	size_t *slot = tc_analysis__map_slot(&c->index, key, &created);

	c->total++;
	if (!created) {
		c->counts[*slot - 1]++;
		return;
	}
	if (c->len == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->keys = tc_xrealloc(c->keys, c->cap * sizeof(*c->keys));
		c->counts = tc_xrealloc(c->counts, c->cap * sizeof(*c->counts));
	}
	c->keys[c->len] = shown != NULL ? tc_json_clone(shown) :
	    tc_json_new_string(key);
	c->counts[c->len++] = 1;
	*slot = c->len;
}

static void
count(struct counter *c, const char *key)
{
	count_keyed(c, key, NULL);
}

/* Count a JSON value (a list, a tuple) by its canonical text. */
static void
count_value(struct counter *c, const tc_json *v)
{
	char *key = tc_json_canonical(v, NULL, NULL);

	count_keyed(c, key != NULL ? key : "", v);
	free(key);
}

static void
counter_free(struct counter *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		tc_json_free(c->keys[i]);
	free(c->keys);
	free(c->counts);
	tc_analysis__map_free(&c->index);
	memset(c, 0, sizeof(*c));
}

static bool
count_before(const void *x, const void *y, const void *ctx)
{
	(void)ctx;
	return *(const size_t *)x > *(const size_t *)y;
}

/* Positions by count, descending, ties in insertion order. */
static size_t *
most_common(const struct counter *c)
{
	size_t *idx = tc_xmalloc((c->len + 1) * sizeof(*idx)), i;
	const void **v = tc_xmalloc((c->len + 1) * sizeof(*v));
	const void **tmp = tc_xmalloc((c->len + 1) * sizeof(*tmp));

	for (i = 0; i < c->len; i++)
		v[i] = &c->counts[i];
	merge_sort(v, tmp, c->len, count_before, NULL);
	for (i = 0; i < c->len; i++)
		idx[i] = (size_t)((const size_t *)v[i] - c->counts);
	free(v);
	free(tmp);
	return idx;
}

/* The first max entries of most_common() as [{"name", "count"}], with
 * percent each one's share of the total. */
static tc_json *
entries(const struct counter *c, size_t max, bool percent)
{
	tc_json *out = tc_json_new_array();
	size_t *idx = most_common(c), i;

	for (i = 0; i < c->len && i < max; i++) {
		tc_json *o = tc_json_new_object();
		size_t k = c->counts[idx[i]];

		tc_json_object_set(o, "name", tc_json_clone(c->keys[idx[i]]));
		tc_json_object_set_int(o, "count", (int64_t)k);
		if (percent)
			tc_json_object_set(o, "percent", c->total ?
			    tc_json_new_float((double)k / (double)c->total *
			    100) : tc_json_new_null());
		tc_json_array_push(out, o);
	}
	free(idx);
	return out;
}

/* most_common(limit) (limit <= 0: []). */
static tc_json *
top(const struct counter *c, long limit)
{
	return entries(c, limit > 0 ? (size_t)limit : 0, false);
}

/* Every entry with its percent of the total. */
static tc_json *
table(const struct counter *c)
{
	return entries(c, c->len, true);
}

/* dict(counter): key -> count. */
static tc_json *
counts_object(const struct counter *c)
{
	tc_json *out = tc_json_new_object();
	size_t i;

	for (i = 0; i < c->len; i++)
		tc_json_object_set_int(out, tc_json_string(c->keys[i]),
		    (int64_t)c->counts[i]);
	return out;
}

/* ---- numbers ----------------------------------------------------------------- */

struct ints {
	int64_t *v;
	size_t n, cap;
};

static void
ints_add(struct ints *x, int64_t v)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->v = tc_xrealloc(x->v, x->cap * sizeof(*x->v));
	}
	x->v[x->n++] = v;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static tc_json *
quantile(const int64_t *sorted, size_t n, double q)
{
	double pos = (double)(n - 1) * q, f;
	size_t lo, hi;

	if (n == 1)
		return tc_json_new_int(sorted[0]);
	lo = (size_t)pos;
	hi = lo + 1 < n ? lo + 1 : n - 1;
	f = pos - (double)lo;
	return tc_json_new_float((double)sorted[lo] +
	    (double)(sorted[hi] - sorted[lo]) * f);
}

/* {count, min, p50, p90, avg, max} of the values. */
static tc_json *
stats(const struct ints *x)
{
	tc_json *o = tc_json_new_object();
	int64_t *s;
	double sum = 0;
	size_t i;

	tc_json_object_set_int(o, "count", (int64_t)x->n);
	if (x->n == 0) {
		tc_json_object_set_null(o, "min");
		tc_json_object_set_null(o, "p50");
		tc_json_object_set_null(o, "p90");
		tc_json_object_set_null(o, "avg");
		tc_json_object_set_null(o, "max");
		return o;
	}
	s = tc_xmalloc(x->n * sizeof(*s));
	memcpy(s, x->v, x->n * sizeof(*s));
	qsort(s, x->n, sizeof(*s), cmp_i64);
	for (i = 0; i < x->n; i++)
		sum += (double)s[i];
	tc_json_object_set_int(o, "min", s[0]);
	tc_json_object_set(o, "p50", quantile(s, x->n, 0.5));
	tc_json_object_set(o, "p90", quantile(s, x->n, 0.9));
	tc_json_object_set(o, "avg", tc_json_new_float(sum / (double)x->n));
	tc_json_object_set_int(o, "max", s[x->n - 1]);
	free(s);
	return o;
}

/* {str(value): occurrences}. */
static tc_json *
histogram(const struct ints *x)
{
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; i < x->n; i++) {
		char key[24];

		snprintf(key, sizeof(key), "%lld", (long long)x->v[i]);
		tc_json_object_set_int(o, key, tc_analysis__skm_int(o, key) + 1);
	}
	return o;
}

static int64_t
sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* The trusted child counts of groups. */
static void
child_counts(const tc_json *groups, struct ints *out)
{
	size_t i;

	for (i = 0; i < len_of(groups); i++)
		ints_add(out, trusted(item(groups, i)));
}

static int64_t
ints_sum(const struct ints *x)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < x->n; i++)
		s = sat_add(s, x->v[i]);
	return s;
}

/* The sorted distinct stream ids of a group's nodes. */
static tc_json *
stream_ids(const tc_json *g)
{
	const tc_json *nodes = tc_json_get(g, "nodes");
	struct ints x = { NULL, 0, 0 };
	tc_json *out = tc_json_new_array();
	size_t i;

	for (i = 0; i < len_of(nodes); i++)
		ints_add(&x, tc_analysis__skm_int(item(nodes, i), "stream_id"));
	if (x.n > 0)
		qsort(x.v, x.n, sizeof(*x.v), cmp_i64);
	for (i = 0; i < x.n; i++)
		if (i == 0 || x.v[i] != x.v[i - 1])
			tc_json_array_push(out, tc_json_new_int(x.v[i]));
	free(x.v);
	return out;
}

/* Every node of the groups, in order (borrowed). */
static tc_json *
all_nodes(const tc_json *groups)
{
	tc_json *out = tc_json_new_array();
	size_t i, j;

	for (i = 0; i < len_of(groups); i++) {
		const tc_json *nodes = tc_json_get(item(groups, i), "nodes");

		for (j = 0; j < len_of(nodes); j++)
			tc_json_array_push(out, tc_json_clone(item(nodes, j)));
	}
	return out;
}

/* The top limit operators (op_type, else func_name) of nodes, or with
 * kinds their kernel types. */
static tc_json *
top_of(const tc_json *nodes, long limit, bool kinds)
{
	struct counter c = { 0 };
	tc_json *out;
	size_t i;

	for (i = 0; i < len_of(nodes); i++)
		count(&c, kinds ? str_or_empty(item(nodes, i), "kernel_type") :
		    op_or_func(item(nodes, i)));
	out = top(&c, limit);
	counter_free(&c);
	return out;
}

/* Count the string values of a field over items. */
static void
count_field(struct counter *c, const tc_json *items, const char *key)
{
	size_t i;

	for (i = 0; i < len_of(items); i++)
		count(c, str_or_empty(item(items, i), key));
}

/* The groups' count of a field's string values, as {value: count}. */
static tc_json *
field_counts(const tc_json *items, const char *key)
{
	struct counter c = { 0 };
	tc_json *out;

	count_field(&c, items, key);
	out = counts_object(&c);
	counter_free(&c);
	return out;
}

static void
set_copy(tc_json *o, const char *key, const tc_json *from, const char *fkey)
{
	const tc_json *v = tc_json_get(from, fkey);

	tc_json_object_set(o, key, v != NULL ? tc_json_clone(v) :
	    tc_json_new_null());
}

/* ---- fused groups -------------------------------------------------------- */

static int
by_node_count_desc(const tc_json *a, const tc_json *b)
{
	int64_t x = tc_analysis__skm_int(a, "node_count");
	int64_t y = tc_analysis__skm_int(b, "node_count");

	return (x < y) - (x > y);
}

static int
by_scope_weight_desc(const tc_json *a, const tc_json *b)
{
	static const char *const keys[] = { "total_child_nodes", "group_count",
	    NULL };
	int64_t x, y;
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		x = tc_analysis__skm_int(a, keys[i]);
		y = tc_analysis__skm_int(b, keys[i]);
		if (x != y)
			return x > y ? -1 : 1;
	}
	x = tc_analysis__skm_int(tc_json_get(a, "child_count_stats"), "max");
	y = tc_analysis__skm_int(tc_json_get(b, "child_count_stats"), "max");
	return (x < y) - (x > y);
}

/* {function, boundary, node_count, declared_node_count,
 * node_count_mismatch} of a group. */
static tc_json *
group_brief(const tc_json *g)
{
	tc_json *o = tc_json_new_object();

	set_copy(o, "function", g, "function");
	set_copy(o, "boundary", g, "boundary");
	tc_json_object_set_int(o, "node_count", trusted(g));
	set_copy(o, "declared_node_count", g, "node_count");
	set_copy(o, "node_count_mismatch", g, "node_count_mismatch");
	return o;
}

/* The scope key of a group: its boundary's scope, else scope_id:<id>. */
static char *
scope_key(const tc_json *g)
{
	const char *s = tc_json_get_string(tc_json_get(g, "boundary"), "scope");

	if (s != NULL && s[0] != '\0')
		return tc_xstrdup(s);
	return tc_xasprintf("scope_id:%lld", (long long)tc_analysis__skm_int(g,
	    "scope_id"));
}

static tc_json *
scope_bucket(const char *scope, const tc_json *groups, long n)
{
	tc_json *o = tc_json_new_object(), *nodes = all_nodes(groups);
	tc_json *samples = tc_json_new_array();
	struct ints counts = { NULL, 0, 0 }, streams = { NULL, 0, 0 };
	size_t i, singles = 0, ns = slice_len(len_of(groups), n < 10 ? n : 10);

	child_counts(groups, &counts);
	for (i = 0; i < len_of(groups); i++) {
		tc_json *ids = stream_ids(item(groups, i));

		ints_add(&streams, (int64_t)len_of(ids));
		tc_json_free(ids);
		singles += counts.v[i] <= 1;
		if (i < ns)
			tc_json_array_push(samples, group_brief(item(groups, i)));
	}
	tc_json_object_set_string(o, "scope", scope);
	tc_json_object_set_int(o, "group_count", (int64_t)len_of(groups));
	tc_json_object_set_int(o, "total_child_nodes", ints_sum(&counts));
	tc_json_object_set(o, "child_count_stats", stats(&counts));
	tc_json_object_set_int(o, "single_child_group_count", (int64_t)singles);
	tc_json_object_set(o, "stream_count_stats", stats(&streams));
	tc_json_object_set(o, "top_child_op_types", top_of(nodes, n, false));
	tc_json_object_set(o, "sample_boundaries", samples);
	tc_json_free(nodes);
	free(counts.v);
	free(streams.v);
	return o;
}

static tc_json *
top_scopes(const tc_json *groups, long n)
{
	struct an_map index = { NULL, NULL, 0, 0 };
	tc_json *buckets = tc_json_new_array(), *names = tc_json_new_array();
	tc_json *out = tc_json_new_array(), *result;
	size_t i;

	for (i = 0; i < len_of(groups); i++) {
		char *key = scope_key(item(groups, i));
		bool created = false;
		size_t *slot = tc_analysis__map_slot(&index, key, &created);

		if (created) {
			*slot = len_of(buckets);
			tc_json_array_push(buckets, tc_json_new_array());
			tc_json_array_push(names, tc_json_new_string(key));
		}
		tc_json_array_push(buckets->u.arr.items[*slot],
		    tc_json_clone(item(groups, i)));
		free(key);
	}
	for (i = 0; i < len_of(buckets); i++)
		tc_json_array_push(out, scope_bucket(tc_json_string(item(names,
		    i)), item(buckets, i), n));
	sort_list(out, by_scope_weight_desc);
	result = first_n(out, n);
	tc_json_free(out);
	tc_json_free(buckets);
	tc_json_free(names);
	tc_analysis__map_free(&index);
	return result;
}

static tc_json *
fused_group_summary(const tc_json *groups, long n)
{
	tc_json *o = tc_json_new_object(), *nodes = all_nodes(groups);
	tc_json *samples = tc_json_new_array();
	struct ints counts = { NULL, 0, 0 };
	size_t i, singles = 0, multi = 0, g = len_of(groups);

	child_counts(groups, &counts);
	for (i = 0; i < g; i++) {
		const tc_json *grp = item(groups, i);
		tc_json *s = tc_json_new_object();

		singles += counts.v[i] <= 1;
		multi += counts.v[i] > 1;
		set_copy(s, "function", grp, "function");
		set_copy(s, "scope_id", grp, "scope_id");
		set_copy(s, "boundary", grp, "boundary");
		tc_json_object_set_int(s, "node_count", counts.v[i]);
		set_copy(s, "declared_node_count", grp, "node_count");
		set_copy(s, "node_count_mismatch", grp, "node_count_mismatch");
		tc_json_object_set(s, "stream_ids", stream_ids(grp));
		tc_json_object_set(s, "child_op_types",
		    top_of(tc_json_get(grp, "nodes"), 12, false));
		tc_json_array_push(samples, s);
	}
	sort_list(samples, by_node_count_desc);
	tc_json_object_set_int(o, "group_count", (int64_t)g);
	tc_json_object_set_int(o, "total_child_nodes", ints_sum(&counts));
	tc_json_object_set(o, "child_count_stats", stats(&counts));
	tc_json_object_set(o, "child_count_histogram", histogram(&counts));
	tc_json_object_set_int(o, "single_child_group_count", (int64_t)singles);
	tc_json_object_set(o, "single_child_group_ratio", g ?
	    ratio((double)singles, (double)g) : tc_json_new_null());
	tc_json_object_set_int(o, "multi_child_group_count", (int64_t)multi);
	tc_json_object_set(o, "max_child_group_samples", first_n(samples,
	    n < 20 ? n : 20));
	tc_json_object_set(o, "top_scopes", top_scopes(groups, n));
	tc_json_object_set(o, "top_child_op_types", top_of(nodes, n, false));
	tc_json_object_set(o, "kernel_type_counts", top_of(nodes, n, true));
	tc_json_free(samples);
	tc_json_free(nodes);
	free(counts.v);
	return o;
}

/* ---- failures and scope breaks -------------------------------------------- */

/* The items whose key equals value (borrowed clones). */
static tc_json *
items_where(const tc_json *items, const char *key, const char *value)
{
	tc_json *out = tc_json_new_array();
	size_t i;

	for (i = 0; i < len_of(items); i++)
		if (strcmp(str_or_empty(item(items, i), key), value) == 0)
			tc_json_array_push(out, tc_json_clone(item(items, i)));
	return out;
}

static tc_json *
failure_summary(const tc_json *failures, long n)
{
	tc_json *o = tc_json_new_object(), *ops = tc_json_new_object();
	tc_json *kinds = tc_json_new_object(), *examples = tc_json_new_object();
	struct counter reasons = { 0 };
	size_t i;

	count_field(&reasons, failures, "reason");
	for (i = 0; i < reasons.len; i++) {
		const char *r = tc_json_string(reasons.keys[i]);
		tc_json *mine = items_where(failures, "reason", r);

		tc_json_object_set(ops, r, top_of(mine, n, false));
		tc_json_object_set(kinds, r, top_of(mine, n, true));
		tc_json_object_set(examples, r, first_n(mine, n < 10 ? n : 10));
		tc_json_free(mine);
	}
	tc_json_object_set_int(o, "record_count", (int64_t)len_of(failures));
	tc_json_object_set(o, "reason_counts", counts_object(&reasons));
	tc_json_object_set(o, "reason_table", table(&reasons));
	tc_json_object_set(o, "top_op_types_by_reason", ops);
	tc_json_object_set(o, "top_kernel_types_by_reason", kinds);
	tc_json_object_set(o, "examples_by_reason", examples);
	counter_free(&reasons);
	return o;
}

/* ",".join(scope_names), or scope_id:<id> when there are none. */
static char *
scope_label(const tc_json *b)
{
	const tc_json *names = tc_json_get(b, "scope_names");
	tc_buf out = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < len_of(names); i++) {
		if (i > 0)
			tc_buf_putc(&out, ',');
		tc_buf_add(&out, item(names, i)->u.str.ptr,
		    item(names, i)->u.str.len);
	}
	if (out.len == 0) {
		tc_buf_free(&out);
		return tc_xasprintf("scope_id:%lld", (long long)
		    tc_analysis__skm_int(b, "scope_id"));
	}
	tc_buf_putc(&out, '\0');
	return out.data;
}

/* The first non-empty of the keys' strings (the last when all are). */
static const char *
first_nonempty(const tc_json *o, const char *const *keys)
{
	const char *s = "";
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		s = str_or_empty(o, keys[i]);
		if (s[0] != '\0')
			break;
	}
	return s;
}

static tc_json *
break_summary(const tc_json *breaks, size_t raw, long n)
{
	static const char *const detail_keys[] = { "fusion_fail_detail",
	    "detail", "break_detail", NULL };
	tc_json *o = tc_json_new_object(), *names = tc_json_new_object();
	tc_json *details = tc_json_new_object(), *examples = tc_json_new_object();
	struct counter fails = { 0 };
	size_t i, j;

	count_field(&fails, breaks, "fusion_fail_reason");
	for (i = 0; i < fails.len; i++) {
		const char *r = tc_json_string(fails.keys[i]);
		tc_json *mine = items_where(breaks, "fusion_fail_reason", r);
		struct counter lc = { 0 }, dc = { 0 };

		for (j = 0; j < len_of(mine); j++) {
			char *label = scope_label(item(mine, j));

			count(&lc, label);
			count(&dc, first_nonempty(item(mine, j), detail_keys));
			free(label);
		}
		tc_json_object_set(names, r, top(&lc, n));
		tc_json_object_set(details, r, top(&dc, n));
		tc_json_object_set(examples, r, first_n(mine, n < 10 ?
		    (n < 0 ? 0 : n) : 10));
		counter_free(&lc);
		counter_free(&dc);
		tc_json_free(mine);
	}
	tc_json_object_set_int(o, "record_count", (int64_t)len_of(breaks));
	tc_json_object_set_int(o, "raw_record_count", (int64_t)raw);
	tc_json_object_set_int(o, "duplicate_record_count",
	    (int64_t)(raw - len_of(breaks)));
	tc_json_object_set(o, "break_reason_counts", field_counts(breaks,
	    "break_reason"));
	tc_json_object_set(o, "fusion_fail_reason_counts",
	    counts_object(&fails));
	tc_json_object_set(o, "fusion_fail_reason_table", table(&fails));
	tc_json_object_set(o, "top_scope_names_by_reason", names);
	tc_json_object_set(o, "top_details_by_reason", details);
	tc_json_object_set(o, "examples_by_reason", examples);
	counter_free(&fails);
	return o;
}

/* ---- control core, fragmentation, layers ---------------------------------- */

static bool
expected_reason(const char *r)
{
	return strcmp(r, "NOT_IN_SCOPE") == 0 ||
	    strcmp(r, "IN_UNFUSIBLE_SCOPE") == 0 || strcmp(r, "SUCCESS") == 0;
}

/* Known and enabled schedule modes among nodes. */
static void
schedule_modes(const tc_json *nodes, size_t *known, size_t *enabled)
{
	size_t i;

	for (i = 0; i < len_of(nodes); i++) {
		int64_t v;

		if (tc_json_int64(tc_json_get(item(nodes, i), "schedule_mode"),
		    &v)) {
			(*known)++;
			*enabled += v != 0;
		}
	}
}

static tc_json *
control_core(const tc_json *groups, const tc_json *extra)
{
	tc_json *o = tc_json_new_object(), *nodes = all_nodes(groups);
	size_t fk = 0, fe = 0, xk = 0, xe = 0, known, enabled;

	schedule_modes(nodes, &fk, &fe);
	schedule_modes(extra, &xk, &xe);
	known = fk + xk;
	enabled = fe + xe;
	tc_json_object_set_string(o, "status", known == 0 ? "unknown" :
	    enabled == known ? "enabled" : enabled > 0 ? "mixed" : "disabled");
	tc_json_object_set_string(o, "evidence_field", "KernelInfos.isScheModeOn");
	tc_json_object_set_int(o, "known_child_count", (int64_t)known);
	tc_json_object_set_int(o, "enabled_child_count", (int64_t)enabled);
	tc_json_object_set_int(o, "disabled_child_count",
	    (int64_t)(known - enabled));
	tc_json_object_set(o, "group_mode_counts", field_counts(groups,
	    "control_core_mode"));
	tc_json_object_set_int(o, "fused_child_evidence_count", (int64_t)fk);
	tc_json_object_set_int(o, "unfused_child_evidence_count", (int64_t)xk);
	tc_json_object_set_string(o, "guardrail", guardrail_control_core);
	tc_json_free(nodes);
	return o;
}

static tc_json *
disconnect(const tc_json *groups, const tc_json *breaks)
{
	tc_json *o = tc_json_new_object();
	struct ints counts = { NULL, 0, 0 };
	size_t i, singles = 0, actionable = 0, g = len_of(groups);
	double sr = 0, bpg = 0;
	int64_t total;
	const char *level;

	child_counts(groups, &counts);
	total = ints_sum(&counts);
	for (i = 0; i < counts.n; i++)
		singles += counts.v[i] <= 1;
	for (i = 0; i < len_of(breaks); i++)
		actionable += !expected_reason(str_or_empty(item(breaks, i),
		    "fusion_fail_reason"));
	if (g > 0) {
		sr = (double)singles / (double)g;
		bpg = (double)actionable / (double)g;
	}
	level = g == 0 ? "no_fusion" : sr >= 0.5 || bpg >= 2 ? "severe" :
	    sr >= 0.2 || bpg >= 1 ? "moderate" : "low";
	tc_json_object_set_string(o, "level", level);
	tc_json_object_set_int(o, "fused_group_count", (int64_t)g);
	tc_json_object_set_int(o, "total_child_nodes", total);
	tc_json_object_set(o, "single_child_group_ratio", g ?
	    tc_json_new_float(sr) : tc_json_new_null());
	tc_json_object_set_int(o, "actionable_break_count", (int64_t)actionable);
	tc_json_object_set(o, "breaks_per_fused_group", g ?
	    tc_json_new_float(bpg) : tc_json_new_null());
	tc_json_object_set(o, "fused_groups_per_100_child_nodes", total != 0 ?
	    tc_json_new_float((double)g / (double)total * 100) :
	    tc_json_new_null());
	tc_json_object_set_string(o, "interpretation", disconnect_interpretation);
	free(counts.v);
	return o;
}

/* The items whose "layer" is the given one (clones). */
static tc_json *
in_layer(const tc_json *items, int64_t layer)
{
	tc_json *out = tc_json_new_array();
	size_t i;

	for (i = 0; i < len_of(items); i++) {
		int64_t l;

		if (tc_json_int64(tc_json_get(item(items, i), "layer"), &l) &&
		    l == layer)
			tc_json_array_push(out, tc_json_clone(item(items, i)));
	}
	return out;
}

static void
add_segments(tc_json *into, const tc_json *items)
{
	size_t i, j;

	for (i = 0; i < len_of(items); i++) {
		const tc_json *seg = tc_json_get(item(items, i), "segments");

		for (j = 0; j < len_of(seg); j++)
			tc_analysis__list_add_unique(into, item(seg, j)->u.str.ptr);
	}
}

static tc_json *
layer_entry(const tc_json *groups, const tc_json *breaks, long n)
{
	tc_json *o = tc_json_new_object(), *nodes = all_nodes(groups);
	tc_json *segments = tc_json_new_array(), *functions = tc_json_new_array();
	struct ints counts = { NULL, 0, 0 }, streams = { NULL, 0, 0 };
	size_t i, singles = 0;
	int64_t declared = 0;

	child_counts(groups, &counts);
	for (i = 0; i < len_of(groups); i++) {
		const tc_json *g = item(groups, i);
		tc_json *ids = stream_ids(g);

		ints_add(&streams, (int64_t)len_of(ids));
		tc_json_free(ids);
		singles += counts.v[i] <= 1 && flag(g, "count_reliable");
		tc_json_array_push(functions, tc_json_clone(tc_json_get(g,
		    "function")));
	}
	for (i = 0; i < len_of(breaks); i++)
		declared = sat_add(declared, tc_analysis__skm_int(item(breaks, i),
		    "node_count"));
	add_segments(segments, groups);
	add_segments(segments, breaks);
	tc_analysis__sort_strings(segments);
	tc_json_object_set_int(o, "sk_count", (int64_t)len_of(groups));
	tc_json_object_set_int(o, "total_child_nodes", ints_sum(&counts));
	tc_json_object_set(o, "child_op_count_stats", stats(&counts));
	tc_json_object_set(o, "child_op_count_histogram", histogram(&counts));
	tc_json_object_set_int(o, "single_child_sk_count", (int64_t)singles);
	tc_json_object_set_int(o, "scope_fragment_count", (int64_t)len_of(breaks));
	tc_json_object_set_int(o, "declared_scope_node_count", declared);
	tc_json_object_set(o, "break_reason_counts", field_counts(breaks,
	    "fusion_fail_reason"));
	tc_json_object_set(o, "segments", segments);
	tc_json_object_set(o, "stream_count_stats", stats(&streams));
	tc_json_object_set(o, "top_child_op_types", top_of(nodes, n, false));
	tc_json_object_set(o, "kernel_type_counts", top_of(nodes, n, true));
	tc_json_object_set(o, "control_core", control_core(groups, NULL));
	tc_json_object_set(o, "disconnect", disconnect(groups, breaks));
	tc_json_object_set(o, "sk_functions", functions);
	tc_json_free(nodes);
	free(counts.v);
	free(streams.v);
	return o;
}

static void
collect_layers(const tc_json *items, struct ints *layers)
{
	size_t i;

	for (i = 0; i < len_of(items); i++) {
		int64_t l;

		if (tc_json_int64(tc_json_get(item(items, i), "layer"), &l))
			ints_add(layers, l);
	}
}

static tc_json *
layer_summary(const tc_json *groups, const tc_json *breaks, long n)
{
	tc_json *o = tc_json_new_object(), *layers = tc_json_new_object();
	struct ints all = { NULL, 0, 0 };
	size_t i, distinct = 0;

	collect_layers(groups, &all);
	collect_layers(breaks, &all);
	if (all.n > 0)
		qsort(all.v, all.n, sizeof(*all.v), cmp_i64);
	for (i = 0; i < all.n; i++) {
		tc_json *g, *b;
		char key[24];

		if (i > 0 && all.v[i] == all.v[i - 1])
			continue;
		distinct++;
		g = in_layer(groups, all.v[i]);
		b = in_layer(breaks, all.v[i]);
		snprintf(key, sizeof(key), "%lld", (long long)all.v[i]);
		tc_json_object_set(layers, key, layer_entry(g, b, n));
		tc_json_free(g);
		tc_json_free(b);
	}
	tc_json_object_set_int(o, "layer_count", (int64_t)distinct);
	tc_json_object_set(o, "layers", layers);
	tc_json_object_set_string(o, "coverage_limit", layer_coverage_limit);
	free(all.v);
	return o;
}

/* ---- the break action plan --------------------------------------------------- */

struct break_rule {
	const char *reasons[5];	/* NULL-terminated; none: the expected
				 * reasons, then everything else */
	const char *category;
	int priority;
	bool can_reduce;
	const char *action;
};

static const struct break_rule break_rules[] = {
	{ { "NOT_IN_SCOPE", "IN_UNFUSIBLE_SCOPE", "EXCEED_SCOPE_MAX", NULL },
	    "scope_configuration", 0, true,
	    "fix marker placement, intentional exclusions, or scope-name "
	    "cardinality" },
	{ { "RESOURCE_INSUFFICIENT", NULL }, "scope_resource", 1, true,
	    "split at dependency/resource boundaries before testing a wider "
	    "scope" },
	{ { "EXIST_DEADLOCK", "DEADLOCK_DETECTED", "EXTERNAL_DEPEND",
	    "ISOLATED_EVENT", NULL }, "dependency", 2, false,
	    "preserve dependency ordering; test only matching accepted "
	    "aggressive options after owner confirmation and "
	    "deadlock/correctness checks" },
	{ { "OP_UNSUPPORT", "SIMT_OP_UNSUPPORT", "KERNEL_ATTR_GET_FAILED",
	    NULL }, "deferred_operator_adaptation", 5, false,
	    "move outside scope now; adapt the Ascend C/non-SK child in the "
	    "next phase" },
	{ { "DYNAMIC_TASK_UNSUPPORT", NULL }, "deferred_runtime_or_static_kernel",
	    4, false, "exclude now; enable/adapt static task information in "
	    "the next phase" },
	{ { "EXCEED_CORE_MAX", "SYNCALL_OP_DROP", NULL },
	    "deferred_core_synchronization", 6, false,
	    "validate child core count/full-core synchronization before "
	    "deeper fusion" },
	{ { "NOT_IN_SCOPE", "IN_UNFUSIBLE_SCOPE", "SUCCESS", NULL },
	    "expected_or_intentional", 3, false,
	    "verify this exclusion matches the candidate manifest" },
	{ { NULL }, "unresolved", 7, false,
	    "inspect the first trigger, node detail, and active AOT source "
	    "before tuning" },
};

static const struct break_rule *
rule_of(const char *reason)
{
	size_t r, k;

	for (r = 0; break_rules[r].reasons[0] != NULL; r++)
		for (k = 0; break_rules[r].reasons[k] != NULL; k++)
			if (strcmp(break_rules[r].reasons[k], reason) == 0)
				return &break_rules[r];
	return &break_rules[r];
}

/* The aggressive options the details of dependency breaks point at. */
static tc_json *
dependency_options(const tc_json *items)
{
	static const char *const keys[] = { "detail", "fusion_fail_detail",
	    NULL };
	tc_json *out = tc_json_new_array();
	tc_buf text = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < len_of(items); i++) {
		if (i > 0)
			tc_buf_putc(&text, ' ');
		tc_buf_add(&text, first_nonempty(item(items, i), keys),
		    strlen(first_nonempty(item(items, i), keys)));
	}
	tc_buf_putc(&text, '\0');
	for (i = 0; text.data[i] != '\0'; i++)
		if (text.data[i] >= 'A' && text.data[i] <= 'Z')
			text.data[i] = (char)(text.data[i] - 'A' + 'a');
	if (strstr(text.data, "valuewait") != NULL ||
	    strstr(text.data, "value wait") != NULL)
		tc_json_array_push(out, tc_json_new_string(
		    "aggressive_opt_strategies.value_breaker_bypass"));
	if (strstr(text.data, "event") != NULL)
		tc_json_array_push(out, tc_json_new_string(
		    "aggressive_opt_strategies.event_breaker_bypass"));
	if (strstr(text.data, "task") != NULL)
		tc_json_array_push(out, tc_json_new_string(
		    "aggressive_opt_strategies.task_breaker_bypass"));
	tc_buf_free(&text);
	return out;
}

static tc_json *
break_action(const char *reason, const tc_json *items)
{
	const struct break_rule *rule = rule_of(reason);
	tc_json *o = tc_json_new_object(), *options;
	size_t i, non_static = 0;

	for (i = 0; i < len_of(items); i++)
		non_static += !flag(item(items, i), "static_kernel_symbol");
	options = rule->priority == 2 ? dependency_options(items) :
	    tc_json_new_array();
	tc_json_object_set_string(o, "reason", reason);
	tc_json_object_set_int(o, "count", (int64_t)len_of(items));
	tc_json_object_set_int(o, "non_static_symbol_or_unknown_count",
	    (int64_t)non_static);
	tc_json_object_set_bool(o, "can_reduce_before_operator_adaptation",
	    rule->can_reduce || (rule->priority == 2 && len_of(options) > 0));
	tc_json_object_set(o, "option_candidates", options);
	tc_json_object_set_string(o, "category", rule->category);
	tc_json_object_set_string(o, "action", rule->action);
	return o;
}

static int
by_priority_then_count(const tc_json *a, const tc_json *b)
{
	int pa = rule_of(str_or_empty(a, "reason"))->priority;
	int pb = rule_of(str_or_empty(b, "reason"))->priority;
	int64_t ca = tc_analysis__skm_int(a, "count");
	int64_t cb = tc_analysis__skm_int(b, "count");

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return (ca < cb) - (ca > cb);
}

/* The source items of the plan, with "reason" set. */
static tc_json *
action_source(const tc_json *failures, const tc_json *breaks)
{
	tc_json *out = tc_json_new_array();
	size_t i;

	if (len_of(failures) > 0) {
		for (i = 0; i < len_of(failures); i++)
			tc_json_array_push(out, tc_json_clone(item(failures, i)));
		return out;
	}
	for (i = 0; i < len_of(breaks); i++) {
		tc_json *b = tc_json_clone(item(breaks, i));

		tc_json_object_set_string(b, "reason", str_or_empty(b,
		    "fusion_fail_reason"));
		tc_json_object_set_bool(b, "static_kernel_symbol", false);
		tc_json_array_push(out, b);
	}
	return out;
}

static tc_json *
break_action_plan(const tc_json *failures, const tc_json *breaks)
{
	tc_json *o = tc_json_new_object(), *src = action_source(failures, breaks);
	tc_json *actions = tc_json_new_array();
	struct counter reasons = { 0 };
	size_t i;

	count_field(&reasons, src, "reason");
	for (i = 0; i < reasons.len; i++) {
		const char *r = tc_json_string(reasons.keys[i]);
		tc_json *mine = items_where(src, "reason", r);

		tc_json_array_push(actions, break_action(r, mine));
		tc_json_free(mine);
	}
	sort_list(actions, by_priority_then_count);
	tc_json_object_set(o, "ordered_actions", actions);
	tc_json_object_set(o, "minimal_break_sequence",
	    string_list(minimal_break_sequence));
	counter_free(&reasons);
	tc_json_free(src);
	return o;
}

/* ---- the round report --------------------------------------------------------- */

static int
by_effective_depth_name(const tc_json *a, const tc_json *b)
{
	bool ea = flag(a, "counts_as_effective_fusion");
	bool eb = flag(b, "counts_as_effective_fusion");
	int64_t ca = tc_analysis__skm_int(a, "child_count");
	int64_t cb = tc_analysis__skm_int(b, "child_count");

	if (ea != eb)
		return ea ? -1 : 1;
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return cmp_str(tc_json_get(a, "function"), tc_json_get(b, "function"));
}

static tc_json *
node_values(const tc_json *nodes, const char *key)
{
	tc_json *out = tc_json_new_array();
	size_t i;

	for (i = 0; i < len_of(nodes); i++) {
		const char *s = key != NULL ? str_or_empty(item(nodes, i), key) :
		    op_or_func(item(nodes, i));

		tc_json_array_push(out, tc_json_new_string(s));
	}
	return out;
}

static tc_json *
per_sk_row(const tc_json *g, long m)
{
	tc_json *o = tc_json_new_object(), *ids = stream_ids(g);
	const tc_json *nodes = tc_json_get(g, "nodes");
	const tc_json *b = tc_json_get(g, "boundary");
	int64_t child = trusted(g);
	bool mismatch = flag(g, "node_count_mismatch");
	size_t nn = len_of(nodes);

	set_copy(o, "function", g, "function");
	set_copy(o, "model_id", g, "model_id");
	set_copy(o, "scope_id", g, "scope_id");
	set_copy(o, "boundary", g, "boundary");
	tc_json_object_set(o, "source_scope", tc_json_is(b, TC_JSON_OBJECT) ?
	    tc_json_clone(tc_json_get(b, "scope")) : tc_json_new_null());
	set_copy(o, "layer", g, "layer");
	set_copy(o, "segments", g, "segments");
	tc_json_object_set_int(o, "child_count", child);
	set_copy(o, "declared_child_count", g, "node_count");
	tc_json_object_set_int(o, "parsed_child_count", (int64_t)nn);
	tc_json_object_set_bool(o, "node_count_mismatch", mismatch);
	tc_json_object_set_bool(o, "count_reliable", !mismatch);
	tc_json_object_set_bool(o, "counts_as_effective_fusion", !mismatch &&
	    child >= m);
	tc_json_object_set_int(o, "launch_count_without_sk", child);
	tc_json_object_set_int(o, "launch_count_with_sk", child != 0);
	tc_json_object_set_int(o, "estimated_launch_reduction", child > 1 ?
	    child - 1 : 0);
	tc_json_object_set_int(o, "stream_count", (int64_t)len_of(ids));
	tc_json_object_set(o, "stream_ids", ids);
	set_copy(o, "control_core_mode", g, "control_core_mode");
	tc_json_object_set(o, "op_sequence", node_values(nodes, NULL));
	tc_json_object_set(o, "child_functions", node_values(nodes,
	    "func_name"));
	tc_json_object_set(o, "kernel_type_counts", top_of(nodes,
	    nn > 0 ? (long)nn : 1, true));
	set_copy(o, "path", g, "path");
	return o;
}

static int
by_count_reason_source_op(const tc_json *a, const tc_json *b)
{
	static const char *const keys[] = { "reason", "source", "op_type", NULL };
	int64_t ca = tc_analysis__skm_int(a, "count");
	int64_t cb = tc_analysis__skm_int(b, "count");
	size_t i;
	int c;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	for (i = 0; keys[i] != NULL; i++) {
		const tc_json *x = tc_json_get(a, keys[i]);
		const tc_json *y = tc_json_get(b, keys[i]);

		if ((c = cmp_str(x, y)) != 0)
			return c;
	}
	return 0;
}

/* The rows of one source: items grouped by the key made of fields. */
static void
non_fusion_rows(tc_json *rows, const tc_json *items, bool from_breaks,
    size_t total, struct counter *actions_by_reason)
{
	static const char *const fail_key[] = { "reason", "op_type",
	    "kernel_type", NULL };
	static const char *const break_key[] = { "fusion_fail_reason",
	    "scope_names", "break_reason", NULL };
	static const char *const detail_keys[] = { "detail",
	    "fusion_fail_detail", "break_detail", NULL };
	const char *const *key = from_breaks ? break_key : fail_key;
	struct counter groups = { 0 };
	tc_json *firsts = tc_json_new_array();
	size_t i, k;

	for (i = 0; i < len_of(items); i++) {
		tc_json *kv = tc_json_new_array();
		size_t before = groups.len;

		for (k = 0; key[k] != NULL; k++)
			tc_json_array_push(kv, tc_json_clone(tc_json_get(item(items,
			    i), key[k])));
		count_value(&groups, kv);
		if (groups.len > before)
			tc_json_array_push(firsts, tc_json_clone(item(items, i)));
		tc_json_free(kv);
	}
	for (i = 0; i < groups.len; i++) {
		const tc_json *ex = item(firsts, i);
		const char *reason = str_or_empty(ex, key[0]);
		tc_json *o = tc_json_new_object();
		size_t *slot = tc_analysis__map_find(&actions_by_reason->index,
		    reason);

		tc_json_object_set_string(o, "source", tc_analysis__skm_log_name(
		    from_breaks ? SKM_SPLIT : SKM_FAIL));
		tc_json_object_set_string(o, "reason", reason);
		tc_json_object_set_int(o, "count", (int64_t)groups.counts[i]);
		tc_json_object_set(o, "percent", total ? tc_json_new_float(
		    (double)groups.counts[i] / (double)total * 100) :
		    tc_json_new_null());
		if (from_breaks) {
			tc_json_object_set_null(o, "op_type");
			tc_json_object_set_null(o, "kernel_type");
			tc_json_object_set_null(o, "example_function");
			set_copy(o, "example_node_id", ex, "trigger_node");
			set_copy(o, "example_stream_id", ex, "trigger_stream");
			set_copy(o, "example_scope_names", ex, "scope_names");
			set_copy(o, "example_break_reason", ex, "break_reason");
			tc_json_object_set_string(o, "example_detail",
			    first_nonempty(ex, detail_keys));
		} else {
			set_copy(o, "op_type", ex, "op_type");
			set_copy(o, "kernel_type", ex, "kernel_type");
			set_copy(o, "example_function", ex, "func_name");
			set_copy(o, "example_node_id", ex, "node_id");
			set_copy(o, "example_stream_id", ex, "stream_id");
			tc_json_object_set_null(o, "example_scope_names");
			set_copy(o, "example_detail", ex, "detail");
		}
		tc_json_object_set(o, "action", slot != NULL ?
		    tc_json_clone(actions_by_reason->keys[*slot - 1]) :
		    tc_json_new_null());
		tc_json_array_push(rows, o);
	}
	tc_json_free(firsts);
	counter_free(&groups);
}

static tc_json *
non_fusion_table(const tc_json *failures, const tc_json *breaks)
{
	tc_json *rows = tc_json_new_array();
	struct counter actions = { 0 };
	size_t i, total = len_of(failures) + len_of(breaks);

	/* reason -> its action text (the counter's shown value) */
	for (i = 0; i < total; i++) {
		const char *r = i < len_of(failures) ?
		    str_or_empty(item(failures, i), "reason") :
		    str_or_empty(item(breaks, i - len_of(failures)),
		    "fusion_fail_reason");
		tc_json *text = tc_json_new_string(rule_of(r)->action);

		count_keyed(&actions, r, text);
		tc_json_free(text);
	}
	non_fusion_rows(rows, failures, false, total, &actions);
	non_fusion_rows(rows, breaks, true, total, &actions);
	sort_list(rows, by_count_reason_source_op);
	counter_free(&actions);
	return rows;
}

static tc_json *
exclusion_candidate(const tc_json *row)
{
	static const char *const keys[] = { "function", "scope_id",
	    "source_scope", "boundary", "layer", "child_count",
	    "child_functions", "op_sequence", "stream_ids", "path", NULL };
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		set_copy(o, keys[i], row, keys[i]);
	tc_json_object_set_string(o, "exclusion_status", "not_applicable");
	tc_json_object_set_string(o, "performance_action",
	    "pending_profiling_analysis");
	return o;
}

static tc_json *
round_report(const tc_json *groups, const tc_json *failures,
    const tc_json *breaks, const struct tc_sk_meta_args *a,
    const char *scope_kind)
{
	tc_json *o = tc_json_new_object(), *rows = tc_json_new_array();
	tc_json *ef = tc_json_new_object(), *ex = tc_json_new_object();
	tc_json *cands = tc_json_new_array();
	struct ints eff = { NULL, 0, 0 }, sh = { NULL, 0, 0 };
	int64_t eff_red = 0, all_red = 0;
	size_t i, singles = 0, shallow_multi = 0;
	long m = a->effective_min_child_nodes;

	for (i = 0; i < len_of(groups); i++)
		tc_json_array_push(rows, per_sk_row(item(groups, i), m));
	sort_list(rows, by_effective_depth_name);
	for (i = 0; i < len_of(rows); i++) {
		const tc_json *r = item(rows, i);
		int64_t c = tc_analysis__skm_int(r, "child_count");
		int64_t red = tc_analysis__skm_int(r, "estimated_launch_reduction");

		all_red = sat_add(all_red, red);
		if (flag(r, "counts_as_effective_fusion")) {
			ints_add(&eff, c);
			eff_red = sat_add(eff_red, red);
		} else {
			ints_add(&sh, c);
		}
		if (c == 1 && flag(r, "count_reliable")) {
			singles++;
			tc_json_array_push(cands, exclusion_candidate(r));
		}
		shallow_multi += c > 1 && c < m;
	}
	tc_json_object_set_int(ef, "total_group_count", (int64_t)len_of(rows));
	tc_json_object_set_int(ef, "effective_group_count", (int64_t)eff.n);
	tc_json_object_set_int(ef, "shallow_group_count", (int64_t)sh.n);
	tc_json_object_set_int(ef, "effective_child_node_total", ints_sum(&eff));
	tc_json_object_set_int(ef, "shallow_child_node_total", ints_sum(&sh));
	tc_json_object_set(ef, "effective_child_count_histogram",
	    histogram(&eff));
	tc_json_object_set(ef, "shallow_child_count_histogram", histogram(&sh));
	tc_json_object_set_int(ef, "effective_launch_reduction", eff_red);
	tc_json_object_set_int(ef, "all_fused_launch_reduction", all_red);

	tc_json_object_set_string(ex, "policy", exclusion_policy);
	tc_json_object_set_string(ex, "scope_kind", scope_kind);
	tc_json_object_set_bool(ex, "requires_scope_adjustment", false);
	tc_json_object_set_string(ex, "next_round_policy", "profiling_decides");
	tc_json_object_set_string(ex, "performance_action", "none");
	tc_json_object_set_int(ex, "single_child_group_count", (int64_t)singles);
	tc_json_object_set_int(ex, "shallow_non_single_child_group_count",
	    (int64_t)shallow_multi);
	tc_json_object_set(ex, "candidates", cands);
	tc_json_object_set_string(ex, "s1_auto_action", "none");

	tc_json_object_set_string_or_null(o, "round_name", a->round_name);
	tc_json_object_set_int(o, "min_child_nodes", m);
	tc_json_object_set_string(o, "filter_policy", filter_policy);
	tc_json_object_set(o, "effective_fusion", ef);
	tc_json_object_set(o, "single_child_exclusion", ex);
	tc_json_object_set(o, "per_sk_fusion_table", rows);
	tc_json_object_set(o, "non_fusion_operator_table",
	    non_fusion_table(failures, breaks));
	tc_json_object_set(o, "required_per_round_report_fields",
	    string_list(required_round_fields));
	free(eff.v);
	free(sh.v);
	return o;
}

/* ---- the summary ------------------------------------------------------------- */

static const char *
scope_kind_of(const struct tc_sk_meta_args *a)
{
	char *k;
	const char *kind = "manual";
	size_t i;

	if (a->scope_kind != NULL)
		return a->scope_kind;
	if (a->round_name == NULL)
		return kind;
	/* round_name.strip().lower().replace("_", "-") */
	k = tc_analysis__strip_dup(a->round_name, strlen(a->round_name));
	for (i = 0; k[i] != '\0'; i++) {
		if (k[i] >= 'A' && k[i] <= 'Z')
			k[i] = (char)(k[i] - 'A' + 'a');
		if (k[i] == '_')
			k[i] = '-';
	}
	if (strcmp(k, "s1") == 0 || strcmp(k, "s1-auto") == 0 ||
	    strcmp(k, "automatic-aot") == 0)
		kind = "automatic_aot";
	free(k);
	return kind;
}

static tc_json *
reason_counts(const tc_json *failures, const tc_json *breaks,
    int64_t *expected, int64_t *all)
{
	const tc_json *src = len_of(failures) > 0 ? failures : breaks;
	const char *key = len_of(failures) > 0 ? "reason" : "fusion_fail_reason";
	size_t i;

	*expected = 0;
	*all = (int64_t)len_of(src);
	for (i = 0; i < len_of(src); i++)
		*expected += expected_reason(str_or_empty(item(src, i), key));
	return field_counts(src, key);
}

static tc_json *
metadata_quality(const struct tc_skm_logs *l, int64_t trusted_total)
{
	tc_json *o = tc_json_new_object();
	int64_t declared = 0, parsed = 0, mismatch = 0, named = 0, bnamed = 0;
	size_t i;

	for (i = 0; i < len_of(l->groups); i++) {
		const tc_json *g = item(l->groups, i);

		declared = sat_add(declared, tc_analysis__skm_int(g, "node_count"));
		parsed += (int64_t)len_of(tc_json_get(g, "nodes"));
		mismatch += flag(g, "node_count_mismatch");
		named += tc_json_is(tc_json_get(g, "layer"), TC_JSON_INT);
	}
	for (i = 0; i < len_of(l->breaks); i++)
		bnamed += tc_json_is(tc_json_get(item(l->breaks, i), "layer"),
		    TC_JSON_INT);
	tc_json_object_set_int(o, "declared_child_node_count", declared);
	tc_json_object_set_int(o, "trusted_child_node_count", trusted_total);
	tc_json_object_set_int(o, "parsed_child_node_count", parsed);
	tc_json_object_set_int(o, "node_count_mismatch_group_count", mismatch);
	tc_json_object_set_int(o, "layer_named_sk_count", named);
	tc_json_object_set_int(o, "layer_named_break_count", bnamed);
	tc_json_object_set_int(o, "raw_scope_break_record_count",
	    (int64_t)len_of(l->raw_breaks));
	tc_json_object_set_int(o, "unique_scope_break_record_count",
	    (int64_t)len_of(l->breaks));
	return o;
}

static tc_json *
fusion_depth(const tc_json *groups, const tc_json *effective, long m)
{
	tc_json *o = tc_json_new_object();
	struct ints counts = { NULL, 0, 0 };
	int64_t total, max = 0;
	size_t i, singles = 0, g = len_of(groups);
	static const char *const copied[] = { "effective_group_count",
	    "shallow_group_count", "effective_launch_reduction", NULL };

	child_counts(groups, &counts);
	total = ints_sum(&counts);
	for (i = 0; i < g; i++) {
		if (counts.v[i] > max)
			max = counts.v[i];
		singles += counts.v[i] <= 1 && flag(item(groups, i),
		    "count_reliable");
	}
	tc_json_object_set_int(o, "total_child_nodes", total);
	tc_json_object_set_int(o, "effective_min_child_nodes", m);
	for (i = 0; copied[i] != NULL; i++)
		set_copy(o, copied[i], effective, copied[i]);
	tc_json_object_set(o, "avg_child_nodes_per_group", g ?
	    ratio((double)total, (double)g) : tc_json_new_int(0));
	tc_json_object_set(o, "child_count_stats", stats(&counts));
	tc_json_object_set(o, "child_count_histogram", histogram(&counts));
	tc_json_object_set_int(o, "max_child_nodes_per_group", max);
	tc_json_object_set_int(o, "single_child_group_count", (int64_t)singles);
	tc_json_object_set(o, "single_child_group_ratio", g ?
	    ratio((double)singles, (double)g) : tc_json_new_null());
	free(counts.v);
	return o;
}

static tc_json *
token_counts(const struct an_map *tokens)
{
	tc_json *o = tc_json_new_object();
	size_t i;

	for (i = 0; i < tokens->cap; i++)
		if (tokens->keys[i] != NULL)
			tc_json_object_set_int(o, tokens->keys[i],
			    (int64_t)tokens->vals[i]);
	return o;
}

tc_json *
tc_sk_meta_summary(const struct tc_sk_meta_args *a, tc_error *err)
{
	struct tc_skm_logs l;
	tc_json *o, *files, *rr;
	struct ints counts = { NULL, 0, 0 };
	int64_t total, expected, all;
	long n = a->sample_limit;
	int k;

	if (tc_analysis__skm_load(a->root, &l, err) != 0) {
		tc_analysis__skm_free(&l);
		return NULL;
	}
	o = tc_json_new_object();
	files = tc_json_new_object();
	child_counts(l.groups, &counts);
	total = ints_sum(&counts);
	free(counts.v);
	for (k = 0; k < SKM_NLOGS; k++)
		tc_json_object_set_int(files, tc_analysis__skm_log_name(k),
		    (int64_t)l.files[k]);
	rr = round_report(l.groups, l.failures, l.breaks, a, scope_kind_of(a));
	tc_json_object_set_string(o, "root", ".");
	tc_json_object_set_int(o, "model_count", (int64_t)l.model_count);
	tc_json_object_set(o, "files", files);
	tc_json_object_set_int(o, "fused_node_records", total);
	tc_json_object_set_int(o, "fused_group_count",
	    (int64_t)len_of(l.groups));
	tc_json_object_set(o, "sk_inventory", tc_json_clone(l.groups));
	tc_json_object_set(o, "layer_summary", layer_summary(l.groups, l.breaks,
	    n));
	tc_json_object_set(o, "control_core", control_core(l.groups,
	    l.failures));
	tc_json_object_set(o, "disconnect", disconnect(l.groups, l.breaks));
	tc_json_object_set(o, "break_action_plan", break_action_plan(l.failures,
	    l.breaks));
	tc_json_object_set(o, "metadata_quality", metadata_quality(&l, total));
	tc_json_object_set(o, "fusion_depth", fusion_depth(l.groups,
	    tc_json_get(rr, "effective_fusion"), a->effective_min_child_nodes));
	tc_json_object_set(o, "round_report", rr);
	tc_json_object_set(o, "reason_counts", reason_counts(l.failures,
	    l.breaks, &expected, &all));
	tc_json_object_set_string(o, "reason_count_source",
	    len_of(l.failures) > 0 ? "fusion_failure_records" :
	    "deduplicated_scope_break_records");
	tc_json_object_set(o, "raw_reason_token_counts", token_counts(&l.tokens));
	tc_json_object_set(o, "fused_group_summary", fused_group_summary(l.groups,
	    n));
	tc_json_object_set(o, "fusion_failure_summary",
	    failure_summary(l.failures, n));
	tc_json_object_set(o, "scope_break_summary", break_summary(l.breaks,
	    len_of(l.raw_breaks), n));
	tc_json_object_set_int(o, "expected_reason_count", expected);
	tc_json_object_set_int(o, "actionable_reason_count", all - expected);
	tc_json_object_set(o, "fused_group_samples", first_n(l.groups, n));
	tc_json_object_set(o, "failure_samples", first_n(l.failures, n));
	tc_json_object_set(o, "scope_break_samples", first_n(l.breaks, n));
	tc_json_object_set_bool(o, "fusion_proven", total > 0);
	tc_analysis__skm_free(&l);
	return o;
}

/* ---- the deep auto-scope plan ------------------------------------------------ */

static int
by_depth_name_scope(const tc_json *a, const tc_json *b)
{
	int64_t x = trusted(a), y = trusted(b);
	int c;

	if (x != y)
		return x > y ? -1 : 1;
	if ((c = cmp_str(tc_json_get(a, "function"), tc_json_get(b,
	    "function"))) != 0)
		return c;
	x = tc_analysis__skm_int(a, "scope_id");
	y = tc_analysis__skm_int(b, "scope_id");
	return (x > y) - (x < y);
}

static tc_json *
plan_candidate(const tc_json *g)
{
	const tc_json *nodes = tc_json_get(g, "nodes");
	const tc_json *b = tc_json_get(g, "boundary");
	tc_json *o = tc_json_new_object();

	set_copy(o, "model_id", g, "model_id");
	set_copy(o, "scope_id", g, "scope_id");
	set_copy(o, "function", g, "function");
	if (tc_json_is(b, TC_JSON_OBJECT)) {
		set_copy(o, "source_scope", b, "scope");
		tc_json_object_set(o, "boundary", tc_json_clone(b));
	} else {
		tc_json_object_set_null(o, "source_scope");
		tc_json_object_set(o, "boundary", tc_json_new_object());
	}
	tc_json_object_set_int(o, "child_count", trusted(g));
	set_copy(o, "declared_child_count", g, "node_count");
	tc_json_object_set_int(o, "parsed_child_count", (int64_t)len_of(nodes));
	set_copy(o, "node_count_mismatch", g, "node_count_mismatch");
	tc_json_object_set_bool(o, "count_reliable", !flag(g,
	    "node_count_mismatch"));
	tc_json_object_set(o, "op_sequence", node_values(nodes, NULL));
	tc_json_object_set(o, "kernel_type_sequence", node_values(nodes,
	    "kernel_type"));
	tc_json_object_set(o, "stream_ids", stream_ids(g));
	set_copy(o, "control_core_mode", g, "control_core_mode");
	set_copy(o, "layer", g, "layer");
	set_copy(o, "segments", g, "segments");
	set_copy(o, "path", g, "path");
	tc_json_object_set(o, "nodes", nodes != NULL ? tc_json_clone(nodes) :
	    tc_json_new_array());
	tc_json_object_set_string(o, "performance_action",
	    "pending_profiling_analysis");
	return o;
}

/* The counter's entries, top n, as {"count": c, <name>: value...}. */
static tc_json *
patterns(const struct counter *c, long n, const char *const *names)
{
	tc_json *out = tc_json_new_array();
	size_t *idx = most_common(c), i, k;

	for (i = 0; n > 0 && i < c->len && i < (size_t)n; i++) {
		tc_json *o = tc_json_new_object();
		const tc_json *v = c->keys[idx[i]];

		tc_json_object_set_int(o, "count", (int64_t)c->counts[idx[i]]);
		for (k = 0; names[k] != NULL; k++)
			tc_json_object_set(o, names[k], names[1] == NULL ?
			    tc_json_clone(v) : tc_json_clone(item(v, k)));
		tc_json_array_push(out, o);
	}
	free(idx);
	return out;
}

tc_json *
tc_sk_meta_plan(const tc_json *summary, long min_child_nodes, long n)
{
	static const char *const seq_names[] = { "op_sequence", NULL };
	static const char *const bnd_names[] = { "start_op", "end_op",
	    "child_count", NULL };
	const tc_json *inv = tc_json_get(summary, "sk_inventory");
	tc_json *o = tc_json_new_object(), *sel = tc_json_new_array();
	tc_json *cands = tc_json_new_array();
	struct ints sc = { NULL, 0, 0 }, kc = { NULL, 0, 0 };
	struct counter seqs = { 0 }, bounds = { 0 };
	size_t i;

	for (i = 0; i < len_of(inv); i++) {
		const tc_json *g = item(inv, i);

		if (flag(g, "count_reliable"))
			tc_json_array_push(sel, tc_json_clone(g));
		else
			ints_add(&kc, trusted(g));
	}
	sort_list(sel, by_depth_name_scope);
	for (i = 0; i < len_of(sel); i++) {
		tc_json *c = plan_candidate(item(sel, i)), *key;
		const tc_json *b = tc_json_get(c, "boundary");

		ints_add(&sc, trusted(item(sel, i)));
		count_value(&seqs, tc_json_get(c, "op_sequence"));
		key = tc_json_new_array();
		tc_json_array_push(key, tc_json_get(b, "start_op") != NULL ?
		    tc_json_clone(tc_json_get(b, "start_op")) :
		    tc_json_new_null());
		tc_json_array_push(key, tc_json_get(b, "end_op") != NULL ?
		    tc_json_clone(tc_json_get(b, "end_op")) : tc_json_new_null());
		tc_json_array_push(key, tc_json_clone(tc_json_get(c,
		    "child_count")));
		count_value(&bounds, key);
		tc_json_free(key);
		tc_json_array_push(cands, c);
	}
	tc_json_object_set_string(o, "strategy",
	    "manual_scope_inventory_pending_profiling");
	tc_json_object_set_string(o, "source", "S1_auto sk_inventory");
	tc_json_object_set_int(o, "min_child_nodes", min_child_nodes);
	tc_json_object_set_string(o, "min_child_nodes_role", "descriptive_only");
	tc_json_object_set_int(o, "selected_group_count", (int64_t)sc.n);
	tc_json_object_set_int(o, "skipped_group_count", (int64_t)kc.n);
	tc_json_object_set_int(o, "selected_child_node_total", ints_sum(&sc));
	tc_json_object_set_int(o, "skipped_child_node_total", ints_sum(&kc));
	tc_json_object_set(o, "child_count_histogram", histogram(&sc));
	tc_json_object_set(o, "skipped_child_count_histogram", histogram(&kc));
	tc_json_object_set(o, "manual_scope_candidates", cands);
	tc_json_object_set(o, "top_op_sequence_patterns", patterns(&seqs, n,
	    seq_names));
	tc_json_object_set(o, "top_boundary_patterns", patterns(&bounds, n,
	    bnd_names));
	tc_json_object_set_string(o, "guardrail", plan_guardrail);
	counter_free(&seqs);
	counter_free(&bounds);
	tc_json_free(sel);
	free(sc.v);
	free(kc.v);
	return o;
}
