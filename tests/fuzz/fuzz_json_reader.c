/*
 * fuzz_json_reader.c - libFuzzer target for the JSON reader and writers.
 *
 * Any input: both readers (json.loads and text-file positions) must agree
 * on acceptance and never crash.  On success every writer form must be
 * produced, the ensure_ascii canonical form must parse back to a document
 * with the same canonical bytes, the one-pass tc_json_reformat() must give
 * the bytes and errors of parse + write for every flag set, and clone,
 * equality, repr and pointer lookups must hold up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
require(int cond)
{
	if (!cond)
		abort();
}

static void
check_reformat(const char *text, size_t len, const tc_json *v,
    unsigned flags)
{
	tc_error e1 = TC_ERROR_INIT, e2 = TC_ERROR_INIT;
	tc_buf b1 = TC_BUF_INIT, b2 = TC_BUF_INIT;
	int r1, r2;

	r1 = tc_json_write(&b1, v, flags, &e1);
	r2 = tc_json_reformat(text, len, flags, &b2, &e2);
	require(r1 == r2);
	require(b1.len == b2.len);
	require(b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0);
	require(strcmp(tc_error_msg(&e1), tc_error_msg(&e2)) == 0);
	tc_buf_free(&b1);
	tc_buf_free(&b2);
	tc_error_clear(&e1);
	tc_error_clear(&e2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flag_sets[] = {
		0, TC_JSON_ASCII, TC_JSON_INDENT, TC_JSON_NO_NAN,
		TC_JSON_ASCII | TC_JSON_INDENT | TC_JSON_NO_NAN,
	};
	const char *text = (const char *)data;
	tc_error err = TC_ERROR_INIT, err2 = TC_ERROR_INIT;
	tc_json *v, *tv, *back, *copy;
	tc_buf ascii = TC_BUF_INIT, again = TC_BUF_INIT, repr = TC_BUF_INIT;
	char hex[65];
	size_t i;

	v = tc_json_parse(text, size, &err);
	tv = tc_json_parse_text(text, size, &err2);
	require((v == NULL) == (tv == NULL));
	tc_json_free(tv);
	if (v == NULL) {
		/* the one-pass path fails the same way */
		tc_buf out = TC_BUF_INIT;

		require(tc_json_reformat(text, size, 0, &out, &err2) == -1);
		require(strcmp(tc_error_msg(&err), tc_error_msg(&err2)) == 0);
		tc_buf_free(&out);
		goto done;
	}
	for (i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++)
		check_reformat(text, size, v, flag_sets[i]);
	(void)tc_json_digest(v, hex, &err);
	free(tc_json_pretty(v, NULL, &err));

	require(tc_json_write(&ascii, v, TC_JSON_ASCII, &err) == 0);
	back = tc_json_parse(ascii.data, ascii.len, &err);
	require(back != NULL);
	require(tc_json_write(&again, back, TC_JSON_ASCII, &err) == 0);
	require(ascii.len == again.len);
	require(memcmp(ascii.data, again.data, ascii.len) == 0);
	/* NaN is never equal to itself at the top level (Python rule) */
	require(tc_json_equal(v, back) ||
	    (v->type == TC_JSON_FLOAT && v->u.f != v->u.f));
	copy = tc_json_clone(v);
	require(tc_json_equal(copy, back) ||
	    (v->type == TC_JSON_FLOAT && v->u.f != v->u.f));
	tc_json_free(copy);
	tc_json_free(back);

	tc_json_repr(&repr, v);
	require(tc_json_pointer(v, "", &err) == v);
	(void)tc_json_pointer(v, "/0", &err);
	(void)tc_json_pointer(v, "/a/0/~1", &err);
	tc_json_free(v);
done:
	tc_buf_free(&ascii);
	tc_buf_free(&again);
	tc_buf_free(&repr);
	tc_error_clear(&err);
	tc_error_clear(&err2);
	return 0;
}
