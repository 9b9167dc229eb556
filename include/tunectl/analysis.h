/*
 * analysis.h - profile analysis after msprof: the SuperKernel fusion
 * performance analysis ("tunectl analyze fusion", the reference's
 * analyze_fusion_performance.py).
 *
 * Two kernel_details.csv files (SuperKernel off and on), the fused-node
 * metadata and the run's configs and workloads go in; out comes the
 * per-SK verdict document of schema "1.2" (profiling-analysis-result.json)
 * and, on request, its Chinese Markdown report.  Both are written
 * together or not at all.  docs/analysis.md describes every field.
 */
#ifndef TUNECTL_ANALYSIS_H
#define TUNECTL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

/* The reference's floor on --min-occurrences. */
#define TC_ANALYSIS_HARD_MIN_OCCURRENCES 3

struct tc_analysis_thresholds {
	double min_relative_change_pct;	/* default 3.0 */
	double min_absolute_change_us;	/* default 1.0 */
	long min_occurrences;		/* the effective value, >= 3 */
};

/* The command line of "tunectl analyze fusion"; NULL for an option not
 * given.  Paths are as typed. */
struct tc_fusion_args {
	const char *baseline_profile, *candidate_profile, *sk_meta;
	const char *baseline_config, *candidate_config;
	const char *baseline_workload, *candidate_workload;
	const char *declared_change_set;
	const char *candidate_name, *experiment_id, *round_id;
	const char *analysis_agent_id, *source_revision;
	const char *sk_prof, *environment_evidence, *source_scope_map;
	const char *source_root;
	const char *baseline_collection_manifest, *profile_collection_manifest;
	double min_relative_change_pct, min_absolute_change_us;
	long min_occurrences;		/* as given (the floor applies inside) */
	const char *json_out, *markdown_out;
};

/*
 * Run the analysis and write its outputs.  Returns the analysis document
 * (the caller frees it) or NULL with err set to the message the reference
 * prints after "error: " (every failure here is a usage or input error,
 * exit 2).  Option checks that argparse makes (trimmed identities, the
 * round of the candidate, threshold ranges) are tc_fusion_args_check's.
 */
tc_json *tc_analysis_fusion(const struct tc_fusion_args *args, tc_error *err);
/* The same without the tree: the document of a million-row profile
 * (some 300 MB) is never held, not even as text, but streamed to its
 * file.  0 with, when json_fd is not NULL, *json_fd open for reading on
 * the analysis.json just written (the text of tc_json_pretty), at its
 * start, for the caller to read or copy and close; -1 with err as
 * above.  tc_analysis_fusion() reads and parses that file. */
int tc_analysis_fusion_write(const struct tc_fusion_args *args, int *json_fd,
    tc_error *err);

/* The checks the reference makes right after parsing its arguments;
 * -1 with the message in err. */
int tc_fusion_args_check(const struct tc_fusion_args *args, tc_error *err);

/* round_belongs_to_candidate(): both trimmed and non-empty, and round_id
 * is "<candidate>-" + AUTO, BASE, P<n> (n >= 1, no leading zero) or FINAL. */
bool tc_round_belongs_to_candidate(const char *candidate, const char *round);

/* float(text) and int(text) of Python, as argparse's type=float and
 * type=int read an argument; false where Python raises ValueError (or,
 * for int, the value does not fit a long). */
bool tc_analysis_py_float(const char *text, double *out);
bool tc_analysis_py_int(const char *text, long *out);

/* The zh Markdown report of an analysis document (render_report of the
 * reference), after checking the document as the renderer does; NULL
 * with err when the document is refused.  malloc'd. */
char *tc_analysis_markdown(const tc_json *report, tc_error *err);

/* source_scope_map_v2.py validate: load the map at path and check it
 * fail-closed against the source revision and, when not NULL, the
 * SHA-256 of the candidate and baseline collection manifests and the
 * current source root.  The status ("exact", or "diagnostic_only" for a
 * map without the v2 protocol), or NULL with the reference's message
 * (docs/analysis.md "Source scope maps").  malloc'd. */
char *tc_source_scope_map_validate(const char *path,
    const char *source_revision, const char *candidate_manifest_sha256,
    const char *baseline_manifest_sha256, const char *source_root,
    tc_error *err);

/* The artifacts of a source_scope_map_v2 provenance, in the reference's
 * order (provenance_dag ... baseline_collection_manifest), then the two a
 * stable_source map adds (calibration_source_manifest,
 * marker_only_calibration). */
#define TC_SMAP_NARTIFACTS 10
extern const char *const tc_smap_artifact_keys[TC_SMAP_NARTIFACTS + 2];

struct tc_smap_build_args {
	const char *artifact_root;
	const char *stable_marker_revision, *stable_source_revision;
	const char *artifacts[TC_SMAP_NARTIFACTS];	/* in that order */
	const char *calibration_source_manifest, *marker_only_calibration;
	const char *source_snapshot_root, *calibration_source_snapshot_root;
};
/* source_scope_map_v2.py build: the map of the artifacts under
 * artifact_root (docs/analysis.md "Source scope maps"), or NULL with the
 * reference's message. */
tc_json *tc_source_scope_map_build(const struct tc_smap_build_args *a,
    tc_error *err);

/* validate_manifest_set of collection manifests: roles[i] (in the
 * reference's order baseline_profile, candidate_compat, candidate_verify,
 * candidate_profile) read from paths[i].  The summary, with its
 * set_fingerprint, or NULL with the reference's message. */
tc_json *tc_collection_validate_set(const char *const *roles,
    const char *const *paths, size_t n, tc_error *err);
/* validate-set's --json-out against the manifests of the set: -1 with
 * "validation output overlaps capture input" when out is one of them or
 * lies in a capture root (a manifest's directory), as the reference
 * checks it before publishing. */
int tc_collection_output_check(const char *out, const char *const *paths,
    size_t n, tc_error *err);

/* artifact_contract.py begin: publish the session record at session_out
 * (outside the capture root, which must be empty) and the root marker;
 * the record, or NULL with the reference's message. */
tc_json *tc_collection_begin(const char *role, const char *root,
    const char *session_out, tc_error *err);

struct tc_collection_finalize_args {
	const char *session, *source_revision, *command_fingerprint;
	long long native_pid, started_ns, ended_ns;
	const char *workload, *config, *control, *out;
	const char *const *files;	/* ROLE=RELATIVE_PATH */
	size_t nfiles;
};
/* artifact_contract.py finalize: the manifest of the capture, written to
 * out (directly in the capture root, never replacing a file); NULL with
 * the reference's message. */
tc_json *tc_collection_finalize(const struct tc_collection_finalize_args *a,
    tc_error *err);

/* The analysis_content_fingerprint of report: SHA-256 of the ASCII
 * canonical JSON of the document without that key. */
int tc_analysis_content_fingerprint(const tc_json *report, char hex[65],
    tc_error *err);

/* ---- "tunectl analyze sk-meta" (skm_summary.c) ------------------------- */

/* The command line of the SuperKernel metadata summary (the reference's
 * analyze_sk_meta.py). */
struct tc_sk_meta_args {
	const char *root;		/* scanned recursively; may be missing */
	long sample_limit;		/* 20: the top-N and sample size */
	const char *round_name;		/* NULL, or round_report.round_name */
	const char *scope_kind;		/* NULL (from round_name), "manual" or
					 * "automatic_aot" */
	long effective_min_child_nodes;	/* 5: descriptive threshold */
};

/* The summary document of the metadata under a->root (sk_inventory,
 * round_report, ... fusion_proven); NULL with err when a log cannot be
 * read.  A root without logs gives model_count 0. */
tc_json *tc_sk_meta_summary(const struct tc_sk_meta_args *a, tc_error *err);

/* The deep auto-scope plan of a summary: every reliable fused group as a
 * manual-scope candidate, deepest first.  min_child_nodes is recorded,
 * never applied. */
tc_json *tc_sk_meta_plan(const tc_json *summary, long min_child_nodes,
    long sample_limit);

/* The fusion replay of "analyze sk-meta --verify-root" (skm_replay.c). */
struct tc_sk_meta_replay_args {
	const char *compat_root, *verify_root;
	const char *compat_manifest, *verify_manifest;	/* config manifests */
	const char *candidate_name, *round_id, *source_revision; /* trimmed */
	const char *artifact_base;	/* NULL: the common directory of the
					 * roots and manifests */
	long min_child_nodes;		/* >= 1 */
};

/* The replay report: the effective fused groups of both roots matched by
 * signature, fusion_reproducible and its failure_reason.  NULL with err
 * only when a path cannot be resolved or a log cannot be read. */
tc_json *tc_sk_meta_replay(const struct tc_sk_meta_replay_args *a,
    tc_error *err);

/* The reference's validate_replay_report: a replay report at path is
 * trusted only when recomputing it from the roots and manifests it names
 * (relative to its directory) gives the same report and the fusion is
 * reproduced.  {path, valid, checks{13}, failure_reason, ...}; never NULL.
 * An expectation NULL is not checked. */
tc_json *tc_sk_meta_validate_replay(const char *path,
    const char *expected_candidate, const char *expected_round,
    const char *expected_revision);

#endif
