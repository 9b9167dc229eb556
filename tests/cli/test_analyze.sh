#!/usr/bin/env bash
# test_analyze.sh - "tunectl analyze fusion" and its launcher
# share/tools/analyze_profiler.py: the reference's recorded run on its eval
# fixture reproduced (JSON after canonical form, Markdown byte for byte),
# the content fingerprint recomputable, exit 2 with nothing written for
# usage and input errors, and the CSV reader on what msprof really writes.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
REC=$FIX/afp-pipeline

# stage DIR: a copy of the fixture inputs beside an empty out/
stage() {
	rm -rf "$1"
	mkdir -p "$1/out"
	cp -r "$FIX/in" "$1/in"
	chmod -R u+w "$1"
}

canon() { "$TUNECTL_BIN" json canonical "$1"; }

# the recorded argv, without the tool's name
read -r -a ARGV < "$REC/command"
ARGV=("${ARGV[@]:1}")

stage "$T/run"
(cd "$T/run" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" > stdout.txt 2> stderr.txt)
rc=$?
expect_rc 0 "the recorded eval-fixture run exits 0"
check "the analysis equals the reference's after canonical JSON" \
    [ "$(canon "$T/run/out/profiling-analysis-result.json")" = "$(canon "$REC/out/profiling-analysis-result.json")" ]
check "the zh Markdown report equals the reference's byte for byte" \
    cmp -s "$T/run/out/profiling-analysis-report.md" "$REC/out/profiling-analysis-report.md"
check "stdout is the written document" \
    cmp -s "$T/run/stdout.txt" "$T/run/out/profiling-analysis-result.json"
check "every decision of the legacy inputs is insufficient_evidence/reprofile" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not all((x["classification"],x["action"])==("insufficient_evidence","reprofile") for x in d["per_sk_decisions"]))' \
    "$T/run/out/profiling-analysis-result.json"
check "analysis_content_fingerprint is the ASCII canonical SHA-256 of the rest" \
    python3 -c '
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
fp = d.pop("analysis_content_fingerprint")
c = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
sys.exit(hashlib.sha256(c.encode()).hexdigest() != fp)' "$T/run/out/profiling-analysis-result.json"

# The content fingerprint is taken while the document is written and its
# placeholder overwritten in the file: found wherever the stream's pieces
# cut the text before it (agent ids of 1 to 130,000 bytes, some of two-byte
# characters, so that the document's UTF-8 and the canonical ASCII differ).
fp_ok=yes
for n in 1 16380 32700 32745 32760 32768 32790 65500 130000; do
	args=("${ARGV[@]}")
	for i in "${!args[@]}"; do
		if [ "${args[$i]}" = --analysis-agent-id ]; then
			if [ $((n % 2)) -eq 0 ]; then
				args[i + 1]=$(python3 -c 'import sys; print("\u00e9" * (int(sys.argv[1]) // 2))' "$n")
			else
				args[i + 1]=$(head -c "$n" /dev/zero | tr '\0' a)
			fi
		fi
	done
	stage "$T/fp"
	if ! (cd "$T/fp" && "$TUNECTL_BIN" analyze fusion "${args[@]}" > stdout.txt 2> stderr.txt) ||
	    ! python3 -c '
import hashlib, json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw)
fp = d.pop("analysis_content_fingerprint")
c = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
sys.exit(hashlib.sha256(c.encode()).hexdigest() != fp or
         raw != (json.dumps(dict(d, analysis_content_fingerprint=fp), sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode() or
         open(sys.argv[2], "rb").read() != raw)' "$T/fp/out/profiling-analysis-result.json" "$T/fp/stdout.txt"; then
		fp_ok="no (agent id of $n bytes)"
		break
	fi
done
expect_eq "$fp_ok" yes "the content fingerprint lands in the document however long the text before it"

# The launcher: the same argv, the same files, no exit 69.
stage "$T/launch"
(cd "$T/launch" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" "${ARGV[@]}" > stdout.txt 2> stderr.txt)
rc=$?
expect_rc 0 "analyze_profiler.py with the reference's argv runs the analysis"
check "the launcher writes the same analysis" \
    cmp -s "$T/launch/out/profiling-analysis-result.json" "$T/run/out/profiling-analysis-result.json"
check "the launcher writes the same report" \
    cmp -s "$T/launch/out/profiling-analysis-report.md" "$T/run/out/profiling-analysis-report.md"
if command -v python3 >/dev/null; then
	(cd "$T/launch" && rm -f out/* && TUNECTL=$TUNECTL_BIN python3 "$TUNECTL_SRC/share/tools/analyze_profiler.py" "${ARGV[@]}" > /dev/null 2>&1)
	rc=$?
	expect_rc 0 "python3 analyze_profiler.py works as the reference's workers call it"
fi

# Run by the launcher, usage and errors name the reference's program as
# its argparse does; run directly, tunectl's.
(cd "$T/launch" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    --sk-meta x --json-out y > stdout.txt 2> stderr.txt)
rc=$?
err=$(cat "$T/launch/stderr.txt")
expect_rc 2 "the launcher: missing required flags exit 2"
expect_eq "$(head -n 2 "$T/launch/stderr.txt")" \
    "usage: analyze_fusion_performance.py [-h] --baseline-profile BASELINE_PROFILE
                                     --candidate-profile CANDIDATE_PROFILE" \
    "the launcher's usage is argparse's for analyze_fusion_performance.py"
expect_eq "$(tail -n 1 "$T/launch/stderr.txt")" \
    "analyze_fusion_performance.py: error: the following arguments are required: --baseline-profile, --candidate-profile, --baseline-config, --candidate-config, --baseline-workload, --candidate-workload, --declared-change-set, --candidate-name, --experiment-id, --round-id, --analysis-agent-id, --source-revision" \
    "the launcher lists every missing flag after the reference's program name"
(cd "$T/launch" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    "${ARGV[@]}" --profile > stdout.txt 2> stderr.txt)
rc=$?
expect_eq "$rc $(tail -n 1 "$T/launch/stderr.txt")" \
    "2 analyze_fusion_performance.py: error: unrecognized arguments: --profile" \
    "the launcher names the reference's program for an unrecognized flag"
(cd "$T/launch" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" \
    --help > stdout.txt 2> stderr.txt)
rc=$?
expect_eq "$rc $(head -c 36 "$T/launch/stdout.txt")" \
    "0 usage: analyze_fusion_performance.py" "the launcher's --help shows the reference's usage"
tc analyze fusion --sk-meta x --json-out y
expect_rc 2 "run directly: missing required flags exit 2"
expect_eq "${err%%$'\n'*} / ${err##*$'\n'}" \
    "usage: tunectl analyze fusion [-h] --baseline-profile BASELINE_PROFILE / tunectl analyze fusion: error: the following arguments are required: --baseline-profile, --candidate-profile, --baseline-config, --candidate-config, --baseline-workload, --candidate-workload, --declared-change-set, --candidate-name, --experiment-id, --round-id, --analysis-agent-id, --source-revision" \
    "run directly, usage and error are tunectl's"
TUNECTL_PROG=analyze_sk_meta.py tc analyze fusion --sk-meta x
expect_err "tunectl analyze fusion: error: " "TUNECTL_PROG naming another program changes nothing"

# --help describes every flag, the retired ones included.
tc analyze fusion --help
expect_rc 0 "--help exits 0"
for flag in --baseline-profile --candidate-profile --sk-meta --baseline-config \
    --candidate-config --baseline-workload --candidate-workload --declared-change-set \
    --candidate-name --experiment-id --round-id --analysis-agent-id --source-revision \
    --sk-prof --environment-evidence --source-scope-map --source-root \
    --baseline-collection-manifest --profile-collection-manifest \
    --min-relative-change-pct --min-absolute-change-us --min-occurrences --json-out \
    --markdown-out --profile --replay-evidence --compat-collection-manifest \
    --verify-collection-manifest; do
	case $out in *"$flag"*) ;; *) not_ok "--help names $flag"; continue ;; esac
done
ok "--help names every flag, retired ones too"

# run ARGS...: the recorded argv with changes, from a fresh stage
run() {
	stage "$T/e"
	(cd "$T/e" && "$TUNECTL_BIN" analyze fusion "$@" > stdout.txt 2> stderr.txt)
	rc=$?
	err=$(cat "$T/e/stderr.txt")
}
nothing_written() {
	check "$1: nothing is written" [ -z "$(ls -A "$T/e/out")" ]
}
with() {	# with FLAG VALUE: ARGV with FLAG's value replaced
	local f=$1 v=$2 i out=()
	for ((i = 0; i < ${#ARGV[@]}; i++)); do
		if [ "${ARGV[$i]}" = "$f" ]; then
			out+=("$f" "$v")
			i=$((i + 1))
		else
			out+=("${ARGV[$i]}")
		fi
	done
	printf '%s\0' "${out[@]}"
}
run_with() {
	local a=()
	while IFS= read -r -d '' x; do a+=("$x"); done < <(with "$1" "$2")
	run "${a[@]}" "${@:3}"
}

run "${ARGV[@]}" --profile x
expect_rc 2 "a retired flag is a usage error"
expect_err "unrecognized arguments: --profile" "the retired flag is named"
nothing_written "retired flag"

# argparse names every argument it cannot place, values included, in one error
run "${ARGV[@]}" --a --b=1 stray --profile
expect_rc 2 "several unrecognized arguments are a usage error"
expect_eq "${err##*$'\n'}" "tunectl analyze fusion: error: unrecognized arguments: --a --b=1 stray --profile" \
    "every unrecognized argument is listed, in order, as argparse lists them"
nothing_written "several unrecognized arguments"
run --a --json-out out/x.json
expect_eq "${err##*$'\n'}" "tunectl analyze fusion: error: the following arguments are required: --baseline-profile, --candidate-profile, --sk-meta, --baseline-config, --candidate-config, --baseline-workload, --candidate-workload, --declared-change-set, --candidate-name, --experiment-id, --round-id, --analysis-agent-id, --source-revision" \
    "missing required flags are reported before unrecognized ones, as argparse does"

run_with --round-id S2-R1
expect_rc 2 "an Rn round is refused"
expect_err "--round-id must belong to --candidate-name and use AUTO/BASE/Pn/Rn/FINAL" "the round rule is quoted"

run_with --candidate-name " S2"
expect_rc 2 "an untrimmed candidate name is refused"
expect_err "--candidate-name must be a non-empty trimmed string" "the trimmed-string rule is quoted"

run "${ARGV[@]}" --min-occurrences 0
expect_rc 2 "--min-occurrences 0 is refused"
expect_err "--min-occurrences must be at least 1" "the floor is quoted"

run_with --sk-meta in/pipeline/baseline.csv
expect_rc 2 "--sk-meta must be a directory"
expect_err "in/pipeline/baseline.csv: sk_meta must be an existing directory" "the sk_meta error names the path"
nothing_written "sk_meta not a directory"

run_with --json-out in/pipeline/baseline.csv
expect_rc 2 "an output that is an input is refused"
expect_err "output path conflicts with an input artifact" "the conflict is named"

# an output reached through a symlink to an input is the same conflict, and
# the input is left as it was
stage "$T/e"
ln -s ../in/pipeline/baseline.csv "$T/e/out/link.json"
cp "$T/e/in/pipeline/baseline.csv" "$T/baseline.before"
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion $(with --json-out out/link.json | tr '\0' ' ') >/dev/null 2>stderr.txt); rc=$?
expect_rc 2 "an output symlinked to an input is refused"
check "the symlinked input is untouched" cmp -s "$T/baseline.before" "$T/e/in/pipeline/baseline.csv"

run_with --markdown-out out/profiling-analysis-result.json
expect_rc 2 "one path for both outputs is refused"
expect_err "JSON and Markdown output paths must be distinct" "the distinct-outputs rule is quoted"

stage "$T/e"
mkdir -p "$T/e/out/d.json"
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion $(with --json-out out/d.json | tr '\0' ' ') >/dev/null 2>stderr.txt); rc=$?
expect_rc 2 "a directory as JSON output is refused"
check "the directory error names it" grep -q "out/d.json: JSON output must not be a directory" "$T/e/stderr.txt"

stage "$T/e"
printf '{"runtime": ' > "$T/e/in/held-out/common/baseline-config.json"
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" >/dev/null 2>stderr.txt); rc=$?
expect_rc 2 "malformed config JSON is an input error"
check "the JSON error names the file, line and column" \
    grep -q "in/held-out/common/baseline-config.json: invalid baseline config JSON: Expecting value at line 1 column 13" "$T/e/stderr.txt"
check "malformed config: nothing is written" [ -z "$(ls -A "$T/e/out")" ]

# bad profiles
csv_case() {	# csv_case NAME CONTENT: the candidate profile replaced
	stage "$T/e"
	printf '%s' "$2" > "$T/e/in/pipeline/candidate.csv"
	(cd "$T/e" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" > stdout.txt 2>stderr.txt)
	rc=$?
	err=$(cat "$T/e/stderr.txt")
}
H='Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us)'
csv_case norows "$H
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC,N/A,14
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC,0,-1
"
expect_rc 2 "a profile with no valid row is an input error"
expect_err "in/pipeline/candidate.csv: no kernel rows with start/duration" "the empty profile is named"
nothing_written "no valid row"

csv_case nosk "$H
1,0,48,5,1,static_kernel_Add_hash,Add,static,AI_CORE,0,3
"
expect_rc 2 "a candidate without SuperKernel rows is refused"
expect_err "candidate profile contains no SuperKernel occurrences" "the missing SKs are named"

# a truncated row (fewer fields than the header) has no start or duration:
# it is rejected as the reference rejects it, not read past its end
csv_case truncated "$H
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static
"
expect_rc 2 "a profile of truncated rows is an input error"
expect_err "in/pipeline/candidate.csv: no kernel rows with start/duration" "the truncated profile is named"
nothing_written "truncated rows"

# non-finite and overflowing numbers are missing values, their rows rejected
csv_case nonfinite "$H
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC,0,inf
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC,nan,3
1,0,48,99,1,sk_1_x_start_a_end_b,SuperKernel,static,MIX_AIC,0,1e400
"
expect_rc 2 "a profile of non-finite numbers is an input error"
expect_err "in/pipeline/candidate.csv: no kernel rows with start/duration" "the non-finite profile is named"
nothing_written "non-finite numbers"

# what msprof really writes: a BOM, quoted names holding commas
csv_case bom "$(printf '\xef\xbb\xbf')$H
\"1\",0,48,99,1,\"sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_VectorPost_hash\",SuperKernel,static,MIX_AIC,0,14
1,0,48,7,1,\"Add,with comma\",Add,static,AI_CORE,0,1
"
expect_rc 0 "a BOM and quoted fields are read"
check "the quoted SK name is one field" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["per_sk_decisions"][0]["raw_sk_id"] != 1)' "$T/e/out/profiling-analysis-result.json"

# A directory holding two kernel_details.csv is ambiguous.
stage "$T/e"
mkdir -p "$T/e/in/prof/a" "$T/e/in/prof/b"
cp "$FIX/in/pipeline/candidate.csv" "$T/e/in/prof/a/kernel_details.csv"
cp "$FIX/in/pipeline/candidate.csv" "$T/e/in/prof/b/kernel_details.csv"
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion $(with --candidate-profile in/prof | tr '\0' ' ') >/dev/null 2>stderr.txt); rc=$?
expect_rc 2 "two kernel_details.csv under a directory are refused"
check "the ambiguity is named" grep -q "in/prof: found multiple kernel_details.csv files; pass one exact file" "$T/e/stderr.txt"
rm "$T/e/in/prof/b/kernel_details.csv"
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion $(with --candidate-profile in/prof | tr '\0' ' ') >/dev/null 2>stderr.txt); rc=$?
expect_rc 0 "the one kernel_details.csv under a directory is read"
check "its fingerprint is that of the file's bytes" python3 -c '
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["candidate_profile_fingerprint"] != hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest())' \
    "$T/e/out/profiling-analysis-result.json" "$T/e/in/prof/a/kernel_details.csv"

# Both outputs or neither: an SK whose name carries no scope passes the
# analysis but not the report's checks.
csv_case noscope "$H
1,0,48,99,1,sk_1_unnamed,SuperKernel,static,MIX_AIC,0,14
"
expect_rc 2 "a report the renderer refuses fails the run"
expect_err "scope_actions[0].source_scope must be a non-empty string" "the renderer's check is quoted"
nothing_written "refused report"
stage "$T/e"
printf '%s' "$H
1,0,48,99,1,sk_1_unnamed,SuperKernel,static,MIX_AIC,0,14
" > "$T/e/in/pipeline/candidate.csv"
args=()
for ((i = 0; i < ${#ARGV[@]}; i++)); do
	[ "${ARGV[$i]}" = --markdown-out ] && { i=$((i + 1)); continue; }
	args+=("${ARGV[$i]}")
done
(cd "$T/e" && "$TUNECTL_BIN" analyze fusion "${args[@]}" >/dev/null 2>stderr.txt); rc=$?
expect_rc 0 "without --markdown-out the same analysis is written"
check "and its decision says why it cannot be mapped" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["per_sk_decisions"][0]
sys.exit(not {"candidate_identity_incomplete", "exact_mapping_missing"} <= set(d["evidence_errors"]))' \
    "$T/e/out/profiling-analysis-result.json"

# ---- the structural association: the recorded structural case -------------
# afp-struct-classify: collection roots built by its prep (mkcapture.py, the
# recorded runs' own tooling), three SKs projected onto the SK-off profile.
# Manifests record ctimes and the absolute capture root, so the digests of
# mask M3 differ from run to run: they are compared by which equal which.
SREC=$FIX/afp-struct-classify
stage "$T/s"
sed "s#\.\./mkcapture\.py#$FIX/mkcapture.py#" "$SREC/prep" > "$T/s/prep.sh"
(cd "$T/s" && sh prep.sh > /dev/null 2>&1)
rc=$?
expect_rc 0 "the structural case's prep builds both capture roots"
read -r -a SARGV < "$SREC/command"
SARGV=("${SARGV[@]:1}")
(cd "$T/s" && TUNECTL=$TUNECTL_BIN "$TUNECTL_SRC/share/tools/analyze_profiler.py" "${SARGV[@]}" > stdout.txt 2> stderr.txt)
rc=$?
expect_rc "$(cat "$SREC/exit_code")" "the recorded structural run exits as the reference did"
check "the structural analysis equals the reference's but for the M3 digests, which pair up alike" \
    python3 - "$SREC/out/analysis.json" "$T/s/out/analysis.json" "$SREC/stdout" "$T/s/stdout.txt" <<'EOF'
import hashlib, json, sys
MASKED = {"manifest_set_fingerprint", "profile_manifest_fingerprint", "mapping_fingerprint",
          "graph_occurrence_fingerprint", "projection_mapping", "analysis_content_fingerprint"}
MASKED_UNDER = {"manifest_content_fingerprints", "model_mapping_fingerprints"}
def walk(v, pairs, key=None, under=None):
    if isinstance(v, dict):
        return {k: walk(x, pairs, k, k if k in MASKED_UNDER else under) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x, pairs, key, under) for x in v]
    if isinstance(v, str) and (key in MASKED or under in MASKED_UNDER):
        pairs.append(v)
        return "<masked>"
    return v
exp, got = (json.load(open(f)) for f in sys.argv[1:3])
pe, pg = [], []
if walk(exp, pe) != walk(got, pg) or len(pe) != len(pg):
    sys.exit("differs outside the masked digests")
# the same partition: equal on one side exactly where equal on the other
m = {}
for a, b in zip(pe, pg):
    if m.setdefault(a, b) != b:
        sys.exit("masked digests pair up differently")
if len(set(m.values())) != len(m):
    sys.exit("masked digests pair up differently")
fp = got.pop("analysis_content_fingerprint")
c = json.dumps(got, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
if hashlib.sha256(c.encode()).hexdigest() != fp:
    sys.exit("analysis_content_fingerprint is not the digest of the rest")
text = open(sys.argv[3], encoding="utf-8").read()
for a, b in m.items():
    text = text.replace(a, b)
if text.encode() != open(sys.argv[4], "rb").read():
    sys.exit("stdout differs beyond the masked digests")
EOF
check "its zh Markdown report equals the reference's byte for byte" \
    cmp -s "$T/s/out/report.md" "$SREC/out/report.md"
check "every SK is bound by an exact projected trace" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["association_protocol"]
sys.exit(p["status"] != "associated" or p["blockers"] != [] or not all(
    x["mapping_confidence"] == "exact_projected_trace" and x["original"] for x in d["per_sk_decisions"]))' \
    "$T/s/out/analysis.json"

# A step whose SK-off stream no longer matches the graph: the projection
# blocks every SK (diagnostic only, so insufficient_evidence), the
# association itself still stands.
stage "$T/s2"
sed 's/^2,0,7,4,20,aclnnCast_Cast_0,Cast,/2,0,7,4,20,aclnnAbs_Abs_0,Abs,/' \
    "$FIX/in/held-out/struct/baseline/kernel_details.csv" > "$T/s2/base-kd.csv"
sed -e "s#\.\./mkcapture\.py#$FIX/mkcapture.py#" \
    -e "s#in/held-out/struct/baseline/kernel_details.csv#base-kd.csv#" "$SREC/prep" > "$T/s2/prep.sh"
(cd "$T/s2" && sh prep.sh > /dev/null 2>&1 && "$TUNECTL_BIN" analyze fusion "${SARGV[@]}" > /dev/null 2> err.txt)
rc=$?
expect_rc 0 "a projection that fails in one step still gives an analysis"
check "a stream unmatched in one step blocks every SK's mapping" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["association_protocol"]
ok = p["status"] == "associated" and all(
    x["mapping_method"] == "kernel_projection_structural"
    and x["mapping_confidence"] == "diagnostic_only"
    and x["mapping_blockers"] == ["kernel_projection_stream_unmapped"]
    and "candidate_binding_not_exact" in x["evidence_errors"]
    and x["original"] is None
    and (x["classification"], x["action"]) == ("insufficient_evidence", "reprofile")
    for x in d["per_sk_decisions"])
ok = ok and d["candidate_binding_evidence"]["occurrences"] == []
ok = ok and all(v["mapping_confidence"] == "diagnostic_only" for v in d["graph_alignment_proof"].values())
sys.exit(not ok)' "$T/s2/out/analysis.json"

# A candidate measured in two steps cannot be projected (three are needed):
# the association is blocked and the verdicts fall back to the legacy rung.
stage "$T/s3"
grep -v '^[34],' "$FIX/in/held-out/struct/cand-mixed/kernel_details.csv" > "$T/s3/cand-kd.csv"
sed -e "s#\.\./mkcapture\.py#$FIX/mkcapture.py#" \
    -e "s#in/held-out/struct/cand-mixed/kernel_details.csv#cand-kd.csv#" "$SREC/prep" > "$T/s3/prep.sh"
(cd "$T/s3" && sh prep.sh > /dev/null 2>&1 && "$TUNECTL_BIN" analyze fusion "${SARGV[@]}" > /dev/null 2> err.txt)
rc=$?
expect_rc 0 "a candidate of two steps still gives an analysis"
check "whose association is blocked as a failed projection" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["association_protocol"]
ok = p["status"] == "blocked" and p["blockers"] == ["kernel_projection_artifact_association_failed"]
ok = ok and "model_mapping_fingerprints" not in p and d["graph_alignment_proof"] == {}
ok = ok and all(x["mapping_confidence"] == "diagnostic_only" and x["graph_occurrence_fingerprint"] is None
    and "kernel_projection_artifact_association_failed" in x["evidence_errors"] for x in d["per_sk_decisions"])
sys.exit(not ok)' "$T/s3/out/analysis.json"

# The SK-off rows are read once for every (device, model) the candidate
# holds: a row the projection would refuse fails only its own pair's.
# Another device's rows with an invalid Step Id or a NaN start change
# nothing; the same Step Id on the projected device blocks it.
base_row_case() {	# base_row_case DIR ROW...: the baseline plus these rows
	local d=$1
	shift
	stage "$d"
	{ cat "$FIX/in/held-out/struct/baseline/kernel_details.csv"; printf '%s\n' "$@"; } > "$d/base-kd.csv"
	sed -e "s#\.\./mkcapture\.py#$FIX/mkcapture.py#" \
	    -e "s#in/held-out/struct/baseline/kernel_details.csv#base-kd.csv#" "$SREC/prep" > "$d/prep.sh"
	(cd "$d" && sh prep.sh > /dev/null 2>&1 && "$TUNECTL_BIN" analyze fusion "${SARGV[@]}" > /dev/null 2> err.txt)
}
assoc_is() {	# assoc_is FILE STATUS CONFIDENCE
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["association_protocol"]
sys.exit(p["status"] != sys.argv[2] or {x["mapping_confidence"] for x in d["per_sk_decisions"]} != {sys.argv[3]})' "$@"
}
base_row_case "$T/s4" \
    "x,1,7,1,20,aclnnAdd_Add_0,Add,static,AI_VECTOR_CORE,1000,10,0,4,0,0,0,0.5,0.05" \
    "1,1,7,2,20,aclnnAdd_Add_0,Add,static,AI_VECTOR_CORE,nan,10,0,4,0,0,0,0.5,0.05"
rc=$?
expect_rc 0 "bad SK-off rows of another device: the analysis runs"
check "and the projected device is still bound exactly" \
    assoc_is "$T/s4/out/analysis.json" associated exact_projected_trace
base_row_case "$T/s5" \
    "x,0,7,1,20,aclnnAdd_Add_0,Add,static,AI_VECTOR_CORE,1000,10,0,4,0,0,0,0.5,0.05"
rc=$?
expect_rc 0 "an invalid Step Id on the projected device: the analysis runs"
check "and its projection fails (the association is blocked)" \
    assoc_is "$T/s5/out/analysis.json" blocked diagnostic_only

# ---- collection manifests ------------------------------------------------
# capture ROLE ROOT FILE_ROLE=SRC...: a capture root as the collection
# contract leaves it (root marker, copied files, collection-manifest.json)
cat > "$T/capture.py" <<'PY'
import hashlib, json, os, shutil, sys
def cj(v): return json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
def h(v): return hashlib.sha256(cj(v).encode()).hexdigest()
role, root, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.rmtree(root, ignore_errors=True); os.makedirs(root)
start = 1_000_000_000
sess = {"schema_version": "1.0", "capture_role": role, "capture_root": os.path.abspath(root),
        "started_ns": start, "root_was_empty": True}
sess["session_fingerprint"] = h(sess)
open(os.path.join(root, ".collection-session.json"), "w").write(cj(sess) + "\n")
files = {}
for spec in sys.argv[4:]:
    fr, src = spec.split("=", 1)
    rel = os.path.basename(src) if fr in ("kernel_details", "task_time", "trace_view") else "device_0/model_7/" + os.path.basename(src)
    dst = os.path.join(root, rel); os.makedirs(os.path.dirname(dst), exist_ok=True)
    data = open(src, "rb").read(); open(dst, "wb").write(data); st = os.stat(dst)
    files.setdefault(fr, []).append({"path": rel, "sha256": hashlib.sha256(data).hexdigest(),
        "size": st.st_size, "ctime_ns": st.st_ctime_ns, "mtime_ns": st.st_mtime_ns})
wl = {"model": "pangu-synthetic", "input": [1, 128], "batch": 1, "rank": 1, "mode": "decode",
      "warmup": 2, "iterations": 5, "runtime": {"graph_mode": "max-autotune"}}
m = {"schema_version": "1.0", "capture_role": role, "capture_root": ".",
     "capture": {"session_fingerprint": sess["session_fingerprint"], "started_ns": start,
                 "finalized_ns": 4102444800000000000, "root_was_empty": True},
     "source_revision": "rev-abc123", "config": {"c": 1}, "config_fingerprint": h({"c": 1}),
     "control": {"k": 2}, "control_fingerprint": h({"k": 2}),
     "producer": {"native_pid": pid, "started_ns": start + 1, "ended_ns": start + 2,
                  "command_fingerprint": hashlib.sha256(role.encode()).hexdigest()},
     "workload": wl, "workload_fingerprint": h(wl), "files": {k: files[k] for k in sorted(files)}}
m["manifest_fingerprint"] = h(m)
open(os.path.join(root, "collection-manifest.json"), "w").write(json.dumps(m, indent=2) + "\n")
PY
stage "$T/c"
P=$T/c/in/pipeline
for f in task_time.csv trace_view.json sk_graph_origin.json sk_graph_updated.json \
    sk_fused_nodes.log sk_scope_split.log super_kernel.log; do
	echo x > "$T/c/$f"
done
python3 "$T/capture.py" baseline_profile "$T/c/cap/b" 4101 "kernel_details=$P/baseline.csv" \
    "task_time=$T/c/task_time.csv" "trace_view=$T/c/trace_view.json"
python3 "$T/capture.py" candidate_profile "$T/c/cap/c" 4202 "kernel_details=$P/candidate.csv" \
    "task_time=$T/c/task_time.csv" "trace_view=$T/c/trace_view.json" \
    "sk_graph_origin=$T/c/sk_graph_origin.json" "sk_graph_updated=$T/c/sk_graph_updated.json" \
    "sk_fused_nodes=$T/c/sk_fused_nodes.log" "sk_scope_split=$T/c/sk_scope_split.log" \
    "super_kernel=$T/c/super_kernel.log"
MB=cap/b/collection-manifest.json
MC=cap/c/collection-manifest.json
(cd "$T/c" && "$TUNECTL_BIN" analyze collection validate-set --manifest "baseline_profile=$MB" \
    --manifest "candidate_profile=$MC" > vs.txt 2> vs.err); rc=$?
expect_rc 0 "validate-set accepts a fresh capture set"
check "the summary binds both manifests with a set fingerprint" python3 -c '
import hashlib, json, sys
s = json.loads(open(sys.argv[1]).read())
f = s.pop("set_fingerprint")
c = json.dumps(s, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
sys.exit(f != hashlib.sha256(c.encode()).hexdigest() or set(s["roles"]) != {"baseline_profile", "candidate_profile"})' "$T/c/vs.txt"
(cd "$T/c" && "$TUNECTL_BIN" analyze collection validate-set --manifest "baseline_profile=$MB" > /dev/null 2> vs.err); rc=$?
expect_rc 2 "validate-set refuses a set with one profile role"
check "the role rule is quoted" grep -q "validate-set requires exactly baseline_profile and candidate_profile manifests" "$T/c/vs.err"

# the analysis records the validated set; tunectl cannot project it yet
(cd "$T/c" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" --baseline-collection-manifest "$MB" \
    --profile-collection-manifest "$MC" > /dev/null 2> an.err); rc=$?
expect_rc 0 "the analysis runs with both collection manifests"
check "the validated set is recorded and the association blocked" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["association_protocol"]
sys.exit(not (p["status"] == "blocked" and len(p["manifest_set_fingerprint"]) == 64
    and p["blockers"] == ["kernel_projection_artifact_association_failed"]
    and d["blockers"] == p["blockers"]
    and d["per_sk_decisions"][0]["mapping_blockers"][0] == p["blockers"][0]))' "$T/c/out/profiling-analysis-result.json"

printf 'tampered\n' >> "$T/c/cap/b/baseline.csv"
(cd "$T/c" && "$TUNECTL_BIN" analyze collection validate-set --manifest "baseline_profile=$MB" \
    --manifest "candidate_profile=$MC" > /dev/null 2> vs.err); rc=$?
expect_rc 2 "validate-set refuses a changed capture file"
check "the changed file is named" grep -q "artifact content fingerprint changed: baseline.csv" "$T/c/vs.err"
(cd "$T/c" && rm -f out/* && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" --baseline-collection-manifest "$MB" \
    --profile-collection-manifest "$MC" > /dev/null 2> an.err); rc=$?
check "an invalid set blocks the association" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["association_protocol"]
sys.exit(p["blockers"] != ["structural_collection_manifest_set_invalid"] or p["manifest_set_fingerprint"] is not None)' "$T/c/out/profiling-analysis-result.json"
(cd "$T/c" && rm -f out/* && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" --baseline-collection-manifest "$MB" > /dev/null 2> an.err); rc=$?
check "one manifest alone is an incomplete set" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["association_protocol"]
sys.exit(p["blockers"] != ["structural_collection_manifest_set_incomplete"] or p["status"] != "blocked")' "$T/c/out/profiling-analysis-result.json"

# begin and finalize write what validate-set and the analysis accept
stage "$T/w"
cd "$T/w"
now() { date +%s%N; }
sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
echo '{"c": 1}' > cfg.json; echo '{"k": 2}' > ctl.json
cp in/held-out/common/workload.json wl.json
tc analyze collection begin --role baseline_profile --root cap/b --session-out sess-b.json
expect_rc 0 "begin opens a baseline capture"
check "begin leaves the root marker" test -f cap/b/.collection-session.json
tc analyze collection begin --role baseline_profile --root cap/b2 --session-out cap/b2/s.json
expect_rc 2 "a session record inside the capture root is refused"
expect_err "session record must be outside the capture root" "the rule is quoted"
tc analyze collection begin --role nonsense --root cap/x --session-out sx.json
expect_rc 2 "an unknown role is refused"
tc analyze collection begin --role nonsense
expect_rc 2 "an unknown role without --root is refused"
expect_err "argument --role: invalid choice: 'nonsense' (choose from 'baseline_profile', 'candidate_compat', 'candidate_verify', 'candidate_profile')" "as argparse: the invalid choice before the missing required options"
t0=$(now)
cp in/pipeline/baseline.csv cap/b/kernel_details.csv
echo x > cap/b/task_time.csv; echo '{}' > cap/b/trace_view.json
tc analyze collection finalize --session sess-b.json --source-revision rev-abc123 --native-pid 41 \
    --started-ns "$t0" --ended-ns "$(now)" --command-fingerprint "$(sha b)" --workload wl.json \
    --config cfg.json --control ctl.json --file kernel_details=kernel_details.csv \
    --file task_time=task_time.csv --out cap/b/collection-manifest.json
expect_rc 2 "finalize refuses a capture missing a role file"
expect_err "baseline_profile missing required files: trace_view" "the missing file is named"
tc analyze collection finalize --session sess-b.json --source-revision rev-abc123 --native-pid 41 \
    --started-ns "$t0" --ended-ns "$(now)" --command-fingerprint "$(sha b)" --workload wl.json \
    --config cfg.json --control ctl.json --file kernel_details=kernel_details.csv \
    --file task_time=task_time.csv --file trace_view=trace_view.json --out cap/b/collection-manifest.json
expect_rc 0 "finalize writes the baseline manifest"
tc analyze collection begin --role candidate_profile --root cap/c --session-out sess-c.json
t0=$(now)
cp in/pipeline/candidate.csv cap/c/kernel_details.csv
mkdir -p cap/c/g
for f in task_time.csv trace_view.json g/o.json g/u.json g/f.log g/s.log g/k.log; do echo x > "cap/c/$f"; done
tc analyze collection finalize --session sess-c.json --source-revision rev-abc123 --native-pid 42 \
    --started-ns "$t0" --ended-ns "$(now)" --command-fingerprint "$(sha c)" --workload wl.json \
    --config cfg.json --control ctl.json --file kernel_details=kernel_details.csv \
    --file task_time=task_time.csv --file trace_view=trace_view.json --file sk_graph_origin=g/o.json \
    --file sk_graph_updated=g/u.json --file sk_fused_nodes=g/f.log --file sk_scope_split=g/s.log \
    --file super_kernel=g/k.log --out cap/c/collection-manifest.json
expect_rc 0 "finalize writes the candidate manifest"
tc analyze collection validate-set --manifest baseline_profile=cap/b/collection-manifest.json \
    --manifest candidate_profile=cap/c/collection-manifest.json
expect_rc 0 "the set finalize wrote validates"
tc analyze fusion "${ARGV[@]}" --baseline-collection-manifest cap/b/collection-manifest.json \
    --profile-collection-manifest cap/c/collection-manifest.json
expect_rc 0 "the analysis reads the set finalize wrote"
check "and finds it valid and bound to its profiles" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["association_protocol"]
sys.exit(p["blockers"] != ["kernel_projection_artifact_association_failed"])' out/profiling-analysis-result.json
cd "$TUNECTL_SRC"

finish
