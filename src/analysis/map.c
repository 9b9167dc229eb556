/*
 * map.c - small open-addressing hash maps from strings, or from pairs
 * of numbers, to counts or indices, so the analyzer keeps one entry per
 * distinct task, name or SK identity instead of one per profiler row.
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

/* ---- maps keyed by a pair of 64-bit numbers --------------------------- */

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^ b;

	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	return h ^ (h >> 31);
}

static size_t
nprobe(const struct an_nmap *m, uint64_t a, uint64_t b)
{
	size_t i = (size_t)mix(a, b) & (m->cap - 1);

	while (m->used[i] && (m->ka[i] != a || m->kb[i] != b))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
ngrow(struct an_nmap *m)
{
	struct an_nmap n;
	size_t i;

	n.cap = m->cap ? 2 * m->cap : 64;
	n.len = m->len;
	n.ka = tc_xcalloc(n.cap, sizeof(*n.ka));
	n.kb = tc_xcalloc(n.cap, sizeof(*n.kb));
	n.vals = tc_xcalloc(n.cap, sizeof(*n.vals));
	n.used = tc_xcalloc(n.cap, sizeof(*n.used));
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->used[i])
			continue;
		j = nprobe(&n, m->ka[i], m->kb[i]);
		n.ka[j] = m->ka[i];
		n.kb[j] = m->kb[i];
		n.vals[j] = m->vals[i];
		n.used[j] = 1;
	}
	tc_analysis__nmap_free(m);
	*m = n;
}

size_t *
tc_analysis__nmap_slot(struct an_nmap *m, uint64_t a, uint64_t b,
    bool *created)
{
	size_t i;

	if (2 * (m->len + 1) > m->cap)
		ngrow(m);
	i = nprobe(m, a, b);
	if (created != NULL)
		*created = !m->used[i];
	if (!m->used[i]) {
		m->used[i] = 1;
		m->ka[i] = a;
		m->kb[i] = b;
		m->vals[i] = 0;
		m->len++;
	}
	return &m->vals[i];
}

size_t *
tc_analysis__nmap_find(const struct an_nmap *m, uint64_t a, uint64_t b)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = nprobe(m, a, b);
	return m->used[i] ? &m->vals[i] : NULL;
}

void
tc_analysis__nmap_free(struct an_nmap *m)
{
	free(m->ka);
	free(m->kb);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

uint64_t
tc_analysis__num_key(double v)
{
	uint64_t k;

	if (v == 0)
		v = 0;		/* -0.0 is 0.0 */
	memcpy(&k, &v, sizeof(k));
	return k;
}
