/*
 * demo_workload.c - which workload "tunectl demo" tunes, and on which
 * devices: the CPU demo workload (examples/workload, built as
 * examples/skw beside tunectl) on one CPU "device" 0, or with
 * --workload gpu the CUDA one (examples/gpu-workload, examples/gskw) on
 * every GPU it can see, one rank per GPU.  The demo's workers read the
 * choice from the environment (examples/workers/sklib.py).
 *
 * The GPUs are the ones the workload itself finds ("gskw --list-devices",
 * the CUDA runtime's view under the caller's CUDA_VISIBLE_DEVICES), named
 * by the index nvidia-smi shows, which is what the device leases lock.
 * Nothing is written before the choice is made, so a demo that cannot
 * run (no GPU visible, the GPU workload not built) leaves nothing behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "tunectl/proc.h"

/* At most this many GPUs take part (one rank each). */
#define DEMO_MAX_GPUS 8

/* <exe_dir>/examples/<name> (build tree) or <exe_dir>/../libexec/tunectl/<name>
 * (installation); NULL when neither is there. */
static char *
find_binary(const char *exe_dir, const char *name)
{
	char *p = tc_xasprintf("%s/examples/%s", exe_dir, name);

	if (access(p, X_OK) == 0)
		return p;
	free(p);
	p = tc_xasprintf("%s/../libexec/tunectl/%s", exe_dir, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* Run "<gskw> --list-devices" and parse its one JSON line. */
static tc_json *
list_gpus(const char *gskw, tc_error *err)
{
	char *argv[] = { (char *)gskw, (char *)"--list-devices", NULL };
	char tmpl[] = "/tmp/tunectl-gpus.XXXXXX";
	tc_proc_spec spec = { 0 };
	tc_proc_result res;
	tc_json *doc = NULL;
	int fd = mkstemp(tmpl);

	if (fd < 0) {
		tc_error_set(err, "cannot create a temporary file in /tmp");
		return NULL;
	}
	close(fd);
	spec.argv = argv;
	spec.stdout_path = tmpl;
	spec.stdin_null = true;
	spec.timeout_s = 120;
	if (tc_proc_run(&spec, &res, err) == 0) {
		if (!res.timed_out)
			doc = tc_json_parse_file(tmpl, NULL);
		if (doc != NULL && !tc_json_is(tc_json_get(doc, "devices"),
		    TC_JSON_ARRAY)) {
			tc_json_free(doc);
			doc = NULL;
		}
		if (res.timed_out)
			tc_error_set(err, "%s --list-devices did not finish in "
			    "%.0f s", gskw, spec.timeout_s);
		else if (doc == NULL)
			tc_error_set(err, "%s --list-devices exited %d without a "
			    "device list", gskw, res.exit_code);
	}
	unlink(tmpl);
	return doc;
}

/* The GPUs, as "0,1" in w->device_ids and a description for the user. */
static int
find_gpus(struct demo_workload *w, tc_error *err)
{
	tc_json *doc = list_gpus(w->binary, err);
	const tc_json *devs;
	tc_buf ids = TC_BUF_INIT, desc = TC_BUF_INIT;
	size_t n;

	if (doc == NULL)
		return -1;
	devs = tc_json_get(doc, "devices");
	if (devs->u.arr.len == 0) {
		const char *why = tc_json_get_string(doc, "error");

		tc_error_set(err, "--workload gpu needs a GPU, and none is "
		    "visible: %s", why != NULL ? why : "no CUDA device");
		tc_json_free(doc);
		return -1;
	}
	n = devs->u.arr.len < DEMO_MAX_GPUS ? devs->u.arr.len : DEMO_MAX_GPUS;
	for (size_t i = 0; i < n; i++) {
		const tc_json *d = devs->u.arr.items[i];
		int64_t index = -1;

		tc_json_int64(tc_json_get(d, "index"), &index);
		tc_buf_printf(&ids, "%s%lld", i > 0 ? "," : "", (long long)index);
		tc_buf_printf(&desc, "%sGPU %lld (%s)", i > 0 ? ", " : "",
		    (long long)index, tc_json_get_string(d, "name") != NULL ?
		    tc_json_get_string(d, "name") : "?");
	}
	tc_buf_printf(&desc, "; CUDA driver %s, runtime %s",
	    tc_json_get_string(doc, "cuda_driver_version") != NULL ?
	    tc_json_get_string(doc, "cuda_driver_version") : "?",
	    tc_json_get_string(doc, "cuda_runtime_version") != NULL ?
	    tc_json_get_string(doc, "cuda_runtime_version") : "?");
	w->device_ids = tc_buf_detach(&ids, NULL);
	w->devices = tc_buf_detach(&desc, NULL);
	tc_json_free(doc);
	return 0;
}

int
demo_workload_find(struct demo_workload *w, const char *kind,
    const char *exe_dir, const char *examples, tc_error *err)
{
	bool gpu = strcmp(kind, "gpu") == 0;

	memset(w, 0, sizeof(*w));
	w->kind = gpu ? "gpu" : "cpu";
	w->binary = find_binary(exe_dir, gpu ? "gskw" : "skw");
	w->source = tc_xasprintf("%s/%s", examples, gpu ?
	    "gpu-workload/gskw_kernels.cu" : "workload/skw_kernels.c");
	if (w->binary == NULL) {
		if (gpu)
			tc_error_set(err, "the GPU workload is not built (no "
			    "%s/examples/gskw): make builds it only where nvcc "
			    "(the CUDA toolkit) is found; run 'make' on a machine "
			    "with nvcc", exe_dir);
		else
			tc_error_set(err, "the workload %s/examples/skw is missing; "
			    "run 'make' first", exe_dir);
		return -1;
	}
	if (!gpu) {
		w->device_ids = tc_xstrdup("0");
		w->devices = tc_xstrdup("the CPU (device 0)");
		return 0;
	}
	return find_gpus(w, err);
}

void
demo_workload_export(const struct demo_workload *w)
{
	setenv("SKW", w->binary, 1);
	setenv("SKW_SOURCE", w->source, 1);
	setenv("SKW_WORKLOAD", w->kind, 1);
	setenv("TUNECTL_DEVICE_IDS", w->device_ids, 1);
}

void
demo_workload_free(struct demo_workload *w)
{
	free(w->binary);
	free(w->source);
	free(w->device_ids);
	free(w->devices);
	memset(w, 0, sizeof(*w));
}
