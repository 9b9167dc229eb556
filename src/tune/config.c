/*
 * config.c - one configuration of a workload spec made ready to run: the
 * generic phase workers (share/workers) name a configuration as a small
 * JSON object {"variant": NAME, "params": {NAME: VALUE, ...}}; this file
 * checks it against the spec (a listed variant, listed values, the
 * constraints), builds it through the build cache (build.c) and expands
 * its run, check and profile commands.  The workers never parse a
 * template or hash a build input themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tune_internal.h"

/* The listed value of parameter p that v names (a number by its value, a
 * string by its text); NULL when none does. */
static const tc_tune_value *
listed_value(const tc_tune_param *p, const tc_json *v)
{
	double num;
	size_t i;

	for (i = 0; i < p->nvalues; i++) {
		const tc_tune_value *c = &p->values[i];

		if (tc_json_is(v, TC_JSON_STRING) &&
		    strcmp(tc_json_string(v), c->text) == 0)
			return c;
		if (c->is_num && tc_json_number(v, &num) && num == c->num)
			return c;
	}
	return NULL;
}

static const tc_tune_variant *
find_variant(const tc_tune_spec *s, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < s->nvariants; i++)
		if (strcmp(s->variants[i].name, name) == 0)
			return &s->variants[i];
	return NULL;
}

/* Read conf into c (vals: one per spec parameter, the baseline's where
 * conf names none).  -1 with err naming what the spec does not list. */
static int
read_config(const tc_tune_spec *s, const tc_json *conf, tc_tune_config *c,
    tc_tune_value *vals, tc_error *err)
{
	const tc_json *params = tc_json_get(conf, "params");
	const char *vname = tc_json_get_string(conf, "variant");
	size_t i;

	if (!tc_json_is(conf, TC_JSON_OBJECT) || (params != NULL &&
	    !tc_json_is(params, TC_JSON_OBJECT))) {
		tc_error_set(err, "a configuration is an object {\"variant\": "
		    "NAME, \"params\": {NAME: VALUE}}");
		return -1;
	}
	c->variant = find_variant(s, vname != NULL ? vname :
	    s->baseline_variant);
	if (s->nvariants > 0 && c->variant == NULL) {
		tc_error_set(err, "%s: no variant named '%s'", s->path,
		    vname != NULL ? vname : "(none)");
		return -1;
	}
	for (i = 0; params != NULL && i < params->u.obj.len; i++) {
		const char *key = params->u.obj.members[i].key;
		size_t j;

		for (j = 0; j < s->nparams; j++)
			if (strcmp(s->params[j].name, key) == 0)
				break;
		if (j == s->nparams) {
			tc_error_set(err, "%s: no option parameter named '%s'",
			    s->path, key);
			return -1;
		}
	}
	for (i = 0; i < s->nparams; i++) {
		const tc_json *v = tc_json_get(params, s->params[i].name);
		const tc_tune_value *lv = v != NULL ?
		    listed_value(&s->params[i], v) : &s->baseline[i].value;

		if (lv == NULL) {
			tc_buf b = TC_BUF_INIT;

			tc_json_repr(&b, v);
			tc_error_set(err, "%s:%u: %s does not list the value %s",
			    s->path, s->params[i].line, s->params[i].name,
			    tc_buf_cstr(&b));
			tc_buf_free(&b);
			return -1;
		}
		vals[i] = *lv;
	}
	c->vals = vals;
	return 0;
}

/* The constraint c breaks (its text), or NULL when it satisfies all. */
static int
broken_constraint(const tc_tune_spec *s, const tc_tune_config *c,
    const char **which, tc_error *err)
{
	size_t i;

	*which = NULL;
	for (i = 0; i < s->nconstraints; i++) {
		bool ok = true;

		if (tc_tune_expr_eval(s->constraints[i].expr, c->vals, &ok,
		    err) != 0) {
			tc_error_prefix(err, "%s:%u: constraint '%s': ", s->path,
			    s->constraints[i].line, s->constraints[i].text);
			return -1;
		}
		if (!ok) {
			*which = s->constraints[i].text;
			return 0;
		}
	}
	return 0;
}

static void
set_expanded(tc_json *o, const char *key, const tc_tune_spec *s,
    const char *tmpl, const tc_tune_config *c, const char *build_dir,
    const char *run_dir)
{
	char *cmd;

	if (tmpl == NULL) {
		tc_json_object_set_null(o, key);
		return;
	}
	cmd = tc_tune_expand_config(s, tmpl, c, build_dir, run_dir);
	tc_json_object_set_string(o, key, cmd);
	free(cmd);
}

tc_json *
tc_tune_prepare(const tc_tune_spec *s, const tc_json *conf, const char *cache,
    const char *run_dir, tc_error *err)
{
	tc_tune_value *vals = tc_xcalloc(s->nparams + 1, sizeof(*vals));
	tc_tune_config c = { NULL, NULL };
	tc_json *out = NULL, *params;
	const char *broken = NULL;
	char *build_dir = NULL;
	bool reused = false;
	size_t i;

	if (read_config(s, conf, &c, vals, err) != 0 ||
	    broken_constraint(s, &c, &broken, err) != 0)
		goto out;
	out = tc_json_new_object();
	tc_json_object_set_string(out, "schema_version",
	    "tunectl-tune-prepared-v1");
	tc_json_object_set_string_or_null(out, "variant",
	    c.variant != NULL ? c.variant->name : NULL);
	params = tc_json_new_object();
	for (i = 0; i < s->nparams; i++)
		tc_json_object_set_string(params, s->params[i].name,
		    vals[i].text);
	tc_json_object_set(out, "params", params);
	tc_json_object_set_bool(out, "allowed", broken == NULL);
	tc_json_object_set_string_or_null(out, "broken_constraint", broken);
	if (broken == NULL && s->build.command != NULL &&
	    tc_tune_build(s, &c, cache, &build_dir, &reused, err) != 0) {
		tc_json_free(out);
		out = NULL;
		goto out;
	}
	tc_json_object_set_string_or_null(out, "build_dir", build_dir);
	tc_json_object_set_bool(out, "build_reused", reused);
	if (broken == NULL) {
		set_expanded(out, "run", s, s->run.command, &c, build_dir,
		    run_dir);
		set_expanded(out, "check", s, s->check.command, &c, build_dir,
		    run_dir);
		set_expanded(out, "profile", s, s->profile.command, &c,
		    build_dir, run_dir);
	}
out:
	free(build_dir);
	free(vals);
	return out;
}
