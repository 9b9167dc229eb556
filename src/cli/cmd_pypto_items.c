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

/* items validate (the ledger's verdict) and items next (the next item). */
static int
items_read(const struct tc_command *self, const char *ledger, bool validate,
    bool require_closed)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *l = tc_pypto_ledger_load(ledger, &err);
	int rc;

	if (l == NULL) {
		rc = validate ? tc_refuse(self, "%s", tc_error_msg(&err)) :
		    tc_pypto_cli_fail(&err);
		tc_error_clear(&err);
		return rc;
	}
	if (validate) {
		bool ok;

		rc = tc_pypto_cli_print(tc_pypto_ledger_validate(l,
		    require_closed, &ok));
		if (rc == TC_EXIT_OK && !ok)
			rc = TC_EXIT_FAIL;
	} else {
		rc = tc_pypto_cli_print(tc_pypto_ledger_next(l));
	}
	tc_json_free(l);
	return rc;
}

/* The verbs that change the ledger. */
static bool
find_verb(const char *name, tc_pypto_ledger_verb *verb)
{
	static const struct {
		const char *name;
		tc_pypto_ledger_verb verb;
	} verbs[] = {
		{ "init", TC_LEDGER_INIT }, { "source", TC_LEDGER_SOURCE },
		{ "add", TC_LEDGER_ADD }, { "close", TC_LEDGER_CLOSE },
		{ "park", TC_LEDGER_PARK }, { "reopen", TC_LEDGER_REOPEN },
		{ "sweep", TC_LEDGER_SWEEP }
	};
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(name, verbs[i].name) == 0) {
			*verb = verbs[i].verb;
			return true;
		}
	}
	return false;
}

static int
cmd_pypto_items(const struct tc_command *self, int argc, char **argv)
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

	rc = tc_opts_parse(self, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		return tc_usage_error(self, "expected one of init, source, "
		    "add, close, park, reopen, sweep, next, validate");
	}
	verb = res.positional.items[0];
	memset(&op, 0, sizeof(op));
	if (strcmp(verb, "validate") == 0 || strcmp(verb, "next") == 0) {
		rc = items_read(self, ledger, strcmp(verb, "validate") == 0,
		    require_closed);
		goto done;
	}
	if (!find_verb(verb, &op.verb)) {
		rc = tc_usage_error(self, "unknown items verb '%s'", verb);
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
		rc = tc_usage_error(self, "items source needs --count N or "
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

const struct tc_command cmd_pypto_items_entry = {
	.name = "pypto items",
	.summary = "the optimisation-item ledger",
	.usage = "usage: tunectl pypto items init --ledger FILE\n"
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
	.run = cmd_pypto_items,
};
