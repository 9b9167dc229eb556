/*
 * build.c - configurations of a workload spec and their builds: a
 * template expanded for one configuration (a variant and a point of the
 * option space), and the build cache that builds each configuration once.
 *
 * A build is keyed by what decides its result: the build command expanded
 * for the configuration ({build_dir} left as written, since the cache
 * chooses it from the key) and the SHA-256 of every declared input.  The
 * build runs in CACHE/<key>/ (sh -c, in the spec's directory, under
 * build.timeout, its output streamed to build.stdout.log and
 * build.stderr.log there); only a build that exits 0 gets
 * CACHE/<key>/build.json, written atomically last, and only a directory
 * with build.json is ever reused.  A failed build is built again from
 * scratch the next time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/sha256.h"
#include "tune_internal.h"

struct lookup_ctx {
	const tc_tune_spec *s;
	const tc_tune_config *c;
	const char *build_dir, *run_dir;
};

static const char *
config_lookup(const char *name, void *ctx)
{
	const struct lookup_ctx *l = ctx;
	const tc_tune_variant *v = l->c->variant;
	size_t i;

	for (i = 0; i < l->s->nparams; i++)
		if (strcmp(l->s->params[i].name, name) == 0)
			return l->c->vals != NULL ? l->c->vals[i].text :
			    l->s->baseline[i].value.text;
	for (i = 0; v != NULL && i < v->nparams; i++)
		if (strcmp(v->params[i].name, name) == 0)
			return v->params[i].value.text;
	if (strcmp(name, "spec_dir") == 0)
		return l->s->dir;
	if (strcmp(name, "variant") == 0)
		return v != NULL ? v->name : NULL;
	if (strcmp(name, "build_dir") == 0)
		return l->build_dir;
	if (strcmp(name, "run_dir") == 0)
		return l->run_dir;
	return NULL;
}

char *
tc_tune_expand_config(const tc_tune_spec *s, const char *tmpl,
    const tc_tune_config *c, const char *build_dir, const char *run_dir)
{
	struct lookup_ctx l = { s, c, build_dir, run_dir };

	return tc_tune_expand(tmpl, config_lookup, &l);
}

int
tc_tune_input_digest(const tc_tune_spec *s, size_t i,
    char hex[TC_SHA256_HEX_LEN + 1], tc_error *err)
{
	char *path = tc_path_under_root(s->dir, s->build_inputs[i],
	    "build input", err);
	int rc = path != NULL ? tc_sha256_file(path, hex, NULL, err) : -1;

	if (rc != 0)
		tc_error_prefix(err, "%s: build.inputs '%s': ", s->path,
		    s->build_inputs[i]);
	free(path);
	return rc;
}

int
tc_tune_build_key(const tc_tune_spec *s, const tc_tune_config *c,
    char key[TC_SHA256_HEX_LEN + 1], tc_error *err)
{
	tc_sha256 *h = tc_sha256_new();
	char *cmd = tc_tune_expand_config(s, s->build.command != NULL ?
	    s->build.command : "", c, NULL, NULL);
	size_t i;

	tc_sha256_update(h, cmd, strlen(cmd) + 1);
	free(cmd);
	for (i = 0; i < s->nbuild_inputs; i++) {
		char hex[TC_SHA256_HEX_LEN + 1];

		if (tc_tune_input_digest(s, i, hex, err) != 0) {
			tc_sha256_free(h);
			return -1;
		}
		tc_sha256_update(h, s->build_inputs[i],
		    strlen(s->build_inputs[i]) + 1);
		tc_sha256_update(h, hex, sizeof(hex));
	}
	tc_sha256_final_hex(h, key);	/* frees h */
	return 0;
}

/* Run the expanded build command in dir; 0 when it exited 0. */
static int
run_build(const tc_tune_spec *s, const char *cmd, const char *dir,
    double *wall_s, tc_error *err)
{
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	char *out = tc_path_join(dir, "build.stdout.log");
	char *errlog = tc_path_join(dir, "build.stderr.log");
	tc_proc_spec ps;
	tc_proc_result pr;
	int rc = -1;

	memset(&ps, 0, sizeof(ps));
	ps.argv = argv;
	ps.cwd = s->dir;
	ps.stdout_path = out;
	ps.stderr_path = errlog;
	ps.stdin_null = true;
	ps.timeout_s = s->build.timeout_s;
	ps.end_tree = true;
	if (tc_proc_run(&ps, &pr, err) != 0)
		tc_error_prefix(err, "the build could not start: ");
	else if (pr.timed_out)
		tc_error_set(err, "the build ran past build.timeout (%g s); its "
		    "output is in %s", s->build.timeout_s, errlog);
	else if (pr.exit_code != 0)
		tc_error_set(err, "the build exited with status %d; its output "
		    "is in %s", pr.exit_code, errlog);
	else {
		*wall_s = pr.wall_s;
		rc = 0;
	}
	free(out);
	free(errlog);
	return rc;
}

int
tc_tune_build(const tc_tune_spec *s, const tc_tune_config *c,
    const char *cache, char **dir_out, bool *reused, tc_error *err)
{
	char key[TC_SHA256_HEX_LEN + 1];
	char *dir = NULL, *marker = NULL, *cmd = NULL;
	tc_json *rec;
	double wall = 0;
	int rc = -1;

	*dir_out = NULL;
	*reused = false;
	if (s->build.command == NULL) {
		tc_error_set(err, "%s: the spec has no build command", s->path);
		return -1;
	}
	if (tc_tune_build_key(s, c, key, err) != 0)
		return -1;
	dir = tc_path_join(cache, key);
	marker = tc_path_join(dir, "build.json");
	if (tc_is_regular_file(marker)) {
		*reused = true;
		*dir_out = dir;
		free(marker);
		return 0;
	}
	if (tc_mkdirs(dir, err) != 0)
		goto out;
	cmd = tc_tune_expand_config(s, s->build.command, c, dir, NULL);
	if (run_build(s, cmd, dir, &wall, err) != 0) {
		tc_error_prefix(err, "%s:%u: build of variant %s: ", s->path,
		    s->build.line, c->variant != NULL ? c->variant->name :
		    "(none)");
		goto out;
	}
	rec = tc_json_new_object();
	tc_json_object_set_string(rec, "schema_version", "tunectl-tune-build-v1");
	tc_json_object_set_string(rec, "key", key);
	tc_json_object_set_string(rec, "command", cmd);
	tc_json_object_set_string_or_null(rec, "variant",
	    c->variant != NULL ? c->variant->name : NULL);
	tc_json_object_set(rec, "wall_seconds", tc_json_new_float(wall));
	rc = tc_write_json(marker, rec, 0, err);
	tc_json_free(rec);
	if (rc == 0) {
		*dir_out = dir;
		dir = NULL;
	}
out:
	free(cmd);
	free(marker);
	free(dir);
	return rc;
}
