/*
 * cmd_ledger_final_e2e.c - "tunectl ledger final-e2e": the ledger's
 * final_e2e record computed from two measured run sets (or an unmeasured
 * classification), with the provenance that lets the controller compute
 * it again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ledger_cli.h"
#include "tunectl/bench.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/ledger.h"

/* LEDGER.provenance.json: how final_e2e was computed, so that the
 * controller's strict evidence policy can compute it again. */
static int
write_provenance(const struct tc_command *cmd, const char *ledger,
    const tc_final_e2e_opts *o)
{
	char *path = tc_xasprintf("%s.provenance.json", ledger);
	tc_json *prov = tc_final_e2e_provenance(o);
	tc_error err = TC_ERROR_INIT;
	int rc = TC_EXIT_OK;

	if (tc_write_json(path, prov, TC_WRITE_MKDIRS, &err) != 0)
		rc = tc_refuse(cmd, "final-e2e failed: %s", tc_error_msg(&err));
	tc_error_clear(&err);
	tc_json_free(prov);
	free(path);
	return rc;
}

static int
ledger_final_e2e(const struct tc_command *cmd, int argc, char **argv)
{
	const char *ledger_path = NULL, *output = NULL, *config_path = NULL;
	const char *decide_by = NULL, *stability = NULL;
	struct tc_strlist evidence = { NULL, 0 };
	long warmup = TC_DEFAULT_WARMUP, ranks = TC_DEFAULT_EXPECTED_RANKS;
	long recorded;
	bool replace = false, ranks_seen = false;
	tc_final_e2e_opts o;
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger = NULL, *config = NULL, *fe = NULL, *gate = NULL;
	tc_json *updated = NULL, *report;
	int rc;

	tc_final_e2e_opts_init(&o);
	{
		static const char *const decide_by_choices[] = { "mean", "ci",
		    NULL };
		static const char *const stability_choices[] = { "reference",
		    "relative", NULL };
		struct tc_opt_choice decide_c = { &decide_by, decide_by_choices };
		struct tc_opt_choice stability_c = { &stability,
		    stability_choices };
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
			{ "--expected-ranks", TC_OPT_INT, &ranks, false,
			  &ranks_seen },
			{ "--min-improvement-pct", TC_OPT_DOUBLE,
			  &o.min_improvement_pct, false, NULL },
			{ "--allow-p90-regression-pct", TC_OPT_DOUBLE,
			  &o.allow_p90_regression_pct, false, NULL },
			{ "--allow-stddev-regression-pct", TC_OPT_DOUBLE,
			  &o.allow_stddev_regression_pct, false, NULL },
			{ "--decide-by", TC_OPT_CHOICE, &decide_c, false, NULL },
			{ "--stability", TC_OPT_CHOICE, &stability_c, false,
			  NULL },
			{ "--max-spread-pct", TC_OPT_DOUBLE, &o.max_spread_pct,
			  false, NULL },
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
	if (!(o.max_spread_pct > 0 && o.max_spread_pct <= 100)) {
		tc_strlist_free(&evidence);
		return tc_usage_error(cmd, "argument --max-spread-pct: must be "
		    "above 0 and at most 100");
	}
	o.decide_by_ci = decide_by != NULL && strcmp(decide_by, "ci") == 0;
	o.stability_relative = stability != NULL &&
	    strcmp(stability, "relative") == 0;
	o.warmup = warmup;
	/* without --expected-ranks: what the baseline's runset.json records */
	if (!ranks_seen && o.baseline_dir != NULL &&
	    (recorded = tc_runset_recorded_ranks(o.baseline_dir)) > 0)
		ranks = recorded;
	o.expected_ranks = ranks;
	o.evidence = evidence.items;
	o.nevidence = evidence.len;
	if ((ledger = tc_ledger_read_file(ledger_path, &err)) == NULL) {
		rc = tc_refuse(cmd, "final-e2e failed: %s", tc_error_msg(&err));
		goto out;
	}
	if ((config = tc_ledger_read_file(config_path, &err)) == NULL) {
		rc = tc_refuse(cmd, "final-e2e failed: %s", tc_error_msg(&err));
		goto out;
	}
	if (!tc_json_is(config, TC_JSON_OBJECT)) {
		rc = tc_refuse(cmd, "final-e2e failed: --option-config must hold "
		    "a JSON object");
		goto out;
	}
	o.option_config = config;
	if ((fe = tc_final_e2e_build(&o, &gate, &err)) == NULL ||
	    (updated = tc_ledger_set_final_e2e(ledger, fe, replace,
	    &err)) == NULL) {
		rc = tc_refuse(cmd, "final-e2e failed: %s", tc_error_msg(&err));
		goto out;
	}
	if ((rc = tc_cli_ledger_write(cmd, output != NULL ? output :
	    ledger_path, updated, "final-e2e failed")) != 0)
		goto out;
	if ((rc = write_provenance(cmd, output != NULL ? output : ledger_path,
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

const struct tc_command cmd_ledger_final_e2e_entry = {
	.name = "ledger final-e2e",
	.summary = "compute the ledger's final_e2e from two run sets",
	.usage = "usage: tunectl ledger final-e2e --ledger LEDGER.json [--output OUT.json] [--replace]\n"
	    "         --candidate-id ID --scope-strategy TEXT --reason-zh TEXT\n"
	    "         --option-config CONFIG.json [--evidence PATH]...\n"
	    "         (--baseline DIR --candidate DIR [--warmup INT] [--expected-ranks INT]\n"
	    "          [--min-improvement-pct FLOAT] [--allow-p90-regression-pct FLOAT]\n"
	    "          [--allow-stddev-regression-pct FLOAT] [--decide-by mean|ci]\n"
	    "          [--stability reference|relative] [--max-spread-pct FLOAT]\n"
	    "          | --classification not_run|failed|blocked)\n"
	    "\nWrites final_e2e (docs/spec/controller.md) into a schema 2 ledger (OUT, default\n"
	    "LEDGER in place).  Measured: baseline/candidate median_ms are the medians over\n"
	    "runs of the per-run worst-rank mean, p90_ms/stddev_ms/sample_count come from the\n"
	    "pooled decode samples, run_count counts runs; improvement_pct =\n"
	    "(B - C) / B * 100 over the medians; classification is beneficial when the final\n"
	    "promotion gate passes (5 stable S0 runs, >= 3 candidate runs, mean gain >=\n"
	    "--min-improvement-pct, positive median direction, no P90/stddev regression)\n"
	    "and the improvement is positive, else no_gain.  Unmeasured outcomes take\n"
	    "--classification.  --decide-by, --stability and --max-spread-pct are gate\n"
	    "analyze's (docs/measurement.md): give the ones the final promotion gate had,\n"
	    "so that the ledger and the gate report agree.  Prints {\"final_e2e\": ..., \"gate\": ...}.  Refuses to\n"
	    "replace an existing final_e2e without --replace.\n",
	.run = ledger_final_e2e,
	.refusal = TC_REFUSAL_SORTED,
};
