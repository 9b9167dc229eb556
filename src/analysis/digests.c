/*
 * digests.c - the SHA-256 of the files one analysis has read, by the
 * file's identity (device, inode, size, modification and change
 * times): a profile the run hashes while reading it, then finds again in
 * a collection manifest, then reads once more, is hashed once.
 *
 * An identity is noted only when it is the same before and after the
 * hash (a file written meanwhile is not noted), and a file found again
 * with another identity is hashed again.  What this cannot see is a
 * rewrite in place that keeps the size within one tick of the clock
 * that stamps the change time; the profiles an analysis reads were
 * written before it started.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"

/* the same file, unchanged as far as its stat tells */
static bool
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

bool
tc_analysis__digest_known(const struct an_digests *m, const struct stat *st,
    char hex[65])
{
	size_t i;

	if (m == NULL || !S_ISREG(st->st_mode))
		return false;
	for (i = 0; i < m->n; i++)
		if (same_stat(&m->d[i].st, st)) {
			memcpy(hex, m->d[i].hex, 65);
			return true;
		}
	return false;
}

void
tc_analysis__digest_note(struct an_digests *m, const struct stat *before,
    int fd, const char hex[65])
{
	struct an_file_digest *d;
	struct stat after;

	if (m == NULL || !S_ISREG(before->st_mode) || fstat(fd, &after) != 0 ||
	    !same_stat(before, &after) ||
	    tc_analysis__digest_known(m, before, (char[65]){ 0 }))
		return;
	if (m->n == AN_DIGESTS_MAX)	/* the oldest gives way */
		memmove(&m->d[0], &m->d[1], (AN_DIGESTS_MAX - 1) *
		    sizeof(m->d[0]));
	else
		m->n++;
	d = &m->d[m->n - 1];
	d->st = *before;
	memcpy(d->hex, hex, 65);
}

int
tc_analysis__file_digest(struct an_digests *m, const char *path,
    char hex[65], tc_error *err)
{
	struct stat st;
	int fd, rc = 0;

	if ((fd = tc_open_regular_stat_at(AT_FDCWD, path, 0, &st)) < 0) {
		tc_error_os(err, errno, path);
		return -1;
	}
	if (!tc_analysis__digest_known(m, &st, hex)) {
		rc = tc_sha256_fd(fd, path, hex, NULL, err);
		if (rc == 0)
			tc_analysis__digest_note(m, &st, fd, hex);
	}
	close(fd);
	return rc;
}
