/*
 * cmd_pypto.c - "tunectl pypto": the PyPTO-Pro pipeline commands (state,
 * cases, compare, items, select, check).  Each subcommand parses its
 * options, calls src/pypto/, and prints JSON on stdout; errors go to
 * stderr with exit 1 (usage errors exit 2).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto.h"

static const char usage_top[] =
"usage: tunectl pypto state --op-dir DIR ACTION [options]   (ACTION: init, start_stage,\n"
"                       complete_stage, fail_stage, record_artifact_hash, rollback_to_stage,\n"
"                       plan_stage4, start_module, submit_for_verify, complete_module,\n"
"                       fail_module, show, history)\n"
"       tunectl pypto cases validate|freeze --manifest FILE [options]\n"
"       tunectl pypto compare --op-dir DIR --case-manifest FILE [options]\n"
"       tunectl pypto items init|source|add|close|park|reopen|sweep|next|validate --ledger FILE\n"
"       tunectl pypto select --op-dir DIR --candidates FILE [options]\n"
"       tunectl pypto check stage5 --op-dir DIR --dispatch FILE [--report FILE]\n"
"Run 'tunectl pypto SUBCOMMAND --help' for its options; docs/pypto.md describes the formats.\n";

static const struct tc_command cmd_state = { "pypto state", "",
"usage: tunectl pypto state --op-dir DIR [--project DIR] [--agent NAME]\n"
"           [--lint-gate PROG [--lint-gate-arg ARG]...] [--lint-timeout S]\n"
"           [--allow-stage5-rollback] ACTION [--stage N] [--reason TEXT]\n"
"           [--name NAME] [--hash HASH] [--target-stage N] [--failure-category C]\n"
"           [--module-count N] [--is-fusion true|false] [--module K]\n"
"           [--failing-module-boundary B] [--last-error TEXT]\n"
"ACTION is one of the 11 state actions, or show (state and legal next actions)\n"
"or history (the rollback history).  The op dir must lie inside <project>/custom/.\n"
"The lint gate command may also come from TUNECTL_PYPTO_LINT_GATE (split on spaces).\n",
	NULL };

static const struct tc_command cmd_cases = { "pypto cases", "",
"usage: tunectl pypto cases validate --manifest FILE [--op-dir DIR] [--stage5]\n"
"       tunectl pypto cases freeze --op-dir DIR --manifest FILE --op-name NAME\n"
"           --stability-range DECIMAL --stability-kind absolute|relative\n"
"           --promotion-rule TEXT [--warmup N] [--repeats N] [--retry N]\n"
"           [--timing-source process_timer|runner_reported]\n"
"           [--case-arg FLAG | --case-env VAR] [--dispatch FILE] [--weights FILE]\n",
	NULL };

static const struct tc_command cmd_compare = { "pypto compare", "",
"usage: tunectl pypto compare --op-dir DIR --case-manifest FILE [--op-name NAME]\n"
"           [--case-arg FLAG | --case-env VAR] [--warmup N] [--repeats N] [--retry N]\n"
"           [--seed 42] [--device N] [--timing-source process_timer|runner_reported]\n"
"           [--collection-id ID] [--interpreter PROG] [--timeout S]\n"
"Values omitted come from docs/perf/frozen_contract.json when it exists.\n",
	NULL };

static const struct tc_command cmd_items = { "pypto items", "",
"usage: tunectl pypto items init --ledger FILE\n"
"       tunectl pypto items source --ledger FILE --kind KIND --count N --ref TEXT\n"
"       tunectl pypto items add --ledger FILE (--item JSON | --item-file FILE)\n"
"       tunectl pypto items close --ledger FILE --item ID --status S [--reason TEXT]\n"
"           [--reason-code C] [--evidence JSON]\n"
"       tunectl pypto items park --ledger FILE --item ID --status S --reason TEXT\n"
"       tunectl pypto items reopen --ledger FILE --item ID --reason TEXT\n"
"       tunectl pypto items sweep --ledger FILE --scope TEXT --findings TEXT\n"
"       tunectl pypto items next --ledger FILE\n"
"       tunectl pypto items validate --ledger FILE [--require-closed]\n",
	NULL };

static const struct tc_command cmd_select = { "pypto select", "",
"usage: tunectl pypto select --op-dir DIR --candidates FILE [--output FILE]\n"
"           [--markdown] [--stability-range DECIMAL --stability-kind KIND\n"
"            --case-manifest FILE]   (the last three only without a frozen contract)\n",
	NULL };

static const struct tc_command cmd_check = { "pypto check", "",
"usage: tunectl pypto check stage5 --op-dir DIR --dispatch FILE [--report FILE]\n",
	NULL };

static int
fail_msg(const tc_error *err)
{
	return tc_die("%s", tc_error_msg(err));
}

static int
print_and_free(tc_json *v)
{
	int rc = tc_print_json(v);

	tc_json_free(v);
	return rc;
}

/* ---- state ----------------------------------------------------------------------- */

static char **
split_words(const char *s)
{
	char **v = tc_xcalloc(strlen(s) / 2 + 2, sizeof(*v));
	char *copy = tc_xstrdup(s), *save = NULL, *tok;
	size_t n = 0;

	for (tok = strtok_r(copy, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save))
		v[n++] = tc_xstrdup(tok);
	v[n] = NULL;
	free(copy);
	return v;
}

static void
free_words(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static int
run_state(int argc, char **argv)
{
	tc_pypto_state_opts o;
	tc_pypto_input in = TC_PYPTO_INPUT_INIT;
	const char *op_dir = NULL, *project = NULL, *agent = NULL;
	const char *lint = NULL, *fusion = NULL;
	struct tc_strlist lint_args = { NULL, 0 };
	double lint_timeout = 0;
	bool allow = false;
	struct tc_parse_result res;
	char **lint_argv = NULL;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &op_dir, true, NULL },
		{ "--project", TC_OPT_STRING, &project, false, NULL },
		{ "--agent", TC_OPT_STRING, &agent, false, NULL },
		{ "--lint-gate", TC_OPT_STRING, &lint, false, NULL },
		{ "--lint-gate-arg", TC_OPT_LIST, &lint_args, false, NULL },
		{ "--lint-timeout", TC_OPT_DOUBLE, &lint_timeout, false, NULL },
		{ "--allow-stage5-rollback", TC_OPT_FLAG, &allow, false, NULL },
		{ "--stage", TC_OPT_STRING, &in.stage, false, NULL },
		{ "--reason", TC_OPT_STRING, &in.reason, false, NULL },
		{ "--name", TC_OPT_STRING, &in.name, false, NULL },
		{ "--hash", TC_OPT_STRING, &in.hash, false, NULL },
		{ "--target-stage", TC_OPT_STRING, &in.target_stage, false, NULL },
		{ "--failure-category", TC_OPT_STRING, &in.failure_category,
		  false, NULL },
		{ "--module-count", TC_OPT_STRING, &in.module_count, false, NULL },
		{ "--is-fusion", TC_OPT_STRING, &fusion, false, NULL },
		{ "--module", TC_OPT_STRING, &in.module, false, NULL },
		{ "--failing-module-boundary", TC_OPT_STRING,
		  &in.failing_module_boundary, false, NULL },
		{ "--last-error", TC_OPT_STRING, &in.last_error, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(&cmd_state, argc, argv, opts, &res);
	if (rc != 0) {
		tc_strlist_free(&lint_args);
		return rc < 0 ? TC_EXIT_OK : rc;
	}
	if (res.positional.len != 1) {
		tc_parse_result_free(&res);
		tc_strlist_free(&lint_args);
		return tc_usage_error(&cmd_state, "expected exactly one ACTION");
	}
	in.action = res.positional.items[0];
	if (fusion != NULL) {
		if (strcmp(fusion, "true") == 0 || strcmp(fusion, "1") == 0)
			in.is_fusion = 1;
		else if (strcmp(fusion, "false") == 0 || strcmp(fusion, "0") == 0)
			in.is_fusion = 0;
		else {
			tc_parse_result_free(&res);
			tc_strlist_free(&lint_args);
			return tc_usage_error(&cmd_state, "argument --is-fusion: "
			    "expected true or false, got '%s'", fusion);
		}
	}
	if (lint != NULL) {
		size_t i;

		lint_argv = tc_xcalloc(lint_args.len + 2, sizeof(*lint_argv));
		lint_argv[0] = tc_xstrdup(lint);
		for (i = 0; i < lint_args.len; i++)
			lint_argv[i + 1] = tc_xstrdup(lint_args.items[i]);
	} else if (getenv("TUNECTL_PYPTO_LINT_GATE") != NULL &&
	    *getenv("TUNECTL_PYPTO_LINT_GATE") != '\0') {
		lint_argv = split_words(getenv("TUNECTL_PYPTO_LINT_GATE"));
	}
	memset(&o, 0, sizeof(o));
	o.project = project;
	o.op_dir = op_dir;
	o.agent = agent;
	o.lint_argv = lint_argv;
	o.lint_timeout_s = lint_timeout;
	o.allow_stage5_rollback = allow;
	if (strcmp(in.action, "show") == 0)
		out = tc_pypto_state_show(&o, &err);
	else if (strcmp(in.action, "history") == 0)
		out = tc_pypto_state_history(&o, &err);
	else
		out = tc_pypto_state_transition(&o, &in, &err);
	rc = out != NULL ? print_and_free(out) : fail_msg(&err);
	tc_error_clear(&err);
	free_words(lint_argv);
	tc_strlist_free(&lint_args);
	tc_parse_result_free(&res);
	return rc;
}

/* ---- cases ------------------------------------------------------------------------ */

static int
run_cases(int argc, char **argv)
{
	const char *manifest = NULL, *op_dir = NULL, *op_name = NULL;
	const char *stab = NULL, *kind = NULL, *rule = NULL, *source = NULL;
	const char *case_arg = NULL, *case_env = NULL, *dispatch = NULL;
	const char *weights = NULL;
	long warmup = 3, repeats = 3, retry = 2;
	bool stage5 = false;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	int rc;
	const struct tc_option opts[] = {
		{ "--manifest", TC_OPT_STRING, &manifest, true, NULL },
		{ "--op-dir", TC_OPT_STRING, &op_dir, false, NULL },
		{ "--stage5", TC_OPT_FLAG, &stage5, false, NULL },
		{ "--op-name", TC_OPT_STRING, &op_name, false, NULL },
		{ "--stability-range", TC_OPT_STRING, &stab, false, NULL },
		{ "--stability-kind", TC_OPT_STRING, &kind, false, NULL },
		{ "--promotion-rule", TC_OPT_STRING, &rule, false, NULL },
		{ "--warmup", TC_OPT_INT, &warmup, false, NULL },
		{ "--repeats", TC_OPT_INT, &repeats, false, NULL },
		{ "--retry", TC_OPT_INT, &retry, false, NULL },
		{ "--timing-source", TC_OPT_STRING, &source, false, NULL },
		{ "--case-arg", TC_OPT_STRING, &case_arg, false, NULL },
		{ "--case-env", TC_OPT_STRING, &case_env, false, NULL },
		{ "--dispatch", TC_OPT_STRING, &dispatch, false, NULL },
		{ "--weights", TC_OPT_STRING, &weights, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	rc = tc_opts_parse(&cmd_cases, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    (strcmp(res.positional.items[0], "validate") != 0 &&
	    strcmp(res.positional.items[0], "freeze") != 0)) {
		tc_parse_result_free(&res);
		return tc_usage_error(&cmd_cases, "expected validate or freeze");
	}
	if (strcmp(res.positional.items[0], "validate") == 0) {
		tc_pypto_manifest m;
		char *runner = NULL;
		tc_json *out;
		bool loaded;

		rc = (op_dir != NULL ? tc_pypto_manifest_resolve(op_dir, manifest,
		    &m, &err) : tc_pypto_manifest_load(manifest, &m, &err));
		loaded = rc == 0;
		if (rc == 0 && stage5 && tc_pypto_manifest_check_target(&m,
		    &err) != 0)
			rc = -1;
		if (rc == 0 && op_dir != NULL &&
		    ((runner = tc_pypto_find_runner(op_dir, &err)) == NULL ||
		    tc_pypto_manifest_check_functions(&m, runner, &err) != 0))
			rc = -1;
		free(runner);
		if (rc != 0) {
			if (loaded)
				tc_pypto_manifest_free(&m);
			tc_parse_result_free(&res);
			rc = tc_print_refusal(tc_error_msg(&err));
			tc_error_clear(&err);
			return rc;
		}
		out = tc_json_new_object();
		tc_json_object_set_bool(out, "valid", true);
		tc_json_object_set(out, "errors", tc_json_new_array());
		tc_json_object_set_int(out, "n_cases", (int64_t)m.n);
		tc_json_object_set(out, "performance_cases",
		    tc_json_clone(m.source));
		tc_json_object_set(out, "optimization_target",
		    tc_json_get(m.doc, "optimization_target") != NULL ?
		    tc_json_clone(tc_json_get(m.doc, "optimization_target")) :
		    tc_json_new_null());
		tc_pypto_manifest_free(&m);
		tc_parse_result_free(&res);
		return print_and_free(out);
	}
	{
		tc_pypto_freeze_opts f;
		tc_json *out;

		memset(&f, 0, sizeof(f));
		f.op_dir = op_dir;
		f.manifest_path = manifest;
		f.dispatch_path = dispatch;
		f.op_name = op_name;
		f.warmup = warmup;
		f.repeats = repeats;
		f.retry = retry;
		f.timing_source = source;
		f.case_arg = case_arg;
		f.case_env = case_env;
		f.stability_kind = kind;
		f.stability_value = stab;
		f.promotion_rule = rule;
		f.weights_path = weights;
		out = tc_pypto_contract_freeze(&f, &err);
		tc_parse_result_free(&res);
		rc = out != NULL ? print_and_free(out) : fail_msg(&err);
		tc_error_clear(&err);
		return rc;
	}
}

/* ---- compare ---------------------------------------------------------------------- */

static int
run_compare(int argc, char **argv)
{
	tc_pypto_compare_opts o;
	bool sw = false, sr = false, st = false, ss = false, sd = false;
	long warmup = 0, repeats = 0, retry = 0, seed = 0, device = 0;
	double timeout = 0;
	tc_error err = TC_ERROR_INIT;
	char *round = NULL;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--case-manifest", TC_OPT_STRING, &o.manifest_path, true, NULL },
		{ "--op-name", TC_OPT_STRING, &o.op_name, false, NULL },
		{ "--case-arg", TC_OPT_STRING, &o.case_arg, false, NULL },
		{ "--case-env", TC_OPT_STRING, &o.case_env, false, NULL },
		{ "--warmup", TC_OPT_INT, &warmup, false, &sw },
		{ "--repeats", TC_OPT_INT, &repeats, false, &sr },
		{ "--retry", TC_OPT_INT, &retry, false, &st },
		{ "--seed", TC_OPT_INT, &seed, false, &ss },
		{ "--device", TC_OPT_INT, &device, false, &sd },
		{ "--timing-source", TC_OPT_STRING, &o.timing_source, false, NULL },
		{ "--collection-id", TC_OPT_STRING, &o.collection_id, false, NULL },
		{ "--interpreter", TC_OPT_STRING, &o.interpreter, false, NULL },
		{ "--timeout", TC_OPT_DOUBLE, &timeout, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	tc_pypto_compare_opts_init(&o);
	rc = tc_opts_parse(&cmd_compare, argc, argv, opts, NULL);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (sw) {
		if (warmup < 0)
			return tc_die("--warmup must be >= 0");
		o.warmup = warmup;
	}
	if (sr) {
		if (repeats < 1)
			return tc_die("--repeats must be >= 1");
		o.repeats = repeats;
	}
	if (st) {
		if (retry < 0)
			return tc_die("--retry must be >= 0");
		o.retry = retry;
	}
	if (ss) {
		if (seed != 0 && seed != 42)
			return tc_die("Stage 5 keeps the validated Stage 4 seed fixed "
			    "at 42; omit --seed or pass --seed=42");
		o.seed = seed;
	}
	if (sd) {
		if (device < 0)
			return tc_die("--device must be >= 0");
		o.device = device;
	}
	o.timeout_s = timeout;
	out = tc_pypto_compare(&o, &round, &err);
	if (out == NULL) {
		if (round != NULL)
			fprintf(stderr, "tunectl: collection failed; see %s/"
			    "collection.json\n", round);
		rc = fail_msg(&err);
	} else {
		tc_json *r = tc_json_new_object();

		tc_json_object_set_string(r, "round", round);
		tc_json_object_set(r, "collection_id", tc_json_clone(
		    tc_json_get(out, "collection_id")));
		tc_json_object_set(r, "executable_sha256", tc_json_clone(
		    tc_json_get(out, "executable_sha256")));
		tc_json_object_set(r, "performance", out);
		rc = print_and_free(r);
	}
	free(round);
	tc_error_clear(&err);
	return rc;
}

/* ---- items -------------------------------------------------------------------------- */

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

static int
run_items(int argc, char **argv)
{
	const char *ledger = NULL, *kind = NULL, *ref = NULL, *item = NULL;
	const char *item_file = NULL, *item_id = NULL, *status = NULL;
	const char *reason = NULL, *code = NULL, *evidence = NULL;
	const char *scope = NULL, *findings = NULL;
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
			    tc_print_refusal(tc_error_msg(&err)) : fail_msg(&err);
		} else if (strcmp(verb, "next") == 0) {
			rc = print_and_free(tc_pypto_ledger_next(l));
		} else {
			bool ok;

			out = tc_pypto_ledger_validate(l, require_closed, &ok);
			rc = print_and_free(out);
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
			rc = fail_msg(&err);
			goto done;
		}
	}
	if (evidence != NULL && (ej = json_arg(evidence, NULL, "--evidence",
	    &err)) == NULL) {
		rc = fail_msg(&err);
		goto done;
	}
	if (op.verb == TC_LEDGER_SOURCE && count < 0) {
		rc = tc_usage_error(&cmd_items, "items source needs --count N");
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
	if (op.verb == TC_LEDGER_CLOSE || op.verb == TC_LEDGER_PARK ||
	    op.verb == TC_LEDGER_REOPEN)
		op.item_id = item;
	out = tc_pypto_ledger_apply_file(ledger, &op, &err);
	if (out == NULL) {
		rc = fail_msg(&err);
	} else {
		tc_json *r = tc_pypto_ledger_next(out);

		tc_json_free(out);
		rc = print_and_free(r);
	}
done:
	tc_json_free(ij);
	tc_json_free(ej);
	tc_error_clear(&err);
	tc_parse_result_free(&res);
	return rc;
}

/* ---- select / check ---------------------------------------------------------------- */

static int
run_select(int argc, char **argv)
{
	tc_pypto_select_opts o;
	const char *output = NULL;
	bool markdown = false;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--candidates", TC_OPT_STRING, &o.candidates_path, true, NULL },
		{ "--stability-range", TC_OPT_STRING, &o.stability_value, false,
		  NULL },
		{ "--stability-kind", TC_OPT_STRING, &o.stability_kind, false,
		  NULL },
		{ "--case-manifest", TC_OPT_STRING, &o.manifest_path, false, NULL },
		{ "--output", TC_OPT_STRING, &output, false, NULL },
		{ "--markdown", TC_OPT_FLAG, &markdown, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(&cmd_select, argc, argv, opts, NULL);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if ((out = tc_pypto_select(&o, &err)) == NULL) {
		rc = fail_msg(&err);
		tc_error_clear(&err);
		return rc;
	}
	if (output != NULL && tc_write_json(output, out, TC_WRITE_MKDIRS,
	    &err) != 0) {
		tc_json_free(out);
		rc = fail_msg(&err);
		tc_error_clear(&err);
		return rc;
	}
	if (markdown) {
		char *md = tc_pypto_selection_markdown(out);

		fputs(md, stdout);
		free(md);
		tc_json_free(out);
		return TC_EXIT_OK;
	}
	return print_and_free(out);
}

static int
run_check(int argc, char **argv)
{
	tc_pypto_check_opts o;
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_json *out;
	char *text;
	int rc;
	const struct tc_option opts[] = {
		{ "--op-dir", TC_OPT_STRING, &o.op_dir, true, NULL },
		{ "--dispatch", TC_OPT_STRING, &o.dispatch_path, true, NULL },
		{ "--report", TC_OPT_STRING, &o.report_path, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};

	memset(&o, 0, sizeof(o));
	rc = tc_opts_parse(&cmd_check, argc, argv, opts, &res);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (res.positional.len != 1 ||
	    strcmp(res.positional.items[0], "stage5") != 0) {
		tc_parse_result_free(&res);
		return tc_usage_error(&cmd_check, "expected: check stage5");
	}
	tc_parse_result_free(&res);
	if ((out = tc_pypto_check_stage5(&o, &err)) == NULL) {
		rc = fail_msg(&err);
		tc_error_clear(&err);
		return rc;
	}
	text = tc_pypto_check_render(out);
	fputs(text, stderr);
	free(text);
	rc = strcmp(tc_json_get_string(out, "verdict"), "FAILED") == 0 ?
	    TC_EXIT_FAIL : TC_EXIT_OK;
	if (print_and_free(out) != TC_EXIT_OK)
		rc = TC_EXIT_FAIL;
	return rc;
}

/*
 * Strict UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
 * Arguments end up in JSON state files; raw bytes there would make every
 * later read fail with a decode error.
 */
static bool
valid_utf8(const unsigned char *p)
{
	while (*p != '\0') {
		unsigned c = *p++, n, cp, min;

		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07, min = 0x10000;
		else
			return false;
		while (n-- > 0) {
			if ((*p & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (*p++ & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
	}
	return true;
}

int
cmd_pypto(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	int i;

	for (i = 1; i < argc; i++)
		if (!valid_utf8((const unsigned char *)argv[i]))
			return tc_usage_error(tc_command_find("pypto"),
			    "argument %d is not valid UTF-8", i + 1);

	if (sub == NULL || strcmp(sub, "help") == 0 || strcmp(sub, "--help") == 0
	    || strcmp(sub, "-h") == 0) {
		fputs(usage_top, sub == NULL ? stderr : stdout);
		return sub == NULL ? TC_EXIT_USAGE : TC_EXIT_OK;
	}
	if (strcmp(sub, "state") == 0)
		return run_state(argc - 1, argv + 1);
	if (strcmp(sub, "cases") == 0)
		return run_cases(argc - 1, argv + 1);
	if (strcmp(sub, "compare") == 0)
		return run_compare(argc - 1, argv + 1);
	if (strcmp(sub, "items") == 0)
		return run_items(argc - 1, argv + 1);
	if (strcmp(sub, "select") == 0)
		return run_select(argc - 1, argv + 1);
	if (strcmp(sub, "check") == 0)
		return run_check(argc - 1, argv + 1);
	fputs(usage_top, stderr);
	fprintf(stderr, "tunectl pypto: error: unknown subcommand '%s'\n", sub);
	return TC_EXIT_USAGE;
}
