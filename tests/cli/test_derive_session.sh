#!/usr/bin/env bash
# test_derive_session.sh - derive-session and source-range-from-smap
# (docs/spec/controller.md "Derived sessions"): the reference's acceptance cases
# #10-#16, every precondition of
# docs/spec/controller.md "Derivation preconditions" with its exact message (and
# nothing written when refused), the imported-file checks of
# docs/spec/controller.md "Imported file checks" and
# "Files inside the parent root", and the digest binding checked on every later
# command.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

FIX="$TUNECTL_SRC/tests/fixtures/derive/derive_fixture.py"

# make_parent DIR [--mode M] [--status STEP=STATUS]...: a completed parent
# with import evidence; sets P (its root) and PS (its session).
make_parent() {
	local d=$1
	shift
	mkdir -p "$d"
	python3 "$FIX" parent "$TUNECTL_BIN" "$d" "$@" >/dev/null ||
		{ echo "# parent fixture failed in $d" >&2; return 1; }
	P="$d/parent-artifacts"
	PS="$P/auto-tune-session.json"
}

# derive CMD DIR MODE [ARGS...]: the reference tests' derive_from_parent
# (approval, all evidence files; no source map for multistream), with
# ARGS appended (a repeated option replaces the earlier value).  Sets C
# (child root) and CS (child session).
derive() {
	local cmd=$1 dir=$2 mode=$3
	shift 3
	C=$dir
	CS="$C/auto-tune-session.json"
	local args=(--parent-session "$PS" --session "$CS" --artifact-root "$C"
	    --session-id "derived-$mode"
	    --profiling-analysis "$P/evidence/profiling-analysis.json"
	    --ledger "$P/evidence/experiment-ledger.json")
	[ "$mode" != multistream ] &&
		args+=(--source-scope-map "$P/evidence/source-scope-map.json")
	[ "$cmd" = derive-session ] && args+=(--optional-mode "$mode")
	tc "$cmd" "${args[@]}" --approve-imported-evidence "$@"
}

refusal() {	# the reference's one-line refusal for a message
	python3 -c 'import json, sys; print(json.dumps({"valid": False, "errors": [sys.argv[1]]}, ensure_ascii=False))' "$1"
}

# refused NAME MSG: the last command was refused with exactly MSG and the
# child root does not exist.
refused() {
	local want
	want=$(refusal "$2")
	if [ "$rc" = 1 ] && [ "$out" = "$want" ] && [ ! -e "$C" ]; then
		ok "$1"
	else
		not_ok "$1" "rc=$rc" "stdout: $out" "want:   $want" \
		    "child root: $(ls -A "$C" 2>&1 | tr '\n' ' ')"
	fi
}

# tree DIR: every file and directory under DIR with the digest of each
# file, to prove a refusal changed nothing there.
tree() {
	(cd "$1" && find . -print | sort | while IFS= read -r f; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f $(sha256sum <"$f" | cut -c1-64)"; else echo "$f"; fi
	done)
}

# refused_in NAME MSG DIR BEFORE: refused with MSG and DIR is unchanged.
refused_in() {
	local want
	want=$(refusal "$2")
	if [ "$rc" = 1 ] && [ "$out" = "$want" ] && [ "$(tree "$3")" = "$4" ]; then
		ok "$1"
	else
		not_ok "$1" "rc=$rc" "stdout: $out" "want:   $want"
	fi
}

make_parent "$T/p1" || exit 1
P1=$P PS1=$PS
before_p1=$(tree "$P1")

# ---- #10 (docs/spec/controller.md "Acceptance cases") -----------------------

derive source-range-from-smap "$T/child-sr" source-range
expect_rc 0 "source-range-from-smap derives a session"
check "derived session is source-range-from-smap with its two steps" \
    test "$(jpy "$CS" '[d["entrypoint"], d["optional_mode"], [s["step_id"] for s in d["steps"]]]')" = \
    '["source-range-from-smap", "source-range", ["optional-source-range", "final-e2e-report"]]'
check "derivation prints the derived session" \
    test "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["session_id"])' "$out")" = derived-source-range
tc next --session "$CS"
check "next step of the derived session is optional-source-range" \
    test "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["step_id"])' "$out")" = optional-source-range
tc verify --session "$CS"
expect_rc 0 "a fresh derived session verifies"
check "manifest records the explicit approval and the parent id" \
    test "$(jpy "$C/imports/evidence-import.json" '[d["authorization"]["approved"], d["authorization"]["source"], d["parent"]["session_id"]]')" = \
    '[true, "explicit-user-request", "parent-session"]'
check "session binds the manifest by its canonical digest" \
    test "$(jpy "$CS" 'd["evidence_import"]["sha256"]')" = "$(py_digest "$C/imports/evidence-import.json")"
check "manifest binds the parent session file bytes" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["parent"]["session_sha256"]')" = "$(sha_file "$PS1")"
check "manifest binds the parent session fingerprint" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["parent"]["session_fingerprint"]')" = "$(py_digest "$PS1")"
check "manifest binds each artifact's bytes" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["artifacts"]["source_scope_map"]["sha256"]')" = "$(sha_file "$P1/evidence/source-scope-map.json")"
tc dispatch --session "$CS" --output "$T/task-sr.json"
expect_rc 0 "derived session dispatches"
check "dispatch task carries the session's evidence_import" \
    test "$(jpy "$T/task-sr.json" 'd["evidence_import"]')" = "$(jpy "$CS" 'd["evidence_import"]')"
S=$CS
ctl_seal no_gain
expect_rc 0 "derived optional-source-range seals no_gain"
ctl_seal accepted
expect_rc 0 "derived Final seals accepted"
check "derived session completes" test "$(jpy "$CS" 'd["status"]')" = completed
check "report names the entrypoint" grep -qF 'Entrypoint: `source-range-from-smap`' "$C/FINAL_E2E_REPORT.md"
check "report names the imported parent" grep -qF 'Imported parent: `parent-session`' "$C/FINAL_E2E_REPORT.md"
check "report names the imported BASE/SMAP handoff" \
    grep -qF "Imported BASE/SMAP: \`base-profile-source-mapping\` / \`$(jpy "$PS1" 'd["steps"][4]["result_sha256"]')\`" "$C/FINAL_E2E_REPORT.md"
tc verify --session "$CS"
expect_rc 0 "completed derived session verifies"
check "parent root is byte-identical after derivation and the child's run" \
    test "$(tree "$P1")" = "$before_p1"

# ---- #11: approval, and nothing written (docs/spec/controller.md
# "Acceptance cases")

C="$T/child-noapproval"
tc derive-session --parent-session "$PS1" --session "$C/s.json" --artifact-root "$C" \
    --session-id derived --profiling-analysis "$P1/evidence/profiling-analysis.json" \
    --ledger "$P1/evidence/experiment-ledger.json" --optional-mode multistream
refused "derivation without approval writes nothing" \
    "deriving a session requires explicit approval of imported evidence"
tc source-range-from-smap --parent-session "$T/missing.json" --session "$C/s.json" --artifact-root "$C" \
    --session-id derived --profiling-analysis x --ledger y --source-scope-map z
refused "approval is checked before the parent is read" \
    "deriving a session requires explicit approval of imported evidence"

# ---- #15 and #14 (docs/spec/controller.md "Acceptance cases") ---------------

derive derive-session "$T/child-ms" multistream
expect_rc 0 "multistream derivation needs no source scope map"
check "multistream derivation is optional-from-base with two steps" \
    test "$(jpy "$CS" '[d["entrypoint"], [s["step_id"] for s in d["steps"]]]')" = \
    '["optional-from-base", ["optional-multistream", "final-e2e-report"]]'
check "multistream manifest imports no source scope map" \
    test "$(jpy "$C/imports/evidence-import.json" 'sorted(d["artifacts"])')" = '["ledger", "profiling_analysis"]'
derive derive-session "$T/child-ms-smap" multistream --source-scope-map "$P1/evidence/source-scope-map.json"
check "a source map given in multistream mode is bound by digest" \
    test "$(jpy "$C/imports/evidence-import.json" 'sorted(d["artifacts"])')" = '["ledger", "profiling_analysis", "source_scope_map"]'

derive derive-session "$T/child-both" both
expect_rc 0 "both derivation"
check "derived both starts without a derived BASE" \
    test "$(jpy "$CS" '[s["step_id"] for s in d["steps"]]')" = \
    '["optional-multistream", "optional-source-range", "final-e2e-report"]'
S=$CS
ctl_seal accepted
expect_rc 0 "derived multistream seals accepted"
check "accepted multistream inserts base-profile-derived in a derived session" \
    test "$(jpy "$CS" '[s["step_id"] for s in d["steps"]]')" = \
    '["optional-multistream", "base-profile-derived", "optional-source-range", "final-e2e-report"]'
tc next --session "$CS"
check "next step after accepted multistream is base-profile-derived" \
    test "$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(s["step_id"], s["derived_family_rebase"])' "$out")" = "base-profile-derived True"

# ---- docs/spec/controller.md "Acceptance cases" #16 and the rest of
# docs/spec/controller.md "Derivation preconditions", in order

ctl_init "$T/active-parent" none
C="$T/child-active"
tc derive-session --parent-session "$S" --session "$C/s.json" --artifact-root "$C" --session-id derived \
    --profiling-analysis "$R/x.json" --ledger "$R/y.json" --optional-mode multistream --approve-imported-evidence
refused "an incomplete parent is refused" "parent session must be completed"

derive derive-session "$T/c3" both --session-id " derived"
refused "child session_id must be canonical" "session_id must be a non-empty canonical string"

derive derive-session "$T/c4" both --parent-session "$T/nothing/session.json"
refused "a missing parent is an invalid parent" \
    "parent session is invalid: cannot load session: [Errno 2] No such file or directory: '$T/nothing/session.json'"

make_parent "$T/p-broken" || exit 1
rm "$P/phases/s0-baseline/PHASE_REPORT.md"
derive derive-session "$T/c4b" both
refused "a parent that does not verify is refused with its error" \
    "parent session is invalid: missing phase report: s0-baseline"
P=$P1 PS=$PS1

derive derive-session "$T/c6" both --session-id parent-session
refused "child session_id must differ from the parent's" \
    "derived session_id must differ from the parent session_id"

msg_overlap="derived artifact root must be disjoint from the parent artifact root"
derive derive-session "$P1/child" both
refused "a child root inside the parent root is refused" "$msg_overlap"
derive derive-session "$P1" both --session "$P1/child-session.json"
refused_in "a child root equal to the parent root is refused" "$msg_overlap" "$P1" "$before_p1"
before_t1=$(tree "$T/p1")
derive derive-session "$T/p1" both
refused_in "a child root containing the parent root is refused" "$msg_overlap" "$T/p1" "$before_t1"
mkdir -p "$T/linked"
ln -s "$P1" "$T/linked/root"
derive derive-session "$T/linked/root/x" both
refused "overlap is judged on resolved paths" "$msg_overlap"

derive derive-session "$T/c8" both --session "$T/c8-session.json"
refused "the child session must be inside its root" "derived session path must be inside its artifact root"

mkdir -p "$T/c9"
echo '{}' >"$T/c9/auto-tune-session.json"
before=$(tree "$T/c9")
derive derive-session "$T/c9" both
refused_in "an existing child session is refused" "session already exists: $T/c9/auto-tune-session.json" "$T/c9" "$before"

mkdir -p "$T/outside"
cp "$PS1" "$T/outside/session.json"
derive derive-session "$T/c10" both --parent-session "$T/outside/session.json"
refused "a parent session file outside its artifact root is refused" \
    "parent session must be inside the parent artifact root"

make_parent "$T/p-blocked" --status base-profile-source-mapping=blocked || exit 1
derive derive-session "$T/c11" both
refused "a parent without an accepted BASE is refused" "parent session has no accepted BASE/SMAP handoff"
make_parent "$T/p-rebase" --mode both --status optional-multistream=accepted \
    --status base-profile-derived=blocked || exit 1
derive derive-session "$T/c11b" multistream
refused "an accepted multistream without a later BASE is refused" \
    "accepted multistream requires a later derived BASE/SMAP handoff"
make_parent "$T/p-rebased" --mode both --status optional-multistream=accepted || exit 1
derive derive-session "$T/c11c" source-range
expect_rc 0 "a parent rebased after accepted multistream derives"
check "the later derived BASE is the one imported" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["base_handoff"]["step_id"]')" = base-profile-derived
P=$P1 PS=$PS1

C="$T/c13"
tc derive-session --parent-session "$PS1" --session "$C/s.json" --artifact-root "$C" --session-id derived \
    --profiling-analysis "$P1/evidence/profiling-analysis.json" --ledger "$P1/evidence/experiment-ledger.json" \
    --optional-mode both --approve-imported-evidence
refused "both derivation requires a source scope map" "source-range derivation requires source_scope_map"

derive derive-session "$T/c14" both --profiling-analysis "$P1/evidence/missing.json"
refused "a missing artifact cannot be read" \
    "profiling_analysis cannot be read: [Errno 2] No such file or directory: '$P1/evidence/missing.json'"
(cd "$P1" && "$TUNECTL_BIN" derive-session --parent-session auto-tune-session.json --session "$T/c14r/s.json" \
    --artifact-root "$T/c14r" --session-id d --profiling-analysis evidence/missing.json \
    --ledger evidence/experiment-ledger.json --optional-mode multistream --approve-imported-evidence >"$T/rel.out")
C="$T/c14r" out=$(cat "$T/rel.out") rc=1
refused "relative artifact paths resolve from the working directory, as written" \
    "profiling_analysis cannot be read: [Errno 2] No such file or directory: 'evidence/missing.json'"
cp "$P1/evidence/experiment-ledger.json" "$T/outside/ledger.json"
derive derive-session "$T/c14" both --ledger "$T/outside/ledger.json"
refused "an artifact outside the parent root is refused" "ledger must be inside the parent artifact root"
ln -s "$T/outside/ledger.json" "$P1/escape-ledger.json"
derive derive-session "$T/c14" both --ledger "$P1/escape-ledger.json"
refused "a symlink leaving the parent root is refused" "ledger must be inside the parent artifact root"
rm "$P1/escape-ledger.json"
derive derive-session "$T/c14" both --source-scope-map "$P1/evidence"
refused "an artifact must be a regular file" "source_scope_map must be a regular file"
derive derive-session "$T/c14" both --ledger "$P1/ledger.json"
refused "an artifact the BASE result does not declare is refused" \
    "ledger is not bound by the selected BASE/SMAP handoff"
ln -s evidence/experiment-ledger.json "$P1/alias-ledger.json"
derive derive-session "$T/c14-alias" multistream --ledger "$P1/alias-ledger.json"
expect_rc 0 "a symlink inside the parent root to a declared artifact is accepted"
check "the manifest records the resolved artifact path" \
    test "$(jpy "$C/imports/evidence-import.json" 'd["artifacts"]["ledger"]["path"]')" = evidence/experiment-ledger.json
rm "$P1/alias-ledger.json"

# docs/spec/controller.md "Imported file checks" content checks, on edited
# evidence of one parent (each edit is undone afterwards).  The parent is made
# as the reference seals it, with no artifact manifests: a tunectl-sealed parent
# binds its BASE evidence, and an edit is refused before derivation looks at the
# content ("bound artifact changed since base-profile-source-mapping was
# sealed").
make_parent "$T/p-content" || exit 1
PC=$P
derive derive-session "$T/c15-bound" source-range
check "a tunectl-sealed parent whose BASE evidence is intact derives" test "$rc" = 0
cp "$PC/evidence/source-scope-map.json" "$T/smap.orig"
echo " " >>"$PC/evidence/source-scope-map.json"
derive derive-session "$T/c15-edited" source-range
expect_rc 1 "a tunectl-sealed parent refuses edited BASE evidence"
expect_out "parent session is invalid: bound artifact changed since base-profile-source-mapping was sealed: evidence/source-scope-map.json" \
    "derivation names the edited evidence"
cp "$T/smap.orig" "$PC/evidence/source-scope-map.json"
python3 - "$PS" "$PC" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
for st in s["steps"]:
    if st.pop("artifact_manifest_path", None):
        os.remove(os.path.join(sys.argv[2], "phases", st["step_id"], "artifact-manifest.json"))
    st.pop("artifact_manifest_sha256", None)
open(sys.argv[1], "w").write(json.dumps(s, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
PY
rm -f "$(sidecar_of "$PS")"
edit_evidence() {	# edit_evidence FILE PYTHON [refingerprint]
	python3 - "$PC/evidence/$1" "$2" <<'PY'
import json, sys
from pathlib import Path
p = Path(sys.argv[1])
d = json.loads(p.read_text(encoding="utf-8"))
exec(sys.argv[2])
p.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
PY
	[ "${3:-}" = refingerprint ] && python3 "$FIX" fingerprint "$PC/evidence/$1"
	return 0
}
save_evidence() { rm -rf "$T/saved"; cp -r "$PC/evidence" "$T/saved"; }
restore_evidence() { rm -rf "$PC/evidence"; cp -r "$T/saved" "$PC/evidence"; }
save_evidence

edit_evidence source-scope-map.json 'd["source_ranges"][0]["relation"] = "diagnostic_only"' refingerprint
derive derive-session "$T/c15" source-range
refused "a source map without an exact_cover range is refused" \
    "source scope map has no actionable exact_cover range"
derive derive-session "$T/c15" multistream --source-scope-map "$PC/evidence/source-scope-map.json"
expect_rc 0 "a source map given in multistream mode is not content-checked"
restore_evidence
edit_evidence profiling-analysis.json 'd["summary_zh"] = "改过的分析"'
derive derive-session "$T/c15b" multistream
refused "an analysis whose content changed is refused" "profiling analysis content fingerprint mismatch"
restore_evidence
edit_evidence profiling-analysis.json 'd["summary_zh"] = "ünïcödé ✓ 😀"' refingerprint
derive derive-session "$T/c15c" multistream
expect_rc 0 "an analysis fingerprinted with ensure_ascii=True is accepted"
restore_evidence
python3 - "$PC/evidence/profiling-analysis.json" <<'PY'
import hashlib, json, sys
from pathlib import Path
p = Path(sys.argv[1])
d = json.loads(p.read_text(encoding="utf-8"))
d["summary_zh"] = "非 ASCII"
payload = {k: v for k, v in d.items() if k != "analysis_content_fingerprint"}
d["analysis_content_fingerprint"] = hashlib.sha256(json.dumps(
    payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
p.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
PY
derive derive-session "$T/c15d" multistream
refused "an analysis fingerprinted with ensure_ascii=False is refused" \
    "profiling analysis content fingerprint mismatch"
restore_evidence
edit_evidence experiment-ledger.json 'd["experiments"]["Sbest"]["rounds"] = [{"round_id": "Sbest-P1"}]'
derive derive-session "$T/c15e" multistream
refused "a ledger without the analyzed BASE round is refused" \
    "experiment ledger does not contain the analyzed BASE round"
restore_evidence
edit_evidence source-scope-map.json 'd["provenance"]["stable_marker_revision"] = "revision-old"' refingerprint
derive derive-session "$T/c15f" both
refused "a source map of another revision is refused" \
    "source scope map source revision differs from profiling analysis"
restore_evidence
P=$P1 PS=$PS1

derive derive-session "$T/c17" both --session "$T/c17/imports/evidence-import.json"
refused "the session cannot be the evidence import" \
    "derived session path must differ from the evidence import path"
mkdir -p "$T/c17b/imports"
echo '{}' >"$T/c17b/imports/evidence-import.json"
before=$(tree "$T/c17b")
derive derive-session "$T/c17b" both
refused_in "an existing evidence import is never replaced" \
    "evidence import already exists: $T/c17b/imports/evidence-import.json" "$T/c17b" "$before"

# ---- argument errors ------------------------------------------------------

derive derive-session "$T/c-usage" none
expect_rc 2 "derive-session refuses optional mode none as a usage error"
expect_err "invalid choice: 'none'" "usage error names the bad choice"
tc derive-session --optional-mode none --no-such-flag
expect_err "argument --optional-mode: invalid choice: 'none' (choose from 'multistream', 'source-range', 'both')" \
    "an invalid choice is named before missing options and unrecognized arguments, as argparse"
check "not the missing options" [ "${err/required/}" = "$err" ]
tc derive-session --evidence-policy lax
expect_err "argument --evidence-policy: invalid choice: 'lax' (choose from 'reference', 'strict')" \
    "and an invalid --evidence-policy"
derive source-range-from-smap "$T/c-usage" source-range --optional-mode both
expect_rc 2 "source-range-from-smap has no --optional-mode"
C="$T/c-usage"
tc source-range-from-smap --parent-session "$PS1" --session "$C/s.json" --artifact-root "$C" --session-id d \
    --profiling-analysis x --ledger y --approve-imported-evidence
expect_rc 2 "source-range-from-smap requires --source-scope-map"
check "usage errors write nothing" test ! -e "$T/c-usage"

check "parent root is still byte-identical after every refusal" test "$(tree "$P1")" = "$before_p1"

# ---- #12: digest-bound on every later command (docs/spec/controller.md
# "Acceptance cases")

make_parent "$T/p-tamper" || exit 1
derive source-range-from-smap "$T/child-tamper" source-range
expect_rc 0 "derive the session to tamper with"
tc dispatch --session "$CS" --output "$T/task-before.json"
cp "$P/evidence/profiling-analysis.json" "$T/analysis.keep"
python3 - "$P/evidence/profiling-analysis.json" <<'PY'
import json, sys
from pathlib import Path
p = Path(sys.argv[1])
d = json.loads(p.read_text(encoding="utf-8"))
d["candidate_name"] = "Sother"
p.write_text(json.dumps(d), encoding="utf-8")
PY
tamper="imported artifact profiling_analysis digest mismatch"
tc verify --session "$CS"
expect_rc 1 "verify refuses a session whose imported analysis changed"
check "verify names the digest mismatch" \
    test "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["errors"][0])' "$out")" = "$tamper"
mentions() { [ "$rc" = 1 ] && [[ "$out$err" == *"$1"* ]]; }
for cmd in next resume status; do
	tc "$cmd" --session "$CS"
	check "$cmd refuses the tampered import" mentions "$tamper"
done
before=$(tree "$T/child-tamper")
tc dispatch --session "$CS" --output "$T/task-after.json"
refused_in "dispatch refuses the tampered import" "$tamper" "$T/child-tamper" "$before"
check "no task is written for a tampered import" test ! -e "$T/task-after.json"
S=$CS
ctl_result "$T/tamper-result.json" no_gain
tc seal --session "$CS" --result "$T/tamper-result.json"
expect_out "$tamper" "seal refuses the tampered import"
echo '["python3", "'"$TUNECTL_SRC"'/tests/fixtures/hosts/fake_host.py"]' >"$T/runner.json"
tc run-next --session "$CS" --runner-command-json "$T/runner.json"
expect_out "$tamper" "run-next refuses the tampered import"
check "run-next starts no attempt for a tampered import" test ! -e "$C/dispatches"
tc render-final-report --session "$CS" --output "$T/r.md"
expect_out "$tamper" "render-final-report refuses the tampered import"
cp "$T/analysis.keep" "$P/evidence/profiling-analysis.json"
tc verify --session "$CS"
expect_rc 0 "restoring the imported bytes restores the session"
tc execute-phase --task "$T/task-before.json" --phase optional_experiments
expect_rc 0 "a task made before is valid again once the bytes are restored"

for victim in "$PS" "$P/phases/base-profile-source-mapping/phase-result.json" "$C/imports/evidence-import.json"; do
	cp "$victim" "$T/victim.keep"
	python3 - "$victim" <<'PY'
import re, sys
from pathlib import Path
p = Path(sys.argv[1])
b = bytearray(p.read_bytes())
i = re.search(rb"[0-9a-f]{64}", b).start()
b[i] = ord("a") if b[i] != ord("a") else ord("b")
p.write_bytes(bytes(b))
PY
	tc next --session "$CS"
	case $victim in
	"$PS") want="imported parent session digest mismatch" ;;
	*phase-result.json) want="imported BASE/SMAP result digest mismatch" ;;
	*) want="evidence import digest mismatch" ;;
	esac
	check "one changed byte in $(basename "$victim") is refused on the next load" \
	    test "$out" = "$(refusal "$want")"
	cp "$T/victim.keep" "$victim"
done
tc next --session "$CS"
expect_rc 0 "the untouched derived session loads"

finish
