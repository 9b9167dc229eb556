#!/usr/bin/env bash
# test_evidence_tamper.sh - under the default (reference) evidence policy
# too, nobody quietly rewrites what was sealed: every file a result names
# is bound by the step's artifact manifest, and both Markdown reports are
# rendered again from the sealed evidence by verify.  Each tampering is
# refused with a message naming the file; an untouched session, and a
# session the reference sealed (no manifests, its own blocker key order),
# verify as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

flip_char() {	# flip_char FILE: change one character (the last letter a-z)
	python3 - "$1" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for i in range(len(b) - 1, -1, -1):
    if 0x61 <= b[i] <= 0x7a:
        b[i] = 0x61 if b[i] != 0x61 else 0x62
        break
open(p, "wb").write(bytes(b))
PY
}

# A completed none session whose steps name real files.
ctl_init "$T/a" none
mkdir -p "$R/intake" "$R/s0/runset/run-1"
echo '{"cpu": "x"}' >"$R/intake/environment.json"
echo 'Inference time (decode): 10.0 ms' >"$R/s0/runset/run-1/log_0.log"
echo '{"stable": true}' >"$R/s0/stability.json"
ctl_seal "" 'result["produced_artifacts"] = ["intake/environment.json", "intake/absent.json"]'
expect_rc 0 "a result naming an absent file still seals under the reference policy"
ctl_seal "" 'result["consumed_artifacts"] = ["intake/environment.json"]; result["produced_artifacts"] = ["s0/runset", "s0/stability.json"]; result["blockers"] = [{"zeta": 1, "alpha": {"b": 2, "a": 1}}]'
expect_rc 0 "S0 seals"
ctl_advance_to_final
ctl_seal accepted 'result["produced_artifacts"] = ["ledger.json"]'
expect_rc 0 "the Final seals"
tc verify --session "$S"
expect_rc 0 "the untouched session verifies"
check "the session document is the reference's: no binding keys" test \
    "$(jpy "$S" 'any("artifact_manifest_sha256" in s for s in d["steps"])')" = false
check "the artifact root holds no manifest files" test -z "$(find "$R" -name artifact-manifest.json)"
check "the sidecar binds a manifest to every step" test \
    "$(jpy "$(sidecar_of "$S")" 'len({m["step_id"] for r in d["records"] for m in r.get("manifests", [])})')" = 7
sidecar_manifest "$S" s0-baseline >"$T/s0.manifest"
sidecar_manifest "$S" intake-preparation >"$T/intake.manifest"
sidecar_manifest "$S" final-e2e-report >"$T/final.manifest"
check "a directory is bound by its tree digest" test \
    "$(jpy "$T/s0.manifest" '[a["sha256"] for a in d["artifacts"] if a["path"] == "s0/runset"][0]')" = \
    "$(cd "$R/s0/runset" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -r -d '\n' sha256sum | sha256sum | cut -d' ' -f1)"
check "a named file that does not exist is recorded as missing" \
    grep -q '"kind": "missing"' "$T/intake.manifest"
check "the Final binds its ledger" grep -q '"ledger"' "$T/final.manifest"
SC=$(sidecar_of "$S")
cp -a "$SC" "$T/sidecar.orig"
cp -a "$R" "$T/a.orig"
restore() { rm -rf "$R"; cp -a "$T/a.orig" "$R"; cp -a "$T/sidecar.orig" "$SC"; }

# ---- item 2: derived reports are rendered again and compared
flip_char "$R/phases/intake-preparation/PHASE_REPORT.md"
tc verify --session "$S"
expect_rc 1 "one character changed in a phase report is refused"
expect_out "phase report differs from its sealed result: intake-preparation (phases/intake-preparation/PHASE_REPORT.md)" \
    "verify names the step and the report"
restore
flip_char "$R/FINAL_E2E_REPORT.md"
tc verify --session "$S"
expect_rc 1 "one character changed in the final report is refused"
expect_out "FINAL_E2E_REPORT.md differs from the report rendered from the sealed evidence" \
    "verify names the final report"
restore
# The reference writes a blocker's keys in the worker's order.
python3 - "$R/phases/s0-baseline/PHASE_REPORT.md" <<'PY'
import sys
p = sys.argv[1]
t = open(p, encoding="utf-8").read()
t = t.replace('- {"alpha": {"a": 1, "b": 2}, "zeta": 1}', '- {"zeta": 1, "alpha": {"b": 2, "a": 1}}')
open(p, "w", encoding="utf-8").write(t)
PY
check "the blocker line was rewritten in the reference's key order" \
    grep -q '{"zeta": 1, "alpha"' "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_rc 0 "a blocker in another key order is the same blocker"
restore

# ---- item 1: every named file is bound
python3 - "$R/ledger.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["final_e2e"]["baseline"]["median_ms"] = 20.0
d["final_e2e"]["improvement_pct"] = (20.0 - 9.0) / 20.0 * 100
d["final_e2e"]["reason_zh"] = "改写。"
open(sys.argv[1], "w").write(json.dumps(d, ensure_ascii=False))
PY
tc verify --session "$S"
expect_rc 1 "a consistently rewritten final_e2e is refused"
expect_out "bound artifact changed since final-e2e-report was sealed: ledger.json" "verify names the ledger"
tc render-final-report --session "$S"
expect_rc 1 "render-final-report does not publish the rewritten numbers"
check "the sealed report keeps the sealed numbers" \
    cmp -s "$R/FINAL_E2E_REPORT.md" "$T/a.orig/FINAL_E2E_REPORT.md"
restore
echo '{"stable": false}' >"$R/s0/stability.json"
tc verify --session "$S"
expect_rc 1 "a swapped stability report is refused"
expect_out "bound artifact changed since s0-baseline was sealed: s0/stability.json" "verify names it"
restore
echo 'Inference time (decode): 1.0 ms' >"$R/s0/runset/run-1/log_1.log"
tc verify --session "$S"
expect_rc 1 "a file added to a bound run set is refused"
expect_out "bound artifact changed since s0-baseline was sealed: s0/runset" "verify names the run set"
restore
echo '{}' >"$R/intake/absent.json"
tc verify --session "$S"
expect_rc 1 "a file that appears where a sealed result named an absent one is refused"
expect_out "intake/absent.json (absent when sealed, present now)" "verify says so"
restore
rm "$R/intake/environment.json"
tc verify --session "$S" --all
expect_rc 1 "a removed artifact is refused"
expect_out "intake/environment.json (removed)" "verify says it was removed"
restore
python3 - "$SC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["records"]:
    for m in r.get("manifests", []):
        if m["step_id"] == "intake-preparation":
            m["artifacts"][0]["sha256"] = "0" * 64
open(sys.argv[1], "w").write(json.dumps(d))
PY
tc verify --session "$S"
expect_rc 1 "an edited manifest in the sidecar is refused"
expect_out "sidecar chain broken: record 2 does not chain to the record before it" "verify says where the chain breaks"
restore
rm "$SC"
tc verify --session "$S"
expect_rc 0 "a session whose sidecar was deleted verifies as the reference would"
expect_err "artifacts unbound" "verify says its artifacts are unbound"
restore
tc verify --session "$S"
expect_rc 0 "the restored session verifies again"

# ---- no worker builds on changed evidence: dispatch (and run-next) refuse
ctl_init "$T/active" none
mkdir -p "$R/intake"
echo '{"cpu": "x"}' >"$R/intake/environment.json"
ctl_seal "" 'result["produced_artifacts"] = ["intake/environment.json"]'
tc dispatch --session "$S" --output "$T/task.json"
expect_rc 0 "dispatch hands out the next step"
echo '{"cpu": "y"}' >"$R/intake/environment.json"
tc dispatch --session "$S" --output "$T/task2.json"
expect_rc 1 "dispatch refuses once a sealed artifact changed"
expect_out "bound artifact changed since intake-preparation was sealed: intake/environment.json" \
    "dispatch names the changed file"
check "no task was written" test ! -e "$T/task2.json"

# ---- a session the reference sealed: no manifests, verified as before
R="$T/ref/artifacts"; S="$R/auto-tune-session.json"
ctl_init "$T/ref" none
ctl_advance_to_final
ctl_seal not_run
python3 - "$S" "$R" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
for st in s["steps"]:
    assert "artifact_manifest_path" not in st
PY
rm "$(sidecar_of "$S")"
tc verify --session "$S"
expect_rc 0 "a session sealed without manifests (the reference's) verifies"
expect_err "artifacts unbound: intake-preparation, s0-baseline" "verify names the unbound steps"
flip_char "$R/phases/s0-baseline/PHASE_REPORT.md"
tc verify --session "$S"
expect_rc 1 "its reports are still checked"

finish
