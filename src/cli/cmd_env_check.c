/*
 * cmd_env_check.c - "tunectl env-check" (installed as the reference tool
 * name check_environment.py): print the intake environment evidence,
 * optionally write it, and exit 1 when a required prerequisite is
 * missing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/envcheck.h"
#include "tunectl/fileio.h"

static int
cmd_env_check(const struct tc_command *cmd, int argc, char **argv)
{
	tc_envcheck_opts o = { .probe_timeout_s = 10 };
	const char *out = NULL;
	struct tc_strlist req_cc = { NULL, 0 }, extra_cc = { NULL, 0 };
	const struct tc_option opts[] = {
		{ "--require-gpu", TC_OPT_FLAG, &o.require_gpu, false, NULL },
		{ "--require-npu", TC_OPT_FLAG, &o.require_npu, false, NULL },
		{ "--require-compiler", TC_OPT_LIST, &req_cc, false, NULL },
		{ "--compiler", TC_OPT_LIST, &extra_cc, false, NULL },
		{ "--require-governor", TC_OPT_STRING, &o.require_governor,
		  false, NULL },
		{ "--probe-timeout-seconds", TC_OPT_DOUBLE, &o.probe_timeout_s,
		  false, NULL },
		{ "--sysroot", TC_OPT_STRING, &o.sysroot, false, NULL },
		{ "--out", TC_OPT_STRING, &out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *report;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		goto out;
	if (!(o.probe_timeout_s > 0)) {
		rc = tc_usage_error(cmd, "argument --probe-timeout-seconds: "
		    "must be positive");
		goto out;
	}
	o.require_compilers = req_cc.items;
	o.nrequire_compilers = req_cc.len;
	o.extra_compilers = extra_cc.items;
	o.nextra_compilers = extra_cc.len;
	if ((report = tc_envcheck_collect(&o, &err)) == NULL) {
		rc = tc_die("%s", tc_error_msg(&err));
		goto out;
	}
	if (out != NULL && tc_write_json(out, report, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_MKDIRS, &err) != 0) {
		rc = tc_die("%s", tc_error_msg(&err));
		tc_json_free(report);
		goto out;
	}
	rc = tc_print_json(report);
	if (rc == TC_EXIT_OK && !tc_envcheck_ready(report)) {
		const tc_json *b = tc_json_get(report, "blockers");
		size_t i;

		for (i = 0; i < b->u.arr.len; i++)
			fprintf(stderr, "tunectl env-check: blocked: %s\n",
			    tc_json_get_string(b->u.arr.items[i], "message"));
		rc = TC_EXIT_FAIL;
	}
	tc_json_free(report);
out:
	if (rc < 0)
		rc = TC_EXIT_OK;
	tc_error_clear(&err);
	tc_strlist_free(&req_cc);
	tc_strlist_free(&extra_cc);
	return rc;
}

const struct tc_command cmd_env_check_entry = {
	.name = "env-check",
	.summary = "record the machine facts a tuning session freezes; report missing prerequisites",
	.usage = "usage: tunectl env-check [--require-gpu] [--require-npu] [--require-compiler NAME ...]\n"
	    "                         [--compiler NAME ...] [--require-governor NAME] [--probe-timeout-seconds T]\n"
	    "                         [--sysroot DIR] [--out FILE]\n",
	.run = cmd_env_check,
};
