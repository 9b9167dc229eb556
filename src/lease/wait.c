/*
 * wait.c - blocking on a flock under a deadline.
 *
 * The reference polls a non-blocking flock every 50 ms.  Here a waiter
 * blocks in flock(2) so that it is woken the moment the holder lets go,
 * and a periodic interval timer (SIGALRM, installed without SA_RESTART)
 * interrupts the call so the deadline is noticed within TICK_NS.  The
 * timer re-fires, so a tick that lands just before the waiter enters
 * flock(2) costs one more tick, never a hang.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/time.h>

#include "lease_internal.h"
#include "tunectl/timeutil.h"

#define TICK_US 10000

static void
on_tick(int sig)
{
	(void)sig;
}

uint64_t
tc_lease__deadline(double seconds)
{
	uint64_t now = tc_monotonic_ns();
	double ns;

	if (!(seconds > 0))
		return now;
	ns = seconds * 1e9;
	if (ns >= (double)(UINT64_MAX - now))
		return UINT64_MAX;
	return now + (uint64_t)ns;
}

int
tc_lease__flock_until(int fd, int op, uint64_t deadline_ns, int *errnum)
{
	struct sigaction sa, old_sa;
	struct itimerval tick, old_timer;
	sigset_t alarm_set, old_mask;
	uint64_t now;
	int rc;

	if (flock(fd, op | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK && errno != EINTR) {
		*errnum = errno;
		return -1;
	}
	if (tc_monotonic_ns() >= deadline_ns)
		return 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;		/* no SA_RESTART: flock returns EINTR */
	sigaction(SIGALRM, &sa, &old_sa);
	sigemptyset(&alarm_set);
	sigaddset(&alarm_set, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alarm_set, &old_mask);
	memset(&tick, 0, sizeof(tick));
	tick.it_interval.tv_usec = TICK_US;
	tick.it_value.tv_usec = TICK_US;
	setitimer(ITIMER_REAL, &tick, &old_timer);

	for (;;) {
		if (flock(fd, op) == 0) {
			rc = 0;
			break;
		}
		if (errno != EINTR) {
			*errnum = errno;
			rc = -1;
			break;
		}
		now = tc_monotonic_ns();
		if (now >= deadline_ns) {
			rc = flock(fd, op | LOCK_NB) == 0 ? 0 : 1;
			break;
		}
	}

	memset(&tick, 0, sizeof(tick));
	setitimer(ITIMER_REAL, &tick, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	/* A previously armed timer is not resumed: tunectl arms none. */
	(void)old_timer;
	return rc;
}
