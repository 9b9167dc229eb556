#!/usr/bin/env bash
# test_gate_decide.sh - the gate's decision policy beyond the reference
# (docs/measurement.md "Deciding by the interval"): --decide-by ci and
# --stability relative on synthetic run sets (a noisy +40 % win, a +2 %
# difference inside the noise, a regression, a baseline spread wide) and the report's and provenance's record of the
# rule (recomputing from it: tests/unit/test_session_evidence.c).
. "$(dirname "$0")/lib.sh"
W="$TUNECTL_SRC/tests/fixtures/workloads/timed_workload.sh"
cd "$T"

mk() {	# mk NAME RUNS VALUES... (one decode sample per run after warm-up)
	local name=$1 runs=$2
	shift 2
	"$TUNECTL_BIN" bench run --runs "$runs" --out "$name" -- "$W" "$@" >/dev/null 2>&1 ||
		echo "# bench run $name failed" >&2
}
jf() {	# jf FILE EXPR: EXPR over the JSON document d of FILE
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
mk base 5 10.0 10.1 10.2 10.3 10.4
mk win 5 5.0 6.5 5.5 7.0 6.0		# +41 %, five times the baseline's spread
mk wide 5 9.95 10.0 10.2 10.4 10.45
mk noisy 3 9.75 10.0 10.15		# +2.29 % against wide, inside the noise
mk slow 5 11.0 11.2 11.1 11.3 10.9	# a 9 % regression
mk wild 5 8.0 10.0 12.0 9.0 11.0	# a baseline spread of 40 %
mk near 3 9.8 10.2 10.0			# no difference against wild
mk half 3 5.0 5.1 5.2			# +49 % against wild
P=(--expected-ranks 1 --promotion-mode S1=whole_scope)

# ---- a noisy +40 % win -----------------------------------------------------------
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --decide-by ci \
	--allow-stddev-regression-pct 1000 --json-out ci/win.json --require-pass
expect_rc 0 "--decide-by ci promotes a +41 % win whose interval clears the threshold"
check "the evaluation names the rule" \
	test "$(jf ci/win.json "d['candidates']['S1']['promotion']['decide_by']")" = ci
check "the interval's check replaces the mean's" \
	test "$(jf ci/win.json "sorted(k for k in d['candidates']['S1']['promotion']['checks'] if 'improvement' in k)")" = "['ci_improvement']"
check "the interval is written, lower bound above the 2 % threshold" \
	test "$(jf ci/win.json "(lambda c: c[0] >= 2 and c[1] > c[0])(d['candidates']['S1']['promotion']['ci95_improvement_pct'])")" = True
check "and its threshold" \
	test "$(jf ci/win.json "d['candidates']['S1']['promotion']['min_improvement_pct']")" = 2.0
check "the extension block says how the gate decided" \
	test "$(jf ci/win.json "d['tunectl']['decide_by']")" = ci
check "the provenance records it" \
	test "$(jf ci/win.json.provenance.json "d['decide_by']")" = ci
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --decide-by ci
expect_rc 0 "without a stddev allowance the gate still runs"
expect_out "False" "and the candidate's fivefold spread still refuses it by default"

# ---- a +2 % difference inside the noise ----------------------------------------------
tc gate analyze --baseline wide --candidate S1=noisy "${P[@]}" --require-pass
expect_rc 0 "the reference rule promotes +2.29 % on the mean"
tc gate analyze --baseline wide --candidate S1=noisy "${P[@]}" --decide-by ci \
	--json-out ci/noise.json --require-pass
expect_rc 1 "--decide-by ci refuses it: the interval includes 0"
check "the refused check is the interval's" \
	test "$(jf ci/noise.json "d['candidates']['S1']['promotion']['checks']['ci_improvement']")" = False
check "the reference verdict stays on record" \
	test "$(jf ci/noise.json "d['tunectl']['significance']['reference_decisions']['S1']")" = True

# ---- a regression ------------------------------------------------------------------
tc gate analyze --baseline base --candidate S1=slow "${P[@]}" --decide-by ci \
	--allow-stddev-regression-pct 1000 --json-out ci/slow.json --require-pass
expect_rc 1 "--decide-by ci refuses a regression"
check "its interval lies below 0" \
	test "$(jf ci/slow.json "d['candidates']['S1']['promotion']['ci95_improvement_pct'][1] < 0")" = True

# ---- option trial: the lower bound must be > 0 ---------------------------------------
tc gate option-trial --baseline base --candidate O1=win --expected-ranks 1 --decide-by ci \
	--allow-stddev-regression-pct 1000 --json-out ci/trial.json --require-pass
expect_rc 0 "an option trial accepts a win whose interval is above 0"
check "with the strictly-positive rule" \
	grep -q '"decision_rule": "bootstrap 95% interval of the improvement excludes 0 and its lower bound is > 0"' ci/trial.json

# ---- --stability relative ---------------------------------------------------------
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --decide-by ci \
	--stability relative --json-out rel/win.json --require-pass
expect_rc 0 "--stability relative: the interval clearing 2 % outweighs the candidate's spread"
check "the stddev check is named as waived, its figure kept" \
	test "$(jf rel/win.json "(d['candidates']['S1']['promotion']['waived_by_interval'], d['candidates']['S1']['promotion']['stddev_regression_pct'] > 100)")" = "(['stddev_no_material_regression'], True)"
check "the rule is recorded in the report and its provenance" \
	test "$(jf rel/win.json "d['tunectl']['stability_rule']")$(jf rel/win.json.provenance.json "d['stability_rule']")" = relativerelative
tc gate analyze --baseline base --candidate S1=slow "${P[@]}" --decide-by ci \
	--stability relative --json-out rel/slow.json --require-pass
expect_rc 1 "--stability relative still refuses a regression"
check "and waives nothing for it" \
	test "$(jf rel/slow.json "d['candidates']['S1']['promotion']['waived_by_interval']")" = "[]"
tc gate analyze --baseline base --candidate S1=slow "${P[@]}" --stability relative --require-pass
expect_rc 1 "also under the mean rule"
tc gate analyze --baseline wild --candidate S1=near "${P[@]}" --decide-by ci \
	--stability relative --allow-stddev-regression-pct 1000 --json-out rel/wild.json --require-pass
expect_rc 1 "a wild baseline is still refused when the interval includes 0"
check "for its spread and for the interval" \
	test "$(jf rel/wild.json "(d['candidates']['S1']['promotion']['checks']['baseline_stable'], d['candidates']['S1']['promotion']['checks']['ci_improvement'])")" = "(False, False)"
tc gate analyze --baseline wild --candidate S1=half "${P[@]}" --decide-by ci --require-pass
expect_rc 1 "the reference stability rule refuses a +49 % win over a 40 % spread baseline"
tc gate analyze --baseline wild --candidate S1=half "${P[@]}" --decide-by ci \
	--stability relative --json-out rel/half.json --require-pass
expect_rc 0 "--stability relative accepts it: the interval clears the threshold"
check "naming the baseline's spread as waived" \
	test "$(jf rel/half.json "d['candidates']['S1']['promotion']['waived_by_interval'][0]")" = baseline_stable
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --stability loose
expect_rc 2 "an unknown --stability is a usage error"
expect_err "argument --stability: invalid choice: 'loose' (choose from 'reference', 'relative')" "naming the choices"

# ---- --max-spread-pct: the S0 limit -------------------------------------------------
tc gate stability --baseline wild --expected-ranks 1 --require-pass
expect_rc 1 "a 40 % spread is unstable under the reference's 5 %"
tc gate stability --baseline wild --expected-ranks 1 --max-spread-pct 45 --json-out s0/wild.json --require-pass
expect_rc 0 "and stable under --max-spread-pct 45"
check "the report carries the limit it judged against" \
	test "$(jf s0/wild.json "d['baseline_stability']['max_spread_pct']")" = 45.0
check "the provenance records it" \
	test "$(jf s0/wild.json.provenance.json "d['max_spread_pct']")" = 45.0
tc gate analyze --baseline wild --candidate S1=half "${P[@]}" --decide-by ci --max-spread-pct 45 --require-pass
expect_rc 0 "the candidates' baseline check follows the limit too"
tc gate stability --baseline wild --expected-ranks 1 --max-spread-pct 0
expect_rc 2 "a limit of 0 is refused"
expect_err "argument --max-spread-pct: must be above 0 and at most 100" "in words"

# ---- bad input and the default ---------------------------------------------------
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --decide-by median
expect_rc 2 "an unknown --decide-by is a usage error"
expect_err "argument --decide-by: invalid choice: 'median' (choose from 'mean', 'ci')" "naming the choices"
tc gate analyze --decide-by median --no-such-flag
expect_err "argument --decide-by: invalid choice: 'median' (choose from 'mean', 'ci')" \
    "an invalid choice is named first, as argparse checks choices while it reads"
check "before the missing --baseline and the unrecognized argument" \
    [ "${err/required: --baseline/}" = "$err" ] && [ "${err/unrecognized/}" = "$err" ]
tc gate promote --stability loose
expect_err "argument --stability: invalid choice: 'loose' (choose from 'reference', 'relative')" \
    "--stability likewise"
tc ledger final-e2e --decide-by median
expect_err "argument --decide-by: invalid choice: 'median' (choose from 'mean', 'ci')" \
    "ledger final-e2e names an invalid --decide-by before its missing options"
tc ledger final-e2e --stability loose
expect_err "argument --stability: invalid choice: 'loose' (choose from 'reference', 'relative')" \
    "and an invalid --stability"
tc gate analyze --baseline base --candidate S1=win "${P[@]}" --json-out ci/mean.json
check "by default the gate decides by the mean, as the reference does" \
	test "$(jf ci/mean.json "('mean_improvement' in d['candidates']['S1']['promotion']['checks'], d['tunectl']['decide_by'], 'waived_by_interval' in d['candidates']['S1']['promotion'])")" = "(True, 'mean', False)"
# ---- ledger final-e2e: the final record follows the gate's rule -----------------------
fe() {	# fe NAME BASE CAND [FLAGS...]: the classification ledger final-e2e computes
	local name=$1 base=$2 cand=$3
	shift 3
	echo '{"schema_version": 2, "experiments": {}}' > "fe-$name.json"
	"$TUNECTL_BIN" ledger final-e2e --ledger "fe-$name.json" --candidate-id S1 \
		--scope-strategy x --reason-zh x --option-config opt.json --baseline "$base" \
		--candidate "$cand" --expected-ranks 1 "$@" >/dev/null 2>&1 || echo "# final-e2e $name failed" >&2
	jf "fe-$name.json" "d['final_e2e']['classification']"
}
echo '{}' > opt.json
expect_eq "$(fe mean wide noisy)" beneficial "final-e2e: the mean rule counts +2.29 % inside the noise"
expect_eq "$(fe ci wide noisy --decide-by ci)" no_gain "final-e2e --decide-by ci does not, as the gate"
check "its provenance records the rule" \
	test "$(jf fe-ci.json.provenance.json "(d['decide_by'], d['stability_rule'], d['max_spread_pct'])")" = "('ci', 'reference', 5.0)"
expect_eq "$(fe ref base win --decide-by ci)" no_gain "final-e2e: the fivefold spread refuses the +41 % win"
expect_eq "$(fe rel base win --decide-by ci --stability relative)" beneficial \
	"final-e2e --stability relative accepts it, as the gate"
expect_eq "$(fe spread wild half --decide-by ci)" no_gain "final-e2e: a 40 % spread baseline is unstable at 5 %"
expect_eq "$(fe spread45 wild half --decide-by ci --max-spread-pct 45)" beneficial \
	"final-e2e --max-spread-pct 45 follows the limit"
tc ledger final-e2e --ledger fe-mean.json --replace --candidate-id S1 --scope-strategy x \
	--reason-zh x --option-config opt.json --baseline base --candidate win --decide-by median
expect_rc 2 "final-e2e: an unknown --decide-by is a usage error"

# ---- a figure better higher: the report and its record say the runs logged 1/value -------
hi() {	# hi NAME RATE: five runs printing "rate: RATE+k" (a throughput)
	"$TUNECTL_BIN" bench run --runs 5 --warmup-samples 0 --metric-regex 'rate: ([0-9.]+)' --metric-higher --out "$1" -- \
	    sh -c "echo rate: \$(( $2 + TUNECTL_RUN_INDEX ))" >/dev/null 2>&1 || echo "# bench run $1 failed" >&2
}
hi hbase 100
hi hwin 200
tc gate analyze --baseline hbase --candidate S1=hwin "${P[@]}" --warmup 0 --decide-by ci \
	--allow-stddev-regression-pct 1000 --json-out hi.json --require-pass
expect_rc 0 "a doubled throughput passes"
check "the extension block records the direction and what the runs logged" \
	test "$(jf hi.json "d['tunectl']['metric']")" = "{'direction': 'higher', 'logged': 'reciprocal'}"
check "so does the provenance record" \
	test "$(jf hi.json.provenance.json "d['metric']")" = "{'direction': 'higher', 'logged': 'reciprocal'}"
check "a report of plain figures records nothing of the kind" \
	test "$(jf ci/win.json "('metric' in d['tunectl'], 'metric' in json.load(open('ci/win.json.provenance.json')))")" = "(False, False)"


# ---- interleaved run sets: the interval pairs the runs of each round ---------------
# Rounds that drift together (a neighbour comes and goes): the candidate is
# 10 % faster in every round, but the rounds differ by 40 %.  Resampled on
# their own the two run sets overlap; paired by round (bench ab took run k
# of each side side by side) the interval is the per-round gain's.
"$TUNECTL_BIN" bench ab --runs 5 --out-a pa --out-b pb -- "$W" 10 14 10 14 12 --- "$W" 9 12.6 9 12.6 10.8 \
	>/dev/null 2>&1 || echo "# bench ab pa/pb failed" >&2
"$TUNECTL_BIN" bench ab --runs 5 --out-a ra --out-b rb -- "$W" 10 14 10 14 12 --- "$W" 11 15.4 11 15.4 13.2 \
	>/dev/null 2>&1 || echo "# bench ab ra/rb failed" >&2
mk alone 5 9 12.6 9 12.6 10.8
D=(--expected-ranks 1 --decide-by ci --stability relative --max-spread-pct 50)
tc gate analyze --baseline pa --candidate S1=pb --promotion-mode S1=whole_scope "${D[@]}" \
	--json-out ci/paired.json --require-pass
expect_rc 0 "a candidate 10 % faster in every interleaved round is promoted"
expect_eq "$(jf ci/paired.json "(lambda e: (e['ci_resampling'], [round(x, 6) for x in e['ci95_improvement_pct']]))(d['candidates']['S1']['promotion'])")" \
	"('paired by round (interleaved runs)', [10.0, 10.0])" "the interval resamples rounds: every round gains 10 %"
expect_eq "$(jf ci/paired.json "d['tunectl']['statistics']['candidates']['S1']['bootstrap_resampling']")" "paired" \
	"the extension block says the runs were paired"
tc gate analyze --baseline pa --candidate S1=alone --promotion-mode S1=whole_scope "${D[@]}" \
	--json-out ci/unpaired.json --require-pass
expect_rc 1 "the same figures measured apart from the baseline are refused: the interval includes 0"
expect_eq "$(jf ci/unpaired.json "(lambda e: (e['ci_resampling'], e['ci95_improvement_pct'][0] < 0))(d['candidates']['S1']['promotion'])")" \
	"('independent run sets', True)" "a run set not measured beside the baseline is resampled on its own"
tc gate analyze --baseline ra --candidate S1=rb --promotion-mode S1=whole_scope "${D[@]}" \
	--allow-stddev-regression-pct 1000 --json-out ci/paired-slow.json --require-pass
expect_rc 1 "a candidate 10 % slower in every interleaved round is refused"
expect_eq "$(jf ci/paired-slow.json "(lambda e: ([round(x, 6) for x in e['ci95_improvement_pct']], e['waived_by_interval']))(d['candidates']['S1']['promotion'])")" \
	"([-10.0, -10.0], [])" "its paired interval lies below 0 and waives nothing"
# ledger final-e2e draws the interval the Final gate draws
printf '{}\n' >ci/options.json
for cand in pb alone; do
	printf '{"schema_version": 2, "experiments": {}}\n' >ci/ledger-$cand.json
	tc ledger final-e2e --ledger ci/ledger-$cand.json --replace --candidate-id S1 --scope-strategy x \
		--reason-zh r --option-config ci/options.json --baseline pa --candidate $cand --warmup 0 \
		--expected-ranks 1 --decide-by ci --stability relative --max-spread-pct 50
	expect_rc 0 "ledger final-e2e settles the Final against $cand"
done
expect_eq "$(jf ci/ledger-pb.json "d['final_e2e']['classification']")" beneficial \
	"ledger final-e2e pairs the interleaved runs too: beneficial"
expect_eq "$(jf ci/ledger-alone.json "d['final_e2e']['classification']")" no_gain \
	"and the run set measured apart is no_gain, as its gate says"

finish
