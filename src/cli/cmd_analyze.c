/*
 * cmd_analyze.c - "tunectl analyze fusion": the SuperKernel fusion
 * performance analysis after msprof (the reference's
 * analyze_fusion_performance.py, run through share/tools/
 * analyze_profiler.py with the same argv).  Prints the analysis document
 * and writes it (and the zh Markdown report) together or not at all.
 * Every usage and input error exits 2, as the reference's do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"
#include "tunectl/text.h"

static const char fusion_usage[] =
    "usage: tunectl analyze fusion [-h] --baseline-profile BASELINE_PROFILE\n"
    "           --candidate-profile CANDIDATE_PROFILE --sk-meta SK_META\n"
    "           --baseline-config BASELINE_CONFIG\n"
    "           --candidate-config CANDIDATE_CONFIG\n"
    "           --baseline-workload BASELINE_WORKLOAD\n"
    "           --candidate-workload CANDIDATE_WORKLOAD\n"
    "           --declared-change-set DECLARED_CHANGE_SET\n"
    "           --candidate-name CANDIDATE_NAME --experiment-id EXPERIMENT_ID\n"
    "           --round-id ROUND_ID --analysis-agent-id ANALYSIS_AGENT_ID\n"
    "           --source-revision SOURCE_REVISION [--sk-prof SK_PROF]\n"
    "           [--environment-evidence ENVIRONMENT_EVIDENCE]\n"
    "           [--source-scope-map SOURCE_SCOPE_MAP]\n"
    "           [--source-root SOURCE_ROOT]\n"
    "           [--baseline-collection-manifest BASELINE_COLLECTION_MANIFEST]\n"
    "           [--profile-collection-manifest PROFILE_COLLECTION_MANIFEST]\n"
    "           [--min-relative-change-pct MIN_RELATIVE_CHANGE_PCT]\n"
    "           [--min-absolute-change-us MIN_ABSOLUTE_CHANGE_US]\n"
    "           [--min-occurrences MIN_OCCURRENCES] --json-out JSON_OUT\n"
    "           [--markdown-out MARKDOWN_OUT]\n";

/* The usage argparse (Python 3.11, 80 columns) writes for the reference's
 * program name, printed when its launcher runs this command. */
static const char fusion_ref_usage[] =
    "usage: analyze_fusion_performance.py [-h] --baseline-profile BASELINE_PROFILE\n"
    "                                     --candidate-profile CANDIDATE_PROFILE\n"
    "                                     --sk-meta SK_META --baseline-config\n"
    "                                     BASELINE_CONFIG --candidate-config\n"
    "                                     CANDIDATE_CONFIG --baseline-workload\n"
    "                                     BASELINE_WORKLOAD --candidate-workload\n"
    "                                     CANDIDATE_WORKLOAD --declared-change-set\n"
    "                                     DECLARED_CHANGE_SET --candidate-name\n"
    "                                     CANDIDATE_NAME --experiment-id\n"
    "                                     EXPERIMENT_ID --round-id ROUND_ID\n"
    "                                     --analysis-agent-id ANALYSIS_AGENT_ID\n"
    "                                     --source-revision SOURCE_REVISION\n"
    "                                     [--sk-prof SK_PROF]\n"
    "                                     [--environment-evidence ENVIRONMENT_EVIDENCE]\n"
    "                                     [--source-scope-map SOURCE_SCOPE_MAP]\n"
    "                                     [--source-root SOURCE_ROOT]\n"
    "                                     [--baseline-collection-manifest BASELINE_COLLECTION_MANIFEST]\n"
    "                                     [--profile-collection-manifest PROFILE_COLLECTION_MANIFEST]\n"
    "                                     [--min-relative-change-pct MIN_RELATIVE_CHANGE_PCT]\n"
    "                                     [--min-absolute-change-us MIN_ABSOLUTE_CHANGE_US]\n"
    "                                     [--min-occurrences MIN_OCCURRENCES]\n"
    "                                     --json-out JSON_OUT\n"
    "                                     [--markdown-out MARKDOWN_OUT]\n";

static const char fusion_help[] =
    "\n"
    "Compare a SuperKernel-off profile with a SuperKernel-on profile of the\n"
    "same workload (two msprof kernel_details.csv) and decide, per fused\n"
    "SuperKernel (SK), whether it pays: beneficial (keep), neutral or\n"
    "regressed (prune, or block without an exact source interval), or\n"
    "insufficient_evidence (reprofile).  Writes profiling-analysis-result.json\n"
    "(analysis schema 1.2) and prints it; see docs/analysis.md.\n"
    "\n"
    "required:\n"
    "  --baseline-profile PATH     SK-off kernel_details.csv, or a directory\n"
    "                              holding exactly one\n"
    "  --candidate-profile PATH    SK-on kernel_details.csv, or such a directory\n"
    "  --sk-meta DIR               TorchAir SuperKernel metadata; every\n"
    "                              sk_fused_nodes.log below it is read\n"
    "  --baseline-config FILE      JSON object: the SK-off run's config\n"
    "  --candidate-config FILE     JSON object: the SK-on run's config\n"
    "  --baseline-workload FILE    JSON object: model, input, batch, rank, mode,\n"
    "                              warmup, iterations, runtime (or aliases)\n"
    "  --candidate-workload FILE   the same for the SK-on run\n"
    "  --declared-change-set FILE  {\"allowed_json_pointers\": [...]}: the RFC 6901\n"
    "                              pointers the two configs may differ in\n"
    "  --candidate-name NAME       the candidate (trimmed, non-empty)\n"
    "  --experiment-id ID          the experiment\n"
    "  --round-id ID               NAME-AUTO, NAME-BASE, NAME-P<n> or NAME-FINAL\n"
    "  --analysis-agent-id ID      who analysed\n"
    "  --source-revision REV       the source revision profiled\n"
    "  --json-out FILE             where the analysis document goes\n"
    "\n"
    "optional:\n"
    "  --sk-prof PATH              SK child trace: sk_prof_device_*.json, or a\n"
    "                              directory of them (diagnostic only)\n"
    "  --environment-evidence FILE check_environment.py's JSON object\n"
    "  --source-scope-map FILE     a source_scope_map_v2 bundle, or a legacy\n"
    "                              task-range layer map (diagnostic only)\n"
    "  --source-root DIR           the source tree an exact v2 map is checked\n"
    "                              against\n"
    "  --baseline-collection-manifest FILE\n"
    "  --profile-collection-manifest FILE\n"
    "                              collection manifests of the SK-off and SK-on\n"
    "                              captures (both or neither): they make the\n"
    "                              structural association, and so the verdicts,\n"
    "                              exact (\"tunectl analyze collection\")\n"
    "  --min-relative-change-pct X smallest change that counts, in % (3.0)\n"
    "  --min-absolute-change-us X  smallest change that counts, in us (1.0)\n"
    "  --min-occurrences N         occurrences needed on each side (3; never\n"
    "                              fewer than 3)\n"
    "  --markdown-out FILE         also write the zh Markdown report\n"
    "\n"
    "retired (refused as unrecognized arguments, as the reference refuses\n"
    "them): --profile, --replay-evidence, --compat-collection-manifest,\n"
    "--verify-collection-manifest.\n"
    "\n"
    "Exit status: 0 and the document on stdout; 2 for every usage, input or\n"
    "path error, with nothing written.\n";

/* argparse's error for the first number it could not convert: "argument
 * --x: invalid float value: '<repr>'". */
static int
bad_number(const struct tc_command *cmd, const char *const text[3])
{
	static const char *const names[3] = { "--min-relative-change-pct",
	    "--min-absolute-change-us", "--min-occurrences" };
	double d;
	long l;
	size_t i;
	int rc = 0;

	for (i = 0; i < 3 && rc == 0; i++) {
		tc_buf repr = TC_BUF_INIT;

		if (text[i] == NULL || (i < 2 ? tc_analysis_py_float(text[i],
		    &d) : tc_analysis_py_int(text[i], &l)))
			continue;
		tc_py_repr_str(&repr, text[i], strlen(text[i]), TC_UTF8_ESCAPE);
		rc = tc_usage_error(cmd, "argument %s: invalid %s value: %s",
		    names[i], i < 2 ? "float" : "int", tc_buf_cstr(&repr));
		tc_buf_free(&repr);
	}
	return rc;
}

static int
analyze_fusion(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_fusion_args a;
	tc_error err = TC_ERROR_INIT;
	long min_occ = 3;
	const char *num_text[3] = { NULL, NULL, NULL };
	int fd, rc;
	const struct tc_option opts[] = {
		{ "--baseline-profile", TC_OPT_STRING, &a.baseline_profile, true,
		    NULL },
		{ "--candidate-profile", TC_OPT_STRING, &a.candidate_profile,
		    true, NULL },
		{ "--sk-meta", TC_OPT_STRING, &a.sk_meta, true, NULL },
		{ "--baseline-config", TC_OPT_STRING, &a.baseline_config, true,
		    NULL },
		{ "--candidate-config", TC_OPT_STRING, &a.candidate_config, true,
		    NULL },
		{ "--baseline-workload", TC_OPT_STRING, &a.baseline_workload,
		    true, NULL },
		{ "--candidate-workload", TC_OPT_STRING, &a.candidate_workload,
		    true, NULL },
		{ "--declared-change-set", TC_OPT_STRING, &a.declared_change_set,
		    true, NULL },
		{ "--candidate-name", TC_OPT_STRING, &a.candidate_name, true,
		    NULL },
		{ "--experiment-id", TC_OPT_STRING, &a.experiment_id, true, NULL },
		{ "--round-id", TC_OPT_STRING, &a.round_id, true, NULL },
		{ "--analysis-agent-id", TC_OPT_STRING, &a.analysis_agent_id,
		    true, NULL },
		{ "--source-revision", TC_OPT_STRING, &a.source_revision, true,
		    NULL },
		{ "--sk-prof", TC_OPT_STRING, &a.sk_prof, false, NULL },
		{ "--environment-evidence", TC_OPT_STRING,
		    &a.environment_evidence, false, NULL },
		{ "--source-scope-map", TC_OPT_STRING, &a.source_scope_map, false,
		    NULL },
		{ "--source-root", TC_OPT_STRING, &a.source_root, false, NULL },
		{ "--baseline-collection-manifest", TC_OPT_STRING,
		    &a.baseline_collection_manifest, false, NULL },
		{ "--profile-collection-manifest", TC_OPT_STRING,
		    &a.profile_collection_manifest, false, NULL },
		{ "--min-relative-change-pct", TC_OPT_STRING, &num_text[0],
		    false, NULL },
		{ "--min-absolute-change-us", TC_OPT_STRING, &num_text[1],
		    false, NULL },
		{ "--min-occurrences", TC_OPT_STRING, &num_text[2], false, NULL },
		{ "--json-out", TC_OPT_STRING, &a.json_out, true, NULL },
		{ "--markdown-out", TC_OPT_STRING, &a.markdown_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&a, 0, sizeof(a));
	a.min_relative_change_pct = 3.0;
	a.min_absolute_change_us = 1.0;
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	/* the numbers as argparse's type=float and type=int read them */
	if ((num_text[0] != NULL && !tc_analysis_py_float(num_text[0],
	    &a.min_relative_change_pct)) || (num_text[1] != NULL &&
	    !tc_analysis_py_float(num_text[1], &a.min_absolute_change_us)) ||
	    (num_text[2] != NULL && !tc_analysis_py_int(num_text[2], &min_occ)))
		return bad_number(cmd, num_text);
	a.min_occurrences = min_occ;
	if (tc_fusion_args_check(&a, &err) != 0 ||
	    tc_analysis_fusion_write(&a, &fd, &err) != 0) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	/* the text written to --json-out, printed as tc_print_json would */
	rc = fflush(stdout) == 0 && tc_copy_fd(fd, STDOUT_FILENO) == 0 ?
	    TC_EXIT_OK : TC_EXIT_FAIL;
	close(fd);
	return rc;
}

static const struct tc_command analyze_fusion_entry = {
	.name = "analyze fusion",
	.summary = "per-SK fusion verdicts from two kernel_details.csv "
	    "(analysis 1.2)",
	.usage = fusion_usage,
	.help = fusion_help,
	.run = analyze_fusion,
	.ref_prog = "analyze_fusion_performance.py",
	.ref_usage = fusion_ref_usage,
};

/* artifact_contract.py's top parser, as argparse writes its usage */
static const char collection_ref_usage[] =
    "usage: artifact_contract.py [-h] {begin,finalize,validate-set} ...\n";

/*
 * An input error of "analyze collection": the reference's CLI prints it
 * as one line, "artifact_contract: error: MSG", with no usage (only its
 * argparse errors carry one).  Under TUNECTL_PROG=artifact_contract.py
 * the line is exactly that; otherwise tunectl names the command.
 */
static int
collection_error(const struct tc_command *cmd, tc_error *err)
{
	if (tc_cli_ref_prog(cmd) != NULL)
		fprintf(stderr, "artifact_contract: error: %s\n",
		    tc_error_msg(err));
	else
		fprintf(stderr, "tunectl %s: error: %s\n", cmd->name,
		    tc_error_msg(err));
	tc_error_clear(err);
	return TC_EXIT_USAGE;
}

/* "tunectl analyze collection validate-set": the reference's
 * artifact_contract.py validate-set. */
static int
collection_validate_set(const struct tc_command *cmd, int argc, char **argv)
{
	static const char *const order[] = { "baseline_profile",
	    "candidate_compat", "candidate_verify", "candidate_profile" };
	struct tc_strlist specs = { NULL, 0 };
	const char *json_out = NULL, *roles[4], *paths[4];
	const char *given_role[4], *given_path[4];
	char *owned[8] = { NULL };
	tc_error err = TC_ERROR_INIT;
	tc_json *summary;
	size_t i, k, n = 0, ng = 0;
	int rc;
	const struct tc_option opts[] = {
		{ "--manifest", TC_OPT_LIST, &specs, true, NULL },
		{ "--json-out", TC_OPT_STRING, &json_out, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	for (i = 0; i < specs.len; i++) {
		const char *eq = strchr(specs.items[i], '=');

		if (eq == NULL) {
			tc_error_set(&err, "manifest must use ROLE=PATH");
			goto fail;
		}
		if (ng == 4) {
			tc_error_set(&err, "validate-set requires exactly "
			    "baseline_profile and candidate_profile manifests, or "
			    "the complete four-role audit set");
			goto fail;
		}
		owned[ng] = strndup(specs.items[i], (size_t)(eq - specs.items[i]));
		given_role[ng] = owned[ng];
		given_path[ng] = eq + 1;
		if (!tc_text_is_canonical(given_role[ng], strlen(given_role[ng])) ||
		    given_role[ng][0] == '\0') {
			tc_error_set(&err, "manifest role must be a trimmed "
			    "non-empty string");
			ng++;
			goto fail;
		}
		if (!tc_text_is_canonical(eq + 1, strlen(eq + 1)) ||
		    eq[1] == '\0') {
			tc_error_set(&err, "manifest path must be a trimmed "
			    "non-empty string");
			ng++;
			goto fail;
		}
		for (k = 0; k < ng; k++)
			if (strcmp(given_role[k], given_role[ng]) == 0) {
				tc_error_set(&err, "duplicate manifest role: %s",
				    given_role[ng]);
				ng++;
				goto fail;
			}
		ng++;
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < ng; i++)
			if (strcmp(order[k], given_role[i]) == 0) {
				roles[n] = order[k];
				paths[n++] = given_path[i];
			}
	if (n != ng || !(n == 4 || (n == 2 &&
	    strcmp(roles[0], "baseline_profile") == 0 &&
	    strcmp(roles[1], "candidate_profile") == 0))) {
		tc_error_set(&err, "validate-set requires exactly baseline_profile "
		    "and candidate_profile manifests, or the complete four-role "
		    "audit set");
		goto fail;
	}
	if ((summary = tc_collection_validate_set(roles, paths, n, &err)) == NULL)
		goto fail;
	{
		tc_buf out = TC_BUF_INIT;

		tc_json_write(&out, summary, TC_JSON_ASCII, NULL);
		tc_buf_putc(&out, '\n');
		if (json_out == NULL)
			fwrite(out.data, 1, out.len, stdout);
		else if (tc_collection_output_check(json_out, paths, n,
		    &err) != 0 || tc_write_atomic(json_out, out.data, out.len,
		    TC_WRITE_EXCLUSIVE | TC_WRITE_PRIVATE, &err) != 0)
			rc = -1;
		tc_buf_free(&out);
		tc_json_free(summary);
		if (rc == -1)
			goto fail;
	}
	for (i = 0; i < ng; i++)
		free(owned[i]);
	tc_strlist_free(&specs);
	return TC_EXIT_OK;
fail:
	for (i = 0; i < ng; i++)
		free(owned[i]);
	tc_strlist_free(&specs);
	return collection_error(cmd, &err);
}

static const struct tc_command collection_validate_set_entry = {
	.name = "analyze collection validate-set",
	.summary = "check a set of collection manifests",
	.usage = "usage: tunectl analyze collection validate-set --manifest "
	    "ROLE=PATH [--manifest ROLE=PATH ...] [--json-out FILE]\n",
	.help = "\nCheck the collection manifests of one capture set (roles\n"
	    "baseline_profile and candidate_profile, or all four with\n"
	    "candidate_compat and candidate_verify): each manifest's schema,\n"
	    "session, producer, workload, config and control fingerprints, root\n"
	    "marker, every recorded file (SHA-256, size, ctime inside the capture\n"
	    "window, no links), and that the set agrees.  Prints the summary\n"
	    "(ASCII canonical JSON with set_fingerprint) or writes it to a new\n"
	    "--json-out file.  Errors exit 2.\n",
	.run = collection_validate_set,
	.ref_prog = "artifact_contract.py validate-set",
	.ref_top_usage = collection_ref_usage,
	.ref_usage = "usage: artifact_contract.py validate-set [-h] --manifest MANIFEST\n"
	    "                                         [--json-out JSON_OUT]\n",
};

/* Print cj(doc) and a newline, or the usage error; frees doc. */
static int
print_canonical(const struct tc_command *cmd, tc_json *doc, tc_error *err)
{
	tc_buf out = TC_BUF_INIT;

	if (doc == NULL)
		return collection_error(cmd, err);
	tc_json_write(&out, doc, TC_JSON_ASCII, NULL);
	tc_buf_putc(&out, '\n');
	fwrite(out.data, 1, out.len, stdout);
	tc_buf_free(&out);
	tc_json_free(doc);
	return TC_EXIT_OK;
}

static int
collection_begin(const struct tc_command *cmd, int argc, char **argv)
{
	static const char *const roles[] = { "baseline_profile",
	    "candidate_compat", "candidate_verify", "candidate_profile", NULL };
	const char *role = NULL, *root = NULL, *session_out = NULL;
	struct tc_opt_choice role_choice = { &role, roles };
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--role", TC_OPT_CHOICE, &role_choice, true, NULL },
		{ "--root", TC_OPT_STRING, &root, true, NULL },
		{ "--session-out", TC_OPT_STRING, &session_out, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	return print_canonical(cmd, tc_collection_begin(role, root, session_out,
	    &err), &err);
}

static int
collection_finalize(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_collection_finalize_args a;
	struct tc_strlist files = { NULL, 0 };
	long pid = 0, started = 0, ended = 0;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &a.session, true, NULL },
		{ "--source-revision", TC_OPT_STRING, &a.source_revision, true,
		    NULL },
		{ "--native-pid", TC_OPT_INT, &pid, true, NULL },
		{ "--started-ns", TC_OPT_INT, &started, true, NULL },
		{ "--ended-ns", TC_OPT_INT, &ended, true, NULL },
		{ "--command-fingerprint", TC_OPT_STRING, &a.command_fingerprint,
		    true, NULL },
		{ "--workload", TC_OPT_STRING, &a.workload, true, NULL },
		{ "--config", TC_OPT_STRING, &a.config, true, NULL },
		{ "--control", TC_OPT_STRING, &a.control, true, NULL },
		{ "--file", TC_OPT_LIST, &files, true, NULL },
		{ "--out", TC_OPT_STRING, &a.out, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&a, 0, sizeof(a));
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0) {
		tc_strlist_free(&files);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	a.native_pid = pid;
	a.started_ns = started;
	a.ended_ns = ended;
	a.files = files.items;
	a.nfiles = files.len;
	rc = print_canonical(cmd, tc_collection_finalize(&a, &err), &err);
	tc_strlist_free(&files);
	return rc;
}

static const struct tc_command collection_begin_entry = {
	.name = "analyze collection begin",
	.summary = "open a capture session",
	.usage = "usage: tunectl analyze collection begin --role ROLE --root DIR "
	    "--session-out FILE\n",
	.help = "\nOpen a capture session (the reference's artifact_contract.py\n"
	    "begin): ROLE is baseline_profile, candidate_compat,\n"
	    "candidate_verify or candidate_profile; DIR must be empty (it is\n"
	    "created); the session record goes to FILE outside DIR and the\n"
	    "marker .collection-session.json into DIR.  Prints the record.\n",
	.run = collection_begin,
	.ref_prog = "artifact_contract.py begin",
	.ref_top_usage = collection_ref_usage,
	.ref_usage = "usage: artifact_contract.py begin [-h] --role\n"
	    "                                  {baseline_profile,candidate_compat,"
	    "candidate_verify,candidate_profile}\n"
	    "                                  --root ROOT --session-out "
	    "SESSION_OUT\n",
};

static const struct tc_command collection_finalize_entry = {
	.name = "analyze collection finalize",
	.summary = "write the manifest of a capture",
	.usage = "usage: tunectl analyze collection finalize --session FILE "
	    "--source-revision REV --native-pid N\n"
	    "           --started-ns N --ended-ns N --command-fingerprint HEX "
	    "--workload JSON\n"
	    "           --config JSON --control JSON --file ROLE=PATH "
	    "[--file ...] --out FILE\n",
	.help = "\nWrite the collection manifest of a capture session (the\n"
	    "reference's artifact_contract.py finalize): every --file is a\n"
	    "role file relative to the capture root, recorded by SHA-256, size\n"
	    "and times; the manifest (OUT, directly in the root, never\n"
	    "replacing a file) binds the session, the producer run, the\n"
	    "normalized workload, config and control.  Prints the manifest.\n",
	.run = collection_finalize,
	.ref_prog = "artifact_contract.py finalize",
	.ref_top_usage = collection_ref_usage,
	.ref_usage = "usage: artifact_contract.py finalize [-h] --session SESSION "
	    "--source-revision\n"
	    "                                     SOURCE_REVISION --native-pid "
	    "NATIVE_PID\n"
	    "                                     --started-ns STARTED_NS "
	    "--ended-ns\n"
	    "                                     ENDED_NS --command-fingerprint\n"
	    "                                     COMMAND_FINGERPRINT --workload "
	    "WORKLOAD\n"
	    "                                     --config CONFIG --control "
	    "CONTROL --file\n"
	    "                                     FILE_SPECS --out OUT\n",
};

static const struct tc_command *const collection_subs[] = {
	&collection_begin_entry, &collection_finalize_entry,
	&collection_validate_set_entry, NULL
};

static const struct tc_command analyze_collection_entry = {
	.name = "analyze collection",
	.summary = "collection manifests of structural captures",
	.usage = "usage: tunectl analyze collection begin --role ROLE --root DIR "
	    "--session-out FILE\n"
	    "       tunectl analyze collection finalize --session FILE ... "
	    "--out FILE\n"
	    "       tunectl analyze collection validate-set --manifest "
	    "ROLE=PATH ... [--json-out FILE]\n",
	.subs = collection_subs,
	.sub_dest = "command",
	.ref_prog = "artifact_contract.py",
	.ref_usage = collection_ref_usage,
};

static const struct tc_command *const analyze_subs[] = {
	&analyze_fusion_entry, &analyze_collection_entry,
	&cmd_analyze_sk_meta_entry, &cmd_analyze_smap_entry, NULL
};

const struct tc_command cmd_analyze_entry = {
	.name = "analyze",
	.summary = "profile analysis after msprof: SuperKernel fusion verdicts",
	.usage = "usage: tunectl analyze fusion --baseline-profile PATH "
	    "--candidate-profile PATH ...\n"
	    "       tunectl analyze collection validate-set --manifest ROLE=PATH "
	    "...\n"
	    "       tunectl analyze sk-meta ROOT [--json-out FILE] ...\n"
	    "       tunectl analyze smap validate --map FILE --source-revision "
	    "REV ...\n",
	.help = "\nSubcommands:\n"
	    "  fusion    per-SK verdicts of SuperKernel off against on\n"
	    "            (\"tunectl analyze fusion --help\")\n"
	    "  collection validate-set\n"
	    "            check the collection manifests of a capture set\n"
	    "  sk-meta   summarize SuperKernel metadata and prove fusion\n"
	    "            (\"tunectl analyze sk-meta --help\")\n"
	    "  smap validate\n"
	    "            check a source_scope_map_v2 bundle\n",
	.subs = analyze_subs,
};
