/*
 * state_dir.c - where tunectl keeps what it binds outside the trees its
 * workers write (the sessions' sidecars, the PyPTO state bindings):
 * $TUNECTL_STATE_DIR, else $XDG_STATE_HOME/tunectl, else
 * $HOME/.local/state/tunectl.
 */
#include <stdlib.h>

#include "tunectl/buf.h"
#include "tunectl/path.h"

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
