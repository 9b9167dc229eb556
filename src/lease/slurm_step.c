/*
 * slurm_step.c - the in-job half of a Slurm lease ("tunectl lease
 * slurm-step --spec FILE", started by srun on the allocated node): find
 * which devices Slurm allocated to this job, record them in job.json for
 * the submitter, and run the command through the local lease runner on
 * exactly those ids under the node's lease root.  The local runner sets
 * the three lease markers, locks the node-local lock files (so tunectl
 * runs outside Slurm on the same node are excluded too), kills whatever
 * the command leaves behind (double-forked children included, which
 * Slurm's proctrack/linuxproc would miss) and writes the step manifest.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lease_internal.h"
#include "slurm_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/path.h"
#include "tunectl/slurm.h"

extern char **environ;

/* Variables through which runtimes learn their visible devices; recorded
 * in job.json and carried into an explicit environment. */
static const char *const visibility_vars[] = {
	"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES",
	"ZE_AFFINITY_MASK", "ASCEND_RT_VISIBLE_DEVICES", "SLURM_STEP_GPUS",
	"SLURM_JOB_GPUS", NULL
};

/* The ids of GRES name allocated to this job on this node. */
static int
allocated_ids(const char *name, const char *job_id, long **ids, size_t *n,
    tc_error *err)
{
	const char *env;
	char *argv[7], *out = NULL, *errout = NULL, *line;
	char *job_arg;
	int rc;

	if (strcmp(name, "gpu") == 0) {
		if (((env = getenv("SLURM_STEP_GPUS")) != NULL && *env != '\0') ||
		    ((env = getenv("SLURM_JOB_GPUS")) != NULL && *env != '\0')) {
			if (tc_slurm_ids_parse(env, ids, n) == 0)
				return 0;
			tc_error_set(err, "cannot read the allocated GPUs from "
			    "'%s'", env);
			return -1;
		}
	}
	/* Any GRES: the job's detail lists its indices per node. */
	job_arg = tc_xstrdup(job_id);
	argv[0] = (char *)"scontrol";
	argv[1] = (char *)"-d";
	argv[2] = (char *)"-o";
	argv[3] = (char *)"show";
	argv[4] = (char *)"job";
	argv[5] = job_arg;
	argv[6] = NULL;
	rc = tc_slurm__capture(argv, 30, &out, &errout, err);
	free(job_arg);
	if (rc != 0) {
		if (rc > 0)
			tc_error_set(err, "scontrol show job %s failed: %s",
			    job_id, errout != NULL ? errout : "");
		free(out);
		free(errout);
		return -1;
	}
	free(errout);
	/* " GRES=" (not "JOB_GRES="): the allocation with indices. */
	rc = 1;
	for (line = out; (line = strstr(line, " GRES=")) != NULL; line += 6) {
		char *alloc = tc_xstrndup(line + 6, strcspn(line + 6, " \n"));

		rc = tc_slurm_gres_idx(alloc, name, ids, n);
		free(alloc);
		if (rc != 1)
			break;
	}
	free(out);
	if (rc != 0) {
		tc_error_set(err, "the Slurm job %s holds no %s devices on this "
		    "node", job_id, name);
		return -1;
	}
	return 0;
}

static int
record_error(const char *stage, const char *msg)
{
	tc_json *doc = tc_json_new_object();
	char *path = tc_path_join(stage, TC_SLURM_STAGE_ERROR);
	tc_error e = TC_ERROR_INIT;
	int rc;

	tc_json_object_set_string(doc, "error", msg);
	rc = tc_write_json(path, doc, TC_WRITE_EXCLUSIVE, &e);
	tc_error_clear(&e);
	tc_json_free(doc);
	free(path);
	return rc;
}

static tc_json *
job_facts(const char *job_id, const long *ids, size_t n, int64_t started_ns)
{
	tc_json *j = tc_json_new_object(), *arr = tc_json_new_array();
	tc_json *vis = tc_json_new_object();
	const char *const *v;
	const char *node = getenv("SLURMD_NODENAME");
	char ts[40];
	size_t i;

	tc_json_object_set(j, "job_id", tc_slurm__job_id_json(job_id));
	if (getenv("SLURM_STEP_ID") != NULL)
		tc_json_object_set_string(j, "step_id", getenv("SLURM_STEP_ID"));
	else
		tc_json_object_set_null(j, "step_id");
	if (node != NULL)
		tc_json_object_set_string(j, "node", node);
	else
		tc_json_object_set_null(j, "node");
	for (i = 0; i < n; i++)
		tc_json_array_push(arr, tc_json_new_int(ids[i]));
	tc_json_object_set(j, "device_ids", arr);
	for (v = visibility_vars; *v != NULL; v++)
		if (getenv(*v) != NULL)
			tc_json_object_set_string(vis, *v, getenv(*v));
	tc_json_object_set(j, "visible_devices", vis);
	tc_slurm__format_ns(started_ns, ts);
	tc_json_object_set_string(j, "started_at", ts);
	tc_json_object_set_int(j, "started_unix_ns", started_ns);
	tc_json_object_set_int(j, "pid", (int64_t)getpid());
	return j;
}

/* An explicit environment gets the job's device visibility, which wins
 * over what the document says: the command must see its allocation. */
static tc_json *
explicit_environment(const tc_json *env)
{
	tc_json *copy = tc_json_clone(env);
	const char *const *v;

	for (v = visibility_vars; *v != NULL; v++)
		if (getenv(*v) != NULL)
			tc_json_object_set_string(copy, *v, getenv(*v));
	return copy;
}

static bool
get_number(const tc_json *spec, const char *key, double *out)
{
	return tc_json_number(tc_json_get(spec, key), out);
}

static char **
string_array(const tc_json *arr)
{
	char **out;
	size_t i;

	if (!tc_json_is(arr, TC_JSON_ARRAY))
		return NULL;
	out = tc_xcalloc(arr->u.arr.len + 1, sizeof(*out));
	for (i = 0; i < arr->u.arr.len; i++) {
		if (!tc_json_is(arr->u.arr.items[i], TC_JSON_STRING)) {
			free(out);
			return NULL;
		}
		out[i] = (char *)arr->u.arr.items[i]->u.str.ptr;
	}
	return out;
}

int
tc_slurm_step_run(const char *spec_path, tc_error *err)
{
	tc_json *spec, *facts = NULL, *env = NULL, *manifest = NULL;
	const char *stage, *job_id, *gres_name;
	char **argv = NULL, *path = NULL, *ids_text = NULL;
	long *ids = NULL;
	size_t n = 0;
	double timeout = 0, grace = 0, lease_timeout = 0;
	int64_t started = tc_slurm__now_ns();
	tc_lease_request req;
	tc_lease_outcome outcome;
	int rc = -1;

	if ((spec = tc_json_parse_file(spec_path, err)) == NULL)
		return -1;
	stage = tc_json_get_string(spec, "stage");
	gres_name = tc_json_get_string(spec, "gres_name");
	if (!tc_json_is(spec, TC_JSON_OBJECT) || stage == NULL ||
	    gres_name == NULL || strcmp(tc_json_get_string(spec,
	    "schema_version") != NULL ? tc_json_get_string(spec,
	    "schema_version") : "", TC_SLURM_STEP_SCHEMA) != 0 ||
	    (argv = string_array(tc_json_get(spec, "argv"))) == NULL ||
	    !get_number(spec, "timeout_seconds", &timeout) ||
	    !get_number(spec, "grace_seconds", &grace) ||
	    !get_number(spec, "lease_timeout_seconds", &lease_timeout)) {
		tc_error_set(err, "not a %s step spec: %s", TC_SLURM_STEP_SCHEMA,
		    spec_path);
		goto out;
	}
	if ((job_id = getenv("SLURM_JOB_ID")) == NULL || *job_id == '\0') {
		tc_error_set(err, "tunectl lease slurm-step runs inside a Slurm "
		    "job (SLURM_JOB_ID is not set)");
		goto fail;
	}
	if (allocated_ids(gres_name, job_id, &ids, &n, err) != 0)
		goto fail;
	/* NPU runtimes (Ascend) read their own variable; Slurm sets none
	 * for a GRES it has no plugin for. */
	ids_text = tc_lease_ids_join(ids, n);
	if (strcmp(gres_name, "npu") == 0 &&
	    getenv("ASCEND_RT_VISIBLE_DEVICES") == NULL)
		setenv("ASCEND_RT_VISIBLE_DEVICES", ids_text, 1);

	facts = job_facts(job_id, ids, n, started);
	path = tc_path_join(stage, TC_SLURM_STAGE_JOB);
	if (tc_write_json(path, facts, TC_WRITE_EXCLUSIVE, err) != 0)
		goto fail;
	free(path);
	path = tc_path_join(stage, TC_SLURM_STAGE_STEP);

	if (tc_json_is(tc_json_get(spec, "environment"), TC_JSON_OBJECT))
		env = explicit_environment(tc_json_get(spec, "environment"));
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.lease_root = tc_json_get_string(spec, "lease_root");
	req.device_ids = ids;
	req.ndevices = n;
	/* The submitter ends the job (scancel) when the timeout expires;
	 * this is the backstop for a submitter that is gone. */
	req.timeout_s = timeout + grace + 60;
	req.has_lease_timeout = true;
	req.lease_timeout_s = lease_timeout;
	req.cwd = tc_json_get_string(spec, "cwd");
	req.manifest_out = path;
	req.environment = env;
	req.command_id = tc_json_get_string(spec, "command_id");
	req.grace_s = grace;
	rc = tc_lease_run(&req, &manifest, &outcome, err);
	if (rc != 0) {
		rc = -1;
		goto fail;
	}
	rc = outcome == TC_LEASE_PASSED ? 0 : outcome == TC_LEASE_BLOCKED ? 2 : 1;
	goto out;
fail:
	record_error(stage, tc_error_msg(err));
	rc = -1;
out:
	tc_json_free(manifest);
	tc_json_free(env);
	tc_json_free(facts);
	tc_json_free(spec);
	free(argv);
	free(path);
	free(ids);
	free(ids_text);
	return rc;
}
