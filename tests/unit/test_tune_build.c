/*
 * test_tune_build.c - the build cache of workload specs (src/tune/build.c):
 * a configuration is built once and reused; another variant, another
 * option value the command names, or a changed input is another build;
 * a build that fails or runs past its timeout is never reused and names
 * its log; templates expand for a configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/tune.h"

struct fx {
	char *dir;	/* the spec's directory */
	char *cache;
};

static int
fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	tc_error err = TC_ERROR_INIT;

	f->dir = tc_make_temp_dir("tunectl-build-", &err);
	assert_non_null(f->dir);
	f->cache = tc_path_join(f->dir, "cache");
	*state = f;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = tc_xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->cache);
	free(f->dir);
	free(f);
	return 0;
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char *path = tc_path_join(dir, name);
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_write_atomic(path, text, strlen(text), 0, &err), 0);
	free(path);
}

static tc_tune_spec *
spec(const struct fx *f, const char *build)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = NULL;
	char *text = tc_xasprintf("version: 1\nname: t\n%s"
	    "run: {command: '{build_dir}/p {b}', timeout: 5}\n"
	    "metric: {from: stdout, regex: 't=([0-9.]+)', unit: ms, "
	    "direction: lower}\n"
	    "variants:\n  - {name: a, params: {flag: -O2}}\n"
	    "  - {name: c, params: {flag: -O3}}\n"
	    "options: {parameters: {b: [1, 2]}}\n", build);

	if (tc_tune_spec_parse(text, strlen(text), "t.yaml", f->dir, &s,
	    &err) != 0)
		fail_msg("%s", tc_error_msg(&err));
	free(text);
	return s;
}

/* How many times the build command ran (it appends to builds.log). */
static int
builds(const struct fx *f)
{
	char *path = tc_path_join(f->dir, "builds.log");
	size_t len = 0, i;
	int n = 0;
	char *text = tc_read_file(path, 1 << 20, &len, NULL);

	for (i = 0; text != NULL && i < len; i++)
		n += text[i] == '\n';
	free(text);
	free(path);
	return n;
}

#define COUNTING "build: {command: 'echo {flag} > {build_dir}/flags.txt && " \
	"echo x >> {spec_dir}/builds.log', inputs: [src.c]}\n"

static void
a_configuration_is_built_once_and_reused(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;
	tc_tune_config a, c;
	char *d1, *d2, *d3, *flags;
	bool reused;

	write_file(f->dir, "src.c", "int main(void) { return 0; }\n");
	s = spec(f, COUNTING);
	a.variant = &s->variants[0];
	a.vals = NULL;
	c.variant = &s->variants[1];
	c.vals = NULL;
	assert_int_equal(tc_tune_build(s, &a, f->cache, &d1, &reused, &err), 0);
	assert_false(reused);
	flags = tc_path_join(d1, "flags.txt");
	{
		char *text = tc_read_file(flags, 100, NULL, &err);

		assert_string_equal(text, "-O2\n");
		free(text);
	}
	free(flags);
	assert_int_equal(tc_tune_build(s, &a, f->cache, &d2, &reused, &err), 0);
	assert_true(reused);
	assert_string_equal(d1, d2);
	assert_int_equal(builds(f), 1);
	/* another variant is another build */
	assert_int_equal(tc_tune_build(s, &c, f->cache, &d3, &reused, &err), 0);
	assert_false(reused);
	assert_string_not_equal(d1, d3);
	assert_int_equal(builds(f), 2);
	free(d2);
	free(d3);
	/* a changed input is another build */
	write_file(f->dir, "src.c", "int main(void) { return 1; }\n");
	assert_int_equal(tc_tune_build(s, &a, f->cache, &d2, &reused, &err), 0);
	assert_false(reused);
	assert_string_not_equal(d1, d2);
	assert_int_equal(builds(f), 3);
	free(d1);
	free(d2);
	tc_tune_spec_free(s);
}

static void
an_option_the_build_names_keys_the_build(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = spec(f, "build: {command: 'echo {b} >> "
	    "{spec_dir}/builds.log'}\n");
	tc_tune_config c = { &s->variants[0], NULL };
	char *d1, *d2;
	bool reused;

	assert_int_equal(tc_tune_build(s, &c, f->cache, &d1, &reused, &err), 0);
	c.vals = &s->params[0].values[1];	/* b = 2 */
	assert_int_equal(tc_tune_build(s, &c, f->cache, &d2, &reused, &err), 0);
	assert_false(reused);
	assert_string_not_equal(d1, d2);
	assert_int_equal(builds(f), 2);
	free(d1);
	free(d2);
	tc_tune_spec_free(s);
}

static void
a_failed_build_names_its_log_and_is_never_reused(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;
	tc_tune_config c;
	char *d, *want;
	bool reused;

	write_file(f->dir, "go", "");
	s = spec(f, "build: {command: 'echo x >> {spec_dir}/builds.log; "
	    "test -s {spec_dir}/go || exit 3'}\n");
	c.variant = &s->variants[1];
	c.vals = NULL;
	assert_int_equal(tc_tune_build(s, &c, f->cache, &d, &reused, &err), -1);
	assert_null(d);
	want = tc_xasprintf("t.yaml:3: build of variant c: the build exited "
	    "with status 3; its output is in %s/", f->cache);
	assert_non_null(strstr(tc_error_msg(&err), want));
	free(want);
	tc_error_clear(&err);
	/* fixed, it is built again, not taken from the failed attempt */
	write_file(f->dir, "go", "yes");
	assert_int_equal(tc_tune_build(s, &c, f->cache, &d, &reused, &err), 0);
	assert_false(reused);
	assert_int_equal(builds(f), 2);
	free(d);
	tc_tune_spec_free(s);
}

static void
a_build_past_its_timeout_is_ended(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = spec(f, "build: {command: 'sleep 30', timeout: 0.3}\n");
	tc_tune_config c = { &s->variants[0], NULL };
	char *d;
	bool reused;

	assert_int_equal(tc_tune_build(s, &c, f->cache, &d, &reused, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "the build ran past "
	    "build.timeout (0.3 s)"));
	tc_error_clear(&err);
	tc_tune_spec_free(s);
}

static void
a_missing_input_is_refused_before_building(void **state)
{
	struct fx *f = *state;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = spec(f, COUNTING);
	tc_tune_config c = { &s->variants[0], NULL };
	char *d;
	bool reused;

	assert_int_equal(tc_tune_build(s, &c, f->cache, &d, &reused, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml: build.inputs "
	    "'src.c': "));
	assert_int_equal(builds(f), 0);
	tc_error_clear(&err);
	tc_tune_spec_free(s);
}

static void
templates_expand_for_a_configuration(void **state)
{
	struct fx *f = *state;
	tc_tune_spec *s = spec(f, "");
	tc_tune_config c = { &s->variants[1], &s->params[0].values[1] };
	char *cmd = tc_tune_expand_config(s, "{spec_dir} {variant} {flag} {b} "
	    "{build_dir} {run_dir}", &c, "/b", NULL);
	char *want = tc_xasprintf("%s c -O3 2 /b {run_dir}", f->dir);

	assert_string_equal(cmd, want);
	free(cmd);
	free(want);
	/* without values: the baseline's */
	c.vals = NULL;
	cmd = tc_tune_expand_config(s, "{b}", &c, NULL, NULL);
	assert_string_equal(cmd, "1");
	free(cmd);
	tc_tune_spec_free(s);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FX(a_configuration_is_built_once_and_reused),
		FX(an_option_the_build_names_keys_the_build),
		FX(a_failed_build_names_its_log_and_is_never_reused),
		FX(a_build_past_its_timeout_is_ended),
		FX(a_missing_input_is_refused_before_building),
		FX(templates_expand_for_a_configuration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
