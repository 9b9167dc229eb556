/*
 * cmd_skills.c - "tunectl skills list | show NAME | install": the skills
 * tunectl ships for its AI workers, and their installation where an agent
 * host looks for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/fileio.h"
#include "tunectl/skills.h"

/* The skills directory, or a printed error (*rc set). */
static char *
skills_dir(int *rc)
{
	tc_error err = TC_ERROR_INIT;
	char *dir = tc_skills_dir(tc_self_exe(), &err);

	if (dir == NULL)
		*rc = tc_die_error(&err);
	return dir;
}

static int
skills_list(const struct tc_command *cmd, int argc, char **argv)
{
	const struct tc_option opts[] = { { NULL, 0, NULL, false, NULL } };
	tc_error err = TC_ERROR_INIT;
	tc_json *list;
	char *dir;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((dir = skills_dir(&rc)) == NULL)
		return rc;
	list = tc_skills_list(dir, &err);
	free(dir);
	if (list == NULL)
		return tc_die_error(&err);
	rc = tc_print_json(list);
	if (rc == TC_EXIT_OK && tc_json_get_array(list, "missing")->u.arr.len > 0) {
		fprintf(stderr, "tunectl skills: the skills directory lacks "
		    "some of tunectl's skills (see \"missing\")\n");
		rc = TC_EXIT_FAIL;
	}
	tc_json_free(list);
	return rc;
}

static int
skills_show(const struct tc_command *cmd, int argc, char **argv)
{
	bool path_only = false;
	const struct tc_option opts[] = {
		{ "--path", TC_OPT_FLAG, &path_only, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_skill skill;
	char *dir, *text;
	size_t len;
	int rc;

	memset(&res, 0, sizeof(res));
	if ((rc = tc_opts_parse(cmd, argc, argv, opts, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "skills show needs exactly one "
		    "skill NAME");
	}
	if ((dir = skills_dir(&rc)) == NULL) {
		tc_parse_result_free(&res);
		return rc;
	}
	rc = tc_skill_load(dir, res.positional.items[0], &skill, &err);
	free(dir);
	tc_parse_result_free(&res);
	if (rc != 0)
		return tc_die_error(&err);
	if (path_only) {
		printf("%s\n", skill.path);
	} else if ((text = tc_read_file(skill.path, TC_SKILL_MAX_FILE_BYTES,
	    &len, &err)) == NULL) {
		tc_skill_free(&skill);
		return tc_die_error(&err);
	} else {
		fwrite(text, 1, len, stdout);
		free(text);
	}
	tc_skill_free(&skill);
	return fflush(stdout) == 0 ? TC_EXIT_OK : TC_EXIT_FAIL;
}

static int
skills_install(const struct tc_command *cmd, int argc, char **argv)
{
	const char *host = NULL, *dest = NULL;
	struct tc_strlist names = { NULL, 0 };
	const struct tc_option opts[] = {
		{ "--host", TC_OPT_STRING, &host, true, NULL },
		{ "--dir", TC_OPT_STRING, &dest, true, NULL },
		{ "--skill", TC_OPT_LIST, &names, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	tc_json *report;
	char *dir;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0) {
		tc_strlist_free(&names);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if (tc_skills_host_subdir(host) == NULL) {
		tc_strlist_free(&names);
		return tc_usage_error(cmd, "argument --host: invalid choice: "
		    "'%s' (choose from 'claude', 'codex', 'opencode')", host);
	}
	if ((dir = skills_dir(&rc)) == NULL) {
		tc_strlist_free(&names);
		return rc;
	}
	report = tc_skills_install(dir, host, dest, names.items, names.len,
	    &err);
	free(dir);
	tc_strlist_free(&names);
	return tc_cli_reply_or_die(report, &err);
}

static const struct tc_command skills_list_entry = {
	.name = "skills list",
	.summary = "the skills shipped",
	.run = skills_list,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command skills_show_entry = {
	.name = "skills show",
	.summary = "one skill",
	.run = skills_show,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command skills_install_entry = {
	.name = "skills install",
	.summary = "install for an agent host",
	.run = skills_install,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const skills_subs[] = {
	&skills_list_entry, &skills_show_entry, &skills_install_entry, NULL
};

const struct tc_command cmd_skills_entry = {
	.name = "skills",
	.summary = "the skills tunectl ships for its workers: list, show, install for an agent host",
	.usage = "usage: tunectl skills list\n"
	    "       tunectl skills show NAME [--path]\n"
	    "       tunectl skills install --host {claude,codex,opencode} --dir DIR [--skill NAME ...]\n",
	.subs = skills_subs,
};
