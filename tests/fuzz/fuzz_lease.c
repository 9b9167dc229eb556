/*
 * fuzz_lease.c - libFuzzer target for the lease runner's documents and
 * inputs: the --environment-json document (tc_lease_env_from_json, with
 * its refusal of secret-looking names), the lease command manifest
 * fingerprint, the agent-runner-v1 argv document, device id lists, the
 * parent lease markers of an inherited environment, and the Slurm
 * parsers (GRES specs, id lists, GRES allocations, scontrol fields).
 *
 * Input: part 0 a JSON document (environment / manifest / runner argv);
 * part 1 (optional) an environment, one NAME=value per line, checked
 * against the device ids and lease root the first line of part 2 names
 * ("0,1 /leases"); parts 2.. lines fed to the Slurm parsers.
 *
 * Invariants: every refusal has a message; an accepted environment is
 * sorted, has valid names and no name containing a secret word; an
 * accepted device list is ascending and unique.
 */
#include <ctype.h>

#include "fuzz_common.h"
#include "tunectl/host.h"
#include "tunectl/lease.h"
#include "tunectl/slurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
lse_secret(const char *entry)
{
	static const char *const words[] = {
		"TOKEN", "PASSWORD", "PASSWD", "SECRET", "PRIVATE",
		"CREDENTIAL", "API_KEY", "ACCESS_KEY", "AUTHORIZATION", "COOKIE"
	};
	const char *eq = strchr(entry, '=');
	char *name = fz_strndup(entry, eq != NULL ? (size_t)(eq - entry) :
	    strlen(entry));
	bool hit = false;
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		name[i] = (char)toupper((unsigned char)name[i]);
	for (i = 0; i < sizeof(words) / sizeof(words[0]) && !hit; i++)
		hit = strstr(name, words[i]) != NULL;
	free(name);
	return hit;
}

static void
lse_document(const char *text, size_t len)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = fz_parse(text, len);
	char **envp, fp[72];
	tc_runner runner;
	size_t i;

	if (doc == NULL)
		return;
	envp = fz_result(tc_lease_env_from_json(doc, &err), &err);
	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		FZ_REQUIRE(strchr(envp[i], '=') != NULL);
		FZ_REQUIRE(!lse_secret(envp[i]));
		if (i > 0) {
			/* sorted by name (the text before '='), names unique */
			size_t a = strcspn(envp[i - 1], "="), b = strcspn(envp[i], "=");
			int c = memcmp(envp[i - 1], envp[i], a < b ? a : b);

			FZ_REQUIRE(c < 0 || (c == 0 && a < b));
		}
	}
	tc_envp_free(envp);
	(void)fz_status(tc_lease_manifest_fingerprint(doc, fp, &err), &err);
	if (fz_status(tc_runner_from_json(doc, &runner, &err), &err) == 0) {
		FZ_REQUIRE(runner.argc > 0 && runner.argv[runner.argc] == NULL);
		tc_runner_free(&runner);
	}
	tc_json_free(doc);
}

/* "0,1 /root": device ids and a lease root. */
static size_t
lse_ids(const char *line, long *ids, size_t max, const char **root)
{
	size_t n = 0;
	char *end;

	*root = strchr(line, ' ') != NULL ? strchr(line, ' ') + 1 : "/leases";
	while (n < max && *line != '\0' && *line != ' ') {
		ids[n++] = strtol(line, &end, 10);
		if (end == line)
			break;
		line = *end == ',' ? end + 1 : end;
	}
	return n;
}

static void
lse_environment(const char *text, size_t len, const char *spec)
{
	tc_error err = TC_ERROR_INIT;
	char *copy = fz_strndup(text, len), *save = NULL, *line;
	char **envp = tc_xcalloc(len + 2, sizeof(char *)), **out, *joined;
	long ids[8], *canon = NULL;
	const char *root;
	size_t n = 0, nids, i;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		envp[n++] = line;
	envp[n] = NULL;
	nids = lse_ids(spec, ids, 8, &root);
	if (fz_status(tc_lease_ids_canonical(ids, nids, &canon, &err),
	    &err) == 0) {
		for (i = 1; i < nids; i++)
			FZ_REQUIRE(canon[i - 1] < canon[i]);
		joined = tc_lease_ids_join(canon, nids);
		free(joined);
		free(canon);
	}
	(void)tc_lease_parent_held(ids, nids, root, envp, &err);
	tc_error_clear(&err);
	out = fz_result(tc_lease_environment(envp, ids, nids, root, &err),
	    &err);
	if (out != NULL) {
		(void)tc_envp_get(out, TC_LEASE_ENV_IDS);
		FZ_REQUIRE(tc_envp_get(out, TC_LEASE_ENV_HELD) != NULL);
		tc_envp_free(out);
	}
	free(envp);
	free(copy);
}

static void
lse_slurm(const char *text, size_t len)
{
	char *copy = fz_strndup(text, len), *save = NULL, *line;
	tc_error err = TC_ERROR_INIT;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *name = NULL, *type = NULL, *field;
		long count, *ids = NULL;
		size_t n = 0, i;

		if (fz_status(tc_slurm_gres_parse(line, &name, &type, &count,
		    &err), &err) == 0) {
			FZ_REQUIRE(name != NULL && count > 0);
			free(name);
			free(type);
		}
		if (tc_slurm_ids_parse(line, &ids, &n) == 0) {
			for (i = 1; i < n; i++)
				FZ_REQUIRE(ids[i - 1] < ids[i]);
			free(ids);
		}
		ids = NULL;
		if (tc_slurm_gres_idx(line, "gpu", &ids, &n) == 0)
			free(ids);
		field = tc_slurm_field(line, "JobState");
		free(field);
		field = tc_slurm_field(line, "GRES");
		free(field);
	}
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[4];
	size_t lens[4], n, i;

	n = fz_split(data, size, parts, lens, 4);
	lse_document(parts[0], lens[0]);
	if (n > 1) {
		char *spec = n > 2 ? fz_strndup(parts[2], lens[2]) :
		    tc_xstrdup("0 /leases");
		char *nl = strchr(spec, '\n');

		if (nl != NULL)
			*nl = '\0';
		lse_environment(parts[1], lens[1], spec);
		free(spec);
	}
	for (i = 2; i < n; i++)
		lse_slurm(parts[i], lens[i]);
	return 0;
}
