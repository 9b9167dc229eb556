#!/usr/bin/env bash
# test_analyze_bad_input.sh - "tunectl analyze fusion" on what msprof and
# users really hand it: several devices or models in one kernel_details.csv
# and repeated SK ids (read as the reference reads them: one decision per
# device, model and raw SK id, colliding ids disambiguated), ids past 2^53
# and past int64, and output paths that reach an input through "..", a
# symlinked parent or a dangling link.  Errors exit 2 and write nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/analyze_ref_lib.sh"

# cand LINES: the candidate profile from "device,model,name" triples, each
# measured in three steps (0, 20, 40 us, 6 us long)
cand() {
	local dev model name s
	while IFS=, read -r dev model name; do
		for s in 0 20 40; do
			printf '%s\n' "99,1,$name,SuperKernel,AI_VECTOR_CORE,$s,6" | DEV=$dev MODEL=$model csv "$R/c.tmp"
			tail -n +2 "$R/c.tmp"
		done
	done > "$R/c.rows"
	{ head -n 1 "$FIX/candidate.csv"; cat "$R/c.rows"; } > "$R/candidate.csv"
	rm -f "$R/c.tmp" "$R/c.rows"
}
# decs FILE: [device, model, raw id, disambiguation kind] per decision
decs() { q "$1" '[[x["device_id"], x["model_id"], x["raw_sk_id"], (x.get("identity_disambiguation") or {}).get("kind")] for x in d["per_sk_decisions"]]'; }

# ---- several devices in one file --------------------------------------------
fx "$T/dev"
printf '0,48,%s\n1,48,%s\n' "$SK" "$SK" | cand
args "$R/out.json"
afp
expect_rc 0 "two devices in one candidate file are read"
expect_eq "$(decs "$R/out.json")" \
    '[[0, "48", 1, "native_inventory_diagnostic"], [1, "48", 1, "native_inventory_diagnostic"]]' \
    "one decision per device; the shared identity is told apart by its native inventory"
expect_eq "$(q "$R/out.json" '[len({x["sk_id"] for x in d["per_sk_decisions"]}), [x["candidate_occurrence_count"] for x in d["per_sk_decisions"]], d["mapping_coverage"]["total_sk_ids"]]')" \
    '[2, [3, 3], 2]' "each device keeps its own occurrences and sk_id"

# ---- several models in one file ---------------------------------------------
fx "$T/model"
printf '0,48,%s\n0,49,%s\n' "$SK" "$SK" | cand
args "$R/out.json"
afp
expect_rc 0 "two models in one candidate file are read"
expect_eq "$(decs "$R/out.json")" '[[0, "48", 1, null], [0, "49", 1, null]]' \
    "one decision per model, whose identities differ by model_id"

# ---- one identity under two raw SK ids --------------------------------------
fx "$T/dup"
printf '0,48,%s\n0,48,%s\n' "$SK" "${SK/sk_1_/sk_2_}" | cand
args "$R/out.json"
afp
expect_rc 0 "two raw SK ids of one identity are read"
expect_eq "$(decs "$R/out.json")" \
    '[[0, "48", 1, "native_inventory_diagnostic"], [0, "48", 2, "native_inventory_diagnostic"]]' \
    "duplicate identities get report-local ids from their native inventory"
expect_eq "$(q "$R/out.json" 'len({x["sk_id"] for x in d["per_sk_decisions"]}) == 2 and len({x["range_id"] for x in d["per_sk_decisions"]}) == 2')" \
    true "and no two decisions share an sk_id or range_id"

# ---- raw SK ids past 2^53 and past int64 ------------------------------------
# The reference reads ^sk_(\d+)_ with int(): exact at any size, leading zeros
# dropped; ids that differ only past double precision stay apart.
fx "$T/bigsk"
printf '0,48,%s\n' "${SK/sk_1_/sk_9007199254740993_}" "${SK/sk_1_/sk_9007199254740992_}" \
    "${SK/sk_1_/sk_0099999999999999999999999_}" | cand
args "$R/out.json"
afp
expect_rc 0 "huge raw SK ids are read"
check "raw_sk_id is the exact integer of the name's digits" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(x["raw_sk_id"] for x in d["per_sk_decisions"])
sys.exit(got != [9007199254740992, 9007199254740993, 99999999999999999999999])' "$R/out.json"
check "the exact id is in the disambiguation and the document text" \
    grep -q '"raw_sk_id": *99999999999999999999999[,}]' "$R/out.json"

# ---- device and task ids past int64 -----------------------------------------
# Device_id and Task ID go through float() first in the reference
# (int(float(text))), so a 23-digit id reads as the nearest double.
fx "$T/bigdev"
head -n 1 "$FIX/candidate.csv" > "$R/candidate.csv"
tail -n +2 "$FIX/candidate.csv" | sed 's/^\([0-9]*\),,,,,0,48,99,/\1,,,,,99999999999999999999999,48,99999999999999999999999,/' >> "$R/candidate.csv"
args "$R/out.json"
afp
expect_rc 0 "ids past int64 are read"
expect_eq "$(q "$R/out.json" '[[x["device_id"], x["task_id"]] for x in d["per_sk_decisions"]]')" \
    '[[99999999999999991611392, 99999999999999991611392]]' \
    "device and task ids read as int(float(text)), as the reference reads them"

# ---- output paths that reach an input ---------------------------------------
# out_case NAME JSON_OUT [MARKDOWN_OUT] [SETUP]: a usage error, nothing written
out_case() {
	fx "$T/out-$1"
	mkdir -p "$R/o"
	[ -z "${4:-}" ] || (cd "$R" && eval "$4")
	args "$R/$2" ${3:+"$R/$3"}
	afp
	expect_rc 2 "output $1: exit 2"
	expect_err "${5:-output path conflicts with an input artifact}" "output $1: the conflict is named"
	check "output $1: the inputs are untouched" diff -r "$FIX" "$R" -x o -x linkdir -x dangling -x '*.json.tmp*' -q
	check "output $1: nothing is written" [ -z "$(ls -A "$R/o")" ]
}
out_case "through .. onto an input" o/../baseline.csv
out_case "under a parent symlinked to an input directory" linkdir/x.json "" "ln -s sk_meta linkdir"
out_case "Markdown inside an input directory via a symlinked parent" o/x.json linkdir/model_48/r.md "ln -s sk_meta linkdir"
out_case "Markdown through .. onto an input" o/x.json sk_meta/../declared-change.json
out_case "JSON and Markdown one path through .." o/x.json o/../o/x.json "" \
    "JSON and Markdown output paths must be distinct"
out_case "under a dangling parent symlink" dangling/x.json "" "ln -s /nonexistent/dir dangling" \
    "dangling"

finish
