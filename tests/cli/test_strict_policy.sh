#!/usr/bin/env bash
# test_strict_policy.sh - init --evidence-policy strict: every status claim
# cites gate evidence computed by tunectl's own gates and bound at seal,
# and the transition rules 2, 3, 4, 5, 6, 7 and 8 are enforced; each
# refusal names the rule and the evidence.  The evidence is genuine:
# bench run + gate + ledger final-e2e (tests/cli/strict_fixtures.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"
. "$(dirname "$0")/strict_fixtures.sh"

st_init() {	# st_init DIR [MODE]
	R="$1/artifacts"
	S="$R/auto-tune-session.json"
	tc init --session "$S" --artifact-root "$R" --session-id strict-1 \
	    --optional-mode "${2:-none}" --evidence-policy strict
}

# ---- init records the policy -------------------------------------------------
st_init "$T/a"
expect_rc 0 "init --evidence-policy strict"
check "the session records evidence_policy strict" test "$(jpy "$S" 'd["evidence_policy"]')" = strict
tc init --session "$T/x.json" --artifact-root "$T/x" --session-id x --optional-mode none \
    --evidence-policy lax
expect_rc 2 "an unknown evidence policy is a usage error"
expect_err "choose from 'reference', 'strict'" "the usage error lists the policies"
tc init --session "$T/r.json" --artifact-root "$T/r" --session-id r --optional-mode none
check "the default policy writes no key (the reference's session)" \
    test "$(jpy "$T/r.json" '"evidence_policy" in d')" = false

# ---- rule 3: S0 succeeded needs a stable stability report ---------------------------
st_seal succeeded ""
expect_rc 0 "intake seals"
st_seal succeeded ""
expect_rc 1 "S0 succeeded without a stability report is refused"
expect_out "rule 3: s0-baseline succeeded needs a stable five-run stability report" \
    "the refusal names rule 3 and the missing report"
st_runset s0/noisy 5 10.0 10.1 10.2 10.3 10.9
st_gate stability s0/noisy.json --baseline "$R/s0/noisy"
st_seal succeeded 'produced = ["s0/noisy", "s0/noisy.json"]'
expect_rc 1 "S0 succeeded with an unstable report is refused"
expect_out "rule 3: s0-baseline succeeded, but its stability report s0/noisy.json is not stable" \
    "the refusal names the unstable report"
# A report forged by hand: a real one with its verdict flipped.
st_s0
python3 - "$R/s0/noisy.json" "$R/s0/forged.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["baseline_stability"]["stable"] = True
d["baseline_stability"]["checks"]["max_spread_pct"] = True
open(sys.argv[2], "w").write(json.dumps(d, indent=2, sort_keys=True) + "\n")
PY
cp "$R/s0/noisy.json.provenance.json" "$R/s0/forged.json.provenance.json"
st_seal succeeded 'produced = ["s0/noisy", "s0/forged.json"]'
expect_rc 1 "a hand-edited gate report is refused"
expect_out "gate report s0/forged.json is not what tunectl gate computes from the inputs s0/forged.json.provenance.json names" \
    "the refusal names the forged report"
python3 - "$R/s0/noisy.json.provenance.json" "$R/s0/forged.json.provenance.json" "$T/elsewhere" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["baseline"] = sys.argv[3]
open(sys.argv[2], "w").write(json.dumps(d))
PY
st_seal succeeded 'produced = ["s0/noisy", "s0/forged.json"]'
expect_rc 1 "a provenance that points outside the artifact root is refused"
expect_out "gate report s0/forged.json reads $T/elsewhere, outside the artifact root" \
    "the refusal names the outside input"
rm "$R/s0/forged.json.provenance.json"
st_seal succeeded 'produced = ["s0/noisy", "s0/forged.json"]'
expect_rc 1 "a hand-written report without provenance is no evidence"
expect_out "rule 3" "and the claim still needs its report"
st_seal succeeded 'produced = ["s0/stability.json"]'
expect_rc 1 "a report whose run set the step does not name is refused"
expect_out "gate report s0/stability.json reads s0/runset, which s0-baseline does not name" \
    "the refusal names the unbound run set"
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
expect_rc 0 "S0 succeeded with a stable report over its own run set seals"
check "the manifest binds the report's provenance" \
    grep -q '"path": "s0/stability.json.provenance.json"' "$R/phases/s0-baseline/artifact-manifest.json"

# ---- rule 4: Stage A accepted selects the named Sbest-SEED --------------------------
st_stage_a
A_LISTS='consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2", "stage-a/S3", "stage-a/S4", "stage-a/selection.json"]'
st_seal accepted "$A_LISTS"
expect_rc 1 "Stage A accepted without naming its seed is refused"
expect_out "rule 4: stage-a-scope-selection accepted must name its Sbest-SEED" "names rule 4"
st_seal accepted "$A_LISTS; result['selected_candidate'] = 'S3'"
expect_rc 1 "Stage A accepted with a seed the screening did not select is refused"
expect_out "rule 4: stage-a-scope-selection accepted S3, but no screening report" "names the seed"
# gate.order interleaved: the baseline measured again beside the candidates
# stands for S0 only when it runs S0's very command as side A of bench ab.
il_screen() {	# $1: the baseline run set, $2: its report
	st_gate screen "$2" --baseline "$R/$1" --screening-matrix "$R/stage-a/matrix.json" \
	    --candidate "S1=$R/stage-a/S1" --candidate "S2=$R/stage-a/S2i" \
	    --candidate "S3=$R/stage-a/S3" --candidate "S4=$R/stage-a/S4"
}
TC_WORKLOAD_CONFIG="$T/stage-a-config.yaml" "$TUNECTL_BIN" bench ab --runs 5 --warmup-samples 0 \
    --out-a "$R/stage-a/base-other" --out-b "$R/stage-a/S2i" -- "$ST_W" 10.5 10.6 10.7 10.6 10.5 --- "$ST_W" 8.0 >/dev/null 2>&1
il_screen stage-a/base-other stage-a/selection-other.json
st_seal accepted 'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2i", "stage-a/S3", "stage-a/S4", "stage-a/base-other", "stage-a/selection-other.json"]; result["selected_candidate"] = "S2"'
expect_rc 1 "an interleaved baseline that is not S0's configuration is refused"
expect_out "rule 4: screening report stage-a/selection-other.json compares against stage-a/base-other, not the frozen S0 s0/runset" \
    "the refusal names the baseline"
st_runset stage-a/base-plain 5 10.0 10.1 10.2 10.1 10.0
il_screen stage-a/base-plain stage-a/selection-plain.json
st_seal accepted 'consumed = ["s0/runset"]; produced = ["stage-a/matrix.json", "stage-a/S1", "stage-a/S2i", "stage-a/S3", "stage-a/S4", "stage-a/base-plain", "stage-a/selection-plain.json"]; result["selected_candidate"] = "S2"'
expect_rc 1 "S0's command measured again, but not interleaved, is refused"
expect_out "rule 4: screening report stage-a/selection-plain.json compares against stage-a/base-plain, not the frozen S0" \
    "naming it"
st_seal accepted "$A_LISTS; result['selected_candidate'] = 'S2'"
expect_rc 0 "Stage A accepted with the selected seed seals"

# ---- rule 5: Stage O settles its matrix; each accepted option has a passing trial -------
st_stage_o
st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json"]'
expect_rc 1 "Stage O accepted without a settled matrix is refused"
expect_out "rule 5: stage-o-option-tuning accepted needs a settled winner option matrix" "names rule 5"
st_seal accepted 'produced = ["stage-o/matrix.json"]'
expect_rc 1 "an accepted option without its trial is refused"
expect_out "rule 5: option O1 is accepted in stage-o/matrix.json, but no passing option-trial report" \
    "names the option"
st_seal no_gain 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
expect_rc 1 "no_gain over a matrix that accepts an option is refused"
st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
expect_rc 0 "Stage O accepted with a settled matrix and its trial seals"
st_seal succeeded 'consumed = ["stage-o/matrix.json"]'
expect_rc 0 "BASE seals"
st_seal not_requested ""
expect_rc 0 "the none optional step seals"

# ---- rule 2: a measured Final is what ledger final-e2e computes --------------------------
st_final
cp "$R/ledger.json" "$T/ledger.good"
python3 - "$R/ledger.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fe = d["final_e2e"]
fe["candidate"]["median_ms"] = 5.0
fe["improvement_pct"] = (fe["baseline"]["median_ms"] - 5.0) / fe["baseline"]["median_ms"] * 100
open(sys.argv[1], "w").write(json.dumps(d, indent=2))
PY
F_LISTS='consumed = ["s0/runset"]; produced = ["final/candidate", "final/option-config.json"]'
st_seal accepted "$F_LISTS"
expect_rc 1 "a final_e2e with rewritten numbers is refused"
expect_out "rule 2: ledger.json (ledger.json.provenance.json): final_e2e candidate is not what tunectl ledger final-e2e computes" \
    "the refusal names the ledger and the field"
cp "$T/ledger.good" "$R/ledger.json"
st_seal accepted 'consumed = ["s0/runset"]'
expect_rc 1 "a final candidate run set the Final does not name is refused"
expect_out "candidate run set of final_e2e (final/candidate) is not among the artifacts" "names it"
st_seal accepted "$F_LISTS"
expect_rc 0 "a beneficial Final with its recomputed final_e2e seals"
tc verify --session "$S"
expect_rc 0 "the strict session verifies"
tc verify --session "$S" --all
expect_rc 0 "and verifies with --all"

# ---- tampering after completion --------------------------------------------------------------
cp -a "$R" "$T/a-copy"
python3 - "$R/ledger.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fe = d["final_e2e"]
fe["candidate"]["median_ms"] = 5.0
fe["improvement_pct"] = (fe["baseline"]["median_ms"] - 5.0) / fe["baseline"]["median_ms"] * 100
fe["reason_zh"] = "改写后的理由。"
open(sys.argv[1], "w").write(json.dumps(d, indent=2))
PY
tc verify --session "$S"
expect_rc 1 "a ledger rewritten after completion does not verify"
expect_out "bound artifact changed since final-e2e-report was sealed: ledger.json" \
    "verify names the ledger"
tc render-final-report --session "$S" --output "$T/rewritten.md"
expect_rc 1 "render-final-report refuses to publish a rewritten ledger"
expect_out "bound artifact changed since final-e2e-report was sealed: ledger.json" \
    "and names the ledger"
check "no report with the rewritten numbers was written" test ! -e "$T/rewritten.md"
rm -rf "$R"; cp -a "$T/a-copy" "$R"
cp "$R/s0/noisy.json" "$R/s0/stability.json"
tc verify --session "$S"
expect_rc 1 "a swapped stability report does not verify"
expect_out "bound artifact changed since s0-baseline was sealed: s0/stability.json" \
    "verify names the swapped report"
rm -rf "$R"; cp -a "$T/a-copy" "$R"
python3 - "$S" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["evidence_policy"]
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
tc verify --session "$S"
expect_rc 1 "removing the policy from the session is noticed"
expect_out "recorded at init is strict; the session file says reference" \
    "verify names the policy recorded at init"
# without the record (another state directory, a moved session) the
# sealed steps' manifests still repeat the policy
TUNECTL_STATE_DIR=$T/other-state tc verify --session "$S"
expect_rc 1 "removing the policy is noticed without the record too"
expect_out "evidence_policy differs from the policy intake-preparation was sealed under: strict" \
    "verify names the policy the steps were sealed under"
rm -rf "$R"; cp -a "$T/a-copy" "$R"

# ---- rule 2: after a blocked intake the Final records not_run ----------------------------------
for policy in strict reference; do
	R="$T/b-$policy/artifacts"; S="$R/auto-tune-session.json"
	tc init --session "$S" --artifact-root "$R" --session-id b --optional-mode none \
	    --evidence-policy $policy
	ctl_seal blocked
	ctl_result "$T/b-final.json" accepted
	tc seal --session "$S" --result "$T/b-final.json"
	if [ $policy = strict ]; then
		expect_rc 1 "strict: a beneficial Final after a blocked intake is refused"
		expect_out "rule 2: intake-preparation ended blocked, so the Final can only record not_run" \
		    "the refusal names rule 2 and the blocked step"
		ctl_result "$T/b-final.json" not_run
		tc seal --session "$S" --result "$T/b-final.json"
		expect_rc 0 "strict: the not_run Final seals"
	else
		expect_rc 0 "reference: the reference's checks accept it, as the reference does"
	fi
done

# ---- rule 6: a failed BASE re-enters Stage O with the next ranked candidate ---------------------
st_init "$T/c"
st_seal succeeded ""
st_s0
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
st_stage_a
st_seal accepted "$A_LISTS; result['selected_candidate'] = 'S2'"
st_stage_o
st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
expect_rc 0 "the chain up to BASE seals"
st_seal failed ""
expect_rc 0 "a failed BASE seals"
check "the re-entry Stage O step follows the failed BASE" test \
    "$(jpy "$S" '[s["step_id"] for s in d["steps"]][5:7]')" = '["stage-o-option-tuning-2", "base-profile-source-mapping-2"]'
check "it takes the next ranked eligible candidate (S3)" test \
    "$(jpy "$S" 'd["steps"][5]["reentry_candidate"]')" = S3
check "nothing was short-circuited" test "$(jpy "$S" 'd["steps"][7]["state"]')" = pending
tc next --session "$S"
expect_out '"reentry_candidate": "S3"' "next hands the re-entry candidate to the worker"
tc verify --session "$S"
expect_rc 0 "a session with re-entry steps verifies"
cp "$S" "$T/c-session.json"
python3 - "$S" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["steps"][5:7]
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
tc verify --session "$S"
expect_rc 1 "a failed BASE whose re-entry steps were removed is refused"
expect_out "rule 6: base-profile-source-mapping failed, but the session did not re-enter Stage O with the next ranked eligible Stage A candidate S3" \
    "the refusal names rule 6 and the candidate"
cp "$T/c-session.json" "$S"
python3 - "$S" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["steps"][5]["reentry_candidate"] = "S4"
d["steps"][6]["reentry_candidate"] = "S4"
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
expect_rc 1 "a re-entry that skips the ranked order is refused"
expect_out "rule 6: stage-o-option-tuning-2 re-enters Stage O with S4, but the next ranked eligible Stage A candidate is S3" \
    "the refusal names rule 6 and both candidates"

# ---- rule 7 and rule 8: both mode ----------------------------------------------------------------
st_init "$T/d" both
st_seal succeeded ""
st_s0
st_seal succeeded 'produced = ["s0/runset", "s0/stability.json"]'
st_stage_a
st_seal accepted "$A_LISTS; result['selected_candidate'] = 'S2'"
st_stage_o
st_seal accepted 'produced = ["stage-o/O0", "stage-o/O1", "stage-o/O1-trial.json", "stage-o/matrix.json"]'
mkdir -p "$R/base" "$R/ms" "$R/base2"
echo '{}' >"$R/base/smap.json"; echo '{}' >"$R/ms/incumbent.json"; echo '{}' >"$R/base2/smap.json"
st_seal succeeded 'consumed = ["stage-o/matrix.json"]; produced = ["base/smap.json"]'
st_seal accepted 'consumed = ["base/smap.json"]; produced = ["ms/incumbent.json"]'
expect_rc 0 "an accepted multistream seals"
check "rule 7: the old BASE is marked superseded by the derived BASE" test \
    "$(jpy "$S" 'd["steps"][4].get("superseded_by")')" = base-profile-derived
st_seal succeeded 'consumed = ["ms/incumbent.json"]; produced = ["base2/smap.json"]'
expect_rc 0 "the derived BASE seals"
st_seal no_gain 'consumed = ["base/smap.json"]'
expect_rc 1 "rule 8: P/FINAL on the superseded BASE is refused"
expect_out "rule 8: optional-source-range" "the refusal names rule 8"
st_seal no_gain 'consumed = ["base2/smap.json", "base/smap.json"]'
expect_rc 1 "P/FINAL that also reads the superseded BASE is refused"
expect_out "consumes base/smap.json of base-profile-source-mapping, a BASE that is not the current mapped incumbent (base-profile-derived)" \
    "the refusal names the stale artifact and both BASE steps"
st_seal no_gain 'consumed = ["base2/smap.json"]'
expect_rc 0 "P/FINAL on the current mapped BASE seals"
cp "$S" "$T/d-session.json"
python3 - "$S" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["steps"][4]["superseded_by"]
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
tc verify --session "$S"
expect_rc 1 "removing the superseded mark is refused"
expect_out "rule 7: base-profile-source-mapping is the BASE an accepted multistream superseded" \
    "the refusal names rule 7"
cp "$T/d-session.json" "$S"
tc verify --session "$S"
expect_rc 0 "the both-mode strict session verifies"

finish
