/*
 * test_pypto_items.c - the optimisation-item ledger: the five-source
 * order, per-kind terminal statuses, reasons for rejected, the
 * bottleneck_derived gate, enumerated denominators, reopening the
 * original id, the final sweep, and validate catching a hand-edited file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/pypto_items.h"

#define NOW "2026-01-01T00:00:00+00:00"
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static tc_json *
parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("bad fixture: %s", tc_error_msg(&err));
	return v;
}

static tc_json *
item(const char *id, const char *kind, const char *ref)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "{\"item_id\": \"%s\", \"source_kind\": \"%s\", "
	    "\"source_ref\": \"%s\", \"case_scope\": [\"p0\"], \"applicability\": "
	    "{\"status\": \"applicable\", \"basis\": \"b\"}, \"expected_metric\": "
	    "\"less work\"%s%s}", id, kind, ref,
	    strcmp(kind, "kb_selected") == 0 ? ", \"kb_key\": {\"class_id\": "
	    "\".\", \"selection_field\": \"required_constraints\", \"reference\": "
	    "\"constraints/x.md\", \"req_id\": \"R1\"}" : "",
	    strcmp(kind, "bottleneck_derived") == 0 ? ", \"bottleneck\": "
	    "{\"mechanism\": \"m\", \"minimal_change\": \"c\", \"risk\": \"r\", "
	    "\"stop_condition\": \"s\", \"analysis_code_sha256\": \"" SHA "\"}" :
	    "");
	return parse(buf);
}

static void
ok(int rc, const tc_error *err)
{
	if (rc != 0)
		fail_msg("unexpected failure: %s", tc_error_msg(err));
}

static void
add_ok(tc_json *l, const char *id, const char *kind, const char *ref)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *it = item(id, kind, ref);

	ok(tc_pypto_ledger_add(l, it, NOW, &err), &err);
	tc_json_free(it);
}

static void
add_fails(tc_json *l, tc_json *it, const char *msg)
{
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_pypto_ledger_add(l, it, NOW, &err), -1);
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
	tc_json_free(it);
}

static void
close_fails(tc_json *l, const char *id, const char *status,
    const char *reason, const char *msg)
{
	tc_error err = TC_ERROR_INIT;

	assert_int_equal(tc_pypto_ledger_close(l, id, status, reason, NULL, NULL,
	    NOW, &err), -1);
	assert_string_equal(tc_error_msg(&err), msg);
	tc_error_clear(&err);
}

static void
close_ok(tc_json *l, const char *id, const char *status, const char *reason)
{
	tc_error err = TC_ERROR_INIT;

	ok(tc_pypto_ledger_close(l, id, status, reason, NULL, NULL, NOW, &err),
	    &err);
}

static void
enumerate(tc_json *l, const char *kind, long n)
{
	tc_error err = TC_ERROR_INIT;

	ok(tc_pypto_ledger_source(l, kind, n, "source file#rows", NOW, &err),
	    &err);
}

/* A ledger with every preset enumerated: 1 kb item, 1 general, 0, 0. */
static tc_json *
fresh(void)
{
	tc_json *l = tc_pypto_ledger_new();

	enumerate(l, "kb_selected", 1);
	enumerate(l, "general_method", 1);
	enumerate(l, "knowledge_card", 0);
	enumerate(l, "template", 0);
	add_ok(l, "kb-1", "kb_selected", "constraints/x.md#R1");
	add_ok(l, "general-01", "general_method", "methods.md#general-01");
	return l;
}

static void
preset_sources_are_enumerated_before_their_items(void **st)
{
	tc_json *l = tc_pypto_ledger_new();
	tc_error err = TC_ERROR_INIT;

	(void)st;
	add_fails(l, item("general-01", "general_method", "m#1"), "the "
	    "general_method source must be enumerated (items source --kind "
	    "general_method --count N) before its items are registered");
	enumerate(l, "general_method", 1);
	add_ok(l, "general-01", "general_method", "m#1");
	add_fails(l, item("general-02", "general_method", "m#2"), "the "
	    "general_method source was enumerated with 1 items; item general-02 "
	    "would exceed it");
	assert_int_equal(tc_pypto_ledger_source(l, "bottleneck_derived", 1, "x",
	    NOW, &err), -1);
	tc_error_clear(&err);
	assert_int_equal(tc_pypto_ledger_source(l, "general_method", 0, "x", NOW,
	    &err), -1);
	assert_string_equal(tc_error_msg(&err), "the general_method source "
	    "already has 1 registered items, more than --count 0");
	tc_error_clear(&err);
	tc_json_free(l);
}

static void
rows_need_the_section_4_2_fields(void **st)
{
	tc_json *l = fresh(), *it;

	(void)st;
	add_fails(l, item("general-01", "general_method", "m#other"), "item "
	    "general-01 already exists; invalidated evidence reopens the original "
	    "id (items reopen), never a new row");
	add_fails(l, item("general-09", "general_method", "methods.md#general-01"),
	    "item general-09 repeats the source identity of item general-01 "
	    "(methods.md#general-01); reopen the original id instead");
	add_fails(l, item("x", "vibes", "r"), "item x: source_kind must be one of "
	    "kb_selected, general_method, knowledge_card, template, "
	    "bottleneck_derived");
	it = item("kb-2", "kb_selected", "r2");
	tc_json_object_remove(it, "kb_key");
	add_fails(l, it, "a kb_selected item needs kb_key {class_id, "
	    "selection_field, reference, req_id}: the atomic key, since req_id "
	    "alone is not unique");
	it = item("g", "general_method", "r3");
	tc_json_object_set(it, "case_scope", tc_json_new_array());
	add_fails(l, it, "item g: case_scope must be a non-empty list of P0 case "
	    "ids");
	it = item("g", "general_method", "r3");
	tc_json_object_set_string(it, "status", "accepted");
	add_fails(l, it, "item g: a new item is registered as pending or unknown "
	    "and closed later with its evidence");
	it = item("g", "general_method", "r3");
	tc_json_object_set(it, "relations", parse("[{\"type\": \"cover\", "
	    "\"target\": \"nope\"}]"));
	add_fails(l, it, "item g: relations[0] must be {type: overlap|require|"
	    "enable|conflict|cover|reopen, target: <another registered item_id>}");
	tc_json_free(l);
}

static void
per_kind_terminal_statuses(void **st)
{
	tc_json *l = fresh();

	(void)st;
	close_fails(l, "kb-1", "accepted", NULL, "accepted is not a terminal "
	    "status of a kb_selected item (terminal: already_implemented, "
	    "not_triggered, implemented)");
	close_fails(l, "kb-1", "rejected", "slow", "rejected is not a terminal "
	    "status of a kb_selected item (terminal: already_implemented, "
	    "not_triggered, implemented)");
	close_ok(l, "kb-1", "implemented", NULL);
	close_fails(l, "general-01", "implemented", NULL, "implemented is not a "
	    "terminal status of a general_method item (terminal: accepted, "
	    "rejected, not_applicable, unsupported)");
	close_fails(l, "general-01", "enabler", NULL, "enabler is not a terminal "
	    "status of a general_method item (terminal: accepted, rejected, "
	    "not_applicable, unsupported)");
	close_fails(l, "nope", "accepted", NULL, "no item nope in the ledger");
	close_ok(l, "general-01", "accepted", NULL);
	close_fails(l, "general-01", "rejected", "x", "item general-01 is already "
	    "closed (accepted); invalidated evidence reopens the original id "
	    "(items reopen)");
	tc_json_free(l);
}

static void
rejected_needs_a_concrete_reason(void **st)
{
	tc_json *l = fresh();
	tc_error err = TC_ERROR_INIT;

	(void)st;
	close_ok(l, "kb-1", "not_triggered", NULL);
	close_fails(l, "general-01", "rejected", NULL, "rejected needs a concrete "
	    "reason (--reason); the code is restored or switched to the current "
	    "best version");
	close_fails(l, "general-01", "rejected", "  ", "rejected needs a concrete "
	    "reason (--reason); the code is restored or switched to the current "
	    "best version");
	assert_int_equal(tc_pypto_ledger_close(l, "general-01", "rejected",
	    "quick screen below the promotion rule", "too_slow", NULL, NOW, &err),
	    -1);
	assert_string_equal(tc_error_msg(&err), "--reason-code must be one of "
	    "quick_not_promoted, control_faster, no_stable_gain");
	tc_error_clear(&err);
	ok(tc_pypto_ledger_close(l, "general-01", "rejected", "quick screen below "
	    "the promotion rule", "quick_not_promoted", NULL, NOW, &err), &err);
	tc_json_free(l);
}

static void
items_close_in_the_five_source_order(void **st)
{
	tc_json *l = fresh();
	tc_error err = TC_ERROR_INIT;

	(void)st;
	close_fails(l, "general-01", "accepted", NULL, "source order: "
	    "general_method items are closed after every earlier source; "
	    "kb_selected item kb-1 is still pending");
	/* an enabler does not hold later sources back */
	ok(tc_pypto_ledger_park(l, "kb-1", "enabler", "pairs with general-01",
	    NOW, &err), &err);
	assert_int_equal(tc_pypto_ledger_park(l, "kb-1", "accepted", "x", NOW,
	    &err), -1);
	tc_error_clear(&err);
	close_ok(l, "general-01", "accepted", NULL);
	tc_json_free(l);
}

static void
bottleneck_items_only_after_the_presets_are_closed(void **st)
{
	tc_json *l = fresh(), *it;

	(void)st;
	add_fails(l, item("bd-1", "bottleneck_derived", "profile#1"),
	    "bottleneck_derived items are allowed only after the four preset "
	    "sources are closed: kb_selected item kb-1 is pending");
	close_ok(l, "kb-1", "already_implemented", NULL);
	{
		tc_error err = TC_ERROR_INIT;

		ok(tc_pypto_ledger_park(l, "general-01", "enabler", "combo", NOW,
		    &err), &err);
	}
	add_fails(l, item("bd-1", "bottleneck_derived", "profile#1"),
	    "bottleneck_derived items are allowed only after the four preset "
	    "sources are closed: general_method item general-01 is enabler");
	close_ok(l, "general-01", "unsupported", NULL);
	it = item("bd-1", "bottleneck_derived", "profile#1");
	tc_json_object_remove(it, "bottleneck");
	add_fails(l, it, "a bottleneck_derived item needs bottleneck {mechanism, "
	    "minimal_change, risk, stop_condition, analysis_code_sha256}: a "
	    "falsifiable mechanism registered before editing code");
	add_ok(l, "bd-1", "bottleneck_derived", "profile#1");
	add_fails(l, item("bd-2", "bottleneck_derived", "profile#1"), "item bd-2 "
	    "repeats the source identity of item bd-1 (profile#1); reopen the "
	    "original id instead");
	tc_json_free(l);
}

static void
reopen_returns_the_original_id_and_clears_the_sweep(void **st)
{
	tc_json *l = fresh(), *next;
	tc_error err = TC_ERROR_INIT;
	const tc_json *g;

	(void)st;
	close_ok(l, "kb-1", "implemented", NULL);
	close_ok(l, "general-01", "accepted", NULL);
	assert_int_equal(tc_pypto_ledger_reopen(l, "general-01", " ", NOW, &err),
	    -1);
	tc_error_clear(&err);
	ok(tc_pypto_ledger_sweep(l, "final code", "none", NOW, &err), &err);
	ok(tc_pypto_ledger_reopen(l, "general-01", "DAG changed by bd-1", NOW,
	    &err), &err);
	assert_true(tc_json_is(tc_json_get(l, "final_sweep"), TC_JSON_NULL));
	g = tc_json_get(l, "items")->u.arr.items[1];
	assert_string_equal(tc_json_get_string(g, "status"), "pending");
	assert_string_equal(tc_json_get(g, "reopen_count")->u.int_text, "1");
	assert_int_equal(tc_json_get(l, "items")->u.arr.len, 2);
	assert_int_equal(tc_pypto_ledger_reopen(l, "general-01", "again", NOW,
	    &err), -1);
	assert_string_equal(tc_error_msg(&err), "item general-01 is open "
	    "(pending); only a closed item is reopened");
	tc_error_clear(&err);
	next = tc_pypto_ledger_next(l);
	assert_string_equal(tc_json_get_string(next, "phase"),
	    "preset:general_method");
	assert_string_equal(tc_json_get_string(tc_json_get(next, "next"),
	    "item_id"), "general-01");
	tc_json_free(next);
	tc_json_free(l);
}

static void
sweep_and_closure(void **st)
{
	tc_json *l = fresh(), *rep, *next;
	tc_error err = TC_ERROR_INIT;
	bool valid;

	(void)st;
	assert_int_equal(tc_pypto_ledger_sweep(l, "s", "f", NOW, &err), -1);
	tc_error_clear(&err);
	rep = tc_pypto_ledger_validate(l, true, &valid);
	assert_false(valid);
	assert_false(tc_json_get(tc_json_get(rep, "closure"), "complete")->u.b);
	tc_json_free(rep);
	close_ok(l, "kb-1", "implemented", NULL);
	close_ok(l, "general-01", "not_applicable", NULL);
	next = tc_pypto_ledger_next(l);
	assert_string_equal(tc_json_get_string(next, "phase"),
	    "autonomous_or_final_sweep");
	assert_true(tc_json_get(next, "bottleneck_derived_allowed")->u.b);
	tc_json_free(next);
	ok(tc_pypto_ledger_sweep(l, "final code + ledger", "no new candidate",
	    NOW, &err), &err);
	rep = tc_pypto_ledger_validate(l, true, &valid);
	assert_true(valid);
	assert_true(tc_json_get(tc_json_get(rep, "closure"), "complete")->u.b);
	tc_json_free(rep);
	next = tc_pypto_ledger_next(l);
	assert_string_equal(tc_json_get_string(next, "phase"), "complete");
	tc_json_free(next);
	tc_json_free(l);
}

static void
validate_catches_hand_edits(void **st)
{
	tc_json *l = fresh(), *rep, *g;
	tc_error err = TC_ERROR_INIT;
	bool valid;

	(void)st;
	close_ok(l, "kb-1", "implemented", NULL);
	close_ok(l, "general-01", "accepted", NULL);
	ok(tc_pypto_ledger_sweep(l, "s", "f", NOW, &err), &err);
	/* flip a status without an event */
	g = tc_json_get(l, "items")->u.arr.items[1];
	tc_json_object_set_string(g, "status", "rejected");
	rep = tc_pypto_ledger_validate(l, false, &valid);
	assert_false(valid);
	tc_json_free(rep);
	tc_json_object_set_string(g, "status", "accepted");
	/* a bottleneck item spliced in with a registration before the close */
	{
		tc_json *bd = item("bd-1", "bottleneck_derived", "p#1");

		tc_json_object_set_int(bd, "registered_seq", 1);
		tc_json_object_set_string(bd, "status", "pending");
		tc_json_object_set(bd, "history", parse("[{\"seq\": 1, \"event\": "
		    "\"add\", \"status\": \"pending\", \"at\": \"x\"}]"));
		tc_json_array_push(tc_json_get(l, "items"), bd);
	}
	rep = tc_pypto_ledger_validate(l, false, &valid);
	assert_false(valid);
	{
		const tc_json *errs = tc_json_get(rep, "errors");
		size_t i;
		bool found = false;

		for (i = 0; i < errs->u.arr.len; i++)
			found |= strstr(tc_json_string(errs->u.arr.items[i]),
			    "was registered while") != NULL;
		assert_true(found);
	}
	tc_json_free(rep);
	tc_json_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preset_sources_are_enumerated_before_their_items),
		cmocka_unit_test(rows_need_the_section_4_2_fields),
		cmocka_unit_test(per_kind_terminal_statuses),
		cmocka_unit_test(rejected_needs_a_concrete_reason),
		cmocka_unit_test(items_close_in_the_five_source_order),
		cmocka_unit_test(bottleneck_items_only_after_the_presets_are_closed),
		cmocka_unit_test(reopen_returns_the_original_id_and_clears_the_sweep),
		cmocka_unit_test(sweep_and_closure),
		cmocka_unit_test(validate_catches_hand_edits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
