/*
 * state_evidence.c - the evidence a PyPTO state binds for what it already
 * accepted, checked again before a command builds on it or seals over it
 * (issue 34): every accepted step's receipt (the history binds its path
 * and digest) and the task and result that receipt binds, the Stage 5
 * entry snapshot and the bound stage5-check report, and, once Stage 1 is
 * completed, SPEC.md against artifact_hashes.spec_md.  Each file is
 * hashed once per check (a memo keyed by path); the first one that
 * changed or went away is named, with the rule, and nothing is written.
 */
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_state.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

#define RULE "evidence bound by an accepted PyPTO step is never rewritten; " \
	"tunectl will not build on it or seal over it: put the file back as " \
	"it was bound (or start the pipeline again with tunectl pypto state " \
	"--op-dir DIR init)"

struct bound_check {
	const char *op_dir;
	tc_json *memo;		/* path (relative to the op dir) -> sha256 hex */
};

/* The SHA-256 of <op_dir>/<rel>, a regular file reached without leaving
 * the op dir: "" when it is missing, not a regular file or unreadable. */
static const char *
digest_of(struct bound_check *c, const char *rel)
{
	const tc_json *known = tc_json_get(c->memo, rel);
	char hex[TC_SHA256_HEX_LEN + 1] = "";
	tc_error e = TC_ERROR_INIT;
	char *path;

	if (known != NULL)
		return tc_json_string(known);
	path = tc_path_under_root(c->op_dir, rel, "bound evidence", &e);
	if (path == NULL || !tc_is_regular_file_nofollow(path) ||
	    tc_sha256_file(path, hex, NULL, &e) != 0)
		hex[0] = '\0';
	tc_error_clear(&e);
	free(path);
	tc_json_object_set_string(c->memo, rel, hex);
	return tc_json_string(tc_json_get(c->memo, rel));
}

/* rel (relative to the op dir) must still hash to sha. */
static int
require(struct bound_check *c, const char *rel, const char *sha,
    const char *what, tc_error *err)
{
	const char *now;

	if (rel == NULL || sha == NULL ||
	    !tc_text_is_relative_artifact(rel, strlen(rel))) {
		tc_error_set(err, "the state binds a malformed record of %s: %s",
		    what, RULE);
		return -1;
	}
	now = digest_of(c, rel);
	if (strcmp(now, sha) == 0)
		return 0;
	tc_error_set(err, "bound evidence changed since %s: %s (the state "
	    "binds sha256 %s, the file %s%s); %s", what, rel, sha,
	    now[0] != '\0' ? "has " : "is missing or not a regular file",
	    now, RULE);
	return -1;
}

/* An accepted step: its receipt, and the task and result the receipt
 * binds (paths relative to .orchestrator/). */
static int
check_step(struct bound_check *c, const tc_json *ev, tc_error *err)
{
	const char *rel = tc_json_get_string(ev, "receipt");
	const char *step = tc_json_get_string(ev, "step_id");
	static const char *const files[][2] = {
		{ "task_path", "task_sha256" },
		{ "result_path", "result_sha256" },
	};
	char *what, *path, *inner;
	tc_json *receipt;
	size_t i;
	int rc;

	what = tc_xasprintf("step %s was accepted", step != NULL ? step : "?");
	if ((rc = require(c, rel, tc_json_get_string(ev, "receipt_sha256"),
	    what, err)) != 0) {
		free(what);
		return rc;
	}
	path = tc_path_join(c->op_dir, rel);
	receipt = tc_pj_load_object(path, "dispatch receipt", err);
	free(path);
	for (i = 0; rc == 0 && i < 2; i++) {
		const char *p = tc_json_get_string(receipt, files[i][0]);

		if (receipt == NULL) {
			rc = -1;
			break;
		}
		inner = tc_xasprintf("%s/%s", TC_PYPTO_ORCH_DIR,
		    p != NULL ? p : "");
		rc = require(c, p != NULL ? inner : NULL, tc_json_get_string(
		    receipt, files[i][1]), what, err);
		free(inner);
	}
	tc_json_free(receipt);
	free(what);
	return rc;
}

static int
check_history(struct bound_check *c, const tc_json *orch, tc_error *err)
{
	const tc_json *h = tc_json_get(orch, "history");
	size_t i;

	for (i = 0; tc_json_is(h, TC_JSON_ARRAY) && i < h->u.arr.len; i++) {
		const tc_json *ev = h->u.arr.items[i];
		const char *kind = tc_json_get_string(ev, "event");

		if (kind == NULL || strcmp(kind, "step") != 0 ||
		    tc_json_get(ev, "receipt") == NULL)
			continue;
		if (check_step(c, ev, err) != 0)
			return -1;
	}
	return 0;
}

static int
check_stage5(struct bound_check *c, const tc_json *orch, tc_error *err)
{
	const tc_json *s5 = tc_json_get(orch, "stage5");
	static const char *const recs[][2] = {
		{ "entry", "the Stage 5 entry snapshot was bound" },
		{ "check", "the stage5-check report was bound" },
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		const tc_json *r = tc_json_get(s5, recs[i][0]);

		if (r == NULL || r->type == TC_JSON_NULL)
			continue;
		if (require(c, tc_json_get_string(r, "path"),
		    tc_json_get_string(r, "sha256"), recs[i][1], err) != 0)
			return -1;
	}
	return 0;
}

/* SPEC.md, frozen when Stage 1 completed (the reference's freeze hashes
 * its text, not its bytes: tc_pypto_spec_hash). */
static int
check_spec(struct bound_check *c, const tc_json *state, tc_error *err)
{
	const char *saved = tc_json_get_string(tc_json_get(state,
	    "artifact_hashes"), "spec_md");
	const char *s1 = tc_json_get_string(tc_json_get(state, "stage_status"),
	    "1");
	char hex[65] = "";
	tc_error e = TC_ERROR_INIT;
	char *spec;
	int have;

	if (saved == NULL || s1 == NULL || strcmp(s1, "completed") != 0)
		return 0;
	spec = tc_path_join(c->op_dir, "SPEC.md");
	have = tc_pypto_spec_hash(spec, hex, &e);
	tc_error_clear(&e);
	free(spec);
	if (have == 1 && strcmp(hex, saved) == 0)
		return 0;
	tc_error_set(err, "bound evidence changed since Stage 1 was completed: "
	    "SPEC.md (the state binds sha256 %s as artifact_hashes.spec_md, the "
	    "file %s%s); %s", saved, have == 1 ? "has " :
	    "is missing or unreadable", have == 1 ? hex : "", RULE);
	return -1;
}

int
tc_pypto_store_check_bound(const tc_pypto_store *st, bool with_spec,
    tc_error *err)
{
	struct bound_check c = { st->op_dir, tc_json_new_object() };
	const tc_json *orch = tc_pypto_orch_get(st->state);
	int rc = 0;

	if (st->exists && orch != NULL)
		rc = check_history(&c, orch, err) != 0 ||
		    check_stage5(&c, orch, err) != 0 ? -1 : 0;
	if (rc == 0 && st->exists && with_spec)
		rc = check_spec(&c, st->state, err);
	tc_json_free(c.memo);
	return rc;
}
