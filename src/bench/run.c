/*
 * run.c - "bench run" and "bench ab": run a workload as N independent
 * clean processes and leave a run set in the reference's layout
 * (RUNSET/run-K/log_<rank>.log) plus RUNSET/runset.json.
 *
 * Per run K (directory run-K, K zero-padded to the width of N):
 *   - the workload runs in its own process group with stdin from
 *     /dev/null, stdout to run-K/stdout.log and stderr to run-K/stderr.log,
 *     and TUNECTL_RUN_DIR (absolute run-K), TUNECTL_RUN_INDEX (K) and
 *     TUNECTL_RANKS (R) in its environment;
 *   - rank logs: the log_<rank>.log files the workload wrote into
 *     TUNECTL_RUN_DIR, or, when it wrote none and R is 1, its stdout
 *     (log_0.log becomes a hard link to stdout.log);
 *   - --metric-regex RE (POSIX ERE, REG_NEWLINE): the first group (or the
 *     whole match) of every match is a sample in ms; raw rank logs are
 *     renamed raw_log_<rank>.log and log_<rank>.log is rewritten with
 *     reference lines "Inference time (decode): <value> ms";
 *   - --metric-stream stderr: the regex reads the run's stderr.log
 *     instead of its stdout (one rank); a run it finds nothing in fails,
 *     it is never timed by its wall clock instead;
 *   - --metric-file FILE --metric-pointer PTR: the run writes the JSON
 *     file FILE into its run directory; the number (or array of numbers)
 *     at the RFC 6901 pointer PTR is its samples, written into log_0.log
 *     as reference lines (one rank; a missing file or pointer fails the
 *     run);
 *   - --metric-higher: the figure --metric-regex or --metric-file reads
 *     is better higher (a throughput); each sample is logged as its
 *     reciprocal 1/value, so every gate, which takes lower as better,
 *     compares the time per unit of the figure.  runset.json records
 *     metric.direction "higher" and metric.logged "reciprocal"; a run
 *     the regex finds nothing in fails (never wall time), and a sample
 *     that is not positive fails its run;
 *   - when the first run logs no timing at all (and R is 1) the metric is
 *     the process wall time: log_0.log holds one reference line with the
 *     wall time in ms, and every later run is measured the same way;
 *   - the timing clock: a rank log may name the clock its decode figures
 *     were read from in a line "Timing clock: NAME".  Every rank of every
 *     run must name the same clock (or none); runset.json records it as
 *     metric.clock, which the gates compare between run sets.
 * --warmup-runs W first runs W discarded processes into warmup-K (not
 * run-*, so no gate reads them).  runset.json is written last,
 * atomically: a run set without it is incomplete.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/bench.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/timeutil.h"
#include "bench_internal.h"

extern char **environ;

enum metric { M_UNDECIDED, M_LOG, M_REGEX, M_WALL, M_FILE };

typedef struct run_rec {
	char *name;			/* "run-07" */
	int exit_code;
	bool timed_out;
	bool started;
	double wall_ms;
	char *clock;			/* the timing clock its logs name */
	char *problem;			/* why the run did not yield samples */
} run_rec;

typedef struct session {
	const tc_bench_run_opts *o;
	char *dir;			/* normalised out dir */
	char *abs_dir;
	regex_t re;
	bool have_re;
	enum metric metric;
	int width;
	run_rec *runs;
	tc_json *env;
	char started_at[TC_TIMESTAMP_LEN + 1];
	const char *role;		/* "A" / "B" for bench ab */
	tc_buf *log;			/* progress lines (may be NULL) */
	const char *partner;
	const tc_json *sides;		/* bench ab: every side's run set */
	const char *order;		/* bench ab: "A B A B ..." in full */
	char *clock;			/* the clock the first run named */
	bool clock_set;
	tc_json *warmups;		/* the discarded warm-up runs */
} session;

static int
digits(long n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* --metric-stream stderr and --metric-file: one rank, one reader. */
static int
check_metric_opts(const tc_bench_run_opts *o, tc_error *err)
{
	if (o->metric_stderr && o->metric_regex == NULL) {
		tc_error_set(err, "--metric-stream stderr needs --metric-regex");
		return -1;
	}
	if (o->metric_higher && o->metric_regex == NULL &&
	    o->metric_file == NULL) {
		tc_error_set(err, "--metric-higher needs --metric-regex or "
		    "--metric-file (rank logs and wall time are times: lower is "
		    "better)");
		return -1;
	}
	if ((o->metric_file == NULL) != (o->metric_pointer == NULL)) {
		tc_error_set(err, "--metric-file and --metric-pointer go together");
		return -1;
	}
	if (o->metric_file == NULL && !o->metric_stderr)
		return 0;
	if (o->metric_file != NULL && (o->metric_regex != NULL ||
	    o->metric_stderr)) {
		tc_error_set(err, "--metric-file reads the metric from a file; "
		    "--metric-regex and --metric-stream read it from the output");
		return -1;
	}
	if (o->ranks != 1) {
		tc_error_set(err, "--metric-stream stderr and --metric-file "
		    "read one rank (--ranks 1)");
		return -1;
	}
	if (o->metric_file != NULL && !tc_path_is_relative_artifact(o->metric_file)) {
		tc_error_set(err, "--metric-file %s: give a path relative to "
		    "the run directory, without '..'", o->metric_file);
		return -1;
	}
	return 0;
}

static int
session_open(session *s, const tc_bench_run_opts *o, tc_error *err)
{
	size_t nruns;
	char **runs, *manifest;

	memset(s, 0, sizeof(*s));
	s->o = o;
	if (o->runs < 1) {
		tc_error_set(err, "--runs must be at least 1");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->ranks < 1) {
		tc_error_set(err, "--ranks must be at least 1");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->argv == NULL || o->argv[0] == NULL) {
		tc_error_set(err, "no workload command given after --");
		return TC_BENCH_VALUE_ERROR;
	}
	if (o->metric_regex != NULL) {
		int rc = regcomp(&s->re, o->metric_regex, REG_EXTENDED |
		    REG_NEWLINE);

		if (rc != 0) {
			char msg[256];

			regerror(rc, &s->re, msg, sizeof(msg));
			tc_error_set(err, "invalid --metric-regex: %s", msg);
			return TC_BENCH_VALUE_ERROR;
		}
		s->have_re = true;
	}
	if (check_metric_opts(o, err) != 0)
		return TC_BENCH_VALUE_ERROR;
	s->dir = tc_path_normalize(o->out_dir);
	if (tc_mkdirs(s->dir, err) != 0)
		return TC_BENCH_FAIL;
	runs = tc_bench_list_runs(s->dir, &nruns);
	tc_bench_free_list(runs, nruns);
	manifest = tc_bench_join(s->dir, "runset.json");
	if (nruns > 0 || tc_path_exists(manifest)) {
		tc_error_set(err, "%s already holds a run set; bench run writes "
		    "a fresh one", s->dir);
		free(manifest);
		return TC_BENCH_VALUE_ERROR;
	}
	free(manifest);
	if ((s->abs_dir = tc_path_resolve(s->dir, err)) == NULL)
		return TC_BENCH_FAIL;
	s->width = digits(o->runs);
	s->runs = tc_xcalloc((size_t)o->runs, sizeof(*s->runs));
	s->metric = o->metric_file != NULL ? M_FILE : s->have_re ? M_REGEX :
	    M_UNDECIDED;
	if (o->warmup_runs < 0) {
		tc_error_set(err, "--warmup-runs must not be negative");
		return TC_BENCH_VALUE_ERROR;
	}
	s->warmups = tc_json_new_array();
	s->env = tc_env_fingerprint();
	tc_now_iso(s->started_at);
	return TC_BENCH_OK;
}

static void
session_close(session *s)
{
	if (s->have_re)
		regfree(&s->re);
	for (long i = 0; s->runs != NULL && i < s->o->runs; i++) {
		free(s->runs[i].name);
		free(s->runs[i].clock);
		free(s->runs[i].problem);
	}
	free(s->clock);
	tc_json_free(s->warmups);
	free(s->runs);
	free(s->dir);
	free(s->abs_dir);
	tc_json_free(s->env);
}

/* environ plus the three TUNECTL_* variables (replacing older values). */
static char **
child_env(const char *run_dir, long index, long ranks)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = tc_xcalloc(n + 4, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "TUNECTL_RUN_DIR=", 16) != 0 &&
		    strncmp(environ[i], "TUNECTL_RUN_INDEX=", 18) != 0 &&
		    strncmp(environ[i], "TUNECTL_RANKS=", 14) != 0)
			env[k++] = tc_xstrdup(environ[i]);
	env[k++] = tc_xasprintf("TUNECTL_RUN_DIR=%s", run_dir);
	env[k++] = tc_xasprintf("TUNECTL_RUN_INDEX=%ld", index);
	env[k++] = tc_xasprintf("TUNECTL_RANKS=%ld", ranks);
	env[k] = NULL;
	return env;
}

static void
free_env(char **env)
{
	for (size_t i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

static bool
decimal_text(const char *s, size_t n)
{
	double v;
	uint64_t c;
	int32_t f;
	bool slow;

	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
			return false;
	return tc_bench_numeral(s, n, &v, &c, &f, &slow);
}

#define CLOCK_TAG "Timing clock: "

/* The clock a rank log names ("Timing clock: NAME" at the start of a
 * line; the first such line counts), or NULL. */
static char *
log_clock(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t tag = strlen(CLOCK_TAG);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;

		if ((size_t)(eol - p) > tag && memcmp(p, CLOCK_TAG, tag) == 0) {
			const char *v = p + tag, *e = v;

			while (e < eol && *e != ' ' && *e != '\t' && *e != '\r')
				e++;
			return e > v ? tc_xstrndup(v, (size_t)(e - v)) : NULL;
		}
		p = eol + 1;
	}
	return NULL;
}

static bool
same_clock(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Record the clock rank log src names into the run; false (and a
 * problem) when the run's ranks disagree. */
static bool
note_clock(run_rec *r, const char *src, const char *buf, size_t len,
    bool first)
{
	char *c = log_clock(buf, len);

	if (first) {
		r->clock = c;
		return true;
	}
	if (same_clock(r->clock, c)) {
		free(c);
		return true;
	}
	r->problem = tc_xasprintf("%s names the timing clock %s, an earlier "
	    "rank log of the run %s", src, c != NULL ? c : "(none)",
	    r->clock != NULL ? r->clock : "none");
	free(c);
	return false;
}

/* --metric-higher: the reference line of 1/value for the decimal text
 * t[0..n), in fixed notation (the reference reads [0-9.]+) with 17
 * significant digits; false when the value is not positive. */
static bool
reciprocal_line(const char *t, size_t n, tc_buf *out)
{
	char *text = tc_xstrndup(t, n);
	double v = strtod(text, NULL), r;
	int decimals;

	free(text);
	if (!(v > 0) || !isfinite(1.0 / v))
		return false;
	r = 1.0 / v;
	decimals = 16 - (int)floor(log10(r));
	if (decimals < 1)
		decimals = 1;
	if (decimals > 340)
		decimals = 340;
	tc_buf_printf(out, "Inference time (decode): %.*f ms\n", decimals, r);
	return true;
}

/* Extract --metric-regex samples of buf as reference lines into out. */
static int
regex_samples(session *s, const char *path, const char *buf, tc_buf *out,
    size_t *count, tc_error *err)
{
	const char *p = buf;
	regmatch_t m[2];
	int flags = 0;

	*count = 0;
	while (*p != '\0' && regexec(&s->re, p, 2, m, flags) == 0) {
		regmatch_t v = (s->re.re_nsub >= 1 && m[1].rm_so >= 0) ? m[1] :
		    m[0];
		const char *t = p + v.rm_so;
		size_t n = (size_t)(v.rm_eo - v.rm_so);

		if (!decimal_text(t, n)) {
			tc_error_set(err, "%s: --metric-regex matched '%.*s', "
			    "which is not a decimal number of milliseconds", path,
			    (int)(n > 64 ? 64 : n), t);
			return -1;
		}
		if (s->o->metric_higher) {
			if (!reciprocal_line(t, n, out)) {
				tc_error_set(err, "%s: --metric-regex matched "
				    "'%.*s': --metric-higher needs a positive "
				    "figure", path, (int)(n > 64 ? 64 : n), t);
				return -1;
			}
		} else {
			tc_buf_printf(out, "Inference time (decode): %.*s ms\n",
			    (int)n, t);
		}
		(*count)++;
		p += m[0].rm_eo > m[0].rm_so ? m[0].rm_eo : m[0].rm_so + 1;
		flags = REG_NOTBOL;
		if (p > buf && p[-1] == '\n')
			flags = 0;
	}
	return 0;
}

static void
norm_free(tc_buf *norm, size_t n)
{
	for (size_t k = 0; k < n; k++)
		tc_buf_free(&norm[k]);
	free(norm);
}

/* As many rank logs as ranks (none is one rank's stdout); otherwise the
 * problem is noted in r. */
static bool
rank_log_count_ok(const session *s, const char *run_dir, run_rec *r,
    size_t nlogs)
{
	if (nlogs == 0 && s->o->ranks != 1) {
		r->problem = tc_xasprintf("%s: expected %ld rank logs, "
		    "found 0 (a workload with --ranks > 1 writes "
		    "log_<rank>.log files into $TUNECTL_RUN_DIR)", run_dir,
		    s->o->ranks);
		return false;
	}
	if (nlogs != 0 && (long)nlogs != s->o->ranks) {
		r->problem = tc_xasprintf("%s: expected %ld rank logs, found %zu",
		    run_dir, s->o->ranks, nlogs);
		return false;
	}
	return true;
}

/* Read every source: note its clock, count its samples (or extract them
 * with the metric regex into norm[i]).  1 when read, 0 when a problem is
 * noted in r, -1 on an error. */
static int
read_samples(session *s, run_rec *r, const char **src, size_t nsrc,
    tc_buf *norm, size_t *total, tc_error *err)
{
	for (size_t i = 0; i < nsrc; i++) {
		size_t len, cnt = 0;
		char *buf = tc_bench_read_all(src[i], &len, err);

		if (buf == NULL)
			return -1;
		if (!note_clock(r, src[i], buf, len, i == 0)) {
			free(buf);
			return 0;
		}
		if (s->metric == M_REGEX) {
			if (regex_samples(s, src[i], buf, &norm[i], &cnt,
			    err) != 0) {
				free(buf);
				return -1;
			}
		} else {
			cnt = tc_bench_count_samples(buf, len);
		}
		*total += cnt;
		free(buf);
	}
	return 1;
}

/* The first run decides where a session's samples come from: a one-rank
 * workload that logged none is timed by its wall clock. */
static void
decide_metric(session *s, const run_rec *r, size_t total)
{
	if (total == 0 && s->metric == M_UNDECIDED && s->o->ranks == 1)
		s->metric = M_WALL;
	if (total == 0 && s->metric == M_REGEX && s->o->ranks == 1 &&
	    r == &s->runs[0] && !s->o->metric_stderr && !s->o->metric_higher)
		s->metric = M_WALL;
	if (s->metric == M_UNDECIDED)
		s->metric = M_LOG;
}

/* A one-rank workload's stdout becomes its log_0.log. */
static int
link_stdout_log(const char *run_dir, const char *stdout_path, tc_error *err)
{
	char *l0 = tc_bench_join(run_dir, "log_0.log");
	int rc = 0;

	if (link(stdout_path, l0) != 0) {
		tc_bench_oserror(err, errno, l0);
		rc = -1;
	}
	free(l0);
	return rc;
}

/* The samples the metric regex extracted, as rank logs the reference
 * reader parses (a rank log's own text is kept as raw_<name>). */
static int
write_normalised(const char *run_dir, const char **src, size_t nsrc,
    bool from_stdout, const tc_buf *norm, tc_error *err)
{
	for (size_t i = 0; i < nsrc; i++) {
		char *target, *raw;

		if (from_stdout) {
			target = tc_bench_join(run_dir, "log_0.log");
		} else {
			raw = tc_xasprintf("%s/raw_%s", run_dir,
			    tc_path_basename(src[i]));
			if (rename(src[i], raw) != 0) {
				tc_bench_oserror(err, errno, src[i]);
				free(raw);
				return -1;
			}
			free(raw);
			target = tc_xstrdup(src[i]);
		}
		if (tc_write_atomic(target, norm[i].data != NULL ?
		    norm[i].data : "", norm[i].len, TC_WRITE_EXCLUSIVE,
		    err) != 0) {
			free(target);
			return -1;
		}
		free(target);
	}
	return 0;
}

/* A wall-time run: the process's own wall time is its one sample. */
static int
write_wall_log(const char *run_dir, run_rec *r, bool from_stdout,
    tc_error *err)
{
	char *target, *line;
	int rc;

	if (!from_stdout) {
		/* a workload that writes rank logs has its own timings */
		r->problem = tc_xasprintf("%s: wall-time runs take their "
		    "time from the process; the workload wrote rank logs",
		    run_dir);
		return 0;
	}
	target = tc_bench_join(run_dir, "log_0.log");
	line = tc_xasprintf("Inference time (decode): %.6f ms\n", r->wall_ms);
	rc = tc_write_atomic(target, line, strlen(line), TC_WRITE_EXCLUSIVE,
	    err);
	free(line);
	free(target);
	return rc;
}

/* One sample of the metric file as a reference line; false when v is not
 * a number. */
static bool
file_sample(const tc_json *v, bool higher, tc_buf *out)
{
	if (!tc_json_is(v, TC_JSON_INT) && !tc_json_is(v, TC_JSON_FLOAT))
		return false;
	if (higher) {
		tc_buf num = TC_BUF_INIT;
		bool ok;

		tc_json_repr(&num, v);
		ok = reciprocal_line(num.data, num.len, out);
		tc_buf_free(&num);
		return ok;
	}
	tc_buf_puts(out, "Inference time (decode): ");
	tc_json_repr(out, v);
	tc_buf_puts(out, " ms\n");
	return true;
}

/* --metric-file: the number, or array of numbers, at the pointer of the
 * JSON file the run wrote is its samples (log_0.log).  0 with a problem
 * noted in r when the file, the pointer or a number is missing. */
static int
file_samples(session *s, const char *run_dir, run_rec *r, tc_error *err)
{
	tc_error why = TC_ERROR_INIT;
	char *path = tc_path_under_root(run_dir, s->o->metric_file,
	    "--metric-file", &why);
	tc_json *doc = NULL;
	const tc_json *v = NULL;
	tc_buf out = TC_BUF_INIT;
	bool ok = true;
	int rc = 0;

	if (path != NULL && !tc_is_regular_file(path))
		tc_error_set(&why, "the run did not write %s", s->o->metric_file);
	else if (path != NULL && (doc = tc_json_parse_file(path, &why)) != NULL)
		v = tc_json_pointer(doc, s->o->metric_pointer, &why);
	if (v != NULL && tc_json_is(v, TC_JSON_ARRAY)) {
		for (size_t i = 0; ok && i < v->u.arr.len; i++)
			ok = file_sample(v->u.arr.items[i],
			    s->o->metric_higher, &out);
		ok = ok && v->u.arr.len > 0;
	} else if (v != NULL) {
		ok = file_sample(v, s->o->metric_higher, &out);
	}
	if (v == NULL) {
		r->problem = tc_xasprintf("%s: --metric-file %s --metric-pointer "
		    "%s: %s", run_dir, s->o->metric_file, s->o->metric_pointer,
		    tc_error_msg(&why));
	} else if (!ok) {
		r->problem = tc_xasprintf("%s: %s at %s is not a number or a "
		    "non-empty array of numbers%s", run_dir, s->o->metric_file,
		    s->o->metric_pointer, s->o->metric_higher ?
		    " (positive, with --metric-higher)" : "");
	} else {
		char *target = tc_bench_join(run_dir, "log_0.log");

		rc = tc_write_atomic(target, out.data, out.len,
		    TC_WRITE_EXCLUSIVE, err);
		free(target);
	}
	tc_buf_free(&out);
	tc_json_free(doc);
	tc_error_clear(&why);
	free(path);
	return rc;
}

/* Turn the workload's output of one run into reference rank logs. */
static int
collect(session *s, const char *run_dir, run_rec *r, tc_error *err)
{
	char *stdout_path = tc_bench_join(run_dir, s->o->metric_stderr ?
	    "stderr.log" : "stdout.log");
	size_t nlogs, nsrc, total = 0;
	char **logs;

	if (s->metric == M_FILE) {
		free(stdout_path);
		return file_samples(s, run_dir, r, err);
	}
	logs = tc_bench_rank_logs(run_dir, &nlogs, err);
	const char **src;
	tc_buf *norm = NULL;
	int rc = -1;

	if (logs == NULL) {
		free(stdout_path);
		return -1;
	}
	if (!rank_log_count_ok(s, run_dir, r, nlogs)) {
		rc = 0;
		goto out;
	}
	/* without rank logs, a one-rank workload's stdout (or the stderr the
	 * metric is read from) is its log */
	src = nlogs == 0 ? (const char **)&stdout_path : (const char **)logs;
	nsrc = nlogs == 0 ? 1 : nlogs;
	if (s->metric != M_WALL) {
		norm = tc_xcalloc(nsrc, sizeof(*norm));
		if ((rc = read_samples(s, r, src, nsrc, norm, &total, err)) != 1)
			goto out;	/* -1: an error; 0: a problem noted in r */
		decide_metric(s, r, total);
	}
	if (s->metric == M_WALL) {
		rc = write_wall_log(run_dir, r, nlogs == 0, err);
	} else if (total == 0 && (s->o->metric_stderr ||
	    s->o->metric_higher)) {
		r->problem = tc_xasprintf("%s: --metric-regex matched nothing "
		    "in %s", run_dir, s->o->metric_stderr ? "stderr.log" :
		    "stdout.log");
		rc = 0;
	} else if (total == 0) {
		r->problem = tc_xasprintf("%s: the workload logged no "
		    "timing samples", run_dir);
		rc = 0;
	} else if (s->metric == M_LOG) {
		rc = nlogs == 0 ? link_stdout_log(run_dir, stdout_path, err) : 0;
	} else {
		rc = write_normalised(run_dir, src, nsrc, nlogs == 0, norm, err);
	}
out:
	if (norm != NULL)
		norm_free(norm, nsrc);
	tc_bench_free_list(logs, nlogs);
	free(stdout_path);
	return rc;
}

/* Run the workload once into run_dir (created here) with index k. */
static int
spawn(session *s, const char *name, long k, tc_proc_result *res,
    tc_error *err)
{
	char *run_dir = tc_bench_join(s->dir, name);
	char *abs_run = tc_bench_join(s->abs_dir, name);
	char *out_path, *err_path, **env;
	tc_proc_spec spec;
	int rc;

	if (mkdir(run_dir, 0777) != 0) {
		tc_bench_oserror(err, errno, run_dir);
		free(run_dir);
		free(abs_run);
		return -1;
	}
	out_path = tc_bench_join(run_dir, "stdout.log");
	err_path = tc_bench_join(run_dir, "stderr.log");
	env = child_env(abs_run, k, s->o->ranks);
	memset(&spec, 0, sizeof(spec));
	spec.argv = s->o->argv;
	spec.envp = env;
	spec.stdout_path = out_path;
	spec.stderr_path = err_path;
	spec.exclusive_logs = true;
	spec.stdin_null = true;
	spec.timeout_s = s->o->timeout_s;
	memset(res, 0, sizeof(*res));
	rc = tc_proc_run(&spec, res, err);
	free_env(env);
	free(out_path);
	free(err_path);
	free(abs_run);
	free(run_dir);
	return rc;
}

/*
 * A discarded warm-up process (warmup-K): a core that was idle runs the
 * first process of a series at another speed than the series itself.
 */
static int
run_warmup(session *s, long k, tc_json *record, tc_buf *log, tc_error *err)
{
	char *name = tc_xasprintf("warmup-%0*ld", digits(s->o->warmup_runs), k);
	tc_json *o = tc_json_new_object();
	tc_proc_result res;

	if (spawn(s, name, 0, &res, err) != 0) {
		free(name);
		tc_json_free(o);
		return TC_BENCH_FAIL;
	}
	tc_json_object_set_string(o, "path", name);
	tc_json_object_set_int(o, "exit_code", res.exit_code);
	tc_json_object_set_bool(o, "timed_out", res.timed_out);
	tc_json_object_set(o, "wall_ms", tc_json_new_float(res.wall_s * 1000.0));
	tc_json_array_push(record, o);
	if (log != NULL)
		tc_buf_printf(log, "%s/%s: discarded warm-up, exit %d, %.3f ms "
		    "wall\n", s->dir, name, res.exit_code, res.wall_s * 1000.0);
	free(name);
	return TC_BENCH_OK;
}

static int
run_one(session *s, long k, tc_buf *log, tc_error *err)
{
	run_rec *r = &s->runs[k - 1];
	char *run_dir;
	tc_proc_result res;

	r->name = tc_xasprintf("run-%0*ld", s->width, k);
	if (spawn(s, r->name, k, &res, err) != 0)
		return TC_BENCH_FAIL;
	run_dir = tc_bench_join(s->dir, r->name);
	r->started = res.started;
	r->exit_code = res.exit_code;
	r->timed_out = res.timed_out;
	r->wall_ms = res.wall_s * 1000.0;
	if (collect(s, run_dir, r, err) != 0) {
		free(run_dir);
		return TC_BENCH_FAIL;
	}
	/* One run set, one clock: the first run's decides. */
	if (r->problem == NULL && s->metric == M_LOG) {
		if (!s->clock_set) {
			s->clock = r->clock != NULL ? tc_xstrdup(r->clock) : NULL;
			s->clock_set = true;
		} else if (!same_clock(s->clock, r->clock)) {
			r->problem = tc_xasprintf("%s: the rank logs name the "
			    "timing clock %s, earlier runs %s", run_dir,
			    r->clock != NULL ? r->clock : "(none)",
			    s->clock != NULL ? s->clock : "none");
		}
	}
	if (log != NULL) {
		tc_buf_printf(log, "%s%s%s: exit %d%s, %.3f ms wall%s%s\n",
		    s->role != NULL ? s->role : "", s->role != NULL ? " " : "",
		    run_dir, r->exit_code, r->timed_out ? " (timed out)" : "",
		    r->wall_ms, r->problem != NULL ? "; " : "",
		    r->problem != NULL ? r->problem : "");
	}
	free(run_dir);
	return TC_BENCH_OK;
}

static const char *
metric_name(enum metric m)
{
	return m == M_WALL ? "wall_time" : m == M_REGEX ? "metric_regex" :
	    m == M_FILE ? "metric_file" : "reference_log_regex";
}

/* runset.json's metric: where the samples came from and their clock. */
static tc_json *
metric_json(const session *s)
{
	tc_json *metric = tc_json_new_object();

	tc_json_object_set_string(metric, "source", metric_name(s->metric));
	tc_json_object_set_string(metric, "unit", "ms");
	if (s->o->metric_higher) {
		tc_json_object_set_string(metric, "direction", "higher");
		tc_json_object_set_string(metric, "logged", "reciprocal");
	}
	if (s->metric == M_FILE) {
		tc_json_object_set_string(metric, "file", s->o->metric_file);
		tc_json_object_set_string(metric, "pointer", s->o->metric_pointer);
	} else if (s->o->metric_regex != NULL) {
		tc_json_object_set_string(metric, "regex", s->o->metric_regex);
		if (s->o->metric_stderr)
			tc_json_object_set_string(metric, "stream", "stderr");
	} else
		tc_json_object_set_string(metric, "regex",
		    "Inference time \\((decode|prefill)\\): ([0-9.]+) ms");
	if (s->metric == M_WALL)
		tc_json_object_set_string(metric, "clock", "CLOCK_MONOTONIC");
	else if (s->metric == M_LOG && s->clock != NULL)
		tc_json_object_set_string(metric, "clock", s->clock);
	else
		tc_json_object_set_null(metric, "clock");
	return metric;
}

/* runset.json before its runs: the command, the sizes, the metric, the
 * warm-up runs, the environment and the times. */
static tc_json *
runset_header(session *s, const tc_runset_opts *ro)
{
	tc_json *doc = tc_json_new_object(), *cmd = tc_json_new_array();
	char done[TC_TIMESTAMP_LEN + 1];

	for (size_t i = 0; s->o->argv[i] != NULL; i++)
		tc_json_array_push(cmd, tc_json_new_string(s->o->argv[i]));
	tc_json_object_set_string(doc, "schema_version", TC_RUNSET_SCHEMA);
	tc_json_object_set_string(doc, "path", s->dir);
	tc_json_object_set(doc, "command", cmd);
	tc_json_object_set_int(doc, "runs_requested", s->o->runs);
	tc_json_object_set_int(doc, "ranks", ro->expected_ranks);
	tc_json_object_set_int(doc, "warmup_samples", ro->warmup);
	tc_json_object_set(doc, "metric", metric_json(s));
	tc_json_object_set(doc, "warmup_runs", s->warmups);
	s->warmups = NULL;
	if (s->o->timeout_s > 0)
		tc_json_object_set(doc, "timeout_seconds",
		    tc_json_new_float(s->o->timeout_s));
	else
		tc_json_object_set_null(doc, "timeout_seconds");
	tc_json_object_set(doc, "environment", s->env);
	s->env = NULL;
	tc_json_object_set(doc, "load_average_end", tc_bench_load_average());
	tc_json_object_set_string(doc, "started_at", s->started_at);
	tc_now_iso(done);
	tc_json_object_set_string(doc, "finished_at", done);
	if (s->role != NULL) {
		tc_json *ab = tc_json_new_object();

		tc_json_object_set_string(ab, "role", s->role);
		tc_json_object_set_string(ab, "partner", s->partner);
		tc_json_object_set(ab, "sides", tc_json_clone(s->sides));
		tc_json_object_set_string(ab, "order", s->order);
		tc_json_object_set(doc, "interleaved", ab);
	}
	return doc;
}

/* One entry per run (with its summary when rs, the loaded run set, has
 * one); *failed counts the runs that did not succeed. */
static tc_json *
runs_json(const session *s, const tc_runset *rs, size_t *failed)
{
	tc_json *runs = tc_json_new_array();

	*failed = 0;
	for (long i = 0; i < s->o->runs; i++) {
		run_rec *r = &s->runs[i];
		tc_json *o = tc_json_new_object();
		bool ok = r->started && r->exit_code == 0 && !r->timed_out &&
		    r->problem == NULL;

		if (!ok)
			(*failed)++;
		tc_json_object_set_int(o, "index", i + 1);
		tc_json_object_set_string(o, "path", r->name);
		tc_json_object_set_int(o, "exit_code", r->exit_code);
		tc_json_object_set_bool(o, "timed_out", r->timed_out);
		tc_json_object_set(o, "wall_ms", tc_json_new_float(r->wall_ms));
		if (r->problem != NULL)
			tc_json_object_set_string(o, "problem", r->problem);
		if (rs != NULL && (size_t)i < rs->run_count) {
			const tc_run_summary *rr = &rs->runs[i];
			tc_json *samples = tc_json_new_object();
			char key[32];

			for (size_t k = 0; k < rr->rank_count; k++) {
				snprintf(key, sizeof(key), "%ld", rr->ranks[k].rank);
				tc_json_object_set_int(samples, key,
				    (int64_t)rr->ranks[k].decode.count);
			}
			tc_json_object_set(o, "decode_samples_after_warmup",
			    samples);
			tc_json_object_set_int(o, "worst_rank", rr->worst_rank);
			tc_json_object_set(o, "worst_rank_mean_ms",
			    tc_json_new_float(rr->worst_rank_mean_ms));
			tc_json_object_set_string(o, "worst_rank_mean_exact_ms",
			    rr->worst_rank_mean_exact_ms);
		}
		tc_json_array_push(runs, o);
	}
	return runs;
}

/* runset.json's summary of a loaded run set. */
static tc_json *
summary_json(const tc_runset *rs)
{
	tc_json *sum = tc_json_new_object(), *l = tc_json_new_array();
	tc_json *e = tc_json_new_array();
	tc_stability st;

	for (size_t i = 0; i < rs->run_count; i++) {
		tc_json_array_push(l, tc_json_new_float(
		    rs->run_worst_rank_means_ms[i]));
		tc_json_array_push(e, tc_json_new_string(
		    rs->run_worst_rank_means_exact_ms[i]));
	}
	tc_json_object_set_int(sum, "run_count", (int64_t)rs->run_count);
	tc_json_object_set(sum, "run_worst_rank_means_ms", l);
	tc_json_object_set(sum, "run_worst_rank_means_exact_ms", e);
	tc_json_object_set(sum, "median_run_worst_rank_mean_ms",
	    tc_json_new_float(rs->median_run_worst_rank_mean_ms));
	tc_json_object_set(sum, "worst_rank_mean_ms",
	    tc_json_new_float(rs->worst_rank_mean_ms));
	tc_json_object_set(sum, "decode", tc_bench__stats_json(&rs->decode));
	tc_stability_eval_runset(rs, &st);
	tc_json_object_set(sum, "s0_stability", tc_stability_to_json(&st));
	tc_stability_free(&st);
	return sum;
}

/* Summarise with the reference reader and write runset.json. */
static int
session_finish(session *s, bool *all_ok, tc_error *err)
{
	tc_json *doc;
	tc_runset_opts ro = TC_RUNSET_OPTS_INIT;
	tc_runset *rs = NULL;
	tc_error serr = TC_ERROR_INIT;
	char *path;
	size_t failed;
	long w = s->o->warmup_samples;
	int rc;

	if (w < 0)
		w = s->metric == M_WALL ? 0 : TC_DEFAULT_WARMUP;
	ro.warmup = w;
	ro.expected_ranks = s->metric == M_WALL ? 1 : s->o->ranks;
	rc = tc_runset_load(s->dir, &ro, &rs, &serr);
	doc = runset_header(s, &ro);
	tc_json_object_set(doc, "runs", runs_json(s, rc == 0 ? rs : NULL,
	    &failed));
	tc_json_object_set_int(doc, "failed_runs", (int64_t)failed);
	if (rc == 0) {
		tc_json_object_set(doc, "summary", summary_json(rs));
		tc_json_object_set_null(doc, "summary_error");
	} else {
		tc_json_object_set_null(doc, "summary");
		tc_json_object_set_string(doc, "summary_error",
		    tc_error_msg(&serr));
	}
	/* a summary that cannot be computed (e.g. too few samples for the
	 * warmup) is reported, but the runs themselves decide success */
	*all_ok = failed == 0;
	if (rc != 0 && s->log != NULL)
		tc_buf_printf(s->log, "warning: %s: no runset.json summary: %s\n",
		    s->dir, tc_error_msg(&serr));
	tc_json_object_set_bool(doc, "all_runs_succeeded", *all_ok);
	path = tc_bench_join(s->dir, "runset.json");
	rc = tc_write_json(path, doc, TC_WRITE_EXCLUSIVE, err) == 0 ?
	    TC_BENCH_OK : TC_BENCH_FAIL;
	free(path);
	tc_json_free(doc);
	tc_runset_free(rs);
	tc_error_clear(&serr);
	return rc;
}

int
tc_bench_run(const tc_bench_run_opts *o, tc_buf *log, tc_error *err)
{
	session s;
	bool ok = false;
	int rc;

	if ((rc = session_open(&s, o, err)) != 0)
		goto out;
	s.log = log;
	for (long k = 1; k <= o->warmup_runs; k++)
		if ((rc = run_warmup(&s, k, s.warmups, log, err)) != 0)
			goto out;
	for (long k = 1; k <= o->runs; k++)
		if ((rc = run_one(&s, k, log, err)) != 0)
			goto out;
	if ((rc = session_finish(&s, &ok, err)) != 0)
		goto out;
	if (!ok) {
		tc_error_set(err, "%s: not every run succeeded (see runset.json)",
		    s.dir);
		rc = TC_BENCH_FAIL;
	}
out:
	session_close(&s);
	return rc;
}

/* The order the timed runs of n interleaved sides were taken in, one
 * letter per run: "A B A B ..." in full. */
static char *
interleave_order(size_t n, long runs)
{
	tc_buf b = TC_BUF_INIT;

	for (long k = 0; k < runs; k++)
		for (size_t i = 0; i < n; i++)
			tc_buf_printf(&b, "%s%c", b.len > 0 ? " " : "",
			    'A' + (int)i);
	return tc_buf_detach(&b, NULL);
}

int
tc_bench_interleave(const tc_bench_run_opts *sides, size_t n, tc_buf *log,
    tc_error *err)
{
	static const char *const roles[] = { "A", "B", "C", "D", "E", "F",
		"G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R",
		"S", "T", "U", "V", "W", "X", "Y", "Z" };
	session *ss;
	tc_json *dirs = NULL;
	char *order = NULL;
	size_t opened = 0, i, j;
	bool all_ok = true;
	int rc = TC_BENCH_OK;

	if (n < 2 || n > sizeof(roles) / sizeof(roles[0])) {
		tc_error_set(err, "an interleaved measurement takes 2 to %zu "
		    "sides, got %zu", sizeof(roles) / sizeof(roles[0]), n);
		return TC_BENCH_VALUE_ERROR;
	}
	for (i = 1; i < n; i++)
		if (sides[i].runs != sides[0].runs ||
		    sides[i].warmup_runs != sides[0].warmup_runs) {
			tc_error_set(err, "A and %s need the same number of "
			    "runs and warm-up runs", roles[i]);
			return TC_BENCH_VALUE_ERROR;
		}
	ss = tc_xcalloc(n, sizeof(*ss));
	for (i = 0; i < n; i++) {
		rc = session_open(&ss[i], &sides[i], err);
		opened = i + 1;
		if (rc != 0)
			goto out;
		for (j = 0; j < i; j++)
			if (strcmp(ss[i].abs_dir, ss[j].abs_dir) == 0) {
				tc_error_set(err, "the run sets of %s and %s "
				    "must differ (%s)", roles[j], roles[i],
				    ss[i].dir);
				rc = TC_BENCH_VALUE_ERROR;
				goto out;
			}
	}
	dirs = tc_json_new_array();
	for (i = 0; i < n; i++)
		tc_json_array_push(dirs, tc_json_new_string(ss[i].dir));
	order = interleave_order(n, sides[0].runs);
	for (i = 0; i < n; i++) {
		ss[i].log = log;
		ss[i].role = roles[i];
		/* A's partner is B; every other side's is A */
		ss[i].partner = ss[i == 0 ? 1 : 0].dir;
		ss[i].sides = dirs;
		ss[i].order = order;
	}
	/* warm-ups alternate too, so each side's first timed run follows
	 * the same history */
	for (long k = 1; k <= sides[0].warmup_runs; k++)
		for (i = 0; i < n; i++)
			if ((rc = run_warmup(&ss[i], k, ss[i].warmups, log,
			    err)) != 0)
				goto out;
	for (long k = 1; k <= sides[0].runs; k++)
		for (i = 0; i < n; i++)
			if ((rc = run_one(&ss[i], k, log, err)) != 0)
				goto out;
	for (i = 0; i < n; i++) {
		bool ok = false;

		if ((rc = session_finish(&ss[i], &ok, err)) != 0)
			goto out;
		all_ok = all_ok && ok;
	}
	if (!all_ok) {
		tc_error_set(err, "not every run succeeded (see %s/runset.json "
		    "and its partners' runset.json)", ss[0].dir);
		rc = TC_BENCH_FAIL;
	}
out:
	for (i = 0; i < opened; i++)
		session_close(&ss[i]);
	free(ss);
	free(order);
	tc_json_free(dirs);
	return rc;
}

int
tc_bench_ab(const tc_bench_run_opts *a, const tc_bench_run_opts *b,
    tc_buf *log, tc_error *err)
{
	tc_bench_run_opts sides[2];

	sides[0] = *a;
	sides[1] = *b;
	return tc_bench_interleave(sides, 2, log, err);
}
