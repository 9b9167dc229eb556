/*
 * bench_internal.h - helpers shared by the files of src/bench/ (not part
 * of the public API).
 */
#ifndef TUNECTL_BENCH_INTERNAL_H
#define TUNECTL_BENCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tunectl/bench.h"
#include "tunectl/fileio.h"

/* pathlib's str(Path(dir) / name). malloc'd. */
char *tc_bench_join(const char *dir, const char *name);
/* "[Errno N] strerror: 'path'" */
void tc_bench_oserror(tc_error *err, int errnum, const char *path);
/* Sorted run-* directories (paths) of dir; NULL and 0 when none. */
char **tc_bench_list_runs(const char *dir, size_t *count);
void tc_bench_free_list(char **list, size_t n);
/* The rank logs of a run directory sorted by (rank, path), as the
 * reference lists them; NULL + err only for an oversized rank number. */
char **tc_bench_rank_logs(const char *run_dir, size_t *count, tc_error *err);
/* Timing lines (decode and prefill) the reference regex finds. */
size_t tc_bench_count_samples(const char *buf, size_t len);
/* Whole file, NUL-terminated; errors in Python's OSError form. */
char *tc_bench_read_all(const char *path, size_t *len, tc_error *err);
/* A "[0-9.]+" numeral: false when Decimal() would reject it. */
bool tc_bench_numeral(const char *s, size_t len, double *value,
    uint64_t *coef, int32_t *frac, bool *slow);
/* [1, 5, 15] minute load averages, or null. */
tc_json *tc_bench_load_average(void);
/* DIR/runset.json: NULL when absent; NULL + *error when unreadable. */
tc_json *tc_bench_load_manifest(const char *dir, char **error);

/* "sha256:" and the digest of a frozen matrix's canonical JSON: its
 * content_fingerprint (option_matrix.c; the screening matrix's too).
 * malloc'd; NULL + err when doc cannot be written. */
char *tc_bench__content_fingerprint(const tc_json *doc, tc_error *err);

/* {"valid": true, "required": false, "status": "not_required",
 *  "failure_reason": null} */
tc_json *tc_replay_not_required(void);
/* The Evaluation object of one mode (docs/spec/gates.md "Candidate evaluation"
 * "Mode post-processing"); takes ownership of replay (final promotion only;
 * NULL: not required). */
tc_json *tc_evaluation_to_json(const tc_evaluation *e,
    const tc_gate_policy *policy, tc_gate_mode mode,
    const char *promotion_mode, tc_json *replay);

/* Selection and ranking (docs/spec/gates.md "Selection and ranking") and the
 * stdout table (docs/spec/gates.md "Stdout table"). */
typedef struct tc_sel_input {
	tc_gate_mode mode;
	size_t ncandidates;
	const char **names;		/* --candidate order */
	double *metric;			/* worst_rank_mean_ms */
	bool *passed;			/* the mode's decision */
} tc_sel_input;

typedef struct tc_sel_table_input {
	const tc_runset *baseline;
	const tc_stability *stability;
	const tc_sel_input *sel;
	const tc_runset **runsets;
	double *improvement;
} tc_sel_table_input;

tc_json *tc_selection_json(const tc_sel_input *in);
void tc_selection_table(const tc_sel_table_input *t, tc_buf *out);

/* float JSON node, or null */
tc_json *tc_bench_float_or_null(bool has, double v);

/* A Stats block without its samples (report_json.c): count, mean, p50,
 * p90, stddev, min and max, in milliseconds. */
tc_json *tc_bench__stats_json(const tc_stats *s);

#endif
