/*
 * test_report_format.c - the report formatting helpers (docs/spec/reports.md
 * "Formatting helpers"): Python's '%.6f' / '%+.6f' (exact binary values, signed
 * zero, ints converted first), the report's arithmetic, str() of JSON values,
 * _summary_cell escaping and json.dumps with default separators.
 */
#include "test_final_fixture.h"

#include "tunectl/final.h"
#include "tunectl/report.h"

static void
expect_fixed(double v, int sign, const char *expect)
{
	tc_buf b = TC_BUF_INIT;

	tc_report_fmt_fixed6(&b, v, sign);
	assert_string_equal(tc_buf_cstr(&b), expect);
	tc_buf_free(&b);
}

static void
test_fixed6_rounds_the_exact_binary_value(void **state)
{
	(void)state;
	expect_fixed(10.0, 0, "10.000000");
	expect_fixed(1.0 / 3.0, 0, "0.333333");
	/* the decimal digits of the binary value decide, not the literal:
	 * 1.0000005 is 1.00000050000000006989... and 0.0000005 is
	 * 4.9999999999999997737...e-07 */
	expect_fixed(1.0000005, 0, "1.000001");
	expect_fixed(0.0000005, 0, "0.000000");
	expect_fixed(0.0000015, 0, "0.000002");
	expect_fixed(1e22, 0, "10000000000000000000000.000000");
	expect_fixed(-10.0, 0, "-10.000000");
}

static void
test_fixed6_signs_like_python(void **state)
{
	(void)state;
	expect_fixed(1.0, 1, "+1.000000");
	expect_fixed(-1.0, 1, "-1.000000");
	expect_fixed(0.0, 1, "+0.000000");
	expect_fixed(-0.0, 1, "-0.000000");
	expect_fixed(NAN, 0, "nan");
	expect_fixed(-NAN, 1, "+nan");
	expect_fixed(INFINITY, 1, "+inf");
	expect_fixed(-INFINITY, 0, "-inf");
}

static void
test_equal_float_medians_give_negative_zero_improvement(void **state)
{
	tc_json *a = fx_parse("10.0"), *b = fx_parse("10.0");
	tc_json *i = fx_parse("10"), *j = fx_parse("10");

	(void)state;
	expect_fixed(tc_final_report_improvement(a, b), 1, "-0.000000");
	expect_fixed(tc_final_delta(a, b), 1, "+0.000000");
	/* int - int is an int: no signed zero */
	expect_fixed(tc_final_report_improvement(i, j), 1, "+0.000000");
	tc_json_free(a);
	tc_json_free(b);
	tc_json_free(i);
	tc_json_free(j);
}

static void
test_integer_arithmetic_is_exact_like_python(void **state)
{
	/* float(2**53 + 1) == float(2**53) and float(2**53 + 3) ==
	 * float(2**53 + 4): subtracting floats gives 4, Python's ints 2. */
	tc_json *b = fx_parse("9007199254740993"), *c = fx_parse("9007199254740995");
	tc_json *x = fx_parse("10"), *y = fx_parse("11.0");

	(void)state;
	expect_fixed(tc_final_delta(b, c), 1, "+2.000000");
	expect_fixed(tc_final_delta(x, y), 1, "+1.000000");
	expect_fixed(tc_final_report_improvement(x, y), 1, "-10.000000");
	tc_json_free(b);
	tc_json_free(c);
	tc_json_free(x);
	tc_json_free(y);
}

static void
expect_cell(const char *json, const char *expect)
{
	tc_json *v = json != NULL ? fx_parse(json) : NULL;
	tc_buf b = TC_BUF_INIT;

	tc_report_cell(&b, v);
	assert_string_equal(tc_buf_cstr(&b), expect);
	tc_buf_free(&b);
	tc_json_free(v);
}

static void
test_cell_shows_missing_values_as_na(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
	expect_cell(NULL, "N/A");
	expect_cell("null", "N/A");
	expect_cell("\"\"", "N/A");
	tc_report_cell_str(&b, NULL);
	tc_report_cell_str(&b, "");
	assert_string_equal(tc_buf_cstr(&b), "N/AN/A");
	tc_buf_free(&b);
}

static void
test_cell_escapes_pipes_and_newlines(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
	expect_cell("\"失败|原因\\n下一行\"", "失败\\|原因<br>下一行");
	expect_cell("\"a\\r\\nb\"", "a\r<br>b");
	tc_report_cell_str(&b, "x|y\n");
	assert_string_equal(tc_buf_cstr(&b), "x\\|y<br>");
	/* runs copied whole: escapes first, adjacent, and last */
	tc_buf_reset(&b);
	tc_report_cell_str(&b, "|\n|ab||c\n");
	assert_string_equal(tc_buf_cstr(&b), "\\|<br>\\|ab\\|\\|c<br>");
	expect_cell("\"\\n|\"", "<br>\\|");
	tc_buf_free(&b);
}

static void
test_cell_uses_python_str(void **state)
{
	(void)state;
	expect_cell("3", "3");
	expect_cell("0", "0");
	expect_cell("10.0", "10.0");
	expect_cell("1e-7", "1e-07");
	expect_cell("true", "True");
	expect_cell("[1, \"a|b\", null]", "[1, 'a\\|b', None]");
	expect_cell("{\"k\": false}", "{'k': False}");
}

static void
expect_inline(const char *json, const char *expect)
{
	tc_json *v = fx_parse(json);
	tc_error err = TC_ERROR_INIT;
	tc_buf b = TC_BUF_INIT;

	assert_int_equal(tc_report_json_inline(&b, v, &err), 0);
	assert_string_equal(tc_buf_cstr(&b), expect);
	tc_buf_free(&b);
	tc_json_free(v);
}

static void
test_json_inline_uses_default_separators_and_sorted_keys(void **state)
{
	(void)state;
	expect_inline("{\"b\": [1, 2.5, null], \"a\": \"x\"}",
	    "{\"a\": \"x\", \"b\": [1, 2.5, null]}");
	expect_inline("{}", "{}");
	expect_inline("[]", "[]");
	expect_inline("{\"auto_op_parallel\": true}",
	    "{\"auto_op_parallel\": true}");
	expect_inline("{\"阻塞\": \"中文\\u0001\\\"\"}",
	    "{\"阻塞\": \"中文\\u0001\\\"\"}");
	expect_inline("[NaN, -Infinity, 1E+2]", "[NaN, -Infinity, 100.0]");
	expect_inline("{\"a\": {\"c\": {}, \"b\": []}}",
	    "{\"a\": {\"b\": [], \"c\": {}}}");
}

static void
test_json_inline_refuses_a_lone_surrogate_and_keeps_output(void **state)
{
	tc_json *v = fx_parse("{\"k\": [\"\\ud800\"]}");
	tc_error err = TC_ERROR_INIT;
	tc_buf b = TC_BUF_INIT;

	(void)state;
	tc_buf_puts(&b, "before");
	assert_int_equal(tc_report_json_inline(&b, v, &err), -1);
	assert_string_equal(tc_buf_cstr(&b), "before");
	assert_non_null(strstr(tc_error_msg(&err), "surrogates not allowed"));
	tc_error_clear(&err);
	tc_buf_free(&b);
	tc_json_free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed6_rounds_the_exact_binary_value),
		cmocka_unit_test(test_fixed6_signs_like_python),
		cmocka_unit_test(test_equal_float_medians_give_negative_zero_improvement),
		cmocka_unit_test(test_integer_arithmetic_is_exact_like_python),
		cmocka_unit_test(test_cell_shows_missing_values_as_na),
		cmocka_unit_test(test_cell_escapes_pipes_and_newlines),
		cmocka_unit_test(test_cell_uses_python_str),
		cmocka_unit_test(test_json_inline_uses_default_separators_and_sorted_keys),
		cmocka_unit_test(test_json_inline_refuses_a_lone_surrogate_and_keeps_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
