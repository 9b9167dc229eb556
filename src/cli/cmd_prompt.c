/*
 * cmd_prompt.c - "tunectl prompt": print the prompt a fresh worker is
 * given (a phase worker for a phase task, a support worker for a support
 * task, a PyPTO-Pro role for a pypto task), so hosts and humans see
 * exactly what a worker is told.  A phase or support prompt names the
 * absolute path of the SKILL.md to follow; a skill that is not installed
 * is an error, never a prompt without instructions.  The phase prompt of
 * a tune session ends with the command that runs the phase's generic
 * worker for its workload spec (tc_tune_prompt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/host.h"
#include "tunectl/path.h"
#include "tunectl/skills.h"
#include "tunectl/support.h"
#include "tunectl/tune.h"

/* The skill a task asks its worker to follow (NULL when it names none;
 * the prompt builders report that). */
static const char *
task_skill(const tc_json *task, bool support)
{
	return support ? tc_json_get_string(tc_json_get(task, "role"), "skill") :
	    tc_json_get_string(tc_json_get(task, "step"), "skill");
}

static char *
skill_path(const char *skill, tc_error *err)
{
	char *dir = tc_skills_dir(tc_self_exe(), err);
	char *path = NULL;
	tc_skill s;

	if (dir == NULL)
		return NULL;
	if (tc_skill_load(dir, skill, &s, err) == 0) {
		path = tc_xstrdup(s.path);
		tc_skill_free(&s);
	}
	free(dir);
	return path;
}
#include "tunectl/pypto_orch.h"

static int
cmd_prompt(const struct tc_command *cmd, int argc, char **argv)
{
	const char *task_path = NULL, *result = NULL, *host = "generic";
	const struct tc_option opts[] = {
		{ "--task", TC_OPT_STRING, &task_path, true, NULL },
		{ "--result", TC_OPT_STRING, &result, false, NULL },
		{ "--host", TC_OPT_STRING, &host, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *task = NULL;
	char *abs = NULL, *text = NULL, *skill = NULL;
	const char *schema, *name;
	bool support;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (strcmp(host, "claude") != 0 && strcmp(host, "codex") != 0 &&
	    strcmp(host, "opencode") != 0 && strcmp(host, "generic") != 0)
		return tc_usage_error(cmd, "argument --host: invalid choice: '%s' "
		    "(choose from 'claude', 'codex', 'opencode', 'generic')", host);
	if ((task = tc_json_parse_file(task_path, &err)) == NULL ||
	    (abs = tc_path_resolve(task_path, &err)) == NULL)
		goto fail;
	schema = tc_json_get_string(task, "schema_version");
	if (schema != NULL && strcmp(schema, TC_PYPTO_TASK_SCHEMA) == 0) {
		/* PyPTO-Pro roles are told their role, not a phase skill */
		text = tc_pypto_prompt(task, abs, result, host, tc_self_exe(),
		    &err);
		if (text == NULL)
			goto fail;
		fputs(text, stdout);
		rc = TC_EXIT_OK;
		goto out;
	}
	support = schema != NULL && strcmp(schema, TC_SUPPORT_TASK_SCHEMA) == 0;
	name = task_skill(task, support);
	if (name != NULL && (skill = skill_path(name, &err)) == NULL)
		goto fail;
	text = support ?
	    tc_support_prompt(task, abs, result, host, tc_self_exe(), skill,
	    &err) :
	    tc_host_prompt(task, abs, result, host, tc_self_exe(), skill, &err);
	if (text == NULL)
		goto fail;
	fputs(text, stdout);
	/* a tune session's phase is done by its generic worker */
	if (!support) {
		tc_buf more = TC_BUF_INIT;
		int found = tc_tune_prompt(&more, task, abs, result,
		    tc_self_exe(), &err);

		fwrite(more.data != NULL ? more.data : "", 1, more.len, stdout);
		tc_buf_free(&more);
		if (found < 0)
			goto fail;
	}
	rc = TC_EXIT_OK;
	goto out;
fail:
	rc = tc_die("%s: %s", task_path, tc_error_msg(&err));
out:
	tc_error_clear(&err);
	free(text);
	free(skill);
	free(abs);
	tc_json_free(task);
	return rc;
}

const struct tc_command cmd_prompt_entry = {
	.name = "prompt",
	.summary = "print the prompt a fresh phase worker is given",
	.usage = "usage: tunectl prompt --task PATH [--result PATH] [--host {claude,codex,opencode,generic}]\n",
	.run = cmd_prompt,
};
