/*
 * envcheck.h - the intake environment check ("tunectl env-check", also
 * installed as the reference tool name check_environment.py): the machine
 * facts a tuning session must freeze (CPU, frequency governor, kernel,
 * compilers, memory, GPUs through nvidia-smi, NPUs through npu-smi, load),
 * recorded as JSON evidence, and the missing prerequisites reported as
 * blockers.
 */
#ifndef TUNECTL_ENVCHECK_H
#define TUNECTL_ENVCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_ENVCHECK_SCHEMA "tunectl-environment-check-v1"

typedef struct tc_envcheck_opts {
	bool require_gpu;		/* no GPU → blocker gpu_unavailable */
	bool require_npu;		/* no NPU → blocker npu_unavailable */
	const char *const *require_compilers;	/* missing → compiler_missing */
	size_t nrequire_compilers;
	const char *const *extra_compilers;	/* probed, not required */
	size_t nextra_compilers;
	const char *require_governor;	/* any CPU on another → blocker */
	const char *sysroot;		/* NULL: "/"; /proc and /sys are read under it */
	double probe_timeout_s;		/* per external probe; <= 0: 10 */
} tc_envcheck_opts;

/*
 * Collect the report: {"schema_version", "collected_at", "status"
 * ("ready" | "blocked"), "blockers": [{"code","message"}], "warnings",
 * "host", "cpu", "memory", "load", "compilers", "gpus", "npus",
 * "environment", "fingerprint"}.  "fingerprint" is the SHA-256 of the
 * canonical JSON of the stable facts only (no load, time, free memory or
 * current clocks), so two runs on an unchanged machine agree.  Never
 * fails for a missing probe: that is a fact (or a blocker when required).
 */
tc_json *tc_envcheck_collect(const tc_envcheck_opts *opts, tc_error *err);

/* true when the report's status is "ready". */
bool tc_envcheck_ready(const tc_json *report);

#endif
