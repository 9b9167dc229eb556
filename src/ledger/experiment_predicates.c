/*
 * experiment_predicates.c - the ledger's enumerations (docs/spec/ledger.md
 * "Ledger enumerations") and value predicates (docs/spec/ledger.md
 * "Relative artifact paths", "Predicates"): non-empty / canonical strings,
 * relative artifact paths, Chinese text, RFC 6901 pointers, performance-exact
 * and source-actionable mappings.
 */
#include <stdint.h>
#include <string.h>

#include "ledger_internal.h"
#include "tunectl/ledger.h"

const char *const tc_ledger_round_kinds[] = {
	"base", "performance_prune", "final", "automatic_aot", NULL
};
const char *const tc_ledger_scope_kinds[] = {
	"manual", "automatic_aot", NULL
};
const char *const tc_ledger_classifications[] = {
	"beneficial", "regressed", "neutral", "insufficient_evidence", NULL
};
const char *const tc_ledger_actions[] = {
	"keep", "prune", "reprofile", "block", NULL
};
const char *const tc_ledger_decision_statuses[] = {
	"proposed", "applied", "verified", "blocked", NULL
};
const char *const tc_ledger_promotion_modes[] = {
	"range_optimized", "whole_scope", NULL
};
const char *const tc_ledger_mapping_methods[] = {
	"sk_meta_node_ids", "source_scope_map",
	"kernel_projection_structural", NULL
};
const char *const tc_ledger_mapping_confidences[] = {
	"exact", "exact_projected_trace", "diagnostic_only", "ambiguous",
	"unmapped", NULL
};

bool
tc_ledger_contains_chinese(const tc_json *v)
{
	return tc_json_is(v, TC_JSON_STRING) &&
	    tc_text_has_cp_in(v->u.str.ptr, v->u.str.len, 0x4e00, 0x9fff);
}

bool
tc_ledger_rfc6901_pointer(const tc_json *v)
{
	const char *s;
	size_t n, i;

	if (!tc_ledger__string(v, &s, &n) || n == 0 || s[0] != '/' ||
	    tc_ledger__has_surrounding_ws(v))
		return false;
	for (i = 1; i < n; i++)
		if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' &&
		    s[i + 1] != '1')))
			return false;
	return true;
}

static bool
is_hex64(const tc_json *v)
{
	const char *s;
	size_t n, i;

	if (!tc_ledger__string(v, &s, &n) || n != 64)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool
pair_is(const tc_json *d, const char *method, const char *confidence)
{
	return tc_ledger__is(tc_json_get(d, "mapping_method"), method) &&
	    tc_ledger__is(tc_json_get(d, "mapping_confidence"), confidence);
}

bool
tc_ledger_performance_exact(const tc_json *d)
{
	const tc_json *blockers;

	if (pair_is(d, "source_scope_map", "exact"))
		return true;
	if (!pair_is(d, "kernel_projection_structural", "exact_projected_trace"))
		return false;
	blockers = tc_json_get(d, "mapping_blockers");
	return tc_ledger__is(tc_json_get(d, "candidate_binding_status"), "bound") &&
	    is_hex64(tc_json_get(d, "graph_occurrence_fingerprint")) &&
	    tc_json_is(blockers, TC_JSON_ARRAY) && blockers->u.arr.len == 0;
}

/* Compare two decimal integer texts (optional '-', no leading zeros). */
static int
int_text_cmp(const char *a, const char *b)
{
	bool na = a[0] == '-', nb = b[0] == '-';
	size_t la, lb;
	int c;

	if (na != nb)
		return na ? -1 : 1;
	if (na) {
		a++;
		b++;
	}
	la = strlen(a);
	lb = strlen(b);
	c = la < lb ? -1 : la > lb ? 1 : strcmp(a, b);
	if (c > 0)
		c = 1;
	else if (c < 0)
		c = -1;
	return na ? -c : c;
}

bool
tc_ledger_source_actionable(const tc_json *d)
{
	const tc_json *b, *file, *start, *end;
	const char *s;
	size_t n;

	if (!pair_is(d, "source_scope_map", "exact"))
		return false;
	b = tc_json_get(d, "boundary");
	if (!tc_json_is(b, TC_JSON_OBJECT))
		return false;
	file = tc_json_get(b, "source_file");
	start = tc_json_get(b, "start_offset");
	end = tc_json_get(b, "end_offset");
	if (!tc_is_nonblank_string(file))
		return false;
	(void)tc_ledger__string(file, &s, &n);
	if (!tc_text_is_relative_path(s, n))
		return false;
	if (!tc_json_is(start, TC_JSON_INT) || !tc_json_is(end, TC_JSON_INT))
		return false;
	return int_text_cmp(start->u.int_text, "0") >= 0 &&
	    int_text_cmp(end->u.int_text, start->u.int_text) > 0;
}
