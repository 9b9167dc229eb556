/*
 * cmd_pypto_experiment.c - "tunectl pypto experiment": the per-item
 * experiment loop of Stage 5 (start, correctness, quick, formal, accept,
 * restore, reject) and the frozen baseline as candidate 0.
 */
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto_stage5.h"

static int
cmd_pypto_experiment(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_experiment_opts o;
	struct tc_parse_result res;
	struct tc_strlist items = { NULL, 0 }, changes = { NULL, 0 };
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	const char *verb;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--ledger", TC_OPT_STRING, &o.ledger_path, false, NULL },
		{ "--candidates", TC_OPT_STRING, &o.candidates_path, false, NULL },
		{ "--item", TC_OPT_LIST, &items, false, NULL },
		{ "--change", TC_OPT_LIST, &changes, false, NULL },
		{ "--hypothesis", TC_OPT_STRING, &o.hypothesis, false, NULL },
		{ "--metric", TC_OPT_STRING, &o.metric, false, NULL },
		{ "--risk", TC_OPT_STRING, &o.risk, false, NULL },
		{ "--reason", TC_OPT_STRING, &o.reason, false, NULL },
		{ "--reason-code", TC_OPT_STRING, &o.reason_code, false, NULL },
		{ "--round", TC_OPT_STRING, &o.round, false, NULL },
		{ "--correctness-evidence", TC_OPT_STRING, &o.correctness_evidence,
		  false, NULL },
		{ "--compliance-evidence", TC_OPT_STRING, &o.compliance_evidence,
		  false, NULL },
		{ "--not-compliant", TC_OPT_FLAG, &o.not_compliant, false, NULL },
		TC_PYPTO_CLI_PYTHON_OPTS(o),
		{ NULL, 0, NULL, false, NULL }
	};
	static const char *const verbs[] = { "start", "correctness", "quick",
	    "formal", "accept", "restore", "reject", "baseline", NULL };
	size_t i;

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		goto done;
	for (i = 0; res.positional.len == 1 && verbs[i] != NULL; i++)
		if (strcmp(verbs[i], res.positional.items[0]) == 0)
			break;
	if (res.positional.len != 1 || verbs[i] == NULL) {
		tc_parse_result_free(&res);
		rc = tc_usage_error(self, "expected one of start, "
		    "correctness, quick, formal, accept, restore, reject, "
		    "baseline");
		goto done;
	}
	verb = verbs[i];
	tc_parse_result_free(&res);
	o.item_ids = (char *const *)items.items;
	o.n_items = items.len;
	o.changes = (char *const *)changes.items;
	o.n_changes = changes.len;
	if ((out = tc_pypto_experiment(verb, &o, &err)) == NULL) {
		rc = tc_pypto_cli_finish(NULL, &err);
		goto done;
	}
	/* a candidate that failed its correctness run is recorded, but the
	 * command says so */
	rc = tc_pypto_cli_verdict(out, strcmp(verb, "correctness") != 0 ||
	    tc_json_truthy(tc_json_get(tc_json_get(out, "correctness"),
	    "passed")));
done:
	tc_strlist_free(&items);
	tc_strlist_free(&changes);
	return rc < 0 ? TC_EXIT_OK : rc;
}

const struct tc_command cmd_pypto_experiment_entry = {
	.name = "pypto experiment",
	.summary = "the per-item experiment loop of Stage 5",
	.usage = "usage: tunectl pypto experiment start --op-dir DIR --item ID [--item ID]...\n"
	    "           --hypothesis TEXT --change TEXT [--metric TEXT] [--risk TEXT]\n"
	    "       tunectl pypto experiment correctness|quick|accept|restore --op-dir DIR\n"
	    "       tunectl pypto experiment formal --op-dir DIR [--compliance-evidence TEXT]\n"
	    "           [--not-compliant]\n"
	    "       tunectl pypto experiment reject --op-dir DIR --reason TEXT\n"
	    "           [--reason-code quick_not_promoted|control_faster|no_stable_gain]\n"
	    "       tunectl pypto experiment baseline --op-dir DIR --round docs/perf/round_NNN\n"
	    "           [--correctness-evidence TEXT] [--compliance-evidence TEXT]\n"
	    "Common: [--ledger FILE] [--candidates FILE] [--interpreter PROG] [--timeout S]\n"
	    "An experiment carries exactly one change; a rejected one is restored first.\n",
	.run = cmd_pypto_experiment,
};
