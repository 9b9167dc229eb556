/*
 * spawn.c - the lease runner's process runner (_run_argv,
 * docs/spec/controller.md "Lease primitives"): logs created exclusively, the
 * command spawned without a shell in a session of its own with stdin from
 * /dev/null, a timeout that ends the whole process group (SIGTERM, grace,
 * SIGKILL).
 *
 * A device lease must outlive every process that may use the device, so
 * this runner goes further than the reference: it makes itself a child
 * subreaper for the run, and once the command's leader has exited it
 * kills what the leader left in its process group and every descendant
 * that was re-parented to the runner (double-forked daemons included),
 * and reaps them all before the lease is released.  SIGTERM, SIGINT and
 * SIGHUP sent to the runner while the command runs are handled like a
 * timeout, so killing the runner never orphans a device process.  A
 * runner killed with SIGKILL can do none of that, so the command inherits
 * the lease's lock files: their flocks last until the last process that
 * holds them exits, and no second lease can be granted while the
 * command (or anything it started) still runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/lease.h"
#include "tunectl/proc.h"
#include "tunectl/timeutil.h"

int
tc_lease__pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int
tc_lease__wait_signal(int sigfd, int pidfd, int timeout_ms)
{
	struct pollfd p[2];
	struct signalfd_siginfo ssi;

	p[0].fd = sigfd;
	p[0].events = POLLIN;
	p[0].revents = 0;
	p[1].fd = pidfd;
	p[1].events = POLLIN;
	p[1].revents = 0;
	if (poll(p, 2, timeout_ms) > 0 && (p[0].revents & POLLIN) &&
	    read(sigfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
		return (int)ssi.ssi_signo;
	return 0;
}

/*
 * Wait until the leader has exited (left unreaped, so its pid, which is
 * also the process group id, cannot be reused), a runner signal arrives
 * on sigfd, or the deadline passes.  Returns 0, 2 (*sig set) or 1.
 */
static int
wait_leader(pid_t pid, int pidfd, int sigfd, uint64_t deadline, int *sig)
{
	for (;;) {
		siginfo_t si;
		uint64_t now;
		int timeout_ms;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT)
		    == 0 && si.si_pid == pid)
			return 0;
		now = tc_monotonic_ns();
		if (deadline != UINT64_MAX && now >= deadline)
			return 1;
		/* Wake at least once a minute: the deadline is re-checked
		 * above, and the millisecond count always fits an int. */
		if (deadline - now > 60000000000ULL)
			timeout_ms = 60000;
		else
			timeout_ms = (int)((deadline - now + 999999) / 1000000);
		if (pidfd < 0 && (timeout_ms < 0 || timeout_ms > 2))
			timeout_ms = 2;		/* no pidfd: poll the leader */
		if ((*sig = tc_lease__wait_signal(sigfd, pidfd, timeout_ms)) != 0)
			return 2;
	}
}

static int
open_log(const char *path, tc_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0666);

	if (fd < 0)
		tc_error_os(err, errno, path);
	return fd;
}

static void
stamp(char out[40])
{
	tc_lease_timestamp(out);
}

int
tc_lease__run_argv(const tc_lease_spawn *spec, tc_lease_ran *ran,
    tc_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t runner_sigs, old_mask, empty, all;
	tc_reaper reaper;
	size_t i;
	int outfd, errfd, sigfd, pidfd = -1, rc, sig = 0;
	int status = 0;

	memset(ran, 0, sizeof(*ran));
	ran->pid = -1;
	if ((outfd = open_log(spec->stdout_path, err)) < 0)
		return -1;
	if ((errfd = open_log(spec->stderr_path, err)) < 0) {
		close(outfd);
		unlink(spec->stdout_path);
		return -1;
	}

	sigemptyset(&runner_sigs);
	sigaddset(&runner_sigs, SIGTERM);
	sigaddset(&runner_sigs, SIGINT);
	sigaddset(&runner_sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &runner_sigs, &old_mask);
	sigfd = signalfd(-1, &runner_sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	tc_reaper_begin(&reaper);

	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	sigemptyset(&empty);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &empty);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	/* dup2 of a descriptor onto itself clears its close-on-exec flag in
	 * the child only (POSIX 2024, glibc >= 2.29): the command shares the
	 * runner's open lock files, and with them the flocks. */
	for (i = 0; i < spec->ninherit; i++)
		posix_spawn_file_actions_adddup2(&fa, spec->inherit_fds[i],
		    spec->inherit_fds[i]);
	if (spec->cwd != NULL)
		posix_spawn_file_actions_addchdir_np(&fa, spec->cwd);

	stamp(ran->started_at);
	rc = posix_spawn(&ran->pid, spec->argv[0], &fa, &attr, spec->argv,
	    spec->envp);
	close(outfd);
	close(errfd);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		ran->started = false;
		ran->start_errno = rc;
		ran->pid = -1;
		stamp(ran->finished_at);
		goto restore;
	}
	ran->started = true;
	pidfd = tc_lease__pidfd_open(ran->pid);

	rc = wait_leader(ran->pid, pidfd, sigfd,
	    tc_lease__deadline(spec->timeout_s), &sig);
	if (rc != 0) {
		/* Timed out (1) or the runner was told to stop (2). */
		if (rc == 2)
			ran->interrupted_by = sig;
		else
			ran->timed_out = true;
		killpg(ran->pid, SIGTERM);
		if (wait_leader(ran->pid, pidfd, -1,
		    tc_lease__deadline(spec->grace_s), &sig) != 0) {
			killpg(ran->pid, SIGKILL);
			wait_leader(ran->pid, pidfd, -1, UINT64_MAX, &sig);
		}
	}
	/* The leader is a zombie, so its group id is still ours to signal:
	 * nothing it started may keep using the device after the lease. */
	killpg(ran->pid, SIGKILL);
	while (waitpid(ran->pid, &status, 0) < 0 && errno == EINTR)
		;
	stamp(ran->finished_at);
	if (WIFEXITED(status))
		ran->return_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ran->return_code = -WTERMSIG(status);

restore:
	tc_reaper_end(&reaper);
	if (pidfd >= 0)
		close(pidfd);
	if (sigfd >= 0) {
		struct signalfd_siginfo ssi;

		/* Consume what arrived once the command was over, so that
		 * unblocking does not kill the runner before it records the
		 * outcome and releases the lease; it is finishing anyway. */
		while (read(sigfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
			;
		close(sigfd);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return 0;
}
