/*
 * cmd_gate.c - "tunectl gate": the measurement gates of the reference tool
 * analyze_performance.py.  "gate analyze" takes exactly the reference's
 * flags (plus tunectl's optional extensions) and behaves like the
 * reference: table on stdout, report via --json-out, exit 0 whatever the
 * verdict, 2 for every reference ValueError, 1 where the reference dies
 * with a traceback.  stability / promote / screen / option-trial are the
 * same command with the mode fixed; option-matrix validates a winner
 * option matrix v1; stage-a-options checks Stage-A configs before they
 * run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/bench.h"
#include "tunectl/fileio.h"

#define REF_USAGE \
	"[--candidate NAME=DIR]... [--replay-evidence NAME=JSON]...\n" \
	"         [--promotion-mode NAME=range_optimized|whole_scope]... [--selection-only]\n" \
	"         [--option-trial] [--screening-matrix JSON] [--warmup INT] [--expected-ranks INT]\n" \
	"         [--min-improvement-pct FLOAT] [--allow-p90-regression-pct FLOAT]\n" \
	"         [--allow-stddev-regression-pct FLOAT] [--json-out FILE]\n" \
	"         [--significance] [--bootstrap-resamples N] [--bootstrap-seed N]\n" \
	"         [--strict-environment] [--reference-output] [--replay-validator CMD]\n" \
	"         [--require-pass]\n"

#define REF_HELP \
	"\nSummarize multi-rank inference logs and compare SuperKernel candidates.\n" \
	"\nReference flags (analyze_performance.py):\n" \
	"  --baseline DIR        run-set directory of the baseline (S0 or incumbent)\n" \
	"  --candidate NAME=DIR  a candidate run set (repeatable)\n" \
	"  --replay-evidence NAME=JSON\n" \
	"                        NAME=deep-fusion replay-report JSON for the same candidate\n" \
	"  --promotion-mode NAME=MODE\n" \
	"                        NAME=range_optimized|whole_scope; range_optimized is the default\n" \
	"                        and requires replay evidence\n" \
	"  --selection-only      rank clean S candidates and select one for later profiling; this\n" \
	"                        does not make a final promotion decision\n" \
	"  --option-trial        compare one winner option trial against a stable five-run\n" \
	"                        incumbent; this is an incremental option decision, not final\n" \
	"                        promotion\n" \
	"  --screening-matrix JSON\n" \
	"                        superkernel-screening-matrix-v2 JSON; required with\n" \
	"                        --selection-only and rejected for final promotion\n" \
	"  --warmup INT          leading decode samples dropped per rank log (default 8)\n" \
	"  --expected-ranks INT  rank logs required in every run directory (default 8)\n" \
	"  --min-improvement-pct FLOAT\n" \
	"                        minimum mean improvement for screening/final promotion; option\n" \
	"                        trials always require strictly positive gain without a fixed\n" \
	"                        percentage threshold (default 2.0)\n" \
	"  --allow-p90-regression-pct FLOAT     (default 0.0)\n" \
	"  --allow-stddev-regression-pct FLOAT  (default 0.0)\n" \
	"  --json-out FILE       write the report (ASCII JSON, indent 2); parents are created;\n" \
	"                        FILE.provenance.json records the options (tunectl)\n" \
	"\ntunectl extensions (never change a verdict unless asked):\n" \
	"  --significance        a candidate also needs the bootstrap 95% interval of its\n" \
	"                        improvement to lie above 0\n" \
	"  --bootstrap-resamples N  bootstrap rounds (default 10000)\n" \
	"  --bootstrap-seed N    bootstrap seed (default 8391162081785326641)\n" \
	"  --strict-environment  refuse run sets whose runset.json environment\n" \
	"                        fingerprints differ or are missing (default: warn)\n" \
	"  --reference-output    omit the \"tunectl\" key: the reference's report only\n" \
	"                        (and summarise two logs of one rank as it does)\n" \
	"  --replay-validator CMD\n" \
	"                        run CMD REPORT NAME to recompute a replay report (see below)\n" \
	"  --require-pass        exit 1 when the gate's verdict is negative\n" \
	"\nNot reproduced: the reference validates replay evidence with an external analyser\n" \
	"(analyze_sk_meta.validate_replay_report) whose recomputation from SK metadata is not\n" \
	"specified.  tunectl applies the specified checks (candidate name, round id, source\n" \
	"revision, artifact paths, replay_min_child_nodes) and then refuses the report with\n" \
	"failure_reason replay_recomputation_unavailable, unless --replay-validator names a\n" \
	"program that prints the validation JSON object (with a boolean \"valid\").\n" \
	"whole_scope candidates need no replay.  See docs/measurement.md.\n"

/* Usage lines (printed with every usage error, as argparse does) ... */
static const struct tc_command gate_cmds[] = {
	{ "gate analyze", "analyze_performance.py: every mode",
	  "usage: tunectl gate analyze --baseline DIR " REF_USAGE, NULL },
	{ "gate stability", "the S0 five-run stability gate",
	  "usage: tunectl gate stability --baseline DIR [--warmup INT] [--expected-ranks INT]\n"
	  "         [--json-out FILE] [--reference-output] [--require-pass]\n", NULL },
	{ "gate promote", "final promotion of candidates against a frozen baseline",
	  "usage: tunectl gate promote --baseline DIR " REF_USAGE, NULL },
	{ "gate screen", "Stage-A screening (--selection-only implied)",
	  "usage: tunectl gate screen --baseline DIR --screening-matrix JSON " REF_USAGE,
	  NULL },
	{ "gate option-trial", "one winner option trial (--option-trial implied)",
	  "usage: tunectl gate option-trial --baseline DIR --candidate NAME=DIR " REF_USAGE,
	  NULL },
	{ "gate option-matrix", "validate a superkernel-winner-option-matrix-v1",
	  "usage: tunectl gate option-matrix FILE [--json-out FILE]\n", NULL },
	{ "gate stage-a-options", "check Stage-A candidate configs before they run",
	  "usage: tunectl gate stage-a-options CONFIG... [--json-out FILE]\n", NULL },
};

/* ... and the rest of --help. */
static const char *const gate_help[] = {
	REF_HELP,
	"\nThe S0 gate: exactly 5 runs and a spread of the per-run worst-rank means\n"
	"of at most 5.0% of their mean (Decimal arithmetic).  The report is\n"
	"analyze_performance.py's with no candidates.  --require-pass exits 1 when\n"
	"the baseline is unstable.\n",
	REF_HELP, REF_HELP, REF_HELP,
	"\nValidates the winner option matrix v1 (rules in docs/measurement.md) and\n"
	"prints the validation object; exit 1 when the matrix is invalid.\n",
	"\nApplies the Stage-A option controls of --selection-only to candidate\n"
	"configs before they run: each CONFIG (YAML, read like PyYAML safe_load) must\n"
	"define model_config.custom_params.super_kernel_optimize_options and\n"
	"super_kernel_debug_options as explicitly empty mappings.  Prints one record\n"
	"per config (path, sha256, or the reference's message) and\n"
	"all_explicitly_empty; exit 1 when a config fails.\n",
};

/* -h/--help before "--": usage and help on stdout. */
static bool
wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

enum gate_kind { G_ANALYZE, G_STABILITY, G_PROMOTE, G_SCREEN, G_OPTION_TRIAL };

typedef struct pairs {
	tc_name_path *items;
	size_t len;
} pairs;

static void
pairs_free(pairs *p)
{
	for (size_t i = 0; i < p->len; i++) {
		free((char *)p->items[i].name);
		free((char *)p->items[i].value);
	}
	free(p->items);
}

/* NAME=VALUE split at the first '='; NULL on a missing '=' or an empty
 * side. */
static int
split_pair(const char *s, pairs *p)
{
	const char *eq = strchr(s, '=');

	if (eq == NULL || eq == s || eq[1] == '\0')
		return -1;
	p->items = tc_xrealloc(p->items, (p->len + 1) * sizeof(*p->items));
	p->items[p->len].name = tc_xstrndup(s, (size_t)(eq - s));
	p->items[p->len].value = tc_xstrdup(eq + 1);
	p->len++;
	return 0;
}

static const char *
dup_name(const pairs *p)
{
	for (size_t i = 1; i < p->len; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->items[i].name, p->items[j].name) == 0)
				return p->items[i].name;
	return NULL;
}

/* The report, then its provenance beside it (R.provenance.json): the
 * options that let the controller compute the same report again. */
static int
write_report(const char *path, const tc_json *report,
    const tc_analyze_opts *o, const char *matrix_path)
{
	tc_buf b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *prov = tc_analyze_provenance(o, matrix_path);
	char *prov_path = tc_xasprintf("%s.provenance.json", path);
	int rc = TC_EXIT_OK;

	if (tc_analyze_report_text(report, &b, &err) != 0 ||
	    tc_write_atomic(path, b.data, b.len, TC_WRITE_MKDIRS, &err) != 0) {
		fprintf(stderr, "tunectl: cannot write --json-out %s: %s\n",
		    path, tc_error_msg(&err));
		rc = TC_EXIT_FAIL;
	} else if (tc_write_json(prov_path, prov, TC_WRITE_MKDIRS, &err) != 0) {
		fprintf(stderr, "tunectl: cannot write %s: %s\n", prov_path,
		    tc_error_msg(&err));
		rc = TC_EXIT_FAIL;
	}
	tc_error_clear(&err);
	tc_buf_free(&b);
	tc_json_free(prov);
	free(prov_path);
	return rc;
}

/* Whether the gate's verdict is positive, for --require-pass. */
static bool
verdict_passed(enum gate_kind kind, const tc_json *report, bool stable)
{
	const tc_json *sel = tc_json_get(report, "selection");
	const char *rec = tc_json_get_string(sel, "recommended");

	if (kind == G_STABILITY)
		return stable;
	return rec != NULL && strcmp(rec, "baseline") != 0;
}

static int
run_analyze(const struct tc_command *cmd, enum gate_kind kind, int argc,
    char **argv)
{
	struct tc_strlist cand = { 0 }, replay = { 0 }, mode = { 0 };
	const char *baseline = NULL, *matrix_path = NULL, *json_out = NULL;
	const char *seed_text = NULL;
	bool selection = false, option = false, matrix_seen = false;
	long warmup = TC_DEFAULT_WARMUP, ranks = TC_DEFAULT_EXPECTED_RANKS;
	long resamples = TC_BOOTSTRAP_RESAMPLES;
	double min_impr = TC_DEFAULT_MIN_IMPROVEMENT_PCT, allow_p90 = 0.0;
	double allow_sd = 0.0;
	bool significance = false, strict_env = false, ref_out = false;
	bool require_pass = false;
	const char *validator = NULL;
	struct tc_option full[] = {
		{ "--baseline", TC_OPT_STRING, &baseline, true, NULL },
		{ "--candidate", TC_OPT_LIST, &cand, false, NULL },
		{ "--replay-evidence", TC_OPT_LIST, &replay, false, NULL },
		{ "--promotion-mode", TC_OPT_LIST, &mode, false, NULL },
		{ "--selection-only", TC_OPT_FLAG, &selection, false, NULL },
		{ "--option-trial", TC_OPT_FLAG, &option, false, NULL },
		{ "--screening-matrix", TC_OPT_STRING, &matrix_path, false,
		  &matrix_seen },
		{ "--warmup", TC_OPT_INT, &warmup, false, NULL },
		{ "--expected-ranks", TC_OPT_INT, &ranks, false, NULL },
		{ "--min-improvement-pct", TC_OPT_DOUBLE, &min_impr, false, NULL },
		{ "--allow-p90-regression-pct", TC_OPT_DOUBLE, &allow_p90, false,
		  NULL },
		{ "--allow-stddev-regression-pct", TC_OPT_DOUBLE, &allow_sd,
		  false, NULL },
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ "--significance", TC_OPT_FLAG, &significance, false, NULL },
		{ "--bootstrap-resamples", TC_OPT_INT, &resamples, false, NULL },
		{ "--bootstrap-seed", TC_OPT_STRING, &seed_text, false, NULL },
		{ "--strict-environment", TC_OPT_FLAG, &strict_env, false, NULL },
		{ "--reference-output", TC_OPT_FLAG, &ref_out, false, NULL },
		{ "--replay-validator", TC_OPT_STRING, &validator, false, NULL },
		{ "--require-pass", TC_OPT_FLAG, &require_pass, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_option stab[] = {
		{ "--baseline", TC_OPT_STRING, &baseline, true, NULL },
		{ "--warmup", TC_OPT_INT, &warmup, false, NULL },
		{ "--expected-ranks", TC_OPT_INT, &ranks, false, NULL },
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ "--reference-output", TC_OPT_FLAG, &ref_out, false, NULL },
		{ "--require-pass", TC_OPT_FLAG, &require_pass, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	pairs cp = { 0 }, rp = { 0 }, mp = { 0 };
	tc_analyze_opts o;
	tc_json *matrix = NULL, *report = NULL;
	tc_buf table = TC_BUF_INIT, warnings = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	const char *dup;
	int rc;
	size_t i;

	rc = tc_opts_parse(cmd, argc, argv, kind == G_STABILITY ? stab : full,
	    NULL);
	if (rc != 0) {
		rc = rc < 0 ? TC_EXIT_OK : rc;
		goto out;
	}
	/* argparse converts each NAME=VALUE as it is parsed */
	for (i = 0; i < cand.len; i++)
		if (split_pair(cand.items[i], &cp) != 0) {
			rc = tc_usage_error(cmd, "argument --candidate: candidate "
			    "must use NAME=PATH");
			goto out;
		}
	for (i = 0; i < replay.len; i++)
		if (split_pair(replay.items[i], &rp) != 0) {
			rc = tc_usage_error(cmd, "argument --replay-evidence: "
			    "candidate must use NAME=PATH");
			goto out;
		}
	for (i = 0; i < mode.len; i++) {
		if (strchr(mode.items[i], '=') == NULL) {
			rc = tc_usage_error(cmd, "argument --promotion-mode: "
			    "promotion mode must use NAME=MODE");
			goto out;
		}
		if (split_pair(mode.items[i], &mp) != 0 ||
		    (strcmp(mp.items[mp.len - 1].value, "range_optimized") != 0 &&
		    strcmp(mp.items[mp.len - 1].value, "whole_scope") != 0)) {
			rc = tc_usage_error(cmd, "argument --promotion-mode: "
			    "promotion mode must use NAME=MODE where MODE is one "
			    "of: range_optimized, whole_scope");
			goto out;
		}
	}
	if (kind == G_SCREEN)
		selection = true;
	if (kind == G_OPTION_TRIAL)
		option = true;
	if (kind == G_PROMOTE && (selection || option)) {
		rc = tc_usage_error(cmd, "gate promote makes final promotion "
		    "decisions; use gate screen or gate option-trial");
		goto out;
	}
	if ((dup = dup_name(&cp)) != NULL) {
		rc = tc_usage_error(cmd, "--candidate has duplicate name: %s", dup);
		goto out;
	}
	if (dup_name(&mp) != NULL) {
		rc = tc_usage_error(cmd, "--promotion-mode has duplicate "
		    "candidate name");
		goto out;
	}
	if ((dup = dup_name(&rp)) != NULL) {
		rc = tc_usage_error(cmd, "--replay-evidence has duplicate name: "
		    "%s", dup);
		goto out;
	}
	if (selection && option) {
		rc = tc_usage_error(cmd, "--selection-only and --option-trial are "
		    "mutually exclusive");
		goto out;
	}
	if (selection && !matrix_seen) {
		rc = tc_usage_error(cmd, "--selection-only requires "
		    "--screening-matrix");
		goto out;
	}
	if (matrix_seen && !selection) {
		rc = tc_usage_error(cmd, "--screening-matrix requires "
		    "--selection-only");
		goto out;
	}
	if (matrix_seen) {
		matrix = tc_json_parse_file(matrix_path, &err);
		if (matrix == NULL) {
			rc = tc_usage_error(cmd, "cannot load --screening-matrix "
			    "%s: %s", matrix_path, tc_error_msg(&err));
			goto out;
		}
	}
	if (resamples < 1 || resamples > 10000000) {
		rc = tc_usage_error(cmd, "argument --bootstrap-resamples: must be "
		    "between 1 and 10000000");
		goto out;
	}
	tc_analyze_opts_init(&o);
	o.baseline = baseline;
	o.candidates = cp.items;
	o.ncandidates = cp.len;
	o.replays = rp.items;
	o.nreplays = rp.len;
	o.modes = mp.items;
	o.nmodes = mp.len;
	o.selection_only = selection;
	o.option_trial = option;
	o.screening_matrix = matrix;
	o.runset.warmup = warmup;
	o.runset.expected_ranks = ranks;
	o.policy.min_improvement_pct = min_impr;
	o.policy.allow_p90_regression_pct = allow_p90;
	o.policy.allow_stddev_regression_pct = allow_sd;
	o.significance = significance;
	o.strict_environment = strict_env;
	o.reference_output = ref_out;
	o.replay_validator = validator;
	o.bootstrap_resamples = (unsigned)resamples;
	if (seed_text != NULL) {
		char *end;

		o.bootstrap_seed = strtoull(seed_text, &end, 10);
		if (*seed_text == '\0' || *end != '\0' || *seed_text == '-') {
			rc = tc_usage_error(cmd, "argument --bootstrap-seed: invalid "
			    "int value: '%s'", seed_text);
			goto out;
		}
		o.bootstrap_seed_set = true;
	}
	rc = tc_analyze(&o, (json_out != NULL || require_pass) ? &report : NULL,
	    &table, &warnings, &err);
	if (warnings.len > 0)
		fputs(warnings.data, stderr);
	if (rc == TC_BENCH_VALUE_ERROR) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		goto out;
	}
	if (rc != 0) {
		rc = tc_die("%s", tc_error_msg(&err));
		goto out;
	}
	fwrite(table.data, 1, table.len, stdout);
	fflush(stdout);
	if (json_out != NULL && (rc = write_report(json_out, report, &o,
	    matrix_seen ? matrix_path : NULL)) != 0)
		goto out;
	rc = TC_EXIT_OK;
	if (require_pass) {
		const tc_json *st = tc_json_get(report, "baseline_stability");
		const tc_json *stable = tc_json_get(st, "stable");

		if (!verdict_passed(kind, report, tc_json_is(stable, TC_JSON_BOOL)
		    && stable->u.b)) {
			fprintf(stderr, "tunectl: the gate did not pass "
			    "(--require-pass)\n");
			rc = TC_EXIT_FAIL;
		}
	}
out:
	tc_json_free(report);
	tc_json_free(matrix);
	tc_buf_free(&table);
	tc_buf_free(&warnings);
	tc_error_clear(&err);
	pairs_free(&cp);
	pairs_free(&rp);
	pairs_free(&mp);
	tc_strlist_free(&cand);
	tc_strlist_free(&replay);
	tc_strlist_free(&mode);
	return rc;
}

/* A validation object on stdout and, with --json-out, in a file. */
static int
print_and_save(const tc_json *res, const char *json_out)
{
	tc_error err = TC_ERROR_INIT;
	int rc = tc_print_json(res);

	if (rc == TC_EXIT_OK && json_out != NULL &&
	    tc_write_json(json_out, res, TC_WRITE_MKDIRS, &err) != 0)
		rc = tc_die("%s", tc_error_msg(&err));
	tc_error_clear(&err);
	return rc;
}

static int
run_option_matrix(const struct tc_command *cmd, int argc, char **argv)
{
	const char *json_out = NULL;
	struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc, *res;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len != 1) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "expected exactly one FILE");
	}
	doc = tc_json_parse_file(pr.positional.items[0], &err);
	tc_parse_result_free(&pr);
	if (doc == NULL) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	res = tc_option_matrix_validate(doc, &err);
	tc_json_free(doc);
	if (res == NULL) {
		rc = tc_print_refusal(tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	rc = print_and_save(res, json_out);
	tc_json_free(res);
	return rc;
}

static int
run_stage_a_options(const struct tc_command *cmd, int argc, char **argv)
{
	const char *json_out = NULL;
	struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_json *res;
	bool all;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len == 0) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "expected at least one CONFIG");
	}
	res = tc_stage_a_configs_check(pr.positional.items,
	    pr.positional.len);
	tc_parse_result_free(&pr);
	all = tc_json_get(res, "all_explicitly_empty")->u.b;
	rc = print_and_save(res, json_out);
	if (rc == TC_EXIT_OK && !all)
		rc = TC_EXIT_FAIL;
	tc_json_free(res);
	return rc;
}

int
cmd_gate(int argc, char **argv)
{
	static const char *const names[] = {
		"analyze", "stability", "promote", "screen", "option-trial",
		"option-matrix", "stage-a-options"
	};
	const struct tc_command *self = tc_command_find("gate");

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		fputs(self != NULL ? self->usage : "usage: tunectl gate ...\n",
		    argc < 2 ? stderr : stdout);
		return argc < 2 ? TC_EXIT_USAGE : TC_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if (strcmp(argv[1], names[i]) != 0)
			continue;
		if (wants_help(argc - 1, argv + 1)) {
			fputs(gate_cmds[i].usage, stdout);
			fputs(gate_help[i], stdout);
			return TC_EXIT_OK;
		}
		if (i == 5)
			return run_option_matrix(&gate_cmds[i], argc - 1, argv + 1);
		if (i == 6)
			return run_stage_a_options(&gate_cmds[i], argc - 1,
			    argv + 1);
		return run_analyze(&gate_cmds[i], (enum gate_kind)i, argc - 1,
		    argv + 1);
	}
	fprintf(stderr, "tunectl gate: unknown subcommand '%s'\n", argv[1]);
	if (self != NULL)
		fputs(self->usage, stderr);
	return TC_EXIT_USAGE;
}
