#!/usr/bin/env bash
# test_report_html_analysis.sh - "tunectl report html --analysis" (issue 32,
# item 6): the per-SK verdicts of the analysis "tunectl analyze fusion"
# writes on the eval fixture drawn as table rows with their bars; verdicts
# of every classification (a re-fingerprinted copy) drawn with their
# improvement and noise band; a tampered fingerprint, another schema and
# the analysis as its own output refused with exit 1 and nothing written;
# a <script> in an SK name escaped.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
lacks() { ! grep -qF "$@"; }	# lacks STRING FILE
has() { grep -qF "$@"; }	# has STRING FILE

# The analysis of the eval fixture, as test_analyze.sh produces it.
mkdir -p "$T/run/out"
cp -r "$FIX/in" "$T/run/in"
chmod -R u+w "$T/run"
read -r -a ARGV < "$FIX/afp-pipeline/command"
(cd "$T/run" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]:1}" > /dev/null 2>&1)
rc=$?
expect_rc 0 "tunectl analyze fusion writes the fixture's analysis"
A=$T/run/out/profiling-analysis-result.json

tc report html --analysis "$A" --out "$T/fix.html"
expect_rc 0 "report html --analysis draws the fixture's analysis"
expect_out "$T/fix.html" "it prints the path it wrote"
H=$T/fix.html
check "one SK row" [ "$(grep -o '<tr class="sk">' "$H" | wc -l)" -eq 1 ]
check "the row names the SK and its id" \
    has 'sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_VectorPost_hash<br/><code>sk-1b4f45ffb623b1936623a8a3a184941ce2a66eb658a61db823e139ad0951585b</code>' "$H"
check "the row shows insufficient_evidence/reprofile" \
    has '<td class="missing">insufficient_evidence</td><td class="action missing"><b>reprofile</b></td>' "$H"
check "no improvement or noise band is invented" \
    has '<td class="improvement">n/a</td><td class="noise">n/a</td>' "$H"
check "the bar says there is no measurement" has '>no measurement</text>' "$H"
check "the mapping method, status and confidence" \
    has '<code>sk_meta_node_ids</code><br/>status: none<br/>confidence: diagnostic_only' "$H"
check "the evidence errors" \
    has '<code>structural_collection_manifests_missing</code>, <code>cross_compile_runtime_id_not_identity</code>, <code>baseline_mapping_missing</code>, <code>baseline_statistics_missing</code>' "$H"
check "the summary counts the actions" has '<b class="missing">reprofile</b> 1.' "$H"
check "the page is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$H"

# The default output: the analysis path with .html for .json.
tc report html --analysis "$A"
expect_rc 0 "without --out the view is written beside the analysis"
check "as profiling-analysis-result.html" [ -s "$T/run/out/profiling-analysis-result.html" ]

# edit IN OUT PY: OUT is IN with the Python statements PY applied to d
# and its analysis_content_fingerprint recomputed
edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import copy, hashlib, json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
d.pop("analysis_content_fingerprint", None)
c = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
d["analysis_content_fingerprint"] = hashlib.sha256(c.encode()).hexdigest()
json.dump(d, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
PY
}

# Three verdicts of every kind, one named with markup.
edit "$A" "$T/multi.json" '
s = d["per_sk_decisions"][0]
rows = []
for name, cls, act, imp, noise, err in [
        ("sk_good", "beneficial", "keep", 28.61, 3.31, []),
        ("sk_flat", "neutral", "block", 0.68, 3.0, []),
        ("<script>alert(1)</script>\"&\x27", "regressed", "prune", -33.33, 3.0, ["x<y>"])]:
    r = copy.deepcopy(s)
    r.update(name=name, classification=cls, action=act, improvement_pct=imp,
             improvement_us=imp / 4, noise_threshold_pct=noise, evidence_errors=err,
             mapping_method="kernel_projection_structural",
             mapping_confidence="exact_projected_trace", candidate_binding_status="bound")
    rows.append(r)
d["per_sk_decisions"] = rows'
tc report html --analysis "$T/multi.json" --out "$T/multi.html"
expect_rc 0 "a re-fingerprinted analysis of three verdicts is drawn"
H=$T/multi.html
check "three SK rows" [ "$(grep -o '<tr class="sk">' "$H" | wc -l)" -eq 3 ]
check "three bars" [ "$(grep -o '<svg class="bar"' "$H" | wc -l)" -eq 3 ]
check "beneficial/keep with its improvement and noise band" \
    has '<td class="ok">beneficial</td><td class="action ok"><b>keep</b></td><td class="improvement">+28.61% (+7.152 us)</td><td class="noise">&#177;3.31%</td>' "$H"
check "neutral/block" has '<td class="missing">neutral</td><td class="action bad"><b>block</b></td><td class="improvement">+0.68%' "$H"
check "regressed/prune" has '<td class="bad">regressed</td><td class="action bad"><b>prune</b></td><td class="improvement">-33.33%' "$H"
check "the beneficial bar is green, right of 0" has 'fill="#2e7d32"' "$H"
check "the regressed bar is red" has 'fill="#c62828"' "$H"
check "the noise band of the widest scale: +-3.31% of +-36.66%" \
    has '<rect class="noise" x="91.0" y="0" width="18.1"' "$H"
check "the summary counts each action" \
    has '<b class="ok">keep</b> 1, <b class="bad">prune</b> 1, <b class="bad">block</b> 1, <b class="missing">reprofile</b> 0.' "$H"
check "the <script> of an SK name is never markup" lacks '<script' "$H"
check "it is escaped text" has '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;' "$H"
check "an evidence error is escaped too" has '<code>x&lt;y&gt;</code>' "$H"
check "the hostile page is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$H"

# Numbers of the wrong kind or size, an SK that is no object, thresholds
# missing: drawn as n/a or clamped, never as inf or nan.
edit "$A" "$T/odd.json" '
s = d["per_sk_decisions"][0]
big = copy.deepcopy(s); big.update(improvement_pct=1.7e308, noise_threshold_pct="3", improvement_us=None)
neg = copy.deepcopy(s); neg.update(improvement_pct=-1.7e308, noise_threshold_pct=-2.0, name=7)
d["per_sk_decisions"] = [big, neg, 42, None]
d["thresholds"] = {"min_relative_change_pct": "x"}'
tc report html --analysis "$T/odd.json" --out "$T/odd.html"
expect_rc 0 "odd numbers and entries are drawn"
check "four rows" [ "$(grep -o '<tr class="sk">' "$T/odd.html" | wc -l)" -eq 4 ]
check "no inf or nan on the page" bash -c '! grep -qiE "inf|nan" "$1"' _ "$T/odd.html"
check "bars stay inside their 200 px" \
    python3 -c 'import re, sys; v = [float(x) for x in re.findall(r"(?:x|width)=\"(-?[0-9.e+]+)\"", open(sys.argv[1]).read())]; sys.exit(not all(0 <= x <= 200 for x in v))' "$T/odd.html"
check "the odd page is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/odd.html"

# A tampered document: the fingerprint no longer matches.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["per_sk_decisions"][0]["action"] = "keep"
json.dump(d, open(sys.argv[2], "w"))' "$A" "$T/tampered.json"
tc report html --analysis "$T/tampered.json" --out "$T/tampered.html"
expect_rc 1 "a tampered analysis is refused with exit 1"
expect_out "analysis_content_fingerprint does not match" "the refusal says why"
check "nothing is written for it" [ ! -e "$T/tampered.html" ]

edit "$A" "$T/old.json" 'd["schema_version"] = "1.1"'
tc report html --analysis "$T/old.json" --out "$T/old.html"
expect_rc 1 "an analysis of schema 1.1 is refused"
expect_out 'schema_version is not \"1.2\"' "the refusal names the schema"
check "nothing is written for it" [ ! -e "$T/old.html" ]

cp "$A" "$T/self.json"
tc report html --analysis "$T/self.json" --out "$T/self.json"
expect_rc 1 "the analysis is never its own output"
check "the analysis is left as it was" cmp -s "$A" "$T/self.json"

tc report html --analysis "$A" --session "$T/nowhere"
expect_rc 2 "--analysis and --session together are a usage error"
tc report html
expect_rc 2 "neither --analysis nor --session is a usage error"

finish
