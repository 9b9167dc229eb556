/*
 * error.c - the tc_error message holder.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"

void
tc_error_vset(tc_error *err, const char *fmt, va_list ap)
{
	tc_buf b = TC_BUF_INIT;
	va_list aq;
	int n;

	if (err == NULL)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	tc_buf_grow(&b, (size_t)n);
	vsnprintf(b.data, (size_t)n + 1, fmt, ap);
	b.len = (size_t)n;
	free(err->msg);
	err->msg = tc_buf_detach(&b, NULL);
}

void
tc_error_set(tc_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_error_vset(err, fmt, ap);
	va_end(ap);
}

void
tc_error_prefix(tc_error *err, const char *fmt, ...)
{
	tc_buf b = TC_BUF_INIT;
	va_list ap;
	int n;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		tc_buf_grow(&b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b.data, (size_t)n + 1, fmt, ap);
		va_end(ap);
		b.len = (size_t)n;
	}
	tc_buf_puts(&b, err->msg != NULL ? err->msg : "");
	free(err->msg);
	err->msg = tc_buf_detach(&b, NULL);
}

const char *
tc_error_msg(const tc_error *err)
{
	return err != NULL && err->msg != NULL ? err->msg : "";
}

void
tc_error_clear(tc_error *err)
{
	if (err == NULL)
		return;
	free(err->msg);
	err->msg = NULL;
}
