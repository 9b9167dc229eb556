/*
 * cmd_pypto_items.c - "tunectl pypto items": the optimisation-item ledger.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pypto_cli.h"
#include "tunectl/pypto.h"

static const struct tc_command cmd_items = { "pypto items", "",
"usage: tunectl pypto items init --ledger FILE\n"
"       tunectl pypto items source --ledger FILE --kind KIND (--count N | --index FILE)\n"
"           --ref TEXT   (--index: the authoritative index the count is read from)\n"
"       tunectl pypto items add --ledger FILE (--item JSON | --item-file FILE)\n"
"       tunectl pypto items close --ledger FILE --item ID --status S [--reason TEXT]\n"
"           [--reason-code C] [--evidence JSON]\n"
"       tunectl pypto items park --ledger FILE --item ID --status S --reason TEXT\n"
"       tunectl pypto items reopen --ledger FILE --item ID --reason TEXT\n"
"       tunectl pypto items sweep --ledger FILE --scope TEXT --findings TEXT\n"
"       tunectl pypto items next --ledger FILE\n"
"       tunectl pypto items validate --ledger FILE [--require-closed]\n",
	NULL };

static tc_json *
json_arg(const char *text, const char *file, const char *what, tc_error *err)
{
	tc_json *v;

	if (text != NULL && file != NULL) {
		tc_error_set(err, "give %s inline or as a file, not both", what);
		return NULL;
	}
	if (file != NULL)
		v = tc_json_parse_file(file, err);
	else if (text != NULL)
		v = tc_json_parse(text, strlen(text), err);
	else
		return NULL;
	if (v == NULL)
		tc_error_prefix(err, "%s: ", what);
	return v;
}

int
cmd_pypto_items(int argc, char **argv)
{
	const char *ledger = NULL, *kind = NULL, *ref = NULL, *item = NULL;
	const char *item_file = NULL, *item_id = NULL, *status = NULL;
	const char *reason = NULL, *code = NULL, *evidence = NULL;
	const char *scope = NULL, *findings = NULL, *index = NULL;
	long count = -1;
	bool require_closed = false;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_pypto_ledger_op op;
	tc_json *ij = NULL, *ej = NULL, *out = NULL;
	const char *verb;
	int rc = TC_EXIT_OK;
	const struct tc_option opts[] = {
		{ "--ledger", TC_OPT_STRING, &ledger, true, NULL },
		{ "--kind", TC_OPT_STRING, &kind, false, NULL },
		{ "--count", TC_OPT_INT, &count, false, NULL },
		{ "--ref", TC_OPT_STRING, &ref, false, NULL },
		{ "--item", TC_OPT_STRING, &item, false, NULL },
		{ "--item-file", TC_OPT_STRING, &item_file, false, NULL },
		{ "--status", TC_OPT_STRING, &status, false, NULL },
		{ "--reason", TC_OPT_STRING, &reason, false, NULL },
		{ "--reason-code", TC_OPT_STRING, &code, false, NULL },
		{ "--evidence", TC_OPT_STRING, &evidence, false, NULL },
		{ "--scope", TC_OPT_STRING, &scope, false, NULL },
		{ "--findings", TC_OPT_STRING, &findings, false, NULL },
		{ "--index", TC_OPT_STRING, &index, false, NULL },
		{ "--require-closed", TC_OPT_FLAG, &require_closed, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(&cmd_items, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		return tc_usage_error(&cmd_items, "expected one of init, source, "
		    "add, close, park, reopen, sweep, next, validate");
	}
	verb = res.positional.items[0];
	memset(&op, 0, sizeof(op));
	if (strcmp(verb, "validate") == 0 || strcmp(verb, "next") == 0) {
		tc_json *l = tc_pypto_ledger_load(ledger, &err);

		if (l == NULL) {
			rc = strcmp(verb, "validate") == 0 ?
			    tc_print_refusal(tc_error_msg(&err)) : tc_pypto_cli_fail(&err);
		} else if (strcmp(verb, "next") == 0) {
			rc = tc_pypto_cli_print(tc_pypto_ledger_next(l));
		} else {
			bool ok;

			out = tc_pypto_ledger_validate(l, require_closed, &ok);
			rc = tc_pypto_cli_print(out);
			if (rc == TC_EXIT_OK && !ok)
				rc = TC_EXIT_FAIL;
		}
		tc_json_free(l);
		goto done;
	}
	if (strcmp(verb, "init") == 0)
		op.verb = TC_LEDGER_INIT;
	else if (strcmp(verb, "source") == 0)
		op.verb = TC_LEDGER_SOURCE;
	else if (strcmp(verb, "add") == 0)
		op.verb = TC_LEDGER_ADD;
	else if (strcmp(verb, "close") == 0)
		op.verb = TC_LEDGER_CLOSE;
	else if (strcmp(verb, "park") == 0)
		op.verb = TC_LEDGER_PARK;
	else if (strcmp(verb, "reopen") == 0)
		op.verb = TC_LEDGER_REOPEN;
	else if (strcmp(verb, "sweep") == 0)
		op.verb = TC_LEDGER_SWEEP;
	else {
		rc = tc_usage_error(&cmd_items, "unknown items verb '%s'", verb);
		goto done;
	}
	if (op.verb == TC_LEDGER_ADD) {
		if ((ij = json_arg(item, item_file, "--item", &err)) == NULL) {
			if (tc_error_msg(&err)[0] == '\0')
				tc_error_set(&err, "items add needs --item or "
				    "--item-file");
			rc = tc_pypto_cli_fail(&err);
			goto done;
		}
	}
	if (evidence != NULL && (ej = json_arg(evidence, NULL, "--evidence",
	    &err)) == NULL) {
		rc = tc_pypto_cli_fail(&err);
		goto done;
	}
	if (op.verb == TC_LEDGER_SOURCE && count < 0 && index == NULL) {
		rc = tc_usage_error(&cmd_items, "items source needs --count N or "
		    "--index FILE");
		goto done;
	}
	op.kind = kind;
	op.count = count;
	op.ref = ref;
	op.item = ij;
	op.item_id = item_id != NULL ? item_id : item;
	op.status = status;
	op.reason = reason;
	op.reason_code = code;
	op.evidence = ej;
	op.scope = scope;
	op.findings = findings;
	op.index = index;
	if (op.verb == TC_LEDGER_CLOSE || op.verb == TC_LEDGER_PARK ||
	    op.verb == TC_LEDGER_REOPEN)
		op.item_id = item;
	out = tc_pypto_ledger_apply_file(ledger, &op, &err);
	if (out == NULL) {
		rc = tc_pypto_cli_fail(&err);
	} else {
		tc_json *r = tc_pypto_ledger_next(out);

		tc_json_free(out);
		rc = tc_pypto_cli_print(r);
	}
done:
	tc_json_free(ij);
	tc_json_free(ej);
	tc_error_clear(&err);
	tc_parse_result_free(&res);
	return rc;
}
