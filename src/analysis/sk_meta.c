/*
 * sk_meta.c - the fused-node groups of TorchAir's SuperKernel metadata:
 * every sk_fused_nodes.log under the --sk-meta directory, read as the
 * reference reads it.  A header line
 *     SK Function: <name>, scope id: <n>, Node Count: <n>
 * opens a group; each later line holding
 *     nodeId:<n>, streamId:<n> ... KernelInfos{funcName:<f>, kernelType:<t>
 * adds a child node.  The model of a log is the nearest directory
 * model_<digits>[_...] above it (up to the root).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits at s[*i..n) (at least one), their value in *v. */
static bool
digits(const char *s, size_t n, size_t *i, int64_t *v)
{
	size_t st = *i;
	int64_t x = 0;

	while (*i < n && is_digit(s[*i])) {
		if (x < INT64_MAX / 10)
			x = x * 10 + (s[*i] - '0');
		(*i)++;
	}
	*v = x;
	return *i > st;
}

static bool
literal(const char *s, size_t n, size_t *i, const char *lit)
{
	size_t l = strlen(lit);

	if (*i + l > n || memcmp(s + *i, lit, l) != 0)
		return false;
	*i += l;
	return true;
}

static const char *
find(const char *s, size_t n, size_t from, const char *lit)
{
	size_t l = strlen(lit), i;

	for (i = from; i + l <= n; i++)
		if (memcmp(s + i, lit, l) == 0)
			return s + i;
	return NULL;
}

/* The header regex; the name is s[*ns..*ne). */
static bool
match_header(const char *s, size_t n, size_t *ns, size_t *ne, int64_t *scope,
    int64_t *count)
{
	const char *p;
	size_t from = 0;

	while ((p = find(s, n, from, "SK Function:")) != NULL) {
		size_t i = (size_t)(p - s) + 12, c;

		from = (size_t)(p - s) + 1;
		tc_analysis__skip_space(s, n, &i);
		for (c = i; c < n; c++) {
			size_t j = c + 1;

			if (s[c] != ',')
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!literal(s, n, &j, "scope id:"))
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!digits(s, n, &j, scope) || j >= n || s[j] != ',')
				continue;
			j++;
			tc_analysis__skip_space(s, n, &j);
			if (!literal(s, n, &j, "Node Count:"))
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!digits(s, n, &j, count))
				continue;
			*ns = i;
			*ne = c;
			return true;
		}
	}
	return false;
}

/* A maximal run of characters other than ',' and '}', at least one. */
static size_t
field_run(const char *s, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && s[j] != ',' && s[j] != '}')
		j++;
	return j - i;
}

static bool
match_node(const char *s, size_t n, struct an_node *node)
{
	const char *p, *k;
	size_t from = 0;

	while ((p = find(s, n, from, "nodeId:")) != NULL) {
		size_t i = (size_t)(p - s) + 7, kf;
		int64_t nid, sid;

		from = (size_t)(p - s) + 1;
		if (!digits(s, n, &i, &nid) || !literal(s, n, &i, ","))
			continue;
		tc_analysis__skip_space(s, n, &i);
		if (!literal(s, n, &i, "streamId:") ||
		    !digits(s, n, &i, &sid))
			continue;
		for (kf = i; (k = find(s, n, kf, "KernelInfos{funcName:"))
		    != NULL; kf = (size_t)(k - s) + 1) {
			size_t f = (size_t)(k - s) + 21, fl, j, tl;

			fl = field_run(s, n, f);
			if (fl == 0 || f + fl >= n || s[f + fl] != ',')
				continue;
			j = f + fl + 1;
			tc_analysis__skip_space(s, n, &j);
			if (!literal(s, n, &j, "kernelType:"))
				continue;
			if ((tl = field_run(s, n, j)) == 0)
				continue;
			node->node_id = nid;
			node->stream_id = sid;
			node->func_name = tc_xstrndup(s + f, fl);
			node->kernel_type = tc_xstrndup(s + j, tl);
			return true;
		}
	}
	return false;
}

struct log_ctx {
	struct an_groups *out;
	const char *model_id;
	bool have_current;
};

static void
on_line(void *vctx, const char *line, size_t len)
{
	struct log_ctx *ctx = vctx;
	struct an_groups *g = ctx->out;
	struct an_node node;
	size_t ns, ne;
	int64_t scope, count;

	if (match_header(line, len, &ns, &ne, &scope, &count)) {
		struct an_group *grp;

		g->items = tc_xrealloc(g->items, (g->len + 1) *
		    sizeof(*g->items));
		grp = &g->items[g->len++];
		memset(grp, 0, sizeof(*grp));
		grp->function = tc_xstrndup(line + ns, ne - ns);
		grp->model_id = ctx->model_id ? tc_xstrdup(ctx->model_id) :
		    NULL;
		grp->scope_id = scope;
		grp->node_count = count;
		grp->has_signature = tc_analysis__parse_sk_name(grp->function, &grp->sig);
		ctx->have_current = true;
		return;
	}
	memset(&node, 0, sizeof(node));
	if (ctx->have_current && match_node(line, len, &node)) {
		struct an_group *grp = &g->items[g->len - 1];

		node.op_type = tc_analysis__op_from_function(node.func_name);
		node.family = tc_analysis__core_family("", "", node.func_name,
		    node.kernel_type);
		grp->nodes = tc_xrealloc(grp->nodes, (grp->nnodes + 1) *
		    sizeof(*grp->nodes));
		grp->nodes[grp->nnodes++] = node;
	}
}

void
tc_analysis__fused_log_parse(const char *raw, size_t len, const char *model_id,
    struct an_groups *out)
{
	struct log_ctx ctx = { out, model_id, false };
	size_t tlen;
	char *text = tc_analysis__utf8_replace(raw, len, &tlen);

	tc_analysis__splitlines(text, tlen, on_line, &ctx);
	free(text);
}

static bool
model_dir(const char *name, char **model)
{
	size_t i = 6;

	if (strncmp(name, "model_", 6) != 0 || !is_digit(name[i]))
		return false;
	while (is_digit(name[i]))
		i++;
	if (name[i] != '\0' && name[i] != '_')
		return false;
	*model = tc_xstrndup(name + 6, i - 6);
	return true;
}

/* The model id of a log under root, or NULL. */
static char *
model_of(const char *log_path, const char *root_resolved)
{
	tc_error err = TC_ERROR_INIT;
	char *p = tc_path_resolve(log_path, &err), *model = NULL;

	tc_error_clear(&err);
	if (p == NULL)
		return NULL;
	for (;;) {
		char *slash = strrchr(p, '/');

		if (slash == NULL || slash == p) {
			if (slash == p && strcmp(root_resolved, "/") == 0)
				break;
			break;
		}
		*slash = '\0';
		if (model_dir(strrchr(p, '/') + 1, &model))
			break;
		if (strcmp(p, root_resolved) == 0)
			break;
	}
	free(p);
	return model;
}

int
tc_analysis__sk_meta_load(const char *root, struct an_groups *out, tc_error *err)
{
	struct an_paths logs;
	tc_error rerr = TC_ERROR_INIT;
	char *root_resolved;
	size_t i;

	memset(out, 0, sizeof(*out));
	if ((root_resolved = tc_path_resolve(root, &rerr)) == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return -1;
	}
	tc_analysis__rglob(root, "sk_fused_nodes.log", &logs, err);
	for (i = 0; i < logs.len; i++) {
		size_t len;
		char *raw = tc_read_file(logs.items[i], TC_READ_MAX_BYTES, &len,
		    err), *model;

		if (raw == NULL) {
			tc_analysis__paths_free(&logs);
			free(root_resolved);
			return -1;
		}
		model = model_of(logs.items[i], root_resolved);
		tc_analysis__fused_log_parse(raw, len, model, out);
		free(model);
		free(raw);
	}
	tc_analysis__paths_free(&logs);
	free(root_resolved);
	return 0;
}

void
tc_analysis__groups_free(struct an_groups *g)
{
	size_t i, j;

	for (i = 0; i < g->len; i++) {
		struct an_group *grp = &g->items[i];

		free(grp->function);
		free(grp->model_id);
		tc_analysis__boundary_free(&grp->sig);
		for (j = 0; j < grp->nnodes; j++) {
			free(grp->nodes[j].func_name);
			free(grp->nodes[j].kernel_type);
			free(grp->nodes[j].op_type);
		}
		free(grp->nodes);
	}
	free(g->items);
	memset(g, 0, sizeof(*g));
}
