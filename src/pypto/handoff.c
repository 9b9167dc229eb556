/*
 * handoff.c - the optimizer's handoff to the orchestrator
 * (docs/spec/pypto.md "Optimizer handoff", "Stage 5 exits") as a document with
 * a schema, its validator and the environment triage.  Exactly three exits:
 *
 *   closed                   the loop is closed: deliverables, per-case
 *                            baseline/final/speedup and target status, a
 *                            closed ledger, the best version (= the final
 *                            code), the commands run with their exit codes
 *   env_error                the environment triage: hardware (bad,
 *                            invisible or hung card: re-dispatch on another
 *                            device) or software (stop and report), with the
 *                            raw evidence and never a performance number
 *   stage5_contract_blocked  a frozen input is unusable or the frozen
 *                            contracts contradict: root cause, the frozen
 *                            inputs concerned, raw evidence
 *
 * Target met / not met and an unavailable Golden are disclosed in a
 * closed handoff; they are never an exit of their own.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

static const char *const keys[] = {
	"schema_version", "kind", "exit", "operator", "optimization_target",
	"summary", "commands", "deliverables", "per_case", "target", "ledger",
	"open_items", "best_version", "fact_record_changes",
	"residual_bottlenecks", "env_triage", "block", "notes", NULL
};

struct hv {
	const char *op_dir;
	const tc_json *h;
	tc_json *errors;
};

static void
bad(struct hv *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
bad(struct hv *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_pj_push_vfmt(v->errors, fmt, ap);
	va_end(ap);
}

static const char *
text(const tc_json *o, const char *key)
{
	const char *s = tc_json_get_string(o, key);

	return s != NULL && !tc_js_is_blank(s) ? s : NULL;
}

/* A file (or directory) the handoff names, inside the op dir. */
static void
need_path(struct hv *v, const char *label, const char *rel, bool dir)
{
	tc_error err = TC_ERROR_INIT;
	char *p;

	if (rel == NULL) {
		bad(v, "%s must name a path relative to the operator directory",
		    label);
		return;
	}
	if ((p = tc_path_under_root(v->op_dir, rel, label, &err)) == NULL) {
		bad(v, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return;
	}
	if (dir ? !tc_is_directory(p) : !tc_is_regular_file_nofollow(p))
		bad(v, "%s %s does not exist", label, rel);
	free(p);
}

static void
check_commands(struct hv *v, bool closed)
{
	const tc_json *cmds = tc_json_get(v->h, "commands");
	bool final_ok = false;
	size_t i;

	if (!tc_json_is(cmds, TC_JSON_ARRAY) || (closed && cmds->u.arr.len == 0)) {
		bad(v, "commands must list the correctness and performance "
		    "commands run, each {purpose, command, exit_code}");
		return;
	}
	for (i = 0; i < cmds->u.arr.len; i++) {
		const tc_json *c = cmds->u.arr.items[i];
		int64_t rc;

		if (text(c, "purpose") == NULL || text(c, "command") == NULL ||
		    !tc_pj_int(tc_json_get(c, "exit_code"), &rc)) {
			bad(v, "commands[%zu] needs purpose, command and an integer "
			    "exit_code", i);
			continue;
		}
		if (strcmp(text(c, "purpose"), "final_correctness") == 0 && rc == 0)
			final_ok = true;
	}
	if (closed && !final_ok)
		bad(v, "a closed handoff lists the final correctness command "
		    "(purpose final_correctness) with exit code 0");
}

static char *
runner_sha(const char *op_dir)
{
	tc_error err = TC_ERROR_INIT;
	char *runner = tc_pypto_find_runner(op_dir, &err);
	char hex[TC_SHA256_HEX_LEN + 1];
	char *out = NULL;

	if (runner != NULL && tc_sha256_file(runner, hex, NULL, &err) == 0)
		out = tc_xstrdup(hex);
	free(runner);
	tc_error_clear(&err);
	return out;
}

static void
check_per_case(struct hv *v)
{
	const tc_json *pcs = tc_json_get(v->h, "per_case");
	static const char *const st[] = { "met", "not_met", "unavailable", NULL };
	char *mp = tc_path_join(v->op_dir, "PERFORMANCE_CASES.json");
	tc_pypto_manifest m;
	tc_error err = TC_ERROR_INIT;
	bool loaded = tc_pypto_manifest_load(mp, &m, &err) == 0;
	size_t i, k;

	free(mp);
	if (!loaded) {
		bad(v, "PERFORMANCE_CASES.json cannot be used: %s",
		    tc_error_msg(&err));
		tc_error_clear(&err);
	}
	if (!tc_json_is(pcs, TC_JSON_ARRAY) || pcs->u.arr.len == 0) {
		bad(v, "per_case must list every P0 case with baseline_us, "
		    "final_us, speedup, golden_reference_ratio and target_status");
		goto out;
	}
	for (i = 0; i < pcs->u.arr.len; i++) {
		const tc_json *c = pcs->u.arr.items[i];
		const char *id = text(c, "case");
		const tc_json *ratio = tc_json_get(c, "golden_reference_ratio");
		double b, f, s, r;

		if (id == NULL) {
			bad(v, "per_case[%zu] needs its case id", i);
			continue;
		}
		if (!tc_pj_positive(tc_json_get(c, "baseline_us"), &b) ||
		    !tc_pj_positive(tc_json_get(c, "final_us"), &f) ||
		    !tc_pj_positive(tc_json_get(c, "speedup"), &s)) {
			bad(v, "case %s: baseline_us, final_us and speedup must be "
			    "finite positive numbers", id);
			continue;
		}
		if (!tc_py_isclose(s, b / f, 1e-6, 1e-9) &&
		    fabs(s - b / f) > 0.5e-4 * fmax(1, fabs(b / f)))
			bad(v, "case %s: speedup %g is not baseline_us / final_us "
			    "(%g)", id, s, b / f);
		if (ratio != NULL && ratio->type != TC_JSON_NULL &&
		    !tc_pj_positive(ratio, &r))
			bad(v, "case %s: golden_reference_ratio must be null or a "
			    "positive number", id);
		if (!tc_pypto__strv_has(st, tc_json_get_string(c, "target_status")))
			bad(v, "case %s: target_status must be met, not_met or "
			    "unavailable (a miss is disclosed, never an exit)", id);
		for (k = 0; loaded && k < m.n; k++)
			if (strcmp(m.cases[k].id, id) == 0)
				break;
		if (loaded && k == m.n)
			bad(v, "case %s is not in PERFORMANCE_CASES.json", id);
	}
	for (k = 0; loaded && k < m.n; k++) {
		bool found = false;

		for (i = 0; i < pcs->u.arr.len && !found; i++)
			found = tc_json_get_string(pcs->u.arr.items[i], "case") !=
			    NULL && strcmp(tc_json_get_string(pcs->u.arr.items[i],
			    "case"), m.cases[k].id) == 0;
		if (!found)
			bad(v, "per_case lacks P0 case %s (every P0 case is disclosed)",
			    m.cases[k].id);
	}
out:
	if (loaded)
		tc_pypto_manifest_free(&m);
}

static void
check_closed(struct hv *v)
{
	const tc_json *d = tc_json_get(v->h, "deliverables");
	const tc_json *rounds = tc_json_get(d, "rounds");
	const tc_json *t = tc_json_get(v->h, "target");
	const tc_json *bv = tc_json_get(v->h, "best_version");
	const tc_json *frc = tc_json_get(v->h, "fact_record_changes");
	static const char *const dk[][2] = {
		{ "test", "deliverables.test" },
		{ "manifest", "deliverables.manifest" },
		{ "report", "deliverables.report" },
		{ "performance_json", "deliverables.performance_json" },
		{ "performance_log", "deliverables.performance_log" },
		{ "perf_report", "deliverables.perf_report" },
	};
	static const char *const kinds[] = { "spec_user_target",
	    "default_golden", "unavailable", NULL };
	static const char *const st[] = { "met", "not_met", "unavailable", NULL };
	int64_t open;
	size_t i;
	char *sha;

	if (!tc_json_is(d, TC_JSON_OBJECT)) {
		bad(v, "a closed handoff names its deliverables");
	} else {
		for (i = 0; i < sizeof(dk) / sizeof(dk[0]); i++)
			need_path(v, dk[i][1], tc_json_get_string(d, dk[i][0]),
			    false);
		need_path(v, "deliverables.rounds.baseline",
		    tc_json_get_string(rounds, "baseline"), true);
		need_path(v, "deliverables.rounds.final",
		    tc_json_get_string(rounds, "final"), true);
	}
	check_per_case(v);
	if (!tc_pypto__strv_has(kinds, tc_json_get_string(t, "kind")) ||
	    !tc_pypto__strv_has(st, tc_json_get_string(t, "status")))
		bad(v, "target needs kind spec_user_target|default_golden|"
		    "unavailable and status met|not_met|unavailable");
	else if (strcmp(tc_json_get_string(t, "status"), "unavailable") == 0 &&
	    text(t, "reason") == NULL)
		bad(v, "an unavailable target discloses its raw reason");
	if (text(v->h, "ledger") == NULL) {
		bad(v, "a closed handoff names its item ledger");
	} else {
		tc_error err = TC_ERROR_INIT;
		char *lp = tc_path_under_root(v->op_dir, text(v->h, "ledger"),
		    "ledger", &err);
		tc_json *l = lp != NULL ? tc_pypto_ledger_load(lp, &err) : NULL;

		if (l == NULL) {
			bad(v, "ledger: %s", tc_error_msg(&err));
		} else {
			bool ok;
			tc_json *rep = tc_pypto_ledger_validate(l, true, &ok);

			if (!ok)
				bad(v, "the ledger is not closed: %s",
				    tc_json_string(tc_json_get(rep, "errors")->u.arr.
				    items[0]));
			tc_json_free(rep);
		}
		tc_json_free(l);
		free(lp);
		tc_error_clear(&err);
	}
	if (!tc_pj_int(tc_json_get(v->h, "open_items"), &open) || open != 0)
		bad(v, "a closed handoff has open_items 0 (every item legally "
		    "closed, the final sweep recorded)");
	sha = runner_sha(v->op_dir);
	if (text(bv, "candidate_id") == NULL ||
	    tc_json_get_string(bv, "executable_sha256") == NULL)
		bad(v, "best_version needs candidate_id and executable_sha256");
	else if (sha == NULL || strcmp(sha, tc_json_get_string(bv,
	    "executable_sha256")) != 0)
		bad(v, "best_version.executable_sha256 is not the final test_<op>.py "
		    "(%s): the final code must be the selected best version",
		    sha != NULL ? sha : "unreadable");
	free(sha);
	for (i = 0; tc_json_is(frc, TC_JSON_ARRAY) && i < frc->u.arr.len; i++) {
		const char *p = tc_json_string(frc->u.arr.items[i]);
		const char *base = p != NULL ? strrchr(p, '/') : NULL;

		base = base != NULL ? base + 1 : p;
		if (p == NULL || (strcmp(base, "DESIGN.md") != 0 &&
		    strcmp(base, "DESIGN_BINDINGS.json") != 0 &&
		    strcmp(base, "KB_USAGE.json") != 0))
			bad(v, "fact_record_changes may only name the as-built "
			    "DESIGN.md, DESIGN_BINDINGS.json and KB_USAGE.json");
	}
	if (frc != NULL && !tc_json_is(frc, TC_JSON_ARRAY))
		bad(v, "fact_record_changes must be a list");
	if (tc_json_get(v->h, "env_triage") != NULL ||
	    tc_json_get(v->h, "block") != NULL)
		bad(v, "a closed handoff carries neither env_triage nor block");
}

static void
check_env(struct hv *v)
{
	const tc_json *t = tc_json_get(v->h, "env_triage");
	const char *kind = tc_json_get_string(t, "kind");
	int64_t dev;

	if (!tc_json_is(t, TC_JSON_OBJECT)) {
		bad(v, "an env_error handoff carries env_triage");
		return;
	}
	if (kind == NULL || (strcmp(kind, "hardware") != 0 &&
	    strcmp(kind, "software") != 0))
		bad(v, "env_triage.kind must be hardware or software");
	if (text(t, "evidence") == NULL)
		bad(v, "env_triage.evidence carries the raw output of the "
		    "environment check");
	if (kind != NULL && strcmp(kind, "hardware") == 0 &&
	    (!tc_json_int64(tc_json_get(t, "device_id"), &dev) || dev < 0))
		bad(v, "a hardware triage names the failing device_id");
	if (tc_json_get(v->h, "per_case") != NULL)
		bad(v, "an env_error handoff never carries performance "
		    "conclusions (per_case)");
}

static void
check_blocked(struct hv *v)
{
	const tc_json *b = tc_json_get(v->h, "block");
	const tc_json *fi = tc_json_get(b, "frozen_inputs");
	size_t i;

	if (!tc_json_is(b, TC_JSON_OBJECT)) {
		bad(v, "a stage5_contract_blocked handoff carries block {root_cause, "
		    "frozen_inputs, evidence}");
		return;
	}
	if (text(b, "root_cause") == NULL)
		bad(v, "block.root_cause is required");
	if (text(b, "evidence") == NULL)
		bad(v, "block.evidence carries the raw evidence");
	if (!tc_json_is(fi, TC_JSON_ARRAY) || fi->u.arr.len == 0)
		bad(v, "block.frozen_inputs names the frozen inputs concerned");
	for (i = 0; tc_json_is(fi, TC_JSON_ARRAY) && i < fi->u.arr.len; i++)
		if (tc_json_string(fi->u.arr.items[i]) == NULL)
			bad(v, "block.frozen_inputs must be strings");
	if (tc_json_get(v->h, "per_case") != NULL)
		bad(v, "a blocked handoff never carries performance conclusions");
}

tc_json *
tc_pypto_env_triage(const tc_json *t)
{
	tc_json *r = tc_json_new_object();
	const char *kind = tc_json_get_string(t, "kind");
	int64_t dev = -1;

	(void)tc_json_int64(tc_json_get(t, "device_id"), &dev);
	if (kind != NULL && strcmp(kind, "hardware") == 0) {
		tc_json_object_set_string(r, "action", "redispatch_other_device");
		tc_json_object_set_int(r, "device_id", dev);
	} else {
		tc_json_object_set_string(r, "action", "stop_and_report");
		tc_json_object_set_null(r, "device_id");
	}
	return r;
}

int
tc_pypto_handoff_validate(const char *op_dir, const tc_json *h,
    const tc_json *state, tc_json **report, tc_error *err)
{
	struct hv v = { op_dir, h, tc_json_new_array() };
	const char *ex = tc_json_get_string(h, "exit");
	const tc_json *consent = state != NULL ? tc_pypto_consent(state) : NULL;
	int64_t sv;
	size_t i;

	*report = tc_json_new_object();
	if (!tc_json_is(h, TC_JSON_OBJECT)) {
		bad(&v, "the handoff must be a JSON object");
		goto done;
	}
	for (i = 0; i < h->u.obj.len; i++)
		if (!tc_pypto__strv_has(keys, h->u.obj.members[i].key))
			bad(&v, "unknown handoff field: %s", h->u.obj.members[i].key);
	if (!tc_pj_int(tc_json_get(h, "schema_version"), &sv) || sv != 1 ||
	    tc_json_get_string(h, "kind") == NULL ||
	    strcmp(tc_json_get_string(h, "kind"), "pypto_optimizer_handoff") != 0)
		bad(&v, "schema_version must be 1 and kind pypto_optimizer_handoff");
	if (tc_json_get_string(h, "operator") == NULL ||
	    strcmp(tc_json_get_string(h, "operator"),
	    tc_path_basename(op_dir)) != 0)
		bad(&v, "operator must be %s", tc_path_basename(op_dir));
	if (text(h, "summary") == NULL)
		bad(&v, "summary is required");
	if (consent != NULL && !tc_json_equal(tc_json_get(h,
	    "optimization_target"), tc_json_get(consent, "optimization_target")))
		bad(&v, "optimization_target must be the dispatched frozen target "
		    "cases, verbatim (never re-selected)");
	if (ex == NULL) {
		bad(&v, "exit must be closed, env_error or stage5_contract_blocked");
	} else if (strcmp(ex, "closed") == 0) {
		check_commands(&v, true);
		check_closed(&v);
	} else if (strcmp(ex, "env_error") == 0) {
		check_env(&v);
		tc_json_object_set(*report, "triage", tc_pypto_env_triage(
		    tc_json_get(h, "env_triage")));
	} else if (strcmp(ex, "stage5_contract_blocked") == 0) {
		check_blocked(&v);
	} else {
		bad(&v, "exit must be closed, env_error or stage5_contract_blocked "
		    "(a target miss or an unavailable Golden is disclosed in a "
		    "closed handoff, not an exit)");
	}
done:
	tc_json_object_set_bool(*report, "valid", v.errors->u.arr.len == 0);
	tc_json_object_set(*report, "exit", ex != NULL ? tc_json_new_string(ex) :
	    tc_json_new_null());
	if (tc_json_get(*report, "triage") == NULL)
		tc_json_object_set_null(*report, "triage");
	if (v.errors->u.arr.len > 0)
		tc_error_set(err, "%s", tc_json_string(v.errors->u.arr.items[0]));
	tc_json_object_set(*report, "errors", v.errors);
	return tc_json_is(tc_json_get(*report, "valid"), TC_JSON_BOOL) &&
	    tc_json_get(*report, "valid")->u.b ? 0 : -1;
}

tc_json *
tc_pypto_blocked_handoff(const char *op_dir, const tc_json *inputs,
    const tc_json *target)
{
	tc_json *h = tc_json_new_object(), *b = tc_json_new_object();
	tc_json *cmds = tc_json_new_array(), *c = tc_json_new_object();
	const tc_json *list = tc_json_get(inputs, "inputs");
	tc_buf ev = TC_BUF_INIT;
	size_t i;

	for (i = 0; tc_json_is(list, TC_JSON_ARRAY) && i < list->u.arr.len; i++) {
		const tc_json *in = list->u.arr.items[i];

		if (strcmp(tc_json_get_string(in, "status"), "present") != 0)
			tc_buf_printf(&ev, "%s: %s (%s)\n",
			    tc_json_get_string(in, "name"),
			    tc_json_get_string(in, "status"),
			    tc_json_get_string(in, "detail") != NULL ?
			    tc_json_get_string(in, "detail") : "-");
	}
	tc_pj_doc_header(h, "pypto_optimizer_handoff");
	tc_json_object_set_string(h, "exit", "stage5_contract_blocked");
	tc_json_object_set_string(h, "operator", tc_path_basename(op_dir));
	tc_json_object_set(h, "optimization_target", target != NULL ?
	    tc_json_clone(target) : tc_json_new_null());
	tc_json_object_set_string(h, "summary", "a required Stage 5 input is "
	    "missing or unparseable; Stage 5 never guesses or rebuilds a frozen "
	    "input");
	tc_json_object_set_string(c, "purpose", "required_inputs");
	tc_json_object_set_string(c, "command", "tunectl pypto inputs --op-dir");
	tc_json_object_set_int(c, "exit_code", 1);
	tc_json_array_push(cmds, c);
	tc_json_object_set(h, "commands", cmds);
	tc_json_object_set_string(b, "root_cause", "required Stage 5 inputs are "
	    "missing or unparseable");
	tc_json_object_set(b, "frozen_inputs", tc_pj_clone(tc_json_get(inputs,
	    "missing")));
	tc_json_object_set_string(b, "evidence", tc_buf_cstr(&ev));
	tc_json_object_set(h, "block", b);
	tc_buf_free(&ev);
	return h;
}
