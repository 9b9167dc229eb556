/*
 * cmd_keygen.c - "tunectl keygen --out KEY": a new Ed25519 key pair for
 * signing session attestations (KEY, private, mode 0600; KEY.pub).
 */
#include <stdlib.h>

#include "cli.h"
#include "tunectl/attest.h"

static int
cmd_keygen(const struct tc_command *cmd, int argc, char **argv)
{
	const char *out = NULL;
	const struct tc_option opts[] = {
		{ "--out", TC_OPT_STRING, &out, true, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char keyid[65];
	char *pub;
	tc_json *res;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_keygen(out, keyid, &err) != 0)
		return tc_refuse_error(cmd, &err);
	pub = tc_xasprintf("%s.pub", out);
	res = tc_json_new_object();
	tc_json_object_set_string(res, "keyid", keyid);
	tc_json_object_set_string(res, "private_key", out);
	tc_json_object_set_string(res, "public_key", pub);
	rc = tc_print_json(res);
	tc_json_free(res);
	free(pub);
	return rc;
}

const struct tc_command cmd_keygen_entry = {
	.name = "keygen",
	.summary = "write an Ed25519 key pair for signing attestations (KEY, KEY.pub)",
	.usage = "usage: tunectl keygen --out KEY\n",
	.run = cmd_keygen,
};
