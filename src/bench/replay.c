/*
 * replay.c - deep-fusion replay evidence (docs/spec/gates.md
 * "Replay evidence").  The reference hands this to
 * analyze_sk_meta.validate_replay_report, whose recomputation of the replay
 * from SK metadata is not specified.  tunectl implements the specified part
 * (the early failure reasons, in order) and then decides:
 *
 *   - with --replay-validator CMD, CMD REPORT EXPECTED_NAME is run and its
 *     stdout JSON object (with a bool "valid" and a string-or-null
 *     "failure_reason") is the verdict, merged over tunectl's object;
 *   - without one, the recomputation the program installed with
 *     tc_replay_set_recompute() (the tunectl CLI installs "analyze
 *     sk-meta"'s validator) gives the verdict, merged the same way;
 *   - without either, the report is refused with failure_reason
 *     "replay_recomputation_unavailable": tunectl never trusts a replay
 *     report it cannot recompute.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tunectl/bench.h"
#include "tunectl/canon.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "bench_internal.h"

static const char *const check_keys[] = {
	"candidate_name", "candidate_name_matches", "round_id",
	"round_id_matches", "source_revision", "source_revision_matches",
	"artifact_paths_valid", "fusion_reproducible",
	"config_fingerprint_match", "distinct_metadata_roots",
	"matched_fusion_group_count", "matched_reliable_signature",
	"report_matches_recomputed", NULL
};

static const char *const artifact_keys[] = {
	"compat_metadata_root", "verify_metadata_root",
	"compat_config_manifest_path", "verify_config_manifest_path", NULL
};

static tc_replay_recompute_fn recompute;

void
tc_replay_set_recompute(tc_replay_recompute_fn fn)
{
	recompute = fn;
}

static tc_json *
fail(tc_json *o, const char *reason)
{
	tc_json_object_set_string(o, "failure_reason", reason);
	return o;
}

static bool
nonblank(const tc_json *v, const char **s)
{
	if (!tc_json_is(v, TC_JSON_STRING))
		return false;
	if (s != NULL)
		*s = v->u.str.ptr;
	return tc_is_nonblank_string(v);
}

static int
run_validator(const char *validator, const char *path, const char *name,
    tc_json **out, tc_error *err)
{
	char tmpl[] = "/tmp/tunectl-replay.XXXXXX";
	int fd = mkstemp(tmpl);
	char *argv[4];
	tc_proc_spec spec;
	tc_proc_result res;
	tc_json *doc;
	int rc = -1;

	if (fd < 0) {
		tc_error_set(err, "cannot create a temporary file for the "
		    "replay validator");
		return -1;
	}
	close(fd);
	argv[0] = (char *)validator;
	argv[1] = (char *)path;
	argv[2] = (char *)name;
	argv[3] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.stdout_path = tmpl;
	spec.stdin_null = true;
	spec.timeout_s = 600;
	if (tc_proc_run(&spec, &res, err) != 0)
		goto out;
	if (res.exit_code != 0) {
		tc_error_set(err, "replay validator %s exited with status %d",
		    validator, res.exit_code);
		goto out;
	}
	if ((doc = tc_json_parse_file(tmpl, err)) == NULL)
		goto out;
	if (!tc_json_is(doc, TC_JSON_OBJECT) ||
	    !tc_json_is(tc_json_get(doc, "valid"), TC_JSON_BOOL)) {
		tc_error_set(err, "replay validator %s must print a JSON object "
		    "with a boolean \"valid\"", validator);
		tc_json_free(doc);
		goto out;
	}
	*out = doc;
	rc = 0;
out:
	unlink(tmpl);
	return rc;
}

/* The replay document's own fields, each passing one entry of checks:
 * candidate name, round id, source revision and artifacts (beside the
 * document).  Returns the failure reason, or NULL. */
static const char *
check_replay_doc(const tc_json *doc, const char *resolved,
    const char *expected, tc_json *checks)
{
	const tc_json *v = tc_json_get(doc, "candidate_name"), *mc;
	const char *name, *round_id;
	size_t a, e;
	int64_t m;
	char *dir;
	bool ok = true;

	if (!nonblank(v, &name))
		return "replay_candidate_name_invalid";
	tc_py_strip(v->u.str.ptr, v->u.str.len, &a, &e);
	if (e - a != strlen(expected) ||
	    memcmp(v->u.str.ptr + a, expected, e - a) != 0)
		return "replay_candidate_name_mismatch";
	tc_json_object_set_bool(checks, "candidate_name", true);
	tc_json_object_set_bool(checks, "candidate_name_matches", true);
	v = tc_json_get(doc, "round_id");
	if (!tc_is_canonical_string(v) || (round_id = v->u.str.ptr,
	    strncmp(round_id, expected, strlen(expected)) != 0 ||
	    round_id[strlen(expected)] != '-'))
		return "replay_round_id_invalid";
	tc_json_object_set_bool(checks, "round_id", true);
	if (!tc_is_canonical_string(tc_json_get(doc, "source_revision")))
		return "replay_source_revision_invalid";
	tc_json_object_set_bool(checks, "source_revision", true);
	for (const char *const *k = artifact_keys; *k != NULL; k++)
		if (!nonblank(tc_json_get(doc, *k), NULL))
			return "replay_artifact_path_invalid";
	dir = tc_path_dirname(resolved);
	for (int i = 0; ok && artifact_keys[i] != NULL; i++) {
		char *p = tc_path_join(dir, tc_json_get_string(doc,
		    artifact_keys[i]));

		ok = i < 2 ? tc_is_directory(p) : tc_is_regular_file(p);
		free(p);
	}
	free(dir);
	if (!ok)
		return "replay_artifacts_invalid";
	tc_json_object_set_bool(checks, "artifact_paths_valid", true);
	mc = tc_json_get(doc, "replay_min_child_nodes");
	if (!tc_json_is(mc, TC_JSON_INT) || !tc_json_int64(mc, &m) || m < 1)
		return "replay_report_stale_or_tampered";
	return NULL;
}

tc_json *
tc_replay_validate(const char *path, const char *expected,
    const char *validator, tc_error *err)
{
	tc_json *o = tc_json_new_object(), *checks = tc_json_new_object();
	tc_json *doc = NULL, *verdict = NULL;
	const char *reason;
	char *resolved;
	tc_error perr = TC_ERROR_INIT;
	size_t i;

	for (const char *const *k = check_keys; *k != NULL; k++)
		tc_json_object_set_bool(checks, *k, false);
	tc_json_object_set(o, "checks", checks);
	tc_json_object_set_bool(o, "valid", false);
	tc_json_object_set_null(o, "failure_reason");
	if (path == NULL) {
		tc_json_object_set_null(o, "path");
		return fail(o, "replay_evidence_missing");
	}
	tc_json_object_set_string(o, "path", path);
	if (!tc_text_has_content(path, strlen(path)))
		return fail(o, "replay_evidence_path_invalid");
	if ((resolved = tc_path_resolve(path, &perr)) == NULL) {
		tc_error_clear(&perr);
		return fail(o, "replay_evidence_path_invalid");
	}
	tc_json_object_set_string(o, "path", resolved);
	doc = tc_json_parse_file(resolved, &perr);
	tc_error_clear(&perr);
	if (doc == NULL) {
		free(resolved);
		return fail(o, "replay_evidence_invalid");
	}
	if (!tc_json_is(doc, TC_JSON_OBJECT)) {
		free(resolved);
		tc_json_free(doc);
		return fail(o, "replay_evidence_not_object");
	}
	if ((reason = check_replay_doc(doc, resolved, expected,
	    checks)) != NULL) {
		o = fail(o, reason);
		goto done;
	}
	if (validator == NULL && recompute == NULL) {
		o = fail(o, "replay_recomputation_unavailable");
		goto done;
	}
	if (validator == NULL)
		verdict = recompute(resolved, expected);
	else if (run_validator(validator, resolved, expected, &verdict,
	    err) != 0) {
		tc_json_free(o);
		o = NULL;
		goto done;
	}
	for (i = 0; i < verdict->u.obj.len; i++)
		tc_json_object_set(o, verdict->u.obj.members[i].key,
		    tc_json_clone(verdict->u.obj.members[i].value));
	tc_json_free(verdict);
	if (!tc_json_is(tc_json_get(o, "failure_reason"), TC_JSON_STRING) &&
	    !tc_json_get(o, "valid")->u.b)
		tc_json_object_set_string(o, "failure_reason",
		    "replay_report_stale_or_tampered");
done:
	free(resolved);
	tc_json_free(doc);
	return o;
}
