/*
 * short_circuit.c - _seal_not_run_steps (docs/spec/controller.md
 * "Short-circuit"): after a gate step fails, every remaining pending step
 * except the Final one is sealed with a controller-generated not_run /
 * not_requested result, so that Final always runs and every skipped phase still
 * leaves a scene.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

static tc_json *
generated_result(const tc_session *s, const tc_json *step,
    const tc_json *reason_zh, const char *session_state)
{
	const char *branch = tc_step_branch(step);
	tc_json *r = tc_json_new_object();
	tc_json *fps = tc_json_new_object();
	tc_json *blockers = tc_json_new_array();
	tc_json *blocker = tc_json_new_object();
	tc_buf summary = TC_BUF_INIT;

	tc_json_object_set_string(r, "schema_version", TC_RESULT_SCHEMA);
	tc_json_object_set(r, "session_id",
	    tc_json_clone(tc_json_get(s->doc, "session_id")));
	tc_json_object_set_string(r, "step_id", tc_step_id(step));
	tc_json_object_set_string(r, "phase", tc_step_phase(step)->name);
	tc_json_object_set_string(r, "agent_id", tc_step_phase(step)->agent_id);
	tc_json_object_set_string(r, "status",
	    branch != NULL && strcmp(branch, "none") == 0 ?
	    "not_requested" : "not_run");
	tc_buf_puts(&summary, "未执行：");
	tc_buf_add(&summary, reason_zh->u.str.ptr, reason_zh->u.str.len);
	tc_json_object_set(r, "summary_zh",
	    tc_json_new_stringn(summary.data, summary.len));
	tc_json_object_set_string(fps, "session_state", session_state);
	tc_json_object_set(r, "input_fingerprints", fps);
	tc_json_object_set(r, "consumed_artifacts", tc_json_new_array());
	tc_json_object_set(r, "produced_artifacts", tc_json_new_array());
	tc_json_object_set(r, "decisions", tc_json_new_array());
	tc_json_object_set(blocker, "reason_zh", tc_json_clone(reason_zh));
	tc_json_array_push(blockers, blocker);
	tc_json_object_set(r, "blockers", blockers);
	tc_json_object_set_string(r, "next_step_guidance_zh",
	    "控制 Agent 已短路至最终 E2E 报告阶段。");
	tc_json_object_set(r, "details_zh", tc_json_new_object());
	tc_json_object_set_string(r, "system_generated_by",
	    TC_SYSTEM_GENERATED_BY);
	tc_buf_free(&summary);
	return r;
}

static bool
is_hex64(const tc_json *v)
{
	size_t i;

	if (!tc_json_is(v, TC_JSON_STRING) || v->u.str.len != 64)
		return false;
	for (i = 0; i < 64; i++) {
		char c = v->u.str.ptr[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

/*
 * An earlier, interrupted short-circuit may have left this step's scene.
 * Its result differs from ours only in input_fingerprints.session_state
 * (a digest over timestamps of the earlier attempt).  When everything
 * else is identical, adopt the file on disk: return it (parsed), with
 * its texts in *text / *report.  NULL: no adoptable scene.
 */
static tc_json *
adoptable_scene(const struct sess_scene *sc, const tc_json *ours,
    const tc_json *step)
{
	struct sess_texts t = { 0 };
	char *bytes;
	size_t len;
	tc_json *disk, *fps, *candidate = NULL;

	if ((bytes = tc_session__scene_read_result(sc, &len)) == NULL)
		return NULL;
	disk = tc_json_parse(bytes, len, NULL);
	free(bytes);
	fps = tc_json_get(disk, "input_fingerprints");
	if (!tc_json_is(fps, TC_JSON_OBJECT) || fps->u.obj.len != 1 ||
	    !is_hex64(tc_json_get(fps, "session_state")))
		goto out;
	candidate = tc_json_clone(ours);
	tc_json_object_set(candidate, "input_fingerprints", tc_json_clone(fps));
	if (tc_session__render_scene(candidate, step, &t, NULL) != 0 ||
	    !tc_session__scene_matches(sc, &t)) {
		tc_json_free(candidate);
		candidate = NULL;
	}
out:
	tc_session__texts_free(&t);
	tc_json_free(disk);
	return candidate;
}

static int
seal_generated(tc_session *s, tc_json *step, const tc_json *reason_zh,
    const char *sealed_over, tc_error *err)
{
	struct sess_scene sc;
	struct sess_texts t = { 0 };
	char state[65], digest[65];
	tc_json *result, *adopted = NULL;
	int rc = -1;

	if (tc_json_digest(s->doc, state, err) != 0)
		return -1;
	result = generated_result(s, step, reason_zh, state);
	tc_session__scene_init(&sc, s, tc_step_id(step));
	if (tc_result_validate(result, step, s, TC_RESULT_ALLOW_SYSTEM,
	    err) != 0)
		goto out;
	if (tc_session__scene_present(&sc)) {
		if ((adopted = adoptable_scene(&sc, result, step)) == NULL) {
			tc_error_set(err, "cannot short-circuit an existing "
			    "phase scene: %s", tc_step_id(step));
			goto out;
		}
		tc_json_free(result);
		result = adopted;
	}
	if (tc_session__render_scene(result, step, &t, err) != 0 ||
	    tc_session__render_manifest(s, step, result, sealed_over, &t, err) != 0 ||
	    tc_json_digest(result, digest, err) != 0)
		goto out;
	if (tc_session__bind_sidecar(s, &sc, &t, false, false, err) != 0 ||
	    tc_session__scene_write(s, &sc, &t, adopted != NULL, err) != 0)
		goto out;
	tc_session__mark_sealed(step, &sc, &t, digest,
	    tc_json_get_string(result, "status"));
	rc = 0;
out:
	tc_session__texts_free(&t);
	tc_json_free(result);
	tc_session__scene_free(&sc);
	return rc;
}

int
tc_session__short_circuit(tc_session *s, const tc_json *reason_zh,
    const char *sealed_over, tc_error *err)
{
	size_t i;

	for (i = 0; i < tc_session_step_count(s); i++) {
		tc_json *step = tc_session_step_at(s, i);

		if (tc_step_is_sealed(step) ||
		    tc_step_phase(step)->id == TC_PHASE_FINAL)
			continue;
		if (seal_generated(s, step, reason_zh, sealed_over, err) != 0)
			return -1;
	}
	return 0;
}
