/*
 * gskw_kernels.cu - the six kernels of a decode layer (matmul, bias,
 * layernorm, gelu, softmax, residual) on the GPU, and the one launch
 * that runs a group of them.
 *
 * Every kernel is a device function over one row of the batch, its
 * columns spread over the block's threads (column j on thread
 * j mod blockDim).  A launch runs a group of consecutive kernels: a single
 * kernel (the "none" strategy launches six per layer), or several fused
 * into one kernel with a barrier between them, so a fused group costs one
 * launch however many kernels it holds.  The tuning options are real GPU
 * knobs: the block size (threads per row), the matmul's K tile (how much
 * of the input row is staged in shared memory per pass) and the
 * unrolling of the matmul's inner loop.
 *
 * Every kernel body sits between "kernel-begin: NAME" / "kernel-end: NAME"
 * marker comments; the BASE worker maps kernels to source ranges by them.
 */
#include <math.h>

#include "gskw.h"
#include "gskw_cuda.h"

/*
 * The sum (or maximum) of v over the block, returned to every thread.
 * blockDim.x is a whole number of warps (the config guarantees it).
 */
__device__ static float
block_reduce(float v, bool is_max, float *scratch)
{
	unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
	unsigned nwarps = (blockDim.x + 31u) >> 5;

	for (int o = 16; o > 0; o >>= 1) {
		float u = __shfl_xor_sync(0xffffffffu, v, o);

		v = is_max ? fmaxf(v, u) : v + u;
	}
	__syncthreads();	/* an earlier reduction may still read scratch */
	if (lane == 0)
		scratch[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < nwarps ? scratch[lane] : is_max ? -INFINITY : 0.0f;
		for (int o = 16; o > 0; o >>= 1) {
			float u = __shfl_xor_sync(0xffffffffu, v, o);

			v = is_max ? fmaxf(v, u) : v + u;
		}
		if (lane == 0)
			scratch[32] = v;
	}
	__syncthreads();
	return scratch[32];
}

/* y[row, j0..j1) = x[row] . W, the input row staged a tile at a time. */
template <int UNROLL>
__device__ static void
matmul_row(const gskw_kargs &a, int row, int j0, int j1, float *xs)
{
	/* kernel-begin: matmul */
	const int h = a.hidden;
	const float *xr = a.x + (size_t)row * h;
	float *yr = a.y + (size_t)row * h;

	for (int j = j0 + threadIdx.x; j < j1; j += blockDim.x)
		yr[j] = 0.0f;
	for (int kk = 0; kk < h; kk += a.tile) {
		int kn = min(a.tile, h - kk);

		__syncthreads();	/* the previous tile is consumed */
		for (int t = threadIdx.x; t < kn; t += blockDim.x)
			xs[t] = xr[kk + t];
		__syncthreads();
		for (int j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
			const float *wc = a.w + (size_t)kk * h + j;
			float acc = 0.0f;
			int k = 0;

			if constexpr (UNROLL == 4) {
				for (; k + 4 <= kn; k += 4)
					acc += xs[k] * wc[(size_t)k * h] +
					    xs[k + 1] * wc[(size_t)(k + 1) * h] +
					    xs[k + 2] * wc[(size_t)(k + 2) * h] +
					    xs[k + 3] * wc[(size_t)(k + 3) * h];
			}
#pragma unroll 1
			for (; k < kn; k++)
				acc += xs[k] * wc[(size_t)k * h];
			yr[j] += acc;
		}
	}
	/* kernel-end: matmul */
}

__device__ static void
bias_row(const gskw_kargs &a, int row)
{
	/* kernel-begin: bias */
	float *yr = a.y + (size_t)row * a.hidden;

	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		yr[j] += a.b[j];
	/* kernel-end: bias */
}

__device__ static void
norm_row(const gskw_kargs &a, int row, float *scratch)
{
	/* kernel-begin: layernorm */
	float *yr = a.y + (size_t)row * a.hidden;
	float s = 0.0f, v = 0.0f, mean, inv;

	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		s += yr[j];
	mean = block_reduce(s, false, scratch) / (float)a.hidden;
	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		v += (yr[j] - mean) * (yr[j] - mean);
	inv = rsqrtf(block_reduce(v, false, scratch) / (float)a.hidden + 1e-5f);
	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		yr[j] = (yr[j] - mean) * inv;
	/* kernel-end: layernorm */
}

__device__ static void
gelu_row(const gskw_kargs &a, int row)
{
	/* kernel-begin: gelu */
	float *yr = a.y + (size_t)row * a.hidden;

	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x) {
		float v = yr[j];

		yr[j] = 0.5f * v * (1.0f + tanhf(0.7978845608f *
		    (v + 0.044715f * v * v * v)));
	}
	/* kernel-end: gelu */
}

__device__ static void
softmax_row(const gskw_kargs &a, int row, float *scratch)
{
	/* kernel-begin: softmax */
	float *yr = a.y + (size_t)row * a.hidden;
	float mx = -INFINITY, sum = 0.0f;

	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		mx = fmaxf(mx, yr[j]);
	mx = block_reduce(mx, true, scratch);
	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x) {
		float e = a.fast_softmax ? __expf(yr[j] - mx) : expf(yr[j] - mx);

		yr[j] = e;
		sum += e;
	}
	sum = block_reduce(sum, false, scratch);
	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		yr[j] = yr[j] / sum * (float)a.hidden;
	/* kernel-end: softmax */
}

__device__ static void
residual_row(const gskw_kargs &a, int row)
{
	/* kernel-begin: residual */
	float *xr = a.x + (size_t)row * a.hidden;
	const float *yr = a.y + (size_t)row * a.hidden;

	for (int j = threadIdx.x; j < a.hidden; j += blockDim.x)
		xr[j] = 0.5f * (xr[j] + yr[j]);
	/* kernel-end: residual */
}

/*
 * Kernels first..last on row row0 + blockIdx.x.  A matmul launched alone
 * gets a second grid dimension: block y computes columns
 * [y * blockDim, (y + 1) * blockDim).
 */
template <int UNROLL>
__global__ static void
group_kernel(gskw_kargs a, int first, int last)
{
	extern __shared__ float smem[];
	float *scratch = smem, *xs = smem + GSKW_SCRATCH;
	int row = a.row0 + (int)blockIdx.x;
	int j0 = 0, j1 = a.hidden;

	if (gridDim.y > 1) {
		j0 = (int)(blockIdx.y * blockDim.x);
		j1 = min(j0 + (int)blockDim.x, a.hidden);
	}
	for (int k = first; k <= last; k++) {
		switch (k) {
		case GK_MATMUL: matmul_row<UNROLL>(a, row, j0, j1, xs); break;
		case GK_BIAS: bias_row(a, row); break;
		case GK_NORM: norm_row(a, row, scratch); break;
		case GK_GELU: gelu_row(a, row); break;
		case GK_SOFTMAX: softmax_row(a, row, scratch); break;
		default: residual_row(a, row); break;
		}
		__syncthreads();
	}
}

cudaError_t
gskw_launch_group(const struct gskw_kargs *a, int rows, int first, int last,
    int block_size, int unroll, cudaStream_t s)
{
	unsigned chunks = first == GK_MATMUL && last == GK_MATMUL ?
	    (unsigned)((a->hidden + block_size - 1) / block_size) : 1u;
	dim3 grid((unsigned)rows, chunks);
	size_t smem = (size_t)(GSKW_SCRATCH + a->tile) * sizeof(float);

	if (unroll == 4)
		group_kernel<4><<<grid, block_size, smem, s>>>(*a, first, last);
	else
		group_kernel<1><<<grid, block_size, smem, s>>>(*a, first, last);
	return cudaGetLastError();
}
