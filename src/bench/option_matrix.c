/*
 * option_matrix.c - validation of superkernel-winner-option-matrix-v1, the
 * Stage-O option matrix.  The reference defines it only in prose
 * (docs/spec/gates.md "Winner option matrix v1" of
 * superkernel-runtime-tools.md); the rules below are tunectl's reading of that
 * prose and are listed in docs/measurement.md:
 *
 *   - schema_version "superkernel-winner-option-matrix-v1",
 *     frozen_before_first_trial true, seed_candidate non-empty text
 *     (the Stage-A winner Sbest-SEED the matrix was frozen from);
 *   - items: a non-empty list; each item has a unique id, a category, an
 *     option, a value, one RFC 6901 pointer, original_value (may be
 *     null), probe_evidence, risk in {low, medium, high} and a final
 *     status in {accepted, rejected, failed, blocked, skipped};
 *   - the categories dcci, auto_op_parallel, aggressive and
 *     other_experimental each appear at least once;
 *   - dcci has exactly one disable-all item
 *     (dcci_disable_on_kernel = [".*"]); dcci_before_kernel_start and
 *     dcci_after_kernel_end are never separate items; the only other dcci
 *     item allowed is the combined repair (option "dcci_repair", two
 *     pointers ending in those names, a list of regex strings as value);
 *   - debug options never enter the matrix;
 *   - blocked / skipped items carry a Chinese reason_zh, evidence, and a
 *     reason_code in {value_not_accepted_by_wrapper, preconditions_missing,
 *     risk_not_authorized, budget_exhausted}; "no (direct) profiling
 *     evidence" is never a valid reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/bench.h"
#include "tunectl/canon.h"
#include "tunectl/sha256.h"
#include "bench_internal.h"

#define OPTION_MATRIX_SCHEMA "superkernel-winner-option-matrix-v1"

static const char *const categories[] = {
	"aggressive", "auto_op_parallel", "dcci", "other_experimental", NULL
};
static const char *const statuses[] = {
	"accepted", "blocked", "failed", "rejected", "skipped", NULL
};
static const char *const risks[] = { "high", "low", "medium", NULL };
static const char *const reason_codes[] = {
	"budget_exhausted", "preconditions_missing", "risk_not_authorized",
	"value_not_accepted_by_wrapper", NULL
};

static bool
one_of(const char *s, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

static const char *
text(const tc_json *obj, const char *key)
{
	const tc_json *v = tc_json_get(obj, key);

	return tc_is_nonblank_string(v) ? v->u.str.ptr : NULL;
}

static bool
valid_pointer(const char *p)
{
	if (p == NULL || p[0] != '/')
		return false;
	for (; *p != '\0'; p++)
		if (*p == '~' && p[1] != '0' && p[1] != '1')
			return false;
	return true;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The reference's [\u4e00-\u9fff\u3400-\u4dbf]. */
static bool
has_cjk(const char *s)
{
	size_t n = strlen(s);

	return tc_text_has_cp_in(s, n, 0x4e00, 0x9fff) ||
	    tc_text_has_cp_in(s, n, 0x3400, 0x4dbf);
}

static bool
mentions_no_profiling(const char *s)
{
	char *l = tc_xstrdup(s);
	bool bad;

	for (char *p = l; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	bad = strstr(l, "no profiling evidence") != NULL ||
	    strstr(l, "no direct profiling evidence") != NULL ||
	    strstr(l, "无直接") != NULL || strstr(l, "没有直接") != NULL ||
	    strstr(l, "缺少直接") != NULL;
	free(l);
	return bad;
}

static bool
is_debug(const char *s)
{
	return s != NULL && strstr(s, "debug") != NULL;
}

static bool
regex_list(const tc_json *v)
{
	if (!tc_json_is(v, TC_JSON_ARRAY) || v->u.arr.len == 0)
		return false;
	for (size_t i = 0; i < v->u.arr.len; i++)
		if (!tc_json_is(v->u.arr.items[i], TC_JSON_STRING))
			return false;
	return true;
}

static bool
is_disable_all(const tc_json *item)
{
	const tc_json *v = tc_json_get(item, "value");

	return tc_json_is(v, TC_JSON_ARRAY) && v->u.arr.len == 1 &&
	    tc_json_is(v->u.arr.items[0], TC_JSON_STRING) &&
	    strcmp(v->u.arr.items[0]->u.str.ptr, ".*") == 0;
}

#define FAIL(...) do { tc_error_set(err, __VA_ARGS__); goto fail; } while (0)

static int
check_item(const tc_json *it, size_t i, const char **id_out, tc_error *err)
{
	const char *id, *cat, *opt, *status, *risk, *ptr;

	if (!tc_json_is(it, TC_JSON_OBJECT))
		FAIL("winner option matrix items[%zu] must be an object", i);
	if ((id = text(it, "id")) == NULL)
		FAIL("winner option matrix items[%zu].id must be a non-empty "
		    "string", i);
	*id_out = id;
	if ((cat = text(it, "category")) == NULL)
		FAIL("winner option matrix %s category must be a non-empty "
		    "string", id);
	if ((opt = text(it, "option")) == NULL)
		FAIL("winner option matrix %s option must be a non-empty string",
		    id);
	if (is_debug(opt))
		FAIL("winner option matrix %s: debug options never enter the "
		    "option matrix", id);
	if (tc_json_get(it, "value") == NULL)
		FAIL("winner option matrix %s must record the trial value", id);
	if (tc_json_get(it, "original_value") == NULL)
		FAIL("winner option matrix %s must record original_value (null "
		    "when absent)", id);
	if (text(it, "probe_evidence") == NULL)
		FAIL("winner option matrix %s probe_evidence must be a non-empty "
		    "string", id);
	if ((risk = text(it, "risk")) == NULL || !one_of(risk, risks))
		FAIL("winner option matrix %s risk must be one of: high, low, "
		    "medium", id);
	if ((status = text(it, "status")) == NULL || !one_of(status, statuses))
		FAIL("winner option matrix %s is not settled; status must be one "
		    "of: accepted, blocked, failed, rejected, skipped", id);
	if (strcmp(cat, "dcci") == 0 && strcmp(opt, "dcci_repair") == 0) {
		const tc_json *ps = tc_json_get(it, "pointers");

		if (!tc_json_is(ps, TC_JSON_ARRAY) || ps->u.arr.len != 2 ||
		    !tc_json_is(ps->u.arr.items[0], TC_JSON_STRING) ||
		    !tc_json_is(ps->u.arr.items[1], TC_JSON_STRING) ||
		    !valid_pointer(ps->u.arr.items[0]->u.str.ptr) ||
		    !valid_pointer(ps->u.arr.items[1]->u.str.ptr) ||
		    !ends_with(ps->u.arr.items[0]->u.str.ptr,
		    "/dcci_before_kernel_start") ||
		    !ends_with(ps->u.arr.items[1]->u.str.ptr,
		    "/dcci_after_kernel_end"))
			FAIL("winner option matrix %s: the DCCI repair changes "
			    "exactly the pointers .../dcci_before_kernel_start and "
			    ".../dcci_after_kernel_end", id);
		if (!regex_list(tc_json_get(it, "value")))
			FAIL("winner option matrix %s: the DCCI repair value must "
			    "be the non-empty regex list set on both pointers", id);
	} else {
		if (tc_json_get(it, "pointers") != NULL)
			FAIL("winner option matrix %s: an ordinary trial changes "
			    "exactly one RFC 6901 pointer", id);
		ptr = text(it, "pointer");
		if (!valid_pointer(ptr))
			FAIL("winner option matrix %s pointer must be an RFC 6901 "
			    "JSON Pointer", id);
		if (is_debug(ptr))
			FAIL("winner option matrix %s: debug options never enter "
			    "the option matrix", id);
		if (strcmp(opt, "dcci_before_kernel_start") == 0 ||
		    strcmp(opt, "dcci_after_kernel_end") == 0)
			FAIL("winner option matrix %s: DCCI before and after are "
			    "not separate trials", id);
	}
	if (strcmp(status, "blocked") == 0 || strcmp(status, "skipped") == 0) {
		const char *reason = text(it, "reason_zh");
		const char *code = text(it, "reason_code");

		if (reason == NULL || !has_cjk(reason))
			FAIL("winner option matrix %s %s item requires a Chinese "
			    "reason_zh", status, id);
		if (text(it, "evidence") == NULL)
			FAIL("winner option matrix %s %s item requires evidence",
			    status, id);
		if (mentions_no_profiling(reason) ||
		    (code != NULL && strstr(code, "profiling") != NULL))
			FAIL("winner option matrix %s: missing direct profiling "
			    "evidence is never a valid reason to skip an option",
			    id);
		if (code == NULL || !one_of(code, reason_codes))
			FAIL("winner option matrix %s reason_code must be one of: "
			    "budget_exhausted, preconditions_missing, "
			    "risk_not_authorized, value_not_accepted_by_wrapper", id);
	}
	return 0;
fail:
	return -1;
}

char *
tc_bench__content_fingerprint(const tc_json *doc, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];

	if (tc_json_digest(doc, hex, err) != 0)
		return NULL;
	return tc_xasprintf("sha256:%s", hex);
}

tc_json *
tc_option_matrix_validate(const tc_json *doc, tc_error *err)
{
	const tc_json *items, *v;
	const char **ids = NULL;
	size_t n, disable_all = 0;
	tc_json *out = NULL, *cats, *stats, *accepted;
	char *fp;

	if (!tc_json_is(doc, TC_JSON_OBJECT))
		FAIL("winner option matrix must be a JSON object");
	v = tc_json_get(doc, "schema_version");
	if (!tc_json_is(v, TC_JSON_STRING) ||
	    strcmp(v->u.str.ptr, OPTION_MATRIX_SCHEMA) != 0)
		FAIL("winner option matrix schema_version must be "
		    OPTION_MATRIX_SCHEMA);
	v = tc_json_get(doc, "frozen_before_first_trial");
	if (!tc_json_is(v, TC_JSON_BOOL) || !v->u.b)
		FAIL("winner option matrix must declare "
		    "frozen_before_first_trial=true");
	if (text(doc, "seed_candidate") == NULL)
		FAIL("winner option matrix seed_candidate must be a non-empty "
		    "string");
	items = tc_json_get(doc, "items");
	if (!tc_json_is(items, TC_JSON_ARRAY) || items->u.arr.len == 0)
		FAIL("winner option matrix items must be a non-empty list");
	n = items->u.arr.len;
	ids = tc_xcalloc(n, sizeof(*ids));
	for (size_t i = 0; i < n; i++) {
		const tc_json *it = items->u.arr.items[i];

		if (check_item(it, i, &ids[i], err) != 0)
			goto fail;
		for (size_t j = 0; j < i; j++)
			if (strcmp(ids[i], ids[j]) == 0)
				FAIL("winner option matrix has duplicate item id: "
				    "%s", ids[i]);
		if (strcmp(text(it, "category"), "dcci") == 0) {
			const char *opt = text(it, "option");

			if (strcmp(opt, "dcci_disable_on_kernel") == 0) {
				if (!is_disable_all(it))
					FAIL("winner option matrix %s: the only "
					    "first-round DCCI value is "
					    "dcci_disable_on_kernel=[\".*\"]", ids[i]);
				disable_all++;
			} else if (strcmp(opt, "dcci_repair") != 0) {
				FAIL("winner option matrix %s: a dcci item is "
				    "either the disable-all trial or the combined "
				    "repair", ids[i]);
			}
		}
	}
	for (const char *const *c = categories; *c != NULL; c++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(text(items->u.arr.items[i], "category"),
			    *c) == 0;
		if (!found)
			FAIL("winner option matrix missing required category: %s",
			    *c);
	}
	if (disable_all != 1)
		FAIL("winner option matrix needs exactly one "
		    "dcci_disable_on_kernel=[\".*\"] trial");
	if ((fp = tc_bench__content_fingerprint(doc, err)) == NULL)
		goto fail;
	out = tc_json_new_object();
	tc_json_object_set_string(out, "content_fingerprint", fp);
	free(fp);
	cats = tc_json_new_object();
	stats = tc_json_new_object();
	accepted = tc_json_new_array();
	for (size_t i = 0; i < n; i++) {
		const tc_json *it = items->u.arr.items[i];
		const char *c = text(it, "category"), *s = text(it, "status");
		int64_t k;

		k = 0;
		(void)tc_json_int64(tc_json_get(cats, c), &k);
		tc_json_object_set_int(cats, c, k + 1);
		k = 0;
		(void)tc_json_int64(tc_json_get(stats, s), &k);
		tc_json_object_set_int(stats, s, k + 1);
		if (strcmp(s, "accepted") == 0)
			tc_json_array_push(accepted, tc_json_new_string(ids[i]));
	}
	tc_json_object_set_string(out, "schema_version", OPTION_MATRIX_SCHEMA);
	tc_json_object_set_bool(out, "valid", true);
	tc_json_object_set_string(out, "seed_candidate",
	    text(doc, "seed_candidate"));
	tc_json_object_set_int(out, "item_count", (int64_t)n);
	tc_json_object_set(out, "category_counts", cats);
	tc_json_object_set(out, "status_counts", stats);
	tc_json_object_set(out, "accepted_items", accepted);
	tc_json_object_set_bool(out, "settled", true);
fail:
	free(ids);
	return out;
}
