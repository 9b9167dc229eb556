/*
 * gskw_cuda.h - between the GPU workload's runtime code (gskw_device.cu)
 * and its kernels (gskw_kernels.cu): what one launch needs and the call
 * that issues it.  CUDA C++ only.
 */
#ifndef GSKW_CUDA_H
#define GSKW_CUDA_H

#include <cuda_runtime.h>

/* One layer's operands, for the rows [row0, row0 + rows of the launch). */
struct gskw_kargs {
	const float *w;		/* hidden x hidden, this layer's */
	const float *b;		/* hidden, this layer's */
	float *x;		/* batch x hidden: the residual stream */
	float *y;		/* batch x hidden: the layer's activations */
	int hidden, tile, row0, fast_softmax;
};

/* Floats of shared memory a launch uses besides the matmul tile. */
#define GSKW_SCRATCH 33

/*
 * One launch on stream s: kernels first..last of the layer (a fused
 * kernel when first < last) over `rows` rows, one block of block_size
 * threads per row; a matmul launched alone also splits the columns over
 * blocks.  Returns the launch's error.
 */
cudaError_t gskw_launch_group(const struct gskw_kargs *a, int rows, int first,
    int last, int block_size, int unroll, cudaStream_t s);

#endif
