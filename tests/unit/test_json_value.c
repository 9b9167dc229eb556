/*
 * test_json_value.c - the value model: building and editing objects and
 * arrays, clone, typed lookups, Python == (tc_json_equal), Python repr()
 * (tc_json_repr), and RFC 6901 pointers.
 *
 * Expected repr() and == results were produced by /usr/bin/python3 3.11.2
 * on json.loads of the same text.
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

/* ---- building and editing ---------------------------------------------- */

static void
objects_stay_sorted_and_unique_through_edits(void **state)
{
	tc_json *o = tc_json_new_object();
	static const char *keys[] = { "m", "a", "z", "\xc3\xa9", "", "b", "a" };
	tc_json *taken;
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++)
		tc_json_object_set_int(o, keys[i], (int64_t)i);
	assert_int_equal(o->u.obj.len, 6);
	for (i = 1; i < o->u.obj.len; i++)
		assert_true(strcmp(o->u.obj.members[i - 1].key,
		    o->u.obj.members[i].key) < 0);
	assert_string_equal(tc_json_get(o, "a")->u.int_text, "6");
	tc_json_object_setn(o, "k\0x", 3, tc_json_new_null());
	assert_non_null(tc_json_getn(o, "k\0x", 3));
	assert_null(tc_json_get(o, "k"));
	taken = tc_json_object_take(o, "z");
	assert_non_null(taken);
	assert_string_equal(taken->u.int_text, "2");
	tc_json_free(taken);
	assert_null(tc_json_object_take(o, "z"));
	assert_true(tc_json_object_remove(o, "m"));
	assert_false(tc_json_object_remove(o, "m"));
	assert_int_equal(o->u.obj.len, 5);
	assert_null(tc_json_get(o, "m"));
	tc_json_free(o);
}

/* Keys that share their first 8 bytes, end inside them, or hold NUL
 * bytes there: built member by member and parsed, every object is in
 * code point order (bytes, then length) and finds each key and no other.
 * (Lookups compare the first 8 bytes as one word first.) */
static void
keys_sharing_their_first_bytes_sort_and_are_found(void **state)
{
	static const struct {
		const char *k;
		size_t n;
	} keys[] = {
		{ "abcdefgh", 8 }, { "abcdefghi", 9 }, { "abcdefgh\0", 9 },
		{ "abcdefg", 7 }, { "abcdefg\0", 8 }, { "abcdefg\0\0", 9 },
		{ "a", 1 }, { "a\0", 2 }, { "", 0 }, { "abcdefghij", 10 },
		{ "abcdefgha", 9 }, { "abcdefgi", 8 }, { "abcdefghijklmnopq", 17 },
		{ "abcdefghijklmnopr", 17 }, { "abcdefghijklmnop", 16 },
		{ "\xff\xff", 2 }, { "\xff", 1 }, { "b", 1 },
	};
	size_t nk = sizeof(keys) / sizeof(keys[0]), i, j, round;
	tc_buf text = TC_BUF_INIT;

	(void)state;
	tc_buf_puts(&text, "{");
	for (i = nk; i-- > 0;) {
		tc_buf_puts(&text, i + 1 < nk ? ", \"" : "\"");
		for (j = 0; j < keys[i].n; j++)
			tc_buf_printf(&text, "\\u%04x",
			    (unsigned char)keys[i].k[j] < 0x80 ?
			    (unsigned char)keys[i].k[j] : 0xff);
		tc_buf_printf(&text, "\": %zu", i);
	}
	tc_buf_puts(&text, "}");
	for (round = 0; round < 2; round++) {
		tc_json *o;

		if (round == 0) {
			o = tc_json_new_object();
			for (i = 0; i < nk; i++)
				tc_json_object_setn(o, keys[(i * 7) % nk].k,
				    keys[(i * 7) % nk].n,
				    tc_json_new_int((int64_t)((i * 7) % nk)));
		} else {
			/* \u00ff is two bytes in UTF-8: look those keys up so */
			o = parse_ok(text.data);
		}
		assert_int_equal(o->u.obj.len, nk);
		for (i = 1; i < o->u.obj.len; i++) {
			const tc_json_member *a = &o->u.obj.members[i - 1];
			const tc_json_member *b = &o->u.obj.members[i];
			size_t n = a->key_len < b->key_len ? a->key_len :
			    b->key_len;
			int c = memcmp(a->key, b->key, n);

			assert_true(c < 0 || (c == 0 && a->key_len < b->key_len));
		}
		for (i = 0; i < nk && round == 0; i++) {
			const tc_json *v = tc_json_getn(o, keys[i].k, keys[i].n);

			assert_non_null(v);
			assert_int_equal(atoi(v->u.int_text), (int)i);
		}
		for (i = 0; i < nk && round == 1; i++)
			if (keys[i].n == 0 || (unsigned char)keys[i].k[0] < 0x80)
				assert_int_equal(atoi(tc_json_getn(o, keys[i].k,
				    keys[i].n)->u.int_text), (int)i);
		assert_null(tc_json_getn(o, "abcdefg\0\0\0", 10));
		assert_null(tc_json_getn(o, "abcdefgh\0\0", 10));
		assert_null(tc_json_getn(o, "abcdefghijklmno", 15));
		tc_json_free(o);
	}
	tc_buf_free(&text);
}

static void
parsed_objects_can_be_edited(void **state)
{
	tc_json *v = parse_ok("{\"b\": {\"x\": [1, 2]}, \"a\": \"s\", \"c\": 3}");
	tc_json *b = tc_json_object_take(v, "b");
	char *s;

	(void)state;
	tc_json_array_push(tc_json_get_array(b, "x"), tc_json_new_string("t"));
	tc_json_object_set(v, "d", b);
	tc_json_object_set_string(v, "a", "replaced");
	tc_json_object_remove(v, "c");
	s = tc_json_canonical(v, NULL, NULL);
	assert_string_equal(s, "{\"a\":\"replaced\",\"d\":{\"x\":[1,2,\"t\"]}}");
	free(s);
	tc_json_free(v);
}

static void
clone_is_deep_and_equal(void **state)
{
	tc_json *v = parse_ok("{\"a\": [1, 2.5, \"x\\u0000y\", null, true, "
	    "{\"b\": 123456789012345678901234567890}]}");
	tc_json *c = tc_json_clone(v);
	char *s1, *s2;

	(void)state;
	assert_true(tc_json_equal(v, c));
	s1 = tc_json_canonical(v, NULL, NULL);
	s2 = tc_json_canonical(c, NULL, NULL);
	assert_string_equal(s1, s2);
	tc_json_array_push(tc_json_get_array(c, "a"), tc_json_new_int(7));
	assert_false(tc_json_equal(v, c));
	assert_int_equal(tc_json_get_array(v, "a")->u.arr.len, 6);
	free(s1);
	free(s2);
	tc_json_free(v);
	tc_json_free(c);
}

static void
typed_lookups_check_types(void **state)
{
	tc_json *v = parse_ok("{\"s\": \"str\", \"o\": {}, \"a\": [], \"i\": "
	    "-9223372036854775808, \"big\": 9223372036854775808, \"f\": 2.5, "
	    "\"t\": true, \"n\": null}");
	int64_t i;
	double d;

	(void)state;
	assert_string_equal(tc_json_get_string(v, "s"), "str");
	assert_null(tc_json_get_string(v, "o"));
	assert_non_null(tc_json_get_object(v, "o"));
	assert_null(tc_json_get_object(v, "a"));
	assert_non_null(tc_json_get_array(v, "a"));
	assert_null(tc_json_get_array(v, "missing"));
	assert_null(tc_json_get(tc_json_get(v, "s"), "x"));
	assert_true(tc_json_int64(tc_json_get(v, "i"), &i));
	assert_true(i == INT64_MIN);
	assert_false(tc_json_int64(tc_json_get(v, "big"), &i));
	assert_false(tc_json_int64(tc_json_get(v, "t"), &i));
	assert_false(tc_json_int64(tc_json_get(v, "f"), &i));
	assert_true(tc_json_number(tc_json_get(v, "f"), &d) && d == 2.5);
	assert_true(tc_json_number(tc_json_get(v, "big"), &d) &&
	    d == 9223372036854775808.0);
	assert_false(tc_json_number(tc_json_get(v, "t"), &d));
	assert_false(tc_json_number(tc_json_get(v, "n"), &d));
	assert_string_equal(tc_json_type_name(tc_json_get(v, "o")->type), "dict");
	assert_string_equal(tc_json_type_name(TC_JSON_ARRAY), "list");
	assert_string_equal(tc_json_type_name(TC_JSON_STRING), "str");
	assert_string_equal(tc_json_type_name(TC_JSON_INT), "int");
	assert_string_equal(tc_json_type_name(TC_JSON_FLOAT), "float");
	assert_string_equal(tc_json_type_name(TC_JSON_BOOL), "bool");
	assert_string_equal(tc_json_type_name(TC_JSON_NULL), "NoneType");
	tc_json_free(v);
}

/* A parsed document is cut from shared chunks; every node must still be
 * an owner of its own: taken out and kept after the document is freed,
 * grown, edited.  (Under ASan a node that kept a freed chunk fails.) */
static void
parsed_nodes_outlive_their_document(void **state)
{
	tc_json *doc, *kept, *list, *obj, *big;
	tc_buf text = TC_BUF_INIT;
	char *canon;
	size_t i;

	(void)state;
	/* Enough nodes for several chunks, and one array that is a piece
	 * of its own. */
	tc_buf_puts(&text, "{\"z\": 1, \"big\": [");
	for (i = 0; i < 20000; i++)
		tc_buf_printf(&text, "%s{\"k%zu\": \"v%zu\", \"n\": %zu}",
		    i > 0 ? "," : "", i % 7, i, i);
	tc_buf_puts(&text, "], \"list\": [1, \"two\"], \"obj\": {\"b\": 2, "
	    "\"a\": 1, \"b\": 3}, \"kept\": {\"deep\": [\"x\", {\"y\": null}]}}");
	doc = parse_ok(tc_buf_cstr(&text));
	tc_buf_free(&text);

	kept = tc_json_object_take(doc, "kept");
	big = tc_json_object_take(doc, "big");
	list = tc_json_get(doc, "list");
	tc_json_array_push(list, tc_json_new_string("three"));
	tc_json_array_push(list, tc_json_new_int(4));
	obj = tc_json_get(doc, "obj");
	tc_json_object_set_int(obj, "c", 4);		/* grows */
	tc_json_object_set_int(obj, "a", 5);		/* replaces */
	assert_true(tc_json_object_remove(obj, "b"));
	tc_json_free(tc_json_object_take(big->u.arr.items[5], "n"));
	tc_json_array_push(big, tc_json_new_null());

	canon = tc_json_canonical(doc, NULL, NULL);
	assert_string_equal(canon, "{\"list\":[1,\"two\",\"three\",4],"
	    "\"obj\":{\"a\":5,\"c\":4},\"z\":1}");
	free(canon);
	tc_json_free(doc);

	canon = tc_json_canonical(kept, NULL, NULL);
	assert_string_equal(canon, "{\"deep\":[\"x\",{\"y\":null}]}");
	free(canon);
	assert_int_equal(big->u.arr.len, 20001);
	assert_string_equal(tc_json_get_string(big->u.arr.items[19999], "k0"),
	    "v19999");
	assert_null(tc_json_get(big->u.arr.items[5], "n"));
	tc_json_free(big);
	tc_json_free(kept);
}

/* Small documents read one after another share a chunk (a command reads
 * several; a chunk each faulted a page in for each), and each still
 * outlives the other. */
static void
small_documents_share_a_chunk(void **state)
{
	tc_json *a, *b, *c;
	uintptr_t chunk = ~(uintptr_t)(64 * 1024 - 1);

	(void)state;
	a = parse_ok("{\"session\": \"a\", \"steps\": [1, 2, 3]}");
	b = parse_ok("{\"sidecar\": \"b\", \"records\": []}");
	assert_true(((uintptr_t)a & chunk) == ((uintptr_t)b & chunk));
	tc_json_free(a);
	c = parse_ok("[\"c\"]");
	assert_true(((uintptr_t)b & chunk) == ((uintptr_t)c & chunk));
	assert_string_equal(tc_json_get_string(b, "sidecar"), "b");
	tc_json_free(b);
	assert_string_equal(c->u.arr.items[0]->u.str.ptr, "c");
	tc_json_free(c);
}

/* ---- Python == ---------------------------------------------------------- */

static const struct {
	const char *a, *b;
	bool equal;
} equal_cases[] = {
	{ "1", "1.0", true },
	{ "1", "true", true },
	{ "0", "false", true },
	{ "1.0", "true", true },
	{ "2", "true", false },
	{ "0", "-0.0", true },
	{ "-0.0", "0.0", true },
	{ "9007199254740993", "9007199254740992.0", false },
	{ "9007199254740992", "9007199254740992.0", true },
	{ "123456789012345678901234567890", "1.2345678901234568e+29", false },
	{ "123456789012345677877719597056", "1.2345678901234568e+29", true },
	{ "-9223372036854775808", "-9.223372036854776e18", true },
	{ "9223372036854775808", "9.223372036854776e18", true },
	{ "9223372036854775807", "9.223372036854776e18", false },
	{ "1", "1.5", false },
	{ "NaN", "NaN", false },
	{ "[NaN]", "[NaN]", true },
	{ "{\"a\": NaN}", "{\"a\": NaN}", true },
	{ "Infinity", "Infinity", true },
	{ "Infinity", "1e400", true },
	{ "\"a\"", "\"a\"", true },
	{ "\"a\"", "\"b\"", false },
	{ "\"1\"", "1", false },
	{ "null", "null", true },
	{ "null", "false", false },
	{ "[]", "{}", false },
	{ "[1, 2]", "[2, 1]", false },
	{ "[1, 2]", "[1.0, 2.0]", true },
	{ "[1]", "[1, 1]", false },
	{ "{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}", true },
	{ "{\"a\": 1}", "{\"a\": 1, \"b\": 2}", false },
	{ "{\"a\": 1}", "{\"b\": 1}", false },
	{ "{\"a\": [true]}", "{\"a\": [1]}", true },
	{ "\"\\u00e9\"", "\"\\u00e9\"", true },
	{ "\"\\ud800\"", "\"\\ud800\"", true },
	{ "[[[]]]", "[[[]]]", true },
	{ "1e400", "-1e400", false },
	{ "0.1", "0.1", true },
	{ "100000000000000000000", "1e20", true },
	{ "100000000000000000001", "1e20", false },
};

static void
equality_follows_python(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(equal_cases) / sizeof(equal_cases[0]); i++) {
		tc_json *a = parse_ok(equal_cases[i].a);
		tc_json *b = parse_ok(equal_cases[i].b);

		if (tc_json_equal(a, b) != equal_cases[i].equal ||
		    tc_json_equal(b, a) != equal_cases[i].equal)
			print_error("%s == %s should be %d\n", equal_cases[i].a,
			    equal_cases[i].b, equal_cases[i].equal);
		assert_true(tc_json_equal(a, b) == equal_cases[i].equal);
		assert_true(tc_json_equal(b, a) == equal_cases[i].equal);
		tc_json_free(a);
		tc_json_free(b);
	}
}

/* ---- Python repr() ------------------------------------------------------ */

static const struct {
	const char *doc;
	const char *repr;
} repr_cases[] = {
	{ "null", "None" },
	{ "true", "True" },
	{ "false", "False" },
	{ "0", "0" },
	{ "-12345678901234567890", "-12345678901234567890" },
	{ "1.0", "1.0" },
	{ "1e16", "1e+16" },
	{ "1e-05", "1e-05" },
	{ "-0.0", "-0.0" },
	{ "NaN", "nan" },
	{ "Infinity", "inf" },
	{ "-Infinity", "-inf" },
	{ "0.1", "0.1" },
	{ "\"plain\"", "'plain'" },
	{ "\"it's\"", "\"it's\"" },
	{ "\"say \\\"hi\\\"\"", "'say \"hi\"'" },
	{ "\"both ' and \\\"\"", "'both \\' and \"'" },
	{ "\"back\\\\slash\"", "'back\\\\slash'" },
	{ "\"\\t\\n\\r\\u0000\\u001f\\u007f\"", "'\\t\\n\\r\\x00\\x1f\\x7f'" },
	{ "\"\\u0080\\u009f\\u00a0\\u00ad\\u00e9\\u0100\\u2028\\u2029\\u3000\\u4e2d\\ufeff\\uffff\"", "'\\x80\\x9f\\xa0\\xad\xc3\xa9\xc4\x80\\u2028\\u2029\\u3000\xe4\xb8\xad\\ufeff\\uffff'" },
	{ "\"\\ud83d\\ude00\\ud800\\udfff\"", "'\xf0\x9f\x98\x80\\U000103ff'" },
	{ "\"\\udb40\\udc01 \\udb80\\udc00 \\ud83c\\udff3\"", "'\\U000e0001 \\U000f0000 \xf0\x9f\x8f\xb3'" },
	{ "[]", "[]" },
	{ "{}", "{}" },
	{ "[1, \"a\", null, [true]]", "[1, 'a', None, [True]]" },
	{ "{\"a\": 1, \"b\": [{\"c\": \"d\"}]}", "{'a': 1, 'b': [{'c': 'd'}]}" },
	{ "{\"\": \"\"}", "{'': ''}" },
	{ "\"\\u0378\\u05ff\\u0600 \\u061c\"", "'\\u0378\\u05ff\\u0600 \\u061c'" },
};

static void
repr_follows_python(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(repr_cases) / sizeof(repr_cases[0]); i++) {
		tc_json *v = parse_ok(repr_cases[i].doc);
		tc_buf b = TC_BUF_INIT;

		tc_json_repr(&b, v);
		assert_string_equal(tc_buf_cstr(&b), repr_cases[i].repr);
		tc_json_free(v);
		tc_buf_free(&b);
	}
}

static void
repr_string_escapes_invalid_bytes_as_surrogateescape(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
	/* os.fsdecode(b"a\xffb") == "a\udcffb" */
	tc_json_repr_string(&b, "a\xff" "b\xc3", 4);
	assert_string_equal(b.data, "'a\\udcffb\\udcc3'");
	tc_buf_free(&b);
}

/* ---- JSON pointer ------------------------------------------------------- */

static void
pointers_resolve_per_rfc6901(void **state)
{
	tc_json *v = parse_ok("{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, "
	    "\"c%d\": 2, \"e^f\": 3, \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, "
	    "\" \": 7, \"m~n\": 8, \"~1\": 9}");
	static const struct {
		const char *ptr;
		const char *want;	/* canonical form */
	} ok[] = {
		{ "", NULL }, { "/foo", "[\"bar\",\"baz\"]" }, { "/foo/0", "\"bar\"" },
		{ "/foo/1", "\"baz\"" }, { "/", "0" }, { "/a~1b", "1" },
		{ "/c%d", "2" }, { "/e^f", "3" }, { "/g|h", "4" }, { "/i\\j", "5" },
		{ "/k\"l", "6" }, { "/ ", "7" }, { "/m~0n", "8" }, { "/~01", "9" },
	};
	tc_error err = TC_ERROR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		tc_json *r = tc_json_pointer(v, ok[i].ptr, &err);
		char *s;

		assert_non_null(r);
		if (ok[i].want == NULL) {
			assert_ptr_equal(r, v);
			continue;
		}
		s = tc_json_canonical(r, NULL, NULL);
		assert_string_equal(s, ok[i].want);
		free(s);
	}
	tc_json_free(v);
}

static void
pointers_that_do_not_resolve_say_why(void **state)
{
	tc_json *v = parse_ok("{\"a\": {\"b\": [10, 20]}, \"s\": \"x\"}");
	static const struct {
		const char *ptr;
		const char *error;
	} bad[] = {
		{ "a", "invalid JSON pointer 'a': must be empty or start with '/'" },
		{ "/a~", "invalid JSON pointer '/a~': '~' must be followed by '0' or '1'" },
		{ "/a~2", "invalid JSON pointer '/a~2': '~' must be followed by '0' or '1'" },
		{ "/x", "JSON pointer '/x' does not resolve: the root has no member 'x'" },
		{ "/a/c", "JSON pointer '/a/c' does not resolve: the value at '/a' has no member 'c'" },
		{ "/a/b/2", "JSON pointer '/a/b/2' does not resolve: the value at '/a/b' is an array and index '2' is out of range" },
		{ "/a/b/-", "JSON pointer '/a/b/-' does not resolve: the value at '/a/b' is an array and '-' names the element after its last one" },
		{ "/a/b/01", "JSON pointer '/a/b/01' does not resolve: the value at '/a/b' is an array and '01' is not an array index" },
		{ "/a/b/", "JSON pointer '/a/b/' does not resolve: the value at '/a/b' is an array and '' is not an array index" },
		{ "/a/b/+1", "JSON pointer '/a/b/+1' does not resolve: the value at '/a/b' is an array and '+1' is not an array index" },
		{ "/a/b/99999999999999999999999", "JSON pointer '/a/b/99999999999999999999999' does not resolve: the value at '/a/b' is an array and index '99999999999999999999999' is out of range" },
		{ "/s/0", "JSON pointer '/s/0' does not resolve: the value at '/s' is of type str, not a list or dict" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tc_error err = TC_ERROR_INIT;

		assert_null(tc_json_pointer(v, bad[i].ptr, &err));
		assert_string_equal(tc_error_msg(&err), bad[i].error);
		tc_error_clear(&err);
	}
	assert_non_null(tc_json_pointer(v, "/a/b/1", NULL));
	assert_string_equal(tc_json_pointer(v, "/a/b/1", NULL)->u.int_text, "20");
	tc_json_free(v);
}

static void
truthiness_follows_python(void **state)
{
	static const struct {
		const char *json;
		bool truthy;
	} cases[] = {
		{ "null", false }, { "false", false }, { "true", true },
		{ "0", false }, { "-0", false }, { "7", true },
		{ "0.0", false }, { "-0.0", false }, { "0.5", true },
		{ "NaN", true }, { "\"\"", false }, { "\" \"", true },
		{ "[]", false }, { "[0]", true }, { "{}", false },
		{ "{\"a\": null}", true },
	};
	size_t i;

	(void)state;
	assert_false(tc_json_truthy(NULL));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_json *v = tc_json_parse(cases[i].json, strlen(cases[i].json), NULL);

		assert_non_null(v);
		if (tc_json_truthy(v) != cases[i].truthy)
			fail_msg("bool(%s) should be %d", cases[i].json, cases[i].truthy);
		tc_json_free(v);
	}
}

static void
str_is_repr_except_for_strings(void **state)
{
	static const struct {
		const char *json, *str;
	} cases[] = {
		{ "\"it's\"", "it's" }, { "1.0", "1.0" }, { "null", "None" },
		{ "[\"a\", 1e16]", "['a', 1e+16]" }, { "{\"k\": true}", "{'k': True}" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_json *v = tc_json_parse(cases[i].json, strlen(cases[i].json), NULL);
		tc_buf b = TC_BUF_INIT;

		tc_json_str(&b, v);
		assert_string_equal(tc_buf_cstr(&b), cases[i].str);
		tc_buf_free(&b);
		tc_json_free(v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(objects_stay_sorted_and_unique_through_edits),
		cmocka_unit_test(keys_sharing_their_first_bytes_sort_and_are_found),
		cmocka_unit_test(parsed_objects_can_be_edited),
		cmocka_unit_test(parsed_nodes_outlive_their_document),
		cmocka_unit_test(small_documents_share_a_chunk),
		cmocka_unit_test(clone_is_deep_and_equal),
		cmocka_unit_test(typed_lookups_check_types),
		cmocka_unit_test(equality_follows_python),
		cmocka_unit_test(repr_follows_python),
		cmocka_unit_test(repr_string_escapes_invalid_bytes_as_surrogateescape),
		cmocka_unit_test(pointers_resolve_per_rfc6901),
		cmocka_unit_test(pointers_that_do_not_resolve_say_why),
		cmocka_unit_test(truthiness_follows_python),
		cmocka_unit_test(str_is_repr_except_for_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
