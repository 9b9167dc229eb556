/*
 * test_json_parse_digest.c - tc_json_parse_file_digest() against the two
 * calls it replaces: for every document the digest is tc_json_digest() of
 * the full parse, the tree equals the full parse with the type-only
 * members emptied, and every error is the one tc_json_parse_file() or
 * tc_json_digest() reports.  tc_json_parse_file_items_digest() gives the
 * tree of tc_json_parse_file() and, for each item of one array member,
 * tc_json_digest() of that item (or "" where it leaves the item to the
 * caller).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "tunectl/path.h"
#include "unit_fixture.h"

static char *dir;

static int
setup(void **state)
{
	(void)state;
	dir = unit_tmpdir("parse-digest");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unit_rmtree(dir);
	free(dir);
	return 0;
}

static char *
put_file(const char *name, const char *text, size_t len)
{
	tc_error err = TC_ERROR_INIT;
	char *path = tc_path_join(dir, name);

	assert_int_equal(tc_write_atomic(path, text, len, 0, &err), 0);
	return path;
}

/* The old way: full parse, then the digest of the tree. */
static tc_json *
parse_then_digest(const char *path, char hex[65], tc_error *err)
{
	tc_json *v = tc_json_parse_file(path, err);

	if (v != NULL && tc_json_digest(v, hex, err) != 0) {
		tc_json_free(v);
		return NULL;
	}
	return v;
}

static const char *const none[] = { NULL };
static const char *const decisions[] = { "decisions", NULL };

static void
same_as_parse_then_digest(const char *text, const char *const *type_only)
{
	tc_error e1 = TC_ERROR_INIT, e2 = TC_ERROR_INIT;
	char h1[65] = "", h2[65] = "";
	char *path = put_file("doc.json", text, strlen(text));
	tc_json *full = parse_then_digest(path, h1, &e1);
	tc_json *got = tc_json_parse_file_digest(path, type_only, h2, &e2);

	if (full == NULL) {
		assert_null(got);
		assert_string_equal(tc_error_msg(&e2), tc_error_msg(&e1));
	} else {
		size_t i;

		assert_non_null(got);
		assert_string_equal(h2, h1);
		/* Empty the type-only members of the full tree: then the two
		 * trees must be equal. */
		for (i = 0; type_only[i] != NULL; i++) {
			tc_json *m = (tc_json *)tc_json_get(full, type_only[i]);

			if (tc_json_is(m, TC_JSON_ARRAY))
				tc_json_object_set(full, type_only[i],
				    tc_json_new_array());
			else if (tc_json_is(m, TC_JSON_OBJECT))
				tc_json_object_set(full, type_only[i],
				    tc_json_new_object());
		}
		assert_true(tc_json_equal(got, full));
	}
	tc_json_free(full);
	tc_json_free(got);
	tc_error_clear(&e1);
	tc_error_clear(&e2);
	free(path);
}

static const char *const docs[] = {
	"{\"b\": 1, \"a\": [1.50, 2e3, -0, \"x\"], \"c\": {\"z\": null, \"y\": true}}",
	/* already canonical, pretty, with non-ASCII and escapes */
	"{\n  \"decisions\": [\n    {\n      \"note\": \"\xe6\xb5\x8b \\\"q\\\" \\u00e9\\n\",\n"
	"      \"ok\": false,\n      \"value\": 0.001\n    }\n  ],\n  \"status\": \"ok\"\n}\n",
	/* duplicates: the last one wins, in the tree and in the digest */
	"{\"decisions\": [1, 2], \"x\": 1, \"decisions\": {\"k\": [3]}}",
	"{\"decisions\": [1], \"decisions\": \"now a string\"}",
	"{\"decisions\": 7, \"nested\": {\"decisions\": [1, 2, 3]}}",
	"{\"decisions\": [[[]], {\"decisions\": [1]}], \"after\": [4, {\"a\": 5}]}",
	"[{\"decisions\": [1]}, 2]",
	"\"just a string\"",
	"{\"f\": [NaN, Infinity, -Infinity, 1e400, 5e-324, 0.1, 100000000000000000.0]}",
	"{\"big\": 123456789012345678901234567890, \"neg\": -0.0}",
	/* errors: of the reader, then of the writer */
	"{\"a\": [1, 2,]}",
	"{\"a\": 1} extra",
	"\xef\xbb\xbf{}",
	"{\"a\": \"\xff\"}",
	"{\"decisions\": [\"\\ud800\"]}",
	"{\"s\": \"\\udc00 lone\"}",
	"",
};

static void
digest_and_tree_match_the_full_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		same_as_parse_then_digest(docs[i], none);
		same_as_parse_then_digest(docs[i], decisions);
	}
}

static void
type_only_members_keep_their_type_and_nothing_else(void **state)
{
	static const char text[] = "{\"decisions\": [{\"a\": 1}, 2], "
	    "\"details\": {\"k\": [1]}, \"n\": 5, \"keep\": [1, 2]}";
	static const char *const two[] = { "decisions", "details", "n", NULL };
	tc_error err = TC_ERROR_INIT;
	char hex[65];
	char *path = put_file("t.json", text, sizeof(text) - 1);
	tc_json *v = tc_json_parse_file_digest(path, two, hex, &err);
	const tc_json *d;

	(void)state;
	assert_non_null(v);
	d = tc_json_get(v, "decisions");
	assert_true(tc_json_is(d, TC_JSON_ARRAY));
	assert_int_equal(d->u.arr.len, 0);
	d = tc_json_get(v, "details");
	assert_true(tc_json_is(d, TC_JSON_OBJECT));
	assert_int_equal(d->u.obj.len, 0);
	assert_true(tc_json_is(tc_json_get(v, "n"), TC_JSON_INT));
	assert_int_equal(tc_json_get(v, "keep")->u.arr.len, 2);
	tc_json_free(v);
	free(path);
}

static void
without_a_digest_only_the_tree_is_built(void **state)
{
	static const char text[] = "{\"decisions\": [\"\\ud800\"], \"a\": 1}";
	tc_error err = TC_ERROR_INIT;
	char *path = put_file("n.json", text, sizeof(text) - 1);
	tc_json *v = tc_json_parse_file_digest(path, decisions, NULL, &err);

	(void)state;
	/* the lone surrogate would fail a digest; no digest, no error */
	assert_non_null(v);
	assert_int_equal(tc_json_get(v, "decisions")->u.arr.len, 0);
	tc_json_free(v);
	free(path);
	v = tc_json_parse_file_digest("/nonexistent/x.json", NULL, NULL, &err);
	assert_null(v);
	assert_string_equal(tc_error_msg(&err), "[Errno 2] No such file or "
	    "directory: '/nonexistent/x.json'");
	tc_error_clear(&err);
}

/* The items mode: same tree and errors as tc_json_parse_file(), and
 * every digest it gives is tc_json_digest() of the tree's item. */
static void
same_items_as_parse_then_digest(const char *text, const char *key)
{
	tc_error e1 = TC_ERROR_INIT, e2 = TC_ERROR_INIT;
	tc_json_item_digests d;
	char *path = put_file("items.json", text, strlen(text));
	tc_json *full = tc_json_parse_file(path, &e1);
	tc_json *got = tc_json_parse_file_items_digest(path, key, &d, &e2);
	const tc_json *items = tc_json_get(full, key);
	size_t i;

	if (full == NULL) {
		assert_null(got);
		assert_int_equal(d.n, 0);
		assert_string_equal(tc_error_msg(&e2), tc_error_msg(&e1));
		goto out;
	}
	assert_non_null(got);
	assert_true(tc_json_equal(got, full));
	if (!tc_json_is(items, TC_JSON_ARRAY)) {
		assert_int_equal(d.n, 0);
		goto out;
	}
	assert_int_equal(d.n, items->u.arr.len);
	for (i = 0; i < d.n; i++) {
		const tc_json *it = items->u.arr.items[i];
		char hex[65];

		if (d.hex[i][0] == '\0') {
			/* left to the caller: a scalar, or an item whose
			 * digest is worded otherwise */
			continue;
		}
		assert_true(tc_json_is(it, TC_JSON_OBJECT) ||
		    tc_json_is(it, TC_JSON_ARRAY));
		assert_int_equal(tc_json_digest(it, hex, NULL), 0);
		assert_string_equal(d.hex[i], hex);
	}
out:
	tc_json_item_digests_free(&d);
	tc_json_free(full);
	tc_json_free(got);
	tc_error_clear(&e1);
	tc_error_clear(&e2);
	free(path);
}

static const char *const item_docs[] = {
	"{\"records\": [{\"seq\": 0, \"b\": [1, {\"z\": 2, \"a\": 1}]}, "
	"{\"a\": \"\xe6\xb5\x8b \\\"q\\\" \\u00e9\", \"f\": 1.50}], \"schema\": 1}",
	/* pretty and sorted, as the sidecar is written */
	"{\n  \"records\": [\n    {\n      \"kind\": \"init\",\n"
	"      \"prev_sha256\": null,\n      \"seq\": 0\n    },\n    {\n"
	"      \"manifests\": [\n        {\n          \"artifacts\": []\n"
	"        }\n      ],\n      \"seq\": 1\n    }\n  ]\n}\n",
	/* scalars and arrays among the items */
	"{\"records\": [1, \"s\", null, [3, {\"b\": 1, \"a\": 2}], {}]}",
	/* duplicates: the last member wins, inside an item and at the root */
	"{\"records\": [{\"k\": 1, \"k\": 2}], \"records\": [{\"x\": 0}]}",
	"{\"records\": [{\"x\": 0}], \"records\": {\"a\": [{\"y\": 1}]}}",
	"{\"records\": [{\"x\": 0}], \"records\": 5}",
	"{\"other\": [{\"x\": 0}], \"nested\": {\"records\": [{\"y\": 1}]}}",
	"[{\"records\": [{\"x\": 0}]}]",
	/* what tc_json_digest() words otherwise: left to the caller */
	"{\"records\": [{\"f\": NaN}, {\"s\": \"\\ud800\"}, {\"ok\": 1}]}",
	"{\"records\": [{\"big\": 123456789012345678901234567890, "
	"\"e\": 1e400, \"t\": 5e-324}]}",
	/* reading errors */
	"{\"records\": [{\"a\": 1},]}",
	"{\"records\": []} extra",
	"",
};

static void
item_digests_match_the_digest_of_each_item(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(item_docs) / sizeof(item_docs[0]); i++)
		same_items_as_parse_then_digest(item_docs[i], "records");
}

static void
item_digests_are_taken_for_plain_items(void **state)
{
	static const char text[] = "{\"records\": [{\"b\": 1, \"a\": 2}, 3, "
	    "{\"f\": NaN}]}";
	tc_error err = TC_ERROR_INIT;
	tc_json_item_digests d;
	char *path = put_file("plain.json", text, sizeof(text) - 1);
	tc_json *v = tc_json_parse_file_items_digest(path, "records", &d, &err);
	tc_json *one = tc_json_parse("{\"a\":2,\"b\":1}", 13, &err);
	char hex[65];

	(void)state;
	assert_non_null(v);
	assert_int_equal(d.n, 3);
	assert_int_equal(tc_json_digest(one, hex, NULL), 0);
	assert_string_equal(d.hex[0], hex);
	assert_string_equal(d.hex[1], "");
	assert_string_equal(d.hex[2], "");
	tc_json_item_digests_free(&d);
	tc_json_free(one);
	tc_json_free(v);
	free(path);
	v = tc_json_parse_file_items_digest("/nonexistent/x.json", "records",
	    &d, &err);
	assert_null(v);
	assert_int_equal(d.n, 0);
	assert_string_equal(tc_error_msg(&err), "[Errno 2] No such file or "
	    "directory: '/nonexistent/x.json'");
	tc_error_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(digest_and_tree_match_the_full_parse),
		cmocka_unit_test(type_only_members_keep_their_type_and_nothing_else),
		cmocka_unit_test(without_a_digest_only_the_tree_is_built),
		cmocka_unit_test(item_digests_match_the_digest_of_each_item),
		cmocka_unit_test(item_digests_are_taken_for_plain_items),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
