/*
 * source_index.c - re-enumerating a preset item source from its
 * authoritative index (docs/spec/pypto.md "Item sources"), so the ledger's
 * denominators can be checked again later from files alone:
 *
 *   kb_selected     DESIGN_BINDINGS.json: every kind=obligation atom, by
 *                   its atomic key (class_id, selection_field, reference,
 *                   req_id)
 *   general_method, knowledge_card, template
 *                   a Markdown index whose table has the columns item_id,
 *                   lifecycle and stage5_eligible: the rows with
 *                   lifecycle "active" and stage5_eligible "yes"
 *
 * The record {path, sha256, count, ids} goes into the ledger's source
 * (items source --index) and stage5-check P7 re-reads the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "stage5_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_items.h"
#include "tunectl/sha256.h"

/* "| a | b |" -> ["a", "b"] (cells stripped of blanks and backticks). */
static tc_json *
split_row(const char *line, size_t len)
{
	tc_json *cells = tc_json_new_array();
	char *copy = tc_xstrndup(line, len), *p = copy, *bar;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '|') {
		free(copy);
		tc_json_free(cells);
		return NULL;
	}
	p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (end > p && end[-1] == '|')
		end--;
	*end = '\0';
	for (;;) {
		char *c, *t;
		size_t n;

		bar = strchr(p, '|');
		if (bar != NULL)
			*bar = '\0';
		c = p;
		while (*c == ' ' || *c == '\t' || *c == '`')
			c++;
		n = strlen(c);
		while (n > 0 && (c[n - 1] == ' ' || c[n - 1] == '\t' ||
		    c[n - 1] == '`'))
			n--;
		t = tc_xstrndup(c, n);
		tc_json_array_push(cells, tc_json_new_string(t));
		free(t);
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	free(copy);
	return cells;
}

static long
column(const tc_json *header, const char *name)
{
	size_t i;

	for (i = 0; i < header->u.arr.len; i++)
		if (strcmp(tc_json_string(header->u.arr.items[i]), name) == 0)
			return (long)i;
	return -1;
}

static const char *
cell(const tc_json *row, long col)
{
	if (col < 0 || (size_t)col >= row->u.arr.len)
		return "";
	return tc_json_string(row->u.arr.items[col]);
}

static int
markdown_ids(const char *text, tc_json *ids, tc_error *err)
{
	const char *p = text;
	tc_json *header = NULL;
	long c_id = -1, c_life = -1, c_elig = -1;
	bool tables = false;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		tc_json *row = split_row(p, len);

		if (row == NULL) {
			tc_json_free(header);
			header = NULL;
		} else if (header == NULL) {
			c_id = column(row, "item_id");
			c_life = column(row, "lifecycle");
			c_elig = column(row, "stage5_eligible");
			if (c_id >= 0 && c_life >= 0 && c_elig >= 0) {
				header = row;
				row = NULL;
				tables = true;
			}
		} else if (strspn(cell(row, 0), "-: ") != strlen(cell(row, 0)) ||
		    *cell(row, 0) == '\0') {
			const char *id = cell(row, c_id);

			if (*id != '\0' && strcmp(cell(row, c_life), "active") == 0 &&
			    strcmp(cell(row, c_elig), "yes") == 0 &&
			    !tc_pj_array_has_string(ids, id))
				tc_json_array_push(ids, tc_json_new_string(id));
		}
		tc_json_free(row);
		p += len;
		if (*p == '\n')
			p++;
	}
	tc_json_free(header);
	if (!tables) {
		tc_error_set(err, "the index has no table with the columns "
		    "item_id, lifecycle and stage5_eligible");
		return -1;
	}
	return 0;
}

char *
tc_pypto_kb_key_text(const tc_json *o)
{
	const char *k[] = { "class_id", "selection_field", "reference",
	    "req_id" };
	tc_buf b = TC_BUF_INIT;
	size_t i;

	for (i = 0; i < 4; i++) {
		const tc_json *v = tc_json_get(o, k[i]);

		if (i > 0)
			tc_buf_putc(&b, '|');
		if (tc_json_string(v) != NULL)
			tc_buf_puts(&b, tc_json_string(v));
		else
			tc_json_str(&b, v);
	}
	return tc_buf_detach(&b, NULL);
}

tc_json *
tc_pypto_source_index(const char *kind, const char *path, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	char *abs = tc_path_resolve(path, err);
	tc_json *ids = tc_json_new_array(), *rec;
	size_t i;

	if (abs == NULL || !tc_is_regular_file(abs) ||
	    tc_sha256_file(abs, hex, NULL, err) != 0) {
		if (abs != NULL && tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "source index %s is not a regular file",
			    path);
		free(abs);
		tc_json_free(ids);
		return NULL;
	}
	if (strcmp(kind, "kb_selected") == 0) {
		char *dir = tc_path_dirname(abs);
		tc_json *ob = strcmp(tc_path_basename(abs),
		    "DESIGN_BINDINGS.json") == 0 ?
		    tc_pypto_kb_obligations(dir, err) : NULL;

		if (ob == NULL && tc_error_msg(err)[0] == '\0')
			tc_error_set(err, "the kb_selected index is the operator's "
			    "DESIGN_BINDINGS.json (its obligation atoms)");
		free(dir);
		if (ob == NULL) {
			free(abs);
			tc_json_free(ids);
			return NULL;
		}
		for (i = 0; i < ob->u.arr.len; i++) {
			char *key = tc_pypto_kb_key_text(ob->u.arr.items[i]);

			tc_json_array_push(ids, tc_json_new_string(key));
			free(key);
		}
		tc_json_free(ob);
	} else {
		char *text = tc_read_file(abs, 0, NULL, err);

		if (text == NULL || markdown_ids(text, ids, err) != 0) {
			tc_error_prefix(err, "%s: ", path);
			free(text);
			free(abs);
			tc_json_free(ids);
			return NULL;
		}
		free(text);
	}
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "path", abs);
	tc_json_object_set_string(rec, "sha256", hex);
	tc_json_object_set_int(rec, "count", (int64_t)ids->u.arr.len);
	tc_json_object_set(rec, "ids", ids);
	free(abs);
	return rec;
}

/* An item's identity as the index lists it. */
char *
tc_pypto_item_index_id(const tc_json *item)
{
	const char *kind = tc_json_get_string(item, "source_kind");

	if (kind != NULL && strcmp(kind, "kb_selected") == 0)
		return tc_pypto_kb_key_text(tc_json_get(item, "kb_key"));
	return tc_xstrdup(tc_json_get_string(item, "item_id") != NULL ?
	    tc_json_get_string(item, "item_id") : "");
}
