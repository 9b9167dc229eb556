/*
 * walk.c - finding the analyzer's inputs under a directory as pathlib's
 * rglob does (Python 3.11): every directory below the root that is not a
 * symbolic link, the matches sorted component by component, and the
 * spelling of a path as str(Path(p)) gives it.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/path.h"

void
tc_analysis__path_split(const char *path, struct an_parts *out)
{
	const char *s = path, *e;

	out->p = NULL;
	out->n = 0;
	while (*s != '\0') {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchr(s, '/');
		if (e == NULL)
			e = s + strlen(s);
		out->p = tc_xrealloc(out->p, (out->n + 1) * sizeof(*out->p));
		out->p[out->n++] = tc_xstrndup(s, (size_t)(e - s));
		s = e;
	}
}

void
tc_analysis__parts_free(struct an_parts *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->p[i]);
	free(x->p);
	x->p = NULL;
	x->n = 0;
}

char *
tc_analysis__py_path(const char *p)
{
	return tc_path_normalize(p);
}

static char *
child_path(const char *dir, const char *name)
{
	if (strcmp(dir, ".") == 0)
		return tc_xstrdup(name);
	if (dir[strlen(dir) - 1] == '/')
		return tc_xasprintf("%s%s", dir, name);
	return tc_xasprintf("%s/%s", dir, name);
}

static bool
name_matches(const char *pattern, const char *name)
{
	const char *star = strchr(pattern, '*');
	size_t pl, sl, nl = strlen(name);

	if (star == NULL)
		return strcmp(pattern, name) == 0;
	pl = (size_t)(star - pattern);
	sl = strlen(star + 1);
	return nl >= pl + sl && strncmp(name, pattern, pl) == 0 &&
	    strcmp(name + nl - sl, star + 1) == 0;
}

static void
push(struct an_paths *out, char *p)
{
	out->items = tc_xrealloc(out->items, (out->len + 1) *
	    sizeof(*out->items));
	out->items[out->len++] = p;
}

static void
walk(const char *dir, const char *pattern, bool exact, struct an_paths *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct an_paths subdirs = { NULL, 0 };
	size_t i;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *p;
		struct stat st, lst;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		p = child_path(dir, de->d_name);
		if (name_matches(pattern, de->d_name) &&
		    (!exact || stat(p, &st) == 0))
			push(out, tc_xstrdup(p));
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
		    lstat(p, &lst) == 0 && !S_ISLNK(lst.st_mode))
			push(&subdirs, p);
		else
			free(p);
	}
	closedir(d);
	for (i = 0; i < subdirs.len; i++)
		walk(subdirs.items[i], pattern, exact, out);
	tc_analysis__paths_free(&subdirs);
}

/* pathlib orders paths by their parts. */
static int
cmp_parts(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	for (;;) {
		size_t lx = strcspn(x, "/"), ly = strcspn(y, "/");
		size_t l = lx < ly ? lx : ly;
		int c = memcmp(x, y, l);

		if (c != 0)
			return c;
		if (lx != ly)
			return lx < ly ? -1 : 1;
		if (x[lx] == '\0' || y[ly] == '\0')
			return (x[lx] != '\0') - (y[ly] != '\0');
		x += lx + 1;
		y += ly + 1;
	}
}

int
tc_analysis__rglob(const char *root, const char *pattern, struct an_paths *out,
    tc_error *err)
{
	char *base = tc_analysis__py_path(root);
	struct stat st;

	(void)err;
	memset(out, 0, sizeof(*out));
	if (stat(base, &st) == 0 && S_ISDIR(st.st_mode))
		walk(base, pattern, strchr(pattern, '*') == NULL, out);
	free(base);
	if (out->len > 1)
		qsort(out->items, out->len, sizeof(*out->items), cmp_parts);
	return 0;
}

void
tc_analysis__paths_free(struct an_paths *p)
{
	size_t i;

	for (i = 0; i < p->len; i++)
		free(p->items[i]);
	free(p->items);
	p->items = NULL;
	p->len = 0;
}
