/*
 * discover.c - the discovery run of Stage 5 (docs/spec/pypto.md
 * "Measurement protocol"): before the formal baseline, one known case runs once
 * (after the warm-ups) and every launch it reports is listed by exact Op Name
 * (count, task type, summed duration, sorted by descending duration, the
 * reference's --list-op-names table).  The target is the one name that
 * carries the @pl.jit kernel's name and was launched exactly once; any
 * ambiguity is refused: the entry point must be fixed, and the longest
 * duration is never chosen.  The result, docs/perf/discovery.json, is
 * written once and frozen with the protocol (cases freeze --discovery).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/sha256.h"
#include "tunectl/timeutil.h"

/* One launched Op Name; name and task_type are the run's rows' strings,
 * which outlive the rows made of them. */
struct name_row {
	const char *name;
	const char *task_type;
	long count;
	double total_us;
};

static int
cmp_rows(const void *a, const void *b)
{
	const struct name_row *x = a, *y = b;

	if (x->total_us != y->total_us)
		return x->total_us < y->total_us ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const tc_pypto_case *
find_case(const tc_pypto_manifest *m, const char *id)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->cases[i].id, id) == 0)
			return &m->cases[i];
	return NULL;
}

static tc_json *
argv_json(char *const *argv)
{
	tc_json *a = tc_json_new_array();
	size_t i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		tc_json_array_push(a, tc_json_new_string(argv[i]));
	return a;
}

/* The launched Op Names of the run, with their counts and total time,
 * longest first. */
static struct name_row *
group_names(const tc_pypto_row *rows, size_t nrows, size_t *nnames)
{
	struct name_row *names = NULL;
	size_t i, k;

	*nnames = 0;
	for (i = 0; i < nrows; i++) {
		for (k = 0; k < *nnames; k++)
			if (strcmp(names[k].name, rows[i].op_name) == 0)
				break;
		if (k == *nnames) {
			names = tc_xrealloc(names, (*nnames + 1) * sizeof(*names));
			names[k].name = rows[i].op_name;
			names[k].task_type = rows[i].task_type != NULL ?
			    rows[i].task_type : "-";
			names[k].count = 0;
			names[k].total_us = 0;
			(*nnames)++;
		}
		names[k].count++;
		names[k].total_us += rows[i].duration_us;
	}
	if (*nnames > 0)
		qsort(names, *nnames, sizeof(*names), cmp_rows);
	return names;
}

/* The names as JSON rows and as a TSV table; the one carrying the kernel
 * name must be unique and launched once.  Returns it, or NULL with err
 * set. */
static const char *
select_name(const struct name_row *names, size_t nnames, const char *kernel,
    tc_json *list, tc_buf *tsv, tc_error *err)
{
	const char *selected = NULL;
	size_t k, hits = 0;
	long count = 0;

	tc_buf_puts(tsv, "count\ttask_type\ttotal_duration_us\texact_op_name\n");
	for (k = 0; k < nnames; k++) {
		tc_json *r = tc_json_new_object();

		tc_json_object_set_int(r, "count", names[k].count);
		tc_json_object_set_string(r, "task_type", names[k].task_type);
		tc_json_object_set(r, "total_duration_us",
		    tc_json_new_float(names[k].total_us));
		tc_json_object_set_string(r, "exact_op_name", names[k].name);
		tc_json_array_push(list, r);
		tc_buf_printf(tsv, "%ld\t%s\t%.3f\t%s\n", names[k].count,
		    names[k].task_type, names[k].total_us, names[k].name);
		if (strstr(names[k].name, kernel) != NULL) {
			hits++;
			selected = names[k].name;
			count = names[k].count;
		}
	}
	if (hits != 1) {
		tc_error_set(err, "discovery found %zu launched Op Names carrying "
		    "the kernel name %s (one is required); fix the entry point so "
		    "that one known case launches the target kernel once (never "
		    "choose the longest Task Duration):\n%s", hits, kernel,
		    tc_buf_cstr(tsv));
		return NULL;
	}
	if (count != 1) {
		tc_error_set(err, "the target %s was launched %ld times in one "
		    "known case; discovery needs exactly one launch of the "
		    "target kernel", selected, count);
		return NULL;
	}
	return selected;
}

/* The discovery cannot be recorded twice, and names one case of the
 * manifest (loaded into m) and a kernel. */
static const tc_pypto_case *
discovery_case(const tc_pypto_discover_opts *o, const char *path,
    tc_pypto_manifest *m, bool *m_ok, tc_error *err)
{
	const tc_pypto_case *c;

	if (o->kernel == NULL || *o->kernel == '\0') {
		tc_error_set(err, "discovery needs the @pl.jit kernel name "
		    "(--kernel) to recognise the target launch");
		return NULL;
	}
	if (tc_path_exists(path)) {
		tc_error_set(err, "a discovery is recorded once and frozen with "
		    "the protocol: %s exists", path);
		return NULL;
	}
	if (tc_pypto_manifest_load(o->manifest_path, m, err) != 0)
		return NULL;
	*m_ok = true;
	if (o->case_id == NULL || (c = find_case(m, o->case_id)) == NULL) {
		tc_error_set(err, "discovery runs one known case: %s is not in "
		    "the manifest", o->case_id != NULL ? o->case_id : "(none)");
		return NULL;
	}
	return c;
}

tc_json *
tc_pypto_discover(const tc_pypto_discover_opts *o, tc_error *err)
{
	tc_pypto_manifest m;
	tc_pypto_runctx rc;
	tc_pypto_run run;
	tc_pypto_row *rows = NULL;
	struct name_row *names = NULL;
	size_t nrows = 0, nnames = 0;
	char *op_dir = NULL, *runner = NULL, *path = NULL;
	char sha[TC_SHA256_HEX_LEN + 1], stamp[TC_TIMESTAMP_LEN + 1];
	tc_json *doc = NULL, *list, *r;
	const tc_pypto_case *c;
	const char *selected;
	bool m_ok = false, rc_open = false;
	long warmup = o->warmup >= 0 ? o->warmup : 3;
	tc_buf tsv = TC_BUF_INIT;

	memset(&rc, 0, sizeof(rc));
	memset(&run, 0, sizeof(run));
	if ((op_dir = tc_pypto_op_dir_resolve(o->op_dir, err)) == NULL)
		return NULL;
	if (tc_pypto_require_consent(op_dir, "discovery", err) != 0)
		goto out;
	path = tc_path_join(op_dir, TC_PYPTO_DISCOVERY);
	if ((c = discovery_case(o, path, &m, &m_ok, err)) == NULL)
		goto out;
	if ((runner = tc_pypto_find_runner(op_dir, err)) == NULL ||
	    tc_sha256_file(runner, sha, NULL, err) != 0)
		goto out;
	rc.runner = runner;
	rc.interpreter = o->interpreter != NULL ? o->interpreter : "python3";
	rc.manifest = m.path;
	rc.case_arg = o->case_arg;
	rc.case_env = o->case_env;
	rc.adapter = o->case_arg == NULL && o->case_env == NULL &&
	    c->test_function != NULL;
	rc.device = o->device >= 0 ? o->device : 0;
	rc.timeout_s = o->timeout_s > 0 ? o->timeout_s : 600;
	if (tc_pypto_runctx_open(&rc, err) != 0)
		goto out;
	rc_open = true;
	if (tc_pypto_run_warmed(&rc, rc.adapter || o->case_arg != NULL ||
	    o->case_env != NULL ? o->case_id : NULL, warmup, "discovery", &run,
	    err) != 0)
		goto out;
	if (tc_pypto_reported_rows(run.out, &rows, &nrows, err) != 0)
		goto out;
	names = group_names(rows, nrows, &nnames);
	list = tc_json_new_array();
	doc = tc_json_new_object();
	tc_json_object_set(doc, "op_names", list);
	selected = select_name(names, nnames, o->kernel, list, &tsv, err);
	tc_json_object_set_string(doc, "list_op_names_tsv", tc_buf_cstr(&tsv));
	if (selected == NULL)
		goto fail;
	tc_pj_doc_header(doc, "pypto_discovery");
	tc_json_object_set_string(doc, "case_id", o->case_id);
	tc_json_object_set_string(doc, "kernel", o->kernel);
	tc_json_object_set_string(doc, "selected_op_name", selected);
	tc_json_object_set_int(doc, "warmup", warmup);
	r = tc_json_new_object();
	tc_json_object_set_string(r, "path", runner);
	tc_json_object_set_string(r, "sha256", sha);
	tc_json_object_set(doc, "runner", r);
	tc_json_object_set(doc, "performance_cases", tc_pj_clone(m.source));
	tc_json_object_set(doc, "argv", argv_json(run.argv));
	tc_now_iso(stamp);
	tc_json_object_set_string(doc, "recorded_at", stamp);
	if (tc_write_json(path, doc, TC_WRITE_EXCLUSIVE | TC_WRITE_MKDIRS,
	    err) != 0)
		goto fail;
	goto out;
fail:
	tc_json_free(doc);
	doc = NULL;
out:
	free(names);
	tc_pypto_rows_free(rows, nrows);
	tc_pypto_run_free(&run);
	if (rc_open)
		tc_pypto_runctx_close(&rc);
	if (m_ok)
		tc_pypto_manifest_free(&m);
	tc_buf_free(&tsv);
	free(path);
	free(runner);
	free(op_dir);
	return doc;
}
