/*
 * alternate.c - the start-up driver of bench/startup.sh: times /bin/true
 * and one or two commands launched in turn, so that every round's ratio
 * to /bin/true is taken on the same machine state.
 *
 *   alternate ROUNDS -- A ARGV... [-- B ARGV...]
 *
 * Each round launches /bin/true, then A and B, A first in even rounds and
 * B first in odd ones (neither always follows the other); each launch is
 * fork, execv, waitpid, timed with CLOCK_MONOTONIC, its output sent to
 * /dev/null.  Prints, for A (and B): the median and 25th percentile of
 * the per-round ratios to /bin/true, and the median times in
 * microseconds.  A command that fails (exit status above 1, or a signal)
 * stops the run.  Asserts nothing about the numbers.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Microseconds one launch of argv took, start to reaped. */
static double
launch(char **argv)
{
	struct timespec a, b;
	int status, fd;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if ((pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		fprintf(stderr, "alternate: %s failed (status %d)\n", argv[0],
		    status);
		exit(2);
	}
	return (double)(b.tv_sec - a.tv_sec) * 1e6 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e3;
}

static int
by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The q quantile (nearest rank) of v[0..n), which it sorts. */
static double
quantile(double *v, size_t n, double q)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

static void
report(const char *name, double *ratio, double *us, size_t n)
{
	double med = quantile(ratio, n, 0.5), p25 = quantile(ratio, n, 0.25);

	printf("  %s %.2fx (25th percentile %.2fx), median %.0f us\n", name,
	    med, p25, quantile(us, n, 0.5));
}

int
main(int argc, char **argv)
{
	static char true_path[] = "/bin/true";
	char *truth[] = { true_path, NULL };
	char **a = NULL, **b = NULL;
	double *ra, *rb, *ta, *tb, *tt;
	size_t n, i;
	int k;

	if (argc < 4 || (n = strtoul(argv[1], NULL, 10)) == 0 ||
	    strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: alternate ROUNDS -- A... [-- B...]\n");
		return 2;
	}
	a = &argv[3];
	for (k = 3; k < argc; k++)
		if (strcmp(argv[k], "--") == 0) {
			argv[k] = NULL;
			b = &argv[k + 1];
			break;
		}
	ra = calloc(n, sizeof(*ra));
	rb = calloc(n, sizeof(*rb));
	ta = calloc(n, sizeof(*ta));
	tb = calloc(n, sizeof(*tb));
	tt = calloc(n, sizeof(*tt));
	if (ra == NULL || rb == NULL || ta == NULL || tb == NULL || tt == NULL)
		return 2;
	for (i = 0; i < n; i++) {
		tt[i] = launch(truth);
		if (b != NULL && i % 2 == 1) {
			tb[i] = launch(b);
			ta[i] = launch(a);
		} else {
			ta[i] = launch(a);
			if (b != NULL)
				tb[i] = launch(b);
		}
		ra[i] = ta[i] / tt[i];
		rb[i] = b != NULL ? tb[i] / tt[i] : 0;
	}
	printf("  /bin/true: median %.0f us over %zu rounds\n",
	    quantile(tt, n, 0.5), n);
	report("tunectl: ", ra, ta, n);
	if (b != NULL)
		report("baseline:", rb, tb, n);
	return 0;
}
