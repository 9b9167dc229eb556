/*
 * skw.c - the demo workload: a small transformer-like decode loop that
 * behaves like the models SuperKernel tunes.
 *
 * Each decode step runs LAYERS blocks of six kernels over a BATCH x HIDDEN
 * activation matrix (skw_kernels.c).  Every kernel group is one launch,
 * handed to the rank's stream thread (skw_stream.c).  RANKS worker
 * processes, each pinned to a core of its own (the idlest ones when the
 * run starts), run STEPS decode steps
 * each and log one line per step to <log-dir>/log_<rank>.log:
 *
 *     Timing clock: CLOCK_PROCESS_CPUTIME_ID
 *     step 0 rank 0 Inference time (decode): 1.2345 ms wall 1.2500 ms rank-thread 0.3100 ms
 *
 * The "Inference time (decode)" figure is what tunectl's gates read.  It
 * is the CPU time of every thread of the rank process over the step:
 * the time the rank's core spent on the step, launch hand-offs included,
 * but not the time the core was lent to another process.  That is what a
 * device timer measures on an accelerator, and it keeps a busy machine
 * from passing for a slow candidate.  Wall time (CLOCK_MONOTONIC) and the
 * rank thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, which misses the
 * kernels: they run on the stream thread) are logged beside it for the
 * record; docs/measurement.md gives the measurements behind the choice.
 *
 * What tuning can change (all read from the config, a JSON document, which
 * is also valid YAML so it can be archived as config.yaml):
 *   scope.strategy          how kernels are grouped into launches
 *                           (none | automatic_aot | semantic_segment |
 *                            per_block | broad_decode), see skw_make_plan();
 *   model_config.custom_params.super_kernel_optimize_options
 *                           tile_size (matmul blocking), unroll (inner
 *                           loop unrolling), loop_order ("ijk" | "ikj");
 *   experiments.multistream two independent halves of the batch on two
 *                           streams (both on the rank's one core), split
 *                           off and joined by the main stream (skw.h);
 *   experiments.source_range.fast_softmax
 *                           a source-level rewrite of the softmax range.
 *
 * SKW_SIMULATED_TIMING=1 (used by tunectl's own tests, never by the
 * demo) still runs every kernel but logs the time of a fixed cost model
 * with a small deterministic jitter instead of a clock, and names the
 * clock "simulated", so a test of the controller's flow cannot be failed
 * by a noisy machine.  See model_ms().  SKW_SIMULATED_TIMING=noisy adds 25 %
 * more per run index (mod 5): five runs spread by 67 %, a run set no
 * stability gate accepts (the demo's loaded-machine limit is 50 %).  With
 * noisy (tests only), SKW_NOISE_STEP_PCT=P adds P % per run index instead
 * (12: a spread of 38.7 %), and SKW_NOISE_RUN_DIRS=PATTERN keeps the noise
 * to the runs whose $TUNECTL_RUN_DIR matches that fnmatch(3) pattern (the
 * others are modelled as with =1), so a test can disturb one run set of a
 * session.  SKW_STEP_PAUSE_US=N (tests only)
 * makes the rank thread sleep N microseconds inside every step, as a rank
 * that is descheduled would: the wall figure counts it, the gate clock
 * does not.
 *
 * usage: skw --config FILE [--log-dir DIR] [--archive-config] [--profile-out FILE]
 *            [--msprof-out DIR]
 *
 * The log directory defaults to $TUNECTL_RUN_DIR, the run directory that
 * "tunectl bench run" gives each run; --archive-config copies the config
 * read into <log-dir>/config.yaml (JSON is YAML), as Stage A requires.
 * --profile-out makes rank 0 time every launch group (a profiling run:
 * the extra clock reads make its steps slower than a clean run's).
 * --msprof-out makes rank 0 record every launch on its stream and write
 * what msprof and the SuperKernel compiler leave on an NPU (examples/msprof/msp_trace.c):
 * kernel_details.csv, task_time.csv, trace_view.json and, when the scope
 * fuses kernels, the SuperKernel child trace and the origin and fused
 * graphs with their logs.
 */
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "skw.h"

/* The clock the gates read, as named in every rank log. */
#define GATE_CLOCK "CLOCK_PROCESS_CPUTIME_ID"

static double
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The three readings of a step, the gate clock innermost. */
struct reading {
	double wall, thread, cpu;
};

static void
read_start(struct reading *r)
{
	r->wall = clock_ms(CLOCK_MONOTONIC);
	r->thread = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	r->cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static void
read_end(struct reading *r)
{
	r->cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - r->cpu;
	r->thread = clock_ms(CLOCK_THREAD_CPUTIME_ID) - r->thread;
	r->wall = clock_ms(CLOCK_MONOTONIC) - r->wall;
}

/* ---- one decode step ---------------------------------------------------- */

/*
 * A split or concat launch (SKW_SPLIT, SKW_CONCAT) on the main stream:
 * the second half of the batch between x and the secondary stream's xs.
 */
static void
copy_launch(const struct skw_model *m, const struct skw_plan *p,
    struct skw_stream *main_stream, int group, float *x, float *xs,
    struct msp_trace *trace, int step)
{
	const struct skw_config *c = m->cfg;
	struct skw_launch a = { m, p, group, -1, c->batch / 2, c->batch, x,
	    NULL, trace != NULL ? msp_trace_add(trace, step, -1, group, 0,
	    c->batch - c->batch / 2) : NULL, xs };

	skw_stream_post(main_stream, &a);
	skw_stream_wait(main_stream);
}

/*
 * Every group of every layer is one launch: posted to the stream and
 * waited for.  With multistream, stream 0 runs the first half of the batch
 * in x and y, stream 1 the second half in its own xs and ys, split off
 * before the first layer and joined after the last (skw.h).  group_ms,
 * when profiling, accumulates the CPU time of each group's launches;
 * trace, when given, gets one record per launch and stream.
 */
static void
decode_step(const struct skw_model *m, const struct skw_plan *p,
    struct skw_stream *streams, float *x, float *y, float *xs, float *ys,
    double *group_ms, struct msp_trace *trace, int step)
{
	const struct skw_config *c = m->cfg;
	int nstreams = skw_nstreams(c), half = c->batch / nstreams;

	if (nstreams == 2)
		copy_launch(m, p, &streams[0], SKW_SPLIT, x, xs, trace, step);
	for (int l = 0; l < c->layers; l++)
		for (int g = 0; g < p->ngroups; g++) {
			double t0 = group_ms != NULL ?
			    clock_ms(CLOCK_PROCESS_CPUTIME_ID) : 0.0;

			for (int s = 0; s < nstreams; s++) {
				int rows = s == 0 ? half : c->batch - half;
				struct skw_launch a = { m, p, g, l, 0, rows,
				    s == 0 ? x : xs, s == 0 ? y : ys,
				    trace != NULL ? msp_trace_add(trace, step,
				    l, g, s, rows) : NULL, NULL };

				skw_stream_post(&streams[s], &a);
			}
			for (int s = 0; s < nstreams; s++)
				skw_stream_wait(&streams[s]);
			if (group_ms != NULL)
				group_ms[g] += clock_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
		}
	if (nstreams == 2)
		copy_launch(m, p, &streams[0], SKW_CONCAT, x, xs, trace, step);
}

/*
 * The cost model of SKW_SIMULATED_TIMING: per layer, a launch hand-off
 * per kernel group, the matmul (its loop order and unrolling), the
 * elementwise kernels (fast softmax), two streams for multistream; times
 * a jitter of at most +-0.4% from a hash of (run, rank, step), and with
 * noise (noise_step()), that fraction more per run index mod 5.
 */
static double
model_ms(const struct skw_config *c, const struct skw_plan *p, int rank,
    int step, double noise)
{
	double launch = 0.020 * p->ngroups;
	double matmul = (c->ikj ? 0.30 : 0.50) * (c->unroll >= 4 ? 0.94 : 1.0) *
	    (c->tile > 0 && c->tile < c->hidden ? 1.02 : 1.0);
	double other = c->fast_softmax ? 0.14 : 0.16;
	double ms = c->layers * (launch + matmul + other);
	const char *run = getenv("TUNECTL_RUN_INDEX");
	unsigned h = 2166136261u;
	char key[64];

	if (c->multistream)
		ms *= 0.8;
	ms *= 1.0 + noise * (double)((run != NULL ? atoi(run) : 0) % 5);
	snprintf(key, sizeof(key), "%s/%d/%d", run != NULL ? run : "0", rank, step);
	for (const char *k = key; *k != '\0'; k++)
		h = (h ^ (unsigned char)*k) * 16777619u;
	return ms * (1.0 + ((double)(h % 1001) / 1000.0 - 0.5) * 0.008);
}

/*
 * The noise of SKW_SIMULATED_TIMING=noisy: the fraction a run's modelled
 * time grows per run index (mod 5), SKW_NOISE_STEP_PCT % (default 25);
 * 0 for a run outside SKW_NOISE_RUN_DIRS.  A step that is no number in
 * [0, 100] is refused (-1).
 */
static double
noise_step(void)
{
	const char *sim = getenv("SKW_SIMULATED_TIMING");
	const char *step = getenv("SKW_NOISE_STEP_PCT");
	const char *dirs = getenv("SKW_NOISE_RUN_DIRS");
	const char *run_dir = getenv("TUNECTL_RUN_DIR");
	double pct = 25.0;
	char *end;

	if (sim == NULL || strcmp(sim, "noisy") != 0)
		return 0.0;
	if (step != NULL) {
		pct = strtod(step, &end);
		if (end == step || *end != '\0' || !(pct >= 0 && pct <= 100)) {
			fprintf(stderr, "skw: SKW_NOISE_STEP_PCT must be a number "
			    "in [0, 100], not '%s'\n", step);
			return -1.0;
		}
	}
	if (dirs != NULL && (run_dir == NULL ||
	    fnmatch(dirs, run_dir, 0) != 0))
		return 0.0;
	return pct / 100.0;
}

/* ---- configuration ------------------------------------------------------ */

static int
get_int(const tc_json *obj, const char *key, int def, int lo, int hi)
{
	int64_t v;
	const tc_json *j = tc_json_get(obj, key);

	if (j == NULL)
		return def;
	if (!tc_json_int64(j, &v) || v < lo || v > hi) {
		fprintf(stderr, "skw: config %s must be an integer in [%d, %d]\n",
		    key, lo, hi);
		exit(2);
	}
	return (int)v;
}

static int
load_config(const char *path, struct skw_config *c)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse_file(path, &err);
	const tc_json *wl, *opts, *exp, *sr;
	const char *s;

	if (doc == NULL) {
		fprintf(stderr, "skw: %s: %s\n", path, tc_error_msg(&err));
		tc_error_clear(&err);
		return -1;
	}
	wl = tc_json_get(doc, "workload");
	c->layers = get_int(wl, "layers", 4, 1, 64);
	c->hidden = get_int(wl, "hidden", 128, 8, 4096);
	c->batch = get_int(wl, "batch", 8, 1, 1024);
	c->steps = get_int(wl, "steps", 24, 1, 100000);
	c->ranks = get_int(wl, "ranks", 2, 1, 64);
	c->seed = (unsigned)get_int(wl, "seed", 42, 0, 1 << 30);

	c->scope = SCOPE_NONE;
	s = tc_json_get_string(tc_json_get(doc, "scope"), "strategy");
	if (s != NULL) {
		if (strcmp(s, "automatic_aot") == 0) c->scope = SCOPE_AOT;
		else if (strcmp(s, "semantic_segment") == 0) c->scope = SCOPE_SEGMENT;
		else if (strcmp(s, "per_block") == 0) c->scope = SCOPE_BLOCK;
		else if (strcmp(s, "broad_decode") == 0) c->scope = SCOPE_BROAD;
		else if (strcmp(s, "none") != 0) {
			fprintf(stderr, "skw: unknown scope.strategy '%s'\n", s);
			tc_json_free(doc);
			return -1;
		}
	}
	opts = tc_json_get(tc_json_get(tc_json_get(doc, "model_config"),
	    "custom_params"), "super_kernel_optimize_options");
	c->tile = get_int(opts, "tile_size", 0, 0, 4096);
	c->unroll = get_int(opts, "unroll", 1, 1, 16);
	s = tc_json_get_string(opts, "loop_order");
	c->ikj = s != NULL && strcmp(s, "ikj") == 0;
	exp = tc_json_get(doc, "experiments");
	c->multistream = tc_json_is(tc_json_get(exp, "multistream"), TC_JSON_BOOL) &&
	    tc_json_get(exp, "multistream")->u.b;
	sr = tc_json_get(exp, "source_range");
	c->fast_softmax = tc_json_is(tc_json_get(sr, "fast_softmax"), TC_JSON_BOOL) &&
	    tc_json_get(sr, "fast_softmax")->u.b;
	tc_json_free(doc);
	return 0;
}

/* ---- one rank ----------------------------------------------------------- */

static float
frand(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (float)((*state >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/*
 * The CPUs this process may use, idlest first: the busy time each one
 * accumulated over IDLE_PROBE_MS (from /proc/stat), ties in CPU order.
 * Taken once, before the ranks fork, so every rank of a run sees the same
 * order.  A rank should own a core as it owns a device: pinned to a core
 * another program keeps busy, it would wait for that program at every
 * launch hand-off.
 */
#define IDLE_PROBE_MS 50

static int cpu_order[CPU_SETSIZE];
static int cpu_order_len;

static int
read_cpu_busy(unsigned long long *busy, int max)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int n = 0;

	if (f == NULL)
		return -1;
	for (int i = 0; i < max; i++)
		busy[i] = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long v[8] = { 0 };
		int cpu;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu",
		    &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		    &v[7]) < 9 || cpu < 0 || cpu >= max)
			continue;
		/* user nice system (idle iowait) irq softirq steal */
		busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		n++;
	}
	fclose(f);
	return n > 0 ? 0 : -1;
}

static void
order_cpus_by_idleness(void)
{
	static unsigned long long before[CPU_SETSIZE], after[CPU_SETSIZE];
	struct timespec probe = { 0, IDLE_PROBE_MS * 1000000L };
	cpu_set_t allowed;
	int have;

	cpu_order_len = 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	have = read_cpu_busy(before, CPU_SETSIZE) == 0;
	if (have) {
		nanosleep(&probe, NULL);
		have = read_cpu_busy(after, CPU_SETSIZE) == 0;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int k;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		/* insertion by busy delta; without /proc/stat, CPU order */
		for (k = cpu_order_len; k > 0 && have &&
		    after[cpu] - before[cpu] < after[cpu_order[k - 1]] -
		    before[cpu_order[k - 1]]; k--)
			cpu_order[k] = cpu_order[k - 1];
		cpu_order[k] = cpu;
		cpu_order_len++;
	}
}

/*
 * One core per rank: the rank's threads (so every launch hand-off) stay on
 * the rank-th idlest CPU this process may use.  Returns that CPU, or -1
 * when the rank stays unpinned.
 */
static int
pin_rank(const struct skw_config *c, int rank)
{
	cpu_set_t one;
	int cpu;

	if (cpu_order_len == 0 || cpu_order_len < c->ranks)
		return -1;
	cpu = cpu_order[rank % cpu_order_len];
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0 ? cpu : -1;
}

static int
write_profile(const char *path, const struct skw_config *c,
    const struct skw_plan *p, const double *group_ms, double checksum)
{
	FILE *pf = fopen(path, "w");

	if (pf == NULL) {
		fprintf(stderr, "skw: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(pf, "{\"schema_version\": \"skw-kernel-profile-v1\", "
	    "\"clock\": \"%s\", \"steps\": %d, \"layers\": %d, \"groups\": [",
	    GATE_CLOCK, c->steps, c->layers);
	for (int g = 0; g < p->ngroups; g++) {
		fprintf(pf, "%s{\"kernels\": [", g ? ", " : "");
		for (int k = p->first[g]; k <= p->last[g]; k++)
			fprintf(pf, "%s\"%s\"", k > p->first[g] ? ", " : "",
			    skw_kernel_names[k]);
		fprintf(pf, "], \"total_ms\": %.6f}", group_ms[g]);
	}
	fprintf(pf, "], \"checksum\": %.6e}\n", checksum);
	return fclose(pf) == 0 ? 0 : 1;
}

_Static_assert(K_COUNT <= MSP_MAX_KERNELS, "the msprof writer holds every kernel");

/* The plan as the msprof writer names it (examples/msprof/msp_trace.h). */
static struct msp_shape
trace_shape(const struct skw_config *c, const struct skw_plan *p)
{
	struct msp_shape s = { "skw", c->layers, c->batch, c->steps,
	    skw_nstreams(c), skw_nstreams(c) == 2, SKW_SK_PROF_STEPS, K_COUNT,
	    p->ngroups, { 0 }, { 0 }, skw_kernel_names, skw_copy_names,
	    "AI_CPU" };

	memcpy(s.first, p->first, sizeof(p->first));
	memcpy(s.last, p->last, sizeof(p->last));
	return s;
}

static int
run_rank(const struct skw_config *c, int rank, const char *log_dir,
    const char *profile_out, const char *msprof_out)
{
	struct skw_model m = { c, NULL, NULL };
	struct skw_plan p = skw_make_plan(c->scope);
	struct msp_shape shape = trace_shape(c, &p);
	struct skw_stream streams[2];
	size_t hh = (size_t)c->hidden * c->hidden;
	size_t act = (size_t)c->batch * c->hidden;
	unsigned st = c->seed + 7u * (unsigned)rank;
	const char *sim = getenv("SKW_SIMULATED_TIMING");
	const char *pause = getenv("SKW_STEP_PAUSE_US");
	int simulated = sim != NULL && (strcmp(sim, "noisy") == 0 ||
	    strcmp(sim, "1") == 0);
	double noise = noise_step();
	long pause_us = pause != NULL ? strtol(pause, NULL, 10) : 0;
	int profiling = profile_out != NULL && rank == 0;
	int tracing = msprof_out != NULL && rank == 0;
	struct msp_trace trace;
	double group_ms[K_COUNT] = { 0 }, checksum = 0.0;
	char path[4096];
	float *w, *b, *x, *y, *xs, *ys;
	FILE *log;
	int core, rc = 0;

	if (noise < 0)
		return 1;
	w = malloc(sizeof(float) * hh * (size_t)c->layers);
	b = malloc(sizeof(float) * (size_t)c->hidden * (size_t)c->layers);
	x = malloc(sizeof(float) * act);
	y = malloc(sizeof(float) * act);
	xs = malloc(sizeof(float) * act);	/* stream 1's half (multistream) */
	ys = malloc(sizeof(float) * act);
	if (w == NULL || b == NULL || x == NULL || y == NULL || xs == NULL ||
	    ys == NULL) {
		fprintf(stderr, "skw: rank %d: out of memory\n", rank);
		return 1;
	}
	m.w = w;
	m.b = b;
	for (size_t i = 0; i < hh * (size_t)c->layers; i++)
		w[i] = frand(&st) / (float)c->hidden * 4.0f;
	for (size_t i = 0; i < (size_t)c->hidden * (size_t)c->layers; i++)
		b[i] = frand(&st) * 0.1f;
	for (size_t i = 0; i < act; i++)
		x[i] = frand(&st);

	snprintf(path, sizeof(path), "%s/log_%d.log", log_dir, rank);
	if ((log = fopen(path, "w")) == NULL) {
		fprintf(stderr, "skw: %s: %s\n", path, strerror(errno));
		return 1;
	}
	core = pin_rank(c, rank);
	fprintf(log, "Timing clock: %s\n", simulated ? "simulated" : GATE_CLOCK);
	fprintf(log, "# decode: %s; wall: CLOCK_MONOTONIC; rank-thread: "
	    "CLOCK_THREAD_CPUTIME_ID of the rank thread alone; rank %d ",
	    simulated ? "a cost model (SKW_SIMULATED_TIMING=1)" :
	    "CPU time of every thread of the rank process", rank);
	if (core >= 0)
		fprintf(log, "pinned to cpu %d (idlest %d of %d over %d ms)\n",
		    core, rank + 1, cpu_order_len, IDLE_PROBE_MS);
	else
		fprintf(log, "not pinned\n");
	if (skw_stream_start(&streams[0]) != 0 ||
	    skw_stream_start(&streams[1]) != 0) {
		fprintf(stderr, "skw: rank %d: cannot start streams\n", rank);
		return 1;
	}
	/* every record up front: a stream writes into its record while the
	 * rank reserves the next one, so the array never moves */
	memset(&trace, 0, sizeof(trace));
	if (tracing && msp_trace_init(&trace, &shape) != 0) {
		fprintf(stderr, "skw: rank %d: out of memory\n", rank);
		return 1;
	}
	for (int s = 0; s < c->steps; s++) {
		struct reading r;

		read_start(&r);
		if (s == 0 && tracing) {
			trace.origin_ns = (long long)(clock_ms(
			    CLOCK_PROCESS_CPUTIME_ID) * 1e6);
			trace.child_origin_ns = (long long)(clock_ms(
			    CLOCK_MONOTONIC) * 1e6);
		}
		decode_step(&m, &p, streams, x, y, xs, ys, profiling ?
		    group_ms : NULL, tracing ? &trace : NULL, s);
		if (pause_us > 0 && pause_us < 1000000) {
			struct timespec ts = { 0, pause_us * 1000L };

			nanosleep(&ts, NULL);
		}
		read_end(&r);
		fprintf(log, "step %d rank %d Inference time (decode): %.4f ms "
		    "wall %.4f ms rank-thread %.4f ms\n", s, rank,
		    simulated ? model_ms(c, &p, rank, s, noise) : r.cpu, r.wall,
		    r.thread);
	}
	skw_stream_stop(&streams[0]);
	skw_stream_stop(&streams[1]);
	for (size_t i = 0; i < act; i++)
		checksum += x[i];
	fprintf(log, "checksum %.6e\n", checksum);
	if (fclose(log) != 0) {
		fprintf(stderr, "skw: %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (rc == 0 && profiling)
		rc = write_profile(profile_out, c, &p, group_ms, checksum);
	if (rc == 0 && tracing && msp_trace_write(&trace, msprof_out) != 0)
		rc = 1;
	msp_trace_free(&trace);
	free(w);
	free(b);
	free(x);
	free(y);
	free(xs);
	free(ys);
	return rc;
}

static int
archive_config(const char *config, const char *log_dir)
{
	tc_error err = TC_ERROR_INIT;
	size_t len;
	char *bytes = tc_read_file(config, 0, &len, &err);
	char *dest = tc_xasprintf("%s/config.yaml", log_dir);
	int rc = bytes == NULL ? -1 : tc_write_atomic(dest, bytes, len, 0, &err);

	if (rc != 0)
		fprintf(stderr, "skw: cannot archive the config: %s\n",
		    tc_error_msg(&err));
	tc_error_clear(&err);
	free(bytes);
	free(dest);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *config = NULL, *log_dir = getenv("TUNECTL_RUN_DIR");
	const char *profile_out = NULL, *msprof_out = NULL;
	struct skw_config c;
	int failed = 0, archive = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--log-dir") == 0 && i + 1 < argc)
			log_dir = argv[++i];
		else if (strcmp(argv[i], "--profile-out") == 0 && i + 1 < argc)
			profile_out = argv[++i];
		else if (strcmp(argv[i], "--msprof-out") == 0 && i + 1 < argc)
			msprof_out = argv[++i];
		else if (strcmp(argv[i], "--archive-config") == 0)
			archive = 1;
		else {
			fprintf(stderr, "usage: skw --config FILE [--log-dir DIR] "
			    "[--archive-config] [--profile-out FILE] [--msprof-out DIR]\n");
			return 2;
		}
	}
	if (config == NULL || log_dir == NULL) {
		fprintf(stderr, "usage: skw --config FILE [--log-dir DIR] "
		    "[--archive-config] [--profile-out FILE] [--msprof-out DIR]\n");
		return 2;
	}
	if (load_config(config, &c) != 0)
		return 2;
	if (mkdir(log_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "skw: %s: %s\n", log_dir, strerror(errno));
		return 1;
	}
	if (archive && archive_config(config, log_dir) != 0)
		return 1;
	order_cpus_by_idleness();
	/* One process per rank, as a distributed job would run them. */
	for (int r = 0; r < c.ranks; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "skw: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0)
			_exit(run_rank(&c, r, log_dir, profile_out, msprof_out));
	}
	for (int r = 0; r < c.ranks; r++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed = 1;
	}
	return failed;
}
