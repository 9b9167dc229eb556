/*
 * envcheck_internal.h - the probes env-check runs: finding a program in
 * PATH and capturing a short command's output under a timeout.
 */
#ifndef TUNECTL_ENVCHECK_INTERNAL_H
#define TUNECTL_ENVCHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* The absolute path of an executable named name in $PATH, or NULL
 * (malloc'd).  A name containing '/' is checked as is. */
char *tc_envcheck__which(const char *name);

/*
 * Run argv (argv[0] a path) with stdin from /dev/null, stdout and stderr
 * captured together (at most 1 MiB), for at most timeout_s seconds (then
 * its process group is killed).  Returns the output (malloc'd, NUL-
 * terminated) and *status: the exit status, -signal, or -1000 when it
 * could not start or timed out.
 */
char *tc_envcheck__capture(char *const *argv, double timeout_s, int *status);

#endif
