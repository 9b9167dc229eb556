/*
 * share.c - finding tunectl's shipped data (the tools directory and the
 * phase manifests and the skills) from the location of the running binary,
 * so that the same search works in the source tree and after
 * "make install".
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"

char *
tc_share_dir(const char *self_exe, const char *kind, tc_error *err)
{
	const char *var = strcmp(kind, "tools") == 0 ? TC_TOOLS_DIR_ENV :
	    strcmp(kind, "skills") == 0 ? TC_SKILLS_DIR_ENV : TC_PHASES_DIR_ENV;
	const char *env = getenv(var);
	tc_buf searched = TC_BUF_INIT;
	char *exe, *dir;
	int level;

	if (env != NULL && env[0] != '\0')
		return tc_path_resolve(env, err);
	if ((exe = tc_path_resolve(self_exe, err)) == NULL)
		return NULL;
	dir = tc_path_dirname(exe);
	free(exe);
	for (level = 0; level < 3; level++) {
		const char *const layouts[2] = { "share/tunectl", "share" };
		char *up;
		int i;

		if (level > 0) {
			for (i = 0; i < 2; i++) {
				char *cand = tc_xasprintf("%s/%s/%s",
				    strcmp(dir, "/") == 0 ? "" : dir,
				    layouts[i], kind);

				if (tc_is_directory(cand)) {
					free(dir);
					tc_buf_free(&searched);
					return cand;
				}
				tc_buf_printf(&searched, "%s%s",
				    searched.len > 0 ? ", " : "", cand);
				free(cand);
			}
		}
		up = tc_path_dirname(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	tc_error_set(err, "no tunectl %s directory found (set %s); searched: "
	    "%s", kind, var, tc_buf_cstr(&searched));
	tc_buf_free(&searched);
	return NULL;
}

char *
tc_phase_manifest_path(const char *self_exe, const char *phase,
    tc_error *err)
{
	char *dir, *path;

	if (phase[0] == '\0' || strchr(phase, '/') != NULL ||
	    strcmp(phase, ".") == 0 || strcmp(phase, "..") == 0) {
		tc_error_set(err, "phase name is invalid: %s", phase);
		return NULL;
	}
	if ((dir = tc_share_dir(self_exe, "phases", err)) == NULL)
		return NULL;
	path = tc_xasprintf("%s/%s/phase.json", dir, phase);
	free(dir);
	return path;
}
