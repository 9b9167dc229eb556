#!/usr/bin/env bash
# test_tune.sh - "tunectl tune": --dry-run prints the plan of the DGEMM
# example (examples/dgemm/tune.yaml) as text and as JSON; a bad spec is
# refused naming its file and line; tune refuses, in words, what it
# cannot do yet; and the example itself builds and
# passes its own correctness check with every variant's flags.
. "$(dirname "$0")/lib.sh"

SPEC=$TUNECTL_SRC/examples/dgemm/tune.yaml
jq_() { /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$out" "$1"; }

# ---- the plan, in words and as JSON ------------------------------------------
tc tune --dry-run "$SPEC"
expect_rc 0 "tune --dry-run on the DGEMM spec exits 0"
expect_out "plan for dgemm ($SPEC" "the plan names the spec"
expect_out "baseline: variant O2 block_i=32 block_k=64" "the baseline"
expect_out "Stage A screens 2 variant(s)" "Stage A screens the two other variants"
expect_out "native       screened  cflags=-O3 -march=native" "a variant and its flags"
expect_out "Stage O option space: 12 points, 11 allowed by 1 constraint(s); search one-at-a-time" \
    "the matrix after the constraints"
expect_out "5 trial(s) against the incumbent:" "the trials of Stage O"
expect_out "the matrix after the constraints:
    block_i=16 block_k=32" "the matrix after the constraints, listed"
check "the point the constraint removes is not listed" bash -c '! grep -q "block_i=64 block_k=256" <<<"$0"' "$out"
expect_out "total runs 111 (at most 315), builds 3" "the runs and builds (interleaved: each comparison measures its baseline again)"
expect_out "time: about 70 s" "a time estimate from the spec's estimate of a run"
expect_out "runs interleaved: baseline and candidates alternate (A B A B ...)" "the plan says how comparisons take their runs"

tc tune --dry-run --json "$SPEC"
expect_rc 0 "tune --dry-run --json exits 0"
expect_eq "$(jq_ "d['schema_version']")" "tunectl-tune-plan-v1" "the plan's schema"
expect_eq "$(jq_ "d['options']['points_allowed'], len(d['options']['trials'])")" "(11, 5)" \
    "JSON: 11 allowed points, 5 trials"
expect_eq "$(jq_ "[v['name'] for v in d['variants']]")" "['O2', 'O3', 'native']" "JSON: the variants"
expect_eq "$(jq_ "d['gate_policy']['allow_stddev_regression_pct'], d['gate_policy']['decide_by']")" \
    "(50.0, 'ci')" "JSON: the gate policy as the spec froze it"
expect_eq "$(jq_ "d['commands']['build_inputs'][0]['sha256']")" \
    "$(sha256sum "$TUNECTL_SRC/examples/dgemm/dgemm.c" | cut -d' ' -f1)" "JSON: the build input's digest"
expect_eq "$(jq_ "d['spec']['sha256']")" "$(sha256sum "$SPEC" | cut -d' ' -f1)" "JSON: the spec's digest"

# ---- the demo workload as a spec ------------------------------------------------
DEMO=$TUNECTL_SRC/examples/workload/tune.yaml
tc tune --dry-run --json "$DEMO"
expect_rc 0 "the demo's spec (examples/workload/tune.yaml) is read"
expect_eq "$(jq_ "[v['name'] for v in d['variants']], len(d['options']['trials'])")" \
    "(['S0', 'S1', 'S2', 'S3', 'S4'], 3)" "it screens the four scope strategies and tries the three options"
expect_eq "$(jq_ "d['metric']['from'], d['ranks'], d['gate_policy']['allow_stddev_regression_pct']")" \
    "('rank-log', 2, 50.0)" "rank logs of two ranks, the demo's stddev allowance"
expect_eq "$(jq_ "d['gate_policy']['order']")" "interleaved" \
    "its comparisons interleave their runs, as the demo's workers do"
expect_eq "$(jq_ "d['gate_policy']['stability']['screen_remeasure_spread_pct']")" \
    "$(grep -o '"screen_remeasure_spread_pct": [0-9.]*' "$TUNECTL_SRC/examples/workers/sklib.py" | cut -d' ' -f2)" \
    "it re-measures Stage A's screening at the demo's frozen screen_remeasure_spread_pct"
# Its run command, expanded for S1 at the baseline's options (and 14 steps),
# runs the demo workload: each rank logs the figure the gates read.
SKW_BIN=$(dirname "$TUNECTL_BIN")/examples/skw
if [ -x "$SKW_BIN" ]; then
	cmd=$(jq_ "d['commands']['run']" |
	    sed -e "s|{strategy}|automatic_aot|; s|{loop_order}|ijk|; s|{unroll}|1|; s|{tile_size}|0|" \
	    -e "s|{run_dir}|$T/demo-run|g; s|{spec_dir}/../../build/examples/skw|$SKW_BIN|" \
	    -e 's/"steps": 600/"steps": 14/' -e 's/{{/{/g; s/}}/}/g')
	mkdir -p "$T/demo-run"
	TUNECTL_RUN_DIR=$T/demo-run SKW_SIMULATED_TIMING=1 bash -c "$cmd" >"$T/demo-run.out" 2>&1
	check "the demo spec's run command runs skw" grep -q "Inference time (decode)" "$T/demo-run/log_1.log"
	check "with the strategy the variant sets" grep -q '"strategy": "automatic_aot"' "$T/demo-run/config.json"
else
	skip "build/examples/skw is not built: the demo spec's command is not run"
fi

# ---- refusals --------------------------------------------------------------------
sed 's/^  timeout: 60$/  timout: 60/' "$SPEC" >"$T/typo.yaml"
cp "$TUNECTL_SRC/examples/dgemm/dgemm.c" "$T/"
line=$(grep -n '^  timout: 60$' "$T/typo.yaml" | cut -d: -f1)
tc tune --dry-run "$T/typo.yaml"
expect_rc 1 "a spec with an unknown key is refused"
expect_err "tunectl: tune: $T/typo.yaml:$line: unknown key 'timout' in run" "the refusal names the file and line"
check "nothing is printed on stdout" test -z "$out"

sed 's/-bk {block_k} -r 5/-bk {blok_k} -r 5/' "$SPEC" >"$T/missing.yaml"
line=$(grep -n 'blok_k' "$T/missing.yaml" | cut -d: -f1)
tc tune --dry-run "$T/missing.yaml"
expect_rc 1 "a template naming a missing parameter is refused"
expect_err "$T/missing.yaml:$line: run.command names {blok_k}, which is no parameter" "naming the template's line"

sed 's/^  inputs: \[dgemm.c\]/  inputs: [gone.c]/' "$SPEC" >"$T/gone.yaml"
tc tune --dry-run "$T/gone.yaml"
expect_rc 1 "a missing build input is refused"
expect_err "$T/gone.yaml: build.inputs 'gone.c'" "naming the input"

tc tune --dry-run "$T/no-such.yaml"
expect_rc 1 "a missing spec is refused"
expect_err "cannot read the spec: [Errno 2] No such file or directory: '$T/no-such.yaml'" "naming the file"

# What tune cannot run yet is refused in words before anything starts
# (test_tune_session.sh runs a whole session).
sed -e 's/^  decide_by: mean/  decide_by: ci/' "$SPEC" > "$T/ci.yaml"
cp "$TUNECTL_SRC/examples/dgemm/dgemm.c" "$T/"
# gate.stability.screen_remeasure_spread_pct: shown, frozen into the plan,
# refused naming its line when out of range (test_tune_remeasure.sh runs it)
tc tune --dry-run --json "$DEMO"
STAGE_A_MOST="[p['runs_at_most'] for p in d['phases'] if p['phase'] == 'stage-a-scope-selection']"
demo_most=$(jq_ "$STAGE_A_MOST")
tc tune --dry-run "$DEMO"
expect_out "Stage A's screening measured again as a whole while any side spreads > 35.0 %" \
    "the plan shows the screening's re-measurement limit"
sed -e '/screen_remeasure_spread_pct/d; s/series_attempts: 3,/series_attempts: 3}/' "$DEMO" > "$T/demo-nokey.yaml"
tc tune --dry-run --json "$T/demo-nokey.yaml"
expect_rc 0 "without the key the spec is read"
expect_eq "$(jq_ "'screen_remeasure_spread_pct' in d['gate_policy']['stability']")" "False" \
    "and the plan has no key (today's behaviour: Stage A re-measures at max_spread_pct)"
expect_eq "$(jq_ "$STAGE_A_MOST")" "$demo_most" \
    "the key adds no series: Stage A's 'at most' runs already count series_attempts"
line=$(grep -n 'screen_remeasure_spread_pct' "$DEMO" | grep -v '^ *[0-9]*:#' | cut -d: -f1)
for bad in 0 -5 101 abc '[35]'; do
	sed -e "s/screen_remeasure_spread_pct: 35.0/screen_remeasure_spread_pct: $bad/" "$DEMO" > "$T/demo-bad.yaml"
	tc tune --dry-run "$T/demo-bad.yaml"
	expect_rc 1 "gate.stability.screen_remeasure_spread_pct $bad is refused"
	expect_err "tunectl: tune: $T/demo-bad.yaml:$line: gate.stability.screen_remeasure_spread_pct must be" \
	    "naming the file, the line and the key ($bad)"
done

tc tune --dry-run "$T/ci.yaml"
expect_rc 0 "decide_by ci is accepted (test_tune_decide.sh runs a session with it)"
expect_out "decide by ci" "and the plan says how the gates decide"
sed -e 's/^  decide_by: ci/  decide_by: ci\n  order: sequential/' "$SPEC" > "$T/seq.yaml"
tc tune --dry-run "$T/seq.yaml"
expect_rc 0 "gate.order sequential is accepted"
expect_out "runs sequential: each series after the other" "and the plan says so"
expect_out "total runs 69 (at most 189), builds 3" "each candidate against the series S0 and O0 took"
tc tune --dry-run --json "$T/seq.yaml"
expect_eq "$(jq_ "d['gate_policy']['order']")" "sequential" "JSON: the order in the gate policy"
sed -e 's/^  decide_by: ci/  decide_by: ci\n  order: abba/' "$SPEC" > "$T/abba.yaml"
tc tune --dry-run "$T/abba.yaml"
expect_rc 1 "an unknown order is refused"
expect_err "gate.order must be one of interleaved, sequential, got 'abba'" "naming the choices"
sed -e 's/direction: lower/direction: higher/' "$SPEC" > "$T/higher.yaml"
tc tune --dry-run "$T/higher.yaml"
expect_rc 0 "a higher-is-better metric is accepted (test_tune_higher.sh runs a session)"
expect_out "higher is better" "and the plan says so"
# --prepare: the workers' door to the spec (one configuration checked,
# built once and its commands expanded).
echo '{"variant": "O3", "params": {"block_i": 16}}' > "$T/c1.json"
tc tune "$T/ci.yaml" --prepare "$T/c1.json" --cache "$T/cache" --run-dir '$RUN'
expect_rc 0 "--prepare builds a configuration"
expect_eq "$(jq_ "d['allowed'], d['params'], d['build_reused']")" \
    "(True, {'block_i': '16', 'block_k': '64'}, False)" "the baseline fills the parameters it does not name"
expect_out "-bi 16 -bk 64 -r 5" "the run command is expanded"
check "the build is in the cache" test -x "$(jq_ "d['build_dir']")/dgemm"
tc tune "$T/ci.yaml" --prepare "$T/c1.json" --cache "$T/cache"
expect_eq "$(jq_ "d['build_reused']")" True "and reused the second time"
echo '{"variant": "O3", "params": {"block_i": 64, "block_k": 256}}' > "$T/c2.json"
tc tune "$T/ci.yaml" --prepare "$T/c2.json" --cache "$T/cache"
expect_eq "$(jq_ "d['allowed'], d['broken_constraint'], d['build_dir']")" \
    "(False, 'block_i * block_k <= 8192', None)" "a point the constraints refuse is never built"
echo '{"variant": "O3", "params": {"block_i": 48}}' > "$T/c3.json"
tc tune "$T/ci.yaml" --prepare "$T/c3.json" --cache "$T/cache"
expect_rc 1 "a value the spec does not list is refused"
expect_err "block_i does not list the value 48" "naming the parameter and its line"
echo '{"variant": "O9"}' > "$T/c4.json"
tc tune "$T/ci.yaml" --prepare "$T/c4.json" --cache "$T/cache"
expect_rc 1 "an unknown variant is refused"
expect_err "no variant named 'O9'" "in words"
tc tune "$T/ci.yaml" --prepare "$T/c4.json"
expect_rc 2 "--prepare needs --cache"

sed -e 's/search: one-at-a-time/search: exhaustive/' "$SPEC" > "$T/exh.yaml"
tc tune --dry-run "$T/exh.yaml"
expect_rc 0 "an exhaustive search is planned (test_tune_exhaustive.sh runs a session)"
expect_out "10 trial(s) against O0" "every allowed point but the baseline's"
# One variant (or none): Stage A has nothing to screen, and the phase
# rules end a session whose Stage A selects nothing before Stage O.
cat > "$T/one.yaml" <<'YAML'
version: 1
name: one
run: {command: "echo t 5", timeout: 5}
metric: {from: stdout, regex: 't ([0-9.]+)', unit: ms, direction: lower}
variants: [{name: only, params: {}}]
options: {parameters: {n: [1, 2]}}
YAML
tc tune --dry-run "$T/one.yaml"
expect_rc 0 "a one-variant spec has a plan"
expect_out "no variants to screen: a session needs a second variant" "which says a session needs two"
tc tune "$T/one.yaml" --session-dir "$T/one-sessions"
expect_rc 1 "tune refuses a session on one variant"
expect_err "one.yaml has 1 variant(s): Stage A screens the variants besides the baseline's" \
	"saying why: Stage A must select a variant for Stage O to run"
expect_err "Give a second variant" "and what to do"
check "nothing is started" test ! -e "$T/one-sessions"
sed -e '/^variants:/d' "$T/one.yaml" > "$T/none.yaml"
tc tune "$T/none.yaml" --session-dir "$T/one-sessions"
expect_rc 1 "or on none"
expect_err "none.yaml has 0 variant(s)" "in words"
tc tune "$SPEC" --host nosuch
expect_rc 2 "an unknown host is a usage error"
tc tune --json "$SPEC"
expect_rc 2 "--json without --dry-run is a usage error"
tc tune --dry-run
expect_rc 2 "no SPEC is a usage error"
expect_err "the following arguments are required: SPEC" "naming the missing argument"
tc tune --dry-run "$SPEC" "$SPEC"
expect_rc 2 "two specs are a usage error"

# ---- the JSON Schema agrees with the reader on the example and on refusals ------
# (python3-jsonschema and python3-yaml: any python3 on PATH that has them)
PYS=""
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import jsonschema, yaml' 2>/dev/null; then
		PYS=$p
		break
	fi
done
if [ -n "$PYS" ]; then
	schema_check() {	# schema_check FILE -> "valid" or the first error
		"$PYS" - "$TUNECTL_SRC/docs/workload-spec.schema.json" "$1" <<'PY'
import json, sys, jsonschema, yaml
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(open(sys.argv[2]))))
print("valid" if not errors else "invalid: " + errors[0].message)
PY
	}
	expect_eq "$(schema_check "$SPEC")" "valid" "the DGEMM spec is valid under docs/workload-spec.schema.json"
	expect_eq "$(schema_check "$DEMO")" "valid" "the demo's spec (screen_remeasure_spread_pct) is valid under the schema"
	sed -e "s/screen_remeasure_spread_pct: 35.0/screen_remeasure_spread_pct: 0/" "$DEMO" > "$T/demo-zero.yaml"
	check "the schema refuses screen_remeasure_spread_pct 0, as the reader does" \
	    bash -c '[[ "$1" == invalid:* ]]' _ "$(schema_check "$T/demo-zero.yaml")"
	check "the schema refuses the unknown key the reader refuses" \
	    bash -c '[[ "$1" == invalid:*timout* ]]' _ "$(schema_check "$T/typo.yaml")"
	sed 's/^version: 1$/version: 2/' "$SPEC" >"$T/v2.yaml"
	check "the schema refuses version 2" bash -c '[[ "$1" == invalid:* ]]' _ "$(schema_check "$T/v2.yaml")"
else
	skip "python3 jsonschema or yaml missing: the schema is not checked"
fi

# ---- the example builds and checks itself with every variant's flags -----------
if command -v cc >/dev/null 2>&1; then
	for flags in "-O2" "-O3" "-O3 -march=native"; do
		# shellcheck disable=SC2086
		cc $flags -o "$T/dgemm" "$TUNECTL_SRC/examples/dgemm/dgemm.c" -lm
		check "dgemm builds with $flags" test -x "$T/dgemm"
		"$T/dgemm" -n 96 -bi 16 -bk 256 --verify >"$T/verify.out" 2>&1
		check "dgemm ($flags) passes its check with tiles 16 x 256" grep -q "verify: ok" "$T/verify.out"
	done
	"$T/dgemm" -n 64 -bi 32 -bk 64 -r 3 >"$T/run.out"
	check "a timed run prints one time_ms figure per product" test "$(grep -c '^time_ms: [0-9.]*$' "$T/run.out")" = 3
else
	skip "no C compiler: the DGEMM example is not built"
fi

finish
