/*
 * cmd_analyze_sk_meta.c - "tunectl analyze sk-meta": summarize TorchAir
 * SuperKernel metadata and prove whether fusion occurred (the reference's
 * analyze_sk_meta.py, run through share/tools/analyze_sk_meta.py with the
 * same argv).  Prints the summary; --json-out, --round-report-out and
 * --deep-auto-scope-plan-out write it, its round_report and the deep
 * auto-scope plan.  With --verify-root it compares the fused groups of
 * two metadata roots instead and prints the replay report.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/text.h"

static const char sk_meta_usage[] =
    "usage: tunectl analyze sk-meta [-h] [--json-out JSON_OUT]\n"
    "           [--verify-root VERIFY_ROOT]\n"
    "           [--replay-report-out REPLAY_REPORT_OUT]\n"
    "           [--replay-min-child-nodes REPLAY_MIN_CHILD_NODES]\n"
    "           [--compat-config-manifest COMPAT_CONFIG_MANIFEST]\n"
    "           [--verify-config-manifest VERIFY_CONFIG_MANIFEST]\n"
    "           [--candidate-name CANDIDATE_NAME] [--round-id ROUND_ID]\n"
    "           [--source-revision SOURCE_REVISION]\n"
    "           [--sample-limit SAMPLE_LIMIT] [--round-name ROUND_NAME]\n"
    "           [--scope-kind {manual,automatic_aot}]\n"
    "           [--round-report-out ROUND_REPORT_OUT]\n"
    "           [--effective-min-child-nodes EFFECTIVE_MIN_CHILD_NODES]\n"
    "           [--deep-auto-scope-plan-out DEEP_AUTO_SCOPE_PLAN_OUT]\n"
    "           [--deep-auto-min-child-nodes DEEP_AUTO_MIN_CHILD_NODES]\n"
    "           root\n";

/* The usage the reference's argparse prints for its own name (Python 3.11
 * wrapping), shown when share/tools/analyze_sk_meta.py runs the command. */
static const char sk_meta_ref_usage[] =
    "usage: analyze_sk_meta.py [-h] [--json-out JSON_OUT]\n"
    "                          [--verify-root VERIFY_ROOT]\n"
    "                          [--replay-report-out REPLAY_REPORT_OUT]\n"
    "                          [--replay-min-child-nodes REPLAY_MIN_CHILD_NODES]\n"
    "                          [--compat-config-manifest COMPAT_CONFIG_MANIFEST]\n"
    "                          [--verify-config-manifest VERIFY_CONFIG_MANIFEST]\n"
    "                          [--candidate-name CANDIDATE_NAME]\n"
    "                          [--round-id ROUND_ID]\n"
    "                          [--source-revision SOURCE_REVISION]\n"
    "                          [--sample-limit SAMPLE_LIMIT]\n"
    "                          [--round-name ROUND_NAME]\n"
    "                          [--scope-kind {manual,automatic_aot}]\n"
    "                          [--round-report-out ROUND_REPORT_OUT]\n"
    "                          [--effective-min-child-nodes EFFECTIVE_MIN_CHILD_NODES]\n"
    "                          [--deep-auto-scope-plan-out DEEP_AUTO_SCOPE_PLAN_OUT]\n"
    "                          [--deep-auto-min-child-nodes DEEP_AUTO_MIN_CHILD_NODES]\n"
    "                          root\n";

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
    "directories created.  Option names may be abbreviated to a unique\n"
    "prefix.\n"
    "\n"
    "replay (is the fusion of ROOT reproduced by a fresh build?):\n"
    "  --verify-root DIR           the fresh build's metadata; prints the\n"
    "                              replay report instead of the summary\n"
    "  --compat-config-manifest FILE, --verify-config-manifest FILE\n"
    "                              the two builds' configs (JSON objects\n"
    "                              that must be equal); both required\n"
    "  --candidate-name NAME, --round-id NAME-..., --source-revision REV\n"
    "                              the replay's identity; all required\n"
    "  --replay-min-child-nodes N  smallest fused group compared (1)\n"
    "  --replay-report-out FILE    also write the report; paths in it are\n"
    "                              relative to FILE's directory\n"
    "\n"
    "Exit status: 0 when fusion is proven (fused child nodes were found),\n"
    "or in replay mode when it is reproduced; 1 when it is not, or a log\n"
    "or output cannot be read or written; 2 when no model directory was\n"
    "found (model_count 0, summary mode) and for usage errors.\n";

/* Every option of the reference, in its order (for prefixes). */
static const char *const all_options[] = {
	"--help", "--json-out", "--verify-root", "--replay-report-out",
	"--replay-min-child-nodes", "--compat-config-manifest",
	"--verify-config-manifest", "--candidate-name", "--round-id",
	"--source-revision", "--sample-limit", "--round-name", "--scope-kind",
	"--round-report-out", "--effective-min-child-nodes",
	"--deep-auto-scope-plan-out", "--deep-auto-min-child-nodes", NULL
};

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

/* Expand abbreviations, then parse; 0, -1 (help printed) or the usage
 * status.  Parsed values point into sp. */
static int
parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res,
    struct spelled *sp)
{
	int rc;

	sp->argc = argc;
	sp->args = tc_xcalloc((size_t)argc + 1, sizeof(*sp->args));
	sp->owned = tc_xcalloc((size_t)argc + 1, sizeof(*sp->owned));
	memcpy(sp->args, argv, (size_t)argc * sizeof(*sp->args));
	memset(res, 0, sizeof(*res));
	if ((rc = expand_prefixes(cmd, argc, sp->args, sp->owned)) != 0)
		return rc;
	return tc_opts_parse_one(cmd, argc, sp->args, opts, res, "root");
}

/* The replay options as given. */
struct replay_opts {
	const char *verify_root, *report_out;
	const char *compat_manifest, *verify_manifest;
	const char *candidate, *round_id, *revision;
	long min_child_nodes;
	bool verify_seen, report_seen, candidate_seen;
};

static bool
blank(const char *s)
{
	size_t a, b;

	if (s == NULL)
		return true;
	tc_py_strip(s, strlen(s), &a, &b);
	return a == b;
}

/* s.strip(), malloc'd. */
static char *
trimmed(const char *s)
{
	size_t a, b;

	tc_py_strip(s, strlen(s), &a, &b);
	return tc_xstrndup(s + a, b - a);
}

/* The reference's checks of the replay options, in its order; the
 * message, or NULL. */
static const char *
replay_misuse(const struct replay_opts *r)
{
	char *cand, *round;
	bool family;

	if (r->report_seen && !r->verify_seen)
		return "--replay-report-out requires --verify-root";
	if (!r->verify_seen) {
		if (r->compat_manifest != NULL || r->verify_manifest != NULL)
			return "config manifests require --verify-root";
		if (r->candidate_seen)
			return "--candidate-name requires --verify-root";
		if (r->round_id != NULL || r->revision != NULL)
			return "--round-id and --source-revision require "
			    "--verify-root";
		return NULL;
	}
	if (r->compat_manifest == NULL || r->verify_manifest == NULL)
		return "--verify-root requires --compat-config-manifest and "
		    "--verify-config-manifest";
	if (blank(r->candidate))
		return "--verify-root requires --candidate-name NAME";
	if (blank(r->round_id))
		return "--verify-root requires --round-id ROUND";
	if (blank(r->revision))
		return "--verify-root requires --source-revision REVISION";
	cand = trimmed(r->candidate);
	round = trimmed(r->round_id);
	family = strncmp(round, cand, strlen(cand)) == 0 &&
	    round[strlen(cand)] == '-';
	free(cand);
	free(round);
	if (!family)
		return "--round-id must belong to --candidate-name family";
	if (r->min_child_nodes < 1)
		return "--replay-min-child-nodes must be >= 1";
	return NULL;
}

/* Print doc as the reference prints it (indent 2, sorted keys, ASCII). */
static int
print_doc(const tc_json *doc, tc_error *err)
{
	tc_buf out = TC_BUF_INIT;

	if (tc_json_write(&out, doc, TC_JSON_ASCII | TC_JSON_INDENT, err) != 0)
		return -1;
	tc_buf_putc(&out, '\n');
	fwrite(out.data, 1, out.len, stdout);
	tc_buf_free(&out);
	return 0;
}

/* Replay mode after the summary's files: print (and write) the report;
 * exit 0 when fusion is reproduced. */
static int
run_replay(const char *root, const struct replay_opts *r, tc_error *err)
{
	struct tc_sk_meta_replay_args a;
	char *cand = trimmed(r->candidate), *round = trimmed(r->round_id);
	char *rev = trimmed(r->revision), *base = NULL;
	tc_json *rep;
	int rc = -1;

	a.compat_root = root;
	a.verify_root = r->verify_root;
	a.compat_manifest = r->compat_manifest;
	a.verify_manifest = r->verify_manifest;
	a.candidate_name = cand;
	a.round_id = round;
	a.source_revision = rev;
	a.min_child_nodes = r->min_child_nodes;
	a.artifact_base = r->report_out != NULL ?
	    (base = tc_path_dirname(r->report_out)) : NULL;
	if ((rep = tc_sk_meta_replay(&a, err)) != NULL &&
	    print_doc(rep, err) == 0 &&
	    (r->report_out == NULL || write_doc(r->report_out, rep, err) == 0))
		rc = tc_json_truthy(tc_json_get(rep, "fusion_reproducible")) ?
		    TC_EXIT_OK : TC_EXIT_FAIL;
	tc_json_free(rep);
	free(base);
	free(cand);
	free(round);
	free(rev);
	return rc;
}

static int
analyze_sk_meta(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_sk_meta_args a = { NULL, 20, NULL, NULL, 5 };
	struct replay_opts r = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1,
	    false, false, false };
	struct tc_parse_result res;
	struct spelled sp;
	const char *json_out = NULL, *rr_out = NULL, *plan_out = NULL, *why;
	long plan_min = 5;
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = NULL;
	int64_t models = 0;
	int rc;
	static const char *const scope_kinds[] = { "manual", "automatic_aot",
	    NULL };
	struct tc_opt_choice scope_kind = { &a.scope_kind, scope_kinds };
	const struct tc_option opts[] = {
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ "--verify-root", TC_OPT_STRING, &r.verify_root, false,
		    &r.verify_seen },
		{ "--replay-report-out", TC_OPT_STRING, &r.report_out, false,
		    &r.report_seen },
		{ "--replay-min-child-nodes", TC_OPT_INT, &r.min_child_nodes,
		    false, NULL },
		{ "--compat-config-manifest", TC_OPT_STRING, &r.compat_manifest,
		    false, NULL },
		{ "--verify-config-manifest", TC_OPT_STRING, &r.verify_manifest,
		    false, NULL },
		{ "--candidate-name", TC_OPT_STRING, &r.candidate, false,
		    &r.candidate_seen },
		{ "--round-id", TC_OPT_STRING, &r.round_id, false, NULL },
		{ "--source-revision", TC_OPT_STRING, &r.revision, false, NULL },
		{ "--sample-limit", TC_OPT_INT, &a.sample_limit, false, NULL },
		{ "--round-name", TC_OPT_STRING, &a.round_name, false, NULL },
		{ "--scope-kind", TC_OPT_CHOICE, &scope_kind, false, NULL },
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
	if ((why = replay_misuse(&r)) != NULL) {
		rc = tc_usage_error(cmd, "%s", why);
		goto done;
	}
	if ((doc = tc_sk_meta_summary(&a, &err)) == NULL ||
	    write_outputs(doc, json_out, rr_out, plan_out, plan_min,
	    a.sample_limit, &err) != 0)
		goto fail;
	if (r.verify_seen) {
		if ((rc = run_replay(a.root, &r, &err)) < 0)
			goto fail;
		goto done;
	}
	if (print_doc(doc, &err) != 0)
		goto fail;
	tc_json_int64(tc_json_get(doc, "model_count"), &models);
	rc = models == 0 ? TC_EXIT_USAGE : tc_json_truthy(tc_json_get(doc,
	    "fusion_proven")) ? TC_EXIT_OK : TC_EXIT_FAIL;
	goto done;
fail:
	if (tc_cli_ref_prog(cmd) != NULL)
		fprintf(stderr, "%s: error: %s\n", tc_cli_ref_prog(cmd),
		    tc_error_msg(&err));
	else
		fprintf(stderr, "tunectl analyze sk-meta: error: %s\n",
		    tc_error_msg(&err));
	tc_error_clear(&err);
	rc = TC_EXIT_FAIL;
done:
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
	.ref_prog = "analyze_sk_meta.py",
	.ref_usage = sk_meta_ref_usage,
};
