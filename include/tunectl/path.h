/*
 * path.h - path normalisation (Python pathlib semantics) and resolution of
 * untrusted relative paths under an artifact root.
 */
#ifndef TUNECTL_PATH_H
#define TUNECTL_PATH_H

#include <stdbool.h>

#include "tunectl/error.h"

/* pathlib's str(Path(p)): collapse "//", drop "." components and a
 * trailing "/", keep "..", "" becomes ".".  malloc'd. */
char *tc_path_normalize(const char *path);

/* Join a and b (b absolute replaces a), then normalise.  malloc'd. */
char *tc_path_join(const char *a, const char *b);

/* Path.resolve(strict=False): absolute, symlinks followed where they
 * exist, ".." applied after following.  malloc'd; NULL only on errors
 * such as a symlink loop (err set). */
char *tc_path_resolve(const char *path, tc_error *err);

/* true when path equals root or lies below it (both already resolved;
 * component-wise, so "/a/bc" is not under "/a/b"). */
bool tc_path_is_within(const char *path, const char *root);

/* The directory part / last component of a path (pathlib parent/name).
 * malloc'd. */
char *tc_path_dirname(const char *path);
const char *tc_path_basename(const char *path);

/* Resolve an untrusted relative path under root (which must exist).
 * Refuses, with a message naming label: an empty value, an absolute path,
 * a ".." component, and any path whose resolution (symlinks followed)
 * leaves root.  On success returns the resolved absolute path. */
char *tc_path_under_root(const char *root, const char *value,
    const char *label, tc_error *err);

#endif
