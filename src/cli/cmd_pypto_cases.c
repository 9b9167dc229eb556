/*
 * cmd_pypto_cases.c - "tunectl pypto cases": validate PERFORMANCE_CASES.json,
 * freeze the Stage 5 experiment contract.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"

static int
cmd_pypto_cases(const struct tc_command *self, int argc, char **argv)
{
	const char *manifest = NULL, *op_dir = NULL, *op_name = NULL;
	const char *stab = NULL, *kind = NULL, *rule = NULL, *source = NULL;
	const char *case_arg = NULL, *case_env = NULL, *dispatch = NULL;
	const char *weights = NULL, *discovery = NULL;
	long warmup = 3, repeats = 3, retry = 2;
	bool stage5 = false;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--manifest", TC_OPT_STRING, &manifest, true, NULL },
		{ "--op-dir", TC_OPT_STRING, &op_dir, false, NULL },
		{ "--stage5", TC_OPT_FLAG, &stage5, false, NULL },
		{ "--op-name", TC_OPT_STRING, &op_name, false, NULL },
		{ "--stability-range", TC_OPT_STRING, &stab, false, NULL },
		{ "--stability-kind", TC_OPT_STRING, &kind, false, NULL },
		{ "--promotion-rule", TC_OPT_STRING, &rule, false, NULL },
		{ "--warmup", TC_OPT_INT, &warmup, false, NULL },
		{ "--repeats", TC_OPT_INT, &repeats, false, NULL },
		{ "--retry", TC_OPT_INT, &retry, false, NULL },
		{ "--timing-source", TC_OPT_STRING, &source, false, NULL },
		{ "--case-arg", TC_OPT_STRING, &case_arg, false, NULL },
		{ "--case-env", TC_OPT_STRING, &case_env, false, NULL },
		{ "--dispatch", TC_OPT_STRING, &dispatch, false, NULL },
		{ "--weights", TC_OPT_STRING, &weights, false, NULL },
		{ "--discovery", TC_OPT_STRING, &discovery, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    (strcmp(res.positional.items[0], "validate") != 0 &&
	    strcmp(res.positional.items[0], "freeze") != 0)) {
		tc_parse_result_free(&res);
		return tc_usage_error(self, "expected validate or freeze");
	}
	if (strcmp(res.positional.items[0], "validate") == 0) {
		tc_pypto_manifest m;
		char *runner = NULL;
		tc_json *out;
		bool loaded;

		rc = (op_dir != NULL ? tc_pypto_manifest_resolve(op_dir, manifest,
		    &m, &err) : tc_pypto_manifest_load(manifest, &m, &err));
		loaded = rc == 0;
		if (rc == 0 && stage5 && tc_pypto_manifest_check_target(&m,
		    &err) != 0)
			rc = -1;
		if (rc == 0 && op_dir != NULL &&
		    ((runner = tc_pypto_find_runner(op_dir, &err)) == NULL ||
		    tc_pypto_manifest_check_functions(&m, runner, &err) != 0))
			rc = -1;
		free(runner);
		if (rc != 0) {
			if (loaded)
				tc_pypto_manifest_free(&m);
			tc_parse_result_free(&res);
			rc = tc_refuse(self, "%s", tc_error_msg(&err));
			tc_error_clear(&err);
			return rc;
		}
		out = tc_json_new_object();
		tc_json_object_set_bool(out, "valid", true);
		tc_json_object_set(out, "errors", tc_json_new_array());
		tc_json_object_set_int(out, "n_cases", (int64_t)m.n);
		tc_json_object_set(out, "performance_cases",
		    tc_json_clone(m.source));
		tc_json_object_set(out, "optimization_target",
		    tc_json_get(m.doc, "optimization_target") != NULL ?
		    tc_json_clone(tc_json_get(m.doc, "optimization_target")) :
		    tc_json_new_null());
		tc_pypto_manifest_free(&m);
		tc_parse_result_free(&res);
		return tc_pypto_cli_print(out);
	}
	{
		tc_pypto_freeze_opts f;
		tc_json *out;

		memset(&f, 0, sizeof(f));
		f.op_dir = op_dir;
		f.manifest_path = manifest;
		f.dispatch_path = dispatch;
		f.op_name = op_name;
		f.warmup = warmup;
		f.repeats = repeats;
		f.retry = retry;
		f.timing_source = source;
		f.case_arg = case_arg;
		f.case_env = case_env;
		f.stability_kind = kind;
		f.stability_value = stab;
		f.promotion_rule = rule;
		f.weights_path = weights;
		f.discovery_path = discovery;
		out = tc_pypto_contract_freeze(&f, &err);
		tc_parse_result_free(&res);
		return tc_pypto_cli_finish(out, &err);
	}
}

const struct tc_command cmd_pypto_cases_entry = {
	.name = "pypto cases",
	.summary = "validate the performance cases; freeze the Stage 5 contract",
	.usage = "usage: tunectl pypto cases validate --manifest FILE [--op-dir DIR] [--stage5]\n"
	    "       tunectl pypto cases freeze --op-dir DIR --manifest FILE --op-name NAME\n"
	    "           --stability-range DECIMAL --stability-kind absolute|relative\n"
	    "           --promotion-rule TEXT [--warmup N] [--repeats N] [--retry N]\n"
	    "           [--timing-source process_timer|runner_reported]\n"
	    "           [--case-arg FLAG | --case-env VAR] [--dispatch FILE] [--weights FILE]\n"
	    "           [--discovery docs/perf/discovery.json]   (--op-name then comes from it)\n",
	.run = cmd_pypto_cases,
};
