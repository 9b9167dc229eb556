/*
 * fileio.h - reading files and writing them atomically and durably.
 *
 * Every file tunectl writes goes through tc_write_atomic(): a temp file
 * ".<name>.<random>.tmp" in the target's directory, write, fsync, rename,
 * fsync the directory.  The temp file is removed on any failure, so a
 * reader sees either the old file or the complete new one.
 */
#ifndef TUNECTL_FILEIO_H
#define TUNECTL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/error.h"
#include "tunectl/json.h"

enum {
	TC_WRITE_EXCLUSIVE = 1 << 0,	/* refuse to replace an existing file */
	TC_WRITE_MKDIRS    = 1 << 1,	/* create missing parent directories */
	TC_WRITE_PRIVATE   = 1 << 2	/* mode 0600 instead of 0666 & ~umask */
};

/* Errors read "[Errno N] <strerror>: 'PATH'" like Python's OSError; an
 * exclusive write over an existing file reads
 * "[Errno 17] File exists: 'PATH'". */
int tc_write_atomic(const char *path, const void *data, size_t len,
    unsigned flags, tc_error *err);

/* Pretty JSON (tc_json_pretty) written atomically. */
int tc_write_json(const char *path, const tc_json *v, unsigned flags,
    tc_error *err);

/* Read a whole file (at most max_bytes; 0 = TC_JSON_MAX_BYTES).  The
 * result is NUL-terminated and malloc'd. */
char *tc_read_file(const char *path, size_t max_bytes, size_t *len,
    tc_error *err);

/* mkdir -p (mode 0777 & ~umask). */
int tc_mkdirs(const char *path, tc_error *err);

/* Helpers for tests: crash-consistency fault injection.  When the
 * environment variable TUNECTL_FAULT_POINT names a boundary
 * ("write", "fsync", "rename", "dirsync") and TUNECTL_FAULT_COUNT=N, the
 * Nth crossing of it raises SIGKILL.  Compiled in only with
 * -DTC_FAULT_INJECTION. */
void tc_fault_point(const char *name);

bool tc_path_exists(const char *path);		/* lstat succeeds */
bool tc_is_regular_file(const char *path);	/* stat (follows) */
bool tc_is_directory(const char *path);		/* stat (follows) */

#endif
