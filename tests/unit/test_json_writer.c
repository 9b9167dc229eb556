/*
 * test_json_writer.c - the writers byte for byte against CPython's
 * json.dumps(sort_keys=True): compact canonical, ensure_ascii, indent=2 +
 * "\n", allow_nan=False, the canonical digest, and the UTF-8 encoding
 * errors for lone surrogates (positions in code points, runs reported as
 * "characters in position A-B"), and the hooked writers that fill null
 * placeholders from plain records through an emitter.
 *
 * Expected strings and digests were produced by /usr/bin/python3 (3.11.2).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/json.h"
#include "tunectl/sha256.h"

static tc_json *
parse_ok(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		print_error("parse failed: %s\n", tc_error_msg(&err));
	assert_non_null(v);
	return v;
}

static const struct {
	const char *doc;
	const char *canonical;	/* separators (",", ":"), ensure_ascii=False */
	const char *ascii;	/* ensure_ascii=True */
	const char *pretty;	/* indent=2 + "\n" */
	const char *no_nan;	/* allow_nan=False, or "!" + message */
	const char *digest;	/* sha256 of canonical */
} cases[] = {
	{ "{\"b\":[1,2.5,{\"d\":null,\"c\":true}],\"a\":\"x\",\"\":false}",
	  "{\"\":false,\"a\":\"x\",\"b\":[1,2.5,{\"c\":true,\"d\":null}]}",
	  "{\"\":false,\"a\":\"x\",\"b\":[1,2.5,{\"c\":true,\"d\":null}]}",
	  "{\x0a  \"\": false,\x0a  \"a\": \"x\",\x0a  \"b\": [\x0a    1,\x0a    2.5,\x0a    {\x0a      \"c\": true,\x0a      \"d\": null\x0a    }\x0a  ]\x0a}\x0a",
	  "{\"\":false,\"a\":\"x\",\"b\":[1,2.5,{\"c\":true,\"d\":null}]}",
	  "cb0ac065fe2439bc0c46d55ed0cfe22b2420bff298c1360ab7c076462983ac96" },
	{ "[]",
	  "[]",
	  "[]",
	  "[]\x0a",
	  "[]",
	  "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945" },
	{ "{}",
	  "{}",
	  "{}",
	  "{}\x0a",
	  "{}",
	  "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" },
	{ "[[],{}]",
	  "[[],{}]",
	  "[[],{}]",
	  "[\x0a  [],\x0a  {}\x0a]\x0a",
	  "[[],{}]",
	  "5eed25f9aa1c68139fe47d7ea93769c16d4ddd46c01693921e0b40d9aaa39beb" },
	{ "{\"a\":[],\"b\":{}}",
	  "{\"a\":[],\"b\":{}}",
	  "{\"a\":[],\"b\":{}}",
	  "{\x0a  \"a\": [],\x0a  \"b\": {}\x0a}\x0a",
	  "{\"a\":[],\"b\":{}}",
	  "9959f7ea5ff37e0cf81634a894845a335eb6e26fbad0877944e9bc009b4f0644" },
	{ "\"\\u0000\\u001f\\u007f\\u0080\\u00ff\\u2028\\uffff\"",
	  "\"\\u0000\\u001f\x7f\xc2\x80\xc3\xbf\xe2\x80\xa8\xef\xbf\xbf\"",
	  "\"\\u0000\\u001f\\u007f\\u0080\\u00ff\\u2028\\uffff\"",
	  "\"\\u0000\\u001f\x7f\xc2\x80\xc3\xbf\xe2\x80\xa8\xef\xbf\xbf\"\x0a",
	  "\"\\u0000\\u001f\x7f\xc2\x80\xc3\xbf\xe2\x80\xa8\xef\xbf\xbf\"",
	  "e9233b39709492f41f5734a2722502ab7a2d643d4d54e4f5a34c60ac7ab04dbb" },
	{ "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
	  "\"\\\"\\\\/\\b\\f\\n\\r\\t\"",
	  "\"\\\"\\\\/\\b\\f\\n\\r\\t\"",
	  "\"\\\"\\\\/\\b\\f\\n\\r\\t\"\x0a",
	  "\"\\\"\\\\/\\b\\f\\n\\r\\t\"",
	  "11b17be1c38ac0f40c1c36cb58861f9853f04d6702d8edf4c79e6aca6216c346" },
	{ "\"\\ud83d\\ude00 \\ud800\\udc00 \\udbff\\udfff\"",
	  "\"\xf0\x9f\x98\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\"",
	  "\"\\ud83d\\ude00 \\ud800\\udc00 \\udbff\\udfff\"",
	  "\"\xf0\x9f\x98\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\"\x0a",
	  "\"\xf0\x9f\x98\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\"",
	  "e1776b0372a3e548d039cd9d757a3e1a14faa8d16321ffd4c655bea060d28a81" },
	{ "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"",
	  "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"",
	  "\"\\u00e9\\u4e2d\\ud83d\\ude00\"",
	  "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"\x0a",
	  "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"",
	  "53a6f80d1698e3fd26110153d41dfab9d190ad14be744e2d10eaec25ded28f06" },
	{ "[1e16, 1e-5, 0.0001, 123456789.125, -0.0, 1e400, -1e400, NaN, 5e-324, 1.7976931348623157e308, 100.0]",
	  "[1e+16,1e-05,0.0001,123456789.125,-0.0,Infinity,-Infinity,NaN,5e-324,1.7976931348623157e+308,100.0]",
	  "[1e+16,1e-05,0.0001,123456789.125,-0.0,Infinity,-Infinity,NaN,5e-324,1.7976931348623157e+308,100.0]",
	  "[\x0a  1e+16,\x0a  1e-05,\x0a  0.0001,\x0a  123456789.125,\x0a  -0.0,\x0a  Infinity,\x0a  -Infinity,\x0a  NaN,\x0a  5e-324,\x0a  1.7976931348623157e+308,\x0a  100.0\x0a]\x0a",
	  "!Out of range float values are not JSON compliant",
	  "9dd2d9bf75bf4ae1750cb4c27b8ef66b975492d62df022a857c532f15ad4c936" },
	{ "{\"k\": [1, [2, [3, {\"x\": \"y\"}]]], \"j\": {\"z\": {}}}",
	  "{\"j\":{\"z\":{}},\"k\":[1,[2,[3,{\"x\":\"y\"}]]]}",
	  "{\"j\":{\"z\":{}},\"k\":[1,[2,[3,{\"x\":\"y\"}]]]}",
	  "{\x0a  \"j\": {\x0a    \"z\": {}\x0a  },\x0a  \"k\": [\x0a    1,\x0a    [\x0a      2,\x0a      [\x0a        3,\x0a        {\x0a          \"x\": \"y\"\x0a        }\x0a      ]\x0a    ]\x0a  ]\x0a}\x0a",
	  "{\"j\":{\"z\":{}},\"k\":[1,[2,[3,{\"x\":\"y\"}]]]}",
	  "e7211637c9caf80451aee7f01f08ba737212c0e5abe9a42dbaaf987e21937aeb" },
	{ "[12345678901234567890123456789012345678901234567890, -1, 0]",
	  "[12345678901234567890123456789012345678901234567890,-1,0]",
	  "[12345678901234567890123456789012345678901234567890,-1,0]",
	  "[\x0a  12345678901234567890123456789012345678901234567890,\x0a  -1,\x0a  0\x0a]\x0a",
	  "[12345678901234567890123456789012345678901234567890,-1,0]",
	  "a6e7cb3c58519d9ffec084e64198f63b8735154229e21ee0724d03b3f0c7fada" },
	{ "{\"\\u00e9\": 1, \"e\": 2, \"\\ud83d\\ude00\": 3, \"\\uffff\": 4, \"\\u007f\": 5}",
	  "{\"e\":2,\"\x7f\":5,\"\xc3\xa9\":1,\"\xef\xbf\xbf\":4,\"\xf0\x9f\x98\x80\":3}",
	  "{\"e\":2,\"\\u007f\":5,\"\\u00e9\":1,\"\\uffff\":4,\"\\ud83d\\ude00\":3}",
	  "{\x0a  \"e\": 2,\x0a  \"\x7f\": 5,\x0a  \"\xc3\xa9\": 1,\x0a  \"\xef\xbf\xbf\": 4,\x0a  \"\xf0\x9f\x98\x80\": 3\x0a}\x0a",
	  "{\"e\":2,\"\x7f\":5,\"\xc3\xa9\":1,\"\xef\xbf\xbf\":4,\"\xf0\x9f\x98\x80\":3}",
	  "a8d04f6fae63d9435a30d4880c541d9e194b9f09c5c53d822cd6a998c27b0bfa" },
};

/* Write v with flags into a buffer that already holds "prefix:". */
static char *
write_with(const tc_json *v, unsigned flags, int *rc, tc_error *err)
{
	tc_buf b = TC_BUF_INIT;
	char *s;

	tc_buf_puts(&b, "prefix:");
	*rc = tc_json_write(&b, v, flags, err);
	assert_memory_equal(b.data, "prefix:", 7);
	s = tc_xstrdup(b.data + 7);
	tc_buf_free(&b);
	return s;
}

static void
writers_match_python_json_dumps(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *v = parse_ok(cases[i].doc);
		char hex[65], *s;
		size_t len;
		int rc;

		s = tc_json_canonical(v, &len, &err);
		assert_string_equal(s, cases[i].canonical);
		assert_int_equal(len, strlen(cases[i].canonical));
		free(s);
		s = write_with(v, TC_JSON_ASCII, &rc, &err);
		assert_int_equal(rc, 0);
		assert_string_equal(s, cases[i].ascii);
		free(s);
		s = tc_json_pretty(v, &len, &err);
		assert_string_equal(s, cases[i].pretty);
		free(s);
		s = write_with(v, TC_JSON_NO_NAN, &rc, &err);
		if (cases[i].no_nan[0] == '!') {
			assert_int_equal(rc, -1);
			assert_string_equal(s, "");
			assert_string_equal(tc_error_msg(&err), cases[i].no_nan + 1);
		} else {
			assert_int_equal(rc, 0);
			assert_string_equal(s, cases[i].no_nan);
		}
		free(s);
		assert_int_equal(tc_json_digest(v, hex, &err), 0);
		assert_string_equal(hex, cases[i].digest);
		tc_json_free(v);
		tc_error_clear(&err);
	}
}

static const struct {
	const char *doc;
	const char *canonical_error;
	const char *pretty_error;
} surrogate_cases[] = {
	{ "\"\\ud800\"", "'utf-8' codec can't encode character '\\ud800' in position 1: surrogates not allowed", "'utf-8' codec can't encode character '\\ud800' in position 1: surrogates not allowed" },
	{ "[\"\\u00e9\\u4e2d\\ud83d\\ude00\", \"\\udfff\"]", "'utf-8' codec can't encode character '\\udfff' in position 8: surrogates not allowed", "'utf-8' codec can't encode character '\\udfff' in position 14: surrogates not allowed" },
	{ "\"a\\ud800\\udbff\\udc00b\"", "'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed", "'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed" },
	{ "{\"\\ud800\\ud801\\udc02\":\"\\ud802\"}", "'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed", "'utf-8' codec can't encode character '\\ud800' in position 5: surrogates not allowed" },
	{ "[\"\\ude00\\ud83d\", \"x\"]", "'utf-8' codec can't encode characters in position 2-3: surrogates not allowed", "'utf-8' codec can't encode characters in position 5-6: surrogates not allowed" },
	{ "{\"b\":\"\\udc00\",\"a\":\"\\udc01\"}", "'utf-8' codec can't encode character '\\udc01' in position 6: surrogates not allowed", "'utf-8' codec can't encode character '\\udc01' in position 10: surrogates not allowed" },
	{ "\"\\udc00\\udc00\\udc00 \\udc00\"", "'utf-8' codec can't encode characters in position 1-3: surrogates not allowed", "'utf-8' codec can't encode characters in position 1-3: surrogates not allowed" },
	{ "\"\\u00e9\\ud800\"", "'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed", "'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed" },
};

static void
lone_surrogates_fail_utf8_encoding_like_python(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(surrogate_cases) / sizeof(surrogate_cases[0]);
	    i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *v = parse_ok(surrogate_cases[i].doc);
		char hex[65];
		char *s;
		int rc;

		s = write_with(v, 0, &rc, &err);
		assert_int_equal(rc, -1);
		assert_string_equal(s, "");	/* nothing half-written */
		assert_string_equal(tc_error_msg(&err),
		    surrogate_cases[i].canonical_error);
		free(s);
		assert_null(tc_json_canonical(v, NULL, &err));
		assert_int_equal(tc_json_digest(v, hex, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    surrogate_cases[i].canonical_error);
		assert_null(tc_json_pretty(v, NULL, &err));
		assert_string_equal(tc_error_msg(&err),
		    surrogate_cases[i].pretty_error);
		/* ensure_ascii escapes them instead */
		s = write_with(v, TC_JSON_ASCII, &rc, &err);
		assert_int_equal(rc, 0);
		free(s);
		tc_json_free(v);
		tc_error_clear(&err);
	}
}

static void
no_nan_refuses_every_non_finite_float(void **state)
{
	static const double bad[] = { NAN, INFINITY, -INFINITY };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *doc = tc_json_new_object();
		tc_json *arr = tc_json_new_array();
		char hex[65];

		tc_json_array_push(arr, tc_json_new_float(1.5));
		tc_json_array_push(arr, tc_json_new_float(bad[i]));
		tc_json_object_set(doc, "x", arr);
		assert_int_equal(tc_json_digest_flags(doc, TC_JSON_ASCII |
		    TC_JSON_NO_NAN, hex, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    "Out of range float values are not JSON compliant");
		assert_int_equal(tc_json_digest_flags(doc, TC_JSON_ASCII, hex,
		    &err), 0);
		tc_json_free(doc);
		tc_error_clear(&err);
	}
}

static void
built_documents_write_with_sorted_keys(void **state)
{
	tc_json *doc = tc_json_new_object();
	tc_json *inner = tc_json_new_object();
	tc_error err = TC_ERROR_INIT;
	char *s;

	(void)state;
	tc_json_object_set_int(doc, "z", -5);
	tc_json_object_set_string(doc, "a", "caf\xc3\xa9\n");
	tc_json_object_set_bool(doc, "m", true);
	tc_json_object_set_null(doc, "b");
	tc_json_object_set(inner, "10", tc_json_new_float(0.5));
	tc_json_object_set(inner, "2", tc_json_new_int_text(
	    "123456789012345678901234567890"));
	tc_json_object_set(doc, "c", inner);
	tc_json_object_set_int(doc, "z", INT64_MIN);	/* replaces */
	s = tc_json_canonical(doc, NULL, &err);
	assert_string_equal(s, "{\"a\":\"caf\xc3\xa9\\n\",\"b\":null,\"c\":{"
	    "\"10\":0.5,\"2\":123456789012345678901234567890},\"m\":true,"
	    "\"z\":-9223372036854775808}");
	free(s);
	s = tc_json_pretty(doc, NULL, &err);
	assert_string_equal(s, "{\n  \"a\": \"caf\xc3\xa9\\n\",\n  \"b\": null,\n"
	    "  \"c\": {\n    \"10\": 0.5,\n    \"2\": "
	    "123456789012345678901234567890\n  },\n  \"m\": true,\n"
	    "  \"z\": -9223372036854775808\n}\n");
	free(s);
	tc_json_free(doc);
}

static void
strings_with_nul_bytes_and_long_runs_are_written_whole(void **state)
{
	tc_buf in = TC_BUF_INIT, want = TC_BUF_INIT, out = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_json *v;
	size_t i;

	(void)state;
	/* a long string crossing the 8-byte scanning blocks at every offset */
	for (i = 0; i < 300; i++) {
		tc_buf_putc(&in, (char)('a' + i % 26));
		tc_buf_putc(&want, (char)('a' + i % 26));
		if (i % 37 == 0) {
			tc_buf_add(&in, "\0\"\\\x7f\xc3\xa9", 6);
			tc_buf_add(&want, "\\u0000\\\"\\\\\\u007f\\u00e9", 22);
		}
	}
	v = tc_json_new_stringn(in.data, in.len);
	tc_buf_putc(&out, '>');
	assert_int_equal(tc_json_write(&out, v, TC_JSON_ASCII, &err), 0);
	assert_int_equal(out.len, want.len + 3);
	assert_memory_equal(out.data + 2, want.data, want.len);
	tc_json_free(v);
	tc_buf_free(&in);
	tc_buf_free(&want);
	tc_buf_free(&out);
}

/*
 * The hooked writers: a document whose placeholders a hook fills from
 * plain records writes, and digests, exactly as the same document built
 * as a tree, in every flag combination.
 */
struct occ_rec {
	int64_t step;
	double us;
	const char *name;
};

static const struct occ_rec occ_recs[] = {
	{ 1, 0.5, "caf\xc3\xa9" }, { 2, 1e16, "a\"b" }, { -3, 2.0, "" },
};

struct hook_ctx {
	const tc_json *occ, *empty_arr, *empty_obj, *nested, *left, *ints;
	const tc_json *bad;	/* emits NaN */
};

static bool
fill(void *vctx, const tc_json *ph, tc_json_emitter *e)
{
	const struct hook_ctx *c = vctx;
	size_t i;

	if (ph == c->occ) {
		tc_json_emit_array_begin(e);
		for (i = 0; i < 3; i++) {
			tc_json_emit_object_begin(e);
			tc_json_emit_key(e, "kids");
			tc_json_emit_array_begin(e);
			tc_json_emit_int(e, occ_recs[i].step);
			tc_json_emit_bool(e, i == 1);
			tc_json_emit_null(e);
			tc_json_emit_array_end(e);
			tc_json_emit_key(e, "name");
			tc_json_emit_string(e, occ_recs[i].name);
			tc_json_emit_key(e, "ns");
			tc_json_emit_int_text(e, "123456789012345678901234567890");
			tc_json_emit_key(e, "step_id");
			tc_json_emit_int(e, occ_recs[i].step);
			tc_json_emit_key(e, "us");
			tc_json_emit_float(e, occ_recs[i].us);
			tc_json_emit_object_end(e);
		}
		tc_json_emit_array_end(e);
		return true;
	}
	if (ph == c->ints) {
		static const int64_t v[] = { 0, -1, INT64_MIN, INT64_MAX, 10, 9,
		    -100 };

		tc_json_emit_array_begin(e);
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			tc_json_emit_int(e, v[i]);
		tc_json_emit_array_end(e);
		return true;
	}
	if (ph == c->empty_arr) {
		tc_json_emit_array_begin(e);
		tc_json_emit_array_end(e);
		return true;
	}
	if (ph == c->empty_obj) {
		tc_json_emit_object_begin(e);
		tc_json_emit_object_end(e);
		return true;
	}
	if (ph == c->nested) {
		/* a tree whose own null reaches the hook again */
		tc_json *t = parse_ok("{\"x\": [1, {}], \"y\": null}");

		tc_json_emit_value(e, t);
		tc_json_free(t);
		return true;
	}
	if (ph == c->bad) {
		tc_json_emit_float(e, NAN);
		return true;
	}
	return false;		/* c->left and any other null stay null */
}

static void
hooked_writes_equal_the_tree_they_stand_for(void **state)
{
	static const char occ[] = "[{\"kids\": [1, false, null], "
	    "\"name\": \"caf\xc3\xa9\", "
	    "\"ns\": 123456789012345678901234567890, \"step_id\": 1, "
	    "\"us\": 0.5}, {\"kids\": [2, true, null], \"name\": \"a\\\"b\", "
	    "\"ns\": 123456789012345678901234567890, \"step_id\": 2, "
	    "\"us\": 1e16}, {\"kids\": [-3, false, null], \"name\": \"\", "
	    "\"ns\": 123456789012345678901234567890, \"step_id\": -3, "
	    "\"us\": 2.0}]";
	static const char nested[] = "{\"x\": [1, {}], \"y\": null}";
	static const unsigned flags[] = { 0, TC_JSON_ASCII, TC_JSON_INDENT,
	    TC_JSON_INDENT | TC_JSON_ASCII, TC_JSON_NO_NAN };
	tc_error err = TC_ERROR_INIT;
	tc_buf full_text = TC_BUF_INIT;
	tc_json *full, *ph, *deep;
	struct hook_ctx c;
	size_t f;

	(void)state;
	/* the whole tree, and the one with placeholders */
	tc_buf_puts(&full_text, "{\"a\": {\"deep\": [");
	tc_buf_puts(&full_text, occ);
	tc_buf_puts(&full_text, ", []]}, \"e\": {}, \"i\": [0, -1, "
	    "-9223372036854775808, 9223372036854775807, 10, 9, -100], "
	    "\"left\": null, \"n\": ");
	tc_buf_puts(&full_text, nested);
	tc_buf_puts(&full_text, ", \"z\": 1}");
	full = parse_ok(tc_buf_cstr(&full_text));
	ph = tc_json_new_object();
	deep = tc_json_new_array();
	tc_json_array_push(deep, tc_json_new_null());
	tc_json_array_push(deep, tc_json_new_null());
	{
		tc_json *a = tc_json_new_object();

		tc_json_object_set(a, "deep", deep);
		tc_json_object_set(ph, "a", a);
	}
	tc_json_object_set_null(ph, "e");
	tc_json_object_set_null(ph, "i");
	tc_json_object_set_null(ph, "left");
	tc_json_object_set_null(ph, "n");
	tc_json_object_set_int(ph, "z", 1);
	memset(&c, 0, sizeof(c));
	c.occ = deep->u.arr.items[0];
	c.empty_arr = deep->u.arr.items[1];
	c.empty_obj = tc_json_get(ph, "e");
	c.left = tc_json_get(ph, "left");
	c.ints = tc_json_get(ph, "i");
	c.nested = tc_json_get(ph, "n");
	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		tc_buf want = TC_BUF_INIT, got = TC_BUF_INIT;
		char hw[65], hg[65];

		assert_int_equal(tc_json_write(&want, full, flags[f], &err), 0);
		tc_buf_puts(&got, "prefix");
		assert_int_equal(tc_json_write_hook(&got, ph, flags[f], fill, &c,
		    &err), 0);
		assert_int_equal(got.len, want.len + 6);
		assert_memory_equal(got.data + 6, want.data, want.len);
		assert_int_equal(tc_json_digest_flags(full, flags[f], hw, &err),
		    0);
		assert_int_equal(tc_json_digest_hook(ph, flags[f], fill, &c, hg,
		    &err), 0);
		assert_string_equal(hg, hw);
		tc_buf_free(&want);
		tc_buf_free(&got);
	}
	/* without a hook, or with one that declines, a null is a null */
	{
		char *s = tc_json_canonical(tc_json_get(ph, "left"), NULL, &err);

		assert_string_equal(s, "null");
		free(s);
	}
	/* a NaN written by the hook fails a NO_NAN write as a tree's would,
	 * and leaves the buffer as it was */
	c.bad = c.left;
	c.left = NULL;
	{
		tc_buf got = TC_BUF_INIT;
		char h[65];

		tc_buf_puts(&got, "keep");
		assert_int_equal(tc_json_write_hook(&got, ph, TC_JSON_NO_NAN, fill,
		    &c, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    "Out of range float values are not JSON compliant");
		assert_string_equal(tc_buf_cstr(&got), "keep");
		tc_error_clear(&err);
		assert_int_equal(tc_json_digest_hook(ph, TC_JSON_NO_NAN, fill, &c,
		    h, &err), -1);
		tc_error_clear(&err);
		/* allowed, it is NaN as json.dumps writes it */
		tc_buf_reset(&got);
		assert_int_equal(tc_json_write_hook(&got, ph, 0, fill, &c, &err),
		    0);
		assert_non_null(strstr(tc_buf_cstr(&got), "\"left\":NaN"));
		tc_buf_free(&got);
	}
	tc_json_free(ph);
	tc_json_free(full);
	tc_buf_free(&full_text);
}

/*
 * A streamed write: the sink receives, piece by piece, exactly the text
 * tc_json_write_hook() gives, on a document large enough to need many
 * pieces (an array of big strings and a hooked run of records); a sink
 * that refuses stops the write with its own message; a NaN and a lone
 * surrogate fail it with the writers' messages.
 */
struct sink_ctx {
	tc_buf text;
	size_t pieces, fail_at;	/* fail_at: refuse that piece (0: never) */
};

static int
collect(void *vctx, const char *data, size_t len, tc_error *err)
{
	struct sink_ctx *c = vctx;

	if (++c->pieces == c->fail_at) {
		tc_error_set(err, "disk full");
		return -1;
	}
	assert_true(len > 0);
	tc_buf_add(&c->text, data, len);
	return 0;
}

static bool
many_records(void *vctx, const tc_json *ph, tc_json_emitter *e)
{
	size_t i, n = *(const size_t *)vctx;

	(void)ph;
	tc_json_emit_array_begin(e);
	for (i = 0; i < n; i++) {
		tc_json_emit_object_begin(e);
		tc_json_emit_key(e, "i");
		tc_json_emit_int(e, (int64_t)i);
		tc_json_emit_key(e, "us");
		tc_json_emit_float(e, (double)i / 7.0);
		tc_json_emit_object_end(e);
	}
	tc_json_emit_array_end(e);
	return true;
}

static void
streamed_writes_equal_the_buffered_text(void **state)
{
	static const unsigned flags[] = { 0, TC_JSON_ASCII, TC_JSON_INDENT };
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = tc_json_new_object(), *big = tc_json_new_array();
	char *s = malloc(5000);
	size_t f, i, n = 20000;

	(void)state;
	memset(s, 'x', 4999);
	s[4999] = '\0';
	s[10] = '"';
	for (i = 0; i < 40; i++)
		tc_json_array_push(big, tc_json_new_string(s));
	tc_json_object_set(doc, "big", big);
	tc_json_object_set_null(doc, "recs");
	tc_json_object_set_string(doc, "z", "caf\xc3\xa9");
	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct sink_ctx c = { TC_BUF_INIT, 0, 0 };
		tc_buf want = TC_BUF_INIT;

		assert_int_equal(tc_json_write_hook(&want, doc, flags[f],
		    many_records, &n, &err), 0);
		assert_int_equal(tc_json_write_stream(doc, flags[f],
		    many_records, &n, collect, &c, &err), 0);
		assert_true(c.pieces > 2);
		assert_int_equal(c.text.len, want.len);
		assert_memory_equal(c.text.data, want.data, want.len);
		/* a digest this large is taken by the relay thread too */
		{
			char hw[65], hg[65];

			tc_sha256_hex(want.data, want.len, hw);
			assert_int_equal(tc_json_digest_hook(doc, flags[f],
			    many_records, &n, hg, &err), 0);
			assert_string_equal(hg, hw);
		}
		tc_buf_free(&want);
		tc_buf_free(&c.text);
	}
	/* the sink refuses its third piece: the write stops there */
	{
		struct sink_ctx c = { TC_BUF_INIT, 0, 3 };

		assert_int_equal(tc_json_write_stream(doc, TC_JSON_INDENT,
		    many_records, &n, collect, &c, &err), -1);
		assert_string_equal(tc_error_msg(&err), "disk full");
		assert_int_equal(c.pieces, 3);
		tc_error_clear(&err);
		tc_buf_free(&c.text);
	}
	/* NaN under NO_NAN, and a lone surrogate */
	{
		struct sink_ctx c = { TC_BUF_INIT, 0, 0 };
		tc_json *bad = tc_json_new_array();

		tc_json_array_push(bad, tc_json_new_float(NAN));
		assert_int_equal(tc_json_write_stream(bad, TC_JSON_NO_NAN, NULL,
		    NULL, collect, &c, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    "Out of range float values are not JSON compliant");
		tc_error_clear(&err);
		tc_json_free(bad);
		bad = parse_ok("[\"ab\\ud800\"]");
		assert_int_equal(tc_json_write_stream(bad, 0, NULL, NULL,
		    collect, &c, &err), -1);
		assert_string_equal(tc_error_msg(&err), "'utf-8' codec can't "
		    "encode character '\\ud800' in position 4: surrogates not "
		    "allowed");
		tc_error_clear(&err);
		tc_json_free(bad);
		tc_buf_free(&c.text);
	}
	free(s);
	tc_json_free(doc);
}

/* A placeholder written as three objects that share the members of
 * ctx (an object) through one fragment, each with its own "z" after
 * them. */
static bool
shared_fragment(void *ctx, const tc_json *ph, tc_json_emitter *e)
{
	const tc_json *members = ctx;
	tc_json_fragment f;
	int64_t i;

	(void)ph;
	tc_json_emit_array_begin(e);
	tc_json_fragment_render(&f, e, 1, members);
	for (i = 0; i < 3; i++) {
		tc_json_emit_object_begin(e);
		tc_json_emit_fragment(e, &f);
		tc_json_emit_key(e, "z");
		tc_json_emit_int(e, i);
		tc_json_emit_object_end(e);
	}
	tc_json_fragment_free(&f);
	tc_json_emit_array_end(e);
	return true;
}

/* The document {"a": [members + {"z": i} for i in 0..2], "b": 1} as a
 * tree, and as a placeholder the fragment hook fills. */
static void
fragment_docs(const char *members_json, tc_json **tree, tc_json **hooked)
{
	tc_json *arr = tc_json_new_array();
	int64_t i;

	for (i = 0; i < 3; i++) {
		tc_json *o = parse_ok(members_json);

		tc_json_object_set_int(o, "z", i);
		tc_json_array_push(arr, o);
	}
	*tree = tc_json_new_object();
	tc_json_object_set(*tree, "a", arr);
	tc_json_object_set_int(*tree, "b", 1);
	*hooked = tc_json_new_object();
	tc_json_object_set_null(*hooked, "a");
	tc_json_object_set_int(*hooked, "b", 1);
}

static void
fragments_write_the_members_they_were_rendered_from(void **state)
{
	static const unsigned flags[] = { 0, TC_JSON_ASCII, TC_JSON_INDENT,
	    TC_JSON_INDENT | TC_JSON_ASCII, TC_JSON_NO_NAN | TC_JSON_ASCII };
	static const char members_json[] = "{\"k1\": [1, \"caf\u00e9\", "
	    "\"\\\"q\"], \"k2\": {\"x\": null, \"y\": []}, \"k3\": 2.5, "
	    "\"k4\": {}}";
	tc_error err = TC_ERROR_INIT;
	tc_json *members = parse_ok(members_json), *tree, *hooked;
	size_t f;

	(void)state;
	fragment_docs(members_json, &tree, &hooked);
	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		tc_buf want = TC_BUF_INIT, got = TC_BUF_INIT;
		char hw[65], hg[65];

		assert_int_equal(tc_json_write(&want, tree, flags[f], &err), 0);
		assert_int_equal(tc_json_write_hook(&got, hooked, flags[f],
		    shared_fragment, members, &err), 0);
		assert_string_equal(got.data, want.data);
		tc_sha256_hex(want.data, want.len, hw);
		assert_int_equal(tc_json_digest_hook(hooked, flags[f],
		    shared_fragment, members, hg, &err), 0);
		assert_string_equal(hg, hw);
		tc_buf_free(&want);
		tc_buf_free(&got);
	}
	tc_json_free(members);
	tc_json_free(tree);
	tc_json_free(hooked);

	/* a NaN among the shared members fails the write under NO_NAN, and
	 * a lone surrogate fails it with the whole text's position */
	{
		tc_buf got = TC_BUF_INIT;
		tc_json *nan = tc_json_new_object();

		tc_json_object_set(nan, "k", tc_json_new_float(NAN));
		fragment_docs("{}", &tree, &hooked);
		assert_int_equal(tc_json_write_hook(&got, hooked,
		    TC_JSON_NO_NAN, shared_fragment, nan, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    "Out of range float values are not JSON compliant");
		tc_error_clear(&err);
		assert_int_equal(tc_json_write_hook(&got, hooked, 0,
		    shared_fragment, nan, &err), 0);
		assert_string_equal(got.data, "{\"a\":[{\"k\":NaN,\"z\":0},"
		    "{\"k\":NaN,\"z\":1},{\"k\":NaN,\"z\":2}],\"b\":1}");
		tc_buf_free(&got);
		tc_json_free(nan);
		nan = parse_ok("{\"k\": \"ab\\ud800\"}");
		assert_int_equal(tc_json_write_hook(&got, hooked, 0,
		    shared_fragment, nan, &err), -1);
		/* {"a":[{"k":"ab, then the surrogate: code point 14 */
		assert_string_equal(tc_error_msg(&err), "'utf-8' codec can't "
		    "encode character '\\ud800' in position 14: surrogates not "
		    "allowed");
		tc_error_clear(&err);
		tc_buf_free(&got);
		tc_json_free(nan);
		tc_json_free(tree);
		tc_json_free(hooked);
	}
}

/* Item i of the items test: {"i": i, "s": "<i as text>\u00e9", "v":
 * [i / 7, {}]} built through the emitter (the scratch holds the text). */
static void
item_of(void *ctx, size_t i, tc_json_emitter *e, tc_buf *scratch)
{
	const double *nan_at = ctx;

	tc_buf_reset(scratch);
	tc_buf_printf(scratch, "%zu\xc3\xa9", i);
	tc_json_emit_object_begin(e);
	tc_json_emit_key(e, "i");
	tc_json_emit_int(e, (int64_t)i);
	tc_json_emit_key(e, "s");
	tc_json_emit_string(e, tc_buf_cstr(scratch));
	tc_json_emit_key(e, "v");
	tc_json_emit_array_begin(e);
	tc_json_emit_float(e, (double)i == *nan_at ? NAN : (double)i / 7.0);
	tc_json_emit_object_begin(e);
	tc_json_emit_object_end(e);
	tc_json_emit_array_end(e);
	tc_json_emit_object_end(e);
}

struct items_ctx {
	size_t n;
	double nan_at;
};

static bool
items_hook(void *ctx, const tc_json *ph, tc_json_emitter *e)
{
	const struct items_ctx *c = ctx;

	(void)ph;
	tc_json_emit_items(e, c->n, item_of, (void *)&c->nan_at);
	return true;
}

static tc_json *
items_tree(size_t n)
{
	tc_json *arr = tc_json_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		tc_json *o = tc_json_new_object(), *v = tc_json_new_array();
		char s[32];

		snprintf(s, sizeof(s), "%zu\xc3\xa9", i);
		tc_json_object_set_int(o, "i", (int64_t)i);
		tc_json_object_set_string(o, "s", s);
		tc_json_array_push(v, tc_json_new_float((double)i / 7.0));
		tc_json_array_push(v, tc_json_new_object());
		tc_json_object_set(o, "v", v);
		tc_json_array_push(arr, o);
	}
	return arr;
}

/* The hooked doc written, streamed and digested in flags equals tree's
 * text (a plain write on one thread, a stream and a digest rendering
 * batches on two). */
static void
assert_hooked_forms(const tc_json *tree, const tc_json *doc, unsigned flags,
    tc_json_hook hook, void *ctx)
{
	struct sink_ctx sc = { TC_BUF_INIT, 0, 0 };
	tc_buf want = TC_BUF_INIT, got = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	char hw[65], hg[65];

	assert_int_equal(tc_json_write(&want, tree, flags, &err), 0);
	assert_int_equal(tc_json_write_hook(&got, doc, flags, hook, ctx, &err),
	    0);
	assert_string_equal(got.data, want.data);
	assert_int_equal(tc_json_write_stream(doc, flags, hook, ctx, collect,
	    &sc, &err), 0);
	assert_int_equal(sc.text.len, want.len);
	assert_memory_equal(sc.text.data, want.data, want.len);
	tc_sha256_hex(want.data, want.len, hw);
	assert_int_equal(tc_json_digest_hook(doc, flags, hook, ctx, hg, &err),
	    0);
	assert_string_equal(hg, hw);
	tc_buf_free(&want);
	tc_buf_free(&got);
	tc_buf_free(&sc.text);
}

static void
items_in_batches_write_what_one_thread_writes(void **state)
{
	static const unsigned flags[] = { 0, TC_JSON_ASCII, TC_JSON_INDENT,
	    TC_JSON_INDENT | TC_JSON_ASCII };
	/* none, one batch, a batch and one, an even and an odd count */
	static const size_t counts[] = { 0, 1, 256, 257, 2048, 5000 };
	tc_error err = TC_ERROR_INIT;
	size_t f, c;

	(void)state;
	tc_json_items_threads(1);	/* the second thread, on any machine */
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct items_ctx ic = { counts[c], -1 };
		tc_json *doc = tc_json_new_object(), *tree = tc_json_new_object();

		tc_json_object_set_null(doc, "items");
		tc_json_object_set_int(doc, "z", 1);
		tc_json_object_set(tree, "items", items_tree(counts[c]));
		tc_json_object_set_int(tree, "z", 1);
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			assert_hooked_forms(tree, doc, flags[f], items_hook,
			    &ic);
		tc_json_free(doc);
		tc_json_free(tree);
	}
	/* a NaN in a batch the second thread renders fails the digest */
	{
		struct items_ctx ic = { 5000, 300 };
		tc_json *doc = tc_json_new_object();
		char hg[65];

		tc_json_object_set_null(doc, "items");
		assert_int_equal(tc_json_digest_hook(doc, TC_JSON_NO_NAN,
		    items_hook, &ic, hg, &err), -1);
		assert_string_equal(tc_error_msg(&err),
		    "Out of range float values are not JSON compliant");
		tc_error_clear(&err);
		tc_json_free(doc);
	}
	/* a sink that refuses a piece stops the write, both threads */
	{
		struct items_ctx ic = { 20000, -1 };
		struct sink_ctx sc = { TC_BUF_INIT, 0, 2 };
		tc_json *doc = tc_json_new_object();

		tc_json_object_set_null(doc, "items");
		assert_int_equal(tc_json_write_stream(doc, TC_JSON_INDENT,
		    items_hook, &ic, collect, &sc, &err), -1);
		assert_string_equal(tc_error_msg(&err), "disk full");
		assert_int_equal(sc.pieces, 2);
		tc_error_clear(&err);
		tc_buf_free(&sc.text);
		tc_json_free(doc);
	}
	/* and on the writer's thread alone, the same text */
	tc_json_items_threads(0);
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct items_ctx ic = { counts[c], -1 };
		tc_json *doc = tc_json_new_object(), *tree = tc_json_new_object();

		tc_json_object_set_null(doc, "items");
		tc_json_object_set(tree, "items", items_tree(counts[c]));
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			assert_hooked_forms(tree, doc, flags[f], items_hook,
			    &ic);
		tc_json_free(doc);
		tc_json_free(tree);
	}
	tc_json_items_threads(-1);
}

/* Item i as item_of() writes it, rendered here as text where the form
 * is compact (the way a caller copies repeating parts together). */
static void
item_text_of(void *ctx, size_t i, tc_json_emitter *e, tc_buf *scratch)
{
	unsigned flags = tc_json_emit_flags(e);

	if (flags & TC_JSON_INDENT) {
		item_of(ctx, i, e, scratch);
		return;
	}
	tc_buf_reset(scratch);
	tc_buf_printf(scratch, "{\"i\":%zu,\"s\":\"%zu%s\",\"v\":[", i, i,
	    flags & TC_JSON_ASCII ? "\\u00e9" : "\xc3\xa9");
	tc_json_format_double(scratch, (double)i / 7.0);
	tc_buf_puts(scratch, ",{}]}");
	tc_json_emit_text(e, scratch->data, scratch->len);
}

struct flags_ctx {
	unsigned seen;
	size_t n;
};

static bool
text_items_hook(void *ctx, const tc_json *ph, tc_json_emitter *e)
{
	struct flags_ctx *c = ctx;
	static const double no_nan = -1;

	(void)ph;
	c->seen = tc_json_emit_flags(e);
	tc_json_emit_items(e, c->n, item_text_of, (void *)&no_nan);
	return true;
}

static void
text_items_write_what_the_emitter_writes(void **state)
{
	static const unsigned flags[] = { 0, TC_JSON_ASCII, TC_JSON_NO_NAN,
	    TC_JSON_ASCII | TC_JSON_NO_NAN, TC_JSON_INDENT,
	    TC_JSON_INDENT | TC_JSON_ASCII | TC_JSON_NO_NAN };
	static const size_t counts[] = { 0, 1, 257, 5000 };
	size_t f, c;

	(void)state;
	tc_json_items_threads(1);
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		tc_json *doc = tc_json_new_object(), *tree = tc_json_new_object();

		tc_json_object_set_null(doc, "items");
		tc_json_object_set_int(doc, "z", 1);
		tc_json_object_set(tree, "items", items_tree(counts[c]));
		tc_json_object_set_int(tree, "z", 1);
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			struct flags_ctx fc = { 0, counts[c] };

			assert_hooked_forms(tree, doc, flags[f],
			    text_items_hook, &fc);
			assert_int_equal(fc.seen, flags[f]);
		}
		tc_json_free(doc);
		tc_json_free(tree);
	}
	tc_json_items_threads(-1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writers_match_python_json_dumps),
		cmocka_unit_test(lone_surrogates_fail_utf8_encoding_like_python),
		cmocka_unit_test(no_nan_refuses_every_non_finite_float),
		cmocka_unit_test(built_documents_write_with_sorted_keys),
		cmocka_unit_test(strings_with_nul_bytes_and_long_runs_are_written_whole),
		cmocka_unit_test(hooked_writes_equal_the_tree_they_stand_for),
		cmocka_unit_test(fragments_write_the_members_they_were_rendered_from),
		cmocka_unit_test(items_in_batches_write_what_one_thread_writes),
		cmocka_unit_test(text_items_write_what_the_emitter_writes),
		cmocka_unit_test(streamed_writes_equal_the_buffered_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
