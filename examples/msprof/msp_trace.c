/*
 * msp_trace.c - what a profiling run of a demo workload leaves behind, in
 * the formats an Ascend NPU run leaves them (skw --msprof-out DIR, gskw
 * --msprof-out DIR; the plan and the records as msp_trace.h describes):
 *
 *   kernel_details.csv  msprof's per-task table: one row per launch and
 *                       stream, Step Id = decode step + 1, the launch's
 *                       start and duration as the workload measured them,
 *                       in us from the first step.  A launch of one kernel
 *                       is named <kernel>_<layer> (Type <kernel>); a
 *                       launch of a fused group is a SuperKernel row named
 *                       sk_<n>_decoder.layer.<layer>_start_<fn>_end_<fn>.
 *                       The kernels are written as the vector-core kernels
 *                       they would be on an NPU (Accelerator Core
 *                       AI_VECTOR_CORE, Block Num 1, Mix Block Num 0;
 *                       kernelType AIV_ONLY in the graphs and fused logs):
 *                       the reference's strict SK-on loader refuses N/A
 *                       block counts and AI_CPU geometry, so only this
 *                       shape associates exactly.
 *   task_time.csv       the same launches in msprof's task_time columns.
 *   trace_view.json     the same launches as Chrome trace events.
 *   sk_prof_device_0.json  (when the scope fuses kernels and the workload
 *                       timed children) the SuperKernel child trace: each
 *                       fused launch of the first child_steps steps and
 *                       every kernel of it on every row, on the child
 *                       clock.
 *
 * and, when the scope fuses kernels, what the SuperKernel compiler writes
 * beside it (device_0/model_<MSP_MODEL_ID>/): sk_graph_origin.json (every
 * kernel of every layer, one node each, in launch order per stream),
 * sk_graph_updated.json (each fused group replaced by its SuperKernel
 * node), sk_fused_nodes.log (each SuperKernel and its child nodes),
 * sk_scope_split.log and super_kernel.log.  These are the workload's own
 * plan written down, not a measurement: the graph the launches follow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "msp_trace.h"

/* The kernels of group g (0 for a split or concat). */
static int
group_kernels(const struct msp_shape *p, int g)
{
	return g >= 0 ? p->last[g] - p->first[g] + 1 : 0;
}

/* Whether group g (MSP_SPLIT and MSP_CONCAT never) is a fused group. */
static int
fused(const struct msp_shape *p, int g)
{
	return g >= 0 && p->last[g] > p->first[g];
}

int
msp_trace_init(struct msp_trace *t, const struct msp_shape *p)
{
	int ns = p->nstreams;
	int timed = p->steps < p->child_steps ? p->steps : p->child_steps;
	size_t n = (size_t)p->steps * ((size_t)p->layers * p->ngroups * ns +
	    (p->copies ? 2 : 0));
	size_t children = 0;

	/* every stream's rows add up to the batch */
	for (int g = 0; g < p->ngroups; g++)
		if (fused(p, g))
			children += (size_t)timed * p->layers * p->batch *
			    group_kernels(p, g);
	memset(t, 0, sizeof(*t));
	t->shape = *p;
	t->recs = calloc(n > 0 ? n : 1, sizeof(*t->recs));
	t->crecs = calloc(children > 0 ? children : 1, sizeof(*t->crecs));
	t->cap = n;
	t->crec_cap = children;
	return t->recs == NULL || t->crecs == NULL ? -1 : 0;
}

struct msp_rec *
msp_trace_add(struct msp_trace *t, int step, int layer, int group,
    int stream, int rows)
{
	const struct msp_shape *p = &t->shape;
	struct msp_rec *r;
	size_t children = fused(p, group) && step < p->child_steps ?
	    (size_t)rows * group_kernels(p, group) : 0;

	if (t->n == t->cap || t->ncrecs + children > t->crec_cap)
		return NULL;	/* never: msp_trace_init counted every launch */
	r = &t->recs[t->n++];
	r->step = step;
	r->layer = layer;
	r->group = group;
	r->stream = stream;
	r->rows = rows;
	r->start_ns = r->dur_ns = 0;
	r->children = NULL;
	if (children > 0) {
		r->children = &t->crecs[t->ncrecs];
		t->ncrecs += children;
	}
	return r;
}

void
msp_trace_free(struct msp_trace *t)
{
	free(t->recs);
	free(t->crecs);
	memset(t, 0, sizeof(*t));
}

/* ---- names ---------------------------------------------------------------- */

/* The kernel name of a launch that is not a fused group. */
static const char *
kernel_of(const struct msp_shape *p, int g)
{
	return g < 0 ? p->copy_names[g == MSP_SPLIT ? 0 : 1] :
	    p->kernel_names[p->first[g]];
}

/* The SuperKernel number of (stream, layer, group), 1-based; 0 unfused. */
static int
sk_number(const struct msp_shape *p, int stream, int layer, int group)
{
	int n = 0;

	if (!fused(p, group))
		return 0;
	for (int s = 0; s < p->nstreams; s++)
		for (int l = 0; l < p->layers; l++)
			for (int g = 0; g < p->ngroups; g++) {
				if (!fused(p, g))
					continue;
				n++;
				if (s == stream && l == layer && g == group)
					return n;
			}
	return 0;
}

static void
sk_name(char *buf, size_t len, int n, int layer, const struct msp_shape *p,
    int g)
{
	snprintf(buf, len, "sk_%d_decoder.layer.%d_start_%s_%d_end_%s_%d", n,
	    layer, p->kernel_names[p->first[g]], layer,
	    p->kernel_names[p->last[g]], layer);
}

/* The profiler's name of a launch: its kernel, or its SuperKernel. */
static void
launch_name(char *buf, size_t len, const struct msp_shape *p,
    const struct msp_rec *r)
{
	if (fused(p, r->group))
		sk_name(buf, len, sk_number(p, r->stream, r->layer, r->group),
		    r->layer, p, r->group);
	else if (r->group < 0)
		snprintf(buf, len, "%s", kernel_of(p, r->group));
	else
		snprintf(buf, len, "%s_%d", kernel_of(p, r->group), r->layer);
}

/* Graph node id of kernel k of a layer on a stream; of the split and the
 * concat (k = MSP_SPLIT, MSP_CONCAT), after every layer's. */
static int
node_id(const struct msp_shape *p, int stream, int layer, int k)
{
	if (k < 0)
		return 100 + p->nstreams * p->layers * p->nkernels +
		    (k == MSP_SPLIT ? 0 : 1);
	return 100 + (stream * p->layers + layer) * p->nkernels + k;
}

/* A launch's task id, per stream and step (msprof numbers tasks so): on
 * the main stream of a run with copies the split is task 1 and the
 * concat the last. */
static int
task_id(const struct msp_shape *p, int stream, int layer, int group)
{
	int split = p->copies && stream == 0;

	if (group == MSP_SPLIT)
		return 1;
	if (group == MSP_CONCAT)
		return 2 + p->layers * p->ngroups;
	return 1 + split + layer * p->ngroups + group;
}

static double
us_of(long long ns)
{
	return (double)ns / 1000.0;
}

/* ---- files ---------------------------------------------------------------- */

static FILE *
open_in(const struct msp_shape *p, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		fprintf(stderr, "%s: %s: %s\n", p->prog, path, strerror(errno));
	return f;
}

static int
close_in(const struct msp_shape *p, FILE *f, const char *dir,
    const char *name)
{
	if (fclose(f) != 0) {
		fprintf(stderr, "%s: %s/%s: %s\n", p->prog, dir, name,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* One line of a per-launch file: record i, named name. */
typedef void (*row_fn)(FILE *f, const struct msp_trace *t, size_t i,
    const char *name);

static void
kernel_details_row(FILE *f, const struct msp_trace *t, size_t i,
    const char *name)
{
	const struct msp_shape *p = &t->shape;
	const struct msp_rec *r = &t->recs[i];
	int g = r->group;

	fprintf(f, "%d,0,%d,%d,%d,%s,%s,static,AI_VECTOR_CORE,%.3f,%.3f,0,"
	    "1,0,N/A,N/A,N/A,N/A\n", r->step + 1, MSP_MODEL_ID,
	    task_id(p, r->stream, r->layer, g), r->stream, name,
	    fused(p, g) ? "SuperKernel" : kernel_of(p, g),
	    us_of(r->start_ns - t->origin_ns), us_of(r->dur_ns));
}

static void
task_time_row(FILE *f, const struct msp_trace *t, size_t i, const char *name)
{
	const struct msp_rec *r = &t->recs[i];
	double start = us_of(r->start_ns - t->origin_ns);

	fprintf(f, "0,%s,%s,%d,%d,%.3f,%.3f,%.3f\n", name, t->shape.task_type,
	    r->stream, task_id(&t->shape, r->stream, r->layer, r->group),
	    us_of(r->dur_ns), start, start + us_of(r->dur_ns));
}

static void
trace_view_row(FILE *f, const struct msp_trace *t, size_t i,
    const char *name)
{
	const struct msp_rec *r = &t->recs[i];

	fprintf(f, "%s\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 0, "
	    "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": "
	    "{\"Step Id\": %d}}", i ? "," : "", name, r->stream,
	    us_of(r->start_ns - t->origin_ns), us_of(r->dur_ns), r->step + 1);
}

/* DIR/FILE: head, one row per launch, tail. */
static int
write_launches(const struct msp_trace *t, const char *dir, const char *file,
    const char *head, row_fn row, const char *tail)
{
	FILE *f = open_in(&t->shape, dir, file);
	char name[256];

	if (f == NULL)
		return -1;
	fputs(head, f);
	for (size_t i = 0; i < t->n; i++) {
		launch_name(name, sizeof(name), &t->shape, &t->recs[i]);
		row(f, t, i, name);
	}
	fputs(tail, f);
	return close_in(&t->shape, f, dir, file);
}

/* A graph's nodes of one stream as they are written: the id and the
 * index in the stream of the last one, -1 before the first. */
struct gstream {
	FILE *f;
	int s, idx, prev;
};

static void
graph_node(struct gstream *g, int id, const char *name, int task)
{
	if (g->prev >= 0)
		fprintf(g->f, "%d},", id);
	fprintf(g->f, "\n      {\"nodeId\": %d, \"streamIdxInGraph\": %d, "
	    "\"nodeIdxInStream\": %d, \"nodeType\": \"KERNEL\", "
	    "\"preNodeId\": ", id, g->s, g->idx);
	if (g->prev >= 0)
		fprintf(g->f, "%d", g->prev);
	else
		fputs("\"none\"", g->f);
	fprintf(g->f, ", \"taskInfo\": [{\"taskType\": \"KERNEL\", "
	    "\"streamId\": %d, \"taskId\": %d, \"kernelParams\": "
	    "{\"funcName\": \"%s\", \"kernelType\": \"AIV_ONLY\", "
	    "\"numBlocks\": 1}}], \"nextNodeId\": ", g->s, task, name);
	g->prev = id;
	g->idx++;
}

/* The split or concat node of the main stream of a graph with copies. */
static void
copy_node(struct gstream *g, const struct msp_shape *p, int group)
{
	graph_node(g, node_id(p, 0, -1, group), kernel_of(p, group),
	    task_id(p, 0, -1, group));
}

/*
 * One graph: every stream, every layer's kernels in launch order (the
 * main stream of a run with copies between its split and its concat);
 * with updated, each fused group is one SuperKernel node (the id of its
 * first child) instead of its children.
 */
static int
write_graph(const struct msp_shape *p, const char *dir, const char *file,
    int updated)
{
	FILE *f = open_in(p, dir, file);
	int ns = p->nstreams, total = 0, copies = p->copies ? 2 : 0;
	char name[256];

	if (f == NULL)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		total += updated && fused(p, g) ? 1 :
		    p->last[g] - p->first[g] + 1;
	fprintf(f, "{\n  \"version\": \"%s\",\n  \"modelId\": \"%d\",\n"
	    "  \"deviceId\": 0,\n  \"totalStreams\": %d,\n  \"totalNodes\": %d,\n"
	    "  \"streams\": [", updated ? "1.0-updated" : "1.0", MSP_MODEL_ID,
	    ns, total * p->layers * ns + copies);
	for (int s = 0; s < ns; s++) {
		struct gstream gs = { f, s, 0, -1 };
		int main_copies = s == 0 ? copies : 0;

		fprintf(f, "%s\n    {\"streamIdxInGraph\": %d, \"nodeCount\": %d, "
		    "\"nodes\": [", s ? "," : "", s, total * p->layers +
		    main_copies);
		if (main_copies)
			copy_node(&gs, p, MSP_SPLIT);
		for (int l = 0; l < p->layers; l++)
			for (int g = 0; g < p->ngroups; g++)
				for (int k = p->first[g]; k <= p->last[g]; k++) {
					if (updated && fused(p, g) && k > p->first[g])
						continue;
					if (updated && fused(p, g))
						sk_name(name, sizeof(name),
						    sk_number(p, s, l, g), l, p, g);
					else
						snprintf(name, sizeof(name), "%s_%d",
						    p->kernel_names[k], l);
					graph_node(&gs, node_id(p, s, l, k), name,
					    task_id(p, s, l, g));
				}
		if (main_copies)
			copy_node(&gs, p, MSP_CONCAT);
		if (gs.prev >= 0)
			fputs("\"none\"}", f);
		fputs("\n    ]}", f);
	}
	fputs("\n  ]\n}\n", f);
	return close_in(p, f, dir, file);
}

/*
 * The compiler's logs: every SuperKernel with its children
 * (sk_fused_nodes.log), its scope (sk_scope_split.log), and how many were
 * built (super_kernel.log).
 */
static int
write_sk_logs(const struct msp_shape *p, const char *dir)
{
	FILE *f = open_in(p, dir, "sk_fused_nodes.log");
	FILE *sf = open_in(p, dir, "sk_scope_split.log");
	char name[256];
	int nsk = 0, rc;

	if (f == NULL || sf == NULL) {
		if (f != NULL)
			fclose(f);
		if (sf != NULL)
			fclose(sf);
		return -1;
	}
	for (int s = 0; s < p->nstreams; s++)
		for (int l = 0; l < p->layers; l++)
			for (int g = 0; g < p->ngroups; g++) {
				int n = sk_number(p, s, l, g);
				int count = p->last[g] - p->first[g] + 1;

				if (n == 0)
					continue;
				nsk++;
				sk_name(name, sizeof(name), n, l, p, g);
				fprintf(f, "SK Function: %s, scope id: %d, Node Count: "
				    "%d\n", name, n, count);
				for (int k = p->first[g]; k <= p->last[g]; k++)
					fprintf(f, "[%d] [nodeId:%d, streamId:%d] - "
					    "KernelInfos{funcName:%s_%d, kernelType:"
					    "AIV_ONLY, taskRatio:[0,1], numBlocks:1, "
					    "cubeNum:0, vecNum:1, isScheModeOn:0, "
					    "needMixKernelSplit:0, resolvedNum:1}\n",
					    k - p->first[g], node_id(p, s, l, k), s,
					    p->kernel_names[k], l);
				fprintf(sf, "Scope %d (scopeId=%d): %d nodes, 1 streams, "
				    "scopeNames=[decoder.layer.%d]\n", n, n, count, l);
			}
	rc = close_in(p, f, dir, "sk_fused_nodes.log");
	if (close_in(p, sf, dir, "sk_scope_split.log") != 0 || rc != 0 ||
	    (f = open_in(p, dir, "super_kernel.log")) == NULL)
		return -1;
	fprintf(f, "super kernel build: %d SuperKernels for model %d\n", nsk,
	    MSP_MODEL_ID);
	return close_in(p, f, dir, "super_kernel.log");
}

/*
 * The SuperKernel child trace (sk_prof_device_0.json), a Chrome trace as
 * a device writes it: for every timed fused launch, the SK's span ("[0/1]
 * <sk>", its children's envelope) and each kernel on each row
 * ("[<row>/<rows>]<kernel>_<layer>", args nodeId the origin graph's node),
 * in us of the child clock from the first step, on the launch's stream.
 */
static int
write_sk_prof(const struct msp_trace *t, const char *dir)
{
	const struct msp_shape *p = &t->shape;
	FILE *f = open_in(p, dir, "sk_prof_device_0.json");
	char name[256];
	int first = 1;

	if (f == NULL)
		return -1;
	fputc('[', f);
	for (size_t i = 0; i < t->n; i++) {
		const struct msp_rec *r = &t->recs[i];
		int nk = group_kernels(p, r->group), n;
		size_t nc = (size_t)r->rows * nk;
		const struct msp_crec *last;

		if (r->children == NULL || nc == 0)
			continue;
		n = sk_number(p, r->stream, r->layer, r->group);
		last = &r->children[nc - 1];
		sk_name(name, sizeof(name), n, r->layer, p, r->group);
		fprintf(f, "%s\n{\"name\": \"[0/1] %s\", \"ph\": \"X\", "
		    "\"pid\": \"AI_CPU\", \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, "
		    "\"args\": {\"modelId\": \"%d\", \"skId\": %d, \"streamId\": "
		    "%d}}", first ? "" : ",", name, r->stream,
		    us_of(r->children[0].start_ns - t->child_origin_ns),
		    us_of(last->start_ns + last->dur_ns - r->children[0].start_ns),
		    MSP_MODEL_ID, n, r->stream);
		first = 0;
		for (size_t j = 0; j < nc; j++) {
			const struct msp_crec *cr = &r->children[j];
			int k = p->first[r->group] + (int)(j % (size_t)nk);

			fprintf(f, ",\n{\"name\": \"[%zu/%d]%s_%d\", \"ph\": \"X\", "
			    "\"pid\": \"AI_CPU\", \"tid\": %d, \"ts\": %.3f, "
			    "\"dur\": %.3f, \"args\": {\"modelId\": \"%d\", "
			    "\"skId\": %d, \"nodeId\": %d, \"streamId\": %d, "
			    "\"kernelType\": \"AI_CPU\"}}", j / (size_t)nk, r->rows,
			    p->kernel_names[k], r->layer, r->stream,
			    us_of(cr->start_ns - t->child_origin_ns),
			    us_of(cr->dur_ns), MSP_MODEL_ID, n,
			    node_id(p, r->stream, r->layer, k), r->stream);
		}
	}
	fputs("\n]\n", f);
	return close_in(p, f, dir, "sk_prof_device_0.json");
}

static int
mkdir_p(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *q = buf + 1; *q != '\0'; q++)
		if (*q == '/') {
			*q = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*q = '/';
		}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int
msp_trace_write(const struct msp_trace *t, const char *dir)
{
	const struct msp_shape *p = &t->shape;
	char meta[4096];
	int any = 0;

	if (mkdir_p(dir) != 0) {
		fprintf(stderr, "%s: %s: %s\n", p->prog, dir, strerror(errno));
		return -1;
	}
	if (write_launches(t, dir, "kernel_details.csv",
	    "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,"
	    "Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
	    "Block Num,Mix Block Num,aic_scalar_time(us),aic_scalar_ratio,"
	    "aiv_scalar_time(us),aiv_scalar_ratio\n", kernel_details_row,
	    "") != 0 ||
	    write_launches(t, dir, "task_time.csv", "Device_id,"
	    "kernel_name,kernel_type,stream_id,task_id,task_time(us),"
	    "task_start(us),task_stop(us)\n", task_time_row, "") != 0 ||
	    write_launches(t, dir, "trace_view.json", "[",
	    trace_view_row, "\n]\n") != 0)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		any |= fused(p, g);
	if (!any)
		return 0;
	if (p->child_steps > 0 && write_sk_prof(t, dir) != 0)
		return -1;
	snprintf(meta, sizeof(meta), "%s/device_0/model_%d", dir, MSP_MODEL_ID);
	if (mkdir_p(meta) != 0) {
		fprintf(stderr, "%s: %s: %s\n", p->prog, meta, strerror(errno));
		return -1;
	}
	return write_graph(p, meta, "sk_graph_origin.json", 0) != 0 ||
	    write_graph(p, meta, "sk_graph_updated.json", 1) != 0 ||
	    write_sk_logs(p, meta) != 0 ? -1 : 0;
}
