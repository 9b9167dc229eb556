/*
 * unit_fixture.c - the temporary-directory fixture every unit test uses
 * (unit_fixture.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "unit_fixture.h"

void
unit_tmpdir_into(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	char *templ = tc_xasprintf("%s/tunectl-%s.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp", name);
	char resolved[PATH_MAX] = "";

	if (mkdtemp(templ) == NULL || chmod(templ, 0755) != 0 ||
	    realpath(templ, resolved) == NULL ||
	    strlen(resolved) >= size) {
		int e = errno;

		fail_msg("cannot make a temporary directory %s: %s", templ,
		    strerror(e));
		free(templ);
		return;
	}
	free(templ);
	memcpy(buf, resolved, strlen(resolved) + 1);
}

char *
unit_tmpdir(const char *name)
{
	char buf[PATH_MAX];

	unit_tmpdir_into(buf, sizeof(buf), name);
	return tc_xstrdup(buf);
}

/* Remove name (in directory at) and, for a directory, all below it. */
static int
remove_at(int at, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0);
	if ((st.st_mode & 0700) != 0700) {
		/* a failure shows when the directory cannot be opened below */
		int ignored = fchmodat(at, name, (st.st_mode & 07777) | 0700, 0);

		(void)ignored;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (remove_at(dirfd(dir), de->d_name) != 0)
			rc = -1;
	}
	closedir(dir);
	if (unlinkat(at, name, AT_REMOVEDIR) != 0)
		rc = -1;
	return rc;
}

int
unit_rmtree(const char *dir)
{
	if (dir == NULL)
		return 0;
	return remove_at(AT_FDCWD, dir);
}
