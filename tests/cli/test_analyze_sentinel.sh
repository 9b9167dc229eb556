#!/usr/bin/env bash
# Scope sentinel exclusion (scope_sentinel_exclusion_v2, docs/analysis.md
# "Scope sentinels"): the structural case afp-struct-classify captured with
# a sentinel chain in its origin graph (tests/fixtures/analysis/sentinel/
# addchain.py).  A chain every witness agrees on is excluded and the SKs
# project as without it; an incomplete chain, a non-vector one, or one an
# updated graph keeps is rejected and the graph projects with it (so the
# SKs are blocked).
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
SREC=$FIX/afp-struct-classify
S=$T/s
mkdir -p "$S/out"
cp -r "$FIX/in" "$S/in"
chmod -R u+w "$S"
read -r -a ARGV < "$SREC/command"
ARGV=("${ARGV[@]:1}")

# analyse NAME [addchain options]: capture and analyse the case with a
# chain; the analysis lands in S/out/NAME.json
analyse() {
	local name=$1
	shift
	(cd "$S" && python3 "$FIX/sentinel/addchain.py" in/held-out/struct/graph \
	    "g-$name" "$@" && python3 "$FIX/mkcapture.py" pair \
	    --baseline-kd in/held-out/struct/baseline/kernel_details.csv \
	    --candidate-kd in/held-out/struct/cand-mixed/kernel_details.csv \
	    --graph-dir "g-$name" --workload in/held-out/common/workload.json \
	    --config in/held-out/struct/assoc-config.json \
	    --control in/held-out/struct/assoc-control.json \
	    --source-revision rev-abc123 --out-dir "cap-$name") > /dev/null 2>&1 || return
	local a=("${ARGV[@]/cap\//cap-$name/}")
	a=("${a[@]/out\/analysis.json/out\/$name.json}")
	a=("${a[@]/out\/report.md/out\/$name.md}")
	pushd "$S" > /dev/null || return
	tc analyze fusion "${a[@]}"
	popd > /dev/null || return
}

# excl NAME PYTHON: check the exclusion object (e) and decisions (d)
excl() {
	python3 - "$S/out/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["association_protocol"]["model_projection_exclusions"]["device:0/model:7"]
d = {x["raw_sk_id"]: x for x in r["per_sk_decisions"]}
exec(sys.argv[2])
PY
}

KEYS='["sk:n000003", "sk:n000004", "sk:n000005", "sk:n000009", "sk:n000010", "sk:n000011"]'

analyse ok
expect_rc 0 "a graph with a sentinel chain is analysed"
check "a chain every witness agrees on is excluded, with its 16 keys and ten gates" excl ok "
assert e['status'] == 'accepted', e
assert e['candidate_node_keys'] == e['excluded_node_keys'] == $KEYS, e
assert e['function_names'] == ['sk_scope_kernel_begin_dav_3'] + ['sk_placeholder_kernel_dav_3'] * 4 + ['sk_scope_kernel_end_dav_3']
assert (e['stream_role'], e['stream_roles'], e['tags'], e['occurrence_count']) == ('sk:s000000', ['sk:s000000'], ['3'], 1)
assert (e['origin_graph_count'], e['updated_graph_count'], e['candidate_profiler_rows_checked']) == (1, 1, 12), e
assert (e['marker_namespace'], e['candidate_profiler_policy']) == (None, 'production_absence_required')
assert e['gates'] == dict.fromkeys(['complete_occurrence_partition', 'all_origin_graphs_consistent',
    'absent_from_fused_children', 'absent_from_baseline_profiler', 'absent_from_candidate_profiler',
    'absent_from_all_updated_graphs', 'post_exclusion_counts_match', 'unique_full_sequence_assignment',
    'assignment_identical_across_steps', 'all_fused_children_project_exactly'], True), e['gates']
assert e['blockers'] == [] and len(e) == 16
"
check "and the SKs project exactly, with the verdicts of the case without sentinels" excl ok "
assert r['association_protocol']['status'] == 'associated'
got = {k: (x['mapping_confidence'], x['classification']) for k, x in d.items()}
assert got == {1: ('exact_projected_trace', 'beneficial'), 2: ('exact_projected_trace', 'regressed'),
               3: ('exact_projected_trace', 'neutral')}, got
"
check "the report lists the exclusion" grep -q '| device:0/model:7 | scope\\_sentinel\\_exclusion\\_v2 | accepted | 1 | 6 | 6 | 无 |' "$S/out/ok.md"

analyse updated --updated-too
expect_rc 0 "a chain an updated graph keeps is analysed"
check "it is rejected by its gate, and the graph projects with the sentinels, so every SK is blocked" excl updated "
assert e['status'] == 'rejected' and e['excluded_node_keys'] == [], e
assert e['blockers'] == ['scope_sentinel_updated_graph_evidence_incomplete'], e['blockers']
assert e['gates']['absent_from_all_updated_graphs'] is False
assert sum(v is False for v in e['gates'].values()) == 1, e['gates']
for x in d.values():
    assert x['mapping_confidence'] == 'diagnostic_only' and x['original'] is None, x
    assert 'kernel_projection_stream_unmapped' in x['mapping_blockers'], x
"

analyse drop --drop 4
expect_rc 0 "an incomplete chain is analysed"
check "an incomplete chain is rejected by its proposal: no gates, no counts" excl drop "
assert e['status'] == 'rejected', e
assert e['blockers'] == ['scope_sentinel_chain_incomplete'], e
assert (e['gates'], e['origin_graph_count'], e['candidate_profiler_rows_checked']) == ({}, 0, 0), e
assert len(e['candidate_node_keys']) == 5 and e['stream_role'] == 'sk:s000000' and len(e) == 14
"

analyse cube --kernel-type AIC_ONLY
expect_rc 0 "a chain of cube kernels is analysed"
check "sentinels must be vector kernels" excl cube "
assert e['status'] == 'rejected' and e['blockers'] == ['scope_sentinel_not_vector_kernel'], e
"

finish
