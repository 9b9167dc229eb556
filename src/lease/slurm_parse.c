/*
 * slurm_parse.c - reading what Slurm prints: GRES requests ("gpu:2",
 * "gpu:a100:2"), device index lists ("0-1,3"), GRES allocations with
 * their indices ("npu:2(IDX:0-1),gpu:1(IDX:0)") and "Key=value" fields of
 * "scontrol -o" lines.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/slurm.h"

static bool
gres_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' &&
		    s[i] != '.')
			return false;
	return true;
}

int
tc_slurm_gres_parse(const char *spec, char **name, char **type, long *count,
    tc_error *err)
{
	const char *s = spec, *c1, *c2, *num;
	char *end;
	long v;

	*name = *type = NULL;
	*count = 0;
	if (s == NULL)
		goto bad;
	if (strncmp(s, "gres:", 5) == 0 || strncmp(s, "gres/", 5) == 0)
		s += 5;
	if ((c1 = strchr(s, ':')) == NULL || !gres_name_ok(s, (size_t)(c1 - s)))
		goto bad;
	c2 = strchr(c1 + 1, ':');
	if (c2 != NULL && (strchr(c2 + 1, ':') != NULL ||
	    !gres_name_ok(c1 + 1, (size_t)(c2 - c1 - 1))))
		goto bad;
	num = c2 != NULL ? c2 + 1 : c1 + 1;
	if (!isdigit((unsigned char)*num))
		goto bad;
	errno = 0;
	v = strtol(num, &end, 10);
	if (errno != 0 || *end != '\0' || v <= 0 || v > 1024)
		goto bad;
	*name = tc_xstrndup(s, (size_t)(c1 - s));
	if (c2 != NULL)
		*type = tc_xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	*count = v;
	return 0;
bad:
	tc_error_set(err, "invalid --gres value: '%s' (expected "
	    "NAME[:TYPE]:COUNT, e.g. gpu:2)", spec != NULL ? spec : "");
	return -1;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int
tc_slurm_ids_parse(const char *list, long **ids, size_t *n)
{
	const char *p = list;
	long *out = NULL;
	size_t len = 0, i, j;

	*ids = NULL;
	*n = 0;
	if (list == NULL || *list == '\0')
		return -1;
	while (*p != '\0') {
		char *end;
		long lo, hi, v;

		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		lo = strtol(p, &end, 10);
		if (errno != 0)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			hi = strtol(p, &end, 10);
			if (errno != 0 || hi < lo || hi - lo > 65535)
				goto bad;
			p = end;
		}
		for (v = lo; v <= hi; v++) {
			/* no node has more devices; a longer list is hostile */
			if (len >= 65536)
				goto bad;
			/* geometric growth: "0-65535,0-65535,..." is linear */
			if ((len & (len - 1)) == 0)
				out = tc_xrealloc(out, (len ? 2 * len : 1) *
				    sizeof(*out));
			out[len++] = v;
		}
		if (*p == ',')
			p++;
		else if (*p != '\0')
			goto bad;
		else
			break;
		if (*p == '\0')
			goto bad;
	}
	qsort(out, len, sizeof(*out), cmp_long);
	for (i = 0, j = 0; i < len; i++)
		if (j == 0 || out[j - 1] != out[i])
			out[j++] = out[i];
	*ids = out;
	*n = j;
	return 0;
bad:
	free(out);
	return -1;
}

int
tc_slurm_gres_idx(const char *alloc, const char *name, long **ids, size_t *n)
{
	const char *p = alloc;
	size_t nlen = strlen(name);

	*ids = NULL;
	*n = 0;
	if (alloc == NULL)
		return 1;
	while (*p != '\0') {
		const char *start = p, *paren = NULL, *colon;
		int depth = 0;

		/* One entry: up to a ',' outside parentheses. */
		for (; *p != '\0' && !(*p == ',' && depth == 0); p++) {
			if (*p == '(') {
				if (depth++ == 0 && paren == NULL)
					paren = p;
			} else if (*p == ')') {
				depth--;
			}
		}
		colon = strchr(start, ':');
		if (colon != NULL && colon < p && (size_t)(colon - start) == nlen &&
		    strncmp(start, name, nlen) == 0) {
			const char *idx = paren != NULL ? strstr(paren, "IDX:") :
			    NULL;
			char *list;
			size_t l;
			int rc;

			if (idx == NULL || idx > p)
				return -1;
			idx += 4;
			l = strcspn(idx, ")");
			list = tc_xstrndup(idx, l);
			rc = tc_slurm_ids_parse(list, ids, n);
			free(list);
			return rc;
		}
		if (*p == ',')
			p++;
	}
	return 1;
}

char *
tc_slurm_field(const char *line, const char *key)
{
	size_t klen = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') &&
		    p[klen] == '=') {
			const char *v = p + klen + 1;

			return tc_xstrndup(v, strcspn(v, " \t\n"));
		}
		p += klen;
	}
	return NULL;
}
