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
#include "tunectl/lease.h"

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
 * stderr appended to log_fd, in this process's group, with SIGTERM as its
 * parent-death signal.  Returns the pid or -1 with err set.
 */
pid_t tc_slurm__spawn(char *const *argv, int log_fd, tc_error *err);

/* ---- the submitting side (slurm_submit.c, slurm_record.c) ---------------- */

/* What a validated request resolves to. */
struct tc_slurm__plan {
	char *manifest, *stdout_log, *stderr_log, *slurm_log;
	char *stage;			/* NULL until created */
	char *cwd, *lease_root, *exe;
	char fingerprint[72];
	char *gres_name, *gres_type;
	long gres_count;
	const char *gres;		/* as given (or the default) */
	const char *command_id;
	char *job_name, *comment;
	bool explicit_env;
	double grace_s;
	long time_limit_min;
	char *spec_text;		/* the step spec, serialised before anything is written */
	size_t spec_len;
};

enum tc_slurm__cancel {
	TC_SLURM_NOT_CANCELLED = 0,
	TC_SLURM_CANCEL_TIMEOUT,	/* the command ran past timeout_seconds */
	TC_SLURM_CANCEL_LEASE_TIMEOUT,	/* no allocation within the lease timeout */
	TC_SLURM_CANCEL_INTERRUPTED	/* tunectl itself got SIGTERM/SIGINT/SIGHUP */
};

/* What the watch saw. */
struct tc_slurm__watch {
	char **srun_argv;		/* malloc'd, NULL-terminated */
	int srun_status;		/* exit status, -signal, or -1000 if never started */
	char *job_id;			/* NULL: never learned */
	tc_json *job;			/* job.json of the step, or NULL */
	tc_json *step;			/* step.json (the local runner's manifest), or NULL */
	char *step_error;		/* step-error.json's message, or NULL */
	char *srun_error;		/* the last "srun: error:" line, or NULL */
	char *scontrol;			/* final "scontrol -o show job" line, or NULL */
	enum tc_slurm__cancel cancel;
	int cancel_signal;
	char cancelled_at[40];
	char requested_at[40];
	int64_t submitted_ns, started_ns, finished_ns;	/* realtime; 0: unknown */
	uint64_t submitted_mono, ended_mono;
};

/* slurm_record.c: the final manifest from the plan and what the watch
 * saw; *outcome set.  Renames the step's logs to their final names. */
tc_json *tc_slurm__manifest(const tc_lease_request *req,
    const struct tc_slurm__plan *p, struct tc_slurm__watch *w,
    tc_lease_outcome *outcome, tc_error *err);

/* Realtime clock in nanoseconds, and its "…Z" timestamp. */
int64_t tc_slurm__now_ns(void);
void tc_slurm__format_ns(int64_t ns, char out[40]);

/* A job id as JSON: an int when all digits, else the string. */
tc_json *tc_slurm__job_id_json(const char *id);

#endif
