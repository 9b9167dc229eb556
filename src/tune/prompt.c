/*
 * prompt.c - what an agent host's phase worker of a "tunectl tune"
 * session is told beyond the phase prompt of src/host/prompt.c.  The
 * phase skills are the SuperKernel reference's and do not read a
 * workload spec; the generic worker of the phase (share/workers) does the
 * phase for the spec under the same contract, so the agent runs it
 * through tunectl (the one program every host adapter lets it run) and
 * checks what it left.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"
#include "tunectl/tune.h"

/* s as one word of sh: single-quoted, a quote as '\''. */
static void
sh_word(tc_buf *b, const char *s)
{
	tc_buf_putc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			tc_buf_puts(b, "'\\''");
		else
			tc_buf_putc(b, *s);
	}
	tc_buf_putc(b, '\'');
}

int
tc_tune_prompt(tc_buf *b, const tc_json *task, const char *task_path,
    const char *result_path, const char *program, tc_error *err)
{
	const char *root = tc_json_get_string(task, "artifact_root");
	char *path;
	tc_json *rec;
	const char *spec;

	if (root == NULL)
		return 0;
	path = tc_xasprintf("%s/%s", root, TC_TUNE_RECORD);
	if (!tc_path_exists(path)) {
		free(path);
		return 0;
	}
	rec = tc_json_parse_file(path, err);
	spec = tc_json_get_string(rec, "spec_path");
	if (rec != NULL && spec == NULL)
		tc_error_set(err, "%s names no spec_path", path);
	free(path);
	if (spec == NULL) {
		tc_json_free(rec);
		return -1;
	}
	tc_buf_printf(b,
	    "\n6. This session tunes the program of a workload spec (tunectl "
	    "tune, docs/workload-spec.md):\n     %s\n"
	    "   The skill above is written for SuperKernel workloads and does "
	    "not read a spec. For this session the phase's generic worker does "
	    "the phase under the same contract (every tool through "
	    "execute-phase under the device lease, every decision by a gate, "
	    "one phase result). Run exactly this command, once:\n     ", spec);
	sh_word(b, program);
	tc_buf_puts(b, " tune ");
	sh_word(b, spec);
	tc_buf_puts(b, " --task ");
	sh_word(b, task_path);
	tc_buf_puts(b, " --result ");
	sh_word(b, result_path != NULL ? result_path :
	    "<the --result path your host was given>");
	tc_buf_puts(b, "\n   It must exit 0 and leave the phase result at the "
	    "path of step 4; do not edit or rewrite that result. If it exits "
	    "non-zero, its standard error names the failed run (a line "
	    "starting \"tune worker\"): report that line and exit without "
	    "writing a result. Nothing of the attempt is then sealed, and the "
	    "session resumes at this phase once the cause is fixed.\n");
	tc_json_free(rec);
	return 1;
}
