/*
 * gskw_log.c - what the GPU workload writes: the rank logs in the format
 * tunectl's gates read, the kernel profile of a profiling run, and the
 * device list of --list-devices.
 *
 * A rank log:
 *
 *     Timing clock: cudaEventElapsedTime
 *     # decode: ...how the clock measures a step...; rank 0 on GPU 3 (...)
 *     step 0 rank 0 Inference time (decode): 0.2310 ms wall 0.2544 ms launches 48
 *     ...
 *     checksum 1.234567e+01
 *
 * Only the "Inference time (decode)" figure is gated; the wall time (the
 * host's CLOCK_MONOTONIC around the step, synchronisation included) and
 * the launches issued in the step are there for the record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "gskw.h"

/* "13.0" for 13000 (CUDA's 1000 * major + 10 * minor). */
static void
cuda_version(char *out, size_t len, int v)
{
	if (v <= 0)
		snprintf(out, len, "unknown");
	else
		snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void
gskw_log_header(FILE *log, const char *clock, const char *clock_note,
    int rank, int gpu_index, const struct gskw_gpu *gpu,
    const struct gskw_probe *versions, const struct gskw_config *c)
{
	struct gskw_plan p = gskw_make_plan(c->scope);
	char drv[16], rt[16];

	cuda_version(drv, sizeof(drv), versions->driver_version);
	cuda_version(rt, sizeof(rt), versions->runtime_version);
	fprintf(log, "Timing clock: %s\n", clock);
	fprintf(log, "# decode: %s; wall: CLOCK_MONOTONIC around the step, "
	    "launches and synchronisation included; rank %d on GPU %d (%s, "
	    "sm_%d%d, %.1f GiB, PCI %s); CUDA driver %s, runtime %s; scope %s, "
	    "%d launch%s per layer, block %d, tile %d, unroll %d%s%s\n",
	    clock_note, rank, gpu_index, gpu->name, gpu->cc_major,
	    gpu->cc_minor, gpu->memory_gib, gpu->pci_bus_id, drv, rt,
	    gskw_scope_name(c->scope), gskw_launches_per_layer(&p,
	    c->multistream), gskw_launches_per_layer(&p, c->multistream) == 1 ?
	    "" : "es", c->block_size, c->tile_size, c->unroll,
	    c->multistream ? ", two streams" : "",
	    c->fast_softmax ? ", fast softmax" : "");
}

void
gskw_log_step(FILE *log, int step, int rank, const struct gskw_step *s,
    double wall_ms)
{
	fprintf(log, "step %d rank %d Inference time (decode): %.4f ms wall "
	    "%.4f ms launches %d\n", step, rank, s->device_ms, wall_ms,
	    s->launches);
}

/* Write doc to path (pretty JSON, atomically); 0 or -1 with err. */
static int
write_doc(const char *path, const tc_json *doc, char *err, size_t errlen)
{
	tc_error e = TC_ERROR_INIT;
	int rc = tc_write_json(path, doc, 0, &e);

	if (rc != 0)
		gskw_errf(err, errlen, "%s", tc_error_msg(&e));
	tc_error_clear(&e);
	return rc;
}

int
gskw_write_profile(const char *path, const char *clock,
    const struct gskw_config *c, const struct gskw_plan *p,
    const double *group_ms, double checksum, char *err, size_t errlen)
{
	tc_json *doc = tc_json_new_object(), *groups = tc_json_new_array();
	int rc;

	tc_json_object_set_string(doc, "schema_version", "skw-kernel-profile-v1");
	tc_json_object_set_string(doc, "clock", clock);
	tc_json_object_set_string(doc, "scope", gskw_scope_name(c->scope));
	tc_json_object_set_string(doc, "launch_mode", p->mode == GM_GRAPH ?
	    "cuda_graph_per_layer" : "kernel_per_group");
	tc_json_object_set_int(doc, "steps", c->steps);
	tc_json_object_set_int(doc, "layers", c->layers);
	/* A layer's graph is one launch of all its kernels: one group. */
	for (int g = 0; g < (p->mode == GM_GRAPH ? 1 : p->ngroups); g++) {
		tc_json *o = tc_json_new_object(), *k = tc_json_new_array();
		int first = p->mode == GM_GRAPH ? 0 : p->first[g];
		int last = p->mode == GM_GRAPH ? GK_COUNT - 1 : p->last[g];

		for (int i = first; i <= last; i++)
			tc_json_array_push(k, tc_json_new_string(gskw_kernel_names[i]));
		tc_json_object_set(o, "kernels", k);
		tc_json_object_set(o, "total_ms", tc_json_new_float(group_ms[g]));
		tc_json_array_push(groups, o);
	}
	tc_json_object_set(doc, "groups", groups);
	tc_json_object_set(doc, "checksum", tc_json_new_float(checksum));
	rc = write_doc(path, doc, err, errlen);
	tc_json_free(doc);
	return rc;
}

static tc_json *
gpu_json(const struct gskw_gpu *g, int index)
{
	tc_json *o = tc_json_new_object();
	char cc[16];

	snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
	tc_json_object_set_int(o, "index", index);
	tc_json_object_set_int(o, "cuda_ordinal", g->ordinal);
	tc_json_object_set_string(o, "name", g->name);
	tc_json_object_set_string(o, "compute_capability", cc);
	tc_json_object_set(o, "memory_gib", tc_json_new_float(g->memory_gib));
	tc_json_object_set_string(o, "pci_bus_id", g->pci_bus_id);
	return o;
}

int
gskw_print_devices(FILE *out, const struct gskw_probe *probe,
    const char *visible, char *err, size_t errlen)
{
	tc_json *doc = tc_json_new_object(), *devs = tc_json_new_array();
	tc_error e = TC_ERROR_INIT;
	char drv[16], rt[16], *text;
	int rc = 0;

	cuda_version(drv, sizeof(drv), probe->driver_version);
	cuda_version(rt, sizeof(rt), probe->runtime_version);
	tc_json_object_set_string(doc, "schema_version", "gskw-devices-v1");
	tc_json_object_set_string(doc, "clock", gskw_dev_clock());
	tc_json_object_set_string(doc, "cuda_driver_version", drv);
	tc_json_object_set_string(doc, "cuda_runtime_version", rt);
	for (int k = 0; k < probe->count && rc == 0; k++) {
		int index = gskw_physical_index(visible, k, err, errlen);

		if (index < 0)
			rc = -1;
		else
			tc_json_array_push(devs, gpu_json(&probe->gpus[k], index));
	}
	if (rc != 0 || probe->count == 0) {
		tc_json_free(devs);
		devs = tc_json_new_array();
		tc_json_object_set_string(doc, "error", rc != 0 ? err :
		    probe->error[0] != '\0' ? probe->error :
		    "no CUDA device is visible");
	} else {
		tc_json_object_set_null(doc, "error");
	}
	tc_json_object_set(doc, "devices", devs);
	if ((text = tc_json_canonical(doc, NULL, &e)) == NULL) {
		rc = gskw_errf(err, errlen, "%s", tc_error_msg(&e));
	} else {
		fprintf(out, "%s\n", text);
		free(text);
	}
	tc_error_clear(&e);
	tc_json_free(doc);
	return rc;
}
