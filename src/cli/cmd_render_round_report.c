/*
 * cmd_render_round_report.c - "tunectl render-round-report": the reference
 * render_round_report.py.  Markdown on stdout, or in --markdown-out.  A
 * document the reference would die on (traceback, exit 1) gives one
 * "<Type>: <message>" line on stderr and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/fileio.h"
#include "tunectl/round_report.h"

static int
cmd_render_round_report(const struct tc_command *cmd, int argc, char **argv)
{
	const char *out_path = NULL, *title = TC_ROUND_REPORT_TITLE;
	long top_sk = TC_ROUND_REPORT_TOP_DEFAULT;
	long top_nf = TC_ROUND_REPORT_TOP_DEFAULT;
	const struct tc_option opts[] = {
		{ "--markdown-out", TC_OPT_STRING, &out_path, false, NULL },
		{ "--title", TC_OPT_STRING, &title, false, NULL },
		{ "--top-sk", TC_OPT_INT, &top_sk, false, NULL },
		{ "--top-non-fusion", TC_OPT_INT, &top_nf, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_round_report_opts ro;
	tc_error err = TC_ERROR_INIT;
	tc_json **reports = NULL;
	tc_buf md = TC_BUF_INIT;
	size_t i, n = 0;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &pr)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (pr.positional.len == 0) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "the following arguments are required: "
		    "JSON");
	}
	if (top_sk < 1 || top_nf < 1) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, top_sk < 1 ? "--top-sk must be >= 1" :
		    "--top-non-fusion must be >= 1");
	}
	reports = tc_xcalloc(pr.positional.len, sizeof(*reports));
	for (n = 0; n < pr.positional.len; n++) {
		reports[n] = tc_round_report_load(pr.positional.items[n], &err);
		if (reports[n] == NULL) {
			rc = TC_EXIT_FAIL;
			goto out;
		}
	}
	ro.title = title;
	ro.top_sk = top_sk;
	ro.top_non_fusion = top_nf;
	if (tc_round_report_render((const tc_json *const *)reports,
	    pr.positional.items, n, &ro, &md, &err) != 0) {
		rc = TC_EXIT_FAIL;
		goto out;
	}
	tc_buf_putc(&md, '\n');
	if (out_path != NULL) {
		if (tc_write_atomic(out_path, md.data, md.len, TC_WRITE_MKDIRS,
		    &err) != 0)
			rc = TC_EXIT_FAIL;
	} else {
		fwrite(md.data, 1, md.len, stdout);
		rc = fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
	}
out:
	if (rc == TC_EXIT_FAIL && err.msg != NULL)
		fprintf(stderr, "%s\n", tc_error_msg(&err));
	tc_error_clear(&err);
	for (i = 0; i < n; i++)
		tc_json_free(reports[i]);
	free(reports);
	tc_buf_free(&md);
	tc_parse_result_free(&pr);
	return rc;
}

const struct tc_command cmd_render_round_report_entry = {
	.name = "render-round-report",
	.summary = "render round-report JSON into Chinese Markdown (render_round_report.py)",
	.usage = "usage: tunectl render-round-report JSON [JSON ...] [--markdown-out FILE] [--title TEXT] [--top-sk INT] [--top-non-fusion INT]\n"
	    "\n"
	    "Render SuperKernel round-report JSON into Chinese Markdown.\n"
	    "  JSON                  round-report.child-ge-5.json or sk-meta-summary.json\n"
	    "  --markdown-out FILE   write Markdown to this path\n"
	    "  --title TEXT          (default: SuperKernel 单轮融合报告)\n"
	    "  --top-sk INT          (default: 20)\n"
	    "  --top-non-fusion INT  (default: 20)\n",
	.run = cmd_render_round_report,
};
