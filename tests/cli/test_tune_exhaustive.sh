#!/usr/bin/env bash
# options.search exhaustive: Stage O tries every allowed point of the option
# space against O0 (the constraints applied, at most 256 trials) and keeps
# the best one its option-trial gate accepts, where one-at-a-time changes
# one parameter of the incumbent at a time.  A script workload with
# simulated timings whose best point (a=2 b=2) is reached only by changing
# both parameters at once: each change alone is slower.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
mkdir ex
jf() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
cat > ex/exh.yaml <<'YAML'
version: 1
name: exh
run:
  command: >-
    awk -v v={variant} -v a={a} -v b={b} -v k="$TUNECTL_RUN_INDEX"
    'BEGIN {{ t = a == 2 && b == 2 ? 6 : a == 1 && b == 3 ? 9 : a == 1 && b == 1 ? 10 : 11;
    printf "elapsed %.3f ms\n", t * (v == "fast" ? 0.8 : 1) + 0.01 * (k % 2) }}'
  timeout: 5
metric: {from: stdout, regex: 'elapsed ([0-9.]+) ms', unit: ms, direction: lower}
variants: [{name: slow, params: {}}, {name: fast, params: {}}]
options:
  parameters: {a: [1, 2], b: [1, 2, 3]}
  constraints: [a + b <= 4]
  search: exhaustive
baseline: {variant: slow, params: {a: 1, b: 1}}
gate: {runs: 5, warmup_runs: 0, warmup_samples: 0}
YAML
tc tune --dry-run ex/exh.yaml
expect_rc 0 "the plan of an exhaustive search"
expect_out "4 trial(s) against O0 (every allowed point; the best accepted one wins)" \
	"every allowed point but the baseline's is a trial"

sed -e 's/search: exhaustive/search: one-at-a-time/' -e 's/^name: exh/name: oat/' ex/exh.yaml > ex/oat.yaml
tc tune ex/oat.yaml --session-dir s
expect_rc 0 "one-at-a-time: the session completes"
expect_err "for fast a=1 b=3" "and changing one parameter at a time stops at a=1 b=3"

tc tune ex/exh.yaml --session-dir s
expect_rc 0 "exhaustive: the session completes"
expect_err "final clean E2E: beneficial" "beneficial"
expect_err "for fast a=2 b=2" "the exhaustive search finds the best point, two changes away"
R=$(cd s/latest && pwd -P)
M="$R/stage-o/option-matrix.json"
expect_eq "$(jf "$M" "[(i['id'], i['value'], i['status']) for i in d['items'] if i['category'] == 'other_experimental']")" \
	"[('O1', {'a': 1, 'b': 2}, 'rejected'), ('O2', {'a': 1, 'b': 3}, 'rejected'), ('O3', {'a': 2, 'b': 1}, 'rejected'), ('O4', {'a': 2, 'b': 2}, 'accepted')]" \
	"one trial per allowed point, the whole point as its value (a=2 b=3 is outside the constraint)"
expect_eq "$(jf "$M" "d['search'], [i['pointer'] for i in d['items']][-1]")" "('exhaustive', '/params')" \
	"the matrix says how it searched; a trial's pointer is /params"
check "a point that passed its gate but was beaten says so" \
	grep -q "O4 improved more" "$M"
expect_eq "$(jf "$R/stage-o/O2-trial.json" "d['candidates']['O2']['option_trial_evaluation']['accepted']")" True \
	"(a=1 b=3 did pass its own gate)"
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "tunectl verify"
check "the session verifies" grep -q '"valid": true' <<< "$out"

# The cap: every trial is a series of runs.
cat > ex/big.yaml <<'YAML'
version: 1
name: big
run: {command: "echo t 5", timeout: 5}
metric: {from: stdout, regex: 't ([0-9.]+)', unit: ms, direction: lower}
variants: [{name: x, params: {}}, {name: y, params: {}}]
options:
  parameters: {a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], c: [1, 2, 3]}
  search: exhaustive
YAML
tc tune --dry-run ex/big.yaml
expect_rc 1 "an exhaustive search past the cap is refused"
expect_err "big.yaml:8: options.search exhaustive would make 299 option trials" "naming the line and the count"
expect_err "more than 256: narrow options.parameters, add constraints, or search one-at-a-time" "and what to do"
tc tune ex/big.yaml --session-dir s2
expect_rc 1 "so is a session"
check "before anything is written" test ! -e s2
finish
