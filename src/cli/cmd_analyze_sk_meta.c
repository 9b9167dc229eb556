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

/* Every option of the reference, in its order (for prefixes). */
static const char *const all_options[] = {
	"--help", "--json-out", "--verify-root", "--replay-report-out",
	"--replay-min-child-nodes", "--compat-config-manifest",
	"--verify-config-manifest", "--candidate-name", "--round-id",
	"--source-revision", "--sample-limit", "--round-name", "--scope-kind",
	"--round-report-out", "--effective-min-child-nodes",
	"--deep-auto-scope-plan-out", "--deep-auto-min-child-nodes", NULL
};

/* The reference's replay options: refused until replay is supported. */
static bool
is_replay_option(const char *name)
{
	size_t k;

	for (k = 2; k <= 9; k++)
		if (strcmp(name, all_options[k]) == 0)
			return true;
	return false;
}

/*
 * argparse's abbreviations: an option given by a unique prefix of its
 * name (--json, --json=FILE) is spelled out in argv (the strings are
 * malloc'd into owned, at most argc); an ambiguous one is an error.
 * Returns the usage status, or 0.
 */
static int
expand_prefixes(const struct tc_command *cmd, int argc, char **argv,
    char **owned)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq != NULL ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		const char *hit = NULL;
		tc_buf names = TC_BUF_INIT;
		size_t k, n = 0;

		if (strncmp(argv[i], "--", 2) != 0 || len <= 2)
			continue;
		for (k = 0; all_options[k] != NULL; k++) {
			if (strlen(all_options[k]) == len &&
			    strncmp(all_options[k], argv[i], len) == 0) {
				n = 0;
				break;
			}
			if (strncmp(all_options[k], argv[i], len) != 0)
				continue;
			tc_buf_printf(&names, "%s%s", n++ ? ", " : "",
			    all_options[k]);
			hit = all_options[k];
		}
		if (n > 1) {
			int rc = tc_usage_error(cmd, "ambiguous option: %.*s could "
			    "match %s", (int)len, argv[i], tc_buf_cstr(&names));

			tc_buf_free(&names);
			return rc;
		}
		tc_buf_free(&names);
		if (n == 1) {
			owned[i] = tc_xasprintf("%s%s", hit, eq != NULL ? eq : "");
			argv[i] = owned[i];
		}
	}
	return 0;
}

/* The first replay option in argv, or NULL. */
static const char *
replay_option_in(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *eq = strchr(argv[i], '=');
		char *name = eq != NULL ? tc_xstrndup(argv[i],
		    (size_t)(eq - argv[i])) : tc_xstrdup(argv[i]);
		bool replay = is_replay_option(name);

		free(name);
		if (replay)
			return argv[i];
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

/* The arguments as parsed: abbreviations spelled out. */
struct spelled {
	char **args;	/* argv with the expansions */
	char **owned;	/* the expansions (NULL where none) */
	int argc;
};

static void
spelled_free(struct spelled *sp)
{
	int i;

	for (i = 0; i < sp->argc; i++)
		free(sp->owned[i]);
	free(sp->owned);
	free(sp->args);
}

/* Expand abbreviations, refuse replay mode, then parse; 0, -1 (help
 * printed) or the usage status.  Parsed values point into sp. */
static int
parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res,
    struct spelled *sp)
{
	const char *replay;
	int rc;

	sp->argc = argc;
	sp->args = tc_xcalloc((size_t)argc + 1, sizeof(*sp->args));
	sp->owned = tc_xcalloc((size_t)argc + 1, sizeof(*sp->owned));
	memcpy(sp->args, argv, (size_t)argc * sizeof(*sp->args));
	memset(res, 0, sizeof(*res));
	if ((rc = expand_prefixes(cmd, argc, sp->args, sp->owned)) != 0)
		return rc;
	if ((replay = replay_option_in(argc, sp->args)) != NULL)
		return tc_usage_error(cmd, "%s: replay mode is not supported "
		    "yet by tunectl", replay);
	return tc_opts_parse(cmd, argc, sp->args, opts, res);
}

static int
analyze_sk_meta(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_sk_meta_args a = { NULL, 20, NULL, NULL, 5 };
	struct tc_parse_result res;
	struct spelled sp;
	const char *json_out = NULL, *rr_out = NULL, *plan_out = NULL;
	long plan_min = 5;
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;
	tc_json *doc = NULL;
	int64_t models = 0;
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

	if ((rc = parse(cmd, argc, argv, opts, &res, &sp)) != 0) {
		rc = rc < 0 ? TC_EXIT_OK : rc;
		goto done;
	}
	if (res.positional.len != 1) {
		rc = tc_usage_error(cmd, res.positional.len == 0 ?
		    "the following arguments are required: root" :
		    "unrecognized arguments: %s", res.positional.len > 1 ?
		    res.positional.items[1] : "");
		goto done;
	}
	a.root = res.positional.items[0];
	if (a.scope_kind != NULL && strcmp(a.scope_kind, "manual") != 0 &&
	    strcmp(a.scope_kind, "automatic_aot") != 0) {
		rc = tc_usage_error(cmd, "argument --scope-kind: invalid choice: "
		    "'%s' (choose from 'manual', 'automatic_aot')", a.scope_kind);
		goto done;
	}
	if ((doc = tc_sk_meta_summary(&a, &err)) == NULL ||
	    write_outputs(doc, json_out, rr_out, plan_out, plan_min,
	    a.sample_limit, &err) != 0 ||
	    tc_json_write(&out, doc, TC_JSON_ASCII | TC_JSON_INDENT, &err) != 0) {
		fprintf(stderr, "tunectl analyze sk-meta: error: %s\n",
		    tc_error_msg(&err));
		tc_error_clear(&err);
		rc = TC_EXIT_FAIL;
		goto done;
	}
	tc_buf_putc(&out, '\n');
	fwrite(out.data, 1, out.len, stdout);
	tc_json_int64(tc_json_get(doc, "model_count"), &models);
	rc = models == 0 ? TC_EXIT_USAGE : tc_json_truthy(tc_json_get(doc,
	    "fusion_proven")) ? TC_EXIT_OK : TC_EXIT_FAIL;
done:
	tc_buf_free(&out);
	tc_json_free(doc);
	tc_parse_result_free(&res);
	spelled_free(&sp);
	return rc;
}

const struct tc_command cmd_analyze_sk_meta_entry = {
	.name = "analyze sk-meta",
	.summary = "summarize SuperKernel metadata and prove fusion occurred",
	.usage = sk_meta_usage,
	.help = sk_meta_help,
	.run = analyze_sk_meta,
};
