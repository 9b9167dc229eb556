/*
 * init.c - initialize_session (docs/spec/controller.md
 * "Initializing a session"): a new `full` session with the canonical schedule
 * of its optional mode, and its evidence policy (a strict session records
 * "evidence_policy": "strict"; a reference one is exactly the document the
 * reference writes).
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/canon.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/timeutil.h"

static bool
mode_valid(const char *mode)
{
	size_t i;

	for (i = 0; i < 4; i++)
		if (strcmp(tc_optional_modes[i], mode) == 0)
			return true;
	return false;
}

static tc_json *
new_session(const char *session_id, const char *root, const char *mode,
    tc_policy policy)
{
	char now[TC_TIMESTAMP_LEN + 1];
	tc_json *doc = tc_json_new_object();

	tc_now_iso(now);
	tc_json_object_set_string(doc, "schema_version", TC_SESSION_SCHEMA);
	tc_json_object_set_string(doc, "session_id", session_id);
	tc_json_object_set_string(doc, "artifact_root", root);
	tc_json_object_set_string(doc, "optional_mode", mode);
	tc_json_object_set_string(doc, "entrypoint", "full");
	tc_json_object_set_string(doc, "status", "active");
	tc_json_object_set_string(doc, "created_at", now);
	tc_json_object_set(doc, "steps",
	    tc_schedule_build(mode, "full", false, NULL));
	if (policy == TC_POLICY_STRICT)
		tc_json_object_set_string(doc, "evidence_policy", "strict");
	return doc;
}

static int
refuse_existing(const char *path, tc_error *err)
{
	if (!tc_path_exists(path))
		return 0;
	tc_error_set(err, "session already exists: %s", path);
	return -1;
}

tc_json *
tc_session_init(const char *session_path, const char *artifact_root,
    const char *session_id, const char *optional_mode, tc_error *err)
{
	return tc_session_init_policy(session_path, artifact_root, session_id,
	    optional_mode, TC_POLICY_REFERENCE, err);
}

tc_json *
tc_session_init_policy(const char *session_path, const char *artifact_root,
    const char *session_id, const char *optional_mode, tc_policy policy,
    tc_error *err)
{
	tc_json *id = tc_json_new_string(session_id);
	char *path = NULL, *root = NULL, *dir = NULL;
	tc_json *doc = NULL;
	tc_lock lock = { -1, NULL };

	if (tc_require_canonical(id, "session_id", err) != 0)
		goto out;
	if (!mode_valid(optional_mode)) {
		tc_error_set(err, "optional_mode must be one of ['both', "
		    "'multistream', 'none', 'source-range']");
		goto out;
	}
	if ((path = tc_path_resolve(session_path, err)) == NULL ||
	    (root = tc_path_resolve(artifact_root, err)) == NULL)
		goto out;
	if (refuse_existing(path, err) != 0 || tc_mkdirs(root, err) != 0)
		goto out;
	/* The lock file lives beside the session: its directory first. */
	dir = tc_path_dirname(path);
	if (tc_mkdirs(dir, err) != 0 ||
	    tc_lock_acquire(&lock, path, TC_LOCK_DEFAULT_TIMEOUT_S, err) != 0)
		goto out;
	doc = new_session(session_id, root, optional_mode, policy);
	/* Exclusive: a concurrent init of the same path loses cleanly.  A
	 * strict session's policy record is written before the session (a
	 * reference one removes a record an earlier session left at this
	 * path), as a reference-policy session's sidecar starts, replacing
	 * one an earlier session left. */
	if (refuse_existing(path, err) != 0 ||
	    tc_policy_record_start(path, doc, "init", err) != 0 ||
	    (policy == TC_POLICY_REFERENCE && tc_sidecar_start_doc(path,
	    doc, err) != 0) ||
	    tc_write_json(path, doc, TC_WRITE_EXCLUSIVE, err) != 0) {
		tc_json_free(doc);
		doc = NULL;
	}
out:
	tc_json_free(id);
	tc_lock_release(&lock);
	free(dir);
	free(root);
	free(path);
	return doc;
}
