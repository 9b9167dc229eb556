/*
 * buf.h - growable byte buffers and the allocation wrappers.
 *
 * Allocation failure is not a recoverable condition in a command-line
 * controller: the x* wrappers print one line and abort, so callers never
 * carry out-of-memory paths.
 */
#ifndef TUNECTL_BUF_H
#define TUNECTL_BUF_H

#include <stddef.h>

void *tc_xmalloc(size_t n);
void *tc_xcalloc(size_t count, size_t n);
void *tc_xrealloc(void *p, size_t n);
char *tc_xstrdup(const char *s);
char *tc_xstrndup(const char *s, size_t n);
/* malloc'd printf result */
char *tc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

typedef struct tc_buf {
	char *data;		/* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
} tc_buf;

#define TC_BUF_INIT { NULL, 0, 0 }

void tc_buf_init(tc_buf *b);
void tc_buf_free(tc_buf *b);
void tc_buf_reset(tc_buf *b);			/* len = 0, keep memory */
void tc_buf_grow(tc_buf *b, size_t extra);	/* ensure room for extra bytes + NUL */
void tc_buf_add(tc_buf *b, const void *data, size_t len);
void tc_buf_puts(tc_buf *b, const char *s);
void tc_buf_putc(tc_buf *b, char c);
void tc_buf_printf(tc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hand the storage to the caller (never NULL; "" for an empty buffer). */
char *tc_buf_detach(tc_buf *b, size_t *len);
/* The contents as a C string (never NULL). */
const char *tc_buf_cstr(const tc_buf *b);

#endif
