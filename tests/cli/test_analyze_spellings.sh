#!/usr/bin/env bash
# test_analyze_spellings.sh - one structural capture, its SK-off times
# written three ways: as the profiler wrote them, with 20 more zero
# decimals (digits past what the fast paths of the projection hold, so
# they take the exact decimal path) and in exponent notation.  The
# values are the same, so the verdicts must be: every SK's
# classification, action, binding status, child count and mapping, and
# the mapping coverage.  (A plain time too long for the fast path once
# took a stale value and blocked every mapping.)
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

# The bench's generator: 3 SKs of 3 children over 6 steps, kept.
KEEP=1 SKS=3 MODE=exact TUNECTL=$TUNECTL_BIN timeout 60 \
    "$TUNECTL_SRC/bench/analysis.sh" 54 > bench.out 2> bench.err
W=$(sed -n 's/^analysis\.sh: keeping //p' bench.err)
check "the bench generated a structural capture" \
	test -n "$W" -a -f "$W/n54/cap_b/kernel_details.csv"
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T" "$W"' EXIT
D=$W/n54

# respell SRC DST HOW: SRC's kernel_details.csv with its start and
# duration cells written as HOW says (long or exp) into DST.
respell() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
src, dst, how = sys.argv[1:4]
rows = list(csv.reader(open(src, newline="")))
head = rows[0]
cols = [head.index("Start Time(us)"), head.index("Duration(us)")]
def spell(v):
    if how == "long":
        return v + ("" if "." in v else ".") + "0" * 20
    digits = v.replace(".", "")
    point = v.index(".") if "." in v else len(v)
    return "%s.%sE+%d" % (digits[0], digits[1:] or "0", point - 1)
for r in rows[1:]:
    for c in cols:
        r[c] = spell(r[c])
w = csv.writer(open(dst, "w", newline=""), lineterminator="\n")
w.writerows(rows)
PY
}

# capture HOW: the SK-off collection root again, its profile respelled,
# opened and finalized as the bench does.
capture() {
	local root=$T/cap_b_$1 a b
	"$TUNECTL_BIN" analyze collection begin --role baseline_profile \
	    --root "$root" --session-out "$root.session" > /dev/null
	a=$(date +%s%N)
	respell "$D/cap_b/kernel_details.csv" "$root/kernel_details.csv" "$1"
	cp "$D/cap_b/task_time.csv" "$D/cap_b/trace_view.json" "$root/"
	b=$(date +%s%N)
	"$TUNECTL_BIN" analyze collection finalize --session "$root.session" \
	    --source-revision r1 --native-pid $$ --started-ns "$a" \
	    --ended-ns "$b" --command-fingerprint "$(printf 'b %s' $$ |
	    sha256sum | cut -d' ' -f1)" --workload "$W/in/wl.json" \
	    --config "$W/in/acfg.json" --control "$W/in/actl.json" \
	    --file kernel_details=kernel_details.csv \
	    --file task_time=task_time.csv --file trace_view=trace_view.json \
	    --out "$root/collection-manifest.json" > /dev/null
}

# analyze ROOT OUT: the analysis of the SK-off profile in ROOT.
analyze() {
	tc analyze fusion --baseline-profile "$1/kernel_details.csv" \
	    --candidate-profile "$D/cap_c/kernel_details.csv" \
	    --baseline-config "$W/in/base.json" \
	    --candidate-config "$W/in/cand.json" \
	    --baseline-workload "$W/in/wl.json" \
	    --candidate-workload "$W/in/wl.json" \
	    --declared-change-set "$W/in/dcs.json" --candidate-name B \
	    --experiment-id bench --round-id B-BASE --analysis-agent-id bench \
	    --source-revision r1 --sk-meta "$W/in/sk_meta_x" \
	    --baseline-collection-manifest "$1/collection-manifest.json" \
	    --profile-collection-manifest "$D/cap_c/collection-manifest.json" \
	    --json-out "$T/$2/analysis.json" --markdown-out "$T/$2/report.md"
}

# verdicts DOC: what the respelling must not change, one line per SK.
verdicts() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["per_sk_decisions"]:
    print(s["raw_sk_id"], s["classification"], s["action"],
          s["candidate_binding_status"], s["child_count"],
          s["mapping_confidence"])
print(json.dumps(d["mapping_coverage"], sort_keys=True))
PY
}

analyze "$D/cap_b" plain
expect_rc 0 "the profile as written is analysed"
verdicts "$T/plain/analysis.json" > plain.txt
check "as written, every SK is bound on the projected trace" \
	test "$(grep -c ' bound 3 exact_projected_trace$' plain.txt)" = 3
check "and the verdicts are decisive (beneficial, neutral, regressed)" \
	grep -q ' beneficial keep ' plain.txt

for how in long exp; do
	capture "$how"
	check "the $how spelling is finalized" \
	    test -s "$T/cap_b_$how/collection-manifest.json"
	analyze "$T/cap_b_$how" "$how"
	expect_rc 0 "the $how spelling is analysed"
	verdicts "$T/$how/analysis.json" > "$how.txt"
	check "the $how spelling gives the same verdicts and coverage" \
	    diff -u plain.txt "$how.txt"
done
finish
