/*
 * compare.c - orchestration of one Stage 5 formal compare round
 * (docs/spec/pypto.md "Measurement protocol"): argument and frozen-contract
 * checks, manifest + Golden join, case selector validation and preflight, round
 * reservation, per-case attempts (warm-up before every repeat, retries),
 * completeness (all cases valid, manifest unchanged, runner digest
 * unchanged start to end) and the root deliverables.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/sha256.h"

void
tc_pypto_compare_opts_init(tc_pypto_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = o->repeats = o->retry = -1;
	o->seed = -1;
	o->device = -1;
	o->retry_pause_s = -1;
}


static int
frozen_long(const tc_json *proto, const char *key, long given, long dflt,
    long *out, tc_error *err)
{
	int64_t v;

	if (proto == NULL) {
		*out = given >= 0 ? given : dflt;
		return 0;
	}
	(void)tc_pj_int(tc_json_get(proto, key), &v);
	if (given >= 0 && given != (long)v) {
		tc_error_set(err, "formal compare protocol differs from the frozen "
		    "contract: --%s %ld, frozen %lld", key, given, (long long)v);
		return -1;
	}
	*out = (long)v;
	return 0;
}

static int
frozen_str(const tc_json *proto, const char *key, const char *flag,
    const char *given, const char *dflt, const char **out, tc_error *err)
{
	const char *v = proto != NULL ? tc_json_get_string(proto, key) : NULL;

	if (proto == NULL) {
		*out = given != NULL ? given : dflt;
		return 0;
	}
	if (given != NULL && (v == NULL || strcmp(given, v) != 0)) {
		tc_error_set(err, "formal compare protocol differs from the frozen "
		    "contract: %s %s, frozen %s", flag, given, v != NULL ? v :
		    "(none)");
		return -1;
	}
	*out = v != NULL ? v : dflt;
	return 0;
}

static int
resolve_protocol(const tc_pypto_compare_opts *o, const tc_json *contract,
    tc_pypto_protocol *p, tc_error *err)
{
	const tc_json *proto = tc_json_get(contract, "protocol");
	const tc_json *sel = tc_json_get(proto, "case_selector");
	const char *kind = tc_json_get_string(sel, "kind");

	if (frozen_str(proto, "target_op_name", "--op-name", o->op_name, NULL,
	    &p->op_name, err) != 0 ||
	    frozen_long(proto, "warmup", o->warmup, 3, &p->warmup, err) != 0 ||
	    frozen_long(proto, "repeats", o->repeats, 1, &p->repeats, err) != 0 ||
	    frozen_long(proto, "retry", o->retry, 2, &p->retry, err) != 0 ||
	    frozen_str(proto, "timing_source", "--timing-source",
	    o->timing_source, "process_timer", &p->timing_source, err) != 0)
		return -1;
	p->case_arg = o->case_arg;
	p->case_env = o->case_env;
	if (proto != NULL && kind != NULL) {
		const char *name = tc_json_get_string(sel, "name");
		bool cli = strcmp(kind, "cli") == 0, env = strcmp(kind, "env") == 0;

		if ((o->case_arg != NULL && !(cli && strcmp(name, o->case_arg) == 0)) ||
		    (o->case_env != NULL && !(env && strcmp(name, o->case_env) == 0))) {
			tc_error_set(err, "formal compare protocol differs from the "
			    "frozen contract: case selector %s:%s",
			    o->case_arg != NULL ? "cli" : "env",
			    o->case_arg != NULL ? o->case_arg : o->case_env);
			return -1;
		}
		if (cli)
			p->case_arg = name;
		if (env)
			p->case_env = name;
	}
	return 0;
}

static int
select_device(long given, long *device, const char **source, tc_error *err)
{
	const char *t = getenv("TILE_FWK_DEVICE_ID");
	const char *a = getenv("ASCEND_RT_VISIBLE_DEVICES");

	if (given >= 0) {
		*device = given;
		*source = "cli";
		return 0;
	}
	if (t != NULL && *t != '\0') {
		char *end;
		long v = strtol(t, &end, 10);

		if (end == t || (*end != '\0' && *end != ',') || v < 0) {
			tc_error_set(err, "TILE_FWK_DEVICE_ID must start with a "
			    "physical device id: '%s'", t);
			return -1;
		}
		*device = v;
		*source = "env.TILE_FWK_DEVICE_ID";
		return 0;
	}
	if (a != NULL && *a != '\0') {
		size_t len = strcspn(a, ",");
		char *first = tc_xstrndup(a, len), *s = tc_py_strip_dup(first);
		bool zero = s == NULL || strcmp(s, "0") == 0;

		free(first);
		free(s);
		if (!zero) {
			tc_error_set(err, "ASCEND_RT_VISIBLE_DEVICES masks/renumbers "
			    "devices but TILE_FWK_DEVICE_ID is unset; pass "
			    "--device=<physical-id> or unset the visibility mask");
			return -1;
		}
		*device = 0;
		*source = "env.ASCEND_RT_VISIBLE_DEVICES.logical0";
		return 0;
	}
	*device = 0;	/* pick_idle_npu(default=0) without npu-smi */
	*source = "auto";
	return 0;
}

static char *
default_collection_id(const char *given, bool quick)
{
	const char *env = getenv("PYPTO_PERF_COLLECTION_ID");
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (given != NULL && *given != '\0')
		return tc_xstrdup(given);
	if (env != NULL && *env != '\0')
		return tc_xstrdup(env);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	return tc_xasprintf("%s_%s_%ld", quick ? "quick" : "compare", stamp,
	    (long)getpid());
}

static void
local_stamp(char out[40])
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(out, 40, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

static bool
uses_adapter(const tc_pypto_manifest *m, const tc_pypto_protocol *p)
{
	size_t i;

	if (p->case_arg != NULL || p->case_env != NULL)
		return false;
	for (i = 0; i < m->n; i++)
		if (m->cases[i].test_function == NULL)
			return false;
	return m->n > 0;
}

static bool
has_case_functions(const tc_pypto_manifest *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->cases[i].test_function != NULL)
			return true;
	return false;
}

void
tc_pypto_free_repeats(tc_pypto_repeat *reps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		tc_pypto_rows_free(reps[i].rows, reps[i].n_rows);
		tc_pypto_run_free(&reps[i].run);
	}
	memset(reps, 0, n * sizeof(*reps));
}

/* One attempt: every repeat (warm-ups first) must succeed. */
int
tc_pypto_cmp_attempt(tc_pypto_runctx *rc, const tc_pypto_protocol *p,
    const char *case_id, tc_pypto_repeat *reps, tc_error *err)
{
	long r, w;

	for (r = 0; r < p->repeats; r++) {
		tc_pypto_run run;

		for (w = 0; w < p->warmup; w++) {
			if (tc_pypto_run_once(rc, case_id, &run, err) != 0)
				return -1;
			if (run.exit_code != 0) {
				char *t = tc_pypto_tail(run.err, 500);

				tc_error_set(err, "warmup failed: %s", t);
				free(t);
				tc_pypto_run_free(&run);
				return -1;
			}
			tc_pypto_run_free(&run);
		}
		if (tc_pypto_run_once(rc, case_id, &reps[r].run, err) != 0)
			return -1;
		if (reps[r].run.exit_code != 0) {
			char *t = tc_pypto_tail(reps[r].run.err, 500);

			tc_error_set(err, "runner failed (exit %d): %s",
			    reps[r].run.exit_code, t);
			free(t);
			return -1;
		}
		if (tc_pypto_timing_rows(p->timing_source, &reps[r].run,
		    p->op_name, &reps[r].rows, &reps[r].n_rows,
		    &reps[r].duration_us, err) != 0)
			return -1;
	}
	return 0;
}

static void
pause_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* The root deliverables of the latest compare; a quick run writes its
 * own quick_* files and never touches the formal ones. */
static int
write_root(const char *op_dir, const tc_json *summary, bool quick,
    tc_error *err)
{
	char *pj = tc_path_join(op_dir, quick ? "quick_performance.json" :
	    "performance.json");
	char *pl = tc_path_join(op_dir, quick ? "quick_performance.log" :
	    "performance.log");
	char *pm = tc_path_join(op_dir, quick ? "quick_perf_report.md" :
	    "perf_report.md");
	char *log = tc_pypto_render_perf_log(summary);
	char *md = tc_pypto_render_perf_report(summary);
	int rc = tc_write_json(pj, summary, 0, err) != 0 ||
	    tc_write_atomic(pl, log, strlen(log), 0, err) != 0 ||
	    tc_write_atomic(pm, md, strlen(md), 0, err) != 0 ? -1 : 0;

	free(pj);
	free(pl);
	free(pm);
	free(log);
	free(md);
	return rc;
}


static int
fail_collection(tc_pypto_cmp *s, const char *msg, tc_error *err)
{
	tc_error werr = TC_ERROR_INIT;

	tc_json_object_set_string(s->collection, "status", "failed");
	tc_json_object_set_string(s->collection, "failure", msg);
	(void)tc_write_json(s->collection_path, s->collection, 0, &werr);
	tc_error_clear(&werr);
	tc_error_set(err, "%s", msg);
	return -1;
}

int
tc_pypto_cmp_prepare(const tc_pypto_compare_opts *o, tc_pypto_cmp *s, tc_error *err)
{
	char *msg;
	uint64_t size;
	int have;

	if ((s->op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return -1;
	if (tc_pypto_require_consent(s->op_dir, o->quick ? "quick compare" :
	    "formal compare", err) != 0)
		return -1;
	if ((have = tc_pypto_contract_load(s->op_dir, &s->contract, err)) < 0)
		return -1;
	if (resolve_protocol(o, s->contract, &s->p, err) != 0)
		return -1;
	if (s->p.warmup < 0 || s->p.repeats < 1 || s->p.retry < 0) {
		tc_error_set(err, "--%s must be >= %d", s->p.warmup < 0 ?
		    "warmup" : s->p.repeats < 1 ? "repeats" : "retry",
		    s->p.warmup < 0 ? 0 : s->p.repeats < 1 ? 1 : 0);
		return -1;
	}
	if (o->device < -1) {
		tc_error_set(err, "--device must be >= 0");
		return -1;
	}
	if (o->seed > 0 && o->seed != 42) {
		tc_error_set(err, "Stage 5 keeps the validated Stage 4 seed fixed "
		    "at 42; omit --seed or pass --seed=42");
		return -1;
	}
	if (strcmp(s->p.timing_source, "process_timer") != 0 &&
	    strcmp(s->p.timing_source, "runner_reported") != 0) {
		tc_error_set(err, "--timing-source must be process_timer or "
		    "runner_reported");
		return -1;
	}
	if (select_device(o->device, &s->device, &s->device_source, err) != 0)
		return -1;
	if (tc_pypto_manifest_resolve(s->op_dir, o->manifest_path, &s->m,
	    err) != 0) {
		tc_error_prefix(err, "Failed to load performance cases: ");
		return -1;
	}
	if ((msg = tc_pypto_case_source_error(s->m.source)) != NULL) {
		tc_error_set(err, "Invalid performance case source record: %s", msg);
		free(msg);
		return -1;
	}
	if (s->contract != NULL) {
		const tc_json *fr = tc_json_get(s->contract, "performance_cases");

		if (!tc_json_equal(tc_json_get(fr, "sha256"),
		    tc_json_get(s->m.source, "sha256")) ||
		    !tc_json_equal(tc_json_get(fr, "path"),
		    tc_json_get(s->m.source, "path")) ||
		    !tc_json_equal(tc_json_get(fr, "size_bytes"),
		    tc_json_get(s->m.source, "size_bytes"))) {
			tc_error_set(err, "PERFORMANCE_CASES.json differs from the "
			    "frozen manifest (sha256 %s, frozen %s); the manifest "
			    "and target cases are frozen before the first Stage 5 "
			    "collection",
			    tc_json_get_string(s->m.source, "sha256"),
			    tc_json_get_string(fr, "sha256") != NULL ?
			    tc_json_get_string(fr, "sha256") : "(none)");
			return -1;
		}
	}
	if (s->p.case_arg != NULL && s->p.case_env != NULL) {
		tc_error_set(err, "--case-arg and --case-env are mutually "
		    "exclusive");
		return -1;
	}
	if (s->p.case_arg != NULL && (s->p.case_arg[0] != '-' ||
	    strcmp(s->p.case_arg, "--") == 0)) {
		tc_error_set(err, "--case-arg must be a CLI option such as "
		    "--case-id");
		return -1;
	}
	if (s->p.case_env != NULL && !tc_pj_env_name_ok(s->p.case_env)) {
		tc_error_set(err, "--case-env must be a valid environment variable "
		    "name");
		return -1;
	}
	if (s->p.op_name == NULL || s->p.op_name[0] == '\0') {
		tc_error_set(err, "compare/quick requires an exact --op-name; "
		    "refusing to guess the target kernel from the longest AI Core "
		    "row");
		return -1;
	}
	if (s->m.n > 1 && s->p.case_arg == NULL && s->p.case_env == NULL &&
	    !uses_adapter(&s->m, &s->p)) {
		tc_error_set(err, "the selected performance case source contains "
		    "%zu cases, but test_<op>.py needs an explicit per-case "
		    "selector. Refusing to reuse one aggregate msprof duration for "
		    "every case; rerun with --case-arg/--case-env, or add a "
		    "validated test_function to every manifest case for the Stage 5 "
		    "adapter.", s->m.n);
		return -1;
	}
	if ((s->runner = tc_pypto_find_runner(s->op_dir, err)) == NULL)
		return -1;
	if (tc_sha256_file(s->runner, s->sha_start, &size, err) != 0)
		return -1;
	return 0;
}

void
tc_pypto_cmp_free(tc_pypto_cmp *s)
{
	size_t i;

	if (s->measurements != NULL)
		for (i = 0; i < s->m.n; i++)
			tc_json_free(s->measurements[i]);
	free(s->measurements);
	tc_pypto_manifest_free(&s->m);
	tc_json_free(s->contract);
	tc_json_free(s->collection);
	free(s->op_dir);
	free(s->runner);
	free(s->collection_id);
	free(s->collection_path);
}

tc_json *
tc_pypto_cmp_collection(const tc_pypto_cmp *s, long seed, const char *mode)
{
	tc_json *c = tc_json_new_object(), *ids = tc_json_new_array();
	char stamp[40];
	size_t i;

	for (i = 0; i < s->m.n; i++)
		tc_json_array_push(ids, tc_json_new_string(s->m.cases[i].id));
	tc_json_object_set_string(c, "collection_id", s->collection_id);
	tc_json_object_set_string(c, "mode", mode);
	tc_json_object_set_string(c, "status", "in_progress");
	tc_json_object_set_string(c, "operator_dir", s->op_dir);
	tc_json_object_set_string(c, "target_op_name", s->p.op_name);
	tc_json_object_set_int(c, "device_id", s->device);
	tc_json_object_set_int(c, "seed", 42);
	tc_json_object_set_string(c, "seed_source", seed > 0 ? "cli_override" :
	    "stage4_default");
	tc_json_object_set_int(c, "warmup", s->p.warmup);
	tc_json_object_set_int(c, "repeats", s->p.repeats);
	tc_json_object_set(c, "expected_cases", ids);
	tc_json_object_set(c, "performance_cases", tc_json_clone(s->m.source));
	tc_json_object_set_string(c, "executable_sha256", s->sha_start);
	tc_json_object_set_string(c, "runner", s->runner);
	tc_json_object_set_string(c, "timing_source", s->p.timing_source);
	local_stamp(stamp);
	tc_json_object_set_string(c, "created_at", stamp);
	return c;
}

/* Open the runner context, and check once that the runner's case
 * selector reaches every case. */
int
tc_pypto_cmp_open_runner(const tc_pypto_compare_opts *o, tc_pypto_cmp *s,
    tc_pypto_runctx *rc, bool *rc_open, tc_error *err)
{
	char **ids;
	size_t i;
	int r = 0;

	rc->runner = s->runner;
	rc->interpreter = o->interpreter != NULL ? o->interpreter : "python3";
	rc->manifest = s->m.path;
	rc->case_arg = s->p.case_arg;
	rc->case_env = s->p.case_env;
	rc->adapter = uses_adapter(&s->m, &s->p);
	rc->device = s->device;
	rc->timeout_s = o->timeout_s > 0 ? o->timeout_s : 600;
	if (tc_pypto_runctx_open(rc, err) != 0)
		return -1;
	*rc_open = true;
	ids = tc_xcalloc(s->m.n + 1, sizeof(*ids));
	for (i = 0; i < s->m.n; i++)
		ids[i] = s->m.cases[i].id;
	if ((s->p.case_arg != NULL || s->p.case_env != NULL || rc->adapter) &&
	    tc_pypto_selector_preflight(rc, ids, s->m.n, err) != 0)
		r = -1;
	free(ids);
	return r;
}

/* Measure every case (each with up to retry more attempts) into
 * s->measurements; the cases that failed are named in the collection
 * record.  Returns how many were measured. */
static size_t
measure_cases(tc_pypto_cmp *s, tc_pypto_runctx *rc, double pause)
{
	tc_pypto_repeat *reps = tc_xcalloc((size_t)s->p.repeats, sizeof(*reps));
	tc_json *case_errors = tc_json_new_object();
	bool select = s->p.case_arg != NULL || s->p.case_env != NULL ||
	    rc->adapter;
	size_t i, valid = 0;

	s->measurements = tc_xcalloc(s->m.n + 1, sizeof(*s->measurements));
	for (i = 0; i < s->m.n; i++) {
		const char *id = s->m.cases[i].id;
		tc_error aerr = TC_ERROR_INIT;
		long attempt;

		for (attempt = 0; attempt <= s->p.retry; attempt++) {
			tc_error_clear(&aerr);
			if (tc_pypto_cmp_attempt(rc, &s->p, select ? id : NULL, reps,
			    &aerr) == 0) {
				s->measurements[i] = tc_pypto_archive_case(s->round,
				    s->collection_id, s->p.op_name,
				    s->p.timing_source, id, reps,
				    (size_t)s->p.repeats, &aerr);
				tc_pypto_free_repeats(reps, (size_t)s->p.repeats);
				break;
			}
			tc_pypto_free_repeats(reps, (size_t)s->p.repeats);
			pause_s(pause);
		}
		if (s->measurements[i] != NULL)
			valid++;
		else
			tc_json_object_set_string(case_errors, id,
			    tc_error_msg(&aerr));
		tc_error_clear(&aerr);
	}
	if (case_errors->u.obj.len > 0)
		tc_json_object_set(s->collection, "case_errors", case_errors);
	else
		tc_json_free(case_errors);
	free(reps);
	return valid;
}

/* The collection counts only when every case was measured, the case
 * source still holds and the runner did not change meanwhile;
 * otherwise it is recorded as failed. */
static int
check_collection(tc_pypto_cmp *s, size_t valid, tc_error *err)
{
	char sha_end[TC_SHA256_HEX_LEN + 1], *m2;
	const tc_json *ce;
	uint64_t size;

	if (valid != s->m.n) {
		m2 = tc_xasprintf("only %zu/%zu cases produced valid "
		    "performance evidence", valid, s->m.n);
		fail_collection(s, m2, err);
		free(m2);
		/* The caller also learns why (collection.json keeps the
		 * reference's message and every case error). */
		ce = tc_json_get(s->collection, "case_errors");
		if (tc_json_is(ce, TC_JSON_OBJECT) && ce->u.obj.len > 0)
			tc_error_set(err, "only %zu/%zu cases produced valid "
			    "performance evidence; case %s: %s", valid, s->m.n,
			    ce->u.obj.members[0].key,
			    tc_json_string(ce->u.obj.members[0].value));
		return -1;
	}
	if ((m2 = tc_pypto_case_source_error(s->m.source)) != NULL) {
		fail_collection(s, m2, err);
		free(m2);
		return -1;
	}
	if (tc_sha256_file(s->runner, sha_end, &size, err) != 0 ||
	    strcmp(sha_end, s->sha_start) != 0) {
		m2 = tc_xasprintf("the runner %s changed during the "
		    "collection: executable_sha256 %s at the start, %s at the end",
		    s->runner, s->sha_start, tc_error_msg(err)[0] != '\0' ?
		    tc_error_msg(err) : sha_end);
		fail_collection(s, m2, err);
		free(m2);
		return -1;
	}
	return 0;
}

static tc_json *
summarize(const tc_pypto_compare_opts *o, tc_pypto_cmp *s)
{
	tc_pypto_summary_in in;
	tc_json *summary;
	bool fn = has_case_functions(&s->m);

	memset(&in, 0, sizeof(in));
	in.op_dir = s->op_dir;
	in.m = &s->m;
	in.measurements = s->measurements;
	in.warmup = s->p.warmup;
	in.repeats = s->p.repeats;
	in.seed = o->seed > 0 ? o->seed : -1;
	in.device = s->device;
	in.device_source = s->device_source;
	in.op_name = s->p.op_name;
	in.case_selector_kind = s->p.case_arg != NULL ? "cli" :
	    s->p.case_env != NULL ? "env" : fn ? "function_adapter" :
	    "single_case";
	in.case_selector_name = s->p.case_arg != NULL ? s->p.case_arg :
	    s->p.case_env != NULL ? s->p.case_env :
	    fn ? "PERFORMANCE_CASES.test_function" : NULL;
	in.timing_source = s->p.timing_source;
	in.collection_id = s->collection_id;
	in.round_dir = s->round;
	in.executable_sha256 = s->sha_start;
	in.quick = o->quick;
	summary = tc_pypto_summary(&in);
	tc_json_object_set(s->collection, "case_selector",
	    tc_json_clone(tc_json_get(summary, "case_selector")));
	return summary;
}

tc_json *
tc_pypto_compare(const tc_pypto_compare_opts *o, char **round_dir,
    tc_error *err)
{
	tc_pypto_cmp s;
	tc_pypto_runctx rc;
	tc_json *summary = NULL;
	size_t valid;
	double pause = o->retry_pause_s >= 0 ? o->retry_pause_s : 0.5;
	bool rc_open = false;

	memset(&s, 0, sizeof(s));
	memset(&rc, 0, sizeof(rc));
	*round_dir = NULL;
	if (tc_pypto_cmp_prepare(o, &s, err) != 0 ||
	    tc_pypto_cmp_open_runner(o, &s, &rc, &rc_open, err) != 0)
		goto out;
	s.collection_id = default_collection_id(o->collection_id, o->quick);
	if ((s.round = o->quick ? tc_pypto_reserve_dir(s.op_dir,
	    "docs/perf/quick", "quick", err) : tc_pypto_reserve_round(s.op_dir,
	    err)) == NULL)
		goto out;
	*round_dir = tc_xstrdup(s.round);
	s.collection_path = tc_path_join(s.round, "collection.json");
	s.collection = tc_pypto_cmp_collection(&s, o->seed, o->quick ? "quick" :
	    "compare");
	if (tc_write_json(s.collection_path, s.collection, 0, err) != 0)
		goto out;
	valid = measure_cases(&s, &rc, pause);
	if (check_collection(&s, valid, err) != 0)
		goto out;
	summary = summarize(o, &s);
	if (write_root(s.op_dir, summary, o->quick, err) != 0) {
		char *m2 = tc_xstrdup(tc_error_msg(err));

		fail_collection(&s, m2, err);
		free(m2);
		tc_json_free(summary);
		summary = NULL;
		goto out;
	}
	tc_json_object_set_string(s.collection, "status", "complete");
	tc_json_object_set_int(s.collection, "completed_cases", (int64_t)valid);
	if (tc_write_json(s.collection_path, s.collection, 0, err) != 0) {
		tc_json_free(summary);
		summary = NULL;
	}
out:
	if (rc_open)
		tc_pypto_runctx_close(&rc);
	free(s.round);
	tc_pypto_cmp_free(&s);
	return summary;
}
