/*
 * error.h - the error value every tunectl library call reports through.
 *
 * A function that can fail returns a status (0 / non-NULL on success) and,
 * on failure, stores one human-readable message in a tc_error the caller
 * owns.  Messages quoted by the reference specifications are part of the
 * on-disk and CLI format and are reproduced byte for byte.
 */
#ifndef TUNECTL_ERROR_H
#define TUNECTL_ERROR_H

#include <stdarg.h>

typedef struct tc_error {
	char *msg;		/* NULL when no error is recorded; owned */
} tc_error;

#define TC_ERROR_INIT { NULL }

/* Replace any previous message.  A NULL err is accepted and ignored. */
void tc_error_set(tc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tc_error_vset(tc_error *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Prepend "<prefix>" to the current message (e.g. "cannot load session: "). */
void tc_error_prefix(tc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The message, or "" when none was set. */
const char *tc_error_msg(const tc_error *err);

/* Free the message; the error may be reused afterwards. */
void tc_error_clear(tc_error *err);

#endif
