/*
 * skw.c - the demo workload: a small transformer-like decode loop that
 * behaves like the models SuperKernel tunes.
 *
 * Each decode step runs LAYERS blocks of six kernels over a BATCH x HIDDEN
 * activation matrix: matmul, bias, layernorm, gelu, softmax, residual.
 * RANKS worker processes run STEPS decode steps each and log
 *     Inference time (decode): <ms> ms
 * per step to <log-dir>/log_<rank>.log, the layout tunectl's gates read.
 *
 * What tuning can change (all read from the config, a JSON document, which
 * is also valid YAML so it can be archived as config.yaml):
 *   scope.strategy          how kernels are grouped into fused loops
 *                           (none | automatic_aot | semantic_segment |
 *                            per_block | broad_decode), see scope_* below;
 *   model_config.custom_params.super_kernel_optimize_options
 *                           tile_size (matmul blocking), unroll (inner
 *                           loop unrolling), loop_order ("ijk" | "ikj");
 *   experiments.multistream two independent halves of the batch on two
 *                           threads (the CPU analogue of a second stream);
 *   experiments.source_range.fast_softmax
 *                           a source-level rewrite of the softmax range.
 *
 * SKW_SIMULATED_TIMING=1 (used by tunectl's own tests, never by the
 * demo) still runs every kernel but logs the time of a fixed cost model
 * with a small deterministic jitter instead of the clock, so a test of the
 * controller's flow cannot be failed by a noisy machine.  See model_ms().
 *
 * Every kernel body sits between "kernel-begin: NAME" / "kernel-end: NAME"
 * marker comments; the BASE worker maps kernels to source ranges by them.
 *
 * usage: skw --config FILE [--log-dir DIR] [--archive-config] [--profile-out FILE]
 *
 * The log directory defaults to $TUNECTL_RUN_DIR, the run directory that
 * "tunectl bench run" gives each run; --archive-config copies the config
 * read into <log-dir>/config.yaml (JSON is YAML), as Stage A requires.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
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

enum { K_MATMUL, K_BIAS, K_NORM, K_GELU, K_SOFTMAX, K_RESIDUAL, K_COUNT };
static const char *const kernel_names[K_COUNT] = {
	"matmul", "bias", "layernorm", "gelu", "softmax", "residual"
};

enum scope { SCOPE_NONE, SCOPE_AOT, SCOPE_SEGMENT, SCOPE_BLOCK, SCOPE_BROAD };

struct config {
	int layers, hidden, batch, steps, ranks;
	enum scope scope;
	int tile, unroll;
	int ikj;			/* loop order */
	int multistream;
	int fast_softmax;
	unsigned seed;
};

struct model {
	const struct config *cfg;
	float *w;			/* layers x hidden x hidden */
	float *b;			/* layers x hidden */
	double kernel_ns[K_COUNT];	/* per-kernel time, unfused scopes only */
};

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- kernels (each body between markers) ------------------------------ */

static void
matmul_rows(const struct config *c, const float *x, const float *w, float *y,
    int row0, int row1)
{
	/* kernel-begin: matmul */
	int h = c->hidden, t = c->tile > 0 ? c->tile : h;

	for (int i = row0; i < row1; i++)
		for (int j = 0; j < h; j++)
			y[(size_t)i * h + j] = 0.0f;
	for (int kk = 0; kk < h; kk += t) {
		int kend = kk + t < h ? kk + t : h;

		for (int i = row0; i < row1; i++) {
			float *yr = y + (size_t)i * h;
			const float *xr = x + (size_t)i * h;

			if (c->ikj) {
				for (int k = kk; k < kend; k++) {
					const float *wr = w + (size_t)k * h;
					float xv = xr[k];
					int j = 0;

					if (c->unroll >= 4)
						for (; j + 4 <= h; j += 4) {
							yr[j] += xv * wr[j];
							yr[j + 1] += xv * wr[j + 1];
							yr[j + 2] += xv * wr[j + 2];
							yr[j + 3] += xv * wr[j + 3];
						}
					for (; j < h; j++)
						yr[j] += xv * wr[j];
				}
			} else {
				for (int j = 0; j < h; j++) {
					float acc = 0.0f;

					for (int k = kk; k < kend; k++)
						acc += xr[k] * w[(size_t)k * h + j];
					yr[j] += acc;
				}
			}
		}
	}
	/* kernel-end: matmul */
}

static void
bias_row(int h, float *y, const float *b)
{
	/* kernel-begin: bias */
	for (int j = 0; j < h; j++)
		y[j] += b[j];
	/* kernel-end: bias */
}

static void
norm_row(int h, float *y)
{
	/* kernel-begin: layernorm */
	double mean = 0.0, var = 0.0;

	for (int j = 0; j < h; j++)
		mean += y[j];
	mean /= h;
	for (int j = 0; j < h; j++)
		var += (y[j] - mean) * (y[j] - mean);
	var /= h;
	float inv = (float)(1.0 / sqrt(var + 1e-5));
	for (int j = 0; j < h; j++)
		y[j] = (float)(y[j] - mean) * inv;
	/* kernel-end: layernorm */
}

static void
gelu_row(int h, float *y)
{
	/* kernel-begin: gelu */
	for (int j = 0; j < h; j++) {
		float v = y[j];

		y[j] = 0.5f * v * (1.0f + tanhf(0.7978845608f *
		    (v + 0.044715f * v * v * v)));
	}
	/* kernel-end: gelu */
}

static float
fast_expf(float x)
{
	/* exp by 2^(x log2 e) with a cubic polynomial for the fraction */
	float t = x * 1.442695041f;
	float fi = floorf(t), f = t - fi;
	float p = 1.0f + f * (0.6931472f + f * (0.2402265f + f * 0.0555041f));

	return ldexpf(p, (int)fi);
}

static void
softmax_row(int h, float *y, int fast)
{
	/* kernel-begin: softmax */
	float mx = y[0], sum = 0.0f;

	for (int j = 1; j < h; j++)
		if (y[j] > mx)
			mx = y[j];
	for (int j = 0; j < h; j++) {
		y[j] = fast ? fast_expf(y[j] - mx) : expf(y[j] - mx);
		sum += y[j];
	}
	for (int j = 0; j < h; j++)
		y[j] = y[j] / sum * (float)h;
	/* kernel-end: softmax */
}

static void
residual_row(int h, float *x, const float *y)
{
	/* kernel-begin: residual */
	for (int j = 0; j < h; j++)
		x[j] = 0.5f * (x[j] + y[j]);
	/* kernel-end: residual */
}

/* ---- scopes: how kernels are grouped ---------------------------------- */

typedef void (*row_kernel)(const struct model *, int layer, float *x,
    float *y, int row);

static void
k_bias(const struct model *m, int l, float *x, float *y, int i)
{
	int h = m->cfg->hidden;

	(void)x;
	bias_row(h, y + (size_t)i * h, m->b + (size_t)l * h);
}

static void
k_norm(const struct model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	norm_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden);
}

static void
k_gelu(const struct model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	gelu_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden);
}

static void
k_softmax(const struct model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	softmax_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden,
	    m->cfg->fast_softmax);
}

static void
k_residual(const struct model *m, int l, float *x, float *y, int i)
{
	int h = m->cfg->hidden;

	(void)l;
	residual_row(h, x + (size_t)i * h, y + (size_t)i * h);
}

static const row_kernel row_kernels[K_COUNT] = {
	NULL, k_bias, k_norm, k_gelu, k_softmax, k_residual
};

/*
 * A scope plan lists groups of consecutive kernels; each group is one
 * fused loop over the rows, so the activations of a row stay in cache
 * across the kernels of a group.  Group boundaries are where a "super
 * kernel" would start a new launch.
 */
struct plan {
	int ngroups;
	int first[K_COUNT], last[K_COUNT];
};

static struct plan
make_plan(enum scope s)
{
	struct plan p = { 0, { 0 }, { 0 } };
	static const int none[][2] = { {0,0}, {1,1}, {2,2}, {3,3}, {4,4}, {5,5} };
	static const int aot[][2] = { {0,1}, {2,2}, {3,3}, {4,5} };
	static const int segment[][2] = { {0,1}, {2,3}, {4,5} };
	static const int block[][2] = { {0,0}, {1,5} };
	static const int broad[][2] = { {0,5} };
	const int (*g)[2];
	int n;

	switch (s) {
	case SCOPE_AOT: g = aot; n = 4; break;
	case SCOPE_SEGMENT: g = segment; n = 3; break;
	case SCOPE_BLOCK: g = block; n = 2; break;
	case SCOPE_BROAD: g = broad; n = 1; break;
	default: g = none; n = 6; break;
	}
	for (int i = 0; i < n; i++) {
		p.first[i] = g[i][0];
		p.last[i] = g[i][1];
	}
	p.ngroups = n;
	return p;
}

/*
 * Launches.  A group of kernels runs as one "launch": posted to the
 * rank's device thread, which runs it while the host thread waits for
 * completion, as a framework waits on an accelerator stream.  Each launch
 * therefore costs a real hand-off and wake-up; a super kernel that fuses
 * more kernels into one launch pays it fewer times, and keeps a row's
 * activations in cache across the kernels of its group.
 */
struct launch_args {
	struct model *m;
	const struct plan *p;
	int group, layer, row0, row1;
	float *x, *y;
};

struct stream {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t posted, done;
	unsigned long seq_posted, seq_done;
	struct launch_args args;
	int stop;
};

static void
run_group(const struct launch_args *a)
{
	const struct config *c = a->m->cfg;
	const float *w = a->m->w + (size_t)a->layer * c->hidden * c->hidden;
	int g = a->group;

	for (int i = a->row0; i < a->row1; i++)
		for (int k = a->p->first[g]; k <= a->p->last[g]; k++) {
			if (k == K_MATMUL)
				matmul_rows(c, a->x, w, a->y, i, i + 1);
			else
				row_kernels[k](a->m, a->layer, a->x, a->y, i);
		}
}

static void *
stream_main(void *arg)
{
	struct stream *st = arg;
	unsigned long seen = 0;

	pthread_mutex_lock(&st->mu);
	for (;;) {
		while (st->seq_posted == seen && !st->stop)
			pthread_cond_wait(&st->posted, &st->mu);
		if (st->stop)
			break;
		seen = st->seq_posted;
		pthread_mutex_unlock(&st->mu);
		run_group(&st->args);
		pthread_mutex_lock(&st->mu);
		st->seq_done = seen;
		pthread_cond_signal(&st->done);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

static int
stream_start(struct stream *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->posted, NULL);
	pthread_cond_init(&st->done, NULL);
	return pthread_create(&st->thread, NULL, stream_main, st);
}

static void
stream_stop(struct stream *st)
{
	pthread_mutex_lock(&st->mu);
	st->stop = 1;
	pthread_cond_signal(&st->posted);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->posted);
	pthread_cond_destroy(&st->done);
}

static void
stream_post(struct stream *st, const struct launch_args *a)
{
	pthread_mutex_lock(&st->mu);
	st->args = *a;
	st->seq_posted++;
	pthread_cond_signal(&st->posted);
	pthread_mutex_unlock(&st->mu);
}

static void
stream_wait(struct stream *st)
{
	pthread_mutex_lock(&st->mu);
	while (st->seq_done != st->seq_posted)
		pthread_cond_wait(&st->done, &st->mu);
	pthread_mutex_unlock(&st->mu);
}

static void
decode_step(struct model *m, const struct plan *p, struct stream *streams,
    float *x, float *y)
{
	const struct config *c = m->cfg;
	int nstreams = c->multistream && c->batch >= 2 ? 2 : 1;

	for (int l = 0; l < c->layers; l++)
		for (int g = 0; g < p->ngroups; g++) {
			double t0 = now_ns();

			/* Multistream: the two halves of the batch are
			 * independent, so they run on two streams at once. */
			for (int s = 0; s < nstreams; s++) {
				struct launch_args a = { m, p, g, l,
				    s * c->batch / nstreams,
				    (s + 1) * c->batch / nstreams, x, y };

				stream_post(&streams[s], &a);
			}
			for (int s = 0; s < nstreams; s++)
				stream_wait(&streams[s]);
			m->kernel_ns[p->first[g]] += now_ns() - t0;
		}
}

/*
 * The cost model of SKW_SIMULATED_TIMING: per layer, a launch overhead per
 * kernel group, the matmul (its loop order and unrolling), the elementwise
 * kernels (fast softmax), two streams for multistream; times a jitter of
 * at most +-0.4% from a hash of (run, rank, step).
 */
static double
model_ms(const struct config *c, const struct plan *p, int rank, int step)
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
	snprintf(key, sizeof(key), "%s/%d/%d", run != NULL ? run : "0", rank, step);
	for (const char *k = key; *k != '\0'; k++)
		h = (h ^ (unsigned char)*k) * 16777619u;
	return ms * (1.0 + ((double)(h % 1001) / 1000.0 - 0.5) * 0.008);
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
load_config(const char *path, struct config *c)
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

static int
run_rank(const struct config *c, int rank, const char *log_dir,
    const char *profile_out)
{
	struct model m = { c, NULL, NULL, { 0 } };
	struct plan p = make_plan(c->scope);
	size_t hh = (size_t)c->hidden * c->hidden;
	size_t act = (size_t)c->batch * c->hidden;
	unsigned st = c->seed + 7u * (unsigned)rank;
	char path[4096];
	double checksum = 0.0;
	FILE *log;

	m.w = malloc(sizeof(float) * hh * (size_t)c->layers);
	m.b = malloc(sizeof(float) * (size_t)c->hidden * (size_t)c->layers);
	float *x = malloc(sizeof(float) * act), *y = malloc(sizeof(float) * act);
	if (m.w == NULL || m.b == NULL || x == NULL || y == NULL) {
		fprintf(stderr, "skw: rank %d: out of memory\n", rank);
		return 1;
	}
	for (size_t i = 0; i < hh * (size_t)c->layers; i++)
		m.w[i] = frand(&st) / (float)c->hidden * 4.0f;
	for (size_t i = 0; i < (size_t)c->hidden * (size_t)c->layers; i++)
		m.b[i] = frand(&st) * 0.1f;
	for (size_t i = 0; i < act; i++)
		x[i] = frand(&st);

	snprintf(path, sizeof(path), "%s/log_%d.log", log_dir, rank);
	if ((log = fopen(path, "w")) == NULL) {
		fprintf(stderr, "skw: %s: %s\n", path, strerror(errno));
		return 1;
	}
	struct stream streams[2];
	cpu_set_t cpus;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const char *sim = getenv("SKW_SIMULATED_TIMING");
	int simulated = sim != NULL && strcmp(sim, "1") == 0;

	/* One core per rank, as ranks own devices: both threads of the rank
	 * (and so every launch hand-off) stay on it, which keeps the timings
	 * of a run comparable with the next. */
	if (ncpu >= c->ranks) {
		CPU_ZERO(&cpus);
		CPU_SET((int)(rank % ncpu), &cpus);
		(void)sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	if (stream_start(&streams[0]) != 0 || stream_start(&streams[1]) != 0) {
		fprintf(stderr, "skw: rank %d: cannot start streams\n", rank);
		return 1;
	}
	for (int s = 0; s < c->steps; s++) {
		double t0 = now_ns();

		decode_step(&m, &p, streams, x, y);
		double ms = simulated ? model_ms(c, &p, rank, s) :
		    (now_ns() - t0) / 1e6;
		fprintf(log, "step %d rank %d Inference time (decode): %.4f ms\n",
		    s, rank, ms);
		fflush(log);
	}
	stream_stop(&streams[0]);
	stream_stop(&streams[1]);
	for (size_t i = 0; i < act; i++)
		checksum += x[i];
	fprintf(log, "checksum %.6e\n", checksum);
	fclose(log);

	if (profile_out != NULL && rank == 0) {
		FILE *pf = fopen(profile_out, "w");

		if (pf == NULL) {
			fprintf(stderr, "skw: %s: %s\n", profile_out, strerror(errno));
			return 1;
		}
		fprintf(pf, "{\"schema_version\": \"skw-kernel-profile-v1\", "
		    "\"steps\": %d, \"layers\": %d, \"groups\": [", c->steps, c->layers);
		for (int g = 0; g < p.ngroups; g++) {
			fprintf(pf, "%s{\"kernels\": [", g ? ", " : "");
			for (int k = p.first[g]; k <= p.last[g]; k++)
				fprintf(pf, "%s\"%s\"", k > p.first[g] ? ", " : "",
				    kernel_names[k]);
			fprintf(pf, "], \"total_ms\": %.6f}",
			    m.kernel_ns[p.first[g]] / 1e6);
		}
		fprintf(pf, "], \"checksum\": %.6e}\n", checksum);
		fclose(pf);
	}
	free(m.w);
	free(m.b);
	free(x);
	free(y);
	return 0;
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
	const char *profile_out = NULL;
	struct config c;
	int failed = 0, archive = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[++i];
		else if (strcmp(argv[i], "--log-dir") == 0 && i + 1 < argc)
			log_dir = argv[++i];
		else if (strcmp(argv[i], "--profile-out") == 0 && i + 1 < argc)
			profile_out = argv[++i];
		else if (strcmp(argv[i], "--archive-config") == 0)
			archive = 1;
		else {
			fprintf(stderr, "usage: skw --config FILE [--log-dir DIR] "
			    "[--archive-config] [--profile-out FILE]\n");
			return 2;
		}
	}
	if (config == NULL || log_dir == NULL) {
		fprintf(stderr, "usage: skw --config FILE [--log-dir DIR] "
		    "[--archive-config] [--profile-out FILE]\n");
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
	/* One process per rank, as a distributed job would run them. */
	for (int r = 0; r < c.ranks; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "skw: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0)
			_exit(run_rank(&c, r, log_dir, profile_out));
	}
	for (int r = 0; r < c.ranks; r++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed = 1;
	}
	return failed;
}
