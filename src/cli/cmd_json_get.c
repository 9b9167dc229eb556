/*
 * cmd_json_get.c - "tunectl json get FILE POINTER": one value of a
 * document, for shell scripts (agent hosts, workers).  A string prints as
 * its raw text, anything else as canonical JSON; one trailing newline.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int
json_get(const struct tc_command *cmd, int argc, char **argv)
{
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	const tc_json *v;
	tc_json *doc;
	const char *file, *pointer;
	int rc;

	if ((rc = tc_opts_parse(cmd, argc, argv, NULL, &res)) != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 2) {
		tc_parse_result_free(&res);
		return tc_usage_error(cmd, "json get takes FILE and POINTER");
	}
	file = res.positional.items[0];
	pointer = res.positional.items[1];
	tc_parse_result_free(&res);
	if ((doc = tc_json_parse_file(file, &err)) == NULL) {
		rc = tc_die("%s: %s", file, tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if ((v = tc_json_pointer(doc, pointer, &err)) == NULL) {
		rc = tc_die("%s: %s", file, tc_error_msg(&err));
	} else if (v->type == TC_JSON_STRING) {
		fwrite(v->u.str.ptr, 1, v->u.str.len, stdout);
		putchar('\n');
		rc = TC_EXIT_OK;
	} else {
		size_t len;
		char *text = tc_json_canonical(v, &len, &err);

		if (text == NULL) {
			rc = tc_die("%s: %s", file, tc_error_msg(&err));
		} else {
			fwrite(text, 1, len, stdout);
			putchar('\n');
			free(text);
			rc = TC_EXIT_OK;
		}
	}
	tc_error_clear(&err);
	tc_json_free(doc);
	return rc;
}

const struct tc_command cmd_json_get_entry = {
	.name = "json get",
	.summary = "one value of a document",
	.run = json_get,
	.flags = TC_CMD_PARENT_USAGE,
};
