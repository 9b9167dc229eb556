/*
 * test_session_fixture.h - documents for the session controller's unit
 * tests: a valid session built from the canonical schedule, a valid phase
 * result for a step, slash-path edits of JSON trees, and temp dirs.
 */
#ifndef TEST_SESSION_FIXTURE_H
#define TEST_SESSION_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/json.h"
#include "tunectl/session.h"
#include "unit_fixture.h"

static inline tc_json *
fx_json(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL) {
		fprintf(stderr, "fixture JSON: %s: %s\n", text, tc_error_msg(&err));
		abort();
	}
	return v;
}

/* A valid session of this mode and entrypoint, every step pending. */
static inline tc_json *
fx_session(const char *mode, const char *entrypoint, const char *root)
{
	tc_json *doc = tc_json_new_object();

	tc_json_object_set_string(doc, "schema_version", TC_SESSION_SCHEMA);
	tc_json_object_set_string(doc, "session_id", "session-20260905-a");
	tc_json_object_set_string(doc, "artifact_root", root);
	tc_json_object_set_string(doc, "optional_mode", mode);
	tc_json_object_set_string(doc, "entrypoint", entrypoint);
	tc_json_object_set_string(doc, "status", "active");
	tc_json_object_set_string(doc, "created_at", "2026-09-05T01:02:03+00:00");
	tc_json_object_set(doc, "steps",
	    tc_schedule_build(mode, entrypoint, false, NULL));
	return doc;
}

/*
 * Edit a tree at a slash path ("steps/0/state"): set the value parsed
 * from json_text, or remove the member (array element) when json_text
 * is NULL.  The
 * empty path replaces the root (returned).
 */
static inline tc_json *
fx_edit(tc_json *root, const char *path, const char *json_text)
{
	char *copy = tc_xstrdup(path), *part, *next, *save = NULL;
	tc_json *node = root;

	if (*path == '\0') {
		tc_json_free(root);
		free(copy);
		return fx_json(json_text);
	}
	part = strtok_r(copy, "/", &save);
	while ((next = strtok_r(NULL, "/", &save)) != NULL) {
		node = node->type == TC_JSON_ARRAY ?
		    node->u.arr.items[atoi(part)] : tc_json_get(node, part);
		part = next;
	}
	if (node->type == TC_JSON_ARRAY) {
		size_t i = (size_t)atoi(part);

		tc_json_free(node->u.arr.items[i]);
		if (json_text != NULL) {
			node->u.arr.items[i] = fx_json(json_text);
		} else {
			memmove(&node->u.arr.items[i], &node->u.arr.items[i + 1],
			    (node->u.arr.len - i - 1) *
			    sizeof(node->u.arr.items[0]));
			node->u.arr.len--;
		}
	} else if (json_text == NULL) {
		tc_json_object_remove(node, part);
	} else {
		tc_json_object_set(node, part, fx_json(json_text));
	}
	free(copy);
	return root;
}

/* Seal step i in the document (no files): the fields
 * docs/spec/controller.md "Session validation" checks. */
static inline void
fx_mark_sealed(tc_json *doc, size_t i, const char *status)
{
	tc_json *step = tc_json_get(doc, "steps")->u.arr.items[i];
	char *rel = tc_xasprintf("phases/%s/phase-result.json",
	    tc_json_get_string(step, "step_id"));

	tc_json_object_set_string(step, "state", "sealed");
	tc_json_object_set_string(step, "result_path", rel);
	tc_json_object_set_string(step, "result_sha256",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	tc_json_object_set_string(step, "outcome_status", status);
	tc_json_object_set_string(step, "sealed_at", "2026-09-05T01:02:04+00:00");
	free(rel);
}

/* A valid handoff for step with this status (the reference tests'
 * phase_result fixture without the Final ledger). */
static inline tc_json *
fx_result(const tc_json *step, const char *status)
{
	tc_json *r = tc_json_new_object();
	tc_json *fps = tc_json_new_object();
	char *summary = tc_xasprintf("%s 阶段已结算。",
	    tc_json_get_string(step, "phase"));

	tc_json_object_set_string(r, "schema_version", TC_RESULT_SCHEMA);
	tc_json_object_set_string(r, "session_id", "session-20260905-a");
	tc_json_object_set(r, "step_id", tc_json_clone(tc_json_get(step, "step_id")));
	tc_json_object_set(r, "phase", tc_json_clone(tc_json_get(step, "phase")));
	tc_json_object_set(r, "agent_id", tc_json_clone(tc_json_get(step, "agent_id")));
	tc_json_object_set_string(r, "status", status);
	tc_json_object_set_string(r, "summary_zh", summary);
	tc_json_object_set_string(fps, "control",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	tc_json_object_set(r, "input_fingerprints", fps);
	tc_json_object_set(r, "consumed_artifacts", tc_json_new_array());
	tc_json_object_set(r, "produced_artifacts", tc_json_new_array());
	tc_json_object_set(r, "decisions", tc_json_new_array());
	tc_json_object_set(r, "blockers", tc_json_new_array());
	tc_json_object_set_string(r, "next_step_guidance_zh",
	    "交由控制 Agent 校验并调度下一阶段。");
	tc_json_object_set(r, "details_zh", tc_json_new_object());
	free(summary);
	return r;
}

/* A fresh temporary directory (unit_fixture.h); remove with fx_rmtree. */
static inline char *
fx_tmpdir(void)
{
	return unit_tmpdir("session");
}

static inline void
fx_rmtree(char *dir)
{
	if (unit_rmtree(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(dir);
}

static inline void
fx_write(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL || fputs(text, fp) < 0 || fclose(fp) != 0)
		abort();
}

#endif
