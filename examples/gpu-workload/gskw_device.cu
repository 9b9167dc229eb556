/*
 * gskw_device.cu - the GPU workload's device API (gskw.h) on the CUDA
 * runtime: finding the GPUs, the model in device memory, the streams,
 * the per-layer CUDA graphs, and one timed decode step.
 *
 * A step is timed by two CUDA events recorded on the rank's stream, one
 * before the step's first launch and one after its last; the elapsed
 * time between them (cudaEventElapsedTime) is the device time of the
 * step: the kernels and every gap in which the GPU waited for the host
 * to issue the next launch.  That gap is what fusing kernels and
 * capturing graphs remove, and it is what the gates must see.
 *
 * A profiling run with a trace (gskw --msprof-out) also records two
 * events on each launch's own stream around it (around the graph launch
 * with a graph per layer), and one on stream 0 before the first step's
 * start: a launch's start is the time from that origin to its first
 * event, its duration the time between its two.  Those events are extra
 * work on the streams, which is why such a run is a profile and never a
 * measurement the gates read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gskw.h"
#include "gskw_cuda.h"

struct gskw_dev {
	struct gskw_config c;
	struct gskw_plan p;
	int nstreams, profiling;
	cudaStream_t s[2];
	cudaEvent_t start, stop, fork, join;
	float *w, *b, *x, *y;
	cudaGraphExec_t *graphs;	/* one per layer (GM_GRAPH) */
	cudaEvent_t *marks;		/* profiling: 2 per (layer, group) */
	int nmarks;
	double group_ms[GK_COUNT];
	struct msp_trace *trace;	/* NULL unless tracing */
	cudaEvent_t origin;		/* tracing: the first step's start */
	cudaEvent_t *lmarks;		/* tracing: 2 per (layer, group, stream) */
	int nlmarks, step;
};

static int
ok(cudaError_t e, const char *what, char *err, size_t errlen)
{
	if (e == cudaSuccess)
		return 1;
	snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorString(e),
	    cudaGetErrorName(e));
	return 0;
}

extern "C" const char *
gskw_dev_clock(void)
{
	return "cudaEventElapsedTime";
}

extern "C" const char *
gskw_dev_clock_note(void)
{
	return "device time between two CUDA events recorded on the rank's "
	    "stream before the step's first launch and after its last "
	    "(cudaEventElapsedTime): the kernels and the gaps in which the GPU "
	    "waited for the next launch";
}

/* What a GPU is, for the logs and the device list. */
static int
describe(int ordinal, struct gskw_gpu *g, char *err, size_t errlen)
{
	cudaDeviceProp prop;

	memset(g, 0, sizeof(*g));
	if (!ok(cudaGetDeviceProperties(&prop, ordinal),
	    "cudaGetDeviceProperties", err, errlen))
		return 0;
	g->ordinal = ordinal;
	snprintf(g->name, sizeof(g->name), "%s", prop.name);
	g->cc_major = prop.major;
	g->cc_minor = prop.minor;
	g->memory_gib = (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024);
	if (cudaDeviceGetPCIBusId(g->pci_bus_id, sizeof(g->pci_bus_id),
	    ordinal) != cudaSuccess)
		snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "unknown");
	return 1;
}

extern "C" int
gskw_dev_probe(struct gskw_probe *p)
{
	cudaError_t e;
	int n = 0;

	memset(p, 0, sizeof(*p));
	cudaDriverGetVersion(&p->driver_version);
	cudaRuntimeGetVersion(&p->runtime_version);
	if ((e = cudaGetDeviceCount(&n)) != cudaSuccess) {
		/* Without a driver at all, the runtime calls it too old. */
		snprintf(p->error, sizeof(p->error), "%scudaGetDeviceCount: %s "
		    "(%s)", p->driver_version == 0 ? "no NVIDIA driver is "
		    "loaded; " : "", cudaGetErrorString(e), cudaGetErrorName(e));
		return -1;
	}
	if (n == 0) {
		snprintf(p->error, sizeof(p->error), "no CUDA device is visible");
		return -1;
	}
	for (int k = 0; k < n && k < GSKW_MAX_GPUS; k++) {
		if (!describe(k, &p->gpus[k], p->error, sizeof(p->error)))
			return -1;
		p->count++;
	}
	return 0;
}

/* ---- launches -------------------------------------------------------- */

/* Launches per layer and stream a trace records (a graph: one, stream 0). */
static int
traced_groups(const struct gskw_dev *d)
{
	return d->p.mode == GM_GRAPH ? 1 : d->p.ngroups;
}

static int
traced_streams(const struct gskw_dev *d)
{
	return d->p.mode == GM_GRAPH ? 1 : d->nstreams;
}

/* The two events of the launch of (layer, group, stream) in a trace. */
static cudaEvent_t *
launch_marks(struct gskw_dev *d, int l, int g, int si)
{
	return &d->lmarks[2 * ((l * traced_groups(d) + g) * traced_streams(d) +
	    si)];
}

/* Record the begin (end = 0) or end event of a traced launch. */
static int
mark_launch(struct gskw_dev *d, int l, int g, int si, int end, char *err,
    size_t errlen)
{
	if (d->trace == NULL)
		return 1;
	return ok(cudaEventRecord(launch_marks(d, l, g, si)[end], d->s[si]),
	    "cudaEventRecord", err, errlen);
}

/* Group g of layer l for stream si's half of the batch. */
static cudaError_t
launch(struct gskw_dev *d, int l, int g, int si)
{
	const struct gskw_config *c = &d->c;
	int row0 = si * c->batch / d->nstreams;
	int row1 = (si + 1) * c->batch / d->nstreams;
	struct gskw_kargs a = {
		d->w + (size_t)l * c->hidden * c->hidden, d->b + (size_t)l * c->hidden,
		d->x, d->y, c->hidden, c->tile_size, row0, c->fast_softmax
	};

	return gskw_launch_group(&a, row1 - row0, d->p.first[g], d->p.last[g],
	    c->block_size, c->unroll, d->s[si]);
}

/* Make stream `to` wait for the work issued so far on stream `from`. */
static int
wait_for(struct gskw_dev *d, cudaEvent_t ev, int from, int to, char *err,
    size_t errlen)
{
	return ok(cudaEventRecord(ev, d->s[from]), "cudaEventRecord", err,
	    errlen) && ok(cudaStreamWaitEvent(d->s[to], ev, 0),
	    "cudaStreamWaitEvent", err, errlen);
}

/* Every group of layer l on every stream, stream 1 forked from and joined
 * back into stream 0 (so the layer can be captured as one graph). */
static int
issue_layer(struct gskw_dev *d, int l, char *err, size_t errlen)
{
	if (d->nstreams == 2 && !wait_for(d, d->fork, 0, 1, err, errlen))
		return 0;
	for (int si = 0; si < d->nstreams; si++)
		for (int g = 0; g < d->p.ngroups; g++)
			if (!ok(launch(d, l, g, si), "kernel launch", err, errlen))
				return 0;
	return d->nstreams == 1 || wait_for(d, d->join, 1, 0, err, errlen);
}

static int
capture_graphs(struct gskw_dev *d, char *err, size_t errlen)
{
	d->graphs = (cudaGraphExec_t *)calloc((size_t)d->c.layers,
	    sizeof(*d->graphs));
	if (d->graphs == NULL) {
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	for (int l = 0; l < d->c.layers; l++) {
		cudaGraph_t graph;
		int issued;

		if (!ok(cudaStreamBeginCapture(d->s[0],
		    cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture",
		    err, errlen))
			return 0;
		issued = issue_layer(d, l, err, errlen);
		if (!ok(cudaStreamEndCapture(d->s[0], &graph),
		    "cudaStreamEndCapture", err, errlen) || !issued)
			return 0;
		issued = ok(cudaGraphInstantiate(&d->graphs[l], graph, 0),
		    "cudaGraphInstantiate", err, errlen);
		cudaGraphDestroy(graph);
		if (!issued)
			return 0;
	}
	return 1;
}

/* ---- open, step, close ----------------------------------------------- */

static float
frand(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (float)((*state >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* The model, seeded as the CPU workload seeds it, copied to the GPU. */
static int
upload_model(struct gskw_dev *d, int rank, char *err, size_t errlen)
{
	const struct gskw_config *c = &d->c;
	size_t nw = (size_t)c->layers * c->hidden * c->hidden;
	size_t nb = (size_t)c->layers * c->hidden;
	size_t na = (size_t)c->batch * c->hidden;
	float *hw = (float *)malloc(sizeof(float) * (nw + nb + na));
	unsigned st = c->seed + 7u * (unsigned)rank;
	int good;

	if (hw == NULL) {
		snprintf(err, errlen, "out of host memory");
		return 0;
	}
	for (size_t i = 0; i < nw; i++)
		hw[i] = frand(&st) / (float)c->hidden * 4.0f;
	for (size_t i = nw; i < nw + nb; i++)
		hw[i] = frand(&st) * 0.1f;
	for (size_t i = nw + nb; i < nw + nb + na; i++)
		hw[i] = frand(&st);
	good = ok(cudaMalloc(&d->w, sizeof(float) * nw), "cudaMalloc", err, errlen) &&
	    ok(cudaMalloc(&d->b, sizeof(float) * nb), "cudaMalloc", err, errlen) &&
	    ok(cudaMalloc(&d->x, sizeof(float) * na), "cudaMalloc", err, errlen) &&
	    ok(cudaMalloc(&d->y, sizeof(float) * na), "cudaMalloc", err, errlen) &&
	    ok(cudaMemcpy(d->w, hw, sizeof(float) * nw, cudaMemcpyHostToDevice),
	    "cudaMemcpy", err, errlen) &&
	    ok(cudaMemcpy(d->b, hw + nw, sizeof(float) * nb,
	    cudaMemcpyHostToDevice), "cudaMemcpy", err, errlen) &&
	    ok(cudaMemcpy(d->x, hw + nw + nb, sizeof(float) * na,
	    cudaMemcpyHostToDevice), "cudaMemcpy", err, errlen);
	free(hw);
	return good;
}

static int
make_events(struct gskw_dev *d, char *err, size_t errlen)
{
	cudaEvent_t *plain[] = { &d->start, &d->stop };

	for (size_t i = 0; i < 2; i++)
		if (!ok(cudaEventCreate(plain[i]), "cudaEventCreate", err, errlen))
			return 0;
	/* fork/join only order streams: no timing, cheaper to record */
	if (!ok(cudaEventCreateWithFlags(&d->fork, cudaEventDisableTiming),
	    "cudaEventCreate", err, errlen) ||
	    !ok(cudaEventCreateWithFlags(&d->join, cudaEventDisableTiming),
	    "cudaEventCreate", err, errlen))
		return 0;
	if (!d->profiling)
		return 1;
	if (d->trace != NULL) {
		d->nlmarks = 2 * d->c.layers * traced_groups(d) * traced_streams(d);
		d->lmarks = (cudaEvent_t *)calloc((size_t)d->nlmarks,
		    sizeof(*d->lmarks));
		if (d->lmarks == NULL) {
			snprintf(err, errlen, "out of memory");
			return 0;
		}
		if (!ok(cudaEventCreate(&d->origin), "cudaEventCreate", err,
		    errlen))
			return 0;
		for (int i = 0; i < d->nlmarks; i++)
			if (!ok(cudaEventCreate(&d->lmarks[i]), "cudaEventCreate",
			    err, errlen))
				return 0;
	}
	d->nmarks = 2 * d->c.layers * (d->p.mode == GM_GRAPH ? 1 : d->p.ngroups);
	d->marks = (cudaEvent_t *)calloc((size_t)d->nmarks, sizeof(*d->marks));
	if (d->marks == NULL) {
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	for (int i = 0; i < d->nmarks; i++)
		if (!ok(cudaEventCreate(&d->marks[i]), "cudaEventCreate", err,
		    errlen))
			return 0;
	return 1;
}

static void
release(struct gskw_dev *d)
{
	for (int l = 0; d->graphs != NULL && l < d->c.layers; l++)
		if (d->graphs[l] != NULL)
			cudaGraphExecDestroy(d->graphs[l]);
	for (int i = 0; d->marks != NULL && i < d->nmarks; i++)
		if (d->marks[i] != NULL)
			cudaEventDestroy(d->marks[i]);
	for (int i = 0; d->lmarks != NULL && i < d->nlmarks; i++)
		if (d->lmarks[i] != NULL)
			cudaEventDestroy(d->lmarks[i]);
	cudaEvent_t evs[] = { d->start, d->stop, d->fork, d->join, d->origin };
	for (size_t i = 0; i < 5; i++)
		if (evs[i] != NULL)
			cudaEventDestroy(evs[i]);
	for (int si = 0; si < 2; si++)
		if (d->s[si] != NULL)
			cudaStreamDestroy(d->s[si]);
	cudaFree(d->w);
	cudaFree(d->b);
	cudaFree(d->x);
	cudaFree(d->y);
	free(d->graphs);
	free(d->marks);
	free(d->lmarks);
	free(d);
}

extern "C" struct gskw_dev *
gskw_dev_open(const struct gskw_config *c, const struct gskw_plan *p, int rank,
    int profiling, struct msp_trace *trace, struct gskw_gpu *gpu, char *err,
    size_t errlen)
{
	struct gskw_dev *d = (struct gskw_dev *)calloc(1, sizeof(*d));

	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->c = *c;
	d->p = *p;
	d->profiling = profiling || trace != NULL;
	d->trace = trace;
	d->nstreams = gskw_nstreams(c);
	if (!ok(cudaSetDevice(0), "cudaSetDevice", err, errlen) ||
	    !describe(0, gpu, err, errlen) ||
	    !ok(cudaStreamCreateWithFlags(&d->s[0], cudaStreamNonBlocking),
	    "cudaStreamCreate", err, errlen) ||
	    !ok(cudaStreamCreateWithFlags(&d->s[1], cudaStreamNonBlocking),
	    "cudaStreamCreate", err, errlen) || !make_events(d, err, errlen) ||
	    !upload_model(d, rank, err, errlen) || (p->mode == GM_GRAPH && !capture_graphs(d, err, errlen))) {
		release(d);
		return NULL;
	}
	return d;
}

/* Profiling: layer l's launches between marks 2i and 2i+1, per group. */
static int
issue_profiled(struct gskw_dev *d, int l, char *err, size_t errlen)
{
	int ng = d->p.mode == GM_GRAPH ? 1 : d->p.ngroups;

	for (int g = 0; g < ng; g++) {
		cudaEvent_t *m = &d->marks[2 * (l * ng + g)];

		if (!ok(cudaEventRecord(m[0], d->s[0]), "cudaEventRecord", err,
		    errlen))
			return 0;
		if (d->p.mode == GM_GRAPH) {
			if (!mark_launch(d, l, 0, 0, 0, err, errlen) ||
			    !ok(cudaGraphLaunch(d->graphs[l], d->s[0]),
			    "cudaGraphLaunch", err, errlen) ||
			    !mark_launch(d, l, 0, 0, 1, err, errlen))
				return 0;
		} else {
			if (d->nstreams == 2 && !wait_for(d, d->fork, 0, 1, err,
			    errlen))
				return 0;
			for (int si = 0; si < d->nstreams; si++)
				if (!mark_launch(d, l, g, si, 0, err, errlen) ||
				    !ok(launch(d, l, g, si), "kernel launch", err,
				    errlen) || !mark_launch(d, l, g, si, 1, err, errlen))
					return 0;
			if (d->nstreams == 2 && !wait_for(d, d->join, 1, 0, err,
			    errlen))
				return 0;
		}
		if (!ok(cudaEventRecord(m[1], d->s[0]), "cudaEventRecord", err,
		    errlen))
			return 0;
	}
	return 1;
}

/* The whole step's launches (between the start and stop events). */
static int
issue_step(struct gskw_dev *d, int *launches, char *err, size_t errlen)
{
	int per_layer = gskw_launches_per_layer(&d->p, d->nstreams == 2);

	*launches = per_layer * d->c.layers;
	for (int l = 0; l < d->c.layers; l++) {
		if (d->profiling) {
			if (!issue_profiled(d, l, err, errlen))
				return 0;
		} else if (d->p.mode == GM_GRAPH) {
			if (!ok(cudaGraphLaunch(d->graphs[l], d->s[0]),
			    "cudaGraphLaunch", err, errlen))
				return 0;
		} else if (!issue_layer(d, l, err, errlen)) {
			return 0;
		}
	}
	return 1;
}

/* The step's launches into the trace, in layer, group, stream order. */
static int
read_trace(struct gskw_dev *d, char *err, size_t errlen)
{
	for (int l = 0; l < d->c.layers; l++)
		for (int g = 0; g < traced_groups(d); g++)
			for (int si = 0; si < traced_streams(d); si++) {
				int ns = traced_streams(d);
				int rows = (si + 1) * d->c.batch / ns -
				    si * d->c.batch / ns;
				cudaEvent_t *m = launch_marks(d, l, g, si);
				struct msp_rec *r = msp_trace_add(d->trace, d->step, l,
				    g, si, rows);
				float start = 0.0f, dur = 0.0f;

				if (r == NULL) {
					snprintf(err, errlen, "the trace has no room for "
					    "step %d", d->step);
					return 0;
				}
				if (!ok(cudaEventElapsedTime(&start, d->origin, m[0]),
				    "cudaEventElapsedTime", err, errlen) ||
				    !ok(cudaEventElapsedTime(&dur, m[0], m[1]),
				    "cudaEventElapsedTime", err, errlen))
					return 0;
				r->start_ns = llround((double)start * 1e6);
				r->dur_ns = llround((double)dur * 1e6);
			}
	return 1;
}

extern "C" int
gskw_dev_step(struct gskw_dev *d, struct gskw_step *out, char *err,
    size_t errlen)
{
	float ms = 0.0f;

	if (d->trace != NULL && d->step == 0 && !ok(cudaEventRecord(d->origin,
	    d->s[0]), "cudaEventRecord", err, errlen))
		return -1;
	if (!ok(cudaEventRecord(d->start, d->s[0]), "cudaEventRecord", err,
	    errlen) || !issue_step(d, &out->launches, err, errlen) ||
	    !ok(cudaEventRecord(d->stop, d->s[0]), "cudaEventRecord", err,
	    errlen) || !ok(cudaEventSynchronize(d->stop), "the decode step",
	    err, errlen) || !ok(cudaEventElapsedTime(&ms, d->start, d->stop),
	    "cudaEventElapsedTime", err, errlen))
		return -1;
	out->device_ms = ms;
	for (int i = 0; d->profiling && i < d->nmarks; i += 2) {
		int ng = d->p.mode == GM_GRAPH ? 1 : d->p.ngroups;
		float g_ms = 0.0f;

		if (!ok(cudaEventElapsedTime(&g_ms, d->marks[i], d->marks[i + 1]),
		    "cudaEventElapsedTime", err, errlen))
			return -1;
		d->group_ms[(i / 2) % ng] += g_ms;
	}
	if (d->trace != NULL && !read_trace(d, err, errlen))
		return -1;
	d->step++;
	return 0;
}

extern "C" void
gskw_dev_group_ms(const struct gskw_dev *d, double *group_ms)
{
	memcpy(group_ms, d->group_ms, sizeof(d->group_ms));
}

extern "C" int
gskw_dev_close(struct gskw_dev *d, double *checksum, char *err, size_t errlen)
{
	size_t na = (size_t)d->c.batch * d->c.hidden;
	float *hx = (float *)malloc(sizeof(float) * na);
	int good = hx != NULL;

	*checksum = 0.0;
	if (!good)
		snprintf(err, errlen, "out of host memory");
	else if ((good = ok(cudaMemcpy(hx, d->x, sizeof(float) * na,
	    cudaMemcpyDeviceToHost), "cudaMemcpy", err, errlen)))
		for (size_t i = 0; i < na; i++)
			*checksum += hx[i];
	free(hx);
	release(d);
	return good ? 0 : -1;
}
