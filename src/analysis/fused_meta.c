/*
 * fused_meta.c - the candidate's fused metadata as the structural
 * association reads it (sk_fused_nodes.log beside the origin graph): a
 * strict parser that binds every "[i] [nodeId:N, ...]" child line to its
 * origin graph node and records, per SuperKernel group, the blockers
 * (metadata_*) that keep its projection from being exact.
 *
 * A group is a header line "SK Function: <name>, scope id: S, Node Count: C"
 * and the node lines after it; lines may carry the CANN logger's prefix.
 * A kernel line ("] - KernelInfos{...}") must name the origin node's
 * operator, kernelType and a geometry that fits it; a control line ends
 * in EventWait/EventNotify/EventReset(...) of a topology node.  The
 * group's kernel children, in local order, are what the projection maps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/buf.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

#define FIELDS_MAX 128
#define LINE_MAX_CHARS 65536

struct dnode {
	int64_t local;
	size_t node;		/* in the graph's nodes */
	bool kernel;
};

struct draft {
	struct an_fgroup g;
	bool has_count;
	int64_t count;
	size_t lines;
	int64_t *locals, *origins;
	size_t nlocal, norigin;
	struct dnode *nodes;
	size_t nnodes;
};

struct parse {
	const struct an_gnode *gn;
	size_t nn;
	bool bound;			/* the log's graph is known */
	bool has_device, has_model;
	int64_t device, model;
	const char *path_blockers[4];
	size_t npath;
	struct draft *d;		/* groups, the last one current */
	size_t nd;
	bool current, line_failure;
};

static void
add_blocker(struct an_fgroup *g, const char *b)
{
	size_t i;

	for (i = 0; i < g->nblockers; i++)
		if (strcmp(g->blockers[i], b) == 0)
			return;
	g->blockers = tc_xrealloc(g->blockers, (g->nblockers + 1) *
	    sizeof(*g->blockers));
	g->blockers[g->nblockers++] = b;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* _candidate_bounded_nonnegative_integer: 1..19 ASCII digits, an int64 */
static bool
bounded_int(const char *s, size_t n, int64_t *out)
{
	size_t i;
	uint64_t v = 0;

	if (n == 0 || n > 19)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > INT64_MAX)
		return false;
	*out = (int64_t)v;
	return true;
}

static struct draft *
new_draft(struct parse *p)
{
	struct draft *d;
	size_t i;

	p->d = tc_xrealloc(p->d, (p->nd + 1) * sizeof(*p->d));
	d = &p->d[p->nd++];
	memset(d, 0, sizeof(*d));
	d->g.name = tc_xstrdup("");
	for (i = 0; i < p->npath; i++)
		add_blocker(&d->g, p->path_blockers[i]);
	p->current = true;
	return d;
}

static struct draft *
current(struct parse *p, const char *missing)
{
	if (!p->current) {
		struct draft *d = new_draft(p);

		if (missing != NULL)
			add_blocker(&d->g, missing);
		return d;
	}
	return &p->d[p->nd - 1];
}

static bool
starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool
ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* "[<local>]\s+[nodeId:<origin>," at the start: its end, or 0. */
static size_t
local_origin(const char *s, size_t n, const char **local, size_t *nlocal,
    const char **origin, size_t *norigin)
{
	size_t i = 1, j;

	if (n == 0 || s[0] != '[')
		return 0;
	for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j == i || j >= n || s[j] != ']')
		return 0;
	*local = s + i;
	*nlocal = j - i;
	i = j + 1;
	j = i;
	tc_analysis__skip_space(s, n, &j);
	if (j == i || !starts(s + j, n - j, "[nodeId:"))
		return 0;
	i = j + 8;
	for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j == i || j >= n || s[j] != ',')
		return 0;
	*origin = s + i;
	*norigin = j - i;
	return j + 1;
}

static bool
ascii_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* The CANN logger's line: its payload, or NULL. */
static const char *
cann_payload(const char *s, size_t n, size_t *plen)
{
	static const char *const shape = "dddd-dd-dd dd:dd:dd.ddd [";
	size_t i, j;

	if (n < strlen(shape))
		return NULL;
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') :
		    s[i] != shape[i])
			return NULL;
	for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j == i || j >= n || s[j] != ':')
		return NULL;
	i = ++j;
	for (; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j == i || !starts(s + j, n - j, "] [INFO] [sk_optimizer.cpp:"))
		return NULL;
	i = j += strlen("] [INFO] [sk_optimizer.cpp:");
	for (; j < n && s[j] >= '0' && s[j] <= '9'; j++)
		;
	if (j == i || !starts(s + j, n - j, "] [PrintSKNodesDetail] "))
		return NULL;
	j += strlen("] [PrintSKNodesDetail] ");
	while (j < n && s[j] == ' ')
		j++;
	if (j == n) {
		/* " +" gives one space back to a payload of spaces */
		if (s[j - 2] != ' ')
			return NULL;
		j--;
	}
	for (i = j; i < n; i++)
		if (s[i] == '\r' || s[i] == '\n')
			return NULL;
	*plen = n - j;
	return s + j;
}

/* _candidate_fused_fields: top-level comma fields, stripped; NULL (and
 * *n 0) when the delimiters do not balance, a field is empty or there
 * are too many. */
static char **
fields(const char *s, size_t n, size_t *nf)
{
	char **v = NULL;
	char stack[256];
	size_t depth = 0, start = 0, i, k = 0;
	bool bad = false;

	for (i = 0; i <= n && !bad; i++) {
		char c = i < n ? s[i] : ',';

		if (i < n && (c == '(' || c == '[' || c == '{')) {
			if (depth == sizeof(stack))
				bad = true;
			else
				stack[depth++] = c;
		} else if (i < n && (c == ')' || c == ']' || c == '}')) {
			char open = c == ')' ? '(' : c == ']' ? '[' : '{';

			if (depth == 0 || stack[--depth] != open)
				bad = true;
		} else if (c == ',' && (depth == 0 || i == n)) {
			size_t a, e;

			if (i == n && depth != 0) {
				bad = true;
				break;
			}
			tc_py_strip(s + start, i - start, &a, &e);
			if (a == e || k >= FIELDS_MAX) {
				bad = true;
				break;
			}
			v = tc_xrealloc(v, (k + 1) * sizeof(*v));
			v[k++] = tc_xstrndup(s + start + a, e - a);
			start = i + 1;
		}
	}
	if (bad) {
		for (i = 0; i < k; i++)
			free(v[i]);
		free(v);
		*nf = 0;
		return NULL;
	}
	*nf = k;
	return v;
}

static void
free_fields(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* _candidate_fused_field_map over the fields: the value of each of the
 * wanted names (NULL when absent); false when a field is not name:value
 * or a name repeats. */
static bool
field_map(char **v, size_t n, const char *const *want, size_t nwant,
    const char **vals)
{
	size_t i, j;

	for (j = 0; j < nwant; j++)
		vals[j] = NULL;
	/* each field becomes "name\0value": v[i] is its name */
	for (i = 0; i < n; i++) {
		char *colon = strchr(v[i], ':');
		size_t a, e, a2, e2;

		if (colon == NULL)
			return false;
		tc_py_strip(v[i], (size_t)(colon - v[i]), &a, &e);
		tc_py_strip(colon + 1, strlen(colon + 1), &a2, &e2);
		if (a == e || a2 == e2)
			return false;
		colon[1 + e2] = '\0';
		memmove(v[i], v[i] + a, e - a);
		v[i][e - a] = '\0';
		for (j = 0; j < i; j++)
			if (strcmp(v[j], v[i]) == 0)
				return false;
		for (j = 0; j < nwant; j++)
			if (strcmp(v[i], want[j]) == 0)
				vals[j] = colon + 1 + a2;
	}
	return true;
}

static const char *
kernel_families(const char *type, bool *core, bool *vector)
{
	*core = *vector = false;
	if (strcmp(type, "AIC_ONLY") == 0)
		*core = true;
	else if (strcmp(type, "AIV_ONLY") == 0)
		*vector = true;
	else if (strcmp(type, "MIX_1_1") == 0 || strcmp(type, "MIX_1_2") == 0)
		*core = *vector = true;
	else
		return NULL;
	return type;
}

/* One node line; its blocker, or NULL with *node and *kernel set. */
static const char *
node_line(const struct parse *p, const char *s, size_t n, size_t *node,
    bool *kernel, int64_t *local_out)
{
	const char *ls, *os, *vals[5], *ovals[1];
	static const char *const kwant[5] = { "funcName", "kernelType",
	    "numBlocks", "cubeNum", "vecNum" };
	static const char *const owant[1] = { "nodeId" };
	size_t nl, no, end, i, found = p->nn, nf = 0, nof = 0;
	int64_t local, origin, nb, cube, vec;
	const struct an_gnode *g;
	const char *marker = "] - KernelInfos{", *mk, *on;
	const char *blk = NULL;
	char **f = NULL, **of = NULL, *text, *origin_text;
	char id[24];

	if ((end = local_origin(s, n, &ls, &nl, &os, &no)) == 0)
		return "metadata_node_line_invalid";
	if (!bounded_int(ls, nl, &local) || !bounded_int(os, no, &origin))
		return "metadata_integer_invalid";
	for (i = 0; i < p->nn; i++)
		if (p->gn[i].has_node_id && p->gn[i].node_id == origin) {
			if (found != p->nn)
				return "metadata_origin_node_duplicate";
			found = i;
		}
	if (found == p->nn)
		return "metadata_origin_node_missing";
	g = &p->gn[found];
	*local_out = local;
	snprintf(id, sizeof(id), "%lld", (long long)origin);
	text = tc_xstrndup(s, n);
	on = strstr(text, "[nodeId:") + 1;
	if (strstr(text, marker) != NULL) {
		bool core, vector;

		mk = strstr(text + end, marker);
		if (mk == NULL || !ends(s, n, "}")) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		of = fields(on, (size_t)(mk - on), &nof);
		if (of == NULL || !field_map(of, nof, owant, 1, ovals) ||
		    ovals[0] == NULL || strcmp(ovals[0], id) != 0) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		f = fields(mk + strlen(marker), strlen(mk + strlen(marker)) -
		    1, &nf);
		if (f == NULL || !field_map(f, nf, kwant, 5, vals)) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		for (i = 0; i < 5; i++)
			if (vals[i] == NULL) {
				blk = "metadata_kernel_fields_missing";
				goto done;
			}
		{
			char *op = tc_analysis__canonical_op(vals[0]);
			bool same = g->op != NULL && strcmp(op, g->op) == 0;

			free(op);
			if (!same) {
				blk = "metadata_op_mismatch";
				goto done;
			}
		}
		if (kernel_families(vals[1], &core, &vector) == NULL) {
			blk = "metadata_kernel_type_unsupported";
			goto done;
		}
		if (g->kernel_type == NULL) {
			blk = "metadata_origin_kernel_type_missing";
			goto done;
		}
		if (strcmp(g->kernel_type, "AIC_ONLY") != 0 &&
		    strcmp(g->kernel_type, "AIV_ONLY") != 0 &&
		    strcmp(g->kernel_type, "MIX_1_1") != 0 &&
		    strcmp(g->kernel_type, "MIX_1_2") != 0) {
			blk = "metadata_origin_kernel_type_unsupported";
			goto done;
		}
		if (strcmp(vals[1], g->kernel_type) != 0) {
			blk = "metadata_origin_kernel_type_mismatch";
			goto done;
		}
		if (strcmp(g->family, "COMMUNICATION") != 0 &&
		    !(core && strcmp(g->family, "AI_CORE") == 0) &&
		    !(vector && strcmp(g->family, "AI_VECTOR_CORE") == 0)) {
			blk = "metadata_origin_core_mismatch";
			goto done;
		}
		if (!bounded_int(vals[2], strlen(vals[2]), &nb) ||
		    !bounded_int(vals[3], strlen(vals[3]), &cube) ||
		    !bounded_int(vals[4], strlen(vals[4]), &vec)) {
			blk = "metadata_integer_invalid";
			goto done;
		}
		if (nb == 0 ||
		    (strcmp(vals[1], "AIC_ONLY") == 0 && (cube != nb || vec != 0)) ||
		    (strcmp(vals[1], "AIV_ONLY") == 0 && (cube != 0 || vec != nb)) ||
		    (strcmp(vals[1], "MIX_1_1") == 0 && (cube != nb || vec != nb)) ||
		    (strcmp(vals[1], "MIX_1_2") == 0 && (cube != nb ||
		    vec != nb * 2))) {
			blk = "metadata_kernel_geometry_invalid";
			goto done;
		}
		*kernel = true;
	} else {
		static const char *const ctl[3][2] = { { "EventWait(", "WAIT" },
		    { "EventNotify(", "NOTIFY" }, { "EventReset(", "RESET" } };
		const char *kind = NULL;
		char *joined;
		size_t k;
		tc_buf b = TC_BUF_INIT;

		if (!ends(s, n, "]")) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		f = fields(on, strlen(on) - 1, &nf);
		if (f == NULL) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		for (k = 0; k < 3; k++)
			if (starts(f[nf - 1], strlen(f[nf - 1]), ctl[k][0]) &&
			    ends(f[nf - 1], strlen(f[nf - 1]), ")"))
				kind = ctl[k][1];
		if (kind == NULL) {
			blk = "metadata_node_line_invalid";
			goto done;
		}
		for (k = 0; k + 1 < nf; k++) {
			if (k > 0)
				tc_buf_add(&b, ",", 1);
			tc_buf_add(&b, f[k], strlen(f[k]));
		}
		tc_buf_add(&b, "", 0);
		joined = tc_buf_detach(&b, NULL);
		origin_text = joined != NULL ? joined : tc_xstrdup("");
		of = fields(origin_text, strlen(origin_text), &nof);
		if (of == NULL || !field_map(of, nof, owant, 1, ovals) ||
		    ovals[0] == NULL || strcmp(ovals[0], id) != 0) {
			free(origin_text);
			blk = "metadata_node_line_invalid";
			goto done;
		}
		free(origin_text);
		if (!g->topology_only || strcmp(g->kind, kind) != 0) {
			blk = "metadata_control_mismatch";
			goto done;
		}
		*kernel = false;
	}
	*node = found;
done:
	free_fields(f, nf);
	free_fields(of, nof);
	free(text);
	return blk;
}

static void
on_line(void *ctx, const char *s, size_t n)
{
	struct parse *p = ctx;
	struct draft *d;
	const char *ls, *os, *payload;
	size_t a, e, nl, no, plen;

	tc_py_strip(s, n, &a, &e);
	if (a == e)
		return;
	if (tc_utf8_length(s, n) > LINE_MAX_CHARS) {
		d = current(p, NULL);
		d->lines++;
		add_blocker(&d->g, "metadata_line_limit_exceeded");
		p->line_failure = true;
		return;
	}
	if (!starts(s, n, "SK Function:") &&
	    local_origin(s, n, &ls, &nl, &os, &no) == 0) {
		payload = cann_payload(s, n, &plen);
		if (payload == NULL || (!starts(payload, plen, "SK Function:") &&
		    local_origin(payload, plen, &ls, &nl, &os, &no) == 0)) {
			d = current(p, NULL);
			d->lines++;
			add_blocker(&d->g, "metadata_line_adapter_invalid");
			p->line_failure = true;
			return;
		}
		s = payload;
		n = plen;
	}
	if (starts(s, n, "SK Function:")) {
		static const char *const sep1 = ", scope id: ";
		static const char *const sep2 = ", Node Count: ";
		const char *name = s + 13, *comma, *sc, *cnt;
		int64_t scope, count;
		char *nm;

		d = new_draft(p);
		comma = memchr(s, ',', n);
		if (!starts(s, n, "SK Function: ") || comma == NULL ||
		    comma == name || memchr(name, '\r', (size_t)(comma - name)) ||
		    memchr(name, '\n', (size_t)(comma - name)) ||
		    !starts(comma, (size_t)(s + n - comma), sep1)) {
			add_blocker(&d->g, "metadata_header_invalid");
			return;
		}
		sc = comma + strlen(sep1);
		cnt = sc;
		while (cnt < s + n && *cnt >= '0' && *cnt <= '9')
			cnt++;
		if (cnt == sc || !starts(cnt, (size_t)(s + n - cnt), sep2) ||
		    !ascii_digits(cnt + strlen(sep2), (size_t)(s + n - cnt -
		    strlen(sep2)))) {
			add_blocker(&d->g, "metadata_header_invalid");
			return;
		}
		nm = tc_xstrndup(name, (size_t)(comma - name));
		free(d->g.name);
		d->g.name = nm;
		{
			char *start = NULL, *endf = NULL;

			if (tc_analysis__sk_name_parts(nm, &d->g.sk,
			    &d->g.scope, &start, &endf)) {
				d->g.has_sk = true;
				d->g.has_boundary = true;
				d->g.start_op = tc_analysis__canonical_op(start);
				d->g.end_op = tc_analysis__canonical_op(endf);
			} else {
				add_blocker(&d->g,
				    "metadata_header_name_invalid");
			}
			free(start);
			free(endf);
		}
		if (!bounded_int(sc, (size_t)(cnt - sc), &scope) ||
		    !bounded_int(cnt + strlen(sep2), (size_t)(s + n - cnt -
		    strlen(sep2)), &count)) {
			add_blocker(&d->g, "metadata_header_integer_invalid");
			return;
		}
		d->has_count = true;
		d->count = count;
		if (count > 1000000)
			add_blocker(&d->g, "metadata_node_count_limit_exceeded");
		if (d->g.has_sk && d->g.sk != scope)
			add_blocker(&d->g, "metadata_scope_id_mismatch");
		return;
	}
	d = current(p, "metadata_header_missing");
	d->lines++;
	if (local_origin(s, n, &ls, &nl, &os, &no) != 0) {
		int64_t lv, ov;

		if (bounded_int(ls, nl, &lv) && bounded_int(os, no, &ov)) {
			d->locals = tc_xrealloc(d->locals, (d->nlocal + 1) *
			    sizeof(*d->locals));
			d->locals[d->nlocal++] = lv;
			d->origins = tc_xrealloc(d->origins, (d->norigin + 1) *
			    sizeof(*d->origins));
			d->origins[d->norigin++] = ov;
		} else {
			if (bounded_int(ls, nl, &lv)) {
				d->locals = tc_xrealloc(d->locals,
				    (d->nlocal + 1) * sizeof(*d->locals));
				d->locals[d->nlocal++] = lv;
			}
			add_blocker(&d->g, "metadata_integer_invalid");
		}
	} else {
		add_blocker(&d->g, "metadata_node_line_invalid");
	}
	if (p->bound) {
		size_t node = 0;
		bool kernel = false;
		int64_t local = 0;
		const char *b = node_line(p, s, n, &node, &kernel, &local);

		if (b != NULL) {
			add_blocker(&d->g, b);
		} else {
			d->nodes = tc_xrealloc(d->nodes, (d->nnodes + 1) *
			    sizeof(*d->nodes));
			d->nodes[d->nnodes].local = local;
			d->nodes[d->nnodes].node = node;
			d->nodes[d->nnodes++].kernel = kernel;
		}
	}
}

static int
cmp_i64v(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* n values of src into dst; src may be NULL when n is 0 (a draft
 * without node lines never allocated its arrays). */
static void
copy_i64(int64_t *dst, const int64_t *src, size_t n)
{
	if (n > 0)
		memcpy(dst, src, n * sizeof(*dst));
}

/* The group of a finished draft. */
static void
finish_draft(const struct parse *p, struct draft *d, struct an_fgroup *out)
{
	size_t i, j, nk = 0, uniq = 0;
	int64_t *sorted;

	/* nodes by local index (stable) */
	for (i = 1; i < d->nnodes; i++)
		for (j = i; j > 0 && d->nodes[j - 1].local > d->nodes[j].local;
		    j--) {
			struct dnode t = d->nodes[j - 1];

			d->nodes[j - 1] = d->nodes[j];
			d->nodes[j] = t;
		}
	if (!d->has_count || (int64_t)d->lines != d->count)
		add_blocker(&d->g, "metadata_node_count_mismatch");
	sorted = tc_xmalloc((d->nlocal + 1) * sizeof(*sorted));
	copy_i64(sorted, d->locals, d->nlocal);
	qsort(sorted, d->nlocal, sizeof(*sorted), cmp_i64v);
	for (i = 0; i < d->nlocal; i++)
		if (i == 0 || sorted[i] != sorted[i - 1])
			uniq++;
	if (uniq != d->nlocal)
		add_blocker(&d->g, "metadata_local_duplicate");
	copy_i64(sorted, d->origins, d->norigin);
	qsort(sorted, d->norigin, sizeof(*sorted), cmp_i64v);
	for (i = 1; i < d->norigin; i++)
		if (sorted[i] == sorted[i - 1]) {
			add_blocker(&d->g, "metadata_origin_node_duplicate");
			break;
		}
	copy_i64(sorted, d->locals, d->nlocal);
	qsort(sorted, d->nlocal, sizeof(*sorted), cmp_i64v);
	if (!d->has_count || (int64_t)uniq != d->count || (uniq > 0 &&
	    (sorted[0] != 0 || sorted[d->nlocal - 1] != d->count - 1)))
		add_blocker(&d->g, "metadata_local_sequence_invalid");
	free(sorted);
	d->g.node = tc_xmalloc((d->nnodes + 1) * sizeof(size_t));
	d->g.kernel = tc_xmalloc((d->nnodes + 1) * sizeof(size_t));
	for (i = 0; i < d->nnodes; i++) {
		d->g.node[i] = d->nodes[i].node;
		if (d->nodes[i].kernel)
			d->g.kernel[nk++] = d->nodes[i].node;
	}
	d->g.nnode = d->nnodes;
	d->g.nkernel = nk;
	if (nk == 0)
		add_blocker(&d->g, "metadata_kernel_nodes_missing");
	else if (d->g.has_boundary && (strcmp(d->g.start_op,
	    p->gn[d->g.kernel[0]].op) != 0 || strcmp(d->g.end_op,
	    p->gn[d->g.kernel[nk - 1]].op) != 0))
		add_blocker(&d->g, "metadata_boundary_mismatch");
	d->g.has_device = p->has_device;
	d->g.device = p->device;
	d->g.has_model = p->has_model;
	d->g.model = p->model;
	free(d->locals);
	free(d->origins);
	free(d->nodes);
	*out = d->g;
}

int
tc_analysis__fused_meta_parse(const char *raw, size_t len, const char *rel,
    const struct an_gnode *gn, size_t nn, int64_t graph_device,
    const char *graph_model, struct an_fgroups *out, tc_error *err)
{
	struct parse p;
	char hex[65];
	const char *c, *slash;
	size_t i, nmodels = 0, ndevices = 0;
	int64_t gmodel = -1, v;
	bool gmodel_ok = false, unattributed;
	const char *us;

	if (!tc_utf8_valid(raw, len)) {
		tc_error_set(err, "sk_fused_nodes must be UTF-8 text");
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.gn = gn;
	p.nn = nn;
	tc_sha256_hex(raw, len, hex);
	/* the graph's model: "<n>" or "<n>_1" */
	us = strchr(graph_model, '_');
	if ((us == NULL || strcmp(us, "_1") == 0) &&
	    bounded_int(graph_model, us ? (size_t)(us - graph_model) :
	    strlen(graph_model), &gmodel))
		gmodel_ok = true;
	for (c = rel; *c != '\0'; c = *slash ? slash + 1 : slash) {
		size_t cl;

		slash = strchr(c, '/');
		if (slash == NULL)
			slash = c + strlen(c);
		cl = (size_t)(slash - c);
		if (starts(c, cl, "model_")) {
			const char *d = c + 6, *u = memchr(d, '_', cl - 6);
			size_t dl = u ? (size_t)(u - d) : cl - 6;

			if (ascii_digits(d, dl) && (u == NULL ||
			    (slash - u == 2 && u[1] == '1'))) {
				if (bounded_int(d, dl, &v)) {
					nmodels++;
					p.model = v;
				} else if (p.npath < 4) {
					p.path_blockers[p.npath++] =
					    "metadata_model_path_invalid";
				}
			}
		}
		if (starts(c, cl, "device_") && ascii_digits(c + 7, cl - 7)) {
			if (bounded_int(c + 7, cl - 7, &v)) {
				ndevices++;
				p.device = v;
			} else if (p.npath < 4) {
				p.path_blockers[p.npath++] =
				    "metadata_device_path_invalid";
			}
		}
	}
	p.has_model = nmodels == 1;
	if (!p.has_model && p.npath < 4)
		p.path_blockers[p.npath++] = "metadata_model_path_invalid";
	p.bound = p.has_model && gmodel_ok && gmodel == p.model;
	if (ndevices > 0) {
		p.has_device = ndevices == 1;
		if (!p.has_device && p.npath < 4)
			p.path_blockers[p.npath++] =
			    "metadata_device_path_invalid";
		p.bound = p.bound && p.has_device && p.device == graph_device;
	} else if (p.bound) {
		p.has_device = true;
		p.device = graph_device;
	} else if (p.npath < 4) {
		p.path_blockers[p.npath++] = "metadata_device_ambiguous";
	}
	if (!p.bound && p.npath < 4)
		p.path_blockers[p.npath++] = "metadata_graph_missing";
	tc_analysis__splitlines(raw, len, on_line, &p);
	if (p.nd == 0) {
		struct draft *d = new_draft(&p);

		add_blocker(&d->g, "metadata_header_missing");
	}
	unattributed = p.line_failure || !p.has_device || !p.has_model;
	for (i = 0; i < p.nd; i++)
		if (!p.d[i].g.has_sk)
			unattributed = true;
	out->v = tc_xrealloc(out->v, (out->n + p.nd + 1) * sizeof(*out->v));
	for (i = 0; i < p.nd; i++) {
		struct an_fgroup *g = &out->v[out->n++];

		finish_draft(&p, &p.d[i], g);
		memcpy(g->fingerprint, hex, sizeof(hex));
		if (unattributed)
			add_blocker(g, "metadata_source_unattributed_failure");
	}
	free(p.d);
	return 0;
}

static int
cmp_fgroup(const void *a, const void *b)
{
	const struct an_fgroup *x = a, *y = b;
	int c;

#define KEY(has, v) \
	if (x->has != y->has) \
		return x->has ? -1 : 1; \
	if (x->v != y->v) \
		return x->v < y->v ? -1 : 1;
	KEY(has_device, device)
	KEY(has_model, model)
	KEY(has_sk, sk)
#undef KEY
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return strcmp(x->fingerprint, y->fingerprint);
}

void
tc_analysis__fused_meta_finish(struct an_fgroups *g)
{
	size_t i, j;
	bool unattributed = false;

	for (i = 0; i < g->n; i++)
		for (j = 0; j < g->v[i].nblockers; j++)
			if (strcmp(g->v[i].blockers[j],
			    "metadata_source_unattributed_failure") == 0)
				unattributed = true;
	for (i = 0; i < g->n; i++) {
		struct an_fgroup *x = &g->v[i];

		if (unattributed)
			add_blocker(x, "metadata_source_unattributed_failure");
		if (!x->has_device || !x->has_model || !x->has_sk)
			continue;
		for (j = 0; j < g->n; j++)
			if (j != i && g->v[j].has_device && g->v[j].has_model &&
			    g->v[j].has_sk && g->v[j].device == x->device &&
			    g->v[j].model == x->model && g->v[j].sk == x->sk)
				add_blocker(x, "metadata_group_duplicate");
	}
	for (i = 0; i < g->n; i++)
		if (g->v[i].nblockers > 1)	/* none: blockers is NULL */
			qsort(g->v[i].blockers, g->v[i].nblockers,
			    sizeof(*g->v[i].blockers), cmp_str);
	if (g->n > 1)
		qsort(g->v, g->n, sizeof(*g->v), cmp_fgroup);
}

void
tc_analysis__fgroups_free(struct an_fgroups *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].scope);
		free(g->v[i].start_op);
		free(g->v[i].end_op);
		free(g->v[i].node);
		free(g->v[i].kernel);
		free(g->v[i].blockers);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}
