/*
 * experiment_paths.c - artifact-path scanning (docs/spec/ledger.md
 * "Artifact-path scanning"): the relative-path check of every string under a
 * path key, the role registry (paths_by_role), and the artifact checks A1/A2 of
 * docs/spec/ledger.md "Structural validation".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"
#include "tunectl/ledger.h"

/* ---- relative-path check ------------------------------------------------ */

static void
rel_walk(const tc_json *v, tc_buf *loc, bool under, tc_json *errors)
{
	size_t i, mark = loc->len;

	switch (v->type) {
	case TC_JSON_OBJECT:
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];

			if (!under && m->key_len == 9 &&
			    memcmp(m->key, "lifecycle", 9) == 0)
				continue;
			if (loc->len > 0)
				tc_buf_putc(loc, '.');
			tc_buf_add(loc, m->key, m->key_len);
			rel_walk(m->value, loc, under ||
			    tc_ledger__is_path_key(m->key, m->key_len), errors);
			loc->len = mark;
			loc->data[mark] = '\0';
		}
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++) {
			tc_buf_printf(loc, "[%zu]", i);
			rel_walk(v->u.arr.items[i], loc, under, errors);
			loc->len = mark;
			loc->data[mark] = '\0';
		}
		break;
	case TC_JSON_STRING:
		if (under && !tc_is_relative_artifact(v)) {
			tc_buf_puts(loc, " must be a relative artifact path");
			tc_ledger__err_buf(errors, loc);
			loc->len = mark;
			loc->data[mark] = '\0';
		}
		break;
	default:
		break;
	}
}

void
tc_ledger_relative_path_errors(const tc_json *doc, const char *loc,
    tc_json *errors)
{
	tc_buf b = TC_BUF_INIT;

	tc_buf_puts(&b, loc);
	rel_walk(doc, &b, false, errors);
	tc_buf_free(&b);
}

/* ---- role registry ------------------------------------------------------ */

static void
register_path(const tc_json *v, const char *role, lx_map *out)
{
	char *p;

	if (!tc_is_relative_artifact(v))
		return;
	p = tc_ledger__posix(v);
	if (strcmp(role, "artifact") == 0)
		role = tc_ledger__role_for_name(p);
	tc_ledger__map_add(out, p, strlen(p), role, strlen(role));
	free(p);
}

/* role NULL: not collecting.  Locked roles stick to everything below. */
static void
role_walk(const tc_json *v, const char *role, bool locked, lx_map *out)
{
	size_t i;

	switch (v->type) {
	case TC_JSON_OBJECT:
		for (i = 0; i < v->u.obj.len; i++) {
			const tc_json_member *m = &v->u.obj.members[i];
			const char *r;

			if (locked) {
				role_walk(m->value, role, true, out);
				continue;
			}
			if (m->key_len == 9 && memcmp(m->key, "lifecycle", 9) == 0)
				continue;
			if (!tc_ledger__is_path_key(m->key, m->key_len)) {
				role_walk(m->value, role, false, out);
				continue;
			}
			r = tc_ledger__role_for_key(m->key, m->key_len);
			if (strcmp(r, "artifact") == 0 && role != NULL)
				r = role;
			role_walk(m->value, r, strcmp(r, "artifact") != 0, out);
		}
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < v->u.arr.len; i++)
			role_walk(v->u.arr.items[i], role, locked, out);
		break;
	case TC_JSON_STRING:
		if (role != NULL)
			register_path(v, role, out);
		break;
	default:
		break;
	}
}

void
tc_ledger__collect_roles(const tc_json *doc, lx_map *path_roles)
{
	role_walk(doc, NULL, false, path_roles);
}

tc_json *
tc_ledger_paths_by_role(const tc_json *doc)
{
	lx_map m = LX_MAP_INIT;
	tc_json *out = tc_json_new_object();
	size_t i, k;

	tc_ledger__collect_roles(doc, &m);
	tc_ledger__map_sort(&m);
	for (i = 0; i < m.len; i++) {
		tc_json *roles = tc_json_new_array();

		for (k = 0; k < m.vals[i].len; k++)
			tc_json_array_push(roles, tc_json_new_stringn(
			    m.vals[i].items[k].p, m.vals[i].items[k].n));
		tc_json_object_setn(out, m.keys[i].p, m.keys[i].n, roles);
	}
	tc_ledger__map_free(&m);
	return out;
}

/* ---- A1, A2 ------------------------------------------------------------- */

void
tc_experiment__check_artifact_paths(struct xv *x)
{
	lx_map roles = LX_MAP_INIT;
	lx_set seen = LX_SET_INIT;
	bool dup = false;
	size_t i;

	tc_ledger__collect_roles(x->r, &roles);
	tc_ledger__map_sort(&roles);
	for (i = 0; i < roles.len; i++) {
		tc_buf m = TC_BUF_INIT;

		if (roles.vals[i].len <= 1)
			continue;
		tc_buf_puts(&m, "artifact path ");
		tc_buf_add(&m, roles.keys[i].p, roles.keys[i].n);
		tc_buf_puts(&m, " has conflicting roles: ");
		tc_ledger__set_join(&m, &roles.vals[i]);
		tc_ledger__err_buf(x->errors, &m);
		tc_buf_free(&m);
	}
	for (i = 0; i < x->nrounds; i++) {
		const tc_json *arts = tc_json_get(x->rounds[i].obj, "artifacts");
		static const char *const names[] = {
			"round_evidence", "round_report"
		};
		size_t k;

		if (!tc_json_is(arts, TC_JSON_OBJECT))
			continue;
		for (k = 0; k < 2; k++) {
			const tc_json *v = tc_json_get(arts, names[k]);
			char *p;

			if (!tc_is_relative_artifact(v))
				continue;
			p = tc_ledger__posix(v);
			if (!tc_ledger__set_addz(&seen, p))
				dup = true;
			free(p);
		}
	}
	if (dup)
		tc_ledger__err(x->errors, "round report/evidence artifact paths must be "
		    "unique across rounds and roles");
	tc_ledger__map_free(&roles);
	tc_ledger__set_free(&seen);
	tc_ledger_relative_path_errors(x->r, "", x->errors);
}
