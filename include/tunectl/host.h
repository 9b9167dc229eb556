/*
 * host.h - handing phases to workers: run-next (docs/spec/controller.md
 * "Run-next and receipts"), the run loop on top of it, and the child prompt
 * every agent host gives a fresh worker (docs/spec/controller.md
 * "Host delegation").
 *
 * A worker is started through an agent host: an argv (agent-runner-v1)
 * to which tunectl appends "--task <abs> --result <abs>".  Each attempt
 * lives in <artifact_root>/dispatches/<step_id>-attempt-NNN/ with the
 * task, the host's logs, the result it wrote and an immutable
 * dispatch-receipt.json.
 */
#ifndef TUNECTL_HOST_H
#define TUNECTL_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_RUN_NEXT_DEFAULT_TIMEOUT_S	3600.0
#define TC_RUN_NEXT_DEFAULT_GRACE_S	10.0
#define TC_ATTEMPT_LIMIT		9999

/* A runner argv: a NULL-terminated, malloc'd array of malloc'd strings. */
typedef struct tc_runner {
	char **argv;
	size_t argc;
} tc_runner;

/* Validate an agent-runner-v1 document (a non-empty array of non-empty
 * strings): "runner_argv must be a non-empty string list". */
int tc_runner_from_json(const tc_json *doc, tc_runner *out, tc_error *err);
/* Read and validate a runner command file. */
int tc_runner_load(const char *path, tc_runner *out, tc_error *err);
void tc_runner_free(tc_runner *r);
/* _digest(runner_argv): the receipts' runner_argv_sha256. */
int tc_runner_digest(const tc_runner *r, char hex[65], tc_error *err);

typedef struct tc_run_next_opts {
	double timeout_s;		/* > 0; default 3600 */
	double grace_s;			/* SIGTERM -> SIGKILL grace for the host's group */
	const char *seal_program;	/* names tunectl in the task's seal_command */
} tc_run_next_opts;

/* What one attempt did, for progress lines (owned strings). */
typedef struct tc_attempt_report {
	char *step_id;
	char *phase;
	int attempt;			/* 0 when no attempt directory was made */
	const char *runner_status;	/* "passed" | "failed" | "timed_out" | NULL */
	char *outcome_status;		/* the sealed status when passed (owned) */
	double seconds;
	bool recovered;			/* an interrupted earlier attempt was repaired */
	char *quarantined;		/* planted files strict run-next moved
					 * aside before it sealed, ", "-joined
					 * (owned; NULL when none) */
} tc_attempt_report;

void tc_attempt_report_free(tc_attempt_report *r);

/*
 * run_agent_step: dispatch the next step to a fresh host process and seal
 * its result.  Returns the sealed session document (caller frees), or
 * NULL with err set to the reference's message; failed, timed-out and
 * invalid attempts keep the step pending and leave their attempt
 * directory (with a receipt) on disk.
 *
 * Beyond the reference: a timeout ends the host's whole process group;
 * logs are streamed to files; the result is refused as stale when the
 * session changed while the host ran; two run-next on one session never
 * run at once; and a seal whose receipt was lost to a crash is completed
 * by the next run-next.
 */
tc_json *tc_run_next(const char *session_path, const tc_runner *runner,
    const tc_run_next_opts *opts, tc_attempt_report *report, tc_error *err);

/* Called after every attempt of tc_run_session: the attempt, whether it
 * sealed its step, and the error when it did not. */
typedef void (*tc_run_progress)(const tc_attempt_report *attempt, bool sealed,
    const char *error, void *ctx);

/*
 * run-next until the session is completed, or until one step has failed
 * max_attempts attempts in a row ("step <id> failed N attempts in a row;
 * ..."), or the session refuses to dispatch.  Returns the final session
 * document (caller frees) or NULL with err set.
 */
tc_json *tc_run_session(const char *session_path, const tc_runner *runner,
    const tc_run_next_opts *opts, long max_attempts, tc_run_progress progress,
    void *ctx, tc_error *err);

/*
 * The prompt a fresh phase worker receives.  It carries the five things
 * docs/spec/controller.md "Host delegation" requires: the task path with the
 * step's agent_id, phase and skill; the instruction to load and follow the
 * skill; the validation command to run first; the exact result path and schema;
 * and the boundary that the worker owns only this phase.  host is "claude",
 * "codex", "opencode" or "generic".  program names tunectl in the commands.
 * skill_path, when not NULL, is the absolute path of the skill's SKILL.md,
 * named in the prompt so that the worker opens exactly that file.  malloc'd.
 */
char *tc_host_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    const char *skill_path, tc_error *err);

#endif
