#!/usr/bin/env bash
# source_scope_map_v2 bundles (docs/analysis.md "Source scope maps"): the
# fail-closed loader, "tunectl analyze smap validate", and the exact rung
# of "tunectl analyze fusion --source-scope-map".  The structural case
# afp-struct-classify is captured as in test_analyze.sh, analysed once, and
# tests/fixtures/analysis/smap/mkbundle.py writes a bundle for its SKs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smap_lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
S=$T/s

# tcd DIR args...: tc run from DIR
tcd() {
	local d=$1
	shift
	pushd "$d" > /dev/null || return
	tc "$@"
	popd > /dev/null || return
}

smap_case_prep "$S"
tcd "$S" analyze fusion "${ARGV[@]}"
expect_rc 0 "the structural case analyses without a map"

# mkbundle DIR [--only N ...]: a bundle for the analysed SKs in S/DIR, the
# current source in S/DIR-src
mkbundle() {
	local dir=$1
	shift
	(cd "$S" && python3 "$FIX/smap/mkbundle.py" --analysis out/analysis.json \
	    --candidate-manifest cap/candidate/collection-manifest.json \
	    --baseline-manifest cap/baseline/collection-manifest.json \
	    --source-revision rev-abc123 --out "$dir" --source-out "$dir-src" "$@")
}
mkbundle smap
CSHA=$(sha256sum "$S/cap/candidate/collection-manifest.json" | cut -c1-64)
BSHA=$(sha256sum "$S/cap/baseline/collection-manifest.json" | cut -c1-64)
MAP=smap/source-scope-map-v2.json

validate() {	# validate MAP [extra args]: the bound validate of a bundle
	local map=$1
	shift
	tcd "$S" analyze smap validate --map "$map" --source-revision rev-abc123 \
	    --candidate-manifest-sha256 "$CSHA" --baseline-manifest-sha256 "$BSHA" \
	    --source-root smap-src "$@"
}

validate "$MAP"
expect_rc 0 "a sealed bundle validates"
expect_eq "$out" "exact" "validate prints only the status"

echo '{"task_ranges": []}' > "$S/legacy.json"
tcd "$S" analyze smap validate --map legacy.json --source-revision rev-abc123
expect_eq "$rc:$out" "0:diagnostic_only" "a map without the v2 protocol is diagnostic_only"

tcd "$S" analyze smap validate --map "$MAP" --source-revision rev-other
expect_rc 2 "another source revision is refused"
expect_err "error: source_scope_map_v2 source revision differs from --source-revision" \
    "in the reference's words"

validate "$MAP" --candidate-manifest-sha256 "$BSHA"
expect_rc 2 "a map bound to another candidate manifest is refused"
expect_err "source map is not bound to the current candidate collection manifest" \
    "the candidate binding is named"

validate "$MAP" --candidate-manifest-sha256 ABC
expect_err "expected candidate collection manifest SHA-256 must be a lowercase SHA-256 hex digest" \
    "an expected SHA-256 must be one"

# build: the same map from the same artifacts
BUILD=(analyze smap build --artifact-root smap --provenance-dag smap/provenance-dag.json
    --source-manifest smap/source-manifest.json --sk-source-map smap/sk-source-map.json
    --block-instance-inventory smap/block-instance-inventory.json
    --calibration-projection smap/calibration-projection.json
    --original-fused-inventory smap/original-fused-inventory.json
    --unit-assignments smap/unit-assignments.json
    --original-candidate-collection-manifest smap/collections/original_candidate_collection_manifest.json
    --calibration-collection-manifest smap/collections/calibration_collection_manifest.json
    --baseline-collection-manifest smap/collections/baseline_collection_manifest.json
    --source-snapshot-root smap/snapshot)
tcd "$S" "${BUILD[@]}" --stable-marker-revision rev-abc123 --output smap/built.json
expect_eq "$rc:$out" "0:" "build writes the map and prints nothing"
check "the built map is the bundle's map" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a == b, (a, b)' "$S/smap/built.json" "$S/$MAP"
validate smap/built.json
expect_eq "$rc:$out" "0:exact" "the built map validates"
tcd "$S" "${BUILD[@]}" --output smap/x.json
expect_rc 2 "build needs a revision"
expect_err "error: one of the arguments --stable-marker-revision --stable-source-revision is required" \
    "as argparse says"
tcd "$S" "${BUILD[@]}" --stable-source-revision rev-abc123 --output smap/x.json
expect_err "error: stable_source source map is missing marker-only evidence: calibration_source_manifest, marker_only_calibration, calibration_source_snapshot_root" \
    "a stable_source build needs the marker-only evidence"
tcd "$S" "${BUILD[@]/smap\/unit-assignments.json/legacy.json}" --stable-marker-revision r --output smap/x.json
expect_err "error: artifact $(cd "$S" && pwd -P)/legacy.json is outside $(cd "$S/smap" && pwd -P)" \
    "an artifact outside the root is refused"
check "and nothing is written" test ! -e "$S/smap/x.json"

# tamper PYTHON: copy the bundle to S/t and run PYTHON on its map (m)
tamper() {
	rm -rf "$S/t" "$S/t-src"
	cp -r "$S/smap" "$S/t"
	cp -r "$S/smap-src" "$S/t-src"
	python3 - "$S/t/source-scope-map-v2.json" "$1" <<'PY'
import hashlib, json, sys
path, code = sys.argv[1], sys.argv[2]
m = json.load(open(path))
def resign(m):	# seal the edited map again
    p = m["provenance"]
    p.pop("source_scope_map_content_fingerprint", None)
    p["source_scope_map_content_fingerprint"] = hashlib.sha256(json.dumps(
        m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
exec(code)
json.dump(m, open(path, "w"), indent=2)
PY
}
tvalidate() {
	tcd "$S" analyze smap validate --map t/source-scope-map-v2.json \
	    --source-revision rev-abc123 --source-root t-src "$@"
}

tamper 'm["schema_version"] = "3.0"'
tvalidate
expect_err "error: source_scope_map_v2 schema_version must be 2.0 or 2.1" "an unknown schema is refused"
tamper 'm["extra"] = 1'
tvalidate
expect_err "error: source_scope_map_v2 has unknown fields: extra" "an unknown top-level key is refused"
tamper 'del m["provenance"]["sk_source_map"]'
tvalidate
expect_err "error: provenance is missing fields: sk_source_map" "a missing artifact is refused"
tamper 'm["source_ranges"][0]["unit_id"] = "u9"'
tvalidate
expect_err "error: source_scope_map_v2 content fingerprint mismatch" "an edited range breaks the content fingerprint"
# test_v2_bundle_rejects_range_identity_tampering_after_resigning
tamper 'm["source_ranges"][0]["source_scope"] = "forged.scope"; resign(m)'
tvalidate
expect_err "error: source range 0 source_scope mismatch" "a forged range identity is refused even when re-sealed"
tamper 'm["source_ranges"][0]["boundary"]["end_offset"] += 1; resign(m)'
tvalidate
expect_err "error: source range 0 boundary differs from source manifest" "a widened interval is refused"
tamper 'm["source_ranges"].append(dict(m["source_ranges"][0])); resign(m)'
tvalidate
expect_err "error: duplicate source range fingerprint " "a range listed twice is refused"

tamper ''
echo "tampered" >> "$S/t/sk-source-map.json"
tvalidate
expect_err "error: provenance.sk_source_map SHA-256 mismatch" "an edited artifact no longer matches its SHA-256"
tamper ''
printf 'x' >> "$S/t-src/model.dsl"
tvalidate
expect_err "error: current source differs from archived source snapshot: model.dsl" \
    "a current source that differs from the snapshot is refused"
tvalidate --source-root missing-dir
expect_err "error: current source root must be an existing directory" "the source root must exist"
tamper ''
printf 'x' >> "$S/t/snapshot/model.dsl"
tvalidate
expect_err "error: snapshot file evidence mismatch: " "an edited snapshot file is refused"
tamper ''
rm "$S/t/logs/fused-log.json"
tvalidate
expect_err "error: provenance DAG artifact mismatch: fused_log" "the DAG seals the log evidence"

# reseal KEY PYTHON: copy the bundle to S/t, run PYTHON on the artifact
# provenance.KEY names (a), then seal it again everywhere it is sealed: its
# SHA-256 in the provenance and the DAG, the DAG's, the content fingerprint
reseal() {
	tamper ''
	python3 - "$S/t" "$1" "$2" <<'PY'
import hashlib, json, os, sys
root, key, code = sys.argv[1:]
def h(v):
    return hashlib.sha256(json.dumps(v, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode()).hexdigest()
def seal(v, k):
    v.pop(k, None)
    v[k] = h(v)
def load(rel):
    return json.load(open(os.path.join(root, rel)))
def save(rel, v):
    with open(os.path.join(root, rel), "w") as f:
        json.dump(v, f, indent=2)
    return hashlib.sha256(open(os.path.join(root, rel), "rb").read()).hexdigest()
mpath = "source-scope-map-v2.json"
m = load(mpath)
p = m["provenance"]
rel = p[key]["relative_path"]
a = load(rel)
exec(code)
p[key]["sha256"] = sha = save(rel, a)
dag = load(p["provenance_dag"]["relative_path"])
for n in dag["nodes"]:
    if n["relative_path"] == rel:
        n["sha256"] = sha
p["provenance_dag"]["sha256"] = save(p["provenance_dag"]["relative_path"], dag)
p.pop("source_scope_map_content_fingerprint")
p["source_scope_map_content_fingerprint"] = h(m)
save(mpath, m)
PY
}

# the sk-source-map is rebuilt from the artifacts it was made from
# (build_sk_source_map): a re-sealed edit of it, or of what it was built
# from, is refused in the reference's words
reseal sk_source_map 'a["mappings"][0]["structural_family"] = "family:" + "0" * 64
seal(a["mappings"][0], "mapping_fingerprint"); seal(a, "map_fingerprint")'
tvalidate
expect_err "error: sk-source-map cannot be reproduced from occurrence evidence" \
    "a re-sealed sk-source-map that its inputs do not give is refused"
reseal sk_source_map 'a["mappings"][0]["confidence"] = "source_unit_template_exact"
seal(a["mappings"][0], "mapping_fingerprint"); seal(a, "map_fingerprint")'
tvalidate
expect_err "error: sk-source-map cannot be reproduced from occurrence evidence" \
    "a confidence the consensus does not give is refused"
reseal unit_assignments 'a["assignments"][0]["control_flow_path"] = "elsewhere"'
tvalidate
expect_err "error: assignment cal:n000000 control-flow path mismatch" \
    "an assignment off its block's control-flow path is refused"
reseal unit_assignments 'a["protocol"] = "v0"'
tvalidate
expect_err "error: unit assignments protocol is unsupported" "the assignments' protocol is checked"
reseal block_instance_inventory 'a["instances"][0]["runtime_scope_binding"]["value"] = "other"'
tvalidate
expect_err "error: sk_groups[0] source scope binding mismatch" \
    "a fused group whose scope is not its block's binding is refused"
reseal block_instance_inventory 'a["model_adapter_fingerprint"] = "f" * 64'
tvalidate
expect_err "error: block inventory model adapter fingerprint mismatch" \
    "the block inventory is bound to the manifest's adapter"
# the projection is replayed from its graphs (project_calibration_graph)
# test_v2_replays_projection_from_sealed_graph_evidence
reseal calibration_projection 'a["occurrences"][0]["original"][2] = "ForgedCompute"
seal(a, "projection_fingerprint")'
tvalidate
expect_err "error: calibration projection cannot be reproduced from sealed graph evidence" \
    "a re-sealed projection its graphs do not give is refused"
reseal calibration_projection 'a["nontrivial_automorphism_count"] = 1; seal(a, "projection_fingerprint")'
tvalidate
expect_err "error: calibration projection cannot be reproduced from sealed graph evidence" \
    "a projection claiming an automorphism is not the replayed one"
# reseal_evidence NAME PYTHON: edit the projection's evidence NAME (e),
# then seal it again in the projection, the DAG and the map
reseal_evidence() {
	reseal calibration_projection "
ref = a['evidence_catalog']['$1']
e = load(ref['relative_path'])
$2
ref['sha256'] = save(ref['relative_path'], e)
dag = load(p['provenance_dag']['relative_path'])
for n in dag['nodes']:
    if n['relative_path'] == ref['relative_path']:
        n['sha256'] = ref['sha256']
save(p['provenance_dag']['relative_path'], dag)
seal(a, 'projection_fingerprint')"
}
reseal_evidence runtime_validation 'del e[0]["parent_binding_exact"]
e[0]["skipped_calibration_node_keys"] = []'
tvalidate
expect_err "error: runtime_validation[0] must provide all assignment partition fields" \
    "the replay's refusals are the reference's"
reseal_evidence calibration_graph 'e["nodes"][0]["canonical_op"] = "Other"'
tvalidate
expect_err "error: graph correspondence is missing or ambiguous; exact projection requires one solution" \
    "graphs with no label-preserving correspondence are refused"
reseal_evidence original_graph 'e["nodes"][1]["stream_ordinal"] = 7'
tvalidate
expect_err "error: original graph stream sk:s000000 ordinals must be contiguous from zero" \
    "a stream with a gap is refused"
reseal_evidence runtime_validation 'e[2]["unit_assignment_complete"] = False'
tvalidate
expect_err "error: calibration projection cannot be reproduced from sealed graph evidence" \
    "a step that no longer passes changes the replayed projection"
reseal original_fused_inventory 'a["sk_groups"][0]["ordered_child_ops"] = ["Forged"]'
tvalidate
expect_err "error: sk_groups[0] child operator sequence mismatch" \
    "a fused group's ops must be its children's"

tcd "$S" analyze smap validate --map "$MAP"
expect_rc 2 "--source-revision is required"

# the exact rung: every SK structurally exact and named by the map
A2=("${ARGV[@]/out\/analysis.json/out\/exact.json}")
A2=("${A2[@]/out\/report.md/out\/exact.md}")
tcd "$S" analyze fusion "${A2[@]}" --source-scope-map "$MAP" --source-root smap-src
expect_rc 0 "the analysis takes the map"
check "each SK is source_scope_map / exact, with the source interval, and neutral and regressed ones are pruned" \
    python3 - "$S/out/exact.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source_scope_mapping"] == {"blockers": [], "protocol": "source_scope_map_v2",
    "source_revision": "rev-abc123", "source_revision_role": "stable_marker",
    "stable_marker_revision": "rev-abc123", "status": "exact"}, d["source_scope_mapping"]
assert d["inputs"]["source_scope_map"] == "../smap/source-scope-map-v2.json"
want = {1: ("beneficial", "keep", 0, 60), 3: ("neutral", "prune", 60, 124),
        2: ("regressed", "prune", 124, 187)}
for x in d["per_sk_decisions"]:
    c, a, s, e = want[x["raw_sk_id"]]
    assert (x["classification"], x["action"]) == (c, a), x
    assert (x["mapping_method"], x["mapping_confidence"], x["mapping_blockers"]) == \
        ("source_scope_map", "exact", []), x
    assert "action_blocker" not in x
    b = x["boundary"]
    assert (b["source_file"], b["start_offset"], b["end_offset"]) == ("model.dsl", s, e), b
for a in d["scope_actions"]:
    assert a["interval_unproven"] is False, a
EOF
check "the report's source action is the decision's" \
    grep -q 'source\\_scope\\_map / exact .*| regressed | prune |' "$S/out/exact.md"

# a stable_source map (schema 2.1): the stable source bridged to the
# marked calibration source by a marker_only_calibration_v1 proof
mkbundle ss --stable-source
tcd "$S" analyze smap validate --map ss/source-scope-map-v2.json --source-revision rev-abc123 \
    --source-root ss-src --candidate-manifest-sha256 "$CSHA" --baseline-manifest-sha256 "$BSHA"
expect_eq "$rc:$out" "0:exact" "a stable_source map with its marker-only bridge validates"
A5=("${ARGV[@]/out\/analysis.json/out\/ss.json}")
A5=("${A5[@]/out\/report.md/out\/ss.md}")
tcd "$S" analyze fusion "${A5[@]}" --source-scope-map ss/source-scope-map-v2.json --source-root ss-src
expect_rc 0 "the analysis takes a stable_source map"
check "its mapping is exact for the stable source, with no stable marker revision" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source_scope_mapping"] == {"blockers": [], "protocol": "source_scope_map_v2",
    "source_revision": "rev-abc123", "source_revision_role": "stable_source",
    "status": "exact"}, d["source_scope_mapping"]
assert {x["mapping_method"] for x in d["per_sk_decisions"]} == {"source_scope_map"}' "$S/out/ss.json"
rm -rf "$S/t2" && cp -r "$S/ss" "$S/t2"
printf 'x' >> "$S/t2/cal-snapshot/model.dsl"
tcd "$S" analyze smap validate --map t2/source-scope-map-v2.json --source-revision rev-abc123
expect_err "error: snapshot file evidence mismatch: " "an edited calibration snapshot is refused"
rm -rf "$S/t2" && cp -r "$S/ss" "$S/t2"
sed -i 's/"stripped_calibration_sha256": "/&0/' "$S/t2/marker-only-calibration.json"
tcd "$S" analyze smap validate --map t2/source-scope-map-v2.json --source-revision rev-abc123
expect_err "error: provenance.marker_only_calibration SHA-256 mismatch" "an edited bridge is refused"

# a map naming one SK: the others keep their projection, the neutral one blocked
mkbundle one --only 2
A3=("${ARGV[@]/out\/analysis.json/out\/one.json}")
A3=("${A3[@]/out\/report.md/out\/one.md}")
tcd "$S" analyze fusion "${A3[@]}" --source-scope-map one/source-scope-map-v2.json --source-root one-src
expect_rc 0 "a map of one SK is taken"
check "only the SK the map names is exact; the neutral one is still blocked" \
    python3 - "$S/out/one.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
got = {x["raw_sk_id"]: (x["mapping_method"], x["action"], "source_file" in x["boundary"])
       for x in d["per_sk_decisions"]}
assert got == {1: ("kernel_projection_structural", "keep", False),
               2: ("source_scope_map", "prune", True),
               3: ("kernel_projection_structural", "block", False)}, got
EOF

A4=("${ARGV[@]/out\/analysis.json/out\/no.json}")
A4=("${A4[@]/out\/report.md/out\/no.md}")
tcd "$S" analyze fusion "${A4[@]}" --source-scope-map "$MAP"
expect_rc 2 "an exact map without --source-root is refused"
expect_err "error: source_scope_map_v2 exact requires current baseline/candidate manifests and --source-root" \
    "in the reference's words"
check "and nothing is written" test ! -e "$S/out/no.json" -a ! -e "$S/out/no.md"
tamper ''
rm "$S/t/logs/fused-log.json"
tcd "$S" analyze fusion "${A4[@]}" --source-scope-map t/source-scope-map-v2.json --source-root t-src
expect_rc 2 "a map that fails a check stops the analysis"
expect_err "error: provenance DAG artifact mismatch: fused_log" "with the loader's message"

finish
