/*
 * sentinel.c - scope sentinel exclusion (scope_sentinel_exclusion_v2):
 * the marker kernels sk_scope_kernel_begin|placeholder_kernel|
 * scope_kernel_end_dav_<tag> a calibration build puts around a scope.
 * Here: recognising them, the chain a graph proposes to exclude (with
 * the proposal's blockers), the evidence object every projection
 * records, and the two witnesses read from the candidate's capture (the
 * updated graphs and the candidate profiler).  The gates that need the
 * projection itself are in projection.c (docs/analysis.md "Scope
 * sentinels").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

static const char *const kinds[3] = { "scope_kernel_begin",
	"placeholder_kernel", "scope_kernel_end" };
/* the kinds of one complete chain, in stream order */
static const int chain[6] = { 0, 1, 1, 1, 1, 2 };

int
tc_analysis__sentinel_match(const char *f, const char **tag)
{
	size_t i, l;

	for (i = 0; f != NULL && i < 3; i++) {
		l = strlen(kinds[i]);
		if (strncmp(f, "sk_", 3) != 0 || strncmp(f + 3, kinds[i], l) !=
		    0 || strncmp(f + 3 + l, "_dav_", 5) != 0)
			continue;
		f += 3 + l + 5;
		if (*f < '1' || *f > '9' || f[strspn(f, "0123456789")] !=
		    '\0')
			return -1;
		if (tag != NULL)
			*tag = f;
		return (int)i;
	}
	return -1;
}

bool
tc_analysis__sentinel_op(const char *op)
{
	return op != NULL && (strcmp(op, "sk_scope_kernel_begin_dav") == 0 ||
	    strcmp(op, "sk_placeholder_kernel_dav") == 0 ||
	    strcmp(op, "sk_scope_kernel_end_dav") == 0);
}

struct marker {
	const struct an_gnode *n;
	int kind;
	const char *tag;
};

static int
cmp_marker(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;
	int c = strcmp(x->n->stream_key, y->n->stream_key);

	if (c != 0)
		return c;
	return x->n->pos < y->n->pos ? -1 : x->n->pos > y->n->pos;
}

/* tags compare as integers (sorted(key=int)) */
static int
cmp_tag(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

void
tc_analysis__list_insert_sorted(tc_json *list, const char *s,
    int (*cmp)(const char *, const char *))
{
	size_t i;

	for (i = 0; i < list->u.arr.len; i++) {
		int c = cmp(tc_json_string(list->u.arr.items[i]), s);

		if (c == 0)
			return;
		if (c > 0)
			break;
	}
	tc_json_array_push(list, tc_json_new_string(s));
	{
		tc_json *x = list->u.arr.items[list->u.arr.len - 1];

		memmove(&list->u.arr.items[i + 1], &list->u.arr.items[i],
		    (list->u.arr.len - 1 - i) * sizeof(*list->u.arr.items));
		list->u.arr.items[i] = x;
	}
}

static void
add_str(tc_json *list, const char *s)
{
	tc_analysis__list_insert_sorted(list, s, strcmp);
}

tc_json *
tc_analysis__sentinel_proposal(const struct an_gnode *nodes, size_t nn)
{
	tc_json *p = tc_json_new_object(), *keys = tc_json_new_array();
	tc_json *names = tc_json_new_array(), *roles = tc_json_new_array();
	tc_json *tags = tc_json_new_array(), *blk = tc_json_new_array();
	tc_json *sig;
	struct marker *m = tc_xcalloc(nn + 1, sizeof(*m));
	size_t n = 0, i, j, occurrences = 0;
	bool simple;

	for (i = 0; i < nn; i++) {
		int k = tc_analysis__sentinel_match(nodes[i].func_name,
		    &m[n].tag);

		if (k < 0)
			continue;
		m[n].n = &nodes[i];
		m[n++].kind = k;
	}
	if (n == 0) {
		free(m);
		tc_json_object_set_string(p, "status", "not_present");
		tc_json_object_set(p, "node_keys", keys);
		tc_json_object_set(p, "function_names", names);
		tc_json_object_set_null(p, "stream_role");
		tc_json_object_set(p, "tags", tags);
		tc_json_object_set_int(p, "occurrence_count", 0);
		tc_json_object_set_null(p, "signature");
		tc_json_object_set(p, "blockers", blk);
		tc_json_free(roles);
		return p;
	}
	for (i = 0; i < n; i++)
		if (strcmp(m[i].n->kind, "KERNEL") != 0 ||
		    strcmp(m[i].n->family, "AI_VECTOR_CORE") != 0)
			add_str(blk, "scope_sentinel_not_vector_kernel");
	qsort(m, n, sizeof(*m), cmp_marker);
	for (i = 0; i < n; i++) {
		add_str(roles, m[i].n->stream_key);
		tc_analysis__list_insert_sorted(tags, m[i].tag, cmp_tag);
	}
	/* per tag: ends = begins >= 1, placeholders = 4 x begins */
	for (j = 0; j < tags->u.arr.len; j++) {
		const char *t = tc_json_string(tags->u.arr.items[j]);
		size_t c[3] = { 0, 0, 0 };

		for (i = 0; i < n; i++)
			if (strcmp(m[i].tag, t) == 0)
				c[m[i].kind]++;
		if (c[0] == 0 || c[2] != c[0] || c[1] != 4 * c[0])
			add_str(blk, "scope_sentinel_chain_incomplete");
		occurrences += c[0];
	}
	sig = tc_json_new_array();
	simple = roles->u.arr.len == 1 && n % 6 == 0;
	if (simple) {
		for (i = 0; i < n; i += 6) {
			tc_json *o = tc_json_new_object(), *ks, *ords, *fams;
			bool same_tag = true, contiguous = true;

			ks = tc_json_new_array();
			ords = tc_json_new_array();
			fams = tc_json_new_array();
			for (j = 0; j < 6; j++) {
				const struct marker *x = &m[i + j];

				if (x->kind != chain[j])
					add_str(blk,
					    "scope_sentinel_chain_incomplete");
				if (strcmp(x->tag, m[i].tag) != 0)
					same_tag = false;
				tc_json_array_push(ks, tc_json_new_string(
				    kinds[x->kind]));
				tc_json_array_push(ords, tc_json_new_int(
				    (int64_t)x->n->pos));
				tc_json_array_push(fams, tc_json_new_string(
				    x->n->family));
			}
			/* begin and two placeholders, then two placeholders
			 * and end, each three consecutive ordinals, with
			 * business kernels between them */
			for (j = 1; j < 3; j++)
				if (m[i + j].n->pos != m[i].n->pos + j ||
				    m[i + 3 + j].n->pos != m[i + 3].n->pos + j)
					contiguous = false;
			if (!same_tag)
				add_str(blk,
				    "scope_sentinel_chain_tag_inconsistent");
			if (!contiguous)
				add_str(blk, "scope_sentinel_chain_noncontiguous");
			if (m[i + 3].n->pos <= m[i + 2].n->pos + 1)
				add_str(blk,
				    "scope_sentinel_business_interval_missing");
			tc_json_object_set_int(o, "occurrence_ordinal",
			    (int64_t)(i / 6));
			if (same_tag)
				tc_json_object_set_string(o, "tag", m[i].tag);
			else
				tc_json_object_set_null(o, "tag");
			tc_json_object_set(o, "kinds", ks);
			tc_json_object_set(o, "stream_ordinals", ords);
			tc_json_object_set(o, "core_families", fams);
			tc_json_array_push(sig, o);
		}
	} else {
		for (j = 0; j < roles->u.arr.len; j++) {
			const char *role = tc_json_string(roles->u.arr.items[j]);
			tc_json *o = tc_json_new_object(), *ms;

			ms = tc_json_new_array();
			for (i = 0; i < n; i++) {
				tc_json *x;

				if (strcmp(m[i].n->stream_key, role) != 0)
					continue;
				x = tc_json_new_object();
				tc_json_object_set_string(x, "kind",
				    kinds[m[i].kind]);
				tc_json_object_set_string(x, "tag", m[i].tag);
				tc_json_object_set_int(x, "stream_ordinal",
				    (int64_t)m[i].n->pos);
				tc_json_object_set_string(x, "core_family",
				    m[i].n->family);
				tc_json_array_push(ms, x);
			}
			tc_json_object_set_string(o, "stream_role", role);
			tc_json_object_set(o, "markers", ms);
			tc_json_array_push(sig, o);
		}
	}
	for (i = 0; i < n; i++) {
		tc_json_array_push(keys, tc_json_new_string(m[i].n->key));
		tc_json_array_push(names, tc_json_new_string(m[i].n->func_name));
	}
	tc_json_object_set_string(p, "status", blk->u.arr.len == 0 ?
	    "proposed" : "rejected");
	tc_json_object_set(p, "node_keys", keys);
	tc_json_object_set(p, "function_names", names);
	if (roles->u.arr.len == 1)
		tc_json_object_set(p, "stream_role", tc_json_clone(
		    roles->u.arr.items[0]));
	else
		tc_json_object_set_null(p, "stream_role");
	tc_json_object_set(p, "stream_roles", roles);
	tc_json_object_set(p, "tags", tags);
	tc_json_object_set_int(p, "occurrence_count", (int64_t)occurrences);
	tc_json_object_set(p, "signature", sig);
	tc_json_object_set(p, "blockers", blk);
	free(m);
	return p;
}

tc_json *
tc_analysis__sentinel_evidence(const tc_json *proposal)
{
	tc_json *e = tc_json_new_object();
	const tc_json *roles = tc_json_get(proposal, "stream_roles");

	tc_json_object_set_string(e, "protocol", "scope_sentinel_exclusion_v2");
	tc_json_object_set(e, "status", tc_json_clone(tc_json_get(proposal,
	    "status")));
	tc_json_object_set(e, "candidate_node_keys", tc_json_clone(
	    tc_json_get(proposal, "node_keys")));
	tc_json_object_set(e, "excluded_node_keys", tc_json_new_array());
	tc_json_object_set(e, "function_names", tc_json_clone(
	    tc_json_get(proposal, "function_names")));
	tc_json_object_set(e, "stream_role", tc_json_clone(
	    tc_json_get(proposal, "stream_role")));
	tc_json_object_set(e, "stream_roles", roles != NULL ?
	    tc_json_clone(roles) : tc_json_new_array());
	tc_json_object_set(e, "tags", tc_json_clone(tc_json_get(proposal,
	    "tags")));
	tc_json_object_set(e, "occurrence_count", tc_json_clone(
	    tc_json_get(proposal, "occurrence_count")));
	tc_json_object_set_int(e, "origin_graph_count", 0);
	tc_json_object_set_int(e, "updated_graph_count", 0);
	tc_json_object_set_int(e, "candidate_profiler_rows_checked", 0);
	tc_json_object_set(e, "gates", tc_json_new_object());
	tc_json_object_set(e, "blockers", tc_json_clone(tc_json_get(proposal,
	    "blockers")));
	return e;
}

/* every string funcName below v that names a sentinel (a funcName that
 * is not a string is searched like any other member) */
static void
marker_names(const tc_json *v, tc_json *out)
{
	size_t i;

	if (v->type == TC_JSON_OBJECT) {
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json *c = v->u.obj.members[i].value;

			if (strcmp(v->u.obj.members[i].key, "funcName") == 0 &&
			    c->type == TC_JSON_STRING) {
				if (tc_analysis__sentinel_match(c->u.str.ptr,
				    NULL) >= 0)
					add_str(out, c->u.str.ptr);
			} else {
				marker_names(c, out);
			}
		}
	} else if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			marker_names(v->u.arr.items[i], out);
	}
}

static bool
model_is(const char *model_text, const char *want)
{
	size_t l = strcspn(model_text, "_");

	return strlen(want) == l && strncmp(model_text, want, l) == 0;
}

int
tc_analysis__sentinel_updated_graphs(const char *root,
    const tc_json *manifest, int64_t model, int64_t *checked,
    tc_json *visible, tc_error *err)
{
	const tc_json *recs = tc_json_get(tc_json_get(manifest, "files"),
	    "sk_graph_updated");
	char want[32];
	size_t i;

	*checked = 0;
	snprintf(want, sizeof(want), "%lld", (long long)model);
	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len; i++) {
		const char *rel = tc_json_get_string(recs->u.arr.items[i],
		    "path");
		const tc_json *mid;
		char *path, *mtext;
		tc_json *g;
		tc_buf b = TC_BUF_INIT;

		if (rel == NULL)
			continue;
		if ((path = tc_path_under_root(root, rel, "sk_graph_updated",
		    err)) == NULL)
			return -1;
		g = tc_json_parse_file(path, err);
		free(path);
		if (g == NULL)
			return -1;
		if (g->type != TC_JSON_OBJECT) {
			tc_error_set(err, "sk_graph_updated must be a JSON "
			    "object");
			tc_json_free(g);
			return -1;
		}
		mid = tc_json_get(g, "modelId");
		if (mid == NULL)
			tc_buf_puts(&b, "");
		else
			tc_json_str(&b, mid);
		mtext = tc_buf_detach(&b, NULL);
		if (model_is(mtext, want)) {
			(*checked)++;
			marker_names(g, visible);
		}
		free(mtext);
		tc_json_free(g);
	}
	return 0;
}
