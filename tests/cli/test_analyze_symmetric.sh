#!/usr/bin/env bash
# Symmetric streams (docs/analysis.md "The structural association"): an
# origin graph whose two streams run the same kernels, as the demo's
# multistream runs do (tests/fixtures/analysis/symmetric/mkcase.py), is
# fingerprinted in its canonical stream order and projected; the two
# SK-off streams then match either source stream, so, as in the reference,
# each SK's mapping is blocked as ambiguous, with one alternative per step.
# Streams that differ (stream 0 starts with a Cast, as the main stream of a
# batch split does: the demo's split) have one assignment: every SK is
# mapped exactly, and two SKs of one fusion identity (one scope on both
# streams) are told apart by their graph occurrence, as in the reference.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
SREC=$FIX/afp-struct-classify
S=$T/s
mkdir -p "$S/out"
cp -r "$FIX/in" "$S/in"
chmod -R u+w "$S"
(cd "$S" && "$FIX/symmetric/capture.sh" sym) > /dev/null 2>&1
rc=$?
expect_rc 0 "the symmetric case is captured"
read -r -a ARGV < "$SREC/command"
ARGV=("${ARGV[@]:1}")
ARGV=("${ARGV[@]/in\/held-out\/struct\/sk_meta/sym/sk_meta}")
pushd "$S" > /dev/null || exit 1
tc analyze fusion "${ARGV[@]}"
popd > /dev/null || exit 1
expect_rc 0 "an origin graph with symmetric streams is analysed"
check "it is projected: the association holds, each SK is blocked as ambiguous" \
    python3 - "$S/out/analysis.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["association_protocol"]
assert a["status"] == "associated" and a["blockers"] == [], a
assert sorted(a["model_mapping_fingerprints"]) == ["device:0/model:7"], a
fps = {v["profile_origin_graph_fingerprint"] for v in d["canonical_graph_fingerprints"].values()}
assert len(fps) == 1 and len(fps.pop()) == 64
for key, p in d["graph_alignment_proof"].items():
    assert p["alternative_solution_count_by_step"] == {"1": 1, "2": 1, "3": 1, "4": 1}, p
for x in d["per_sk_decisions"]:
    assert x["mapping_blockers"] == ["kernel_projection_stream_assignment_ambiguous"], x
    assert (x["classification"], x["action"]) == ("insufficient_evidence", "reprofile"), x
EOF

# (that the fingerprint does not depend on the streams' numbering is
# tests/unit/test_analysis_smap.c's)

# analyse_case NAME MKCASE-OPTIONS...: capture and analyse in $T/NAME
analyse_case() {
	local name=$1 dir=$T/$1
	shift
	mkdir -p "$dir/out"
	cp -r "$FIX/in" "$dir/in"
	chmod -R u+w "$dir"
	(cd "$dir" && "$FIX/symmetric/capture.sh" sym "$@") > /dev/null 2>&1
	expect_rc 0 "the $name case is captured"
	pushd "$dir" > /dev/null || exit 1
	tc analyze fusion "${ARGV[@]}"
	popd > /dev/null || exit 1
	expect_rc 0 "the $name case is analysed"
}

analyse_case split --split
check "distinct streams: one assignment per step, every SK exact and decisive" \
    python3 - "$T/split/out/analysis.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["association_protocol"]["status"] == "associated", d["association_protocol"]
for key, p in d["graph_alignment_proof"].items():
    assert p["alternative_solution_count_by_step"] == {"1": 0, "2": 0, "3": 0, "4": 0}, p
    assert p["mapping_confidence"] == "exact_projected_trace", p
xs = d["per_sk_decisions"]
assert len(xs) == 2
for x in xs:
    assert x["mapping_blockers"] == [] and x["mapping_confidence"] == "exact_projected_trace", x
    assert (x["classification"], x["action"]) == ("beneficial", "keep"), x
    assert "identity_disambiguation" not in x, x
EOF

analyse_case one-scope --split --one-scope
check "one fusion identity on two streams: told apart by graph occurrence, both kept" \
    python3 - "$T/one-scope/out/analysis.json" <<'EOF'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
xs = d["per_sk_decisions"]
assert len(xs) == 2 and xs[0]["identity"] == xs[1]["identity"], xs
assert xs[0]["sk_id"] != xs[1]["sk_id"], xs
for x in xs:
    assert (x["classification"], x["action"]) == ("beneficial", "keep"), x
    disc = x["identity_disambiguation"]
    assert disc == {"kind": "graph_occurrence",
                    "graph_occurrence_fingerprint": x["graph_occurrence_fingerprint"]}, disc
    blob = json.dumps({"identity": x["identity"], "discriminator": disc}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    digest = hashlib.sha256(blob.encode()).hexdigest()
    assert (x["sk_id"], x["range_id"]) == ("sk-" + digest, "range-" + digest), x
EOF

finish
