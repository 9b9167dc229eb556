#!/usr/bin/env bash
# test_report_html.sh - the HTML report against a hostile worker (issue 17,
# items 1 and 2; docs/security.md): markup in candidate names, in the knob
# labels and in the result table's spec, metric and configs, a headline
# from a ledger the intake step produced, javascript: and control
# characters in produced artifact paths, gate reports of the wrong shape;
# and run-set directories listed with their tree digest.
#
# The byte-level checks always run.  Where Chromium is installed
# (scripts/deps.sh browser) the page is also rendered headless and the
# test asserts that no script ran; elsewhere that check is a TAP skip.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

lacks() { ! grep -q "$@"; }	# lacks PATTERN FILE
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }

# gate_report FILE STAGE NAMES...: an analyze_performance report of the
# shape tunectl's gate writes, one candidate per name (NAMES as JSON
# strings, so they may hold any character)
gate_report() {
	python3 - "$@" <<'PY'
import json, sys
out, stage, names = sys.argv[1], sys.argv[2], [json.loads(n) for n in sys.argv[3:]]
runs = [10.0, 10.1, 9.9, 10.05, 9.95]
decision = {"candidate_screening": ("screening_eligibility", "eligible"),
            "winner_option_trial": ("option_trial_evaluation", "accepted"),
            "final_promotion": ("promotion", "promoted")}.get(stage)
cands = {}
for i, n in enumerate(names):
    c = {"worst_rank_mean_ms": 9.0 + i, "improvement_pct": 10.0 - i,
         "run_worst_rank_means_ms": [9.0 + i] * 5}
    c[decision[0]] = {decision[1]: i == 0}
    cands[n] = c
doc = {"baseline": {"worst_rank_mean_ms": 10.0, "run_worst_rank_means_ms": runs},
       "baseline_stability": {"run_worst_rank_means_ms": runs, "mean_ms": 10.0,
                              "spread_pct": 2.0, "stable": True},
       "candidates": cands, "selection": {"stage": stage}}
json.dump(doc, open(out, "w"))  # ASCII: a lone surrogate stays a \ud800 escape
PY
}

PAYLOAD="</title><script>document.title='PW'+'NED'</script><title>"
PAYLOAD_JSON=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$PAYLOAD")

ctl_init "$T/x" none
mkdir -p "$R/evil" "$R/s0" "$R/stage-a" "$R/runs/set1/run-1"
# ---- intake: reports and a ledger it has no business producing -------------------------
gate_report "$R/evil/screening.json" candidate_screening "$PAYLOAD_JSON"
echo '{"schema_version": 2, "experiments": {}, "final_e2e": {"classification": "<script>document.title=1</script>", "improvement_pct": 5.0}}' >"$R/ledger.json"
# a tune freeze and baseline config whose strings are markup (the result table)
mkdir -p "$R/intake"
python3 - "$R" "$PAYLOAD" <<'PY'
import json, sys
r, p = sys.argv[1], sys.argv[2]
json.dump({"schema_version": "tunectl-tune-freeze-v1", "base_config": "intake/base.json",
           "spec": {"path": p}, "metric": {"from": "stdout", "regex": p, "unit": "<u>", "direction": "lower"},
           "gate": {"decide_by": "<i>ci</i>", "stability": {"rule": "relative"}}},
          open(r + "/intake/freeze.json", "w"))
json.dump({"schema_version": "tunectl-tune-config-v1", "variant": p, "params": {"<b>": "</code><script>x</script>"}},
          open(r + "/intake/base.json", "w"))
PY
echo '{}' >"$R/javascript:alert(1)"
echo '{}' >"$R/$(printf 'bad\001name.json')"
ctl_seal "" "result['produced_artifacts'] = ['intake/freeze.json', 'intake/base.json', 'evil/screening.json', 'ledger.json', 'javascript:alert(1)', 'bad\\u0001name.json', 'x\" onmouseover=\"alert(1).json']"
expect_rc 0 "intake seals with hostile produced artifacts (they are data)"
# ---- S0: a real stability report, measured twice ---------------------------------------
# s0/series.json (listed first) names the second series, of 4 runs, as the
# one S0 accepted; the first is drawn nowhere
gate_report "$R/s0/stability.json" final_promotion
gate_report "$R/s0/stability-2.json" final_promotion
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["baseline_stability"]["run_worst_rank_means_ms"]=[10.0, 10.1, 9.9, 10.0]; json.dump(d, open(sys.argv[1],"w"))' "$R/s0/stability-2.json"
echo '{"runset": "s0/runset-2", "stability": "s0/stability-2.json", "stable": true}' >"$R/s0/series.json"
printf 'rank0 10.0\n' >"$R/runs/set1/run-1/rank0.log"
printf 'rank1 10.1\n' >"$R/runs/set1/run-1/rank1.log"
ctl_seal "" "result['produced_artifacts'] = ['s0/series.json', 's0/stability.json', 's0/stability-2.json', 'runs/set1']"
expect_rc 0 "S0 seals"
# ---- Stage A: its own screening, with hostile candidate names ---------------------------
gate_report "$R/stage-a/screening.json" candidate_screening "$PAYLOAD_JSON" '"quote\" amp& apos'"'"' ctl\u0001 lone\ud800"' '"SK-off"'
gate_report "$R/stage-a/list.json" candidate_screening '"a"'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["candidates"]=[1]; json.dump(d, open(sys.argv[1],"w"))' "$R/stage-a/list.json"
gate_report "$R/stage-a/none.json" candidate_screening '"a"'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["candidates"]; json.dump(d, open(sys.argv[1],"w"))' "$R/stage-a/none.json"
# knob labels from the step's own documents, markup too
python3 - "$R" "$PAYLOAD" <<'PY'
import json, sys
r, p = sys.argv[1], sys.argv[2]
json.dump({"schema_version": "tunectl-tune-config-v1", "variant": p, "params": {"n": 2}},
          open(r + "/stage-a/SK-off-config.json", "w"))
json.dump({"candidates": [{"id": p, "only_change": "<img src=x onerror=alert(1)>"}]},
          open(r + "/stage-a/matrix.json", "w"))
PY
ctl_seal "" "result['produced_artifacts'] = ['stage-a/SK-off-config.json', 'stage-a/matrix.json', 'stage-a/list.json', 'stage-a/none.json', 'stage-a/screening.json']"
expect_rc 0 "Stage A seals"

H=$T/report.html
tc report html --session "$S" --output "$H"
expect_rc 0 "report html renders (a list or missing candidates crash nothing)"
check "no <script> element reaches the page" lacks -i "<script" "$H"
check "the candidate name is escaped in the Stage A chart" \
    grep -q "&lt;/title&gt;&lt;script&gt;document.title=&#39;PW&#39;+&#39;NED&#39;&lt;/script&gt;" "$H"
check "quotes, ampersands and apostrophes in a name are entities" grep -q 'quote&quot; amp&amp; apos&#39;' "$H"
check "a knob label from a config is escaped beside its candidate" \
    grep -q 'SK-off (&lt;/title&gt;&lt;script&gt;document.title=&#39;PW&#39;+&#39;NED&#39;&lt;/script&gt;&lt;title&gt; n=2)' "$H"
check "a screening matrix's only_change is escaped beside its candidate" grep -q '(&lt;img src=x onerror=alert(1)&gt;)' "$H"
check "the result table escapes the spec, metric and baseline knobs" python3 -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<section id=\"result\">.*?</section>", t, re.S)
sys.exit(0 if m and "&lt;/code&gt;&lt;script&gt;" in m.group(0) and "&lt;u&gt;" in m.group(0)
         and "&lt;i&gt;ci&lt;/i&gt;" in m.group(0) and "<img" not in t else 1)' "$H"
check "the page is well-formed XML (control characters and lone surrogates replaced)" \
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$H"
check "no control character is left in the page" python3 -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
sys.exit(1 if re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]", t) else 0)' "$H"
check "every link is relative (./...)" python3 -c '
import re, sys
hrefs = re.findall(r"href=\"([^\"]*)\"", open(sys.argv[1], encoding="utf-8").read())
sys.exit(0 if hrefs and all(h.startswith("./") for h in hrefs) else 1)' "$H"
check "the javascript: artifact is a relative link to the file" grep -q 'href="./javascript%3Aalert%281%29"' "$H"
check "an artifact path that is no file is text, not an attribute" lacks 'onmouseover="' "$H"
check "an artifact path that is no file is not linked" lacks 'href="./x%22' "$H"
check "the headline does not come from a ledger the intake step produced" grep -q "<h1>No final clean E2E yet</h1>" "$H"
check "the intake's screening report is not drawn; Stage A's own is (3 candidates)" \
    grep -q 'data-chart="stage_a" data-points="3"' "$H"
check "the S0 chart is drawn from the report s0/series.json names (4 runs)" grep -q 'data-chart="s0" data-points="4"' "$H"

# ---- run-set directories: their tree digest ----------------------------------------------
tree=$("$TUNECTL_BIN" sha256 --tree "$R/runs/set1" | cut -d' ' -f1)
check "a produced run-set directory is listed with its tree digest" grep -q "<code>$tree</code>" "$H"
check "the directory row counts its files" grep -q '2 files, 22' "$H"
lacks -q "directory or missing" "$H"
check "no artifact is shown as '(directory or missing)'" test $? = 0
ln -s /etc "$R/runs/set1/escape"
tc report html --session "$S" --output "$T/link.html"
check "a run set holding a symlink is named, not digested" grep -q "symbolic link" "$T/link.html"
rm "$R/runs/set1/escape"

# ---- a result edited after its seal is not evidence ---------------------------------------
cp "$R/phases/stage-a-scope-selection/phase-result.json" "$T/keep.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["summary_zh"]="改过"; json.dump(d, open(sys.argv[1],"w"), ensure_ascii=False)' \
    "$R/phases/stage-a-scope-selection/phase-result.json"
tc report html --session "$S" --output "$T/edited.html"
check "an edited result's reports are not drawn" grep -q 'Stage A did not run' "$T/edited.html"
check "an edited result is marked in the evidence table" grep -q "does not match its seal" "$T/edited.html"
cp "$T/keep.json" "$R/phases/stage-a-scope-selection/phase-result.json"

# ---- gate reports of the wrong shape crash nothing (item 2) --------------------------------
for shape in list none; do
	ctl_init "$T/shape-$shape" none
	mkdir -p "$R/stage-a"
	cp "$T/x/artifacts/stage-a/$shape.json" "$R/stage-a/$shape.json"
	ctl_seal
	ctl_seal
	ctl_seal "" "result['produced_artifacts'] = ['stage-a/$shape.json']"
	tc report html --session "$S" --output "$T/shape-$shape.html"
	expect_rc 0 "a screening report whose candidates are $shape: report html renders"
	check "a screening report whose candidates are $shape is not drawn" grep -q "Stage A did not run" "$T/shape-$shape.html"
done

# ---- rendered in Chromium: no script runs ----------------------------------------------------
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	skip "chromium is not installed (scripts/deps.sh browser): the page was not rendered"
else
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
	    --disable-component-update --disable-sync --no-first-run --disable-quic \
	    --user-data-dir="$T/profile" --dump-dom "file://$H" >"$T/dom.html" 2>"$T/chromium.log"
	r=$?
	check "chromium rendered the page (timeout 120 s)" test "$r" = 0 -a -s "$T/dom.html"
	check "in chromium the title is the report's: no script ran" \
	    grep -q "<title>tunectl report: $CTL_ID</title>" "$T/dom.html"
	check "in chromium no script changed anything" lacks PWNED "$T/dom.html"
	check "in chromium the DOM holds no script element" lacks -i "<script" "$T/dom.html"
	check "in chromium no link has a javascript: target" lacks -i 'href="javascript' "$T/dom.html"
fi

finish
