/*
 * lease.h - shared device leases (docs/spec/controller.md "Device leases"): one
 * flock'd lock file per device under a lease root, taken in ascending device
 * order under a single deadline, the three parent markers that let a child
 * inherit its parent's lease, and the lease runner that runs one command under
 * a lease and records a "superkernel-shared-device-lease-command-v2"
 * manifest.
 *
 * Beyond the reference: waiters for one device are served in arrival
 * order through a ticket queue beside its lock file, and every manifest
 * carries a "lease_accounting" object (how long the command waited for its
 * lease and how long it held it).  docs/leases.md describes both.
 */
#ifndef TUNECTL_LEASE_H
#define TUNECTL_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_LEASE_COMMAND_SCHEMA	"superkernel-shared-device-lease-command-v2"

#define TC_LEASE_ENV_HELD	"SUPERKERNEL_DEVICE_LEASE_HELD"
#define TC_LEASE_ENV_IDS	"SUPERKERNEL_DEVICE_IDS"
#define TC_LEASE_ENV_ROOT	"SUPERKERNEL_DEVICE_LEASE_ROOT"

#define TC_LEASE_DEFAULT_COMMAND_ID "parent-command"

/* ---- device ids --------------------------------------------------------- */

/*
 * Sort a copy of ids and check it: non-empty, unique, non-negative.
 * Fails with "device_ids must be sorted unique non-negative integers".
 * On success *out is a malloc'd ascending array of n ids.
 */
int tc_lease_ids_canonical(const long *ids, size_t n, long **out,
    tc_error *err);

/* "0,1": ascending ids joined by ",".  malloc'd. */
char *tc_lease_ids_join(const long *ids, size_t n);

/* ---- parent markers and the child environment --------------------------- */

/*
 * parent_lease_held: does envp (NULL-terminated "NAME=value" strings)
 * carry a parent lease for exactly these ids and this (resolved) root?
 * Returns 1 (all three markers, exact values), 0 (no marker) or -1 with
 * "parent device lease markers are incomplete" or
 * "parent device lease marker mismatch: <NAME>".
 */
int tc_lease_parent_held(const long *ids, size_t n, const char *lease_root,
    char *const *envp, tc_error *err);

/*
 * lease_environment: a copy of envp with the three markers set for ids
 * and lease_root.  Refuses an envp holding some but not all markers
 * ("device lease environment contains partial parent markers") or a
 * marker with another value ("device lease environment conflicts with
 * <NAME>").  Returns a malloc'd NULL-terminated array (tc_envp_free).
 */
char **tc_lease_environment(char *const *envp, const long *ids, size_t n,
    const char *lease_root, tc_error *err);

/*
 * _validate_environment: an explicit environment document (a JSON object
 * of string values) as a sorted envp.  Names must match
 * [A-Za-z_][A-Za-z0-9_]*, must not look like secrets (TOKEN, PASSWORD,
 * PASSWD, SECRET, PRIVATE, CREDENTIAL, API_KEY, ACCESS_KEY, AUTHORIZATION,
 * COOKIE, case-insensitive), values must be strings without NUL.
 */
char **tc_lease_env_from_json(const tc_json *doc, tc_error *err);

/* The value of NAME in envp, or NULL. */
const char *tc_envp_get(char *const *envp, const char *name);
/* A malloc'd copy of a NULL-terminated envp. */
char **tc_envp_dup(char *const *envp);
void tc_envp_free(char **envp);

/* ---- device locks --------------------------------------------------------- */

/* One acquired device lock. */
typedef struct tc_lease_lock {
	long device_id;
	int fd;				/* the flock'd lock file */
	char acquired_at[40];		/* "2026-09-05T01:02:03.123456Z" */
	uint64_t acquired_ns;		/* CLOCK_MONOTONIC */
} tc_lease_lock;

/* The locks of one acquisition, in ascending device order. */
typedef struct tc_lease_hold {
	tc_lease_lock *locks;
	size_t len;
	long timed_out_device;		/* after TC_LEASE_TIMEOUT: the device */
} tc_lease_hold;

#define TC_LEASE_HOLD_INIT { NULL, 0, -1 }

enum {
	TC_LEASE_ACQUIRED = 0,
	TC_LEASE_TIMEOUT = 1,		/* err: "timed out acquiring NPU device lease <id>" */
	TC_LEASE_LOCK_ERROR = -1	/* I/O error creating or locking a file */
};

/*
 * device_leases: create lease_root (with parents) and lock
 * "<lease_root>/npu-device-<id>.lock" for each id in ascending order,
 * under one deadline of timeout_s seconds for the whole acquisition.
 * Waiters for a device are served in arrival order (see docs/leases.md).
 * After taking a lock its file is truncated and rewritten with
 * {"pid": P, "device_id": N, "acquired_at": "...Z", "command_id": "..."}.
 * On timeout or error every lock already taken is released.
 */
int tc_lease_acquire(const char *lease_root, const long *ids, size_t n,
    double timeout_s, const char *command_id, tc_lease_hold *hold,
    tc_error *err);

/* Release in reverse order (unlock, close). */
void tc_lease_release(tc_lease_hold *hold);

/* The lock file of a device under a root: "<root>/npu-device-<id>.lock".
 * malloc'd. */
char *tc_lease_lock_path(const char *lease_root, long device_id);

/* ---- the lease runner ------------------------------------------------------ */

typedef struct tc_lease_request {
	char *const *argv;		/* NULL-terminated; argv[0] absolute */
	const char *lease_root;
	const long *device_ids;		/* as given; sorted by the runner */
	size_t ndevices;
	double timeout_s;		/* command timeout */
	bool timeout_integral;		/* record the timeout as a JSON int */
	bool has_lease_timeout;
	double lease_timeout_s;		/* default: timeout_s */
	const char *cwd;
	const char *manifest_out;
	const tc_json *environment;	/* NULL: inherit this process's */
	const char *command_id;		/* NULL: "parent-command" */
	double grace_s;			/* SIGTERM→SIGKILL; <= 0: min(5, timeout) */
} tc_lease_request;

typedef enum tc_lease_outcome {
	TC_LEASE_PASSED = 0,
	TC_LEASE_FAILED = 1,
	TC_LEASE_BLOCKED = 2
} tc_lease_outcome;

enum {
	TC_LEASE_EINPUT = -1,		/* refused before anything was written */
	TC_LEASE_EIO = -2		/* failed after validation (e.g. writing the manifest) */
};

/*
 * run_command: validate the request (the reference's messages, nothing
 * written on failure), take or inherit the lease, run argv in its own
 * session with stdout/stderr streamed to "<manifest stem>.stdout.log" /
 * ".stderr.log" (created exclusively), kill the whole process group on
 * timeout (SIGTERM, grace, SIGKILL) and when the command's leader exits,
 * release the lease, then write the manifest exclusively and atomically.
 * Returns 0 with *manifest (caller frees) and *outcome set, or
 * TC_LEASE_EINPUT / TC_LEASE_EIO with err set.
 */
int tc_lease_run(const tc_lease_request *req, tc_json **manifest,
    tc_lease_outcome *outcome, tc_error *err);

/* "passed" / "failed" / "blocked" */
const char *tc_lease_outcome_name(tc_lease_outcome o);

/* Lease command manifest fingerprint: "sha256:" + SHA-256 of the
 * canonical form (allow_nan=False) of the manifest without
 * "manifest_fingerprint".  out: 72 bytes. */
int tc_lease_manifest_fingerprint(const tc_json *manifest, char out[72],
    tc_error *err);

/* ---- status ---------------------------------------------------------------- */

/*
 * Which devices under lease_root are held (by which pid, since when, for
 * which command: the lock files' informational content) and which are
 * free, plus how many waiters are queued for each.  Takes no lock that a
 * waiter could notice beyond an instant's shared probe.
 */
tc_json *tc_lease_status(const char *lease_root, tc_error *err);

/* ---- timestamps -------------------------------------------------------------- */

/* Python's datetime.now(timezone.utc).isoformat() with "+00:00" spelled
 * "Z": "2026-09-05T01:02:03.123456Z" (no fraction when it is zero). */
void tc_lease_timestamp(char out[40]);

#endif
