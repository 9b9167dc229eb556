/*
 * markers.c - the three parent-lease environment markers
 * (docs/spec/controller.md "Lease environment markers"): does the runner's
 * environment prove a parent already holds exactly this lease, and the child
 * environment that carries the markers on.  Also the small envp helpers the
 * lease runner uses.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/lease.h"

static const char *const marker_names[3] = {
	TC_LEASE_ENV_HELD, TC_LEASE_ENV_IDS, TC_LEASE_ENV_ROOT
};

const char *
tc_envp_get(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

char **
tc_envp_dup(char *const *envp)
{
	size_t n = 0, i;
	char **copy;

	while (envp != NULL && envp[n] != NULL)
		n++;
	copy = tc_xcalloc(n + 1, sizeof(*copy));
	for (i = 0; i < n; i++)
		copy[i] = tc_xstrdup(envp[i]);
	return copy;
}

void
tc_envp_free(char **envp)
{
	size_t i;

	if (envp == NULL)
		return;
	for (i = 0; envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}

/* The expected marker values; values[1] is malloc'd. */
static void
expected_values(const long *ids, size_t n, const char *lease_root,
    char *values[3])
{
	values[0] = (char *)"1";
	values[1] = tc_lease_ids_join(ids, n);
	values[2] = (char *)lease_root;
}

/* How many of the three markers envp carries. */
static int
markers_present(char *const *envp)
{
	int i, count = 0;

	for (i = 0; i < 3; i++)
		if (tc_envp_get(envp, marker_names[i]) != NULL)
			count++;
	return count;
}

int
tc_lease_parent_held(const long *ids, size_t n, const char *lease_root,
    char *const *envp, tc_error *err)
{
	char *values[3];
	int present = markers_present(envp), i, rc = 1;

	if (present == 0)
		return 0;
	if (present < 3) {
		tc_error_set(err, "parent device lease markers are incomplete");
		return -1;
	}
	expected_values(ids, n, lease_root, values);
	for (i = 0; i < 3; i++) {
		if (strcmp(tc_envp_get(envp, marker_names[i]), values[i]) != 0) {
			tc_error_set(err, "parent device lease marker mismatch: "
			    "%s", marker_names[i]);
			rc = -1;
			break;
		}
	}
	free(values[1]);
	return rc;
}

static bool
is_marker_entry(const char *entry)
{
	int i;

	for (i = 0; i < 3; i++) {
		size_t len = strlen(marker_names[i]);

		if (strncmp(entry, marker_names[i], len) == 0 &&
		    entry[len] == '=')
			return true;
	}
	return false;
}

char **
tc_lease_environment(char *const *envp, const long *ids, size_t n,
    const char *lease_root, tc_error *err)
{
	char *values[3];
	char **child;
	size_t count = 0, k = 0, i;
	int present = markers_present(envp), m;

	if (present > 0 && present < 3) {
		tc_error_set(err, "device lease environment contains partial "
		    "parent markers");
		return NULL;
	}
	expected_values(ids, n, lease_root, values);
	for (m = 0; m < 3; m++) {
		const char *have = tc_envp_get(envp, marker_names[m]);

		if (have != NULL && strcmp(have, values[m]) != 0) {
			tc_error_set(err, "device lease environment conflicts "
			    "with %s", marker_names[m]);
			free(values[1]);
			return NULL;
		}
	}
	while (envp != NULL && envp[count] != NULL)
		count++;
	child = tc_xcalloc(count + 4, sizeof(*child));
	for (i = 0; i < count; i++)
		if (!is_marker_entry(envp[i]))
			child[k++] = tc_xstrdup(envp[i]);
	for (m = 0; m < 3; m++)
		child[k++] = tc_xasprintf("%s=%s", marker_names[m], values[m]);
	child[k] = NULL;
	free(values[1]);
	return child;
}
