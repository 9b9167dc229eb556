/*
 * skills.h - the skills tunectl ships for the AI workers it starts: one
 * per phase, the derived source-range entrypoint, the five support roles
 * and the controller contract (share/skills/<name>/SKILL.md plus the
 * reference files beside it), where to find them, and how to install
 * them where Claude Code, Codex and OpenCode look for skills.
 *
 * A skill is a directory named after the skill holding SKILL.md, whose
 * front matter (between two "---" lines) gives "name" (equal to the
 * directory name: 1-64 of [a-z0-9-], no leading, trailing or doubled
 * hyphen) and "description" (1-1024 characters, one line).
 */
#ifndef TUNECTL_SKILLS_H
#define TUNECTL_SKILLS_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_SKILL_FILE		"SKILL.md"
#define TC_SKILL_NAME_MAX	64
#define TC_SKILL_DESCRIPTION_MAX 1024
#define TC_SKILL_MAX_FILES	64		/* per skill directory */
#define TC_SKILL_MAX_FILE_BYTES	(1u << 20)

/* The skill of the derived source-range entrypoint and the controller
 * contract (the phase skills are in the phase table, phases.h). */
#define TC_SKILL_SOURCE_RANGE_FROM_SMAP	"superkernel-source-range-from-smap"
#define TC_SKILL_CONTROLLER_CONTRACT	"superkernel-controller-contract"

/*
 * A support role: a fresh worker a phase may ask for (the reference's
 * support IDs).  A read-only role may write only its own output directory;
 * tunectl digests everything else before and after the worker runs.
 * phases lists the phases that may ask for the role.
 */
typedef struct tc_support_role {
	const char *agent_id;		/* "sk-fusion-performance-analyst" */
	const char *skill;		/* "superkernel-fusion-performance-analysis" */
	bool read_only;
	const char *const *phases;	/* NULL-terminated phase names */
	const char *branch;		/* optional_experiments: the one branch, or NULL */
	const char *summary;		/* one line */
} tc_support_role;

#define TC_SUPPORT_ROLE_COUNT 5
extern const tc_support_role tc_support_roles[TC_SUPPORT_ROLE_COUNT];

/* The role with that agent_id, or NULL. */
const tc_support_role *tc_support_role_find(const char *agent_id);

/*
 * Where tunectl's skills are: $TUNECTL_SKILLS_DIR when set and non-empty,
 * else share/tunectl/skills or share/skills beside the binary
 * (tc_share_dir, phase.h).  malloc'd, or NULL with err set.
 */
char *tc_skills_dir(const char *self_exe, tc_error *err);

/* What a skill is for: "phase", "entrypoint", "support", "contract", or
 * "other" for a skill tunectl does not know. */
const char *tc_skill_kind(const char *name);

/* Is name a valid skill name (see above)? */
bool tc_skill_name_valid(const char *name);

/*
 * Parse the front matter of a SKILL.md text: "---" on the first line,
 * "key: value" lines, "---".  Values may be double- or single-quoted
 * (no escapes).  *name and *description are malloc'd.  Errors name what
 * is wrong: "SKILL.md has no front matter", "front matter lacks name",
 * "skill name is invalid: 'X'", "description is longer than 1024
 * characters", ...
 */
int tc_skill_front_matter(const char *text, size_t len, char **name,
    char **description, tc_error *err);

/* One skill of a skills directory. */
typedef struct tc_skill {
	char *name;
	char *description;
	char *dir;		/* absolute, resolved */
	char *path;		/* <dir>/SKILL.md */
} tc_skill;

/*
 * Load the skill called name from skills_dir: the directory must exist,
 * SKILL.md must be a regular file (not a link) whose front matter is
 * valid and names this skill.  "skill X is not in DIR" when absent.
 */
int tc_skill_load(const char *skills_dir, const char *name, tc_skill *out,
    tc_error *err);
void tc_skill_free(tc_skill *s);

/*
 * Every skill of skills_dir, sorted by name:
 *   {"skills_dir": abs, "skills": [{"name", "description", "kind",
 *    "path", ["role": agent_id, "read_only": bool]}],
 *    "missing": [names of tunectl's skills that are not there]}
 * A subdirectory without SKILL.md is ignored; one whose SKILL.md is
 * invalid is an error naming it.
 */
tc_json *tc_skills_list(const char *skills_dir, tc_error *err);

/* The names of every skill tunectl ships, in catalog order: the seven
 * phase skills, the entrypoint, the five support roles, the contract. */
size_t tc_skills_expected(const char **names, size_t cap);

/* The skills directory of an agent host below a project directory:
 * "claude" -> ".claude/skills", "codex" -> ".agents/skills",
 * "opencode" -> ".opencode/skills"; NULL for another host. */
const char *tc_skills_host_subdir(const char *host);

/*
 * Install skills into a host's layout below dest (an existing directory):
 * every file of each skill directory is copied to
 * <dest>/<host subdir>/<name>/ (atomically; a file whose content is
 * already there is left alone; other files there are left alone).
 * names selects skills (NULL/0: all of skills_dir).  Nothing is written
 * through a symbolic link: a link anywhere on the way is refused, as is
 * a link, special file, more than 64 files or a file over 1 MiB in a
 * skill.  Returns {"host", "dir", "skills_dir", "installed": [{"name",
 * "path", "files", "state": "installed"|"updated"|"unchanged"}]}.
 */
tc_json *tc_skills_install(const char *skills_dir, const char *host,
    const char *dest, const char *const *names, size_t nnames,
    tc_error *err);

#endif
