/*
 * structural.c - the structural association of an analysis: one kernel
 * projection per (device, model) of the candidate's SK rows, and from
 * those traces what the analysis document records (the binding evidence
 * of every candidate occurrence, the alignment proofs, stream roles and
 * graph fingerprints per SK) and what a per-SK decision reads (its
 * binding and the baseline statistics of its projected children).
 */
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
 * int(us * 1000) of a Decimal, truncated toward zero, as a JSON integer:
 * the product rounded to the context's 28 digits first, as Python's
 * Decimal multiplies; beyond int64 it is written as its digits.
 */
static tc_json *
nanos(const tc_dec *us)
{
	tc_dec k, r;
	mpz_t q, p;
	tc_json *v;

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
	if (mpz_fits_slong_p(q)) {
		v = tc_json_new_int((int64_t)mpz_get_si(q));
	} else {
		char *text = mpz_get_str(NULL, 10, q);

		v = tc_json_new_int_text(text);
		free(text);
	}
	mpz_clear(q);
	mpz_clear(p);
	tc_dec_clear(&k);
	tc_dec_clear(&r);
	return v;
}

static tc_json *
parent_interval(const tc_json *occ)
{
	const char *start = tc_json_get_string(occ, "start_us");
	double dur = 0;
	tc_dec s, d, e;
	tc_json *l = tc_json_new_array();

	tc_json_number(tc_json_get(occ, "duration_us"), &dur);
	tc_dec_init(&s);
	tc_dec_init(&d);
	tc_dec_init(&e);
	tc_dec_parse(&s, start, strlen(start));
	tc_dec_from_double_repr(&d, dur);
	tc_dec_add(&e, &s, &d);
	/* Decimal addition rounds to the context too */
	tc_dec_round_context(&e);
	tc_json_array_push(l, nanos(&s));
	tc_json_array_push(l, nanos(&e));
	tc_dec_clear(&s);
	tc_dec_clear(&d);
	tc_dec_clear(&e);
	return l;
}

/* The record of one mapping: its binding and evidence objects. */
static void
record_mapping(struct an_structural *st, const tc_json *trace,
    const tc_json *m, const char *bhex, const tc_json *pid)
{
	const tc_json *ev = tc_json_get(trace, "evidence");
	const char *mfp = tc_json_get_string(trace, "mapping_fingerprint");
	const tc_json *cocc = tc_json_get(m, "candidate_occurrences");
	bool exact = strcmp(tc_json_get_string(m, "status"), "exact") == 0;
	struct an_binding *b;
	tc_json *go, *proof, *efp;
	char key[96];
	size_t i;

	st->b = tc_xrealloc(st->b, (st->nb + 1) * sizeof(*st->b));
	b = &st->b[st->nb++];
	memset(b, 0, sizeof(*b));
	tc_json_int64(tc_json_get(m, "device_id"), &b->device);
	tc_json_int64(tc_json_get(m, "model_id"), &b->model);
	tc_json_int64(tc_json_get(m, "sk_id"), &b->sk);
	b->valid = exact;
	b->mapping = m;
	b->mapping_fp = mfp;
	/*
	 * The candidate binding is the first occurrence's; an SK with none
	 * (a step alignment blocked every mapping) still has one, blocked,
	 * with no children: the decision's child_count is then 0.
	 */
	b->status = exact && cocc->u.arr.len > 0 ? "bound" : "blocked";
	if (cocc->u.arr.len > 0)
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
	    tc_json_clone(tc_json_get(trace,
	    "alternative_solution_count_by_step")));
	tc_json_object_set(st->proofs, key, proof);
	tc_json_object_set(st->stream_roles, key, tc_json_clone(
	    tc_json_get(trace, "stream_role_mapping")));
	tc_json_object_set(st->graph_fps, key, tc_json_clone(ev));
	efp = tc_json_new_object();
	tc_json_object_set_string(efp, "kernel_details", bhex);
	tc_json_object_set_string(efp, "projection_mapping", mfp);
	tc_json_object_set(efp, "profile_sk_graph_origin", tc_json_clone(
	    tc_json_get(ev, "profile_origin_graph_fingerprint")));
	for (i = 0; i < cocc->u.arr.len; i++) {
		const tc_json *c = cocc->u.arr.items[i];
		tc_json *o = tc_json_new_object(), *pi = tc_json_new_object();

		tc_json_object_set_string(o, "status", exact ? "bound" :
		    "blocked");
		tc_json_object_set(pi, "native_pid", pid ? tc_json_clone(pid) :
		    tc_json_new_null());
		tc_json_object_set_int(pi, "device_id", b->device);
		tc_json_object_set_int(pi, "model_id", b->model);
		tc_json_object_set_int(pi, "sk_id", b->sk);
		tc_json_object_set(o, "process_identity", pi);
		tc_json_object_set(o, "step_id", tc_json_clone(tc_json_get(c,
		    "step_id")));
		tc_json_object_set(o, "parent_interval_ns", parent_interval(c));
		tc_json_object_set(o, "ordered_child_node_keys", tc_json_clone(
		    tc_json_get(m, "ordered_child_node_keys")));
		tc_json_object_set(o, "ordered_child_ops", tc_json_clone(
		    tc_json_get(m, "ordered_child_ops")));
		tc_json_object_set(o, "child_count", tc_json_clone(
		    tc_json_get(m, "child_count")));
		tc_json_object_set(o, "evidence_fingerprints",
		    tc_json_clone(efp));
		tc_json_object_set(o, "blockers", tc_json_clone(tc_json_get(m,
		    "mapping_blockers")));
		tc_json_array_push(st->occurrences, o);
	}
	tc_json_free(efp);
}

/*
 * Once its fingerprint is taken, a trace is only read: the decisions
 * need each baseline occurrence's interval and durations but the
 * children of the first occurrence only (tc_analysis__binding_original).
 * The rest of the children (per SK and step, eleven fields each: most of
 * the trace) are freed here, not kept to the end of the run.
 */
static void
prune_trace(tc_json *trace)
{
	const tc_json *ms = tc_json_get(trace, "mappings");
	size_t i, k;

	for (i = 0; ms != NULL && i < ms->u.arr.len; i++) {
		const tc_json *bocc = tc_json_get(ms->u.arr.items[i],
		    "baseline_occurrences");

		for (k = 1; bocc != NULL && k < bocc->u.arr.len; k++)
			tc_json_object_remove(bocc->u.arr.items[k],
			    "children");
	}
}

int
tc_analysis__structural(const char *baseline_csv, const char *bhex,
    const tc_json *manifest, const char *manifest_path,
    const char *candidate_csv, struct an_structural *out, tc_error *err)
{
	struct an_sk_row *rows = NULL;
	struct target *t = NULL;
	size_t nrows = 0, nt = 0, i, j;
	char *root = NULL;
	const tc_json *pid = tc_json_get(tc_json_get(manifest, "producer"),
	    "native_pid");
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->mapping_fps = tc_json_new_object();
	out->exclusions = tc_json_new_object();
	out->occurrences = tc_json_new_array();
	out->graph_fps = tc_json_new_object();
	out->stream_roles = tc_json_new_object();
	out->proofs = tc_json_new_object();
	if (tc_analysis__candidate_sk_rows(candidate_csv, &rows, &nrows,
	    err) != 0)
		goto done;
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
		tc_json *tr = tc_analysis__projection_trace(baseline_csv, bhex,
		    manifest, root, t[i].device, t[i].model, rows, nrows, err);
		char key[64];

		if (tr == NULL)
			goto done;
		prune_trace(tr);
		out->traces[out->ntraces++] = tr;
		snprintf(key, sizeof(key), "device:%lld/model:%lld",
		    (long long)t[i].device, (long long)t[i].model);
		tc_json_object_set(out->mapping_fps, key, tc_json_clone(
		    tc_json_get(tr, "mapping_fingerprint")));
		tc_json_object_set(out->exclusions, key, tc_json_clone(
		    tc_json_get(tr, "projection_exclusions")));
	}
	/* every mapping is borrowed from its trace, which no longer changes
	 * (but for the children prune_trace took) */
	for (i = 0; i < out->ntraces; i++) {
		const tc_json *ms = tc_json_get(out->traces[i], "mappings");

		for (j = 0; j < ms->u.arr.len; j++)
			record_mapping(out, out->traces[i], ms->u.arr.items[j],
			    bhex, pid);
	}
	{
		tc_json *sc = tc_json_new_object();
		size_t nbound = 0, nblocked = 0;

		out->summary = tc_json_new_object();
		tc_json_object_set_string(out->summary, "protocol",
		    "kernel_projection_trace_v2");
		tc_json_object_set_int(out->summary, "parent_occurrences",
		    (int64_t)out->occurrences->u.arr.len);
		for (i = 0; i < out->occurrences->u.arr.len; i++) {
			if (strcmp(tc_json_get_string(
			    out->occurrences->u.arr.items[i], "status"),
			    "bound") == 0)
				nbound++;
			else
				nblocked++;
		}
		if (nblocked > 0)
			tc_json_object_set_int(sc, "blocked", (int64_t)nblocked);
		if (nbound > 0)
			tc_json_object_set_int(sc, "bound", (int64_t)nbound);
		tc_json_object_set(out->summary, "status_counts", sc);
	}
	rc = 0;
done:
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
	size_t i;

	for (i = 0; i < s->ntraces; i++)
		tc_json_free(s->traces[i]);
	free(s->traces);
	free(s->b);
	tc_json_free(s->mapping_fps);
	tc_json_free(s->exclusions);
	tc_json_free(s->occurrences);
	tc_json_free(s->summary);
	tc_json_free(s->graph_fps);
	tc_json_free(s->stream_roles);
	tc_json_free(s->proofs);
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

/* The statistics object of one key of the baseline occurrences. */
static tc_json *
occ_stats(const tc_json *occ, const char *key, struct an_stats *out)
{
	size_t n = occ->u.arr.len, i;
	double *v = tc_xmalloc((n + 1) * sizeof(*v));
	tc_json *j;

	for (i = 0; i < n; i++)
		tc_json_number(tc_json_get(occ->u.arr.items[i], key), &v[i]);
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
	const tc_json *occ;
	tc_json *o, *ex, *ms, *ids;
	struct an_stats un;
	size_t i, j, n = 0;
	int64_t *streams = NULL;

	if (b == NULL || !b->valid)
		return NULL;
	occ = tc_json_get(b->mapping, "baseline_occurrences");
	if (occ == NULL || occ->u.arr.len == 0)
		return NULL;
	o = tc_json_new_object();
	tc_json_object_set_int(o, "occurrence_count",
	    (int64_t)occ->u.arr.len);
	tc_json_object_set(o, "interval_us", occ_stats(occ, "interval_us", iv));
	tc_json_object_set(o, "duration_sum_us", occ_stats(occ,
	    "duration_sum_us", ds));
	tc_json_object_set(o, "union_duration_us", occ_stats(occ,
	    "union_duration_us", &un));
	tc_json_object_set(o, "max_scalar_ratio", tc_json_new_float(0.0));
	{
		const tc_json *ch = tc_json_get(occ->u.arr.items[0], "children");

		for (i = 0; ch != NULL && i < ch->u.arr.len; i++) {
			int64_t s = 0;

			tc_json_int64(tc_json_get(ch->u.arr.items[i],
			    "baseline_stream_id"), &s);
			for (j = 0; j < n && streams[j] < s; j++)
				;
			if (j < n && streams[j] == s)
				continue;
			streams = tc_xrealloc(streams, (n + 1) *
			    sizeof(*streams));
			memmove(streams + j + 1, streams + j, (n - j) *
			    sizeof(*streams));
			streams[j] = s;
			n++;
		}
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
