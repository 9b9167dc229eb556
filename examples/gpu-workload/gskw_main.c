/*
 * gskw_main.c - the GPU workload's command line: list the visible GPUs,
 * or run the decode loop with one process per GPU rank.
 *
 *   gskw --list-devices
 *       one JSON line on stdout: the CUDA driver and runtime versions,
 *       the clock the decode figures come from, and every visible GPU by
 *       its index (the index tunectl's device leases name; CUDA ordinals
 *       in PCI bus order).  Exit 0 when at least one GPU is visible, 1
 *       (with "error" saying why) when none is.
 *
 *   gskw --config FILE [--log-dir DIR] [--archive-config] [--profile-out FILE]
 *        [--msprof-out DIR]
 *       runs workload.ranks rank processes, rank r on the r-th GPU of the
 *       device lease it runs under (SUPERKERNEL_DEVICE_IDS), else of
 *       CUDA_VISIBLE_DEVICES, else GPU r; each writes
 *       <log-dir>/log_<r>.log.  The log directory defaults to
 *       $TUNECTL_RUN_DIR (tunectl bench run); --archive-config copies the
 *       config into <log-dir>/config.yaml; --profile-out makes rank 0
 *       time every launch group; --msprof-out makes rank 0 time every
 *       launch on its stream with CUDA events and write what msprof and
 *       the SuperKernel compiler leave on an NPU into DIR
 *       (examples/msprof).  Exit 0 when every rank succeeded.
 *
 * The parent never touches CUDA: a CUDA context does not survive fork(),
 * and each rank must pick its GPU before CUDA starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "gskw.h"

static int
list_devices(void)
{
	struct gskw_probe probe;
	char err[256];
	int rc;

	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	rc = gskw_dev_probe(&probe);
	if (gskw_print_devices(stdout, &probe, getenv("CUDA_VISIBLE_DEVICES"),
	    err, sizeof(err)) != 0) {
		fprintf(stderr, "gskw: %s\n", err);
		return 1;
	}
	return rc == 0 && probe.count > 0 ? 0 : 1;
}

/* The config's bytes, unchanged, as <log_dir>/config.yaml (JSON is YAML). */
static int
archive_config(const char *config, const char *log_dir)
{
	tc_error e = TC_ERROR_INIT;
	char *dest = tc_xasprintf("%s/config.yaml", log_dir);
	size_t len;
	char *bytes = tc_read_file(config, 0, &len, &e);
	int rc = -1;

	if (bytes != NULL)
		rc = tc_write_atomic(dest, bytes, len, 0, &e);
	if (rc != 0)
		fprintf(stderr, "gskw: cannot archive the config as %s: %s\n",
		    dest, tc_error_msg(&e));
	tc_error_clear(&e);
	free(bytes);
	free(dest);
	return rc;
}

/* Lease ids count only under a lease (all markers set by the runner). */
static const char *
lease_ids(void)
{
	const char *held = getenv("SUPERKERNEL_DEVICE_LEASE_HELD");

	return held != NULL && strcmp(held, "1") == 0 ?
	    getenv("SUPERKERNEL_DEVICE_IDS") : NULL;
}

static int
run_ranks(const struct gskw_config *c, const struct gskw_args *a,
    const int *ids)
{
	int failed = 0, started = 0;

	for (int r = 0; r < c->ranks; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "gskw: fork: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		if (pid == 0) {
			fflush(NULL);
			_exit(gskw_rank_main(c, r, ids[r], a->log_dir,
			    a->profile_out, a->msprof_out));
		}
		started++;
	}
	for (int r = 0; r < started; r++) {
		int status;

		while (wait(&status) < 0)
			if (errno != EINTR) {
				fprintf(stderr, "gskw: wait: %s\n", strerror(errno));
				return 1;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	return failed;
}

int
main(int argc, char **argv)
{
	struct gskw_args a;
	struct gskw_config c;
	struct gskw_plan plan;
	struct msp_shape shape;
	int ids[GSKW_MAX_GPUS];
	char err[512];

	if (gskw_args_parse(argc, argv, getenv("TUNECTL_RUN_DIR"), &a, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "gskw: %s\n%s", err, GSKW_USAGE);
		return 2;
	}
	if (a.list_devices)
		return list_devices();
	if (gskw_config_load(a.config, &c, err, sizeof(err)) != 0) {
		fprintf(stderr, "gskw: %s\n", err);
		return 2;
	}
	/* a plan msprof's files cannot show is refused before any rank runs */
	plan = gskw_make_plan(c.scope);
	if ((a.msprof_out != NULL && gskw_trace_shape(&c, &plan, &shape, err,
	    sizeof(err)) != 0) ||
	    gskw_rank_devices(lease_ids(), getenv("CUDA_VISIBLE_DEVICES"),
	    c.ranks, ids, err, sizeof(err)) < 0) {
		fprintf(stderr, "gskw: %s\n", err);
		return 2;
	}
	if (mkdir(a.log_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "gskw: %s: %s\n", a.log_dir, strerror(errno));
		return 1;
	}
	if (a.archive_config && archive_config(a.config, a.log_dir) != 0)
		return 1;
	fflush(NULL);
	return run_ranks(&c, &a, ids);
}
