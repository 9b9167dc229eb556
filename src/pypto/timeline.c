/*
 * timeline.c - the supplemental instruction timeline of every P0 case on
 * the final code (docs/spec/pypto.md "Instruction timeline"), hardware-neutral.
 *
 * The reference collects it with msprof's instruction profiling on the
 * NPU.  Here the runner is the profiler: after the frozen warm-ups, one
 * run of the case must report exactly one PYPTO_PERF_TASK line for the
 * exact target Op Name (the unique target window) and may report the
 * instruction events inside it, one line each:
 *
 *   PYPTO_PERF_EVENT {"lane": "...", "instruction": "...",
 *                     "start_offset_us": <n>, "duration_us": <n>}
 *
 * Events are clipped to the window, classed by instruction name prefix
 * (MTE, FIX: movement; VEC, CUBE, MAC and plain M: compute; SU and
 * SCALAR: scalar; WAIT, BARRIER, SYNC: wait; else unknown), and overlap is
 * measured only
 * within one lane between two different known classes: the raw count of
 * overlapping event pairs and the deduplicated overlap (intersection of
 * the per-class interval unions).  The evidence is bound to the final
 * compare (its collection id, executable digest, device, seed, warm-up)
 * and never declares a pipeline proven: completion_eligible is false.
 * Offsets are binary floating point here, where the reference parses
 * decimals; a runner's microsecond offsets lose nothing at that scale.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"

#define EVENT_LINE	"PYPTO_PERF_EVENT "
#define TIMELINE_DIR	"instruction_timeline"
#define EVIDENCE_FILE	"timeline_evidence.json"

static const char *const classes[] = { "movement", "compute", "scalar",
    "wait", NULL };
/* What tc_pypto_timeline_window returns, in the evidence's order. */
static const char *const window_keys[] = { "monitored_lanes",
    "pipe_event_counts", "instruction_event_counts",
    "same_lane_pipe_interval_overlap", "events", NULL };

static bool
prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *
tc_pypto_pipe_class(const char *instr)
{
	if (prefix(instr, "MTE") || prefix(instr, "FIX"))
		return "movement";
	if (prefix(instr, "VEC") || prefix(instr, "CUBE") ||
	    prefix(instr, "MAC") || strcmp(instr, "M") == 0)
		return "compute";
	if (strcmp(instr, "SU") == 0 || prefix(instr, "SCALAR"))
		return "scalar";
	if (prefix(instr, "WAIT") || prefix(instr, "BARRIER") ||
	    prefix(instr, "SYNC"))
		return "wait";
	return "unknown";
}

struct ev {
	char *lane;
	const char *cls;
	double s, e;
};

static int
cmp_iv(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0;
}

/* Merge intervals (pairs of doubles, n pairs) in place; returns the count. */
static size_t
merge(double *iv, size_t n)
{
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(iv, n, 2 * sizeof(double), cmp_iv);
	for (i = 1; i < n; i++) {
		if (iv[2 * i] <= iv[2 * k + 1]) {
			if (iv[2 * i + 1] > iv[2 * k + 1])
				iv[2 * k + 1] = iv[2 * i + 1];
		} else {
			k++;
			iv[2 * k] = iv[2 * i];
			iv[2 * k + 1] = iv[2 * i + 1];
		}
	}
	return k + 1;
}

static double
intersect(const double *a, size_t na, const double *b, size_t nb)
{
	size_t i = 0, j = 0;
	double sum = 0;

	while (i < na && j < nb) {
		double lo = fmax(a[2 * i], b[2 * j]);
		double hi = fmin(a[2 * i + 1], b[2 * j + 1]);

		if (hi > lo)
			sum += hi - lo;
		if (a[2 * i + 1] < b[2 * j + 1])
			i++;
		else
			j++;
	}
	return sum;
}

static double *
class_intervals(const struct ev *evs, size_t n, const char *lane,
    const char *cls, size_t *count)
{
	double *iv = tc_xcalloc(2 * n + 2, sizeof(double));
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (strcmp(evs[i].lane, lane) == 0 && strcmp(evs[i].cls, cls) == 0) {
			iv[2 * k] = evs[i].s;
			iv[2 * k + 1] = evs[i].e;
			k++;
		}
	*count = k;
	return iv;
}

/* The same-lane overlap block of the evidence. */
static tc_json *
overlap(const struct ev *evs, size_t n, tc_json *lanes_out)
{
	tc_json *o = tc_json_new_object(), *raw = tc_json_new_object();
	tc_json *dedup = tc_json_new_object(), *lanes = tc_json_new_array();
	size_t a, b, l;

	for (l = 0; l < lanes_out->u.arr.len; l++) {
		const char *lane = tc_json_get_string(lanes_out->u.arr.items[l],
		    "lane");
		tc_json *lr = tc_json_new_object(), *pairs = tc_json_new_array();

		for (a = 0; classes[a] != NULL; a++)
			for (b = a + 1; classes[b] != NULL; b++) {
				size_t na, nb, x, y;
				double *ia = class_intervals(evs, n, lane, classes[a],
				    &na);
				double *ib = class_intervals(evs, n, lane, classes[b],
				    &nb);
				int64_t rawn = 0, prev = 0;
				double d, pv = 0;
				char key[64];
				tc_json *p;

				for (x = 0; x < na; x++)
					for (y = 0; y < nb; y++)
						rawn += fmin(ia[2 * x + 1], ib[2 * y + 1]) >
						    fmax(ia[2 * x], ib[2 * y]);
				d = intersect(ia, merge(ia, na), ib, merge(ib, nb));
				free(ia);
				free(ib);
				if (rawn == 0 && d == 0)
					continue;
				snprintf(key, sizeof(key), "%s+%s", classes[a],
				    classes[b]);
				p = tc_json_new_object();
				tc_json_object_set_string(p, "pipe_pair", key);
				tc_json_object_set_int(p, "raw_event_pairs", rawn);
				tc_json_object_set(p, "deduplicated_overlap_us",
				    tc_json_new_float(d));
				tc_json_array_push(pairs, p);
				(void)tc_pj_int(tc_json_get(raw, key), &prev);
				tc_json_object_set_int(raw, key, prev + rawn);
				(void)tc_json_number(tc_json_get(dedup, key), &pv);
				tc_json_object_set(dedup, key, tc_json_new_float(pv + d));
			}
		tc_json_object_set_string(lr, "lane", lane);
		tc_json_object_set(lr, "pairs", pairs);
		tc_json_array_push(lanes, lr);
	}
	tc_json_object_set(o, "raw_event_pair_counts", raw);
	tc_json_object_set_string(o, "raw_event_pair_count_semantics", "pairs of "
	    "events of two different known pipe classes on the same lane whose "
	    "intervals intersect (a pair overlapping for any time counts once)");
	tc_json_object_set(o, "pair_overlap_us", dedup);
	tc_json_object_set_string(o, "pair_overlap_semantics", "per lane, the "
	    "length of the intersection of the two classes' interval unions, "
	    "summed over lanes (deduplicated; never the sum of pair overlaps)");
	tc_json_object_set(o, "lanes", lanes);
	return o;
}

static void
count_into(tc_json *obj, const char *key)
{
	int64_t n = 0;

	(void)tc_pj_int(tc_json_get(obj, key), &n);
	tc_json_object_set_int(obj, key, n + 1);
}

/* Parse the events of the target window (clipped to [0, duration]). */
static int
parse_events(const char *out, double window, struct ev **evs, size_t *n,
    tc_json *events, tc_json *lanes, tc_error *err)
{
	const char *p = out, *line;
	size_t len;

	*evs = NULL;
	*n = 0;
	while (tc_pj_next_tagged_line(&p, EVENT_LINE, &line, &len)) {
		tc_json *v = tc_json_parse(line, len, err);
		const char *lane = tc_json_get_string(v, "lane");
		const char *instr = tc_json_get_string(v, "instruction");
		double s, d;

		if (v == NULL || lane == NULL || instr == NULL ||
		    !tc_json_number(tc_json_get(v, "start_offset_us"), &s) ||
		    !tc_json_number(tc_json_get(v, "duration_us"), &d) ||
		    !isfinite(s) || !isfinite(d) || d < 0) {
			if (v != NULL)
				tc_error_set(err, "a PYPTO_PERF_EVENT line needs "
				    "lane, instruction, start_offset_us and a "
				    "non-negative duration_us");
			tc_error_prefix(err, "malformed timeline event: ");
			tc_json_free(v);
			return -1;
		}
		if (s < window && s + d > 0) {
			double cs = fmax(s, 0), ce = fmin(s + d, window);
			tc_json *e = tc_json_new_object();
			size_t k;

			*evs = tc_xrealloc(*evs, (*n + 1) * sizeof(**evs));
			(*evs)[*n].lane = tc_xstrdup(lane);
			(*evs)[*n].cls = tc_pypto_pipe_class(instr);
			(*evs)[*n].s = cs;
			(*evs)[*n].e = ce;
			tc_json_object_set_string(e, "lane", lane);
			tc_json_object_set_string(e, "instruction", instr);
			tc_json_object_set_string(e, "pipe_class",
			    (*evs)[*n].cls);
			tc_json_object_set(e, "start_offset_us",
			    tc_json_new_float(cs));
			tc_json_object_set(e, "duration_us",
			    tc_json_new_float(ce - cs));
			tc_json_object_set(e, "args", tc_json_get(v, "args") !=
			    NULL ? tc_json_clone(tc_json_get(v, "args")) :
			    tc_json_new_object());
			tc_json_array_push(events, e);
			for (k = 0; k < lanes->u.arr.len; k++)
				if (strcmp(tc_json_get_string(
				    lanes->u.arr.items[k], "lane"), lane) == 0)
					break;
			if (k == lanes->u.arr.len) {
				tc_json *ln = tc_json_new_object();

				tc_json_object_set_string(ln, "lane", lane);
				tc_json_array_push(lanes, ln);
			}
			(*n)++;
		}
		tc_json_free(v);
	}
	return 0;
}

tc_json *
tc_pypto_timeline_window(const char *out, double window, tc_error *err)
{
	struct ev *evs = NULL;
	size_t n = 0, i;
	tc_json *events = tc_json_new_array(), *lanes = tc_json_new_array();
	tc_json *block = NULL, *pc, *ic;

	if (parse_events(out, window, &evs, &n, events, lanes, err) != 0) {
		tc_json_free(events);
		tc_json_free(lanes);
		goto out;
	}
	block = tc_json_new_object();
	tc_json_object_set(block, "monitored_lanes", lanes);
	pc = tc_json_new_object();
	ic = tc_json_new_object();
	for (i = 0; i < n; i++) {
		count_into(pc, evs[i].cls);
		count_into(ic, tc_json_get_string(events->u.arr.items[i],
		    "instruction"));
	}
	tc_json_object_set(block, "pipe_event_counts", pc);
	tc_json_object_set(block, "instruction_event_counts", ic);
	tc_json_object_set(block, "same_lane_pipe_interval_overlap",
	    overlap(evs, n, lanes));
	tc_json_object_set(block, "events", events);
out:
	for (i = 0; i < n; i++)
		free(evs[i].lane);
	free(evs);
	return block;
}

static char *
case_dir_of(const char *round, const char *case_id)
{
	char *name = tc_pypto_case_dir_name(case_id);
	char *d = tc_path_join(round, name);

	free(name);
	return d;
}

static const tc_json *
perf_case(const tc_json *perf, const char *id)
{
	const tc_json *pcs = tc_json_get(perf, "per_case");
	size_t i;

	for (i = 0; tc_json_is(pcs, TC_JSON_ARRAY) && i < pcs->u.arr.len; i++)
		if (tc_json_get_string(pcs->u.arr.items[i], "case") != NULL &&
		    strcmp(tc_json_get_string(pcs->u.arr.items[i], "case"), id) ==
		    0)
			return pcs->u.arr.items[i];
	return NULL;
}

static tc_json *
limitations(void)
{
	static const char *const l[] = {
		"the runner reports the target window and its events; a runner "
		"that reports no events leaves the overlap empty, which proves "
		"nothing",
		"instruction reporting may perturb the run: the timeline's "
		"durations never replace the formal compare's numbers",
		"overlap is measured only within one lane between two known pipe "
		"classes; cross-lane intersections are not overlap",
		"a pipeline is proven only by the Tile DAG / slot / stage mapping "
		"of these events, reviewed by the verifier: completion_eligible "
		"is false",
	};
	tc_json *a = tc_json_new_array();
	size_t i;

	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		tc_json_array_push(a, tc_json_new_string(l[i]));
	return a;
}

/* The preflight of docs/spec/pypto.md "Instruction timeline": a formal compare
 * that re-verifies, run by the very runner that is there now (its sha256 into
 * sha). */
static int
check_final_compare(const char *op_dir, const tc_json *perf, char **runner,
    char sha[TC_SHA256_HEX_LEN + 1], tc_error *err)
{
	const char *compared = tc_json_get_string(perf, "executable_sha256");
	char *msg;

	if ((msg = tc_pypto_performance_error(op_dir, perf)) != NULL) {
		tc_error_set(err, "the timeline needs a formal compare that "
		    "re-verifies: %s", msg);
		free(msg);
		return -1;
	}
	if ((*runner = tc_pypto_find_runner(op_dir, err)) == NULL ||
	    tc_sha256_file(*runner, sha, NULL, err) != 0)
		return -1;
	if (compared == NULL || strcmp(compared, sha) != 0) {
		tc_error_set(err, "the runner changed since the final compare "
		    "(sha256 %s, compared %s): the timeline belongs to the final "
		    "code", sha, compared != NULL ? compared : "?");
		return -1;
	}
	return 0;
}

/* Run the case as the final compare did (its selector, device and
 * warm-up runs); the last run is the one the timeline reads. */
static int
run_case(const tc_pypto_timeline_opts *o, const tc_json *perf,
    tc_pypto_runctx *rc, bool *rc_open, tc_pypto_run *run, int64_t warmup,
    tc_error *err)
{
	const tc_json *sel = tc_json_get(perf, "case_selector");
	const char *kind = tc_json_get_string(sel, "kind");
	const char *name = tc_json_get_string(sel, "name");
	rc->interpreter = o->interpreter != NULL ? o->interpreter : "python3";
	rc->manifest = tc_json_get_string(tc_json_get(perf,
	    "performance_cases"), "path");
	rc->case_arg = kind != NULL && strcmp(kind, "cli") == 0 ? name : NULL;
	rc->case_env = kind != NULL && strcmp(kind, "env") == 0 ? name : NULL;
	rc->adapter = kind != NULL && strcmp(kind, "function_adapter") == 0;
	rc->device = (long)tc_pj_int_or(tc_json_get(perf, "device_id"), 0);
	rc->timeout_s = o->timeout_s > 0 ? o->timeout_s : 600;
	if (tc_pypto_runctx_open(rc, err) != 0)
		return -1;
	*rc_open = true;
	return tc_pypto_run_warmed(rc, kind != NULL && strcmp(kind,
	    "single_case") == 0 ? NULL : o->case_id, (long)warmup, "timeline",
	    run, err);
}

/* The evidence document: the target window's lanes (taken from block)
 * and what they were measured on. */
static tc_json *
timeline_doc(const tc_pypto_timeline_opts *o, const tc_json *perf,
    const tc_json *row, double window, tc_json *block, const char *sha,
    int64_t warmup)
{
	tc_json *doc = tc_json_new_object(), *t = tc_json_new_object();
	size_t i;

	tc_json_object_set_int(doc, "schema_version", 1);
	tc_json_object_set_string(doc, "target_op_name",
	    tc_json_get_string(perf, "target_op_name"));
	tc_json_object_set_string(doc, "attribution_status",
	    "unique_exact_target_window");
	tc_json_object_set_string(t, "lane", "runner");
	tc_json_object_set(t, "start_us", tc_json_new_float(0));
	tc_json_object_set(t, "duration_us", tc_json_new_float(window));
	tc_json_object_set(doc, "target_task", t);
	tc_json_object_set_string(doc, "evidence_scope", "runner_reported_lanes");
	for (i = 0; window_keys[i] != NULL; i++)
		tc_json_object_set(doc, window_keys[i], tc_json_object_take(block,
		    window_keys[i]));
	tc_json_free(block);
	tc_json_object_set_string(doc, "pipeline_evidence_status",
	    "requires_tile_dag_correlation");
	tc_json_object_set_bool(doc, "completion_eligible", false);
	tc_json_object_set(doc, "limitations", limitations());
	tc_json_object_set(doc, "collection_id", tc_pj_clone(tc_json_get(perf,
	    "collection_id")));
	tc_json_object_set_string(doc, "executable_sha256", sha);
	tc_json_object_set_string(doc, "case", o->case_id);
	tc_json_object_set(doc, "shape", tc_pj_clone(tc_json_get(row,
	    "shape")));
	tc_json_object_set(doc, "dtype", tc_pj_clone(tc_json_get(row,
	    "dtype")));
	tc_json_object_set(doc, "device_id", tc_pj_clone(tc_json_get(perf,
	    "device_id")));
	tc_json_object_set(doc, "device_source", tc_pj_clone(tc_json_get(perf,
	    "device_select_source")));
	tc_json_object_set_int(doc, "seed", 42);
	tc_json_object_set_int(doc, "warmup", warmup);
	tc_json_object_set_string(doc, "collection_kind",
	    "supplemental_instruction_profile");
	tc_json_object_set_string(doc, "canonical_timing_source",
	    "separate_formal_compare");
	tc_json_object_set_string(doc, "timeline_source", "runner_reported");
	return doc;
}

/* The run's argv, exit status and output, as collection.log. */
static int
write_collection_log(const char *dir, const tc_pypto_run *run, tc_error *err)
{
	tc_json *log = tc_json_new_object(), *argv = tc_json_new_array();
	char *lp = tc_path_join(dir, "collection.log");
	char *text;
	size_t i;
	int rc;

	for (i = 0; run->argv[i] != NULL; i++)
		tc_json_array_push(argv, tc_json_new_string(run->argv[i]));
	tc_json_object_set(log, "argv", argv);
	tc_json_object_set_int(log, "returncode", run->exit_code);
	tc_json_object_set_string(log, "stdout", run->out);
	tc_json_object_set_string(log, "stderr", run->err);
	text = tc_json_pretty(log, NULL, err);
	rc = text != NULL && tc_write_atomic(lp, text, strlen(text),
	    TC_WRITE_EXCLUSIVE, err) == 0 ? 0 : -1;
	free(text);
	free(lp);
	tc_json_free(log);
	return rc;
}

/* Publish the directory at once: written aside, then renamed into
 * place without replacing anything. */
static int
publish(const char *case_dir, const char *target, const tc_pypto_run *run,
    const tc_json *doc, tc_error *err)
{
	char *tmp = tc_xasprintf("%s/.%s.%ld.tmp", case_dir, TIMELINE_DIR,
	    (long)getpid());
	char *file = NULL, *lp;
	int rc = -1;

	if (mkdir(tmp, 0777) != 0) {
		tc_error_os(err, errno, tmp);
		free(tmp);
		return -1;
	}
	file = tc_path_join(tmp, EVIDENCE_FILE);
	if (write_collection_log(tmp, run, err) == 0 &&
	    tc_write_json(file, doc, TC_WRITE_EXCLUSIVE, err) == 0) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target,
		    RENAME_NOREPLACE) == 0)
			rc = 0;
		else
			tc_error_os(err, errno, target);
	}
	if (rc != 0) {
		lp = tc_path_join(tmp, "collection.log");
		unlink(file);
		unlink(lp);
		free(lp);
		rmdir(tmp);
	}
	free(file);
	free(tmp);
	return rc;
}

tc_json *
tc_pypto_timeline(const tc_pypto_timeline_opts *o, tc_error *err)
{
	char *op_dir = NULL, *pp = NULL, *runner = NULL, *case_dir = NULL;
	char *target = NULL;
	char sha[TC_SHA256_HEX_LEN + 1];
	tc_json *perf = NULL, *doc = NULL, *block;
	const tc_json *row;
	tc_pypto_runctx rc;
	tc_pypto_run run;
	tc_pypto_row *rows = NULL;
	size_t nrows = 0;
	double window = 0;
	int64_t warmup = 0;
	bool rc_open = false;

	memset(&rc, 0, sizeof(rc));
	memset(&run, 0, sizeof(run));
	if ((op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		goto out;
	if (tc_pypto_require_consent(op_dir, "timeline collection", err) != 0)
		goto out;
	pp = tc_path_join(op_dir, "performance.json");
	if ((perf = tc_pj_load_object(pp, "performance.json", err)) == NULL)
		goto out;
	if (check_final_compare(op_dir, perf, &runner, sha, err) != 0)
		goto out;
	if ((row = perf_case(perf, o->case_id != NULL ? o->case_id : "")) ==
	    NULL) {
		tc_error_set(err, "case %s is not in the final compare",
		    o->case_id != NULL ? o->case_id : "(none)");
		goto out;
	}
	case_dir = case_dir_of(tc_json_get_string(perf, "deep_profile_round"),
	    o->case_id);
	target = tc_path_join(case_dir, TIMELINE_DIR);
	if (tc_path_exists(target)) {
		tc_error_set(err, "%s already exists: a case's timeline is "
		    "collected once per final compare", target);
		goto out;
	}
	(void)tc_pj_int(tc_json_get(perf, "warmup"), &warmup);
	rc.runner = runner;
	if (run_case(o, perf, &rc, &rc_open, &run, warmup, err) != 0)
		goto out;
	if (tc_pypto_timing_rows("runner_reported", &run,
	    tc_json_get_string(perf, "target_op_name"), &rows, &nrows, &window,
	    err) != 0) {
		tc_error_prefix(err, "no unique target window: ");
		goto out;
	}
	if ((block = tc_pypto_timeline_window(run.out, window, err)) == NULL)
		goto out;
	doc = timeline_doc(o, perf, row, window, block, sha, warmup);
	if (publish(case_dir, target, &run, doc, err) != 0) {
		tc_json_free(doc);
		doc = NULL;
	}
out:
	tc_pypto_rows_free(rows, nrows);
	tc_pypto_run_free(&run);
	if (rc_open)
		tc_pypto_runctx_close(&rc);
	tc_json_free(perf);
	free(target);
	free(case_dir);
	free(runner);
	free(pp);
	free(op_dir);
	return doc;
}

/* P3 / P8: the timeline of a case, bound to the final compare. */
char *
tc_pypto_timeline_error(const char *round_dir, const char *case_id,
    const tc_json *collection)
{
	char *cd = case_dir_of(round_dir, case_id);
	char *p = tc_xasprintf("%s/%s/%s", cd, TIMELINE_DIR, EVIDENCE_FILE);
	tc_error err = TC_ERROR_INIT;
	tc_json *d = tc_is_regular_file_nofollow(p) ?
	    tc_pj_load_object(p, EVIDENCE_FILE, &err) : NULL;
	const tc_json *evs = tc_json_get(d, "events");
	tc_json *pc;
	char *msg = NULL;
	size_t i;
	static const char *const same[] = { "collection_id", "target_op_name",
	    "executable_sha256", "device_id", "warmup", NULL };

	free(cd);
	if (d == NULL) {
		msg = tc_xasprintf("case %s has no instruction timeline on the final "
		    "code (%s): tunectl pypto timeline --op-dir OP --case-id %s",
		    case_id, tc_error_msg(&err)[0] ? tc_error_msg(&err) :
		    "missing", case_id);
		tc_error_clear(&err);
		free(p);
		return msg;
	}
	free(p);
	for (i = 0; same[i] != NULL && msg == NULL; i++)
		if (!tc_json_equal(tc_json_get(d, same[i]),
		    tc_json_get(collection, same[i])))
			msg = tc_xasprintf("case %s: the timeline's %s is not the "
			    "final compare's", case_id, same[i]);
	if (msg == NULL && (tc_json_get_string(d, "case") == NULL ||
	    strcmp(tc_json_get_string(d, "case"), case_id) != 0 ||
	    tc_js_number(tc_json_get(d, "seed")) != 42 ||
	    tc_json_truthy(tc_json_get(d, "completion_eligible")) ||
	    tc_json_get_string(d, "attribution_status") == NULL ||
	    strcmp(tc_json_get_string(d, "attribution_status"),
	    "unique_exact_target_window") != 0 ||
	    tc_json_get_string(d, "canonical_timing_source") == NULL ||
	    strcmp(tc_json_get_string(d, "canonical_timing_source"),
	    "separate_formal_compare") != 0 ||
	    !tc_json_is(evs, TC_JSON_ARRAY)))
		msg = tc_xasprintf("case %s: the timeline evidence is not a unique "
		    "target window of this case with seed 42 (or claims "
		    "completion)", case_id);
	if (msg == NULL) {
		pc = tc_json_new_object();
		for (i = 0; i < evs->u.arr.len; i++) {
			const char *in = tc_json_get_string(evs->u.arr.items[i],
			    "instruction");

			count_into(pc, tc_pypto_pipe_class(in != NULL ? in : ""));
		}
		if (!tc_json_equal(pc, tc_json_get(d, "pipe_event_counts")))
			msg = tc_xasprintf("case %s: pipe_event_counts do not "
			    "recompute from the events", case_id);
		tc_json_free(pc);
	}
	tc_json_free(d);
	return msg;
}
