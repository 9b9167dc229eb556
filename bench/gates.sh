#!/usr/bin/env bash
# gates.sh - how fast the measurement gates are, and what "bench run"
# costs per run.  Prints numbers; asserts nothing.
#
#   1. gate time for a run set of RUNS runs x RANKS ranks x SAMPLES decode
#      samples (default 1000 x 8 x 1000 = 8M samples, about 300 MB of
#      rank logs): the in-process gate computation on loaded samples
#      (stats, S0, promotion, bootstrap, Mann-Whitney), the log reading,
#      and the whole "tunectl gate analyze" command (best of REPEAT);
#   2. the overhead "bench run" adds per run over launching the same
#      command directly (N_RUNS launches of /bin/true each way).
#
# Environment: BUILD (default build), RUNS, RANKS, SAMPLES, REPEAT, N_RUNS,
# KEEP=1 keeps the generated run set.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TUNECTL="$PWD/$BUILD/tunectl"
RUNS=${RUNS:-1000}
RANKS=${RANKS:-8}
SAMPLES=${SAMPLES:-1000}
REPEAT=${REPEAT:-3}
N_RUNS=${N_RUNS:-200}
[ -x "$TUNECTL" ] || { echo "build tunectl first (make BUILD=$BUILD)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-gates.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

now_ns() { date +%s%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
# cpu_ms CMD...: user+sys CPU time of CMD in ms (wall time on a loaded
# machine says little)
cpu_ms() {
	local TIMEFORMAT='%U %S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.1f", (a[1] + a[2]) * 1000 }'
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the run set: RANKS distinct logs, hard-linked into every run -------------
echo "generating $RUNS runs x $RANKS ranks x $SAMPLES samples in $WORK ..."
mkdir -p "$WORK/logs"
for r in $(seq 0 $((RANKS - 1))); do
	# SAMPLES + 8 lines: exactly SAMPLES decode samples survive --warmup 8
	awk -v n="$((SAMPLES + 8))" -v r="$r" 'BEGIN {
		srand(r + 1)
		print "Inference time (prefill): 120.5 ms"
		for (i = 0; i < n; i++)
			printf "Inference time (decode): %.3f ms\n", 10 + r * 0.01 + rand()
	}' >"$WORK/logs/log_$r.log"
done
width=${#RUNS}
for k in $(seq 1 "$RUNS"); do
	d=$(printf "%s/big/run-%0${width}d" "$WORK" "$k")
	mkdir -p "$d"
	ln "$WORK"/logs/log_*.log "$d"/
done
BYTES=$(( RUNS * $(cat "$WORK"/logs/log_*.log | wc -c) ))
echo "rank-log bytes: $BYTES ($(awk -v b="$BYTES" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"

# ---- 1a. in-process: loading vs gating ------------------------------------------
cat >"$WORK/gatebench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tunectl/bench.h"
#include "bench_internal.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	tc_runset_opts o = TC_RUNSET_OPTS_INIT;
	tc_gate_policy p = TC_GATE_POLICY_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_runset *rs = NULL;
	double t0, t1, t2, t3, lo, hi;
	tc_stability st;
	tc_evaluation ev;
	tc_mwu m;
	tc_stats s;

	o.expected_ranks = atol(argv[2]);
	t0 = now();
	if (tc_runset_load(argv[1], &o, &rs, &err) != 0) {
		fprintf(stderr, "%s\n", tc_error_msg(&err));
		return 1;
	}
	t1 = now();
	/* the gate decisions on the loaded run set (candidate = the same
	 * set): S0, promotion, the bootstrap interval and Mann-Whitney */
	tc_stability_eval_runset(rs, &st);
	tc_evaluate(rs, rs, &p, TC_GATE_FINAL_PROMOTION, true, &ev);
	tc_bootstrap_improvement_ci(rs->run_worst_rank_means_ms, rs->run_count,
	    rs->run_worst_rank_means_ms, rs->run_count, TC_BOOTSTRAP_RESAMPLES,
	    TC_BOOTSTRAP_SEED, &lo, &hi);
	tc_mann_whitney(rs->run_worst_rank_means_ms, rs->run_count,
	    rs->run_worst_rank_means_ms, rs->run_count, &m);
	t2 = now();
	/* for scale: every pooled statistic recomputed from all samples */
	tc_stats_compute(rs->samples, rs->decode.count, &s);
	t3 = now();
	printf("samples: %zu\n", rs->decode.count);
	printf("load + summarise (read logs, parse, exact per-rank/run/set stats): %.1f ms",
	    t1 - t0);
	if (argc > 3)
		printf(", %.2f GB/s of rank logs", atof(argv[3]) / 1e6 / (t1 - t0));
	printf("\n");
	printf("gate decisions on the loaded run sets (S0, promotion, bootstrap x%d, Mann-Whitney): %.1f ms\n",
	    TC_BOOTSTRAP_RESAMPLES, t2 - t1);
	printf("pooled statistics recomputed over all %zu samples (exact mean, pstdev, p50, p90): %.1f ms\n",
	    rs->decode.count, t3 - t2);
	/* the scanner alone, from memory: each distinct log (argv[5...])
	 * scanned as many times as the run set holds it (argv[4]) */
	if (argc > 5) {
		int nlogs = argc - 5, reps = atoi(argv[4]);
		char **bufs = calloc((size_t)nlogs, sizeof(*bufs));
		size_t *lens = calloc((size_t)nlogs, sizeof(*lens)), found = 0;
		double bytes = 0, s0, s1;

		for (int i = 0; i < nlogs; i++)
			if ((bufs[i] = tc_bench_read_all(argv[5 + i], &lens[i],
			    &err)) == NULL)
				return 1;
		s0 = now();
		for (int r = 0; r < reps; r++)
			for (int i = 0; i < nlogs; i++) {
				found += tc_bench_count_samples(bufs[i], lens[i]);
				bytes += (double)lens[i];
			}
		s1 = now();
		printf("scanning alone (find timing lines, convert numerals; logs in memory): "
		    "%.1f ms for %zu lines, %.2f GB/s\n", s1 - s0, found,
		    bytes / 1e6 / (s1 - s0));
		for (int i = 0; i < nlogs; i++)
			free(bufs[i]);
		free(bufs);
		free(lens);
	}
	tc_stability_free(&st);
	tc_runset_free(rs);
	return 0;
}
EOF
cc -std=c17 -O2 -D_GNU_SOURCE -Iinclude -Isrc/bench -o "$WORK/gatebench" "$WORK/gatebench.c" \
	"$BUILD/libtunectl.a" -lcrypto -lyaml -lgmp -lm
"$WORK/gatebench" "$WORK/big" "$RANKS" "$BYTES" "$RUNS" "$WORK"/logs/log_*.log

# ---- 1b. the whole command, against cat of the same bytes (interleaved) ---------
median() {
	tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 }
	    END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
tg="" tc=""
for _ in $(seq "$REPEAT"); do
	t0=${EPOCHREALTIME/./}
	cat "$WORK"/big/run-*/log_*.log >/dev/null
	t1=${EPOCHREALTIME/./}
	"$TUNECTL" gate analyze --baseline "$WORK/big" --expected-ranks "$RANKS" >/dev/null
	t2=${EPOCHREALTIME/./}
	tc="$tc $((t1 - t0))" tg="$tg $((t2 - t1))"
done
mc=$(echo "$tc" | median) mg=$(echo "$tg" | median)
awk -v c="$mc" -v g="$mg" -v b="$BYTES" -v r="$REPEAT" -v what="$RUNS x $RANKS x $SAMPLES" 'BEGIN {
	printf "tunectl gate analyze (S0 only, %s), median of %d: %.1f ms wall, %.2f GB/s\n", what, r, g / 1e3, b / 1e3 / g
	printf "  cat of the same rank logs (floor): %.1f ms, %.2f GB/s; ratio %.2fx\n", c / 1e3, b / 1e3 / c, g / c
}'
echo "  CPU of one gate analyze: $(cpu_ms "$TUNECTL" gate analyze --baseline "$WORK/big" --expected-ranks "$RANKS") ms"
best=""
for _ in $(seq "$REPEAT"); do
	t0=$(now_ns)
	"$TUNECTL" gate analyze --baseline "$WORK/big" --candidate S1="$WORK/big" \
		--promotion-mode S1=whole_scope --expected-ranks "$RANKS" >/dev/null
	t1=$(now_ns)
	t=$(ms "$t0" "$t1")
	if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
done
echo "tunectl gate analyze (baseline + 1 candidate, both $RUNS x $RANKS x $SAMPLES), best of $REPEAT: $best ms wall"

# ---- 2. bench run overhead per run ----------------------------------------------
t0=$(now_ns)
for _ in $(seq "$N_RUNS"); do /bin/true; done
t1=$(now_ns)
direct=$(ms "$t0" "$t1")
t0=$(now_ns)
"$TUNECTL" bench run --runs "$N_RUNS" --out "$WORK/overhead" -- /bin/true >/dev/null 2>&1
t1=$(now_ns)
viabench=$(ms "$t0" "$t1")
echo "launch /bin/true $N_RUNS times directly (bash loop): $direct ms wall"
echo "tunectl bench run --runs $N_RUNS -- /bin/true: $viabench ms wall"
loop_cpu=$(cpu_ms bash -c "for i in \$(seq $N_RUNS); do /bin/true; done")
rm -rf "$WORK/overhead2"
bench_cpu=$(cpu_ms "$TUNECTL" bench run --runs "$N_RUNS" --out "$WORK/overhead2" -- /bin/true)
awk -v d="$loop_cpu" -v b="$bench_cpu" -v n="$N_RUNS" 'BEGIN {
	printf "CPU: %.3f ms per run via bench run, %.3f ms direct: overhead %.3f ms CPU per run\n",
	    b / n, d / n, (b - d) / n }'
awk -v d="$direct" -v b="$viabench" -v n="$N_RUNS" 'BEGIN {
	printf "bench run overhead per run: %.3f ms (%.3f ms per run via bench run, %.3f ms direct)\n",
	    (b - d) / n, b / n, d / n }'
