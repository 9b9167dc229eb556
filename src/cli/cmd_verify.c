/*
 * cmd_verify.c - "tunectl verify": integrity of every sealed handoff
 * (docs/spec/controller.md "Verify").  Always prints its verdict; exit 0 when
 * valid, 1 otherwise.  --all lists every broken step instead of the first
 * problem.  A derived session is valid only while every ancestor is
 * (the evidence it imported is theirs); --deep also reports each
 * ancestor's verdict ("parent").  tunectl's own reports in the artifact
 * root (report.html, FINAL_E2E_REPORT.en.md) must be what the sealed
 * evidence renders, when they are there (own_reports.h).  --attestation
 * FILE --pubkey KEY.pub first checks a signed attestation (tunectl
 * attest) against the session: its signature, then every subject; its
 * problem comes first in "errors".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/attest.h"
#include "tunectl/derive.h"
#include "tunectl/evidence.h"
#include "tunectl/own_reports.h"
#include "tunectl/session.h"

/* Put the attestation's verdict into the verify output. */
static void
add_attestation(tc_json *out, const char *session, const char *file,
    const char *pubkey)
{
	tc_error err = TC_ERROR_INIT;
	char keyid[65];
	size_t n = 0;

	if (tc_attest_check(session, file, pubkey, &n, keyid, &err) != 0) {
		tc_json *errors = tc_json_get(out, "errors");
		tc_json *list = tc_json_new_array();
		size_t i;

		tc_json_array_push(list, tc_json_new_string(tc_error_msg(&err)));
		for (i = 0; tc_json_is(errors, TC_JSON_ARRAY) &&
		    i < errors->u.arr.len; i++)
			tc_json_array_push(list,
			    tc_json_clone(errors->u.arr.items[i]));
		tc_json_object_remove(out, "session_id");
		tc_json_object_remove(out, "status");
		tc_json_object_set(out, "errors", list);
		tc_json_object_set_bool(out, "valid", false);
	} else {
		tc_json *a = tc_json_new_object();

		tc_json_object_set_string(a, "keyid", keyid);
		tc_json_object_set_int(a, "subjects", (int64_t)n);
		tc_json_object_set_bool(a, "valid", true);
		tc_json_object_set(out, "attestation", a);
	}
	tc_error_clear(&err);
}

/* A valid session whose artifacts nothing binds, or whose manifests leave
 * entries unbound: say so on stderr (the verdict on stdout stays the
 * reference's).  s is the session as verify loaded it (NULL when it did
 * not load). */
static void
note_unbound(const tc_session *s, const tc_json *out)
{
	const tc_json *valid = tc_json_get(out, "valid");

	if (s == NULL || !tc_json_is(valid, TC_JSON_BOOL) || !valid->u.b)
		return;
	tc_cli_note_unbound(s, "verify");
}

/* A strict session with no policy record outside its root (made by an
 * older tunectl or the reference, moved, no state directory): one line on
 * stderr, not a failure; nothing for a reference session. */
static void
note_policy_record(const tc_session *s, const char *path)
{
	char *line;

	if (s == NULL)
		return;
	if (tc_policy_record_note(path, tc_session_policy(s), &line) != 0)
		fprintf(stderr, "tunectl verify: %s\n", line);
	free(line);
}

static int
cmd_verify(const struct tc_command *cmd, int argc, char **argv)
{
	const char *path = NULL, *attestation = NULL, *pubkey = NULL;
	bool all = false, deep = false;
	const struct tc_option opts[] = {
		{ "--session", TC_OPT_STRING, &path, true, NULL },
		{ "--all", TC_OPT_FLAG, &all, false, NULL },
		{ "--deep", TC_OPT_FLAG, &deep, false, NULL },
		{ "--attestation", TC_OPT_STRING, &attestation, false, NULL },
		{ "--pubkey", TC_OPT_STRING, &pubkey, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	tc_session *s = NULL;
	tc_json *out;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, opts, NULL)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((attestation == NULL) != (pubkey == NULL))
		return tc_usage_error(cmd, "--attestation and --pubkey go together");
	out = deep ? tc_verify_session_deep_keep(path, all ? TC_VERIFY_ALL : 0,
	    &s) : tc_verify_session_covered_keep(path, all ? TC_VERIFY_ALL : 0,
	    &s);
	tc_report_verify_own(s, path, all ? TC_VERIFY_ALL : 0, out);
	if (attestation != NULL)
		add_attestation(out, path, attestation, pubkey);
	note_unbound(s, out);
	note_policy_record(s, path);
	tc_session_free(s);
	return tc_cli_print_verdict(out);
}

const struct tc_command cmd_verify_entry = {
	.name = "verify",
	.summary = "check every sealed handoff of a session",
	.usage = "usage: tunectl verify --session PATH [--all] [--deep] [--attestation FILE --pubkey KEY.pub]\n",
	.help = "\nRe-check every sealed step: its result's digest, validation and outcome,\n"
	    "its PHASE_REPORT.md, its dispatch receipt, every artifact its manifest\n"
	    "binds and, under the strict policy, its gate evidence; a completed\n"
	    "session's FINAL_E2E_REPORT.md rendered again from the sealed evidence.\n"
	    "Then tunectl's own reports in the artifact root, when they are there:\n"
	    "report.html and FINAL_E2E_REPORT.en.md must be the bytes the sealed\n"
	    "evidence renders now (render them again with tunectl report html\n"
	    "--session PATH, tunectl render-final-report --session PATH --lang en\n"
	    "--output <artifact-root>/FINAL_E2E_REPORT.en.md).  Prints the verdict;\n"
	    "exit 1 when it is not valid.\n"
	    "\n"
	    "  --all            a problem for every broken step, not only the first\n"
	    "  --deep           also verify the ancestors of a derived session\n"
	    "                   (\"parent\")\n"
	    "  --attestation FILE --pubkey KEY.pub\n"
	    "                   first check a signed attestation (tunectl attest)\n",
	.run = cmd_verify,
};
