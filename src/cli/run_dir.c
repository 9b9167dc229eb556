/*
 * run_dir.c - what "tunectl demo" and "tunectl tune" share to run a whole
 * session: the run directories they make under a parent (a fresh
 * <parent>/<prefix>-<UTC time> per session, linked as <parent>/latest
 * for --resume), the plain-script host's runner file the workers hand
 * support roles to, driving the session from creation (or resume)
 * to a verified end with a progress line per attempt, and tunectl's own
 * reports of the finished session (report.html, FINAL_E2E_REPORT.en.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/host.h"
#include "tunectl/html.h"
#include "tunectl/own_reports.h"
#include "tunectl/path.h"
#include "tunectl/session.h"
#include "tunectl/support.h"

static int
latest_link(const char *parent, const char *root, tc_error *err)
{
	char *link = tc_xasprintf("%s/latest", parent);
	char *tmp = tc_xasprintf("%s/.latest.tmp", parent);
	const char *base = tc_path_basename(root);
	int rc = 0;

	unlink(tmp);
	if (symlink(base, tmp) != 0 || rename(tmp, link) != 0) {
		tc_error_os(err, errno, link);
		unlink(tmp);
		rc = -1;
	}
	free(link);
	free(tmp);
	return rc;
}

char *
tc_cli_latest_run_dir(const char *parent)
{
	char *latest = tc_xasprintf("%s/latest", parent);
	char *root = tc_path_resolve(latest, NULL);

	free(latest);
	if (root != NULL && !tc_is_directory(root)) {
		free(root);
		root = NULL;
	}
	return root;
}

char *
tc_cli_new_run_dir(const char *parent, const char *prefix, tc_error *err)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	char *root = NULL;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (tc_mkdirs(parent, err) != 0)
		return NULL;
	for (int n = 0; root == NULL && n < 100; n++) {
		char *cand = n == 0 ?
		    tc_xasprintf("%s/%s-%s", parent, prefix, stamp) :
		    tc_xasprintf("%s/%s-%s.%d", parent, prefix, stamp, n);

		if (mkdir(cand, 0777) == 0)
			root = tc_path_resolve(cand, err);
		free(cand);
	}
	if (root == NULL) {
		tc_error_set(err, "cannot create a run directory under %s", parent);
		return NULL;
	}
	if (latest_link(parent, root, err) != 0) {
		free(root);
		return NULL;
	}
	return root;
}

/* examples/ beside the binary: up to three levels above it (build trees),
 * or <prefix>/share/tunectl/examples. */
char *
tc_cli_examples_dir(const char *exe_dir)
{
	const char *up[] = { "..", "../..", "../../..", "../share/tunectl" };
	size_t i;

	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		char *cand = tc_xasprintf("%s/%s/examples", exe_dir, up[i]);
		char *probe = tc_xasprintf("%s/workers/sklib.py", cand);
		bool ok = tc_is_regular_file(probe);

		free(probe);
		if (ok) {
			char *norm = tc_path_resolve(cand, NULL);

			free(cand);
			return norm;
		}
		free(cand);
	}
	return NULL;
}

int
tc_cli_write_runner(const char *parent, const char *host, tc_error *err)
{
	char *path = tc_xasprintf("%s/script-runner.json", parent);
	tc_json *argv = tc_json_new_array();
	int rc;

	tc_json_array_push(argv, tc_json_new_string(host));
	rc = tc_write_json(path, argv, 0, err);
	if (rc == 0)
		setenv(TC_RUNNER_ENV, path, 1);
	tc_json_free(argv);
	free(path);
	return rc;
}

static void
progress(const tc_attempt_report *r, bool sealed, const char *error, void *ctx)
{
	const struct tc_cli_drive *d = ctx;

	if (r->step_id == NULL) {
		if (error != NULL)
			fprintf(stderr, "%s: %s\n", d->label, error);
		return;
	}
	fprintf(stderr, "%s: %-28s attempt %d  %-10s %7.1fs\n", d->label,
	    r->step_id, r->attempt, sealed && r->outcome_status != NULL ?
	    r->outcome_status : r->runner_status != NULL ? r->runner_status :
	    "-", r->seconds);
	if (error != NULL && !d->quiet)
		fprintf(stderr, "%s:   %s\n", d->label, error);
}

tc_json *
tc_cli_drive_session(const struct tc_cli_drive *d, tc_error *err)
{
	tc_json *done, *verdict;
	bool valid;

	if (!d->resume) {
		char stamp[32], *id;
		time_t now = time(NULL);
		struct tm tm;
		tc_json *s;

		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		id = tc_xasprintf("%s-%s", d->label, stamp);
		s = tc_session_init_policy(d->session, d->root, id, d->mode,
		    TC_POLICY_STRICT, err);
		if (s != NULL)
			fprintf(stderr, "%s: new session %s (optional mode %s) "
			    "in %s\n", d->label, id, d->mode, d->root);
		free(id);
		if (s == NULL)
			return NULL;
		tc_json_free(s);
	} else {
		fprintf(stderr, "%s: resuming %s\n", d->label, d->session);
		if ((verdict = tc_resume_session(d->session, NULL, err)) == NULL)
			return NULL;
		tc_json_free(verdict);
	}
	done = tc_run_session(d->session, d->runner, d->ro, d->max_attempts,
	    progress, (void *)d, err);
	if (done == NULL)
		return NULL;
	verdict = tc_verify_session(d->session, 0);
	valid = tc_json_is(tc_json_get(verdict, "valid"), TC_JSON_BOOL) &&
	    tc_json_get(verdict, "valid")->u.b;
	tc_json_free(verdict);
	if (!valid) {
		tc_error_set(err, "the finished session does not verify");
		tc_json_free(done);
		return NULL;
	}
	return done;
}

int
tc_cli_finish_reports(const char *label, const char *root,
    const char *session, const char *html, tc_error *err)
{
	char *en = NULL;

	if (html != NULL) {
		if (tc_report_html_write(session, html, err) != 0)
			return -1;
		fprintf(stderr, "%s: HTML report   %s\n", label, html);
	}
	if (tc_report_write_en(session, &en, err) != 0)
		return -1;
	fprintf(stderr, "%s: final report  %s/FINAL_E2E_REPORT.md\n", label, root);
	fprintf(stderr, "%s: English report %s\n", label, en);
	free(en);
	fprintf(stderr, "%s: session       %s (tunectl verify --session %s)\n",
	    label, session, session);
	return 0;
}

void
tc_cli_print_lines(const char *prefix, const char *text)
{
	for (const char *nl; text != NULL && (nl = strchr(text, '\n')) != NULL;
	    text = nl + 1)
		fprintf(stderr, "%s%.*s\n", prefix, (int)(nl - text), text);
}
