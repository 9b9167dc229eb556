/*
 * bound_route.c - diagnose_bound_route(): the ratio-derived routing hint
 * of one repeat (docs/spec/pypto.md "Ratio-derived routing").  It never claims
 * a Roofline terminal state or pipeline overlap.  A hardware-neutral timing
 * source has no pipe ratio columns, so its rows route to
 * insufficient_evidence, exactly as the reference routes a row without
 * core times.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/pypto_compare.h"

#define HIGH_THRESHOLD 0.80
#define MAX_THRESHOLD 0.70

static const char note[] = "Aggregate pipe ratios route the next experiment "
    "only; a workload/traffic model plus timeline or equivalent dependency "
    "evidence is required to prove the terminal bound and pipeline overlap.";

static const char *const aic_compute[] = { "aic_mac_ratio", "aic_cube_ratio",
    NULL };
static const char *const aic_move[] = { "aic_mte1_ratio", "aic_mte2_ratio",
    "aic_mte3_ratio", "aic_fixpipe_ratio", NULL };
static const char *const aic_scalar[] = { "aic_scalar_ratio", NULL };
static const char *const aiv_compute[] = { "aiv_vec_ratio", NULL };
static const char *const aiv_move[] = { "aiv_mte2_ratio", "aiv_mte3_ratio",
    NULL };
static const char *const aiv_scalar[] = { "aiv_scalar_ratio", NULL };
static const char *const families[] = { "compute", "data_movement", "scalar" };

static bool
missing_text(const char *s)
{
	char *t = tc_py_strip_dup(s);
	bool m = t == NULL || strcmp(t, "N/A") == 0 || strcmp(t, "NA") == 0 ||
	    strcmp(t, "-") == 0;

	free(t);
	return m;
}

/* safe_float() */
static double
safe_float(const tc_json *v)
{
	const char *s = tc_json_string(v);
	char *t, *end;
	double d;

	if (v == NULL || v->type == TC_JSON_NULL)
		return 0.0;
	if (s == NULL) {
		if (tc_json_number(v, &d))
			return d;
		return 0.0;
	}
	if (missing_text(s))
		return 0.0;
	t = tc_py_strip_dup(s);
	d = strtod(t, &end);
	if (*end != '\0')
		d = 0.0;
	free(t);
	return d;
}

static int
ratio_value(const tc_json *v, double *out, tc_error *err)
{
	tc_buf r = TC_BUF_INIT;
	char *t = NULL, *end = NULL;
	double d = NAN;

	if (tc_json_is(v, TC_JSON_STRING)) {
		t = tc_py_strip_dup(tc_json_string(v));
		if (t != NULL) {
			d = strtod(t, &end);
			if (*end != '\0')
				d = NAN;
		}
	} else if (!tc_json_is(v, TC_JSON_BOOL)) {
		(void)tc_json_number(v, &d);
	}
	free(t);
	if (!isfinite(d) || d < 0.0 || d > 1.0) {
		tc_json_repr(&r, v);
		if (!isfinite(d))
			tc_error_set(err, "pipe ratio %s is not a finite number",
			    tc_buf_cstr(&r));
		else
			tc_error_set(err, "pipe ratio %s is outside the verified "
			    "CANN fraction range [0, 1]", tc_buf_cstr(&r));
		tc_buf_free(&r);
		return -1;
	}
	*out = d;
	return 0;
}

tc_json *
tc_pypto_bound_route(const tc_json *merged, tc_error *err)
{
	tc_json *res = tc_json_new_object(), *ratios, *triggered;
	double aic = safe_float(tc_json_get(merged, "aicore_time(us)"));
	double aiv = safe_float(tc_json_get(merged, "aiv_time(us)"));
	const char *primary = NULL;
	const char *const *keys[3];
	double maximum = -1;
	bool any = false, scalar = false;
	size_t f, k;
	const char *label;

	if (aic > 0 || aiv > 0)
		primary = aic >= aiv ? "aic" : "aiv";
	tc_json_object_set_int(res, "schema_version", 1);
	tc_json_object_set_string(res, "evidence_kind", "op_summary_ratio_route");
	if (primary != NULL)
		tc_json_object_set_string(res, "primary_core", primary);
	else
		tc_json_object_set_null(res, "primary_core");
	tc_json_object_set_string(res, "primary_core_source",
	    "max(aicore_time(us), aiv_time(us))");
	tc_json_object_set(res, "aicore_time_us", tc_json_new_float(aic));
	tc_json_object_set(res, "aiv_time_us", tc_json_new_float(aiv));
	tc_json_object_set_string(res, "routing_label", "insufficient_evidence");
	tc_json_object_set(res, "triggered_categories", tc_json_new_array());
	tc_json_object_set(res, "ratios", tc_json_new_object());
	tc_json_object_set_null(res, "scalar_route_triggered");
	tc_json_object_set_string(res, "roofline_terminal_status",
	    "insufficient_evidence");
	tc_json_object_set_string(res, "pipeline_overlap_status", "unverified");
	tc_json_object_set_bool(res, "completion_eligible", false);
	tc_json_object_set_string(res, "note", note);
	if (primary == NULL)
		return res;

	keys[0] = primary[2] == 'c' ? aic_compute : aiv_compute;
	keys[1] = primary[2] == 'c' ? aic_move : aiv_move;
	keys[2] = primary[2] == 'c' ? aic_scalar : aiv_scalar;
	ratios = tc_json_new_object();
	for (f = 0; f < 3; f++) {
		tc_json *fam = tc_json_new_object();

		for (k = 0; keys[f][k] != NULL; k++) {
			const tc_json *v = tc_json_get(merged, keys[f][k]);
			double d;

			if (v == NULL || v->type == TC_JSON_NULL)
				continue;
			if (tc_json_is(v, TC_JSON_STRING) &&
			    missing_text(tc_json_string(v)))
				continue;
			if (ratio_value(v, &d, err) != 0) {
				tc_json_free(fam);
				tc_json_free(ratios);
				tc_json_free(res);
				return NULL;
			}
			tc_json_object_set(fam, keys[f][k], tc_json_new_float(d));
			if (d > maximum)
				maximum = d;
			any = true;
		}
		tc_json_object_set(ratios, families[f], fam);
	}
	triggered = tc_json_new_array();
	if (any) {
		for (f = 0; f < 3; f++) {
			const tc_json *fam = tc_json_get(ratios, families[f]);
			bool hit = false;

			for (k = 0; k < fam->u.obj.len; k++) {
				double d = fam->u.obj.members[k].value->u.f;

				if (d > HIGH_THRESHOLD ||
				    (d == maximum && d > MAX_THRESHOLD))
					hit = true;
			}
			if (hit) {
				tc_json_array_push(triggered,
				    tc_json_new_string(families[f]));
				if (f == 2)
					scalar = true;
			}
		}
		if (triggered->u.arr.len == 0)
			label = "no_dominant_pipe";
		else if (triggered->u.arr.len > 1)
			label = "mixed";
		else
			label = strcmp(tc_json_string(triggered->u.arr.items[0]),
			    "compute") == 0 ? "compute_candidate" :
			    strcmp(tc_json_string(triggered->u.arr.items[0]),
			    "data_movement") == 0 ? "data_movement_candidate" :
			    "scalar_candidate";
		tc_json_object_set_bool(res, "scalar_route_triggered", scalar);
		tc_json_object_set_string(res, "routing_label", label);
	}
	tc_json_object_set(res, "ratios", ratios);
	tc_json_object_set(res, "triggered_categories", triggered);
	return res;
}
