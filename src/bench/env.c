/*
 * env.c - the environment fingerprint recorded with every run set (CPU
 * model, core count, frequency governor, kernel, compiler, host, load
 * average) and the comparison the gates use to warn about drift.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tunectl/bench.h"
#include "bench_internal.h"

/* Keys that identify the environment; load_average is only a reading. */
static const char *const identity_keys[] = {
	"cpu_model", "cores", "governor", "kernel", "compiler", "hostname",
	NULL
};

static char *
first_line(const char *path)
{
	FILE *fp = fopen(path, "re");
	char line[512];
	char *nl;

	if (fp == NULL)
		return NULL;
	if (fgets(line, sizeof(line), fp) == NULL) {
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	return tc_xstrdup(line);
}

static char *
cpu_model(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "re");
	char line[512];

	if (fp == NULL)
		return NULL;
	while (fgets(line, sizeof(line), fp) != NULL) {
		char *colon, *v, *nl;

		if (strncmp(line, "model name", 10) != 0 &&
		    strncmp(line, "Model", 5) != 0 &&
		    strncmp(line, "cpu model", 9) != 0)
			continue;
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		if ((nl = strchr(v, '\n')) != NULL)
			*nl = '\0';
		fclose(fp);
		return tc_xstrdup(v);
	}
	fclose(fp);
	return NULL;
}

/* First line of "cc --version" (a fixed command, no shell input). */
static char *
compiler_version(void)
{
	FILE *fp = popen("cc --version 2>/dev/null", "re");
	char line[512];
	char *nl, *res = NULL;

	if (fp == NULL)
		return NULL;
	if (fgets(line, sizeof(line), fp) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		res = tc_xstrdup(line);
	}
	while (fgets(line, sizeof(line), fp) != NULL)
		;
	if (pclose(fp) != 0) {
		free(res);
		res = NULL;
	}
	return res;
}

static void
set_string_or_null(tc_json *o, const char *key, char *owned)
{
	if (owned != NULL)
		tc_json_object_set_string(o, key, owned);
	else
		tc_json_object_set_null(o, key);
	free(owned);
}

tc_json *
tc_bench_load_average(void)
{
	double loads[3];
	tc_json *la;

	if (getloadavg(loads, 3) != 3)
		return tc_json_new_null();
	la = tc_json_new_array();
	for (int i = 0; i < 3; i++)
		tc_json_array_push(la, tc_json_new_float(loads[i]));
	return la;
}

tc_json *
tc_env_fingerprint(void)
{
	tc_json *o = tc_json_new_object();
	struct utsname u;
	char host[256];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	set_string_or_null(o, "cpu_model", cpu_model());
	tc_json_object_set_int(o, "cores", cores > 0 ? cores : 0);
	set_string_or_null(o, "governor", first_line(
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
	if (uname(&u) == 0)
		set_string_or_null(o, "kernel", tc_xasprintf("%s %s %s",
		    u.sysname, u.release, u.machine));
	else
		tc_json_object_set_null(o, "kernel");
	set_string_or_null(o, "compiler", compiler_version());
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		tc_json_object_set_string(o, "hostname", host);
	} else {
		tc_json_object_set_null(o, "hostname");
	}
	tc_json_object_set(o, "load_average", tc_bench_load_average());
	return o;
}

char *
tc_env_fingerprint_diff(const tc_json *a, const tc_json *b)
{
	tc_buf out = TC_BUF_INIT;

	for (const char *const *k = identity_keys; *k != NULL; k++) {
		const tc_json *x = tc_json_get(a, *k), *y = tc_json_get(b, *k);

		if (x == NULL && y == NULL)
			continue;
		if (x != NULL && y != NULL && tc_json_equal(x, y))
			continue;
		if (out.len > 0)
			tc_buf_puts(&out, ", ");
		tc_buf_puts(&out, *k);
	}
	if (out.len == 0) {
		tc_buf_free(&out);
		return NULL;
	}
	return tc_buf_detach(&out, NULL);
}

tc_json *
tc_bench_load_manifest(const char *dir, char **error)
{
	char *path = tc_bench_join(dir, "runset.json");
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;

	*error = NULL;
	if (!tc_path_exists(path)) {
		free(path);
		return NULL;
	}
	doc = tc_json_parse_file(path, &err);
	if (doc == NULL) {
		*error = tc_xasprintf("%s: %s", path, tc_error_msg(&err));
	} else if (!tc_json_is(doc, TC_JSON_OBJECT) ||
	    !tc_json_is(tc_json_get(doc, "schema_version"), TC_JSON_STRING) ||
	    strcmp(tc_json_get_string(doc, "schema_version"),
	    TC_RUNSET_SCHEMA) != 0) {
		*error = tc_xasprintf("%s: not a %s document", path,
		    TC_RUNSET_SCHEMA);
		tc_json_free(doc);
		doc = NULL;
	}
	tc_error_clear(&err);
	free(path);
	return doc;
}

long
tc_runset_recorded_ranks(const char *dir)
{
	char *error = NULL;
	tc_json *doc = tc_bench_load_manifest(dir, &error);
	int64_t ranks = 0;

	if (doc == NULL || !tc_json_int64(tc_json_get(doc, "ranks"), &ranks) ||
	    ranks < 1)
		ranks = 0;
	tc_json_free(doc);
	free(error);
	return (long)ranks;
}
