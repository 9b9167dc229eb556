#!/usr/bin/env bash
# tunectl render-round-report: the render_round_report.py command line
# (docs/spec/reports.md "Round report"): inputs, --markdown-out, --title,
# --top-sk / --top-non-fusion checks, and load errors (exit 1).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/S1" "$T/S2"
cat >"$T/S1/sk-meta-summary.json" <<'JSON'
{"round_report": {"round_name": "S1", "effective_fusion": {"total_group_count": 3},
  "per_sk_fusion_table": [{"function": "sk_a", "child_count": 5,
    "counts_as_effective_fusion": true, "path": "/abs/sk_a.o"}],
  "non_fusion_operator_table": [{"reason": "OP_UNSUPPORT", "percent": 12.5}]},
 "metadata": {"unrelated": true}}
JSON
cat >"$T/S2/round-report.child-ge-5.json" <<'JSON'
{"effective_fusion": {}, "per_sk_fusion_table": [], "non_fusion_operator_table": []}
JSON

tc render-round-report "$T/S1/sk-meta-summary.json" --markdown-out "$T/out/nested/S1.md"
expect_rc 0 "a full metadata summary renders with exit 0"
expect_eq "$out" "" "--markdown-out prints nothing on stdout"
check "the Markdown file names the round" grep -q '^## S1$' "$T/out/nested/S1.md"
check "the Markdown file names its source" grep -q '^- 来源: `' "$T/out/nested/S1.md"
check "the Markdown file has the SK table" grep -q 'SK 融合范围明细' "$T/out/nested/S1.md"
check "the file is the Markdown plus one newline" test "$(tail -c 2 "$T/out/nested/S1.md" | od -An -c | tr -d ' ')" = '\n\n'

tc render-round-report "$T/S1/sk-meta-summary.json" "$T/S2/round-report.child-ge-5.json" --title "轮次报告" --top-sk 1 --top-non-fusion 1
expect_rc 0 "two inputs render to stdout"
expect_out "# 轮次报告" "--title replaces the heading"
expect_out "## S2" "a report without round_name is named after its directory"
expect_out "| sk_a | - | - | - | 5 | 是 | - | -/- | - | - | - | /abs/sk_a.o |" "the SK row renders the raw path"
expect_out "| - | OP_UNSUPPORT | - | 12.50% | - | - | - | - | - |" "the non-fusion row renders its percent"
expect_out "未发现 SK 融合组。" "an empty SK table is a sentence"

tc render-round-report "$T/S2/round-report.child-ge-5.json" --top-sk 0
expect_rc 2 "--top-sk 0 is a usage error"
expect_err "error: --top-sk must be >= 1" "--top-sk names its bound"
tc render-round-report "$T/S2/round-report.child-ge-5.json" --top-non-fusion 0
expect_rc 2 "--top-non-fusion 0 is a usage error"
expect_err "error: --top-non-fusion must be >= 1" "--top-non-fusion names its bound"
tc render-round-report "$T/S2/round-report.child-ge-5.json" --top-sk x
expect_rc 2 "a non-integer --top-sk is a usage error"
tc render-round-report
expect_rc 2 "no input is a usage error"
expect_err "the following arguments are required: JSON" "the missing input is named"

echo '{"effective_fusion": {}}' >"$T/partial.json"
tc render-round-report "$T/partial.json"
expect_rc 1 "a document without the round-report fields exits 1"
expect_err "ValueError: $T/partial.json: missing round-report fields: per_sk_fusion_table, non_fusion_operator_table" "the missing fields are listed"
echo '[1]' >"$T/list.json"
tc render-round-report "$T/list.json"
expect_rc 1 "a non-object document exits 1"
expect_err "ValueError: $T/list.json: expected a JSON object" "a non-object document is named"
printf '{' >"$T/broken.json"
tc render-round-report "$T/S2/round-report.child-ge-5.json" "$T/broken.json" --markdown-out "$T/none.md"
expect_rc 1 "broken JSON exits 1"
expect_err "JSONDecodeError: Expecting property name enclosed in double quotes" "broken JSON is a decode error"
check "nothing is written when an input fails" test ! -e "$T/none.md"
echo '{"effective_fusion": [1], "per_sk_fusion_table": [], "non_fusion_operator_table": []}' >"$T/bad.json"
tc render-round-report "$T/bad.json"
expect_rc 1 "a list effective_fusion exits 1"
expect_err "AttributeError: 'list' object has no attribute 'get'" "the Python error is reported"

finish
