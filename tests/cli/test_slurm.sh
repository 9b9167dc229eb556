#!/usr/bin/env bash
# Leases on a real (throwaway, one-node) Slurm cluster with two fake GPUs
# and two fake NPUs: "lease run --via slurm" records the job, node,
# devices and times, sets the lease markers inside the job, never gives a
# GPU to two holders, cancels a run past its timeout (and what it
# double-forked), withdraws a request that waits past its lease timeout;
# "lease status --via slurm" names the holders; a phase worker wrapped by
# examples/hosts/slurm/host.sh runs as a job and seals its step.
# Without root or without Slurm packages every test is a TAP SKIP.
. "$(dirname "$0")/lib.sh"

unset SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT
CLUSTER=$TUNECTL_SRC/tests/slurm/cluster.sh
C=$T/cluster
trap '"$CLUSTER" stop "$C" >/dev/null 2>&1; rm -rf "$T"' EXIT
TESTS=(
	"a leased run records its Slurm job, node and devices"
	"the lease markers are set inside the job"
	"8 concurrent runs never share a GPU"
	"a run past its timeout is cancelled and recorded as a timeout"
	"a request waiting past its lease timeout is withdrawn"
	"lease status --via slurm names the holders"
	"a phase worker runs as a Slurm job and seals its step"
)

"$CLUSTER" start "$C" >"$T/cluster.out" 2>"$T/cluster.err"
crc=$?
if [ "$crc" -ne 0 ]; then
	why=$(tail -1 "$T/cluster.err" | sed 's/^cluster.sh: //')
	[ "$crc" -eq 77 ] || why="cluster.sh start exited $crc: $why"
	for name in "${TESTS[@]}"; do
		ok "$name # SKIP ${why:-no Slurm cluster}"
	done
	finish
	exit $?
fi
export SLURM_CONF=$C/slurm.conf
export PATH=$PATH:/usr/sbin:/sbin
L=$T/leases
W=$T/work
M=$T/manifests
mkdir -p "$W" "$M"
py() { python3 - "$@"; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# --- one run: the manifest's Slurm facts and the environment inside ---------
cat >"$T/show-env.sh" <<'SH'
#!/bin/sh
for v in SUPERKERNEL_DEVICE_LEASE_HELD SUPERKERNEL_DEVICE_IDS SUPERKERNEL_DEVICE_LEASE_ROOT \
    CUDA_VISIBLE_DEVICES ASCEND_RT_VISIBLE_DEVICES SLURM_JOB_ID; do
	eval "echo $v=\${$v-}"
done
SH
chmod +x "$T/show-env.sh"
tc lease run --via slurm --gres gpu:1 --lease-root "$L" --timeout-seconds 30 --cwd "$W" \
    --command-id one --manifest-out "$M/one.json" -- "$T/show-env.sh"
expect_rc 0 "${TESTS[0]}: exit 0 when the command passes"
check "${TESTS[0]}" py "$M/one.json" "$(hostname -s)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
s = m["slurm"]
assert m["status"] == "passed" and m["reason"] is None, m
assert m["schema_version"] == "superkernel-shared-device-lease-command-v2"
for key in ("command_id", "lease_root", "device_ids", "lease_timeout_seconds", "cwd",
            "environment_mode", "lease_mode", "executable", "command", "logs",
            "manifest_fingerprint"):
    assert key in m, key
assert isinstance(s["job_id"], int) and s["job_name"] == "tunectl:one", s
assert s["node"] == sys.argv[2], s
assert len(m["device_ids"]) == 1 and m["device_ids"] == s["device_ids"], m
assert m["device_ids"][0] in (0, 1)
assert s["job_state"] == "COMPLETED" and s["cancelled"] is None, s
assert s["queue_wait_seconds"] >= 0 and s["run_seconds"] >= 0, s
assert s["visible_devices"]["CUDA_VISIBLE_DEVICES"] == str(m["device_ids"][0]), s
assert m["lease_mode"] == "acquired", m
PY
check "the fingerprint covers the manifest without itself" py "$M/one.json" "$TUNECTL_BIN" <<'PY'
import json, subprocess, sys
m = json.load(open(sys.argv[1]))
fp = m.pop("manifest_fingerprint")
out = subprocess.run([sys.argv[2], "json", "digest", "--no-nan", "-"], input=json.dumps(m),
                     capture_output=True, text=True, check=True).stdout.strip()
assert fp == "sha256:" + out.split()[-1], (fp, out)
PY
check "the command's logs have the local runner's names" test -s "$M/one.stdout.log" -a -f "$M/one.stderr.log"
check "no stage directory is left behind" test -z "$(ls -A "$M" | grep '^\.')"
ids=$(field "$M/one.json" "','.join(map(str, d['device_ids']))")
expect_eq "$(grep '^SUPERKERNEL_DEVICE_LEASE_HELD=' "$M/one.stdout.log")" "SUPERKERNEL_DEVICE_LEASE_HELD=1" \
    "${TESTS[1]}: HELD"
expect_eq "$(grep '^SUPERKERNEL_DEVICE_IDS=' "$M/one.stdout.log")" "SUPERKERNEL_DEVICE_IDS=$ids" \
    "${TESTS[1]}: IDS are the allocated devices"
expect_eq "$(grep '^SUPERKERNEL_DEVICE_LEASE_ROOT=' "$M/one.stdout.log")" "SUPERKERNEL_DEVICE_LEASE_ROOT=$L" \
    "${TESTS[1]}: ROOT"
expect_eq "$(grep '^CUDA_VISIBLE_DEVICES=' "$M/one.stdout.log")" "CUDA_VISIBLE_DEVICES=$ids" \
    "CUDA_VISIBLE_DEVICES is the allocation"

# A GRES Slurm sets no variable for (npu): ids from the job's detail,
# ASCEND_RT_VISIBLE_DEVICES set for the runtime.
tc lease run --via slurm --gres npu:2 --lease-root "$L" --timeout-seconds 30 --cwd "$W" \
    --command-id npu --manifest-out "$M/npu.json" -- "$T/show-env.sh"
expect_rc 0 "an npu:2 lease passes"
expect_eq "$(field "$M/npu.json" "d['device_ids']")" "[0, 1]" "an npu:2 lease records both NPUs"
check "ASCEND_RT_VISIBLE_DEVICES and the markers name both NPUs" \
    grep -qx 'ASCEND_RT_VISIBLE_DEVICES=0,1' "$M/npu.stdout.log"
check "the NPU lease markers carry both ids" grep -qx 'SUPERKERNEL_DEVICE_IDS=0,1' "$M/npu.stdout.log"

# Nested tools inherit the job's lease through the markers.
cat >"$T/nested.sh" <<SH
#!/bin/sh
exec "$TUNECTL_BIN" lease run --lease-root "$L" --device-id "\$SUPERKERNEL_DEVICE_IDS" \
    --timeout-seconds 10 --cwd "$W" --manifest-out "$M/nested-inner.json" -- /bin/true
SH
chmod +x "$T/nested.sh"
tc lease run --via slurm --gres gpu:1 --lease-root "$L" --timeout-seconds 30 --cwd "$W" \
    --command-id nested --manifest-out "$M/nested.json" -- "$T/nested.sh"
expect_rc 0 "a nested lease run inside the job passes"
expect_eq "$(field "$M/nested-inner.json" "d['lease_mode']")" "inherited" \
    "a tool inside the job inherits the job's lease"

# --- refusals: nothing written ------------------------------------------------
tc lease run --via slurm --device-id 0 --lease-root "$L" --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$M/r1.json" -- /bin/true
expect_rc 2 "--device-id with --via slurm is a usage error"
expect_err "not allowed with --via slurm" "the refusal says Slurm chooses the devices"
tc lease run --via slurm --gres gpu --lease-root "$L" --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$M/r2.json" -- /bin/true
expect_rc 2 "a malformed --gres is a usage error"
expect_err "invalid --gres value: 'gpu' (expected NAME[:TYPE]:COUNT, e.g. gpu:2)" "the refusal quotes --gres"
tc lease run --via slurm --lease-root "$L" --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$M/r3.json" -- relative/cmd
expect_err "command executable must be an existing absolute file" "the local runner's messages apply"
tc lease run --via slurm --lease-root "$L" --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$M/one.json" -- /bin/true
expect_err "lease command manifest already exists: $M/one.json" "an existing manifest is refused"
check "refused requests write nothing" test ! -e "$M/r1.json" -a ! -e "$M/r2.json" -a ! -e "$M/r3.json" \
    -a ! -e "$M/r1.slurm.log" -a ! -e "$M/r2.slurm.log"
tc lease run --via slurm --gres gpu:3 --lease-root "$L" --timeout-seconds 5 --cwd "$W" \
    --manifest-out "$M/toomany.json" -- /bin/true
expect_rc 2 "an allocation Slurm cannot satisfy is blocked (exit 2)"
expect_eq "$(field "$M/toomany.json" "d['status'], d['command'], d['lease_mode'], d['device_ids']")" \
    "('blocked', None, None, [])" "a refused allocation records blocked with no command"
check "the refusal carries srun's reason" grep -q 'Slurm refused the allocation: ' "$M/toomany.json"

# --- 8 concurrent runs for 2 GPUs ----------------------------------------------
# Each command also claims its GPU by creating a directory, which fails if
# another holder has it, and prints what it was given.
cat >"$T/claim.sh" <<'SH'
#!/bin/sh
echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
echo "SUPERKERNEL_DEVICE_IDS=$SUPERKERNEL_DEVICE_IDS"
mkdir "busy.$SUPERKERNEL_DEVICE_IDS" 2>/dev/null || exit 3
sleep 0.3
rmdir "busy.$SUPERKERNEL_DEVICE_IDS"
SH
chmod +x "$T/claim.sh"
for n in 1 2 3 4 5 6 7 8; do
	( "$TUNECTL_BIN" lease run --via slurm --gres gpu:1 --lease-root "$L" --timeout-seconds 60 \
	    --lease-timeout-seconds 90 --cwd "$W" --command-id "c$n" --manifest-out "$M/c$n.json" \
	    -- "$T/claim.sh" >/dev/null 2>"$M/c$n.err"; echo $? >"$M/c$n.rc" ) &
done
wait
check "${TESTS[2]}" py "$M" <<'PY'
import json, os, sys
from datetime import datetime
d = sys.argv[1]
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
per_gpu = {}
for n in range(1, 9):
    rc = open(os.path.join(d, "c%d.rc" % n)).read().strip()
    assert rc == "0", ("c%d exit" % n, rc, open(os.path.join(d, "c%d.err" % n)).read())
    m = json.load(open(os.path.join(d, "c%d.json" % n)))
    assert m["status"] == "passed", m
    ids = m["device_ids"]
    assert len(ids) == 1 and ids == m["slurm"]["device_ids"], m
    out = open(m["logs"]["stdout"]).read().split()
    want = ",".join(map(str, ids))
    assert "CUDA_VISIBLE_DEVICES=" + want in out, ("command saw", out, "allocated", ids)
    assert "SUPERKERNEL_DEVICE_IDS=" + want in out, out
    assert m["slurm"]["visible_devices"]["CUDA_VISIBLE_DEVICES"] == want, m["slurm"]
    c = m["command"]
    per_gpu.setdefault(ids[0], []).append((ts(c["started_at"]), ts(c["finished_at"]), n))
for gpu, spans in per_gpu.items():
    spans.sort()
    for (s1, e1, a), (s2, e2, b) in zip(spans, spans[1:]):
        assert s2 >= e1, "GPU %d held by c%d and c%d at once" % (gpu, a, b)
assert sum(len(v) for v in per_gpu.values()) == 8
PY

# --- timeout: scancel, recorded like the local runner's timeout ----------------
# The command double-forks a SIGTERM-ignoring sleeper, which
# proctrack/linuxproc alone would let escape.
cat >"$T/slow.sh" <<SH
#!/bin/sh
( trap '' TERM; setsid sh -c 'trap "" TERM; echo \$\$ > "$T/escapee.pid"; exec sleep 300' & )
sleep 300
SH
chmod +x "$T/slow.sh"
( "$TUNECTL_BIN" lease run --via slurm --gres gpu:1 --lease-root "$L" --timeout-seconds 4 \
    --cwd "$W" --command-id slow --manifest-out "$M/slow.json" -- "$T/slow.sh" \
    >/dev/null 2>&1; echo $? >"$M/slow.rc" ) &
slow_pid=$!
# While it runs, status names it as a holder.
for _ in $(seq 100); do
	tc lease status --via slurm
	[[ "$out" == *'"command_id": "slow"'* ]] && break
	sleep 0.1
done
check "${TESTS[5]}" py "$out" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
assert s["backend"] == "slurm"
assert s["gres"]["gpu"]["total"] == 2 and s["gres"]["npu"]["total"] == 2, s["gres"]
assert s["gres"]["gpu"]["allocated"] >= 1, s["gres"]
h = [j for j in s["holders"] if j["command_id"] == "slow"]
assert len(h) == 1, s["holders"]
h = h[0]
assert h["tunectl"] is True and h["job_name"] == "tunectl:slow", h
assert len(h["devices"]["gpu"]) == 1 and h["state"] == "RUNNING", h
assert "slow.json" in h["comment"], h
PY
wait "$slow_pid"
expect_eq "$(cat "$M/slow.rc")" 1 "${TESTS[3]}: exit 1 (failed)"
check "${TESTS[3]}" py "$M/slow.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["status"] == "failed" and m["reason"] == "command_timeout", m
assert m["command"]["timed_out"] is True and "interrupted_by" not in m["command"], m["command"]
s = m["slurm"]
assert s["cancelled"]["by"] == "tunectl" and s["cancelled"]["reason"] == "command_timeout", s
assert s["job_state"] == "CANCELLED", s
PY
check "the double-forked child of a cancelled run is gone" \
    bash -c '[ -s "$1" ] && ! kill -0 "$(cat "$1")" 2>/dev/null' _ "$T/escapee.pid"

# --- lease timeout: the pending job is withdrawn ----------------------------------
srun --gres=gpu:2 --job-name=hog sleep 60 >/dev/null 2>&1 &
hog=$!
for _ in $(seq 100); do
	[ "$(squeue -h -n hog -t R -o %i)" != "" ] && break
	sleep 0.1
done
tc lease run --via slurm --gres gpu:1 --lease-root "$L" --timeout-seconds 30 --lease-timeout-seconds 2 \
    --cwd "$W" --command-id waiter --manifest-out "$M/waiter.json" -- /bin/true
expect_rc 2 "${TESTS[4]}: exit 2 (blocked)"
check "${TESTS[4]}" py "$M/waiter.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["status"] == "blocked" and m["command"] is None and m["lease_mode"] is None, m
job = m["slurm"]["job_id"]
assert m["reason"] == "timed out acquiring Slurm device lease gpu:1 (job %s pending)" % job, m["reason"]
assert m["slurm"]["cancelled"]["reason"] == "lease_timeout", m["slurm"]
assert m["slurm"]["started_at"] is None and m["slurm"]["job_state"] == "CANCELLED", m["slurm"]
PY
check "the withdrawn job is no longer queued" test -z "$(squeue -h -n tunectl:waiter -o %i)"
scancel --name=hog >/dev/null 2>&1
wait "$hog" 2>/dev/null

# --- a phase worker as a job ----------------------------------------------------------
HOST=$TUNECTL_SRC/tests/fixtures/hosts/fake_host.py
tc init --session "$T/s/artifacts/auto-tune-session.json" --artifact-root "$T/s/artifacts" \
    --session-id session-20260905-a --optional-mode none
S=$T/s/artifacts/auto-tune-session.json
printf '["%s", "--", "%s", "ok"]\n' "$TUNECTL_SRC/examples/hosts/slurm/host.sh" "$HOST" >"$T/slurm-runner.json"
TUNECTL=$TUNECTL_BIN tc run-next --session "$S" --runner-command-json "$T/slurm-runner.json"
expect_rc 0 "${TESTS[6]}: run-next exits 0"
tc next --session "$S"
expect_out '"phase": "s0_baseline"' "${TESTS[6]}: the next phase is s0_baseline"
D=$T/s/artifacts/dispatches/intake-preparation-attempt-001
check "the host's log names the Slurm job" grep -q '^slurm host: job [0-9]* on ' "$D/runner.stderr.log"
job=$(sed -n 's/^slurm host: job \([0-9]*\) on .*/\1/p' "$D/runner.stderr.log")
check "the worker's job is named after the step and completed" \
    bash -c 'scontrol -o show job "$1" | grep -q "JobName=tunectl:intake-preparation .*JobState=COMPLETED"' _ "$job"
tc verify --session "$S"
expect_rc 0 "the session verifies after a worker ran as a job"
printf '["%s", "--", "%s", "exit7"]\n' "$TUNECTL_SRC/examples/hosts/slurm/host.sh" "$HOST" >"$T/slurm-exit7.json"
TUNECTL=$TUNECTL_BIN tc run-next --session "$S" --runner-command-json "$T/slurm-exit7.json"
expect_out "Agent host exited with status 7" "the worker's exit status comes back through srun"

finish
