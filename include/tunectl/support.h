/*
 * support.h - support delegation: a phase asks for a support role (an
 * analyst or an executor, skills.h), tunectl writes a support task bound
 * to the session as it is now and runs one fresh worker for it through
 * the same agent hosts as run-next, in its own attempt directory
 * <artifact_root>/support/<role>-attempt-NNN/ with an immutable receipt.
 *
 * Support results are never sealed into the session: the phase worker
 * that asked reads the role's output and lists it (and the receipt) in
 * its own phase result, which is what gets sealed.
 *
 * While the worker runs, the artifact root is held to the role's
 * contract: a read-only role may change nothing outside its own output
 * directory, and no role may touch the session, the sealed phases, other
 * attempts or the evidence import.  Every entry of the root is digested
 * before and after (tc_tree_snapshot); any change the role may not make
 * refuses the support result, naming the changed paths.
 */
#ifndef TUNECTL_SUPPORT_H
#define TUNECTL_SUPPORT_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/host.h"
#include "tunectl/json.h"
#include "tunectl/skills.h"

#define TC_SUPPORT_TASK_SCHEMA		"tunectl-support-task-v1"
#define TC_SUPPORT_RESULT_SCHEMA	"tunectl-support-result-v1"
#define TC_SUPPORT_RECEIPT_SCHEMA	"tunectl-support-receipt-v1"
#define TC_SUPPORT_AREA			"support"
#define TC_SUPPORT_OUTPUT_DIR		"output"

/* The environment variable run-next and run export with the absolute
 * runner file, so that a worker's "support run" reuses its host. */
#define TC_RUNNER_ENV			"TUNECTL_RUNNER_COMMAND_JSON"

/*
 * The support task for role in the session at session_path as it is now
 * (the session is loaded and validated; its next pending step is the
 * phase the role serves).  request, when not NULL, is a file under the
 * artifact root (a path relative to it, or an absolute path inside it)
 * that the asking phase wrote for the role; it is bound by digest.
 * Refusals: a completed session, a role the current phase may not ask
 * for ("support role R is not available to phase P ..."), a request
 * outside the root or not a regular file.  Returns the task without
 * attempt fields; caller frees.
 */
tc_json *tc_support_task(const char *session_path, const char *role,
    const char *request, tc_error *err);

/* tc_support_task written atomically to output (pretty JSON). */
tc_json *tc_support_dispatch(const char *session_path, const char *role,
    const char *request, const char *output, tc_error *err);

/*
 * Validate a support result against its task: schema, session_id,
 * agent_id (the role), status (succeeded | blocked | failed), a
 * non-empty summary, produced_artifacts (relative paths inside the
 * attempt's output directory, existing regular files) and blockers (a
 * list).  Messages start "support result ".
 */
int tc_support_result_validate(const tc_json *result, const tc_json *task,
    tc_error *err);

typedef struct tc_support_opts {
	double timeout_s;		/* > 0 */
	double grace_s;
	const char *request;		/* NULL or a file for the role */
	const char *seal_program;	/* names tunectl in the phase task copy */
} tc_support_opts;

/*
 * Run one support attempt: task, host, result validation, the tree check
 * of the artifact root, receipt.  Returns 0 when the result was accepted;
 * -1 otherwise (err set).  *receipt gets the receipt written for the
 * attempt (caller frees) whenever an attempt directory was made, passed
 * or not; NULL when the run was refused before that.
 */
int tc_support_run(const char *session_path, const char *role,
    const tc_runner *runner, const tc_support_opts *opts, tc_json **receipt,
    tc_error *err);

/* The prompt of a support worker (the support task's counterpart of
 * tc_host_prompt).  malloc'd. */
char *tc_support_prompt(const tc_json *task, const char *task_path,
    const char *result_path, const char *host, const char *program,
    const char *skill_path, tc_error *err);

#endif
