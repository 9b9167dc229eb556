/*
 * state_bind.c - the PyPTO state bound outside the operator directory
 * (issue 34): whenever tunectl writes .orchestrator_state.json it first
 * records the digest it is about to write (and the one it replaces) in
 * <state>/pypto-states/<sha256 of the state file's resolved path>.json,
 * under tunectl's state directory (tc_state_dir), where a worker that
 * writes the operator directory cannot reach.  A state whose digest is
 * neither was written by someone else.  The previous digest is kept so
 * that a command killed between the record and the state write leaves a
 * state tunectl still recognises.  The record also keeps the bytes it
 * binds, so that a refused accept can put back the state tunectl wrote
 * even when the worker rewrote or removed every copy in the operator
 * directory (the dispatch snapshots, the task's digest of them).
 */
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

#define BIND_SCHEMA "tunectl-pypto-state-binding-v1"
/* A binding keeps one state document; the reader's cap on it. */
#define BIND_MAX_BYTES ((size_t)1 << 28)

/* The resolved path of the store's state file (malloc'd), or NULL. */
static char *
resolved_state(const tc_pypto_store *st)
{
	char *dir = tc_path_resolve(st->op_dir, NULL), *p;

	if (dir == NULL)
		return NULL;
	p = tc_path_join(dir, TC_PYPTO_STATE_FILE);
	free(dir);
	return p;
}

char *
tc_pypto_binding_path(const tc_pypto_store *st)
{
	char *abs = resolved_state(st), *path;

	if (abs == NULL)
		return NULL;
	path = tc_state_file("pypto-states", abs);
	free(abs);
	return path;
}

int
tc_pypto_bind_state(const tc_pypto_store *st, const char *next_sha,
    const char *next_text, size_t next_len, bool keep_previous,
    tc_error *err)
{
	char *path = tc_pypto_binding_path(st), *abs, *text;
	tc_json *rec;
	size_t len;
	int rc;

	if (path == NULL)
		return 0;
	abs = resolved_state(st);
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "schema_version", BIND_SCHEMA);
	tc_json_object_set_string(rec, "state_path", abs != NULL ? abs :
	    st->state_path);
	tc_json_object_set_string(rec, "sha256", next_sha);
	if (keep_previous && st->raw != NULL)
		tc_json_object_set_string(rec, "previous_sha256", st->sha);
	else
		tc_json_object_set_null(rec, "previous_sha256");
	if (next_text != NULL)
		tc_json_object_set(rec, "state", tc_json_new_stringn(next_text,
		    next_len));
	text = tc_json_pretty(rec, &len, err);
	rc = text != NULL ? tc_write_atomic(path, text, len, TC_WRITE_MKDIRS |
	    TC_WRITE_PRIVATE, err) : -1;
	if (rc != 0)
		tc_error_prefix(err, "cannot bind the PyPTO state outside the "
		    "operator directory (set TUNECTL_STATE_DIR to a writable "
		    "directory): ");
	free(text);
	tc_json_free(rec);
	free(abs);
	free(path);
	return rc;
}

/* The binding record at path (a regular file, not followed), or NULL. */
static tc_json *
read_binding(const char *path)
{
	tc_json *rec = NULL;
	size_t len = 0;
	char *text = tc_is_regular_file_nofollow(path) ? tc_read_file(path,
	    BIND_MAX_BYTES, &len, NULL) : NULL;

	if (text != NULL)
		rec = tc_json_parse(text, len, NULL);
	free(text);
	return rec;
}

int
tc_pypto_state_binding(const tc_pypto_store *st, char bound[65],
    char **where)
{
	char *path = tc_pypto_binding_path(st);
	const char *sha, *prev;
	tc_json *rec;
	int verdict = TC_PYPTO_STATE_FOREIGN;

	bound[0] = '\0';
	*where = path;
	if (path == NULL || !tc_path_exists(path))
		return TC_PYPTO_STATE_UNBOUND;
	rec = read_binding(path);
	sha = tc_json_get_string(rec, "sha256");
	prev = tc_json_get_string(rec, "previous_sha256");
	if (sha != NULL && strlen(sha) == TC_SHA256_HEX_LEN) {
		memcpy(bound, sha, TC_SHA256_HEX_LEN + 1);
		if (st->raw != NULL && (strcmp(st->sha, sha) == 0 ||
		    (prev != NULL && strcmp(st->sha, prev) == 0)))
			verdict = TC_PYPTO_STATE_OURS;
	}
	tc_json_free(rec);
	return verdict;
}

char *
tc_pypto_bound_state(const tc_pypto_store *st, char sha[65], size_t *len)
{
	char *path = tc_pypto_binding_path(st), *bytes = NULL;
	tc_json *rec = path != NULL ? read_binding(path) : NULL;
	const tc_json *kept = tc_json_get(rec, "state");
	const char *want = tc_json_get_string(rec, "sha256");
	char hex[TC_SHA256_HEX_LEN + 1];

	sha[0] = '\0';
	if (want != NULL && strlen(want) == TC_SHA256_HEX_LEN)
		memcpy(sha, want, TC_SHA256_HEX_LEN + 1);
	if (sha[0] != '\0' && tc_json_is(kept, TC_JSON_STRING)) {
		/* a state document holds no NUL: the string is all of it */
		*len = strlen(tc_json_string(kept));
		tc_pypto_sha_buf(tc_json_string(kept), *len, hex);
		if (strcmp(hex, sha) == 0)
			bytes = tc_xstrndup(tc_json_string(kept), *len);
	}
	tc_json_free(rec);
	free(path);
	return bytes;
}

int
tc_pypto_store_check_written(const tc_pypto_store *st, tc_error *err)
{
	char bound[65], *where = NULL;
	int v;

	if (!st->exists)
		return 0;
	v = tc_pypto_state_binding(st, bound, &where);
	if (v != TC_PYPTO_STATE_FOREIGN) {
		free(where);
		return 0;
	}
	if (bound[0] == '\0')
		tc_error_set(err, "the binding of %s kept outside the operator "
		    "directory, %s, is unreadable; tunectl will not build on a "
		    "state it cannot vouch for: remove the binding to go on "
		    "unbound", TC_PYPTO_STATE_FILE, where);
	else
		tc_error_set(err, "%s was changed outside tunectl since tunectl "
		    "last wrote it (sha256 now %s; tunectl wrote %s, as bound in "
		    "%s); only the orchestrator writes the state, and tunectl "
		    "will not build on one it did not write: put its state back "
		    "(every state a task was cut from is kept as "
		    "%s/dispatches/state-<sha256>.json), or, if you edited it "
		    "yourself on purpose, adopt it with tunectl pypto state "
		    "--op-dir DIR configure", TC_PYPTO_STATE_FILE, st->sha, bound,
		    where, TC_PYPTO_ORCH_DIR);
	free(where);
	return -1;
}
