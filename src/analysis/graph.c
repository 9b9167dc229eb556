/*
 * graph.c - the candidate's origin graph (sk_graph_origin JSON) as the
 * structural association reads it: the operator token and core family of
 * a launch name or node type, the graph's nodes, streams and edges, and
 * its canonical fingerprint (profile_origin_graph_fingerprint), a
 * colour-refinement hash of every node over its stream position and its
 * stream-order and event edges, with the streams put in a canonical order
 * so that the fingerprint does not depend on how streams were numbered.
 *
 * The canonical stream order, symmetric streams included, is
 * graph_streams.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* text[i..] starts with word, ASCII case ignored */
static bool
starts_nocase(const char *t, size_t i, size_t n, const char *word)
{
	size_t k, l = strlen(word);

	if (i + l > n)
		return false;
	for (k = 0; k < l; k++)
		if (lower(t[i + k]) != word[k])
			return false;
	return true;
}

/* One of the communication tokens at t[i..], bounded by "_" or the ends:
 * all_?reduce, all_?gather, reduce_?scatter, all_?to_?all, communication.
 * Returns its length or 0. */
static size_t
comm_at(const char *t, size_t i, size_t n)
{
	static const char *const words[] = { "allreduce", "all_reduce",
	    "allgather", "all_gather", "reducescatter", "reduce_scatter",
	    "alltoall", "all_toall", "allto_all", "all_to_all",
	    "communication" };
	size_t k;

	if (i > 0 && t[i - 1] != '_')
		return 0;
	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		size_t l = strlen(words[k]);

		if (starts_nocase(t, i, n, words[k]) &&
		    (i + l == n || t[i + l] == '_'))
			return l;
	}
	return 0;
}

static bool
has_comm(const char *t)
{
	size_t n = strlen(t), i;

	for (i = 0; i < n; i++)
		if (comm_at(t, i, n))
			return true;
	return false;
}

const char *
tc_analysis__canonical_core_family(const char *text)
{
	char buf[128];
	size_t a, e, i, n;

	if (text == NULL)
		return "UNKNOWN";
	tc_py_strip(text, strlen(text), &a, &e);
	n = e - a < sizeof(buf) - 1 ? e - a : sizeof(buf) - 1;
	for (i = 0; i < n; i++) {
		char c = text[a + i];

		buf[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
	}
	buf[n] = '\0';
	if (strcmp(buf, "AIV_ONLY") == 0 || strcmp(buf, "AI_VECTOR_CORE") == 0 ||
	    strcmp(buf, "MIX_AIV") == 0)
		return "AI_VECTOR_CORE";
	if (strcmp(buf, "AIC_ONLY") == 0 || strcmp(buf, "AI_CORE") == 0 ||
	    strcmp(buf, "MIX_AIC") == 0 || strcmp(buf, "MIX_1_1") == 0 ||
	    strcmp(buf, "MIX_1_2") == 0)
		return "AI_CORE";
	if (strcmp(buf, "WAIT") == 0 || strcmp(buf, "NOTIFY") == 0 ||
	    strcmp(buf, "RESET") == 0 || strncmp(buf, "EVENT", 5) == 0 ||
	    strncmp(buf, "MODEL", 5) == 0)
		return "CONTROL";
	if (strcmp(buf, "COMMUNICATION") == 0 || has_comm(buf))
		return "COMMUNICATION";
	return "UNKNOWN";
}

/* Remove [a, b) from the text held in t (length *n). */
static void
cut(char *t, size_t *n, size_t a, size_t b)
{
	memmove(t + a, t + b, *n - b + 1);
	*n -= b - a;
}

static void
strip_py(char *t, size_t *n)
{
	size_t a, e;

	tc_py_strip(t, *n, &a, &e);
	memmove(t, t + a, e - a);
	t[e - a] = '\0';
	*n = e - a;
}

/* One pass of the suffix rules; true when something was removed. */
static bool
suffix_pass(char *t, size_t *n)
{
	size_t before = *n, i, j;

	/* (_\d+_d\d+)?(__kernel\d+)? at the end */
	i = *n;
	while (i > 0 && is_digit(t[i - 1]))
		i--;
	if (i < *n && i >= 8 && strncmp(t + i - 8, "__kernel", 8) == 0)
		cut(t, n, i - 8, *n);
	i = *n;
	while (i > 0 && is_digit(t[i - 1]))
		i--;
	if (i < *n && i >= 2 && t[i - 1] == 'd' && t[i - 2] == '_') {
		j = i - 2;
		while (j > 0 && is_digit(t[j - 1]))
			j--;
		if (j < i - 2 && j >= 1 && t[j - 1] == '_')
			cut(t, n, j - 1, *n);
	}
	/* _high_performance(_+\d+)? */
	i = *n;
	while (i > 0 && is_digit(t[i - 1]))
		i--;
	j = i;
	if (i < *n) {
		while (j > 0 && t[j - 1] == '_')
			j--;
		if (j == i)
			j = *n;
	} else {
		j = *n;
	}
	if (j >= 17 && strncmp(t + j - 17, "_high_performance", 17) == 0)
		cut(t, n, j - 17, *n);
	else if (*n >= 17 && strcmp(t + *n - 17, "_high_performance") == 0)
		cut(t, n, *n - 17, *n);
	/* one _\d+ */
	i = *n;
	while (i > 0 && is_digit(t[i - 1]))
		i--;
	if (i < *n && i >= 1 && t[i - 1] == '_')
		cut(t, n, i - 1, *n);
	/* _ + 32 or 64 alphanumerics */
	for (j = 0; j < 2; j++) {
		size_t w = j == 0 ? 64 : 32, k;

		if (*n < w + 1 || t[*n - w - 1] != '_')
			continue;
		for (k = *n - w; k < *n && is_alnum(t[k]); k++)
			;
		if (k == *n) {
			cut(t, n, *n - w - 1, *n);
			break;
		}
	}
	while (*n > 0 && t[*n - 1] == '_')
		t[--*n] = '\0';
	return *n != before;
}

static void
skip_blank(const char *t, size_t n, size_t *j)
{
	while (*j < n && (t[*j] == ' ' || t[*j] == '\t'))
		(*j)++;
}

/* blanks, then the character c */
static bool
bracket_part(const char *t, size_t n, size_t *j, char c)
{
	skip_blank(t, n, j);
	if (*j >= n || t[*j] != c)
		return false;
	(*j)++;
	return true;
}

/* blanks, digits (at least one), then blanks and the character c */
static bool
digits_then(const char *t, size_t n, size_t *j, char c)
{
	size_t d;

	skip_blank(t, n, j);
	for (d = *j; *j < n && is_digit(t[*j]); (*j)++)
		;
	return *j > d && bracket_part(t, n, j, c);
}

char *
tc_analysis__canonical_op(const char *text)
{
	static const char *const spec[] = { "ndnz", "nd", "nz", "fractal_nz",
	    "bf16", "bool", "normal", "all", "double", "false", "true" };
	char *t;
	size_t n, i, k;

	if (text == NULL)
		return tc_xstrdup("UNKNOWN");
	t = tc_xstrdup(text);
	n = strlen(t);
	strip_py(t, &n);
	{
		static const char *const unknown[] = { "", "n/a", "na", "none",
		    "null", "unknown" };

		for (k = 0; k < 6; k++)
			if (strlen(unknown[k]) == n && starts_nocase(t, 0, n,
			    unknown[k]))
				goto unknown;
	}
	/* leading [i/n] prefixes */
	for (;;) {
		size_t j = 0;

		if (!bracket_part(t, n, &j, '[') || !digits_then(t, n, &j, '/') ||
		    !digits_then(t, n, &j, ']'))
			break;
		skip_blank(t, n, &j);
		if (j < n && (t[j] == '-' || t[j] == ':'))
			j++;
		skip_blank(t, n, &j);
		cut(t, &n, 0, j);
	}
	strip_py(t, &n);
	if (n > 25 && starts_nocase(t, 0, n, "sk_entry_") &&
	    starts_nocase(t, n - 15, n, "_dump_profiling")) {
		for (i = 9; i < n - 15 && (is_alnum(t[i]) || t[i] == '_'); i++)
			;
		if (i == n - 15)
			goto unknown;
	}
	/* cut at _<32 or 64 hex> followed by _ or the end */
	for (i = 0; i < n; i++) {
		size_t h = 0;

		if (t[i] != '_')
			continue;
		while (i + 1 + h < n && is_hex(t[i + 1 + h]))
			h++;
		if ((h == 32 || h == 64) && (i + 1 + h == n ||
		    t[i + 1 + h] == '_')) {
			t[i] = '\0';
			n = i;
			break;
		}
	}
	/* delete 0x<hex> components */
	for (i = 0; i < n;) {
		size_t s = i, h = 0;

		if (!(i == 0 || t[i] == '_')) {
			i++;
			continue;
		}
		if (t[i] == '_')
			s = i + 1;
		if (s + 2 <= n && t[s] == '0' && t[s + 1] == 'x') {
			while (s + 2 + h < n && is_hex(t[s + 2 + h]))
				h++;
			if (h > 0 && (s + 2 + h == n || t[s + 2 + h] == '_')) {
				cut(t, &n, i, s + 2 + h);
				continue;
			}
		}
		i++;
	}
	while (suffix_pass(t, &n))
		;
	for (i = 0; i < n; i++)
		if (comm_at(t, i, n))
			return t;
	for (i = 0; i + 14 <= n; i++) {
		if ((i == 0 || t[i - 1] == '_') &&
		    strncmp(t + i, "static_kernel_", 14) == 0 && i + 14 < n &&
		    ((t[i + 14] >= 'A' && t[i + 14] <= 'Z') ||
		    (t[i + 14] >= 'a' && t[i + 14] <= 'z'))) {
			size_t e = i + 15;
			char *r;

			while (e < n && is_alnum(t[e]))
				e++;
			r = tc_xstrndup(t + i + 14, e - i - 14);
			free(t);
			return r;
		}
	}
	/* cut at the first specialization component */
	for (i = 0; i < n; i++) {
		size_t l = 0;

		if (t[i] != '_')
			continue;
		for (k = 0; k < sizeof(spec) / sizeof(spec[0]) && l == 0; k++)
			if (starts_nocase(t, i + 1, n, spec[k]))
				l = strlen(spec[k]);
		if (l == 0) {
			const char *pre[] = { "fp", "int", "uint", "c" };

			for (k = 0; k < 4 && l == 0; k++) {
				size_t pl = strlen(pre[k]), d = i + 1 + pl;

				if (!starts_nocase(t, i + 1, n, pre[k]))
					continue;
				while (d < n && is_digit(t[d]))
					d++;
				if (d > i + 1 + pl)
					l = d - i - 1;
			}
		}
		/* the longest alternatives first: "nd" must not hide "ndnz" */
		if (l > 0 && (i + 1 + l == n || t[i + 1 + l] == '_')) {
			t[i] = '\0';
			n = i;
			break;
		}
	}
	while (n > 0 && (t[n - 1] == '_' || t[n - 1] == ' '))
		t[--n] = '\0';
	for (i = 0; i < n && (t[i] == '_' || t[i] == ' '); i++)
		;
	memmove(t, t + i, n - i + 1);
	if (t[0] != '\0')
		return t;
unknown:
	free(t);
	return tc_xstrdup("UNKNOWN");
}

/* ---- the canonical graph and its fingerprint ---------------------------- */

struct gnode {
	char *kind, *op;
	const char *family;
	bool topology_only, has_event;
	int64_t event;
	size_t stream, pos;
	tc_json *label, *init, *sig;
	size_t colour;
};

struct gedge {
	size_t src, dst;
	const char *kind;
};

char *
tc_analysis__ascii_cj(const tc_json *v)
{
	tc_buf b = TC_BUF_INIT;

	tc_json_write(&b, v, TC_JSON_ASCII, NULL);
	tc_buf_grow(&b, 0);
	return tc_buf_detach(&b, NULL);
}

static char *
cj(const tc_json *v)
{
	return tc_analysis__ascii_cj(v);
}

static void
sha_of(const char *s, char hex[65])
{
	tc_sha256_hex(s, strlen(s), hex);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Colour every node by the rank of cj(sig) among the distinct ones;
 * returns the number of colours. */
static size_t
recolour(struct gnode *nd, size_t n, tc_json *const *sigs)
{
	char **texts = tc_xmalloc((n + 1) * sizeof(*texts));
	char **sorted = tc_xmalloc((n + 1) * sizeof(*sorted));
	size_t i, k, distinct = 0;

	for (i = 0; i < n; i++)
		sorted[i] = texts[i] = cj(sigs[i]);
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
			sorted[distinct++] = sorted[i];
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = distinct;

		while (lo < hi) {
			k = (lo + hi) / 2;
			if (strcmp(sorted[k], texts[i]) < 0)
				lo = k + 1;
			else
				hi = k;
		}
		nd[i].colour = lo;
	}
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(sorted);
	return distinct;
}

/* A list of JSON arrays sorted by their canonical text. */
static tc_json *
sorted_list(tc_json **items, size_t n)
{
	char **t = tc_xmalloc((n + 1) * sizeof(*t));
	size_t *idx = tc_xmalloc((n + 1) * sizeof(*idx)), i, j;
	tc_json *l = tc_json_new_array();

	for (i = 0; i < n; i++) {
		t[i] = cj(items[i]);
		idx[i] = i;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(t[idx[j - 1]], t[idx[j]]) > 0; j--) {
			size_t x = idx[j - 1];

			idx[j - 1] = idx[j];
			idx[j] = x;
		}
	for (i = 0; i < n; i++) {
		tc_json_array_push(l, items[idx[i]]);
		free(t[i]);
	}
	free(t);
	free(idx);
	return l;
}

static tc_json *
edge_entry(const char *kind, bool same, size_t colour)
{
	tc_json *e = tc_json_new_array();

	tc_json_array_push(e, tc_json_new_string(kind));
	tc_json_array_push(e, tc_json_new_bool(same));
	tc_json_array_push(e, tc_json_new_int((int64_t)colour));
	return e;
}

struct gstream {
	const tc_json *s;
	bool numeric;
	double num;
	const char *text;
};

static int
cmp_stream(const void *a, const void *b)
{
	const struct gstream *x = a, *y = b;

	if (x->numeric != y->numeric)
		return x->numeric ? -1 : 1;
	if (x->numeric)
		return x->num < y->num ? -1 : x->num > y->num;
	return strcmp(x->text, y->text);
}

static int
cmp_pos(const void *a, const void *b)
{
	int64_t x = 0, y = 0;

	tc_json_int64(tc_json_get(*(tc_json *const *)a, "nodeIdxInStream"), &x);
	tc_json_int64(tc_json_get(*(tc_json *const *)b, "nodeIdxInStream"), &y);
	return x < y ? -1 : x > y;
}

/*
 * The nodes of an origin graph in canonical key order: streams by the
 * natural order of streamIdxInGraph, nodes by nodeIdxInStream.
 */
int
tc_analysis__graph_nodes(const tc_json *g, struct an_gnode **out, size_t *nout,
    size_t *nstreams, tc_error *err)
{
	const tc_json *streams = tc_json_get(g, "streams");
	struct gstream *gs = NULL;
	struct an_gnode *nd = NULL;
	size_t ns, nn = 0, i, j, k;

	*out = NULL;
	*nout = 0;
	if (streams == NULL || streams->type != TC_JSON_ARRAY ||
	    streams->u.arr.len == 0) {
		tc_error_set(err, "sk_graph_origin has no streams");
		return -1;
	}
	ns = streams->u.arr.len;
	gs = tc_xcalloc(ns, sizeof(*gs));
	for (i = 0; i < ns; i++) {
		const tc_json *id = tc_json_get(streams->u.arr.items[i],
		    "streamIdxInGraph");

		gs[i].s = streams->u.arr.items[i];
		gs[i].numeric = id != NULL && id->type == TC_JSON_INT;
		if (gs[i].numeric)
			tc_json_number(id, &gs[i].num);
		else
			gs[i].text = id && id->type == TC_JSON_STRING ?
			    id->u.str.ptr : "";
	}
	qsort(gs, ns, sizeof(*gs), cmp_stream);
	for (i = 0; i < ns; i++) {
		const tc_json *nodes = tc_json_get(gs[i].s, "nodes");
		tc_json **sorted;
		size_t m;

		if (nodes == NULL || nodes->type != TC_JSON_ARRAY) {
			tc_error_set(err, "sk_graph_origin stream has no nodes");
			goto fail;
		}
		m = nodes->u.arr.len;
		sorted = tc_xmalloc((m + 1) * sizeof(*sorted));
		memcpy(sorted, nodes->u.arr.items, m * sizeof(*sorted));
		qsort(sorted, m, sizeof(*sorted), cmp_pos);
		for (j = 0; j < m; j++) {
			const tc_json *node = sorted[j];
			const tc_json *ti = tc_json_get(node, "taskInfo");
			const tc_json *t0 = ti && ti->type == TC_JSON_ARRAY &&
			    ti->u.arr.len > 0 ? ti->u.arr.items[0] : NULL;
			const char *type = tc_json_get_string(node, "nodeType");
			struct an_gnode *x;
			char *p;

			if (type == NULL || t0 == NULL) {
				tc_error_set(err, "sk_graph_origin node lacks nodeType "
				    "or taskInfo");
				free(sorted);
				goto fail;
			}
			nd = tc_xrealloc(nd, (nn + 1) * sizeof(*nd));
			x = &nd[nn];
			memset(x, 0, sizeof(*x));
			snprintf(x->key, sizeof(x->key), "sk:n%06zu", nn);
			snprintf(x->stream_key, sizeof(x->stream_key), "sk:s%06zu",
			    i);
			nn++;
			x->has_node_id = tc_json_int64(tc_json_get(node, "nodeId"),
			    &x->node_id);
			x->kind = tc_xstrdup(type);
			for (p = x->kind; *p != '\0'; p++)
				if (*p >= 'a' && *p <= 'z')
					*p = (char)(*p - 'a' + 'A');
			x->stream = i;
			x->pos = j;
			if (strcmp(x->kind, "KERNEL") == 0) {
				const tc_json *kp = tc_json_get(t0, "kernelParams");
				const char *fn = tc_json_get_string(kp, "funcName");
				const char *kt = tc_json_get_string(kp,
				    "kernelType");

				x->func_name = fn ? tc_xstrdup(fn) : NULL;
				x->kernel_type = kt ? tc_xstrdup(kt) : NULL;
				x->op = tc_analysis__canonical_op(fn);
				x->family = tc_analysis__canonical_core_family(
				    tc_json_get_string(kp, "kernelType"));
				if (strcmp(tc_analysis__canonical_core_family(x->op),
				    "COMMUNICATION") == 0)
					x->family = "COMMUNICATION";
			} else {
				const tc_json *ev;

				x->op = tc_analysis__canonical_op(x->kind);
				x->family = tc_analysis__canonical_core_family(
				    x->kind);
				x->topology_only = true;
				for (k = 0; k < ti->u.arr.len; k++) {
					ev = tc_json_get(tc_json_get(ti->u.arr.items[k],
					    "eventParams"), "eventId");
					if (ev != NULL && tc_json_int64(ev, &x->event)) {
						x->has_event = true;
						break;
					}
				}
			}
		}
		free(sorted);
	}
	free(gs);
	*out = nd;
	*nout = nn;
	if (nstreams != NULL)
		*nstreams = ns;
	return 0;
fail:
	free(gs);
	tc_analysis__gnodes_free(nd, nn);
	return -1;
}

void
tc_analysis__gnodes_free(struct an_gnode *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].op);
		free(v[i].func_name);
		free(v[i].kernel_type);
	}
	free(v);
}

int
tc_analysis__graph_fingerprint(const tc_json *g, char hex[65], tc_error *err)
{
	struct an_gnode *gn = NULL;
	struct gnode *nd = NULL;
	struct gedge *ed = NULL;
	size_t ns, nn = 0, ne = 0, i, j, k, prev, cur;
	tc_json **tmp = NULL, *fp;
	char **labels = NULL, *ser;
	struct an_sedge *sedges;
	int rc = -1;

	if (tc_analysis__graph_nodes(g, &gn, &nn, &ns, err) != 0)
		return -1;
	nd = tc_xcalloc(nn + 1, sizeof(*nd));
	for (i = 0; i < nn; i++) {
		nd[i].kind = gn[i].kind;
		nd[i].op = gn[i].op;
		nd[i].family = gn[i].family;
		nd[i].topology_only = gn[i].topology_only;
		nd[i].has_event = gn[i].has_event;
		nd[i].event = gn[i].event;
		nd[i].stream = gn[i].stream;
		nd[i].pos = gn[i].pos;
	}
	/* stream-order edges, then event edges NOTIFY -> WAIT by event id */
	for (i = 0; i + 1 < nn; i++)
		if (nd[i].stream == nd[i + 1].stream) {
			ed = tc_xrealloc(ed, (ne + 1) * sizeof(*ed));
			ed[ne].src = i;
			ed[ne].dst = i + 1;
			ed[ne++].kind = "stream_order";
		}
	{
		int64_t *evs = tc_xmalloc((nn + 1) * sizeof(*evs));
		size_t nev = 0;

		for (i = 0; i < nn; i++) {
			if (!nd[i].has_event)
				continue;
			for (k = 0; k < nev && evs[k] != nd[i].event; k++)
				;
			if (k == nev)
				evs[nev++] = nd[i].event;
		}
		for (i = 1; i < nev; i++)
			for (k = i; k > 0 && evs[k - 1] > evs[k]; k--) {
				int64_t t = evs[k - 1];

				evs[k - 1] = evs[k];
				evs[k] = t;
			}
		for (k = 0; k < nev; k++) {
			size_t producer = nn, np = 0;

			for (i = 0; i < nn; i++)
				if (nd[i].has_event && nd[i].event == evs[k] &&
				    strcmp(nd[i].kind, "NOTIFY") == 0) {
					producer = i;
					np++;
				}
			if (np > 1) {
				tc_error_set(err, "sk_graph_origin event %lld has "
				    "several NOTIFY nodes", (long long)evs[k]);
				free(evs);
				goto done;
			}
			for (i = 0; np == 1 && i < nn; i++)
				if (nd[i].has_event && nd[i].event == evs[k] &&
				    strcmp(nd[i].kind, "WAIT") == 0) {
					ed = tc_xrealloc(ed, (ne + 1) * sizeof(*ed));
					ed[ne].src = producer;
					ed[ne].dst = i;
					ed[ne++].kind = "event";
				}
		}
		free(evs);
	}
	/* labels, stream hashes and initial signatures */
	for (i = 0; i < nn; i++) {
		tc_json *l = tc_json_new_array();

		tc_json_array_push(l, tc_json_new_string(nd[i].kind));
		tc_json_array_push(l, tc_json_new_string(nd[i].op));
		tc_json_array_push(l, tc_json_new_string(nd[i].family));
		tc_json_array_push(l, tc_json_new_array());
		tc_json_array_push(l, tc_json_new_bool(nd[i].topology_only));
		nd[i].label = l;
	}
	for (i = 0; i < ns; i++) {
		tc_json *sl2 = tc_json_new_array();
		char *t, h[65];

		for (j = 0; j < nn; j++)
			if (nd[j].stream == i)
				tc_json_array_push(sl2, tc_json_clone(nd[j].label));
		t = cj(sl2);
		sha_of(t, h);
		free(t);
		tc_json_free(sl2);
		for (j = 0; j < nn; j++)
			if (nd[j].stream == i) {
				nd[j].init = tc_json_new_array();
				tc_json_array_push(nd[j].init,
				    tc_json_clone(nd[j].label));
				tc_json_array_push(nd[j].init, tc_json_new_string(h));
				tc_json_array_push(nd[j].init,
				    tc_json_new_int((int64_t)nd[j].pos));
			}
	}
	tmp = tc_xmalloc((nn + 1) * sizeof(*tmp));
	for (i = 0; i < nn; i++)
		tmp[i] = nd[i].init;
	prev = recolour(nd, nn, tmp);
	for (;;) {
		for (i = 0; i < nn; i++) {
			tc_json **in = tc_xmalloc((ne + 1) * sizeof(*in));
			tc_json **out = tc_xmalloc((ne + 1) * sizeof(*out));
			size_t ni = 0, no = 0;
			tc_json *sig = tc_json_new_array();

			for (k = 0; k < ne; k++) {
				bool same = nd[ed[k].src].stream ==
				    nd[ed[k].dst].stream;

				if (ed[k].dst == i)
					in[ni++] = edge_entry(ed[k].kind, same,
					    nd[ed[k].src].colour);
				if (ed[k].src == i)
					out[no++] = edge_entry(ed[k].kind, same,
					    nd[ed[k].dst].colour);
			}
			tc_json_array_push(sig, tc_json_new_int(
			    (int64_t)nd[i].colour));
			tc_json_array_push(sig, sorted_list(in, ni));
			tc_json_array_push(sig, sorted_list(out, no));
			free(in);
			free(out);
			tc_json_free(nd[i].sig);
			nd[i].sig = sig;
			tmp[i] = sig;
		}
		cur = recolour(nd, nn, tmp);
		if (cur == prev)
			break;
		prev = cur;
	}
	/* stream labels: the node hashes in order */
	labels = tc_xcalloc(ns + 1, sizeof(*labels));
	{
		tc_json **lab = tc_xmalloc((ns + 1) * sizeof(*lab));

		for (i = 0; i < ns; i++)
			lab[i] = tc_json_new_array();
		for (i = 0; i < nn; i++) {
			tc_json *pair = tc_json_new_array();
			char *t, h[65];

			tc_json_array_push(pair, tc_json_clone(nd[i].init));
			tc_json_array_push(pair, tc_json_clone(nd[i].sig));
			t = cj(pair);
			sha_of(t, h);
			free(t);
			tc_json_free(pair);
			tc_json_array_push(lab[nd[i].stream], tc_json_new_string(h));
		}
		for (i = 0; i < ns; i++)
			labels[i] = cj(lab[i]);
		sedges = tc_xcalloc(ne + 1, sizeof(*sedges));
		for (k = 0; k < ne; k++) {
			sedges[k].src = nd[ed[k].src].stream;
			sedges[k].sp = nd[ed[k].src].pos;
			sedges[k].dst = nd[ed[k].dst].stream;
			sedges[k].dp = nd[ed[k].dst].pos;
			sedges[k].kind = ed[k].kind;
		}
		/* streams in their canonical order (graph_streams.c) */
		ser = tc_analysis__canonical_streams((const char *const *)labels,
		    lab, ns, sedges, ne, err);
		for (i = 0; i < ns; i++)
			tc_json_free(lab[i]);
		free(lab);
		free(sedges);
		if (ser == NULL)
			goto done;
	}
	fp = tc_json_new_object();
	tc_json_object_set_string(fp, "model_role", "candidate");
	tc_json_object_set_string(fp, "graph", ser);
	free(ser);
	tc_analysis__ascii_digest(fp, hex, NULL);
	tc_json_free(fp);
	rc = 0;
done:
	for (i = 0; nd != NULL && i < nn; i++) {
		tc_json_free(nd[i].label);
		tc_json_free(nd[i].init);
		tc_json_free(nd[i].sig);
	}
	for (i = 0; labels != NULL && i < ns; i++)
		free(labels[i]);
	free(labels);
	free(nd);
	free(ed);
	free(tmp);
	tc_analysis__gnodes_free(gn, nn);
	return rc;
}
