/*
 * reply.c - how a command that calls one library function answers: the
 * document it got, printed and freed, or the refusal (or, where a failure
 * is an error rather than a refusal, the "tunectl: " message) of the error
 * it got instead; a verdict document whose "valid" decides the exit; the path a
 * command wrote, as {"KEY": path}.
 */
#include "cli.h"

int
tc_refuse_error(const struct tc_command *cmd, tc_error *err)
{
	int rc = tc_refuse(cmd, "%s", tc_error_msg(err));

	tc_error_clear(err);
	return rc;
}

int
tc_cli_reply(const struct tc_command *cmd, tc_json *doc, tc_error *err)
{
	int rc;

	if (doc == NULL)
		return tc_refuse_error(cmd, err);
	rc = tc_print_json(doc);
	tc_json_free(doc);
	return rc;
}

int
tc_die_error(tc_error *err)
{
	int rc = tc_die("%s", tc_error_msg(err));

	tc_error_clear(err);
	return rc;
}

int
tc_cli_reply_or_die(tc_json *doc, tc_error *err)
{
	int rc;

	if (doc == NULL)
		return tc_die_error(err);
	rc = tc_print_json(doc);
	tc_json_free(doc);
	return rc;
}

int
tc_cli_print_verdict(tc_json *doc)
{
	const tc_json *valid = tc_json_get(doc, "valid");
	int rc = tc_print_json(doc);

	if (rc == TC_EXIT_OK && !(tc_json_is(valid, TC_JSON_BOOL) && valid->u.b))
		rc = TC_EXIT_FAIL;
	tc_json_free(doc);
	return rc;
}

int
tc_cli_print_path(const char *key, const char *path)
{
	tc_json *doc = tc_json_new_object();
	int rc;

	tc_json_object_set_string(doc, key, path);
	rc = tc_print_json(doc);
	tc_json_free(doc);
	return rc;
}
