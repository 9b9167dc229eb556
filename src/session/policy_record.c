/*
 * policy_record.c - the evidence policy a strict session was created
 * with, kept where its workers do not write: beside the sidecars, outside
 * the artifact root,
 *   <state>/policies/<sha256 of the session's resolved path>.json
 * written by init --evidence-policy strict and by derive-session of a
 * strict child.  Before a session's first seal no artifact manifest
 * repeats its policy, so without this record a worker that deleted
 * "evidence_policy" from the session file made a strict session a
 * reference one.  Every load compares the file with the record and
 * refuses a file that says less than the record.
 *
 * A reference-policy session gets no record (its documents, and its
 * artifact root, stay the reference's byte for byte); creating one at a
 * path removes a record an earlier session left there.  A session without
 * a record (made by the reference or an older tunectl, moved to another
 * path or machine) is checked as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

#define RECORD_SCHEMA	"tunectl-policy-record-v1"
/* A record is a few hundred bytes; anything far larger is not one. */
#define RECORD_MAX_BYTES	(64 * 1024)

char *
tc_policy_record_path(const char *session_path)
{
	return tc_state_file_of("policies", session_path);
}

static int
write_record(const char *path, const char *abs, const tc_json *doc,
    const char *recorded_by, tc_error *err)
{
	tc_json *rec = tc_json_new_object();
	int rc;

	tc_json_object_set_string(rec, "schema_version", RECORD_SCHEMA);
	tc_json_object_set_string(rec, "session_path", abs);
	tc_json_object_set(rec, "session_id",
	    tc_json_clone(tc_json_get(doc, "session_id")));
	tc_json_object_set(rec, "created_at",
	    tc_json_clone(tc_json_get(doc, "created_at")));
	tc_json_object_set_string(rec, "evidence_policy", "strict");
	tc_json_object_set_string(rec, "recorded_by", recorded_by);
	rc = tc_write_json(path, rec, TC_WRITE_MKDIRS | TC_WRITE_PRIVATE, err);
	tc_json_free(rec);
	return rc;
}

int
tc_policy_record_start(const char *session_path, const tc_json *doc,
    const char *recorded_by, tc_error *err)
{
	char *path = tc_policy_record_path(session_path), *abs;
	tc_policy policy;
	int rc = 0;

	/* No state directory: nothing can be kept outside the root (the
	 * sidecars have none either); the session is checked as before. */
	if (path == NULL)
		return 0;
	if (tc_policy_of_doc(doc, &policy, err) != 0) {
		free(path);
		return -1;
	}
	if (policy == TC_POLICY_STRICT) {
		abs = tc_path_resolve(session_path, NULL);
		rc = write_record(path, abs != NULL ? abs : session_path, doc,
		    recorded_by, err);
		free(abs);
		if (rc != 0)
			tc_error_prefix(err, "cannot record the evidence policy "
			    "outside the artifact root (set TUNECTL_STATE_DIR to "
			    "a writable directory): ");
	} else if (unlink(path) != 0 && errno != ENOENT && errno != ENOTDIR) {
		tc_error_set(err, "cannot remove the evidence policy record an "
		    "earlier session left at this path: %s: %s", path,
		    strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

/* The policy a record at path names; 1: no record, -1: unreadable. */
static int
read_record(const char *path, tc_policy *out, char **recorded_by)
{
	tc_json *rec;
	char *text;
	size_t len;
	int rc = -1;

	/* No such file, or a state directory that cannot hold one. */
	if (access(path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	if (!tc_is_regular_file_nofollow(path) ||
	    (text = tc_read_file(path, RECORD_MAX_BYTES, &len, NULL)) == NULL)
		return -1;
	rec = tc_json_parse(text, len, NULL);
	free(text);
	if (tc_json_is(rec, TC_JSON_OBJECT) &&
	    sess_str_is(tc_json_get(rec, "schema_version"), RECORD_SCHEMA) &&
	    tc_policy_parse(tc_json_get_string(rec, "evidence_policy"),
	    out) == 0) {
		const char *by = tc_json_get_string(rec, "recorded_by");

		*recorded_by = tc_xstrdup(by != NULL ? by : "init");
		rc = 0;
	}
	tc_json_free(rec);
	return rc;
}

int
tc_session__policy_check(const char *session_path, const tc_json *doc,
    char **resolved, tc_error *err)
{
	char *path, *by = NULL;
	tc_policy mine, recorded;
	int found;

	/* The file's own policy: what does not parse is the validation's
	 * to report; a strict file says all a record could. */
	if (tc_policy_of_doc(doc, &mine, NULL) != 0 ||
	    mine == TC_POLICY_STRICT)
		return 0;
	if (*resolved == NULL)
		*resolved = tc_path_resolve(session_path, NULL);
	/* tc_policy_record_path(), from the resolution the caller keeps */
	if (*resolved == NULL ||
	    (path = tc_state_file("policies", *resolved)) == NULL)
		return 0;
	found = read_record(path, &recorded, &by);
	if (found < 0)
		tc_error_set(err, "evidence policy record %s of session %s "
		    "cannot be read, and the session file says reference: "
		    "remove the record only if %s is meant to be a "
		    "reference-policy session", path, session_path,
		    session_path);
	else if (found == 0 && recorded == TC_POLICY_STRICT)
		tc_error_set(err, "evidence policy of session %s recorded at %s "
		    "is strict; the session file says reference (its "
		    "\"evidence_policy\" was removed or changed): put "
		    "\"evidence_policy\": \"strict\" back in %s (a new session "
		    "made at that path by another tool: remove the record %s)",
		    session_path, by, session_path, path);
	else
		found = 1;
	free(by);
	free(path);
	return found == 1 ? 0 : -1;
}

int
tc_policy_record_check(const char *session_path, const tc_json *doc,
    tc_error *err)
{
	char *resolved = NULL;
	int rc = tc_session__policy_check(session_path, doc, &resolved, err);

	free(resolved);
	return rc;
}

int
tc_policy_record_note(const char *session_path, tc_policy policy,
    char **line)
{
	char *path, *by = NULL;
	tc_policy recorded;
	int found, rc = 1;

	*line = NULL;
	if (policy != TC_POLICY_STRICT)
		return 0;
	if ((path = tc_policy_record_path(session_path)) == NULL) {
		*line = tc_xstrdup("no evidence policy record (no state "
		    "directory to keep one in): only the session file and its "
		    "manifests hold the strict policy");
		return 1;
	}
	found = read_record(path, &recorded, &by);
	if (found < 0)
		*line = tc_xasprintf("evidence policy record %s cannot be read",
		    path);
	else if (found == 1)
		*line = tc_xasprintf("no evidence policy record at %s (session "
		    "made by an older tunectl or the reference, or moved from "
		    "another path): only the session file and its manifests "
		    "hold the strict policy", path);
	else if (recorded != TC_POLICY_STRICT)
		*line = tc_xasprintf("evidence policy record %s says %s, not "
		    "strict", path, tc_policy_name(recorded));
	else {
		*line = tc_xasprintf("evidence policy record %s says strict "
		    "(written by %s)", path, by);
		rc = 0;
	}
	free(by);
	free(path);
	return rc;
}
