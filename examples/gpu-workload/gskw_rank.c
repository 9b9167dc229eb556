/*
 * gskw_rank.c - one rank of the GPU workload: a process that owns one GPU
 * and runs the decode loop on it, logging every step.
 *
 * The rank's GPU is made the only one CUDA can see (CUDA_VISIBLE_DEVICES
 * is set to its index, in PCI bus order, before the first CUDA call), so
 * the index in the log is the index the device lease names.  Each step is
 * timed on the device (gskw_dev_step) and, for the record, on the host
 * clock around it.  Rank 0 of a profiling run also writes the per-group
 * profile (--profile-out) and msprof's files (--msprof-out,
 * examples/msprof): every launch timed on its stream by the device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gskw.h"

static double
monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The decode loop into an open log; 0 or -1 with err. */
static int
decode(const struct gskw_config *c, int rank, struct gskw_dev *d, FILE *log,
    char *err, size_t errlen)
{
	for (int s = 0; s < c->steps; s++) {
		struct gskw_step st;
		double t0 = monotonic_ms();

		if (gskw_dev_step(d, &st, err, errlen) != 0)
			return -1;
		gskw_log_step(log, s, rank, &st, monotonic_ms() - t0);
	}
	return 0;
}

int
gskw_rank_main(const struct gskw_config *c, int rank, int gpu_index,
    const char *log_dir, const char *profile_out, const char *msprof_out)
{
	struct gskw_plan p = gskw_make_plan(c->scope);
	struct gskw_probe probe;
	struct gskw_gpu gpu;
	struct gskw_dev *d;
	double group_ms[GK_COUNT] = { 0 }, checksum = 0.0;
	int profiling = profile_out != NULL && rank == 0;
	int tracing = msprof_out != NULL && rank == 0;
	struct msp_trace trace;
	struct msp_shape shape;
	char idx[16], path[4096], err[512] = "", cerr[512];
	FILE *log;
	int rc = 0;

	memset(&trace, 0, sizeof(trace));
	if (tracing && (gskw_trace_shape(c, &p, &shape, err, sizeof(err)) != 0 ||
	    msp_trace_init(&trace, &shape) != 0)) {
		fprintf(stderr, "gskw: rank %d: %s\n", rank, err[0] != '\0' ?
		    err : "out of memory");
		msp_trace_free(&trace);
		return 1;
	}

	snprintf(idx, sizeof(idx), "%d", gpu_index);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	setenv("CUDA_VISIBLE_DEVICES", idx, 1);
	if (gskw_dev_probe(&probe) != 0 || probe.count < 1) {
		fprintf(stderr, "gskw: rank %d: GPU %d is not visible: %s\n", rank,
		    gpu_index, probe.error[0] != '\0' ? probe.error :
		    "no CUDA device");
		msp_trace_free(&trace);
		return 1;
	}
	if ((d = gskw_dev_open(c, &p, rank, profiling, tracing ? &trace : NULL,
	    &gpu, err, sizeof(err))) == NULL) {
		fprintf(stderr, "gskw: rank %d on GPU %d: %s\n", rank, gpu_index,
		    err);
		msp_trace_free(&trace);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/log_%d.log", log_dir, rank);
	if ((log = fopen(path, "w")) == NULL) {
		fprintf(stderr, "gskw: %s: %s\n", path, strerror(errno));
		gskw_dev_close(d, &checksum, cerr, sizeof(cerr));
		msp_trace_free(&trace);
		return 1;
	}
	gskw_log_header(log, gskw_dev_clock(), gskw_dev_clock_note(), rank,
	    gpu_index, &gpu, &probe, c);
	if (decode(c, rank, d, log, err, sizeof(err)) != 0)
		rc = 1;
	if (profiling)
		gskw_dev_group_ms(d, group_ms);
	/* The first error is the one to report; close frees in any case. */
	if (gskw_dev_close(d, &checksum, rc == 0 ? err : cerr, sizeof(err)) != 0)
		rc = 1;
	if (rc != 0)
		fprintf(stderr, "gskw: rank %d on GPU %d: %s\n", rank, gpu_index,
		    err);
	else
		fprintf(log, "checksum %.6e\n", checksum);
	if (fclose(log) != 0) {
		fprintf(stderr, "gskw: %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (rc == 0 && profiling && gskw_write_profile(profile_out,
	    gskw_dev_clock(), c, &p, group_ms, checksum, err, sizeof(err)) != 0) {
		fprintf(stderr, "gskw: %s\n", err);
		rc = 1;
	}
	if (rc == 0 && tracing && msp_trace_write(&trace, msprof_out) != 0)
		rc = 1;
	msp_trace_free(&trace);
	return rc;
}
