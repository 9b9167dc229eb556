/*
 * orch.c - the orchestrator's own record inside .orchestrator_state.json
 * ("orchestration": options, the next sub-step, a halt, excluded devices,
 * the history, the Stage 5 entry), the role table, and SPEC.md's machine
 * contract as the orchestrator reads it (the P0 cases, the user target).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "orch_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_check.h"

struct role {
	const char *name;
	const char *agent;
	const char *skill;
};

/* docs/spec/pypto.md "Actors and skills": the executor of each stage and the
 * skill it loads; the verifier is an agent definition of its own. */
static const struct role roles[] = {
	{ "planner", "pypto-pro-op-planner", "pypto-pro-op-plan" },
	{ "mathematician", "pypto-pro-op-mathematician",
	  "pypto-pro-golden-generate" },
	{ "architect", "pypto-pro-op-architect", "pypto-pro-op-design" },
	{ "coder", "pypto-pro-op-coder", "pypto-pro-op-develop" },
	{ "optimizer", "pypto-pro-op-optimizer", "pypto-pro-op-perf-tune" },
	{ "verifier", "pypto-pro-op-verifier", "pypto-pro-op-verifier" },
	{ NULL, NULL, NULL }
};

static const struct role *
find_role(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && roles[i].name != NULL; i++)
		if (strcmp(roles[i].name, name) == 0)
			return &roles[i];
	return NULL;
}

bool
tc_pypto_role_known(const char *role)
{
	return find_role(role) != NULL;
}

const char *
tc_pypto_role_agent(const char *role)
{
	const struct role *r = find_role(role);

	return r != NULL ? r->agent : NULL;
}

const char *
tc_pypto_role_skill(const char *role)
{
	const struct role *r = find_role(role);

	return r != NULL ? r->skill : NULL;
}

void
tc_pypto_orch_now(char out[32])
{
	tc_js_iso_now(out);
}

tc_json *
tc_pypto_orch(tc_json *state)
{
	tc_json *o = tc_json_get(state, "orchestration");

	if (!tc_json_is(o, TC_JSON_OBJECT)) {
		o = tc_json_new_object();
		tc_json_object_set_int(o, "schema_version", 1);
		tc_json_object_set_int(o, "sequence", 0);
		tc_json_object_set(o, "history", tc_json_new_array());
		tc_json_object_set(state, "orchestration", o);
	}
	return o;
}

const tc_json *
tc_pypto_orch_get(const tc_json *state)
{
	const tc_json *o = tc_json_get(state, "orchestration");

	return tc_json_is(o, TC_JSON_OBJECT) ? o : NULL;
}

char *
tc_pypto_orch_dir(const char *op_dir)
{
	return tc_path_join(op_dir, TC_PYPTO_ORCH_DIR);
}

void
tc_pypto_orch_event(tc_json *state, const char *event, tc_json *fields)
{
	tc_json *o = tc_pypto_orch(state);
	tc_json *h = tc_json_get(o, "history");
	tc_json *e = fields != NULL ? fields : tc_json_new_object();
	int64_t seq = 0;
	char now[32];

	if (!tc_json_is(h, TC_JSON_ARRAY)) {
		h = tc_json_new_array();
		tc_json_object_set(o, "history", h);
	}
	(void)tc_json_int64(tc_json_get(o, "sequence"), &seq);
	tc_pypto_orch_now(now);
	tc_json_object_set_string(e, "event", event);
	tc_json_object_set_string(e, "at", now);
	tc_json_object_set_int(e, "sequence", seq);
	tc_json_array_push(h, e);
}

static bool
device_excluded(const tc_json *excluded, int64_t d)
{
	size_t i;

	for (i = 0; tc_json_is(excluded, TC_JSON_ARRAY) &&
	    i < excluded->u.arr.len; i++) {
		int64_t x;

		if (tc_json_int64(tc_json_get(excluded->u.arr.items[i],
		    "device_id"), &x) && x == d)
			return true;
	}
	return false;
}

long
tc_pypto_orch_device(const tc_json *state)
{
	const tc_json *o = tc_pypto_orch_get(state);
	const tc_json *pool = tc_json_get(tc_json_get(o, "options"), "devices");
	const tc_json *excluded = tc_json_get(o, "excluded_devices");
	size_t i;

	if (!tc_json_is(pool, TC_JSON_ARRAY) || pool->u.arr.len == 0)
		return device_excluded(excluded, 0) ? -1 : 0;
	for (i = 0; i < pool->u.arr.len; i++) {
		int64_t d;

		if (tc_json_int64(pool->u.arr.items[i], &d) && d >= 0 &&
		    !device_excluded(excluded, d))
			return (long)d;
	}
	return -1;
}

/* ---- SPEC.md ----------------------------------------------------------------- */

tc_json *
tc_pypto_spec_contract(const char *op_dir, tc_error *err)
{
	char *path = tc_path_join(op_dir, "SPEC.md");
	char *text = tc_read_file(path, 0, NULL, err);
	tc_json *v = NULL;

	if (text != NULL)
		v = tc_pypto_fenced_json(text, "json machine-contract", err);
	if (v == NULL)
		tc_error_prefix(err, "SPEC.md: ");
	free(text);
	free(path);
	return v;
}

tc_json *
tc_pypto_spec_p0_names(const tc_json *contract)
{
	const tc_json *p0 = tc_json_get(contract, "p0_cases");
	tc_json *names = tc_json_new_array();
	size_t i;

	for (i = 0; tc_json_is(p0, TC_JSON_ARRAY) && i < p0->u.arr.len; i++) {
		const char *n = tc_json_get_string(p0->u.arr.items[i], "name");

		if (n != NULL && *n != '\0' && !tc_pj_array_has_string(names, n))
			tc_json_array_push(names, tc_json_new_string(n));
	}
	return names;
}
