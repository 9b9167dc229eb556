/*
 * envprobe.c - env-check's external probes: PATH lookup and capturing the
 * output of nvidia-smi, npu-smi or "<compiler> --version" with a timeout,
 * so a wedged driver tool cannot hang the intake phase.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "envcheck_internal.h"
#include "tunectl/buf.h"
#include "tunectl/timeutil.h"

#define CAPTURE_MAX (1u << 20)

static bool
is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

char *
tc_envcheck__which(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	if (name[0] == '\0')
		return NULL;
	if (strchr(name, '/') != NULL)
		return is_executable_file(name) ? tc_xstrdup(name) : NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		char *cand;
		size_t len;

		end = strchr(p, ':');
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		cand = len == 0 ? tc_xasprintf("./%s", name) :
		    tc_xasprintf("%.*s/%s", (int)len, p, name);
		if (is_executable_file(cand))
			return cand;
		free(cand);
		if (end == NULL)
			return NULL;
	}
}

char *
tc_envcheck__capture(char *const *argv, double timeout_s, int *status)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	extern char **environ;
	tc_buf out = TC_BUF_INIT;
	uint64_t deadline = tc_monotonic_ns() + (timeout_s < 86400 * 365 ?
	    (uint64_t)(timeout_s * 1e9) : 86400ULL * 365 * 1000000000ULL);
	bool timed_out = false;
	int fds[2], rc, ws = 0;
	pid_t pid;

	*status = -1000;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return tc_buf_detach(&out, NULL);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return tc_buf_detach(&out, NULL);
	}
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		uint64_t now = tc_monotonic_ns();
		char chunk[4096];
		ssize_t n;

		if (now >= deadline) {
			timed_out = true;
			break;
		}
		if (poll(&p, 1, deadline - now > 60000000000ULL ? 60000 :
		    (int)((deadline - now) / 1000000 + 1)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p.revents == 0)
			continue;
		n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out.len < CAPTURE_MAX)
			tc_buf_add(&out, chunk, (size_t)n);
	}
	close(fds[0]);
	if (timed_out)
		killpg(pid, SIGKILL);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (!timed_out) {
		if (WIFEXITED(ws))
			*status = WEXITSTATUS(ws);
		else if (WIFSIGNALED(ws))
			*status = -WTERMSIG(ws);
	}
	return tc_buf_detach(&out, NULL);
}
