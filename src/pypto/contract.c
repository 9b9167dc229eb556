/*
 * contract.c - tunectl's frozen experiment contract
 * (<op>/docs/perf/frozen_contract.json): the manifest source record with
 * its digest, the frozen target cases, the formal protocol (Op Name,
 * warm-up, repeats, retry, seed 42, timing source, case selector) and the
 * selection rule (aggregate metric, stability range, tie rule, promotion
 * rule).  The reference freezes these in PERFORMANCE_REPORT.md prose
 * before the first formal collection (docs/spec/pypto.md
 * "Frozen experiment contract", "Best-version selection"); tunectl records them
 * machine-readably, exclusively, and refuses to freeze after a round.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/timeutil.h"

static bool
decimal_text_ok(const char *s)
{
	size_t i = 0, digits = 0;

	if (s == NULL)
		return false;
	while (isdigit((unsigned char)s[i]))
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	return digits > 0 && s[i] == '\0';
}


static int
check_no_rounds(const char *op_dir, tc_error *err)
{
	char *perf = tc_path_join(op_dir, "docs/perf");
	DIR *d = opendir(perf);
	struct dirent *e;
	int rc = 0;

	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "round_", 6) == 0) {
				tc_error_set(err, "the experiment contract must be "
				    "frozen before the first formal collection, but "
				    "%s/%s exists", perf, e->d_name);
				rc = -1;
				break;
			}
		closedir(d);
	}
	free(perf);
	return rc;
}

static int
check_dispatch(const char *path, const tc_json *target, tc_error *err)
{
	tc_json *d = tc_pj_load_object(path, "dispatch", err);
	const tc_json *dt;
	int rc = 0;

	if (d == NULL)
		return -1;
	dt = tc_json_get(d, "optimization_target");
	if (!tc_json_is(dt, TC_JSON_OBJECT) ||
	    !tc_json_equal(tc_json_get(dt, "selection_mode"),
	    tc_json_get(target, "selection_mode")) ||
	    !tc_json_equal(tc_json_get(dt, "case_ids"),
	    tc_json_get(target, "case_ids"))) {
		tc_error_set(err, "PERFORMANCE_CASES.json optimization_target "
		    "differs from the dispatched frozen target cases; the "
		    "manifest must carry the dispatch verbatim");
		rc = -1;
	}
	tc_json_free(d);
	return rc;
}

/* With a confirmed Stage 5 entry the manifest carries the frozen target
 * verbatim. */
static int
check_consent_target(const char *op_dir, const tc_json *target,
    tc_error *err)
{
	char *sp = tc_path_join(op_dir, TC_PYPTO_STATE_FILE);
	tc_json *state = tc_path_exists(sp) ? tc_json_parse_file(sp, NULL) : NULL;
	const tc_json *c = tc_pypto_consent(state);
	int rc = 0;

	if (c != NULL && !tc_json_equal(tc_json_get(c, "optimization_target"),
	    target)) {
		tc_error_set(err, "PERFORMANCE_CASES.json optimization_target "
		    "differs from the target cases frozen at the Stage 5 entry "
		    "confirmation; the manifest carries them verbatim");
		rc = -1;
	}
	tc_json_free(state);
	free(sp);
	return rc;
}

/* The discovery record: docs/perf/discovery.json of this op dir, for this
 * manifest, with its digest (kept in "_path" / "_sha256"). */
static tc_json *
load_discovery(const char *op_dir, const char *path,
    const tc_pypto_manifest *m, tc_error *err)
{
	char *abs = tc_path_resolve(path, err), *want = NULL;
	char hex[TC_SHA256_HEX_LEN + 1];
	const char *why = NULL;
	tc_json *d = NULL;

	if (abs == NULL)
		return NULL;
	want = tc_path_join(op_dir, TC_PYPTO_DISCOVERY);
	if (strcmp(abs, want) != 0) {
		tc_error_set(err, "the discovery record is %s of the operator "
		    "directory", TC_PYPTO_DISCOVERY);
		goto out;
	}
	if (tc_sha256_file(abs, hex, NULL, err) != 0 ||
	    (d = tc_pj_load_object(abs, "discovery.json", err)) == NULL)
		goto out;
	if (tc_json_get_string(d, "kind") == NULL ||
	    strcmp(tc_json_get_string(d, "kind"), "pypto_discovery") != 0 ||
	    tc_json_get_string(d, "selected_op_name") == NULL)
		why = "discovery.json is not a discovery record";
	else if (!tc_json_equal(tc_json_get(tc_json_get(d, "performance_cases"),
	    "sha256"), tc_json_get(m->source, "sha256")))
		why = "the discovery ran with another manifest than the one being "
		    "frozen";
	if (why != NULL) {
		tc_error_set(err, "%s", why);
		tc_json_free(d);
		d = NULL;
		goto out;
	}
	tc_json_object_set_string(d, "_path", TC_PYPTO_DISCOVERY);
	tc_json_object_set_string(d, "_sha256", hex);
out:
	free(want);
	free(abs);
	return d;
}

static tc_json *
load_weights(const char *path, const tc_json *target, tc_error *err)
{
	tc_json *w = tc_pj_load_object(path, "weights", err);
	const tc_json *ids = tc_json_get(target, "case_ids");
	size_t i;

	if (w == NULL)
		return NULL;
	if (w->u.obj.len != ids->u.arr.len)
		goto bad;
	for (i = 0; i < ids->u.arr.len; i++) {
		const tc_json *v = tc_json_get(w,
		    tc_json_string(ids->u.arr.items[i]));

		if (!tc_pj_positive(v, NULL))
			goto bad;
	}
	return w;
bad:
	tc_json_free(w);
	tc_error_set(err, "weights must map every optimization_target case id, "
	    "and nothing else, to a positive number");
	return NULL;
}

/* The measurement options: counts, timing source, case selector, the
 * stability range and the promotion rule. */
static int
check_protocol_opts(const tc_pypto_freeze_opts *o, const char *src,
    tc_error *err)
{
	if (o->warmup < 0 || o->repeats < 1 || o->retry < 0) {
		if (o->warmup < 0)
			tc_error_set(err, "--warmup must be >= 0");
		else if (o->repeats < 1)
			tc_error_set(err, "--repeats must be >= 1");
		else
			tc_error_set(err, "--retry must be >= 0");
		return -1;
	}
	if (strcmp(src, "process_timer") != 0 &&
	    strcmp(src, "runner_reported") != 0) {
		tc_error_set(err, "--timing-source must be process_timer or "
		    "runner_reported");
		return -1;
	}
	if (o->case_arg != NULL && o->case_env != NULL) {
		tc_error_set(err, "--case-arg and --case-env are mutually "
		    "exclusive");
		return -1;
	}
	if (o->case_arg != NULL && (o->case_arg[0] != '-' ||
	    strcmp(o->case_arg, "--") == 0)) {
		tc_error_set(err, "--case-arg must be a CLI option such as "
		    "--case-id");
		return -1;
	}
	if (o->case_env != NULL && !tc_pj_env_name_ok(o->case_env)) {
		tc_error_set(err, "--case-env must be a valid environment "
		    "variable name");
		return -1;
	}
	if (o->stability_kind == NULL || (strcmp(o->stability_kind,
	    "absolute") != 0 && strcmp(o->stability_kind, "relative") != 0)) {
		tc_error_set(err, "--stability-kind must be absolute or relative");
		return -1;
	}
	if (!decimal_text_ok(o->stability_value)) {
		tc_error_set(err, "--stability-range must be a non-negative "
		    "decimal number such as 0.02 (no numeric default exists; "
		    "the optimizer must declare it)");
		return -1;
	}
	if (o->promotion_rule == NULL || tc_js_is_blank(o->promotion_rule)) {
		tc_error_set(err, "--promotion-rule must state the frozen quick "
		    "to formal promotion rule");
		return -1;
	}
	return 0;
}

/* How the runner is told which case to run: an option, a variable, the
 * cases' test functions, or nothing for a single case. */
static tc_json *
case_selector_json(const tc_pypto_freeze_opts *o, const tc_pypto_manifest *m,
    tc_error *err)
{
	tc_json *sel = tc_json_new_object();
	size_t i, with = 0;

	if (o->case_arg != NULL) {
		tc_json_object_set_string(sel, "kind", "cli");
		tc_json_object_set_string(sel, "name", o->case_arg);
		return sel;
	}
	if (o->case_env != NULL) {
		tc_json_object_set_string(sel, "kind", "env");
		tc_json_object_set_string(sel, "name", o->case_env);
		return sel;
	}
	for (i = 0; i < m->n; i++)
		with += m->cases[i].test_function != NULL;
	if (with == m->n) {
		tc_json_object_set_string(sel, "kind", "function_adapter");
		tc_json_object_set_string(sel, "name",
		    "PERFORMANCE_CASES.test_function");
	} else if (m->n == 1) {
		tc_json_object_set_string(sel, "kind", "single_case");
		tc_json_object_set_null(sel, "name");
	} else {
		tc_json_free(sel);
		tc_error_set(err, "the selected performance case source "
		    "contains %zu cases, but test_<op>.py needs an "
		    "explicit per-case selector. Refusing to reuse one "
		    "aggregate msprof duration for every case; rerun with "
		    "--case-arg/--case-env, or add a validated "
		    "test_function to every manifest case for the Stage 5 "
		    "adapter.", m->n);
		return NULL;
	}
	return sel;
}

static tc_json *
discovery_json(const tc_json *discovery)
{
	static const char *const copied[] = { "case_id", "selected_op_name",
	    NULL };
	tc_json *rec;
	size_t i;

	if (discovery == NULL)
		return tc_json_new_null();
	rec = tc_json_new_object();
	tc_json_object_set(rec, "path", tc_json_clone(tc_json_get(discovery,
	    "_path")));
	tc_json_object_set(rec, "sha256", tc_json_clone(tc_json_get(discovery,
	    "_sha256")));
	for (i = 0; copied[i] != NULL; i++)
		tc_json_object_set(rec, copied[i], tc_json_clone(tc_json_get(
		    discovery, copied[i])));
	return rec;
}

/* The selection rule; takes weights (NULL: equal weights). */
static tc_json *
selection_json(const tc_pypto_freeze_opts *o, tc_json *weights)
{
	tc_json *selection = tc_json_new_object(), *stab = tc_json_new_object();

	tc_json_object_set_string(selection, "aggregate_metric", weights != NULL ?
	    "weighted_mean_case_speedup" : "equal_weight_mean_case_speedup");
	tc_json_object_set(selection, "weights", weights != NULL ? weights :
	    tc_json_new_null());
	tc_json_object_set_string(stab, "kind", o->stability_kind);
	tc_json_object_set_string(stab, "value", o->stability_value);
	tc_json_object_set(selection, "stability_range", stab);
	tc_json_object_set_string(selection, "tie_rule",
	    "anchor_smallest_evaluation_order");
	tc_json_object_set_string(selection, "promotion_rule", o->promotion_rule);
	return selection;
}

/* The measurement protocol; takes the case selector. */
static tc_json *
protocol_json(const tc_pypto_freeze_opts *o, const char *op_name,
    const char *src, tc_json *sel)
{
	tc_json *protocol = tc_json_new_object();

	tc_json_object_set_string(protocol, "target_op_name", op_name);
	tc_json_object_set_int(protocol, "warmup", o->warmup);
	tc_json_object_set_int(protocol, "repeats", o->repeats);
	tc_json_object_set_int(protocol, "retry", o->retry);
	tc_json_object_set_int(protocol, "seed", 42);
	tc_json_object_set_string(protocol, "timing_source", src);
	tc_json_object_set(protocol, "case_selector", sel);
	return protocol;
}

/* The exact Op Name: the one discovery found (an --op-name must agree),
 * else --op-name. */
static int
pick_op_name(const tc_pypto_freeze_opts *o, const tc_json *discovery,
    const char **op_name, tc_error *err)
{
	const char *found;

	*op_name = o->op_name;
	if (discovery == NULL)
		return 0;
	found = tc_json_get_string(discovery, "selected_op_name");
	if (o->op_name != NULL && o->op_name[0] != '\0' &&
	    strcmp(o->op_name, found) != 0) {
		tc_error_set(err, "--op-name %s is not the Op Name the "
		    "discovery run found (%s)", o->op_name, found);
		return -1;
	}
	*op_name = found;
	return 0;
}

tc_json *
tc_pypto_contract_freeze(const tc_pypto_freeze_opts *o, tc_error *err)
{
	tc_pypto_manifest m;
	char *runner = NULL, *path = NULL, stamp[TC_TIMESTAMP_LEN + 1];
	tc_json *doc = NULL, *runner_rec = NULL, *sel;
	tc_json *weights = NULL, *target, *discovery = NULL;
	const char *op_name = o->op_name;
	char *op_dir;
	const char *src = o->timing_source != NULL ? o->timing_source :
	    "process_timer";

	if ((op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return NULL;
	if (tc_pypto_require_consent(op_dir, "freezing the Stage 5 contract",
	    err) != 0) {
		free(op_dir);
		return NULL;
	}
	if (tc_pypto_manifest_resolve(op_dir, o->manifest_path, &m, err) != 0) {
		free(op_dir);
		return NULL;
	}
	if (tc_pypto_manifest_check_target(&m, err) != 0)
		goto fail;
	target = tc_json_get(m.doc, "optimization_target");
	if (o->dispatch_path != NULL && check_dispatch(o->dispatch_path,
	    target, err) != 0)
		goto fail;
	if (check_consent_target(op_dir, target, err) != 0)
		goto fail;
	if (o->discovery_path != NULL && (discovery = load_discovery(op_dir,
	    o->discovery_path, &m, err)) == NULL)
		goto fail;
	if (pick_op_name(o, discovery, &op_name, err) != 0)
		goto fail;
	if ((runner = tc_pypto_find_runner(op_dir, err)) == NULL ||
	    tc_pypto_manifest_check_functions(&m, runner, err) != 0)
		goto fail;
	if (op_name == NULL || op_name[0] == '\0') {
		tc_error_set(err, "compare/quick requires an exact --op-name; "
		    "refusing to guess the target kernel from the longest AI "
		    "Core row");
		goto fail;
	}
	if (check_protocol_opts(o, src, err) != 0)
		goto fail;
	if (o->weights_path != NULL) {
		if (strcmp(tc_json_get_string(target, "selection_mode"),
		    "all_p0_no_questions") == 0) {
			tc_error_set(err, "selection_mode all_p0_no_questions "
			    "always uses the equal-weight default metric; "
			    "weights are not allowed");
			goto fail;
		}
		if ((weights = load_weights(o->weights_path, target, err)) == NULL)
			goto fail;
	}
	if (check_no_rounds(op_dir, err) != 0)
		goto fail;
	if ((runner_rec = tc_pypto_source_record(runner, err)) == NULL)
		goto fail;
	if ((sel = case_selector_json(o, &m, err)) == NULL)
		goto fail;

	doc = tc_json_new_object();
	tc_pj_doc_header(doc, "pypto_stage5_frozen_contract");
	tc_now_iso(stamp);
	tc_json_object_set_string(doc, "frozen_at", stamp);
	tc_json_object_set_string(doc, "operator_dir", op_dir);
	tc_json_object_set(doc, "starting_runner", runner_rec);
	runner_rec = NULL;
	tc_json_object_set(doc, "performance_cases", tc_json_clone(m.source));
	tc_json_object_set(doc, "optimization_target", tc_json_clone(target));
	tc_json_object_set(doc, "protocol", protocol_json(o, op_name, src, sel));
	tc_json_object_set(doc, "discovery", discovery_json(discovery));
	tc_json_object_set(doc, "selection", selection_json(o, weights));
	weights = NULL;

	path = tc_path_join(op_dir, TC_PYPTO_FROZEN_CONTRACT);
	if (tc_write_json(path, doc, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
	    err) != 0) {
		tc_error_prefix(err, "the experiment contract is frozen once: ");
		goto fail;
	}
	free(path);
	free(runner);
	free(op_dir);
	tc_json_free(discovery);
	tc_pypto_manifest_free(&m);
	return doc;
fail:
	tc_json_free(discovery);
	tc_json_free(doc);
	tc_json_free(weights);
	tc_json_free(runner_rec);
	free(path);
	free(runner);
	free(op_dir);
	tc_pypto_manifest_free(&m);
	return NULL;
}

int
tc_pypto_contract_load(const char *op_dir, tc_json **out, tc_error *err)
{
	char *path = tc_path_join(op_dir, TC_PYPTO_FROZEN_CONTRACT);
	tc_json *doc;
	const tc_json *proto, *sel;

	*out = NULL;
	if (!tc_path_exists(path)) {
		free(path);
		return 0;
	}
	doc = tc_pj_load_object(path, "frozen_contract.json", err);
	if (doc == NULL) {
		tc_error_prefix(err, "cannot load %s: ", path);
		free(path);
		return -1;
	}
	proto = tc_json_get(doc, "protocol");
	sel = tc_json_get(doc, "selection");
	if (!tc_json_is(proto, TC_JSON_OBJECT) || !tc_json_is(sel, TC_JSON_OBJECT) ||
	    tc_json_get_string(proto, "target_op_name") == NULL ||
	    !tc_pj_int(tc_json_get(proto, "warmup"), NULL) ||
	    !tc_pj_int(tc_json_get(proto, "repeats"), NULL) ||
	    !tc_pj_int(tc_json_get(proto, "retry"), NULL) ||
	    tc_json_get_string(proto, "timing_source") == NULL ||
	    !tc_json_is(tc_json_get(doc, "performance_cases"), TC_JSON_OBJECT) ||
	    !tc_json_is(tc_json_get(doc, "optimization_target"), TC_JSON_OBJECT) ||
	    !tc_json_is(tc_json_get(sel, "stability_range"), TC_JSON_OBJECT)) {
		tc_error_set(err, "frozen contract %s is malformed", path);
		tc_json_free(doc);
		free(path);
		return -1;
	}
	free(path);
	*out = doc;
	return 1;
}
