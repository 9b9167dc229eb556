/*
 * cmd_analyze_smap.c - "tunectl analyze smap build|validate": assemble a
 * source_scope_map_v2 bundle from its evidence artifacts, and check one
 * fail-closed, as the analysis does before it trusts one, printing only
 * its status (the reference's source_scope_map_v2.py build|validate).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"

/* source_scope_map_v2.py's usages, as argparse writes them */
static const char smap_ref_usage[] =
    "usage: source_scope_map_v2.py [-h] {build,validate} ...\n";
static const char smap_validate_ref_usage[] =
    "usage: source_scope_map_v2.py validate [-h] --map MAP --source-revision\n"
    "                                       SOURCE_REVISION\n"
    "                                       [--candidate-manifest-sha256 CANDIDATE_MANIFEST_SHA256]\n"
    "                                       [--baseline-manifest-sha256 BASELINE_MANIFEST_SHA256]\n"
    "                                       [--source-root SOURCE_ROOT]\n";
static const char smap_build_ref_usage[] =
    "usage: source_scope_map_v2.py build [-h] --artifact-root ARTIFACT_ROOT\n"
    "                                    (--stable-marker-revision STABLE_MARKER_REVISION | --stable-source-revision STABLE_SOURCE_REVISION)\n"
    "                                    --provenance-dag PROVENANCE_DAG\n"
    "                                    --source-manifest SOURCE_MANIFEST\n"
    "                                    --sk-source-map SK_SOURCE_MAP\n"
    "                                    --block-instance-inventory\n"
    "                                    BLOCK_INSTANCE_INVENTORY\n"
    "                                    --calibration-projection\n"
    "                                    CALIBRATION_PROJECTION\n"
    "                                    --original-fused-inventory\n"
    "                                    ORIGINAL_FUSED_INVENTORY\n"
    "                                    --unit-assignments UNIT_ASSIGNMENTS\n"
    "                                    --original-candidate-collection-manifest\n"
    "                                    ORIGINAL_CANDIDATE_COLLECTION_MANIFEST\n"
    "                                    --calibration-collection-manifest\n"
    "                                    CALIBRATION_COLLECTION_MANIFEST\n"
    "                                    --baseline-collection-manifest\n"
    "                                    BASELINE_COLLECTION_MANIFEST\n"
    "                                    [--calibration-source-manifest CALIBRATION_SOURCE_MANIFEST]\n"
    "                                    [--marker-only-calibration MARKER_ONLY_CALIBRATION]\n"
    "                                    --source-snapshot-root\n"
    "                                    SOURCE_SNAPSHOT_ROOT\n"
    "                                    [--calibration-source-snapshot-root CALIBRATION_SOURCE_SNAPSHOT_ROOT]\n"
    "                                    --output OUTPUT\n";

/*
 * An input error: the reference reports it through its top parser
 * (parser.error), so under TUNECTL_PROG=source_scope_map_v2.py it is that
 * parser's usage and "source_scope_map_v2.py: error: MSG".
 */
static int
smap_error(const struct tc_command *cmd, tc_error *err)
{
	int rc = TC_EXIT_USAGE;

	if (tc_cli_ref_prog(cmd) != NULL)
		fprintf(stderr, "%s%s: error: %s\n", smap_ref_usage,
		    "source_scope_map_v2.py", tc_error_msg(err));
	else
		rc = tc_usage_error(cmd, "%s", tc_error_msg(err));
	tc_error_clear(err);
	return rc;
}

static int
smap_validate(const struct tc_command *cmd, int argc, char **argv)
{
	const char *map = NULL, *rev = NULL, *cand = NULL, *base = NULL;
	const char *root = NULL;
	tc_error err = TC_ERROR_INIT;
	char *status;
	int rc;
	const struct tc_option opts[] = {
		{ "--map", TC_OPT_STRING, &map, true, NULL },
		{ "--source-revision", TC_OPT_STRING, &rev, true, NULL },
		{ "--candidate-manifest-sha256", TC_OPT_STRING, &cand, false,
		    NULL },
		{ "--baseline-manifest-sha256", TC_OPT_STRING, &base, false,
		    NULL },
		{ "--source-root", TC_OPT_STRING, &root, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	status = tc_source_scope_map_validate(map, rev, cand, base, root, &err);
	if (status == NULL)
		return smap_error(cmd, &err);
	printf("%s\n", status);
	free(status);
	return TC_EXIT_OK;
}

static const struct tc_command smap_validate_entry = {
	.name = "analyze smap validate",
	.summary = "check a source_scope_map_v2 bundle",
	.usage = "usage: tunectl analyze smap validate --map FILE "
	    "--source-revision REV\n"
	    "           [--candidate-manifest-sha256 HEX] "
	    "[--baseline-manifest-sha256 HEX]\n"
	    "           [--source-root DIR]\n",
	.help = "\nCheck a source_scope_map_v2 bundle fail-closed, as\n"
	    "\"tunectl analyze fusion --source-scope-map\" does: its keys and\n"
	    "content fingerprint, the source revision, the archived source\n"
	    "snapshot (and, with --source-root, that the current source holds\n"
	    "the same bytes), the provenance DAG that seals every artifact,\n"
	    "the log records behind the unit assignments and fused groups, the\n"
	    "collection manifests it is bound to, and every source range\n"
	    "against its exact_cover mapping.  Prints only the status (exact,\n"
	    "or diagnostic_only for a map without the v2 protocol); any failed\n"
	    "check is an error (exit 2).\n",
	.run = smap_validate,
	.ref_prog = "source_scope_map_v2.py validate",
	.ref_usage = smap_validate_ref_usage,
	.ref_top_usage = smap_ref_usage,
};


/* Is arg the option name, alone or as "NAME=VALUE"? */
static bool
is_option(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/*
 * argparse refuses the second of a mutually exclusive pair as it reads
 * it, before it checks required options: "argument SECOND: not allowed
 * with argument FIRST".
 */
static int
revision_conflict(const struct tc_command *cmd, int argc, char **argv)
{
	static const char *const names[2] = { "--stable-marker-revision",
	    "--stable-source-revision" };
	int i, k, seen = -1;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (k = 0; k < 2; k++) {
			if (!is_option(argv[i], names[k]))
				continue;
			if (seen == 1 - k)
				return tc_usage_error(cmd, "argument %s: not "
				    "allowed with argument %s", names[k],
				    names[seen]);
			seen = k;
			if (argv[i][strlen(names[k])] == '\0')
				i++;	/* its value */
		}
	return 0;
}

static int
smap_build(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_smap_build_args a;
	const char *out = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *map;
	int rc;
	const struct tc_option opts[] = {
		{ "--artifact-root", TC_OPT_STRING, &a.artifact_root, true, NULL },
		{ "--stable-marker-revision", TC_OPT_STRING,
		    &a.stable_marker_revision, false, NULL },
		{ "--stable-source-revision", TC_OPT_STRING,
		    &a.stable_source_revision, false, NULL },
		{ "--provenance-dag", TC_OPT_STRING, &a.artifacts[0], true, NULL },
		{ "--source-manifest", TC_OPT_STRING, &a.artifacts[1], true, NULL },
		{ "--sk-source-map", TC_OPT_STRING, &a.artifacts[2], true, NULL },
		{ "--block-instance-inventory", TC_OPT_STRING, &a.artifacts[3],
		    true, NULL },
		{ "--calibration-projection", TC_OPT_STRING, &a.artifacts[4],
		    true, NULL },
		{ "--original-fused-inventory", TC_OPT_STRING, &a.artifacts[5],
		    true, NULL },
		{ "--unit-assignments", TC_OPT_STRING, &a.artifacts[6], true,
		    NULL },
		{ "--original-candidate-collection-manifest", TC_OPT_STRING,
		    &a.artifacts[7], true, NULL },
		{ "--calibration-collection-manifest", TC_OPT_STRING,
		    &a.artifacts[8], true, NULL },
		{ "--baseline-collection-manifest", TC_OPT_STRING,
		    &a.artifacts[9], true, NULL },
		{ "--calibration-source-manifest", TC_OPT_STRING,
		    &a.calibration_source_manifest, false, NULL },
		{ "--marker-only-calibration", TC_OPT_STRING,
		    &a.marker_only_calibration, false, NULL },
		{ "--source-snapshot-root", TC_OPT_STRING,
		    &a.source_snapshot_root, true, NULL },
		{ "--calibration-source-snapshot-root", TC_OPT_STRING,
		    &a.calibration_source_snapshot_root, false, NULL },
		{ "--output", TC_OPT_STRING, &out, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&a, 0, sizeof(a));
	if ((rc = revision_conflict(cmd, argc, argv)) != 0)
		return rc;
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	/* the mutually exclusive, required revision group */
	if (a.stable_marker_revision != NULL && a.stable_source_revision != NULL)
		return tc_usage_error(cmd, "argument --stable-source-revision: "
		    "not allowed with argument --stable-marker-revision");
	if (a.stable_marker_revision == NULL && a.stable_source_revision == NULL)
		return tc_usage_error(cmd, "one of the arguments "
		    "--stable-marker-revision --stable-source-revision is "
		    "required");
	if ((map = tc_source_scope_map_build(&a, &err)) == NULL ||
	    tc_write_json(out, map, TC_WRITE_MKDIRS, &err) != 0) {
		tc_json_free(map);
		return smap_error(cmd, &err);
	}
	tc_json_free(map);
	return TC_EXIT_OK;
}

static const struct tc_command smap_build_entry = {
	.name = "analyze smap build",
	.summary = "assemble a source_scope_map_v2 bundle",
	.usage = "usage: tunectl analyze smap build --artifact-root DIR\n"
	    "           (--stable-marker-revision REV | "
	    "--stable-source-revision REV)\n"
	    "           --provenance-dag F --source-manifest F --sk-source-map F\n"
	    "           --block-instance-inventory F --calibration-projection F\n"
	    "           --original-fused-inventory F --unit-assignments F\n"
	    "           --original-candidate-collection-manifest F\n"
	    "           --calibration-collection-manifest F "
	    "--baseline-collection-manifest F\n"
	    "           [--calibration-source-manifest F] "
	    "[--marker-only-calibration F]\n"
	    "           --source-snapshot-root DIR "
	    "[--calibration-source-snapshot-root DIR]\n"
	    "           --output FILE\n",
	.help = "\nAssemble a source_scope_map_v2 bundle (the reference's\n"
	    "source_scope_map_v2.py build): each artifact by its path relative\n"
	    "to --artifact-root and its SHA-256, the collection manifests with\n"
	    "their manifest_fingerprint, the snapshot root with the SHA-256 of\n"
	    "its source-snapshot-manifest.json, one source range per\n"
	    "exact_cover mapping of the sk-source-map, and the content\n"
	    "fingerprint; writes it to --output (keys sorted).  A stable_source\n"
	    "map needs the marker-only evidence too.  It checks only what it\n"
	    "reads: \"tunectl analyze smap validate\" is the check.  Errors\n"
	    "exit 2.\n",
	.run = smap_build,
	.ref_prog = "source_scope_map_v2.py build",
	.ref_usage = smap_build_ref_usage,
	.ref_top_usage = smap_ref_usage,
};

static const struct tc_command *const smap_subs[] = {
	&smap_build_entry, &smap_validate_entry, NULL
};

const struct tc_command cmd_analyze_smap_entry = {
	.name = "analyze smap",
	.summary = "source_scope_map_v2 bundles",
	.usage = "usage: tunectl analyze smap build --artifact-root DIR ... "
	    "--output FILE\n"
	    "       tunectl analyze smap validate --map FILE "
	    "--source-revision REV [OPTIONS]\n",
	.subs = smap_subs,
	.sub_dest = "command",
	.ref_prog = "source_scope_map_v2.py",
	.ref_usage = smap_ref_usage,
};
