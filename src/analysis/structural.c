/*
 * structural.c - the structural association of an analysis: one kernel
 * projection per (device, model) of the candidate's SK rows, and from
 * those traces what the analysis document records (the binding evidence
 * of every candidate occurrence, the alignment proofs, stream roles and
 * graph fingerprints per SK) and what a per-SK decision reads (its
 * binding and the baseline statistics of its projected children).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/decimal.h"
#include "tunectl/path.h"

struct target {
	int64_t device, model;
};

static int
cmp_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->model < y->model ? -1 : x->model > y->model;
}

/*
 * int(us * 1000) of a Decimal, truncated toward zero, into *v (or, beyond
 * int64, its digits into *text): the product rounded to the context's 28
 * digits first, as Python's Decimal multiplies.
 */
static void
nanos(const tc_dec *us, int64_t *v, char **text)
{
	tc_dec k, r;
	mpz_t q, p;

	tc_dec_init(&k);
	tc_dec_init(&r);
	tc_dec_set_long(&k, 1000);
	tc_dec_mul(&r, us, &k);
	tc_dec_round_context(&r);
	mpz_init(q);
	mpz_init(p);
	if (r.exp >= 0) {
		mpz_ui_pow_ui(p, 10, (unsigned long)r.exp);
		mpz_mul(q, r.coef, p);
	} else {
		mpz_ui_pow_ui(p, 10, (unsigned long)-r.exp);
		mpz_tdiv_q(q, r.coef, p);
	}
	if (r.sign)
		mpz_neg(q, q);
	*text = NULL;
	if (mpz_fits_slong_p(q))
		*v = (int64_t)mpz_get_si(q);
	else
		*text = mpz_get_str(NULL, 10, q);
	mpz_clear(q);
	mpz_clear(p);
	tc_dec_clear(&k);
	tc_dec_clear(&r);
}

void
tc_analysis__interval_ns_exact(const char *start, const char *dur,
    int64_t ns[2], char *ns_text[2])
{
	double d_us;
	tc_dec s, d, e;

	tc_dec_init(&s);
	tc_dec_init(&d);
	tc_dec_init(&e);
	tc_dec_parse(&d, dur, strlen(dur));
	d_us = tc_dec_to_double(&d);
	tc_dec_parse(&s, start, strlen(start));
	tc_dec_from_double_repr(&d, d_us);
	tc_dec_add(&e, &s, &d);
	/* Decimal addition rounds to the context too */
	tc_dec_round_context(&e);
	nanos(&s, &ns[0], &ns_text[0]);
	nanos(&e, &ns[1], &ns_text[1]);
	tc_dec_clear(&s);
	tc_dec_clear(&d);
	tc_dec_clear(&e);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 i128;

/*
 * tc_analysis__interval_ns_exact() in 128-bit integers, for the times a
 * profiler writes: a start of up to 18 digits and a duration of up to
 * 15, each with at most 9 after the point.  A duration of 15 digits or
 * fewer is its own float's repr, the sum has fewer than 28 digits (no
 * context rounding) and times 1000 it only gains zeros, so both ends
 * are exact truncations.  False (nothing set) for anything else or a
 * result beyond int64.
 */
static bool
interval_ns_small(const char *start, const char *dur, int64_t ns[2])
{
	static const int64_t p10[10] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000, 1000000000 };
	struct an_plain ps, pd;
	int64_t sv, dv;
	size_t a, b, c;
	i128 lo, hi;

	if (!tc_analysis__plain_decimal(start, &ps) || ps.sig > 18 ||
	    ps.frac > 9 || !tc_analysis__plain_decimal(dur, &pd) ||
	    pd.sig > 15 || pd.frac > 9)
		return false;
	sv = (int64_t)ps.v;
	dv = (int64_t)pd.v;
	a = ps.frac;
	b = pd.frac;
	c = a > b ? a : b;
	lo = (i128)sv * 1000 / p10[a];
	hi = ((i128)sv * p10[c - a] + (i128)dv * p10[c - b]) * 1000 / p10[c];
	if (lo > INT64_MAX || hi > INT64_MAX)
		return false;
	ns[0] = (int64_t)lo;
	ns[1] = (int64_t)hi;
	return true;
}
#endif

void
tc_analysis__interval_ns(const char *start, const char *dur, int64_t ns[2],
    char *ns_text[2])
{
#ifdef __SIZEOF_INT128__
	if (interval_ns_small(start, dur, ns)) {
		ns_text[0] = ns_text[1] = NULL;
		return;
	}
#endif
	tc_analysis__interval_ns_exact(start, dur, ns, ns_text);
}

/* The parent interval of a candidate occurrence: its start and start +
 * float(duration), in nanoseconds. */
static void
parent_interval(const struct an_sk_row *row, struct an_bind_occ *o)
{
	o->step = row->step;
	tc_analysis__interval_ns(row->start_text, row->dur_text, o->ns,
	    o->ns_text);
}

/* A placeholder for value (a trace's, which outlives the report's
 * writes), recorded in st. */
static tc_json *
shared(struct an_structural *st, const tc_json *value)
{
	tc_json *ph = tc_json_new_null();

	st->shared = tc_xrealloc(st->shared, (st->nshared + 1) *
	    sizeof(*st->shared));
	st->shared[st->nshared].ph = ph;
	st->shared[st->nshared++].value = value;
	return ph;
}

static int
cmp_shared(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct an_shared *)a)->ph;
	uintptr_t y = (uintptr_t)((const struct an_shared *)b)->ph;

	return x < y ? -1 : x > y;
}

const tc_json *
tc_analysis__shared_value(const struct an_structural *st, const tc_json *ph)
{
	const struct an_shared key = { ph, NULL }, *hit;

	if (st == NULL || st->nshared == 0)
		return NULL;
	hit = bsearch(&key, st->shared, st->nshared, sizeof(*st->shared),
	    cmp_shared);
	return hit != NULL ? hit->value : NULL;
}

/* The record of one mapping: its binding and evidence objects. */
static void
record_mapping(struct an_structural *st, const struct an_trace *trace,
    const struct an_tmap *tm, const char *bhex)
{
	const tc_json *m = tm->m;
	const tc_json *ev = tc_json_get(trace->doc, "evidence");
	const char *mfp = tc_json_get_string(trace->doc, "mapping_fingerprint");
	bool exact = strcmp(tc_json_get_string(m, "status"), "exact") == 0;
	struct an_binding *b;
	tc_json *go, *proof, *efp;
	char key[96];

	st->b = tc_xrealloc(st->b, (st->nb + 1) * sizeof(*st->b));
	b = &st->b[st->nb++];
	memset(b, 0, sizeof(*b));
	tc_json_int64(tc_json_get(m, "device_id"), &b->device);
	tc_json_int64(tc_json_get(m, "model_id"), &b->model);
	tc_json_int64(tc_json_get(m, "sk_id"), &b->sk);
	b->valid = exact;
	b->mapping = m;
	b->tm = tm;
	b->mapping_fp = mfp;
	/*
	 * The candidate binding is the first occurrence's; an SK with none
	 * (a step alignment blocked every mapping) still has one, blocked,
	 * with no children: the decision's child_count is then 0.
	 */
	b->status = exact && tm->ncocc > 0 ? "bound" : "blocked";
	if (tm->ncocc > 0)
		tc_json_int64(tc_json_get(m, "child_count"), &b->child_count);
	go = tc_json_new_object();
	tc_json_object_set_string(go, "mapping_fingerprint", mfp);
	tc_json_object_set_int(go, "device_id", b->device);
	tc_json_object_set_int(go, "model_id", b->model);
	tc_json_object_set_int(go, "sk_id", b->sk);
	tc_json_object_set(go, "children", tc_json_clone(tc_json_get(m,
	    "ordered_child_node_keys")));
	tc_analysis__ascii_digest(go, b->occurrence_fp, NULL);
	tc_json_free(go);
	snprintf(key, sizeof(key), "device:%lld/model:%lld/sk:%lld",
	    (long long)b->device, (long long)b->model, (long long)b->sk);
	proof = tc_json_new_object();
	tc_json_object_set_string(proof, "protocol",
	    "kernel_projection_trace_v2");
	tc_json_object_set(proof, "mapping_method",
	    tc_json_clone(tc_json_get(m, "mapping_method")));
	tc_json_object_set(proof, "mapping_confidence",
	    tc_json_clone(tc_json_get(m, "mapping_confidence")));
	tc_json_object_set_string(proof, "mapping_fingerprint", mfp);
	tc_json_object_set_string(proof, "graph_occurrence_fingerprint",
	    b->occurrence_fp);
	tc_json_object_set(proof, "alternative_solution_count_by_step",
	    shared(st, tc_json_get(trace->doc,
	    "alternative_solution_count_by_step")));
	tc_json_object_set(st->proofs, key, proof);
	tc_json_object_set(st->stream_roles, key, shared(st,
	    tc_json_get(trace->doc, "stream_role_mapping")));
	tc_json_object_set(st->graph_fps, key, tc_json_clone(ev));
	efp = tc_json_new_object();
	tc_json_object_set_string(efp, "kernel_details", bhex);
	tc_json_object_set_string(efp, "projection_mapping", mfp);
	tc_json_object_set(efp, "profile_sk_graph_origin", tc_json_clone(
	    tc_json_get(ev, "profile_origin_graph_fingerprint")));
	b->evidence_fps = efp;
	/* the occurrences' intervals: parent_intervals() */
	b->occ = tc_xcalloc(tm->ncocc + 1, sizeof(*b->occ));
	b->nocc = tm->ncocc;
}

/* The parent intervals of every binding's occurrences, from its
 * mapping's candidate rows: exact decimal arithmetic per occurrence,
 * each binding's its own, so the odd bindings are worked out on a
 * second thread (all here if it cannot start). */
struct intervals_job {
	struct an_structural *st;
	size_t first;
};

static void
intervals_from(struct an_structural *st, size_t first, size_t step)
{
	size_t k, i;

	for (k = first; k < st->nb; k += step)
		for (i = 0; i < st->b[k].nocc; i++)
			parent_interval(st->b[k].tm->cocc[i], &st->b[k].occ[i]);
}

static void *
intervals_main(void *arg)
{
	struct intervals_job *j = arg;

	intervals_from(j->st, j->first, 2);
	return NULL;
}

static void
parent_intervals(struct an_structural *st)
{
	struct intervals_job j = { st, 1 };
	pthread_t t;

	if (st->nb < 2 || pthread_create(&t, NULL, intervals_main, &j) != 0) {
		intervals_from(st, 0, 1);
		return;
	}
	intervals_from(st, 0, 2);
	pthread_join(t, NULL);
}

static void
emit_ns(tc_json_emitter *e, const struct an_bind_occ *o, int i)
{
	if (o->ns_text[i] != NULL)
		tc_json_emit_int_text(e, o->ns_text[i]);
	else
		tc_json_emit_int(e, o->ns[i]);
}

/* The members every occurrence of binding b shares, first in its object,
 * as text for e's writer (e at the placeholder: the array and each
 * object are opened below it). */
static void
shared_members(tc_json_fragment *f, const tc_json_emitter *e,
    const struct an_binding *b)
{
	const tc_json *m = b->mapping;
	tc_json *o = tc_json_new_object();

	tc_json_object_set(o, "blockers", tc_json_clone(tc_json_get(m,
	    "mapping_blockers")));
	tc_json_object_set(o, "child_count", tc_json_clone(tc_json_get(m,
	    "child_count")));
	tc_json_object_set(o, "evidence_fingerprints",
	    tc_json_clone(b->evidence_fps));
	tc_json_object_set(o, "ordered_child_node_keys", tc_json_clone(
	    tc_json_get(m, "ordered_child_node_keys")));
	tc_json_object_set(o, "ordered_child_ops", tc_json_clone(
	    tc_json_get(m, "ordered_child_ops")));
	tc_json_fragment_render(f, e, 2, o);
	tc_json_free(o);
}

/* Every binding's occurrences as the items of one array: item i is
 * occurrence i - first[b] of the binding b whose range holds it.  Read
 * only, so that two threads may write items. */
struct occ_items {
	const struct an_structural *st;
	size_t *first;			/* per binding, and the total last */
	tc_json_fragment *common;	/* per binding */
};

static void
occ_item(void *ctx, size_t i, tc_json_emitter *e, tc_buf *scratch)
{
	const struct occ_items *it = ctx;
	const struct an_structural *st = it->st;
	size_t lo = 0, hi = st->nb;
	const struct an_binding *b;
	const struct an_bind_occ *o;

	(void)scratch;
	/* the last binding starting at or before i: first[lo] <= i <
	 * first[lo + 1], so it has occurrences */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->first[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	b = &st->b[lo];
	o = &b->occ[i - it->first[lo]];
	tc_json_emit_object_begin(e);
	tc_json_emit_fragment(e, &it->common[lo]);
	tc_json_emit_key(e, "parent_interval_ns");
	tc_json_emit_array_begin(e);
	emit_ns(e, o, 0);
	emit_ns(e, o, 1);
	tc_json_emit_array_end(e);
	tc_json_emit_key(e, "process_identity");
	tc_json_emit_object_begin(e);
	tc_json_emit_key(e, "device_id");
	tc_json_emit_int(e, b->device);
	tc_json_emit_key(e, "model_id");
	tc_json_emit_int(e, b->model);
	tc_json_emit_key(e, "native_pid");
	if (st->native_pid != NULL)
		tc_json_emit_value(e, st->native_pid);
	else
		tc_json_emit_null(e);
	tc_json_emit_key(e, "sk_id");
	tc_json_emit_int(e, b->sk);
	tc_json_emit_object_end(e);
	tc_json_emit_key(e, "status");
	tc_json_emit_string(e, b->valid ? "bound" : "blocked");
	tc_json_emit_key(e, "step_id");
	tc_json_emit_int(e, o->step);
	tc_json_emit_object_end(e);
}

/* The objects of candidate_binding_evidence.occurrences, every binding's
 * in order, each with its mapping's shared fields; the values the report
 * shares with the traces in place of their placeholders. */
bool
tc_analysis__occurrences_hook(void *ctx, const tc_json *ph,
    tc_json_emitter *e)
{
	const struct an_structural *st = ctx;
	struct occ_items it;
	size_t i;

	if (st == NULL)
		return false;
	if (ph != st->occ_ph) {
		const tc_json *v = tc_analysis__shared_value(st, ph);

		if (v == NULL)
			return false;
		tc_json_emit_value(e, v);
		return true;
	}
	it.st = st;
	it.first = tc_xmalloc((st->nb + 1) * sizeof(*it.first));
	it.common = tc_xcalloc(st->nb + 1, sizeof(*it.common));
	it.first[0] = 0;
	for (i = 0; i < st->nb; i++) {
		it.first[i + 1] = it.first[i] + st->b[i].nocc;
		if (st->b[i].nocc > 0)
			shared_members(&it.common[i], e, &st->b[i]);
	}
	tc_json_emit_items(e, it.first[st->nb], occ_item, &it);
	for (i = 0; i < st->nb; i++)
		tc_json_fragment_free(&it.common[i]);
	free(it.common);
	free(it.first);
	return true;
}

int
tc_analysis__structural(struct an_baseline_job *job,
    const char *baseline_csv, const char *bhex, const tc_json *manifest,
    const char *manifest_path, const char *candidate_csv,
    struct an_structural *out, tc_error *err)
{
	struct an_baseline *base = NULL;
	struct an_sk_row *rows = NULL;
	struct target *t = NULL;
	size_t nrows = 0, nt = 0, i, j, nbound = 0, nblocked = 0;
	char *root = NULL;
	const tc_json *pid = tc_json_get(tc_json_get(manifest, "producer"),
	    "native_pid");
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->mapping_fps = tc_json_new_object();
	out->exclusions = tc_json_new_object();
	out->occurrences = tc_json_new_null();
	out->occ_ph = out->occurrences;
	out->graph_fps = tc_json_new_object();
	out->stream_roles = tc_json_new_object();
	out->proofs = tc_json_new_object();
	if (pid != NULL)
		out->native_pid = tc_json_clone(pid);
	/* the candidate's rows while the job may still read the baseline's */
	rc = tc_analysis__candidate_sk_rows(candidate_csv, &rows, &nrows, err);
	base = tc_analysis__baseline_join(job, rc == 0 ? baseline_csv : NULL);
	if (rc != 0)
		goto done;
	rc = -1;
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < nt; j++)
			if (t[j].device == rows[i].device &&
			    t[j].model == rows[i].model)
				break;
		if (j < nt)
			continue;
		t = tc_xrealloc(t, (nt + 1) * sizeof(*t));
		t[nt].device = rows[i].device;
		t[nt++].model = rows[i].model;
	}
	if (nt == 0) {
		tc_error_set(err, "candidate kernel projection has no "
		    "SuperKernel rows");
		goto done;
	}
	qsort(t, nt, sizeof(*t), cmp_target);
	root = tc_path_dirname(manifest_path);
	out->traces = tc_xcalloc(nt + 1, sizeof(*out->traces));
	for (i = 0; i < nt; i++) {
		struct an_trace *tr = &out->traces[out->ntraces];
		char key[64];

		if (tc_analysis__projection_trace(base, bhex, manifest,
		    root, t[i].device, t[i].model, rows, nrows, tr, err) != 0)
			goto done;
		out->ntraces++;
		snprintf(key, sizeof(key), "device:%lld/model:%lld",
		    (long long)t[i].device, (long long)t[i].model);
		tc_json_object_set(out->mapping_fps, key, tc_json_clone(
		    tc_json_get(tr->doc, "mapping_fingerprint")));
		tc_json_object_set(out->exclusions, key, tc_json_clone(
		    tc_json_get(tr->doc, "projection_exclusions")));
	}
	/* every mapping is borrowed from its trace, which no longer changes;
	 * the candidate rows the traces point to are read here, last */
	for (i = 0; i < out->ntraces; i++)
		for (j = 0; j < out->traces[i].nmaps; j++)
			record_mapping(out, &out->traces[i],
			    &out->traces[i].maps[j], bhex);
	parent_intervals(out);
	for (i = 0; i < out->ntraces; i++)
		for (j = 0; j < out->traces[i].nmaps; j++) {
			free(out->traces[i].maps[j].cocc);
			out->traces[i].maps[j].cocc = NULL;
			out->traces[i].maps[j].ncocc = 0;
		}
	if (out->nshared > 1)
		qsort(out->shared, out->nshared, sizeof(*out->shared),
		    cmp_shared);
	for (i = 0; i < out->nb; i++) {
		if (out->b[i].valid)
			nbound += out->b[i].nocc;
		else
			nblocked += out->b[i].nocc;
	}
	{
		tc_json *sc = tc_json_new_object();

		out->summary = tc_json_new_object();
		tc_json_object_set_string(out->summary, "protocol",
		    "kernel_projection_trace_v2");
		tc_json_object_set_int(out->summary, "parent_occurrences",
		    (int64_t)(nbound + nblocked));
		if (nblocked > 0)
			tc_json_object_set_int(sc, "blocked", (int64_t)nblocked);
		if (nbound > 0)
			tc_json_object_set_int(sc, "bound", (int64_t)nbound);
		tc_json_object_set(out->summary, "status_counts", sc);
	}
	rc = 0;
done:
	tc_analysis__baseline_free(base);
	free(root);
	free(t);
	tc_analysis__sk_rows_free(rows, nrows);
	if (rc != 0)
		tc_analysis__structural_free(out);
	return rc;
}

void
tc_analysis__structural_free(struct an_structural *s)
{
	size_t i, k;

	for (i = 0; i < s->ntraces; i++)
		tc_analysis__trace_free(&s->traces[i]);
	free(s->traces);
	for (i = 0; i < s->nb; i++) {
		for (k = 0; k < s->b[i].nocc; k++) {
			free(s->b[i].occ[k].ns_text[0]);
			free(s->b[i].occ[k].ns_text[1]);
		}
		free(s->b[i].occ);
		tc_json_free(s->b[i].evidence_fps);
	}
	free(s->b);
	tc_json_free(s->native_pid);
	tc_json_free(s->mapping_fps);
	tc_json_free(s->exclusions);
	tc_json_free(s->occurrences);
	tc_json_free(s->summary);
	tc_json_free(s->graph_fps);
	tc_json_free(s->stream_roles);
	tc_json_free(s->proofs);
	free(s->shared);
	memset(s, 0, sizeof(*s));
}

const struct an_binding *
tc_analysis__binding(const struct an_structural *s, an_num device,
    const char *model, an_num raw_sk_id)
{
	const char *p;
	int64_t m;
	size_t i;

	if (s == NULL || !device.ok || !raw_sk_id.ok || model == NULL ||
	    *model == '\0')
		return NULL;
	for (p = model; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return NULL;
	m = strtoll(model, NULL, 10);
	for (i = 0; i < s->nb; i++)
		if ((double)s->b[i].device == device.v && s->b[i].model == m &&
		    (double)s->b[i].sk == raw_sk_id.v)
			return &s->b[i];
	return NULL;
}

/* The statistics object of one field of the baseline occurrences. */
static tc_json *
occ_stats(const struct an_tmap *tm, size_t field, struct an_stats *out)
{
	size_t n = tm->nbocc, i;
	double *v = tc_xmalloc((n + 1) * sizeof(*v));
	tc_json *j;

	for (i = 0; i < n; i++)
		v[i] = field == 0 ? tm->bocc[i].interval_us : field == 1 ?
		    tm->bocc[i].duration_sum_us : tm->bocc[i].union_us;
	if (!tc_analysis__robust_stats(v, n, true, out)) {
		free(v);
		return tc_json_new_null();
	}
	j = tc_analysis__stats_json(out);
	free(v);
	return j;
}

tc_json *
tc_analysis__binding_original(const struct an_binding *b, struct an_stats *iv,
    struct an_stats *ds)
{
	const struct an_tmap *tm;
	tc_json *o, *ex, *ms, *ids;
	struct an_stats un;
	size_t i, j, n = 0;
	int64_t *streams = NULL;

	if (b == NULL || !b->valid)
		return NULL;
	tm = b->tm;
	if (tm->nbocc == 0)
		return NULL;
	o = tc_json_new_object();
	tc_json_object_set_int(o, "occurrence_count", (int64_t)tm->nbocc);
	tc_json_object_set(o, "interval_us", occ_stats(tm, 0, iv));
	tc_json_object_set(o, "duration_sum_us", occ_stats(tm, 1, ds));
	tc_json_object_set(o, "union_duration_us", occ_stats(tm, 2, &un));
	tc_json_object_set(o, "max_scalar_ratio", tc_json_new_float(0.0));
	/* the first occurrence's streams, ascending and distinct */
	for (i = 0; i < tm->nfirst; i++) {
		int64_t s = tm->first_streams[i];

		for (j = 0; j < n && streams[j] < s; j++)
			;
		if (j < n && streams[j] == s)
			continue;
		streams = tc_xrealloc(streams, (n + 1) * sizeof(*streams));
		memmove(streams + j + 1, streams + j, (n - j) *
		    sizeof(*streams));
		streams[j] = s;
		n++;
	}
	ex = tc_json_new_object();
	ids = tc_json_new_array();
	for (i = 0; i < n; i++)
		tc_json_array_push(ids, tc_json_new_int(streams[i]));
	if (n == 0)
		tc_json_array_push(ids, tc_json_new_string(
		    "projected_stream_role"));
	tc_json_object_set(ex, "stream_ids", ids);
	tc_json_object_set_int(ex, "stream_count", n > 0 ? (int64_t)n : 1);
	ms = tc_json_new_object();
	tc_json_object_set_bool(ms, "multi_stream_detected", n > 1);
	tc_json_object_set_null(ms, "cube_vector_parallel_detected");
	tc_json_object_set_null(ms, "cube_vector_overlap_us");
	tc_json_object_set_null(ms, "cube_vector_overlap_ratio");
	tc_json_object_set_null(ms, "mix_competition_overlap_us");
	tc_json_object_set_null(ms, "same_resource_overlap_us");
	tc_json_object_set(ex, "multi_stream_analysis", ms);
	tc_json_object_set(o, "example_occurrence", ex);
	free(streams);
	return o;
}
