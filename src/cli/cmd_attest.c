/*
 * cmd_attest.c - "tunectl attest --session S --key KEY [--output FILE]":
 * sign an in-toto Statement of a verified session (every sealed file and
 * bound artifact with its sha256) in a DSSE envelope; prints where it was
 * written, the key id and the number of subjects, and names on stderr
 * what the session leaves unbound (and the signature therefore does not
 * cover).
 */
#include <stdlib.h>

#include "cli.h"
#include "tunectl/attest.h"
#include "tunectl/session.h"

static int
cmd_attest(const struct tc_command *cmd, int argc, char **argv)
{
	const char *session = NULL, *key = NULL, *output = NULL;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &session, true, NULL },
		{ "--key", TC_OPT_STRING, &key, true, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_error err = TC_ERROR_INIT;
	char *written = NULL;
	tc_json *env, *res;
	tc_session *s = NULL;
	const tc_json *sigs;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (tc_attest_session(session, key, output, &written, &err) != 0)
		return tc_refuse_error(cmd, &err);
	res = tc_json_new_object();
	tc_json_object_set_string(res, "attestation", written);
	if ((env = tc_json_parse_file(written, NULL)) != NULL) {
		sigs = tc_json_get(env, "signatures");
		if (tc_json_is(sigs, TC_JSON_ARRAY) && sigs->u.arr.len > 0)
			tc_json_object_set(res, "keyid", tc_json_clone(tc_json_get(
			    sigs->u.arr.items[0], "keyid")));
		tc_json_object_set_string(res, "payloadType", TC_DSSE_PAYLOAD_TYPE);
		tc_json_free(env);
	}
	rc = tc_print_json(res);
	tc_json_free(res);
	free(written);
	/* what the signature leaves out, as verify names it */
	if (tc_session_load(session, 0, &s, &err) == 0) {
		tc_cli_note_unbound(s, "attest");
		tc_session_free(s);
	}
	tc_error_clear(&err);
	return rc;
}

const struct tc_command cmd_attest_entry = {
	.name = "attest",
	.summary = "sign an in-toto attestation (DSSE, Ed25519) of a verified session",
	.usage = "usage: tunectl attest --session PATH --key KEY [--output FILE]\n",
	.run = cmd_attest,
};
