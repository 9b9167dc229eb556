/*
 * cmd_ledger.c - "tunectl ledger": the schema 2 experiment ledger tool
 * (experiment_ledger.py).  validate and merge take the reference's
 * arguments and print and exit as it does (docs/spec/ledger.md
 * "Ledger CLI behaviour"); migrate and final-e2e are tunectl's: the schema 1 ->
 * 2 migration on its own, and the final_e2e record computed from two measured
 * run sets.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tunectl/bench.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/ledger.h"
#include "tunectl/path.h"

#define ANALYSER_NOTE \
	"\n  --analysis-validator CMD\n" \
	"                        run CMD ANALYSIS_PATH ROUND_ID RESULT_PATH for every\n" \
	"                        profiling analysis; it stands for the reference's analyser\n" \
	"                        and must exit 0 printing {\"per_sk_decisions\": [...],\n" \
	"                        \"scope_actions\": [...]} (tunectl then checks the coverage)\n" \
	"\nNot reproduced: with an artifact root the reference also re-validates and\n" \
	"re-analyses every profiling analysis file with an external analyser\n" \
	"(recommend_sk_strategy / analyze_fusion_performance) whose behaviour is not\n" \
	"specified.  tunectl runs every check the specification defines (artifact root,\n" \
	"analysis paths, binding of each analysis to the experiment and its round, input\n" \
	"and profile files); without --analysis-validator it never marks a result\n" \
	"artifact_evidence_validated, so a merge never promotes it into\n" \
	"conditional_performance_evidence.  See docs/ledger.md.\n"

static const struct tc_command ledger_cmds[] = {
	{ "ledger validate", "validate an experiment result",
	  "usage: tunectl ledger validate RESULT.json [--analysis-validator CMD]\n"
	  "\nValidate a portable SuperKernel experiment handoff (experiment_ledger.py\n"
	  "validate).  Prints {artifact_evidence_validated, conditional_evidence_eligible,\n"
	  "errors, valid}; exit 0 when valid, 1 otherwise.  The artifact root is the\n"
	  "result file's directory.\n" ANALYSER_NOTE, NULL },
	{ "ledger merge", "merge an experiment result into a ledger",
	  "usage: tunectl ledger merge --ledger LEDGER.json --result RESULT.json --output OUT.json\n"
	  "                            [--analysis-validator CMD]\n"
	  "\nMerge a validated result into a schema 2 ledger (a missing LEDGER is empty; a\n"
	  "schema 1 ledger is migrated).  Prints 已合并实验交接: OUT and exits 0, or prints\n"
	  "{\"errors\": [\"merge failed: ...\"], \"valid\": false} and exits 1 without\n"
	  "writing OUT.\n" ANALYSER_NOTE, NULL },
	{ "ledger migrate", "migrate or normalise a ledger to schema 2",
	  "usage: tunectl ledger migrate --ledger LEDGER.json --output OUT.json\n"
	  "\nThe preparation half of a merge without a result: a schema 1 ledger is migrated\n"
	  "(legacy experiments and verified exclusions kept, performance experiments\n"
	  "re-validated), a schema 2 ledger is re-validated and its derived index rebuilt.\n"
	  "Prints 已迁移实验账本: OUT, or the refusal JSON and exit 1.\n", NULL },
	{ "ledger final-e2e", "compute the ledger's final_e2e from two run sets",
	  "usage: tunectl ledger final-e2e --ledger LEDGER.json [--output OUT.json] [--replace]\n"
	  "         --candidate-id ID --scope-strategy TEXT --reason-zh TEXT\n"
	  "         --option-config CONFIG.json [--evidence PATH]...\n"
	  "         (--baseline DIR --candidate DIR [--warmup INT] [--expected-ranks INT]\n"
	  "          [--min-improvement-pct FLOAT] [--allow-p90-regression-pct FLOAT]\n"
	  "          [--allow-stddev-regression-pct FLOAT]\n"
	  "          | --classification not_run|failed|blocked)\n"
	  "\nWrites final_e2e (docs/spec/controller.md) into a schema 2 ledger (OUT, default\n"
	  "LEDGER in place).  Measured: baseline/candidate median_ms are the medians over\n"
	  "runs of the per-run worst-rank mean, p90_ms/stddev_ms/sample_count come from the\n"
	  "pooled decode samples, run_count counts runs; improvement_pct =\n"
	  "(B - C) / B * 100 over the medians; classification is beneficial when the final\n"
	  "promotion gate passes (5 stable S0 runs, >= 3 candidate runs, mean gain >=\n"
	  "--min-improvement-pct, positive median direction, no P90/stddev regression)\n"
	  "and the improvement is positive, else no_gain.  Unmeasured outcomes take\n"
	  "--classification.  Prints {\"final_e2e\": ..., \"gate\": ...}.  Refuses to\n"
	  "replace an existing final_e2e without --replace.\n", NULL },
	{ NULL, NULL, NULL, NULL }
};

static const struct tc_command *
sub(const char *name)
{
	size_t i;

	for (i = 0; ledger_cmds[i].name != NULL; i++)
		if (strcmp(ledger_cmds[i].name + 7, name) == 0)
			return &ledger_cmds[i];
	return NULL;
}

/* The directory the reference uses as artifact root: the resolved
 * parent of the result file. */
static char *
result_root(const char *result)
{
	char *dir = tc_path_dirname(result);
	char *root = tc_path_resolve(dir, NULL);

	if (root == NULL)
		root = dir;
	else
		free(dir);
	return root;
}

/* The ledger tool's refusal: {"errors": [msg], "valid": false} printed
 * like every ledger output (indent 2, sorted keys, non-ASCII raw). */
static int
print_refusal(const char *msg)
{
	tc_json *doc = tc_json_new_object(), *errors = tc_json_new_array();

	tc_json_array_push(errors, tc_json_new_string(msg));
	tc_json_object_set(doc, "errors", errors);
	tc_json_object_set_bool(doc, "valid", false);
	(void)tc_print_json(doc);
	tc_json_free(doc);
	return TC_EXIT_FAIL;
}

/* --analysis-validator CMD: the external analyser hook. */
static void
use_validator(tc_ledger_opts *lo, tc_ledger_analyzer *an,
    tc_ledger_command *lc, const char *validator, const char *result)
{
	lc->program = validator;
	lc->result_path = NULL;
	if (validator == NULL)
		return;
	lc->result_path = tc_path_resolve(result, NULL);
	if (lc->result_path == NULL)
		lc->result_path = tc_xstrdup(result);
	tc_ledger_command_analyzer(an, lc);
	lo->analyzer = an;
}

static int
refusal(const char *what, const char *type, const char *msg)
{
	tc_buf b = TC_BUF_INIT;
	int rc;

	tc_buf_printf(&b, "%s: %s: %s", what, type, msg);
	rc = print_refusal(tc_buf_cstr(&b));
	tc_buf_free(&b);
	return rc;
}

/* tc_ledger_read_file's "Type: message" behind a prefix. */
static int
read_refusal(const char *what, const tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	int rc;

	tc_buf_printf(&b, "%s: %s", what, tc_error_msg(err));
	rc = print_refusal(tc_buf_cstr(&b));
	tc_buf_free(&b);
	return rc;
}

static int
write_ledger(const char *path, const tc_json *ledger, const char *what)
{
	tc_error err = TC_ERROR_INIT;
	int rc = 0;

	if (tc_write_json(path, ledger, TC_WRITE_MKDIRS, &err) != 0) {
		const char *m = tc_error_msg(&err);

		rc = refusal(what, strncmp(m, "[Errno ", 7) == 0 ?
		    tc_ledger_os_error_type(m) : "UnicodeEncodeError", m);
		tc_error_clear(&err);
	}
	return rc;
}

static int
do_validate(int argc, char **argv)
{
	const struct tc_command *cmd = sub("validate");
	const char *validator = NULL;
	const struct tc_option opts[] = {
		{ "--analysis-validator", TC_OPT_STRING, &validator, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_ledger_opts lo = { NULL, NULL };
	tc_ledger_analyzer an;
	tc_ledger_command lc;
	tc_error err = TC_ERROR_INIT;
	tc_json *result, *out;
	char *root;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &pr)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len != 1) {
		rc = tc_usage_error(cmd, pr.positional.len == 0 ?
		    "the following arguments are required: RESULT.json" :
		    "unrecognized arguments: %s", pr.positional.len > 1 ?
		    pr.positional.items[1] : "");
		tc_parse_result_free(&pr);
		return rc;
	}
	result = tc_ledger_read_file(pr.positional.items[0], &err);
	if (result == NULL) {
		rc = read_refusal("invalid JSON input", &err);
		tc_error_clear(&err);
		tc_parse_result_free(&pr);
		return rc;
	}
	root = result_root(pr.positional.items[0]);
	lo.artifact_root = root;
	use_validator(&lo, &an, &lc, validator, pr.positional.items[0]);
	out = tc_experiment_validate(result, &lo);
	free((char *)(uintptr_t)lc.result_path);
	rc = tc_print_json(out);
	if (rc == TC_EXIT_OK && !tc_json_get(out, "valid")->u.b)
		rc = TC_EXIT_FAIL;
	if (rc == TC_EXIT_OK && validator == NULL &&
	    !tc_json_get(out, "artifact_evidence_validated")->u.b)
		fprintf(stderr, "tunectl: note: artifact evidence not validated: "
		    "the reference analyser is not available (see 'tunectl ledger "
		    "validate --help')\n");
	tc_json_free(out);
	tc_json_free(result);
	free(root);
	tc_parse_result_free(&pr);
	return rc;
}

/* The ledger at path, or {} when the path does not exist. */
static tc_json *
read_ledger_or_empty(const char *path, tc_error *err)
{
	struct stat st;

	/* Path.exists(): follows symlinks; missing components are "no". */
	if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR ||
	    errno == ELOOP))
		return tc_json_new_object();
	return tc_ledger_read_file(path, err);
}

static int
do_merge(int argc, char **argv)
{
	const struct tc_command *cmd = sub("merge");
	const char *ledger_path = NULL, *result_path = NULL, *output = NULL;
	const char *validator = NULL;
	const struct tc_option opts[] = {
		{ "--ledger", TC_OPT_STRING, &ledger_path, true, NULL },
		{ "--result", TC_OPT_STRING, &result_path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ "--analysis-validator", TC_OPT_STRING, &validator, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_ledger_opts lo = { NULL, NULL };
	tc_ledger_analyzer an;
	tc_ledger_command lc = { NULL, NULL };
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger = NULL, *result = NULL, *merged = NULL;
	char *root = NULL, *shown;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((ledger = read_ledger_or_empty(ledger_path, &err)) == NULL ||
	    (result = tc_ledger_read_file(result_path, &err)) == NULL) {
		rc = read_refusal("merge failed", &err);
		goto out;
	}
	root = result_root(result_path);
	lo.artifact_root = root;
	use_validator(&lo, &an, &lc, validator, result_path);
	if ((merged = tc_ledger_merge(ledger, result, &lo, &err)) == NULL) {
		rc = refusal("merge failed", "ValueError", tc_error_msg(&err));
		goto out;
	}
	if ((rc = write_ledger(output, merged, "merge failed")) != 0)
		goto out;
	shown = tc_path_normalize(output);
	printf("已合并实验交接: %s\n", shown);
	free(shown);
	rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
out:
	tc_error_clear(&err);
	tc_json_free(ledger);
	tc_json_free(result);
	tc_json_free(merged);
	free(root);
	free((char *)(uintptr_t)lc.result_path);
	return rc;
}

static int
do_migrate(int argc, char **argv)
{
	const struct tc_command *cmd = sub("migrate");
	const char *ledger_path = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--ledger", TC_OPT_STRING, &ledger_path, true, NULL },
		{ "--output", TC_OPT_STRING, &output, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger, *out = NULL;
	char *shown;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((ledger = tc_ledger_read_file(ledger_path, &err)) == NULL) {
		rc = read_refusal("migrate failed", &err);
		tc_error_clear(&err);
		return rc;
	}
	if ((out = tc_ledger_prepare(ledger, &err)) == NULL) {
		rc = refusal("migrate failed", "ValueError", tc_error_msg(&err));
	} else if ((rc = write_ledger(output, out, "migrate failed")) == 0) {
		shown = tc_path_normalize(output);
		printf("已迁移实验账本: %s\n", shown);
		free(shown);
		rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
	}
	tc_error_clear(&err);
	tc_json_free(ledger);
	tc_json_free(out);
	return rc;
}

/* LEDGER.provenance.json: how final_e2e was computed, so that the
 * controller's strict evidence policy can compute it again. */
static int
write_provenance(const char *ledger, const tc_final_e2e_opts *o)
{
	char *path = tc_xasprintf("%s.provenance.json", ledger);
	tc_json *prov = tc_final_e2e_provenance(o);
	tc_error err = TC_ERROR_INIT;
	int rc = TC_EXIT_OK;

	if (tc_write_json(path, prov, TC_WRITE_MKDIRS, &err) != 0) {
		tc_buf b = TC_BUF_INIT;

		tc_buf_printf(&b, "final-e2e failed: %s", tc_error_msg(&err));
		rc = print_refusal(tc_buf_cstr(&b));
		tc_buf_free(&b);
	}
	tc_error_clear(&err);
	tc_json_free(prov);
	free(path);
	return rc;
}

static int
do_final_e2e(int argc, char **argv)
{
	const struct tc_command *cmd = sub("final-e2e");
	const char *ledger_path = NULL, *output = NULL, *config_path = NULL;
	struct tc_strlist evidence = { NULL, 0 };
	long warmup = TC_DEFAULT_WARMUP, ranks = TC_DEFAULT_EXPECTED_RANKS;
	bool replace = false;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger = NULL, *config = NULL, *fe = NULL, *gate = NULL;
	tc_json *updated = NULL, *report;
	int rc;

	tc_final_e2e_opts_init(&o);
	{
		const struct tc_option opts[] = {
			{ "--ledger", TC_OPT_STRING, &ledger_path, true, NULL },
			{ "--output", TC_OPT_STRING, &output, false, NULL },
			{ "--replace", TC_OPT_FLAG, &replace, false, NULL },
			{ "--candidate-id", TC_OPT_STRING, &o.candidate_id, true, NULL },
			{ "--scope-strategy", TC_OPT_STRING, &o.scope_strategy, true,
			  NULL },
			{ "--reason-zh", TC_OPT_STRING, &o.reason_zh, true, NULL },
			{ "--option-config", TC_OPT_STRING, &config_path, true, NULL },
			{ "--evidence", TC_OPT_LIST, &evidence, false, NULL },
			{ "--baseline", TC_OPT_STRING, &o.baseline_dir, false, NULL },
			{ "--candidate", TC_OPT_STRING, &o.candidate_dir, false, NULL },
			{ "--warmup", TC_OPT_INT, &warmup, false, NULL },
			{ "--expected-ranks", TC_OPT_INT, &ranks, false, NULL },
			{ "--min-improvement-pct", TC_OPT_DOUBLE,
			  &o.min_improvement_pct, false, NULL },
			{ "--allow-p90-regression-pct", TC_OPT_DOUBLE,
			  &o.allow_p90_regression_pct, false, NULL },
			{ "--allow-stddev-regression-pct", TC_OPT_DOUBLE,
			  &o.allow_stddev_regression_pct, false, NULL },
			{ "--classification", TC_OPT_STRING, &o.classification,
			  false, NULL },
			{ NULL, 0, NULL, false, NULL }
		};

		if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0) {
			tc_strlist_free(&evidence);
			return rc < 0 ? TC_EXIT_OK : rc;
		}
	}
	if ((o.baseline_dir != NULL || o.candidate_dir != NULL) ==
	    (o.classification != NULL) ||
	    ((o.baseline_dir == NULL) != (o.candidate_dir == NULL))) {
		tc_strlist_free(&evidence);
		return tc_usage_error(cmd, "give --baseline and --candidate, or "
		    "--classification");
	}
	o.warmup = warmup;
	o.expected_ranks = ranks;
	o.evidence = evidence.items;
	o.nevidence = evidence.len;
	if ((ledger = tc_ledger_read_file(ledger_path, &err)) == NULL) {
		rc = read_refusal("final-e2e failed", &err);
		goto out;
	}
	if ((config = tc_ledger_read_file(config_path, &err)) == NULL) {
		rc = read_refusal("final-e2e failed", &err);
		goto out;
	}
	if (!tc_json_is(config, TC_JSON_OBJECT)) {
		rc = print_refusal("final-e2e failed: --option-config must hold "
		    "a JSON object");
		goto out;
	}
	o.option_config = config;
	if ((fe = tc_final_e2e_build(&o, &gate, &err)) == NULL ||
	    (updated = tc_ledger_set_final_e2e(ledger, fe, replace,
	    &err)) == NULL) {
		tc_buf b = TC_BUF_INIT;

		tc_buf_printf(&b, "final-e2e failed: %s", tc_error_msg(&err));
		rc = print_refusal(tc_buf_cstr(&b));
		tc_buf_free(&b);
		goto out;
	}
	if ((rc = write_ledger(output != NULL ? output : ledger_path, updated,
	    "final-e2e failed")) != 0)
		goto out;
	if ((rc = write_provenance(output != NULL ? output : ledger_path,
	    &o)) != 0)
		goto out;
	report = tc_json_new_object();
	tc_json_object_set(report, "final_e2e", tc_json_clone(fe));
	tc_json_object_set(report, "gate", gate != NULL ? gate :
	    tc_json_new_null());
	gate = NULL;
	rc = tc_print_json(report);
	tc_json_free(report);
out:
	tc_error_clear(&err);
	tc_strlist_free(&evidence);
	tc_json_free(ledger);
	tc_json_free(config);
	tc_json_free(fe);
	tc_json_free(gate);
	tc_json_free(updated);
	return rc;
}

int
cmd_ledger(int argc, char **argv)
{
	const struct tc_command *self = tc_command_find("ledger");

	if (argc < 2)
		return tc_usage_error(self, "the following arguments are "
		    "required: command");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(self->usage, stdout);
		return TC_EXIT_OK;
	}
	if (strcmp(argv[1], "validate") == 0)
		return do_validate(argc - 1, argv + 1);
	if (strcmp(argv[1], "merge") == 0)
		return do_merge(argc - 1, argv + 1);
	if (strcmp(argv[1], "migrate") == 0)
		return do_migrate(argc - 1, argv + 1);
	if (strcmp(argv[1], "final-e2e") == 0)
		return do_final_e2e(argc - 1, argv + 1);
	return tc_usage_error(self, "argument command: invalid choice: '%s' "
	    "(choose from 'validate', 'merge', 'migrate', 'final-e2e')", argv[1]);
}
