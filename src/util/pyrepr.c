/*
 * pyrepr.c - Python's repr() of a str, for messages: the quote chosen
 * and every escape as CPython's unicode_repr writes them.
 */
#include <stdio.h>
#include <string.h>

#include "text_internal.h"

void
tc_py_repr_str(tc_buf *out, const char *s, size_t len,
    enum tc_utf8_policy policy)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	bool squote = memchr(s, '\'', len) != NULL;
	bool dquote = memchr(s, '"', len) != NULL;
	char quote = squote && !dquote ? '"' : '\'';

	tc_buf_putc(out, quote);
	while (p < end) {
		uint32_t cp;
		size_t n = tc_utf8_decode((const char *)p, (size_t)(end - p), &cp,
		    policy == TC_UTF8_WTF8 ? TC_UTF8_WTF8 : TC_UTF8_ESCAPE);

		if (cp == (uint32_t)quote || cp == '\\') {
			tc_buf_putc(out, '\\');
			tc_buf_putc(out, (char)cp);
		} else if (cp == '\t') {
			tc_buf_add(out, "\\t", 2);
		} else if (cp == '\n') {
			tc_buf_add(out, "\\n", 2);
		} else if (cp == '\r') {
			tc_buf_add(out, "\\r", 2);
		} else if (cp < 0x20 || cp == 0x7f) {
			tc_buf_printf(out, "\\x%02x", (unsigned)cp);
		} else if (cp < 0x7f) {
			tc_buf_putc(out, (char)cp);
		} else if (tc_py_isprintable(cp)) {
			tc_buf_add(out, p, n);
		} else if (cp <= 0xff) {
			tc_buf_printf(out, "\\x%02x", (unsigned)cp);
		} else if (cp <= 0xffff) {
			tc_buf_printf(out, "\\u%04x", (unsigned)cp);
		} else {
			tc_buf_printf(out, "\\U%08x", (unsigned)cp);
		}
		p += n;
	}
	tc_buf_putc(out, quote);
}
