/*
 * golden.c - GOLDEN_PERF_REPORT.json, the Stage 5 Golden machine contract:
 * full validation with the reference's messages (parse_golden_contract,
 * docs/spec/pypto.md "Golden contract") and the shape / dtype canonical forms
 * the manifest join compares (docs/spec/pypto.md "Golden join").
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_cases.h"

void
tc_pypto_golden_free(tc_pypto_golden *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->cases[i].id);
		free(g->cases[i].shape);
		free(g->cases[i].dtype);
	}
	free(g->cases);
	tc_json_free(g->metadata);
	memset(g, 0, sizeof(*g));
}

static char *
repr(const char *s)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_repr_string(&b, s, strlen(s));
	return tc_buf_detach(&b, NULL);
}

static int
required_int(const tc_json *payload, const char *name, int64_t minimum,
    int64_t *out, tc_error *err)
{
	if (!tc_pj_int(tc_json_get(payload, name), out) || *out < minimum) {
		tc_error_set(err, "Golden %s must be an integer >= %lld", name,
		    (long long)minimum);
		return -1;
	}
	return 0;
}

/* The protocol's integers, in the order of vals[]. */
static const char *const protocol_names[5] = {
	"device_id", "iterations", "warmup", "repeats", "seed"
};

static int
protocol_values(const tc_json *payload, int64_t vals[5], tc_error *err)
{
	static const int64_t minima[] = { 0, 1, 0, 1, 0 };
	const char *s;
	char *msg;
	size_t i;

	for (i = 0; i < 5; i++)
		if (required_int(payload, protocol_names[i], minima[i], &vals[i],
		    err) != 0)
			return -1;
	if (vals[1] != 1) {
		tc_error_set(err, "Stage 5 Golden iterations must be exactly 1");
		return -1;
	}
	if (vals[4] != 42) {
		tc_error_set(err, "Golden seed must be 42");
		return -1;
	}
	s = tc_json_get_string(payload, "timing_scope");
	if (s == NULL || strcmp(s, "all_golden_npu_kernels") != 0) {
		tc_error_set(err, "Golden timing_scope must be "
		    "all_golden_npu_kernels");
		return -1;
	}
	s = tc_json_get_string(payload, "aggregation");
	if (s == NULL || strcmp(s, "median_of_repeat_totals") != 0) {
		tc_error_set(err, "Golden aggregation must be "
		    "median_of_repeat_totals");
		return -1;
	}
	msg = tc_pypto_source_record_error(tc_json_get(payload,
	    "golden_source"), "Golden source");
	if (msg != NULL) {
		tc_error_set(err, "%s", msg);
		free(msg);
		return -1;
	}
	return 0;
}

static int
golden_cases(const tc_json *payload, int64_t repeats, int64_t iterations,
    tc_pypto_golden *g, tc_error *err)
{
	const tc_json *raw = tc_json_get(payload, "cases");
	size_t i, k;

	if (!tc_json_is(raw, TC_JSON_ARRAY) || raw->u.arr.len == 0) {
		tc_error_set(err, "Golden cases must be a non-empty list");
		return -1;
	}
	g->cases = tc_xcalloc(raw->u.arr.len, sizeof(*g->cases));
	for (i = 0; i < raw->u.arr.len; i++) {
		const tc_json *rec = raw->u.arr.items[i], *samples;
		char *id, *shape, *dtype, *r;
		double *vals, median, v;
		size_t n;

		if (!tc_json_is(rec, TC_JSON_OBJECT)) {
			tc_error_set(err, "Golden cases[%zu] must be an object", i);
			return -1;
		}
		if ((id = tc_py_strip_dup(tc_json_get_string(rec, "id"))) == NULL) {
			tc_error_set(err, "Golden cases[%zu].id must be non-empty",
			    i);
			return -1;
		}
		for (k = 0; k < g->n; k++)
			if (strcmp(g->cases[k].id, id) == 0) {
				r = repr(id);
				tc_error_set(err, "Golden contains duplicate case id "
				    "%s", r);
				free(r);
				free(id);
				return -1;
			}
		g->cases[g->n].id = id;
		g->n++;
		if ((shape = tc_py_strip_dup(tc_json_get_string(rec, "shape"))) == NULL) {
			tc_error_set(err, "Golden cases[%zu].shape must be "
			    "non-empty", i);
			return -1;
		}
		g->cases[g->n - 1].shape = shape;
		if ((dtype = tc_py_strip_dup(tc_json_get_string(rec, "dtype"))) == NULL) {
			tc_error_set(err, "Golden cases[%zu].dtype must be "
			    "non-empty", i);
			return -1;
		}
		g->cases[g->n - 1].dtype = dtype;
		samples = tc_json_get(rec, "raw_repeat_e2e_us");
		n = tc_json_is(samples, TC_JSON_ARRAY) ? samples->u.arr.len : 0;
		vals = tc_xcalloc(n + 1, sizeof(*vals));
		for (k = 0; k < n; k++)
			if (!tc_pj_positive(samples->u.arr.items[k], &vals[k]))
				break;
		if (!tc_json_is(samples, TC_JSON_ARRAY) ||
		    (int64_t)n != repeats || k != n) {
			r = repr(id);
			tc_error_set(err, "Golden case %s must contain %lld "
			    "positive finite raw repeats", r, (long long)repeats);
			free(r);
			free(vals);
			return -1;
		}
		median = tc_pypto_median(vals, n);
		free(vals);
		if (!tc_pj_positive(tc_json_get(rec, "median_total_us"), &v) ||
		    !tc_py_isclose(v, median, 1e-9, 1e-6)) {
			r = repr(id);
			tc_error_set(err, "Golden case %s median is not "
			    "reproducible", r);
			free(r);
			return -1;
		}
		if (!tc_pj_positive(tc_json_get(rec, "per_iteration_e2e_us"), &v) ||
		    !tc_py_isclose(v, median / (double)iterations, 1e-9, 1e-6)) {
			r = repr(id);
			tc_error_set(err, "Golden case %s per-iteration E2E is not "
			    "reproducible", r);
			free(r);
			return -1;
		}
		g->cases[g->n - 1].per_iteration_us = v;
	}
	return 0;
}

int
tc_pypto_golden_load(const char *dir, tc_pypto_golden *g, tc_error *err)
{
	char *path = tc_path_join(dir, "GOLDEN_PERF_REPORT.json");
	static const char *const copied[] = {
		"timing_scope", "aggregation", "golden_source",
		"case_manifest_source", NULL
	};
	tc_json *payload, *meta, *one;
	tc_error inner = TC_ERROR_INIT;
	int64_t vals[5];
	bool schema_ok;
	size_t i;

	memset(g, 0, sizeof(*g));
	if (!tc_path_exists(path)) {
		free(path);
		return 0;
	}
	payload = tc_json_parse_file(path, &inner);
	free(path);
	if (payload == NULL) {
		tc_error_set(err, "cannot load GOLDEN_PERF_REPORT.json: %s",
		    tc_error_msg(&inner));
		tc_error_clear(&inner);
		return -1;
	}
	one = tc_json_new_int(1);
	schema_ok = payload->type == TC_JSON_OBJECT &&
	    tc_json_get(payload, "schema_version") != NULL &&
	    tc_json_equal(tc_json_get(payload, "schema_version"), one);
	tc_json_free(one);
	if (!schema_ok) {
		tc_error_set(err, "GOLDEN_PERF_REPORT.json must use "
		    "schema_version=1");
		tc_json_free(payload);
		return -1;
	}
	if (protocol_values(payload, vals, err) != 0 ||
	    golden_cases(payload, vals[3], vals[1], g, err) != 0) {
		tc_json_free(payload);
		tc_pypto_golden_free(g);
		return -1;
	}
	meta = tc_json_new_object();
	tc_json_object_set_int(meta, "schema_version", 1);
	for (i = 0; i < 5; i++)
		tc_json_object_set_int(meta, protocol_names[i], vals[i]);
	tc_pj_copy_members(meta, payload, copied);
	g->metadata = meta;
	tc_json_free(payload);
	return 1;
}

/* ---- canonical shapes and dtypes ---------------------------------------------- */

/* Python int() of a (whitespace-free) decimal string: sign, digits,
 * single underscores between digits. */
static bool
py_int(const char *s, size_t n, long long *out)
{
	size_t i = 0;
	long long v = 0;
	bool neg = false, digit = false;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		if (s[i] == '_') {
			if (!digit || i + 1 >= n || !isdigit((unsigned char)s[i + 1]))
				return false;
			continue;
		}
		if (!isdigit((unsigned char)s[i]))
			return false;
		digit = true;
		if (v > 100000000000000000LL)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (!digit)
		return false;
	*out = neg ? -v : v;
	return true;
}

static bool
ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool
ident_char(int c)
{
	return isalnum(c) || c == '_';
}

tc_json *
tc_pypto_canonical_shape(const char *text)
{
	tc_buf compact = TC_BUF_INIT;
	tc_json *out = tc_json_new_array();
	const char *s;
	size_t n, i = 0;

	for (s = text; *s != '\0'; s++)
		if (!isspace((unsigned char)*s))
			tc_buf_putc(&compact, *s);
	s = tc_buf_cstr(&compact);
	n = compact.len;
	while (i < n) {
		size_t j = i, name_end = i, dims_start, k;
		bool named = false;

		if (ident_start((unsigned char)s[j])) {
			while (j < n && ident_char((unsigned char)s[j]))
				j++;
			if (j < n && s[j] == ':' && j + 1 < n &&
			    (s[j + 1] == '[' || s[j + 1] == '(')) {
				named = true;
				name_end = j;
				j++;
			} else {
				i++;
				continue;
			}
		}
		if (s[j] != '[' && s[j] != '(') {
			i++;
			continue;
		}
		dims_start = ++j;
		while (j < n && s[j] != ']' && s[j] != ')')
			j++;
		if (j >= n || j == dims_start) {
			i++;
			continue;
		}
		{
			tc_json *group = tc_json_new_array(), *dims;
			size_t p = dims_start;

			if (named)
				tc_json_array_push(group,
				    tc_json_new_stringn(s + i, name_end - i));
			else
				tc_json_array_push(group, tc_json_new_null());
			dims = tc_json_new_array();
			for (k = dims_start; k <= j; k++) {
				if (k == j || s[k] == ',' || s[k] == 'x' ||
				    s[k] == 'X') {
					long long d;

					if (k > p) {
						if (!py_int(s + p, k - p, &d) ||
						    d <= 0) {
							tc_json_free(group);
							tc_json_free(dims);
							tc_json_free(out);
							tc_buf_free(&compact);
							return NULL;
						}
						tc_json_array_push(dims,
						    tc_json_new_int(d));
					}
					p = k + 1;
				}
			}
			tc_json_array_push(group, dims);
			tc_json_array_push(out, group);
		}
		i = j + 1;
	}
	if (out->u.arr.len == 0) {
		bool scalar = strcmp(s, "()") == 0 || strcmp(s, "[]") == 0 ||
		    strcmp(s, "scalar") == 0;

		tc_json_free(out);
		out = NULL;
		if (scalar) {
			tc_json *group = tc_json_new_array();

			out = tc_json_new_array();
			tc_json_array_push(group, tc_json_new_null());
			tc_json_array_push(group, tc_json_new_array());
			tc_json_array_push(out, group);
		}
	}
	tc_buf_free(&compact);
	return out;
}

static const char *const dtype_alts[] = {
	"bfloat16", "float16", "float32", "float64", "half", "float", "double",
	"fp16", "fp32", "fp64", "bf16", "int8", "uint8", "int16", "uint16",
	"int32", "uint32", "int64", "uint64", "bool", NULL
};

static const char *
dtype_alias(const char *d)
{
	static const char *const map[][2] = {
		{ "half", "float16" }, { "fp16", "float16" },
		{ "float", "float32" }, { "fp32", "float32" },
		{ "double", "float64" }, { "fp64", "float64" },
		{ "bf16", "bfloat16" }, { NULL, NULL }
	};
	size_t i;

	for (i = 0; map[i][0] != NULL; i++)
		if (strcmp(map[i][0], d) == 0)
			return map[i][1];
	return d;
}

/* (?:torch\.)?(alternatives) at s[i]; returns the end or 0. */
static size_t
match_dtype(const char *s, size_t n, size_t i, const char **which)
{
	size_t k, pass;

	for (pass = 0; pass < 2; pass++) {
		size_t j = i;

		if (pass == 0) {
			if (n - i < 6 || strncmp(s + i, "torch.", 6) != 0)
				continue;
			j += 6;
		}
		for (k = 0; dtype_alts[k] != NULL; k++) {
			size_t l = strlen(dtype_alts[k]);

			if (n - j >= l && strncmp(s + j, dtype_alts[k], l) == 0) {
				*which = dtype_alts[k];
				return j + l;
			}
		}
	}
	return 0;
}

tc_json *
tc_pypto_canonical_dtype(const char *text)
{
	char *s = tc_xstrdup(text);
	size_t n = strlen(s), i = 0, k;
	tc_json *out = tc_json_new_array();

	for (k = 0; k < n; k++)
		s[k] = (char)tolower((unsigned char)s[k]);
	while (i < n) {
		const char *which = NULL;
		size_t end = 0, name_len = 0;

		if (ident_start((unsigned char)s[i])) {
			size_t j = i, l;

			while (j < n && ident_char((unsigned char)s[j]))
				j++;
			/* greedy name, backtracking to shorter ones */
			for (l = j - i; l > 0 && end == 0; l--) {
				size_t p = i + l;

				while (p < n && isspace((unsigned char)s[p]))
					p++;
				if (p >= n || s[p] != ':')
					continue;
				p++;
				while (p < n && isspace((unsigned char)s[p]))
					p++;
				if ((end = match_dtype(s, n, p, &which)) != 0)
					name_len = l;
			}
		}
		if (end == 0)
			end = match_dtype(s, n, i, &which);
		if (end == 0) {
			i++;
			continue;
		}
		{
			tc_json *tok = tc_json_new_array();

			if (name_len > 0)
				tc_json_array_push(tok,
				    tc_json_new_stringn(s + i, name_len));
			else
				tc_json_array_push(tok, tc_json_new_null());
			tc_json_array_push(tok,
			    tc_json_new_string(dtype_alias(which)));
			tc_json_array_push(out, tok);
		}
		i = end;
	}
	free(s);
	if (out->u.arr.len == 0) {
		tc_json_free(out);
		return NULL;
	}
	return out;
}

char *
tc_pypto__golden_reload(const char *contract_path, tc_pypto_golden *g)
{
	char *dir = tc_path_dirname(contract_path);
	tc_error err = TC_ERROR_INIT;
	int have = tc_pypto_golden_load(dir, g, &err);
	char *msg = NULL;

	free(dir);
	if (have <= 0)
		msg = tc_xstrdup(have < 0 ? tc_error_msg(&err) :
		    "GOLDEN_PERF_REPORT.json not found");
	tc_error_clear(&err);
	return msg;
}
