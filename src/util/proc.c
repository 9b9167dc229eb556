/*
 * proc.c - tc_proc_run: fork/exec a command in its own process group with
 * stdout/stderr going straight to log files, wait with a deadline, and on
 * timeout end the whole group (SIGTERM, grace period, SIGKILL); with
 * end_tree, also whatever the command leaves behind (reaper.c).
 *
 * Exec failures come back through a close-on-exec pipe and read like
 * Python's subprocess errors ("[Errno 2] No such file or directory:
 * 'cmd'"); the PATH search follows subprocess too (PATH of the child's
 * environment, default "/bin:/usr/bin", the first error that is not
 * ENOENT/ENOTDIR wins, no /bin/sh fallback for ENOEXEC).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/proc.h"
#include "tunectl/timeutil.h"

extern char **environ;

#define DEFAULT_GRACE_S	5.0
#define POLL_STEP_NS	10000000L	/* waitid polling without pidfd */

enum stage { STAGE_SETUP = 1, STAGE_CHDIR, STAGE_EXEC };

struct report {
	int stage;
	int err;
};

/* Everything the child needs, prepared before fork (the child only makes
 * async-signal-safe calls). */
struct plan {
	char *const *argv;
	char *const *envp;
	char **cands;		/* execve candidates, NULL-terminated */
	const char *cwd;
	int in_fd, out_fd, err_fd;	/* -1: inherit */
	int report_fd;
	pid_t parent;		/* for die_with_parent; 0 when not asked */
};

static void
free_cands(char **cands)
{
	size_t i;

	for (i = 0; cands != NULL && cands[i] != NULL; i++)
		free(cands[i]);
	free(cands);
}

static const char *
env_lookup(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp != NULL; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* subprocess: a name with a '/' is used as is; otherwise one candidate
 * per PATH entry of the child's environment ("" means the cwd). */
static char **
exec_candidates(const char *file, char *const *envp)
{
	const char *path, *p;
	char **cands;
	size_t n = 1, i = 0;

	if (strchr(file, '/') != NULL) {
		cands = tc_xcalloc(2, sizeof(*cands));
		cands[0] = tc_xstrdup(file);
		return cands;
	}
	if ((path = env_lookup(envp, "PATH")) == NULL)
		path = "/bin:/usr/bin";
	for (p = path; *p != '\0'; p++)
		n += *p == ':';
	cands = tc_xcalloc(n + 1, sizeof(*cands));
	for (p = path;; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon != NULL ? (size_t)(colon - p) : strlen(p);

		if (len == 0)
			cands[i++] = tc_xstrdup(file);
		else
			cands[i++] = tc_xasprintf("%.*s%s%s", (int)len, p,
			    p[len - 1] == '/' ? "" : "/", file);
		if (colon == NULL)
			break;
		p = colon + 1;
	}
	return cands;
}

static void __attribute__((noreturn))
child_fail(const struct plan *pl, int stage, int err)
{
	struct report r = { stage, err };
	ssize_t n;

	do
		n = write(pl->report_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

static void
child_dup(const struct plan *pl, int from, int to)
{
	if (from >= 0 && dup2(from, to) < 0)
		child_fail(pl, STAGE_SETUP, errno);
}

static void __attribute__((noreturn))
child_exec(const struct plan *pl)
{
	struct sigaction sa;
	sigset_t none;
	int saved = 0;
	size_t i;

	setpgid(0, 0);
	/* SIGKILL when the controller dies, so a killed controller leaves no
	 * orphaned host running; the getppid check closes the race with a
	 * parent that died before the prctl. */
	if (pl->parent != 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != pl->parent))
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The source descriptors are all >= 3 (see keep_above_stdio), so
	 * these dup2s cannot clobber one another. */
	child_dup(pl, pl->in_fd, STDIN_FILENO);
	child_dup(pl, pl->out_fd, STDOUT_FILENO);
	child_dup(pl, pl->err_fd, STDERR_FILENO);
	if (pl->cwd != NULL && chdir(pl->cwd) != 0)
		child_fail(pl, STAGE_CHDIR, errno);
	/* Like close_fds=True: nothing but 0-2 survives the exec. */
#ifdef SYS_close_range
	syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
#endif
	for (i = 0; pl->cands[i] != NULL; i++) {
		execve(pl->cands[i], pl->argv, pl->envp);
		if (errno != ENOENT && errno != ENOTDIR && saved == 0)
			saved = errno;
	}
	child_fail(pl, STAGE_EXEC, saved != 0 ? saved : errno);
}

/* Descriptors 0-2 of the parent may be closed, so a fresh open can land
 * there; move it up so the child's dup2 sequence stays simple. */
static int
keep_above_stdio(int fd)
{
	int nfd;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

static int
open_log(const tc_proc_spec *spec, const char *path, tc_error *err)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY |
	    (spec->exclusive_logs ? O_EXCL : O_TRUNC) |
	    (spec->logs_at_dirfd ? O_NOFOLLOW : 0);
	int fd;

	do
		fd = openat(spec->logs_at_dirfd ? spec->log_dirfd : AT_FDCWD,
		    path, flags, 0666);
	while (fd < 0 && errno == EINTR);
	if (fd < 0 || (fd = keep_above_stdio(fd)) < 0) {
		tc_error_os(err, errno, path);
		return -1;
	}
	return fd;
}

static int
pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0u);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Wait until pid has exited (without reaping it, so its pid and process
 * group id stay reserved) or until deadline_ns (UINT64_MAX: forever).
 * Returns true when it exited. */
static bool
wait_exit(pid_t pid, int pidfd, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = tc_monotonic_ns();
		struct timespec ts, *tsp = NULL;

		if (deadline_ns != UINT64_MAX) {
			uint64_t left = deadline_ns > now ? deadline_ns - now : 0;

			ts.tv_sec = (time_t)(left / 1000000000u);
			ts.tv_nsec = (long)(left % 1000000000u);
			tsp = &ts;
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { pidfd, POLLIN, 0 };
			int n = ppoll(&pfd, 1, tsp, NULL);

			if (n > 0)
				return true;
			if (n == 0)
				return false;
			if (errno != EINTR)
				return true;	/* cannot wait: let waitpid block */
		} else {
			siginfo_t si;

			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)pid, &si,
			    WEXITED | WNOHANG | WNOWAIT) != 0) {
				if (errno != EINTR)
					return true;
			} else if (si.si_pid != 0) {
				return true;
			}
			if (tsp != NULL && tsp->tv_sec == 0 && tsp->tv_nsec == 0)
				return false;
			if (tsp == NULL || tsp->tv_sec > 0 ||
			    tsp->tv_nsec > POLL_STEP_NS) {
				ts.tv_sec = 0;
				ts.tv_nsec = POLL_STEP_NS;
			}
			nanosleep(&ts, NULL);
		}
	}
}

static void
signal_group(pid_t pid, int sig)
{
	kill(-pid, sig);
	kill(pid, sig);		/* in case it left the group (setsid) */
}

static uint64_t
deadline_after(double seconds)
{
	if (!(seconds > 0))
		return tc_monotonic_ns();
	if (seconds > 1e9)
		return UINT64_MAX;
	return tc_monotonic_ns() + (uint64_t)(seconds * 1e9);
}

/* Read the child's exec report: 0 when exec succeeded (EOF). */
static int
read_report(int fd, struct report *r)
{
	size_t got = 0;

	while (got < sizeof(*r)) {
		ssize_t n = read(fd, (char *)r + got, sizeof(*r) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got == sizeof(*r) ? -1 : 0;
}

static void
report_error(const tc_proc_spec *spec, const struct report *r, tc_error *err)
{
	/* As subprocess: failures before the exec name the cwd, exec
	 * failures name argv[0] as given. */
	if (r->stage == STAGE_EXEC)
		tc_error_os(err, r->err, spec->argv[0]);
	else if (spec->cwd != NULL)
		tc_error_os(err, r->err, spec->cwd);
	else
		tc_error_set(err, "[Errno %d] %s", r->err, strerror(r->err));
}

static pid_t
reap(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

int
tc_proc_run(const tc_proc_spec *spec, tc_proc_result *res, tc_error *err)
{
	struct plan pl = { NULL, NULL, NULL, NULL, -1, -1, -1, -1, 0 };
	int pipefd[2] = { -1, -1 };
	double grace = spec->grace_s > 0 ? spec->grace_s : DEFAULT_GRACE_S;
	uint64_t start, deadline;
	struct report rep;
	tc_reaper reaper = { 0 };
	int status = 0, pidfd, rc = -1;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	res->pid = -1;
	if (spec->argv == NULL || spec->argv[0] == NULL) {
		tc_error_set(err, "cannot run an empty command");
		return -1;
	}
	pl.argv = spec->argv;
	pl.envp = spec->envp != NULL ? spec->envp : environ;
	pl.cwd = spec->cwd;
	pl.parent = spec->die_with_parent ? getpid() : 0;
	if (spec->stdin_null &&
	    (pl.in_fd = keep_above_stdio(open("/dev/null",
	    O_RDONLY | O_CLOEXEC))) < 0) {
		tc_error_os(err, errno, "/dev/null");
		goto out;
	}
	if (spec->stdout_path != NULL &&
	    (pl.out_fd = open_log(spec, spec->stdout_path, err)) < 0)
		goto out;
	if (spec->stderr_path != NULL) {
		/* One file for both streams: share the descriptor, or the
		 * two offsets would overwrite each other. */
		if (spec->stdout_path != NULL &&
		    strcmp(spec->stdout_path, spec->stderr_path) == 0)
			pl.err_fd = pl.out_fd;
		else if ((pl.err_fd = open_log(spec, spec->stderr_path,
		    err)) < 0)
			goto out;
	}
	pl.cands = exec_candidates(spec->argv[0], pl.envp);
	if (pipe2(pipefd, O_CLOEXEC) != 0 ||
	    (pipefd[1] = keep_above_stdio(pipefd[1])) < 0) {
		tc_error_set(err, "[Errno %d] %s", errno, strerror(errno));
		goto out;
	}
	pl.report_fd = pipefd[1];
	if (spec->end_tree)
		tc_reaper_begin(&reaper);
	start = tc_monotonic_ns();
	if ((pid = fork()) < 0) {
		tc_error_set(err, "[Errno %d] %s", errno, strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_exec(&pl);
	setpgid(pid, pid);	/* also here: no window where it is unset */
	close(pipefd[1]);
	pipefd[1] = -1;
	if (read_report(pipefd[0], &rep) != 0) {
		reap(pid, &status);
		report_error(spec, &rep, err);
		goto out;
	}
	res->started = true;
	res->pid = pid;
	pidfd = pidfd_open_compat(pid);
	deadline = spec->timeout_s > 0 ? deadline_after(spec->timeout_s) :
	    UINT64_MAX;
	if (!wait_exit(pid, pidfd, deadline)) {
		res->timed_out = true;
		signal_group(pid, SIGTERM);
		wait_exit(pid, pidfd, deadline_after(grace));
		/* Whether or not the leader went on SIGTERM, nothing of its
		 * group may outlive a timeout.  The leader is not reaped
		 * yet, so the group id cannot have been reused. */
		signal_group(pid, SIGKILL);
	} else if (spec->end_tree) {
		/* The leader is a zombie until reaped, so its group id is
		 * still its own: what it left in the group goes now. */
		signal_group(pid, SIGKILL);
	}
	if (reap(pid, &status) < 0) {
		tc_error_set(err, "[Errno %d] %s", errno, strerror(errno));
		if (pidfd >= 0)
			close(pidfd);
		goto out;
	}
	if (pidfd >= 0)
		close(pidfd);
	res->wall_s = (double)(tc_monotonic_ns() - start) / 1e9;
	if (WIFEXITED(status))
		res->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->exit_code = -WTERMSIG(status);
	rc = 0;
out:
	tc_reaper_end(&reaper);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pl.in_fd >= 0)
		close(pl.in_fd);
	if (pl.out_fd >= 0)
		close(pl.out_fd);
	if (pl.err_fd >= 0 && pl.err_fd != pl.out_fd)
		close(pl.err_fd);
	free_cands(pl.cands);
	return rc;
}
