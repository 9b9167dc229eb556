/*
 * cases.c - PERFORMANCE_CASES.json: parsing with the reference's checks
 * and messages (parse_case_manifest), the source record and its
 * re-validation (performance_case_source_error), the Golden join
 * (resolve_performance_cases), the optimization_target rules of a full
 * Stage 5 contract, and the test_function mapping to runner functions.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"

static const char *const selection_modes[] = {
	"user_selected", "single_p0", "all_p0_no_questions", NULL
};

void
tc_pypto_manifest_free(tc_pypto_manifest *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->cases[i].id);
		free(m->cases[i].shape);
		free(m->cases[i].dtype);
		free(m->cases[i].test_function);
	}
	free(m->cases);
	free(m->path);
	tc_json_free(m->doc);
	tc_json_free(m->source);
	memset(m, 0, sizeof(*m));
}

static bool
py_equals_one(const tc_json *v)
{
	tc_json *one = tc_json_new_int(1);
	bool eq = v != NULL && tc_json_equal(v, one);

	tc_json_free(one);
	return eq;
}

static char *
repr(const char *s)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_repr_string(&b, s, strlen(s));
	return tc_buf_detach(&b, NULL);
}

static bool
test_function_name_ok(const char *s)
{
	size_t i;

	if (strncmp(s, "test_", 5) != 0 || s[5] == '\0')
		return false;
	if (!(isalpha((unsigned char)s[5]) || s[5] == '_'))
		return false;
	for (i = 6; s[i] != '\0'; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

static char *
expand_user(const char *p)
{
	const char *home = getenv("HOME");

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
		return tc_xasprintf("%s%s", home, p + 1);
	return tc_xstrdup(p);
}

int
tc_pypto_manifest_load(const char *raw_path, tc_pypto_manifest *m,
    tc_error *err)
{
	char *stripped = tc_py_strip_dup(raw_path), *path = NULL, *r;
	tc_json *doc = NULL, *source = NULL, *cases, *functions;
	tc_error inner = TC_ERROR_INIT;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (stripped == NULL) {
		tc_error_set(err, "--case-manifest must name a non-empty path");
		return -1;
	}
	free(stripped);
	path = expand_user(raw_path);
	if ((source = tc_pypto_source_record(path, &inner)) == NULL ||
	    (doc = tc_json_parse_file(tc_json_get_string(source, "path"),
	    &inner)) == NULL) {
		r = repr(raw_path);
		tc_error_set(err, "cannot load case manifest %s: %s", r,
		    tc_error_msg(&inner));
		free(r);
		tc_error_clear(&inner);
		goto fail;
	}
	if (doc->type != TC_JSON_OBJECT ||
	    !py_equals_one(tc_json_get(doc, "schema_version"))) {
		tc_error_set(err, "case manifest must be an object with "
		    "schema_version=1");
		goto fail;
	}
	cases = tc_json_get(doc, "cases");
	if (!tc_json_is(cases, TC_JSON_ARRAY) || cases->u.arr.len == 0) {
		tc_error_set(err, "case manifest cases must be a non-empty list");
		goto fail;
	}
	m->cases = tc_xcalloc(cases->u.arr.len, sizeof(*m->cases));
	functions = tc_json_new_object();
	for (i = 0; i < cases->u.arr.len; i++) {
		const tc_json *item = cases->u.arr.items[i];
		static const char *const fields[] = { "id", "shape", "dtype" };
		char *vals[3] = { NULL, NULL, NULL };
		const tc_json *tf;
		size_t k;

		if (!tc_json_is(item, TC_JSON_OBJECT)) {
			tc_error_set(err, "case manifest cases[%zu] must be an "
			    "object", i);
			goto fail_functions;
		}
		for (k = 0; k < 3; k++) {
			vals[k] = tc_py_strip_dup(tc_json_get_string(item,
			    fields[k]));
			if (vals[k] == NULL) {
				tc_error_set(err, "case manifest cases[%zu].%s "
				    "must be a non-empty string", i, fields[k]);
				free(vals[0]);
				free(vals[1]);
				goto fail_functions;
			}
		}
		for (k = 0; k < m->n; k++)
			if (strcmp(m->cases[k].id, vals[0]) == 0) {
				r = repr(vals[0]);
				tc_error_set(err, "case manifest contains duplicate "
				    "case id %s", r);
				free(r);
				free(vals[0]);
				free(vals[1]);
				free(vals[2]);
				goto fail_functions;
			}
		m->cases[m->n].id = vals[0];
		m->cases[m->n].shape = vals[1];
		m->cases[m->n].dtype = vals[2];
		m->n++;
		tf = tc_json_get(item, "test_function");
		if (tf != NULL && tf->type != TC_JSON_NULL) {
			char *name = tc_py_strip_dup(tc_json_string(tf));

			if (name == NULL || !test_function_name_ok(name)) {
				tc_error_set(err, "case manifest cases[%zu]."
				    "test_function must name a no-argument "
				    "test_* function", i);
				free(name);
				goto fail_functions;
			}
			m->cases[m->n - 1].test_function = tc_xstrdup(name);
			tc_json_object_set_string(functions, vals[0], name);
			free(name);
		}
	}
	tc_json_object_set_string(source, "type", "case_manifest");
	tc_json_object_set_int(source, "schema_version", 1);
	tc_json_object_set(source, "case_functions", functions);
	{
		tc_json *gd = tc_json_new_object();

		tc_json_object_set_string(gd, "status", "not_provided");
		tc_json_object_set(source, "golden_diagnostic", gd);
	}
	m->path = tc_xstrdup(tc_json_get_string(source, "path"));
	m->doc = doc;
	m->source = source;
	free(path);
	return 0;
fail_functions:
	tc_json_free(functions);
fail:
	free(path);
	tc_json_free(doc);
	tc_json_free(source);
	tc_pypto_manifest_free(m);
	return -1;
}

/* ---- Golden join ------------------------------------------------------------ */

static void
sorted_id_list(tc_buf *out, char **ids, size_t n)
{
	tc_json *arr = tc_json_new_array();
	size_t i, j;

	/* insertion sort by byte order (Python sorts str by code point) */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(ids[j - 1], ids[j]) > 0; j--) {
			char *t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		tc_json_array_push(arr, tc_json_new_string(ids[i]));
	tc_json_repr(out, arr);
	tc_json_free(arr);
}

/* The manifest and the Golden contract list the same case ids. */
static int
golden_same_ids(const tc_pypto_manifest *m, const tc_pypto_golden *g,
    tc_error *err)
{
	char **missing = tc_xcalloc(m->n + 1, sizeof(*missing));
	char **extra = tc_xcalloc(g->n + 1, sizeof(*extra));
	tc_buf a = TC_BUF_INIT, b = TC_BUF_INIT;
	size_t nm = 0, ne = 0, i, j;
	int rc = 0;

	for (i = 0; i < m->n; i++) {
		for (j = 0; j < g->n; j++)
			if (strcmp(m->cases[i].id, g->cases[j].id) == 0)
				break;
		if (j == g->n)
			missing[nm++] = m->cases[i].id;
	}
	for (j = 0; j < g->n; j++) {
		for (i = 0; i < m->n; i++)
			if (strcmp(m->cases[i].id, g->cases[j].id) == 0)
				break;
		if (i == m->n)
			extra[ne++] = g->cases[j].id;
	}
	if (nm > 0 || ne > 0) {
		sorted_id_list(&a, missing, nm);
		sorted_id_list(&b, extra, ne);
		tc_error_set(err, "case id mismatch between --case-manifest and "
		    "GOLDEN_PERF_REPORT.json: missing_in_golden=%s, "
		    "extra_in_golden=%s", tc_buf_cstr(&a), tc_buf_cstr(&b));
		tc_buf_free(&a);
		tc_buf_free(&b);
		rc = -1;
	}
	free(missing);
	free(extra);
	return rc;
}

/* Each case has the Golden case's shape and dtype; it takes the Golden
 * per-iteration time. */
static int
golden_join_cases(tc_pypto_manifest *m, const tc_pypto_golden *g,
    tc_error *err)
{
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		tc_pypto_case *c = &m->cases[i];
		const tc_pypto_golden_case *gc = NULL;
		tc_json *ms, *gs, *mdt, *gdt;
		bool shape_ok, dtype_ok;
		char *r;

		for (j = 0; j < g->n; j++)
			if (strcmp(c->id, g->cases[j].id) == 0)
				gc = &g->cases[j];
		if (gc == NULL)
			continue;
		ms = tc_pypto_canonical_shape(c->shape);
		gs = tc_pypto_canonical_shape(gc->shape);
		mdt = tc_pypto_canonical_dtype(c->dtype);
		gdt = tc_pypto_canonical_dtype(gc->dtype);
		shape_ok = ms != NULL && gs != NULL && tc_json_equal(ms, gs);
		dtype_ok = mdt != NULL && gdt != NULL && tc_json_equal(mdt, gdt);
		tc_json_free(ms);
		tc_json_free(gs);
		tc_json_free(mdt);
		tc_json_free(gdt);
		if (!shape_ok || !dtype_ok) {
			r = repr(c->id);
			tc_error_set(err, "case %s %s mismatch between manifest "
			    "and Golden contract", r, !shape_ok ? "shape" :
			    "dtype");
			free(r);
			return -1;
		}
		c->has_golden = true;
		c->golden_us = gc->per_iteration_us;
	}
	return 0;
}

/* The Golden contract was collected from this very manifest file. */
static bool
golden_from_manifest(const tc_pypto_manifest *m, const tc_pypto_golden *g)
{
	static const char *const keys[] = {
		"path", "sha256", "size_bytes", "schema_version", NULL
	};
	const tc_json *cms = tc_json_get(g->metadata, "case_manifest_source");
	tc_json *want = tc_json_new_object();
	bool same;
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		const tc_json *v = tc_json_get(m->source, keys[i]);

		tc_json_object_set(want, keys[i], v != NULL ? tc_json_clone(v) :
		    tc_json_new_null());
	}
	same = cms != NULL && tc_json_equal(cms, want);
	tc_json_free(want);
	return same;
}

static int
join_golden(const char *op_dir, tc_pypto_manifest *m, tc_error *err)
{
	static const char *const protocol_keys[] = {
		"schema_version", "device_id", "iterations", "warmup",
		"repeats", "seed", "timing_scope", "aggregation", NULL
	};
	tc_pypto_golden g;
	int have = tc_pypto_golden_load(op_dir, &g, err);
	tc_json *contract, *protocol, *gd;
	char *contract_path;
	int64_t it = 1;
	size_t i;
	int rc = -1;

	if (have <= 0)
		return have;
	if (golden_same_ids(m, &g, err) != 0 ||
	    golden_join_cases(m, &g, err) != 0)
		goto out;
	if (!golden_from_manifest(m, &g)) {
		tc_error_set(err, "Golden contract was not collected from "
		    "this exact case manifest");
		goto out;
	}
	gd = tc_json_new_object();
	tc_json_object_set_string(gd, "status", "joined");
	tc_json_object_set(gd, "iterations", tc_json_clone(tc_json_get(
	    g.metadata, "iterations")));
	tc_json_object_set(m->source, "golden_diagnostic", gd);
	contract_path = tc_path_join(op_dir, "GOLDEN_PERF_REPORT.json");
	contract = tc_pypto_source_record(contract_path, err);
	free(contract_path);
	if (contract == NULL)
		goto out;
	protocol = tc_json_new_object();
	for (i = 0; protocol_keys[i] != NULL; i++)
		tc_json_object_set(protocol, protocol_keys[i], tc_json_clone(
		    tc_json_get(g.metadata, protocol_keys[i])));
	tc_json_object_set(contract, "protocol", protocol);
	tc_json_object_set(m->source, "golden_contract", contract);
	(void)tc_pj_int(tc_json_get(g.metadata, "iterations"), &it);
	m->golden_iterations = (long)it;
	rc = 0;
out:
	tc_pypto_golden_free(&g);
	return rc;
}

int
tc_pypto_manifest_resolve(const char *op_dir, const char *raw_path,
    tc_pypto_manifest *m, tc_error *err)
{
	if (raw_path == NULL || raw_path[0] == '\0') {
		memset(m, 0, sizeof(*m));
		tc_error_set(err, "--case-manifest is required");
		return -1;
	}
	if (tc_pypto_manifest_load(raw_path, m, err) != 0)
		return -1;
	if (join_golden(op_dir, m, err) < 0) {
		tc_pypto_manifest_free(m);
		return -1;
	}
	return 0;
}

/* ---- optimization_target ------------------------------------------------------ */

static bool
manifest_has(const tc_pypto_manifest *m, const char *id)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->cases[i].id, id) == 0)
			return true;
	return false;
}

int
tc_pypto_manifest_check_target(const tc_pypto_manifest *m, tc_error *err)
{
	const tc_json *t = tc_json_get(m->doc, "optimization_target");
	const tc_json *ids, *mode;
	const char *mode_s;
	size_t i, j;
	char *r;

	if (t == NULL) {
		tc_error_set(err, "case manifest optimization_target is required "
		    "for a full Stage 5 contract");
		return -1;
	}
	if (t->type != TC_JSON_OBJECT) {
		tc_error_set(err, "case manifest optimization_target must be an "
		    "object");
		return -1;
	}
	ids = tc_json_get(t, "case_ids");
	if (!tc_json_is(ids, TC_JSON_ARRAY) || ids->u.arr.len == 0) {
		tc_error_set(err, "optimization_target.case_ids must be a "
		    "non-empty list of case ids");
		return -1;
	}
	for (i = 0; i < ids->u.arr.len; i++) {
		const char *id = tc_json_string(ids->u.arr.items[i]);

		if (id == NULL || id[0] == '\0') {
			tc_error_set(err, "optimization_target.case_ids[%zu] must "
			    "be a non-empty string", i);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(id, tc_json_string(ids->u.arr.items[j])) == 0) {
				r = repr(id);
				tc_error_set(err, "optimization_target.case_ids "
				    "contains duplicate case id %s", r);
				free(r);
				return -1;
			}
		if (!manifest_has(m, id)) {
			r = repr(id);
			tc_error_set(err, "optimization_target.case_ids names "
			    "unknown case id %s (not in cases[].id)", r);
			free(r);
			return -1;
		}
	}
	mode = tc_json_get(t, "selection_mode");
	mode_s = tc_json_string(mode);
	for (i = 0; mode_s != NULL && selection_modes[i] != NULL; i++)
		if (strcmp(mode_s, selection_modes[i]) == 0)
			break;
	if (mode_s == NULL || selection_modes[i] == NULL) {
		tc_error_set(err, "optimization_target.selection_mode must be one "
		    "of user_selected, single_p0, all_p0_no_questions");
		return -1;
	}
	if (strcmp(mode_s, "single_p0") == 0 && m->n != 1) {
		tc_error_set(err, "selection_mode single_p0 requires exactly one "
		    "P0 case, but the manifest lists %zu", m->n);
		return -1;
	}
	if (strcmp(mode_s, "all_p0_no_questions") == 0 &&
	    ids->u.arr.len != m->n) {
		tc_buf miss = TC_BUF_INIT;
		tc_json *arr = tc_json_new_array();

		for (i = 0; i < m->n; i++)
			if (!tc_pj_array_has_string(ids, m->cases[i].id))
				tc_json_array_push(arr,
				    tc_json_new_string(m->cases[i].id));
		tc_json_repr(&miss, arr);
		tc_error_set(err, "selection_mode all_p0_no_questions requires "
		    "case_ids to cover every P0 case; missing %s",
		    tc_buf_cstr(&miss));
		tc_buf_free(&miss);
		tc_json_free(arr);
		return -1;
	}
	return 0;
}

/* ---- test_function mapping ------------------------------------------------------ */

/* The parameter list of a module-level "def name(" in Python source:
 * NULL when there is none. */
static char *
def_params(const char *src, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = src;

	while (p != NULL && *p != '\0') {
		const char *q = p;

		if (strncmp(q, "async ", 6) == 0)
			q += 6;
		if (strncmp(q, "def", 3) == 0 && (q[3] == ' ' || q[3] == '\t')) {
			q += 3;
			while (*q == ' ' || *q == '\t')
				q++;
			if (strncmp(q, name, nlen) == 0) {
				q += nlen;
				while (*q == ' ' || *q == '\t')
					q++;
				if (*q == '(') {
					int depth = 1;
					const char *s = ++q;

					while (*q != '\0' && depth > 0) {
						if (*q == '(' || *q == '[' ||
						    *q == '{')
							depth++;
						else if (*q == ')' || *q == ']' ||
						    *q == '}')
							depth--;
						q++;
					}
					if (depth == 0)
						return tc_xstrndup(s,
						    (size_t)(q - 1 - s));
				}
			}
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return NULL;
}

/* Names of parameters without a default (not star-args, "*" or "/"). */
static void
required_params(const char *params, tc_json *out)
{
	int depth = 0;
	const char *start = params, *p;

	for (p = params;; p++) {
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			char *part = tc_xstrndup(start, (size_t)(p - start));
			char *s = tc_py_strip_dup(part);

			if (s != NULL && s[0] != '*' && strcmp(s, "/") != 0 &&
			    strchr(s, '=') == NULL) {
				size_t k = 0;

				while (isalnum((unsigned char)s[k]) || s[k] == '_')
					k++;
				s[k] = '\0';
				tc_json_array_push(out, tc_json_new_string(s));
			}
			free(s);
			free(part);
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
}

int
tc_pypto_manifest_check_functions(const tc_pypto_manifest *m,
    const char *runner_path, tc_error *err)
{
	char *src = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < m->n && rc == 0; i++) {
		const char *fn = m->cases[i].test_function;
		char *params, *r;

		if (fn == NULL)
			continue;
		if (src == NULL &&
		    (src = tc_read_file(runner_path, 0, NULL, err)) == NULL)
			return -1;
		r = repr(fn);
		if ((params = def_params(src, fn)) == NULL) {
			tc_error_set(err, "test function %s is not callable in %s",
			    r, tc_path_basename(runner_path));
			rc = -1;
		} else {
			tc_json *req = tc_json_new_array();

			required_params(params, req);
			if (req->u.arr.len > 0) {
				tc_buf b = TC_BUF_INIT;

				tc_json_repr(&b, req);
				tc_error_set(err, "test function %s requires "
				    "arguments %s; the automatic Stage 5 adapter "
				    "accepts no-argument test functions only", r,
				    tc_buf_cstr(&b));
				tc_buf_free(&b);
				rc = -1;
			}
			tc_json_free(req);
			free(params);
		}
		free(r);
	}
	free(src);
	return rc;
}

/* ---- source record re-validation ------------------------------------------------- */

static char *
golden_contract_record_error(const tc_json *record)
{
	static const char *const keys[] = {
		"schema_version", "device_id", "iterations", "warmup",
		"repeats", "seed", "timing_scope", "aggregation", NULL
	};
	char *msg, *dir;
	tc_pypto_golden g;
	tc_error err = TC_ERROR_INIT;
	tc_json *actual;
	int have;
	size_t i;
	bool same;

	if (!tc_json_is(record, TC_JSON_OBJECT))
		return tc_xstrdup("Golden contract record is missing");
	if ((msg = tc_pypto_source_record_error(record, "Golden contract")) != NULL)
		return msg;
	dir = tc_path_dirname(tc_json_get_string(record, "path"));
	have = tc_pypto_golden_load(dir, &g, &err);
	free(dir);
	if (have < 0) {
		msg = tc_xstrdup(tc_error_msg(&err));
		tc_error_clear(&err);
		return msg;
	}
	if (have == 0 || g.n == 0) {
		if (have > 0)
			tc_pypto_golden_free(&g);
		return tc_xstrdup(have == 0 ? "GOLDEN_PERF_REPORT.json not found" :
		    "Golden contract has no cases");
	}
	actual = tc_json_new_object();
	for (i = 0; keys[i] != NULL; i++)
		tc_json_object_set(actual, keys[i],
		    tc_json_clone(tc_json_get(g.metadata, keys[i])));
	same = tc_json_get(record, "protocol") != NULL &&
	    tc_json_equal(tc_json_get(record, "protocol"), actual);
	tc_json_free(actual);
	tc_pypto_golden_free(&g);
	return same ? NULL :
	    tc_xstrdup("Golden contract protocol record mismatch");
}

char *
tc_pypto_case_source_error(const tc_json *record)
{
	const tc_json *diag, *contract;
	const char *status;
	char *msg;
	int64_t it;

	if ((msg = tc_pypto_source_record_error(record, "performance case")) != NULL)
		return msg;
	if (!tc_json_is(tc_json_get(record, "type"), TC_JSON_STRING) ||
	    strcmp(tc_json_get_string(record, "type"), "case_manifest") != 0)
		return tc_xstrdup("performance case source must be a "
		    "case_manifest");
	if (!py_equals_one(tc_json_get(record, "schema_version")))
		return tc_xstrdup("performance case manifest schema_version is "
		    "not 1");
	diag = tc_json_get(record, "golden_diagnostic");
	if (!tc_json_is(diag, TC_JSON_OBJECT))
		return tc_xstrdup("golden_diagnostic source record is missing");
	status = tc_json_get_string(diag, "status");
	if (status == NULL || (strcmp(status, "not_provided") != 0 &&
	    strcmp(status, "joined") != 0)) {
		tc_buf b = TC_BUF_INIT;

		if (tc_json_get(diag, "status") == NULL)
			tc_buf_puts(&b, "None");
		else
			tc_json_repr(&b, tc_json_get(diag, "status"));
		msg = tc_xasprintf("invalid golden_diagnostic status: %s",
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
		return msg;
	}
	contract = tc_json_get(record, "golden_contract");
	if (strcmp(status, "not_provided") == 0)
		return contract != NULL && contract->type != TC_JSON_NULL ?
		    tc_xstrdup("Golden contract cannot be present when Golden "
		    "was not provided") : NULL;
	if (!tc_pj_int(tc_json_get(diag, "iterations"), &it) || it <= 0)
		return tc_xstrdup("Golden diagnostic iterations must be a "
		    "positive integer");
	if (!tc_json_is(contract, TC_JSON_OBJECT))
		return tc_xstrdup("joined Golden target evidence is missing its "
		    "machine contract");
	if ((msg = golden_contract_record_error(contract)) != NULL)
		return msg;
	{
		tc_pypto_golden g;
		tc_json *want;
		size_t i;
		bool same;

		if ((msg = tc_pypto__golden_reload(tc_json_get_string(contract,
		    "path"), &g)) != NULL)
			return msg;
		want = tc_json_new_object();
		for (i = 0; i < 4; i++) {
			static const char *const keys[] = {
				"path", "sha256", "size_bytes", "schema_version"
			};
			const tc_json *v = tc_json_get(record, keys[i]);

			tc_json_object_set(want, keys[i], v != NULL ?
			    tc_json_clone(v) : tc_json_new_null());
		}
		same = tc_json_get(g.metadata, "case_manifest_source") != NULL &&
		    tc_json_equal(tc_json_get(g.metadata,
		    "case_manifest_source"), want);
		tc_json_free(want);
		tc_pypto_golden_free(&g);
		if (!same)
			return tc_xstrdup("Golden contract does not bind to this "
			    "performance case manifest");
	}
	return NULL;
}
