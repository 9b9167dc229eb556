/*
 * cmd_analyze_smap.c - "tunectl analyze smap build|validate": assemble a
 * source_scope_map_v2 bundle from its evidence artifacts, and check one
 * fail-closed, as the analysis does before it trusts one, printing only
 * its status (the reference's source_scope_map_v2.py build|validate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/fileio.h"

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
	if (status == NULL) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
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
};


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
		rc = tc_usage_error(cmd, "%s", tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
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
};
