/*
 * pypto_cases.h - the Stage 5 case manifest (PERFORMANCE_CASES.json,
 * docs/spec/pypto.md "Case manifest"), its source record, the optional Golden
 * contract join (docs/spec/pypto.md "Golden reference") and tunectl's frozen
 * experiment contract (docs/perf/frozen_contract.json, docs/pypto.md).
 *
 * Messages of the manifest and Golden checks are the reference's
 * (golden_contract.py) byte for byte; the optimization_target rules,
 * which no reference script checks, use tunectl's own words.
 */
#ifndef TUNECTL_PYPTO_CASES_H
#define TUNECTL_PYPTO_CASES_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_PYPTO_FROZEN_CONTRACT	"docs/perf/frozen_contract.json"

typedef struct tc_pypto_case {
	char *id;		/* stripped */
	char *shape;
	char *dtype;
	char *test_function;	/* NULL when absent */
	bool has_golden;
	double golden_us;	/* Golden per-iteration E2E when joined */
} tc_pypto_case;

typedef struct tc_pypto_manifest {
	char *path;		/* resolved */
	tc_pypto_case *cases;
	size_t n;
	tc_json *doc;		/* the parsed document */
	/* the source record (docs/spec/pypto.md "Case manifest"), owned */
	tc_json *source;
	long golden_iterations;	/* 0 when not joined */
} tc_pypto_manifest;

void tc_pypto_manifest_free(tc_pypto_manifest *m);

/* parse_case_manifest(): cases and the source record with
 * golden_diagnostic {"status": "not_provided"}. */
int tc_pypto_manifest_load(const char *raw_path, tc_pypto_manifest *m,
    tc_error *err);

/* resolve_performance_cases(): load, then join
 * <op_dir>/GOLDEN_PERF_REPORT.json when it exists. */
int tc_pypto_manifest_resolve(const char *op_dir, const char *raw_path,
    tc_pypto_manifest *m, tc_error *err);

/* The optimization_target rules of a full Stage 5 contract: present,
 * non-empty unique case_ids within the manifest, selection_mode in the
 * enum, and its semantics (single_p0: exactly one P0 case; all_p0_no_
 * questions: every P0 case).  Returns 0 or -1. */
int tc_pypto_manifest_check_target(const tc_pypto_manifest *m, tc_error *err);

/* Every test_function names a module-level no-argument function of the
 * runner (test_<op>.py).  Messages follow the reference adapter. */
int tc_pypto_manifest_check_functions(const tc_pypto_manifest *m,
    const char *runner_path, tc_error *err);

/* performance_case_source_error(): NULL when the record re-validates,
 * else a malloc'd message. */
char *tc_pypto_case_source_error(const tc_json *record);

/* ---- Golden contract ------------------------------------------------------ */

typedef struct tc_pypto_golden_case {
	char *id, *shape, *dtype;
	double per_iteration_us;
} tc_pypto_golden_case;

typedef struct tc_pypto_golden {
	tc_pypto_golden_case *cases;
	size_t n;
	tc_json *metadata;	/* schema_version, device_id, iterations, ... */
} tc_pypto_golden;

void tc_pypto_golden_free(tc_pypto_golden *g);

/* parse_golden_contract(<dir>): 1 when loaded and valid, 0 when
 * GOLDEN_PERF_REPORT.json does not exist, -1 with the reference message. */
int tc_pypto_golden_load(const char *dir, tc_pypto_golden *g, tc_error *err);

/* The shape / dtype canonical forms the join compares (JSON arrays of
 * [name|null, ...]); NULL when the text does not parse. */
tc_json *tc_pypto_canonical_shape(const char *text);
tc_json *tc_pypto_canonical_dtype(const char *text);

/* ---- the frozen experiment contract -------------------------------------- */

typedef struct tc_pypto_freeze_opts {
	const char *op_dir;
	const char *manifest_path;
	const char *dispatch_path;	/* optional: must agree */
	const char *op_name;
	long warmup, repeats, retry;
	const char *timing_source;	/* process_timer | runner_reported */
	const char *case_arg, *case_env;
	const char *stability_kind;	/* absolute | relative */
	const char *stability_value;	/* decimal text, >= 0 */
	const char *promotion_rule;	/* free text, required */
	const char *weights_path;	/* optional JSON {case: weight} */
	const char *discovery_path;	/* docs/perf/discovery.json: the Op
					 * Name comes from it and is frozen
					 * with its digest */
} tc_pypto_freeze_opts;

/* Validate everything and write <op>/docs/perf/frozen_contract.json
 * exclusively (a contract is frozen once).  Returns the written
 * document. */
tc_json *tc_pypto_contract_freeze(const tc_pypto_freeze_opts *o,
    tc_error *err);

/* Load <op>/docs/perf/frozen_contract.json: 1 loaded, 0 absent, -1 bad. */
int tc_pypto_contract_load(const char *op_dir, tc_json **out, tc_error *err);

#endif
