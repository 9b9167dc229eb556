/*
 * msp_trace.h - what a profiling run of a demo workload leaves behind, in
 * the formats an Ascend NPU run leaves them: msprof's per-launch files and
 * the SuperKernel compiler's graphs and logs (msp_trace.c).  Shared by the
 * CPU workload (examples/workload, skw --msprof-out) and the GPU one
 * (examples/gpu-workload, gskw --msprof-out): each describes its launch
 * plan as a struct msp_shape and hands over one record per launch and
 * stream, timed on its own clock.
 */
#ifndef MSP_TRACE_H
#define MSP_TRACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSP_MAX_KERNELS 8
#define MSP_MODEL_ID 1

/* The groups of a copy launch (split, concat), layer -1, stream 0. */
enum { MSP_SPLIT = -1, MSP_CONCAT = -2 };

/*
 * A workload's launch plan as the files name it.  Every step launches, on
 * each of nstreams streams, each of ngroups groups (kernels first[g] ..
 * last[g] of kernel_names) of each layer, in that order; a group of more
 * than one kernel is a fused launch, a SuperKernel.  With copies, stream 0
 * also runs a split launch before the first layer and a concat launch
 * after the last (copy_names[0], [1]).  The fused launches of the first
 * child_steps steps time their children, rows x kernels each
 * (sk_prof_device_0.json; 0: no child trace).
 */
struct msp_shape {
	const char *prog;		/* in messages: "skw", "gskw" */
	int layers, batch, steps, nstreams, copies, child_steps;
	int nkernels, ngroups;
	int first[MSP_MAX_KERNELS], last[MSP_MAX_KERNELS];
	const char *const *kernel_names;
	const char *const *copy_names;	/* NULL without copies */
	const char *task_type;		/* task_time.csv's kernel_type */
};

/* One kernel of a fused launch on one row: the child trace's own clock. */
struct msp_crec {
	long long start_ns, dur_ns;
};

/*
 * One launch on one stream: where it ran and, filled by whoever timed it,
 * when it started and how long it took, in nanoseconds of the workload's
 * clock; children, when timed, rows x kernels of the group in row order.
 */
struct msp_rec {
	int step, layer, group, stream, rows;
	long long start_ns, dur_ns;
	struct msp_crec *children;	/* NULL unless timed */
};

/* The launches of one profiling run, in launch order. */
struct msp_trace {
	struct msp_shape shape;
	struct msp_rec *recs;
	size_t n, cap;
	struct msp_crec *crecs;		/* every child record of the run */
	size_t ncrecs, crec_cap;
	long long origin_ns;		/* the clock at the first step */
	long long child_origin_ns;	/* the child clock at the first step */
};

/*
 * msp_trace_init allocates every record of the run up front (so a record
 * handed to a stream never moves); msp_trace_add reserves the record of
 * the next launch (NULL only past the plan); msp_trace_write writes
 * kernel_details.csv, task_time.csv and trace_view.json into DIR and,
 * when the plan fuses kernels, the child trace (when timed) and the
 * compiler's files (DIR/device_0/model_<MSP_MODEL_ID>/).  0, or -1 with a
 * message on stderr.
 */
int msp_trace_init(struct msp_trace *t, const struct msp_shape *s);
struct msp_rec *msp_trace_add(struct msp_trace *t, int step, int layer,
    int group, int stream, int rows);
int msp_trace_write(const struct msp_trace *t, const char *dir);
void msp_trace_free(struct msp_trace *t);

#ifdef __cplusplus
}
#endif

#endif
