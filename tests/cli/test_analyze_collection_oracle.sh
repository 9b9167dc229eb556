#!/usr/bin/env bash
# test_analyze_collection_oracle.sh - "tunectl analyze collection" under
# the reference's program name (TUNECTL_PROG=artifact_contract.py) writes
# what the reference's artifact_contract.py wrote on the argv of each case
# of tests/fixtures/collection-oracle: exit status, stdout and stderr byte
# for byte (argparse usage errors, and input errors as one
# "artifact_contract: error:" line with no usage), and on the flows of
# successful and refused begin/finalize/validate-set runs after masking
# paths and times.  Under its own name the input errors are one line
# naming the tunectl command.
. "$(dirname "$0")/lib.sh"

FIX=$TUNECTL_SRC/tests/fixtures/collection-oracle
TUNECTL_PROG=artifact_contract.py python3 "$FIX/oracle.py" run "$FIX/cases" "$T/got" -- \
    "$TUNECTL_BIN" analyze collection 2> "$T/run.err"
expect_rc 0 "every case runs"
python3 "$FIX/oracle.py" compare "$FIX/ref" "$T/got" > "$T/compare.txt"
for c in "$FIX"/cases/*/; do
	c=$(basename "$c")
	check "$c: as the reference" grep -qx "ok   $c" "$T/compare.txt"
done
grep '^DIFF' "$T/compare.txt" >&2
# the comparison can fail
cp -r "$T/got" "$T/got2"
printf 'x' >> "$T/got2/vs-wrong-roles/stderr"
check "a changed stderr is a difference" \
    bash -c '! python3 "$1/oracle.py" compare "$1/ref" "$2" > /dev/null' _ "$FIX" "$T/got2"

# the flows: begin, finalize and validate-set succeeding (and refusing)
# in turn on one scratch capture, outputs and written records (their mode
# 0600 included) as the reference's once the scratch path, the times and
# the fingerprints over them are masked (oracle.py mask)
TUNECTL_PROG=artifact_contract.py python3 "$FIX/oracle.py" flows "$T/flows" -- \
    "$TUNECTL_BIN" analyze collection 2> "$T/flows.err"
expect_rc 0 "every flow runs"
python3 "$FIX/oracle.py" compare "$FIX/flows-ref" "$T/flows" > "$T/flows.txt"
for c in "$FIX"/flows-ref/*/; do
	c=$(basename "$c")
	check "flow $c: as the reference" grep -qx "ok   $c" "$T/flows.txt"
done
grep '^DIFF' "$T/flows.txt" >&2
check "the pair flow finalized both manifests" \
    grep -q '"capture_role":"candidate_profile","capture_root":"."' "$T/flows/pair/25.file"
sed -i '1s/^mode 600$/mode 644/' "$T/flows/pair/24.file"
sed -i 's/"size":17/"size":18/' "$T/flows/pair/17.stdout"
python3 "$FIX/oracle.py" compare "$FIX/flows-ref" "$T/flows" > "$T/flows2.txt"
check "another mode or size is a difference" grep -qx "DIFF pair: 17.stdout 24.file" "$T/flows2.txt"
check "a fingerprint that is not the record's digest fails its self-check" python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import oracle
rec = b"{\"capture_root\":\"/x\",\"started_ns\":1,\"session_fingerprint\":\"" + b"0" * 64 + b"\"}"
assert b"SELF-CHECK FAILED: session_fingerprint" in oracle.mask(rec, "/nowhere", {})' "$FIX"

# under tunectl's own name: no usage line, the command named
cd "$T" || exit 1
tc analyze collection validate-set --manifest x
expect_eq "$rc|$err" "2|tunectl analyze collection validate-set: error: manifest must use ROLE=PATH" \
    "an input error is one line naming the tunectl command"
tc analyze collection begin --role baseline_profile --root r --session-out r/s.json
expect_eq "$rc|$err" "2|tunectl analyze collection begin: error: session record must be outside the capture root" \
    "a begin error is one line"
tc analyze collection validate-set
expect_rc 2 "a usage error exits 2"
case $err in "usage: tunectl analyze collection validate-set"*"tunectl analyze collection validate-set: error: the following arguments are required: --manifest") ok "a usage error keeps tunectl's usage" ;;
*) not_ok "a usage error keeps tunectl's usage: $err" ;; esac
tc analyze collection --help
expect_rc 0 "analyze collection --help"
case $out in *"tunectl analyze collection validate-set"*) ok "--help names tunectl's commands" ;; *) not_ok "--help: $out" ;; esac
TUNECTL_PROG=analyze_sk_meta.py tc analyze collection validate-set --manifest x
expect_eq "$err" "tunectl analyze collection validate-set: error: manifest must use ROLE=PATH" \
    "TUNECTL_PROG naming another program changes nothing"

finish
