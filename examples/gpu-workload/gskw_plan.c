/*
 * gskw_plan.c - the GPU workload's scope strategies: how the six kernels
 * of a layer are grouped, and whether the groups are launched one by one
 * (a group of several kernels being one fused kernel) or captured per
 * layer into a CUDA graph; and how a profiling run's msprof files name
 * the launches.  The strategy names are the CPU demo workload's, plus
 * cuda_graph_layer.
 */
#include <string.h>

#include "gskw.h"

const char *const gskw_kernel_names[GK_COUNT] = {
	"matmul", "bias", "layernorm", "gelu", "softmax", "residual"
};

static const char *const scope_names[GS_COUNT] = {
	"none", "cuda_graph_layer", "automatic_aot", "semantic_segment",
	"per_block", "broad_decode"
};

const char *
gskw_scope_name(enum gskw_scope s)
{
	return (unsigned)s < GS_COUNT ? scope_names[s] : "?";
}

int
gskw_scope_parse(const char *name, enum gskw_scope *out)
{
	for (int s = 0; s < GS_COUNT; s++)
		if (strcmp(name, scope_names[s]) == 0) {
			*out = (enum gskw_scope)s;
			return 0;
		}
	return -1;
}

struct gskw_plan
gskw_make_plan(enum gskw_scope s)
{
	static const int separate[][2] = { {0,0}, {1,1}, {2,2}, {3,3}, {4,4}, {5,5} };
	static const int aot[][2] = { {0,1}, {2,2}, {3,3}, {4,5} };
	static const int segment[][2] = { {0,1}, {2,3}, {4,5} };
	static const int block[][2] = { {0,0}, {1,5} };
	static const int broad[][2] = { {0,5} };
	struct gskw_plan p = { GM_LAUNCH, 0, { 0 }, { 0 } };
	const int (*g)[2] = separate;
	int n = 6;

	switch (s) {
	case GS_GRAPH_LAYER: p.mode = GM_GRAPH; break;
	case GS_AOT: g = aot; n = 4; break;
	case GS_SEGMENT: g = segment; n = 3; break;
	case GS_BLOCK: g = block; n = 2; break;
	case GS_BROAD: g = broad; n = 1; break;
	default: break;
	}
	for (int i = 0; i < n; i++) {
		p.first[i] = g[i][0];
		p.last[i] = g[i][1];
	}
	p.ngroups = n;
	return p;
}

int
gskw_launches_per_layer(const struct gskw_plan *p, int multistream)
{
	/* A graph holds both streams' kernels; launches are per stream. */
	if (p->mode == GM_GRAPH)
		return 1;
	return p->ngroups * (multistream ? 2 : 1);
}

int
gskw_nstreams(const struct gskw_config *c)
{
	return c->multistream && c->batch >= 2 ? 2 : 1;
}

_Static_assert(GK_COUNT <= MSP_MAX_KERNELS, "the msprof writer holds every kernel");

int
gskw_trace_shape(const struct gskw_config *c, const struct gskw_plan *p,
    struct msp_shape *out, char *err, size_t errlen)
{
	struct msp_shape s = { "gskw", c->layers, c->batch, c->steps,
	    gskw_nstreams(c), 0, 0, GK_COUNT, p->ngroups, { 0 }, { 0 },
	    gskw_kernel_names, NULL, "AI_VECTOR_CORE" };

	if (p->mode == GM_GRAPH) {
		if (s.nstreams == 2)
			return gskw_errf(err, errlen, "--msprof-out: a "
			    "cuda_graph_layer graph over two streams "
			    "(experiments.multistream) is one launch of both "
			    "streams' kernels, which msprof's per-stream rows "
			    "cannot show");
		/* one launch per layer: the graph of its six kernels */
		s.ngroups = 1;
		s.first[0] = 0;
		s.last[0] = GK_COUNT - 1;
	} else {
		memcpy(s.first, p->first, sizeof(p->first));
		memcpy(s.last, p->last, sizeof(p->last));
	}
	*out = s;
	return 0;
}
