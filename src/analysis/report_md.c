/*
 * report_md.c - the Chinese Markdown report of an analysis document
 * ("SuperKernel 融合性能分析"), section by section as the reference's
 * renderer writes it, after the checks it makes on the scope actions.
 *
 * Cells: null reads "N/A", booleans true/false, floats "%.6f" without
 * trailing zeros, objects and lists as compact sorted JSON; then "&<>"
 * are HTML-escaped, line breaks become "<br>" and every Markdown special
 * character gets a backslash.  Header cells and fixed sentences are
 * written as they are.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/text.h"

#define MISSING "N/A"
#define EMPTY "无"

/* _display(v) appended to out */
static void
display(tc_buf *out, const tc_json *v)
{
	if (v == NULL || v->type == TC_JSON_NULL) {
		tc_buf_puts(out, MISSING);
	} else if (v->type == TC_JSON_BOOL) {
		tc_buf_puts(out, v->u.b ? "true" : "false");
	} else if (v->type == TC_JSON_INT) {
		tc_buf_puts(out, v->u.int_text);
	} else if (v->type == TC_JSON_FLOAT) {
		char *s;
		size_t n;

		if (!isfinite(v->u.f)) {
			tc_buf_puts(out, MISSING);
			return;
		}
		s = tc_xasprintf("%.6f", v->u.f);
		n = strlen(s);
		while (n > 0 && s[n - 1] == '0')
			n--;
		if (n > 0 && s[n - 1] == '.')
			n--;
		tc_buf_add(out, s, n);
		free(s);
	} else if (v->type == TC_JSON_STRING) {
		tc_buf_add(out, v->u.str.ptr, v->u.str.len);
	} else {
		char *s = tc_json_canonical(v, NULL, NULL);

		tc_buf_puts(out, s ? s : "");
		free(s);
	}
}

/* _markdown(v) appended to out */
static void
markdown(tc_buf *out, const tc_json *v)
{
	tc_buf t = TC_BUF_INIT;
	size_t i;

	display(&t, v);
	for (i = 0; i < t.len; i++) {
		char c = t.data[i];

		switch (c) {
		case '&':
			tc_buf_puts(out, "&amp;");
			break;
		case '<':
			tc_buf_puts(out, "&lt;");
			break;
		case '>':
			tc_buf_puts(out, "&gt;");
			break;
		case '\r':
			if (i + 1 < t.len && t.data[i + 1] == '\n')
				i++;
			/* FALLTHROUGH */
		case '\n':
			tc_buf_puts(out, "<br>");
			break;
		default:
			if (strchr("\\`*_{}[]()#+-.!|", c) != NULL)
				tc_buf_putc(out, '\\');
			tc_buf_putc(out, c);
		}
	}
	tc_buf_free(&t);
}

static void
header(tc_buf *out, const char *const *h, size_t n)
{
	size_t i;

	tc_buf_puts(out, "|");
	for (i = 0; i < n; i++)
		tc_buf_printf(out, " %s |", h[i]);
	tc_buf_puts(out, "\n|");
	for (i = 0; i < n; i++)
		tc_buf_puts(out, " --- |");
	tc_buf_puts(out, "\n");
}

/* One row of cells (owned; freed here). */
static void
row(tc_buf *out, tc_json **cells, size_t n)
{
	size_t i;

	tc_buf_puts(out, "|");
	for (i = 0; i < n; i++) {
		tc_buf_putc(out, ' ');
		markdown(out, cells[i]);
		tc_buf_puts(out, " |");
		tc_json_free(cells[i]);
	}
	tc_buf_puts(out, "\n");
}

static tc_json *
get(const tc_json *o, const char *k)
{
	const tc_json *v = o != NULL && o->type == TC_JSON_OBJECT ?
	    tc_json_get(o, k) : NULL;

	return v != NULL ? tc_json_clone(v) : tc_json_new_null();
}

static const tc_json *
nested(const tc_json *o, const char *a, const char *b, const char *c)
{
	const char *keys[3] = { a, b, c };
	size_t i;

	for (i = 0; i < 3 && keys[i] != NULL; i++) {
		if (o == NULL || o->type != TC_JSON_OBJECT)
			return NULL;
		o = tc_json_get(o, keys[i]);
	}
	return o;
}

static tc_json *
nested_clone(const tc_json *o, const char *a, const char *b, const char *c)
{
	const tc_json *v = nested(o, a, b, c);

	return v != NULL ? tc_json_clone(v) : tc_json_new_null();
}

static tc_json *
text(const char *s)
{
	return tc_json_new_string(s);
}

/* Items sorted by (range_id, sk_id, kind or option) as text. */
static const tc_json **
by_range(const tc_json *list, size_t *n)
{
	const tc_json **v;
	size_t i, j;

	*n = list != NULL && list->type == TC_JSON_ARRAY ? list->u.arr.len : 0;
	v = tc_xmalloc((*n + 1) * sizeof(*v));
	for (i = 0; i < *n; i++)
		v[i] = list->u.arr.items[i];
	for (i = 1; i < *n; i++) {
		for (j = i; j > 0; j--) {
			const char *ka[3] = { "range_id", "sk_id", "kind" };
			int c = 0;
			size_t k;

			for (k = 0; k < 3 && c == 0; k++) {
				tc_buf x = TC_BUF_INIT, y = TC_BUF_INIT;
				const tc_json *xv = tc_json_get(v[j - 1], ka[k]);
				const tc_json *yv = tc_json_get(v[j], ka[k]);

				if (k == 2 && !tc_json_truthy(xv))
					xv = tc_json_get(v[j - 1], "option");
				if (k == 2 && !tc_json_truthy(yv))
					yv = tc_json_get(v[j], "option");
				if (tc_json_truthy(xv))
					tc_json_str(&x, xv);
				if (tc_json_truthy(yv))
					tc_json_str(&y, yv);
				c = strcmp(tc_buf_cstr(&x), tc_buf_cstr(&y));
				tc_buf_free(&x);
				tc_buf_free(&y);
			}
			if (c <= 0)
				break;
			{
				const tc_json *t = v[j - 1];

				v[j - 1] = v[j];
				v[j] = t;
			}
		}
	}
	return v;
}

/* ---- the renderer's checks ---------------------------------------------- */

static bool
text_ok(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_STRING &&
	    tc_text_has_content(v->u.str.ptr, v->u.str.len);
}

static bool
sequence_ok(const tc_json *s)
{
	size_t i;

	if (s == NULL || s->type != TC_JSON_ARRAY || s->u.arr.len == 0)
		return false;
	for (i = 0; i < s->u.arr.len; i++)
		if (!text_ok(s->u.arr.items[i]))
			return false;
	return true;
}

/* One binding occurrence's identity, read once: the process identity's
 * integers (bit f of ints set when field f is one; 0 native_pid,
 * 1 device_id, 2 model_id, 3 sk_id, 4 step_id), its model as canonical
 * JSON, and whether an earlier occurrence of its (device, model, SK)
 * shares its step or differs in process. */
struct proj_occ {
	int64_t v[5];
	unsigned ints;
	size_t idx;
	char *model;
	bool own_model;		/* model is this one's to free (else shared) */
	bool conflict;
	/* what the decision's evidence compares (NULL where missing) */
	const char *status;
	const tc_json *blockers, *child_count, *ops;
};

#define PO_ALL 0x1fu
#define PO_GROUP 0x0eu	/* device_id, model_id, sk_id */

/* qsort orders, each ending with the index: by the five integers, by
 * (device, model, SK), and by (device, model, SK, step). */
static int
po_cmp_fields(const struct proj_occ *x, const struct proj_occ *y,
    const int *f, size_t nf)
{
	size_t i;

	for (i = 0; i < nf; i++)
		if (x->v[f[i]] != y->v[f[i]])
			return x->v[f[i]] < y->v[f[i]] ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
po_cmp_dup(const void *a, const void *b)
{
	static const int f[] = { 0, 1, 2, 3, 4 };

	return po_cmp_fields(*(struct proj_occ *const *)a,
	    *(struct proj_occ *const *)b, f, 5);
}

static int
po_cmp_group(const void *a, const void *b)
{
	static const int f[] = { 1, 2, 3 };

	return po_cmp_fields(*(struct proj_occ *const *)a,
	    *(struct proj_occ *const *)b, f, 3);
}

static int
po_cmp_step(const void *a, const void *b)
{
	static const int f[] = { 1, 2, 3, 4 };

	return po_cmp_fields(*(struct proj_occ *const *)a,
	    *(struct proj_occ *const *)b, f, 4);
}

static bool
po_same(const struct proj_occ *x, const struct proj_occ *y, unsigned mask)
{
	size_t f;

	if ((x->ints & mask) != mask || (y->ints & mask) != mask)
		return false;
	for (f = 0; f < 5; f++)
		if ((mask & (1u << f)) && x->v[f] != y->v[f])
			return false;
	return true;
}

/* The document's occurrence objects into o[0..n). */
static void
po_from_doc(const tc_json *occ, size_t n, struct proj_occ *o)
{
	static const char *const key[4] = { "native_pid", "device_id",
	    "model_id", "sk_id" };
	size_t i;

	for (i = 0; i < n; i++) {
		const tc_json *a = occ->u.arr.items[i];
		const tc_json *pa = tc_json_get(a, "process_identity");
		size_t f;

		memset(&o[i], 0, sizeof(o[i]));
		o[i].idx = i;
		for (f = 0; f < 5; f++)
			if (tc_json_int64(f < 4 ? tc_json_get(pa, key[f]) :
			    tc_json_get(a, "step_id"), &o[i].v[f]))
				o[i].ints |= 1u << f;
		if (tc_json_get(pa, "model_id") != NULL) {
			o[i].model = tc_analysis__ascii_cj(tc_json_get(pa,
			    "model_id"));
			o[i].own_model = true;
		}
		o[i].status = tc_json_get_string(a, "status");
		o[i].blockers = tc_json_get(a, "blockers");
		o[i].child_count = tc_json_get(a, "child_count");
		o[i].ops = tc_json_get(a, "ordered_child_ops");
	}
}

/* The same occurrences from the association's records, as the document
 * will hold them (tc_analysis__occurrences_hook writes them). */
static size_t
po_from_records(const struct an_structural *st, struct proj_occ **out)
{
	size_t n = 0, i, k, at = 0;
	struct proj_occ *o;
	int64_t pid = 0;
	bool pid_int = st->native_pid != NULL &&
	    tc_json_int64(st->native_pid, &pid);

	for (i = 0; i < st->nb; i++)
		n += st->b[i].nocc;
	o = tc_xcalloc(n + 1, sizeof(*o));
	for (i = 0; i < st->nb; i++) {
		const struct an_binding *b = &st->b[i];

		for (k = 0; k < b->nocc; k++, at++) {
			struct proj_occ *p = &o[at];

			p->idx = at;
			p->v[0] = pid;
			p->v[1] = b->device;
			p->v[2] = b->model;
			p->v[3] = b->sk;
			p->v[4] = b->occ[k].step;
			p->ints = PO_ALL & ~(pid_int ? 0u : 1u);
			/* one text for the binding's occurrences, the first's */
			p->own_model = k == 0;
			p->model = k == 0 ? tc_analysis__ascii_cj(tc_json_get(
			    b->mapping, "model_id")) : p[-(ptrdiff_t)k].model;
			p->status = b->valid ? "bound" : "blocked";
			p->blockers = tc_json_get(b->mapping,
			    "mapping_blockers");
			p->child_count = tc_json_get(b->mapping, "child_count");
			p->ops = tc_json_get(b->mapping, "ordered_child_ops");
		}
	}
	*out = o;
	return n;
}

/*
 * Decide, once for all decisions, whether two occurrences o[0..n) share
 * a process, device, model, SK and step (the return value) and which
 * occurrence has an earlier one of its (device, model, SK) on the same
 * step or in another process (conflict).  Each is a comparison of
 * integers, so sorting the occurrences by them puts every pair that
 * matches side by side: n log n, not n squared.
 */
static bool
po_conflicts(size_t n, struct proj_occ *o)
{
	struct proj_occ **p = tc_xmalloc((n + 1) * sizeof(*p));
	size_t i, m, g;
	bool dup = false;

	/* Duplicates: the same five integers. */
	for (i = m = 0; i < n; i++)
		if ((o[i].ints & PO_ALL) == PO_ALL)
			p[m++] = &o[i];
	qsort(p, m, sizeof(*p), po_cmp_dup);
	for (i = 1; i < m && !dup; i++)
		dup = po_same(p[i - 1], p[i], PO_ALL);
	/* An earlier occurrence of the group on the same step. */
	for (i = m = 0; i < n; i++)
		if ((o[i].ints & (PO_GROUP | 0x10u)) == (PO_GROUP | 0x10u))
			p[m++] = &o[i];
	qsort(p, m, sizeof(*p), po_cmp_step);
	for (i = 1; i < m; i++)
		if (po_same(p[i - 1], p[i], PO_GROUP | 0x10u))
			p[i]->conflict = true;
	/* An earlier occurrence of the group whose process is not the same
	 * integer: any earlier one, unless all earlier ones and this one
	 * have one integer native_pid. */
	for (i = m = 0; i < n; i++)
		if ((o[i].ints & PO_GROUP) == PO_GROUP)
			p[m++] = &o[i];
	qsort(p, m, sizeof(*p), po_cmp_group);
	for (g = 0; g < m; g = i) {
		bool uniform = (p[g]->ints & 1u) != 0;

		for (i = g + 1; i < m && po_same(p[g], p[i], PO_GROUP); i++) {
			if (!uniform || !(p[i]->ints & 1u) ||
			    p[i]->v[0] != p[g]->v[0]) {
				uniform = false;
				p[i]->conflict = true;
			}
		}
	}
	free(p);
	return dup;
}

/* Occurrences with an integer device and SK id, by (device, SK): a
 * decision's own are one run of them. */
static int
po_cmp_device_sk(const void *a, const void *b)
{
	const struct proj_occ *x = *(struct proj_occ *const *)a;
	const struct proj_occ *y = *(struct proj_occ *const *)b;

	if (x->v[1] != y->v[1])
		return x->v[1] < y->v[1] ? -1 : 1;
	if (x->v[3] != y->v[3])
		return x->v[3] < y->v[3] ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The first of the m sorted occurrences p whose (device, SK) is not below
 * want's. */
static size_t
po_lower(struct proj_occ *const *p, size_t m, const struct proj_occ *want)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid]->v[1] < want->v[1] || (p[mid]->v[1] == want->v[1] &&
		    p[mid]->v[3] < want->v[3]))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A binding as records_plain orders them: by (device, SK, model text,
 * index). */
struct plain_key {
	int64_t device, sk;
	const char *model;
	size_t idx;
};

static int
plain_cmp(const void *a, const void *b)
{
	const struct plain_key *x = a, *y = b;
	int c;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->sk != y->sk)
		return x->sk < y->sk ? -1 : 1;
	if ((c = strcmp(x->model, y->model)) != 0)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The association's own occurrences, when nothing among them can
 * conflict: one integer native_pid, no two bindings of one (device,
 * model, SK), and each binding's steps strictly ascending.  Then no two
 * occurrences share a step or differ in process (po_conflicts finds
 * nothing), and a decision's evidence is its bindings', so the
 * occurrences are never listed or sorted one by one.  The bindings
 * by (device, SK, model text, index) into *out, their model
 * texts (as po_from_records gives them) into *models; false, with
 * nothing allocated, when the records are not of that shape.
 */
static bool
records_plain(const struct an_structural *st, struct plain_key **out,
    char ***models)
{
	int64_t pid;
	struct plain_key *pk;
	size_t i, k;
	char **mt;
	bool plain = true;

	*out = NULL;
	*models = NULL;
	if (st->native_pid == NULL || !tc_json_int64(st->native_pid, &pid))
		return false;
	for (i = 0; i < st->nb; i++)
		for (k = 1; k < st->b[i].nocc; k++)
			if (st->b[i].occ[k - 1].step >= st->b[i].occ[k].step)
				return false;
	mt = tc_xcalloc(st->nb + 1, sizeof(*mt));
	pk = tc_xcalloc(st->nb + 1, sizeof(*pk));
	for (i = 0; i < st->nb; i++) {
		mt[i] = tc_analysis__ascii_cj(tc_json_get(st->b[i].mapping,
		    "model_id"));
		pk[i].device = st->b[i].device;
		pk[i].sk = st->b[i].sk;
		pk[i].model = mt[i];
		pk[i].idx = i;
	}
	qsort(pk, st->nb, sizeof(*pk), plain_cmp);
	for (i = 1; i < st->nb && plain; i++)
		plain = pk[i - 1].device != pk[i].device ||
		    pk[i - 1].sk != pk[i].sk ||
		    strcmp(pk[i - 1].model, pk[i].model) != 0;
	if (!plain) {
		for (i = 0; i < st->nb; i++)
			free(mt[i]);
		free(mt);
		free(pk);
		return false;
	}
	*out = pk;
	*models = mt;
	return true;
}

/* The first of the nb ordered bindings pk whose (device, SK) is not
 * below (device, sk). */
static size_t
plain_lower(const struct plain_key *pk, size_t nb, int64_t device,
    int64_t sk)
{
	size_t lo = 0, hi = nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pk[mid].device < device || (pk[mid].device == device &&
		    pk[mid].sk < sk))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * check_projected for one decision over plain records: its bindings of
 * its device and SK whose model text is its model, each standing for
 * its nocc occurrences (none conflicts).  How many match into
 * *matching; false when one of them is not complete evidence.
 */
static bool
plain_decision(const struct an_structural *st, const struct plain_key *pk,
    const tc_json *d, const char *model, const tc_json *seq,
    size_t *matching)
{
	int64_t device, sk;
	size_t j;
	bool complete = true;

	*matching = 0;
	if (!tc_json_int64(tc_json_get(d, "device_id"), &device) ||
	    !tc_json_int64(tc_json_get(d, "raw_sk_id"), &sk))
		return true;
	for (j = plain_lower(pk, st->nb, device, sk); j < st->nb &&
	    pk[j].device == device && pk[j].sk == sk; j++) {
		const struct an_binding *b = &st->b[pk[j].idx];
		const tc_json *bl = tc_json_get(b->mapping,
		    "mapping_blockers");

		if (b->nocc == 0 || model == NULL ||
		    strcmp(pk[j].model, model) != 0)
			continue;
		*matching += b->nocc;
		if (!b->valid || bl == NULL || bl->type != TC_JSON_ARRAY ||
		    bl->u.arr.len != 0 ||
		    !tc_json_equal(tc_json_get(b->mapping, "child_count"),
		    tc_json_get(d, "child_count")) ||
		    !tc_json_equal(tc_json_get(b->mapping,
		    "ordered_child_ops"), seq))
			complete = false;
	}
	return complete;
}

/*
 * The projected-trace evidence of each exact_projected_trace decision
 * (_validate_exact_projected_trace_decision), as far as an analysis can
 * fail it: no two binding occurrences of one (process, device, model, SK,
 * step), and at least three of the decision's own, on distinct steps, of
 * one process, bound, unblocked, with its children.  Two fused groups of
 * one SK id break both.
 */
static int
check_projected(const tc_json *decs, const tc_json *report,
    const struct an_structural *st, tc_error *err)
{
	const tc_json *occ = tc_json_get(tc_json_get(report,
	    "candidate_binding_evidence"), "occurrences");
	size_t i, j, n = 0, m = 0;
	struct proj_occ *o = NULL, **by_sk = NULL;
	struct plain_key *pk = NULL;
	char **models = NULL;
	bool dup = false, plain = false, tried_plain = false;
	int rc = -1;

	for (i = 0; i < decs->u.arr.len; i++) {
		const tc_json *d = decs->u.arr.items[i];
		const char *conf = tc_json_get_string(d, "mapping_confidence");
		const tc_json *seq = tc_json_get(tc_json_get(d, "identity"),
		    "ordered_child_op_sequence");
		const char *model = tc_json_get_string(d, "model_id");
		struct proj_occ want;
		size_t matching = 0;
		bool complete = true;

		if (conf == NULL || strcmp(conf, "exact_projected_trace") != 0)
			continue;
		if (!tried_plain) {
			tried_plain = true;
			plain = st != NULL && records_plain(st, &pk, &models);
		}
		if (plain) {
			if (!plain_decision(st, pk, d, model, seq, &matching) ||
			    matching < 3) {
				tc_error_set(err, "per_sk_decisions[%zu] "
				    "projected-trace occurrence evidence is "
				    "incomplete", i);
				goto out;
			}
			continue;
		}
		if (o == NULL) {
			if (st != NULL) {
				n = po_from_records(st, &o);
			} else {
				n = occ != NULL && occ->type == TC_JSON_ARRAY ?
				    occ->u.arr.len : 0;
				o = tc_xcalloc(n + 1, sizeof(*o));
				po_from_doc(occ, n, o);
			}
			dup = po_conflicts(n, o);
			by_sk = tc_xcalloc(n + 1, sizeof(*by_sk));
			for (j = 0; j < n; j++)
				if ((o[j].ints & 0xau) == 0xau)
					by_sk[m++] = &o[j];
			qsort(by_sk, m, sizeof(*by_sk), po_cmp_device_sk);
		}
		if (dup) {
			tc_error_set(err, "per_sk_decisions[%zu] projected-trace "
			    "duplicate occurrence", i);
			goto out;
		}
		memset(&want, 0, sizeof(want));
		if (tc_json_int64(tc_json_get(d, "device_id"), &want.v[1]))
			want.ints |= 0x2u;
		if (tc_json_int64(tc_json_get(d, "raw_sk_id"), &want.v[3]))
			want.ints |= 0x8u;
		/* the decision's occurrences: its device and SK, its model */
		for (j = (want.ints & 0xau) == 0xau ? po_lower(by_sk, m, &want) :
		    m; j < m && po_same(by_sk[j], &want, 0xau); j++) {
			const struct proj_occ *q = by_sk[j];
			const tc_json *bl = q->blockers;

			if (model == NULL || q->model == NULL ||
			    strcmp(q->model, model) != 0)
				continue;
			matching++;
			if (q->conflict || q->status == NULL ||
			    strcmp(q->status, "bound") != 0 ||
			    bl == NULL || bl->type != TC_JSON_ARRAY ||
			    bl->u.arr.len != 0 ||
			    !tc_json_equal(q->child_count,
			    tc_json_get(d, "child_count")) ||
			    !tc_json_equal(q->ops, seq))
				complete = false;
		}
		if (matching < 3 || !complete) {
			tc_error_set(err, "per_sk_decisions[%zu] projected-trace "
			    "occurrence evidence is incomplete", i);
			goto out;
		}
	}
	rc = 0;
out:
	for (j = 0; o != NULL && j < n; j++)
		if (o[j].own_model)
			free(o[j].model);
	free(o);
	free(by_sk);
	for (j = 0; models != NULL && j < st->nb; j++)
		free(models[j]);
	free(models);
	free(pk);
	return rc;
}

/* _validate_scope_action and the decisions' scope contract, the checks
 * an analysis made from partial evidence can fail. */
static int
check(const tc_json *report, const struct an_structural *st, tc_error *err)
{
	static const char *const fields[] = { "range_id", "sk_id",
	    "classification", "action", "source_scope" };
	const tc_json *acts = tc_json_get(report, "scope_actions");
	const tc_json *decs = tc_json_get(report, "per_sk_decisions");
	size_t i, k;

	if (decs == NULL || decs->type != TC_JSON_ARRAY ||
	    decs->u.arr.len == 0) {
		tc_error_set(err, "per_sk_decisions must contain at least one "
		    "decision");
		return -1;
	}
	if (check_projected(decs, report, st, err) != 0)
		return -1;
	for (i = 0; acts != NULL && i < acts->u.arr.len; i++) {
		const tc_json *a = acts->u.arr.items[i], *b;

		for (k = 0; k < 5; k++)
			if (!text_ok(tc_json_get(a, fields[k]))) {
				tc_error_set(err, "scope_actions[%zu].%s must be a "
				    "non-empty string", i, fields[k]);
				return -1;
			}
		b = tc_json_get(a, "boundary");
		if (b == NULL || b->type != TC_JSON_OBJECT) {
			tc_error_set(err, "scope_actions[%zu].boundary must be an "
			    "object", i);
			return -1;
		}
		for (k = 0; k < 2; k++)
			if (!text_ok(tc_json_get(b, k ? "end_op" : "start_op"))) {
				tc_error_set(err, "scope_actions[%zu].boundary.%s "
				    "must be a non-empty string", i,
				    k ? "end_op" : "start_op");
				return -1;
			}
		if (!sequence_ok(tc_json_get(a, "ordered_child_op_sequence"))) {
			tc_error_set(err, "scope_actions[%zu]."
			    "ordered_child_op_sequence must be a non-empty "
			    "string list", i);
			return -1;
		}
	}
	for (i = 0; i < decs->u.arr.len; i++) {
		const tc_json *d = decs->u.arr.items[i];
		const tc_json *id = tc_json_get(d, "identity");

		if (!text_ok(tc_json_get(id, "source_scope"))) {
			tc_error_set(err, "per_sk_decisions[%zu].identity."
			    "source_scope must be a non-empty string", i);
			return -1;
		}
		if (!sequence_ok(tc_json_get(id, "ordered_child_op_sequence"))) {
			tc_error_set(err, "per_sk_decisions[%zu].identity."
			    "ordered_child_op_sequence must be a non-empty "
			    "string list", i);
			return -1;
		}
	}
	return 0;
}

/* ---- cells of the per-SK table --------------------------------------------- */

static tc_json *
na(const tc_json *v)
{
	return v != NULL && v->type != TC_JSON_NULL ? tc_json_clone(v) :
	    tc_json_new_string(MISSING);
}

static tc_json *
occurrence_counts(const tc_json *d)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set(o, "baseline", na(nested(d, "original",
	    "occurrence_count", NULL)));
	tc_json_object_set(o, "SK", na(tc_json_get(d,
	    "candidate_occurrence_count")));
	return o;
}

static tc_json *
stream_overlap(const tc_json *d)
{
	const tc_json *occ = nested(d, "original", "example_occurrence", NULL);
	const tc_json *ov = occ != NULL && occ->type == TC_JSON_OBJECT ?
	    tc_json_get(occ, "multi_stream_analysis") : NULL;
	tc_json *o = tc_json_new_object();
	const char *keys[] = { "multi_stream_detected",
	    "cube_vector_parallel_detected", "cube_vector_overlap_us",
	    "cube_vector_overlap_ratio" };
	size_t i;

	if (occ != NULL && occ->type != TC_JSON_OBJECT)
		occ = NULL;
	if (ov != NULL && ov->type != TC_JSON_OBJECT)
		ov = NULL;
	tc_json_object_set(o, "stream_ids", na(occ ? tc_json_get(occ,
	    "stream_ids") : NULL));
	tc_json_object_set(o, "stream_count", na(occ ? tc_json_get(occ,
	    "stream_count") : NULL));
	for (i = 0; i < 4; i++)
		tc_json_object_set(o, keys[i], na(ov ? tc_json_get(ov, keys[i]) :
		    NULL));
	return o;
}

static bool
blank(const tc_json *v)
{
	if (v == NULL || v->type == TC_JSON_NULL)
		return true;
	if (v->type == TC_JSON_STRING)
		return v->u.str.len == 0;
	if (v->type == TC_JSON_ARRAY)
		return v->u.arr.len == 0;
	if (v->type == TC_JSON_OBJECT)
		return v->u.obj.len == 0;
	return false;
}

/* _missing_decision_fields, sorted */
static tc_json *
missing_fields(const tc_json *d)
{
	static const char *const spec[][4] = {
		{ "range_id", "range_id", NULL, NULL },
		{ "sk_id", "sk_id", NULL, NULL },
		{ "child_count", "child_count", NULL, NULL },
		{ "original.interval_us.p50", "original", "interval_us", "p50" },
		{ "original.interval_us.p90", "original", "interval_us", "p90" },
		{ "original.interval_us.mad", "original", "interval_us", "mad" },
		{ "original.duration_sum_us.p50", "original", "duration_sum_us",
		    "p50" },
		{ "original.duration_sum_us.p90", "original", "duration_sum_us",
		    "p90" },
		{ "original.duration_sum_us.mad", "original", "duration_sum_us",
		    "mad" },
		{ "sk_duration.p50", "sk_duration", "p50", NULL },
		{ "sk_duration.p90", "sk_duration", "p90", NULL },
		{ "sk_duration.mad", "sk_duration", "mad", NULL },
		{ "original.occurrence_count", "original", "occurrence_count",
		    NULL },
		{ "candidate_occurrence_count", "candidate_occurrence_count", NULL,
		    NULL },
		{ "classification", "classification", NULL, NULL },
		{ "classification_zh", "classification_zh", NULL, NULL },
		{ "action", "action", NULL, NULL },
		{ "mapping_method", "mapping_method", NULL, NULL },
		{ "mapping_confidence", "mapping_confidence", NULL, NULL },
		{ "boundary", "boundary", NULL, NULL },
		{ "identity.ordered_child_op_sequence", "identity",
		    "ordered_child_op_sequence", NULL },
		{ "original.example_occurrence.stream_ids", "original",
		    "example_occurrence", "stream_ids" },
		{ "original.example_occurrence.stream_count", "original",
		    "example_occurrence", "stream_count" },
		{ "original.example_occurrence.multi_stream_analysis", "original",
		    "example_occurrence", "multi_stream_analysis" },
	};
	size_t n = sizeof(spec) / sizeof(spec[0]), i, j;
	const char *names[sizeof(spec) / sizeof(spec[0])];
	size_t k = 0;
	tc_json *list = tc_json_new_array();

	for (i = 0; i < n; i++)
		if (blank(nested(d, spec[i][1], spec[i][2], spec[i][3])))
			names[k++] = spec[i][0];
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j - 1];

			names[j - 1] = names[j];
			names[j] = t;
		}
	for (i = 0; i < k; i++)
		tc_json_array_push(list, tc_json_new_string(names[i]));
	return list;
}

static tc_json *
decision_evidence(const tc_json *d)
{
	tc_json *o = tc_json_new_object(), *m = missing_fields(d);
	const tc_json *e = tc_json_get(d, "evidence_errors");
	const tc_json *b = tc_json_get(d, "action_blocker");

	if (m->u.arr.len > 0)
		tc_json_object_set(o, "missing_fields", m);
	else
		tc_json_free(m);
	if (tc_json_truthy(e))
		tc_json_object_set(o, "evidence_errors", tc_json_clone(e));
	if (tc_json_truthy(b))
		tc_json_object_set(o, "action_blocker", tc_json_clone(b));
	if (o->u.obj.len == 0) {
		tc_json_free(o);
		return text(EMPTY);
	}
	return o;
}

static tc_json *
reliable(const tc_json *d)
{
	const char *c = tc_json_get_string(d, "mapping_confidence");

	if (c != NULL && (strcmp(c, "exact") == 0 ||
	    strcmp(c, "exact_projected_trace") == 0))
		return tc_json_new_bool(true);
	if (c != NULL && (strcmp(c, "diagnostic_only") == 0 ||
	    strcmp(c, "ambiguous") == 0 || strcmp(c, "unmapped") == 0))
		return tc_json_new_bool(false);
	return text(MISSING);
}

static tc_json *
binding_text(const tc_json *report, const tc_json *range_id)
{
	static const char *const fields[] = { "source_revision",
	    "baseline_config_fingerprint", "candidate_config_fingerprint",
	    "control_fingerprint", "workload_fingerprint" };
	tc_buf b = TC_BUF_INIT;
	tc_json *v;
	size_t i;

	for (i = 0; i < 5; i++) {
		tc_buf_printf(&b, "%s=", fields[i]);
		display(&b, tc_json_get(report, fields[i]));
		tc_buf_puts(&b, "; ");
	}
	tc_buf_puts(&b, "range_id=");
	display(&b, range_id);
	v = tc_json_new_stringn(b.data, b.len);
	tc_buf_free(&b);
	return v;
}

static tc_json *
slash(const tc_json *d, const char *a, const char *b)
{
	tc_buf t = TC_BUF_INIT;
	tc_json *v;

	display(&t, tc_json_get(d, a));
	tc_buf_puts(&t, " / ");
	display(&t, tc_json_get(d, b));
	v = tc_json_new_stringn(t.data, t.len);
	tc_buf_free(&t);
	return v;
}

static tc_json *
source_action(const tc_json *d)
{
	const char *m = tc_json_get_string(d, "mapping_method");
	const char *c = tc_json_get_string(d, "mapping_confidence");

	if (m != NULL && c != NULL && strcmp(m, "source_scope_map") == 0 &&
	    strcmp(c, "exact") == 0)
		return get(d, "action");
	if (c != NULL && strcmp(c, "exact_projected_trace") == 0)
		return text("仅性能分类；不可直接 prune");
	return text("无自动源码动作");
}

static tc_json *
proof_alternatives(const tc_json *report, const struct an_structural *st,
    const tc_json *d)
{
	tc_buf k = TC_BUF_INIT;
	const tc_json *proofs = tc_json_get(report, "graph_alignment_proof");
	const tc_json *p, *shared;
	tc_json *v;

	tc_buf_puts(&k, "device:");
	display(&k, tc_json_get(d, "device_id"));
	tc_buf_puts(&k, "/model:");
	display(&k, tc_json_get(d, "model_id"));
	tc_buf_puts(&k, "/sk:");
	display(&k, tc_json_get(d, "raw_sk_id"));
	p = proofs != NULL && proofs->type == TC_JSON_OBJECT ?
	    tc_json_get(proofs, tc_buf_cstr(&k)) : NULL;
	v = get(p, "alternative_solution_count_by_step");
	if (v->type == TC_JSON_NULL && st != NULL &&
	    (shared = tc_analysis__shared_value(st, tc_json_get(p,
	    "alternative_solution_count_by_step"))) != NULL) {
		tc_json_free(v);
		v = tc_json_clone(shared);
	}
	tc_buf_free(&k);
	return v;
}

static void
section(tc_buf *out, const char *title)
{
	tc_buf_printf(out, "\n## %s\n\n", title);
}

static void
kv_table(tc_buf *out, const char *h1, const char *h2, const tc_json *obj,
    const char *const *keys, size_t n)
{
	const char *h[2] = { h1, h2 };
	size_t i;

	header(out, h, 2);
	for (i = 0; i < n; i++) {
		tc_json *cells[2] = { text(keys[i]), get(obj, keys[i]) };

		row(out, cells, 2);
	}
}

static void
none_bullet(tc_buf *out)
{
	tc_buf_puts(out, "- " EMPTY "\n");
}

char *
tc_analysis_markdown(const tc_json *r, tc_error *err)
{
	return tc_analysis__markdown(r, NULL, err);
}

char *
tc_analysis__markdown(const tc_json *r, const struct an_structural *st,
    tc_error *err)
{
	static const char *const input_keys[] = { "experiment_id", "round_id",
	    "analysis_agent_id", "candidate_name", "source_revision",
	    "workload_fingerprint", "control_fingerprint",
	    "declared_change_set", "inputs" };
	static const char *const threshold_keys[] = {
	    "min_relative_change_pct", "min_absolute_change_us",
	    "min_occurrences" };
	static const char *const coverage_keys[] = { "total_sk_ids",
	    "bound_sk_ids", "exact_projected_trace_sk_ids", "ambiguous_sk_ids",
	    "unmapped_sk_ids", "filtered_by_child_count" };
	static const char *const perf_headers[] = { "range_id", "sk_id",
	    "child count", "baseline interval P50 (us)",
	    "baseline interval P90 (us)", "baseline interval MAD (us)",
	    "baseline duration sum P50 (us)", "baseline duration sum P90 (us)",
	    "baseline duration sum MAD (us)", "SK P50 (us)", "SK P90 (us)",
	    "SK MAD (us)", "occurrence count", "change (%)",
	    "MAD/dynamic threshold (%)", "classification（英文 + 中文）",
	    "action", "mapping method", "mapping confidence",
	    "mapping reliable", "boundary", "ordered child sequence",
	    "stream/overlap", "analysis Agent", "条件证据绑定",
	    "blocker/evidence" };
	tc_buf out = TC_BUF_INIT;
	const tc_json *cov = tc_json_get(r, "mapping_coverage");
	const tc_json *dist = tc_json_get(cov, "child_count_distribution");
	const tc_json *assoc = tc_json_get(r, "association_protocol");
	const tc_json *pb = tc_json_get(assoc, "blockers");
	const tc_json *excl = tc_json_get(assoc, "model_projection_exclusions");
	const tc_json **v;
	size_t n, i;

	if (check(r, st, err) != 0)
		return NULL;
	tc_buf_puts(&out, "# SuperKernel 融合性能分析\n");
	section(&out, "输入与可信度");
	kv_table(&out, "字段", "值", r, input_keys, 9);
	section(&out, "判定阈值");
	kv_table(&out, "阈值", "值", tc_json_get(r, "thresholds"),
	    threshold_keys, 3);
	section(&out, "结构关联覆盖率");
	kv_table(&out, "指标", "数量", cov, coverage_keys, 6);
	section(&out, "Child Count 分布");
	{
		const char *h[2] = { "Child 数", "SK 数" };

		header(&out, h, 2);
		/* object keys are kept sorted: the order of str(key) */
		for (i = 0; dist != NULL && dist->type == TC_JSON_OBJECT &&
		    i < dist->u.obj.len; i++) {
			tc_json *cells[2] = { text(dist->u.obj.members[i].key),
			    tc_json_clone(dist->u.obj.members[i].value) };

			row(&out, cells, 2);
		}
	}
	tc_buf_puts(&out, "\nraw Task ID/名称提示仅用于诊断；child_count<5 "
	    "没有被过滤。\n");
	section(&out, "逐 SK 结构与性能证据");
	{
		const char *h[7] = { "SK", "Child 数", "同进程绑定",
		    "Kernel Projection", "各 Step 替代解", "性能分类",
		    "源码动作" };

		header(&out, h, 7);
		v = by_range(tc_json_get(r, "per_sk_decisions"), &n);
		for (i = 0; i < n; i++) {
			tc_json *cells[7] = { get(v[i], "sk_id"),
			    get(v[i], "child_count"),
			    get(v[i], "candidate_binding_status"),
			    slash(v[i], "mapping_method", "mapping_confidence"),
			    proof_alternatives(r, st, v[i]),
			    get(v[i], "classification"), source_action(v[i]) };

			row(&out, cells, 7);
		}
		free(v);
	}
	section(&out, "关联阻塞项");
	{
		const char *h[2] = { "SK", "mapping blockers" };

		header(&out, h, 2);
		v = by_range(tc_json_get(r, "per_sk_decisions"), &n);
		for (i = 0; i < n; i++) {
			const tc_json *mb = tc_json_get(v[i], "mapping_blockers");
			tc_json *cells[2] = { get(v[i], "sk_id"),
			    tc_json_truthy(mb) ? tc_json_clone(mb) : text(EMPTY) };

			row(&out, cells, 2);
		}
		free(v);
		for (i = 0; pb != NULL && pb->type == TC_JSON_ARRAY &&
		    i < pb->u.arr.len; i++) {
			tc_buf_puts(&out, "- protocol: ");
			markdown(&out, pb->u.arr.items[i]);
			tc_buf_putc(&out, '\n');
		}
		if (pb == NULL || pb->type != TC_JSON_ARRAY || pb->u.arr.len == 0)
			tc_buf_puts(&out, "- protocol: " EMPTY "\n");
	}
	if (excl != NULL && excl->type == TC_JSON_OBJECT && excl->u.obj.len > 0) {
		const char *h[7] = { "模型", "协议", "状态", "occurrence",
		    "候选节点", "排除节点", "blockers" };

		section(&out, "Projection 排除门禁");
		header(&out, h, 7);
		for (i = 0; i < excl->u.obj.len; i++) {
			const tc_json *e = excl->u.obj.members[i].value;
			const tc_json *cn = tc_json_get(e, "candidate_node_keys");
			const tc_json *xn = tc_json_get(e, "excluded_node_keys");
			const tc_json *bl = tc_json_get(e, "blockers");
			const tc_json *oc = tc_json_get(e, "occurrence_count");
			tc_json *cells[7] = { text(excl->u.obj.members[i].key),
			    get(e, "protocol"), get(e, "status"),
			    oc ? tc_json_clone(oc) : tc_json_new_int(0),
			    tc_json_new_int(cn && cn->type == TC_JSON_ARRAY ?
			    (int64_t)cn->u.arr.len : 0),
			    tc_json_new_int(xn && xn->type == TC_JSON_ARRAY ?
			    (int64_t)xn->u.arr.len : 0),
			    tc_json_truthy(bl) ? tc_json_clone(bl) : text(EMPTY) };

			row(&out, cells, 7);
		}
	}
	section(&out, "Automatic AOT 与源码动作边界");
	tc_buf_puts(&out, "automatic AOT kernel projection 可用于性能分类，但不能"
	    "证明 Python 源码 offset，不能直接驱动 prune；应先完成 winner-only "
	    "SMAP，由 stable_source + marker_only_calibration 独立证明原始源码"
	    "区间。\n");
	section(&out, "逐 SK 性能对比");
	v = by_range(tc_json_get(r, "per_sk_decisions"), &n);
	if (n == 0)
		none_bullet(&out);
	else
		header(&out, perf_headers, 26);
	for (i = 0; i < n; i++) {
		const tc_json *d = v[i];
		tc_json *cells[26] = {
			get(d, "range_id"), get(d, "sk_id"),
			get(d, "child_count"),
			nested_clone(d, "original", "interval_us", "p50"),
			nested_clone(d, "original", "interval_us", "p90"),
			nested_clone(d, "original", "interval_us", "mad"),
			nested_clone(d, "original", "duration_sum_us", "p50"),
			nested_clone(d, "original", "duration_sum_us", "p90"),
			nested_clone(d, "original", "duration_sum_us", "mad"),
			nested_clone(d, "sk_duration", "p50", NULL),
			nested_clone(d, "sk_duration", "p90", NULL),
			nested_clone(d, "sk_duration", "mad", NULL),
			occurrence_counts(d), get(d, "improvement_pct"),
			get(d, "noise_threshold_pct"),
			slash(d, "classification", "classification_zh"),
			get(d, "action"), get(d, "mapping_method"),
			get(d, "mapping_confidence"), reliable(d),
			get(d, "boundary"),
			nested_clone(d, "identity", "ordered_child_op_sequence",
			    NULL),
			stream_overlap(d), get(r, "analysis_agent_id"),
			binding_text(r, tc_json_get(d, "range_id")),
			decision_evidence(d)
		};

		row(&out, cells, 26);
	}
	free(v);
	section(&out, "Scope 保留与裁剪");
	v = by_range(tc_json_get(r, "scope_actions"), &n);
	if (n == 0) {
		none_bullet(&out);
	} else {
		const char *h[4] = { "range_id", "sk_id", "classification",
		    "action" };

		header(&out, h, 4);
	}
	for (i = 0; i < n; i++) {
		tc_json *cells[4] = { get(v[i], "range_id"), get(v[i], "sk_id"),
		    get(v[i], "classification"), get(v[i], "action") };

		row(&out, cells, 4);
	}
	free(v);
	section(&out, "劣化原因假设");
	v = by_range(tc_json_get(r, "diagnostic_hypotheses"), &n);
	if (n == 0) {
		none_bullet(&out);
	} else {
		const char *h[6] = { "range_id", "kind", "confidence", "evidence",
		    "说明", "requires A/B test" };

		header(&out, h, 6);
	}
	for (i = 0; i < n; i++) {
		const tc_json *ev = tc_json_get(v[i], "evidence");
		tc_json *cells[6] = { get(v[i], "range_id"), get(v[i], "kind"),
		    get(v[i], "confidence"),
		    tc_json_truthy(ev) ? tc_json_clone(ev) : text(EMPTY),
		    get(v[i], "explanation_zh"), get(v[i], "requires_ab_test") };

		row(&out, cells, 6);
	}
	free(v);
	section(&out, "建议验证实验");
	v = by_range(tc_json_get(r, "recommended_experiments"), &n);
	if (n == 0) {
		none_bullet(&out);
	} else {
		const char *h[8] = { "experiment_id", "range_id", "option",
		    "value", "only change", "accepted evidence", "预期信号",
		    "lifecycle gates" };

		header(&out, h, 8);
	}
	for (i = 0; i < n; i++) {
		tc_json *cells[8] = { get(v[i], "experiment_id"),
		    get(v[i], "range_id"), get(v[i], "option"), get(v[i], "value"),
		    get(v[i], "only_change"), get(v[i], "accepted_evidence"),
		    get(v[i], "expected_signal_zh"), get(v[i], "lifecycle_gates") };

		row(&out, cells, 8);
	}
	free(v);
	section(&out, "阻塞项");
	{
		const tc_json *bl = tc_json_get(r, "blockers");
		size_t nb = bl != NULL && bl->type == TC_JSON_ARRAY ?
		    bl->u.arr.len : 0, j;
		char **items = tc_xmalloc((nb + 1) * sizeof(*items));

		for (i = 0; i < nb; i++) {
			tc_buf b = TC_BUF_INIT;

			markdown(&b, bl->u.arr.items[i]);
			tc_buf_grow(&b, 0);
			items[i] = tc_buf_detach(&b, NULL);
		}
		for (i = 1; i < nb; i++)
			for (j = i; j > 0 && strcmp(items[j - 1], items[j]) > 0;
			    j--) {
				char *t = items[j - 1];

				items[j - 1] = items[j];
				items[j] = t;
			}
		for (i = 0; i < nb; i++) {
			tc_buf_printf(&out, "- %s\n", items[i]);
			free(items[i]);
		}
		free(items);
		if (nb == 0)
			none_bullet(&out);
	}
	section(&out, "给主实验 Agent 的后续指导");
	{
		const tc_json *g = tc_json_get(r, "next_agent_guidance_zh");

		if (tc_json_truthy(g))
			markdown(&out, g);
		else
			tc_buf_puts(&out, MISSING);
		tc_buf_putc(&out, '\n');
	}
	tc_buf_grow(&out, 0);
	return tc_buf_detach(&out, NULL);
}
