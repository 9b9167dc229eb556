/*
 * test_ledger_read.c - the ledger tool's JSON reader (docs/spec/json.md
 * "Reading JSON", docs/spec/ledger.md "Ledger CLI behaviour"): NaN / Infinity /
 * -Infinity refused where the reference's parse_constant hook would meet them,
 * errors named by their Python exception class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/ledger.h"

static char *
read_error(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_ledger_parse(text, strlen(text), &err);
	char *msg;

	assert_null(v);
	msg = strdup(tc_error_msg(&err));
	tc_error_clear(&err);
	return msg;
}

static void
expect_read_error(const char *text, const char *expected)
{
	char *msg = read_error(text);

	assert_string_equal(msg, expected);
	free(msg);
}

static void
test_nonstandard_constants_are_refused_by_name(void **state)
{
	(void)state;
	expect_read_error("{\"a\": NaN}", "ValueError: non-standard JSON constant "
	    "NaN");
	expect_read_error("[1, Infinity]", "ValueError: non-standard JSON "
	    "constant Infinity");
	expect_read_error("-Infinity", "ValueError: non-standard JSON constant "
	    "-Infinity");
}

static void
test_the_first_constant_in_document_order_is_reported(void **state)
{
	(void)state;
	/* Objects are kept sorted, but the text order decides. */
	expect_read_error("{\"b\": -Infinity, \"a\": NaN}",
	    "ValueError: non-standard JSON constant -Infinity");
	/* A duplicate key that replaced the constant still met it. */
	expect_read_error("{\"a\": NaN, \"a\": 1}",
	    "ValueError: non-standard JSON constant NaN");
}

static void
test_constant_words_inside_strings_are_plain_text(void **state)
{
	tc_error err = TC_ERROR_INIT;
	const char *text = "{\"NaN\": \"Infinity \\\" -Infinity\"}";
	tc_json *v = tc_ledger_parse(text, strlen(text), &err);

	(void)state;
	assert_non_null(v);
	tc_json_free(v);
}

static void
test_constant_before_a_syntax_error_wins(void **state)
{
	(void)state;
	expect_read_error("[NaN, ", "ValueError: non-standard JSON constant NaN");
	expect_read_error("Infinity1", "ValueError: non-standard JSON constant "
	    "Infinity");
	/* A syntax error before the constant is reported as such. */
	expect_read_error("[1 NaN]", "JSONDecodeError: Expecting ',' delimiter: "
	    "line 1 column 4 (char 3)");
	expect_read_error("{\"a\": 1,, NaN}", "JSONDecodeError: Expecting "
	    "property name enclosed in double quotes: line 1 column 9 (char 8)");
}

static void
test_syntax_errors_are_json_decode_errors(void **state)
{
	(void)state;
	expect_read_error("", "JSONDecodeError: Expecting value: line 1 column 1 "
	    "(char 0)");
	expect_read_error("{\"a\": 1", "JSONDecodeError: Expecting ',' delimiter: "
	    "line 1 column 8 (char 7)");
}

static void
test_file_errors_are_named_like_python_os_errors(void **state)
{
	tc_error err = TC_ERROR_INIT;

	(void)state;
	assert_null(tc_ledger_read_file("/nonexistent/ledger.json", &err));
	assert_string_equal(tc_error_msg(&err), "FileNotFoundError: [Errno 2] No "
	    "such file or directory: '/nonexistent/ledger.json'");
	assert_null(tc_ledger_read_file("/tmp", &err));
	assert_string_equal(tc_error_msg(&err), "IsADirectoryError: [Errno 21] Is "
	    "a directory: '/tmp'");
	tc_error_clear(&err);
	assert_string_equal(tc_ledger_os_error_type("[Errno 13] Permission "
	    "denied: 'x'"), "PermissionError");
	assert_string_equal(tc_ledger_os_error_type("[Errno 5] I/O"), "OSError");
}

static void
test_overflowing_literals_parse_as_infinite_floats(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_ledger_parse("[1e999]", 7, &err);

	(void)state;
	/* Not a constant: the structural scan reports it later. */
	assert_non_null(v);
	assert_true(v->u.arr.items[0]->type == TC_JSON_FLOAT);
	tc_json_free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonstandard_constants_are_refused_by_name),
		cmocka_unit_test(test_the_first_constant_in_document_order_is_reported),
		cmocka_unit_test(test_constant_words_inside_strings_are_plain_text),
		cmocka_unit_test(test_constant_before_a_syntax_error_wins),
		cmocka_unit_test(test_syntax_errors_are_json_decode_errors),
		cmocka_unit_test(test_file_errors_are_named_like_python_os_errors),
		cmocka_unit_test(test_overflowing_literals_parse_as_infinite_floats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
