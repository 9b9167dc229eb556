#!/usr/bin/env bash
# test_analyze_collection_ref.sh - the reference's collection-contract tests
# (test_artifact_contract.py: WorkloadContractTest, CollectionContractTest)
# ported onto "tunectl analyze collection begin|finalize|validate-set":
# captures made with the real clock instead of a mocked one, the same
# inputs and the same expectations.  Race and mock-driven cases are listed
# in docs/analysis.md, "Reference tests not ported".
. "$(dirname "$0")/lib.sh"

C=$T/c
mkdir -p "$C/inputs"
now() { date +%s%N; }
sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
WL='{"model":"deepseek_v4","input":1,"batch":1,"rank":16,"mode":"decode","warmup":2,"iterations":3,"runtime":{"backend":"npugraph_ex"}}'
files_of() {
	local sk="sk_graph_origin sk_graph_updated sk_fused_nodes sk_scope_split super_kernel"
	case $1 in
	baseline_profile) echo kernel_details task_time trace_view ;;
	candidate_profile) echo "kernel_details task_time trace_view $sk" ;;
	*) echo "$sk" ;;
	esac
}
# prep ROLE TAG: begin a capture ($ROOT), write its files, set the finalize
# arguments (REV PID STARTED ENDED CMDFP WLF CFGF CTLF SPECS OUT)
prep() {
	local role=$1 f
	TAG=$2 ROOT=$C/$2-root SESS=$C/$2-session.json
	tc analyze collection begin --role "$role" --root "$ROOT" --session-out "$SESS"
	[ "$rc" = 0 ] || not_ok "begin $role $TAG: $err"
	STARTED=$(now)
	mkdir -p "$ROOT/artifacts"
	SPECS=()
	for f in $(files_of "$role"); do
		printf '%s' "$TAG:$f" > "$ROOT/artifacts/$f.dat"
		SPECS+=(--file "$f=artifacts/$f.dat")
	done
	ENDED=$(now)
	REV=revision-a PID=$((1000 + ${#TAG})) CMDFP=$(sha "$TAG")
	WLF=$C/inputs/$TAG-workload.json CFGF=$C/inputs/$TAG-config.json CTLF=$C/inputs/$TAG-control.json
	printf '%s' "${3:-$WL}" > "$WLF"
	printf '%s' "${4:-{\"superkernel\": false\}}" > "$CFGF"
	printf '%s' "${5:-{\"rank\": 0\}}" > "$CTLF"
	OUT=$ROOT/collection-manifest.json
}
fin() {
	tc analyze collection finalize --session "$SESS" --source-revision "$REV" --native-pid "$PID" \
	    --started-ns "$STARTED" --ended-ns "$ENDED" --command-fingerprint "$CMDFP" --workload "$WLF" \
	    --config "$CFGF" --control "$CTLF" "${SPECS[@]}" --out "$OUT" "$@"
}
# manifest ROLE TAG [WORKLOAD CONFIG CONTROL]: a finalized capture; M is its manifest
manifest() { prep "$@"; fin; [ "$rc" = 0 ] || not_ok "finalize $1 $2: $err"; M=$OUT; }
q() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v,sort_keys=True))' "$1" "$2"; }
vs() { tc analyze collection validate-set "$@"; }

# ---- WorkloadContractTest ----------------------------------------------------
manifest baseline_profile wl-alias '{"model_name":"deepseek_v4","sequence_length":1,"batch_size":1,"world_size":16,"inference_mode":"decode","warmup_runs":2,"measurement_runs":3,"runtime_options":{"static_compile":true,"backend":"npugraph_ex"}}'
expect_eq "$(q "$M" 'd["workload"]')" \
    '{"batch": 1, "input": 1, "iterations": 3, "mode": "decode", "model": "deepseek_v4", "rank": 16, "runtime": {"backend": "npugraph_ex", "static_compile": true}, "warmup": 2}' \
    "aliases normalize to one canonical workload"
manifest baseline_profile wl-same '{"model":"m","model_name":"m","input":[1,2],"inputs":[1,2],"batch":1,"batch_size":1,"rank":8,"rank_size":8,"mode":"decode","prefill_decode_mode":"decode","warmup":0,"warmup_iterations":0,"iterations":3,"iteration_count":3,"runtime":{"options":["static",{"cache":true}]},"runtime_parameters":{"options":["static",{"cache":true}]}}'
expect_eq "$(q "$M" 'd["workload"]["runtime"]')" '{"options": ["static", {"cache": true}]}' \
    "identical aliases are accepted"
for c in 'runtime:{"model":"m","input":1,"batch":1,"rank":1,"mode":"decode","warmup":2,"iterations":3}:workload.runtime is required' \
    'conflict:{"model":"m","input":1,"batch":1,"batch_size":2,"rank":1,"mode":"decode","warmup":2,"iterations":3,"runtime":{}}:workload.batch aliases conflict' \
    'object:[]:workload must be an object' \
    'nan:{"model":"m","input":1,"batch":1,"rank":1,"mode":"decode","warmup":0,"iterations":1,"runtime":{"bad":NaN}}:standard JSON' \
    'inf:{"model":"m","input":1,"batch":1,"rank":1,"mode":"decode","warmup":0,"iterations":1,"runtime":{"bad":Infinity}}:standard JSON'; do
	name=${c%%:*} rest=${c#*:}
	prep baseline_profile "wl-$name" "${rest%:*}"
	fin
	[ "$rc" = 2 ] && [ ! -e "$OUT" ] && case $err in *"${rest##*:}"*) true ;; *) false ;; esac ||
	    not_ok "workload $name: exit 2 with '${rest##*:}', nothing written (rc $rc: $err)"
done
ok "missing, conflicting, non-object and non-standard workloads are refused"

# ---- begin ---------------------------------------------------------------------
mkdir -p "$C/empty"
for r in "$C/new" "$C/empty"; do
	tc analyze collection begin --role baseline_profile --root "$r" --session-out "$r.session.json"
	expect_eq "$rc $(q "$r.session.json" '[d["capture_root"], d["root_was_empty"]]')" \
	    "0 [\"$r\", true]" "begin on a ${r##*/} root records it as empty"
	check "begin on a ${r##*/} root: the marker is the session record" cmp -s "$r/.collection-session.json" "$r.session.json"
done
mkdir -p "$C/nonempty"; echo old > "$C/nonempty/old-artifact"
tc analyze collection begin --role baseline_profile --root "$C/nonempty" --session-out "$C/ne.json"
expect_eq "$rc" 2 "begin refuses a root that holds files"
expect_err "capture root must be empty" "in the reference's words"
tc analyze collection begin --role baseline_profile --root "$C/other" --session-out "$C/other/session.json"
expect_err "session record must be outside" "begin refuses a session record inside the root"
printf 'existing-session' > "$C/existing.json"
tc analyze collection begin --role baseline_profile --root "$C/existing-root" --session-out "$C/existing.json"
expect_err "recoverable session record" "begin refuses a session_out that is not a session record"
expect_eq "$(cat "$C/existing.json") $(ls -A "$C/existing-root" 2>/dev/null | wc -l)" "existing-session 0" \
    "and leaves it and the root as they were"
tc analyze collection begin --role candidate_compat --root "$C/mm-root" --session-out "$C/mm.json"
rm "$C/mm-root/.collection-session.json"
tc analyze collection begin --role baseline_profile --root "$C/mm-root" --session-out "$C/mm.json"
expect_err "does not match requested collection" "begin refuses an existing session of another role"
tc analyze collection begin --role baseline_profile --root "$C/again-root" --session-out "$C/again.json"
cp "$C/again.json" "$C/again.first"
tc analyze collection begin --role baseline_profile --root "$C/again-root" --session-out "$C/again.json"
expect_eq "$rc $(cmp -s "$C/again.json" "$C/again.first" && echo same)" "0 same" \
    "begin again on its own session returns the published record unchanged"

# ---- finalize ------------------------------------------------------------------
for c in absolute traversal symlink marker; do
	prep baseline_profile "path-$c"
	case $c in
	absolute) echo outside > "$C/absolute.dat"; SPECS[1]="kernel_details=$C/absolute.dat" ;;
	traversal) echo outside > "$C/outside.dat"; SPECS[1]="kernel_details=../outside.dat" ;;
	symlink) echo outside > "$C/target.dat"; ln -s "$C/target.dat" "$ROOT/artifacts/linked.dat"; SPECS[1]="kernel_details=artifacts/linked.dat" ;;
	marker) SPECS[1]="kernel_details=.collection-session.json" ;;
	esac
	fin
	[ "$rc" = 2 ] && [ ! -e "$OUT" ] || not_ok "finalize with a $c file path: exit 2, nothing written (rc $rc)"
done
ok "finalize refuses absolute, traversing, symlinked and marker file paths"
prep candidate_profile cand-noprof
fin
expect_eq "$rc $(q "$OUT" '"sk_prof" in d["files"]')" "0 false" "a candidate profile needs no sk_prof"
prep baseline_profile marker-bad
echo '{}' > "$ROOT/.collection-session.json"
fin
expect_err "collection marker" "finalize requires the matching collection marker"
prep baseline_profile unlisted-link
ln -s "$C/target.dat" "$ROOT/unlisted-link"
fin
expect_err "symlink" "finalize refuses an unlisted symlink in the root"
prep baseline_profile unlisted-fifo
mkfifo "$ROOT/unlisted-fifo"
fin
expect_err "unsafe special file" "finalize refuses a FIFO in the root"
for c in "REV: revision-a :trimmed non-empty string" "PID:0:native_pid must be a positive integer" \
    "STARTED:-1:started_ns must be a nonnegative integer" "ENDED:=:ended_ns must be greater than started_ns"; do
	IFS=: read -r var val msg <<< "$c"
	prep baseline_profile "bad-$var"
	[ "$val" = = ] && val=$STARTED
	printf -v "$var" '%s' "$val"
	fin
	[ "$rc" = 2 ] && case $err in *"$msg"*) true ;; *) false ;; esac || not_ok "finalize $var=$val: '$msg' (got: $err)"
done
ok "finalize refuses an untrimmed revision, pid 0, a negative start and an end not after the start"
prep baseline_profile overlap
OUT=$ROOT/artifacts/kernel_details.dat
fin
expect_err "output overlaps an input" "finalize refuses an output that is one of its files"
for fp in short gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg \
    AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; do
	prep baseline_profile "cmd-${fp:0:5}"
	CMDFP=$fp
	fin
	case $err in *"command_fingerprint must be a lowercase SHA-256 fingerprint"*) ;; *) not_ok "command fingerprint $fp: $err" ;; esac
done
ok "finalize refuses command fingerprints that are not lowercase SHA-256"
prep baseline_profile hardlinked
rm "$CFGF"; ln "$WLF" "$CFGF"
fin
expect_err "inputs must be distinct" "finalize refuses hard-linked inputs"
manifest candidate_profile roles
expect_eq "$(q "$M" '[d["schema_version"], d["capture_role"], d["capture_root"], sorted(d["files"]), d["config"], d["control"], sorted({k for rs in d["files"].values() for r in rs for k in r})]')" \
    '["1.0", "candidate_profile", ".", ["kernel_details", "sk_fused_nodes", "sk_graph_origin", "sk_graph_updated", "sk_scope_split", "super_kernel", "task_time", "trace_view"], {"superkernel": false}, {"rank": 0}, ["ctime_ns", "mtime_ns", "path", "sha256", "size"]]' \
    "a profile manifest records every required file role"
check "its config and control fingerprints are their canonical SHA-256" python3 -c '
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
h = lambda v: hashlib.sha256(json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()
sys.exit(d["config_fingerprint"] != h(d["config"]) or d["control_fingerprint"] != h(d["control"]))' "$M"

# ---- validate-set --------------------------------------------------------------
# set TAG [ROLE=WL:CFG:CTL:REV]: the four roles captured; B P X V their manifests
set4() {
	local t=$1 r
	for r in baseline_profile candidate_profile candidate_compat candidate_verify; do
		if [ "${2:-}" = "$r" ]; then
			prep "$r" "$t-$r" "${3:-$WL}" "${4:-}" "${5:-}"
			[ -z "${6:-}" ] || REV=$6
			fin
			M=$OUT
		else
			manifest "$r" "$t-$r"
		fi
		case $r in
		baseline_profile) B=$M ;; candidate_profile) P=$M ;;
		candidate_compat) X=$M ;; candidate_verify) V=$M ;;
		esac
	done
	ALL=(--manifest "candidate_verify=$V" --manifest "candidate_compat=$X"
	    --manifest "candidate_profile=$P" --manifest "baseline_profile=$B")
}
set4 det
vs "${ALL[@]}"
first=$out
vs --manifest "baseline_profile=$B" --manifest "candidate_profile=$P" --manifest "candidate_compat=$X" --manifest "candidate_verify=$V"
expect_eq "$rc $([ "$out" = "$first" ] && echo same)" "0 same" "validate-set is deterministic whatever the order of its manifests"
vs "${ALL[@]}" --json-out "$C/summary.json"
expect_eq "$rc [$out] $(q "$C/summary.json" 'sorted(d["roles"])')" \
    '0 [] ["baseline_profile", "candidate_compat", "candidate_profile", "candidate_verify"]' \
    "with --json-out the summary is written, not printed"
vs --manifest "candidate_profile=$P" --manifest "baseline_profile=$B"
expect_eq "$rc $(printf '%s' "$out" | python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)["roles"]))')" \
    "0 ['baseline_profile', 'candidate_profile']" "the profile pair alone is a valid set"
for roles in "baseline_profile=$B" "candidate_compat=$X candidate_verify=$V" \
    "baseline_profile=$B candidate_profile=$P candidate_compat=$X"; do
	a=(); for m in $roles; do a+=(--manifest "$m"); done
	vs "${a[@]}"
	[ "$rc" = 2 ] && case $err in *"complete four-role audit set"*) true ;; *) false ;; esac ||
	    not_ok "the role set $roles is refused (rc $rc)"
done
ok "partial and audit-only role sets are refused"
for c in existing manifest artifact capture_root; do
	case $c in
	existing) target=$C/existing-summary.json; printf 'do-not-replace' > "$target" ;;
	manifest) target=$B ;;
	artifact) target=${B%/*}/artifacts/kernel_details.dat ;;
	capture_root) target=${B%/*} ;;
	esac
	before=$( [ -d "$target" ] && ls -A "$target" || sha256sum < "$target")
	vs "${ALL[@]}" --json-out "$target"
	after=$( [ -d "$target" ] && ls -A "$target" || sha256sum < "$target")
	[ "$rc" = 2 ] && [ "$before" = "$after" ] || not_ok "--json-out onto $c: exit 2, untouched (rc $rc)"
	[ $c = existing ] || case $err in *"validation output overlaps capture input"*) ;; *) not_ok "--json-out onto $c names the overlap: $err" ;; esac
done
ok "--json-out never replaces a file or overlaps a capture input"
set4 content
printf 'X' >> "${B%/*}/artifacts/kernel_details.dat"
vs "${ALL[@]}"
expect_err "content fingerprint changed" "a changed capture file is refused"
set4 stat
touch -m -d '+1 second' "${B%/*}/artifacts/kernel_details.dat"
vs "${ALL[@]}"
expect_err "stat fingerprint changed" "a capture file whose times changed is refused"
for field in config control; do
	set4 "tamper-$field"
	python3 - "$V" "$field" <<'PY'
import hashlib, json, sys
p, f = sys.argv[1:]
m = json.load(open(p))
m[f]["tampered"] = True
m.pop("manifest_fingerprint")
m["manifest_fingerprint"] = hashlib.sha256(json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()
open(p, "w").write(json.dumps(m))
PY
	vs "${ALL[@]}"
	expect_err "$field fingerprint mismatch" "a tampered embedded $field is refused"
done
set4 four
vs --manifest "baseline_profile=$B" --manifest "candidate_profile=$P" --manifest "candidate_compat=$X"
expect_eq "$rc" 2 "three of the four audit roles are refused"
for c in "source_revision||||revision-b" "workload|{\"model\":\"deepseek_v4\",\"input\":1,\"batch\":1,\"rank\":16,\"mode\":\"decode\",\"warmup\":2,\"iterations\":4,\"runtime\":{\"backend\":\"npugraph_ex\"}}|||" \
    "config||{\"superkernel\": true}||" "control|||{\"rank\": 1}|"; do
	IFS='|' read -r field w cf ct rev <<< "$c"
	set4 "mm-$field" candidate_verify "${w:-$WL}" "$cf" "$ct" "$rev"
	vs "${ALL[@]}"
	case $err in *"$field mismatch"*) ;; *) not_ok "a set whose $field differs is refused (rc $rc: $err)" ;; esac
done
ok "a set whose source revision, workload, config or control differ is refused"
printf '%s' "$(printf '[%.0s' $(seq 1200))0$(printf ']%.0s' $(seq 1200))" > "$C/deep.json"
vs --manifest "baseline_profile=$C/deep.json" --manifest "candidate_profile=$C/deep.json" \
    --manifest "candidate_compat=$C/deep.json" --manifest "candidate_verify=$C/deep.json"
expect_eq "$rc" 2 "deeply nested manifests exit 2"
check "with a short error" [ "${#err}" -lt 600 ]

finish
