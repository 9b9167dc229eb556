/*
 * smap_project.c - the calibration projection of a source_scope_map_v2
 * bundle (source_calibration_projection_v2) replayed from its sealed
 * evidence: the original and calibration normalized business graphs
 * (normalized_business_graph_v2) and the per-step runtime validation.
 * The projection is the unique label- and edge-preserving bijection of
 * the original graph's business nodes onto the calibration graph's,
 * found stream chain by stream chain when both graphs' STREAM_ORDER
 * edges are exactly their streams' chains, else node by node; no
 * solution or a second one is refused (docs/analysis.md "Source scope
 * maps").  Messages are the reference's (project_calibration_graph.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/buf.h"

#define text tc_analysis__smap_text
#define object tc_analysis__smap_object
#define list tc_analysis__smap_list

static const char *const edge_kinds[] = { "DATA", "BUSINESS_CONTROL",
	"STREAM_ORDER" };

struct gnode {
	const char *key, *role, *op, *core;
	const tc_json *ordinal, *sig, *prov;
	char sighash[65];
	size_t stream;		/* index into streams */
};

struct gstream {
	const char *role;
	size_t *chain;		/* node indices by ordinal */
	size_t n;
};

/* one distinct edge token and how many edges carry it */
struct gedge {
	size_t s, t;
	const char *kind;
	char ports[65];
	size_t count;
};

struct graph {
	const tc_json *doc, *identity;
	struct gnode *nodes;	/* sorted by key */
	size_t n;
	struct gstream *streams;	/* in first-seen order */
	size_t ns;
	struct gedge *edges;	/* distinct tokens, sorted */
	size_t ne;
	/* each node's outgoing and incoming tokens: off[k]..off[k+1] in idx */
	size_t *out_off, *out_idx, *in_off, *in_idx;
	char fingerprint[65];
};

static void
graph_free(struct graph *g)
{
	size_t i;

	for (i = 0; i < g->ns; i++)
		free(g->streams[i].chain);
	free(g->streams);
	free(g->nodes);
	free(g->edges);
	free(g->out_off);
	free(g->out_idx);
	free(g->in_off);
	free(g->in_idx);
	memset(g, 0, sizeof(*g));
}

static void
digest(const tc_json *v, char hex[65])
{
	if (tc_json_digest(v, hex, NULL) != 0)
		hex[0] = '\0';
}

static bool
integer(const tc_json *v, const char *label, tc_error *err)
{
	int64_t i;

	if (v == NULL || v->type != TC_JSON_INT || !tc_json_int64(v, &i) ||
	    i < 0) {
		tc_error_set(err, "%s must be an integer >= 0", label);
		return false;
	}
	return true;
}

static int64_t
int_of(const tc_json *v)
{
	int64_t i = 0;

	tc_json_int64(v, &i);
	return i;
}

static int
cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct gnode *)a)->key,
	    ((const struct gnode *)b)->key);
}

static ssize_t
node_index(const struct graph *g, const char *key)
{
	struct gnode k = { .key = key };
	const struct gnode *n = bsearch(&k, g->nodes, g->n, sizeof(*g->nodes),
	    cmp_node);

	return n == NULL ? -1 : n - g->nodes;
}

/* a node's label (op, core, signature hash) compared */
static int
cmp_label(const struct gnode *a, const struct gnode *b)
{
	int c = strcmp(a->op, b->op);

	if (c == 0)
		c = strcmp(a->core, b->core);
	if (c == 0)
		c = strcmp(a->sighash, b->sighash);
	return c;
}

static int
cmp_edge(const struct gedge *a, const struct gedge *b)
{
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (strcmp(a->kind, b->kind) != 0)
		return strcmp(a->kind, b->kind);
	return strcmp(a->ports, b->ports);
}

static int
cmp_edge_v(const void *a, const void *b)
{
	return cmp_edge(a, b);
}

/* how many edges carry the token (s, t, kind, ports) */
static size_t
edge_count(const struct graph *g, size_t s, size_t t, const char *kind,
    const char *ports)
{
	struct gedge k = { .s = s, .t = t, .kind = kind };
	const struct gedge *e;

	snprintf(k.ports, sizeof(k.ports), "%s", ports);
	e = bsearch(&k, g->edges, g->ne, sizeof(*g->edges), cmp_edge_v);
	return e == NULL ? 0 : e->count;
}

/* ---- _normalize_graph ----------------------------------------------------- */

static int
read_nodes(struct graph *g, const char *label, const tc_json *l,
    tc_error *err)
{
	tc_json *seen = tc_json_new_object();
	size_t i, k;
	int rc = -1;

	g->nodes = tc_xcalloc(l->u.arr.len + 1, sizeof(*g->nodes));
	g->streams = tc_xcalloc(l->u.arr.len + 1, sizeof(*g->streams));
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *raw = l->u.arr.items[i], *sig;
		struct gnode *n = &g->nodes[g->n];
		char *lab = tc_xasprintf("%s.nodes[%zu]", label, i);
		char *f = NULL;
		bool ok = false;

		if (object(raw, lab, err) == NULL)
			goto next;
		f = tc_xasprintf("%s.node_key", lab);
		if ((n->key = text(tc_json_get(raw, "node_key"), f, err)) ==
		    NULL)
			goto next;
		if (tc_json_get(seen, n->key) != NULL) {
			tc_error_set(err, "%s has duplicate node_key %s", label,
			    n->key);
			goto next;
		}
		tc_json_object_set_null(seen, n->key);
		free(f);
		f = tc_xasprintf("%s.stream_role", lab);
		if ((n->role = text(tc_json_get(raw, "stream_role"), f, err)) ==
		    NULL)
			goto next;
		free(f);
		f = tc_xasprintf("%s.stream_ordinal", lab);
		if (!integer(n->ordinal = tc_json_get(raw, "stream_ordinal"), f,
		    err))
			goto next;
		free(f);
		f = tc_xasprintf("%s.canonical_op", lab);
		if ((n->op = text(tc_json_get(raw, "canonical_op"), f, err)) ==
		    NULL)
			goto next;
		free(f);
		f = tc_xasprintf("%s.core_family", lab);
		if ((n->core = text(tc_json_get(raw, "core_family"), f, err)) ==
		    NULL)
			goto next;
		free(f);
		f = tc_xasprintf("%s.observable_signature", lab);
		sig = tc_json_get(raw, "observable_signature");
		if (sig != NULL && object(sig, f, err) == NULL)
			goto next;
		n->sig = sig;
		n->prov = tc_json_get(raw, "provenance");
		{
			tc_json *empty = tc_json_new_object();

			digest(sig != NULL ? sig : empty, n->sighash);
			tc_json_free(empty);
		}
		for (k = 0; k < g->ns; k++)
			if (strcmp(g->streams[k].role, n->role) == 0)
				break;
		if (k == g->ns)
			g->streams[g->ns++].role = n->role;
		n->stream = k;
		g->streams[k].n++;
		g->n++;
		ok = true;
next:
		free(lab);
		free(f);
		if (!ok)
			goto done;
	}
	qsort(g->nodes, g->n, sizeof(*g->nodes), cmp_node);
	rc = 0;
done:
	tc_json_free(seen);
	return rc;
}

/* each stream's chain by ordinal, its ordinals exactly 0..n-1 */
static int
read_streams(struct graph *g, const char *label, tc_error *err)
{
	size_t s, i;

	for (s = 0; s < g->ns; s++) {
		struct gstream *st = &g->streams[s];
		st->chain = tc_xcalloc(st->n + 1, sizeof(*st->chain));
		for (i = 0; i < st->n; i++)
			st->chain[i] = (size_t)-1;
		for (i = 0; i < g->n; i++) {
			int64_t o;

			if (g->nodes[i].stream != s)
				continue;
			o = int_of(g->nodes[i].ordinal);
			if (o < 0 || (size_t)o >= st->n ||
			    st->chain[o] != (size_t)-1) {
				tc_error_set(err, "%s stream %s ordinals must be "
				    "contiguous from zero", label, st->role);
				return -1;
			}
			st->chain[o] = i;
		}
	}
	return 0;
}

/* bucket the tokens by source and by target (counting sort) */
static void
incidence(struct graph *g)
{
	size_t i, *po, *pi;

	g->out_off = tc_xcalloc(g->n + 2, sizeof(*g->out_off));
	g->in_off = tc_xcalloc(g->n + 2, sizeof(*g->in_off));
	g->out_idx = tc_xcalloc(g->ne + 1, sizeof(*g->out_idx));
	g->in_idx = tc_xcalloc(g->ne + 1, sizeof(*g->in_idx));
	for (i = 0; i < g->ne; i++) {
		g->out_off[g->edges[i].s + 1]++;
		g->in_off[g->edges[i].t + 1]++;
	}
	for (i = 0; i < g->n; i++) {
		g->out_off[i + 1] += g->out_off[i];
		g->in_off[i + 1] += g->in_off[i];
	}
	po = tc_xcalloc(g->n + 1, sizeof(*po));
	pi = tc_xcalloc(g->n + 1, sizeof(*pi));
	for (i = 0; i < g->ne; i++) {
		size_t s = g->edges[i].s, t = g->edges[i].t;

		g->out_idx[g->out_off[s] + po[s]++] = i;
		g->in_idx[g->in_off[t] + pi[t]++] = i;
	}
	free(po);
	free(pi);
}

static int
read_edges(struct graph *g, const char *label, const tc_json *l,
    tc_error *err)
{
	size_t i, k, n = 0;

	g->edges = tc_xcalloc(l->u.arr.len + 1, sizeof(*g->edges));
	for (i = 0; i < l->u.arr.len; i++) {
		const tc_json *raw = l->u.arr.items[i], *ports;
		char *lab = tc_xasprintf("%s.edges[%zu]", label, i);
		char *ls = tc_xasprintf("%s.source", lab);
		char *lt = tc_xasprintf("%s.target", lab);
		char *lk = tc_xasprintf("%s.kind", lab);
		const char *s = NULL, *t = NULL, *kind = NULL;
		ssize_t si, ti;
		bool ok = false;

		if (object(raw, lab, err) == NULL ||
		    (s = text(tc_json_get(raw, "source"), ls, err)) == NULL ||
		    (t = text(tc_json_get(raw, "target"), lt, err)) == NULL ||
		    (kind = text(tc_json_get(raw, "kind"), lk, err)) == NULL)
			goto next;
		si = node_index(g, s);
		ti = node_index(g, t);
		if (si < 0 || ti < 0) {
			tc_error_set(err, "%s references an unknown node", lab);
			goto next;
		}
		for (k = 0; k < 3; k++)
			if (strcmp(kind, edge_kinds[k]) == 0)
				break;
		if (k == 3) {
			tc_error_set(err, "%s.kind is unsupported", lab);
			goto next;
		}
		g->edges[n].s = (size_t)si;
		g->edges[n].t = (size_t)ti;
		g->edges[n].kind = edge_kinds[k];
		g->edges[n].count = 1;
		ports = tc_json_get(raw, "ports");
		{
			tc_json *empty = tc_json_new_object();

			digest(ports != NULL ? ports : empty, g->edges[n].ports);
			tc_json_free(empty);
		}
		n++;
		ok = true;
next:
		free(lab);
		free(ls);
		free(lt);
		free(lk);
		if (!ok)
			return -1;
	}
	qsort(g->edges, n, sizeof(*g->edges), cmp_edge_v);
	g->ne = 0;
	for (i = 0; i < n; i++) {
		if (g->ne > 0 && cmp_edge(&g->edges[g->ne - 1], &g->edges[i]) ==
		    0)
			g->edges[g->ne - 1].count++;
		else
			g->edges[g->ne++] = g->edges[i];
	}
	incidence(g);
	return 0;
}

struct sorted_edge {
	const tc_json *raw;
	const char *s, *t, *kind;
	char ports[65];
	size_t index;
};

static int
cmp_sorted_edge(const void *a, const void *b)
{
	const struct sorted_edge *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	if (c == 0)
		c = strcmp(x->t, y->t);
	if (c == 0)
		c = strcmp(x->kind, y->kind);
	if (c == 0)
		c = strcmp(x->ports, y->ports);
	if (c == 0)	/* sorted() is stable */
		c = x->index < y->index ? -1 : x->index > y->index;
	return c;
}

/* canonical_sha256 of the graph's normalized form: identity, the nodes
 * (seven keys) by key, the edges by (source, target, kind, ports hash) */
static void
graph_fingerprint(struct graph *g, const tc_json *edges)
{
	tc_json *doc = tc_json_new_object(), *nodes = tc_json_new_array();
	tc_json *out = tc_json_new_array(), *id = tc_json_new_object();
	struct sorted_edge *se = tc_xcalloc(edges->u.arr.len + 1, sizeof(*se));
	size_t i;

	tc_json_object_set_string(doc, "protocol",
	    "normalized_business_graph_v2");
	tc_json_object_set(id, "device_id", tc_json_clone(tc_json_get(
	    g->identity, "device_id")));
	tc_json_object_set(id, "model_id", tc_json_clone(tc_json_get(
	    g->identity, "model_id")));
	tc_json_object_set(doc, "identity", id);
	for (i = 0; i < g->n; i++) {
		const struct gnode *n = &g->nodes[i];
		tc_json *o = tc_json_new_object();

		tc_json_object_set_string(o, "node_key", n->key);
		tc_json_object_set_string(o, "stream_role", n->role);
		tc_json_object_set(o, "stream_ordinal", tc_json_clone(n->ordinal));
		tc_json_object_set_string(o, "canonical_op", n->op);
		tc_json_object_set_string(o, "core_family", n->core);
		tc_json_object_set(o, "observable_signature", n->sig != NULL ?
		    tc_json_clone(n->sig) : tc_json_new_object());
		tc_json_object_set(o, "provenance", n->prov != NULL ?
		    tc_json_clone(n->prov) : tc_json_new_object());
		tc_json_array_push(nodes, o);
	}
	tc_json_object_set(doc, "nodes", nodes);
	for (i = 0; i < edges->u.arr.len; i++) {
		const tc_json *e = edges->u.arr.items[i];
		const tc_json *ports = tc_json_get(e, "ports");
		tc_json *empty = tc_json_new_object();

		se[i].raw = e;
		se[i].s = tc_json_get_string(e, "source");
		se[i].t = tc_json_get_string(e, "target");
		se[i].kind = tc_json_get_string(e, "kind");
		se[i].index = i;
		digest(ports != NULL ? ports : empty, se[i].ports);
		tc_json_free(empty);
	}
	qsort(se, edges->u.arr.len, sizeof(*se), cmp_sorted_edge);
	for (i = 0; i < edges->u.arr.len; i++) {
		const tc_json *ports = tc_json_get(se[i].raw, "ports");
		tc_json *o = tc_json_new_object();

		tc_json_object_set_string(o, "source", se[i].s);
		tc_json_object_set_string(o, "target", se[i].t);
		tc_json_object_set_string(o, "kind", se[i].kind);
		tc_json_object_set(o, "ports", ports != NULL ?
		    tc_json_clone(ports) : tc_json_new_object());
		tc_json_array_push(out, o);
	}
	tc_json_object_set(doc, "edges", out);
	digest(doc, g->fingerprint);
	free(se);
	tc_json_free(doc);
}

static int
normalize_graph(struct graph *g, const tc_json *doc, const char *label,
    tc_error *err)
{
	const tc_json *id, *nodes, *edges;
	const tc_json *proto;
	char *l;
	bool ok;

	memset(g, 0, sizeof(*g));
	g->doc = doc;
	if (object(doc, label, err) == NULL)
		return -1;
	proto = tc_json_get(doc, "protocol");
	if (proto == NULL || proto->type != TC_JSON_STRING ||
	    strcmp(proto->u.str.ptr, "normalized_business_graph_v2") != 0) {
		tc_error_set(err, "%s.protocol must be "
		    "normalized_business_graph_v2", label);
		return -1;
	}
	l = tc_xasprintf("%s.identity", label);
	id = object(tc_json_get(doc, "identity"), l, err);
	free(l);
	if (id == NULL)
		return -1;
	g->identity = id;
	l = tc_xasprintf("%s.identity.device_id", label);
	ok = integer(tc_json_get(id, "device_id"), l, err);
	free(l);
	if (!ok)
		return -1;
	{
		const tc_json *m = tc_json_get(id, "model_id");

		if (m == NULL || !(m->type == TC_JSON_INT ||
		    (m->type == TC_JSON_STRING &&
		    tc_text_is_canonical(m->u.str.ptr, m->u.str.len)))) {
			tc_error_set(err, "%s.identity.model_id must be a "
			    "non-empty string or integer", label);
			return -1;
		}
	}
	l = tc_xasprintf("%s.nodes", label);
	nodes = list(tc_json_get(doc, "nodes"), l, err);
	free(l);
	if (nodes == NULL || read_nodes(g, label, nodes, err) != 0 ||
	    read_streams(g, label, err) != 0)
		return -1;
	l = tc_xasprintf("%s.edges", label);
	edges = list(tc_json_get(doc, "edges"), l, err);
	free(l);
	if (edges == NULL || read_edges(g, label, edges, err) != 0)
		return -1;
	graph_fingerprint(g, edges);
	return 0;
}

/* ---- the correspondence --------------------------------------------------- */

/*
 * The correspondence search is exponential when many streams look alike
 * (the reference's too: it never returns on such a graph).  A bundle is
 * hostile input, so the search counts its work (edges compared, nodes
 * scanned) and gives up past SEARCH_WORK_MAX with its own refusal: the
 * bound is deterministic, so a verdict never depends on the machine.
 * 10^10 units is about ten seconds here; the chained bundles of the
 * tests and benchmarks (64,000 nodes on 8 streams) spend a tiny part of
 * it.  The unit tests lower it through the variable.
 */
unsigned long long tc_analysis__search_work_max = 10000000000ULL;
#define SEARCH_WORK_MAX	tc_analysis__search_work_max

struct search {
	const struct graph *o, *c;
	ssize_t *o2c, *c2o;	/* the mapping being built */
	ssize_t *sol;		/* the first solution (original -> calibration) */
	size_t nsol;
	unsigned long long work;	/* units spent, see SEARCH_WORK_MAX */
};

/* spend N units of search work; false once the budget is gone */
static bool
spend(struct search *s, size_t n)
{
	s->work += n;
	return s->work <= SEARCH_WORK_MAX;
}

/* _edge_consistent: every edge with both ends mapped has its image with
 * the same count, both ways */
static bool
edge_consistent(struct search *s)
{
	size_t i;

	if (!spend(s, s->o->ne + s->c->ne + 1))
		return false;
	for (i = 0; i < s->o->ne; i++) {
		const struct gedge *e = &s->o->edges[i];

		if (s->o2c[e->s] < 0 || s->o2c[e->t] < 0)
			continue;
		if (edge_count(s->c, (size_t)s->o2c[e->s], (size_t)s->o2c[e->t],
		    e->kind, e->ports) != e->count)
			return false;
	}
	for (i = 0; i < s->c->ne; i++) {
		const struct gedge *e = &s->c->edges[i];

		if (s->c2o[e->s] < 0 || s->c2o[e->t] < 0)
			continue;
		if (edge_count(s->o, (size_t)s->c2o[e->s], (size_t)s->c2o[e->t],
		    e->kind, e->ports) != e->count)
			return false;
	}
	return true;
}

static void
record_solution(struct search *s)
{
	if (s->nsol++ == 0)
		memcpy(s->sol, s->o2c, s->o->n * sizeof(*s->sol));
}

/* _stream_order_chains: the STREAM_ORDER edges are exactly each stream's
 * consecutive pairs, with empty ports */
static bool
chain_proven(const struct graph *g)
{
	char empty[65];
	size_t i, k, expected = 0, observed = 0;
	tc_json *e = tc_json_new_object();

	digest(e, empty);
	tc_json_free(e);
	for (i = 0; i < g->ns; i++) {
		for (k = 0; k + 1 < g->streams[i].n; k++) {
			size_t a = g->streams[i].chain[k];
			size_t b = g->streams[i].chain[k + 1];

			/* a chain pair repeats only if a node is in two places,
			 * which the ordinals rule out */
			if (edge_count(g, a, b, "STREAM_ORDER", empty) != 1)
				return false;
			expected++;
		}
	}
	for (i = 0; i < g->ne; i++)
		if (strcmp(g->edges[i].kind, "STREAM_ORDER") == 0)
			observed += g->edges[i].count;
	return observed == expected;
}

static int
cmp_chain_labels(const struct graph *a, const struct gstream *x,
    const struct graph *b, const struct gstream *y)
{
	size_t i;

	if (x->n != y->n)
		return 1;
	for (i = 0; i < x->n; i++)
		if (cmp_label(&a->nodes[x->chain[i]], &b->nodes[y->chain[i]]) !=
		    0)
			return 1;
	return 0;
}

struct chains {
	size_t **cand;		/* per original stream: calibration streams */
	size_t *ncand;
	ssize_t *role_map;	/* original stream -> calibration stream */
	bool *used;		/* calibration streams taken */
};

static bool
all_edges_preserved(const struct search *s)
{
	size_t i, total = 0;

	for (i = 0; i < s->o->ne; i++) {
		const struct gedge *e = &s->o->edges[i];

		if (edge_count(s->c, (size_t)s->o2c[e->s], (size_t)s->o2c[e->t],
		    e->kind, e->ports) != e->count)
			return false;
		total += e->count;
	}
	for (i = 0; i < s->c->ne; i++)
		total -= s->c->edges[i].count;
	return total == 0;
}

static void
chain_search(struct search *s, struct chains *ch, size_t mapped)
{
	size_t i, k, best = (size_t)-1, bestfree = 0;

	if (s->nsol >= 2 || !spend(s, s->o->ns + 1))
		return;
	if (mapped == s->o->ns) {
		if (all_edges_preserved(s))
			record_solution(s);
		return;
	}
	for (i = 0; i < s->o->ns; i++) {
		size_t free_n = 0;

		if (ch->role_map[i] >= 0)
			continue;
		for (k = 0; k < ch->ncand[i]; k++)
			if (!ch->used[ch->cand[i][k]])
				free_n++;
		if (best == (size_t)-1 || free_n < bestfree ||
		    (free_n == bestfree && strcmp(s->o->streams[i].role,
		    s->o->streams[best].role) < 0)) {
			best = i;
			bestfree = free_n;
		}
	}
	for (k = 0; k < ch->ncand[best] && s->nsol < 2 &&
	    s->work <= SEARCH_WORK_MAX; k++) {
		size_t cs = ch->cand[best][k], j;
		const struct gstream *os = &s->o->streams[best];
		const struct gstream *cst = &s->c->streams[cs];

		if (ch->used[cs])
			continue;
		for (j = 0; j < os->n; j++) {
			s->o2c[os->chain[j]] = (ssize_t)cst->chain[j];
			s->c2o[cst->chain[j]] = (ssize_t)os->chain[j];
		}
		if (edge_consistent(s)) {
			ch->role_map[best] = (ssize_t)cs;
			ch->used[cs] = true;
			chain_search(s, ch, mapped + 1);
			ch->used[cs] = false;
			ch->role_map[best] = -1;
		}
		for (j = 0; j < os->n; j++) {
			s->o2c[os->chain[j]] = -1;
			s->c2o[cst->chain[j]] = -1;
		}
	}
}

/* calibration stream indices sorted by role (insertion sort: streams
 * are few) */
static void
sort_roles(size_t *v, size_t n, const struct graph *c)
{
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(c->streams[v[j - 1]].role,
		    c->streams[v[j]].role) > 0; j--) {
			size_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* the stream-chain search; false when a graph is not chain-proven */
static bool
find_chain_solutions(struct search *s)
{
	struct chains ch;
	size_t i, k;
	bool none = false;

	if (!chain_proven(s->o) || !chain_proven(s->c))
		return false;
	ch.cand = tc_xcalloc(s->o->ns + 1, sizeof(*ch.cand));
	ch.ncand = tc_xcalloc(s->o->ns + 1, sizeof(*ch.ncand));
	ch.role_map = tc_xcalloc(s->o->ns + 1, sizeof(*ch.role_map));
	ch.used = tc_xcalloc(s->c->ns + 1, sizeof(*ch.used));
	for (i = 0; i < s->o->ns; i++) {
		ch.role_map[i] = -1;
		ch.cand[i] = tc_xcalloc(s->c->ns + 1, sizeof(**ch.cand));
		for (k = 0; k < s->c->ns; k++)
			if (cmp_chain_labels(s->o, &s->o->streams[i], s->c,
			    &s->c->streams[k]) == 0)
				ch.cand[i][ch.ncand[i]++] = k;
		sort_roles(ch.cand[i], ch.ncand[i], s->c);
		if (ch.ncand[i] == 0)
			none = true;
	}
	if (!none)
		chain_search(s, &ch, 0);
	for (i = 0; i < s->o->ns; i++)
		free(ch.cand[i]);
	free(ch.cand);
	free(ch.ncand);
	free(ch.role_map);
	free(ch.used);
	return true;
}

/* _stream_candidates of the node search: equal label multisets */
static bool
same_label_multiset(const struct graph *a, const struct gstream *x,
    const struct graph *b, const struct gstream *y)
{
	bool *taken;
	size_t i, j;
	bool ok = true;

	if (x->n != y->n)
		return false;
	taken = tc_xcalloc(y->n + 1, sizeof(*taken));
	for (i = 0; i < x->n && ok; i++) {
		for (j = 0; j < y->n; j++)
			if (!taken[j] && cmp_label(&a->nodes[x->chain[i]],
			    &b->nodes[y->chain[j]]) == 0)
				break;
		if (j == y->n)
			ok = false;
		else
			taken[j] = true;
	}
	free(taken);
	return ok;
}

static void
node_search(struct search *s, bool **stream_ok, size_t mapped)
{
	size_t i, k, best = (size_t)-1, bestn = 0;
	size_t *bestc = NULL, *cands;

	if (s->nsol >= 2 || !spend(s, s->o->n + 1))
		return;
	if (mapped == s->o->n) {
		/* every original mapped injectively onto as many nodes */
		record_solution(s);
		return;
	}
	cands = tc_xcalloc(s->c->n + 1, sizeof(*cands));
	bestc = tc_xcalloc(s->c->n + 1, sizeof(*bestc));
	for (i = 0; i < s->o->n; i++) {
		const struct gnode *on = &s->o->nodes[i];
		size_t n = 0;

		if (s->o2c[i] >= 0)
			continue;
		if (!spend(s, s->c->n * (s->o->n + 1)))
			break;
		for (k = 0; k < s->c->n; k++) {
			const struct gnode *cn = &s->c->nodes[k];
			size_t j;
			bool uses = false, owns = false, match = false;

			if (s->c2o[k] >= 0 || cmp_label(on, cn) != 0 ||
			    !stream_ok[on->stream][cn->stream])
				continue;
			/* the calibration streams this stream already maps
			 * to, and the streams already mapped onto cn's: when
			 * either is set, the pair must be in it */
			for (j = 0; j < s->o->n; j++) {
				size_t os_, cs_;

				if (s->o2c[j] < 0)
					continue;
				os_ = s->o->nodes[j].stream;
				cs_ = s->c->nodes[s->o2c[j]].stream;
				if (os_ == on->stream)
					uses = true;
				if (cs_ == cn->stream)
					owns = true;
				if (os_ == on->stream && cs_ == cn->stream)
					match = true;
			}
			if ((uses || owns) && !match)
				continue;
			s->o2c[i] = (ssize_t)k;
			s->c2o[k] = (ssize_t)i;
			if (edge_consistent(s))
				cands[n++] = k;
			s->o2c[i] = -1;
			s->c2o[k] = -1;
		}
		/* min((len, key, candidates)): nodes are in key order */
		if (best == (size_t)-1 || n < bestn) {
			best = i;
			bestn = n;
			memcpy(bestc, cands, n * sizeof(*cands));
		}
	}
	/* candidates are in calibration key order already */
	for (k = 0; k < bestn && s->nsol < 2 && s->work <= SEARCH_WORK_MAX;
	    k++) {
		s->o2c[best] = (ssize_t)bestc[k];
		s->c2o[bestc[k]] = (ssize_t)best;
		node_search(s, stream_ok, mapped + 1);
		s->o2c[best] = -1;
		s->c2o[bestc[k]] = -1;
	}
	free(cands);
	free(bestc);
}

static void
find_node_solutions(struct search *s)
{
	bool **ok = tc_xcalloc(s->o->ns + 1, sizeof(*ok));
	size_t i, k;
	bool none = false;

	for (i = 0; i < s->o->ns; i++) {
		size_t n = 0;

		ok[i] = tc_xcalloc(s->c->ns + 1, sizeof(**ok));
		for (k = 0; k < s->c->ns; k++)
			if ((ok[i][k] = same_label_multiset(s->o,
			    &s->o->streams[i], s->c, &s->c->streams[k])))
				n++;
		if (n == 0)
			none = true;
	}
	if (!none)
		node_search(s, ok, 0);
	for (i = 0; i < s->o->ns; i++)
		free(ok[i]);
	free(ok);
}

/* the multisets of (kind, ports) over all edges are equal */
static bool
typed_counts_equal(const struct graph *a, const struct graph *b)
{
	tc_json *ca = tc_json_new_object(), *cb = tc_json_new_object();
	const struct graph *g[2] = { a, b };
	tc_json *c[2] = { ca, cb };
	size_t i, k;
	bool eq;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < g[k]->ne; i++) {
			char *key = tc_xasprintf("%s/%s", g[k]->edges[i].kind,
			    g[k]->edges[i].ports);
			int64_t n = 0;

			tc_json_int64(tc_json_get(c[k], key), &n);
			tc_json_object_set_int(c[k], key, n +
			    (int64_t)g[k]->edges[i].count);
			free(key);
		}
	}
	eq = tc_json_equal(ca, cb);
	tc_json_free(ca);
	tc_json_free(cb);
	return eq;
}

/* ---- occurrences -------------------------------------------------------- */

/* repr((kind, ports, (op, core, signature))) */
static void
token_repr(tc_buf *b, const char *kind, const char *ports,
    const struct gnode *n)
{
	tc_buf_putc(b, '(');
	tc_json_repr_string(b, kind, strlen(kind));
	tc_buf_puts(b, ", ");
	tc_json_repr_string(b, ports, strlen(ports));
	tc_buf_puts(b, ", (");
	tc_json_repr_string(b, n->op, strlen(n->op));
	tc_buf_puts(b, ", ");
	tc_json_repr_string(b, n->core, strlen(n->core));
	tc_buf_puts(b, ", ");
	tc_json_repr_string(b, n->sighash, strlen(n->sighash));
	tc_buf_puts(b, "))");
}

struct counted {
	char *repr;
	size_t count;
};

static int
cmp_counted(const void *a, const void *b)
{
	const struct counted *x = a, *y = b;
	int c = strcmp(x->repr, y->repr);

	return c != 0 ? c : (x->count < y->count ? -1 : x->count > y->count);
}

/* sorted [[repr(token), count], ...] of one direction */
static tc_json *
direction(const struct graph *g, size_t key, bool outgoing)
{
	const size_t *off = outgoing ? g->out_off : g->in_off;
	const size_t *idx = outgoing ? g->out_idx : g->in_idx;
	size_t deg = off[key + 1] - off[key];
	struct counted *v = tc_xcalloc(deg + 1, sizeof(*v));
	tc_json *out = tc_json_new_array();
	size_t i, n = 0, k;

	for (i = off[key]; i < off[key + 1]; i++) {
		const struct gedge *e = &g->edges[idx[i]];
		tc_buf b = TC_BUF_INIT;

		token_repr(&b, e->kind, e->ports, &g->nodes[outgoing ? e->t :
		    e->s]);
		for (k = 0; k < n; k++)
			if (strcmp(v[k].repr, tc_buf_cstr(&b)) == 0)
				break;
		if (k < n) {
			v[k].count += e->count;
			tc_buf_free(&b);
		} else {
			v[n].repr = tc_buf_detach(&b, NULL);
			v[n++].count = e->count;
		}
	}
	qsort(v, n, sizeof(*v), cmp_counted);
	for (i = 0; i < n; i++) {
		tc_json *pair = tc_json_new_array();

		tc_json_array_push(pair, tc_json_new_string(v[i].repr));
		tc_json_array_push(pair, tc_json_new_int((int64_t)v[i].count));
		tc_json_array_push(out, pair);
		free(v[i].repr);
	}
	free(v);
	return out;
}

static tc_json *
incident_signature(const struct graph *g, size_t key)
{
	tc_json *o = tc_json_new_object();
	char hex[65];

	tc_json_object_set(o, "incoming", direction(g, key, false));
	tc_json_object_set(o, "outgoing", direction(g, key, true));
	digest(o, hex);
	tc_json_free(o);
	return tc_json_new_string(hex);
}

static tc_json *
coordinate(const struct gnode *n)
{
	tc_json *c = tc_json_new_array();

	tc_json_array_push(c, tc_json_new_string(n->role));
	tc_json_array_push(c, tc_json_clone(n->ordinal));
	tc_json_array_push(c, tc_json_new_string(n->op));
	tc_json_array_push(c, tc_json_new_string(n->core));
	return c;
}

static tc_json *
occurrences(const struct graph *o, const struct graph *c, const ssize_t *map)
{
	tc_json *list_out = tc_json_new_array();
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct gnode *on = &o->nodes[i];
		const struct gnode *cn = &c->nodes[map[i]];
		tc_json *occ = tc_json_new_object(), *label, *pair;
		char hex[65];

		tc_json_object_set_string(occ, "original_node_key", on->key);
		tc_json_object_set_string(occ, "calibration_node_key", cn->key);
		tc_json_object_set(occ, "original", coordinate(on));
		tc_json_object_set(occ, "calibration", coordinate(cn));
		label = tc_json_new_array();
		tc_json_array_push(label, tc_json_new_string(on->op));
		tc_json_array_push(label, tc_json_new_string(on->core));
		tc_json_array_push(label, tc_json_new_string(on->sighash));
		digest(label, hex);
		tc_json_free(label);
		tc_json_object_set_string(occ, "node_label_fingerprint", hex);
		pair = tc_json_new_array();
		tc_json_array_push(pair, incident_signature(o, i));
		tc_json_array_push(pair, incident_signature(c, (size_t)map[i]));
		digest(pair, hex);
		tc_json_free(pair);
		tc_json_object_set_string(occ, "incident_edge_fingerprint", hex);
		digest(occ, hex);
		tc_json_object_set_string(occ, "correspondence_fingerprint", hex);
		tc_json_array_push(list_out, occ);
	}
	return list_out;
}

/* ---- runtime validation ----------------------------------------------------- */

static const char *const parts[3] = { "exact_assigned_calibration_node_keys",
	"skipped_calibration_node_keys", "conflicting_calibration_node_keys" };
static const char *const part_counts[3] = { "assigned_occurrence_count",
	"unscoped_occurrence_count", "conflicting_assignment_count" };

/* the three partition lists as sets (NULL when the item has none) */
static int
read_partitions(const tc_json *item, size_t index, const struct graph *c,
    tc_json *sets[3], tc_error *err)
{
	size_t k, i, given = 0, total = 0;
	tc_json *all;

	for (k = 0; k < 3; k++)
		if (tc_json_get(item, parts[k]) != NULL)
			given++;
	if (given == 0)
		return 0;
	if (given != 3) {
		tc_error_set(err, "runtime_validation[%zu] must provide all "
		    "assignment partition fields", index);
		return -1;
	}
	for (k = 0; k < 3; k++) {
		char *l = tc_xasprintf("runtime_validation[%zu].%s", index,
		    parts[k]);
		const tc_json *v = list(tc_json_get(item, parts[k]), l, err);

		sets[k] = tc_json_new_object();
		if (v == NULL) {
			free(l);
			return -1;
		}
		for (i = 0; i < v->u.arr.len; i++) {
			const char *s = text(v->u.arr.items[i], l, err);

			if (s == NULL) {
				free(l);
				return -1;
			}
			tc_json_object_set_null(sets[k], s);
		}
		free(l);
		if (sets[k]->u.obj.len != v->u.arr.len) {
			tc_error_set(err, "runtime_validation[%zu].%s contains "
			    "duplicates", index, parts[k]);
			return -1;
		}
		for (i = 0; i < sets[k]->u.obj.len; i++)
			if (node_index(c, sets[k]->u.obj.members[i].key) < 0) {
				tc_error_set(err, "runtime_validation[%zu].%s "
				    "references unknown nodes", index, parts[k]);
				return -1;
			}
	}
	all = tc_json_new_object();
	for (k = 0; k < 3; k++) {
		total += sets[k]->u.obj.len;
		for (i = 0; i < sets[k]->u.obj.len; i++)
			tc_json_object_set_null(all,
			    sets[k]->u.obj.members[i].key);
	}
	if (total != all->u.obj.len) {
		tc_json_free(all);
		tc_error_set(err, "runtime_validation[%zu] assignment "
		    "partitions overlap", index);
		return -1;
	}
	if (all->u.obj.len != c->n) {
		tc_json_free(all);
		tc_error_set(err, "runtime_validation[%zu] assignment "
		    "partitions must cover the calibration graph", index);
		return -1;
	}
	tc_json_free(all);
	return 1;
}

/* item.get(field) is True */
static bool
is_true(const tc_json *item, const char *field)
{
	const tc_json *v = tc_json_get(item, field);

	return v != NULL && v->type == TC_JSON_BOOL && v->u.b;
}

/* require_integer(item[field]) == want */
static int
count_is(const tc_json *item, size_t index, const char *field, size_t want,
    bool *eq, tc_error *err)
{
	char *l = tc_xasprintf("runtime_validation[%zu].%s", index, field);
	bool ok = integer(tc_json_get(item, field), l, err);

	free(l);
	if (!ok)
		return -1;
	*eq = (uint64_t)int_of(tc_json_get(item, field)) == (uint64_t)want;
	return 0;
}

static tc_json *
runtime_validation(const tc_json *rv, const struct graph *o,
    const struct graph *c, tc_json *steps, tc_error *err)
{
	tc_json *out = tc_json_new_array();
	size_t i, k;

	for (i = 0; i < rv->u.arr.len; i++) {
		const tc_json *item = rv->u.arr.items[i];
		tc_json *sets[3] = { NULL, NULL, NULL }, *norm = NULL;
		char *l = tc_xasprintf("runtime_validation[%zu]", i);
		bool passed = false, eq;
		int has_parts = -1;
		char hex[65];

		if (object(item, l, err) == NULL ||
		    (has_parts = read_partitions(item, i, c, sets, err)) < 0)
			goto fail;
		/* and-chained: each count is read only while all before
		 * held */
		if (is_true(item, "parent_binding_exact") &&
		    is_true(item, "unit_assignment_complete")) {
			static const char *const f[] = {
			    "business_occurrence_count",
			    "assigned_occurrence_count",
			    "unscoped_occurrence_count",
			    "conflicting_assignment_count" };
			size_t want[4] = { o->n, c->n, 0, 0 };

			passed = true;
			for (k = 0; k < 4 && passed; k++) {
				if (count_is(item, i, f[k], want[k], &eq, err) !=
				    0)
					goto fail;
				passed = eq;
			}
		}
		free(l);
		l = tc_xasprintf("runtime_validation[%zu].step_id", i);
		if (!integer(tc_json_get(item, "step_id"), l, err))
			goto fail;
		norm = tc_json_clone(item);
		tc_json_object_set_bool(norm, "passed", passed);
		if (has_parts > 0) {
			if (count_is(item, i, "business_occurrence_count", c->n,
			    &eq, err) != 0)
				goto fail;
			if (!eq) {
				tc_error_set(err, "runtime_validation[%zu] "
				    "business occurrence count mismatch", i);
				goto fail;
			}
			for (k = 0; k < 3; k++) {
				tc_json *sorted = tc_json_new_array();
				size_t j;

				if (count_is(item, i, part_counts[k],
				    sets[k]->u.obj.len, &eq, err) != 0) {
					tc_json_free(sorted);
					goto fail;
				}
				if (!eq) {
					tc_json_free(sorted);
					tc_error_set(err, "runtime_validation"
					    "[%zu].%s count mismatch", i,
					    parts[k]);
					goto fail;
				}
				for (j = 0; j < sets[k]->u.obj.len; j++)
					tc_json_array_push(sorted,
					    tc_json_new_string(sets[k]->
					    u.obj.members[j].key));
				tc_json_object_set(norm, parts[k], sorted);
			}
		}
		tc_json_object_set_bool(norm, "assignment_partition_complete",
		    has_parts > 0);
		digest(norm, hex);
		tc_json_object_set_string(norm, "validation_fingerprint", hex);
		tc_json_array_push(out, norm);
		norm = NULL;
		if (passed)
			tc_analysis__list_add_unique(steps, tc_json_get(item,
			    "step_id")->u.int_text);
		free(l);
		for (k = 0; k < 3; k++)
			tc_json_free(sets[k]);
		continue;
fail:
		free(l);
		tc_json_free(norm);
		for (k = 0; k < 3; k++)
			tc_json_free(sets[k]);
		tc_json_free(out);
		return NULL;
	}
	return out;
}

static int
cmp_step(const void *a, const void *b)
{
	int64_t x = int_of(*(tc_json *const *)a);
	int64_t y = int_of(*(tc_json *const *)b);

	return x < y ? -1 : x > y;
}

/* ---- project_graphs -------------------------------------------------------- */

/* {device_id, model_id} of both graphs equal (48 is not "48") */
static bool
same_identity(const struct graph *a, const struct graph *b)
{
	return tc_json_equal(tc_json_get(a->identity, "device_id"),
	    tc_json_get(b->identity, "device_id")) &&
	    tc_json_equal(tc_json_get(a->identity, "model_id"),
	    tc_json_get(b->identity, "model_id"));
}

/* the collection fingerprint: the given one if non-empty, else the
 * graph's collection_fingerprint; text */
static const tc_json *
collection_fp(const tc_json *given, const tc_json *graph)
{
	if (given != NULL && tc_json_truthy(given))
		return given;
	return tc_json_get(graph, "collection_fingerprint");
}

static tc_json *
assemble(const struct graph *o, const struct graph *c, const ssize_t *map,
    tc_json *rv, tc_json *steps, const tc_json *catalog, const tc_json *ofp,
    const tc_json *cfp, tc_error *err)
{
	tc_json *r = tc_json_new_object(), *assign = tc_json_new_object();
	tc_json *occ, *ids;
	size_t i;
	char hex[65];

	for (i = 0; i < o->n; i++) {
		const char *left = o->nodes[i].role;
		const char *right = c->nodes[map[i]].role;
		const char *prev = tc_json_get_string(assign, left);

		if (prev == NULL) {
			tc_json_object_set_string(assign, left, right);
		} else if (strcmp(prev, right) != 0) {
			tc_error_set(err, "node mapping does not define a "
			    "stream-role injection");
			goto fail;
		}
	}
	tc_json_object_set_string(r, "protocol",
	    "source_calibration_projection_v2");
	tc_json_object_set(r, "protocol_versions",
	    tc_analysis__projection_versions());
	if (text(ofp, "original_collection_fingerprint", err) == NULL ||
	    text(cfp, "calibration_collection_fingerprint", err) == NULL)
		goto fail;
	tc_json_object_set(r, "original_collection_fingerprint",
	    tc_json_clone(ofp));
	tc_json_object_set(r, "calibration_collection_fingerprint",
	    tc_json_clone(cfp));
	tc_json_object_set(r, "device_id", tc_json_clone(tc_json_get(
	    o->identity, "device_id")));
	tc_json_object_set(r, "model_id", tc_json_clone(tc_json_get(
	    o->identity, "model_id")));
	tc_json_object_set_string(r, "original_graph_fingerprint",
	    o->fingerprint);
	tc_json_object_set_string(r, "calibration_graph_fingerprint",
	    c->fingerprint);
	tc_json_object_set(r, "stream_role_assignment", assign);
	assign = NULL;
	tc_json_object_set_int(r, "alternative_stream_assignment_count", 0);
	tc_json_object_set_int(r, "alternative_node_correspondence_count", 0);
	tc_json_object_set_int(r, "nontrivial_automorphism_count", 0);
	tc_json_object_set_bool(r, "business_kernel_sequence_equal", true);
	tc_json_object_set_bool(r, "typed_business_edge_set_equal", true);
	tc_json_object_set(r, "evidence_catalog", tc_json_clone(catalog));
	tc_json_object_set(r, "runtime_validation", tc_json_clone(rv));
	ids = tc_json_new_array();
	for (i = 0; i < steps->u.arr.len; i++)
		tc_json_array_push(ids, tc_json_new_int_text(
		    tc_json_string(steps->u.arr.items[i])));
	if (ids->u.arr.len > 1)
		qsort(ids->u.arr.items, ids->u.arr.len,
		    sizeof(*ids->u.arr.items), cmp_step);
	tc_json_object_set(r, "validated_step_ids", ids);
	occ = occurrences(o, c, map);
	digest(occ, hex);
	tc_json_object_set(r, "occurrences", occ);
	tc_json_object_set_string(r, "node_correspondence_fingerprint", hex);
	digest(r, hex);
	tc_json_object_set_string(r, "projection_fingerprint", hex);
	return r;
fail:
	tc_json_free(assign);
	tc_json_free(r);
	return NULL;
}

tc_json *
tc_analysis__project_graphs(const tc_json *original,
    const tc_json *calibration, const tc_json *runtime, const tc_json *catalog,
    const tc_json *original_fp, const tc_json *calibration_fp, tc_error *err)
{
	struct graph o, c;
	struct search s;
	tc_json *rv = NULL, *steps = NULL, *result = NULL, *empty_list = NULL;
	tc_json *empty_obj = NULL;
	const tc_json *items;
	size_t i;

	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	if (normalize_graph(&o, original, "original graph", err) != 0) {
		graph_free(&o);
		return NULL;
	}
	if (normalize_graph(&c, calibration, "calibration graph", err) != 0)
		goto done;
	if (!same_identity(&o, &c)) {
		tc_error_set(err, "original and calibration graph identities "
		    "differ");
		goto done;
	}
	if (o.n != c.n) {
		tc_error_set(err, "business kernel count differs");
		goto done;
	}
	if (!typed_counts_equal(&o, &c)) {
		tc_error_set(err, "typed business edge counts differ");
		goto done;
	}
	s.o = &o;
	s.c = &c;
	s.o2c = tc_xcalloc(o.n + 1, sizeof(*s.o2c));
	s.c2o = tc_xcalloc(c.n + 1, sizeof(*s.c2o));
	s.sol = tc_xcalloc(o.n + 1, sizeof(*s.sol));
	for (i = 0; i < o.n; i++)
		s.o2c[i] = s.c2o[i] = -1;
	if (!find_chain_solutions(&s))
		find_node_solutions(&s);
	if (s.work > SEARCH_WORK_MAX) {
		tc_error_set(err, "graph correspondence search gave up after "
		    "%llu units of work: its nodes and streams are too alike to "
		    "project exactly", SEARCH_WORK_MAX);
		goto done;
	}
	if (s.nsol != 1) {
		tc_error_set(err, "graph correspondence is missing or ambiguous; "
		    "exact projection requires one solution");
		goto done;
	}
	if (runtime == NULL || !tc_json_truthy(runtime))
		runtime = empty_list = tc_json_new_array();
	if ((items = list(runtime, "runtime_validation", err)) == NULL)
		goto done;
	steps = tc_json_new_array();
	if ((rv = runtime_validation(items, &o, &c, steps, err)) == NULL)
		goto done;
	if (catalog == NULL || !tc_json_truthy(catalog))
		catalog = empty_obj = tc_json_new_object();
	if (object(catalog, "evidence_catalog", err) != NULL)
		result = assemble(&o, &c, s.sol, rv, steps, catalog,
		    collection_fp(original_fp, original),
		    collection_fp(calibration_fp, calibration), err);
done:
	free(s.o2c);
	free(s.c2o);
	free(s.sol);
	tc_json_free(rv);
	tc_json_free(steps);
	tc_json_free(empty_list);
	tc_json_free(empty_obj);
	graph_free(&o);
	graph_free(&c);
	return result;
}
