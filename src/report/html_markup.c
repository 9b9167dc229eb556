/*
 * html_markup.c - the only ways a document's bytes reach the HTML report:
 * as escaped text and as relative links (html_internal.h).
 */
#include <stdint.h>
#include <string.h>

#include "html_internal.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/* Code points a well-formed page cannot carry as they are. */
static bool
unfit(uint32_t cp)
{
	if (cp < 0x20)
		return cp != '\t' && cp != '\n' && cp != '\r';
	return (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff;
}

void
tc_html_text(tc_buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = tc_json_decode_cp(s + i, len - i, &cp);

		switch (cp) {
		case '<': tc_buf_puts(b, "&lt;"); break;
		case '>': tc_buf_puts(b, "&gt;"); break;
		case '&': tc_buf_puts(b, "&amp;"); break;
		case '"': tc_buf_puts(b, "&quot;"); break;
		case '\'': tc_buf_puts(b, "&#39;"); break;
		default:
			/* a lone surrogate or a stray byte (decoded as
			 * U+DC80..U+DCFF) is unfit too */
			if (unfit(cp))
				tc_buf_puts(b, REPLACEMENT);
			else
				tc_buf_add(b, s + i, n);
			break;
		}
		i += n;
	}
}

void
tc_html_cstr(tc_buf *b, const char *s)
{
	if (s != NULL)
		tc_html_text(b, s, strlen(s));
}

void
tc_html_href(tc_buf *b, const char *rel)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	tc_buf_puts(b, "./");
	for (p = (const unsigned char *)rel; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("._~/-", *p) != NULL) {
			tc_buf_putc(b, (char)*p);
		} else {
			tc_buf_putc(b, '%');
			tc_buf_putc(b, hex[*p >> 4]);
			tc_buf_putc(b, hex[*p & 0xf]);
		}
	}
}
