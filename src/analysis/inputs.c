/*
 * inputs.c - the JSON inputs of the analysis: configs, workloads, the
 * declared change set, the environment evidence and the source scope map,
 * read as the reference reads them, and what it derives from them: the
 * control documents (each config without the declared RFC 6901 pointers),
 * the normalized workloads, their fingerprints and evidence errors, and
 * the DCCI runtime state of the diagnostics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/text.h"

/* Read path as read_text(errors="replace") and parse it (NaN allowed). */
static tc_json *
load_lenient(const char *path, tc_error *err)
{
	size_t len, tlen;
	char *raw = tc_read_file(path, TC_READ_MAX_BYTES, &len, err), *text;
	tc_json *v;

	if (raw == NULL)
		return NULL;
	text = tc_analysis__utf8_replace(raw, len, &tlen);
	free(raw);
	v = tc_json_parse_text(text, tlen, err);
	free(text);
	return v;
}

tc_json *
tc_analysis__load_json_artifact(const char *path, const char *label, tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	char *shown = tc_analysis__py_path(path);
	size_t len, tlen;
	char *raw = tc_read_file(shown, TC_READ_MAX_BYTES, &len, &e), *text;
	tc_json *v = NULL;

	if (raw == NULL) {
		tc_error_set(err, "%s: cannot read %s: %s", shown, label,
		    tc_error_msg(&e));
		goto done;
	}
	text = tc_analysis__utf8_replace(raw, len, &tlen);
	free(raw);
	v = tc_json_parse_text(text, tlen, &e);
	free(text);
	if (v == NULL) {
		/* CPython's "MSG: line L column C (char P)" read as the
		 * reference words it: "MSG at line L column C" */
		const char *m = tc_error_msg(&e), *at = NULL, *p = m;
		unsigned long line = 0, col = 0;

		while ((p = strstr(p, ": line ")) != NULL)
			at = p++;
		if (at == NULL || sscanf(at, ": line %lu column %lu", &line,
		    &col) != 2)
			tc_error_set(err, "%s: invalid %s JSON: %s", shown, label,
			    m);
		else
			tc_error_set(err, "%s: invalid %s JSON: %.*s at line %lu "
			    "column %lu", shown, label, (int)(at - m), m, line,
			    col);
		goto done;
	}
	if (v->type != TC_JSON_OBJECT) {
		tc_error_set(err, "%s: %s must be a JSON object", shown, label);
		tc_json_free(v);
		v = NULL;
	}
done:
	tc_error_clear(&e);
	free(shown);
	return v;
}

/* ---- declared changes ------------------------------------------------------ */

/* Decode one pointer token; -1 with the reference's message. */
static int
decode_token(const char *t, size_t n, tc_buf *out, tc_error *err)
{
	size_t i;

	tc_buf_reset(out);
	for (i = 0; i < n; i++) {
		if (t[i] != '~') {
			tc_buf_putc(out, t[i]);
			continue;
		}
		if (i + 1 >= n || (t[i + 1] != '0' && t[i + 1] != '1')) {
			tc_error_set(err, "invalid RFC6901 escape in JSON pointer "
			    "token: %.*s", (int)n, t);
			return -1;
		}
		tc_buf_putc(out, t[i + 1] == '0' ? '~' : '/');
		i++;
	}
	tc_buf_grow(out, 0);
	return 0;
}

static int
array_index(const tc_buf *tok, size_t *index, tc_error *err)
{
	const char *s = tok->data ? tok->data : "";
	size_t i, n = tok->len;

	if (n == 0 || (s[0] == '0' && n > 1))
		goto bad;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			goto bad;
	*index = n > 18 ? (size_t)-1 : (size_t)strtoull(s, NULL, 10);
	return 0;
bad:
	{
		tc_buf r = TC_BUF_INIT;

		tc_py_repr_str(&r, s, n, TC_UTF8_WTF8);
		tc_error_set(err, "invalid RFC6901 array index: %s",
		    tc_buf_cstr(&r));
		tc_buf_free(&r);
	}
	return -1;
}

/*
 * Walk pointer through v.  With mark, the node it names (if any) is
 * recorded in marks instead of being checked only.  Returns -1 with err
 * for a malformed pointer or array index on the way.
 */
static int
walk_pointer(tc_json *v, const char *pointer, bool mark, tc_json ***marks,
    size_t *nmarks, tc_error *err)
{
	tc_buf tok = TC_BUF_INIT;
	const char *p;
	tc_json *cur = v;
	int rc = 0;

	if (pointer[0] == '\0') {
		tc_error_set(err, "root JSON pointer is not allowed for declared "
		    "changes");
		return -1;
	}
	if (pointer[0] != '/') {
		tc_buf r = TC_BUF_INIT;

		tc_py_repr_str(&r, pointer, strlen(pointer), TC_UTF8_WTF8);
		tc_error_set(err, "invalid RFC6901 JSON pointer: %s",
		    tc_buf_cstr(&r));
		tc_buf_free(&r);
		return -1;
	}
	/* every token is decoded (and checked) before the walk */
	for (p = pointer + 1;;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (decode_token(p, n, &tok, err) != 0) {
			tc_buf_free(&tok);
			return -1;
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
	for (p = pointer + 1; cur != NULL;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p), index;

		decode_token(p, n, &tok, err);
		if (cur->type == TC_JSON_OBJECT) {
			cur = tc_json_getn(cur, tok.data ? tok.data : "", tok.len);
		} else if (cur->type == TC_JSON_ARRAY) {
			if ((rc = array_index(&tok, &index, err)) != 0)
				break;
			cur = index < cur->u.arr.len ? cur->u.arr.items[index] :
			    NULL;
		} else {
			cur = NULL;
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
	if (rc == 0 && mark && cur != NULL) {
		*marks = tc_xrealloc(*marks, (*nmarks + 1) * sizeof(**marks));
		(*marks)[(*nmarks)++] = cur;
	}
	tc_buf_free(&tok);
	return rc;
}

static bool
marked(tc_json *const *marks, size_t n, const tc_json *v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (marks[i] == v)
			return true;
	return false;
}

/* A copy of v without the marked nodes. */
static tc_json *
compact(const tc_json *v, tc_json *const *marks, size_t n)
{
	tc_json *c;
	size_t i;

	if (v->type == TC_JSON_OBJECT) {
		c = tc_json_new_object();
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];

			if (!marked(marks, n, m->value))
				tc_json_object_setn(c, m->key, m->key_len,
				    compact(m->value, marks, n));
		}
		return c;
	}
	if (v->type == TC_JSON_ARRAY) {
		c = tc_json_new_array();
		for (i = 0; i < v->u.arr.len; i++)
			if (!marked(marks, n, v->u.arr.items[i]))
				tc_json_array_push(c, compact(v->u.arr.items[i],
				    marks, n));
		return c;
	}
	return tc_json_clone(v);
}

/* _remove_json_pointers: every pointer checked, then removed. */
static tc_json *
remove_pointers(const tc_json *config, const tc_json *pointers, tc_error *err)
{
	tc_json **marks = NULL, *out;
	size_t nmarks = 0, i;

	for (i = 0; i < pointers->u.arr.len; i++)
		if (walk_pointer((tc_json *)config,
		    pointers->u.arr.items[i]->u.str.ptr, false, NULL, NULL,
		    err) != 0)
			return NULL;
	for (i = 0; i < pointers->u.arr.len; i++)
		walk_pointer((tc_json *)config,
		    pointers->u.arr.items[i]->u.str.ptr, true, &marks, &nmarks,
		    err);
	out = compact(config, marks, nmarks);
	free(marks);
	return out;
}

/* ---- workloads --------------------------------------------------------------- */

static const char *const concepts[] = {
	"model", "input", "batch", "rank", "mode", "warmup", "iterations",
	"runtime"
};
static const char *const aliases[][5] = {
	{ "model", "model_name", NULL },
	{ "input", "inputs", "input_shape", "sequence_length", NULL },
	{ "batch", "batch_size", NULL },
	{ "rank", "rank_size", "world_size", NULL },
	{ "mode", "inference_mode", "prefill_decode_mode", NULL },
	{ "warmup", "warmup_runs", "warmup_iterations", NULL },
	{ "iterations", "iteration_count", "measurement_runs", NULL },
	{ "runtime", "runtime_parameters", "runtime_options", NULL },
};
#define NCONCEPT (sizeof(concepts) / sizeof(concepts[0]))

/* A JSON value holds a non-finite float somewhere. */
static bool
has_nonfinite(const tc_json *v)
{
	size_t i;

	if (v->type == TC_JSON_FLOAT)
		return !isfinite(v->u.f);
	if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			if (has_nonfinite(v->u.arr.items[i]))
				return true;
	} else if (v->type == TC_JSON_OBJECT) {
		for (i = 0; i < v->u.obj.len; i++)
			if (has_nonfinite(v->u.obj.members[i].value))
				return true;
	}
	return false;
}

/*
 * normalize_workload: the concepts, each the first of its aliases present
 * (all present ones must be equal).  NULL with *code set to the failing
 * concept's "missing_<c>" / "conflicting_<c>", or "invalid".
 */
static tc_json *
normalize_workload(const tc_json *w, const char **code, const char **concept)
{
	tc_json *out;
	size_t c, a;

	*concept = NULL;
	if (w->type != TC_JSON_OBJECT || has_nonfinite(w)) {
		*code = "invalid";
		return NULL;
	}
	out = tc_json_new_object();
	for (c = 0; c < NCONCEPT; c++) {
		const tc_json *first = NULL;

		for (a = 0; aliases[c][a] != NULL; a++) {
			const tc_json *v = tc_json_get(w, aliases[c][a]);

			if (v == NULL)
				continue;
			if (first == NULL) {
				first = v;
			} else {
				char *x = tc_json_canonical(first, NULL, NULL);
				char *y = tc_json_canonical(v, NULL, NULL);
				bool same = x && y && strcmp(x, y) == 0;

				free(x);
				free(y);
				if (!same) {
					*code = "conflicting";
					*concept = concepts[c];
					tc_json_free(out);
					return NULL;
				}
			}
		}
		if (first == NULL) {
			*code = "missing";
			*concept = concepts[c];
			tc_json_free(out);
			return NULL;
		}
		tc_json_object_set(out, concepts[c], tc_json_clone(first));
	}
	return out;
}

static bool
int_positive(const tc_json *v, bool allow_zero)
{
	if (v->type != TC_JSON_INT)
		return false;
	if (v->u.int_text[0] == '-')
		return false;
	return allow_zero || strcmp(v->u.int_text, "0") != 0;
}

static bool
valid_concept(const char *c, const tc_json *v)
{
	size_t i;

	if (strcmp(c, "model") == 0 || strcmp(c, "mode") == 0)
		return v->type == TC_JSON_STRING &&
		    tc_text_has_content(v->u.str.ptr, v->u.str.len);
	if (strcmp(c, "batch") == 0 || strcmp(c, "rank") == 0 ||
	    strcmp(c, "iterations") == 0)
		return int_positive(v, false);
	if (strcmp(c, "warmup") == 0)
		return int_positive(v, true);
	if (strcmp(c, "runtime") == 0)
		return v->type == TC_JSON_OBJECT && v->u.obj.len > 0;
	if (v->type == TC_JSON_INT)
		return int_positive(v, false);
	if (v->type == TC_JSON_ARRAY) {
		if (v->u.arr.len == 0)
			return false;
		for (i = 0; i < v->u.arr.len; i++)
			if (!int_positive(v->u.arr.items[i], false))
				return false;
		return true;
	}
	if (v->type == TC_JSON_STRING)
		return v->u.str.len > 0;
	if (v->type == TC_JSON_OBJECT)
		return v->u.obj.len > 0;
	return false;
}

int
tc_analysis__workload_normalized_copy(const tc_json *w, tc_json **out, tc_error *err)
{
	const char *code, *concept;

	if (w == NULL || w->type != TC_JSON_OBJECT) {
		tc_error_set(err, "workload must be an object");
		return -1;
	}
	if ((*out = normalize_workload(w, &code, &concept)) == NULL) {
		if (strcmp(code, "missing") == 0)
			tc_error_set(err, "workload.%s is required", concept);
		else if (strcmp(code, "conflicting") == 0)
			tc_error_set(err, "workload.%s aliases conflict", concept);
		else
			tc_error_set(err, "workload must contain only standard "
			    "JSON values");
		return -1;
	}
	return 0;
}

int
tc_analysis__workload_normalized(const tc_json *w, tc_error *err)
{
	tc_json *n;
	bool same;

	if (tc_analysis__workload_normalized_copy(w, &n, err) != 0)
		return -1;
	same = tc_json_equal(n, w);
	tc_json_free(n);
	if (!same) {
		tc_error_set(err, "workload is not normalized");
		return -1;
	}
	return 0;
}

/* _validate_workload_manifest: its error codes appended to errors. */
static void
workload_errors(const tc_json *w, tc_json *errors)
{
	const char *code, *concept;
	tc_json *n = normalize_workload(w, &code, &concept);
	tc_json *mine = tc_json_new_array();
	size_t c;
	char buf[96];

	if (n == NULL) {
		tc_json_array_push(mine,
		    tc_json_new_string("workload_manifest_incomplete"));
		if (strcmp(code, "missing") == 0) {
			snprintf(buf, sizeof(buf), "workload_manifest_missing_%s",
			    concept);
			tc_json_array_push(mine, tc_json_new_string(buf));
		} else if (strcmp(code, "conflicting") == 0) {
			snprintf(buf, sizeof(buf),
			    "workload_manifest_conflicting_%s", concept);
			tc_json_array_push(mine, tc_json_new_string(buf));
			snprintf(buf, sizeof(buf), "workload_manifest_invalid_%s",
			    concept);
			tc_json_array_push(mine, tc_json_new_string(buf));
		} else {
			tc_json_array_push(mine,
			    tc_json_new_string("workload_manifest_invalid"));
		}
	} else {
		/* the normalized workload went through canonical JSON, so
		 * its concepts come in sorted order */
		static const char *const sorted[NCONCEPT] = { "batch", "input",
		    "iterations", "mode", "model", "rank", "runtime", "warmup" };

		for (c = 0; c < NCONCEPT; c++) {
			if (valid_concept(sorted[c], tc_json_get(n, sorted[c])))
				continue;
			if (mine->u.arr.len == 0)
				tc_json_array_push(mine, tc_json_new_string(
				    "workload_manifest_incomplete"));
			snprintf(buf, sizeof(buf), "workload_manifest_invalid_%s",
			    sorted[c]);
			tc_analysis__list_add_unique(mine, buf);
		}
		tc_json_free(n);
	}
	for (c = 0; c < mine->u.arr.len; c++)
		tc_json_array_push(errors, tc_json_clone(mine->u.arr.items[c]));
	tc_json_free(mine);
}

/* The canonical text json.dumps(ensure_ascii=False, allow_nan=False)
 * gives, or NULL with "Out of range float values are not JSON
 * compliant". */
static char *
canonical_or_error(const tc_json *v, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;

	if (tc_json_write(&b, v, TC_JSON_NO_NAN, err) != 0) {
		tc_buf_free(&b);
		return NULL;
	}
	tc_buf_grow(&b, 0);
	return tc_buf_detach(&b, NULL);
}

int
tc_analysis__fingerprints(const tc_json *bc, const tc_json *cc, const tc_json *bw,
    const tc_json *cw, const tc_json *dcs, struct tc_analysis__fingerprints *out,
    tc_error *err)
{
	const tc_json *pointers = tc_json_get(dcs, "allowed_json_pointers");
	tc_json *bctl = NULL, *cctl = NULL, *bn = NULL, *cn = NULL;
	const tc_json *bwv, *cwv;
	const char *code, *concept;
	char *text[4] = { NULL, NULL, NULL, NULL };
	tc_json *errors;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (pointers == NULL || pointers->type != TC_JSON_ARRAY)
		goto bad_pointers;
	for (i = 0; i < pointers->u.arr.len; i++)
		if (pointers->u.arr.items[i]->type != TC_JSON_STRING)
			goto bad_pointers;
	if ((bctl = remove_pointers(bc, pointers, err)) == NULL ||
	    (cctl = remove_pointers(cc, pointers, err)) == NULL)
		goto done;
	bn = normalize_workload(bw, &code, &concept);
	cn = normalize_workload(cw, &code, &concept);
	bwv = bn != NULL ? bn : bw;
	cwv = cn != NULL ? cn : cw;
	if ((text[0] = canonical_or_error(bwv, err)) == NULL ||
	    (text[1] = canonical_or_error(cwv, err)) == NULL ||
	    (text[2] = canonical_or_error(bctl, err)) == NULL ||
	    (text[3] = canonical_or_error(cctl, err)) == NULL)
		goto done;
	if (tc_analysis__ascii_digest(bwv, out->baseline_workload, err) != 0 ||
	    tc_analysis__ascii_digest(cwv, out->candidate_workload, err) != 0 ||
	    tc_analysis__ascii_digest(bctl, out->baseline_control, err) != 0 ||
	    tc_analysis__ascii_digest(cctl, out->candidate_control, err) != 0 ||
	    tc_analysis__ascii_digest(bc, out->baseline_config, err) != 0 ||
	    tc_analysis__ascii_digest(cc, out->candidate_config, err) != 0)
		goto done;
	out->workload_match = strcmp(text[0], text[1]) == 0;
	out->control_match = strcmp(text[2], text[3]) == 0;
	errors = tc_json_new_array();
	workload_errors(bw, errors);
	workload_errors(cw, errors);
	if (!out->workload_match)
		tc_json_array_push(errors,
		    tc_json_new_string("workload_fingerprint_mismatch"));
	if (!out->control_match)
		tc_json_array_push(errors,
		    tc_json_new_string("undeclared_config_differences"));
	out->evidence_errors = tc_json_new_array();
	for (i = 0; i < errors->u.arr.len; i++)
		tc_analysis__list_add_unique(out->evidence_errors,
		    tc_json_string(errors->u.arr.items[i]));
	tc_json_free(errors);
	out->declared_change_set = tc_json_clone(dcs);
	rc = 0;
	goto done;
bad_pointers:
	tc_error_set(err, "declared change set allowed_json_pointers must be a "
	    "list");
done:
	for (i = 0; i < 4; i++)
		free(text[i]);
	tc_json_free(bctl);
	tc_json_free(cctl);
	tc_json_free(bn);
	tc_json_free(cn);
	return rc;
}

void
tc_analysis__fingerprints_free(struct tc_analysis__fingerprints *f)
{
	tc_json_free(f->evidence_errors);
	tc_json_free(f->declared_change_set);
	memset(f, 0, sizeof(*f));
}

/* ---- the legacy task-range map ------------------------------------------------ */

/* int(v) of Python; -1 with its message. */
static int
py_int(const tc_json *v, double *out, tc_error *err)
{
	switch (v->type) {
	case TC_JSON_BOOL:
		*out = v->u.b;
		return 0;
	case TC_JSON_INT:
		*out = strtod(v->u.int_text, NULL);
		return 0;
	case TC_JSON_FLOAT:
		if (isnan(v->u.f)) {
			tc_error_set(err, "cannot convert float NaN to integer");
			return -1;
		}
		if (isinf(v->u.f)) {
			tc_error_set(err, "cannot convert float infinity to "
			    "integer");
			return -1;
		}
		*out = trunc(v->u.f);
		return 0;
	case TC_JSON_STRING: {
		size_t a, e, i;
		tc_buf digits = TC_BUF_INIT;
		const char *s = v->u.str.ptr;
		bool ok;

		tc_py_strip(s, v->u.str.len, &a, &e);
		i = a;
		if (i < e && (s[i] == '+' || s[i] == '-'))
			tc_buf_putc(&digits, s[i++]);
		ok = i < e;
		for (; i < e && ok; i++) {
			if (s[i] >= '0' && s[i] <= '9')
				tc_buf_putc(&digits, s[i]);
			else if (!(s[i] == '_' && i > a && i + 1 < e &&
			    s[i - 1] >= '0' && s[i - 1] <= '9' &&
			    s[i + 1] >= '0' && s[i + 1] <= '9'))
				ok = false;
		}
		if (ok)
			*out = strtod(tc_buf_cstr(&digits), NULL);
		tc_buf_free(&digits);
		if (!ok) {
			tc_buf r = TC_BUF_INIT;

			tc_py_repr_str(&r, s, v->u.str.len, TC_UTF8_WTF8);
			tc_error_set(err, "invalid literal for int() with base "
			    "10: %s", tc_buf_cstr(&r));
			tc_buf_free(&r);
			return -1;
		}
		return 0;
	}
	default:
		tc_error_set(err, "int() argument must be a string, a bytes-like "
		    "object or a real number, not '%s'",
		    tc_json_type_name(v->type));
		return -1;
	}
}

/* item["key"] then int(); -1 with the exception text. */
static int
item_int(const tc_json *item, const char *key, double *out, tc_error *err)
{
	const tc_json *v;

	if (item->type == TC_JSON_ARRAY) {
		tc_error_set(err, "list indices must be integers or slices, not "
		    "str");
		return -1;
	}
	if (item->type == TC_JSON_STRING) {
		tc_error_set(err, "string indices must be integers, not 'str'");
		return -1;
	}
	if (item->type != TC_JSON_OBJECT) {
		tc_error_set(err, "'%s' object is not subscriptable",
		    tc_json_type_name(item->type));
		return -1;
	}
	if ((v = tc_json_get(item, key)) == NULL) {
		tc_error_set(err, "'%s'", key);
		return -1;
	}
	return py_int(v, out, err);
}

static bool
nonempty_string(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_STRING && v->u.str.len > 0;
}

static bool
boundary_ok(const tc_json *b)
{
	static const char *const allowed[] = { "start_op", "end_op",
	    "source_file", "start_offset", "end_offset" };
	const tc_json *f;
	size_t i, k;

	if (b->type != TC_JSON_OBJECT)
		return false;
	if (!nonempty_string(tc_json_get(b, "start_op")) ||
	    !nonempty_string(tc_json_get(b, "end_op")))
		return false;
	for (i = 0; i < b->u.obj.len; i++) {
		for (k = 0; k < 5; k++)
			if (strcmp(b->u.obj.members[i].key, allowed[k]) == 0)
				break;
		if (k == 5)
			return false;
	}
	if ((f = tc_json_get(b, "source_file")) != NULL &&
	    (f->type != TC_JSON_STRING ||
	    !tc_text_has_content(f->u.str.ptr, f->u.str.len)))
		return false;
	for (k = 3; k < 5; k++) {
		f = tc_json_get(b, allowed[k]);
		if (f != NULL && (f->type != TC_JSON_INT ||
		    f->u.int_text[0] == '-'))
			return false;
	}
	return true;
}

int
tc_analysis__layer_map_check(const char *path, tc_error *err)
{
	tc_json *data = load_lenient(path, err);
	const tc_json *ranges, *p;
	char *shown;
	size_t i;
	int rc = -1;

	if (data == NULL)
		return -1;
	shown = tc_analysis__py_path(path);
	p = data->type == TC_JSON_OBJECT ? tc_json_get(data, "protocol") : NULL;
	if (p != NULL && p->type == TC_JSON_STRING &&
	    strcmp(p->u.str.ptr, "source_scope_map_v2") == 0) {
		rc = 0;
		goto done;
	}
	ranges = data;
	if (data->type == TC_JSON_OBJECT && tc_json_get(data, "task_ranges"))
		ranges = tc_json_get(data, "task_ranges");
	if (ranges->type != TC_JSON_ARRAY) {
		tc_error_set(err, "%s: layer map must be a list or contain "
		    "task_ranges", shown);
		goto done;
	}
	for (i = 0; i < ranges->u.arr.len; i++) {
		const tc_json *item = ranges->u.arr.items[i], *ss, *sc, *b, *seq;
		double layer, start, end;
		tc_error e = TC_ERROR_INIT;
		const char *what = NULL;
		size_t k;

		if (item_int(item, "layer", &layer, &e) != 0 ||
		    item_int(item, "start_task_id", &start, &e) != 0 ||
		    item_int(item, "end_task_id", &end, &e) != 0) {
			tc_error_set(err, "%s: invalid layer range at index %zu: "
			    "%s", shown, i, tc_error_msg(&e));
			tc_error_clear(&e);
			goto done;
		}
		if (start > end) {
			tc_error_set(err, "%s: start_task_id exceeds end_task_id "
			    "at index %zu", shown, i);
			goto done;
		}
		ss = tc_json_get(item, "source_scope");
		sc = tc_json_get(item, "scope");
		if (ss != NULL && sc != NULL && !tc_json_equal(ss, sc))
			what = "scope aliases differ";
		else if ((ss ? ss : sc) != NULL && (ss ? ss : sc)->type !=
		    TC_JSON_NULL && !nonempty_string(ss ? ss : sc))
			what = "source_scope";
		else if ((b = tc_json_get(item, "boundary")) != NULL &&
		    b->type != TC_JSON_NULL && !boundary_ok(b))
			what = "boundary";
		else if ((seq = tc_json_get(item, "ordered_child_op_sequence"))
		    != NULL && seq->type != TC_JSON_NULL) {
			if (seq->type != TC_JSON_ARRAY || seq->u.arr.len == 0)
				what = "ordered_child_op_sequence";
			for (k = 0; what == NULL && k < seq->u.arr.len; k++)
				if (!nonempty_string(seq->u.arr.items[k]))
					what = "ordered_child_op_sequence";
		}
		if (what != NULL) {
			tc_error_set(err, "%s: invalid layer range at index %zu: "
			    "%s", shown, i, what);
			goto done;
		}
	}
	rc = 0;
done:
	free(shown);
	tc_json_free(data);
	return rc;
}

/* ---- DCCI runtime state -------------------------------------------------------- */

static int
optional_object(const tc_json *parent, const char *key, const char *label,
    const tc_json **out, tc_error *err)
{
	const tc_json *v = parent != NULL ? tc_json_get(parent, key) : NULL;

	*out = NULL;
	if (v == NULL)
		return 0;
	if (v->type != TC_JSON_OBJECT) {
		tc_error_set(err, "%s must be an object", label);
		return -1;
	}
	*out = v;
	return 0;
}

int
tc_analysis__dcci_state(const tc_json *env, const tc_json *cand, struct an_dcci *out,
    tc_error *err)
{
	const tc_json *src[3], *runtime;
	static const char *const names[3] = {
		"environment_evidence.runtime_evidence.dcci_state",
		"candidate_config.runtime_evidence.dcci_state",
		"candidate_config.runtime.runtime_evidence.dcci_state"
	};
	bool enabled = false, disabled = false;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (optional_object(env, "runtime_evidence",
	    "environment_evidence.runtime_evidence", &src[0], err) != 0 ||
	    optional_object(cand, "runtime_evidence",
	    "candidate_config.runtime_evidence", &src[1], err) != 0 ||
	    optional_object(cand, "runtime", "candidate_config.runtime",
	    &runtime, err) != 0)
		return -1;
	src[2] = NULL;
	if (runtime != NULL && optional_object(runtime, "runtime_evidence",
	    "candidate_config.runtime.runtime_evidence", &src[2], err) != 0)
		return -1;
	for (i = 0; i < 3; i++) {
		const tc_json *st = src[i] ? tc_json_get(src[i], "dcci_state") :
		    NULL;
		const char *s = st && st->type == TC_JSON_STRING ? st->u.str.ptr :
		    NULL;

		if (s == NULL || (strcmp(s, "enabled") != 0 &&
		    strcmp(s, "disabled") != 0 && strcmp(s, "unknown") != 0))
			continue;
		out->source[out->n] = names[i];
		out->state_of[out->n++] = s;
		enabled |= strcmp(s, "enabled") == 0;
		disabled |= strcmp(s, "disabled") == 0;
	}
	out->state = enabled && disabled ? "conflict" : enabled ? "enabled" :
	    disabled ? "disabled" : "unknown";
	return 0;
}
