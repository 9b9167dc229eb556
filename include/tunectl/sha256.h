/*
 * sha256.h - SHA-256 digests through libcrypto (OpenSSL).
 * Every digest tunectl records is lowercase hex without a prefix unless a
 * format says otherwise ("sha256:<hex>" in lease manifests).
 */
#ifndef TUNECTL_SHA256_H
#define TUNECTL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"

#define TC_SHA256_HEX_LEN 64

typedef struct tc_sha256 tc_sha256;	/* opaque streaming context */

/* Aborts (like tc_xmalloc) if libcrypto cannot provide SHA-256. */
tc_sha256 *tc_sha256_new(void);
void tc_sha256_update(tc_sha256 *ctx, const void *data, size_t len);
/* Finish, write 64 hex chars + NUL, and free the context. */
void tc_sha256_final_hex(tc_sha256 *ctx, char hex[TC_SHA256_HEX_LEN + 1]);
/* Free a context without finishing it (NULL is accepted). */
void tc_sha256_free(tc_sha256 *ctx);

void tc_sha256_hex(const void *data, size_t len, char hex[TC_SHA256_HEX_LEN + 1]);

/* Stream a file in constant memory (1 MiB reads, sequential read-ahead
 * advised).  Returns 0, or -1 with err set to
 * "[Errno N] <strerror>: 'PATH'" (Python's OSError form); a directory is
 * "[Errno 21] Is a directory: 'PATH'", a FIFO, socket or device
 * "[Errno 29] Illegal seek: 'PATH'" (opened without blocking, see
 * tc_open_regular_at). */
int tc_sha256_file(const char *path, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

/* The same for name relative to the directory descriptor dirfd, opened
 * with open_flags (TC_OPEN_NOFOLLOW); display names the file in errors. */
int tc_sha256_file_at(int dirfd, const char *name, unsigned open_flags,
    const char *display, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

/* The same for an open descriptor read to EOF (e.g. stdin); name is only
 * used in error messages.  The descriptor is not closed. */
int tc_sha256_fd(int fd, const char *name, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *size_out, tc_error *err);

/*
 * The digest of a directory tree, so that a run set or any other evidence
 * directory can be bound like a file.  The tree's manifest lists every
 * regular file below dir, one line each, sorted bytewise by its path
 * relative to dir:
 *
 *     <sha256 hex>  <relative/path>\n
 *
 * (the line sha256sum prints), and the tree digest is the SHA-256 of that
 * manifest, so anyone can recompute it with standard tools:
 *
 *     cd DIR && find . -type f -printf '%P\n' | LC_ALL=C sort |
 *         xargs -r -d '\n' sha256sum | sha256sum
 *
 * Evidence directories hold plain files only: a symbolic link, FIFO,
 * socket or device anywhere below dir, a name with a newline, carriage
 * return or backslash (which sha256sum would escape), or nesting deeper
 * than 64 levels is refused with a message naming the path.  Every file
 * is opened relative to its directory's descriptor with O_NOFOLLOW and
 * O_NONBLOCK, so a swapped-in symlink or FIFO can neither redirect nor
 * hang the walk.  files_out and bytes_out (when not NULL) get the number
 * of files and their total size.
 */
int tc_sha256_tree(const char *dir, char hex[TC_SHA256_HEX_LEN + 1],
    uint64_t *files_out, uint64_t *bytes_out, tc_error *err);

/* The same walk, also appending the tree's manifest (the sha256sum
 * lines "<hex>  <relative/path>\n", sorted) to manifest. */
int tc_sha256_tree_manifest(const char *dir, char hex[TC_SHA256_HEX_LEN + 1],
    tc_buf *manifest, uint64_t *files_out, uint64_t *bytes_out, tc_error *err);

/*
 * A snapshot of a directory tree, taken to see what changed in it: every
 * entry below dir (directories too), sorted bytewise by relative path,
 * with its kind ('f' regular file, 'd' directory, 'l' symbolic link,
 * 'o' FIFO, socket or device) and a digest: a file's SHA-256, a link's
 * target's, a constant for the others.  Nothing is refused and nothing is
 * followed or opened except regular files (O_NOFOLLOW|O_NONBLOCK), so a
 * tree a hostile worker wrote can be snapshot safely.  Paths in skip
 * (relative, NULL-terminated; NULL for none) are left out with everything
 * below them.  Errors: an unreadable entry, nesting deeper than 64.
 */
typedef struct tc_tree_entry {
	char *rel;
	char kind;
	char hex[TC_SHA256_HEX_LEN + 1];
} tc_tree_entry;

typedef struct tc_tree_snap {
	tc_tree_entry *entries;
	size_t n;
} tc_tree_snap;

int tc_tree_snapshot(const char *dir, const char *const *skip,
    tc_tree_snap *out, tc_error *err);
void tc_tree_snap_free(tc_tree_snap *s);
/* Call changed() for every path added, removed or changed between the
 * two snapshots, in path order; returns how many there were. */
size_t tc_tree_snap_diff(const tc_tree_snap *before,
    const tc_tree_snap *after,
    void (*changed)(const char *rel, void *ctx), void *ctx);

#endif
