/*
 * reaper.c - ending a whole process tree (proc.h: tc_reaper_begin /
 * tc_reaper_end), shared by the lease runner and run-next's agent hosts.
 *
 * Killing a process group misses what left it (setsid, double-forked
 * daemons).  While a command runs, tunectl is a child subreaper: every
 * descendant orphaned by its parent is re-parented to tunectl instead of
 * init, so at the end the children tunectl did not have before are
 * exactly what the command left behind.  Killing one re-parents its own
 * children to tunectl in turn, hence the rounds.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/proc.h"

#define MAX_KIDS	4096
#define MAX_ROUNDS	64

long
tc_proc_parent_of(long pid)
{
	char path[64], *text, *close_paren;
	long ppid = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((text = tc_read_file(path, 4096, NULL, NULL)) == NULL)
		return 0;
	/* "pid (comm) state ppid ...": comm may hold ')' */
	if ((close_paren = strrchr(text, ')')) == NULL ||
	    sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
		ppid = 0;
	free(text);
	return ppid;
}

/* This process's children: /proc/self/task/<tid>/children, else a scan
 * of /proc for processes whose parent it is. */
static size_t
list_children(pid_t *kids, size_t max)
{
	char path[64];
	size_t n = 0;
	FILE *fp;
	DIR *proc;
	struct dirent *de;
	long self = (long)getpid();

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children",
	    (long)syscall(SYS_gettid));
	if ((fp = fopen(path, "re")) != NULL) {
		long v;

		while (n < max && fscanf(fp, "%ld", &v) == 1)
			kids[n++] = (pid_t)v;
		fclose(fp);
		return n;
	}
	if ((proc = opendir("/proc")) == NULL)
		return 0;
	while (n < max && (de = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end == '\0' && pid > 0 && tc_proc_parent_of(pid) == self)
			kids[n++] = (pid_t)pid;
	}
	closedir(proc);
	return n;
}

static bool
pid_in(pid_t pid, const pid_t *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

void
tc_reaper_begin(tc_reaper *r)
{
	struct sigaction dfl;

	memset(r, 0, sizeof(*r));
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	/* an inherited SIG_IGN would let the kernel reap (and so lose)
	 * the orphans before they can be counted */
	sigaction(SIGCHLD, &dfl, &r->old_chld);
	prctl(PR_GET_CHILD_SUBREAPER, &r->old_flag, 0, 0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	r->before = tc_xmalloc(MAX_KIDS * sizeof(*r->before));
	r->nbefore = list_children(r->before, MAX_KIDS);
	r->active = true;
}

void
tc_reaper_end(tc_reaper *r)
{
	pid_t *kids;
	int round;

	if (!r->active)
		return;
	kids = tc_xmalloc(MAX_KIDS * sizeof(*kids));
	for (round = 0; round < MAX_ROUNDS; round++) {
		size_t n = list_children(kids, MAX_KIDS), i, killed = 0;

		for (i = 0; i < n; i++) {
			if (pid_in(kids[i], r->before, r->nbefore))
				continue;
			kill(kids[i], SIGKILL);
			kids[killed++] = kids[i];
		}
		if (killed == 0)
			break;
		/* SIGKILL cannot be caught: each of these waits ends */
		for (i = 0; i < killed; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
	free(kids);
	free(r->before);
	r->before = NULL;
	prctl(PR_SET_CHILD_SUBREAPER, r->old_flag, 0, 0, 0);
	sigaction(SIGCHLD, &r->old_chld, NULL);
	r->active = false;
}
