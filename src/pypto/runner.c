/*
 * runner.c - running the Stage 4 runner for the formal compare: the
 * command for each case selector (case-arg, case-env, the test_function
 * adapter, a single-case runner), the Stage 5 environment (no
 * ASCEND_RT_VISIBLE_DEVICES, TILE_FWK_DEVICE_ID, seed 42), the selector
 * preflight and the two hardware-neutral timing sources.
 */
#include <errno.h>
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
#include "tunectl/proc.h"
#include "tunectl/pypto_compare.h"

extern char **environ;

#define OUTPUT_LIMIT ((size_t)64 << 20)

/* The test_function adapter (the reference runs the same steps through
 * msprof_perf_summary.py --run-case-function). */
static const char adapter_source[] =
"import importlib.util, inspect, json, os, sys\n"
"runner, manifest, case_id = sys.argv[1], sys.argv[2], sys.argv[3]\n"
"with open(manifest, 'rb') as handle:\n"
"    doc = json.loads(handle.read().decode('utf-8'))\n"
"mapping = {}\n"
"for item in doc.get('cases') or []:\n"
"    if isinstance(item, dict) and isinstance(item.get('test_function'), str):\n"
"        mapping[str(item.get('id', '')).strip()] = item['test_function'].strip()\n"
"name = mapping.get(case_id)\n"
"if name is None:\n"
"    raise SystemExit(f'case manifest has no test_function for case {case_id!r}')\n"
"sys.path.insert(0, os.path.dirname(os.path.abspath(runner)))\n"
"spec = importlib.util.spec_from_file_location('_pypto_perf_case', runner)\n"
"module = importlib.util.module_from_spec(spec)\n"
"sys.modules[spec.name] = module\n"
"spec.loader.exec_module(module)\n"
"function = getattr(module, name, None)\n"
"if not callable(function):\n"
"    raise SystemExit(f'test function {name!r} is not callable in '\n"
"                     f'{os.path.basename(runner)}')\n"
"required = [p.name for p in inspect.signature(function).parameters.values()\n"
"            if p.default is inspect.Parameter.empty\n"
"            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]\n"
"if required:\n"
"    raise SystemExit(f'test function {name!r} requires arguments {required}; '\n"
"                     'the automatic Stage 5 adapter accepts no-argument '\n"
"                     'test functions only')\n"
"function()\n"
"print(f'PYPTO_PERF_SELECTED_CASE={case_id}', flush=True)\n";

int
tc_pypto_runctx_open(tc_pypto_runctx *c, tc_error *err)
{
	c->adapter_path = NULL;
	c->serial = 0;
	if ((c->session = tc_make_temp_dir("tunectl-pypto", err)) == NULL)
		return -1;
	if (c->adapter) {
		c->adapter_path = tc_path_join(c->session,
		    "pypto_case_adapter.py");
		if (tc_write_atomic(c->adapter_path, adapter_source,
		    sizeof(adapter_source) - 1, 0, err) != 0) {
			tc_pypto_runctx_close(c);
			return -1;
		}
	}
	return 0;
}

void
tc_pypto_runctx_close(tc_pypto_runctx *c)
{
	if (c->adapter_path != NULL) {
		unlink(c->adapter_path);
		free(c->adapter_path);
		c->adapter_path = NULL;
	}
	if (c->session != NULL) {
		rmdir(c->session);
		free(c->session);
		c->session = NULL;
	}
}

void
tc_pypto_run_free(tc_pypto_run *r)
{
	size_t i;

	if (r->argv != NULL)
		for (i = 0; r->argv[i] != NULL; i++)
			free(r->argv[i]);
	free(r->argv);
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static char **
build_env(const tc_pypto_runctx *c, const char *case_id)
{
	size_t n = 0, k = 0, i;
	char **envp;
	const char *old_pp = NULL;

	while (environ[n] != NULL)
		n++;
	envp = tc_xcalloc(n + 5, sizeof(*envp));
	for (i = 0; i < n; i++) {
		const char *e = environ[i];

		if (c->pythonpath != NULL && strncmp(e, "PYTHONPATH=", 11) == 0) {
			old_pp = e + 11;
			continue;
		}
		if (strncmp(e, "ASCEND_RT_VISIBLE_DEVICES=", 26) == 0 ||
		    strncmp(e, "TILE_FWK_DEVICE_ID=", 19) == 0 ||
		    strncmp(e, "PYPTO_PERF_SEED=", 16) == 0)
			continue;
		if (c->case_env != NULL && strncmp(e, c->case_env,
		    strlen(c->case_env)) == 0 && e[strlen(c->case_env)] == '=')
			continue;
		envp[k++] = tc_xstrdup(e);
	}
	if (c->pythonpath != NULL)
		envp[k++] = old_pp != NULL && *old_pp != '\0' ?
		    tc_xasprintf("PYTHONPATH=%s:%s", c->pythonpath, old_pp) :
		    tc_xasprintf("PYTHONPATH=%s", c->pythonpath);
	envp[k++] = tc_xasprintf("TILE_FWK_DEVICE_ID=%ld", c->device);
	envp[k++] = tc_xstrdup("PYPTO_PERF_SEED=42");
	if (c->case_env != NULL && case_id != NULL)
		envp[k++] = tc_xasprintf("%s=%s", c->case_env, case_id);
	envp[k] = NULL;
	return envp;
}

static void
free_strv(char **v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static char **
build_argv(const tc_pypto_runctx *c, const char *case_id)
{
	char **argv = tc_xcalloc(8, sizeof(*argv));
	size_t k = 0;

	if (c->interpreter != NULL && c->interpreter[0] != '\0')
		argv[k++] = tc_xstrdup(c->interpreter);
	if (c->adapter) {
		argv[k++] = tc_xstrdup(c->adapter_path);
		argv[k++] = tc_xstrdup(c->runner);
		argv[k++] = tc_xstrdup(c->manifest);
		argv[k++] = tc_xstrdup(case_id != NULL ? case_id : "");
	} else {
		argv[k++] = tc_xstrdup(c->runner);
		if (c->case_arg != NULL && case_id != NULL) {
			argv[k++] = tc_xstrdup(c->case_arg);
			argv[k++] = tc_xstrdup(case_id);
		}
	}
	argv[k] = NULL;
	return argv;
}

int
tc_pypto_run_once(tc_pypto_runctx *c, const char *case_id, tc_pypto_run *r,
    tc_error *err)
{
	char *so, *se, **envp;
	tc_proc_spec spec;
	tc_proc_result res;
	tc_error rerr = TC_ERROR_INIT;
	int rc;

	memset(r, 0, sizeof(*r));
	r->argv = build_argv(c, case_id);
	envp = build_env(c, case_id);
	c->serial++;
	so = tc_xasprintf("%s/run_%u.out", c->session, c->serial);
	se = tc_xasprintf("%s/run_%u.err", c->session, c->serial);
	memset(&spec, 0, sizeof(spec));
	spec.argv = r->argv;
	spec.envp = envp;
	spec.stdout_path = so;
	spec.stderr_path = se;
	spec.stdin_null = true;
	spec.timeout_s = c->timeout_s;
	rc = tc_proc_run(&spec, &res, err);
	if (rc == 0) {
		r->exit_code = res.exit_code;
		r->timed_out = res.timed_out;
		r->wall_s = res.wall_s;
		r->out = tc_read_file(so, OUTPUT_LIMIT, NULL, &rerr);
		if (r->out == NULL)
			r->out = tc_xstrdup("");
		tc_error_clear(&rerr);
		r->err = tc_read_file(se, OUTPUT_LIMIT, NULL, &rerr);
		if (r->err == NULL)
			r->err = tc_xstrdup("");
		tc_error_clear(&rerr);
		if (r->timed_out) {
			char *e = tc_xasprintf("%s\nTIMEOUT after %g seconds",
			    r->err, c->timeout_s);

			free(r->err);
			r->err = e;
			r->exit_code = 124;
		}
	}
	unlink(so);
	unlink(se);
	free(so);
	free(se);
	free_strv(envp);
	return rc;
}

char *
tc_pypto_tail(const char *s, size_t n)
{
	size_t len = strlen(s);

	return tc_xstrdup(len > n ? s + len - n : s);
}

int
tc_pypto_run_warmed(tc_pypto_runctx *c, const char *case_id, long warmup,
    const char *what, tc_pypto_run *r, tc_error *err)
{
	long w;

	for (w = 0; w <= warmup; w++) {
		tc_pypto_run_free(r);
		if (tc_pypto_run_once(c, case_id, r, err) != 0)
			return -1;
		if (r->exit_code != 0) {
			char *tail = tc_pypto_tail(r->err, 500);

			tc_error_set(err, "%s %s failed (exit %d): %s", what,
			    w < warmup ? "warm-up" : "run", r->exit_code, tail);
			free(tail);
			return -1;
		}
	}
	return 0;
}

/* Python str.splitlines() marker extraction over stdout + "\n" + stderr. */
static tc_json *
markers_of(const char *out, const char *errtext)
{
	tc_json *m = tc_json_new_array();
	const char *texts[2] = { out, errtext };
	size_t plen = strlen(TC_PYPTO_MARKER), t;

	for (t = 0; t < 2; t++) {
		const char *p = texts[t];

		while (*p != '\0') {
			size_t len = strcspn(p, "\r\n");

			if (len >= plen && strncmp(p, TC_PYPTO_MARKER, plen) == 0)
				tc_json_array_push(m, tc_json_new_stringn(p + plen,
				    len - plen));
			p += len;
			if (*p == '\r' && p[1] == '\n')
				p += 2;
			else if (*p != '\0')
				p++;
		}
	}
	return m;
}

int
tc_pypto_selector_preflight(tc_pypto_runctx *c, char *const *ids, size_t n,
    tc_error *err)
{
	struct timespec ts;
	char *unknown;
	tc_pypto_run r;
	size_t i;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	unknown = tc_xasprintf("__pypto_perf_unknown_%ld_%lld%09ld__",
	    (long)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
	if (tc_pypto_run_once(c, unknown, &r, err) != 0) {
		free(unknown);
		return -1;
	}
	if (r.exit_code == 0) {
		tc_error_set(err, "declared case selector accepted a "
		    "collision-resistant unknown case id; refusing to profile a "
		    "runner that may ignore the selector");
		rc = -1;
	}
	tc_pypto_run_free(&r);
	free(unknown);
	for (i = 0; i < n && rc == 0; i++) {
		tc_buf id = TC_BUF_INIT;

		tc_json_repr_string(&id, ids[i], strlen(ids[i]));
		if (tc_pypto_run_once(c, ids[i], &r, err) != 0) {
			tc_buf_free(&id);
			return -1;
		}
		if (r.exit_code != 0) {
			tc_error_set(err, "case selector failed for known case id "
			    "%s", tc_buf_cstr(&id));
			rc = -1;
		} else {
			tc_json *m = markers_of(r.out, r.err);

			if (!(m->u.arr.len == 1 && strcmp(tc_json_string(
			    m->u.arr.items[0]), ids[i]) == 0)) {
				tc_buf ms = TC_BUF_INIT;

				tc_json_repr(&ms, m);
				tc_error_set(err, "case selector for %s must emit "
				    "exactly one line 'PYPTO_PERF_SELECTED_CASE=%s'; "
				    "got markers=%s", tc_buf_cstr(&id), ids[i],
				    tc_buf_cstr(&ms));
				tc_buf_free(&ms);
				rc = -1;
			}
			tc_json_free(m);
		}
		tc_pypto_run_free(&r);
		tc_buf_free(&id);
	}
	return rc;
}

/* ---- timing sources ------------------------------------------------------------ */

void
tc_pypto_rows_free(tc_pypto_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].op_name);
		free(rows[i].task_type);
	}
	free(rows);
}

int
tc_pypto_reported_rows(const char *out, tc_pypto_row **rows, size_t *n, tc_error *err)
{
	const char *p = out, *line;
	size_t len, cap = 0;

	*rows = NULL;
	*n = 0;
	while (tc_pj_next_tagged_line(&p, TC_PYPTO_TASK_LINE, &line, &len)) {
		tc_json *v = tc_json_parse(line, len, err);
		const char *name = tc_json_get_string(v, "op_name");
		double d;

		if (v == NULL || name == NULL ||
		    !tc_json_number(tc_json_get(v, "duration_us"), &d) ||
		    tc_json_is(tc_json_get(v, "duration_us"),
		    TC_JSON_BOOL)) {
			if (v != NULL)
				tc_error_set(err, "a PYPTO_PERF_TASK line "
				    "needs a string op_name and a number "
				    "duration_us");
			tc_error_prefix(err, "malformed runner timing "
			    "line: ");
			tc_json_free(v);
			tc_pypto_rows_free(*rows, *n);
			*rows = NULL;
			*n = 0;
			return -1;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			*rows = tc_xrealloc(*rows, cap * sizeof(**rows));
		}
		(*rows)[*n].op_name = tc_xstrdup(name);
		(*rows)[*n].duration_us = d;
		(*rows)[*n].task_type = tc_json_get_string(v,
		    "task_type") != NULL ? tc_xstrdup(tc_json_get_string(v,
		    "task_type")) : NULL;
		(*n)++;
		tc_json_free(v);
	}
	return 0;
}

int
tc_pypto_timing_rows(const char *source, const tc_pypto_run *r,
    const char *op_name, tc_pypto_row **rows, size_t *n, double *duration,
    tc_error *err)
{
	size_t i, matched = 0;
	double d = 0;

	if (strcmp(source, "process_timer") == 0) {
		*rows = tc_xcalloc(1, sizeof(**rows));
		(*rows)[0].op_name = tc_xstrdup(op_name);
		(*rows)[0].duration_us = r->wall_s * 1e6;
		(*rows)[0].task_type = NULL;
		*n = 1;
	} else if (tc_pypto_reported_rows(r->out, rows, n, err) != 0) {
		return -1;
	}
	for (i = 0; i < *n; i++) {
		char *s = tc_py_strip_dup((*rows)[i].op_name);

		if (s != NULL && strcmp(s, op_name) == 0) {
			matched++;
			d = (*rows)[i].duration_us;
		}
		free(s);
	}
	if (matched != 1) {
		tc_error_set(err, "expected exactly one row for op_name=%s; found "
		    "%zu. Use a runner that emits one measured target launch per "
		    "profiling process, or add a verified occurrence/correlation "
		    "selector.", op_name, matched);
		goto fail;
	}
	if (!isfinite(d) || d <= 0) {
		tc_buf b = TC_BUF_INIT;

		tc_json_format_double(&b, d);
		tc_error_set(err, "invalid Task Duration for op_name=%s: %s",
		    op_name, tc_buf_cstr(&b));
		tc_buf_free(&b);
		goto fail;
	}
	*duration = d;
	return 0;
fail:
	tc_pypto_rows_free(*rows, *n);
	*rows = NULL;
	*n = 0;
	return -1;
}
