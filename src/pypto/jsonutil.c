/*
 * jsonutil.c - small helpers over the JSON model used by the Stage 5
 * contracts: strict type tests as the reference Python writes them
 * (isinstance(v, int) and not bool), Python list printing, file identity
 * records and per-case directory names.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/sha256.h"

bool
tc_pj_int(const tc_json *v, int64_t *out)
{
	int64_t tmp;

	if (!tc_json_is(v, TC_JSON_INT))
		return false;
	return tc_json_int64(v, out != NULL ? out : &tmp);
}

bool
tc_pj_positive(const tc_json *v, double *out)
{
	double d;

	if (v == NULL || (v->type != TC_JSON_INT && v->type != TC_JSON_FLOAT))
		return false;
	if (!tc_json_number(v, &d) || !isfinite(d) || d <= 0)
		return false;
	if (out != NULL)
		*out = d;
	return true;
}

void
tc_pj_pylist(tc_buf *out, const tc_json *arr)
{
	if (arr == NULL || arr->type == TC_JSON_NULL) {
		tc_buf_puts(out, "[]");
		return;
	}
	tc_json_repr(out, arr);
}

tc_json *
tc_pj_string_array(char *const *items, size_t n)
{
	tc_json *a = tc_json_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		tc_json_array_push(a, tc_json_new_string(items[i]));
	return a;
}

bool
tc_pj_array_has_string(const tc_json *arr, const char *s)
{
	size_t i;

	if (!tc_json_is(arr, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < arr->u.arr.len; i++) {
		const char *t = tc_json_string(arr->u.arr.items[i]);

		if (t != NULL && strcmp(t, s) == 0)
			return true;
	}
	return false;
}

bool
tc_pj_is_sha256_hex(const char *s)
{
	size_t i;

	if (s == NULL || strlen(s) != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int
tc_pypto__strv_index(const char *const *list, const char *s)
{
	int i;

	for (i = 0; s != NULL && list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	return -1;
}

bool
tc_pypto__strv_has(const char *const *list, const char *s)
{
	return tc_pypto__strv_index(list, s) >= 0;
}

bool
tc_pj_env_name_ok(const char *s)
{
	size_t i;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

tc_json *
tc_pj_load_object(const char *path, const char *what, tc_error *err)
{
	tc_json *v = tc_json_parse_file(path, err);

	if (v == NULL)
		return NULL;
	if (v->type != TC_JSON_OBJECT) {
		tc_json_free(v);
		tc_error_set(err, "%s must be a JSON object", what);
		return NULL;
	}
	return v;
}

tc_json *
tc_pypto_source_record(const char *path, tc_error *err)
{
	char *resolved = tc_path_resolve_strict(path, err);
	char hex[TC_SHA256_HEX_LEN + 1];
	uint64_t size = 0;
	tc_json *rec;

	if (resolved == NULL)
		return NULL;
	if (!tc_is_regular_file(resolved)) {
		tc_error_set(err, "case source is not a regular file: %s",
		    resolved);
		free(resolved);
		return NULL;
	}
	if (tc_sha256_file(resolved, hex, &size, err) != 0) {
		free(resolved);
		return NULL;
	}
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "path", resolved);
	tc_json_object_set_string(rec, "sha256", hex);
	tc_json_object_set_int(rec, "size_bytes", (int64_t)size);
	free(resolved);
	return rec;
}

char *
tc_pypto_source_record_error(const tc_json *record, const char *label)
{
	const char *raw;
	const char *sha;
	int64_t size;
	char *resolved;
	char hex[TC_SHA256_HEX_LEN + 1];
	uint64_t actual = 0;
	tc_error err = TC_ERROR_INIT;
	char *msg = NULL;

	if (!tc_json_is(record, TC_JSON_OBJECT))
		return tc_xasprintf("%s source record is missing", label);
	raw = tc_json_get_string(record, "path");
	sha = tc_json_get_string(record, "sha256");
	if (raw == NULL || raw[0] == '\0')
		return tc_xasprintf("%s source path is missing", label);
	if (!tc_pj_is_sha256_hex(sha))
		return tc_xasprintf("%s source sha256 is invalid", label);
	if (!tc_pj_int(tc_json_get(record, "size_bytes"), &size) || size < 0)
		return tc_xasprintf("%s source size_bytes is invalid", label);
	if (raw[0] != '/')
		return tc_xasprintf("%s source path is not absolute", label);
	if ((resolved = tc_path_resolve_strict(raw, &err)) == NULL) {
		msg = tc_xasprintf("cannot reload %s source: %s", label,
		    tc_error_msg(&err));
		tc_error_clear(&err);
		return msg;
	}
	if (!tc_is_regular_file(resolved))
		msg = tc_xasprintf("%s source is not a regular file: %s", label,
		    resolved);
	else if (strcmp(resolved, raw) != 0)
		msg = tc_xasprintf("%s source path is not canonical: %s", label,
		    raw);
	else if (tc_sha256_file(resolved, hex, &actual, &err) != 0) {
		msg = tc_xasprintf("cannot reload %s source: %s", label,
		    tc_error_msg(&err));
		tc_error_clear(&err);
	} else if ((int64_t)actual != size)
		msg = tc_xasprintf("%s source size mismatch", label);
	else if (strcmp(hex, sha) != 0)
		msg = tc_xasprintf("%s source sha256 mismatch", label);
	free(resolved);
	return msg;
}

char *
tc_pypto_case_dir_name(const char *case_id)
{
	tc_buf b = TC_BUF_INIT;
	char hex[TC_SHA256_HEX_LEN + 1];
	const char *p;
	bool in_run = false;
	size_t start, end;
	char *value, *out;

	for (p = case_id; *p != '\0'; p++) {
		unsigned char ch = (unsigned char)*p;
		bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		    ch == '-';

		if (ok) {
			tc_buf_putc(&b, (char)ch);
			in_run = false;
		} else if (!in_run) {
			tc_buf_putc(&b, '_');
			in_run = true;
		}
	}
	value = tc_buf_detach(&b, NULL);
	start = 0;
	end = strlen(value);
	while (start < end && (value[start] == '.' || value[start] == '_'))
		start++;
	while (end > start && (value[end - 1] == '.' || value[end - 1] == '_'))
		end--;
	tc_sha256_hex(case_id, strlen(case_id), hex);
	out = tc_xasprintf("case_%.*s_%.8s", (int)(end - start),
	    end > start ? value + start : "case", hex);
	if (end == start) {
		free(out);
		out = tc_xasprintf("case_case_%.8s", hex);
	}
	free(value);
	return out;
}

tc_json *
tc_pj_clone(const tc_json *v)
{
	return v != NULL ? tc_json_clone(v) : tc_json_new_null();
}

void
tc_pj_doc_header(tc_json *doc, const char *kind)
{
	tc_json_object_set_int(doc, "schema_version", 1);
	tc_json_object_set_string(doc, "kind", kind);
}

void
tc_pj_copy_members(tc_json *dst, const tc_json *src, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		tc_json_object_set(dst, keys[i], tc_pj_clone(tc_json_get(src,
		    keys[i])));
}

int64_t
tc_pj_int_or(const tc_json *v, int64_t dflt)
{
	int64_t x;

	return tc_pj_int(v, &x) ? x : dflt;
}

void
tc_pj_push_vfmt(tc_json *arr, const char *fmt, va_list ap)
{
	tc_error e = TC_ERROR_INIT;

	tc_error_vset(&e, fmt, ap);
	tc_json_array_push(arr, tc_json_new_string(tc_error_msg(&e)));
	tc_error_clear(&e);
}

void
tc_pj_push_fmt(tc_json *arr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_pj_push_vfmt(arr, fmt, ap);
	va_end(ap);
}

bool
tc_pj_next_tagged_line(const char **p, const char *tag, const char **payload,
    size_t *len)
{
	size_t tlen = strlen(tag);

	while (**p != '\0') {
		const char *line = *p;
		size_t n = strcspn(line, "\r\n");

		*p += n;
		if (**p == '\r' && (*p)[1] == '\n')
			*p += 2;
		else if (**p != '\0')
			(*p)++;
		if (n >= tlen && strncmp(line, tag, tlen) == 0) {
			*payload = line + tlen;
			*len = n - tlen;
			return true;
		}
	}
	return false;
}

char *
tc_pypto_op_dir_resolve(const char *op_dir, tc_error *err)
{
	if (op_dir == NULL || !tc_is_directory(op_dir)) {
		tc_error_set(err, "operator directory does not exist: %s",
		    op_dir != NULL ? op_dir : "(none)");
		return NULL;
	}
	return tc_path_resolve(op_dir, err);
}
