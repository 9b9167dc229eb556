/*
 * fusion.c - the SuperKernel fusion performance analysis: from the SK-off
 * and SK-on kernel_details.csv, the fused-node metadata and the run's
 * configs, the per-SK decisions of profiling-analysis-result.json
 * (schema "1.2"), the document itself with its content fingerprint, and
 * its two outputs written together or not at all.
 *
 * Both profiles are read once, row by row.  What is kept is bounded by
 * the SKs and the steps, not by the rows: per candidate SK identity its
 * durations; of the baseline, counts per task, per model and task and per
 * launch name, and the rows of the tasks that fused-node metadata names,
 * each reduced to numbers and indices into tables of the distinct
 * models, devices, occurrence keys and operators.
 *
 * Mapping a candidate SK to its SK-off children:
 *   - structural (collection manifests of both profiles, the projected
 *     trace of the candidate's graph): exact when the projection is;
 *   - legacy (sk_meta node ids, task ranges): diagnostic only, so a
 *     decision made from it is insufficient_evidence / reprofile.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "tunectl/path.h"
#include "tunectl/fileio.h"
#include "tunectl/finder.h"
#include "tunectl/heap.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"

/* ---- the baseline profile ------------------------------------------------ */

#define BR_TASK 1u		/* task holds the Task ID */
#define BR_SCALAR 2u		/* scalar holds the scalar times' sum */
#define NO_KEY UINT32_MAX	/* no occurrence discriminator */

/* A kept row, reduced to what the legacy mapping reads: its strings are
 * indices into the baseline's tables (steps and names repeat). */
struct base_row {
	double start, duration;
	double task;		/* Task ID (BR_TASK) */
	double scalar;		/* aic + aiv scalar time, 0 for None (BR_SCALAR:
				 * finite) */
	uint32_t domain;	/* (model, device) in domains */
	uint32_t key;		/* occurrence key in keys, or NO_KEY */
	uint32_t op;		/* _baseline_row_operator in ops */
	uint8_t flags;
};

/* A (model, device) pair of kept rows. */
struct domain {
	uint32_t model;		/* in models */
	an_num device;
};

/* A launch name: its rows, and the operator of its last kept type. */
struct name_rec {
	size_t count;
	char *type;		/* NULL until a row of it is kept */
	uint32_t op;
};

struct baseline {
	const struct an_nmap *keep;	/* task numbers of metadata child nodes */
	struct an_nmap by_model_task;	/* (model, task) -> rows */
	struct an_nmap by_task;		/* (0, task) -> rows */
	struct an_map by_name;		/* launch name -> index in names */
	struct name_rec *names;
	size_t nnames;
	struct base_row *rows;
	size_t n, cap, total;
	tc_buf key;			/* scratch */
	struct an_map model_of;		/* model id -> index in models */
	char **models;
	size_t nmodels;
	struct an_nmap domain_of;	/* (model, device) -> index in domains */
	struct domain *domains;
	size_t ndomains;
	struct an_map key_of;		/* occurrence key -> index in keys */
	char **keys;			/* canonical JSON text */
	size_t nkeys;
	uint32_t *rank;			/* of each key in strcmp order */
	struct an_map op_of;		/* "type\x1fname" -> index in ops */
	char **ops;
	size_t nops;
	struct an_nmap first;		/* (0, task) -> 1 + its first kept row */
	size_t *next;			/* kept row -> 1 + the next of its task */
	/* the last row's model and occurrence (rows come in runs) */
	tc_buf last_model, last_val;
	uint32_t last_model_id, last_key, last_domain;
	int last_field;
	bool have_model, have_key;
};

static void
task_key(char *buf, size_t len, double task)
{
	if (task >= 0 && task < 1e15 && task == (double)(int64_t)task) {
		char tmp[24];
		int64_t v = (int64_t)task;
		size_t n = 0, i;

		do {
			tmp[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v > 0);
		for (i = 0; i < n && i + 1 < len; i++)
			buf[i] = tmp[n - 1 - i];
		buf[i] = '\0';
		return;
	}
	snprintf(buf, len, "%.17g", task);
}

static char *normalize_op(const char *s);

/* _baseline_row_operator: the normalized Type, unless the launch name's
 * operator says otherwise (then None); one answer per (type, name), as
 * an index in ops (whose entry may be NULL). */
static uint32_t
row_operator(struct baseline *b, const char *type, const char *name)
{
	size_t *slot;
	bool created;

	tc_buf_reset(&b->key);
	tc_buf_puts(&b->key, type);
	tc_buf_putc(&b->key, '\x1f');
	tc_buf_puts(&b->key, name);
	slot = tc_analysis__map_slot(&b->op_of, tc_buf_cstr(&b->key), &created);
	if (created) {
		char *t = normalize_op(type), *op = tc_analysis__op_from_function(name);
		char *f = normalize_op(op);

		b->ops = tc_xrealloc(b->ops, (b->nops + 1) * sizeof(*b->ops));
		if (t != NULL && f != NULL && strcmp(t, f) != 0) {
			b->ops[b->nops] = NULL;
			free(t);
		} else {
			b->ops[b->nops] = t != NULL ? t : tc_xstrdup(f ? f : "");
			if (t == NULL && f == NULL) {
				free(b->ops[b->nops]);
				b->ops[b->nops] = NULL;
			}
		}
		free(op);
		free(f);
		*slot = b->nops++;
	}
	return (uint32_t)*slot;
}

/* The index of s in a string table, added when new. */
static uint32_t
table_index(struct an_map *of, char ***strs, size_t *n, const char *s)
{
	bool created;
	size_t *slot = tc_analysis__map_slot(of, s, &created);

	if (created) {
		if ((*n & (*n - 1)) == 0)
			*strs = tc_xrealloc(*strs, (*n ? 2 * *n : 1) *
			    sizeof(**strs));
		(*strs)[*n] = tc_xstrdup(s);
		*slot = (*n)++;
	}
	return (uint32_t)*slot;
}

static uint32_t
model_index(struct baseline *b, const char *model)
{
	if (!b->have_model || strcmp(b->last_model.data, model) != 0) {
		b->last_model_id = table_index(&b->model_of, &b->models,
		    &b->nmodels, model);
		tc_buf_reset(&b->last_model);
		tc_buf_puts(&b->last_model, model);
		b->have_model = true;
	}
	return b->last_model_id;
}

static uint32_t
domain_index(struct baseline *b, uint32_t model, an_num device)
{
	bool created;
	size_t *slot = tc_analysis__nmap_slot(&b->domain_of,
	    (uint64_t)model << 1 | device.ok, device.ok ?
	    tc_analysis__num_key(device.v) : 0, &created);

	if (created) {
		if ((b->ndomains & (b->ndomains - 1)) == 0)
			b->domains = tc_xrealloc(b->domains, (b->ndomains ?
			    2 * b->ndomains : 1) * sizeof(*b->domains));
		b->domains[b->ndomains].model = model;
		b->domains[b->ndomains].device = device;
		*slot = b->ndomains++;
	}
	return (uint32_t)*slot;
}

/* s needs no escaping in JSON */
static bool
json_plain(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\')
			return false;
	return true;
}

/* The occurrence key [model, device, field, value] as canonical JSON
 * text, malloc'd (NULL if it cannot be written). */
static char *
occurrence_text(const char *model, an_num device, const char *field,
    const char *val)
{
	tc_json *k;
	char *text;

	if (json_plain(model) && json_plain(val) &&
	    (!device.ok || fabs(device.v) < 1e15)) {
		tc_buf b = TC_BUF_INIT;

		tc_buf_putc(&b, '[');
		tc_buf_putc(&b, '"');
		tc_buf_puts(&b, model);
		tc_buf_puts(&b, "\",");
		if (device.ok)
			tc_buf_printf(&b, "%lld", (long long)device.v);
		else
			tc_buf_puts(&b, "null");
		tc_buf_puts(&b, ",\"");
		tc_buf_puts(&b, field);
		tc_buf_puts(&b, "\",\"");
		tc_buf_puts(&b, val);
		tc_buf_puts(&b, "\"]");
		tc_buf_grow(&b, 0);
		return tc_buf_detach(&b, NULL);
	}
	k = tc_json_new_array();
	tc_json_array_push(k, tc_json_new_string(model));
	tc_json_array_push(k, tc_analysis__json_intnum(device));
	tc_json_array_push(k, tc_json_new_string(field));
	tc_json_array_push(k, tc_json_new_string(val));
	text = tc_json_canonical(k, NULL, NULL);
	tc_json_free(k);
	return text;
}

/* The occurrence key of a row: its step, else the first discriminator
 * it has (occurrence, iteration, request, batch); NO_KEY for none. */
static uint32_t
occurrence_index(struct baseline *b, uint32_t domain, const struct an_row *r)
{
	static const char *const fields[5] = { "step_id", "occurrence_id",
	    "iteration_id", "request_id", "batch_id" };
	const char *val = r->step_id;
	int f = 0;
	char *text;

	if (val[0] == '\0') {
		for (f = 1; f < 5 && r->discriminator[f - 1][0] == '\0'; f++)
			;
		if (f == 5)
			return NO_KEY;
		val = r->discriminator[f - 1];
	}
	if (b->have_key && b->last_domain == domain && b->last_field == f &&
	    strcmp(b->last_val.data, val) == 0)
		return b->last_key;
	text = occurrence_text(b->models[b->domains[domain].model],
	    b->domains[domain].device, fields[f], val);
	if (text == NULL)
		return NO_KEY;
	b->last_key = table_index(&b->key_of, &b->keys, &b->nkeys, text);
	free(text);
	b->last_domain = domain;
	b->last_field = f;
	tc_buf_reset(&b->last_val);
	tc_buf_puts(&b->last_val, val);
	b->have_key = true;
	return b->last_key;
}

/* Only the rows of the tasks fused-node metadata names are kept whole. */
static bool
baseline_wants(void *vctx, const struct an_row *r)
{
	struct baseline *b = vctx;

	if (!r->task_id.ok || b->keep == NULL)
		return false;
	return tc_analysis__nmap_find(b->keep, 0,
	    tc_analysis__num_key(r->task_id.v)) != NULL;
}

static bool
is_sk_row(const struct an_row *r)
{
	return strcmp(r->type, "SuperKernel") == 0 ||
	    strncmp(r->name, "sk_", 3) == 0;
}

static bool
candidate_wants(void *vctx, const struct an_row *r)
{
	(void)vctx;
	return is_sk_row(r);
}

static int
baseline_row(void *vctx, const struct an_row *r, tc_error *err)
{
	struct baseline *b = vctx;
	struct name_rec *nr;
	struct base_row *k;
	an_num a, v, s;
	size_t *slot;
	uint32_t model;
	uint64_t task;
	bool created;

	(void)err;
	b->total++;
	slot = tc_analysis__map_slot(&b->by_name, r->name, &created);
	if (created) {
		if ((b->nnames & (b->nnames - 1)) == 0)
			b->names = tc_xrealloc(b->names, (b->nnames ?
			    2 * b->nnames : 1) * sizeof(*b->names));
		memset(&b->names[b->nnames], 0, sizeof(*b->names));
		*slot = b->nnames++;
	}
	nr = &b->names[*slot];
	nr->count++;
	if (!r->task_id.ok)
		return 0;
	model = model_index(b, r->model_id);
	task = tc_analysis__num_key(r->task_id.v);
	(*tc_analysis__nmap_slot(&b->by_model_task, model, task, NULL))++;
	(*tc_analysis__nmap_slot(&b->by_task, 0, task, NULL))++;
	if (r->partial)
		return 0;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->rows = tc_xrealloc(b->rows, b->cap * sizeof(*b->rows));
	}
	if (nr->type == NULL || strcmp(nr->type, r->type) != 0) {
		nr->op = row_operator(b, r->type, r->name);
		free(nr->type);
		nr->type = tc_xstrdup(r->type);
	}
	k = &b->rows[b->n++];
	k->start = r->start;
	k->duration = r->duration;
	k->task = r->task_id.v;
	k->flags = BR_TASK;
	a = r->aic_scalar_time.ok && r->aic_scalar_time.v != 0 ?
	    r->aic_scalar_time : AN_NUM(0);
	v = r->aiv_scalar_time.ok && r->aiv_scalar_time.v != 0 ?
	    r->aiv_scalar_time : AN_NUM(0);
	s = tc_analysis__sum2(a, v);
	k->scalar = s.ok ? s.v : 0;
	if (s.ok)
		k->flags |= BR_SCALAR;
	k->domain = domain_index(b, model, r->device_id);
	k->key = occurrence_index(b, k->domain, r);
	k->op = nr->op;
	return 0;
}

static void
free_table(char **strs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
}

static void
baseline_free(struct baseline *b)
{
	size_t i;

	for (i = 0; i < b->nnames; i++)
		free(b->names[i].type);
	free(b->names);
	free_table(b->models, b->nmodels);
	free_table(b->keys, b->nkeys);
	free_table(b->ops, b->nops);
	free(b->rank);
	free(b->domains);
	free(b->rows);
	free(b->next);
	tc_analysis__map_free(&b->model_of);
	tc_analysis__map_free(&b->key_of);
	tc_analysis__map_free(&b->op_of);
	tc_analysis__map_free(&b->by_name);
	tc_buf_free(&b->key);
	tc_buf_free(&b->last_model);
	tc_buf_free(&b->last_val);
	tc_analysis__nmap_free(&b->domain_of);
	tc_analysis__nmap_free(&b->first);
	tc_analysis__nmap_free(&b->by_model_task);
	tc_analysis__nmap_free(&b->by_task);
}

static const char *const *rank_keys;

static int
cmp_key_index(const void *a, const void *b)
{
	return strcmp(rank_keys[*(const uint32_t *)a],
	    rank_keys[*(const uint32_t *)b]);
}

/* Chain the kept rows of each task, in file order; rank the occurrence
 * keys in strcmp order. */
static void
baseline_index(struct baseline *b)
{
	size_t i, *last = tc_xcalloc(b->n + 1, sizeof(*last));
	uint32_t *order = tc_xmalloc((b->nkeys + 1) * sizeof(*order));

	b->next = tc_xcalloc(b->n + 1, sizeof(*b->next));
	for (i = 0; i < b->n; i++) {
		bool created;
		size_t *slot = tc_analysis__nmap_slot(&b->first, 0,
		    tc_analysis__num_key(b->rows[i].task), &created);

		if (created)
			*slot = i + 1;
		else
			b->next[last[*slot - 1]] = i + 1;
		last[*slot - 1] = i;
	}
	free(last);
	for (i = 0; i < b->nkeys; i++)
		order[i] = (uint32_t)i;
	rank_keys = (const char *const *)b->keys;
	qsort(order, b->nkeys, sizeof(*order), cmp_key_index);
	b->rank = tc_xmalloc((b->nkeys + 1) * sizeof(*b->rank));
	for (i = 0; i < b->nkeys; i++)
		b->rank[order[i]] = (uint32_t)i;
	free(order);
}

/* ---- the candidate profile ------------------------------------------------- */

/* One candidate SK identity: {identity, device_id, raw_sk_id}. */
struct cgroup {
	char *key;		/* its canonical JSON (the sort key) */
	tc_json *identity;
	an_num device_id, raw_sk_id;
	size_t *meta, nmeta;	/* sk_meta groups of its child sequence */
	size_t matching;	/* sk_meta groups matching its signature */
	/* the first row by start time */
	double rep_start;
	char *rep_model, *rep_name;
	an_num rep_task, rep_stream;
	bool rep_has_boundary;
	struct an_boundary rep_boundary;
	double *dur;
	size_t n, cap;
	bool end_error;
	const struct an_binding *sb;	/* its structural binding */
};

/* A (model, device, name) of SK rows as first read, and one SK row
 * waiting for its groups (struct candidate). */
struct row_kind {
	char *model, *name;
	an_num device;
	/* its first row of the least start (has_rep: one below infinity) */
	bool has_rep;
	double rep_start;
	size_t rep_row;
	an_num rep_task, rep_stream;
};
struct pending_row {
	uint32_t kind;
	bool end_ok;
	double duration;
};

struct candidate {
	const struct an_groups *groups;
	const struct an_structural *st;	/* NULL: no association */
	struct an_map by_key;		/* identity key -> group index */
	struct cgroup *g;
	size_t ng;
	struct an_map by_row;		/* model\x1fdevice\x1fname -> list */
	size_t **lists;
	size_t *list_len;
	size_t nlists;
	struct an_map rejected;		/* model\x1fsignature of rejected rows */
	size_t sk_rows, total;
	tc_buf key;			/* scratch */
	/*
	 * The rows are read before the groups are known (with collection
	 * manifests, on a thread of their own while the association binds
	 * the SKs the groups depend on): by_row maps to an index in kinds,
	 * and each SK row waits in pending, in file order, until
	 * candidate_resolve() makes the kinds' group lists and replays them.
	 */
	struct row_kind *kinds;
	size_t nkinds;
	struct pending_row *pending;
	size_t npending, pcap;
};

static void task_key(char *buf, size_t len, double task);
static void append_all(tc_json *to, const tc_json *from);

static void
num_text(tc_buf *b, an_num x)
{
	char t[40];

	if (x.ok) {
		task_key(t, sizeof(t), x.v);
		tc_buf_puts(b, t);
	} else {
		tc_buf_puts(b, "None");
	}
}

static void
signature_key(tc_buf *b, const char *model, const struct an_boundary *bd)
{
	tc_buf_printf(b, "%s\x1f%s\x1f%s\x1f%s", model, bd->scope,
	    bd->start_op ? bd->start_op : "\x01", bd->end_op ? bd->end_op :
	    "\x01");
}

static int
candidate_rejected(void *vctx, const struct an_rejected *r, tc_error *err)
{
	struct candidate *c = vctx;
	struct an_boundary bd;
	tc_buf k = TC_BUF_INIT;

	(void)err;
	if (!tc_analysis__parse_sk_name(r->name, &bd))
		return 0;
	signature_key(&k, r->model_id, &bd);
	tc_analysis__map_slot(&c->rejected, tc_buf_cstr(&k), NULL);
	tc_buf_free(&k);
	tc_analysis__boundary_free(&bd);
	return 0;
}

static bool
opt_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The group list of a (model, device, name) seen for the first time. */
static size_t
new_row_kind(struct candidate *c, const struct an_row *r)
{
	struct an_boundary bd;
	bool parsed = tc_analysis__parse_sk_name(r->name, &bd);
	an_num raw = tc_analysis__raw_sk_id(r->name);
	size_t *match = NULL, nmatch = 0, i, j;
	char **seqkeys = NULL;
	size_t *bucket_of = NULL, nbuckets = 0;
	size_t *list = NULL, nlist = 0;
	const struct an_binding *sb = tc_analysis__binding(c->st, r->device_id,
	    r->model_id, raw);

	/* a valid binding stands for the metadata groups */
	for (i = 0; parsed && !(sb != NULL && sb->valid) &&
	    i < c->groups->len; i++) {
		const struct an_group *g = &c->groups->items[i];

		if (!g->has_signature || g->model_id == NULL ||
		    strcmp(g->model_id, r->model_id) != 0 ||
		    strcmp(g->sig.scope, bd.scope) != 0 ||
		    !opt_eq(g->sig.start_op, bd.start_op) ||
		    !opt_eq(g->sig.end_op, bd.end_op))
			continue;
		match = tc_xrealloc(match, (nmatch + 1) * sizeof(*match));
		match[nmatch++] = i;
	}
	/* _metadata_groups_by_sequence: the matching groups by child
	 * sequence, in first-seen order; one empty bucket when none */
	bucket_of = tc_xmalloc((nmatch + 1) * sizeof(*bucket_of));
	for (i = 0; i < nmatch; i++) {
		const struct an_group *g = &c->groups->items[match[i]];
		tc_json *seq = tc_json_new_array();
		char *k;

		for (j = 0; j < g->nnodes; j++)
			tc_json_array_push(seq, g->nodes[j].op_type ?
			    tc_json_new_string(g->nodes[j].op_type) :
			    tc_json_new_null());
		k = tc_json_canonical(seq, NULL, NULL);
		tc_json_free(seq);
		for (j = 0; j < nbuckets; j++)
			if (strcmp(seqkeys[j], k) == 0)
				break;
		if (j == nbuckets) {
			seqkeys = tc_xrealloc(seqkeys, (nbuckets + 1) *
			    sizeof(*seqkeys));
			seqkeys[nbuckets++] = k;
		} else {
			free(k);
		}
		bucket_of[i] = j;
	}
	for (j = 0; j < (nbuckets ? nbuckets : 1); j++) {
		tc_json *identity = tc_json_new_object(), *b, *seq, *keyobj;
		const struct an_group *first = NULL;
		char *key;
		size_t *slot, gi;
		bool created;

		for (i = 0; i < nmatch; i++)
			if (bucket_of[i] == j) {
				first = &c->groups->items[match[i]];
				break;
			}
		seq = tc_json_new_array();
		if (sb != NULL && sb->valid)
			append_all(seq, tc_json_get(sb->mapping,
			    "ordered_child_ops"));
		for (i = 0; first != NULL && i < first->nnodes; i++)
			tc_json_array_push(seq, first->nodes[i].op_type ?
			    tc_json_new_string(first->nodes[i].op_type) :
			    tc_json_new_null());
		tc_json_object_set_string(identity, "model_id", r->model_id);
		tc_json_object_set_string_or_null(identity, "source_scope",
		    parsed ? bd.scope : NULL);
		tc_json_object_set(identity, "ordered_child_op_sequence", seq);
		b = tc_json_new_object();
		tc_json_object_set_string_or_null(b, "start_op",
		    parsed ? bd.start_op : NULL);
		tc_json_object_set_string_or_null(b, "end_op",
		    parsed ? bd.end_op : NULL);
		tc_json_object_set(identity, "boundary", b);
		keyobj = tc_json_new_object();
		tc_json_object_set(keyobj, "identity", tc_json_clone(identity));
		tc_json_object_set(keyobj, "device_id",
		    tc_analysis__json_intnum(r->device_id));
		tc_json_object_set(keyobj, "raw_sk_id",
		    tc_analysis__raw_sk_id_json(r->name));
		key = tc_json_canonical(keyobj, NULL, NULL);
		tc_json_free(keyobj);
		slot = tc_analysis__map_slot(&c->by_key, key, &created);
		if (created) {
			struct cgroup *g;

			c->g = tc_xrealloc(c->g, (c->ng + 1) * sizeof(*c->g));
			g = &c->g[c->ng];
			memset(g, 0, sizeof(*g));
			g->key = key;
			g->identity = identity;
			g->device_id = r->device_id;
			g->raw_sk_id = raw;
			g->matching = nmatch;
			g->sb = sb;
			if (sb != NULL && sb->valid)
				g->matching = 1;
			for (i = 0; i < nmatch; i++) {
				if (bucket_of[i] != j)
					continue;
				g->meta = tc_xrealloc(g->meta, (g->nmeta + 1) *
				    sizeof(*g->meta));
				g->meta[g->nmeta++] = match[i];
			}
			g->rep_start = INFINITY;
			*slot = c->ng++;
		} else {
			free(key);
			tc_json_free(identity);
		}
		gi = *slot;
		list = tc_xrealloc(list, (nlist + 1) * sizeof(*list));
		list[nlist++] = gi;
	}
	for (j = 0; j < nbuckets; j++)
		free(seqkeys[j]);
	free(seqkeys);
	free(bucket_of);
	free(match);
	if (parsed)
		tc_analysis__boundary_free(&bd);
	c->lists = tc_xrealloc(c->lists, (c->nlists + 1) * sizeof(*c->lists));
	c->list_len = tc_xrealloc(c->list_len, (c->nlists + 1) *
	    sizeof(*c->list_len));
	c->lists[c->nlists] = list;
	c->list_len[c->nlists] = nlist;
	return c->nlists++;
}

/* A row's duration and end into each group of list li. */
static void
add_duration(struct candidate *c, size_t li, double duration, bool end_ok)
{
	size_t i;

	for (i = 0; i < c->list_len[li]; i++) {
		struct cgroup *g = &c->g[c->lists[li][i]];

		if (g->n == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 8;
			g->dur = tc_xrealloc(g->dur, g->cap * sizeof(*g->dur));
		}
		g->dur[g->n++] = duration;
		if (!end_ok)
			g->end_error = true;
	}
}

/* A group's representative row: the first of the least start. */
static void
set_rep(struct cgroup *g, double start, const char *model,
    const char *name, an_num task, an_num stream)
{
	g->rep_start = start;
	free(g->rep_model);
	free(g->rep_name);
	if (g->rep_has_boundary)
		tc_analysis__boundary_free(&g->rep_boundary);
	g->rep_model = tc_xstrdup(model);
	g->rep_name = tc_xstrdup(name);
	g->rep_task = task;
	g->rep_stream = stream;
	g->rep_has_boundary = tc_analysis__parse_sk_name(name,
	    &g->rep_boundary);
}

static size_t
new_kind(struct candidate *c, const struct an_row *r)
{
	struct row_kind *k;

	c->kinds = tc_xrealloc(c->kinds, (c->nkinds + 1) * sizeof(*c->kinds));
	k = &c->kinds[c->nkinds];
	memset(k, 0, sizeof(*k));
	k->model = tc_xstrdup(r->model_id);
	k->name = tc_xstrdup(r->name);
	k->device = r->device_id;
	return c->nkinds++;
}

static int
candidate_row(void *vctx, const struct an_row *r, tc_error *err)
{
	struct candidate *c = vctx;
	tc_buf *k = &c->key;
	size_t *slot, li;
	bool created;

	c->total++;
	if (!is_sk_row(r))
		return 0;
	c->sk_rows++;
	tc_buf_reset(k);
	tc_buf_puts(k, r->model_id);
	tc_buf_putc(k, '\x1f');
	num_text(k, r->device_id);
	tc_buf_putc(k, '\x1f');
	tc_buf_puts(k, r->name);
	slot = tc_analysis__map_slot(&c->by_row, tc_buf_cstr(k), &created);
	if (created)
		*slot = new_kind(c, r);
	li = *slot;
	if (li > UINT32_MAX) {
		tc_error_set(err, "%s: too many SuperKernel names", r->name);
		return -1;
	}
	{
		struct row_kind *kd = &c->kinds[li];

		if (r->start < (kd->has_rep ? kd->rep_start : INFINITY)) {
			kd->has_rep = true;
			kd->rep_start = r->start;
			kd->rep_row = c->npending;
			kd->rep_task = r->task_id;
			kd->rep_stream = r->stream_id;
		}
	}
	if (c->npending == c->pcap) {
		c->pcap = c->pcap ? 2 * c->pcap : 1024;
		c->pending = tc_xrealloc(c->pending, c->pcap *
		    sizeof(*c->pending));
	}
	c->pending[c->npending].kind = (uint32_t)li;
	c->pending[c->npending].end_ok = r->end.ok;
	c->pending[c->npending++].duration = r->duration;
	return 0;
}

/*
 * The read made whole once the groups can be known: each kind's group
 * list, in the order the kinds were first read; every row's duration in
 * file order; each group's representative the first row of the least
 * start among its kinds' (ties: the earlier row).
 */
static void
candidate_resolve(struct candidate *c)
{
	size_t i, j, *rep_row;

	for (i = 0; i < c->nkinds; i++) {
		struct an_row r;

		memset(&r, 0, sizeof(r));
		r.model_id = c->kinds[i].model;
		r.name = c->kinds[i].name;
		r.device_id = c->kinds[i].device;
		if (new_row_kind(c, &r) != i)
			abort();	/* lists and kinds are one order */
	}
	for (i = 0; i < c->npending; i++)
		add_duration(c, c->pending[i].kind, c->pending[i].duration,
		    c->pending[i].end_ok);
	rep_row = tc_xcalloc(c->ng + 1, sizeof(*rep_row));
	for (i = 0; i < c->nkinds; i++) {
		const struct row_kind *k = &c->kinds[i];

		if (!k->has_rep)
			continue;
		for (j = 0; j < c->list_len[i]; j++) {
			size_t gi = c->lists[i][j];
			struct cgroup *g = &c->g[gi];

			if (k->rep_start < g->rep_start ||
			    (k->rep_start == g->rep_start &&
			    k->rep_row < rep_row[gi])) {
				set_rep(g, k->rep_start, k->model, k->name,
				    k->rep_task, k->rep_stream);
				rep_row[gi] = k->rep_row;
			}
		}
	}
	free(rep_row);
	free(c->pending);
	c->pending = NULL;
	c->npending = c->pcap = 0;
}

static void
candidate_free(struct candidate *c)
{
	size_t i;

	for (i = 0; i < c->ng; i++) {
		struct cgroup *g = &c->g[i];

		free(g->key);
		tc_json_free(g->identity);
		free(g->meta);
		free(g->rep_model);
		free(g->rep_name);
		if (g->rep_has_boundary)
			tc_analysis__boundary_free(&g->rep_boundary);
		free(g->dur);
	}
	free(c->g);
	for (i = 0; i < c->nlists; i++)
		free(c->lists[i]);
	free(c->lists);
	free(c->list_len);
	tc_analysis__map_free(&c->by_key);
	tc_analysis__map_free(&c->by_row);
	tc_analysis__map_free(&c->rejected);
	tc_buf_free(&c->key);
	for (i = 0; i < c->nkinds; i++) {
		free(c->kinds[i].model);
		free(c->kinds[i].name);
	}
	free(c->kinds);
	free(c->pending);
}

/* ---- reading both profiles ------------------------------------------------- */

/* The structural association's arrays (the projection's steps and
 * occurrences, the bindings' records) are about as large as both
 * profiles: the heap is grown for them at once. */
static void
reserve_for(const struct tc_fusion_args *a)
{
	const char *p[2] = { a->baseline_profile, a->candidate_profile };
	size_t total = 0, i;

	for (i = 0; i < 2; i++) {
		char *csv = tc_analysis__find_kernel_details(p[i], NULL);
		struct stat st;

		if (csv != NULL && stat(csv, &st) == 0 && S_ISREG(st.st_mode))
			total += (size_t)st.st_size;
		free(csv);
	}
	tc_heap_reserve(total);
}

static int
read_profile(const char *path, const struct an_csv_sink *sink, size_t *rows,
    struct an_digests *memo, char hex[65], tc_error *err)
{
	char *csv = tc_analysis__find_kernel_details(path, err);
	int rc;

	if (csv == NULL)
		return -1;
	rc = tc_analysis__kernel_details_read(csv, sink, memo, hex, err);
	if (rc == 0 && *rows == 0) {
		tc_error_set(err, "%s: no kernel rows with start/duration", csv);
		rc = -1;
	}
	free(csv);
	return rc;
}

/*
 * The candidate's profile read on a thread of its own while the
 * association runs on this one (the rows wait for its
 * bindings).  The thread hashes with a copy of the digests: the
 * association notes its own in the original meanwhile.
 */
struct candidate_job {
	const char *path;
	const struct an_csv_sink *sink;
	struct candidate *c;
	struct an_digests memo;
	char hex[65];
	tc_error err;
	int rc;
	pthread_t thread;
	bool started;
};

static void *
candidate_main(void *arg)
{
	struct candidate_job *j = arg;

	j->rc = read_profile(j->path, j->sink, &j->c->total, &j->memo, j->hex,
	    &j->err);
	return NULL;
}

static void
candidate_start(struct candidate_job *j, const char *path,
    const struct an_csv_sink *sink, const struct an_digests *memo)
{
	memset(j, 0, sizeof(*j));
	j->path = path;
	j->sink = sink;
	j->c = sink->ctx;
	j->memo = *memo;
	j->err = (tc_error)TC_ERROR_INIT;
	j->started = pthread_create(&j->thread, NULL, candidate_main, j) == 0;
}

/* The read's result (read here if no thread started): 0 with the
 * profile's SHA-256 in hex, or -1 with its error in err. */
static int
candidate_join(struct candidate_job *j, char hex[65], tc_error *err)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		candidate_main(j);
	j->started = false;
	if (j->rc == 0)
		memcpy(hex, j->hex, 65);
	else
		tc_error_set(err, "%s", tc_error_msg(&j->err));
	tc_error_clear(&j->err);
	return j->rc;
}

/* ---- the legacy mapping ------------------------------------------------------ */

static char *
normalize_op(const char *s)
{
	tc_buf b = TC_BUF_INIT;

	for (; s != NULL && *s != '\0'; s++) {
		char ch = *s;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			tc_buf_putc(&b, ch);
	}
	if (b.len == 0) {
		tc_buf_free(&b);
		return NULL;
	}
	tc_buf_grow(&b, 0);
	return tc_buf_detach(&b, NULL);
}

/* _baseline_row_operator(row) == normalize(expected) for every row */
static bool
operators_match(const struct baseline *b, struct base_row **rows, size_t n,
    const char *expected_op)
{
	char *expected = normalize_op(expected_op);
	size_t i;
	bool ok = n > 0 && expected != NULL;

	for (i = 0; ok && i < n; i++)
		ok = b->ops[rows[i]->op] != NULL &&
		    strcmp(b->ops[rows[i]->op], expected) == 0;
	free(expected);
	return ok;
}

/* The numbers of _interval_summary that decide its evidence errors. */
static bool
summary_nonfinite(struct base_row **rows, size_t n, an_num *interval,
    an_num *dsum, an_num *uni)
{
	struct an_event stack[16];
	struct an_event *ev = n <= 16 ? stack : tc_xmalloc(n * sizeof(*ev));
	an_num end = AN_NUM(-INFINITY), sum = AN_NUM(0), scalar = AN_NUM(0);
	double start = INFINITY;
	bool bad = false;
	size_t i;

	for (i = 0; i < n; i++) {
		an_num e = tc_analysis__sum2(AN_NUM(rows[i]->start),
		    AN_NUM(rows[i]->duration));

		if (rows[i]->start < start)
			start = rows[i]->start;
		if (!e.ok) {
			bad = true;
			end = AN_NONE;
		} else if (end.ok && e.v > end.v) {
			end = e;
		}
		sum = tc_analysis__sum2(sum, AN_NUM(rows[i]->duration));
		scalar = tc_analysis__sum2(scalar, rows[i]->flags & BR_SCALAR ?
		    AN_NUM(rows[i]->scalar) : AN_NONE);
		ev[i].stream = AN_NONE;
		ev[i].family = AN_OTHER;
		ev[i].start = rows[i]->start;
		ev[i].end = e;
	}
	*interval = tc_analysis__diff(end, AN_NUM(start));
	*dsum = sum;
	*uni = tc_analysis__interval_union(ev, n);
	if (ev != stack)
		free(ev);
	return bad || !end.ok || !interval->ok || !sum.ok || !uni->ok ||
	    !scalar.ok;
}

/* A mapped row of one node and the rank of its occurrence key. */
struct keyed {
	uint32_t rank, key;
	struct base_row *row;
};

/* Sort v[0..n) by rank (LSD radix, a byte at a time; ranks are below
 * nkeys, so only the low bytes that vary are passed over). */
static void
sort_keyed(struct keyed *v, size_t n, size_t nkeys)
{
	struct keyed *tmp = tc_xmalloc((n + 1) * sizeof(*tmp)), *from = v,
	    *to = tmp, *swap;
	unsigned shift;
	size_t i;

	for (shift = 0; shift < 32 && (nkeys - 1) >> shift > 0; shift += 8) {
		size_t count[257] = { 0 };

		for (i = 0; i < n; i++)
			count[((from[i].rank >> shift) & 0xff) + 1]++;
		for (i = 1; i < 257; i++)
			count[i] += count[i - 1];
		for (i = 0; i < n; i++)
			to[count[(from[i].rank >> shift) & 0xff]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
}

static bool
same_domain(const struct base_row *a, const struct base_row *b)
{
	return a->domain == b->domain;
}

/*
 * _aggregate_original over the rows mapped by node ids: the number of
 * aligned occurrences (0 when none) and the errors it reports, appended
 * to errors.  Each node's rows are sorted by the rank of their
 * occurrence key (its canonical JSON in strcmp order), so aligning them
 * costs n.
 */
static size_t
aggregate_legacy(const struct baseline *b, struct base_row **mapped,
    size_t n, const int64_t *ids, size_t nids, tc_json *errors)
{
	struct keyed **per = NULL;
	size_t *nk = NULL, i, j, k, count = 0;
	const char *err = NULL;
	bool nonfinite = false;
	double *ivs = NULL, *dss = NULL, *uns = NULL;
	struct base_row **occ = NULL;
	an_num iv, ds, un;
	struct an_stats st;

	if (n == 0) {
		if (nids > 0)
			tc_analysis__list_add_unique(errors,
			    "baseline_child_occurrence_count_mismatch");
		return 0;
	}
	per = tc_xcalloc(nids, sizeof(*per));
	nk = tc_xcalloc(nids, sizeof(*nk));
	for (i = 0; i < nids; i++) {
		for (j = 0; j < i; j++)
			if (ids[j] == ids[i])
				err = "baseline_child_occurrence_count_mismatch";
		for (k = 0; k < n; k++)
			if ((mapped[k]->flags & BR_TASK) &&
			    mapped[k]->task == (double)ids[i])
				nk[i]++;
		if (nk[i] == 0 || nk[i] != nk[0])
			err = "baseline_child_occurrence_count_mismatch";
	}
	for (k = 0; err == NULL && k < n; k++) {
		const struct domain *d = &b->domains[mapped[k]->domain];

		if (!same_domain(mapped[k], mapped[0]) ||
		    b->models[d->model][0] == '\0' || !d->device.ok)
			err = "baseline_child_occurrence_domain_mismatch";
	}
	for (i = 0; err == NULL && i < nids; i++) {
		per[i] = tc_xcalloc(nk[i] + 1, sizeof(**per));
		for (k = 0, j = 0; k < n; k++) {
			if (!(mapped[k]->flags & BR_TASK) ||
			    mapped[k]->task != (double)ids[i])
				continue;
			per[i][j].row = mapped[k];
			per[i][j].key = mapped[k]->key;
			if (mapped[k]->key == NO_KEY)
				err = "baseline_child_occurrence_discriminator_missing";
			else
				per[i][j].rank = b->rank[mapped[k]->key];
			j++;
		}
		if (err != NULL)
			break;
		sort_keyed(per[i], nk[i], b->nkeys);
		for (k = 1; k < nk[i]; k++)
			if (per[i][k - 1].key == per[i][k].key)
				err = "baseline_child_occurrence_key_duplicate";
	}
	for (i = 1; err == NULL && i < nids; i++)
		for (k = 0; k < nk[0]; k++)
			if (per[i][k].key != per[0][k].key)
				err = "baseline_child_occurrence_key_mismatch";
	if (err != NULL) {
		tc_analysis__list_add_unique(errors, err);
		goto done;
	}
	/* one occurrence per key, in key order: its interval numbers */
	count = nk[0];
	ivs = tc_xmalloc((count + 1) * sizeof(*ivs));
	dss = tc_xmalloc((count + 1) * sizeof(*dss));
	uns = tc_xmalloc((count + 1) * sizeof(*uns));
	occ = tc_xmalloc((nids + 1) * sizeof(*occ));
	for (k = 0; k < count; k++) {
		for (i = 0; i < nids; i++)
			occ[i] = per[i][k].row;
		if (summary_nonfinite(occ, nids, &iv, &ds, &un))
			nonfinite = true;
		ivs[k] = iv.ok ? iv.v : NAN;
		dss[k] = ds.ok ? ds.v : NAN;
		uns[k] = un.ok ? un.v : NAN;
	}
	if (summary_nonfinite(mapped, n, &iv, &ds, &un))
		nonfinite = true;
	if (!tc_analysis__robust_stats(ivs, count, true, &st) ||
	    !tc_analysis__robust_stats(dss, count, true, &st) ||
	    !tc_analysis__robust_stats(uns, count, true, &st))
		nonfinite = true;
	if (nonfinite)
		tc_analysis__list_add_unique(errors, "non_finite_derived_statistics");
done:
	for (i = 0; i < nids; i++)
		free(per[i]);
	free(per);
	free(nk);
	free(ivs);
	free(dss);
	free(uns);
	free(occ);
	return count;
}

/* ---- one decision ----------------------------------------------------------- */

struct run {
	const struct tc_fusion_args *args;
	struct tc_analysis_thresholds t;
	struct an_groups groups;
	struct baseline base;
	struct candidate cand;
	struct tc_analysis__fingerprints fp;
	tc_json *assoc;			/* association_protocol */
	struct an_structural st;	/* when have_st */
	bool have_st;
	struct an_smap smap;		/* --source-scope-map */
	/* the projection's read of the SK-off rows, started on a second
	 * thread beside the analysis' own reads (NULL once joined) */
	struct an_baseline_job *prefetch;
	/* the profiles' digests, each file hashed once */
	struct an_digests digests;
};

static bool interval_proven(const tc_json *b);

static void
identity_errors(const tc_json *identity, tc_json *errors)
{
	const tc_json *m = tc_json_get(identity, "model_id");
	const tc_json *s = tc_json_get(identity, "source_scope");
	const tc_json *b = tc_json_get(identity, "boundary");
	const tc_json *seq = tc_json_get(identity, "ordered_child_op_sequence");
	tc_json *e = tc_json_new_array();
	size_t i;
	bool seq_bad = seq->u.arr.len == 0;

	if (!tc_json_truthy(m))
		tc_json_array_push(e, tc_json_new_string(
		    "candidate_identity_model_id_missing"));
	if (!tc_json_truthy(s))
		tc_json_array_push(e, tc_json_new_string(
		    "candidate_identity_source_scope_missing"));
	if (!tc_json_truthy(tc_json_get(b, "start_op")) ||
	    !tc_json_truthy(tc_json_get(b, "end_op")))
		tc_json_array_push(e, tc_json_new_string(
		    "candidate_identity_boundary_missing"));
	for (i = 0; i < seq->u.arr.len; i++)
		if (!tc_json_truthy(seq->u.arr.items[i]))
			seq_bad = true;
	if (seq_bad)
		tc_json_array_push(e, tc_json_new_string(
		    "candidate_identity_ordered_child_sequence_missing"));
	if (e->u.arr.len > 0)
		tc_json_array_push(errors,
		    tc_json_new_string("candidate_identity_incomplete"));
	for (i = 0; i < e->u.arr.len; i++)
		tc_json_array_push(errors, tc_json_clone(e->u.arr.items[i]));
	tc_json_free(e);
}

static void
add_hint(tc_json *hints, const char *method, const char *count_key,
    size_t count)
{
	tc_json *h = tc_json_new_object();

	tc_json_object_set_string(h, "method", method);
	tc_json_object_set_string(h, "confidence", "diagnostic_only");
	tc_json_object_set_int(h, count_key, (int64_t)count);
	tc_json_array_push(hints, h);
}

static void
append_all(tc_json *to, const tc_json *from)
{
	size_t i;

	for (i = 0; i < from->u.arr.len; i++)
		tc_json_array_push(to, tc_json_clone(from->u.arr.items[i]));
}

static tc_json *
fusion_benefit(size_t child_count, an_num sk_p50, const struct an_stats *iv,
    const struct an_stats *ds)
{
	tc_json *f = tc_json_new_object();

	tc_json_object_set_int(f, "child_count", (int64_t)child_count);
	tc_json_object_set_int(f, "launch_count_without_sk",
	    (int64_t)child_count);
	if (child_count > 0)
		tc_json_object_set_int(f, "launch_count_with_sk", 1);
	else
		tc_json_object_set_null(f, "launch_count_with_sk");
	tc_json_object_set_int(f, "estimated_launch_reduction",
	    child_count > 0 ? (int64_t)child_count - 1 : 0);
	tc_json_object_set(f, "sk_duration_us", tc_analysis__json_float(sk_p50));
	tc_json_object_set_null(f, "original_interval_p50_us");
	tc_json_object_set_null(f, "original_duration_sum_p50_us");
	tc_json_object_set_null(f, "interval_improvement_us");
	tc_json_object_set_null(f, "interval_improvement_pct");
	tc_json_object_set_null(f, "duration_sum_improvement_us");
	tc_json_object_set_null(f, "duration_sum_improvement_pct");
	tc_json_object_set_string(f, "benefit_basis",
	    "metadata_launch_reduction_only");
	if (iv != NULL && ds != NULL) {
		an_num di = tc_analysis__diff(iv->p50, sk_p50);
		an_num dd = tc_analysis__diff(ds->p50, sk_p50);

		tc_json_object_set(f, "original_interval_p50_us",
		    tc_analysis__json_float(iv->p50));
		tc_json_object_set(f, "original_duration_sum_p50_us",
		    tc_analysis__json_float(ds->p50));
		tc_json_object_set(f, "interval_improvement_us",
		    tc_analysis__json_float(di));
		tc_json_object_set(f, "interval_improvement_pct",
		    tc_analysis__json_float(tc_analysis__pct(di, iv->p50)));
		tc_json_object_set(f, "duration_sum_improvement_us",
		    tc_analysis__json_float(dd));
		tc_json_object_set(f, "duration_sum_improvement_pct",
		    tc_analysis__json_float(tc_analysis__pct(dd, ds->p50)));
		tc_json_object_set_string(f, "benefit_basis",
		    "profiler_original_child_interval");
	}
	return f;
}

static tc_json *
decision(struct run *run, struct cgroup *g)
{
	struct candidate *c = &run->cand;
	const struct an_groups *groups = &run->groups;
	tc_json *d = tc_json_new_object(), *errors, *merrs, *raw_errs, *hints;
	tc_json *blockers, *boundary, *list;
	struct an_stats cs;
	struct an_classification cl;
	struct an_counter ops = { 0 }, fams = { 0 };
	struct base_row **mapped = NULL;
	int64_t *ids = NULL;
	size_t nmapped = 0, nids = 0, i, j, k, child_count = 0, occ;
	const tc_json *assoc_blockers = tc_json_get(run->assoc, "blockers");
	bool node_count_mismatch = false;
	const struct an_binding *sb = g->sb;
	const tc_json *src = NULL;	/* the source map's range */
	bool src_exact = false;
	const size_t *rep_model = tc_analysis__map_find(&run->base.model_of,
	    g->rep_model);
	tc_json *original = NULL;
	struct an_stats ivs, dss;

	memset(&ivs, 0, sizeof(ivs));
	memset(&dss, 0, sizeof(dss));
	tc_analysis__robust_stats(g->dur, g->n, false, &cs);
	errors = tc_json_clone(run->fp.evidence_errors);
	{
		const tc_json *b = tc_json_get(g->identity, "boundary");
		const char *scope = tc_json_get_string(g->identity,
		    "source_scope");
		bool invalid = false;

		/* a rejected row of this model and signature */
		if (scope != NULL) {
			struct an_boundary sig;
			tc_buf key = TC_BUF_INIT;

			memset(&sig, 0, sizeof(sig));
			sig.scope = (char *)scope;
			sig.start_op = (char *)tc_json_get_string(b, "start_op");
			sig.end_op = (char *)tc_json_get_string(b, "end_op");
			signature_key(&key, g->rep_model, &sig);
			invalid = tc_analysis__map_find(&c->rejected, tc_buf_cstr(&key)) !=
			    NULL;
			tc_buf_free(&key);
		}
		/* sorted(candidate_derived_errors) */
		if (invalid)
			tc_json_array_push(errors, tc_json_new_string(
			    "invalid_profile_occurrence"));
		if (g->end_error || !cs.mean.ok)
			tc_json_array_push(errors, tc_json_new_string(
			    "non_finite_derived_statistics"));
	}
	merrs = tc_json_new_array();
	raw_errs = tc_json_new_array();
	hints = tc_json_new_array();
	identity_errors(g->identity, merrs);
	if (g->matching != 1) {
		tc_json_array_push(merrs, tc_json_new_string(
		    "candidate_metadata_identity_ambiguous"));
		tc_json_array_push(merrs, tc_json_new_string(
		    "metadata_group_count_mismatch"));
	}
	if (sb != NULL) {
		if (!sb->valid)
			tc_json_array_push(merrs, tc_json_new_string(
			    "candidate_binding_not_exact"));
	} else if (g->nmeta > 0) {
		for (i = 0; i < g->nmeta; i++) {
			const struct an_group *grp = &groups->items[g->meta[i]];

			if (grp->node_count != (int64_t)grp->nnodes)
				node_count_mismatch = true;
			for (j = 0; j < grp->nnodes; j++) {
				ids = tc_xrealloc(ids, (nids + 1) * sizeof(*ids));
				ids[nids++] = grp->nodes[j].node_id;
			}
		}
		if (node_count_mismatch)
			tc_json_array_push(merrs, tc_json_new_string(
			    "metadata_child_node_count_mismatch"));
		for (i = 0; i < nids; i++)
			for (j = 0; j < i; j++)
				if (ids[i] == ids[j])
					goto dup;
		if (0) {
dup:
			tc_json_array_push(merrs, tc_json_new_string(
			    "metadata_child_node_id_duplicate"));
		}
		if (merrs->u.arr.len == 0) {
			size_t ni = 0;

			for (i = 0; i < g->nmeta; i++) {
				const struct an_group *grp =
				    &groups->items[g->meta[i]];

				for (j = 0; j < grp->nnodes; j++, ni++) {
					struct base_row **rows = NULL;
					size_t nr = 0;

					size_t *first;

					first = tc_analysis__nmap_find(
					    &run->base.first, 0,
					    tc_analysis__num_key(
					    (double)ids[ni]));
					for (k = first ? *first : 0; k > 0;
					    k = run->base.next[k - 1]) {
						struct base_row *r =
						    &run->base.rows[k - 1];

						if ((r->flags & BR_TASK) &&
						    r->task ==
						    (double)ids[ni] &&
						    rep_model != NULL &&
						    run->base.domains[
						    r->domain].model ==
						    *rep_model) {
							rows = tc_xrealloc(rows,
							    (nr + 1) *
							    sizeof(*rows));
							rows[nr++] = r;
						}
					}
					if (nr == 0) {
						free(rows);
						continue;
					}
					if (!operators_match(&run->base,
					    rows, nr,
					    grp->nodes[j].op_type)) {
						tc_json_array_push(raw_errs,
						    tc_json_new_string(
						    "baseline_child_operator_mismatch"));
						free(rows);
						goto mapped_done;
					}
					mapped = tc_xrealloc(mapped,
					    (nmapped + nr) * sizeof(*mapped));
					memcpy(mapped + nmapped, rows,
					    nr * sizeof(*rows));
					nmapped += nr;
					free(rows);
				}
			}
		}
	} else {
		tc_json_array_push(merrs, tc_json_new_string(
		    "exact_mapping_missing"));
	}
mapped_done:
	/* diagnostic hints */
	if (nids > 0) {
		size_t total = 0;

		for (i = 0; i < nids; i++) {
			size_t *n = tc_analysis__nmap_find(&run->base.by_task,
			    0, tc_analysis__num_key((double)ids[i]));

			if (n != NULL)
				total += *n;
		}
		if (total > 0)
			add_hint(hints, "task_id_any_model", "baseline_row_count",
			    total);
	}
	if (g->rep_task.ok && rep_model != NULL) {
		size_t *n = tc_analysis__nmap_find(&run->base.by_model_task,
		    *rep_model, tc_analysis__num_key(g->rep_task.v));

		if (n != NULL && *n > 0)
			add_hint(hints, "same_task_id", "baseline_row_count", *n);
	}
	if (g->rep_has_boundary) {
		const char *sop = g->rep_boundary.start_op;
		const char *eop = g->rep_boundary.end_op;
		size_t total = 0;

		for (i = 0; i < run->base.by_name.cap; i++) {
			char *op;

			if (run->base.by_name.keys[i] == NULL)
				continue;
			op = tc_analysis__op_from_function(run->base.by_name.keys[i]);
			if (op != NULL && ((sop && sop[0] && strcmp(op, sop) ==
			    0) || (eop && eop[0] && strcmp(op, eop) == 0)))
				total += run->base.names[
				    run->base.by_name.vals[i]].count;
			free(op);
		}
		if (total > 0)
			add_hint(hints, "name_boundary", "baseline_row_count",
			    total);
	}
	if (sb != NULL) {
		/* the source rung: a structurally exact SK whose graph
		 * occurrence the source scope map names, identity and all */
		tc_json *dev = tc_analysis__json_intnum(g->device_id);

		src = tc_analysis__smap_exact_entry(&run->smap, sb, dev,
		    g->rep_model, g->identity);
		src_exact = src != NULL && merrs->u.arr.len == 0;
		tc_json_free(dev);
	}
	blockers = tc_json_new_array();
	if (sb != NULL) {
		/* the structural rung: exact when the projection is */
		const tc_json *mb = tc_json_get(sb->mapping,
		    "mapping_blockers");

		for (i = 0; !src_exact && i < mb->u.arr.len; i++)
			tc_analysis__list_add_unique(blockers,
			    tc_json_string(mb->u.arr.items[i]));
		original = tc_analysis__binding_original(sb, &ivs, &dss);
		if (!sb->valid)
			append_all(merrs, blockers);
	} else {
		/* the legacy rung: diagnostic only */
		for (i = 0; assoc_blockers && i < assoc_blockers->u.arr.len;
		    i++)
			tc_analysis__list_add_unique(blockers,
			    tc_json_string(assoc_blockers->u.arr.items[i]));
		tc_analysis__list_add_unique(blockers,
		    "cross_compile_runtime_id_not_identity");
		append_all(merrs, raw_errs);
		append_all(merrs, blockers);
		occ = aggregate_legacy(&run->base, mapped, nmapped, ids, nids,
		    merrs);
		if (occ > 0)
			add_hint(hints, "sk_meta_node_ids",
			    "baseline_occurrence_count", occ);
	}
	append_all(errors, merrs);
	if (original == NULL)
		tc_json_array_push(errors, tc_json_new_string(
		    "baseline_mapping_missing"));
	list = tc_json_new_array();
	for (i = 0; i < errors->u.arr.len; i++)
		tc_analysis__list_add_unique(list, tc_json_string(errors->u.arr.items[i]));
	tc_json_free(errors);
	errors = list;
	tc_analysis__classify(original != NULL && ivs.count > 0 ? &ivs : NULL,
	    &cs, &run->t, errors, &cl);

	/* the decision */
	tc_json_object_set_string(d, "candidate", run->args->candidate_name);
	tc_json_object_set(d, "device_id", tc_analysis__json_intnum(g->device_id));
	tc_json_object_set_string(d, "model_id", g->rep_model);
	tc_json_object_set(d, "raw_sk_id", tc_analysis__raw_sk_id_json(g->rep_name));
	tc_json_object_set(d, "task_id", tc_analysis__json_intnum(g->rep_task));
	tc_json_object_set(d, "stream_id", tc_analysis__json_intnum(g->rep_stream));
	tc_json_object_set_string(d, "name", g->rep_name);
	boundary = g->rep_has_boundary ? tc_analysis__boundary_json(&g->rep_boundary) :
	    tc_json_new_object();
	if (src != NULL) {
		/* the boundary gains the source interval */
		const tc_json *sbnd = tc_json_get(src, "boundary");

		for (i = 0; i < sbnd->u.obj.len; i++)
			tc_json_object_set(boundary, sbnd->u.obj.members[i].key,
			    tc_json_clone(sbnd->u.obj.members[i].value));
	}
	tc_json_object_set(d, "boundary", boundary);
	tc_json_object_set(d, "identity", tc_json_clone(g->identity));
	{
		char hex[65];
		char *id;

		tc_analysis__ascii_digest(g->identity, hex, NULL);
		id = tc_xasprintf("sk-%s", hex);
		tc_json_object_set_string(d, "sk_id", id);
		free(id);
		id = tc_xasprintf("range-%s", hex);
		tc_json_object_set_string(d, "range_id", id);
		free(id);
	}
	tc_json_object_set_string_or_null(d, "graph_occurrence_fingerprint",
	    sb != NULL ? sb->occurrence_fp : NULL);
	tc_json_object_set(d, "sk_duration_us", tc_analysis__json_float(cs.p50));
	tc_json_object_set(d, "sk_duration", tc_analysis__stats_json(&cs));
	if (src_exact) {
		tc_json_object_set_string(d, "mapping_method",
		    "source_scope_map");
		tc_json_object_set_string(d, "mapping_confidence", "exact");
	} else if (sb != NULL) {
		tc_json_object_set(d, "mapping_method", tc_json_clone(
		    tc_json_get(sb->mapping, "mapping_method")));
		tc_json_object_set(d, "mapping_confidence", tc_json_clone(
		    tc_json_get(sb->mapping, "mapping_confidence")));
	} else {
		if (g->nmeta > 0)
			tc_json_object_set_string(d, "mapping_method",
			    "sk_meta_node_ids");
		else
			tc_json_object_set_null(d, "mapping_method");
		tc_json_object_set_string(d, "mapping_confidence",
		    "diagnostic_only");
	}
	tc_json_object_set(d, "mapping_blockers", blockers);
	tc_json_object_set(d, "mapping_hints", hints);
	tc_json_object_set_string_or_null(d, "candidate_binding_status",
	    sb != NULL ? sb->status : NULL);
	tc_json_object_set_int(d, "metadata_group_count", (int64_t)g->matching);
	list = tc_json_new_array();
	for (i = 0; i < g->nmeta; i++) {
		const struct an_group *grp = &groups->items[g->meta[i]];

		for (j = 0; j < grp->nnodes; j++) {
			tc_json_array_push(list,
			    tc_json_new_string(grp->nodes[j].func_name));
			tc_analysis__counter_add(&ops, grp->nodes[j].op_type);
			tc_analysis__counter_add(&fams,
			    tc_analysis__family_names[grp->nodes[j].family]);
			child_count++;
		}
	}
	if (sb != NULL && sb->valid) {
		/* the binding's children stand for the metadata's */
		const tc_json *bo = tc_json_get(sb->mapping,
		    "ordered_child_ops");

		tc_analysis__counter_free(&ops);
		memset(&ops, 0, sizeof(ops));
		for (i = 0; i < bo->u.arr.len; i++)
			tc_analysis__counter_add(&ops,
			    tc_json_string(bo->u.arr.items[i]));
		child_count = bo->u.arr.len;
	}
	tc_json_object_set_int(d, "metadata_child_node_count",
	    (int64_t)child_count);
	tc_json_object_set(d, "metadata_child_functions", list);
	tc_json_object_set(d, "metadata_child_op_types",
	    tc_analysis__counter_json(&ops, 20));
	tc_json_object_set(d, "metadata_child_core_families",
	    tc_analysis__counter_json(&fams, 20));
	tc_json_object_set(d, "fusion_benefit", fusion_benefit(child_count,
	    cs.p50, original ? &ivs : NULL, original ? &dss : NULL));
	{
		int64_t cc = (int64_t)child_count;

		if (sb != NULL)
			cc = sb->child_count;
		tc_json_object_set_int(d, "child_count", cc);
	}
	tc_json_object_set_int(d, "candidate_occurrence_count",
	    (int64_t)cs.count);
	if (original != NULL) {
		tc_json_object_set(d, "sk_vs_original_interval_pct",
		    tc_analysis__json_float(tc_analysis__pct(
		    tc_analysis__diff(cs.p50, ivs.p50), ivs.p50)));
		tc_json_object_set(d, "sk_vs_original_duration_sum_pct",
		    tc_analysis__json_float(tc_analysis__pct(
		    tc_analysis__diff(cs.p50, dss.p50), dss.p50)));
		tc_json_object_set(d, "original", original);
	} else {
		tc_json_object_set_null(d, "original");
	}
	tc_json_object_set_string(d, "classification", cl.classification);
	tc_json_object_set_string(d, "classification_zh", cl.classification_zh);
	tc_json_object_set(d, "noise_threshold_pct", tc_analysis__json_float(cl.noise_pct));
	tc_json_object_set(d, "improvement_us", tc_analysis__json_float(cl.improvement_us));
	tc_json_object_set(d, "improvement_pct",
	    tc_analysis__json_float(cl.improvement_pct));
	tc_json_object_set(d, "evidence_errors", cl.errors);
	/* neutral and regressed SKs are pruned only with an exact source
	 * interval, else blocked */
	{
		bool pruned = src_exact && interval_proven(boundary);
		bool cut = strcmp(cl.classification, "neutral") == 0 ||
		    strcmp(cl.classification, "regressed") == 0;

		tc_json_object_set_string(d, "action",
		    strcmp(cl.classification, "beneficial") == 0 ? "keep" :
		    strcmp(cl.classification, "insufficient_evidence") == 0 ?
		    "reprofile" : pruned ? "prune" : "block");
		if (cut && !pruned)
			tc_json_object_set_string(d, "action_blocker",
			    "prune_requires_exact_source_scope_boundary_mapping");
	}
	tc_analysis__counter_free(&ops);
	tc_analysis__counter_free(&fams);
	tc_json_free(errors);
	tc_json_free(merrs);
	tc_json_free(raw_errs);
	free(mapped);
	free(ids);
	return d;
}

/* ---- identities, coverage and scope actions -------------------------------- */

static int
cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct cgroup *)a)->key,
	    ((const struct cgroup *)b)->key);
}

/* A decision's graph_occurrence_fingerprint when it is 64 lowercase hex
 * digits, else NULL. */
static const char *
occurrence_fp(const tc_json *d)
{
	const char *fp = tc_json_get_string(d, "graph_occurrence_fingerprint");
	size_t k;

	if (fp == NULL || strlen(fp) != 64)
		return NULL;
	for (k = 0; k < 64; k++)
		if (!((fp[k] >= '0' && fp[k] <= '9') ||
		    (fp[k] >= 'a' && fp[k] <= 'f')))
			return NULL;
	return fp;
}

/* How many of the members carry the occurrence fingerprint fp. */
static size_t
occurrence_count(const tc_json *decisions, const size_t *members, size_t nm,
    const char *fp)
{
	size_t m, count = 0;

	for (m = 0; m < nm; m++) {
		const char *o = occurrence_fp(decisions->u.arr.items[members[m]]);

		count += o != NULL && strcmp(o, fp) == 0;
	}
	return count;
}

/* _disambiguate_report_identity_ids: SKs of one identity told apart by
 * their unique graph occurrence, or, for a reprofile or block only, by
 * their device, model and raw SK id. */
static int
disambiguate(tc_json *decisions, tc_error *err)
{
	size_t n = decisions->u.arr.len, i, j;
	bool *done = tc_xcalloc(n + 1, sizeof(*done));
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		tc_json *di = decisions->u.arr.items[i];
		const char *sk = tc_json_get_string(di, "sk_id");
		size_t *members = NULL, nm = 0, m;
		char **generated = NULL;

		if (done[i])
			continue;
		for (j = i; j < n; j++) {
			tc_json *dj = decisions->u.arr.items[j];

			if (!done[j] && strcmp(tc_json_get_string(dj, "sk_id"),
			    sk) == 0) {
				members = tc_xrealloc(members, (nm + 1) *
				    sizeof(*members));
				members[nm++] = j;
			}
		}
		for (m = 0; m < nm; m++)
			done[members[m]] = true;
		if (nm < 2) {
			free(members);
			continue;
		}
		generated = tc_xcalloc(nm, sizeof(*generated));
		for (m = 0; m < nm && rc == 0; m++) {
			tc_json *d = decisions->u.arr.items[members[m]];
			const char *action = tc_json_get_string(d, "action");
			const char *fp = occurrence_fp(d);
			tc_json *disc, *payload;
			char hex[65];
			size_t q;

			disc = tc_json_new_object();
			if (fp != NULL && occurrence_count(decisions, members, nm,
			    fp) == 1) {
				tc_json_object_set_string(disc, "kind",
				    "graph_occurrence");
				tc_json_object_set_string(disc,
				    "graph_occurrence_fingerprint", fp);
			} else if (strcmp(action, "reprofile") != 0 &&
			    strcmp(action, "block") != 0) {
				tc_error_set(err, "actionable duplicate fusion "
				    "identity lacks a unique graph occurrence "
				    "fingerprint");
				tc_json_free(disc);
				rc = -1;
				break;
			} else {
				tc_json_object_set_string(disc, "kind",
				    "native_inventory_diagnostic");
				tc_json_object_set(disc, "device_id",
				    tc_json_clone(tc_json_get(d, "device_id")));
				tc_json_object_set(disc, "model_id",
				    tc_json_clone(tc_json_get(d, "model_id")));
				tc_json_object_set(disc, "raw_sk_id",
				    tc_json_clone(tc_json_get(d, "raw_sk_id")));
			}
			payload = tc_json_new_object();
			tc_json_object_set(payload, "identity",
			    tc_json_clone(tc_json_get(d, "identity")));
			tc_json_object_set(payload, "discriminator",
			    tc_json_clone(disc));
			tc_analysis__ascii_digest(payload, hex, NULL);
			tc_json_free(payload);
			for (q = 0; q < m; q++)
				if (strcmp(generated[q], hex) == 0)
					break;
			if (q < m) {
				tc_error_set(err, "duplicate fusion identity "
				    "cannot be disambiguated");
				tc_json_free(disc);
				rc = -1;
				break;
			}
			generated[m] = tc_xstrdup(hex);
			{
				char *id = tc_xasprintf("sk-%s", hex);

				tc_json_object_set_string(d, "sk_id", id);
				free(id);
				id = tc_xasprintf("range-%s", hex);
				tc_json_object_set_string(d, "range_id", id);
				free(id);
			}
			tc_json_object_set(d, "identity_disambiguation", disc);
		}
		for (m = 0; m < nm; m++)
			free(generated[m]);
		free(generated);
		free(members);
	}
	free(done);
	return rc;
}

static bool
json_is_int(const tc_json *v)
{
	return v != NULL && v->type == TC_JSON_INT;
}

tc_json *
tc_analysis__mapping_coverage(const tc_json *decisions)
{
	tc_json *o = tc_json_new_object(), *dist = tc_json_new_object();
	tc_json *bc = tc_json_new_object();
	struct an_map seen = { 0 };
	size_t i, j, total = 0, bound = 0, exact = 0, amb = 0, unmapped = 0;

	for (i = 0; i < decisions->u.arr.len; i++) {
		const tc_json *d = decisions->u.arr.items[i];
		const tc_json *dev = tc_json_get(d, "device_id");
		const tc_json *raw = tc_json_get(d, "raw_sk_id");
		const tc_json *model = tc_json_get(d, "model_id");
		const tc_json *cc = tc_json_get(d, "child_count");
		const tc_json *mb = tc_json_get(d, "mapping_blockers");
		const char *conf = tc_json_get_string(d, "mapping_confidence");
		const char *ms = tc_json_string(model);
		char *key;
		bool created;

		if (!json_is_int(dev) || !json_is_int(raw) || ms == NULL ||
		    ms[0] == '\0' || strcmp(ms, "None") == 0)
			continue;
		key = tc_xasprintf("%s\x1f%s\x1f%s", dev->u.int_text, ms,
		    raw->u.int_text);
		tc_analysis__map_slot(&seen, key, &created);
		free(key);
		if (!created)
			continue;
		total++;
		if (json_is_int(cc)) {
			int64_t v = 0;
			char b[24];
			tc_json *slot;

			tc_json_int64(cc, &v);
			if (v >= 5)
				snprintf(b, sizeof(b), "5+");
			else
				snprintf(b, sizeof(b), "%lld", (long long)v);
			slot = tc_json_get(dist, b);
			tc_json_int64(slot, &v);
			tc_json_object_set_int(dist, b, slot ? v + 1 : 1);
		}
		if (opt_eq(tc_json_get_string(d, "candidate_binding_status"),
		    "bound"))
			bound++;
		if (conf != NULL && strcmp(conf, "exact_projected_trace") == 0)
			exact++;
		else if (conf != NULL && strcmp(conf, "ambiguous") == 0)
			amb++;
		else
			unmapped++;
		for (j = 0; mb != NULL && j < mb->u.arr.len; j++) {
			const char *b = tc_json_string(mb->u.arr.items[j]);
			size_t q;
			bool dup = false;
			int64_t v = 0;
			tc_json *slot;

			for (q = 0; q < j; q++)
				if (opt_eq(tc_json_string(mb->u.arr.items[q]), b))
					dup = true;
			if (dup || b == NULL)
				continue;
			slot = tc_json_get(bc, b);
			tc_json_int64(slot, &v);
			tc_json_object_set_int(bc, b, slot ? v + 1 : 1);
		}
	}
	tc_analysis__map_free(&seen);
	tc_json_object_set_int(o, "total_sk_ids", (int64_t)total);
	tc_json_object_set_int(o, "bound_sk_ids", (int64_t)bound);
	tc_json_object_set_int(o, "exact_projected_trace_sk_ids", (int64_t)exact);
	tc_json_object_set_int(o, "ambiguous_sk_ids", (int64_t)amb);
	tc_json_object_set_int(o, "unmapped_sk_ids", (int64_t)unmapped);
	tc_json_object_set_int(o, "filtered_by_child_count", 0);
	tc_json_object_set(o, "child_count_distribution", dist);
	tc_json_object_set(o, "blocker_counts", bc);
	return o;
}

/* _source_interval_proven of the analyzer */
static bool
interval_proven(const tc_json *b)
{
	const char *f = tc_json_get_string(b, "source_file");
	const tc_json *s = tc_json_get(b, "start_offset");
	const tc_json *e = tc_json_get(b, "end_offset");
	int64_t sv, ev;

	if (f == NULL || !tc_text_has_content(f, strlen(f)) || f[0] == '/' ||
	    strcmp(f, "..") == 0 || strncmp(f, "../", 3) == 0 ||
	    strstr(f, "/../") != NULL || (strlen(f) >= 3 &&
	    strcmp(f + strlen(f) - 3, "/..") == 0))
		return false;
	if (!json_is_int(s) || !json_is_int(e) || !tc_json_int64(s, &sv) ||
	    !tc_json_int64(e, &ev))
		return false;
	return sv >= 0 && ev > sv;
}

static tc_json *
scope_actions(const tc_json *decisions)
{
	tc_json *list = tc_json_new_array();
	size_t i;

	for (i = 0; i < decisions->u.arr.len; i++) {
		const tc_json *d = decisions->u.arr.items[i];
		const tc_json *id = tc_json_get(d, "identity");
		const tc_json *b = tc_json_get(d, "boundary");
		tc_json *a = tc_json_new_object();

		tc_json_object_set(a, "sk_id", tc_json_clone(tc_json_get(d,
		    "sk_id")));
		tc_json_object_set(a, "range_id", tc_json_clone(tc_json_get(d,
		    "range_id")));
		tc_json_object_set(a, "classification",
		    tc_json_clone(tc_json_get(d, "classification")));
		tc_json_object_set(a, "action", tc_json_clone(tc_json_get(d,
		    "action")));
		tc_json_object_set(a, "source_scope",
		    tc_json_clone(tc_json_get(id, "source_scope")));
		tc_json_object_set(a, "boundary", tc_json_clone(b));
		tc_json_object_set(a, "ordered_child_op_sequence",
		    tc_json_clone(tc_json_get(id, "ordered_child_op_sequence")));
		tc_json_object_set_bool(a, "interval_unproven",
		    !interval_proven(b));
		tc_json_object_set_string(a, "status", "proposed");
		tc_json_array_push(list, a);
	}
	return list;
}

/* _build_regression_diagnostics: hypotheses and blockers.  Only decisions
 * the analysis would prune, or regressed ones with an exact mapping, are
 * diagnosed; their baseline comes from a projection, whose scalar ratio
 * is 0.0 and whose cube/vector overlap is unknown, so of the reference's
 * diagnostics only lost parallelism can arise (and DCCI, kept for a
 * baseline that records a ratio). */
static int
diagnostics(const tc_json *decisions, const tc_json *env,
    const tc_json *cand_config, tc_json **hyp, tc_json **blockers,
    tc_error *err)
{
	struct an_dcci dcci;
	size_t i, j;

	if (tc_analysis__dcci_state(env, cand_config, &dcci, err) != 0)
		return -1;
	*hyp = tc_json_new_array();
	*blockers = tc_json_new_array();
	for (i = 0; i < decisions->u.arr.len; i++) {
		const tc_json *d = decisions->u.arr.items[i];
		const char *method = tc_json_get_string(d, "mapping_method");
		const char *conf = tc_json_get_string(d, "mapping_confidence");
		const tc_json *orig = tc_json_get(d, "original"), *sr;
		double iv, ds, sk, ratio;
		bool exact = (opt_eq(method, "source_scope_map") &&
		    opt_eq(conf, "exact")) ||
		    (opt_eq(method, "kernel_projection_structural") &&
		    opt_eq(conf, "exact_projected_trace"));
		const char *range = tc_json_get_string(d, "range_id");

		if (!opt_eq(tc_json_get_string(d, "action"), "prune") &&
		    !(opt_eq(tc_json_get_string(d, "classification"),
		    "regressed") && exact))
			continue;
		if (orig == NULL || orig->type != TC_JSON_OBJECT)
			continue;
		if (tc_json_number(tc_json_get(tc_json_get(orig, "interval_us"),
		    "p50"), &iv) && tc_json_number(tc_json_get(tc_json_get(orig,
		    "duration_sum_us"), "p50"), &ds) &&
		    tc_json_number(tc_json_get(d, "sk_duration_us"), &sk) &&
		    sk > iv && sk < ds) {
			tc_json *h = tc_json_new_object(), *ev;

			tc_json_object_set_string(h, "kind",
			    "likely_lost_parallelism");
			tc_json_object_set_string(h, "confidence", "medium");
			tc_json_object_set_string(h, "range_id", range);
			ev = tc_json_new_array();
			tc_json_array_push(ev, tc_json_new_string(
			    "sk_interval_regressed"));
			tc_json_array_push(ev, tc_json_new_string(
			    "sk_duration_better_than_baseline_duration_sum"));
			tc_json_object_set(h, "evidence", ev);
			tc_json_object_set_string(h, "explanation_zh",
			    "SK P50 劣于融合前 interval P50，但优于融合前 "
			    "duration sum P50，提示并行重叠可能丢失；该证据不改变"
			    "性能分类或裁剪动作。");
			tc_json_object_set_bool(h, "requires_ab_test", true);
			tc_json_array_push(*hyp, h);
		}
		sr = tc_json_get(orig, "max_scalar_ratio");
		if (sr == NULL || sr->type == TC_JSON_NULL)
			sr = tc_json_get(tc_json_get(orig, "example_occurrence"),
			    "max_scalar_ratio");
		if (sr == NULL || !tc_json_number(sr, &ratio) || ratio < 0.2)
			continue;
		if (strcmp(dcci.state, "enabled") == 0) {
			tc_json *h = tc_json_new_object(), *ev;

			ev = tc_json_new_array();
			for (j = 0; j < dcci.n; j++) {
				char *e = tc_xasprintf("%s=%s", dcci.source[j],
				    dcci.state_of[j]);

				tc_json_array_push(ev, tc_json_new_string(e));
				free(e);
			}
			tc_json_array_push(ev, tc_json_new_string(
			    "baseline_max_scalar_ratio>=0.2"));
			tc_json_object_set_string(h, "kind",
			    "dcci_boundary_overhead");
			tc_json_object_set_string(h, "confidence", "medium");
			tc_json_object_set_string(h, "range_id", range);
			tc_json_object_set(h, "evidence", ev);
			tc_json_object_set_string(h, "explanation_zh",
			    "运行证据确认 DCCI 已开启，且目标范围 scalar ratio "
			    "不低于 0.2；这支持边界 DCCI 开销假设，但仍需单变量 A/B "
			    "验证。");
			tc_json_object_set_bool(h, "requires_ab_test", true);
			tc_json_array_push(*hyp, h);
		} else if (strcmp(dcci.state, "disabled") != 0) {
			tc_buf b = TC_BUF_INIT, m = TC_BUF_INIT;
			bool conflict = strcmp(dcci.state, "conflict") == 0;

			for (j = 0; j < dcci.n; j++)
				tc_buf_printf(&b, "%s%s=%s", j ? "，" : "",
				    dcci.source[j], dcci.state_of[j]);
			if (conflict)
				tc_buf_printf(&m, "DCCI 运行状态冲突（dcci_state_"
				    "conflict）：%s；冲突消除前不生成 DCCI 假设或"
				    "实验。", tc_buf_cstr(&b));
			else
				tc_buf_printf(&m, "DCCI 运行状态未知（dcci_state_"
				    "unknown）：%s；scalar/cache 指标不能代替明确的"
				    "状态证据。", b.len ? tc_buf_cstr(&b) :
				    "未提供显式 runtime_evidence.dcci_state 来源");
			tc_analysis__list_add_unique(*blockers, tc_buf_cstr(&m));
			tc_buf_free(&b);
			tc_buf_free(&m);
		}
	}
	return 0;
}

/* ---- paths --------------------------------------------------------------- */

/* os.path.relpath(resolve(path), resolve(parent of out)), POSIX form. */
static char *
relative_path(const char *path, const char *out, tc_error *err)
{
	char *dir = tc_path_dirname(out);
	char *a = tc_path_resolve(path, err), *b = NULL;
	struct an_parts pa, pb;
	tc_buf r = TC_BUF_INIT;
	size_t common = 0, i;

	if (a != NULL)
		b = tc_path_resolve(dir, err);
	free(dir);
	if (a == NULL || b == NULL) {
		free(a);
		return NULL;
	}
	tc_analysis__path_split(a, &pa);
	tc_analysis__path_split(b, &pb);
	while (common < pa.n && common < pb.n &&
	    strcmp(pa.p[common], pb.p[common]) == 0)
		common++;
	for (i = common; i < pb.n; i++)
		tc_buf_puts(&r, r.len ? "/.." : "..");
	for (i = common; i < pa.n; i++) {
		if (r.len)
			tc_buf_putc(&r, '/');
		tc_buf_puts(&r, pa.p[i]);
	}
	if (r.len == 0)
		tc_buf_putc(&r, '.');
	tc_analysis__parts_free(&pa);
	tc_analysis__parts_free(&pb);
	free(a);
	free(b);
	tc_buf_grow(&r, 0);
	return tc_buf_detach(&r, NULL);
}

static char *
resolved(const char *path, tc_error *err)
{
	tc_error e = TC_ERROR_INIT;
	char *r = tc_path_resolve(path, &e);

	if (r == NULL) {
		tc_error_set(err, "%s: cannot resolve path: %s", path,
		    tc_error_msg(&e));
		tc_error_clear(&e);
	}
	return r;
}

static bool
is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The source scope map, bound to this run's revision, manifests and
 * source root (a manifest that cannot be hashed binds nothing). */
static int
load_source_map(const struct tc_fusion_args *a, struct an_smap *out,
    tc_error *err)
{
	struct an_smap_expect x;
	char ch[65], bh[65];

	memset(&x, 0, sizeof(x));
	x.source_revision = a->source_revision;
	x.source_root = a->source_root;
	x.require_current = true;
	if (a->source_scope_map == NULL)
		return tc_analysis__smap_load(NULL, &x, out, err);
	if (a->profile_collection_manifest != NULL) {
		if (tc_sha256_file(a->profile_collection_manifest, ch, NULL,
		    err) != 0)
			return -1;
		x.candidate_manifest_sha256 = ch;
	}
	if (a->baseline_collection_manifest != NULL) {
		if (tc_sha256_file(a->baseline_collection_manifest, bh, NULL,
		    err) != 0)
			return -1;
		x.baseline_manifest_sha256 = bh;
	}
	return tc_analysis__smap_load(a->source_scope_map, &x, out, err);
}

/* _validate_analysis_paths and _validate_output_target */
static int
check_paths(const struct tc_fusion_args *a, tc_error *err)
{
	const char *inputs[] = { a->baseline_profile, a->candidate_profile,
	    a->sk_meta, a->baseline_config, a->candidate_config,
	    a->baseline_workload, a->candidate_workload,
	    a->declared_change_set, a->sk_prof, a->environment_evidence,
	    a->source_scope_map, a->source_root,
	    a->baseline_collection_manifest, a->profile_collection_manifest };
	const char *outs[2] = { a->json_out, a->markdown_out };
	const char *labels[2] = { "JSON output", "Markdown output" };
	char *ro[2] = { NULL, NULL };
	size_t i, k;
	int rc = -1;

	for (k = 0; k < 2; k++)
		if (outs[k] != NULL && (ro[k] = resolved(outs[k], err)) == NULL)
			goto done;
	if (ro[1] != NULL && strcmp(ro[0], ro[1]) == 0) {
		tc_error_set(err, "JSON and Markdown output paths must be "
		    "distinct");
		goto done;
	}
	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char *ri;

		if (inputs[i] == NULL)
			continue;
		if ((ri = resolved(inputs[i], err)) == NULL)
			goto done;
		for (k = 0; k < 2; k++) {
			if (ro[k] == NULL)
				continue;
			if (strcmp(ro[k], ri) == 0 || (is_dir(ri) &&
			    tc_path_is_within(ro[k], ri))) {
				tc_error_set(err, "output path conflicts with an "
				    "input artifact");
				free(ri);
				goto done;
			}
		}
		free(ri);
	}
	for (k = 0; k < 2; k++) {
		if (outs[k] != NULL && is_dir(outs[k])) {
			char *shown = tc_analysis__py_path(outs[k]);

			tc_error_set(err, "%s: %s must not be a directory", shown,
			    labels[k]);
			free(shown);
			goto done;
		}
	}
	rc = 0;
done:
	free(ro[0]);
	free(ro[1]);
	return rc;
}

/* sha is among the kernel_details records of manifest m */
static bool
records_hold(const tc_json *m, const char *sha)
{
	const tc_json *recs = tc_json_get(tc_json_get(m, "files"),
	    "kernel_details");
	size_t i;

	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len; i++) {
		const char *s = tc_json_get_string(recs->u.arr.items[i], "sha256");

		if (s != NULL && strcmp(s, sha) == 0)
			return true;
	}
	return false;
}

/* The projection of a validated set; p gains what it proves. */
static int
project(const struct tc_fusion_args *a, const char *bhex,
    const tc_json *manifest, struct an_baseline_job **prefetch,
    struct an_structural *st, tc_json *p)
{
	tc_error e = TC_ERROR_INIT;
	char *bcsv = tc_analysis__find_kernel_details(a->baseline_profile, &e);
	char *ccsv = bcsv ? tc_analysis__find_kernel_details(
	    a->candidate_profile, &e) : NULL;
	struct an_baseline_job *job = *prefetch;
	int rc = -1;

	*prefetch = NULL;
	if (ccsv != NULL && job == NULL)
		job = tc_analysis__baseline_start(bcsv, false);
	if (ccsv == NULL && job != NULL)
		tc_analysis__baseline_free(tc_analysis__baseline_join(job,
		    NULL));
	if (ccsv != NULL && tc_analysis__structural(job, bcsv, bhex, manifest,
	    a->profile_collection_manifest, ccsv, st, &e) == 0) {
		tc_json_object_set_string(p, "status", "associated");
		tc_json_object_set(p, "model_mapping_fingerprints",
		    tc_json_clone(st->mapping_fps));
		tc_json_object_set(p, "model_projection_exclusions",
		    tc_json_clone(st->exclusions));
		rc = 0;
	}
	tc_error_clear(&e);
	free(bcsv);
	free(ccsv);
	return rc;
}

/*
 * The association protocol and its blockers.  Without both collection
 * manifests there is no structural association; a set that does not
 * validate, or that does not bind these profiles, workload and revision,
 * blocks it.  A set that passes is projected onto the SK-off profile
 * (kernel_projection_trace_v2, structural.c) into *st; a projection that
 * cannot be built blocks the association too.
 */
static tc_json *
association_protocol(const struct tc_fusion_args *a, const char *bhex,
    const char *chex, const struct tc_analysis__fingerprints *fp,
    const struct an_digests *memo, struct an_baseline_job **prefetch,
    struct an_structural *st, bool *have_st)
{
	const char *paths[2] = { a->baseline_collection_manifest,
	    a->profile_collection_manifest };
	const char *names[2] = { "baseline_collection_manifest",
	    "profile_collection_manifest" };
	static const char *const roles[2] = { "baseline_profile",
	    "candidate_profile" };
	tc_json *p = tc_json_new_object(), *fps = tc_json_new_object();
	tc_json *blockers = tc_json_new_array(), *summary, *m[2] = { 0 };
	const char *blocker = NULL;
	size_t k, present = 0;

	for (k = 0; k < 2; k++) {
		char hex[65];
		tc_error e = TC_ERROR_INIT;

		if (paths[k] == NULL) {
			tc_json_object_set_null(fps, names[k]);
			continue;
		}
		present++;
		if (tc_is_regular_file_nofollow(paths[k]) &&
		    tc_sha256_file(paths[k], hex, NULL, &e) == 0)
			tc_json_object_set_string(fps, names[k], hex);
		else
			tc_json_object_set_null(fps, names[k]);
		tc_error_clear(&e);
	}
	tc_json_object_set_string(p, "protocol", "kernel_projection_trace_v2");
	tc_json_object_set_null(p, "manifest_set_fingerprint");
	tc_json_object_set_null(p, "association_config_fingerprint");
	tc_json_object_set_null(p, "association_control_fingerprint");
	tc_json_object_set(p, "manifest_content_fingerprints", fps);
	tc_json_object_set_string(p, "status", "blocked");
	if (present == 0) {
		tc_json_object_set_string(p, "status", "not_requested");
		blocker = "structural_collection_manifests_missing";
	} else if (present == 1) {
		blocker = "structural_collection_manifest_set_incomplete";
	} else {
		tc_error e = TC_ERROR_INIT;

		summary = tc_analysis__collection_validate_set(roles, paths, 2, m,
		    memo, &e);
		tc_error_clear(&e);
		if (summary == NULL) {
			blocker = "structural_collection_manifest_set_invalid";
		} else {
			const char *wf = fp->workload_match ?
			    fp->baseline_workload : NULL;

			tc_json_object_set(p, "manifest_set_fingerprint",
			    tc_json_clone(tc_json_get(summary,
			    "set_fingerprint")));
			tc_json_object_set(p, "association_config_fingerprint",
			    tc_json_clone(tc_json_get(summary,
			    "config_fingerprint")));
			tc_json_object_set(p, "association_control_fingerprint",
			    tc_json_clone(tc_json_get(summary,
			    "control_fingerprint")));
			if (wf == NULL || !opt_eq(wf, tc_json_get_string(summary,
			    "workload_fingerprint")) ||
			    !opt_eq(a->source_revision, tc_json_get_string(
			    summary, "source_revision")) ||
			    !records_hold(m[0], bhex) || !records_hold(m[1], chex))
				blocker = "structural_fingerprint_mismatch";
			else if (project(a, bhex, m[1], prefetch, st, p) == 0)
				*have_st = true;
			else
				blocker =
				    "kernel_projection_artifact_association_failed";
			tc_json_free(summary);
			tc_json_free(m[0]);
			tc_json_free(m[1]);
		}
	}
	if (blocker != NULL)
		tc_json_array_push(blockers, tc_json_new_string(blocker));
	tc_json_object_set(p, "blockers", blockers);
	return p;
}

/* ---- writing both outputs -------------------------------------------------- */

/* A new temp file ".<name>.XXXXXX.tmp" beside path (its directories
 * made), open for writing in *fd; its name, or NULL with err. */
static char *
open_temp(const char *path, int *fd, tc_error *err)
{
	char *dir = tc_path_dirname(path);
	char *tmp = tc_xasprintf("%s/.%s.XXXXXX.tmp", dir,
	    tc_path_basename(path));

	if (tc_mkdirs(dir, err) != 0) {
		free(dir);
		free(tmp);
		return NULL;
	}
	free(dir);
	if ((*fd = mkstemps(tmp, 4)) < 0) {
		tc_error_os(err, errno, path);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* Write all of data to fd (path names it in messages). */
static int
write_all(int fd, const char *path, const char *data, size_t len,
    tc_error *err)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			tc_error_os(err, errno, path);
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Make a written temp file durable and readable: fsync, mode 0644. */
static int
seal_temp(int fd, const char *path, tc_error *err)
{
	if (fsync(fd) != 0 || fchmod(fd, 0644) != 0) {
		tc_error_os(err, errno, path);
		return -1;
	}
	return 0;
}

/* A temp file beside path holding data, fsync'd and closed. */
static char *
write_temp(const char *path, const char *data, size_t len, tc_error *err)
{
	int fd;
	char *tmp = open_temp(path, &fd, err);

	if (tmp == NULL)
		return NULL;
	if (write_all(fd, path, data, len, err) != 0 ||
	    seal_temp(fd, path, err) != 0) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	if (close(fd) != 0) {
		tc_error_os(err, errno, path);
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* How much of the document is written before the kernel is asked to
 * start writing it out: the fsync before it is published then waits for
 * the tail only. */
#define WRITEBACK_STEP	((off_t)8 << 20)

/* The content fingerprint's value while the document is written (as
 * long as the hex that replaces it in the file), and its key as the
 * document's indented text gives it. */
#define FINGERPRINT_PENDING \
	"0000000000000000000000000000000000000000000000000000000000000000"
#define PENDING_KEY	"\n  \"analysis_content_fingerprint\": \""

/* The analysis document as it is written: its temp file, and where in
 * it the content fingerprint's placeholder goes.  Only a member of the
 * document itself is indented by exactly two spaces after a line break
 * (a string holds no raw line break), so the key's first occurrence in
 * the text is the top-level one. */
struct doc_sink {
	int fd;
	const char *path;	/* the output's, for messages */
	off_t written, flushed;	/* bytes in the file; asked to write out */
	tc_finder pending;	/* PENDING_KEY in the text */
};

static int
doc_sink(void *vctx, const char *data, size_t len, tc_error *err)
{
	struct doc_sink *d = vctx;

	(void)tc_finder_feed(&d->pending, data, len);
	if (write_all(d->fd, d->path, data, len, err) != 0)
		return -1;
	d->written += (off_t)len;
#ifdef SYNC_FILE_RANGE_WRITE
	if (d->written - d->flushed >= WRITEBACK_STEP) {
		/* only a start: fsync still decides (errors show there) */
		(void)sync_file_range(d->fd, d->flushed,
		    d->written - d->flushed, SYNC_FILE_RANGE_WRITE);
		d->flushed = d->written;
	}
#endif
	return 0;
}

/*
 * The report streamed to a temp file beside path (indent=2 and a final
 * newline, the occurrences from st's records), not yet fsync'd (the
 * caller seals it once the Markdown is rendered, while the kernel writes
 * it out); its name and the descriptor, still open, in *fd.  The text is
 * never held whole: a million-row analysis writes some 300 MB.
 */
static char *
write_document(const char *path, const tc_json *report,
    const struct an_structural *st, int *fd, off_t *pending_at,
    tc_error *err)
{
	struct doc_sink d;
	char *tmp = open_temp(path, fd, err);

	if (tmp == NULL)
		return NULL;
	memset(&d, 0, sizeof(d));
	tc_finder_init(&d.pending, PENDING_KEY, sizeof(PENDING_KEY) - 1);
	d.fd = *fd;
	d.path = path;
	if (tc_json_write_stream(report, TC_JSON_INDENT,
	    tc_analysis__occurrences_hook, (void *)st, doc_sink, &d, err) != 0 ||
	    write_all(*fd, path, "\n", 1, err) != 0) {
		close(*fd);
		*fd = -1;
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	/* the value's first byte, after the key */
	*pending_at = d.pending.at < 0 ? -1 :
	    (off_t)d.pending.at + (off_t)sizeof(PENDING_KEY) - 1;
	return tmp;
}

/* The content fingerprint taken on a thread of its own while the
 * document is written (or, if none can start, when joined). */
struct fingerprint_job {
	const tc_json *report;
	const struct an_structural *st;
	char hex[65];
	int rc;
	tc_error err;
	pthread_t thread;
	bool started;
};

static int content_fingerprint(const tc_json *report,
    const struct an_structural *st, char hex[65], tc_error *err);

static void *
fingerprint_main(void *arg)
{
	struct fingerprint_job *j = arg;

	j->rc = content_fingerprint(j->report, j->st, j->hex, &j->err);
	return NULL;
}

static void
fingerprint_start(struct fingerprint_job *j, const tc_json *report,
    const struct an_structural *st)
{
	memset(j, 0, sizeof(*j));
	j->report = report;
	j->st = st;
	j->err = (tc_error)TC_ERROR_INIT;
	j->started = pthread_create(&j->thread, NULL, fingerprint_main, j) ==
	    0;
}

/* 0 with the hex in j->hex, or -1 with err: a value the canonical form
 * refuses (a NaN the inputs carried into the report: named where it
 * is, exit 2; the reference fails there with a traceback,
 * docs/analysis.md "Deviations from the reference"). */
static int
fingerprint_join(struct fingerprint_job *j, tc_error *err)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		fingerprint_main(j);
	tc_error_clear(&j->err);
	if (j->rc != 0) {
		tc_analysis__nonstandard_error(j->report, err);
		return -1;
	}
	return 0;
}

/* The Markdown report rendered on a thread of its own (or, if none can
 * start, when joined). */
struct markdown_job {
	const tc_json *report;
	const struct an_structural *st;
	char *md;
	tc_error err;
	pthread_t thread;
	bool started;
};

static void *
markdown_main(void *arg)
{
	struct markdown_job *j = arg;

	j->md = tc_analysis__markdown(j->report, j->st, &j->err);
	return NULL;
}

static void
markdown_start(struct markdown_job *j, const tc_json *report,
    const struct an_structural *st)
{
	memset(j, 0, sizeof(*j));
	j->report = report;
	j->st = st;
	j->err = (tc_error)TC_ERROR_INIT;
	j->started = pthread_create(&j->thread, NULL, markdown_main, j) == 0;
}

/* The rendered text, or NULL with its error in err (when err is not
 * NULL: the caller may already hold a better one). */
static char *
markdown_join(struct markdown_job *j, tc_error *err)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		markdown_main(j);
	if (j->md == NULL && err != NULL)
		tc_error_set(err, "%s", tc_error_msg(&j->err));
	tc_error_clear(&j->err);
	return j->md;
}

/* Whether a and b name files in one directory (as written). */
static bool
same_dir(const char *a, const char *b)
{
	char *da = tc_path_dirname(a), *db = tc_path_dirname(b);
	bool same = strcmp(da, db) == 0;

	free(da);
	free(db);
	return same;
}

static void
sync_dir_of(const char *path)
{
	char *dir = tc_path_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/* _write_analysis_outputs: both files or neither (the Markdown is
 * published first and put back if the JSON cannot follow).  The
 * document is written first, then the Markdown rendered, so their
 * errors come in the reference's order.  With json_fd, the document's
 * descriptor stays open there, at its start. */
static int
write_outputs(const char *json_path, const tc_json *report,
    const struct an_structural *st, const char *md_path, int *json_fd,
    tc_error *err)
{
	char *jt = NULL, *mt = NULL, *backup = NULL, *md = NULL;
	struct markdown_job mj;
	struct fingerprint_job fj;
	bool md_done = false;
	int fd = -1, rc = -1;
	off_t pending_at = -1;
	tc_error derr = TC_ERROR_INIT;

	/* the content fingerprint and the Markdown are taken on threads of
	 * their own while the document is written (all only read the
	 * report), its placeholder then overwritten in the temp file; the
	 * fingerprint's errors first (a refused value, as before any write),
	 * then the document's, then the Markdown's */
	fingerprint_start(&fj, report, st);
	if (md_path != NULL)
		markdown_start(&mj, report, st);
	jt = write_document(json_path, report, st, &fd, &pending_at, &derr);
	if (fingerprint_join(&fj, err) != 0) {
		if (md_path != NULL)
			free(markdown_join(&mj, NULL));
		goto fail;
	}
	if (jt == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&derr));
		if (md_path != NULL)
			free(markdown_join(&mj, NULL));
		goto fail;
	}
	if (md_path != NULL)
		md = markdown_join(&mj, err);
	if (md_path != NULL && md == NULL)
		goto fail;
	if (pending_at < 0)
		abort();	/* the report always holds the key */
	if (pwrite(fd, fj.hex, 64, pending_at) != 64) {
		tc_error_os(err, errno != 0 ? errno : EIO, json_path);
		goto fail;
	}
	if (seal_temp(fd, json_path, err) != 0)
		goto fail;
	if (md_path != NULL) {
		if ((mt = write_temp(md_path, md, strlen(md), err)) == NULL)
			goto fail;
		if (tc_is_regular_file(md_path)) {
			size_t len;
			char *old = tc_read_file(md_path, TC_READ_MAX_BYTES, &len,
			    err);

			if (old == NULL)
				goto fail;
			backup = write_temp(md_path, old, len, err);
			free(old);
			if (backup == NULL)
				goto fail;
		}
		if (rename(mt, md_path) != 0) {
			tc_error_os(err, errno, md_path);
			goto fail;
		}
		free(mt);
		mt = NULL;
		md_done = true;
	}
	if (rename(jt, json_path) != 0) {
		tc_error_os(err, errno, json_path);
		goto fail;
	}
	free(jt);
	jt = NULL;
	sync_dir_of(json_path);
	if (md_path != NULL && !same_dir(json_path, md_path))
		sync_dir_of(md_path);
	if (json_fd != NULL && lseek(fd, 0, SEEK_SET) == 0) {
		*json_fd = fd;
		fd = -1;
	} else if (json_fd != NULL) {
		/* published; only the echo is lost */
		tc_error_os(err, errno, json_path);
		goto done;
	}
	rc = 0;
	goto done;
fail:
	if (md_done) {
		if (backup != NULL && rename(backup, md_path) == 0) {
			free(backup);
			backup = NULL;
		} else if (backup == NULL) {
			unlink(md_path);
		}
	}
done:
	tc_error_clear(&derr);
	if (fd >= 0)
		close(fd);
	if (jt != NULL)
		unlink(jt);
	if (mt != NULL)
		unlink(mt);
	if (backup != NULL)
		unlink(backup);
	free(jt);
	free(mt);
	free(backup);
	free(md);
	return rc;
}

/* ---- the analysis ------------------------------------------------------------- */

bool
tc_round_belongs_to_candidate(const char *candidate, const char *round)
{
	size_t cl, i;
	const char *s;

	if (candidate == NULL || round == NULL || candidate[0] == '\0' ||
	    round[0] == '\0' || !tc_text_is_canonical(candidate,
	    strlen(candidate)) || !tc_text_is_canonical(round, strlen(round)))
		return false;
	cl = strlen(candidate);
	if (strncmp(round, candidate, cl) != 0 || round[cl] != '-')
		return false;
	s = round + cl + 1;
	if (strcmp(s, "AUTO") == 0 || strcmp(s, "BASE") == 0 ||
	    strcmp(s, "FINAL") == 0)
		return true;
	if (s[0] != 'P' || s[1] < '1' || s[1] > '9')
		return false;
	for (i = 2; s[i] != '\0'; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int
tc_fusion_args_check(const struct tc_fusion_args *a, tc_error *err)
{
	const char *names[] = { "--candidate-name", "--experiment-id",
	    "--round-id", "--analysis-agent-id", "--source-revision" };
	const char *values[] = { a->candidate_name, a->experiment_id,
	    a->round_id, a->analysis_agent_id, a->source_revision };
	size_t i;

	for (i = 0; i < 5; i++) {
		if (!tc_text_has_content(values[i], strlen(values[i])) ||
		    !tc_text_is_canonical(values[i], strlen(values[i]))) {
			tc_error_set(err, "%s must be a non-empty trimmed string",
			    names[i]);
			return -1;
		}
	}
	if (!tc_round_belongs_to_candidate(a->candidate_name, a->round_id)) {
		tc_error_set(err, "--round-id must belong to --candidate-name and "
		    "use AUTO/BASE/Pn/Rn/FINAL");
		return -1;
	}
	if (a->min_occurrences < 1) {
		tc_error_set(err, "--min-occurrences must be at least 1");
		return -1;
	}
	if (!isfinite(a->min_relative_change_pct) ||
	    a->min_relative_change_pct < 0) {
		tc_error_set(err, "--min-relative-change-pct must be finite and "
		    "non-negative");
		return -1;
	}
	if (!isfinite(a->min_absolute_change_us) ||
	    a->min_absolute_change_us < 0) {
		tc_error_set(err, "--min-absolute-change-us must be finite and "
		    "non-negative");
		return -1;
	}
	return 0;
}

/*
 * The digest of the document without its analysis_content_fingerprint,
 * read through a view: an object on the stack whose members are the
 * document's own but that one, so the document (of a million-row
 * analysis, millions of nodes) is neither copied nor changed.  With st,
 * the binding occurrences are written from its records in place of the
 * placeholder the report holds.
 */
static int
content_fingerprint(const tc_json *report, const struct an_structural *st,
    char hex[65], tc_error *err)
{
	static const char key[] = "analysis_content_fingerprint";
	const unsigned flags = TC_JSON_ASCII | TC_JSON_NO_NAN;
	tc_json view;
	size_t i;
	int rc;

	if (report->type != TC_JSON_OBJECT)
		return tc_json_digest_hook(report, flags,
		    tc_analysis__occurrences_hook, (void *)st, hex, err);
	memset(&view, 0, sizeof(view));
	view.type = TC_JSON_OBJECT;
	view.u.obj.members = tc_xmalloc((report->u.obj.len + 1) *
	    sizeof(*view.u.obj.members));
	for (i = 0; i < report->u.obj.len; i++) {
		const tc_json_member *m = &report->u.obj.members[i];

		if (m->key_len == sizeof(key) - 1 &&
		    memcmp(m->key, key, sizeof(key) - 1) == 0)
			continue;
		view.u.obj.members[view.u.obj.len++] = *m;
	}
	view.u.obj.cap = view.u.obj.len;
	rc = tc_json_digest_hook(&view, flags, tc_analysis__occurrences_hook,
	    (void *)st, hex, err);
	free(view.u.obj.members);
	return rc;
}

int
tc_analysis_content_fingerprint(const tc_json *report, char hex[65],
    tc_error *err)
{
	return content_fingerprint(report, NULL, hex, err);
}

/* The relative path of an input, or null. */
static tc_json *
input_path(const char *path, const char *json_out, tc_error *err, int *rc)
{
	char *r;
	tc_json *v;

	if (path == NULL)
		return tc_json_new_null();
	if ((r = relative_path(path, json_out, err)) == NULL) {
		*rc = -1;
		return tc_json_new_null();
	}
	v = tc_json_new_string(r);
	free(r);
	return v;
}

static void
collect_node_ids(const struct an_groups *g, struct an_nmap *keep)
{
	size_t i, j;

	for (i = 0; i < g->len; i++)
		for (j = 0; j < g->items[i].nnodes; j++)
			tc_analysis__nmap_slot(keep, 0, tc_analysis__num_key(
			    (double)g->items[i].nodes[j].node_id), NULL);
}

static tc_json *
build_report(struct run *run, tc_json *decisions, tc_json *sk_child,
    const tc_json *env, const tc_json *cand_config, tc_json *mapping,
    const char *bhex, const char *chex, tc_error *err)
{
	const struct tc_fusion_args *a = run->args;
	tc_json *r = tc_json_new_object(), *id, *in, *o, *hyp, *dblk, *blk;
	char hex[65], *s;
	size_t i, mapped = 0;
	int rc = 0;

	if (diagnostics(decisions, env, cand_config, &hyp, &dblk, err) != 0) {
		tc_json_free(r);
		tc_json_free(decisions);
		tc_json_free(sk_child);
		tc_json_free(mapping);
		return NULL;
	}
	id = tc_json_new_object();
	tc_json_object_set_string(id, "experiment_id", a->experiment_id);
	tc_json_object_set_string(id, "round_id", a->round_id);
	tc_json_object_set_string(id, "analysis_agent_id", a->analysis_agent_id);
	tc_json_object_set_string(id, "candidate_name", a->candidate_name);
	tc_json_object_set_string(id, "source_revision", a->source_revision);
	tc_analysis__ascii_digest(id, hex, NULL);
	s = tc_xasprintf("analysis-%s", hex);
	tc_json_object_set_string(r, "analysis_id", s);
	free(s);
	for (i = 0; i < id->u.obj.len; i++)
		tc_json_object_set(r, id->u.obj.members[i].key,
		    tc_json_clone(id->u.obj.members[i].value));
	tc_json_free(id);
	tc_json_object_set_string(r, "schema_version", "1.2");
	tc_json_object_set_string(r, "baseline_config_fingerprint",
	    run->fp.baseline_config);
	tc_json_object_set_string(r, "candidate_config_fingerprint",
	    run->fp.candidate_config);
	tc_json_object_set_string(r, "baseline_workload_fingerprint",
	    run->fp.baseline_workload);
	tc_json_object_set_string(r, "candidate_workload_fingerprint",
	    run->fp.candidate_workload);
	tc_json_object_set_string_or_null(r, "workload_fingerprint",
	    run->fp.workload_match ? run->fp.baseline_workload : NULL);
	tc_json_object_set_string(r, "baseline_control_fingerprint",
	    run->fp.baseline_control);
	tc_json_object_set_string(r, "candidate_control_fingerprint",
	    run->fp.candidate_control);
	tc_json_object_set_string_or_null(r, "control_fingerprint",
	    run->fp.control_match ? run->fp.baseline_control : NULL);
	tc_json_object_set(r, "declared_change_set",
	    tc_json_clone(run->fp.declared_change_set));
	tc_json_object_set(r, "source_scope_mapping", mapping);
	in = tc_json_new_object();
	tc_json_object_set(in, "baseline_profile", input_path(a->baseline_profile,
	    a->json_out, err, &rc));
	tc_json_object_set(in, "candidate_profile",
	    input_path(a->candidate_profile, a->json_out, err, &rc));
	tc_json_object_set(in, "sk_meta", input_path(a->sk_meta, a->json_out,
	    err, &rc));
	tc_json_object_set(in, "baseline_config", input_path(a->baseline_config,
	    a->json_out, err, &rc));
	tc_json_object_set(in, "candidate_config",
	    input_path(a->candidate_config, a->json_out, err, &rc));
	tc_json_object_set(in, "baseline_workload",
	    input_path(a->baseline_workload, a->json_out, err, &rc));
	tc_json_object_set(in, "candidate_workload",
	    input_path(a->candidate_workload, a->json_out, err, &rc));
	tc_json_object_set(in, "declared_change_set",
	    input_path(a->declared_change_set, a->json_out, err, &rc));
	tc_json_object_set(in, "sk_prof", input_path(a->sk_prof, a->json_out,
	    err, &rc));
	tc_json_object_set(in, "environment_evidence",
	    input_path(a->environment_evidence, a->json_out, err, &rc));
	tc_json_object_set(in, "source_scope_map",
	    input_path(a->source_scope_map, a->json_out, err, &rc));
	tc_json_object_set(in, "baseline_collection_manifest",
	    input_path(a->baseline_collection_manifest, a->json_out, err, &rc));
	tc_json_object_set(in, "profile_collection_manifest",
	    input_path(a->profile_collection_manifest, a->json_out, err, &rc));
	tc_json_object_set(r, "inputs", in);
	o = tc_json_new_object();
	tc_json_object_set(o, "markdown", input_path(a->markdown_out,
	    a->json_out, err, &rc));
	tc_json_object_set(r, "outputs", o);
	o = tc_json_new_object();
	tc_json_object_set(o, "min_relative_change_pct",
	    tc_json_new_float(run->t.min_relative_change_pct));
	tc_json_object_set(o, "min_absolute_change_us",
	    tc_json_new_float(run->t.min_absolute_change_us));
	tc_json_object_set_int(o, "min_occurrences", run->t.min_occurrences);
	tc_json_object_set(r, "thresholds", o);
	o = tc_json_new_object();
	tc_json_object_set_int(o, "superkernel_count",
	    (int64_t)decisions->u.arr.len);
	tc_json_object_set_int(o, "superkernel_occurrence_count",
	    (int64_t)run->cand.sk_rows);
	for (i = 0; i < decisions->u.arr.len; i++)
		if (tc_json_truthy(tc_json_get(decisions->u.arr.items[i],
		    "original")))
			mapped++;
	tc_json_object_set_int(o, "mapped_count", (int64_t)mapped);
	tc_json_object_set(o, "mapped_ratio", tc_json_new_float((double)mapped /
	    (double)decisions->u.arr.len));
	tc_json_object_set(r, "coverage", o);
	tc_json_object_set(r, "association_protocol", tc_json_clone(run->assoc));
	o = tc_json_new_object();
	if (run->have_st) {
		/* the report takes the association's objects over */
		tc_json_object_set(o, "summary", run->st.summary);
		tc_json_object_set(o, "occurrences", run->st.occurrences);
		tc_json_object_set(r, "canonical_graph_fingerprints",
		    run->st.graph_fps);
		tc_json_object_set(r, "stream_role_mapping",
		    run->st.stream_roles);
		tc_json_object_set(r, "graph_alignment_proof", run->st.proofs);
		run->st.summary = run->st.occurrences = NULL;
		run->st.graph_fps = run->st.stream_roles = NULL;
		run->st.proofs = NULL;
	} else {
		tc_json_object_set_null(o, "summary");
		tc_json_object_set(o, "occurrences", tc_json_new_array());
		tc_json_object_set(r, "canonical_graph_fingerprints",
		    tc_json_new_object());
		tc_json_object_set(r, "stream_role_mapping",
		    tc_json_new_object());
		tc_json_object_set(r, "graph_alignment_proof",
		    tc_json_new_object());
	}
	tc_json_object_set(r, "candidate_binding_evidence", o);
	tc_json_object_set(r, "mapping_coverage", tc_analysis__mapping_coverage(decisions));
	tc_json_object_set(r, "scope_actions", scope_actions(decisions));
	tc_json_object_set(r, "per_sk_decisions", decisions);
	{
		/* hypotheses by (range_id, kind) */
		size_t n = hyp->u.arr.len, x, y;

		for (x = 1; x < n; x++)
			for (y = x; y > 0; y--) {
				tc_json *p = hyp->u.arr.items[y - 1];
				tc_json *q = hyp->u.arr.items[y];
				int c = strcmp(tc_json_get_string(p, "range_id"),
				    tc_json_get_string(q, "range_id"));

				if (c == 0)
					c = strcmp(tc_json_get_string(p, "kind"),
					    tc_json_get_string(q, "kind"));
				if (c <= 0)
					break;
				hyp->u.arr.items[y - 1] = q;
				hyp->u.arr.items[y] = p;
			}
	}
	tc_json_object_set(r, "diagnostic_hypotheses", hyp);
	tc_json_object_set(r, "recommended_experiments", tc_json_new_array());
	blk = tc_json_clone(run->fp.evidence_errors);
	if (strcmp(tc_json_get_string(run->assoc, "status"), "not_requested")
	    != 0)
		append_all(blk, tc_json_get(run->assoc, "blockers"));
	append_all(blk, dblk);
	tc_json_free(dblk);
	tc_json_object_set(r, "blockers", blk);
	tc_json_object_set_bool(r, "environment_evidence_loaded", env != NULL);
	tc_json_object_set_string(r, "next_agent_guidance_zh",
	    "仅按证据充分的逐 SK 判定处理本轮 scope。");
	if (sk_child != NULL) {
		tc_json *paths = tc_json_get(sk_child, "paths");

		for (i = 0; i < paths->u.arr.len; i++) {
			tc_json *rel = input_path(tc_json_string(
			    paths->u.arr.items[i]), a->json_out, err, &rc);

			tc_json_free(paths->u.arr.items[i]);
			paths->u.arr.items[i] = rel;
		}
		tc_json_object_set(r, "sk_child_profile", sk_child);
	}
	tc_json_object_set_string(r, "baseline_profile_fingerprint", bhex);
	tc_json_object_set_string(r, "candidate_profile_fingerprint", chex);
	if (rc != 0) {
		tc_json_free(r);
		return NULL;
	}
	/* taken while the document is written (write_outputs) */
	tc_json_object_set_string(r, "analysis_content_fingerprint",
	    FINGERPRINT_PENDING);
	return r;
}

/*
 * The association will project onto the SK-off rows: read them on a
 * second thread while the profiles are read here (NULL: no file to read,
 * the projection finds out itself).  A million-row profile takes most of
 * a second to read either way.
 */
static struct an_baseline_job *
start_projection_rows(const struct tc_fusion_args *a)
{
	tc_error e = TC_ERROR_INIT;
	char *bcsv = tc_analysis__find_kernel_details(a->baseline_profile, &e);
	struct an_baseline_job *j = NULL;

	if (bcsv != NULL)
		j = tc_analysis__baseline_start(bcsv, true);
	tc_error_clear(&e);
	free(bcsv);
	return j;
}

int
tc_analysis_fusion_write(const struct tc_fusion_args *a, int *json_fd,
    tc_error *err)
{
	struct run run;
	struct an_nmap keep = { 0 };
	struct an_csv_sink bsink, csink;
	tc_json *bc = NULL, *cc = NULL, *bw = NULL, *cw = NULL, *dcs = NULL;
	tc_json *env = NULL, *mapping = NULL, *decisions = NULL;
	tc_json *sk_child = NULL, *report = NULL;
	tc_error meta_err = TC_ERROR_INIT;
	char bhex[65], chex[65];
	size_t i;
	int meta_rc, rc = -1;

	memset(&run, 0, sizeof(run));
	run.args = a;
	run.t.min_relative_change_pct = a->min_relative_change_pct;
	run.t.min_absolute_change_us = a->min_absolute_change_us;
	run.t.min_occurrences = a->min_occurrences >
	    TC_ANALYSIS_HARD_MIN_OCCURRENCES ? a->min_occurrences :
	    TC_ANALYSIS_HARD_MIN_OCCURRENCES;
	if (check_paths(a, err) != 0)
		return -1;
	if (!is_dir(a->sk_meta)) {
		char *shown = tc_analysis__py_path(a->sk_meta);

		tc_error_set(err, "%s: sk_meta must be an existing directory",
		    shown);
		free(shown);
		return -1;
	}
	if ((bc = tc_analysis__load_json_artifact(a->baseline_config, "baseline config",
	    err)) == NULL ||
	    (cc = tc_analysis__load_json_artifact(a->candidate_config, "candidate config",
	    err)) == NULL ||
	    (bw = tc_analysis__load_json_artifact(a->baseline_workload,
	    "baseline workload", err)) == NULL ||
	    (cw = tc_analysis__load_json_artifact(a->candidate_workload,
	    "candidate workload", err)) == NULL ||
	    (dcs = tc_analysis__load_json_artifact(a->declared_change_set,
	    "declared change set", err)) == NULL)
		goto done;
	if (a->environment_evidence != NULL &&
	    (env = tc_analysis__load_json_artifact(a->environment_evidence,
	    "environment evidence", err)) == NULL)
		goto done;
	if (a->source_scope_map != NULL &&
	    tc_analysis__layer_map_check(a->source_scope_map, err) != 0)
		goto done;
	if (tc_analysis__fingerprints(bc, cc, bw, cw, dcs, &run.fp, err) != 0)
		goto done;
	/* the fused-node metadata names the baseline rows worth keeping;
	 * its own errors are the reference's, after both profiles */
	meta_rc = tc_analysis__sk_meta_load(a->sk_meta, &run.groups, &meta_err);
	collect_node_ids(&run.groups, &keep);
	run.base.keep = &keep;
	if (a->baseline_collection_manifest != NULL &&
	    a->profile_collection_manifest != NULL) {
		run.prefetch = start_projection_rows(a);
		reserve_for(a);
	}
	bsink.ctx = &run.base;
	bsink.wants = baseline_wants;
	bsink.row = baseline_row;
	bsink.rejected = NULL;
	if (read_profile(a->baseline_profile, &bsink, &run.base.total,
	    &run.digests, bhex, err) != 0)
		goto done;
	baseline_index(&run.base);
	if (load_source_map(a, &run.smap, err) != 0)
		goto done;
	mapping = tc_json_clone(run.smap.mapping);
	run.cand.groups = &run.groups;
	csink.ctx = &run.cand;
	csink.wants = candidate_wants;
	csink.row = candidate_row;
	csink.rejected = candidate_rejected;
	if (a->baseline_collection_manifest != NULL &&
	    a->profile_collection_manifest != NULL) {
		/* the association decides the candidate's identities; its
		 * rows are read meanwhile, and sorted into groups after */
		struct candidate_job cj;
		tc_error e = TC_ERROR_INIT;
		char *ccsv = tc_analysis__find_kernel_details(
		    a->candidate_profile, &e);

		chex[0] = '\0';
		if (ccsv == NULL || tc_analysis__file_digest(&run.digests, ccsv,
		    chex, &e) != 0)
			chex[0] = '\0';
		tc_error_clear(&e);
		free(ccsv);
		candidate_start(&cj, a->candidate_profile, &csink,
		    &run.digests);
		run.assoc = association_protocol(a, bhex, chex, &run.fp,
		    &run.digests, &run.prefetch, &run.st, &run.have_st);
		if (candidate_join(&cj, chex, err) != 0)
			goto done;
		if (run.have_st)
			run.cand.st = &run.st;
		candidate_resolve(&run.cand);
	} else if (read_profile(a->candidate_profile, &csink,
	    &run.cand.total, &run.digests, chex, err) != 0) {
		goto done;
	} else {
		candidate_resolve(&run.cand);
	}
	if (run.assoc == NULL)
		run.assoc = association_protocol(a, bhex, chex, &run.fp,
		    &run.digests, &run.prefetch, &run.st, &run.have_st);
	if (meta_rc != 0) {
		tc_error_set(err, "%s", tc_error_msg(&meta_err));
		goto done;
	}
	if (run.cand.ng > 1)
		qsort(run.cand.g, run.cand.ng, sizeof(*run.cand.g), cmp_group);
	decisions = tc_json_new_array();
	for (i = 0; i < run.cand.ng; i++)
		tc_json_array_push(decisions, decision(&run, &run.cand.g[i]));
	if (disambiguate(decisions, err) != 0)
		goto done;
	if (decisions->u.arr.len == 0) {
		tc_error_set(err, "candidate profile contains no SuperKernel "
		    "occurrences");
		goto done;
	}
	if (a->sk_prof != NULL &&
	    (sk_child = tc_analysis__sk_prof_summary(a->sk_prof, err)) == NULL)
		goto done;
	report = build_report(&run, decisions, sk_child, env, cc, mapping,
	    bhex, chex, err);
	decisions = sk_child = mapping = NULL;
	if (report == NULL)
		goto done;
	/* the content fingerprint is build_report's */
	if (write_outputs(a->json_out, report, run.have_st ? &run.st : NULL,
	    a->markdown_out, json_fd, err) != 0)
		goto done;
	rc = 0;
done:
	if (run.prefetch != NULL)
		tc_analysis__baseline_free(tc_analysis__baseline_join(
		    run.prefetch, NULL));
	tc_error_clear(&meta_err);
	tc_json_free(bc);
	tc_json_free(cc);
	tc_json_free(bw);
	tc_json_free(cw);
	tc_json_free(dcs);
	tc_json_free(env);
	tc_json_free(mapping);
	tc_json_free(decisions);
	tc_json_free(sk_child);
	tc_json_free(run.assoc);
	tc_analysis__smap_free(&run.smap);
	tc_json_free(report);
	if (run.have_st)
		tc_analysis__structural_free(&run.st);
	tc_analysis__fingerprints_free(&run.fp);
	tc_analysis__groups_free(&run.groups);
	baseline_free(&run.base);
	candidate_free(&run.cand);
	tc_analysis__nmap_free(&keep);
	return rc;
}

tc_json *
tc_analysis_fusion(const struct tc_fusion_args *a, tc_error *err)
{
	char *text;
	size_t len;
	tc_json *doc;
	int fd;

	if (tc_analysis_fusion_write(a, &fd, err) != 0)
		return NULL;
	text = tc_read_fd(fd, a->json_out, 0, &len, err);
	close(fd);
	if (text == NULL)
		return NULL;
	doc = tc_json_parse(text, len, err);
	free(text);
	return doc;
}
