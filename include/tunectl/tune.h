/*
 * tune.h - the workload spec "tunectl tune" reads (tune.yaml, version 1;
 * docs/workload-spec.md and docs/workload-spec.schema.json) and the plan it
 * freezes from it: the variants Stage A screens, the option matrix Stage O
 * searches after the constraints, every series of runs and what they cost.
 *
 * A spec is read whole or refused: every refusal is one message
 * "SPEC:LINE: what is wrong" naming the file and the line of the offending
 * node (libyaml's marks), so a user fixes it in one look.
 */
#ifndef TUNECTL_TUNE_H
#define TUNECTL_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_TUNE_SPEC_VERSION 1
/* Limits on what a spec may hold: beyond them it is refused, not read. */
#define TC_TUNE_MAX_BYTES (1u << 20)	/* the file */
#define TC_TUNE_MAX_NODES 20000		/* YAML events of the document */
#define TC_TUNE_MAX_POINTS 100000	/* the option matrix before constraints */
/* options.search exhaustive: Stage O's trials, each a series of gate.runs
 * runs (and its check) */
#define TC_TUNE_MAX_EXHAUSTIVE_TRIALS 256

/* A parameter value as written: numbers (plain YAML integers and floats)
 * also carry their value; anything else is a string. */
typedef struct tc_tune_value {
	char *text;
	bool is_num;
	double num;
} tc_tune_value;

typedef struct tc_tune_binding {
	char *name;
	tc_tune_value value;
} tc_tune_binding;

/* A structural variant Stage A screens: a name and the parameters it sets
 * (compiler flags, an algorithm...). */
typedef struct tc_tune_variant {
	char *name;
	tc_tune_binding *params;
	size_t nparams;
	unsigned line;
} tc_tune_variant;

/* A parameter of the option space Stage O searches, with its values. */
typedef struct tc_tune_param {
	char *name;
	tc_tune_value *values;
	size_t nvalues;
	unsigned line;
} tc_tune_param;

typedef struct tc_tune_expr tc_tune_expr;	/* a compiled constraint */

typedef struct tc_tune_constraint {
	char *text;
	unsigned line;
	tc_tune_expr *expr;
} tc_tune_constraint;

/* A command template: "{name}" is replaced by the value of a parameter or
 * a built-in name, "{{" and "}}" are literal braces. */
typedef struct tc_tune_command {
	char *command;		/* NULL when the spec has none */
	unsigned line;
	double timeout_s;	/* 0: none given */
	double estimate_s;	/* the user's estimate of one run; 0: none */
} tc_tune_command;

enum tc_tune_metric_from {
	TC_TUNE_FROM_STDOUT,
	TC_TUNE_FROM_STDERR,
	TC_TUNE_FROM_FILE,	/* a JSON file of the run, read by pointer */
	TC_TUNE_FROM_RANK_LOG	/* log_<rank>.log in the reference format */
};

enum tc_tune_search {
	TC_TUNE_ONE_AT_A_TIME,	/* one parameter changed per trial */
	TC_TUNE_EXHAUSTIVE	/* every point of the matrix */
};

typedef struct tc_tune_gate {
	long runs;			/* timed runs of a series */
	long warmup_runs;		/* discarded processes before a series */
	long warmup_samples;		/* leading samples dropped per log */
	char *stability_rule;		/* "spread" */
	double max_spread_pct;
	long series_attempts;		/* a disturbed series is measured again */
	double screen_remeasure_spread_pct; /* Stage A's screening measured
					 * again while a side spreads more;
					 * 0: absent (max_spread_pct) */
	double min_improvement_pct;
	double allow_p90_regression_pct;
	double allow_stddev_regression_pct;
	char *decide_by;		/* "mean" or "ci" */
	char *order;			/* "interleaved" or "sequential": how a
					 * comparison takes its runs */
} tc_tune_gate;

typedef struct tc_tune_spec {
	char *path;		/* as given */
	char *dir;		/* the directory holding it, absolute */
	char sha256[65];	/* of the spec's bytes */
	char *name;
	char *description;	/* NULL when none */
	tc_tune_command setup, build, run, check, profile;
	char **build_inputs;	/* relative to dir */
	size_t nbuild_inputs;
	char *check_expected;	/* NULL: none; a substring of stdout */
	struct {
		enum tc_tune_metric_from from;
		char *regex;	/* stdout, stderr; group 1 or the match */
		char *file;	/* file: relative to the run directory */
		char *pointer;	/* file: RFC 6901 */
		char *unit;
		bool higher_is_better;
	} metric;
	long ranks;
	tc_tune_variant *variants;
	size_t nvariants;
	tc_tune_param *params;
	size_t nparams;
	tc_tune_constraint *constraints;
	size_t nconstraints;
	enum tc_tune_search search;
	unsigned search_line;		/* 0 when the spec names no search */
	char *baseline_variant;		/* NULL when there are no variants */
	tc_tune_binding *baseline;	/* one per params[], in that order */
	tc_tune_gate gate;
} tc_tune_spec;

/* Read and check the spec at path.  Returns 0, or -1 with
 * "PATH:LINE: message" (or "PATH: message") in err. */
int tc_tune_spec_load(const char *path, tc_tune_spec **out, tc_error *err);

/* The same on text already read; name is what messages call the file,
 * dir the directory relative paths of the spec are resolved under. */
int tc_tune_spec_parse(const char *text, size_t len, const char *name,
    const char *dir, tc_tune_spec **out, tc_error *err);

void tc_tune_spec_free(tc_tune_spec *spec);

/* Expand a command template: "{name}" becomes lookup(name, ctx), or
 * stays "{name}" when that is NULL; "{{" and "}}" become "{" and "}".
 * The template must have passed the reader's checks.  Caller frees. */
char *tc_tune_expand(const char *tmpl,
    const char *(*lookup)(const char *name, void *ctx), void *ctx);

/* One configuration of a spec: a variant (NULL when the spec has none)
 * and a value per option parameter, in spec->params order (vals NULL:
 * the baseline's). */
typedef struct tc_tune_config {
	const tc_tune_variant *variant;
	const tc_tune_value *vals;
} tc_tune_config;

/* tc_tune_expand for configuration c: its parameters, {spec_dir},
 * {variant}, and {build_dir} / {run_dir} when given (NULL leaves them
 * as written).  Caller frees. */
char *tc_tune_expand_config(const tc_tune_spec *spec, const char *tmpl,
    const tc_tune_config *c, const char *build_dir, const char *run_dir);

/* The build cache key of c: SHA-256 over its expanded build command
 * ({build_dir} as written) and every build input's path and digest. */
int tc_tune_build_key(const tc_tune_spec *spec, const tc_tune_config *c,
    char key[65], tc_error *err);

/*
 * Build c once: CACHE/<key>/ is its build directory.  When
 * CACHE/<key>/build.json is there the build is reused (*reused set);
 * otherwise build.command runs there (sh -c, in the spec's directory,
 * under build.timeout, output in build.stdout.log and build.stderr.log)
 * and build.json (tunectl-tune-build-v1) is written only when it exited
 * 0.  *dir is the build directory (caller frees).  -1 with err naming the
 * spec's build line and the log when the build fails or times out.
 */
int tc_tune_build(const tc_tune_spec *spec, const tc_tune_config *c,
    const char *cache, char **dir, bool *reused, tc_error *err);

/*
 * One configuration made ready to run.  conf is {"variant": NAME (null or
 * absent: the baseline's), "params": {NAME: VALUE} (absent ones: the
 * baseline's)}; every value must be one the spec lists (a number matches
 * by value, a string by its text).  A configuration the constraints allow
 * is built through the cache (tc_tune_build; none without a build
 * command) and its run, check and profile commands expanded with run_dir
 * for {run_dir}.  Returns tunectl-tune-prepared-v1 {variant, params (as
 * text), allowed, broken_constraint, build_dir, build_reused, run, check,
 * profile} (no build and no commands when a constraint refuses it), or
 * NULL with err naming the spec line of what is wrong or the failed
 * build's log.
 */
tc_json *tc_tune_prepare(const tc_tune_spec *spec, const tc_json *conf,
    const char *cache, const char *run_dir, tc_error *err);

/* The built-in template names (NULL-terminated): spec_dir, build_dir,
 * run_dir, variant. */
extern const char *const tc_tune_builtins[];

/*
 * The frozen plan of a spec (tunectl-tune-plan-v1): the spec's digest,
 * the commands, the metric, the gate policy, the variants, the option
 * matrix after the constraints, the series of every phase with their runs
 * and builds, and a time estimate.  NULL with err set when a constraint
 * cannot be evaluated at some point of the matrix ("SPEC:LINE: ...") or a
 * build input is missing.
 */
tc_json *tc_tune_plan(const tc_tune_spec *spec, tc_error *err);

/* The plan in words, for a person. */
void tc_tune_plan_text(const tc_json *plan, tc_buf *out);

/* The run directory's record of the spec a tune session tunes
 * (tunectl-tune-run-v1: spec_path, spec_sha256, host), relative to the
 * artifact root. */
#define TC_TUNE_RECORD "tune/run.json"

/*
 * What a phase worker of a tune session is told beyond the phase prompt
 * (tc_host_prompt): the session tunes a workload spec, which the
 * SuperKernel skills do not read, so the phase is done by running its
 * generic worker through "PROGRAM tune SPEC --task TASK --result RESULT".
 * Appends that section to b when the task's artifact root holds
 * TC_TUNE_RECORD and returns 1; 0 (nothing appended) for any other
 * session; -1 with err set when the record cannot be read.
 */
int tc_tune_prompt(tc_buf *b, const tc_json *task, const char *task_path,
    const char *result_path, const char *program, tc_error *err);

#endif
