/*
 * state.c - the pure transition function of the PyPTO-Pro orchestrator
 * state (schema 2.2): clone, normalise, check preconditions, apply.
 *
 * Every precondition and message follows the reference state machine
 * (docs/spec/pypto.md "State actions"), including its JavaScript coercions:
 * stage arguments go through Number(), values are interpolated the way a
 * template string prints them, retry counters use "(Number(x) || 0) + 1".
 * No I/O happens here; the wrapper (state_store.c) reads and writes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypto_internal.h"
#include "tunectl/pypto_state.h"

#define MODULE_COUNT_LIMIT 1000	/* tunectl's bound; see docs/pypto.md */

const char *const tc_pypto_actions[] = {
	"init", "start_stage", "complete_stage", "fail_stage",
	"record_artifact_hash", "rollback_to_stage", "plan_stage4",
	"start_module", "submit_for_verify", "complete_module", "fail_module",
	NULL
};

bool
tc_pypto_action_known(const char *action)
{
	return tc_pypto__strv_has(tc_pypto_actions, action);
}

static bool
is_str(const tc_json *v, const char *s)
{
	return v != NULL && v->type == TC_JSON_STRING &&
	    strlen(s) == v->u.str.len && memcmp(v->u.str.ptr, s,
	    v->u.str.len) == 0;
}

static bool
is_number(const tc_json *v)
{
	return v != NULL && (v->type == TC_JSON_INT ||
	    v->type == TC_JSON_FLOAT);
}

/* JavaScript truthiness of a JSON value (NULL = undefined): Python's for
 * null, booleans and strings; a number is false when 0 or NaN by its
 * value, and a list or object is true even when empty. */
static bool
truthy(const tc_json *v)
{
	double d;

	if (is_number(v)) {
		d = tc_js_number(v);
		return d != 0 && !isnan(d);
	}
	if (tc_json_is(v, TC_JSON_ARRAY) || tc_json_is(v, TC_JSON_OBJECT))
		return true;
	return tc_json_truthy(v);
}

/* prev.current_stage === x */
static bool
strict_eq_number(const tc_json *v, double x)
{
	return is_number(v) && tc_js_number(v) == x;
}

static char *
js_str(const tc_json *v)
{
	tc_buf b = TC_BUF_INIT;

	tc_js_display(&b, v);
	return tc_buf_detach(&b, NULL);
}

static char *
js_num(double x)
{
	tc_buf b = TC_BUF_INIT;

	tc_js_format_number(&b, x);
	return tc_buf_detach(&b, NULL);
}

static bool
key_in_stage_range(const char *key)
{
	double n = tc_js_number_of_string(key);

	return isfinite(n) && n == floor(n) && n >= 1 &&
	    n <= TC_PYPTO_MAX_STAGE;
}

/* One "own enumerable property" of a spread source. */
static void
spread_into(tc_json *merged, const tc_json *carried)
{
	size_t i;
	char key[32];

	if (carried == NULL)
		return;
	switch (carried->type) {
	case TC_JSON_OBJECT:
		for (i = 0; i < carried->u.obj.len; i++) {
			const tc_json_member *m = &carried->u.obj.members[i];

			tc_json_object_setn(merged, m->key, m->key_len,
			    tc_json_clone(m->value));
		}
		break;
	case TC_JSON_ARRAY:
		for (i = 0; i < carried->u.arr.len; i++) {
			snprintf(key, sizeof(key), "%zu", i);
			tc_json_object_set(merged, key,
			    tc_json_clone(carried->u.arr.items[i]));
		}
		break;
	case TC_JSON_STRING: {
		const char *p = carried->u.str.ptr;
		const char *e = p + carried->u.str.len;
		size_t idx = 0;

		while (p < e) {
			uint32_t cp;
			const char *q = p + tc_utf8_decode(p, (size_t)(e - p),
			    &cp, TC_UTF8_WTF8);

			snprintf(key, sizeof(key), "%zu", idx++);
			tc_json_object_set(merged, key,
			    tc_json_new_stringn(p, (size_t)(q - p)));
			p = q;
		}
		break;
	}
	default:
		break;
	}
}

/* { ...defaults, ...(carried ?? {}) } minus keys outside 1..5. */
static tc_json *
normalize_map(const tc_json *carried, bool status)
{
	tc_json *merged = tc_json_new_object();
	char key[16];
	int i;

	for (i = 1; i <= TC_PYPTO_MAX_STAGE; i++) {
		snprintf(key, sizeof(key), "%d", i);
		tc_json_object_set(merged, key, status ?
		    tc_json_new_string("pending") : tc_json_new_int(0));
	}
	spread_into(merged, carried);
	for (i = (int)merged->u.obj.len - 1; i >= 0; i--) {
		tc_json_member *m = &merged->u.obj.members[i];

		if (strlen(m->key) != m->key_len ||
		    !key_in_stage_range(m->key)) {
			char *k = tc_xstrndup(m->key, m->key_len);

			tc_json_object_remove(merged, k);
			free(k);
		}
	}
	return merged;
}

/* Object.values of the spread of the stage_status found in the file. */
static bool
carried_has_in_progress(const tc_json *carried)
{
	tc_json *tmp = tc_json_new_object();
	bool found = false;
	size_t i;

	spread_into(tmp, carried);
	for (i = 0; i < tmp->u.obj.len; i++)
		if (is_str(tmp->u.obj.members[i].value, "in_progress"))
			found = true;
	tc_json_free(tmp);
	return found;
}

static int
ensure_stage(double n, int *out, tc_error *err)
{
	if (!isfinite(n) || n < 1 || n > TC_PYPTO_MAX_STAGE) {
		char *s = js_num(n);

		tc_error_set(err, "invalid stage: %s (must be 1..%d)", s,
		    TC_PYPTO_MAX_STAGE);
		free(s);
		return -1;
	}
	*out = (int)floor(n);
	return 0;
}

static double
arg_number(const char *text)
{
	return text == NULL ? NAN : tc_js_number_of_string(text);
}

/* (Number(x) || 0) + 1 */
static tc_json *
increment(const tc_json *old)
{
	double d = tc_js_number(old);

	if (isnan(d) || d == 0)
		d = 0;
	return tc_js_number_json(d + 1);
}

static void
module_suffix(tc_buf *out, double n)
{
	int i;

	for (i = 1; i <= n; i++)
		tc_buf_printf(out, "%d", i);
}

/* ---- actions --------------------------------------------------------------- */

struct ctx {
	const tc_json *prev;
	tc_json *next;
	tc_json *status;	/* next.stage_status (normalised) */
	tc_json *retry;		/* next.stage_retry_count */
	const tc_pypto_input *in;
	tc_error *err;
	const tc_json *carried;	/* prev.stage_status as it was */
	const char *now;
};

static int
act_init(struct ctx *c)
{
	const tc_json *carried = c->carried;
	int stage;
	double n = c->in->stage != NULL ? arg_number(c->in->stage) : 1;

	if (ensure_stage(n, &stage, c->err) != 0)
		return -1;
	if (stage != 1) {
		tc_error_set(c->err, "init action must target stage 1, got "
		    "stage %d", stage);
		return -1;
	}
	if (carried_has_in_progress(carried)) {
		tc_error_set(c->err, "cannot init: a stage is already "
		    "in_progress");
		return -1;
	}
	tc_json_object_set_int(c->next, "current_stage", stage);
	tc_json_object_set_string(c->status, "1", "in_progress");
	tc_json_object_set_string(c->next, "schema_version",
	    TC_PYPTO_SCHEMA_VERSION);
	tc_json_object_remove(c->next, "rollback_history");
	tc_json_object_remove(c->next, "artifact_hashes");
	tc_json_object_remove(c->next, "stage4_path");
	tc_json_object_remove(c->next, "stage4_modules");
	return 0;
}

static int
act_start_stage(struct ctx *c)
{
	int stage;
	char key[16];
	size_t i;
	const tc_json *prevst;

	if (ensure_stage(arg_number(c->in->stage), &stage, c->err) != 0)
		return -1;
	snprintf(key, sizeof(key), "%d", stage);
	for (i = 0; i < c->status->u.obj.len; i++) {
		const tc_json_member *m = &c->status->u.obj.members[i];

		if (is_str(m->value, "in_progress") && strcmp(m->key, key) != 0) {
			tc_error_set(c->err, "cannot start stage %d: another "
			    "stage is already in_progress", stage);
			return -1;
		}
	}
	if (is_str(tc_json_get(c->status, key), "completed")) {
		tc_error_set(c->err, "cannot start stage %d: already completed",
		    stage);
		return -1;
	}
	if (stage > 1) {
		char pkey[16];

		snprintf(pkey, sizeof(pkey), "%d", stage - 1);
		prevst = tc_json_get(c->status, pkey);
		if (!is_str(prevst, "completed")) {
			char *s = prevst == NULL || prevst->type ==
			    TC_JSON_NULL ? tc_xstrdup("unknown") : js_str(prevst);

			tc_error_set(c->err, "cannot start stage %d: previous "
			    "stage %d is \"%s\", not \"completed\"", stage,
			    stage - 1, s);
			free(s);
			return -1;
		}
	}
	tc_json_object_set_int(c->next, "current_stage", stage);
	tc_json_object_set_string(c->status, key, "in_progress");
	return 0;
}

/* Object.keys(x ?? {}).length for module_status-like values. */
static size_t
js_key_count(const tc_json *v)
{
	if (v == NULL)
		return 0;
	if (v->type == TC_JSON_OBJECT)
		return v->u.obj.len;
	if (v->type == TC_JSON_ARRAY)
		return v->u.arr.len;
	if (v->type == TC_JSON_STRING)
		return v->u.str.len;
	return 0;
}

static const tc_json *
js_index(const tc_json *v, const char *key)
{
	if (v == NULL)
		return NULL;
	if (v->type == TC_JSON_OBJECT)
		return tc_json_get(v, key);
	if (v->type == TC_JSON_ARRAY) {
		char *end;
		unsigned long i = strtoul(key, &end, 10);

		if (*end == '\0' && i < v->u.arr.len)
			return v->u.arr.items[i];
	}
	return NULL;
}

static int
check_l1_modules(struct ctx *c)
{
	const tc_json *phases = tc_json_get(c->next, "stage4_modules");
	double count = NAN;
	int i;

	if (truthy(phases))
		count = tc_js_number(tc_json_get(phases, "module_count"));
	if (!truthy(phases) || !(count >= 1) ||
	    js_key_count(tc_json_get(phases, "module_status")) == 0) {
		tc_error_set(c->err, "cannot complete Stage 4 on the L1 path: "
		    "stage4_modules is absent or empty, so no module was ever "
		    "verified. Call plan_stage4 with module_count >= 1 first.");
		return -1;
	}
	for (i = 1; i <= count; i++) {
		char key[24];
		const tc_json *ps;

		snprintf(key, sizeof(key), "%d", i);
		ps = js_index(tc_json_get(phases, "module_status"), key);
		if (!is_str(ps, "verified")) {
			char *s = js_str(ps);

			tc_error_set(c->err, "cannot complete_stage(4): module "
			    "%d status is \"%s\", not \"verified\"", i, s);
			free(s);
			return -1;
		}
		if (i >= MODULE_COUNT_LIMIT)
			break;
	}
	return 0;
}

static int
act_complete_stage(struct ctx *c)
{
	int stage;
	char key[16], nkey[16];
	const tc_json *cur = tc_json_get(c->prev, "current_stage");

	if (ensure_stage(arg_number(c->in->stage), &stage, c->err) != 0)
		return -1;
	if (!strict_eq_number(cur, stage)) {
		char *s = js_str(cur);

		tc_error_set(c->err, "cannot complete stage %d: current_stage "
		    "is %s", stage, s);
		free(s);
		return -1;
	}
	snprintf(key, sizeof(key), "%d", stage);
	if (!is_str(tc_json_get(c->status, key), "in_progress")) {
		char *s = js_str(tc_json_get(c->status, key));

		tc_error_set(c->err, "cannot complete stage %d: status is "
		    "\"%s\", not \"in_progress\"", stage, s);
		free(s);
		return -1;
	}
	if (stage == 4 && is_str(tc_json_get(c->next, "stage4_path"), "L1") &&
	    check_l1_modules(c) != 0)
		return -1;
	tc_json_object_set_string(c->status, key, "completed");
	snprintf(nkey, sizeof(nkey), "%d", stage + 1);
	if (tc_json_get(c->status, nkey) != NULL) {
		tc_json_object_set_int(c->next, "current_stage", stage + 1);
		tc_json_object_set_string(c->status, nkey, "in_progress");
	}
	return 0;
}

static int
act_fail_stage(struct ctx *c)
{
	int stage;
	char key[16];
	const tc_json *cur = tc_json_get(c->prev, "current_stage");

	if (ensure_stage(arg_number(c->in->stage), &stage, c->err) != 0)
		return -1;
	snprintf(key, sizeof(key), "%d", stage);
	if (!strict_eq_number(cur, stage)) {
		char *s = js_str(cur);

		tc_error_set(c->err, "cannot fail_stage %d: current_stage is %s",
		    stage, s);
		free(s);
		return -1;
	}
	if (!is_str(tc_json_get(c->status, key), "in_progress")) {
		char *s = js_str(tc_json_get(c->status, key));

		tc_error_set(c->err, "cannot fail_stage %d: status is \"%s\", "
		    "not \"in_progress\"", stage, s);
		free(s);
		return -1;
	}
	tc_json_object_set(c->retry, key, increment(tc_json_get(c->retry, key)));
	tc_json_object_set_string(c->status, key, "failed");
	return 0;
}

static int
act_record_hash(struct ctx *c)
{
	tc_json *hashes;

	if (c->in->name == NULL || c->in->name[0] == '\0') {
		tc_error_set(c->err, "record_artifact_hash requires name");
		return -1;
	}
	if (c->in->hash == NULL || c->in->hash[0] == '\0') {
		tc_error_set(c->err, "record_artifact_hash requires hash");
		return -1;
	}
	hashes = tc_json_get(c->next, "artifact_hashes");
	if (!truthy(hashes)) {
		hashes = tc_json_new_object();
		tc_json_object_set(c->next, "artifact_hashes", hashes);
	} else if (hashes->type != TC_JSON_OBJECT) {
		tc_error_set(c->err, "invalid orchestrator state file content: "
		    "artifact_hashes must be an object");
		return -1;
	}
	tc_json_object_set_string(hashes, c->in->name, c->in->hash);
	return 0;
}

static int
act_rollback(struct ctx *c)
{
	const char *now = c->now;
	static const struct { const char *name; int stage; } owners[] = {
		{ "spec_md", 1 }, { "golden_py", 2 }, { "design_md", 3 }
	};
	const tc_json *cur = tc_json_get(c->prev, "current_stage");
	tc_json *hashes, *history, *entry;
	int target;
	size_t i;
	char key[16];
	const char *reason = c->in->reason != NULL ? c->in->reason : "";

	if (ensure_stage(arg_number(c->in->target_stage), &target, c->err) != 0)
		return -1;
	/* target >= prev.current_stage, with JavaScript's coercion (a
	 * missing current_stage compares as NaN: never >=). */
	if (target >= tc_js_number(cur)) {
		char *s = js_str(cur);

		tc_error_set(c->err, "rollback target stage %d must be strictly "
		    "less than current_stage %s", target, s);
		free(s);
		return -1;
	}
	if (tc_js_is_blank(reason)) {
		tc_error_set(c->err, "rollback_to_stage requires a non-empty "
		    "reason");
		return -1;
	}
	history = tc_json_get(c->next, "rollback_history");
	if (truthy(history) && history->type != TC_JSON_ARRAY) {
		tc_error_set(c->err, "invalid orchestrator state file content: "
		    "rollback_history must be an array");
		return -1;
	}
	hashes = tc_json_get(c->next, "artifact_hashes");
	if (truthy(hashes) && hashes->type != TC_JSON_OBJECT &&
	    hashes->type != TC_JSON_ARRAY) {
		tc_error_set(c->err, "invalid orchestrator state file content: "
		    "artifact_hashes must be an object");
		return -1;
	}
	for (i = 0; i < c->status->u.obj.len; i++) {
		tc_json_member *m = &c->status->u.obj.members[i];

		if (tc_js_number_of_string(m->key) > target) {
			tc_json_free(m->value);
			m->value = tc_json_new_string("pending");
		}
	}
	snprintf(key, sizeof(key), "%d", target);
	tc_json_object_set(c->retry, key, increment(tc_json_get(c->retry, key)));
	tc_json_object_set_string(c->status, key, "in_progress");
	tc_json_object_set_int(c->next, "current_stage", target);
	if (truthy(hashes) && hashes->type == TC_JSON_OBJECT)
		for (i = 0; i < sizeof(owners) / sizeof(owners[0]); i++)
			if (owners[i].stage > target)
				tc_json_object_remove(hashes, owners[i].name);
	if (target < 4) {
		tc_json_object_remove(c->next, "stage4_path");
		tc_json_object_remove(c->next, "stage4_modules");
	}
	if (!truthy(history)) {
		history = tc_json_new_array();
		tc_json_object_set(c->next, "rollback_history", history);
	}
	entry = tc_json_new_object();
	if (cur != NULL)
		tc_json_object_set(entry, "from_stage", tc_json_clone(cur));
	tc_json_object_set_int(entry, "to_stage", target);
	tc_json_object_set_string(entry, "reason", reason);
	if (c->in->failure_category != NULL)
		tc_json_object_set_string(entry, "failure_category",
		    c->in->failure_category);
	tc_json_object_set_string(entry, "timestamp", now);
	tc_json_array_push(history, entry);
	return 0;
}

static int
act_plan_stage4(struct ctx *c)
{
	const tc_json *cur = tc_json_get(c->prev, "current_stage");
	double count = c->in->module_count != NULL ?
	    tc_js_number_of_string(c->in->module_count) : 0;
	bool fusion = c->in->is_fusion == 1;
	tc_json *mods, *status, *retry;
	int i;

	if (!strict_eq_number(cur, 4)) {
		char *s = js_str(cur);

		tc_error_set(c->err, "plan_stage4 requires current_stage==4, "
		    "got %s", s);
		free(s);
		return -1;
	}
	tc_json_object_set_string(c->next, "stage4_path", fusion ? "L1" : "L0");
	if (fusion && !(count >= 1)) {
		char *s = js_num(count);

		tc_error_set(c->err, "plan_stage4 with is_fusion=true requires "
		    "module_count >= 1, got %s", s);
		free(s);
		return -1;
	}
	if (!fusion) {
		tc_json_object_remove(c->next, "stage4_modules");
		return 0;
	}
	if (count > MODULE_COUNT_LIMIT) {
		tc_error_set(c->err, "plan_stage4 module_count must be at most "
		    "%d", MODULE_COUNT_LIMIT);
		return -1;
	}
	mods = tc_json_new_object();
	status = tc_json_new_object();
	retry = tc_json_new_object();
	for (i = 1; i <= count; i++) {
		char key[24];

		snprintf(key, sizeof(key), "%d", i);
		tc_json_object_set_string(status, key, "pending");
		tc_json_object_set_int(retry, key, 0);
	}
	tc_json_object_set(mods, "module_count", tc_js_number_json(count));
	tc_json_object_set_int(mods, "max_cycles_per_module",
	    TC_PYPTO_MAX_CYCLES);
	tc_json_object_set(mods, "module_status", status);
	tc_json_object_set(mods, "module_retry_count", retry);
	tc_json_object_set(mods, "modules_verified", tc_json_new_array());
	tc_json_object_set(c->next, "stage4_modules", mods);
	return 0;
}

/* What a module action works on: the module key (--module, "" when none),
 * stage4_modules, and its module_status and module_retry_count maps. */
struct module {
	const char *k;
	tc_json *mods, *status, *retry;
};

/* ensureStage4Modules(); also insists on the map shapes the module
 * actions write into (the reference would throw a TypeError).  Fills m;
 * 0, or -1 and c->err. */
static int
ensure_modules(struct ctx *c, struct module *m)
{
	const tc_json *path = tc_json_get(c->next, "stage4_path");
	tc_json *mods = tc_json_get(c->next, "stage4_modules");

	if (!is_str(path, "L1")) {
		char *s = path == NULL || path->type == TC_JSON_NULL ?
		    tc_xstrdup("unset") : js_str(path);

		tc_error_set(c->err, "Module action requires stage4_path==\"L1\", "
		    "but stage4_path is \"%s\"", s);
		free(s);
		return -1;
	}
	if (!truthy(mods) || mods->type != TC_JSON_OBJECT) {
		tc_error_set(c->err, "Module action requires stage4_modules to be "
		    "initialized (call plan_stage4 first)");
		return -1;
	}
	m->k = c->in->module != NULL ? c->in->module : "";
	m->mods = mods;
	m->status = tc_json_get(mods, "module_status");
	m->retry = tc_json_get(mods, "module_retry_count");
	if (!tc_json_is(m->status, TC_JSON_OBJECT) ||
	    !tc_json_is(m->retry, TC_JSON_OBJECT)) {
		tc_error_set(c->err, "invalid orchestrator state file content: "
		    "stage4_modules.module_status and module_retry_count must "
		    "be objects");
		return -1;
	}
	return 0;
}

/* The status of module m->k is one of want (NULL-terminated); else the
 * refusal "<action>(<k>): status is "<status>", must be <must>". */
static int
module_in_state(struct ctx *c, const struct module *m, const char *action,
    const char *const *want, const char *must)
{
	const tc_json *cur = tc_json_get(m->status, m->k);
	char *s;
	size_t i;

	for (i = 0; want[i] != NULL; i++)
		if (is_str(cur, want[i]))
			return 0;
	s = js_str(cur);
	tc_error_set(c->err, "%s(%s): status is \"%s\", must be %s", action,
	    m->k, s, must);
	free(s);
	return -1;
}

/* tunectl's bound on the module number an action names. */
static int
module_number_allowed(struct ctx *c, const char *action, double n)
{
	if (n > MODULE_COUNT_LIMIT) {
		tc_error_set(c->err, "%s: module number must be at most %d",
		    action, MODULE_COUNT_LIMIT);
		return -1;
	}
	return 0;
}

static int
act_start_module(struct ctx *c)
{
	static const char *const startable[] = { "pending", "blocked", NULL };
	struct module m;
	double n;
	tc_buf suffix = TC_BUF_INIT;

	if (ensure_modules(c, &m) != 0)
		return -1;
	n = tc_js_number_of_string(m.k);
	if (!isfinite(n) || n < 1 ||
	    n > tc_js_number(tc_json_get(m.mods, "module_count"))) {
		char *s = js_str(tc_json_get(m.mods, "module_count"));

		tc_error_set(c->err, "start_module: invalid module \"%s\" (must "
		    "be 1..%s)", m.k, s);
		free(s);
		return -1;
	}
	if (module_in_state(c, &m, "start_module", startable,
	    "\"pending\" or \"blocked\"") != 0 ||
	    module_number_allowed(c, "start_module", n) != 0)
		return -1;
	tc_json_object_set_string(m.status, m.k, "in_progress");
	module_suffix(&suffix, n);
	tc_json_object_set_string(m.mods, "active_module", tc_buf_cstr(&suffix));
	tc_buf_free(&suffix);
	return 0;
}

static int
act_submit(struct ctx *c)
{
	static const char *const working[] = { "in_progress", "in_debug", NULL };
	struct module m;

	if (ensure_modules(c, &m) != 0 ||
	    module_in_state(c, &m, "submit_for_verify", working,
	    "\"in_progress\" or \"in_debug\"") != 0)
		return -1;
	tc_json_object_set_string(m.status, m.k, "awaiting_verify");
	return 0;
}

static int
act_complete_module(struct ctx *c)
{
	static const char *const active[] = { "in_progress", "in_debug",
	    "awaiting_verify", NULL };
	struct module m;
	tc_json *verified;
	double n;
	tc_buf suffix = TC_BUF_INIT;

	if (ensure_modules(c, &m) != 0 ||
	    module_in_state(c, &m, "complete_module", active,
	    "an active state") != 0)
		return -1;
	verified = tc_json_get(m.mods, "modules_verified");
	if (!tc_json_is(verified, TC_JSON_ARRAY)) {
		tc_error_set(c->err, "invalid orchestrator state file content: "
		    "stage4_modules.modules_verified must be an array");
		return -1;
	}
	n = tc_js_number_of_string(m.k);
	if (module_number_allowed(c, "complete_module", n) != 0)
		return -1;
	tc_json_object_set_string(m.status, m.k, "verified");
	module_suffix(&suffix, n);
	if (!tc_pj_array_has_string(verified, tc_buf_cstr(&suffix)))
		tc_json_array_push(verified,
		    tc_json_new_string(tc_buf_cstr(&suffix)));
	tc_buf_free(&suffix);
	tc_json_object_remove(m.mods, "active_module");
	return 0;
}

static int
act_fail_module(struct ctx *c)
{
	struct module m;

	if (ensure_modules(c, &m) != 0)
		return -1;
	if (is_str(tc_json_get(m.status, m.k), "verified")) {
		tc_error_set(c->err, "fail_module(%s): module is already "
		    "\"verified\", cannot fail", m.k);
		return -1;
	}
	tc_json_object_set(m.retry, m.k, increment(tc_json_get(m.retry, m.k)));
	if (tc_js_number(tc_json_get(m.retry, m.k)) >=
	    tc_js_number(tc_json_get(m.mods, "max_cycles_per_module")))
		tc_json_object_set_string(m.status, m.k, "blocked");
	else
		tc_json_object_set_string(m.status, m.k, "in_debug");
	return 0;
}

tc_json *
tc_pypto_state_initial(const char *operator_name, const char *now)
{
	tc_json *s = tc_json_new_object();
	char stamp[32];

	if (now == NULL) {
		tc_js_iso_now(stamp);
		now = stamp;
	}
	tc_json_object_set_string(s, "operator_name", operator_name);
	tc_json_object_set_string(s, "schema_version", TC_PYPTO_SCHEMA_VERSION);
	tc_json_object_set_int(s, "max_stage", TC_PYPTO_MAX_STAGE);
	tc_json_object_set_int(s, "current_stage", 1);
	tc_json_object_set(s, "stage_status", normalize_map(NULL, true));
	tc_json_object_set(s, "stage_retry_count", normalize_map(NULL, false));
	tc_json_object_set(s, "artifact_hashes", tc_json_new_object());
	tc_json_object_set(s, "rollback_history", tc_json_new_array());
	tc_json_object_set_string(s, "last_updated", now);
	return s;
}

/* The actions, in the order of tc_pypto_actions. */
static const struct {
	const char *name;
	int (*run)(struct ctx *);
} actions[] = {
	{ "init", act_init },
	{ "start_stage", act_start_stage },
	{ "complete_stage", act_complete_stage },
	{ "fail_stage", act_fail_stage },
	{ "record_artifact_hash", act_record_hash },
	{ "rollback_to_stage", act_rollback },
	{ "plan_stage4", act_plan_stage4 },
	{ "start_module", act_start_module },
	{ "submit_for_verify", act_submit },
	{ "complete_module", act_complete_module },
	{ "fail_module", act_fail_module },
};

tc_json *
tc_pypto_state_apply(const tc_json *prev, const tc_pypto_input *in,
    const char *now, tc_error *err)
{
	struct ctx c;
	tc_json *carried;
	const tc_json *max;
	char stamp[32];
	const char *action = in->action != NULL ? in->action : "unknown";
	size_t i;
	int rc;

	if (!tc_json_is(prev, TC_JSON_OBJECT)) {
		tc_error_set(err, "invalid orchestrator state file content");
		return NULL;
	}
	if (now == NULL) {
		tc_js_iso_now(stamp);
		now = stamp;
	}
	c.prev = prev;
	c.in = in;
	c.err = err;
	c.next = tc_json_clone(prev);
	max = tc_json_get(c.next, "max_stage");
	if (!strict_eq_number(max, TC_PYPTO_MAX_STAGE)) {
		char *s = js_str(max);

		tc_error_set(err, "invalid workflow state: max_stage must be %d, "
		    "got %s", TC_PYPTO_MAX_STAGE, s);
		free(s);
		tc_json_free(c.next);
		return NULL;
	}
	carried = tc_json_object_take(c.next, "stage_status");
	c.carried = carried;
	c.now = now;
	c.status = normalize_map(carried, true);
	tc_json_object_set(c.next, "stage_status", c.status);
	{
		tc_json *r = tc_json_object_take(c.next, "stage_retry_count");

		c.retry = normalize_map(r, false);
		tc_json_free(r);
		tc_json_object_set(c.next, "stage_retry_count", c.retry);
	}

	for (i = 0; i < sizeof actions / sizeof actions[0]; i++)
		if (strcmp(action, actions[i].name) == 0)
			break;
	if (i < sizeof actions / sizeof actions[0]) {
		rc = actions[i].run(&c);
	} else {
		tc_error_set(err, "unsupported action: %s", action);
		rc = -1;
	}
	tc_json_free(carried);
	if (rc != 0) {
		tc_json_free(c.next);
		return NULL;
	}
	tc_json_object_set_string(c.next, "last_updated", now);
	return c.next;
}

bool
tc_pypto_stage5_entered(const tc_json *state)
{
	const tc_json *st = tc_json_get(tc_json_get(state, "stage_status"),
	    "5");

	return strict_eq_number(tc_json_get(state, "current_stage"), 5) ||
	    is_str(st, "in_progress") || is_str(st, "completed") ||
	    is_str(st, "failed");
}
