/*
 * check_stage5.c - stage5-check gates P1-P8 as far as files decide them
 * (docs/spec/pypto.md "Stage 5 check gates"): deliverables, baseline
 * consistency, independent formal rounds re-verified from raw evidence,
 * per-case speedup and Golden ratio recomputation, ledger closure and ranking
 * recomputation, and the structure of the terminal evidence.  What needs
 * the NPU or a reviewer is listed as undecided, never passed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_select.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

#define PEI "performance_evidence_invalid"
#define PICI "performance_item_coverage_invalid"
#define BLOCKED "stage5_contract_blocked"

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
	tc_json *answers;		/* the verifier's review, or NULL */
	tc_json *review;		/* the review document as given */
	char *review_error;
	tc_json *final_run;		/* python test_<op>.py, run now */
	tc_json *ledger;
	tc_json *state;			/* .orchestrator_state.json, or NULL */
	tc_json *result;		/* P4: the interleaved result, or NULL */
};

/* ---- fenced JSON blocks ---------------------------------------------------------- */

tc_json *
tc_pypto_fenced_json(const char *text, const char *info, tc_error *err)
{
	const char *p = text, *start = NULL, *end = NULL;
	size_t found = 0;
	bool inside = false, ours = false;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		char *line = tc_xstrndup(p, len), *t = tc_py_strip_dup(line);

		if (t != NULL && strncmp(t, "```", 3) == 0) {
			if (!inside) {
				char *i2 = tc_py_strip_dup(t + 3);

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

	return tc_py_isclose(reported, exact, 1e-9, 1e-12) ||
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
	tc_json_free(c->answers);
	tc_json_free(c->review);
	free(c->review_error);
	tc_json_free(c->final_run);
	tc_json_free(c->ledger);
	tc_json_free(c->state);
	tc_json_free(c->result);
}

/* ---- evidence helpers ---------------------------------------------------------------- */

/* P2: the exact Op Name was found by a discovery run before the baseline
 * and frozen with the protocol. */
static void
check_discovery(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *d = tc_json_get(c->contract, "discovery");
	const char *rel = tc_json_get_string(d, "path");
	const char *name = tc_json_get_string(d, "selected_op_name");
	const char *frozen = tc_json_get_string(tc_json_get(c->contract,
	    "protocol"), "target_op_name");
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error err = TC_ERROR_INIT;
	char *p;

	if (c->contract == NULL)
		return;
	if (!tc_json_is(d, TC_JSON_OBJECT) || rel == NULL || name == NULL) {
		tc_pypto_gate_fail(g, PEI, "the target Op Name was not found by a "
		    "discovery run frozen with the protocol (tunectl pypto discover, "
		    "then cases freeze --discovery)");
		return;
	}
	p = tc_path_under_root(c->op_dir, rel, "discovery", &err);
	if (p == NULL || tc_sha256_file(p, hex, NULL, &err) != 0 ||
	    tc_json_get_string(d, "sha256") == NULL ||
	    strcmp(tc_json_get_string(d, "sha256"), hex) != 0) {
		tc_pypto_gate_fail(g, PEI, "the frozen discovery record %s changed "
		    "or disappeared", rel);
	} else if (frozen == NULL || strcmp(frozen, name) != 0) {
		tc_pypto_gate_fail(g, PEI, "the frozen target Op Name %s is not the "
		    "one the discovery run found (%s)", frozen != NULL ? frozen :
		    "?", name);
	} else {
		tc_pypto_gate_note(g, "target Op Name %s found by discovery on case "
		    "%s and frozen with the protocol", name,
		    tc_json_get_string(d, "case_id") != NULL ?
		    tc_json_get_string(d, "case_id") : "?");
	}
	tc_error_clear(&err);
	free(p);
}

/* P3: a timeline per P0 case, bound to the final compare. */
static void
check_timelines(struct ctx *c, tc_pypto_gate *g)
{
	size_t i, ok = 0;

	if (!c->fin_ok || !c->manifest_ok)
		return;
	for (i = 0; i < c->m.n; i++) {
		char *dn = tc_pypto_case_dir_name(c->m.cases[i].id);
		char *tp = tc_xasprintf("%s/%s/instruction_timeline/"
		    "timeline_evidence.json", c->fin.path, dn);
		char *msg;

		if (!tc_path_exists(tp)) {
			tc_pypto_gate_missing(g, "optimizer", "tunectl pypto timeline",
			    "the instruction timeline of case %s on the final code "
			    "(tunectl pypto timeline --op-dir OP --case-id %s)",
			    c->m.cases[i].id, c->m.cases[i].id);
		} else if ((msg = tc_pypto_timeline_error(c->fin.path,
		    c->m.cases[i].id, c->fin.collection)) != NULL) {
			tc_pypto_gate_fail(g, PEI, "%s", msg);
			free(msg);
		} else {
			ok++;
		}
		free(tp);
		free(dn);
	}
	if (ok == c->m.n)
		tc_pypto_gate_note(g, "every P0 case has an instruction timeline "
		    "bound to the final compare");
}

/* P7: every preset source re-enumerated from the index it was enumerated
 * from (the file must be unchanged, the count and ids recomputed). */
static void
check_source_indexes(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *src = tc_json_get(c->ledger, "sources");
	int k;

	if (c->ledger == NULL)
		return;
	for (k = 0; k < 4; k++) {
		const char *kind = tc_pypto_source_kinds[k];
		const tc_json *idx = tc_json_get(tc_json_get(src, kind), "index");
		const char *path = tc_json_get_string(idx, "path");
		tc_error err = TC_ERROR_INIT;
		tc_json *now;

		if (path == NULL) {
			tc_pypto_gate_missing(g, "optimizer", "tunectl pypto items "
			    "source --index", "the %s source was enumerated without "
			    "its authoritative index, so its denominator cannot be "
			    "re-enumerated (items source --kind %s --index FILE)",
			    kind, kind);
			continue;
		}
		if ((now = tc_pypto_source_index(kind, path, &err)) == NULL) {
			tc_pypto_gate_fail(g, PICI, "the %s index cannot be "
			    "re-enumerated: %s", kind, tc_error_msg(&err));
		} else if (!tc_json_equal(tc_json_get(now, "sha256"),
		    tc_json_get(idx, "sha256"))) {
			tc_pypto_gate_fail(g, PICI, "the %s index %s changed since it "
			    "was enumerated", kind, path);
		} else if (!tc_json_equal(tc_json_get(now, "ids"),
		    tc_json_get(idx, "ids")) || !tc_json_equal(tc_json_get(now,
		    "count"), tc_json_get(tc_json_get(src, kind), "count"))) {
			tc_pypto_gate_fail(g, PICI, "the %s source re-enumerates to %g "
			    "items, the ledger says %g", kind,
			    tc_js_number(tc_json_get(now, "count")),
			    tc_js_number(tc_json_get(tc_json_get(src, kind),
			    "count")));
		} else {
			tc_pypto_gate_note(g, "%s re-enumerated from %s: %g item(s)",
			    kind, path, tc_js_number(tc_json_get(now, "count")));
		}
		tc_json_free(now);
		tc_error_clear(&err);
	}
}

/* C1: the required inputs. */
static void
gate_inputs(struct ctx *c, tc_pypto_gate *g)
{
	tc_json *r = tc_pypto_inputs_check(c->op_dir);
	const tc_json *list = tc_json_get(r, "inputs");
	size_t i;

	for (i = 0; i < list->u.arr.len; i++) {
		const tc_json *in = list->u.arr.items[i];

		if (strcmp(tc_json_get_string(in, "status"), "present") != 0)
			tc_pypto_gate_fail(g, BLOCKED, "required input %s is %s: %s",
			    tc_json_get_string(in, "name"),
			    tc_json_get_string(in, "status"),
			    tc_json_get_string(in, "detail") != NULL ?
			    tc_json_get_string(in, "detail") : "-");
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "all %zu required inputs present and readable",
		    list->u.arr.len);
	tc_json_free(r);
}

/* C2: the frozen inputs and the updatable-only boundary, against the
 * snapshot bound at the Stage 5 entry. */
static void
gate_boundary(struct ctx *c, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *entry, *r;
	const tc_json *v;
	size_t i;

	if (c->state == NULL) {
		tc_pypto_gate_missing(g, "orchestrator", "tunectl pypto state ... "
		    "consent", "no orchestrator state with a Stage 5 entry "
		    "snapshot: the frozen inputs cannot be compared");
		return;
	}
	if ((entry = tc_pypto_entry_load(c->op_dir, c->state, &err)) == NULL) {
		if (tc_pypto_consent(c->state) == NULL)
			tc_pypto_gate_missing(g, "orchestrator", "tunectl pypto state "
			    "... consent", "%s", tc_error_msg(&err));
		else
			tc_pypto_gate_fail(g, BLOCKED, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	if ((r = tc_pypto_boundary_check(c->op_dir, entry, &err)) == NULL) {
		tc_pypto_gate_fail(g, BLOCKED, "the operator directory cannot be "
		    "compared with the Stage 5 entry: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		tc_json_free(entry);
		return;
	}
	v = tc_json_get(r, "violations");
	for (i = 0; i < v->u.arr.len; i++)
		tc_pypto_gate_fail(g, tc_json_get_string(v->u.arr.items[i],
		    "category"), "%s", tc_json_get_string(v->u.arr.items[i],
		    "change"));
	if (!g->failed)
		tc_pypto_gate_note(g, "frozen inputs intact; %g files checked: only "
		    "the updatable set changed since the Stage 5 entry; selected KB "
		    "obligations kept", tc_js_number(tc_json_get(r,
		    "files_checked")));
	tc_json_free(r);
	tc_json_free(entry);
}

/* ---- the gates -------------------------------------------------------------------------- */

static void
gate_p1(struct ctx *c, tc_pypto_gate *g)
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
			tc_pypto_gate_fail(g, PEI, "%s is missing or unreadable: %s", files[i],
			    tc_error_msg(&err));
		else if (len == 0)
			tc_pypto_gate_fail(g, PEI, "%s is empty", files[i]);
		else
			tc_pypto_gate_note(g, "%s present (%zu bytes)", files[i], len);
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
load_rounds(struct ctx *c, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	const char *br = ev_str(c, "baseline_round");
	const char *fr = ev_str(c, "final_round");

	if (br == NULL || fr == NULL) {
		tc_pypto_gate_fail(g, PEI, "the report names no baseline_round / final_round");
		return;
	}
	if (tc_pypto_round_verify(c->op_dir, br, &c->base, &err) == 0)
		c->base_ok = true;
	else
		tc_pypto_gate_fail(g, PEI, "baseline round %s: %s", br, tc_error_msg(&err));
	tc_error_clear(&err);
	if (tc_pypto_round_verify(c->op_dir, fr, &c->fin, &err) == 0)
		c->fin_ok = true;
	else
		tc_pypto_gate_fail(g, PEI, "final round %s: %s", fr, tc_error_msg(&err));
	tc_error_clear(&err);
}

/* P2: the manifest cases are exactly the SPEC's performance P0 cases. */
static void
p2_spec_cases(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *p0 = tc_json_get(c->spec, "p0_cases");
	tc_json *names = tc_json_new_array(), *ids = tc_json_new_array();
	size_t i;

	for (i = 0; tc_json_is(p0, TC_JSON_ARRAY) && i < p0->u.arr.len; i++)
		if (tc_json_get_string(p0->u.arr.items[i], "name") != NULL)
			tc_json_array_push(names, tc_json_new_string(
			    tc_json_get_string(p0->u.arr.items[i], "name")));
	for (i = 0; i < c->m.n; i++)
		tc_json_array_push(ids, tc_json_new_string(c->m.cases[i].id));
	if (!same_set(names, ids))
		tc_pypto_gate_fail(g, PEI, "the manifest cases do not cover exactly the SPEC "
		    "performance P0 cases (SPEC p0_cases names vs "
		    "cases[].id)");
	else
		tc_pypto_gate_note(g, "manifest covers the %zu SPEC P0 cases",
		    c->m.n);
	tc_json_free(names);
	tc_json_free(ids);
}

/* P2: each case maps to its own Stage 4 test function, or (through the
 * runner's own selector) the verifier reviews the mapping. */
static void
p2_case_mapping(struct ctx *c, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	size_t i, j, with = 0;

	for (i = 0; i < c->m.n; i++)
		with += c->m.cases[i].test_function != NULL;
	if (with != c->m.n || !c->runner_ok) {
		tc_pypto_gate_review(g, c->answers, "P2.mapping");
		return;
	}
	if (tc_pypto_manifest_check_functions(&c->m, c->runner, &err) != 0)
		tc_pypto_gate_fail(g, PEI, "%s", tc_error_msg(&err));
	for (i = 0; i < c->m.n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(c->m.cases[i].test_function,
			    c->m.cases[j].test_function) == 0)
				tc_pypto_gate_fail(g, PEI, "cases %s and %s map to one "
				    "Stage 4 test %s", c->m.cases[j].id,
				    c->m.cases[i].id, c->m.cases[i].test_function);
	tc_error_clear(&err);
}

/* P2: the report lists exactly the manifest cases, with their shapes. */
static void
p2_report_cases(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *pcs = tc_json_get(c->ev, "per_case");
	size_t i;

	for (i = 0; i < c->m.n; i++) {
		const tc_json *e = ev_case(c, c->m.cases[i].id);

		if (e == NULL) {
			tc_pypto_gate_fail(g, PEI, "the report has no per-case record for %s",
			    c->m.cases[i].id);
			continue;
		}
		if (tc_json_get_string(e, "shape") == NULL ||
		    strcmp(tc_json_get_string(e, "shape"), c->m.cases[i].shape) ||
		    tc_json_get_string(e, "dtype") == NULL ||
		    strcmp(tc_json_get_string(e, "dtype"), c->m.cases[i].dtype))
			tc_pypto_gate_fail(g, PEI, "case %s: report shape/dtype differ from the "
			    "frozen manifest", c->m.cases[i].id);
	}
	if (!tc_json_is(pcs, TC_JSON_ARRAY) || pcs->u.arr.len != c->m.n)
		tc_pypto_gate_fail(g, PEI, "the report's per_case does not list exactly "
		    "the manifest cases");
}

/* P2: baseline and final compares ran under one protocol, the report's. */
static void
p2_same_protocol(struct ctx *c, tc_pypto_gate *g)
{
	static const char *const keys[] = {
		"device_id", "warmup", "repeats", "target_op_name",
		"timing_source", "seed", NULL
	};
	const tc_json *bc = c->base.collection, *fc = c->fin.collection;
	const tc_json *proto = tc_json_get(c->ev, "protocol");
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		if (!tc_json_equal(tc_json_get(bc, keys[i]),
		    tc_json_get(fc, keys[i])))
			tc_pypto_gate_fail(g, PEI, "baseline and final compares differ in %s",
			    keys[i]);
		if (tc_json_get(proto, keys[i]) != NULL &&
		    !tc_json_equal(tc_json_get(proto, keys[i]),
		    tc_json_get(fc, keys[i])))
			tc_pypto_gate_fail(g, PEI, "the report's protocol.%s differs from "
			    "the final compare", keys[i]);
	}
	if (!tc_json_equal(tc_json_get(tc_json_get(bc, "performance_cases"),
	    "sha256"), tc_json_get(tc_json_get(fc, "performance_cases"),
	    "sha256")) || !tc_json_equal(tc_json_get(tc_json_get(fc,
	    "performance_cases"), "sha256"), tc_json_get(c->m.source,
	    "sha256")))
		tc_pypto_gate_fail(g, PEI, "baseline and final compares did not use the "
		    "same raw bytes of the frozen manifest");
	if (!g->failed)
		tc_pypto_gate_note(g, "baseline and final share device, warm-up, "
		    "repeats, Op Name, timing source and manifest sha256");
}

static void
gate_p2(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *dt = tc_json_get(c->dispatch, "optimization_target");
	const tc_json *mt;
	tc_error err = TC_ERROR_INIT;

	if (!c->manifest_ok) {
		tc_pypto_gate_fail(g, BLOCKED, "frozen PERFORMANCE_CASES.json cannot be used: %s",
		    c->manifest_error);
		return;
	}
	if (tc_pypto_manifest_check_target(&c->m, &err) != 0)
		tc_pypto_gate_fail(g, PEI, "PERFORMANCE_CASES.json: %s", tc_error_msg(&err));
	tc_error_clear(&err);
	mt = tc_json_get(c->m.doc, "optimization_target");
	if (!same_set(tc_json_get(mt, "case_ids"), tc_json_get(dt, "case_ids")))
		tc_pypto_gate_fail(g, PEI, "optimization_target.case_ids differ from the "
		    "dispatched frozen target cases");
	if (!tc_json_equal(tc_json_get(mt, "selection_mode"),
	    tc_json_get(dt, "selection_mode")))
		tc_pypto_gate_fail(g, PEI, "optimization_target.selection_mode differs from the "
		    "dispatch");
	if (c->spec == NULL)
		tc_pypto_gate_fail(g, BLOCKED, "frozen %s", c->spec_error);
	else
		p2_spec_cases(c, g);
	p2_case_mapping(c, g);
	check_discovery(c, g);
	if (c->ev == NULL) {
		tc_pypto_gate_fail(g, PEI, "%s", c->ev_error);
		return;
	}
	p2_report_cases(c, g);
	if (c->base_ok && c->fin_ok)
		p2_same_protocol(c, g);
}

static void
gate_p3(struct ctx *c, tc_pypto_gate *g)
{
	char *msg;
	const char *bid, *fid;

	if (c->ev == NULL) {
		tc_pypto_gate_fail(g, PEI, "%s", c->ev_error);
		return;
	}
	if (c->perf == NULL) {
		tc_pypto_gate_fail(g, PEI, "performance.json is missing or not JSON");
		return;
	}
	if (!c->base_ok || !c->fin_ok)
		return;	/* load_rounds already failed this gate */
	bid = tc_json_get_string(c->base.collection, "collection_id");
	fid = tc_json_get_string(c->fin.collection, "collection_id");
	if (ev_str(c, "baseline_collection_id") == NULL ||
	    strcmp(ev_str(c, "baseline_collection_id"), bid) != 0)
		tc_pypto_gate_fail(g, PEI, "baseline_collection_id %s is not the collection of "
		    "the baseline round (%s)", ev_str(c, "baseline_collection_id") ?
		    ev_str(c, "baseline_collection_id") : "(missing)", bid);
	if (ev_str(c, "final_collection_id") == NULL ||
	    strcmp(ev_str(c, "final_collection_id"), fid) != 0)
		tc_pypto_gate_fail(g, PEI, "final_collection_id %s is not the collection of the "
		    "final round (%s)", ev_str(c, "final_collection_id") ?
		    ev_str(c, "final_collection_id") : "(missing)", fid);
	if (strcmp(bid, fid) == 0 || c->base.index == c->fin.index)
		tc_pypto_gate_fail(g, PEI, "baseline and final must be two independent formal "
		    "compares (distinct collection ids and rounds)");
	if (c->base.index > c->fin.index)
		tc_pypto_gate_fail(g, PEI, "the baseline round_%03d was collected after the final "
		    "round_%03d", c->base.index, c->fin.index);
	if ((msg = tc_pypto_performance_error(c->op_dir, c->perf)) != NULL) {
		tc_pypto_gate_fail(g, PEI, "performance.json does not re-verify against its round: "
		    "%s", msg);
		free(msg);
	} else {
		tc_pypto_gate_note(g, "performance.json re-verified against %s",
		    tc_json_get_string(c->perf, "deep_profile_round"));
	}
	if (tc_json_get_string(c->perf, "collection_id") == NULL ||
	    strcmp(tc_json_get_string(c->perf, "collection_id"), fid) != 0)
		tc_pypto_gate_fail(g, PEI, "the root performance.json is not the final compare "
		    "(collection %s, final %s)",
		    tc_json_get_string(c->perf, "collection_id") ?
		    tc_json_get_string(c->perf, "collection_id") : "?", fid);
	{
		const char *fsha = tc_json_get_string(c->fin.collection,
		    "executable_sha256");
		const char *rsha = ev_str(c, "final_source_sha256");

		if (!c->runner_ok)
			tc_pypto_gate_fail(g, PEI, "the Stage 4 runner test_<op>.py cannot be hashed");
		else if (fsha == NULL || strcmp(fsha, c->runner_sha) != 0)
			tc_pypto_gate_fail(g, PEI, "the final compare measured executable_sha256 %s, "
			    "but the current runner is %s", fsha ? fsha : "?",
			    c->runner_sha);
		if (rsha == NULL || fsha == NULL || strcmp(rsha, fsha) != 0)
			tc_pypto_gate_fail(g, PEI, "the report's final_source_sha256 does not name "
			    "the final compare's implementation");
		if (!g->failed)
			tc_pypto_gate_note(g, "final compare, performance.json, report and "
			    "current runner share executable_sha256 %s", fsha);
	}
	check_timelines(c, g);
}

/* The interleaved figures the report gives for one case or the
 * aggregate equal the record's. */
static bool
figures_match(const tc_json *shown, const tc_json *rec)
{
	static const char *const keys[] = { "median_ratio", "ci95", "spread",
	    "change", NULL };

	for (size_t k = 0; keys[k] != NULL; k++)
		if (tc_json_get(rec, keys[k]) != NULL &&
		    !tc_json_equal(tc_json_get(shown, keys[k]), tc_json_get(rec,
		    keys[k])))
			return false;
	return true;
}

/*
 * P4, beyond the reference: the result comes from the latest interleaved
 * compare of the final code against the frozen baseline, re-verified from
 * its raw files; its per-case and aggregate figures are the report's; a
 * final code other than the baseline must be faster beyond the noise, and
 * the baseline kept is "no change kept".  c->result gets the figures.
 */
static void
check_interleaved(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *fi = tc_json_get(c->ev, "final_interleaved");
	const char *bsha = tc_json_get_string(c->base.collection,
	    "executable_sha256");
	const char *fsha = tc_json_get_string(c->fin.collection,
	    "executable_sha256");
	const char *path = tc_json_get_string(fi, "path");
	const char *shown = tc_json_get_string_or(c->ev, "result", "?");
	tc_error e = TC_ERROR_INIT;
	tc_json *all, *rec;
	const char *want;
	size_t i;

	if (path == NULL || bsha == NULL || fsha == NULL) {
		tc_pypto_gate_fail(g, PEI, "the report names no interleaved compare "
		    "of the final code against the frozen baseline "
		    "(final_interleaved.path): a speedup is only claimed from one");
		return;
	}
	if ((all = tc_pypto_ab_find(c->op_dir, bsha, fsha, &e)) == NULL) {
		tc_pypto_gate_fail(g, PEI, "an interleaved compare does not "
		    "re-verify: %s", tc_error_msg(&e));
		tc_error_clear(&e);
		return;
	}
	if (all->u.arr.len == 0 || strcmp(tc_json_get_string_or(
	    all->u.arr.items[all->u.arr.len - 1], "path", ""), path) != 0) {
		tc_pypto_gate_fail(g, PEI, "the report's interleaved compare %s is "
		    "not the latest one of the final code (sha256 %s) against the "
		    "frozen baseline (sha256 %s)", path, fsha, bsha);
		tc_json_free(all);
		return;
	}
	rec = all->u.arr.items[all->u.arr.len - 1];
	for (i = 0; i < c->m.n; i++) {
		const char *id = c->m.cases[i].id;

		if (!figures_match(tc_json_get(ev_case(c, id), "interleaved"),
		    tc_pypto_ab_case(rec, id)))
			tc_pypto_gate_fail(g, PEI, "case %s: the report's interleaved "
			    "figures are not those of %s", id, path);
	}
	if (!figures_match(tc_json_get(fi, "aggregate"), tc_json_get(rec,
	    "aggregate")))
		tc_pypto_gate_fail(g, PEI, "the report's interleaved aggregate is "
		    "not that of %s", path);
	want = strcmp(bsha, fsha) == 0 ? "no_change_kept" : tc_json_get_string_or(
	    tc_json_get(rec, "aggregate"), "change", "no_change");
	if (strcmp(shown, want) != 0)
		tc_pypto_gate_fail(g, PEI, "the report's result is %s, the "
		    "interleaved compare says %s", shown, want);
	if (strcmp(bsha, fsha) != 0 && strcmp(want, "faster") != 0)
		tc_pypto_gate_fail(g, PICI, "the final code is not the frozen "
		    "baseline, but the interleaved compare %s finds it %s: a "
		    "version is kept only when it is faster beyond the noise; "
		    "re-select (the baseline is kept when nothing is)", path,
		    want);
	tc_json_free(c->result);
	c->result = tc_json_new_object();
	tc_json_object_set_string(c->result, "status", want);
	tc_json_object_set_string(c->result, "interleaved", path);
	tc_json_object_set(c->result, "pairs", tc_pj_clone(tc_json_get(rec,
	    "pairs")));
	tc_json_object_set(c->result, "aggregate", tc_json_clone(tc_json_get(
	    rec, "aggregate")));
	tc_json_object_set(c->result, "per_case", tc_json_new_array());
	for (i = 0; i < c->m.n; i++) {
		const tc_json *rc = tc_pypto_ab_case(rec, c->m.cases[i].id);
		tc_json *x = tc_json_new_object();

		tc_json_object_set_string(x, "case", c->m.cases[i].id);
		tc_json_object_set(x, "speedup", tc_pj_clone(tc_json_get(rc,
		    "median_ratio")));
		tc_json_object_set(x, "ci95", tc_pj_clone(tc_json_get(rc, "ci95")));
		tc_json_object_set(x, "change", tc_pj_clone(tc_json_get(rc,
		    "change")));
		tc_json_array_push(tc_json_get(c->result, "per_case"), x);
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "interleaved compare %s re-verified: result "
		    "%s", path, want);
	tc_json_free(all);
}

static void
gate_p4(struct ctx *c, tc_pypto_gate *g)
{
	size_t i, j;

	if (c->ev == NULL || !c->base_ok || !c->fin_ok || !c->manifest_ok) {
		tc_pypto_gate_fail(g, PEI, "per-case durations cannot be recomputed (baseline, "
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
			tc_pypto_gate_fail(g, PEI, "case %s lacks a baseline or final formal "
			    "measurement", id);
			continue;
		}
		sp = b->aggregate_us / f->aggregate_us;
		if (!isfinite(sp) || sp <= 0) {
			tc_pypto_gate_fail(g, PEI, "case %s: speedup is not finite positive", id);
			continue;
		}
		if (e == NULL || !tc_pj_positive(tc_json_get(e, "baseline_us"), &rb) ||
		    !tc_pj_positive(tc_json_get(e, "final_us"), &rf) ||
		    !tc_pj_positive(tc_json_get(e, "speedup"), &rs)) {
			tc_pypto_gate_fail(g, PEI, "case %s: the report lacks finite positive "
			    "baseline_us, final_us and speedup", id);
			continue;
		}
		if (!display_equal(rb, b->aggregate_us))
			tc_pypto_gate_fail(g, PEI, "case %s: report baseline_us does not match the "
			    "baseline round aggregate", id);
		if (!display_equal(rf, f->aggregate_us))
			tc_pypto_gate_fail(g, PEI, "case %s: report final_us does not match the "
			    "final round aggregate", id);
		if (!display_equal(rs, sp))
			tc_pypto_gate_fail(g, PEI, "case %s: speedup does not recompute as "
			    "baseline/final", id);
		for (j = 0; j < i; j++) {
			const tc_pypto_round_case *o = round_case(&c->fin,
			    c->m.cases[j].id);
			const tc_json *oe = ev_case(c, c->m.cases[j].id);
			double ob = 0, of = 0;

			if (o != NULL && o->aggregate_us == f->aggregate_us)
				tc_pypto_gate_fail(g, PEI, "cases %s and %s carry one copied final "
				    "aggregate", c->m.cases[j].id, id);
			if (oe != NULL &&
			    tc_pj_positive(tc_json_get(oe, "final_us"), &of) &&
			    tc_pj_positive(tc_json_get(oe, "baseline_us"), &ob) &&
			    (of == rf || ob == rb))
				tc_pypto_gate_fail(g, PEI, "cases %s and %s present one aggregate "
				    "duration as per-case values", c->m.cases[j].id, id);
		}
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "per-case speedup = baseline/final recomputed for "
		    "%zu cases", c->m.n);
	check_interleaved(c, g);
}

static void
gate_p5(struct ctx *c, tc_pypto_gate *g)
{
	const tc_json *fc = tc_json_get(c->ev, "final_correctness");
	int64_t rc;

	if (tc_json_is(fc, TC_JSON_OBJECT) &&
	    tc_pj_int(tc_json_get(fc, "exit_code"), &rc) && rc != 0)
		tc_pypto_gate_fail(g, "precision_failure", "the recorded final "
		    "correctness run exited %lld", (long long)rc);
	/* The final code is run now; a recorded run is never reused. */
	if (c->final_run == NULL) {
		tc_pypto_gate_fail(g, "runtime_failure", "the final test could not "
		    "be started");
	} else if (!tc_json_truthy(tc_json_get(c->final_run, "passed"))) {
		const char *p = tc_json_get_string(c->final_run, "problem");

		tc_pypto_gate_fail(g, p != NULL && strncmp(p, "exit code", 9) == 0 ?
		    "runtime_failure" : "precision_failure", "python test_<op>.py "
		    "now: %s", p != NULL ? p : "failed");
	} else {
		tc_pypto_gate_note(g, "python test_<op>.py run now (sha256 %s): exit "
		    "0, every P0 precision metric reported PASS",
		    tc_json_get_string(c->final_run, "runner_sha256"));
	}
}

static void
gate_p6(struct ctx *c, tc_pypto_gate *g)
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
		tc_pypto_gate_fail(g, PEI, "the report or performance.json is unusable");
		return;
	}
	if (pt != NULL && pt->type != TC_JSON_NULL) {
		if (kind == NULL || strcmp(kind, "spec_user_target") != 0 ||
		    !tc_json_equal(tc_json_get(t, "spec_perf_target"), pt))
			tc_pypto_gate_fail(g, PEI, "SPEC records a user perf_target; the report "
			    "must cite it (target.kind spec_user_target, "
			    "spec_perf_target equal)");
		else
			tc_pypto_gate_note(g, "report cites the SPEC user target");
	}
	have = tc_pypto_golden_load(c->op_dir, &gd, &err);
	if (have < 0) {
		tc_pypto_gate_fail(g, PEI, "the existing Stage 5 Golden contract is contradictory "
		    "or not recomputable: %s", tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	if (have == 0) {
		if (pt == NULL || pt->type == TC_JSON_NULL) {
			if (kind == NULL || strcmp(kind, "unavailable") != 0 ||
			    tc_js_is_blank(tc_json_get_string(t, "reason")))
				tc_pypto_gate_fail(g, PEI, "no user target and no Golden contract: "
				    "the report must state target.kind unavailable "
				    "with its raw reason");
			else
				tc_pypto_gate_note(g, "Golden reference unavailable, "
				    "disclosed: %s", tc_json_get_string(t, "reason"));
		}
		if (status == NULL || strcmp(status, "unavailable") != 0)
			tc_pypto_gate_fail(g, PEI, "performance.json default_target_status must be "
			    "unavailable without a Golden contract");
		return;
	}
	if (c->base_ok) {
		const tc_json *bgd = tc_json_get(tc_json_get(c->base.collection,
		    "performance_cases"), "golden_diagnostic");

		if (!tc_json_is(bgd, TC_JSON_OBJECT) ||
		    tc_json_get_string(bgd, "status") == NULL ||
		    strcmp(tc_json_get_string(bgd, "status"), "joined") != 0)
			tc_pypto_gate_fail(g, PEI, "the Golden contract was not frozen before the "
			    "baseline compare (baseline golden_diagnostic is not "
			    "joined)");
	}
	if ((pt == NULL || pt->type == TC_JSON_NULL) &&
	    (kind == NULL || strcmp(kind, "default_golden") != 0))
		tc_pypto_gate_fail(g, PEI, "with a Golden contract and no user target the report "
		    "must use target.kind default_golden");
	for (i = 0; c->fin_ok && i < gd.n; i++) {
		const tc_pypto_round_case *f = round_case(&c->fin, gd.cases[i].id);
		const tc_json *e = ev_case(c, gd.cases[i].id);
		const tc_json *met = tc_json_get(e, "target_met");
		double ratio, rr;

		if (f == NULL) {
			tc_pypto_gate_fail(g, PEI, "Golden case %s was not measured in the final "
			    "compare", gd.cases[i].id);
			continue;
		}
		ratio = gd.cases[i].per_iteration_us / f->aggregate_us;
		if (!tc_pj_positive(tc_json_get(e, "golden_reference_ratio"), &rr) ||
		    !display_equal(rr, ratio))
			tc_pypto_gate_fail(g, PEI, "case %s: golden_reference_ratio does not "
			    "recompute as Golden per-iteration E2E / final PyPTO "
			    "kernel", gd.cases[i].id);
		if (!tc_json_is(met, TC_JSON_BOOL) || met->u.b != (ratio >= 1.0))
			tc_pypto_gate_fail(g, PEI, "case %s: target_met does not follow ratio >= "
			    "1.0", gd.cases[i].id);
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "Golden ratios recomputed per case; status %s "
		    "disclosed (met/not met never decides PASS)", status ?
		    status : "?");
	tc_pypto_golden_free(&gd);
}

static char *
ev_path(struct ctx *c, tc_pypto_gate *g, const char *key)
{
	const char *v = ev_str(c, key);
	tc_error err = TC_ERROR_INIT;
	char *p;

	if (v == NULL) {
		tc_pypto_gate_fail(g, PICI, "the report names no %s file", key);
		return NULL;
	}
	p = tc_path_under_root(c->op_dir, v, key, &err);
	if (p == NULL)
		tc_pypto_gate_fail(g, PICI, "%s", tc_error_msg(&err));
	tc_error_clear(&err);
	return p;
}

static void
p7_missing_rounds(struct ctx *c, tc_pypto_gate *g, const tc_json *sel)
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
				tc_pypto_gate_fail(g, PICI, "round_%03d (executable_sha256 %s) completed a "
				    "formal compare but its version is missing from the "
				    "candidate table", r.index, sha ? sha : "?");
			tc_pypto_round_free(&r);
		}
		tc_error_clear(&err);
		free(rel);
		free(abs);
	}
}

/* P7: the item ledger is closed. */
static void
p7_ledger(struct ctx *c, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	const tc_json *errs;
	tc_json *ledger, *rep;
	char *lp;
	size_t i;
	bool ok;

	if ((lp = ev_path(c, g, "ledger")) == NULL)
		return;
	if ((ledger = tc_pypto_ledger_load(lp, &err)) == NULL) {
		tc_pypto_gate_fail(g, PICI, "%s", tc_error_msg(&err));
	} else {
		rep = tc_pypto_ledger_validate(ledger, true, &ok);
		errs = tc_json_get(rep, "errors");
		for (i = 0; i < errs->u.arr.len && i < 5; i++)
			tc_pypto_gate_fail(g, PICI, "ledger: %s",
			    tc_json_string(errs->u.arr.items[i]));
		if (ok)
			tc_pypto_gate_note(g, "ledger closed: every source "
			    "enumerated and closed, final sweep recorded");
		tc_json_free(rep);
		c->ledger = ledger;
	}
	tc_error_clear(&err);
	free(lp);
}

/* The interleaved compare (P4, re-verified) supports the selection: the
 * baseline kept, or the final code faster beyond the noise.  It measures
 * both in turns, so it decides where two separate rounds only show the
 * machine's drift. */
static bool
interleaved_agrees(const struct ctx *c)
{
	const char *st = tc_json_get_string(c->result, "status");

	return st != NULL && (strcmp(st, "no_change_kept") == 0 ||
	    strcmp(st, "faster") == 0);
}

/* P7: the best version's independent final compare (c->fin) agrees with
 * its ranking round sr within the frozen stability range, or the
 * interleaved compare settles the question. */
static void
p7_final_agrees(struct ctx *c, tc_pypto_gate *g, const tc_pypto_round *sr)
{
	const tc_json *stab = tc_json_get(tc_json_get(c->contract,
	    "selection"), "stability_range");
	const tc_json *tids = tc_json_get(tc_json_get(c->contract,
	    "optimization_target"), "case_ids");
	size_t n = c->base.n, i;
	double *bd = tc_xcalloc(n + 1, sizeof(double));
	double *sd = tc_xcalloc(n + 1, sizeof(double));
	double *fd = tc_xcalloc(n + 1, sizeof(double));
	bool *tm = tc_xcalloc(n + 1, sizeof(bool));
	const char **ids = tc_xcalloc(n + 1, sizeof(char *));
	tc_error err = TC_ERROR_INIT;
	tc_pypto_score_in in[2];
	tc_pypto_selection_rule rule;
	bool complete = true;
	tc_json *r;

	for (i = 0; i < n; i++) {
		const tc_pypto_round_case *a = round_case(sr, c->base.cases[i].id);
		const tc_pypto_round_case *z = round_case(&c->fin,
		    c->base.cases[i].id);

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
	rule.relative = tc_json_get_string(stab, "kind") != NULL &&
	    strcmp(tc_json_get_string(stab, "kind"), "relative") == 0;
	rule.stability_value = tc_json_get_string(stab, "value");
	in[0].id = "ranking";
	in[0].evaluation_order = 0;
	in[0].rankable = true;
	in[0].durations = sd;
	in[1].id = "final";
	in[1].evaluation_order = 1;
	in[1].rankable = true;
	in[1].durations = fd;
	r = complete ? tc_pypto_rank(&rule, in, 2, &err) : NULL;
	if (r == NULL)
		tc_pypto_gate_fail(g, PEI, "final vs ranking data cannot be "
		    "compared: %s", complete ? tc_error_msg(&err) :
		    "case sets differ");
	else if (tc_json_get(r, "tie_set")->u.arr.len != 2 &&
	    interleaved_agrees(c))
		tc_pypto_gate_note(g, "the independent final compare differs "
		    "from the ranking data by more than the frozen stability "
		    "range, but the interleaved compare %s measured the final code "
		    "and the frozen baseline in turns and agrees with the "
		    "selection (%s): the machine drifted between separate rounds, "
		    "the code did not (disclosed)", tc_json_get_string_or(c->result,
		    "interleaved", "?"), tc_json_get_string_or(c->result, "status",
		    "?"));
	else if (tc_json_get(r, "tie_set")->u.arr.len != 2)
		tc_pypto_gate_fail(g, PICI, "the independent final compare "
		    "differs from the ranking data by more than the frozen "
		    "stability range; re-measure the affected candidates with the "
		    "same protocol and re-select");
	else
		tc_pypto_gate_note(g, "independent final compare agrees with the "
		    "ranking data within the frozen stability range");
	tc_json_free(r);
	tc_error_clear(&err);
	free(bd);
	free(sd);
	free(fd);
	free(tm);
	free(ids);
}

/* P7: the recomputed selection is the report's best version, the final
 * code, and was compared again independently. */
static void
p7_selected(struct ctx *c, tc_pypto_gate *g, const tc_json *sel)
{
	const tc_json *s = tc_json_get(sel, "selected");
	const char *sid = tc_json_get_string(s, "candidate_id");
	const char *best = ev_str(c, "best_candidate_id");
	const char *ssha = tc_json_get_string(s, "executable_sha256");
	const char *fsha = c->fin_ok ? tc_json_get_string(c->fin.collection,
	    "executable_sha256") : NULL;
	tc_error err = TC_ERROR_INIT;
	tc_pypto_round sr;

	if (best == NULL || strcmp(best, sid) != 0)
		tc_pypto_gate_fail(g, PICI, "the recomputed best version is %s, the report "
		    "claims %s", sid, best ? best : "(none)");
	else
		tc_pypto_gate_note(g, "ranking recomputed: %s selected (anchor %s)",
		    sid, tc_json_get_string(sel, "anchor"));
	if (fsha != NULL && (ssha == NULL || strcmp(ssha, fsha) != 0))
		tc_pypto_gate_fail(g, PICI, "the final code (executable_sha256 %s) is not the "
		    "selected best version (%s)", fsha, ssha ? ssha : "?");
	if (!c->fin_ok)
		return;
	if (tc_pypto_round_verify(c->op_dir, tc_json_get_string(s, "round"),
	    &sr, &err) == 0) {
		if (sr.index == c->fin.index)
			tc_pypto_gate_fail(g, PICI, "the best version has no independent "
			    "final formal compare (final round is its ranking "
			    "round)");
		else
			p7_final_agrees(c, g, &sr);
		tc_pypto_round_free(&sr);
	} else {
		tc_pypto_gate_fail(g, PEI, "the selected candidate's round: %s",
		    tc_error_msg(&err));
	}
	tc_error_clear(&err);
	p7_missing_rounds(c, g, sel);
}

static void
gate_p7(struct ctx *c, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	tc_pypto_select_opts so;
	tc_json *sel;
	char *cp;

	if (c->ev == NULL) {
		tc_pypto_gate_fail(g, PICI, "%s", c->ev_error);
		return;
	}
	p7_ledger(c, g);
	check_source_indexes(c, g);
	tc_pypto_gate_review(g, c->answers, "P7.promotion");
	if (c->contract == NULL) {
		tc_pypto_gate_fail(g, PICI, "no frozen selection rule (%s)",
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
		tc_pypto_gate_fail(g, PEI, "the ranking cannot be recomputed: %s",
		    tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	p7_selected(c, g, sel);
	tc_json_free(sel);
}

static void
gate_p8(struct ctx *c, tc_pypto_gate *g)
{
	static const char *const ideal_roof[] = { "compute_bound",
	    "data_movement_bound", "balanced_compute_movement", NULL };
	static const char *const residual_roof[] = { "scalar_bound",
	    "wait_bound", NULL };
	static const char *const ok_pipe[] = { "proven", "not_applicable_with_dag",
	    "residual_not_overlapped", NULL };
	size_t i, k;

	if (c->ev == NULL || !c->manifest_ok) {
		tc_pypto_gate_fail(g, PEI, "the report or manifest is unusable");
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
				tc_pypto_gate_note(g, "case %s: residual roofline state %s "
				    "(does not fail by itself; P7 closes the related "
				    "candidates)", id, rs);
			}
		for (k = 0; ps != NULL && ok_pipe[k] != NULL; k++)
			pok = pok || strcmp(ps, ok_pipe[k]) == 0;
		if (!rok)
			tc_pypto_gate_fail(g, PEI, "case %s: roofline_terminal.status %s is not "
			    "evaluable", id, rs ? rs : "(missing)");
		if (!pok)
			tc_pypto_gate_fail(g, PEI, "case %s: pipeline_evidence.status %s is not "
			    "evaluable", id, ps ? ps : "(missing)");
		if (!(tc_json_is(dom, TC_JSON_BOOL)))
			tc_pypto_gate_fail(g, PEI, "case %s: scalar_evidence.dominant must be true "
			    "or false (unknown is not evaluable)", id);
		for (k = 0; k < 3; k++) {
			const tc_json *obj = k == 0 ? rt : k == 1 ? pe : se;

			if (tc_js_is_blank(tc_json_get_string(obj, "basis")))
				tc_pypto_gate_fail(g, PEI, "case %s: %s has no basis", id,
				    k == 0 ? "roofline_terminal" : k == 1 ?
				    "pipeline_evidence" : "scalar_evidence");
		}
		if (ps != NULL && strcmp(ps, "proven") == 0 && c->fin_ok) {
			char *dn = tc_pypto_case_dir_name(id);
			char *tp = tc_xasprintf("%s/%s/instruction_timeline/"
			    "timeline_evidence.json", c->fin.path, dn);

			if (!tc_is_regular_file(tp))
				tc_pypto_gate_fail(g, PEI, "case %s: pipeline proven without "
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
				tc_pypto_gate_fail(g, PEI, "case %s: not_applicable_with_dag needs the "
				    "attached Tile DAG (pipeline_evidence.dag)", id);
			free(p);
			tc_error_clear(&err);
		}
		if (tc_json_is(dom, TC_JSON_BOOL) && dom->u.b)
			tc_pypto_gate_note(g, "case %s: Scalar dominant (residual, "
			    "disclosed)", id);
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "every P0 case has structured roofline, pipeline "
		    "and scalar evidence in an evaluable state");
	for (i = 0; i < c->m.n; i++) {
		static const char *const parts[] = { "roofline", "pipeline",
		    "scalar" };

		for (k = 0; k < 3; k++) {
			char *id = tc_xasprintf("P8.%s.%s", c->m.cases[i].id,
			    parts[k]);

			tc_pypto_gate_review(g, c->answers, id);
			free(id);
		}
	}
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

/* The dispatch a confirmed Stage 5 implies (docs/spec/pypto.md "Stage 5
 * check routing"): stage4_path from the state and the target cases from
 * the entry confirmation; NULL without a confirmation. */
tc_json *
tc_pypto_stage5_dispatch_of(const tc_json *state)
{
	const tc_json *c = tc_pypto_consent(state);
	tc_json *d;

	if (c == NULL)
		return NULL;
	d = tc_json_new_object();
	tc_json_object_set(d, "stage4_path", tc_json_get(state, "stage4_path") !=
	    NULL ? tc_json_clone(tc_json_get(state, "stage4_path")) :
	    tc_json_new_null());
	tc_json_object_set(d, "optimization_target", tc_pj_clone(tc_json_get(c,
	    "optimization_target")));
	return d;
}

/* The dispatch: given, or derived from the state. */
static tc_json *
load_dispatch(const tc_pypto_check_opts *o, const tc_json *state,
    tc_error *err)
{
	tc_json *d;

	if (o->dispatch != NULL)
		return tc_json_clone(o->dispatch);
	if (o->dispatch_path != NULL)
		return tc_pj_load_object(o->dispatch_path, "dispatch", err);
	if ((d = tc_pypto_stage5_dispatch_of(state)) == NULL)
		tc_error_set(err, "no dispatch given and no Stage 5 entry "
		    "confirmation in the state to derive it from");
	return d;
}

static void
load_review(struct ctx *c, const tc_pypto_check_opts *o)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = NULL, *items;

	if (o->review != NULL)
		doc = tc_json_clone(o->review);
	else if (o->review_path != NULL &&
	    (doc = tc_pj_load_object(o->review_path, "review", &err)) == NULL)
		c->review_error = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	if (doc == NULL)
		return;
	c->review = tc_json_clone(doc);
	items = tc_pypto_review_items(c->op_dir);
	if (tc_pypto_review_read(doc, items, c->runner_ok ? c->runner_sha :
	    NULL, &c->answers, &err) != 0)
		c->review_error = tc_xstrdup(tc_error_msg(&err));
	tc_error_clear(&err);
	tc_json_free(items);
	tc_json_free(doc);
}

static bool
selected(const char *gates, const char *id)
{
	const char *p = gates;
	size_t n = strlen(id);

	if (gates == NULL)
		return true;
	while ((p = strstr(p, id)) != NULL) {
		if ((p == gates || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static const char *
gate_status(const tc_pypto_gate *g)
{
	if (g->skipped)
		return "SKIPPED";
	if (g->failed)
		return "FAIL";
	return g->missing->u.arr.len > 0 ? "INCOMPLETE" : "PASS";
}

static tc_json *
gate_json(tc_pypto_gate *g)
{
	tc_json *j = tc_json_new_object();

	tc_json_object_set_string(j, "gate", g->id);
	tc_json_object_set_string(j, "title", g->title);
	tc_json_object_set_string(j, "status", gate_status(g));
	if (g->failed)
		tc_json_object_set_string(j, "failure_category", g->category);
	else
		tc_json_object_set_null(j, "failure_category");
	tc_json_object_set(j, "evidence", g->evidence);
	tc_json_object_set(j, "missing", g->missing);
	g->evidence = NULL;
	g->missing = NULL;
	return j;
}

/* The primary category of a FAIL (docs/spec/pypto.md "Primary category"): a
 * frozen-contract block first, then the upstream-most specific category, then
 * the first failure. */
static const char *
primary_category(const tc_pypto_gate *g, size_t n)
{
	static const char *const order[] = { "stage5_contract_blocked",
	    "kb_selection_invalid", "golden_failure", "design_violation",
	    "cheating", "wrapper_boundary_violation", "kb_usage_invalid", NULL };
	size_t i, k;

	for (k = 0; order[k] != NULL; k++)
		for (i = 0; i < n; i++)
			if (g[i].failed && strcmp(g[i].category, order[k]) == 0)
				return order[k];
	for (i = 0; i < n; i++)
		if (g[i].failed)
			return g[i].category;
	return NULL;
}

#define N_GATES 25

static const char *const gate_ids[N_GATES] = {
	"S4.1", "S4.2", "S4.3", "S4.4", "S4.5", "S4.6", "S4.7", "S4.8", "S4.9",
	"S4.10", "S4.11", "S4.12", "S4.13", "S4.14", "S4.15", "C1", "C2",
	"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"
};
static const char *const gate_titles[N_GATES] = {
	"import gate", "file", "device", "precision standard", "no cheating",
	"buffer and sync edges", "Vector selection consistency", "runs",
	"precision passes", "generalization", "dynamic dims",
	"entry naming and optional signature", "delivery import safety",
	"knowledge usage", "wrapper boundary", "required inputs",
	"frozen inputs and updatable boundary", "files",
	"baseline consistency", "collection evidence",
	"comparability / recomputation", "no correctness regression",
	"target recomputation & disclosure", "item & best-version closure",
	"Roofline / Scalar / pipeline"
};

static tc_json *
dispatch_invalid(const char *why, const tc_json *dispatch)
{
	tc_json *out = tc_json_new_object();

	tc_pj_doc_header(out, "pypto_stage5_check");
	tc_json_object_set_string(out, "verdict", "FAILED");
	tc_json_object_set_string(out, "failure_category", "dispatch_invalid");
	tc_json_object_set(out, "failed_checks", tc_json_new_array());
	tc_json_object_set_string(out, "evidence", why);
	tc_json_object_set(out, "dispatch", dispatch != NULL ?
	    tc_json_clone(dispatch) : tc_json_new_null());
	tc_json_object_set(out, "gates", tc_json_new_array());
	tc_json_object_set(out, "missing_evidence", tc_json_new_array());
	tc_json_object_set(out, "missing_owners", tc_json_new_array());
	return out;
}

static void
run_gates(struct ctx *c, const tc_pypto_check_opts *o, tc_pypto_gate *g)
{
	tc_pypto_s4_in s4;
	bool s4_failed = false;
	size_t i;

	memset(&s4, 0, sizeof(s4));
	s4.op_dir = c->op_dir;
	s4.interpreter = o->interpreter != NULL ? o->interpreter : "python3";
	s4.timeout_s = o->timeout_s;
	s4.answers = c->answers;
	s4.final_run = c->final_run;
	tc_pypto_stage4_gates(&s4, g);
	for (i = 0; i < 15; i++)
		s4_failed = s4_failed || (g[i].failed && selected(o->gates,
		    g[i].id));
	gate_inputs(c, &g[15]);
	gate_boundary(c, &g[16]);
	/* docs/spec/pypto.md "Stage 5 check gates": any Stage 4 failure fails
	 * the check without the performance gates. */
	if (s4_failed) {
		for (i = 17; i < N_GATES; i++) {
			g[i].skipped = true;
			tc_pypto_gate_note(&g[i], "not evaluated: a Stage 4 item "
			    "failed");
		}
		return;
	}
	gate_p1(c, &g[17]);
	if (c->ev != NULL)
		load_rounds(c, &g[19]);
	gate_p2(c, &g[18]);
	gate_p3(c, &g[19]);
	gate_p4(c, &g[20]);
	gate_p5(c, &g[21]);
	gate_p6(c, &g[22]);
	gate_p7(c, &g[23]);
	gate_p8(c, &g[24]);
}

tc_json *
tc_pypto_check_stage5(const tc_pypto_check_opts *o, tc_error *err)
{
	struct ctx c;
	tc_pypto_gate g[N_GATES];
	tc_json *out, *list, *failed, *missing, *owners;
	const char *primary, *derr;
	tc_error e2 = TC_ERROR_INIT;
	size_t i, k, passed = 0, counted = 0;
	char now[32];

	memset(&c, 0, sizeof(c));
	if ((c.op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return NULL;
	{
		char *sp = tc_path_join(c.op_dir, TC_PYPTO_STATE_FILE);

		if (tc_path_exists(sp))
			c.state = tc_json_parse_file(sp, NULL);
		free(sp);
	}
	c.dispatch = load_dispatch(o, c.state, &e2);
	derr = c.dispatch == NULL ? tc_error_msg(&e2) :
	    dispatch_error(c.dispatch);
	if (derr != NULL) {
		out = dispatch_invalid(derr, c.dispatch);
		tc_error_clear(&e2);
		ctx_free(&c);
		return out;
	}
	tc_error_clear(&e2);
	load_inputs(&c, o);
	load_review(&c, o);
	{
		size_t n = c.manifest_ok ? c.m.n : 0;

		c.final_run = tc_pypto_run_final_test(c.op_dir, o->interpreter,
		    o->timeout_s, n, &e2);
		tc_error_clear(&e2);
	}
	for (i = 0; i < N_GATES; i++)
		tc_pypto_gate_init(&g[i], gate_ids[i], gate_titles[i]);
	run_gates(&c, o, g);

	out = tc_json_new_object();
	list = tc_json_new_array();
	failed = tc_json_new_array();
	missing = tc_json_new_array();
	owners = tc_json_new_array();
	for (i = 0; i < N_GATES; i++) {
		if (!selected(o->gates, g[i].id)) {
			g[i].failed = false;
			continue;
		}
		counted++;
		if (g[i].failed)
			tc_json_array_push(failed, tc_json_new_string(g[i].id));
		for (k = 0; !g[i].failed && k < g[i].missing->u.arr.len; k++) {
			tc_json *m = tc_json_clone(g[i].missing->u.arr.items[k]);
			const char *ow = tc_json_get_string(m, "owner");

			tc_json_object_set_string(m, "gate", g[i].id);
			if (ow != NULL && !tc_pj_array_has_string(owners, ow))
				tc_json_array_push(owners, tc_json_new_string(ow));
			tc_json_array_push(missing, m);
		}
		passed += strcmp(gate_status(&g[i]), "PASS") == 0;
	}
	primary = primary_category(g, N_GATES);
	tc_pj_doc_header(out, "pypto_stage5_check");
	tc_json_object_set_string(out, "verdict", primary != NULL ? "FAILED" :
	    missing->u.arr.len > 0 || o->gates != NULL ? "NOT_COMPLETE" : "PASS");
	if (primary != NULL)
		tc_json_object_set_string(out, "failure_category", primary);
	else
		tc_json_object_set_null(out, "failure_category");
	tc_json_object_set(out, "failed_checks", failed);
	tc_json_object_set_int(out, "checks_total", (int64_t)counted);
	tc_json_object_set_int(out, "checks_passed", (int64_t)passed);
	tc_json_object_set_bool(out, "partial", o->gates != NULL);
	tc_json_object_set_string(out, "operator_dir", c.op_dir);
	tc_pypto_orch_now(now);
	tc_json_object_set_string(out, "checked_at", now);
	tc_json_object_set(out, "dispatch", tc_pj_clone(c.dispatch));
	tc_json_object_set(out, "runner_sha256", c.runner_ok ?
	    tc_json_new_string(c.runner_sha) : tc_json_new_null());
	tc_json_object_set(out, "entry_sha256", tc_json_get(tc_json_get(
	    tc_json_get(tc_pypto_orch_get(c.state), "stage5"), "entry"),
	    "sha256") != NULL ? tc_json_clone(tc_json_get(tc_json_get(
	    tc_json_get(tc_pypto_orch_get(c.state), "stage5"), "entry"),
	    "sha256")) : tc_json_new_null());
	tc_json_object_set(out, "review_error", c.review_error != NULL ?
	    tc_json_new_string(c.review_error) : tc_json_new_null());
	/* The review goes with the report it shaped, so that whoever holds
	 * a bound report can recompute it (complete_stage(5) does). */
	tc_json_object_set(out, "review", c.review != NULL ?
	    tc_json_clone(c.review) : tc_json_new_null());
	tc_json_object_set(out, "missing_evidence", missing);
	tc_json_object_set(out, "missing_owners", owners);
	tc_json_object_set(out, "final_run", c.final_run != NULL ?
	    tc_json_clone(c.final_run) : tc_json_new_null());
	tc_json_object_set(out, "result", c.result != NULL ?
	    tc_json_clone(c.result) : tc_json_new_null());
	for (i = 0; i < N_GATES; i++) {
		if (selected(o->gates, g[i].id))
			tc_json_array_push(list, gate_json(&g[i]));
		tc_json_free(g[i].evidence);
		tc_json_free(g[i].missing);
	}
	tc_json_object_set(out, "gates", list);
	ctx_free(&c);
	return out;
}

/* "Result (interleaved compare P, N pairs): S; case 1.234x [lo, hi], ..."
 * : the speedup stage5-check recomputed (P4). */
static void
render_result(tc_buf *b, const tc_json *res)
{
	const tc_json *pcs = tc_json_get(res, "per_case");
	size_t i;

	if (!tc_json_is(res, TC_JSON_OBJECT))
		return;
	tc_buf_printf(b, "Result (interleaved compare %s, %lld pairs): %s",
	    tc_json_get_string_or(res, "interleaved", "?"),
	    (long long)tc_pj_int_or(tc_json_get(res, "pairs"), 0),
	    tc_json_get_string_or(res, "status", "?"));
	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];
		const tc_json *ci = tc_json_get(c, "ci95");
		double sp = 0, lo = 0, hi = 0;

		(void)tc_json_number(tc_json_get(c, "speedup"), &sp);
		if (tc_json_is(ci, TC_JSON_ARRAY) && ci->u.arr.len == 2) {
			(void)tc_json_number(ci->u.arr.items[0], &lo);
			(void)tc_json_number(ci->u.arr.items[1], &hi);
		}
		tc_buf_printf(b, "%s %s %.3fx [%.3f, %.3f]", i == 0 ? ";" : ",",
		    tc_json_get_string_or(c, "case", "?"), sp, lo, hi);
	}
	tc_buf_putc(b, '\n');
}

char *
tc_pypto_check_render(const tc_json *r)
{
	tc_buf b = TC_BUF_INIT;
	const tc_json *gates = tc_json_get(r, "gates");
	const tc_json *failed = tc_json_get(r, "failed_checks");
	const tc_json *missing = tc_json_get(r, "missing_evidence");
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
		else
			tc_buf_puts(&b, "Evidence: (per gate below)\n");
	} else if (strcmp(verdict, "PASS") == 0) {
		tc_buf_printf(&b, "Stage 5 verification PASSED.\nAll %lld checks "
		    "passed.\nEvidence: P1-P8 and the Stage 4 rerun below; "
		    "residual states are disclosed, not escalated.\n",
		    (long long)tc_pj_int_or(tc_json_get(r, "checks_total"), 0));
		render_result(&b, tc_json_get(r, "result"));
	} else {
		tc_buf_puts(&b, "Stage 5 verification NOT COMPLETE: no check "
		    "failed, but evidence is missing (never a PASS without it):\n");
		for (i = 0; tc_json_is(missing, TC_JSON_ARRAY) &&
		    i < missing->u.arr.len; i++) {
			const tc_json *m = missing->u.arr.items[i];

			tc_buf_printf(&b, "  - [%s, %s] %s\n",
			    tc_json_get_string(m, "gate"),
			    tc_json_get_string(m, "owner"),
			    tc_json_get_string(m, "what"));
		}
		if (tc_json_truthy(tc_json_get(r, "partial")))
			tc_buf_puts(&b, "  - only a selection of gates was run "
			    "(--gates)\n");
	}
	for (i = 0; tc_json_is(gates, TC_JSON_ARRAY) && i < gates->u.arr.len;
	    i++) {
		const tc_json *g = gates->u.arr.items[i];
		const tc_json *ev = tc_json_get(g, "evidence");
		const tc_json *ms = tc_json_get(g, "missing");

		tc_buf_printf(&b, "%s %s: %s", tc_json_get_string(g, "gate"),
		    tc_json_get_string(g, "title"), tc_json_get_string(g, "status"));
		if (tc_json_get_string(g, "failure_category") != NULL)
			tc_buf_printf(&b, " (%s)",
			    tc_json_get_string(g, "failure_category"));
		tc_buf_putc(&b, '\n');
		for (k = 0; k < ev->u.arr.len; k++)
			tc_buf_printf(&b, "  - %s\n", tc_json_string(ev->u.arr.items[k]));
		for (k = 0; k < ms->u.arr.len; k++)
			tc_buf_printf(&b, "  ? %s\n", tc_json_get_string(
			    ms->u.arr.items[k], "what"));
	}
	if (strcmp(verdict, "FAILED") == 0)
		tc_buf_puts(&b, "Suggested action: repair within Stage 5 (evidence, "
		    "ledger closure, best-version selection, or the frozen-input "
		    "block), then re-run stage5-check; never roll back.\n");
	return tc_buf_detach(&b, NULL);
}
