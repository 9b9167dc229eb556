/*
 * slurm_status.c - "tunectl lease status --via slurm": the cluster's
 * generic resources (total, allocated, free per GRES name, per node) and
 * the jobs that hold or wait for them, tunectl's recognised by their
 * "tunectl:<command-id>" job name.  Asks scontrol and squeue; takes
 * nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "slurm_internal.h"
#include "tunectl/buf.h"
#include "tunectl/slurm.h"

#define FIELD_SEP "\x1f"
#define QUERY_TIMEOUT_S 60

static char *
query(const char *const *argv, tc_error *err)
{
	char *out = NULL, *eout = NULL;
	int rc = tc_slurm__capture((char *const *)argv, QUERY_TIMEOUT_S, &out,
	    &eout, err);

	if (rc != 0) {
		if (rc > 0 || rc < -1)
			tc_error_set(err, "%s failed: %s", argv[0],
			    eout != NULL && *eout != '\0' ? eout : "no output");
		free(out);
		free(eout);
		return NULL;
	}
	free(eout);
	return out;
}

/* The end of the GRES entry at p: the next comma outside parentheses,
 * or the end of the string. */
static const char *
entry_end(const char *p)
{
	int depth = 0;

	for (; *p != '\0' && !(*p == ',' && depth == 0); p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
	}
	return p;
}

/* Call fn for each "name[:type]:count[(...)]" entry of a GRES string. */
static void
each_gres(const char *s, void (*fn)(void *, const char *, size_t, long),
    void *ctx)
{
	const char *p = s;

	if (s == NULL || strcmp(s, "(null)") == 0 || strcmp(s, "N/A") == 0)
		return;
	while (*p != '\0') {
		const char *start = p, *end, *colon, *num;

		p = entry_end(p);
		end = memchr(start, '(', (size_t)(p - start));
		if (end == NULL)
			end = p;
		if (strncmp(start, "gres:", 5) == 0 ||
		    strncmp(start, "gres/", 5) == 0)
			start += 5;
		colon = memchr(start, ':', (size_t)(end - start));
		if (colon != NULL) {
			num = end;
			while (num > colon + 1 && num[-1] >= '0' && num[-1] <= '9')
				num--;
			if (num < end && num[-1] == ':')
				fn(ctx, start, (size_t)(colon - start),
				    strtol(num, NULL, 10));
		}
		if (*p == ',')
			p++;
	}
}

struct add_ctx {
	tc_json *obj;
	const char *field;
};

static void
add_count(void *vctx, const char *name, size_t len, long count)
{
	struct add_ctx *ctx = vctx;
	char *key = tc_xstrndup(name, len);
	tc_json *entry = tc_json_get(ctx->obj, key);
	int64_t have = 0;

	if (entry == NULL) {
		entry = tc_json_new_object();
		tc_json_object_set_int(entry, "total", 0);
		tc_json_object_set_int(entry, "allocated", 0);
		tc_json_object_set(ctx->obj, key, entry);
	}
	tc_json_int64(tc_json_get(entry, ctx->field), &have);
	tc_json_object_set_int(entry, ctx->field, have + count);
	free(key);
}

static bool
in_list(const char *list, const char *item)
{
	size_t len = strlen(item);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, item, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return false;
}

static tc_json *
split_list(const char *list)
{
	tc_json *arr = tc_json_new_array();
	const char *p = list;

	while (p != NULL && *p != '\0' && strcmp(p, "(null)") != 0) {
		size_t l = strcspn(p, ",");

		tc_json_array_push(arr, tc_json_new_stringn(p, l));
		p += l;
		if (*p == ',')
			p++;
	}
	return arr;
}

static tc_json *
nodes_json(const char *text, const char *partition, tc_json *totals)
{
	tc_json *nodes = tc_json_new_array();
	char *copy = tc_xstrdup(text), *line, *save = NULL;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *name = tc_slurm_field(line, "NodeName");
		char *state = tc_slurm_field(line, "State");
		char *parts = tc_slurm_field(line, "Partitions");
		char *gres = tc_slurm_field(line, "Gres");
		char *used = tc_slurm_field(line, "GresUsed");
		tc_json *n, *g = tc_json_new_object();
		struct add_ctx ctx;

		if (name == NULL || (partition != NULL &&
		    (parts == NULL || !in_list(parts, partition)))) {
			tc_json_free(g);
			goto next;
		}
		ctx.obj = g;
		ctx.field = "total";
		each_gres(gres, add_count, &ctx);
		ctx.field = "allocated";
		each_gres(used, add_count, &ctx);
		ctx.obj = totals;
		ctx.field = "total";
		each_gres(gres, add_count, &ctx);
		ctx.field = "allocated";
		each_gres(used, add_count, &ctx);
		n = tc_json_new_object();
		tc_json_object_set_string(n, "node", name);
		tc_json_object_set_string(n, "state", state != NULL ? state : "");
		tc_json_object_set(n, "partitions", split_list(parts));
		tc_json_object_set(n, "gres", g);
		tc_json_array_push(nodes, n);
next:
		free(name);
		free(state);
		free(parts);
		free(gres);
		free(used);
	}
	free(copy);
	return nodes;
}

/* "gpu:1(IDX:0),npu:2(IDX:0-1)" → {"gpu": [0], "npu": [0, 1]} */
static tc_json *
devices_json(const char *alloc)
{
	tc_json *d = tc_json_new_object();
	const char *p = alloc;

	while (p != NULL && *p != '\0') {
		size_t nl = strcspn(p, ":,(");
		char *name = tc_xstrndup(p, nl);
		long *ids;
		size_t n, i;

		if (tc_json_get(d, name) == NULL &&
		    tc_slurm_gres_idx(alloc, name, &ids, &n) == 0) {
			tc_json *arr = tc_json_new_array();

			for (i = 0; i < n; i++)
				tc_json_array_push(arr, tc_json_new_int(ids[i]));
			tc_json_object_set(d, name, arr);
			free(ids);
		}
		free(name);
		p = entry_end(p);		/* next top-level entry */
		if (*p == ',')
			p++;
	}
	return d;
}

/* The " GRES=" allocation of job id in "scontrol -d -o show job". */
static char *
job_alloc(const char *detail, const char *id)
{
	char *key = tc_xasprintf("JobId=%s ", id);
	const char *line = detail, *end, *g;
	char *out = NULL;

	while ((line = strstr(line, key)) != NULL) {
		if (line == detail || line[-1] == '\n')
			break;
		line++;
	}
	free(key);
	if (line == NULL)
		return NULL;
	end = strchr(line, '\n');
	if (end == NULL)
		end = line + strlen(line);
	for (g = line; (g = strstr(g, " GRES=")) != NULL && g < end; g += 6) {
		size_t l = strcspn(g + 6, " \n");

		if (l > 0) {
			char *piece = tc_xstrndup(g + 6, l);

			if (out == NULL) {
				out = piece;
			} else {
				char *joined = tc_xasprintf("%s,%s", out, piece);

				free(out);
				free(piece);
				out = joined;
			}
		}
	}
	return out;
}

static tc_json *
requested_json(const char *tres)
{
	tc_json *r = tc_json_new_object();
	struct add_ctx ctx = { r, "total" };
	tc_json *out = tc_json_new_object();
	size_t i;

	each_gres(tres, add_count, &ctx);
	for (i = 0; i < r->u.obj.len; i++) {
		int64_t v = 0;

		tc_json_int64(tc_json_get(r->u.obj.members[i].value, "total"), &v);
		tc_json_object_set_int(out, r->u.obj.members[i].key, v);
	}
	tc_json_free(r);
	return out;
}

static void
jobs_json(const char *text, const char *detail, const char *partition,
    tc_json *holders, tc_json *waiting)
{
	char *copy = tc_xstrdup(text), *line, *save = NULL;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		/* id state partition nodes tres submit start reason name comment */
		char *f[10];
		size_t nf = 0;
		char *p = line, *alloc = NULL;
		tc_json *j, *req;
		bool running, ours;

		while (nf < 9) {
			char *sep = strstr(p, FIELD_SEP);

			if (sep == NULL)
				break;
			*sep = '\0';
			f[nf++] = p;
			p = sep + 1;
		}
		if (nf < 9)
			continue;
		f[nf++] = p;
		if (partition != NULL && !in_list(f[2], partition))
			continue;
		req = requested_json(f[4]);
		if (req->u.obj.len == 0) {
			tc_json_free(req);
			continue;
		}
		running = strcmp(f[1], "PENDING") != 0;
		ours = strncmp(f[8], TC_SLURM_JOB_PREFIX,
		    strlen(TC_SLURM_JOB_PREFIX)) == 0;
		j = tc_json_new_object();
		tc_json_object_set(j, "job_id", tc_slurm__job_id_json(f[0]));
		tc_json_object_set_string(j, "job_name", f[8]);
		tc_json_object_set_bool(j, "tunectl", ours);
		if (ours)
			tc_json_object_set_string(j, "command_id",
			    f[8] + strlen(TC_SLURM_JOB_PREFIX));
		else
			tc_json_object_set_null(j, "command_id");
		if (strcmp(f[9], "(null)") != 0)
			tc_json_object_set_string(j, "comment", f[9]);
		else
			tc_json_object_set_null(j, "comment");
		tc_json_object_set_string(j, "state", f[1]);
		tc_json_object_set_string(j, "partition", f[2]);
		tc_json_object_set(j, "gres_requested", req);
		tc_json_object_set_string(j, "submitted_at", f[5]);
		if (running) {
			tc_json_object_set_string(j, "node", f[3]);
			tc_json_object_set_string(j, "started_at", f[6]);
			alloc = job_alloc(detail, f[0]);
			tc_json_object_set(j, "devices", devices_json(alloc));
			free(alloc);
			tc_json_array_push(holders, j);
		} else {
			tc_json_object_set_string(j, "reason", f[7]);
			tc_json_array_push(waiting, j);
		}
	}
	free(copy);
}

tc_json *
tc_slurm_status(const char *partition, tc_error *err)
{
	static const char *const nodes_argv[] = {
		"scontrol", "-o", "-d", "show", "node", NULL
	};
	static const char *const detail_argv[] = {
		"scontrol", "-o", "-d", "show", "job", NULL
	};
	static const char *const squeue_argv[] = {
		"squeue", "-h", "-t", "PD,R,CG,S", "-o",
		"%i" FIELD_SEP "%T" FIELD_SEP "%P" FIELD_SEP "%N" FIELD_SEP "%b"
		FIELD_SEP "%V" FIELD_SEP "%S" FIELD_SEP "%r" FIELD_SEP "%j"
		FIELD_SEP "%k", NULL
	};
	char *nodes_text = NULL, *detail = NULL, *jobs = NULL;
	tc_json *out = NULL, *totals, *holders, *waiting;
	size_t i;

	/* Jobs before nodes: a job seen running is counted in its node's
	 * GresUsed unless it ended in between (never the other way). */
	if ((jobs = query(squeue_argv, err)) == NULL ||
	    (detail = query(detail_argv, err)) == NULL ||
	    (nodes_text = query(nodes_argv, err)) == NULL)
		goto done;
	out = tc_json_new_object();
	totals = tc_json_new_object();
	holders = tc_json_new_array();
	waiting = tc_json_new_array();
	tc_json_object_set_string(out, "backend", "slurm");
	if (partition != NULL)
		tc_json_object_set_string(out, "partition", partition);
	else
		tc_json_object_set_null(out, "partition");
	tc_json_object_set(out, "nodes", nodes_json(nodes_text, partition,
	    totals));
	for (i = 0; i < totals->u.obj.len; i++) {
		tc_json *e = totals->u.obj.members[i].value;
		int64_t t = 0, a = 0;

		tc_json_int64(tc_json_get(e, "total"), &t);
		tc_json_int64(tc_json_get(e, "allocated"), &a);
		tc_json_object_set_int(e, "free", t - a);
	}
	tc_json_object_set(out, "gres", totals);
	jobs_json(jobs, detail, partition, holders, waiting);
	tc_json_object_set(out, "holders", holders);
	tc_json_object_set(out, "waiting", waiting);
done:
	free(nodes_text);
	free(detail);
	free(jobs);
	return out;
}
