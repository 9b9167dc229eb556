/*
 * skw.h - the demo workload's parts: the configuration a tuning session
 * changes, the six kernels of a layer and how a scope strategy groups
 * them into launches (skw_kernels.c), and the per-rank stream thread
 * every launch is handed to (skw_stream.c).  skw.c runs the ranks.
 */
#ifndef SKW_H
#define SKW_H

#include <pthread.h>
#include <stddef.h>

#include "../msprof/msp_trace.h"

enum { K_MATMUL, K_BIAS, K_NORM, K_GELU, K_SOFTMAX, K_RESIDUAL, K_COUNT };

extern const char *const skw_kernel_names[K_COUNT];

enum skw_scope { SCOPE_NONE, SCOPE_AOT, SCOPE_SEGMENT, SCOPE_BLOCK, SCOPE_BROAD };

struct skw_config {
	int layers, hidden, batch, steps, ranks;
	enum skw_scope scope;
	int tile, unroll;
	int ikj;			/* loop order */
	int multistream;
	int fast_softmax;
	unsigned seed;
};

struct skw_model {
	const struct skw_config *cfg;
	float *w;			/* layers x hidden x hidden */
	float *b;			/* layers x hidden */
};

/*
 * A scope plan lists groups of consecutive kernels; each group is one
 * launch, one fused loop over the rows, so the activations of a row stay
 * in cache across the kernels of a group.
 */
struct skw_plan {
	int ngroups;
	int first[K_COUNT], last[K_COUNT];
};

struct skw_plan skw_make_plan(enum skw_scope s);

/*
 * Multistream splits the batch as a graph compiler splits it for two
 * streams: the main stream (0) runs a split launch before the first layer,
 * copying the second half of the activations into the secondary stream's
 * own buffer, and a concat launch after the last layer, copying it back;
 * stream 1 runs every layer on its half alone.  Every decode step does
 * both, as every execution of a graph does.  The group of such a launch
 * is SKW_SPLIT or SKW_CONCAT (its layer -1), so the two streams' launch
 * sequences differ, as a multistream graph's streams do on a device.
 */
enum { SKW_SPLIT = MSP_SPLIT, SKW_CONCAT = MSP_CONCAT };

extern const char *const skw_copy_names[2];	/* "split", "concat" */

/* The streams a rank runs: 2 with multistream (and a batch to split). */
static inline int
skw_nstreams(const struct skw_config *c)
{
	return c->multistream && c->batch >= 2 ? 2 : 1;
}

/*
 * The fused launches of the first SKW_SK_PROF_STEPS decode steps also
 * time their children, row by row (skw_run_group), on CLOCK_MONOTONIC,
 * the child trace's own clock (as a device's: never aligned with
 * kernel_details.csv's): one clock read per kernel and row, so only a
 * window of steps pays for it.
 */
#define SKW_SK_PROF_STEPS 1

/*
 * What one launch runs: one group of one layer over rows [row0, row1), or
 * (SKW_SPLIT, SKW_CONCAT) the copy of rows [row0, row1) of x to or from
 * the first rows of xs, the secondary stream's activations.  In a
 * profiling run (--msprof-out) rec is the launch's record (struct
 * msp_rec, examples/msprof/msp_trace.h): the stream thread fills in when
 * it started and how long it took on the rank's CPU clock
 * (CLOCK_PROCESS_CPUTIME_ID), in nanoseconds, and the children's times
 * when the launch's children are timed.
 */
struct skw_launch {
	const struct skw_model *m;
	const struct skw_plan *p;
	int group, layer, row0, row1;
	float *x, *y;
	struct msp_rec *rec;		/* NULL unless profiling */
	float *xs;			/* SKW_SPLIT, SKW_CONCAT only */
};

void skw_run_group(const struct skw_launch *a);

/* A stream: the thread a rank hands its launches to. */
struct skw_stream {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t posted, done;
	unsigned long seq_posted, seq_done;
	struct skw_launch launch;
	int stop;
};

int skw_stream_start(struct skw_stream *st);
void skw_stream_stop(struct skw_stream *st);
void skw_stream_post(struct skw_stream *st, const struct skw_launch *a);
void skw_stream_wait(struct skw_stream *st);

#endif
