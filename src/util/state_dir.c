/*
 * state_dir.c - where tunectl keeps what it binds outside the trees its
 * workers write (the sessions' sidecars, the PyPTO state bindings):
 * $TUNECTL_STATE_DIR, else $XDG_STATE_HOME/tunectl, else
 * $HOME/.local/state/tunectl.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

char *
tc_state_dir(void)
{
	const char *v;

	if ((v = getenv("TUNECTL_STATE_DIR")) != NULL && *v != '\0')
		return tc_xstrdup(v);
	if ((v = getenv("XDG_STATE_HOME")) != NULL && v[0] == '/')
		return tc_path_join(v, "tunectl");
	if ((v = getenv("HOME")) != NULL && v[0] == '/')
		return tc_path_join(v, ".local/state/tunectl");
	return NULL;
}

char *
tc_state_file(const char *area, const char *key)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	char *dir = tc_state_dir(), *name, *path;

	if (dir == NULL)
		return NULL;
	tc_sha256_hex(key, strlen(key), hex);
	name = tc_xasprintf("%s/%s.json", area, hex);
	path = tc_path_join(dir, name);
	free(name);
	free(dir);
	return path;
}

char *
tc_state_file_of(const char *area, const char *path)
{
	char *abs = tc_path_resolve(path, NULL), *file;

	if (abs == NULL)
		return NULL;
	file = tc_state_file(area, abs);
	free(abs);
	return file;
}
