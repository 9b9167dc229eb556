/*
 * cmd_gate_analyze.c - "tunectl gate analyze" and its fixed-mode forms
 * stability, promote, screen and option-trial: the reference tool
 * analyze_performance.py.  "gate analyze" takes exactly the reference's
 * flags (plus tunectl's optional extensions) and behaves like the
 * reference: table on stdout, report via --json-out, exit 0 whatever the
 * verdict, 2 for every reference ValueError, 1 where the reference dies
 * with a traceback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
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
	"         [--decide-by mean|ci] [--stability reference|relative]\n" \
	"         [--max-spread-pct FLOAT] [--require-pass]\n"

/* What each mode is for: the first paragraph of its --help. */
#define ANALYZE_INTRO \
	"\nSummarize multi-rank inference logs and compare SuperKernel candidates.\n"
#define PROMOTE_INTRO \
	"\nFinal promotion: compare candidates against a frozen baseline (S0 or the\n" \
	"incumbent) and recommend one only when it beats the baseline by\n" \
	"--min-improvement-pct without a p90 or stddev regression beyond the\n" \
	"allowances.  --selection-only and --option-trial are refused here (use\n" \
	"gate screen or gate option-trial).\n"
#define SCREEN_INTRO \
	"\nStage-A screening (--selection-only implied): rank the clean candidates of\n" \
	"the --screening-matrix and select one for later profiling; not a final\n" \
	"promotion.  Every candidate is judged whole_scope.\n"
#define TRIAL_INTRO \
	"\nOne winner option trial (--option-trial implied): compare one candidate\n" \
	"against a stable five-run incumbent; any strictly positive gain without a\n" \
	"regression is accepted.  Every candidate is judged whole_scope.\n"

#define REF_HELP \
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
	"  --expected-ranks INT  rank logs required in every run directory (default: the\n" \
	"                        baseline's runset.json \"ranks\" when bench run wrote one,\n" \
	"                        else 8)\n" \
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
	"  --decide-by mean|ci   the improvement check: mean (the reference's, default)\n" \
	"                        compares the mean improvement with the threshold; ci\n" \
	"                        passes when the bootstrap 95% interval excludes 0 and\n" \
	"                        its lower bound reaches it (> 0 for an option trial);\n" \
	"                        run sets measured interleaved (bench ab) are paired by\n" \
	"                        round in the bootstrap\n" \
	"  --stability reference|relative\n" \
	"                        relative: when that interval clears the threshold, a\n" \
	"                        baseline spread over 5% and a candidate stddev rise no\n" \
	"                        longer refuse the candidate (default reference: they do)\n" \
	"  --max-spread-pct FLOAT  the S0 spread limit (default 5.0, the reference's)\n" \
	"  --bootstrap-resamples N  bootstrap rounds (default 10000)\n" \
	"  --bootstrap-seed N    bootstrap seed (default 8391734862414113841)\n" \
	"  --strict-environment  refuse run sets whose runset.json environment\n" \
	"                        fingerprints differ or are missing (default: warn)\n" \
	"  --reference-output    omit the \"tunectl\" key: the reference's report only\n" \
	"                        (and summarise two logs of one rank as it does)\n" \
	"  --replay-validator CMD\n" \
	"                        run CMD REPORT NAME to recompute a replay report (see below)\n" \
	"  --require-pass        exit 1 when the gate's verdict is negative\n" \

/* The rest of the help: one literal may hold at most 4095 characters. */
#define REF_HELP_MORE \
	"\nReplay evidence: the reference validates it with analyze_sk_meta's\n" \
	"validate_replay_report.  tunectl applies the same checks (candidate name, round id,\n" \
	"source revision, artifact paths, replay_min_child_nodes), then recomputes the replay\n" \
	"from the SK metadata roots and config manifests the report names (\"tunectl analyze\n" \
	"sk-meta --verify-root\", docs/analysis.md) and trusts it only when the recomputation\n" \
	"equals it and the fusion is reproduced; --replay-validator CMD hands that decision to\n" \
	"a program that prints the validation JSON object (with a boolean \"valid\") instead.\n" \
	"(replay_recomputation_unavailable is left for programs built without the analyser.)\n" \
	"whole_scope candidates need no replay.  See docs/measurement.md.\n" \
	"\n\"replay evidence mapping mismatch (missing: NAME)\": a final promotion judges\n" \
	"every candidate range_optimized unless told otherwise, and that mode needs\n" \
	"--replay-evidence.  A program that is not a SuperKernel scope (any program\n" \
	"timed by bench run) has none: pass --promotion-mode NAME=whole_scope for each\n" \
	"--candidate NAME, and --expected-ranks 1 for a single-process program whose\n" \
	"run sets have no runset.json.  \"extra: NAME\" names replay evidence given for a\n" \
	"candidate that is whole_scope or not a candidate.\n"

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

/* Everything the command line says, parsed and then converted. */
struct gate_args {
	tc_analyze_opts o;	/* the options bound straight to it */
	struct tc_strlist cand, replay, mode;	/* NAME=VALUE as given */
	pairs cp, rp, mp;	/* ... and split */
	const char *matrix_path, *json_out, *seed_text, *decide_by;
	const char *stability;
	bool matrix_seen, require_pass, ranks_seen;
	long resamples;
	tc_json *matrix;	/* the loaded --screening-matrix */
};

static void
gate_args_free(struct gate_args *a)
{
	tc_json_free(a->matrix);
	pairs_free(&a->cp);
	pairs_free(&a->rp);
	pairs_free(&a->mp);
	tc_strlist_free(&a->cand);
	tc_strlist_free(&a->replay);
	tc_strlist_free(&a->mode);
}

/* The options: the reference's flags and tunectl's, or stability's few. */
static int
parse_options(const struct tc_command *cmd, enum gate_kind kind, int argc,
    char **argv, struct gate_args *a)
{
	tc_analyze_opts *o = &a->o;
	static const char *const decide_by_choices[] = { "mean", "ci", NULL };
	static const char *const stability_choices[] = { "reference",
	    "relative", NULL };
	struct tc_opt_choice decide_by = { &a->decide_by, decide_by_choices };
	struct tc_opt_choice stability = { &a->stability, stability_choices };
	const struct tc_option full[] = {
		{ "--baseline", TC_OPT_STRING, &o->baseline, true, NULL },
		{ "--candidate", TC_OPT_LIST, &a->cand, false, NULL },
		{ "--replay-evidence", TC_OPT_LIST, &a->replay, false, NULL },
		{ "--promotion-mode", TC_OPT_LIST, &a->mode, false, NULL },
		{ "--selection-only", TC_OPT_FLAG, &o->selection_only, false,
		  NULL },
		{ "--option-trial", TC_OPT_FLAG, &o->option_trial, false, NULL },
		{ "--screening-matrix", TC_OPT_STRING, &a->matrix_path, false,
		  &a->matrix_seen },
		{ "--warmup", TC_OPT_INT, &o->runset.warmup, false, NULL },
		{ "--expected-ranks", TC_OPT_INT, &o->runset.expected_ranks,
		  false, &a->ranks_seen },
		{ "--min-improvement-pct", TC_OPT_DOUBLE,
		  &o->policy.min_improvement_pct, false, NULL },
		{ "--allow-p90-regression-pct", TC_OPT_DOUBLE,
		  &o->policy.allow_p90_regression_pct, false, NULL },
		{ "--allow-stddev-regression-pct", TC_OPT_DOUBLE,
		  &o->policy.allow_stddev_regression_pct, false, NULL },
		{ "--json-out", TC_OPT_STRING, &a->json_out, false, NULL },
		{ "--significance", TC_OPT_FLAG, &o->significance, false, NULL },
		{ "--decide-by", TC_OPT_CHOICE, &decide_by, false, NULL },
		{ "--stability", TC_OPT_CHOICE, &stability, false, NULL },
		{ "--max-spread-pct", TC_OPT_DOUBLE, &o->policy.max_spread_pct,
		  false, NULL },
		{ "--bootstrap-resamples", TC_OPT_INT, &a->resamples, false,
		  NULL },
		{ "--bootstrap-seed", TC_OPT_STRING, &a->seed_text, false, NULL },
		{ "--strict-environment", TC_OPT_FLAG, &o->strict_environment,
		  false, NULL },
		{ "--reference-output", TC_OPT_FLAG, &o->reference_output, false,
		  NULL },
		{ "--replay-validator", TC_OPT_STRING, &o->replay_validator,
		  false, NULL },
		{ "--require-pass", TC_OPT_FLAG, &a->require_pass, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	const struct tc_option stab[] = {
		{ "--baseline", TC_OPT_STRING, &o->baseline, true, NULL },
		{ "--warmup", TC_OPT_INT, &o->runset.warmup, false, NULL },
		{ "--expected-ranks", TC_OPT_INT, &o->runset.expected_ranks,
		  false, &a->ranks_seen },
		{ "--json-out", TC_OPT_STRING, &a->json_out, false, NULL },
		{ "--reference-output", TC_OPT_FLAG, &o->reference_output, false,
		  NULL },
		{ "--require-pass", TC_OPT_FLAG, &a->require_pass, false, NULL },
		{ "--max-spread-pct", TC_OPT_DOUBLE, &o->policy.max_spread_pct,
		  false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	return tc_opts_parse(cmd, argc, argv, kind == G_STABILITY ? stab : full,
	    NULL);
}

static bool
known_mode(const char *mode)
{
	return strcmp(mode, "range_optimized") == 0 ||
	    strcmp(mode, "whole_scope") == 0;
}

/* NAME=VALUE lists split as argparse converts each one while parsing. */
static int
split_pairs(const struct tc_command *cmd, struct gate_args *a)
{
	size_t i;

	for (i = 0; i < a->cand.len; i++)
		if (split_pair(a->cand.items[i], &a->cp) != 0)
			return tc_usage_error(cmd, "argument --candidate: "
			    "candidate must use NAME=PATH");
	for (i = 0; i < a->replay.len; i++)
		if (split_pair(a->replay.items[i], &a->rp) != 0)
			return tc_usage_error(cmd, "argument --replay-evidence: "
			    "candidate must use NAME=PATH");
	for (i = 0; i < a->mode.len; i++) {
		if (strchr(a->mode.items[i], '=') == NULL)
			return tc_usage_error(cmd, "argument --promotion-mode: "
			    "promotion mode must use NAME=MODE");
		if (split_pair(a->mode.items[i], &a->mp) != 0 ||
		    !known_mode(a->mp.items[a->mp.len - 1].value))
			return tc_usage_error(cmd, "argument --promotion-mode: "
			    "promotion mode must use NAME=MODE where MODE is one "
			    "of: range_optimized, whole_scope");
	}
	a->o.candidates = a->cp.items;
	a->o.ncandidates = a->cp.len;
	a->o.replays = a->rp.items;
	a->o.nreplays = a->rp.len;
	a->o.modes = a->mp.items;
	a->o.nmodes = a->mp.len;
	return 0;
}

/* The checks of the reference's main() between parsing and analysis, in
 * its order: mode, duplicate names, the screening matrix. */
static int
check_modes(const struct tc_command *cmd, enum gate_kind kind,
    struct gate_args *a)
{
	tc_analyze_opts *o = &a->o;
	const char *dup;

	if (kind == G_SCREEN)
		o->selection_only = true;
	if (kind == G_OPTION_TRIAL)
		o->option_trial = true;
	if (kind == G_PROMOTE && (o->selection_only || o->option_trial))
		return tc_usage_error(cmd, "gate promote makes final promotion "
		    "decisions; use gate screen or gate option-trial");
	if ((dup = dup_name(&a->cp)) != NULL)
		return tc_usage_error(cmd, "--candidate has duplicate name: %s",
		    dup);
	if (dup_name(&a->mp) != NULL)
		return tc_usage_error(cmd, "--promotion-mode has duplicate "
		    "candidate name");
	if ((dup = dup_name(&a->rp)) != NULL)
		return tc_usage_error(cmd, "--replay-evidence has duplicate "
		    "name: %s", dup);
	if (o->selection_only && o->option_trial)
		return tc_usage_error(cmd, "--selection-only and --option-trial "
		    "are mutually exclusive");
	if (o->selection_only && !a->matrix_seen)
		return tc_usage_error(cmd, "--selection-only requires "
		    "--screening-matrix");
	if (a->matrix_seen && !o->selection_only)
		return tc_usage_error(cmd, "--screening-matrix requires "
		    "--selection-only");
	return 0;
}

/* Without --expected-ranks, the ranks the baseline's runset.json records
 * (bench run writes it; a run set the reference made has none and keeps
 * the reference's default). */
static void
default_ranks(struct gate_args *a)
{
	long ranks;

	if (!a->ranks_seen && a->o.baseline != NULL &&
	    (ranks = tc_runset_recorded_ranks(a->o.baseline)) > 0)
		a->o.runset.expected_ranks = ranks;
}

/* The screening matrix and tunectl's bootstrap options. */
static int
load_extras(const struct tc_command *cmd, struct gate_args *a)
{
	tc_error err = TC_ERROR_INIT;
	int rc;

	if (a->matrix_seen) {
		a->matrix = tc_json_parse_file(a->matrix_path, &err);
		if (a->matrix == NULL) {
			rc = tc_usage_error(cmd, "cannot load --screening-matrix "
			    "%s: %s", a->matrix_path, tc_error_msg(&err));
			tc_error_clear(&err);
			return rc;
		}
		a->o.screening_matrix = a->matrix;
	}
	if (a->resamples < 1 || a->resamples > TC_BOOTSTRAP_RESAMPLES_MAX)
		return tc_usage_error(cmd, "argument --bootstrap-resamples: must "
		    "be between 1 and %d", TC_BOOTSTRAP_RESAMPLES_MAX);
	a->o.bootstrap_resamples = (unsigned)a->resamples;
	if (a->seed_text != NULL) {
		char *end;

		a->o.bootstrap_seed = strtoull(a->seed_text, &end, 10);
		if (*a->seed_text == '\0' || *end != '\0' ||
		    *a->seed_text == '-')
			return tc_usage_error(cmd, "argument --bootstrap-seed: "
			    "invalid int value: '%s'", a->seed_text);
		a->o.bootstrap_seed_set = true;
	}
	if (a->decide_by != NULL)	/* a choice, checked as it is read */
		a->o.decide_by_ci = strcmp(a->decide_by, "ci") == 0;
	if (!(a->o.policy.max_spread_pct > 0 &&
	    a->o.policy.max_spread_pct <= 100))
		return tc_usage_error(cmd, "argument --max-spread-pct: must be "
		    "above 0 and at most 100");
	if (a->stability != NULL)
		a->o.stability_relative = strcmp(a->stability, "relative") == 0;
	return 0;
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

/* Analyse, print the table, write --json-out, apply --require-pass. */
static int
analyze_and_report(const struct tc_command *cmd, enum gate_kind kind,
    const struct gate_args *a)
{
	tc_json *report = NULL;
	tc_buf table = TC_BUF_INIT, warnings = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	int rc;

	rc = tc_analyze(&a->o, (a->json_out != NULL || a->require_pass) ?
	    &report : NULL, &table, &warnings, &err);
	if (warnings.len > 0)
		fputs(warnings.data, stderr);
	if (rc == TC_BENCH_VALUE_ERROR) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		if (strncmp(tc_error_msg(&err), "replay evidence mapping "
		    "mismatch", 32) == 0 && !a->o.reference_output)
			fputs("tunectl: hint: a candidate without replay evidence "
			    "is judged whole_scope only when\n"
			    "tunectl: hint: told so: --promotion-mode "
			    "NAME=whole_scope per --candidate NAME (see\n"
			    "tunectl: hint: tunectl gate analyze --help)\n", stderr);
		goto out;
	}
	if (rc != 0) {
		rc = tc_die("%s", tc_error_msg(&err));
		goto out;
	}
	fwrite(table.data, 1, table.len, stdout);
	fflush(stdout);
	if (a->json_out != NULL && (rc = write_report(a->json_out, report,
	    &a->o, a->matrix_seen ? a->matrix_path : NULL)) != 0)
		goto out;
	rc = TC_EXIT_OK;
	if (a->require_pass) {
		const tc_json *st = tc_json_get(report, "baseline_stability");
		const tc_json *stable = tc_json_get(st, "stable");

		if (!verdict_passed(kind, report, tc_json_is(stable,
		    TC_JSON_BOOL) && stable->u.b)) {
			fprintf(stderr, "tunectl: the gate did not pass "
			    "(--require-pass)\n");
			rc = TC_EXIT_FAIL;
		}
	}
out:
	tc_json_free(report);
	tc_buf_free(&table);
	tc_buf_free(&warnings);
	tc_error_clear(&err);
	return rc;
}

/* The mode an entry fixes. */
static enum gate_kind
kind_of(const struct tc_command *cmd)
{
	if (cmd == &cmd_gate_stability_entry)
		return G_STABILITY;
	if (cmd == &cmd_gate_promote_entry)
		return G_PROMOTE;
	if (cmd == &cmd_gate_screen_entry)
		return G_SCREEN;
	if (cmd == &cmd_gate_option_trial_entry)
		return G_OPTION_TRIAL;
	return G_ANALYZE;
}

static int
gate_run(const struct tc_command *cmd, int argc, char **argv)
{
	enum gate_kind kind = kind_of(cmd);
	struct gate_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	tc_analyze_opts_init(&a.o);
	a.resamples = TC_BOOTSTRAP_RESAMPLES;
	if ((rc = parse_options(cmd, kind, argc, argv, &a)) != 0) {
		gate_args_free(&a);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	default_ranks(&a);
	if ((rc = split_pairs(cmd, &a)) == 0 &&
	    (rc = check_modes(cmd, kind, &a)) == 0 &&
	    (rc = load_extras(cmd, &a)) == 0)
		rc = analyze_and_report(cmd, kind, &a);
	gate_args_free(&a);
	return rc;
}

/* analyze and the modes of it that take its flags: one entry each, told
 * apart by name; their usage line says what the mode requires. */
#define REF_ENTRY(word, what, required, intro) { \
	.name = "gate " word, \
	.summary = what, \
	.usage = "usage: tunectl gate " word " --baseline DIR " required \
	    REF_USAGE, \
	.help = intro REF_HELP, \
	.help_more = REF_HELP_MORE, \
	.run = gate_run, \
	.flags = TC_CMD_HELP_ANYWHERE, \
}

const struct tc_command cmd_gate_analyze_entry = REF_ENTRY("analyze",
    "analyze_performance.py: every mode", "", ANALYZE_INTRO);

const struct tc_command cmd_gate_stability_entry = {
	.name = "gate stability",
	.summary = "the S0 five-run stability gate",
	.usage = "usage: tunectl gate stability --baseline DIR [--warmup INT] "
	    "[--expected-ranks INT]\n"
	    "         [--json-out FILE] [--reference-output] [--require-pass]\n"
	    "         [--max-spread-pct FLOAT]\n",
	.help = "\nThe S0 gate: exactly 5 runs and a spread of the per-run "
	    "worst-rank means\n"
	    "of at most 5.0% of their mean (Decimal arithmetic).  The report is\n"
	    "analyze_performance.py's with no candidates.  --require-pass exits "
	    "1 when\n"
	    "the baseline is unstable.  --max-spread-pct sets another spread "
	    "limit\n(tunectl; default 5.0, the reference's).\n",
	.run = gate_run,
	.flags = TC_CMD_HELP_ANYWHERE,
};

const struct tc_command cmd_gate_promote_entry = REF_ENTRY("promote",
    "final promotion of candidates against a frozen baseline", "",
    PROMOTE_INTRO);

const struct tc_command cmd_gate_screen_entry = REF_ENTRY("screen",
    "Stage-A screening (--selection-only implied)",
    "--screening-matrix JSON ", SCREEN_INTRO);

const struct tc_command cmd_gate_option_trial_entry = REF_ENTRY(
    "option-trial", "one winner option trial (--option-trial implied)",
    "--candidate NAME=DIR ", TRIAL_INTRO);
