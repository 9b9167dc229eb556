/*
 * buf.c - growable byte buffers and aborting allocation wrappers.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"

static void
oom(size_t n)
{
	fprintf(stderr, "tunectl: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
tc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
tc_xcalloc(size_t count, size_t n)
{
	void *p = calloc(count ? count : 1, n ? n : 1);

	if (p == NULL)
		oom(count * n);
	return p;
}

void *
tc_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return q;
}

char *
tc_xstrdup(const char *s)
{
	return tc_xstrndup(s, strlen(s));
}

char *
tc_xstrndup(const char *s, size_t n)
{
	char *p = tc_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Append the formatted text; -1 (b unchanged) when fmt cannot be
 * formatted. */
static int buf_vprintf(tc_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Formatted once into the room the buffer has, and a second time only
 * when the text is longer: printf is a good part of what a small command
 * computes (paths, messages), and measuring every text first doubled
 * it. */
static int
buf_vprintf(tc_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	size_t room;
	int n;

	/* Room for a line first: output that does not fit is formatted
	 * twice (status' step table, the reports' numbers). */
	tc_buf_grow(b, 255);
	room = b->cap - b->len;
	va_copy(again, ap);
	n = vsnprintf(b->data + b->len, room, fmt, again);
	va_end(again);
	if (n < 0) {
		b->data[b->len] = '\0';
		return -1;
	}
	if ((size_t)n >= room) {
		tc_buf_grow(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
	return 0;
}

/* Short texts (most are paths) are formatted on the stack and copied at
 * their size. */
char *
tc_xasprintf(const char *fmt, ...)
{
	char small[256];
	tc_buf b = TC_BUF_INIT;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(small))
		return tc_xstrndup(small, (size_t)n);
	if (n >= 0)
		tc_buf_grow(&b, (size_t)n);
	va_start(ap, fmt);
	rc = buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (rc != 0)
		oom(0);
	return tc_buf_detach(&b, NULL);
}

void
tc_buf_init(tc_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void
tc_buf_free(tc_buf *b)
{
	free(b->data);
	tc_buf_init(b);
}

void
tc_buf_reset(tc_buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

void
tc_buf_grow(tc_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t cap;

	if (need < b->len)
		oom(SIZE_MAX);
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	if (b->data == NULL) {
		/* a buffer never written is still the empty string */
		b->data = tc_xrealloc(NULL, cap);
		b->data[0] = '\0';
	} else {
		b->data = tc_xrealloc(b->data, cap);
	}
	b->cap = cap;
}

void
tc_buf_add(tc_buf *b, const void *data, size_t len)
{
	tc_buf_grow(b, len);
	if (len > 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void
tc_buf_puts(tc_buf *b, const char *s)
{
	tc_buf_add(b, s, strlen(s));
}

void
tc_buf_putc(tc_buf *b, char c)
{
	tc_buf_grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void
tc_buf_printf(tc_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *
tc_buf_detach(tc_buf *b, size_t *len)
{
	char *p;

	if (b->data == NULL)
		tc_buf_grow(b, 0);
	if (b->len == 0)
		b->data[0] = '\0';
	p = b->data;
	if (len != NULL)
		*len = b->len;
	tc_buf_init(b);
	return p;
}

const char *
tc_buf_cstr(const tc_buf *b)
{
	return b->data != NULL ? b->data : "";
}
