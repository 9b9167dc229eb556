/*
 * slurm_exec.c - running Slurm's client programs: a captured run with a
 * timeout for the short queries (scontrol, squeue, scancel), a plain
 * spawn with the output sent to a log for the long-running srun (which
 * gets SIGTERM when tunectl dies), and the realtime clock the Slurm facts
 * are recorded with.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lease_internal.h"
#include "slurm_internal.h"
#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/timeutil.h"

#define CAPTURE_MAX	(16u << 20)

extern char **environ;

int64_t
tc_slurm__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
tc_slurm__format_ns(int64_t ns, char out[40])
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	tc_lease__format_time(&ts, out);
}

tc_json *
tc_slurm__job_id_json(const char *id)
{
	const char *p;

	if (id == NULL || *id == '\0')
		return tc_json_new_null();
	for (p = id; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return tc_json_new_string(id);
	if (p - id > 15)
		return tc_json_new_string(id);
	return tc_json_new_int(strtoll(id, NULL, 10));
}

static void
drain(int *fd, tc_buf *b)
{
	char chunk[8192];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n > 0) {
		if (b->len + (size_t)n <= CAPTURE_MAX)
			tc_buf_add(b, chunk, (size_t)n);
		return;
	}
	if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

int
tc_slurm__capture(char *const *argv, double timeout_s, char **out,
    char **errout, tc_error *err)
{
	posix_spawn_file_actions_t fa;
	int po[2], pe[2], rc, status = 0;
	pid_t pid;
	tc_buf ob = TC_BUF_INIT, eb = TC_BUF_INIT;
	uint64_t deadline = tc_lease__deadline(timeout_s);
	bool killed = false;

	*out = NULL;
	if (errout != NULL)
		*errout = NULL;
	if (pipe2(po, O_CLOEXEC) != 0) {
		tc_error_os(err, errno, argv[0]);
		return -1;
	}
	if (pipe2(pe, O_CLOEXEC) != 0) {
		tc_error_os(err, errno, argv[0]);
		close(po[0]);
		close(po[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		close(po[0]);
		close(pe[0]);
		tc_error_os(err, rc, argv[0]);
		return -1;
	}
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd p[2];
		uint64_t now = tc_monotonic_ns();
		int ms;

		if (now >= deadline) {
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		ms = (int)((deadline - now) / 1000000) + 1;
		p[0].fd = po[0];
		p[0].events = POLLIN;
		p[1].fd = pe[0];
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, ms) < 0 && errno != EINTR)
			break;
		if (po[0] >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&po[0], &ob);
		if (pe[0] >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&pe[0], &eb);
	}
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		tc_error_set(err, "%s timed out after %g seconds", argv[0],
		    timeout_s);
		tc_buf_free(&ob);
		tc_buf_free(&eb);
		return -1;
	}
	*out = tc_buf_detach(&ob, NULL);
	if (errout != NULL)
		*errout = tc_buf_detach(&eb, NULL);
	else
		tc_buf_free(&eb);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
}

pid_t
tc_slurm__spawn(char *const *argv, int log_fd, tc_error *err)
{
	pid_t parent = getpid(), pid;
	int ep[2], errnum = 0;
	sigset_t empty;

	/* fork + exec rather than posix_spawn: srun must get SIGTERM when
	 * tunectl dies (PR_SET_PDEATHSIG), so that it ends the job instead
	 * of leaving it to run without anyone to record it. */
	if (pipe2(ep, O_CLOEXEC) != 0) {
		tc_error_os(err, errno, argv[0]);
		return -1;
	}
	if ((pid = fork()) < 0) {
		tc_error_os(err, errno, argv[0]);
		close(ep[0]);
		close(ep[1]);
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(log_fd, 1) < 0 ||
		    dup2(log_fd, 2) < 0)
			goto fail;
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		execvp(argv[0], argv);
fail:
		errnum = errno;
		if (write(ep[1], &errnum, sizeof(errnum)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	if (read(ep[0], &errnum, sizeof(errnum)) == (ssize_t)sizeof(errnum)) {
		close(ep[0]);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		tc_error_os(err, errnum, argv[0]);
		return -1;
	}
	close(ep[0]);
	return pid;
}
