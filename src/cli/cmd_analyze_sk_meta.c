/*
 * cmd_analyze_sk_meta.c - "tunectl analyze sk-meta": summarize TorchAir
 * SuperKernel metadata and prove whether fusion occurred (the reference's
 * analyze_sk_meta.py, run through share/tools/analyze_sk_meta.py with the
 * same argv).  Prints the summary; --json-out, --round-report-out and
 * --deep-auto-scope-plan-out write it, its round_report and the deep
 * auto-scope plan.  Replay mode (--verify-root and its companions) is not
 * supported yet and is refused as a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"

static const char sk_meta_usage[] =
    "usage: tunectl analyze sk-meta [-h] [--json-out JSON_OUT]\n"
    "           [--sample-limit SAMPLE_LIMIT] [--round-name ROUND_NAME]\n"
    "           [--scope-kind {manual,automatic_aot}]\n"
    "           [--round-report-out ROUND_REPORT_OUT]\n"
    "           [--effective-min-child-nodes EFFECTIVE_MIN_CHILD_NODES]\n"
    "           [--deep-auto-scope-plan-out DEEP_AUTO_SCOPE_PLAN_OUT]\n"
    "           [--deep-auto-min-child-nodes DEEP_AUTO_MIN_CHILD_NODES]\n"
    "           root\n";

static const char sk_meta_help[] =
    "\n"
    "Summarize the SuperKernel metadata TorchAir writes at compile time and\n"
    "prove whether fusion occurred: every sk_fused_nodes.log,\n"
    "sk_fusion_fail_reasons.log and sk_scope_split.log below ROOT is read\n"
    "(a missing ROOT has none).  Prints the summary (sk_inventory,\n"
    "layer_summary, control_core, disconnect, break_action_plan,\n"
    "round_report, ...; see docs/analysis.md).\n"
    "\n"
    "options:\n"
    "  root                        metadata directory to scan recursively\n"
    "  --json-out FILE             also write the summary\n"
    "  --round-report-out FILE     write its round_report\n"
    "  --deep-auto-scope-plan-out FILE\n"
    "                              write every reliable fused group as a\n"
    "                              manual-scope candidate\n"
    "  --sample-limit N            top-N and sample size (20)\n"
    "  --round-name NAME           the round (S1, S2, S4c ...); S1, S1-auto\n"
    "                              and automatic-aot mean automatic_aot scope\n"
    "  --scope-kind KIND           manual or automatic_aot (overrides the\n"
    "                              round name)\n"
    "  --effective-min-child-nodes N\n"
    "                              descriptive effective/shallow threshold\n"
    "                              (5); it never filters\n"
    "  --deep-auto-min-child-nodes N\n"
    "                              recorded in the plan (5); never filters\n"
    "\n"
    "Files are written before the summary is printed, missing parent\n"
    "directories created.  Replay mode (--verify-root, --replay-report-out,\n"
    "--replay-min-child-nodes, --compat-config-manifest,\n"
    "--verify-config-manifest, --candidate-name, --round-id,\n"
    "--source-revision) is not supported yet: refused with exit 2.\n"
    "\n"
    "Exit status: 0 when fusion is proven (fused child nodes were found);\n"
    "1 when metadata was found but no fusion, or a log or output cannot be\n"
    "read or written; 2 when no model directory was found (model_count 0)\n"
    "and for usage errors.\n";

/* The reference's replay options: refused until replay is supported. */
static const char *const replay_options[] = {
	"--verify-root", "--replay-report-out", "--replay-min-child-nodes",
	"--compat-config-manifest", "--verify-config-manifest",
	"--candidate-name", "--round-id", "--source-revision", NULL
};

static const char *
replay_option_in(int argc, char **argv)
{
	int i;
	size_t k;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (k = 0; replay_options[k] != NULL; k++) {
			size_t l = strlen(replay_options[k]);

			if (strncmp(argv[i], replay_options[k], l) == 0 &&
			    (argv[i][l] == '\0' || argv[i][l] == '='))
				return replay_options[k];
		}
	return NULL;
}

/* Write doc (indent 2, sorted keys, ASCII, "\n") to path. */
static int
write_doc(const char *path, const tc_json *doc, tc_error *err)
{
	tc_buf out = TC_BUF_INIT;
	int rc;

	if (tc_json_write(&out, doc, TC_JSON_ASCII | TC_JSON_INDENT, err) != 0)
		return -1;
	tc_buf_putc(&out, '\n');
	rc = tc_write_atomic(path, out.data, out.len, TC_WRITE_MKDIRS, err);
	tc_buf_free(&out);
	return rc;
}

static int
write_outputs(const tc_json *doc, const char *json_out, const char *rr_out,
    const char *plan_out, long plan_min, long limit, tc_error *err)
{
	tc_json *plan;
	int rc;

	if (json_out != NULL && write_doc(json_out, doc, err) != 0)
		return -1;
	if (rr_out != NULL && write_doc(rr_out, tc_json_get(doc,
	    "round_report"), err) != 0)
		return -1;
	if (plan_out == NULL)
		return 0;
	plan = tc_sk_meta_plan(doc, plan_min, limit);
	rc = write_doc(plan_out, plan, err);
	tc_json_free(plan);
	return rc;
}

static int
analyze_sk_meta(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_sk_meta_args a = { NULL, 20, NULL, NULL, 5 };
	struct tc_parse_result res;
	const char *json_out = NULL, *rr_out = NULL, *plan_out = NULL;
	const char *replay;
	long plan_min = 5;
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;
	tc_json *doc;
	int rc;
	const struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ "--sample-limit", TC_OPT_INT, &a.sample_limit, false, NULL },
		{ "--round-name", TC_OPT_STRING, &a.round_name, false, NULL },
		{ "--scope-kind", TC_OPT_STRING, &a.scope_kind, false, NULL },
		{ "--round-report-out", TC_OPT_STRING, &rr_out, false, NULL },
		{ "--effective-min-child-nodes", TC_OPT_INT,
		    &a.effective_min_child_nodes, false, NULL },
		{ "--deep-auto-scope-plan-out", TC_OPT_STRING, &plan_out, false,
		    NULL },
		{ "--deep-auto-min-child-nodes", TC_OPT_INT, &plan_min, false,
		    NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((replay = replay_option_in(argc, argv)) != NULL)
		return tc_usage_error(cmd, "%s: replay mode is not supported yet "
		    "by tunectl", replay);
	memset(&res, 0, sizeof(res));
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		rc = tc_usage_error(cmd, res.positional.len == 0 ?
		    "the following arguments are required: root" :
		    "unrecognized arguments: %s", res.positional.len > 1 ?
		    res.positional.items[1] : "");
		tc_parse_result_free(&res);
		return rc;
	}
	a.root = res.positional.items[0];
	if (a.scope_kind != NULL && strcmp(a.scope_kind, "manual") != 0 &&
	    strcmp(a.scope_kind, "automatic_aot") != 0) {
		rc = tc_usage_error(cmd, "argument --scope-kind: invalid choice: "
		    "'%s' (choose from 'manual', 'automatic_aot')", a.scope_kind);
		tc_parse_result_free(&res);
		return rc;
	}
	if ((doc = tc_sk_meta_summary(&a, &err)) == NULL ||
	    write_outputs(doc, json_out, rr_out, plan_out, plan_min,
	    a.sample_limit, &err) != 0 ||
	    tc_json_write(&out, doc, TC_JSON_ASCII | TC_JSON_INDENT, &err) != 0) {
		fprintf(stderr, "tunectl analyze sk-meta: error: %s\n",
		    tc_error_msg(&err));
		tc_error_clear(&err);
		tc_json_free(doc);
		tc_parse_result_free(&res);
		return TC_EXIT_FAIL;
	}
	tc_buf_putc(&out, '\n');
	fwrite(out.data, 1, out.len, stdout);
	tc_buf_free(&out);
	{
		int64_t models = 0;

		tc_json_int64(tc_json_get(doc, "model_count"), &models);
		rc = models == 0 ? TC_EXIT_USAGE :
		    tc_json_truthy(tc_json_get(doc, "fusion_proven")) ?
		    TC_EXIT_OK : TC_EXIT_FAIL;
	}
	tc_json_free(doc);
	tc_parse_result_free(&res);
	return rc;
}

const struct tc_command cmd_analyze_sk_meta_entry = {
	.name = "analyze sk-meta",
	.summary = "summarize SuperKernel metadata and prove fusion occurred",
	.usage = sk_meta_usage,
	.help = sk_meta_help,
	.run = analyze_sk_meta,
};
