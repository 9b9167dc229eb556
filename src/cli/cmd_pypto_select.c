/*
 * cmd_pypto_select.c - "tunectl pypto select": best-version selection.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/fileio.h"
#include "tunectl/pypto.h"

static int
cmd_pypto_select(const struct tc_command *self, int argc, char **argv)
{
	tc_pypto_select_opts o;
	const char *output = NULL;
	bool markdown = false;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--candidates", TC_OPT_STRING, &o.candidates_path, true, NULL },
		{ "--stability-range", TC_OPT_STRING, &o.stability_value, false,
		  NULL },
		{ "--stability-kind", TC_OPT_STRING, &o.stability_kind, false,
		  NULL },
		{ "--case-manifest", TC_OPT_STRING, &o.manifest_path, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--markdown", TC_OPT_FLAG, &markdown, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(self, argc, argv, opts, NULL);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((out = tc_pypto_cli_save(tc_pypto_select(&o, &err), output,
	    TC_WRITE_MKDIRS, &err)) == NULL)
		return tc_pypto_cli_finish(NULL, &err);
	if (markdown) {
		char *md = tc_pypto_selection_markdown(out);

		fputs(md, stdout);
		free(md);
		tc_json_free(out);
		return TC_EXIT_OK;
	}
	return tc_pypto_cli_print(out);
}

const struct tc_command cmd_pypto_select_entry = {
	.name = "pypto select",
	.summary = "best-version selection",
	.usage = "usage: tunectl pypto select --op-dir DIR --candidates FILE [--output FILE]\n"
	    "           [--markdown] [--stability-range DECIMAL --stability-kind KIND\n"
	    "            --case-manifest FILE]   (the last three only without a frozen contract)\n",
	.run = cmd_pypto_select,
};
