/*
 * fuzz_pypto_items.c - libFuzzer target for the Stage 5 optimisation-item
 * ledger (docs/spec/pypto.md "Item ledger", docs/pypto.md "The item ledger"):
 * the file loader, whole-ledger validation (open and --require-closed),
 * the next-work view, and every mutation applied to a copy.
 *
 * Input: part 0 the ledger file; part 1 (optional) an item document for
 * "add" (also used as "close" evidence); part 2 (optional) lines of text
 * used in order as item id, status, reason, reason code, source kind,
 * scope and findings for source / close / park / reopen / sweep.
 *
 * Mutations run on ledgers that validate: their contract, enforced for
 * files by tc_pypto_ledger_apply_file (a hand-edited ledger used to crash
 * "items source/add"; see docs/hardening.md).
 *
 * Invariants: every refusal has a message; validation answers
 * {valid: bool, errors: [...]} with valid == (errors is empty); a
 * ledger that validates closed also validates open; mutations never
 * touch the ledger they were not given; a mutation that succeeds on a
 * valid ledger leaves a ledger that still validates.
 */
#include "fuzz_common.h"
#include "tunectl/pypto_items.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PI_NOW "2026-09-05T01:02:03Z"

static const char *pi_root;
static char *pi_path;

static bool
pi_validate(const tc_json *ledger, bool closed)
{
	bool ok = false;
	tc_json *report = tc_pypto_ledger_validate(ledger, closed, &ok);
	const tc_json *valid = tc_json_get(report, "valid");
	const tc_json *errors = tc_json_get(report, "errors");

	FZ_REQUIRE(tc_json_is(valid, TC_JSON_BOOL) && valid->u.b == ok);
	FZ_REQUIRE(tc_json_is(errors, TC_JSON_ARRAY));
	FZ_REQUIRE(ok == (errors->u.arr.len == 0));
	tc_json_free(report);
	return ok;
}

/* One mutation on a copy; the copy must still validate when the original
 * did and the mutation was accepted. */
static void
pi_mutate(const tc_json *ledger, bool valid, int which, const tc_json *item,
    char **w)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *copy = tc_json_clone(ledger);
	int rc = -1;

	switch (which) {
	case 0:
		rc = tc_pypto_ledger_add(copy, item, PI_NOW, &err);
		break;
	case 1:
		rc = tc_pypto_ledger_source(copy, w[4], 2, w[2], PI_NOW, &err);
		break;
	case 2:
		rc = tc_pypto_ledger_close(copy, w[0], w[1], w[2], w[3], item,
		    PI_NOW, &err);
		break;
	case 3:
		rc = tc_pypto_ledger_park(copy, w[0], w[1], w[2], PI_NOW, &err);
		break;
	case 4:
		rc = tc_pypto_ledger_reopen(copy, w[0], w[2], PI_NOW, &err);
		break;
	default:
		rc = tc_pypto_ledger_sweep(copy, w[5], w[6], PI_NOW, &err);
		break;
	}
	if (fz_status(rc, &err) == 0 && valid && !pi_validate(copy, false)) {
		fprintf(stderr, "mutation %d broke a valid ledger\n", which);
		abort();
	}
	tc_json_free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[3];
	size_t lens[3], n, i;
	tc_error err = TC_ERROR_INIT;
	tc_json *ledger, *item = NULL, *before;
	char *words[7], *text = NULL, *save = NULL, *line;
	bool valid;
	int which;

	if (pi_root == NULL) {
		pi_root = fz_mkroot("pypto-items");
		pi_path = tc_xasprintf("%s/optimization_ledger.json", pi_root);
	}
	n = fz_split(data, size, parts, lens, 3);
	fz_write(pi_root, "optimization_ledger.json", parts[0], lens[0]);
	ledger = fz_result(tc_pypto_ledger_load(pi_path, &err), &err);
	if (ledger == NULL)
		return 0;
	valid = pi_validate(ledger, false);
	if (pi_validate(ledger, true))
		FZ_REQUIRE(valid);
	tc_json_free(tc_pypto_ledger_next(ledger));

	for (i = 0; i < 7; i++)
		words[i] = (char *)"";
	if (n > 2) {
		text = fz_strndup(parts[2], lens[2]);
		for (i = 0, line = strtok_r(text, "\n", &save);
		    i < 7 && line != NULL; i++, line = strtok_r(NULL, "\n", &save))
			words[i] = line;
	}
	item = n > 1 ? fz_parse(parts[1], lens[1]) : NULL;
	before = tc_json_clone(ledger);
	/* the mutators' contract: a ledger that validates (the file
	 * wrapper refuses any other before mutating) */
	for (which = 0; valid && which < 6; which++)
		pi_mutate(ledger, valid, which, item, words);
	FZ_REQUIRE(tc_json_equal(before, ledger) ||
	    !tc_json_equal(ledger, ledger));
	tc_json_free(before);
	tc_json_free(item);
	free(text);
	tc_json_free(ledger);
	return 0;
}
