/*
 * cmd_bench.c - "tunectl bench run" (N clean runs of a workload into a
 * run set) and "tunectl bench ab" (interleaved A/B run sets).  Progress
 * goes to stderr; the written runset.json documents go to stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/bench.h"

#define COMMON_HELP \
	"\n  --runs N              independent clean processes (per side for ab)\n" \
	"  --ranks R             rank logs per run (default 1); with R > 1 the\n" \
	"                        workload writes log_<rank>.log into $TUNECTL_RUN_DIR\n" \
	"  --warmup-samples W    warmup used for the runset.json summary (default 8,\n" \
	"                        or 0 when the metric is the process wall time)\n" \
	"  --metric-regex RE     POSIX extended regex; group 1 (or the match) is a\n" \
	"                        sample in ms (default: the reference's\n" \
	"                        'Inference time (decode|prefill): X ms' lines)\n" \
	"  --metric-stream stdout|stderr\n" \
	"                        where --metric-regex looks (default stdout; stderr:\n" \
	"                        one rank, and a run it matches nothing in fails)\n" \
	"  --metric-file FILE --metric-pointer PTR\n" \
	"                        the run writes the JSON file FILE (relative to\n" \
	"                        $TUNECTL_RUN_DIR); the number or array of numbers\n" \
	"                        at the RFC 6901 pointer PTR is its samples in ms\n" \
	"                        (one rank; a missing file or pointer fails the run)\n" \
	"  --metric-higher       the figure --metric-regex or --metric-file reads is\n" \
	"                        better higher (a throughput): each sample is logged\n" \
	"                        as its reciprocal 1/value, which the gates compare\n" \
	"                        (lower is better); runset.json records\n" \
	"                        metric.direction higher, metric.logged reciprocal\n" \
	"  --timeout-seconds T   end a run's process group after T seconds\n" \
	"\nEach run K gets RUNSET/run-K/ with stdout.log, stderr.log and the rank logs\n" \
	"log_<rank>.log in the reference layout; a workload that logs no timing is\n" \
	"measured by its wall time.  runset.json (summary, exit codes, environment\n" \
	"fingerprint) is written last.  Exit 0 when every run succeeded, 1 otherwise,\n" \
	"2 for usage errors.  Gate the result with 'tunectl gate analyze'.\n"

static int
print_manifest(const char *dir)
{
	char *path = tc_xasprintf("%s/runset.json", dir);
	tc_error err = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse_file(path, &err);

	free(path);
	if (doc == NULL && strncmp(tc_error_msg(&err), "[Errno 2]", 9) == 0) {
		tc_error_clear(&err);
		return TC_EXIT_FAIL;	/* the run set is incomplete */
	}
	return tc_cli_reply_or_die(doc, &err);
}

static int
finish(const struct tc_command *cmd, int rc, tc_buf *log, tc_error *err,
    const char *const *dirs, size_t ndirs)
{
	if (log->len > 0)
		fputs(log->data, stderr);
	if (rc == TC_BENCH_VALUE_ERROR) {
		rc = tc_usage_error(cmd, "%s", tc_error_msg(err));
		return rc;
	}
	for (size_t i = 0; i < ndirs; i++)
		if (print_manifest(dirs[i]) != 0 && rc == 0)
			rc = TC_EXIT_FAIL;
	if (rc != 0)
		fprintf(stderr, "tunectl: %s\n", tc_error_msg(err));
	return rc != 0 ? TC_EXIT_FAIL : TC_EXIT_OK;
}

static int
bench_run(const struct tc_command *cmd, int argc, char **argv)
{
	long runs = 0, ranks = 1, warmup = -1, warmup_runs = 0;
	double timeout = 0;
	const char *out = NULL, *regex = NULL, *stream = NULL, *mfile = NULL;
	const char *mpointer = NULL;
	bool higher = false;
	struct tc_option opts[] = {
		{ "--runs", TC_OPT_INT, &runs, true, NULL },
		{ "--out", TC_OPT_STRING, &out, true, NULL },
		{ "--ranks", TC_OPT_INT, &ranks, false, NULL },
		{ "--warmup-samples", TC_OPT_INT, &warmup, false, NULL },
		{ "--warmup-runs", TC_OPT_INT, &warmup_runs, false, NULL },
		{ "--metric-regex", TC_OPT_STRING, &regex, false, NULL },
		{ "--metric-stream", TC_OPT_STRING, &stream, false, NULL },
		{ "--metric-file", TC_OPT_STRING, &mfile, false, NULL },
		{ "--metric-pointer", TC_OPT_STRING, &mpointer, false, NULL },
		{ "--metric-higher", TC_OPT_FLAG, &higher, false, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_bench_run_opts o;
	tc_buf log = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	char **cmdv;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	if (!pr.saw_dashdash || pr.dashdash_index != 0 ||
	    pr.positional.len == 0) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "give the workload after --");
	}
	if (warmup < -1) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "--warmup-samples must be >= 0");
	}
	if (stream != NULL && strcmp(stream, "stdout") != 0 &&
	    strcmp(stream, "stderr") != 0) {
		tc_parse_result_free(&pr);
		return tc_usage_error(cmd, "argument --metric-stream: invalid "
		    "choice: '%s' (choose from 'stdout', 'stderr')", stream);
	}
	cmdv = tc_xcalloc(pr.positional.len + 1, sizeof(*cmdv));
	for (size_t i = 0; i < pr.positional.len; i++)
		cmdv[i] = (char *)pr.positional.items[i];
	memset(&o, 0, sizeof(o));
	o.runs = runs;
	o.ranks = ranks;
	o.warmup_samples = warmup;
	o.warmup_runs = warmup_runs;
	o.metric_regex = regex;
	o.metric_stderr = stream != NULL && strcmp(stream, "stderr") == 0;
	o.metric_file = mfile;
	o.metric_pointer = mpointer;
	o.metric_higher = higher;
	o.timeout_s = timeout;
	o.argv = cmdv;
	o.out_dir = out;
	rc = tc_bench_run(&o, &log, &err);
	rc = finish(cmd, rc, &log, &err, &out, rc == TC_BENCH_VALUE_ERROR ?
	    0 : 1);
	free(cmdv);
	tc_parse_result_free(&pr);
	tc_buf_free(&log);
	tc_error_clear(&err);
	return rc;
}

/* The workloads after --, split at each ---: group k's words start at
 * items[starts[k]], ended by the NULL put in place of the --- after it.
 * The number of groups; an empty group starts at a NULL. */
static size_t
split_groups(char **items, size_t n, size_t **starts)
{
	size_t ngroups = 1;

	*starts = tc_xcalloc(n + 1, sizeof(**starts));
	for (size_t i = 0; i < n; i++)
		if (strcmp(items[i], "---") == 0) {
			items[i] = NULL;
			(*starts)[ngroups++] = i + 1;
		}
	return ngroups;
}

static int
bench_ab(const struct tc_command *cmd, int argc, char **argv)
{
	long runs = 0, ranks = 1, warmup = -1, warmup_runs = 0;
	double timeout = 0;
	const char *out_a = NULL, *regex = NULL, *stream = NULL;
	const char *mfile = NULL, *mpointer = NULL;
	struct tc_strlist out_b = { 0 };
	bool higher = false;
	struct tc_option opts[] = {
		{ "--runs", TC_OPT_INT, &runs, true, NULL },
		{ "--out-a", TC_OPT_STRING, &out_a, true, NULL },
		{ "--out-b", TC_OPT_LIST, &out_b, true, NULL },
		{ "--ranks", TC_OPT_INT, &ranks, false, NULL },
		{ "--warmup-samples", TC_OPT_INT, &warmup, false, NULL },
		{ "--warmup-runs", TC_OPT_INT, &warmup_runs, false, NULL },
		{ "--metric-regex", TC_OPT_STRING, &regex, false, NULL },
		{ "--metric-stream", TC_OPT_STRING, &stream, false, NULL },
		{ "--metric-file", TC_OPT_STRING, &mfile, false, NULL },
		{ "--metric-pointer", TC_OPT_STRING, &mpointer, false, NULL },
		{ "--metric-higher", TC_OPT_FLAG, &higher, false, NULL },
		{ "--timeout-seconds", TC_OPT_DOUBLE, &timeout, false, NULL },
		{ NULL, 0, NULL, false, NULL }
	};
	struct tc_parse_result pr;
	tc_bench_run_opts *sides = NULL;
	tc_buf log = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	char **items = NULL;
	size_t *starts = NULL;
	const char **dirs = NULL;
	size_t n, ngroups, i;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &pr);
	if (rc != 0)
		return rc < 0 ? TC_EXIT_OK : rc;
	n = pr.positional.len;
	if (!pr.saw_dashdash || pr.dashdash_index != 0 || n == 0) {
		rc = tc_usage_error(cmd, "give the workloads as -- A... "
		    "--- B...");
		goto out;
	}
	items = tc_xcalloc(n + 1, sizeof(*items));
	for (i = 0; i < n; i++)
		items[i] = (char *)pr.positional.items[i];
	ngroups = split_groups(items, n, &starts);
	for (i = 0; i < ngroups; i++)
		if (items[starts[i]] == NULL || ngroups < 2) {
			rc = tc_usage_error(cmd, "give the workloads as -- "
			    "A... --- B...");
			goto out;
		}
	if (ngroups - 1 != out_b.len) {
		rc = tc_usage_error(cmd, "give one --out-b per workload after "
		    "---: %zu --out-b for %zu", out_b.len, ngroups - 1);
		goto out;
	}
	if (warmup < -1) {
		rc = tc_usage_error(cmd, "--warmup-samples must be >= 0");
		goto out;
	}
	if (stream != NULL && strcmp(stream, "stdout") != 0 &&
	    strcmp(stream, "stderr") != 0) {
		rc = tc_usage_error(cmd, "argument --metric-stream: invalid "
		    "choice: '%s' (choose from 'stdout', 'stderr')", stream);
		goto out;
	}
	sides = tc_xcalloc(ngroups, sizeof(*sides));
	dirs = tc_xcalloc(ngroups, sizeof(*dirs));
	for (i = 0; i < ngroups; i++) {
		tc_bench_run_opts *o = &sides[i];

		o->runs = runs;
		o->ranks = ranks;
		o->warmup_samples = warmup;
		o->warmup_runs = warmup_runs;
		o->metric_regex = regex;
		o->metric_stderr = stream != NULL &&
		    strcmp(stream, "stderr") == 0;
		o->metric_file = mfile;
		o->metric_pointer = mpointer;
		o->metric_higher = higher;
		o->timeout_s = timeout;
		/* each group is NULL-terminated where its --- was */
		o->argv = &items[starts[i]];
		o->out_dir = i == 0 ? out_a : out_b.items[i - 1];
		dirs[i] = o->out_dir;
	}
	rc = tc_bench_interleave(sides, ngroups, &log, &err);
	rc = finish(cmd, rc, &log, &err, dirs, rc == TC_BENCH_VALUE_ERROR ?
	    0 : ngroups);
out:
	free(sides);
	free(dirs);
	free(items);
	free(starts);
	tc_strlist_free(&out_b);
	tc_parse_result_free(&pr);
	tc_buf_free(&log);
	tc_error_clear(&err);
	return rc;
}

static const struct tc_command bench_run_entry = {
	.name = "bench run",
	.summary = "N clean runs of a workload",
	.usage = "usage: tunectl bench run --runs N --out RUNSET_DIR [--ranks R] [--warmup-samples W]\n"
	    "                         [--warmup-runs K] [--metric-regex RE] [--metric-stream stdout|stderr]\n"
	    "                         [--metric-file FILE --metric-pointer PTR] [--metric-higher]\n"
	    "                         [--timeout-seconds T]\n"
	    "                         -- CMD [ARGS...]\n"
	    "\n  --warmup-runs K       run K discarded processes first (RUNSET/warmup-K,\n"
	    "                        never read by a gate; default 0)" COMMON_HELP,
	.run = bench_run,
};

static const struct tc_command bench_ab_entry = {
	.name = "bench ab",
	.summary = "interleaved A/B runs",
	.usage = "usage: tunectl bench ab --runs N --out-a DIR --out-b DIR [--out-b DIR ...] [--ranks R]\n"
	    "                        [--warmup-samples W] [--warmup-runs K] [--metric-regex RE]\n"
	    "                        [--timeout-seconds T]\n"
	    "                        -- A_CMD [ARGS...] --- B_CMD [ARGS...] [--- C_CMD [ARGS...] ...]\n"
	    "\nRuns A1 B1 A2 B2 ... so that slow drift of the machine, or a neighbour that\n"
	    "starts halfway, affects both sides alike, writing ordinary run sets (compare\n"
	    "them with 'tunectl gate analyze --baseline A --candidate B=B ...').  Each\n"
	    "further --- workload is one more side, written to the next --out-b (B, C,\n"
	    "...), and takes its turn in every round: A1 B1 C1 A2 B2 C2 ...\n"
	    "\n  --warmup-runs K       K discarded processes per side first, in the same\n"
	    "                        turns (RUNSET/warmup-K; default 0)\n"
	    "\nEach runset.json records the interleaving: its role (A, B, ...), every\n"
	    "side's run set and the order the timed runs were taken in (\"A B A B\").\n" COMMON_HELP,
	.run = bench_ab,
};

static const struct tc_command *const bench_subs[] = {
	&bench_run_entry, &bench_ab_entry, NULL
};

const struct tc_command cmd_bench_entry = {
	.name = "bench",
	.summary = "measure a workload: clean repeated runs and interleaved A/B run sets",
	.usage = "usage: tunectl bench run --runs N --out RUNSET_DIR [--ranks R] [--warmup-samples W]\n"
	    "                         [--metric-regex RE] [--timeout-seconds T] -- CMD [ARGS...]\n"
	    "       tunectl bench ab --runs N --out-a DIR --out-b DIR [same options] -- A... --- B...\n"
	    "Run 'tunectl bench SUBCOMMAND --help' for details.\n",
	.subs = bench_subs,
};
