# base_lib.sh - sourced by the demo tests (after lib.sh, with jq_): what
# every demo's BASE must leave, CPU or GPU workload alike.

# base_checks R: the run R's BASE captured what an NPU profiling run
# leaves (msprof-format kernel_details.csv for SK off and on, SuperKernel
# rows SK on only, the SK-on compiler files), under collection manifests
# that validate as a set, and sealed tunectl analyze fusion's schema 1.2
# analysis with the structural association made, every SK mapped exactly
# and every verdict decisive, its content fingerprint its content's, in
# the session report's per-SK table.  Sets A to the analysis.
base_checks() {
	local r=$1 side f
	for side in sk-off sk-on; do
		check "BASE captured kernel_details.csv with SK $side" \
		    grep -q '^Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),' \
		    "$r/base/capture/$side/kernel_details.csv"
	done
	check "the SK-on capture holds SuperKernel rows" grep -q ',SuperKernel,static,AI_VECTOR_CORE,' "$r/base/capture/sk-on/kernel_details.csv"
	check "the SK-off capture holds none" bash -c '! grep -q SuperKernel "$1"' _ "$r/base/capture/sk-off/kernel_details.csv"
	for f in sk_graph_origin.json sk_graph_updated.json sk_fused_nodes.log sk_scope_split.log super_kernel.log; do
		check "the SK-on capture holds $f" test -s "$r/base/capture/sk-on/device_0/model_1/$f"
	done
	tc analyze collection validate-set --manifest "baseline_profile=$r/base/capture/sk-off/collection-manifest.json" \
	    --manifest "candidate_profile=$r/base/capture/sk-on/collection-manifest.json"
	expect_rc 0 "the two captures' collection manifests validate as a set"
	A=$(ls "$r"/support/sk-fusion-performance-analyst-attempt-*/output/profiling-analysis.json | head -1)
	check "the BASE result seals the analysis" grep -q "\"${A#"$r"/}\"" "$r/phases/base-profile-source-mapping/phase-result.json"
	expect_eq "$(jq_ "$A" "d['schema_version'], d['association_protocol']['status'], d['analysis_agent_id']")" \
	    "('1.2', 'associated', 'sk-fusion-performance-analyst')" "the analysis is schema 1.2 with the structural association made"
	expect_eq "$(jq_ "$A" "sorted({(x['mapping_method'], x['mapping_confidence']) for x in d['per_sk_decisions']})")" \
	    "[('kernel_projection_structural', 'exact_projected_trace')]" "every SK is mapped exactly"
	expect_eq "$(jq_ "$A" "len(d['per_sk_decisions']) > 0 and all(x['action'] in ('keep', 'prune', 'block') and x['classification'] != 'insufficient_evidence' for x in d['per_sk_decisions'])")" \
	    "True" "every verdict is decisive (keep, prune or block)"
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('analysis_content_fingerprint'); json.dump(d, open(sys.argv[2], 'w'))" \
	    "$A" "$T/analysis-content.json"
	expect_eq "$(jq_ "$A" "d['analysis_content_fingerprint']")" \
	    "$("$TUNECTL_BIN" json digest --ascii --no-nan "$T/analysis-content.json")" \
	    "the analysis's content fingerprint is its content's"
	check "the session report shows the per-SK table" grep -q '<section id="base"><h2>BASE: per-SK fusion verdicts</h2><h3>base-profile-source-mapping: <a href=' "$r/report.html"
}
