/*
 * fuzz_tune_spec.c - libFuzzer target for the workload spec reader and
 * planner (src/tune/): the whole input is a tune.yaml, read by
 * tc_tune_spec_parse, and a spec it accepts is planned and its command
 * templates expanded.
 *
 * Invariants: a refusal has a message that names the file ("fuzz.yaml:"
 * or "fuzz.yaml: "); an accepted spec has a name, a run command with a
 * timeout, a metric unit and one baseline value per option parameter,
 * every one of its templates expands, and its plan (when the option space
 * is small enough to enumerate quickly) is an object whose allowed points
 * are at most its points, or a refusal with a message.
 */
#include "fuzz_common.h"
#include "tunectl/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *
ts_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return name[0] == 'b' ? "16" : NULL;
}

static void
ts_expand(const tc_tune_command *c)
{
	char *s;

	if (c->command == NULL)
		return;
	s = tc_tune_expand(c->command, ts_lookup, NULL);
	FZ_REQUIRE(s != NULL);
	free(s);
}

static void
ts_accepted(const tc_tune_spec *s)
{
	tc_error err = TC_ERROR_INIT;
	double points = 1;
	size_t i;
	tc_json *plan;

	FZ_REQUIRE(s->name != NULL && s->run.command != NULL);
	FZ_REQUIRE(s->run.timeout_s > 0 && s->metric.unit != NULL);
	FZ_REQUIRE(s->nparams == 0 || s->baseline != NULL);
	for (i = 0; i < s->nparams; i++) {
		FZ_REQUIRE(s->baseline[i].value.text != NULL);
		points *= (double)s->params[i].nvalues;
	}
	ts_expand(&s->setup);
	ts_expand(&s->build);
	ts_expand(&s->run);
	ts_expand(&s->check);
	ts_expand(&s->profile);
	if (points > 2000)
		return;
	plan = tc_tune_plan(s, &err);
	if (plan == NULL) {
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	} else {
		const tc_json *o = tc_json_get(plan, "options");
		int64_t all = 0, allowed = 0;
		tc_buf b = TC_BUF_INIT;

		FZ_REQUIRE(tc_json_is(plan, TC_JSON_OBJECT));
		(void)tc_json_int64(tc_json_get(o, "points"), &all);
		(void)tc_json_int64(tc_json_get(o, "points_allowed"), &allowed);
		FZ_REQUIRE(allowed <= all);
		tc_tune_plan_text(plan, &b);
		FZ_REQUIRE(b.len > 0);
		tc_buf_free(&b);
		tc_json_free(plan);
	}
	tc_error_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = NULL;

	if (tc_tune_spec_parse((const char *)data, size, "fuzz.yaml",
	    "/nonexistent", &s, &err) != 0) {
		FZ_REQUIRE(s == NULL);
		FZ_REQUIRE(strncmp(tc_error_msg(&err), "fuzz.yaml:", 10) == 0);
	} else {
		ts_accepted(s);
	}
	tc_tune_spec_free(s);
	tc_error_clear(&err);
	return 0;
}
