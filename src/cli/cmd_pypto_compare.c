/*
 * cmd_pypto_compare.c - "tunectl pypto compare": one formal compare round.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"

static int
cmd_pypto_compare(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_compare_opts o;
	bool sw = false, sr = false, st = false, ss = false, sd = false;
	bool interleaved = false;
	long warmup = 0, repeats = 0, retry = 0, seed = 0, device = 0;
	long pairs = TC_PYPTO_AB_MIN_PAIRS;
	const char *baseline = NULL;
	double timeout = 0;
	tc_error err = TC_ERROR_INIT;
	char *round = NULL;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--case-manifest", TC_OPT_STRING, &o.manifest_path, true, NULL },
		{ "--op-name", TC_OPT_STRING, &o.op_name, false, NULL },
		{ "--case-arg", TC_OPT_STRING, &o.case_arg, false, NULL },
		{ "--case-env", TC_OPT_STRING, &o.case_env, false, NULL },
		{ "--warmup", TC_OPT_INT, &warmup, false, &sw },
		{ "--repeats", TC_OPT_INT, &repeats, false, &sr },
		{ "--retry", TC_OPT_INT, &retry, false, &st },
		{ "--seed", TC_OPT_INT, &seed, false, &ss },
		{ "--device", TC_OPT_INT, &device, false, &sd },
		{ "--timing-source", TC_OPT_STRING, &o.timing_source, false, NULL },
		{ "--collection-id", TC_OPT_STRING, &o.collection_id, false, NULL },
		{ "--interpreter", TC_OPT_STRING, &o.interpreter, false, NULL },
		{ "--timeout", TC_OPT_DOUBLE, &timeout, false, NULL },
		{ "--quick", TC_OPT_FLAG, &o.quick, false, NULL },
		{ "--interleaved", TC_OPT_FLAG, &interleaved, false, NULL },
		{ "--pairs", TC_OPT_INT, &pairs, false, NULL },
		{ "--baseline-runner", TC_OPT_STRING, &baseline, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	tc_pypto_compare_opts_init(&o);
	rc = tc_opts_parse(self, argc, argv, opts, NULL);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (sw) {
		if (warmup < 0)
			return tc_die("--warmup must be >= 0");
		o.warmup = warmup;
	}
	if (sr) {
		if (repeats < 1)
			return tc_die("--repeats must be >= 1");
		o.repeats = repeats;
	}
	if (st) {
		if (retry < 0)
			return tc_die("--retry must be >= 0");
		o.retry = retry;
	}
	if (ss) {
		if (seed != 0 && seed != 42)
			return tc_die("Stage 5 keeps the validated Stage 4 seed fixed "
			    "at 42; omit --seed or pass --seed=42");
		o.seed = seed;
	}
	if (sd) {
		if (device < 0)
			return tc_die("--device must be >= 0");
		o.device = device;
	}
	o.timeout_s = timeout;
	if (interleaved && o.quick)
		return tc_die("--interleaved and --quick are exclusive");
	if (interleaved) {
		out = tc_pypto_interleave(&o, baseline, pairs, &round, &err);
		rc = out != NULL ? tc_pypto_cli_print(out) :
		    tc_pypto_cli_fail(&err);
		free(round);
		tc_error_clear(&err);
		return rc;
	}
	out = tc_pypto_compare(&o, &round, &err);
	if (out == NULL) {
		if (round != NULL)
			fprintf(stderr, "tunectl: collection failed; see %s/"
			    "collection.json\n", round);
		rc = tc_pypto_cli_fail(&err);
	} else {
		tc_json *r = tc_json_new_object();

		tc_json_object_set_string(r, "round", round);
		tc_json_object_set(r, "collection_id", tc_json_clone(
		    tc_json_get(out, "collection_id")));
		tc_json_object_set(r, "executable_sha256", tc_json_clone(
		    tc_json_get(out, "executable_sha256")));
		tc_json_object_set(r, "performance", out);
		rc = tc_pypto_cli_print(r);
	}
	free(round);
	tc_error_clear(&err);
	return rc;
}

const struct tc_command cmd_pypto_compare_entry = {
	.name = "pypto compare",
	.summary = "one formal compare round",
	.usage = "usage: tunectl pypto compare --op-dir DIR --case-manifest FILE [--op-name NAME]\n"
	    "           [--case-arg FLAG | --case-env VAR] [--warmup N] [--repeats N] [--retry N]\n"
	    "           [--seed 42] [--device N] [--timing-source process_timer|runner_reported]\n"
	    "           [--collection-id ID] [--interpreter PROG] [--timeout S]\n"
	    "           [--quick | --interleaved [--pairs N] [--baseline-runner FILE]]\n"
	    "--quick screens a candidate: archived under docs/perf/quick/, written to\n"
	    "quick_performance.*, never accepted by a formal gate.\n"
	    "--interleaved measures the frozen baseline and the current runner in turns\n"
	    "(N >= 5 pairs, default 5) into docs/perf/interleaved/ab_NNN: per case the\n"
	    "median baseline/final ratio with its 95% interval, faster or slower only\n"
	    "when the interval excludes 1.\n"
	    "Values omitted come from docs/perf/frozen_contract.json when it exists.\n",
	.run = cmd_pypto_compare,
};
