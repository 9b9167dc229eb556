/*
 * dgemm.c - the worked example of docs/workload-spec.md: a blocked
 * double-precision matrix multiply C = A * B of two N x N matrices, tiled
 * over rows (block_i) and the shared dimension (block_k).  How fast it
 * runs depends on the tiles (cache reuse) and on the compiler flags it was
 * built with (-O2, -O3, -march=native): the two kinds of knob
 * examples/dgemm/tune.yaml hands to tunectl.
 *
 *   dgemm [-n N] [-bi BLOCK_I] [-bk BLOCK_K] [-r REPS]   time REPS products
 *   dgemm [-n N] [-bi BLOCK_I] [-bk BLOCK_K] --verify     check against the
 *                                                         plain triple loop
 *
 * A timed run prints "time_ms: T" per product (CLOCK_MONOTONIC) and a
 * checksum; --verify exits 1 when an element differs from the plain
 * product by more than a relative 1e-9 (FMA contraction under
 * -march=native may change the last bits, never more).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
fill(double *m, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n * n; i++) {
		seed = seed * 1103515245u + 12345u;
		m[i] = (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
	}
}

/* The blocked product: for each tile of rows and of the shared
 * dimension, rows of C accumulate a[i][k] * b[k][*].  k stays ascending
 * for every (i, j), so every tiling adds in the same order. */
static void
blocked(const double *a, const double *b, double *c, size_t n, size_t bi,
    size_t bk)
{
	size_t ii, kk, i, k, j;

	memset(c, 0, n * n * sizeof(double));
	for (ii = 0; ii < n; ii += bi)
		for (kk = 0; kk < n; kk += bk)
			for (i = ii; i < ii + bi && i < n; i++)
				for (k = kk; k < kk + bk && k < n; k++) {
					double aik = a[i * n + k];
					double *ci = c + i * n;
					const double *bk_row = b + k * n;

					for (j = 0; j < n; j++)
						ci[j] += aik * bk_row[j];
				}
}

static int
verify(const double *a, const double *b, const double *c, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double want = 0;

			for (k = 0; k < n; k++)
				want += a[i * n + k] * b[k * n + j];
			if (fabs(c[i * n + j] - want) > 1e-9 * (fabs(want) + 1)) {
				fprintf(stderr, "dgemm: C[%zu][%zu] = %.17g, the "
				    "plain product gives %.17g\n", i, j,
				    c[i * n + j], want);
				return 1;
			}
		}
	printf("verify: ok (%zu x %zu)\n", n, n);
	return 0;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long
arg_long(int argc, char **argv, int *i)
{
	char *end;
	long v;

	if (*i + 1 >= argc) {
		fprintf(stderr, "dgemm: %s needs a value\n", argv[*i]);
		exit(2);
	}
	v = strtol(argv[++*i], &end, 10);
	if (*end != '\0' || v < 1 || v > 8192) {
		fprintf(stderr, "dgemm: %s: not a size: %s\n", argv[*i - 1],
		    argv[*i]);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	size_t n = 256, bi = 32, bk = 64, reps = 5, r;
	int i, check = 0, rc = 0;
	double *a, *b, *c, sum = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0)
			n = (size_t)arg_long(argc, argv, &i);
		else if (strcmp(argv[i], "-bi") == 0)
			bi = (size_t)arg_long(argc, argv, &i);
		else if (strcmp(argv[i], "-bk") == 0)
			bk = (size_t)arg_long(argc, argv, &i);
		else if (strcmp(argv[i], "-r") == 0)
			reps = (size_t)arg_long(argc, argv, &i);
		else if (strcmp(argv[i], "--verify") == 0)
			check = 1;
		else {
			fprintf(stderr, "usage: dgemm [-n N] [-bi BLOCK_I] "
			    "[-bk BLOCK_K] [-r REPS] [--verify]\n");
			return 2;
		}
	}
	a = malloc(n * n * sizeof(double));
	b = malloc(n * n * sizeof(double));
	c = malloc(n * n * sizeof(double));
	if (a == NULL || b == NULL || c == NULL) {
		fprintf(stderr, "dgemm: out of memory\n");
		return 1;
	}
	fill(a, n, 1);
	fill(b, n, 2);
	if (check) {
		blocked(a, b, c, n, bi, bk);
		rc = verify(a, b, c, n);
	} else {
		for (r = 0; r < reps; r++) {
			double t0 = now_ms();

			blocked(a, b, c, n, bi, bk);
			printf("time_ms: %.4f\n", now_ms() - t0);
		}
		for (r = 0; r < n * n; r++)
			sum += c[r];
		printf("checksum: %.10e\n", sum);
	}
	free(a);
	free(b);
	free(c);
	return rc;
}
