/*
 * skw_kernels.c - the six kernels of a decode layer (matmul, bias,
 * layernorm, gelu, softmax, residual), the split and concat of the batch
 * between two streams (multistream), the scope strategies that group
 * them into launches, and the body of one launch.
 *
 * Every kernel body sits between "kernel-begin: NAME" / "kernel-end: NAME"
 * marker comments; the BASE worker maps kernels to source ranges by them.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "skw.h"

const char *const skw_kernel_names[K_COUNT] = {
	"matmul", "bias", "layernorm", "gelu", "softmax", "residual"
};

const char *const skw_copy_names[2] = { "split", "concat" };

/* ---- kernels (each body between markers) ------------------------------ */

static void
matmul_rows(const struct skw_config *c, const float *x, const float *w, float *y,
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

/* The rows [row0, row1) of x into the first rows of xs. */
static void
split_rows(int h, const float *x, float *xs, int row0, int row1)
{
	/* kernel-begin: split */
	memcpy(xs, x + (size_t)row0 * h, sizeof(float) * (size_t)h *
	    (size_t)(row1 - row0));
	/* kernel-end: split */
}

/* The first rows of xs back into the rows [row0, row1) of x. */
static void
concat_rows(int h, float *x, const float *xs, int row0, int row1)
{
	/* kernel-begin: concat */
	memcpy(x + (size_t)row0 * h, xs, sizeof(float) * (size_t)h *
	    (size_t)(row1 - row0));
	/* kernel-end: concat */
}

/* ---- scopes: how kernels are grouped ---------------------------------- */

typedef void (*row_kernel)(const struct skw_model *, int layer, float *x,
    float *y, int row);

static void
k_bias(const struct skw_model *m, int l, float *x, float *y, int i)
{
	int h = m->cfg->hidden;

	(void)x;
	bias_row(h, y + (size_t)i * h, m->b + (size_t)l * h);
}

static void
k_norm(const struct skw_model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	norm_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden);
}

static void
k_gelu(const struct skw_model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	gelu_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden);
}

static void
k_softmax(const struct skw_model *m, int l, float *x, float *y, int i)
{
	(void)l, (void)x;
	softmax_row(m->cfg->hidden, y + (size_t)i * m->cfg->hidden,
	    m->cfg->fast_softmax);
}

static void
k_residual(const struct skw_model *m, int l, float *x, float *y, int i)
{
	int h = m->cfg->hidden;

	(void)l;
	residual_row(h, x + (size_t)i * h, y + (size_t)i * h);
}

static const row_kernel row_kernels[K_COUNT] = {
	NULL, k_bias, k_norm, k_gelu, k_softmax, k_residual
};

struct skw_plan
skw_make_plan(enum skw_scope s)
{
	struct skw_plan p = { 0, { 0 }, { 0 } };
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

static long long
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Kernel k of a layer on row i. */
static void
run_kernel(const struct skw_launch *a, const float *w, int k, int i)
{
	if (k == K_MATMUL)
		matmul_rows(a->m->cfg, a->x, w, a->y, i, i + 1);
	else
		row_kernels[k](a->m, a->layer, a->x, a->y, i);
}

void
skw_run_group(const struct skw_launch *a)
{
	const struct skw_config *c = a->m->cfg;
	const float *w = a->m->w + (size_t)a->layer * c->hidden * c->hidden;
	int g = a->group;

	if (g == SKW_SPLIT) {
		split_rows(c->hidden, a->x, a->xs, a->row0, a->row1);
		return;
	}
	if (g == SKW_CONCAT) {
		concat_rows(c->hidden, a->x, a->xs, a->row0, a->row1);
		return;
	}
	if (a->rec != NULL && a->rec->children != NULL) {
		/* the child trace: each kernel on each row, back to back */
		struct msp_crec *cr = a->rec->children;
		long long t = mono_ns();

		for (int i = a->row0; i < a->row1; i++)
			for (int k = a->p->first[g]; k <= a->p->last[g]; k++) {
				long long t1;

				run_kernel(a, w, k, i);
				t1 = mono_ns();
				cr->start_ns = t;
				cr->dur_ns = t1 - t;
				cr++;
				t = t1;
			}
		return;
	}
	for (int i = a->row0; i < a->row1; i++)
		for (int k = a->p->first[g]; k <= a->p->last[g]; k++)
			run_kernel(a, w, k, i);
}
