/*
 * screening.c - validation of the superkernel-screening-matrix-v2
 * document of Stage-A screening (docs/spec/gates.md "Screening matrix v2") and
 * its report object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/text.h"
#include "bench_internal.h"

#define MATRIX_SCHEMA "superkernel-screening-matrix-v2"

static const char *const required_kinds[] = {
	"automatic_aot", "broad_decode", "per_block", "semantic_segment"
};

static const char *const illegal_codes[] = {
	"eligible_candidate_exists", "winner_already_found",
	"early_stop_after_eligible", "deferred_until_no_eligible"
};

/* A stripped, non-blank copy of obj[key], or NULL with the message. */
static char *
require_text(const tc_json *obj, const char *key, const char *field,
    tc_error *err)
{
	const tc_json *v = tc_json_get(obj, key);
	size_t a, e;

	if (tc_json_is(v, TC_JSON_STRING)) {
		tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &e);
		if (a < e)
			return tc_xstrndup(v->u.str.ptr + a, e - a);
	}
	tc_error_set(err, "screening matrix %s must be a non-empty string",
	    field);
	return NULL;
}

typedef struct entry {
	char *id, *kind, *only_change, *status;
	char *code, *reason, *evidence;
} entry;

static void
free_entry(entry *e)
{
	free(e->id);
	free(e->kind);
	free(e->only_change);
	free(e->status);
	free(e->code);
	free(e->reason);
	free(e->evidence);
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_entry_id(const void *a, const void *b)
{
	return strcmp((*(entry *const *)a)->id, (*(entry *const *)b)->id);
}

static bool
has_text(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static bool
illegal_early_stop(const entry *e)
{
	char *lower;
	bool bad = false;

	for (size_t i = 0; i < sizeof(illegal_codes) / sizeof(*illegal_codes);
	    i++)
		if (strcmp(e->code, illegal_codes[i]) == 0)
			return true;
	/* str.lower(): only ASCII letters can produce "eligible"/"winner"
	 * (U+0130 lowers to "i" plus a combining dot, U+212A to "k"). */
	lower = tc_xstrdup(e->reason);
	for (char *p = lower; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	bad = has_text(lower, "eligible") || has_text(lower, "winner") ||
	    has_text(e->reason, "已有候选") || has_text(e->reason, "已有胜出") ||
	    has_text(e->reason, "已有赢家");
	free(lower);
	return bad;
}

/* Sorted, de-duplicated string list as a JSON array. */
static tc_json *
sorted_array(char **items, size_t n, bool dedup)
{
	tc_json *a = tc_json_new_array();

	if (n > 1)
		qsort(items, n, sizeof(*items), cmp_strp);
	for (size_t i = 0; i < n; i++) {
		if (dedup && i > 0 && strcmp(items[i], items[i - 1]) == 0)
			continue;
		tc_json_array_push(a, tc_json_new_string(items[i]));
	}
	return a;
}

static bool
in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

static int
validate_entries(const tc_json *cands, entry *es, tc_error *err)
{
	size_t n = cands->u.arr.len;
	char field[96];

	for (size_t i = 0; i < n; i++) {
		const tc_json *c = cands->u.arr.items[i];
		entry *e = &es[i];
		const tc_json *blocker;

		if (!tc_json_is(c, TC_JSON_OBJECT)) {
			tc_error_set(err, "screening matrix candidates[%zu] must "
			    "be an object", i);
			return -1;
		}
		snprintf(field, sizeof(field), "candidates[%zu].id", i);
		if ((e->id = require_text(c, "id", field, err)) == NULL)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(es[j].id, e->id) == 0) {
				tc_error_set(err, "screening matrix has duplicate "
				    "candidate id: %s", e->id);
				return -1;
			}
		snprintf(field, sizeof(field), "candidates[%zu].strategy_kind", i);
		if ((e->kind = require_text(c, "strategy_kind", field, err)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "candidates[%zu].only_change", i);
		if ((e->only_change = require_text(c, "only_change", field,
		    err)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "candidates[%zu].status", i);
		if ((e->status = require_text(c, "status", field, err)) == NULL)
			return -1;
		if (strcmp(e->status, "executed") != 0 &&
		    strcmp(e->status, "blocked") != 0 &&
		    strcmp(e->status, "skipped") != 0) {
			tc_error_set(err, "screening matrix %s is not settled; "
			    "status must be one of: blocked, executed, skipped",
			    e->id);
			return -1;
		}
		blocker = tc_json_get(c, "blocker");
		if (strcmp(e->status, "executed") == 0) {
			/* blocker in (None, {}) */
			if (blocker != NULL && !tc_json_is(blocker, TC_JSON_NULL) &&
			    !(tc_json_is(blocker, TC_JSON_OBJECT) &&
			    blocker->u.obj.len == 0)) {
				tc_error_set(err, "screening matrix executed "
				    "candidate %s must not have a blocker", e->id);
				return -1;
			}
			continue;
		}
		if (!tc_json_is(blocker, TC_JSON_OBJECT)) {
			tc_error_set(err, "screening matrix %s candidate %s "
			    "requires blocker evidence", e->status, e->id);
			return -1;
		}
		snprintf(field, sizeof(field), "candidates[%zu].blocker.code", i);
		if ((e->code = require_text(blocker, "code", field, err)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "candidates[%zu].blocker.reason_zh",
		    i);
		if ((e->reason = require_text(blocker, "reason_zh", field,
		    err)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "candidates[%zu].blocker.evidence",
		    i);
		if ((e->evidence = require_text(blocker, "evidence", field,
		    err)) == NULL)
			return -1;
		if (illegal_early_stop(e)) {
			tc_error_set(err, "screening matrix %s uses an illegal "
			    "early-stop blocker; an existing eligible candidate or "
			    "winner cannot skip a planned strategy", e->id);
			return -1;
		}
	}
	return 0;
}

static void
join_sorted(tc_buf *b, char **items, size_t n)
{
	if (n > 1)
		qsort(items, n, sizeof(*items), cmp_strp);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			tc_buf_puts(b, ", ");
		tc_buf_puts(b, items[i]);
	}
}

static int
check_coverage(const entry *es, size_t n, const char *const *names,
    size_t nnames, tc_error *err)
{
	char *missing[4], **miss_exec, **undeclared;
	size_t nm = 0, nme = 0, nu = 0;
	const char **executed = tc_xcalloc(n ? n : 1, sizeof(*executed));
	size_t ne = 0;
	tc_buf b = TC_BUF_INIT;
	int rc = 0;

	for (size_t k = 0; k < 4; k++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(es[i].kind, required_kinds[k]) == 0;
		if (!found)
			missing[nm++] = (char *)required_kinds[k];
	}
	if (nm > 0) {
		join_sorted(&b, missing, nm);
		tc_error_set(err, "screening matrix missing required strategy "
		    "kinds: %s", b.data);
		tc_buf_free(&b);
		free(executed);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(es[i].status, "executed") == 0)
			executed[ne++] = es[i].id;
	miss_exec = tc_xcalloc(ne + 1, sizeof(*miss_exec));
	undeclared = tc_xcalloc(nnames + 1, sizeof(*undeclared));
	for (size_t i = 0; i < ne; i++)
		if (!in_list(executed[i], names, nnames))
			miss_exec[nme++] = (char *)executed[i];
	for (size_t i = 0; i < nnames; i++)
		if (!in_list(names[i], executed, ne) &&
		    !in_list(names[i], (const char *const *)undeclared, nu))
			undeclared[nu++] = (char *)names[i];
	if (nme > 0 || nu > 0) {
		tc_buf_puts(&b, "screening candidate set mismatch (");
		if (nme > 0) {
			tc_buf_puts(&b, "missing executed candidates: ");
			join_sorted(&b, miss_exec, nme);
		}
		if (nu > 0) {
			if (nme > 0)
				tc_buf_puts(&b, "; ");
			tc_buf_puts(&b, "undeclared candidates: ");
			join_sorted(&b, undeclared, nu);
		}
		tc_buf_putc(&b, ')');
		tc_error_set(err, "%s", b.data);
		tc_buf_free(&b);
		rc = -1;
	}
	free(miss_exec);
	free(undeclared);
	free(executed);
	return rc;
}

/* The report object of a valid matrix doc with its n entries. */
static tc_json *
settlement(const tc_json *doc, entry *es, size_t n, tc_error *err)
{
	char *fp = tc_bench__content_fingerprint(doc, err);
	char **kinds, **ids, **exec;
	entry **nonexec;
	size_t ne = 0, nn = 0;
	tc_json *out, *list;

	if (fp == NULL)
		return NULL;
	out = tc_json_new_object();
	tc_json_object_set_string(out, "schema_version", MATRIX_SCHEMA);
	tc_json_object_set_string(out, "content_fingerprint", fp);
	free(fp);
	tc_json_object_set_bool(out,
	    "candidate_set_frozen_before_execution", true);
	kinds = tc_xcalloc(n + 4, sizeof(char *));
	ids = tc_xcalloc(n, sizeof(char *));
	exec = tc_xcalloc(n, sizeof(char *));
	nonexec = tc_xcalloc(n, sizeof(entry *));
	for (size_t k = 0; k < 4; k++)
		kinds[k] = (char *)required_kinds[k];
	tc_json_object_set(out, "required_strategy_kinds",
	    sorted_array(kinds, 4, false));
	for (size_t i = 0; i < n; i++) {
		kinds[i] = es[i].kind;
		ids[i] = es[i].id;
		if (strcmp(es[i].status, "executed") == 0)
			exec[ne++] = es[i].id;
		else
			nonexec[nn++] = &es[i];
	}
	tc_json_object_set(out, "covered_strategy_kinds",
	    sorted_array(kinds, n, true));
	tc_json_object_set(out, "planned_candidate_ids",
	    sorted_array(ids, n, false));
	tc_json_object_set(out, "executed_candidate_ids",
	    sorted_array(exec, ne, false));
	if (nn > 1)
		qsort(nonexec, nn, sizeof(*nonexec), cmp_entry_id);
	list = tc_json_new_array();
	for (size_t i = 0; i < nn; i++) {
		tc_json *o = tc_json_new_object(), *b = tc_json_new_object();

		tc_json_object_set_string(o, "id", nonexec[i]->id);
		tc_json_object_set_string(o, "strategy_kind", nonexec[i]->kind);
		tc_json_object_set_string(o, "only_change",
		    nonexec[i]->only_change);
		tc_json_object_set_string(o, "status", nonexec[i]->status);
		tc_json_object_set_string(b, "code", nonexec[i]->code);
		tc_json_object_set_string(b, "reason_zh", nonexec[i]->reason);
		tc_json_object_set_string(b, "evidence", nonexec[i]->evidence);
		tc_json_object_set(o, "blocker", b);
		tc_json_array_push(list, o);
	}
	tc_json_object_set(out, "nonexecuted_candidates", list);
	tc_json_object_set_bool(out, "settlement_complete", true);
	free(kinds);
	free(ids);
	free(exec);
	free(nonexec);
	return out;
}

tc_json *
tc_screening_matrix_validate(const tc_json *doc, const char *const *names,
    size_t nnames, tc_error *err)
{
	const tc_json *cands, *v;
	entry *es = NULL;
	size_t n = 0;
	tc_json *out = NULL;

	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		tc_error_set(err, "screening matrix must be a JSON object");
		return NULL;
	}
	v = tc_json_get(doc, "schema_version");
	if (!tc_json_is(v, TC_JSON_STRING) ||
	    strcmp(v->u.str.ptr, MATRIX_SCHEMA) != 0 ||
	    v->u.str.len != strlen(MATRIX_SCHEMA)) {
		tc_error_set(err, "screening matrix schema_version must be "
		    MATRIX_SCHEMA);
		return NULL;
	}
	v = tc_json_get(doc, "candidate_set_frozen_before_execution");
	if (!tc_json_is(v, TC_JSON_BOOL) || !v->u.b) {
		tc_error_set(err, "screening matrix must declare "
		    "candidate_set_frozen_before_execution=true");
		return NULL;
	}
	cands = tc_json_get(doc, "candidates");
	if (!tc_json_is(cands, TC_JSON_ARRAY) || cands->u.arr.len == 0) {
		tc_error_set(err, "screening matrix candidates must be a "
		    "non-empty list");
		return NULL;
	}
	n = cands->u.arr.len;
	es = tc_xcalloc(n, sizeof(*es));
	if (validate_entries(cands, es, err) == 0 &&
	    check_coverage(es, n, names, nnames, err) == 0)
		out = settlement(doc, es, n, err);
	for (size_t i = 0; i < n; i++)
		free_entry(&es[i]);
	free(es);
	return out;
}
