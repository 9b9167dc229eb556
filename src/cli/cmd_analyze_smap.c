/*
 * cmd_analyze_smap.c - "tunectl analyze smap validate": check a
 * source_scope_map_v2 bundle fail-closed, as the analysis does before it
 * trusts one, and print only its status (the reference's
 * source_scope_map_v2.py validate).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/analysis.h"

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

static const struct tc_command *const smap_subs[] = {
	&smap_validate_entry, NULL
};

const struct tc_command cmd_analyze_smap_entry = {
	.name = "analyze smap",
	.summary = "source_scope_map_v2 bundles",
	.usage = "usage: tunectl analyze smap validate --map FILE "
	    "--source-revision REV [OPTIONS]\n",
	.subs = smap_subs,
};
