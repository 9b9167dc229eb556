/*
 * map.c - a small open-addressing hash map from strings to counts or
 * indices, so the analyzer keeps one entry per distinct task, name or SK
 * identity instead of one per profiler row.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

static uint64_t
hash(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603);

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static size_t
probe(const struct an_map *m, const char *key)
{
	size_t i = (size_t)hash(key) & (m->cap - 1);

	while (m->keys[i] != NULL && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
grow(struct an_map *m)
{
	struct an_map n;
	size_t i;

	n.cap = m->cap ? 2 * m->cap : 64;
	n.len = m->len;
	n.keys = tc_xcalloc(n.cap, sizeof(*n.keys));
	n.vals = tc_xcalloc(n.cap, sizeof(*n.vals));
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->keys[i] == NULL)
			continue;
		j = probe(&n, m->keys[i]);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = n;
}

size_t *
tc_analysis__map_slot(struct an_map *m, const char *key, bool *created)
{
	size_t i;

	if (2 * (m->len + 1) > m->cap)
		grow(m);
	i = probe(m, key);
	if (created != NULL)
		*created = m->keys[i] == NULL;
	if (m->keys[i] == NULL) {
		m->keys[i] = tc_xstrdup(key);
		m->vals[i] = 0;
		m->len++;
	}
	return &m->vals[i];
}

size_t *
tc_analysis__map_find(const struct an_map *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = probe(m, key);
	return m->keys[i] != NULL ? &m->vals[i] : NULL;
}

void
tc_analysis__map_free(struct an_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
