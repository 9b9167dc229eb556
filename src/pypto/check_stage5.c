/*
 * check_stage5.c - stage5-check gates P1-P8 as far as files decide them
 * (pypto-orchestration.md §7.3): deliverables, baseline consistency,
 * independent formal rounds re-verified from raw evidence, per-case
 * speedup and Golden ratio recomputation, ledger closure and ranking
 * recomputation, and the structure of the terminal evidence.  What needs
 * the NPU or a reviewer is listed as undecided, never passed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_select.h"
#include "tunectl/sha256.h"

#define PEI "performance_evidence_invalid"
#define PICI "performance_item_coverage_invalid"
#define BLOCKED "stage5_contract_blocked"

struct gate {
	const char *id;
	const char *title;
	const char *category;	/* first failure's category */
	tc_json *evidence;
	tc_json *undecided;
	bool failed;
};

struct ctx {
	char *op_dir;
	tc_json *dispatch;
	tc_json *ev;			/* the report's stage5-evidence block */
	char *ev_error;
	tc_json *perf;
	tc_pypto_manifest m;
	bool manifest_ok;
	char *manifest_error;
	tc_json *spec;
	char *spec_error;
	tc_pypto_round base, fin;
	bool base_ok, fin_ok;
	tc_json *contract;
	char *runner;
	char runner_sha[TC_SHA256_HEX_LEN + 1];
	bool runner_ok;
};

static void
note(tc_json *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
note(tc_json *arr, const char *fmt, ...)
{
	va_list ap;
	tc_error e = TC_ERROR_INIT;

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	tc_json_array_push(arr, tc_json_new_string(tc_error_msg(&e)));
	tc_error_clear(&e);
}

static void
fail(struct gate *g, const char *category, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fail(struct gate *g, const char *category, const char *fmt, ...)
{
	va_list ap;
	tc_error e = TC_ERROR_INIT;

	tc_buf b = TC_BUF_INIT;

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	tc_buf_printf(&b, "FAIL: %s", tc_error_msg(&e));
	tc_json_array_push(g->evidence, tc_json_new_string(tc_buf_cstr(&b)));
	tc_buf_free(&b);
	tc_error_clear(&e);
	if (!g->failed || strcmp(category, BLOCKED) == 0)
		g->category = category;
	g->failed = true;
}

/* ---- fenced JSON blocks ---------------------------------------------------------- */

tc_json *
tc_pypto_fenced_json(const char *text, const char *info, tc_error *err)
{
	const char *p = text, *start = NULL, *end = NULL;
	size_t found = 0;
	bool inside = false, ours = false;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		char *line = tc_xstrndup(p, len), *t = tc_pj_strip(line);

		if (t != NULL && strncmp(t, "```", 3) == 0) {
			if (!inside) {
				char *i2 = tc_pj_strip(t + 3);

				inside = true;
				ours = i2 != NULL && strcmp(i2, info) == 0;
				if (ours) {
					found++;
					start = p + len + (p[len] == '\n');
				}
				free(i2);
			} else if (strcmp(t, "```") == 0) {
				if (ours && found == 1 && end == NULL)
					end = p;
				inside = false;
				ours = false;
			}
		}
		free(t);
		free(line);
		p += len;
		if (*p == '\n')
			p++;
	}
	if (found != 1 || end == NULL) {
		tc_error_set(err, "expected exactly one fenced ```%s block, found "
		    "%zu%s", info, found, found == 1 ? " (unterminated)" : "");
		return NULL;
	}
	{
		tc_json *v = tc_json_parse(start, (size_t)(end - start), err);

		if (v != NULL && v->type != TC_JSON_OBJECT) {
			tc_json_free(v);
			tc_error_set(err, "the ```%s block must hold a JSON object",
			    info);
			return NULL;
		}
		if (v == NULL)
			tc_error_prefix(err, "the ```%s block is not valid JSON: ",
			    info);
		return v;
	}
}

/* ---- helpers ------------------------------------------------------------------------ */

static char *
op_path(const struct ctx *c, const char *name)
{
	return tc_path_join(c->op_dir, name);
}

/* Number of decimals of the shortest repr of x (display rounding). */
static int
repr_decimals(double x)
{
	tc_buf b = TC_BUF_INIT;
	const char *s, *dot, *e;
	int d = 0;

	tc_json_format_double(&b, x);
	s = tc_buf_cstr(&b);
	dot = strchr(s, '.');
	e = strpbrk(s, "eE");
	if (dot != NULL)
		d = (int)((e != NULL ? e : s + strlen(s)) - dot - 1);
	if (e != NULL)
		d -= atoi(e + 1);
	tc_buf_free(&b);
	return d < 0 ? 0 : d;
}

/* reported == recomputed up to the reported value's display rounding. */
static bool
display_equal(double reported, double exact)
{
	int d = repr_decimals(reported);
	double tol = 0.5 * pow(10.0, -d);

	return tc_pj_isclose(reported, exact, 1e-9, 1e-12) ||
	    fabs(reported - exact) <= tol * (1 + 1e-9);
}

static const tc_json *
ev_case(const struct ctx *c, const char *id)
{
	const tc_json *pcs = tc_json_get(c->ev, "per_case");
	size_t i;

	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++) {
		const char *x = tc_json_get_string(pcs->u.arr.items[i], "case");

		if (x != NULL && strcmp(x, id) == 0)
			return pcs->u.arr.items[i];
	}
	return NULL;
}

static const tc_pypto_round_case *
round_case(const tc_pypto_round *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->cases[i].id, id) == 0)
			return &r->cases[i];
	return NULL;
}

static const char *
ev_str(const struct ctx *c, const char *key)
{
	return tc_json_get_string(c->ev, key);
}

/* ---- setup ------------------------------------------------------------------------------ */

static void
load_inputs(struct ctx *c, const tc_pypto_check_opts *o)
{
	char *path;
	char *text;
	tc_error err = TC_ERROR_INIT;
	uint64_t size;

	path = o->report_path != NULL ? tc_xstrdup(o->report_path) :
	    op_path(c, "PERFORMANCE_REPORT.md");
	text = tc_read_file(path, 0, NULL, &err);
	if (text != NULL) {
		c->ev = tc_pypto_fenced_json(text, "json stage5-evidence", &err);
		free(text);
	}
	if (c->ev == NULL)
		c->ev_error = tc_xasprintf("PERFORMANCE_REPORT.md: %s",
		    tc_error_msg(&err));
	tc_error_clear(&err);
	free(path);

	path = op_path(c, "performance.json");
	c->perf = tc_json_parse_file(path, &err);
	tc_error_clear(&err);
	free(path);

	path = op_path(c, "PERFORMANCE_CASES.json");
	if (tc_pypto_manifest_resolve(c->op_dir, path, &c->m, &err) == 0)
		c->manifest_ok = true;
	else
		c->manifest_error = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	free(path);

	path = op_path(c, "SPEC.md");
	text = tc_read_file(path, 0, NULL, &err);
	if (text != NULL) {
		c->spec = tc_pypto_fenced_json(text, "json machine-contract", &err);
		free(text);
	}
	if (c->spec == NULL)
		c->spec_error = tc_xasprintf("SPEC.md: %s", tc_error_msg(&err));
	tc_error_clear(&err);
	free(path);

	if (tc_pypto_contract_load(c->op_dir, &c->contract, &err) < 0)
		c->contract = NULL;
	tc_error_clear(&err);

	if ((c->runner = tc_pypto_find_runner(c->op_dir, &err)) != NULL &&
	    tc_sha256_file(c->runner, c->runner_sha, &size, &err) == 0)
		c->runner_ok = true;
	tc_error_clear(&err);
}

static void
ctx_free(struct ctx *c)
{
	free(c->op_dir);
	tc_json_free(c->dispatch);
	tc_json_free(c->ev);
	free(c->ev_error);
	tc_json_free(c->perf);
	tc_pypto_manifest_free(&c->m);
	free(c->manifest_error);
	tc_json_free(c->spec);
	free(c->spec_error);
	if (c->base_ok)
		tc_pypto_round_free(&c->base);
	if (c->fin_ok)
		tc_pypto_round_free(&c->fin);
	tc_json_free(c->contract);
	free(c->runner);
}

/* ---- the gates -------------------------------------------------------------------------- */

static void
gate_p1(struct ctx *c, struct gate *g)
{
	static const char *const files[] = {
		"PERFORMANCE_REPORT.md", "performance.json", "performance.log",
		"perf_report.md", NULL
	};
	size_t i;

	for (i = 0; files[i] != NULL; i++) {
		char *p = op_path(c, files[i]);
		tc_error err = TC_ERROR_INIT;
		size_t len = 0;
		char *t = tc_read_file(p, 0, &len, &err);

		if (t == NULL)
			fail(g, PEI, "%s is missing or unreadable: %s", files[i],
			    tc_error_msg(&err));
		else if (len == 0)
			fail(g, PEI, "%s is empty", files[i]);
		else
			note(g->evidence, "%s present (%zu bytes)", files[i], len);
		free(t);
		free(p);
		tc_error_clear(&err);
	}
}

static bool
same_set(const tc_json *a, const tc_json *b)
{
	size_t i;

	if (!tc_json_is(a, TC_JSON_ARRAY) || !tc_json_is(b, TC_JSON_ARRAY) ||
	    a->u.arr.len != b->u.arr.len)
		return false;
	for (i = 0; i < a->u.arr.len; i++) {
		const char *s = tc_json_string(a->u.arr.items[i]);

		if (s == NULL || !tc_pj_array_has_string(b, s))
			return false;
	}
	return true;
}

static void
load_rounds(struct ctx *c, struct gate *g)
{
	tc_error err = TC_ERROR_INIT;
	const char *br = ev_str(c, "baseline_round");
	const char *fr = ev_str(c, "final_round");

	if (br == NULL || fr == NULL) {
		fail(g, PEI, "the report names no baseline_round / final_round");
		return;
	}
	if (tc_pypto_round_verify(c->op_dir, br, &c->base, &err) == 0)
		c->base_ok = true;
	else
		fail(g, PEI, "baseline round %s: %s", br, tc_error_msg(&err));
	tc_error_clear(&err);
	if (tc_pypto_round_verify(c->op_dir, fr, &c->fin, &err) == 0)
		c->fin_ok = true;
	else
		fail(g, PEI, "final round %s: %s", fr, tc_error_msg(&err));
	tc_error_clear(&err);
}

static void
gate_p2(struct ctx *c, struct gate *g)
{
	const tc_json *dt = tc_json_get(c->dispatch, "optimization_target");
	const tc_json *mt;
	size_t i;
	tc_error err = TC_ERROR_INIT;

	if (!c->manifest_ok) {
		fail(g, BLOCKED, "frozen PERFORMANCE_CASES.json cannot be used: %s",
		    c->manifest_error);
		return;
	}
	if (tc_pypto_manifest_check_target(&c->m, &err) != 0)
		fail(g, PEI, "PERFORMANCE_CASES.json: %s", tc_error_msg(&err));
	tc_error_clear(&err);
	mt = tc_json_get(c->m.doc, "optimization_target");
	if (!same_set(tc_json_get(mt, "case_ids"), tc_json_get(dt, "case_ids")))
		fail(g, PEI, "optimization_target.case_ids differ from the "
		    "dispatched frozen target cases");
	if (!tc_json_equal(tc_json_get(mt, "selection_mode"),
	    tc_json_get(dt, "selection_mode")))
		fail(g, PEI, "optimization_target.selection_mode differs from the "
		    "dispatch");
	if (c->spec == NULL) {
		fail(g, BLOCKED, "frozen %s", c->spec_error);
	} else {
		const tc_json *p0 = tc_json_get(c->spec, "p0_cases");
		tc_json *names = tc_json_new_array(), *ids = tc_json_new_array();

		for (i = 0; tc_json_is(p0, TC_JSON_ARRAY) && i < p0->u.arr.len; i++)
			if (tc_json_get_string(p0->u.arr.items[i], "name") != NULL)
				tc_json_array_push(names, tc_json_new_string(
				    tc_json_get_string(p0->u.arr.items[i], "name")));
		for (i = 0; i < c->m.n; i++)
			tc_json_array_push(ids, tc_json_new_string(c->m.cases[i].id));
		if (!same_set(names, ids))
			fail(g, PEI, "the manifest cases do not cover exactly the SPEC "
			    "performance P0 cases (SPEC p0_cases names vs "
			    "cases[].id)");
		else
			note(g->evidence, "manifest covers the %zu SPEC P0 cases",
			    c->m.n);
		tc_json_free(names);
		tc_json_free(ids);
	}
	{
		size_t with = 0;

		for (i = 0; i < c->m.n; i++)
			with += c->m.cases[i].test_function != NULL;
		if (with == c->m.n && c->runner_ok) {
			if (tc_pypto_manifest_check_functions(&c->m, c->runner,
			    &err) != 0)
				fail(g, PEI, "%s", tc_error_msg(&err));
			for (i = 0; i < c->m.n; i++) {
				size_t j;

				for (j = 0; j < i; j++)
					if (strcmp(c->m.cases[i].test_function,
					    c->m.cases[j].test_function) == 0)
						fail(g, PEI, "cases %s and %s map to one "
						    "Stage 4 test %s", c->m.cases[j].id,
						    c->m.cases[i].id,
						    c->m.cases[i].test_function);
			}
			tc_error_clear(&err);
		} else {
			note(g->undecided, "the one-to-one mapping of manifest cases "
			    "to Stage 4 tests goes through the runner's own selector: "
			    "needs review");
		}
	}
	if (c->ev == NULL) {
		fail(g, PEI, "%s", c->ev_error);
		return;
	}
	for (i = 0; i < c->m.n; i++) {
		const tc_json *e = ev_case(c, c->m.cases[i].id);

		if (e == NULL) {
			fail(g, PEI, "the report has no per-case record for %s",
			    c->m.cases[i].id);
			continue;
		}
		if (tc_json_get_string(e, "shape") == NULL ||
		    strcmp(tc_json_get_string(e, "shape"), c->m.cases[i].shape) ||
		    tc_json_get_string(e, "dtype") == NULL ||
		    strcmp(tc_json_get_string(e, "dtype"), c->m.cases[i].dtype))
			fail(g, PEI, "case %s: report shape/dtype differ from the "
			    "frozen manifest", c->m.cases[i].id);
	}
	{
		const tc_json *pcs = tc_json_get(c->ev, "per_case");

		if (!tc_json_is(pcs, TC_JSON_ARRAY) || pcs->u.arr.len != c->m.n)
			fail(g, PEI, "the report's per_case does not list exactly "
			    "the manifest cases");
	}
	if (c->base_ok && c->fin_ok) {
		static const char *const keys[] = {
			"device_id", "warmup", "repeats", "target_op_name",
			"timing_source", "seed", NULL
		};
		const tc_json *bc = c->base.collection, *fc = c->fin.collection;
		const tc_json *proto = tc_json_get(c->ev, "protocol");

		for (i = 0; keys[i] != NULL; i++) {
			if (!tc_json_equal(tc_json_get(bc, keys[i]),
			    tc_json_get(fc, keys[i])))
				fail(g, PEI, "baseline and final compares differ in %s",
				    keys[i]);
			if (tc_json_get(proto, keys[i]) != NULL &&
			    !tc_json_equal(tc_json_get(proto, keys[i]),
			    tc_json_get(fc, keys[i])))
				fail(g, PEI, "the report's protocol.%s differs from "
				    "the final compare", keys[i]);
		}
		if (!tc_json_equal(tc_json_get(tc_json_get(bc, "performance_cases"),
		    "sha256"), tc_json_get(tc_json_get(fc, "performance_cases"),
		    "sha256")) || !tc_json_equal(tc_json_get(tc_json_get(fc,
		    "performance_cases"), "sha256"), tc_json_get(c->m.source,
		    "sha256")))
			fail(g, PEI, "baseline and final compares did not use the "
			    "same raw bytes of the frozen manifest");
		if (!g->failed)
			note(g->evidence, "baseline and final share device, warm-up, "
			    "repeats, Op Name, timing source and manifest sha256");
	}
}

static void
gate_p3(struct ctx *c, struct gate *g)
{
	char *msg;
	const char *bid, *fid;

	if (c->ev == NULL) {
		fail(g, PEI, "%s", c->ev_error);
		return;
	}
	if (c->perf == NULL) {
		fail(g, PEI, "performance.json is missing or not JSON");
		return;
	}
	if (!c->base_ok || !c->fin_ok)
		return;	/* load_rounds already failed this gate */
	bid = tc_json_get_string(c->base.collection, "collection_id");
	fid = tc_json_get_string(c->fin.collection, "collection_id");
	if (ev_str(c, "baseline_collection_id") == NULL ||
	    strcmp(ev_str(c, "baseline_collection_id"), bid) != 0)
		fail(g, PEI, "baseline_collection_id %s is not the collection of "
		    "the baseline round (%s)", ev_str(c, "baseline_collection_id") ?
		    ev_str(c, "baseline_collection_id") : "(missing)", bid);
	if (ev_str(c, "final_collection_id") == NULL ||
	    strcmp(ev_str(c, "final_collection_id"), fid) != 0)
		fail(g, PEI, "final_collection_id %s is not the collection of the "
		    "final round (%s)", ev_str(c, "final_collection_id") ?
		    ev_str(c, "final_collection_id") : "(missing)", fid);
	if (strcmp(bid, fid) == 0 || c->base.index == c->fin.index)
		fail(g, PEI, "baseline and final must be two independent formal "
		    "compares (distinct collection ids and rounds)");
	if (c->base.index > c->fin.index)
		fail(g, PEI, "the baseline round_%03d was collected after the final "
		    "round_%03d", c->base.index, c->fin.index);
	if ((msg = tc_pypto_performance_error(c->op_dir, c->perf)) != NULL) {
		fail(g, PEI, "performance.json does not re-verify against its round: "
		    "%s", msg);
		free(msg);
	} else {
		note(g->evidence, "performance.json re-verified against %s",
		    tc_json_get_string(c->perf, "deep_profile_round"));
	}
	if (tc_json_get_string(c->perf, "collection_id") == NULL ||
	    strcmp(tc_json_get_string(c->perf, "collection_id"), fid) != 0)
		fail(g, PEI, "the root performance.json is not the final compare "
		    "(collection %s, final %s)",
		    tc_json_get_string(c->perf, "collection_id") ?
		    tc_json_get_string(c->perf, "collection_id") : "?", fid);
	{
		const char *fsha = tc_json_get_string(c->fin.collection,
		    "executable_sha256");
		const char *rsha = ev_str(c, "final_source_sha256");

		if (!c->runner_ok)
			fail(g, PEI, "the Stage 4 runner test_<op>.py cannot be hashed");
		else if (fsha == NULL || strcmp(fsha, c->runner_sha) != 0)
			fail(g, PEI, "the final compare measured executable_sha256 %s, "
			    "but the current runner is %s", fsha ? fsha : "?",
			    c->runner_sha);
		if (rsha == NULL || fsha == NULL || strcmp(rsha, fsha) != 0)
			fail(g, PEI, "the report's final_source_sha256 does not name "
			    "the final compare's implementation");
		if (!g->failed)
			note(g->evidence, "final compare, performance.json, report and "
			    "current runner share executable_sha256 %s", fsha);
	}
	note(g->undecided, "per-P0 instruction timeline on the final code "
	    "(timeline_evidence.json) needs an NPU profiler");
}

static void
gate_p4(struct ctx *c, struct gate *g)
{
	size_t i, j;

	if (c->ev == NULL || !c->base_ok || !c->fin_ok || !c->manifest_ok) {
		fail(g, PEI, "per-case durations cannot be recomputed (baseline, "
		    "final or manifest evidence unusable)");
		return;
	}
	for (i = 0; i < c->m.n; i++) {
		const char *id = c->m.cases[i].id;
		const tc_pypto_round_case *b = round_case(&c->base, id);
		const tc_pypto_round_case *f = round_case(&c->fin, id);
		const tc_json *e = ev_case(c, id);
		double rb, rf, rs, sp;

		if (b == NULL || f == NULL) {
			fail(g, PEI, "case %s lacks a baseline or final formal "
			    "measurement", id);
			continue;
		}
		sp = b->aggregate_us / f->aggregate_us;
		if (!isfinite(sp) || sp <= 0) {
			fail(g, PEI, "case %s: speedup is not finite positive", id);
			continue;
		}
		if (e == NULL || !tc_pj_positive(tc_json_get(e, "baseline_us"), &rb) ||
		    !tc_pj_positive(tc_json_get(e, "final_us"), &rf) ||
		    !tc_pj_positive(tc_json_get(e, "speedup"), &rs)) {
			fail(g, PEI, "case %s: the report lacks finite positive "
			    "baseline_us, final_us and speedup", id);
			continue;
		}
		if (!display_equal(rb, b->aggregate_us))
			fail(g, PEI, "case %s: report baseline_us does not match the "
			    "baseline round aggregate", id);
		if (!display_equal(rf, f->aggregate_us))
			fail(g, PEI, "case %s: report final_us does not match the "
			    "final round aggregate", id);
		if (!display_equal(rs, sp))
			fail(g, PEI, "case %s: speedup does not recompute as "
			    "baseline/final", id);
		for (j = 0; j < i; j++) {
			const tc_pypto_round_case *o = round_case(&c->fin,
			    c->m.cases[j].id);
			const tc_json *oe = ev_case(c, c->m.cases[j].id);
			double ob = 0, of = 0;

			if (o != NULL && o->aggregate_us == f->aggregate_us)
				fail(g, PEI, "cases %s and %s carry one copied final "
				    "aggregate", c->m.cases[j].id, id);
			if (oe != NULL &&
			    tc_pj_positive(tc_json_get(oe, "final_us"), &of) &&
			    tc_pj_positive(tc_json_get(oe, "baseline_us"), &ob) &&
			    (of == rf || ob == rb))
				fail(g, PEI, "cases %s and %s present one aggregate "
				    "duration as per-case values", c->m.cases[j].id, id);
		}
	}
	if (!g->failed)
		note(g->evidence, "per-case speedup = baseline/final recomputed for "
		    "%zu cases", c->m.n);
}

static void
gate_p5(struct ctx *c, struct gate *g)
{
	const tc_json *fc = tc_json_get(c->ev, "final_correctness");
	int64_t rc;

	if (tc_json_is(fc, TC_JSON_OBJECT) &&
	    tc_pj_int(tc_json_get(fc, "exit_code"), &rc) && rc != 0)
		fail(g, "precision_failure", "the recorded final correctness run "
		    "exited %lld", (long long)rc);
	note(g->undecided, "the final code must be run now (python "
	    "custom/<op>/test_<op>.py) with every P0 precision metric at the "
	    "Stage 4 standard; a recorded run is never reused");
}

static void
gate_p6(struct ctx *c, struct gate *g)
{
	const tc_json *t = tc_json_get(c->ev, "target");
	const char *kind = tc_json_get_string(t, "kind");
	const tc_json *pt = tc_json_get(c->spec, "perf_target");
	const char *status = tc_json_get_string(c->perf, "default_target_status");
	tc_pypto_golden gd;
	tc_error err = TC_ERROR_INIT;
	int have;
	size_t i;

	if (c->ev == NULL || c->perf == NULL) {
		fail(g, PEI, "the report or performance.json is unusable");
		return;
	}
	if (pt != NULL && pt->type != TC_JSON_NULL) {
		if (kind == NULL || strcmp(kind, "spec_user_target") != 0 ||
		    !tc_json_equal(tc_json_get(t, "spec_perf_target"), pt))
			fail(g, PEI, "SPEC records a user perf_target; the report "
			    "must cite it (target.kind spec_user_target, "
			    "spec_perf_target equal)");
		else
			note(g->evidence, "report cites the SPEC user target");
	}
	have = tc_pypto_golden_load(c->op_dir, &gd, &err);
	if (have < 0) {
		fail(g, PEI, "the existing Stage 5 Golden contract is contradictory "
		    "or not recomputable: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	if (have == 0) {
		if (pt == NULL || pt->type == TC_JSON_NULL) {
			if (kind == NULL || strcmp(kind, "unavailable") != 0 ||
			    tc_js_is_blank(tc_json_get_string(t, "reason")))
				fail(g, PEI, "no user target and no Golden contract: "
				    "the report must state target.kind unavailable "
				    "with its raw reason");
			else
				note(g->evidence, "Golden reference unavailable, "
				    "disclosed: %s", tc_json_get_string(t, "reason"));
		}
		if (status == NULL || strcmp(status, "unavailable") != 0)
			fail(g, PEI, "performance.json default_target_status must be "
			    "unavailable without a Golden contract");
		return;
	}
	if (c->base_ok) {
		const tc_json *bgd = tc_json_get(tc_json_get(c->base.collection,
		    "performance_cases"), "golden_diagnostic");

		if (!tc_json_is(bgd, TC_JSON_OBJECT) ||
		    tc_json_get_string(bgd, "status") == NULL ||
		    strcmp(tc_json_get_string(bgd, "status"), "joined") != 0)
			fail(g, PEI, "the Golden contract was not frozen before the "
			    "baseline compare (baseline golden_diagnostic is not "
			    "joined)");
	}
	if ((pt == NULL || pt->type == TC_JSON_NULL) &&
	    (kind == NULL || strcmp(kind, "default_golden") != 0))
		fail(g, PEI, "with a Golden contract and no user target the report "
		    "must use target.kind default_golden");
	for (i = 0; c->fin_ok && i < gd.n; i++) {
		const tc_pypto_round_case *f = round_case(&c->fin, gd.cases[i].id);
		const tc_json *e = ev_case(c, gd.cases[i].id);
		const tc_json *met = tc_json_get(e, "target_met");
		double ratio, rr;

		if (f == NULL) {
			fail(g, PEI, "Golden case %s was not measured in the final "
			    "compare", gd.cases[i].id);
			continue;
		}
		ratio = gd.cases[i].per_iteration_us / f->aggregate_us;
		if (!tc_pj_positive(tc_json_get(e, "golden_reference_ratio"), &rr) ||
		    !display_equal(rr, ratio))
			fail(g, PEI, "case %s: golden_reference_ratio does not "
			    "recompute as Golden per-iteration E2E / final PyPTO "
			    "kernel", gd.cases[i].id);
		if (!tc_json_is(met, TC_JSON_BOOL) || met->u.b != (ratio >= 1.0))
			fail(g, PEI, "case %s: target_met does not follow ratio >= "
			    "1.0", gd.cases[i].id);
	}
	if (!g->failed)
		note(g->evidence, "Golden ratios recomputed per case; status %s "
		    "disclosed (met/not met never decides PASS)", status ?
		    status : "?");
	tc_pypto_golden_free(&gd);
}

static char *
ev_path(struct ctx *c, struct gate *g, const char *key)
{
	const char *v = ev_str(c, key);
	tc_error err = TC_ERROR_INIT;
	char *p;

	if (v == NULL) {
		fail(g, PICI, "the report names no %s file", key);
		return NULL;
	}
	p = tc_path_under_root(c->op_dir, v, key, &err);
	if (p == NULL)
		fail(g, PICI, "%s", tc_error_msg(&err));
	tc_error_clear(&err);
	return p;
}

static void
p7_missing_rounds(struct ctx *c, struct gate *g, const tc_json *sel)
{
	const tc_json *rows = tc_json_get(sel, "candidates");
	int idx;

	for (idx = 1; idx < 1000; idx++) {
		char *rel = tc_xasprintf("docs/perf/round_%03d", idx);
		char *abs = tc_path_join(c->op_dir, rel);
		tc_pypto_round r;
		tc_error err = TC_ERROR_INIT;
		size_t i;
		bool listed = false;
		const char *sha;

		if (!tc_is_directory(abs)) {
			free(rel);
			free(abs);
			if (idx > c->fin.index)
				break;
			continue;
		}
		if (tc_pypto_round_verify(c->op_dir, rel, &r, &err) == 0) {
			sha = tc_json_get_string(r.collection, "executable_sha256");
			for (i = 0; tc_json_is(rows, TC_JSON_ARRAY) &&
			    i < rows->u.arr.len; i++) {
				const char *cs = tc_json_get_string(rows->u.arr.items[i],
				    "executable_sha256");

				if (cs != NULL && sha != NULL && strcmp(cs, sha) == 0)
					listed = true;
			}
			if (!listed && r.index != c->fin.index)
				fail(g, PICI, "round_%03d (executable_sha256 %s) completed a "
				    "formal compare but its version is missing from the "
				    "candidate table", r.index, sha ? sha : "?");
			tc_pypto_round_free(&r);
		}
		tc_error_clear(&err);
		free(rel);
		free(abs);
	}
}

static void
gate_p7(struct ctx *c, struct gate *g)
{
	char *lp, *cp;
	tc_json *ledger, *sel, *rep;
	tc_error err = TC_ERROR_INIT;
	tc_pypto_select_opts so;
	bool ok;

	if (c->ev == NULL) {
		fail(g, PICI, "%s", c->ev_error);
		return;
	}
	if ((lp = ev_path(c, g, "ledger")) != NULL) {
		if ((ledger = tc_pypto_ledger_load(lp, &err)) == NULL) {
			fail(g, PICI, "%s", tc_error_msg(&err));
		} else {
			size_t i;
			const tc_json *errs;

			rep = tc_pypto_ledger_validate(ledger, true, &ok);
			errs = tc_json_get(rep, "errors");
			for (i = 0; i < errs->u.arr.len && i < 5; i++)
				fail(g, PICI, "ledger: %s",
				    tc_json_string(errs->u.arr.items[i]));
			if (ok)
				note(g->evidence, "ledger closed: every source "
				    "enumerated and closed, final sweep recorded");
			tc_json_free(rep);
			tc_json_free(ledger);
		}
		tc_error_clear(&err);
		free(lp);
	}
	note(g->undecided, "re-enumerating the authoritative sources (selected "
	    "KB obligations, general methods, knowledge cards, templates) "
	    "against the ledger needs the skill's source documents: review");
	if (c->contract == NULL) {
		fail(g, PICI, "no frozen selection rule (%s)",
		    TC_PYPTO_FROZEN_CONTRACT);
		return;
	}
	if ((cp = ev_path(c, g, "candidates")) == NULL)
		return;
	memset(&so, 0, sizeof(so));
	so.op_dir = c->op_dir;
	so.candidates_path = cp;
	sel = tc_pypto_select(&so, &err);
	free(cp);
	if (sel == NULL) {
		fail(g, PEI, "the ranking cannot be recomputed: %s",
		    tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	{
		const tc_json *s = tc_json_get(sel, "selected");
		const char *sid = tc_json_get_string(s, "candidate_id");
		const char *best = ev_str(c, "best_candidate_id");
		const char *ssha = tc_json_get_string(s, "executable_sha256");
		const char *fsha = c->fin_ok ? tc_json_get_string(c->fin.collection,
		    "executable_sha256") : NULL;

		if (best == NULL || strcmp(best, sid) != 0)
			fail(g, PICI, "the recomputed best version is %s, the report "
			    "claims %s", sid, best ? best : "(none)");
		else
			note(g->evidence, "ranking recomputed: %s selected (anchor %s)",
			    sid, tc_json_get_string(sel, "anchor"));
		if (fsha != NULL && (ssha == NULL || strcmp(ssha, fsha) != 0))
			fail(g, PICI, "the final code (executable_sha256 %s) is not the "
			    "selected best version (%s)", fsha, ssha ? ssha : "?");
		if (c->fin_ok) {
			tc_pypto_round sr;
			const char *srel = tc_json_get_string(s, "round");

			if (tc_pypto_round_verify(c->op_dir, srel, &sr, &err) == 0) {
				if (sr.index == c->fin.index)
					fail(g, PICI, "the best version has no independent "
					    "final formal compare (final round is its "
					    "ranking round)");
				else {
					/* final vs ranking data within the range? */
					tc_pypto_score_in in[2];
					tc_pypto_selection_rule rule;
					const tc_json *stab = tc_json_get(tc_json_get(
					    c->contract, "selection"), "stability_range");
					const tc_json *tids = tc_json_get(tc_json_get(
					    c->contract, "optimization_target"), "case_ids");
					size_t n = c->base.n, i;
					double *bd = tc_xcalloc(n + 1, sizeof(double));
					double *sd = tc_xcalloc(n + 1, sizeof(double));
					double *fd = tc_xcalloc(n + 1, sizeof(double));
					bool *tm = tc_xcalloc(n + 1, sizeof(bool));
					const char **ids = tc_xcalloc(n + 1, sizeof(char *));
					tc_json *r;
					bool complete = true;

					for (i = 0; i < n; i++) {
						const tc_pypto_round_case *a =
						    round_case(&sr, c->base.cases[i].id);
						const tc_pypto_round_case *z =
						    round_case(&c->fin, c->base.cases[i].id);

						ids[i] = c->base.cases[i].id;
						bd[i] = c->base.cases[i].aggregate_us;
						tm[i] = tc_pj_array_has_string(tids, ids[i]);
						if (a == NULL || z == NULL) {
							complete = false;
							break;
						}
						sd[i] = a->aggregate_us;
						fd[i] = z->aggregate_us;
					}
					memset(&rule, 0, sizeof(rule));
					rule.n_cases = n;
					rule.case_ids = ids;
					rule.baseline = bd;
					rule.target = tm;
					rule.relative = tc_json_get_string(stab, "kind") !=
					    NULL && strcmp(tc_json_get_string(stab, "kind"),
					    "relative") == 0;
					rule.stability_value = tc_json_get_string(stab,
					    "value");
					in[0].id = "ranking";
					in[0].evaluation_order = 0;
					in[0].rankable = true;
					in[0].durations = sd;
					in[1].id = "final";
					in[1].evaluation_order = 1;
					in[1].rankable = true;
					in[1].durations = fd;
					r = complete ? tc_pypto_rank(&rule, in, 2, &err) :
					    NULL;
					if (r == NULL)
						fail(g, PEI, "final vs ranking data cannot be "
						    "compared: %s", complete ?
						    tc_error_msg(&err) : "case sets differ");
					else if (tc_json_get(r, "tie_set")->u.arr.len != 2)
						fail(g, PICI, "the independent final compare "
						    "differs from the ranking data by more than "
						    "the frozen stability range; re-measure the "
						    "affected candidates with the same protocol "
						    "and re-select");
					else
						note(g->evidence, "independent final compare "
						    "agrees with the ranking data within the "
						    "frozen stability range");
					tc_json_free(r);
					tc_error_clear(&err);
					free(bd);
					free(sd);
					free(fd);
					free(tm);
					free(ids);
				}
				tc_pypto_round_free(&sr);
			} else {
				fail(g, PEI, "the selected candidate's round: %s",
				    tc_error_msg(&err));
			}
			tc_error_clear(&err);
			p7_missing_rounds(c, g, sel);
		}
	}
	tc_json_free(sel);
}

static void
gate_p8(struct ctx *c, struct gate *g)
{
	static const char *const ideal_roof[] = { "compute_bound",
	    "data_movement_bound", "balanced_compute_movement", NULL };
	static const char *const residual_roof[] = { "scalar_bound",
	    "wait_bound", NULL };
	static const char *const ok_pipe[] = { "proven", "not_applicable_with_dag",
	    "residual_not_overlapped", NULL };
	size_t i, k;

	if (c->ev == NULL || !c->manifest_ok) {
		fail(g, PEI, "the report or manifest is unusable");
		return;
	}
	for (i = 0; i < c->m.n; i++) {
		const char *id = c->m.cases[i].id;
		const tc_json *e = ev_case(c, id);
		const tc_json *rt = tc_json_get(e, "roofline_terminal");
		const tc_json *pe = tc_json_get(e, "pipeline_evidence");
		const tc_json *se = tc_json_get(e, "scalar_evidence");
		const char *rs = tc_json_get_string(rt, "status");
		const char *ps = tc_json_get_string(pe, "status");
		const tc_json *dom = tc_json_get(se, "dominant");
		bool rok = false, pok = false;

		for (k = 0; rs != NULL && ideal_roof[k] != NULL; k++)
			rok = rok || strcmp(rs, ideal_roof[k]) == 0;
		for (k = 0; rs != NULL && residual_roof[k] != NULL; k++)
			if (strcmp(rs, residual_roof[k]) == 0) {
				rok = true;
				note(g->evidence, "case %s: residual roofline state %s "
				    "(does not fail by itself; P7 closes the related "
				    "candidates)", id, rs);
			}
		for (k = 0; ps != NULL && ok_pipe[k] != NULL; k++)
			pok = pok || strcmp(ps, ok_pipe[k]) == 0;
		if (!rok)
			fail(g, PEI, "case %s: roofline_terminal.status %s is not "
			    "evaluable", id, rs ? rs : "(missing)");
		if (!pok)
			fail(g, PEI, "case %s: pipeline_evidence.status %s is not "
			    "evaluable", id, ps ? ps : "(missing)");
		if (!(tc_json_is(dom, TC_JSON_BOOL)))
			fail(g, PEI, "case %s: scalar_evidence.dominant must be true "
			    "or false (unknown is not evaluable)", id);
		for (k = 0; k < 3; k++) {
			const tc_json *obj = k == 0 ? rt : k == 1 ? pe : se;

			if (tc_js_is_blank(tc_json_get_string(obj, "basis")))
				fail(g, PEI, "case %s: %s has no basis", id,
				    k == 0 ? "roofline_terminal" : k == 1 ?
				    "pipeline_evidence" : "scalar_evidence");
		}
		if (ps != NULL && strcmp(ps, "proven") == 0 && c->fin_ok) {
			char *dn = tc_pypto_case_dir_name(id);
			char *tp = tc_xasprintf("%s/%s/instruction_timeline/"
			    "timeline_evidence.json", c->fin.path, dn);

			if (!tc_is_regular_file(tp))
				fail(g, PEI, "case %s: pipeline proven without "
				    "instruction_timeline evidence in the final round",
				    id);
			free(tp);
			free(dn);
		}
		if (ps != NULL && strcmp(ps, "not_applicable_with_dag") == 0) {
			const char *dag = tc_json_get_string(pe, "dag");
			tc_error err = TC_ERROR_INIT;
			char *p = dag != NULL ? tc_path_under_root(c->op_dir, dag,
			    "pipeline_evidence.dag", &err) : NULL;

			if (p == NULL || !tc_is_regular_file(p))
				fail(g, PEI, "case %s: not_applicable_with_dag needs the "
				    "attached Tile DAG (pipeline_evidence.dag)", id);
			free(p);
			tc_error_clear(&err);
		}
		if (tc_json_is(dom, TC_JSON_BOOL) && dom->u.b)
			note(g->evidence, "case %s: Scalar dominant (residual, "
			    "disclosed)", id);
	}
	if (!g->failed)
		note(g->evidence, "every P0 case has structured roofline, pipeline "
		    "and scalar evidence in an evaluable state");
	note(g->undecided, "the Roofline derivation (workload, necessary bytes, "
	    "platform peaks), the timeline/Tile DAG mapping and the Scalar A/B "
	    "need NPU evidence and review");
}

/* ---- driver ------------------------------------------------------------------------------- */

static const char *
dispatch_error(const tc_json *d)
{
	const char *p = tc_json_get_string(d, "stage4_path");
	const tc_json *t = tc_json_get(d, "optimization_target");
	const tc_json *ids = tc_json_get(t, "case_ids");
	const char *mode = tc_json_get_string(t, "selection_mode");
	size_t i;

	if (p == NULL || (strcmp(p, "L0") != 0 && strcmp(p, "L1") != 0))
		return "stage5-check needs stage4_path in {L0, L1}";
	if (!tc_json_is(ids, TC_JSON_ARRAY) || ids->u.arr.len == 0)
		return "stage5-check needs a non-empty "
		    "optimization_target.case_ids";
	for (i = 0; i < ids->u.arr.len; i++)
		if (tc_json_string(ids->u.arr.items[i]) == NULL)
			return "optimization_target.case_ids must be strings";
	if (mode == NULL || (strcmp(mode, "user_selected") != 0 &&
	    strcmp(mode, "single_p0") != 0 &&
	    strcmp(mode, "all_p0_no_questions") != 0))
		return "stage5-check needs selection_mode in {user_selected, "
		    "single_p0, all_p0_no_questions}";
	return NULL;
}

static tc_json *
gate_json(struct gate *g)
{
	tc_json *j = tc_json_new_object();
	const char *status = g->failed ? "FAIL" :
	    g->undecided->u.arr.len == 0 ? "PASS" :
	    g->evidence->u.arr.len > 0 ? "PARTIAL" : "UNDECIDED";

	tc_json_object_set_string(j, "gate", g->id);
	tc_json_object_set_string(j, "title", g->title);
	tc_json_object_set_string(j, "status", status);
	if (g->failed)
		tc_json_object_set_string(j, "failure_category", g->category);
	else
		tc_json_object_set_null(j, "failure_category");
	tc_json_object_set(j, "evidence", g->evidence);
	tc_json_object_set(j, "undecided", g->undecided);
	return j;
}

tc_json *
tc_pypto_check_stage5(const tc_pypto_check_opts *o, tc_error *err)
{
	struct ctx c;
	struct gate gates[10];
	static const char *const ids[] = { "stage4", "P1", "P2", "P3", "P4",
	    "P5", "P6", "P7", "P8" };
	static const char *const titles[] = {
		"Stage 4 15-item rerun", "files", "baseline consistency",
		"collection evidence", "comparability / recomputation",
		"no correctness regression", "target recomputation & disclosure",
		"item & best-version closure", "Roofline / Scalar / pipeline"
	};
	tc_json *out, *list, *failed;
	const char *primary = NULL;
	const char *derr;
	tc_error e2 = TC_ERROR_INIT;
	size_t i, n = 9, undecided = 0;

	memset(&c, 0, sizeof(c));
	if (o->op_dir == NULL || !tc_is_directory(o->op_dir)) {
		tc_error_set(err, "operator directory does not exist: %s",
		    o->op_dir != NULL ? o->op_dir : "(none)");
		return NULL;
	}
	if ((c.op_dir = tc_path_resolve(o->op_dir, err)) == NULL)
		return NULL;
	out = tc_json_new_object();
	c.dispatch = o->dispatch_path != NULL ?
	    tc_pj_load_object(o->dispatch_path, "dispatch", &e2) : NULL;
	derr = c.dispatch == NULL ? (o->dispatch_path == NULL ?
	    "no dispatch given" : tc_error_msg(&e2)) : dispatch_error(c.dispatch);
	if (derr != NULL) {
		tc_json_object_set_string(out, "verdict", "FAILED");
		tc_json_object_set_string(out, "failure_category",
		    "dispatch_invalid");
		tc_json_object_set(out, "failed_checks", tc_json_new_array());
		tc_json_object_set_string(out, "evidence", derr);
		tc_json_object_set(out, "gates", tc_json_new_array());
		tc_error_clear(&e2);
		ctx_free(&c);
		return out;
	}
	tc_error_clear(&e2);
	load_inputs(&c, o);
	for (i = 0; i < n; i++) {
		memset(&gates[i], 0, sizeof(gates[i]));
		gates[i].id = ids[i];
		gates[i].title = titles[i];
		gates[i].evidence = tc_json_new_array();
		gates[i].undecided = tc_json_new_array();
	}
	note(gates[0].undecided, "the 15 Stage 4 gates (imports, single kernel, "
	    "precision standard, no cheating, buffer/sync edges, runs, "
	    "delivery import, knowledge usage, wrapper boundary) need the final "
	    "code executed and reviewed on the target");
	gate_p1(&c, &gates[1]);
	if (c.ev != NULL)
		load_rounds(&c, &gates[3]);
	gate_p2(&c, &gates[2]);
	gate_p3(&c, &gates[3]);
	gate_p4(&c, &gates[4]);
	gate_p5(&c, &gates[5]);
	gate_p6(&c, &gates[6]);
	gate_p7(&c, &gates[7]);
	gate_p8(&c, &gates[8]);

	list = tc_json_new_array();
	failed = tc_json_new_array();
	for (i = 0; i < n; i++) {
		if (gates[i].failed) {
			tc_json_array_push(failed, tc_json_new_string(gates[i].id));
			if (primary == NULL || strcmp(gates[i].category, BLOCKED) == 0)
				primary = gates[i].category;
		} else if (gates[i].undecided->u.arr.len > 0) {
			undecided++;
		}
		tc_json_array_push(list, gate_json(&gates[i]));
	}
	tc_json_object_set_string(out, "verdict", primary != NULL ? "FAILED" :
	    "NOT_COMPLETE");
	if (primary != NULL)
		tc_json_object_set_string(out, "failure_category", primary);
	else
		tc_json_object_set_null(out, "failure_category");
	tc_json_object_set(out, "failed_checks", failed);
	tc_json_object_set_int(out, "undecided_gates", (int64_t)undecided);
	tc_json_object_set_string(out, "operator_dir", c.op_dir);
	tc_json_object_set(out, "gates", list);
	ctx_free(&c);
	return out;
}

char *
tc_pypto_check_render(const tc_json *r)
{
	tc_buf b = TC_BUF_INIT;
	const tc_json *gates = tc_json_get(r, "gates");
	const tc_json *failed = tc_json_get(r, "failed_checks");
	const char *verdict = tc_json_get_string(r, "verdict");
	size_t i, k;

	if (strcmp(verdict, "FAILED") == 0) {
		tc_buf_puts(&b, "Stage 5 verification FAILED.\nFailed checks: ");
		for (i = 0; i < failed->u.arr.len; i++)
			tc_buf_printf(&b, "%s%s", i > 0 ? ", " : "",
			    tc_json_string(failed->u.arr.items[i]));
		if (failed->u.arr.len == 0)
			tc_buf_puts(&b, "dispatch");
		tc_buf_printf(&b, "\nfailure_category: %s\n",
		    tc_json_get_string(r, "failure_category"));
		if (tc_json_get_string(r, "evidence") != NULL)
			tc_buf_printf(&b, "Evidence: %s\n",
			    tc_json_get_string(r, "evidence"));
	} else {
		tc_buf_puts(&b, "Stage 5 verification NOT COMPLETE: every "
		    "file-decidable check passed; the checks below need NPU "
		    "execution or review before a PASS.\n");
	}
	for (i = 0; tc_json_is(gates, TC_JSON_ARRAY) && i < gates->u.arr.len;
	    i++) {
		const tc_json *g = gates->u.arr.items[i];
		const tc_json *ev = tc_json_get(g, "evidence");
		const tc_json *un = tc_json_get(g, "undecided");

		tc_buf_printf(&b, "%s %s: %s", tc_json_get_string(g, "gate"),
		    tc_json_get_string(g, "title"), tc_json_get_string(g, "status"));
		if (tc_json_get_string(g, "failure_category") != NULL)
			tc_buf_printf(&b, " (%s)",
			    tc_json_get_string(g, "failure_category"));
		tc_buf_putc(&b, '\n');
		for (k = 0; k < ev->u.arr.len; k++)
			tc_buf_printf(&b, "  - %s\n", tc_json_string(ev->u.arr.items[k]));
		for (k = 0; k < un->u.arr.len; k++)
			tc_buf_printf(&b, "  ? %s\n", tc_json_string(un->u.arr.items[k]));
	}
	if (strcmp(verdict, "FAILED") == 0)
		tc_buf_puts(&b, "Suggested action: repair within Stage 5 (evidence, "
		    "ledger closure, best-version selection, or the frozen-input "
		    "block), then re-run stage5-check; never roll back.\n");
	return tc_buf_detach(&b, NULL);
}
