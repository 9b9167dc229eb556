/*
 * slurm.h - device leases on a Slurm cluster: Slurm's generic resources
 * (GRES) are the lease.  "tunectl lease run --via slurm" submits the
 * command with srun; inside the job a small step ("tunectl lease
 * slurm-step") learns which devices Slurm allocated and runs the command
 * through the local lease runner (tc_lease_run) on exactly those ids, so
 * the three lease markers, the node-local lock files, the logs and the
 * manifest are the local runner's.  The submitting side then adds a
 * "slurm" object (job id, node, devices, queue wait, run time, final job
 * state) and writes the lease command manifest.
 *
 * "tunectl lease status --via slurm" summarises the cluster's GRES and
 * which jobs (tunectl's are named "tunectl:<command-id>") hold them.
 * docs/slurm.md is the user and admin guide.
 */
#ifndef TUNECTL_SLURM_H
#define TUNECTL_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"

#define TC_SLURM_STEP_SCHEMA	"tunectl-slurm-step-v1"
#define TC_SLURM_JOB_PREFIX	"tunectl:"
#define TC_SLURM_DEFAULT_GRES	"gpu:1"

typedef struct tc_slurm_request {
	/* The local runner's request.  device_ids/ndevices are unused:
	 * Slurm chooses the devices. */
	tc_lease_request lease;
	const char *gres;		/* "gpu:N", "npu:N", "gpu:a100:N"; NULL: gpu:1 */
	const char *partition;		/* NULL: the cluster's default */
	char *const *slurm_args;	/* extra srun arguments, NULL-terminated (or NULL) */
	const char *program;		/* absolute tunectl path on the nodes */
} tc_slurm_request;

/*
 * Run req->lease.argv as a Slurm job holding req->gres and record the
 * lease command manifest (every field of the local runner's, plus
 * "slurm").  Outcomes and return values are tc_lease_run's: passed,
 * failed (command_nonzero, command_timeout, ..., or the Slurm job ending
 * without the step's record: "slurm_job_<state>"), blocked (no
 * allocation within the lease timeout, or the allocation refused).
 */
int tc_slurm_lease_run(const tc_slurm_request *req, tc_json **manifest,
    tc_lease_outcome *outcome, tc_error *err);

/*
 * The in-job half: read the step spec the submitting side wrote, find
 * the allocated devices, record them, run the command under the local
 * lease runner.  Returns the exit status to use (0 passed, 1 failed,
 * 2 blocked), or -1 with err set (also recorded for the submitter).
 */
int tc_slurm_step_run(const char *spec_path, tc_error *err);

/* The cluster's GRES: totals, allocations and holders.  partition NULL:
 * every partition. */
tc_json *tc_slurm_status(const char *partition, tc_error *err);

/* ---- parsing (exposed for tests) ------------------------------------------ */

/*
 * "gpu:2", "npu:1", "gpu:a100:2" (optionally "gres:" in front) →
 * name "gpu", type "a100" or NULL, count.  Fails with
 * "invalid --gres value: '<spec>' (expected NAME[:TYPE]:COUNT, e.g. gpu:2)".
 */
int tc_slurm_gres_parse(const char *spec, char **name, char **type,
    long *count, tc_error *err);

/*
 * Device ids in a list such as "0-1,3" or "0,2" (Slurm's IDX and
 * SLURM_STEP_GPUS forms).  *ids malloc'd, ascending, unique.  -1 on a
 * malformed list.
 */
int tc_slurm_ids_parse(const char *list, long **ids, size_t *n);

/*
 * From a GRES allocation string as "scontrol -d show job" prints it
 * ("npu:2(IDX:0-1),gpu:a100:1(IDX:0)"), the ids of GRES name.
 * Returns 0 (found; *ids malloc'd), 1 (name not allocated), -1 malformed.
 */
int tc_slurm_gres_idx(const char *alloc, const char *name, long **ids,
    size_t *n);

/*
 * The value of KEY in one "scontrol -o show ..." line ("Key=value",
 * space-separated), malloc'd; NULL when absent.  Only for values without
 * spaces (JobState, NodeList, GRES, ...).
 */
char *tc_slurm_field(const char *line, const char *key);

#endif
