/*
 * stats.c - the analyzer's arithmetic: finite-or-None sums and ratios,
 * robust statistics (median, linear-interpolated p90, MAD, and the mean on
 * request), the classification of an SK against its SK-off baseline, the
 * multi-stream overlap analysis of a set of timed events, and the
 * most-common counters of its reports.  Every operation is the
 * reference's, in the reference's order, on IEEE doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

an_num
tc_analysis__fin(double x)
{
	return isfinite(x) ? AN_NUM(x) : AN_NONE;
}

an_num
tc_analysis__sum2(an_num a, an_num b)
{
	if (!a.ok || !b.ok)
		return AN_NONE;
	return tc_analysis__fin(a.v + b.v);
}

an_num
tc_analysis__diff(an_num a, an_num b)
{
	if (!a.ok || !b.ok)
		return AN_NONE;
	return tc_analysis__fin(a.v - b.v);
}

an_num
tc_analysis__ratio(an_num num, an_num den)
{
	if (!num.ok || !den.ok || den.v == 0)
		return AN_NONE;
	return tc_analysis__fin(num.v / den.v);
}

an_num
tc_analysis__pct(an_num num, an_num den)
{
	an_num r = tc_analysis__ratio(num, den);

	return r.ok ? tc_analysis__fin(r.v * 100) : AN_NONE;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The finite v[0..n) in ascending order, equal values (0.0 and -0.0 are
 * equal) keeping their order: what a stable sort with cmp_double gives,
 * as a least-significant-byte-first radix sort of order-preserving keys
 * (a pass is skipped where every key has the same byte).
 */
void
tc_analysis__sort_finite(double *v, size_t n)
{
	uint64_t *k, *kt;
	double *vt;
	size_t count[256], i, b;
	unsigned shift;

	if (n < 2)
		return;
	k = tc_xmalloc(2 * n * sizeof(*k));
	kt = k + n;
	vt = tc_xmalloc(n * sizeof(*vt));
	for (i = 0; i < n; i++) {
		uint64_t bits;
		double x = v[i] == 0 ? 0.0 : v[i];	/* -0.0 sorts as 0.0 */

		memcpy(&bits, &x, sizeof(bits));
		k[i] = bits >> 63 ? ~bits : bits | (uint64_t)1 << 63;
	}
	for (shift = 0; shift < 64; shift += 8) {
		size_t at = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(k[i] >> shift) & 0xff]++;
		if (count[(k[0] >> shift) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (i = 0; i < n; i++) {
			size_t to = count[(k[i] >> shift) & 0xff]++;

			kt[to] = k[i];
			vt[to] = v[i];
		}
		memcpy(k, kt, n * sizeof(*k));
		memcpy(v, vt, n * sizeof(*v));
	}
	free(k);
	free(vt);
}

/* statistics.median of sorted v[0..n), n > 0 */
static double
median_sorted(const double *v, size_t n)
{
	if (n % 2 == 1)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool
tc_analysis__robust_stats(const double *v, size_t n, bool with_mean,
    struct an_stats *out)
{
	double *s = tc_xmalloc((n ? n : 1) * sizeof(*s)), *dev;
	size_t k = 0, i, nd = 0;
	double total = 0, pos, frac;
	bool total_ok = true;
	size_t lo, hi;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		s[k++] = v[i];
		total += v[i];
	}
	if (k == 0) {
		free(s);
		return false;
	}
	total_ok = isfinite(total);
	tc_analysis__sort_finite(s, k);
	out->count = k;
	out->p50 = tc_analysis__fin(median_sorted(s, k));
	if (k == 1) {
		out->p90 = AN_NUM(s[0]);
	} else {
		pos = (double)(k - 1) * 0.9;
		lo = (size_t)pos;
		hi = lo + 1 < k ? lo + 1 : k - 1;
		frac = pos - (double)lo;
		out->p90 = tc_analysis__fin(s[lo] + (s[hi] - s[lo]) * frac);
	}
	out->mad = AN_NONE;
	if (out->p50.ok) {
		dev = tc_xmalloc(k * sizeof(*dev));
		for (i = 0; i < k; i++) {
			an_num d = tc_analysis__fin(s[i] - out->p50.v);

			if (d.ok)
				dev[nd++] = fabs(d.v);
		}
		if (nd == k) {
			tc_analysis__sort_finite(dev, nd);
			out->mad = tc_analysis__fin(median_sorted(dev, nd));
		}
		free(dev);
	}
	out->min = s[0];
	out->max = s[k - 1];
	out->has_mean = with_mean;
	out->mean = total_ok ? tc_analysis__fin(total / (double)k) : AN_NONE;
	free(s);
	return true;
}

tc_json *
tc_analysis__stats_json(const struct an_stats *s)
{
	tc_json *o = tc_json_new_object();

	tc_json_object_set_int(o, "count", (int64_t)s->count);
	tc_json_object_set(o, "p50", tc_analysis__json_float(s->p50));
	tc_json_object_set(o, "p90", tc_analysis__json_float(s->p90));
	tc_json_object_set(o, "mad", tc_analysis__json_float(s->mad));
	tc_json_object_set(o, "min", tc_json_new_float(s->min));
	tc_json_object_set(o, "max", tc_json_new_float(s->max));
	if (s->has_mean)
		tc_json_object_set(o, "mean", tc_analysis__json_float(s->mean));
	return o;
}

static void
insufficient(struct an_classification *out, tc_json *errors)
{
	out->classification = "insufficient_evidence";
	out->classification_zh = "证据不足";
	out->noise_pct = out->improvement_us = out->improvement_pct = AN_NONE;
	out->errors = errors;
}

static tc_json *
dedupe(tc_json *list)
{
	tc_json *d = tc_json_new_array();
	size_t i;

	for (i = 0; i < list->u.arr.len; i++)
		tc_analysis__list_add_unique(d, tc_json_string(list->u.arr.items[i]));
	tc_json_free(list);
	return d;
}

static bool
usable(an_num x)
{
	return x.ok && isfinite(x.v);
}

void
tc_analysis__classify(const struct an_stats *b, const struct an_stats *c,
    const struct tc_analysis_thresholds *t, const tc_json *evidence_errors,
    struct an_classification *out)
{
	tc_json *errors = evidence_errors != NULL ?
	    tc_json_clone(evidence_errors) : tc_json_new_array();
	size_t req = (size_t)(t->min_occurrences > TC_ANALYSIS_HARD_MIN_OCCURRENCES ?
	    t->min_occurrences : TC_ANALYSIS_HARD_MIN_OCCURRENCES);
	double rel = t->min_relative_change_pct, abs_us = t->min_absolute_change_us;
	an_num bn, cn, imp_us, imp_pct;
	double noise;
	int k;

	memset(out, 0, sizeof(*out));
	if (b == NULL)
		tc_json_array_push(errors,
		    tc_json_new_string("baseline_statistics_missing"));
	if (c == NULL)
		tc_json_array_push(errors,
		    tc_json_new_string("candidate_statistics_missing"));
	if (b != NULL && c != NULL && (b->count < req || c->count < req))
		tc_json_array_push(errors,
		    tc_json_new_string("insufficient_occurrences"));
	if (errors->u.arr.len > 0) {
		insufficient(out, errors);
		return;
	}
	if (!usable(b->p50) || !usable(b->mad) || !usable(c->p50) ||
	    !usable(c->mad) || !isfinite(rel) || !isfinite(abs_us) ||
	    b->p50.v == 0 || c->p50.v == 0) {
		tc_json_array_push(errors,
		    tc_json_new_string("non_finite_performance_statistics"));
		insufficient(out, errors);
		return;
	}
	for (k = 0; k < 2; k++) {
		const struct an_stats *s = k == 0 ? b : c;
		double tail, rep, x;

		if (s->count != TC_ANALYSIS_HARD_MIN_OCCURRENCES)
			continue;
		tail = s->p50.v - s->min;
		if ((x = s->max - s->p50.v) > tail)
			tail = x;
		rep = 3 * s->mad.v;
		if ((x = fabs(s->p50.v) * rel / 100) > rep)
			rep = x;
		if (abs_us > rep)
			rep = abs_us;
		if (tail > rep) {
			tc_json_array_push(errors, tc_json_new_string(
			    "minimum_sample_unrepresented_tail"));
			tc_json_array_push(errors, tc_json_new_string(k == 0 ?
			    "baseline_minimum_sample_unrepresented_tail" :
			    "candidate_minimum_sample_unrepresented_tail"));
		}
	}
	if (errors->u.arr.len > 0) {
		insufficient(out, dedupe(errors));
		return;
	}
	bn = tc_analysis__pct(b->mad, b->p50);
	cn = tc_analysis__pct(c->mad, c->p50);
	bn = bn.ok ? tc_analysis__fin(bn.v * 2) : AN_NONE;
	cn = cn.ok ? tc_analysis__fin(cn.v * 2) : AN_NONE;
	imp_us = tc_analysis__diff(b->p50, c->p50);
	imp_pct = tc_analysis__pct(imp_us, b->p50);
	if (!bn.ok || !cn.ok || !imp_us.ok || !imp_pct.ok) {
		tc_json_array_push(errors,
		    tc_json_new_string("non_finite_derived_statistics"));
		insufficient(out, errors);
		return;
	}
	noise = rel;
	if (bn.v > noise)
		noise = bn.v;
	if (cn.v > noise)
		noise = cn.v;
	if (imp_us.v >= abs_us && imp_pct.v >= noise) {
		out->classification = "beneficial";
		out->classification_zh = "明确有性能收益";
	} else if (imp_us.v <= -abs_us && imp_pct.v <= -noise) {
		out->classification = "regressed";
		out->classification_zh = "明确性能劣化";
	} else {
		out->classification = "neutral";
		out->classification_zh = "无明确性能收益";
	}
	out->noise_pct = AN_NUM(noise);
	out->improvement_us = imp_us;
	out->improvement_pct = imp_pct;
	out->errors = errors;
}

/* ---- intervals and overlap ----------------------------------------------- */

struct span {
	double s, e;
};

static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

/* _merge_intervals: sorted, empty ones dropped, touching ones merged. */
static size_t
merge(struct span *v, size_t n)
{
	size_t i, k = 0, m = 0;

	for (i = 0; i < n; i++)
		if (v[i].e > v[i].s)
			v[k++] = v[i];
	qsort(v, k, sizeof(*v), cmp_span);
	for (i = 0; i < k; i++) {
		if (m == 0 || v[i].s > v[m - 1].e)
			v[m++] = v[i];
		else if (v[i].e > v[m - 1].e)
			v[m - 1].e = v[i].e;
	}
	return m;
}

an_num
tc_analysis__interval_union(const struct an_event *ev, size_t n)
{
	struct span *v = tc_xmalloc((n ? n : 1) * sizeof(*v));
	size_t i, m;
	an_num total = AN_NUM(0);

	for (i = 0; i < n; i++) {
		if (!ev[i].end.ok || !isfinite(ev[i].start)) {
			free(v);
			return AN_NONE;
		}
		v[i].s = ev[i].start;
		v[i].e = ev[i].end.v;
	}
	m = merge(v, n);
	for (i = 0; i < m && total.ok; i++)
		total = tc_analysis__sum2(total, tc_analysis__fin(v[i].e - v[i].s));
	free(v);
	return total;
}

/* _intersection_duration of two interval lists (copied, then merged). */
static an_num
intersection(const struct span *a, size_t na, const struct span *b,
    size_t nb)
{
	struct span *l = tc_xmalloc((na ? na : 1) * sizeof(*l));
	struct span *r = tc_xmalloc((nb ? nb : 1) * sizeof(*r));
	size_t i = 0, j = 0, ml, mr;
	an_num total = AN_NUM(0.0);

	memcpy(l, a, na * sizeof(*l));
	memcpy(r, b, nb * sizeof(*r));
	ml = merge(l, na);
	mr = merge(r, nb);
	while (i < ml && j < mr) {
		double s = l[i].s > r[j].s ? l[i].s : r[j].s;
		double e = l[i].e < r[j].e ? l[i].e : r[j].e;

		if (e > s) {
			total = tc_analysis__sum2(total, tc_analysis__fin(e - s));
			if (!total.ok)
				break;
		}
		if (l[i].e <= r[j].e)
			i++;
		else
			j++;
	}
	free(l);
	free(r);
	return total;
}

struct bucket {
	double stream;
	enum an_family family;
	struct span *v;
	size_t n;
};

struct pair_total {
	char name[32];
	double total;
};

struct record {
	double l, r, overlap;
	enum an_family lf, rf;
};

static int
cmp_stream(const void *a, const void *b)
{
	return cmp_double(a, b);
}

static struct bucket *
bucket_of(struct bucket **bk, size_t *nb, double stream, enum an_family f)
{
	size_t i;

	for (i = 0; i < *nb; i++)
		if ((*bk)[i].stream == stream && (*bk)[i].family == f)
			return &(*bk)[i];
	*bk = tc_xrealloc(*bk, (*nb + 1) * sizeof(**bk));
	memset(&(*bk)[*nb], 0, sizeof(**bk));
	(*bk)[*nb].stream = stream;
	(*bk)[*nb].family = f;
	return &(*bk)[(*nb)++];
}

/* Stable selection order for "sorted by overlap, descending". */
static void
sort_desc_stable(size_t *idx, size_t n, const double *key)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		size_t x = idx[i];

		for (j = i; j > 0 && key[idx[j - 1]] < key[x]; j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
}

static double
pair_get(const struct pair_total *p, size_t n, const char *name, bool *found)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(p[i].name, name) == 0) {
			*found = true;
			return p[i].total;
		}
	*found = false;
	return 0.0;
}

tc_json *
tc_analysis__core_overlap(const struct an_event *ev, size_t n, size_t limit)
{
	struct bucket *bk = NULL;
	size_t nb = 0, ns = 0, i, j, nr = 0, np = 0;
	double *streams = NULL, *keys;
	struct record *rec = NULL;
	struct pair_total *pairs = NULL;
	size_t *idx;
	double cv, same = 0;
	an_num mix = AN_NUM(0), same_n, device_union, ratio;
	bool mix_int = true, found;
	int lf, rf;
	tc_json *o, *list;
	const char *strategy;

	for (i = 0; i < n; i++) {
		struct bucket *b;

		if (!ev[i].stream.ok || !ev[i].end.ok)
			continue;
		b = bucket_of(&bk, &nb, ev[i].stream.v, ev[i].family);
		b->v = tc_xrealloc(b->v, (b->n + 1) * sizeof(*b->v));
		b->v[b->n].s = ev[i].start;
		b->v[b->n].e = ev[i].end.v;
		b->n++;
	}
	for (i = 0; i < nb; i++) {
		for (j = 0; j < ns; j++)
			if (streams[j] == bk[i].stream)
				break;
		if (j == ns) {
			streams = tc_xrealloc(streams, (ns + 1) *
			    sizeof(*streams));
			streams[ns++] = bk[i].stream;
		}
	}
	if (ns > 1)
		qsort(streams, ns, sizeof(*streams), cmp_stream);
	for (i = 0; i < ns; i++) {
		for (j = i + 1; j < ns; j++) {
			for (lf = 0; lf < AN_NFAMILY; lf++) {
				struct bucket *lb = NULL, *rb;
				size_t q;

				for (q = 0; q < nb; q++)
					if (bk[q].stream == streams[i] &&
					    bk[q].family == (enum an_family)lf)
						lb = &bk[q];
				if (lb == NULL)
					continue;
				for (rf = 0; rf < AN_NFAMILY; rf++) {
					an_num ov, tot;
					char name[32];
					const char *a = tc_analysis__family_names[lf];
					const char *b = tc_analysis__family_names[rf];

					rb = NULL;
					for (q = 0; q < nb; q++)
						if (bk[q].stream == streams[j] &&
						    bk[q].family ==
						    (enum an_family)rf)
							rb = &bk[q];
					if (rb == NULL)
						continue;
					ov = intersection(lb->v, lb->n, rb->v,
					    rb->n);
					if (!ov.ok || ov.v <= 0)
						continue;
					if (strcmp(a, b) > 0) {
						const char *t = a;

						a = b;
						b = t;
					}
					snprintf(name, sizeof(name), "%s+%s", a,
					    b);
					tot = tc_analysis__sum2(AN_NUM(pair_get(pairs, np,
					    name, &found)), ov);
					if (!tot.ok)
						continue;
					if (!found) {
						pairs = tc_xrealloc(pairs,
						    (np + 1) * sizeof(*pairs));
						strcpy(pairs[np].name, name);
						np++;
					}
					for (q = 0; q < np; q++)
						if (strcmp(pairs[q].name, name)
						    == 0)
							pairs[q].total = tot.v;
					rec = tc_xrealloc(rec, (nr + 1) *
					    sizeof(*rec));
					rec[nr].l = streams[i];
					rec[nr].r = streams[j];
					rec[nr].lf = (enum an_family)lf;
					rec[nr].rf = (enum an_family)rf;
					rec[nr].overlap = ov.v;
					nr++;
				}
			}
		}
	}
	cv = pair_get(pairs, np, "CUBE+VECTOR", &found);
	for (i = 0; i < np; i++) {
		if (strstr(pairs[i].name, "MIX") == NULL ||
		    strcmp(pairs[i].name, "MIX+MIX") == 0)
			continue;
		mix = tc_analysis__sum2(mix, AN_NUM(pairs[i].total));
		mix_int = false;
	}
	same = pair_get(pairs, np, "CUBE+CUBE", &found);
	same_n = tc_analysis__sum2(AN_NUM(same), AN_NUM(pair_get(pairs, np,
	    "VECTOR+VECTOR", &found)));
	same_n = tc_analysis__sum2(same_n, AN_NUM(pair_get(pairs, np, "MIX+MIX",
	    &found)));
	device_union = tc_analysis__interval_union(ev, n);
	ratio = tc_analysis__ratio(AN_NUM(cv), device_union);
	if (cv > 0)
		strategy = "preserve_cube_vector_parallelism";
	else if ((mix.ok && mix.v > 0) || (same_n.ok && same_n.v > 0))
		strategy = "split_competing_resource_regions";
	else
		strategy = "single_stream_or_no_useful_overlap";

	o = tc_json_new_object();
	tc_json_object_set_bool(o, "multi_stream_detected", ns > 1);
	tc_json_object_set_bool(o, "cube_vector_parallel_detected", cv > 0);
	tc_json_object_set(o, "cube_vector_overlap_us", tc_json_new_float(cv));
	tc_json_object_set(o, "cube_vector_overlap_ratio", tc_analysis__json_float(ratio));
	tc_json_object_set(o, "mix_competition_overlap_us", !mix.ok ?
	    tc_json_new_null() : mix_int ? tc_json_new_int(0) :
	    tc_json_new_float(mix.v));
	tc_json_object_set(o, "same_resource_overlap_us", tc_analysis__json_float(same_n));
	/* family totals, most common first (ties in first-seen order) */
	idx = tc_xmalloc((np + nr + 1) * sizeof(*idx));
	keys = tc_xmalloc((np + nr + 1) * sizeof(*keys));
	for (i = 0; i < np; i++) {
		idx[i] = i;
		keys[i] = pairs[i].total;
	}
	sort_desc_stable(idx, np, keys);
	list = tc_json_new_array();
	for (i = 0; i < np; i++) {
		tc_json *item = tc_json_new_object(), *fam = tc_json_new_array();
		const char *nm = pairs[idx[i]].name, *plus = strchr(nm, '+');

		tc_json_array_push(fam, tc_json_new_stringn(nm,
		    (size_t)(plus - nm)));
		tc_json_array_push(fam, tc_json_new_string(plus + 1));
		tc_json_object_set(item, "families", fam);
		tc_json_object_set(item, "overlap_us",
		    tc_json_new_float(pairs[idx[i]].total));
		tc_json_array_push(list, item);
	}
	tc_json_object_set(o, "family_overlap_us", list);
	for (i = 0; i < nr; i++) {
		idx[i] = i;
		keys[i] = rec[i].overlap;
	}
	sort_desc_stable(idx, nr, keys);
	list = tc_json_new_array();
	for (i = 0; i < nr && i < limit; i++) {
		const struct record *r = &rec[idx[i]];
		tc_json *item = tc_json_new_object(), *a = tc_json_new_array();

		tc_json_array_push(a, tc_analysis__json_int(r->l));
		tc_json_array_push(a, tc_analysis__json_int(r->r));
		tc_json_object_set(item, "streams", a);
		a = tc_json_new_array();
		tc_json_array_push(a, tc_json_new_string(tc_analysis__family_names[r->lf]));
		tc_json_array_push(a, tc_json_new_string(tc_analysis__family_names[r->rf]));
		tc_json_object_set(item, "core_families", a);
		tc_json_object_set(item, "overlap_us",
		    tc_json_new_float(r->overlap));
		tc_json_array_push(list, item);
	}
	tc_json_object_set(o, "top_stream_core_overlaps", list);
	tc_json_object_set_string(o, "fusion_strategy_hint", strategy);
	for (i = 0; i < nb; i++)
		free(bk[i].v);
	free(bk);
	free(streams);
	free(rec);
	free(pairs);
	free(idx);
	free(keys);
	return o;
}

/* ---- counters ----------------------------------------------------------- */

void
tc_analysis__counter_add(struct an_counter *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (c->names[i] == name || (c->names[i] != NULL &&
		    name != NULL && strcmp(c->names[i], name) == 0)) {
			c->counts[i]++;
			return;
		}
	if (c->len == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->names = tc_xrealloc(c->names, c->cap * sizeof(*c->names));
		c->counts = tc_xrealloc(c->counts, c->cap * sizeof(*c->counts));
	}
	c->names[c->len] = name != NULL ? tc_xstrdup(name) : NULL;
	c->counts[c->len++] = 1;
}

tc_json *
tc_analysis__counter_json(const struct an_counter *c, size_t limit)
{
	size_t *idx = tc_xmalloc((c->len + 1) * sizeof(*idx)), i;
	double *keys = tc_xmalloc((c->len + 1) * sizeof(*keys));
	tc_json *list = tc_json_new_array();

	for (i = 0; i < c->len; i++) {
		idx[i] = i;
		keys[i] = (double)c->counts[i];
	}
	sort_desc_stable(idx, c->len, keys);
	for (i = 0; i < c->len && i < limit; i++) {
		tc_json *item = tc_json_new_object();

		tc_json_object_set_string_or_null(item, "name",
		    c->names[idx[i]]);
		tc_json_object_set_int(item, "count",
		    (int64_t)c->counts[idx[i]]);
		tc_json_array_push(list, item);
	}
	free(idx);
	free(keys);
	return list;
}

void
tc_analysis__counter_free(struct an_counter *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		free(c->names[i]);
	free(c->names);
	free(c->counts);
	memset(c, 0, sizeof(*c));
}
