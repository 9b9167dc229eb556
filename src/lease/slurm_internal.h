/*
 * slurm_internal.h - what the src/lease/slurm*.c files share: running
 * Slurm's client programs (srun, scontrol, scancel, squeue), and the
 * names of the files the submitting side and the in-job step exchange
 * through the stage directory beside the manifest.
 */
#ifndef TUNECTL_SLURM_INTERNAL_H
#define TUNECTL_SLURM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* Files in the stage directory "<dir>/.<stem>.slurm.XXXXXX/". */
#define TC_SLURM_STAGE_SPEC	"spec.json"	/* submitter → step */
#define TC_SLURM_STAGE_JOB	"job.json"	/* step: allocation facts, at start */
#define TC_SLURM_STAGE_STEP	"step.json"	/* step: local runner's manifest */
#define TC_SLURM_STAGE_ERROR	"step-error.json"	/* step: why it could not run */

/*
 * Run a Slurm client program (looked up in PATH) to completion with
 * stdin from /dev/null, stdout captured (at most 16 MiB), stderr
 * captured separately, killed after timeout_s.  Returns the exit status
 * (>= 0; -signal when killed) with *out / *errout malloc'd, or -1 with
 * err set when it could not start ("[Errno 2] ...: 'scontrol'") or timed
 * out ("scontrol timed out after N seconds").
 */
int tc_slurm__capture(char *const *argv, double timeout_s, char **out,
    char **errout, tc_error *err);

/*
 * Start argv (PATH lookup) with stdin from /dev/null and both stdout and
 * stderr appended to log_fd, in this process's group.  Returns the pid or
 * -1 with err set.
 */
pid_t tc_slurm__spawn(char *const *argv, int log_fd, tc_error *err);

/* Realtime clock in nanoseconds, and its "…Z" timestamp. */
int64_t tc_slurm__now_ns(void);
void tc_slurm__format_ns(int64_t ns, char out[40]);

/* A job id as JSON: an int when all digits, else the string. */
tc_json *tc_slurm__job_id_json(const char *id);

#endif
