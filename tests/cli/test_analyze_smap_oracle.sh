#!/usr/bin/env bash
# test_analyze_smap_oracle.sh - "tunectl analyze smap validate" refuses the
# changed copies of a sealed source_scope_map_v2 bundle as the reference's
# source_scope_map_v2.py validate did (tests/fixtures/smap-oracle): the
# same exit status, stdout and message per case (67: tampered, missing,
# wrong-schema and resealed-but-inconsistent members, provenance DAG
# cycles and graph cycles, and on a stable_source bundle its marker-only
# bridge and calibration manifest); and its CLI's usage and input errors
# under the reference's name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smap_lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/analysis
ORA=$TUNECTL_SRC/tests/fixtures/smap-oracle
S=$T/s

smap_case_prep "$S"
(cd "$S" && "$TUNECTL_BIN" analyze fusion "${ARGV[@]}" > /dev/null)
rc=$?
expect_rc 0 "the structural case analyses"
(cd "$S" && python3 "$FIX/smap/mkbundle.py" --analysis out/analysis.json \
    --candidate-manifest cap/candidate/collection-manifest.json \
    --baseline-manifest cap/baseline/collection-manifest.json \
    --source-revision rev-abc123 --out smap --source-out smap-src &&
    python3 "$FIX/smap/mkbundle.py" --analysis out/analysis.json \
    --candidate-manifest cap/candidate/collection-manifest.json \
    --baseline-manifest cap/baseline/collection-manifest.json \
    --source-revision rev-abc123 --out ss --source-out ss-src --stable-source)
rc=$?
expect_rc 0 "the stable_marker and stable_source bundles are sealed"
CSHA=$(sha256sum "$S/cap/candidate/collection-manifest.json" | cut -c1-64)
BSHA=$(sha256sum "$S/cap/baseline/collection-manifest.json" | cut -c1-64)
export CSHA BSHA
python3 "$ORA/oracle.py" run "$S" -- "$TUNECTL_BIN" analyze smap validate > "$T/got.txt"
expect_rc 0 "every case runs"
while IFS=$'\t' read -r name _; do
	check "$name: as the reference" \
	    grep -qxF "$(grep "^$name	" "$ORA/ref/validate.txt")" "$T/got.txt"
done < "$ORA/ref/validate.txt"
expect_eq "$(wc -l < "$T/got.txt")" "$(wc -l < "$ORA/ref/validate.txt")" "no case more or less"
diff "$ORA/ref/validate.txt" "$T/got.txt" >&2
# the comparison can fail
sed 's/SHA-256 mismatch$/digest mismatch/' "$T/got.txt" > "$T/changed.txt"
check "a changed message is a difference" bash -c '! cmp -s "$1" "$2"' _ "$ORA/ref/validate.txt" "$T/changed.txt"

# the CLI: under TUNECTL_PROG=source_scope_map_v2.py, usage and input
# errors byte for byte as the reference's (tests/fixtures/smap-oracle/cli)
TUNECTL_PROG=source_scope_map_v2.py python3 "$TUNECTL_SRC/tests/fixtures/collection-oracle/oracle.py" \
    run "$ORA/cli/cases" "$T/cli" -- "$TUNECTL_BIN" analyze smap
python3 "$TUNECTL_SRC/tests/fixtures/collection-oracle/oracle.py" compare "$ORA/cli/ref" "$T/cli" > "$T/cli.txt"
for c in "$ORA"/cli/cases/*/; do
	c=$(basename "$c")
	check "cli $c: as the reference" grep -qx "ok   $c" "$T/cli.txt"
done
cd "$T" || exit 1
tc analyze smap validate --map nonexist.json --source-revision r
case $err in "usage: tunectl analyze smap validate"*"tunectl analyze smap validate: error: "*) ok "under its own name tunectl's usage and name" ;;
*) not_ok "under its own name: $err" ;; esac

finish
