/*
 * pointer.c - RFC 6901 JSON Pointer lookup: "" is the whole document,
 * "/a/0" walks member "a" then array index 0, "~1" stands for "/" and
 * "~0" for "~".  Array indices are "0" or digits without a leading zero;
 * "-" (the element after the last) never resolves.
 */
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* Append "at the root" / "at '/a/b'" for the prefix pointer[0..n). */
static void
where(tc_buf *b, const char *pointer, size_t n)
{
	if (n == 0) {
		tc_buf_puts(b, "the root");
		return;
	}
	tc_buf_puts(b, "the value at ");
	tc_json_repr_string(b, pointer, n);
}

/* "JSON pointer 'P' does not resolve: <where> <what1><arg><what2>" */
static tc_json *
fail(tc_error *err, const char *pointer, size_t prefix, const char *what1,
    const char *arg, const char *what2)
{
	tc_buf b = TC_BUF_INIT;

	tc_buf_puts(&b, "JSON pointer ");
	tc_json_repr_string(&b, pointer, strlen(pointer));
	tc_buf_puts(&b, " does not resolve: ");
	where(&b, pointer, prefix);
	tc_buf_puts(&b, what1);
	tc_buf_puts(&b, arg);
	tc_buf_puts(&b, what2);
	tc_error_set(err, "%s", b.data);
	tc_buf_free(&b);
	return NULL;
}

static tc_json *
malformed(tc_error *err, const char *pointer, const char *why)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_repr_string(&b, pointer, strlen(pointer));
	tc_error_set(err, "invalid JSON pointer %s: %s", b.data, why);
	tc_buf_free(&b);
	return NULL;
}

/* Unescape one reference token (its "~" were checked already). */
static void
unescape(const char *s, size_t n, tc_buf *tok)
{
	size_t i;

	tc_buf_reset(tok);
	tc_buf_grow(tok, n);
	for (i = 0; i < n; i++) {
		if (s[i] == '~') {
			tc_buf_putc(tok, s[i + 1] == '0' ? '~' : '/');
			i++;
		} else {
			tc_buf_putc(tok, s[i]);
		}
	}
}

tc_json *
tc_json_pointer(const tc_json *root, const char *pointer, tc_error *err)
{
	const tc_json *cur = root;
	const char *p;
	tc_buf tok = TC_BUF_INIT, q = TC_BUF_INIT;
	tc_json *res = NULL;

	if (pointer[0] == '\0')
		return (tc_json *)(uintptr_t)root;
	if (pointer[0] != '/')
		return malformed(err, pointer, "must be empty or start with '/'");
	/* Check the whole pointer's syntax before walking it. */
	for (p = pointer; *p != '\0'; p++)
		if (*p == '~' && p[1] != '0' && p[1] != '1')
			return malformed(err, pointer,
			    "'~' must be followed by '0' or '1'");
	p = pointer;
	while (*p == '/') {
		const char *s = p + 1;
		size_t n = strcspn(s, "/");
		size_t prefix = (size_t)(p - pointer);

		unescape(s, n, &tok);
		tc_buf_reset(&q);
		tc_json_repr_string(&q, tok.data, tok.len);
		if (tc_json_is(cur, TC_JSON_OBJECT)) {
			const tc_json *next = tc_json_getn(cur, tok.data, tok.len);

			if (next == NULL) {
				fail(err, pointer, prefix, " has no member ",
				    q.data, "");
				goto out;
			}
			cur = next;
		} else if (tc_json_is(cur, TC_JSON_ARRAY)) {
			size_t idx = 0, i;
			bool ok = tok.len > 0 && (tok.len == 1 ||
			    tok.data[0] != '0');

			if (tok.len == 1 && tok.data[0] == '-') {
				fail(err, pointer, prefix, " is an array and ",
				    q.data, " names the element after its last "
				    "one");
				goto out;
			}
			for (i = 0; ok && i < tok.len; i++) {
				unsigned d = (unsigned)(tok.data[i] - '0');

				if (d > 9)
					ok = false;
				else if (idx > (cur->u.arr.len + 9) / 10)
					idx = cur->u.arr.len; /* too big anyway */
				else
					idx = idx * 10 + d;
			}
			if (!ok) {
				fail(err, pointer, prefix, " is an array and ",
				    q.data, " is not an array index");
				goto out;
			}
			if (idx >= cur->u.arr.len) {
				fail(err, pointer, prefix, " is an array and "
				    "index ", q.data, " is out of range");
				goto out;
			}
			cur = cur->u.arr.items[idx];
		} else {
			fail(err, pointer, prefix, " is of type ",
			    tc_json_type_name(cur != NULL ? cur->type :
			    TC_JSON_NULL), ", not a list or "
			    "dict");
			goto out;
		}
		p = s + n;
	}
	res = (tc_json *)(uintptr_t)cur;
out:
	tc_buf_free(&tok);
	tc_buf_free(&q);
	return res;
}
