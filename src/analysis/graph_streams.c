/*
 * graph_streams.c - the canonical order of an origin graph's streams for
 * its fingerprint (profile_origin_graph_fingerprint): streams grouped by
 * label, the groups split by the edges between them until stable, and,
 * where streams still cannot be told apart (symmetric streams: the same
 * label and the same edges), an individualize-and-refine search for the
 * smallest serialization, with a transposition that is an automorphism
 * pruned and a lower bound (every stream of a cell at the cell's first
 * rank) cutting branches that cannot win.  The result is that smallest
 * serialization, so stream numbering never changes a fingerprint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

/* at most this many labelings of the refined cells are searched */
#define MAX_LABELINGS 1000000.0

/* A partition of the streams: cells in order, each in stream order. */
struct part {
	size_t *s;		/* the streams, cell after cell */
	size_t *start;		/* cell k is s[start[k] .. start[k + 1]) */
	size_t ncells, n;
};

struct ctx {
	const char *const *labels;	/* cj of each stream's label */
	tc_json *const *lab;		/* each stream's label list */
	const struct an_sedge *e;
	size_t ns, ne;
	char **seen;			/* partitions searched */
	size_t nseen;
	char *best;
	size_t *esorted;		/* the edges in tuple order */
};

static struct part
part_new(size_t n)
{
	struct part p;

	p.s = tc_xcalloc(n + 1, sizeof(*p.s));
	p.start = tc_xcalloc(n + 2, sizeof(*p.start));
	p.ncells = 0;
	p.n = n;
	return p;
}

static struct part
part_copy(const struct part *q)
{
	struct part p = part_new(q->n);

	memcpy(p.s, q->s, q->n * sizeof(*p.s));
	memcpy(p.start, q->start, (q->ncells + 1) * sizeof(*p.start));
	p.ncells = q->ncells;
	return p;
}

static void
part_free(struct part *p)
{
	free(p->s);
	free(p->start);
}

static bool
part_equal(const struct part *a, const struct part *b)
{
	return a->ncells == b->ncells && memcmp(a->s, b->s, a->n *
	    sizeof(*a->s)) == 0 && memcmp(a->start, b->start, (a->ncells + 1) *
	    sizeof(*a->start)) == 0;
}

static char *
part_key(const struct part *p)
{
	tc_buf b = TC_BUF_INIT;
	size_t k, i;

	for (k = 0; k < p->ncells; k++) {
		for (i = p->start[k]; i < p->start[k + 1]; i++)
			tc_buf_printf(&b, "%zu,", p->s[i]);
		tc_buf_puts(&b, "|");
	}
	return tc_buf_detach(&b, NULL);
}

/* ---- refinement by edges ------------------------------------------------ */

/* One edge as a stream's cell signature holds it: (src_pos, dst_pos,
 * kind), ordered as Python orders tuples. */
static int
cmp_triple(const struct an_sedge *x, const struct an_sedge *y)
{
	if (x->sp != y->sp)
		return x->sp < y->sp ? -1 : 1;
	if (x->dp != y->dp)
		return x->dp < y->dp ? -1 : 1;
	return strcmp(x->kind, y->kind);
}

/* A stream's signature: per cell, its sorted incoming triples, then per
 * cell its sorted outgoing ones. */
struct sig {
	size_t stream;
	const struct an_sedge ***lists;	/* 2 * ncells sorted lists */
	size_t *lens;
	size_t nl;
};

static int
cmp_edge_ptr(const void *a, const void *b)
{
	return cmp_triple(*(const struct an_sedge *const *)a,
	    *(const struct an_sedge *const *)b);
}

/* tuple order of two signatures: list by list, each element-wise, a
 * prefix first */
static int
cmp_sig(const struct sig *x, const struct sig *y)
{
	size_t l, i;

	for (l = 0; l < x->nl; l++) {
		for (i = 0; i < x->lens[l] && i < y->lens[l]; i++) {
			int c = cmp_triple(x->lists[l][i], y->lists[l][i]);

			if (c != 0)
				return c;
		}
		if (x->lens[l] != y->lens[l])
			return x->lens[l] < y->lens[l] ? -1 : 1;
	}
	return 0;
}

static void
sig_build(const struct ctx *c, const size_t *cell_of, size_t ncells,
    size_t stream, struct sig *g)
{
	size_t k, l;

	g->stream = stream;
	g->nl = 2 * ncells;
	g->lists = tc_xcalloc(g->nl + 1, sizeof(*g->lists));
	g->lens = tc_xcalloc(g->nl + 1, sizeof(*g->lens));
	for (k = 0; k < c->ne; k++) {
		const struct an_sedge *e = &c->e[k];

		if (e->dst == stream) {
			l = cell_of[e->src];
			g->lists[l] = tc_xrealloc(g->lists[l], (g->lens[l] + 1) *
			    sizeof(**g->lists));
			g->lists[l][g->lens[l]++] = e;
		}
		if (e->src == stream) {
			l = ncells + cell_of[e->dst];
			g->lists[l] = tc_xrealloc(g->lists[l], (g->lens[l] + 1) *
			    sizeof(**g->lists));
			g->lists[l][g->lens[l]++] = e;
		}
	}
	for (l = 0; l < g->nl; l++)
		if (g->lens[l] > 1)
			qsort(g->lists[l], g->lens[l], sizeof(**g->lists),
			    cmp_edge_ptr);
}

static void
sig_free(struct sig *g)
{
	size_t l;

	for (l = 0; l < g->nl; l++)
		free(g->lists[l]);
	free(g->lists);
	free(g->lens);
}

/* _refine_stream_partition: split every cell by its streams' signatures
 * (sub-cells in signature order, streams in cell order) until stable */
static struct part
refine(const struct ctx *c, const struct part *in)
{
	struct part p = part_copy(in);
	size_t *cell_of = tc_xcalloc(c->ns + 1, sizeof(*cell_of));

	for (;;) {
		struct part q = part_new(p.n);
		size_t k, i, j, m, at = 0;

		for (k = 0; k < p.ncells; k++)
			for (i = p.start[k]; i < p.start[k + 1]; i++)
				cell_of[p.s[i]] = k;
		for (k = 0; k < p.ncells; k++) {
			size_t len = p.start[k + 1] - p.start[k];
			struct sig *g = tc_xcalloc(len + 1, sizeof(*g));
			bool *done = tc_xcalloc(len + 1, sizeof(*done));

			for (i = 0; i < len; i++)
				sig_build(c, cell_of, p.ncells,
				    p.s[p.start[k] + i], &g[i]);
			/* distinct signatures in order; each group in
			 * cell order */
			for (m = 0; m < len; m++) {
				size_t lo = len;

				for (i = 0; i < len; i++)
					if (!done[i] && (lo == len ||
					    cmp_sig(&g[i], &g[lo]) < 0))
						lo = i;
				if (lo == len)
					break;
				q.start[q.ncells++] = at;
				for (j = 0; j < len; j++)
					if (!done[j] && cmp_sig(&g[j], &g[lo]) ==
					    0) {
						done[j] = true;
						q.s[at++] = g[j].stream;
					}
			}
			for (i = 0; i < len; i++)
				sig_free(&g[i]);
			free(g);
			free(done);
		}
		q.start[q.ncells] = at;
		if (part_equal(&p, &q)) {
			part_free(&q);
			break;
		}
		part_free(&p);
		p = q;
	}
	free(cell_of);
	return p;
}

/* ---- serialization and search ------------------------------------------- */

/* _stream_serialization: cj({"streams": labels in order, "edges": ranked
 * edges sorted by their cj text}); lower: a cell's streams all take its
 * first rank */
static char *
serialize(const struct ctx *c, const struct part *p, bool lower)
{
	size_t *rank = tc_xcalloc(c->ns + 1, sizeof(*rank));
	tc_json *o = tc_json_new_object(), *sl = tc_json_new_array();
	tc_json **es = tc_xcalloc(c->ne + 1, sizeof(*es));
	char **t = tc_xcalloc(c->ne + 1, sizeof(*t));
	size_t *idx = tc_xcalloc(c->ne + 1, sizeof(*idx));
	tc_json *el = tc_json_new_array();
	size_t k, i, r = 0;
	char b[24], *out;

	for (k = 0; k < p->ncells; k++)
		for (i = p->start[k]; i < p->start[k + 1]; i++) {
			rank[p->s[i]] = lower ? p->start[k] : r;
			r++;
			tc_json_array_push(sl, tc_json_clone(c->lab[p->s[i]]));
		}
	for (k = 0; k < c->ne; k++) {
		const struct an_sedge *e = &c->e[k];

		es[k] = tc_json_new_array();
		snprintf(b, sizeof(b), "s%06zu", rank[e->src]);
		tc_json_array_push(es[k], tc_json_new_string(b));
		tc_json_array_push(es[k], tc_json_new_int((int64_t)e->sp));
		snprintf(b, sizeof(b), "s%06zu", rank[e->dst]);
		tc_json_array_push(es[k], tc_json_new_string(b));
		tc_json_array_push(es[k], tc_json_new_int((int64_t)e->dp));
		tc_json_array_push(es[k], tc_json_new_string(e->kind));
		t[k] = tc_analysis__ascii_cj(es[k]);
		idx[k] = k;
	}
	/* a stable sort by text (merge of runs is enough: insertion) */
	for (k = 1; k < c->ne; k++)
		for (i = k; i > 0 && strcmp(t[idx[i - 1]], t[idx[i]]) > 0; i--) {
			size_t x = idx[i - 1];

			idx[i - 1] = idx[i];
			idx[i] = x;
		}
	for (k = 0; k < c->ne; k++) {
		tc_json_array_push(el, es[idx[k]]);
		free(t[k]);
	}
	tc_json_object_set(o, "streams", sl);
	tc_json_object_set(o, "edges", el);
	out = tc_analysis__ascii_cj(o);
	tc_json_free(o);
	free(es);
	free(t);
	free(idx);
	free(rank);
	return out;
}

static int
cmp_edge5(const struct an_sedge *x, const struct an_sedge *y)
{
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->sp != y->sp)
		return x->sp < y->sp ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->dp != y->dp)
		return x->dp < y->dp ? -1 : 1;
	return strcmp(x->kind, y->kind);
}

static int
cmp_edge5_v(const void *a, const void *b)
{
	return cmp_edge5(a, b);
}

/* _transposition_is_automorphism: swapping a and b keeps the labels and
 * the multiset of edges */
static bool
swap_is_automorphism(const struct ctx *c, size_t a, size_t b,
    const struct an_sedge *sorted)
{
	struct an_sedge *t;
	size_t k;
	bool same = true;

	if (strcmp(c->labels[a], c->labels[b]) != 0)
		return false;
	t = tc_xcalloc(c->ne + 1, sizeof(*t));
	for (k = 0; k < c->ne; k++) {
		t[k] = c->e[k];
		t[k].src = t[k].src == a ? b : t[k].src == b ? a : t[k].src;
		t[k].dst = t[k].dst == a ? b : t[k].dst == b ? a : t[k].dst;
	}
	qsort(t, c->ne, sizeof(*t), cmp_edge5_v);
	for (k = 0; k < c->ne && same; k++)
		same = cmp_edge5(&t[k], &sorted[k]) == 0;
	free(t);
	return same;
}

struct child {
	char *bound;
	struct part p;
};

static void
search(struct ctx *c, const struct part *in, const struct an_sedge *sorted)
{
	struct part p = refine(c, in);
	char *key = part_key(&p), *lb;
	size_t k, i, amb = p.ncells, len;
	struct child *ch = NULL;
	size_t nch = 0, *reps = NULL, nreps = 0;

	for (k = 0; k < c->nseen; k++)
		if (strcmp(c->seen[k], key) == 0) {
			free(key);
			part_free(&p);
			return;
		}
	c->seen = tc_xrealloc(c->seen, (c->nseen + 1) * sizeof(*c->seen));
	c->seen[c->nseen++] = key;
	for (k = 0; k < p.ncells && amb == p.ncells; k++)
		if (p.start[k + 1] - p.start[k] > 1)
			amb = k;
	if (amb == p.ncells) {
		char *s = serialize(c, &p, false);

		if (c->best == NULL || strcmp(s, c->best) < 0) {
			free(c->best);
			c->best = s;
		} else {
			free(s);
		}
		part_free(&p);
		return;
	}
	lb = serialize(c, &p, true);
	if (c->best != NULL && strcmp(lb, c->best) >= 0) {
		free(lb);
		part_free(&p);
		return;
	}
	free(lb);
	len = p.start[amb + 1] - p.start[amb];
	reps = tc_xcalloc(len + 1, sizeof(*reps));
	for (i = 0; i < len; i++) {
		size_t s = p.s[p.start[amb] + i], j, at;
		struct part q;
		bool skip = false;

		for (j = 0; j < nreps && !skip; j++)
			skip = swap_is_automorphism(c, s, reps[j], sorted);
		if (skip)
			continue;
		reps[nreps++] = s;
		/* s alone, then the rest of its cell */
		q = part_new(p.n);
		at = 0;
		for (k = 0; k < p.ncells; k++) {
			size_t m;

			q.start[q.ncells++] = at;
			if (k != amb) {
				for (m = p.start[k]; m < p.start[k + 1]; m++)
					q.s[at++] = p.s[m];
				continue;
			}
			q.s[at++] = s;
			q.start[q.ncells++] = at;
			for (m = p.start[k]; m < p.start[k + 1]; m++)
				if (p.s[m] != s)
					q.s[at++] = p.s[m];
		}
		q.start[q.ncells] = at;
		ch = tc_xrealloc(ch, (nch + 1) * sizeof(*ch));
		ch[nch].p = refine(c, &q);
		ch[nch].bound = serialize(c, &ch[nch].p, true);
		nch++;
		part_free(&q);
	}
	/* children by their bound, ties in order */
	for (i = 1; i < nch; i++)
		for (k = i; k > 0 && strcmp(ch[k - 1].bound, ch[k].bound) > 0;
		    k--) {
			struct child t = ch[k - 1];

			ch[k - 1] = ch[k];
			ch[k] = t;
		}
	for (i = 0; i < nch; i++) {
		search(c, &ch[i].p, sorted);
		part_free(&ch[i].p);
		free(ch[i].bound);
	}
	free(ch);
	free(reps);
	part_free(&p);
}

char *
tc_analysis__canonical_streams(const char *const *labels,
    tc_json *const *lab, size_t ns, const struct an_sedge *edges, size_t ne,
    tc_error *err)
{
	struct ctx c;
	struct part p = part_new(ns), r;
	struct an_sedge *sorted;
	size_t *order = tc_xcalloc(ns + 1, sizeof(*order)), i, j, k;
	double bound = 1.0;
	char *out;

	memset(&c, 0, sizeof(c));
	c.labels = labels;
	c.lab = lab;
	c.e = edges;
	c.ns = ns;
	c.ne = ne;
	/* _initial_stream_partition: by label text, streams in index order */
	for (i = 0; i < ns; i++)
		order[i] = i;
	for (i = 1; i < ns; i++)
		for (j = i; j > 0 && strcmp(labels[order[j - 1]],
		    labels[order[j]]) > 0; j--) {
			size_t t = order[j - 1];

			order[j - 1] = order[j];
			order[j] = t;
		}
	for (i = 0; i < ns; i++) {
		if (i == 0 || strcmp(labels[order[i - 1]], labels[order[i]]) !=
		    0)
			p.start[p.ncells++] = i;
		p.s[i] = order[i];
	}
	p.start[p.ncells] = ns;
	free(order);
	r = refine(&c, &p);
	part_free(&p);
	for (k = 0; k < r.ncells; k++)
		for (i = 2; i <= r.start[k + 1] - r.start[k]; i++)
			bound *= (double)i;
	if (bound > MAX_LABELINGS) {
		part_free(&r);
		tc_error_set(err, "stream topology exceeds deterministic "
		    "canonical-labeling safety bound");
		return NULL;
	}
	sorted = tc_xcalloc(ne + 1, sizeof(*sorted));
	memcpy(sorted, edges, ne * sizeof(*edges));
	qsort(sorted, ne, sizeof(*sorted), cmp_edge5_v);
	search(&c, &r, sorted);
	part_free(&r);
	free(sorted);
	for (i = 0; i < c.nseen; i++)
		free(c.seen[i]);
	free(c.seen);
	out = c.best;
	if (out == NULL)
		tc_error_set(err, "stream topology could not be canonically "
		    "labeled");
	return out;
}
