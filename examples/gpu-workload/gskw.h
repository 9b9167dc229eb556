/*
 * gskw.h - the GPU demo workload (gskw): a small decode loop of six CUDA
 * kernels per layer that tunectl tunes on a real GPU.
 *
 * The host side is plain C, unit-tested without a GPU: the configuration
 * and the command line (gskw_config.c), scope strategies and launch plans
 * and how msprof's files name them (gskw_plan.c), which GPU each rank runs
 * on (gskw_devices.c), the rank logs, the profile and the device list
 * (gskw_log.c), one rank's decode loop (gskw_rank.c) and the rank
 * processes (gskw_main.c).  Only the
 * device API at the end of this header is CUDA: gskw_device.cu implements
 * it with the CUDA runtime, gskw_kernels.cu holds the kernels.
 */
#ifndef GSKW_H
#define GSKW_H

#include <stddef.h>
#include <stdio.h>

#include "../msprof/msp_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The six kernels of a layer, in the order a layer runs them. */
enum { GK_MATMUL, GK_BIAS, GK_NORM, GK_GELU, GK_SOFTMAX, GK_RESIDUAL, GK_COUNT };

extern const char *const gskw_kernel_names[GK_COUNT];

/* Scope strategies (scope.strategy): how a layer's kernels are launched. */
enum gskw_scope {
	GS_NONE,		/* "none": six separate kernel launches */
	GS_GRAPH_LAYER,		/* "cuda_graph_layer": the six, captured as one graph */
	GS_AOT,			/* "automatic_aot": four fused kernels */
	GS_SEGMENT,		/* "semantic_segment": three fused kernels */
	GS_BLOCK,		/* "per_block": matmul, then one fused kernel */
	GS_BROAD,		/* "broad_decode": one fused kernel per layer */
	GS_COUNT
};

/* How a plan's groups reach the GPU. */
enum gskw_mode {
	GM_LAUNCH,		/* each group is one kernel launch */
	GM_GRAPH		/* a layer's groups are nodes of one CUDA graph */
};

/*
 * A launch plan: groups of consecutive kernels.  With GM_LAUNCH every
 * group is one kernel launch (a group of several kernels is a fused
 * kernel); with GM_GRAPH the groups are captured, per layer, into one
 * graph that is launched once.
 */
struct gskw_plan {
	enum gskw_mode mode;
	int ngroups;
	int first[GK_COUNT], last[GK_COUNT];
};

struct gskw_config {
	int layers, hidden, batch, steps, ranks;
	unsigned seed;
	enum gskw_scope scope;
	int block_size;		/* threads per block, a multiple of 32 */
	int tile_size;		/* matmul K tile staged in shared memory */
	int unroll;		/* matmul inner loop unrolling: 1 or 4 */
	int multistream;	/* two halves of the batch on two streams */
	int fast_softmax;	/* __expf in the softmax range */
};

/* ---- gskw_plan.c ---------------------------------------------------------- */

const char *gskw_scope_name(enum gskw_scope s);
/* 0 and *out, or -1 for an unknown name. */
int gskw_scope_parse(const char *name, enum gskw_scope *out);
struct gskw_plan gskw_make_plan(enum gskw_scope s);
/* Launch calls (kernel launches or graph launches) per layer. */
int gskw_launches_per_layer(const struct gskw_plan *p, int multistream);
/* The streams a rank runs: 2 with multistream (and a batch to split). */
int gskw_nstreams(const struct gskw_config *c);

/*
 * The plan as a profiling run's msprof files name it (--msprof-out,
 * examples/msprof/msp_trace.h): each group of a layer on each stream is
 * one launch, a group of several kernels a SuperKernel; a layer's CUDA
 * graph (GM_GRAPH) is one launch of its six kernels, written as the
 * layer's SuperKernel.  A graph over two streams (cuda_graph_layer with
 * multistream) is one launch of both streams' kernels, which msprof's
 * per-stream rows cannot show: -1 with a message.
 */
int gskw_trace_shape(const struct gskw_config *c, const struct gskw_plan *p,
    struct msp_shape *out, char *err, size_t errlen);

/* ---- gskw_config.c -------------------------------------------------------- */

/* Format a message into err (errlen bytes); returns -1. */
int gskw_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Read a config (JSON, which is also YAML): workload sizes, scope
 * strategy, super_kernel_optimize_options and experiments.  Every value is
 * checked; an unknown strategy or option is refused (a misspelt knob
 * must not silently tune nothing).  0, or -1 with a message in err.
 */
int gskw_config_load(const char *path, struct gskw_config *c, char *err,
    size_t errlen);
void gskw_config_defaults(struct gskw_config *c);

struct gskw_args {
	const char *config;
	const char *log_dir;	/* default $TUNECTL_RUN_DIR */
	const char *profile_out;
	const char *msprof_out;	/* rank 0 writes msprof's files here */
	int archive_config;
	int list_devices;
};

#define GSKW_USAGE "usage: gskw --config FILE [--log-dir DIR] " \
	"[--archive-config] [--profile-out FILE] [--msprof-out DIR]\n" \
	"       gskw --list-devices\n"

/* 0, or -1 with a message in err (the caller prints GSKW_USAGE). */
int gskw_args_parse(int argc, char **argv, const char *run_dir,
    struct gskw_args *a, char *err, size_t errlen);

/* ---- gskw_devices.c ------------------------------------------------------- */

#define GSKW_MAX_GPUS 64

/*
 * The GPU indices the ranks run on, one per rank: the device lease's ids
 * (SUPERKERNEL_DEVICE_IDS, set by tunectl's lease runner) when the process
 * holds a lease, else the indices CUDA_VISIBLE_DEVICES lists, else
 * 0 .. ranks-1.  Returns the number of ids (>= ranks), or -1 with a
 * message (a list that is not GPU indices, fewer GPUs than ranks).
 */
int gskw_rank_devices(const char *lease_ids, const char *visible, int ranks,
    int *ids, char *err, size_t errlen);

/*
 * The physical index of the CUDA device with ordinal k, given
 * CUDA_VISIBLE_DEVICES (NULL: k itself).  -1 with a message when the
 * variable names devices other than by index (UUIDs, MIG instances).
 */
int gskw_physical_index(const char *visible, int k, char *err, size_t errlen);

/* ---- the device API (gskw_device.cu; a simulated one in the tests) -------- */

struct gskw_gpu {
	int ordinal;
	char name[256];
	char pci_bus_id[32];
	int cc_major, cc_minor;
	double memory_gib;
};

struct gskw_probe {
	int count;
	int driver_version, runtime_version;	/* CUDA: 1000*major + 10*minor */
	struct gskw_gpu gpus[GSKW_MAX_GPUS];
	char error[256];
};

/* The visible devices; 0, or -1 with probe->error (none visible: count 0). */
int gskw_dev_probe(struct gskw_probe *probe);

/* The clock the decode figures come from, as named in the rank logs. */
const char *gskw_dev_clock(void);
/* One line saying how that clock measures a step. */
const char *gskw_dev_clock_note(void);

struct gskw_dev;

/* One step's measurements. */
struct gskw_step {
	double device_ms;	/* the figure the gates read */
	int launches;		/* kernel and graph launches issued */
};

/*
 * Allocate and initialise the model on CUDA device 0 of this process (the
 * rank's GPU) and prepare the plan (graphs are captured here).  With
 * profiling, every step also times each launch group.  With a trace (an
 * msprof profiling run, initialised with gskw_trace_shape's shape), every
 * step also times each launch on its stream and adds its record (start
 * from the first step's start, duration; in layer, group, stream order);
 * a trace implies profiling.  NULL with a message in err.
 */
struct gskw_dev *gskw_dev_open(const struct gskw_config *c,
    const struct gskw_plan *p, int rank, int profiling,
    struct msp_trace *trace, struct gskw_gpu *gpu, char *err, size_t errlen);
/* Run one decode step and wait for it.  0, or -1 with a message. */
int gskw_dev_step(struct gskw_dev *d, struct gskw_step *out, char *err,
    size_t errlen);
/* Per group, the device time of all launches of that group so far (when
 * profiling; with a graph per layer, group 0 is the graph). */
void gskw_dev_group_ms(const struct gskw_dev *d, double *group_ms);
/* Copy the activations back, sum them, free everything.  0 or -1. */
int gskw_dev_close(struct gskw_dev *d, double *checksum, char *err,
    size_t errlen);

/* ---- gskw_log.c ----------------------------------------------------------- */

/* The rank log's two header lines: the clock, then how it was read. */
void gskw_log_header(FILE *log, const char *clock, const char *clock_note,
    int rank, int gpu_index, const struct gskw_gpu *gpu,
    const struct gskw_probe *versions, const struct gskw_config *c);
void gskw_log_step(FILE *log, int step, int rank, const struct gskw_step *s,
    double wall_ms);
/* The profile of rank 0 (skw-kernel-profile-v1, as the CPU workload's). */
int gskw_write_profile(const char *path, const char *clock,
    const struct gskw_config *c, const struct gskw_plan *p,
    const double *group_ms, double checksum, char *err, size_t errlen);
/*
 * The device list (--list-devices) as one JSON line: driver and runtime
 * versions, every visible GPU with its physical index, or the error.
 */
int gskw_print_devices(FILE *out, const struct gskw_probe *probe,
    const char *visible, char *err, size_t errlen);

/* ---- gskw_rank.c ---------------------------------------------------------- */

/* Run one rank on GPU gpu_index (CUDA_VISIBLE_DEVICES is set to it before
 * CUDA starts) into <log_dir>/log_<rank>.log; rank 0 writes the profile
 * (profile_out) and msprof's files (msprof_out) when given.  Returns the
 * exit status. */
int gskw_rank_main(const struct gskw_config *c, int rank, int gpu_index,
    const char *log_dir, const char *profile_out, const char *msprof_out);

#ifdef __cplusplus
}
#endif

#endif
