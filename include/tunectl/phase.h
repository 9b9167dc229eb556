/*
 * phase.h - phase entrypoints (docs/spec/controller.md "Phase entrypoints"):
 * the phase manifests ("superkernel-phase-manifest-v1") shipped with tunectl,
 * the tools directory that holds an executable under each reference tool name,
 * and execute-phase: validate a phase task (staleness, routing), print the
 * phase's tool plan, or run one allowlisted tool under a device lease.
 */
#ifndef TUNECTL_PHASE_H
#define TUNECTL_PHASE_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"

#define TC_PHASE_MANIFEST_SCHEMA "superkernel-phase-manifest-v1"

/* Environment overrides of the share directory search. */
#define TC_TOOLS_DIR_ENV	"TUNECTL_TOOLS_DIR"
#define TC_PHASES_DIR_ENV	"TUNECTL_PHASES_DIR"
#define TC_SKILLS_DIR_ENV	"TUNECTL_SKILLS_DIR"

/*
 * Where tunectl's shipped data lives, for kind "tools", "phases" or
 * "skills":
 *   1. $TUNECTL_TOOLS_DIR / $TUNECTL_PHASES_DIR / $TUNECTL_SKILLS_DIR when
 *      set and non-empty
 *      (taken as is, never searched past);
 *   2. for the directory of the tunectl binary (self_exe, symlinks
 *      resolved), its parent, then its grandparent: first
 *      <dir>/share/tunectl/<kind> (installed: PREFIX/bin/tunectl finds
 *      PREFIX/share/tunectl/<kind>), then <dir>/share/<kind> (the source
 *      tree: build/tunectl or build/<name>/tunectl finds share/<kind>).
 * Returns the directory (malloc'd) or NULL with
 * "no tunectl <kind> directory found (set TUNECTL_..._DIR); searched: ...".
 */
char *tc_share_dir(const char *self_exe, const char *kind, tc_error *err);

/* A loaded phase manifest. */
typedef struct tc_phase_manifest {
	char *path;		/* absolute, resolved */
	tc_json *doc;		/* the document as read */
	const tc_json *phase;	/* views into doc (any JSON type, as the */
	const tc_json *agent_id;	/* reference compares them by value) */
	const tc_json *skill;
	char **tools;		/* runtime_tools, in order */
	size_t ntools;
	char *tools_dir;	/* where every tool was found */
} tc_phase_manifest;

/*
 * _load_manifest (docs/spec/controller.md "Phase manifest loading"), in order:
 * read and parse (Python's messages),
 * "phase manifest schema_version is invalid",
 * "phase manifest is missing required fields",
 * "phase manifest runtime_tools is invalid" (not a non-empty array of bare file
 * names), "phase manifest references missing runtime tools: a, b" (not a file
 * in tools_dir).
 */
int tc_phase_manifest_load(const char *path, const char *tools_dir,
    tc_phase_manifest **out, tc_error *err);
void tc_phase_manifest_free(tc_phase_manifest *m);

/* The manifest shipped for a phase name ("intake_preparation"):
 * <phases dir>/<phase>/phase.json.  malloc'd, or NULL. */
char *tc_phase_manifest_path(const char *self_exe, const char *phase,
    tc_error *err);

/*
 * docs/spec/controller.md "Execute-phase" steps 1-2: read the task at
 * task_path, validate it against its own session_path (the session controller's
 * staleness check, docs/spec/controller.md "Task staleness"), and require that
 * the current step's phase, agent_id and skill are the manifest's ("dispatch
 * task is assigned to a different phase agent").  On success *current is the
 * current task (caller frees).
 */
int tc_phase_check_task(const char *task_path, const tc_phase_manifest *m,
    tc_json **current, tc_error *err);

/* docs/spec/controller.md "Execute-phase" step 3: the plan printed without
 * --tool. */
tc_json *tc_phase_plan(const tc_phase_manifest *m, const tc_json *current);

typedef struct tc_phase_tool_run {
	const char *tool;		/* one of m->tools */
	const char *lease_root;
	const long *device_ids;
	size_t ndevices;
	double timeout_s;		/* default 600 */
	bool timeout_integral;		/* true when defaulted (recorded as 600) */
	const char *manifest_out;	/* NULL: <root>/phase-executions/<step>/<stem>.json */
	char *const *tool_args;		/* NULL-terminated */
} tc_phase_tool_run;

/*
 * docs/spec/controller.md "Execute-phase" step 4: run the tool through the
 * lease runner with cwd the artifact root and command id "<step_id>:<tool>".
 * Refuses with "--tool requires --lease-root and at least one --device-id".
 * Returns 0 with the lease manifest and outcome, or -1 (err set).
 */
int tc_phase_run_tool(const tc_phase_manifest *m, const tc_json *current,
    const tc_phase_tool_run *run, tc_json **lease_manifest,
    tc_lease_outcome *outcome, tc_error *err);

#endif
