/*
 * catalog.c - tunectl's skills: the support-role table, where the skills
 * directory is, SKILL.md front matter, loading one skill and listing
 * them all.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"
#include "tunectl/phases.h"
#include "tunectl/skills.h"

static const char *const analyst_phases[] = {
	"stage_o_option_tuning", "base_profile_source_mapping",
	"optional_experiments", NULL
};
static const char *const optional_phase[] = { "optional_experiments", NULL };
static const char *const failure_phases[] = {
	"stage_a_scope_selection", "stage_o_option_tuning",
	"base_profile_source_mapping", "optional_experiments",
	"final_e2e_report", NULL
};

const tc_support_role tc_support_roles[TC_SUPPORT_ROLE_COUNT] = {
	{ "sk-fusion-performance-analyst",
	  "superkernel-fusion-performance-analysis", true, analyst_phases, NULL,
	  "independent per-SK analysis of profiles another worker collected" },
	{ "sk-multistream-tuning-executor",
	  "superkernel-multistream-performance-tuning", false, optional_phase,
	  "multistream",
	  "runs the isolated multistream trial of the optional branch" },
	{ "sk-source-range-experiment-executor",
	  "superkernel-source-range-experiment", false, optional_phase,
	  "source-range",
	  "runs the explicitly authorised P/FINAL source-range trials" },
	{ "sk-failure-isolation-analyst", "superkernel-sk-failure-isolation",
	  true, failure_phases, NULL,
	  "finds the failing child of a crashed, hung or incorrect candidate" },
	{ "sk-prof-timeline-analyst", "superkernel-sk-prof-timeline", true,
	  analyst_phases, NULL,
	  "compacts a per-core timeline for a focused scheduling question" },
};

const tc_support_role *
tc_support_role_find(const char *agent_id)
{
	size_t i;

	for (i = 0; agent_id != NULL && i < TC_SUPPORT_ROLE_COUNT; i++)
		if (strcmp(tc_support_roles[i].agent_id, agent_id) == 0)
			return &tc_support_roles[i];
	return NULL;
}

char *
tc_skills_dir(const char *self_exe, tc_error *err)
{
	return tc_share_dir(self_exe, "skills", err);
}

static const tc_support_role *
role_of_skill(const char *name)
{
	size_t i;

	for (i = 0; i < TC_SUPPORT_ROLE_COUNT; i++)
		if (strcmp(tc_support_roles[i].skill, name) == 0)
			return &tc_support_roles[i];
	return NULL;
}

const char *
tc_skill_kind(const char *name)
{
	int id;

	for (id = 0; id < TC_PHASE_COUNT; id++)
		if (strcmp(tc_phase_get((tc_phase_id)id)->skill, name) == 0)
			return "phase";
	if (strcmp(name, TC_SKILL_SOURCE_RANGE_FROM_SMAP) == 0)
		return "entrypoint";
	if (role_of_skill(name) != NULL)
		return "support";
	if (strcmp(name, TC_SKILL_CONTROLLER_CONTRACT) == 0)
		return "contract";
	return "other";
}

size_t
tc_skills_expected(const char **names, size_t cap)
{
	size_t n = 0, i;
	int id;

	for (id = 0; id < TC_PHASE_COUNT && n < cap; id++)
		names[n++] = tc_phase_get((tc_phase_id)id)->skill;
	if (n < cap)
		names[n++] = TC_SKILL_SOURCE_RANGE_FROM_SMAP;
	for (i = 0; i < TC_SUPPORT_ROLE_COUNT && n < cap; i++)
		names[n++] = tc_support_roles[i].skill;
	if (n < cap)
		names[n++] = TC_SKILL_CONTROLLER_CONTRACT;
	return n;
}

bool
tc_skill_name_valid(const char *name)
{
	size_t i, len = strlen(name);

	if (len == 0 || len > TC_SKILL_NAME_MAX || name[0] == '-' ||
	    name[len - 1] == '-' || strstr(name, "--") != NULL)
		return false;
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '-'))
			return false;
	return true;
}

/* One "key: value" line; the value unquoted.  Returns false when the
 * line is not of that form. */
static bool
split_line(const char *line, size_t len, char **key, char **value)
{
	const char *colon = memchr(line, ':', len);
	const char *v, *end = line + len;

	if (colon == NULL || colon == line)
		return false;
	*key = tc_xstrndup(line, (size_t)(colon - line));
	v = colon + 1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (end - v >= 2 && (*v == '"' || *v == '\'') && end[-1] == *v) {
		v++;
		end--;
	}
	*value = tc_xstrndup(v, (size_t)(end - v));
	return true;
}

int
tc_skill_front_matter(const char *text, size_t len, char **name,
    char **description, tc_error *err)
{
	const char *p = text, *end = text + len;
	bool closed = false;

	*name = *description = NULL;
	if (len < 4 || strncmp(text, "---\n", 4) != 0) {
		tc_error_set(err, "SKILL.md has no front matter (it must start "
		    "with a line '---')");
		return -1;
	}
	if (memchr(text, '\0', len) != NULL) {
		tc_error_set(err, "SKILL.md contains a NUL byte");
		return -1;
	}
	p += 4;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		char *key = NULL, *value = NULL;

		if ((n == 3 || (n == 4 && p[3] == '\r')) &&
		    strncmp(p, "---", 3) == 0) {
			closed = true;
			break;
		}
		if (n > 0 && p[0] != '#' && split_line(p, n, &key, &value)) {
			char **slot = strcmp(key, "name") == 0 ? name :
			    strcmp(key, "description") == 0 ? description : NULL;

			if (slot != NULL) {
				free(*slot);
				*slot = value;
				value = NULL;
			}
		}
		free(key);
		free(value);
		p += n + 1;
	}
	if (!closed)
		tc_error_set(err, "SKILL.md front matter is not closed by a "
		    "line '---'");
	else if (*name == NULL)
		tc_error_set(err, "SKILL.md front matter lacks name");
	else if (*description == NULL || (*description)[0] == '\0')
		tc_error_set(err, "SKILL.md front matter lacks description");
	else if (!tc_skill_name_valid(*name)) {
		tc_buf b = TC_BUF_INIT;

		tc_json_repr_string(&b, *name, strlen(*name));
		tc_error_set(err, "skill name is invalid: %s (1-64 of a-z, 0-9 "
		    "and '-', no leading, trailing or doubled '-')",
		    tc_buf_cstr(&b));
		tc_buf_free(&b);
	} else if (strlen(*description) > TC_SKILL_DESCRIPTION_MAX)
		tc_error_set(err, "skill description is longer than %d "
		    "characters", TC_SKILL_DESCRIPTION_MAX);
	else
		return 0;
	free(*name);
	free(*description);
	*name = *description = NULL;
	return -1;
}

void
tc_skill_free(tc_skill *s)
{
	free(s->name);
	free(s->description);
	free(s->dir);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

int
tc_skill_load(const char *skills_dir, const char *name, tc_skill *out,
    tc_error *err)
{
	char *dir, *path, *text;
	size_t len;
	tc_error inner = TC_ERROR_INIT;

	memset(out, 0, sizeof(*out));
	if (!tc_skill_name_valid(name)) {
		tc_error_set(err, "skill name is invalid: %s", name);
		return -1;
	}
	dir = tc_path_join(skills_dir, name);
	path = tc_path_join(dir, TC_SKILL_FILE);
	if (!tc_is_directory(dir) || !tc_path_exists(path)) {
		tc_error_set(err, "skill %s is not in %s", name, skills_dir);
		goto fail;
	}
	if (!tc_is_regular_file_nofollow(path)) {
		tc_error_set(err, "%s is not a regular file", path);
		goto fail;
	}
	if ((text = tc_read_file(path, TC_SKILL_MAX_FILE_BYTES, &len,
	    &inner)) == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&inner));
		goto fail;
	}
	if (tc_skill_front_matter(text, len, &out->name, &out->description,
	    &inner) != 0) {
		tc_error_set(err, "%s: %s", path, tc_error_msg(&inner));
		free(text);
		goto fail;
	}
	free(text);
	if (strcmp(out->name, name) != 0) {
		tc_error_set(err, "%s: front matter names skill %s, not %s",
		    path, out->name, name);
		goto fail;
	}
	if ((out->dir = tc_path_resolve(dir, err)) == NULL)
		goto fail;
	out->path = tc_path_join(out->dir, TC_SKILL_FILE);
	free(dir);
	free(path);
	tc_error_clear(&inner);
	return 0;
fail:
	tc_error_clear(&inner);
	free(dir);
	free(path);
	tc_skill_free(out);
	return -1;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static tc_json *
describe(const tc_skill *s)
{
	tc_json *o = tc_json_new_object();
	const tc_support_role *role = role_of_skill(s->name);

	tc_json_object_set_string(o, "name", s->name);
	tc_json_object_set_string(o, "description", s->description);
	tc_json_object_set_string(o, "kind", tc_skill_kind(s->name));
	tc_json_object_set_string(o, "path", s->path);
	if (role != NULL) {
		tc_json_object_set_string(o, "role", role->agent_id);
		tc_json_object_set_bool(o, "read_only", role->read_only);
	}
	return o;
}

tc_json *
tc_skills_list(const char *skills_dir, tc_error *err)
{
	const char *expected[32];
	char **names = NULL, *abs;
	size_t n = 0, cap = 0, i, k, nexp;
	tc_json *out = NULL, *list, *missing;
	struct dirent *de;
	DIR *d;

	if ((abs = tc_path_resolve(skills_dir, err)) == NULL)
		return NULL;
	if ((d = opendir(abs)) == NULL) {
		tc_error_os(err, errno, skills_dir);
		free(abs);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		char *file;
		bool has;

		if (de->d_name[0] == '.')
			continue;
		file = tc_xasprintf("%s/%s/%s", abs, de->d_name, TC_SKILL_FILE);
		has = tc_path_exists(file);
		free(file);
		if (!has)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = tc_xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = tc_xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	list = tc_json_new_array();
	for (i = 0; i < n; i++) {
		tc_skill s;

		if (tc_skill_load(abs, names[i], &s, err) != 0) {
			tc_json_free(list);
			goto out;
		}
		tc_json_array_push(list, describe(&s));
		tc_skill_free(&s);
	}
	missing = tc_json_new_array();
	nexp = tc_skills_expected(expected, sizeof(expected) / sizeof(*expected));
	for (k = 0; k < nexp; k++) {
		bool found = false;

		for (i = 0; i < n && !found; i++)
			found = strcmp(names[i], expected[k]) == 0;
		if (!found)
			tc_json_array_push(missing, tc_json_new_string(expected[k]));
	}
	out = tc_json_new_object();
	tc_json_object_set_string(out, "skills_dir", abs);
	tc_json_object_set(out, "skills", list);
	tc_json_object_set(out, "missing", missing);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(abs);
	return out;
}
