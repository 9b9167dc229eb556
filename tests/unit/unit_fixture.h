/*
 * unit_fixture.h - what every unit test shares: a fresh temporary
 * directory and its removal (unit_fixture.c, linked into every test
 * binary like case_filter.c).
 */
#ifndef TUNECTL_UNIT_FIXTURE_H
#define TUNECTL_UNIT_FIXTURE_H

#include <stddef.h>

/*
 * A fresh directory "$TMPDIR/tunectl-<name>.XXXXXX" ($TMPDIR or /tmp),
 * mode 0755 (reachable by a test's unprivileged children), named by its
 * real path; malloc'd.  Fails the calling test or fixture when it cannot
 * be made.
 */
char *unit_tmpdir(const char *name);

/* The same into buf, for fixtures that keep the path in a static array. */
void unit_tmpdir_into(char *buf, size_t size, const char *name);

/*
 * Remove dir and everything below it.  Directories a test made
 * unreadable or unwritable are opened up first; symlinks are removed,
 * never followed.  NULL is a no-op.  Returns 0, or -1 when something
 * could not be removed.
 */
int unit_rmtree(const char *dir);

#endif
