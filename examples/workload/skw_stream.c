/*
 * skw_stream.c - launches.  A rank does not run its kernels itself: it
 * posts each launch to its stream thread and waits until the stream has
 * run it, as a framework hands a kernel to an accelerator's stream and
 * synchronises on it.  Each launch therefore costs a real hand-off (a
 * wake-up of the stream thread and one back), which is what a super
 * kernel saves by fusing several kernels into one launch.
 *
 * Both threads of a rank are pinned to the rank's core (skw.c), so a
 * hand-off is two context switches on that core, never an idle gap: the
 * CPU time of the rank process counts it, as a device timer counts the
 * launch gaps of a stream.
 */
#include <string.h>
#include <time.h>

#include "skw.h"

/*
 * Run one launch; a profiling launch is timed here, on the stream, as a
 * device times a kernel: the rank's CPU clock when the stream starts it
 * and when it ends, so the hand-offs between launches fall between rows.
 */
static void
run_timed(const struct skw_launch *a)
{
	struct timespec t0, t1;

	if (a->rec == NULL) {
		skw_run_group(a);
		return;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	skw_run_group(a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	a->rec->start_ns = (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec;
	a->rec->dur_ns = ((long long)t1.tv_sec - t0.tv_sec) * 1000000000LL +
	    (t1.tv_nsec - t0.tv_nsec);
}

static void *
stream_main(void *arg)
{
	struct skw_stream *st = arg;
	unsigned long seen = 0;

	pthread_mutex_lock(&st->mu);
	for (;;) {
		while (st->seq_posted == seen && !st->stop)
			pthread_cond_wait(&st->posted, &st->mu);
		if (st->stop)
			break;
		seen = st->seq_posted;
		pthread_mutex_unlock(&st->mu);
		run_timed(&st->launch);
		pthread_mutex_lock(&st->mu);
		st->seq_done = seen;
		pthread_cond_signal(&st->done);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

int
skw_stream_start(struct skw_stream *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->posted, NULL);
	pthread_cond_init(&st->done, NULL);
	return pthread_create(&st->thread, NULL, stream_main, st);
}

void
skw_stream_stop(struct skw_stream *st)
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

void
skw_stream_post(struct skw_stream *st, const struct skw_launch *a)
{
	pthread_mutex_lock(&st->mu);
	st->launch = *a;
	st->seq_posted++;
	pthread_cond_signal(&st->posted);
	pthread_mutex_unlock(&st->mu);
}

void
skw_stream_wait(struct skw_stream *st)
{
	pthread_mutex_lock(&st->mu);
	while (st->seq_done != st->seq_posted)
		pthread_cond_wait(&st->done, &st->mu);
	pthread_mutex_unlock(&st->mu);
}
