/*
 * import_checks.c - the content checks a derived session applies to the
 * evidence it imports from its parent (docs/spec/controller.md
 * "Imported file checks", "Imported ledger checks"): the profiling analysis
 * with its ensure_ascii content fingerprint, the source scope map with its own
 * fingerprint, and the few facts the controller requires of an imported schema
 * 2 ledger.  Used by derivation and by the evidence import's re-validation on
 * every load.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/canon.h"
#include "tunectl/derive.h"
#include "tunectl/final.h"

static int
fail(tc_error *err, const char *msg)
{
	tc_error_set(err, "%s", msg);
	return -1;
}

/* Python's `a.get(key) != value` for a string/None value. */
static bool
member_equals(const tc_json *obj, const char *key, const tc_json *value)
{
	const tc_json *v = tc_json_get(obj, key);

	if (v == NULL || value == NULL)
		return (v == NULL || tc_json_is(v, TC_JSON_NULL)) &&
		    (value == NULL || tc_json_is(value, TC_JSON_NULL));
	return tc_json_equal(v, value);
}

int
tc_import_analysis_fingerprint(const tc_json *analysis, char hex[65],
    tc_error *err)
{
	tc_json *copy = tc_json_clone(analysis);
	int rc;

	tc_json_object_remove(copy, "analysis_content_fingerprint");
	rc = tc_json_digest_flags(copy, TC_JSON_ASCII | TC_JSON_NO_NAN, hex,
	    err);
	tc_json_free(copy);
	return rc;
}

int
tc_import_source_map_fingerprint(const tc_json *source_map, char hex[65],
    tc_error *err)
{
	tc_json *copy = tc_json_clone(source_map);
	tc_json *provenance = tc_json_get(copy, "provenance");
	int rc;

	if (tc_json_is(provenance, TC_JSON_OBJECT))
		tc_json_object_remove(provenance,
		    "source_scope_map_content_fingerprint");
	rc = tc_json_digest(copy, hex, err);
	tc_json_free(copy);
	return rc;
}

/* A declared fingerprint: canonical and equal to the computed one. */
static bool
fingerprint_matches(const tc_json *declared, const char *computed)
{
	return tc_is_canonical_string(declared) &&
	    sess_str_is(declared, computed);
}

int
tc_import_check_analysis(const tc_json *analysis, tc_error *err)
{
	static const char *const identity[] = {
		"experiment_id", "round_id", "candidate_name", "source_revision"
	};
	const tc_json *declared, *mapping;
	char hex[65];
	size_t i;

	if (!tc_json_is(analysis, TC_JSON_OBJECT))
		return fail(err, "profiling analysis must be a JSON object");
	if (!sess_str_is(tc_json_get(analysis, "schema_version"), "1.2"))
		return fail(err, "profiling analysis must use schema_version 1.2");
	for (i = 0; i < sizeof(identity) / sizeof(identity[0]); i++) {
		char *name = tc_xasprintf("profiling analysis %s", identity[i]);
		int rc = tc_require_canonical(tc_json_get(analysis,
		    identity[i]), name, err);

		free(name);
		if (rc != 0)
			return -1;
	}
	declared = tc_json_get(analysis, "analysis_content_fingerprint");
	if (!tc_is_canonical_string(declared))
		return fail(err, "profiling analysis content fingerprint "
		    "mismatch");
	if (tc_import_analysis_fingerprint(analysis, hex, err) != 0)
		return -1;
	if (!fingerprint_matches(declared, hex))
		return fail(err, "profiling analysis content fingerprint "
		    "mismatch");
	mapping = tc_json_get(analysis, "source_scope_mapping");
	if (mapping != NULL && !tc_json_is(mapping, TC_JSON_NULL) &&
	    (!tc_json_is(mapping, TC_JSON_OBJECT) ||
	    !sess_str_is(tc_json_get(mapping, "protocol"),
	    "source_scope_map_v2") ||
	    !sess_str_is(tc_json_get(mapping, "status"), "exact")))
		return fail(err, "profiling analysis source_scope_mapping is "
		    "not exact");
	return 0;
}

static bool
has_exact_cover(const tc_json *ranges)
{
	size_t i;

	if (!tc_json_is(ranges, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < ranges->u.arr.len; i++)
		if (tc_json_is(ranges->u.arr.items[i], TC_JSON_OBJECT) &&
		    sess_str_is(tc_json_get(ranges->u.arr.items[i], "relation"),
		    "exact_cover"))
			return true;
	return false;
}

int
tc_import_check_source_map(const tc_json *source_map,
    const tc_json *analysis, tc_error *err)
{
	const tc_json *provenance, *version, *revision;
	char hex[65];

	version = tc_json_get(source_map, "schema_version");
	if (!tc_json_is(source_map, TC_JSON_OBJECT) ||
	    !sess_str_is(tc_json_get(source_map, "protocol"),
	    "source_scope_map_v2") ||
	    !(sess_str_is(version, "2.0") || sess_str_is(version, "2.1")))
		return fail(err, "source scope map must use source_scope_map_v2 "
		    "schema 2.0 or 2.1");
	provenance = tc_json_get(source_map, "provenance");
	if (!tc_json_is(provenance, TC_JSON_OBJECT))
		return fail(err, "source scope map provenance must be an object");
	if (!tc_is_canonical_string(tc_json_get(provenance,
	    "source_scope_map_content_fingerprint")))
		return fail(err, "source scope map content fingerprint mismatch");
	if (tc_import_source_map_fingerprint(source_map, hex, err) != 0)
		return -1;
	if (!fingerprint_matches(tc_json_get(provenance,
	    "source_scope_map_content_fingerprint"), hex))
		return fail(err, "source scope map content fingerprint mismatch");
	/* The key decides, not its value: a null source_revision does not
	 * fall back to the stable marker revision. */
	revision = tc_json_get(provenance, "source_revision");
	if (revision == NULL)
		revision = tc_json_get(provenance, "stable_marker_revision");
	if (!member_equals(analysis, "source_revision", revision))
		return fail(err, "source scope map source revision differs from "
		    "profiling analysis");
	if (!has_exact_cover(tc_json_get(source_map, "source_ranges")))
		return fail(err, "source scope map has no actionable exact_cover "
		    "range");
	return 0;
}

static bool
has_round(const tc_json *rounds, const tc_json *round_id)
{
	size_t i;

	if (!tc_json_is(rounds, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < rounds->u.arr.len; i++)
		if (tc_json_is(rounds->u.arr.items[i], TC_JSON_OBJECT) &&
		    member_equals(rounds->u.arr.items[i], "round_id", round_id))
			return true;
	return false;
}

int
tc_import_check_ledger(const tc_json *ledger, const tc_json *analysis,
    tc_error *err)
{
	const tc_json *experiments, *experiment, *id;

	experiments = tc_json_get(ledger, "experiments");
	if (!tc_json_is(ledger, TC_JSON_OBJECT) ||
	    !tc_final_ledger_is_schema2(ledger) ||
	    !tc_json_is(experiments, TC_JSON_OBJECT))
		return fail(err, "experiment ledger must be a schema 2 ledger");
	id = tc_json_get(analysis, "experiment_id");
	experiment = tc_json_is(id, TC_JSON_STRING) ?
	    tc_json_getn(experiments, id->u.str.ptr, id->u.str.len) : NULL;
	if (!tc_json_is(experiment, TC_JSON_OBJECT))
		return fail(err, "experiment ledger does not contain the "
		    "analyzed experiment");
	if (!member_equals(experiment, "source_revision",
	    tc_json_get(analysis, "source_revision")))
		return fail(err, "experiment ledger source revision differs from "
		    "profiling analysis");
	if (!has_round(tc_json_get(experiment, "rounds"),
	    tc_json_get(analysis, "round_id")))
		return fail(err, "experiment ledger does not contain the analyzed "
		    "BASE round");
	return 0;
}
