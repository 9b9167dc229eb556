/*
 * path.h - path normalisation (Python pathlib semantics) and resolution of
 * untrusted relative paths under an artifact root.
 *
 * Messages that name a path quote it like Python's repr() of a str (the
 * bytes decoded as UTF-8 with surrogateescape), so a path in an error
 * reads exactly as the reference implementation prints it.
 */
#ifndef TUNECTL_PATH_H
#define TUNECTL_PATH_H

#include <stdbool.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"

/* pathlib's str(Path(p)): collapse "//", drop "." components and a
 * trailing "/", keep "..", "" becomes ".".  Exactly two leading slashes
 * are kept ("//a" stays "//a", "///a" becomes "/a"), as pathlib does.
 * malloc'd. */
char *tc_path_normalize(const char *path);

/* Join a and b (b absolute replaces a), then normalise.  malloc'd. */
char *tc_path_join(const char *a, const char *b);

/* Path.resolve(strict=False) of Python 3.11: absolute, symlinks followed
 * where they exist, ".." applied after following, a missing tail kept as
 * written.  malloc'd; NULL only on errors (err set): a symlink loop reads
 * "Symlink loop from '/abs/path'" (pathlib's RuntimeError text), an
 * unreadable link or cwd reads in Python's OSError form. */
char *tc_path_resolve(const char *path, tc_error *err);

/* Path.resolve(strict=True): like tc_path_resolve but every component
 * must exist.  Errors are Python's, with the path spelled as Python
 * builds it (relative inputs stay relative in the message):
 * "[Errno 2] No such file or directory: 'a/missing'",
 * "[Errno 20] Not a directory: 'file/x'", "Symlink loop from 'a/loop'".
 * malloc'd; NULL on error. */
char *tc_path_resolve_strict(const char *path, tc_error *err);

/* tc_path_resolve(base + "/" + rel) for a base that tc_path_resolve
 * returned (absolute, no links, no dots) and a rel without "..": the
 * same answer, without walking base's components again. */
char *tc_path_resolve_below(const char *base, const char *rel,
    tc_error *err);

/* true when path equals root or lies below it (both already resolved;
 * component-wise, so "/a/bc" is not under "/a/b"; every absolute path is
 * within "/"). */
bool tc_path_is_within(const char *path, const char *root);

/* Path(path).relative_to(root) for a path tc_path_is_within(path, root):
 * "a/b", or "." when they are equal.  NULL when path is not within root.
 * malloc'd. */
char *tc_path_relative_to(const char *path, const char *root);

/* The directory part of a path (pathlib parent, computed on the
 * normalised path: "a/b" -> "a", "a" -> ".", "/" -> "/").  malloc'd. */
char *tc_path_dirname(const char *path);
/* The last component (pathlib name) of a NORMALISED path; points into
 * path: "a/b" -> "b", "/" -> "", "." -> "", ".." -> "..".  A path with a
 * trailing '/' must be normalised first. */
const char *tc_path_basename(const char *path);

/* tunectl's state directory, outside every tree its workers write
 * (state_dir.c): $TUNECTL_STATE_DIR, else $XDG_STATE_HOME/tunectl, else
 * $HOME/.local/state/tunectl; NULL when none is set.  malloc'd. */
char *tc_state_dir(void);
/* <state dir>/<area>/<sha256 of key>.json, or NULL without one. */
char *tc_state_file(const char *area, const char *key);
/* tc_state_file(area, the resolved path): what is kept about the file
 * at path (a session); NULL without a state directory or when path
 * cannot be resolved. */
char *tc_state_file_of(const char *area, const char *path);

/* The ledger predicate is_relative_artifact: a string whose Python
 * strip() is non-empty, equal to its strip() (no leading or trailing
 * Unicode whitespace), not starting with '/', without a ".." component.
 * A backslash is an ordinary character. */
bool tc_path_is_relative_artifact(const char *value);

/* Resolve an untrusted relative path under root (which must be an
 * existing directory; it is resolved too).  Refuses, naming label:
 *   NULL/empty/blank   "<label> must be a non-empty relative path"
 *   outer whitespace   "<label> must not begin or end with whitespace: 'v'"
 *   absolute           "<label> must be a relative path inside the artifact root, not an absolute path: 'v'"
 *   ".." component     "<label> must not contain a '..' component: 'v'"
 *   root not a dir     "artifact root must be an existing directory: 'root'"
 *   symlink loop       "<label> cannot be resolved: Symlink loop from '...'"
 *   leaves the root    "<label> escapes the artifact root: 'v' resolves to '/abs'"
 * The checks run in that order.  The target need not exist (pathlib's
 * non-strict resolve); combine with tc_is_regular_file() for evidence
 * that must be an existing file.  On success returns the resolved
 * absolute path (malloc'd). */
char *tc_path_under_root(const char *root, const char *value,
    const char *label, tc_error *err);

/* The reference controller's _path_within(root, path, label): resolve
 * path strictly (a relative path is taken relative to the current
 * directory; join it to root first with tc_path_join when it is relative
 * to root), then require it inside the resolved root and a regular file:
 *   "<label> cannot be read: <Python error of the strict resolve>"
 *   "<label> must be inside the parent artifact root"
 *   "<label> must be a regular file"
 * On success returns the resolved path (malloc'd) and, when rel is not
 * NULL, the path relative to the resolved root (malloc'd, "a/b"). */
char *tc_path_within_strict(const char *root, const char *path,
    const char *label, char **rel, tc_error *err);

/* Append Python's repr() of a filesystem path: bytes decoded as UTF-8
 * with surrogateescape ("\xff" becomes '\udcff'), then str repr. */
void tc_path_repr(tc_buf *out, const char *path);

#endif
