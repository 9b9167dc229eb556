#!/usr/bin/env bash
# tunectl env-check (check_environment.py): the facts recorded, GPUs and
# NPUs through their vendor tools, the blockers for missing prerequisites,
# the stable fingerprint, --out, and the reference-named tool shim.
. "$(dirname "$0")/lib.sh"

j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
BIN=$T/bin
mkdir -p "$BIN"
# A PATH with the basics and no GPU/NPU tools.
for p in sh env cat; do ln -s "$(command -v $p)" "$BIN/$p"; done
# tc runs under the restricted PATH below: name valgrind absolutely.
if [ "${VALGRIND:-0}" = 1 ]; then _tc_prefix[0]=$(command -v valgrind); fi
P=$BIN

tc_path() { PATH=$P tc "$@"; }

tc_path env-check
expect_rc 0 "a machine with no requirements is ready"
printf '%s\n' "$out" > "$T/r.json"
expect_eq "$(j "$T/r.json" 'd["schema_version"], d["status"], d["blockers"]')" "('tunectl-environment-check-v1', 'ready', [])" "ready report"
expect_eq "$(j "$T/r.json" 'sorted(d)')" "['blockers', 'collected_at', 'compilers', 'cpu', 'environment', 'fingerprint', 'gpus', 'host', 'load', 'memory', 'npus', 'schema_version', 'status', 'warnings']" "report sections"
expect_eq "$(j "$T/r.json" 'd["host"]["kernel_release"]')" "$(uname -r)" "the kernel release is recorded"
expect_eq "$(j "$T/r.json" 'd["cpu"]["logical_cpus"]')" "$(grep -c ^processor /proc/cpuinfo)" "the logical CPU count is recorded"
expect_eq "$(j "$T/r.json" 'd["memory"]["total_bytes"] // 1024')" "$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" "total memory is recorded"
expect_eq "$(j "$T/r.json" 'len(d["load"]["loadavg"])')" "3" "the load averages are recorded"
expect_eq "$(j "$T/r.json" 'd["gpus"]["count"], d["gpus"]["error"]')" "(0, 'nvidia-smi not found in PATH')" "no nvidia-smi: no GPU, said so"
expect_eq "$(j "$T/r.json" 'd["npus"]["count"], d["npus"]["error"]')" "(0, 'npu-smi not found in PATH')" "no npu-smi: no NPU, said so"
expect_eq "$(j "$T/r.json" 'len(d["fingerprint"])')" "64" "a fingerprint of the stable facts"

tc_path env-check --require-gpu --require-npu --require-compiler no-such-cc
expect_rc 1 "missing prerequisites block with exit 1"
printf '%s\n' "$out" > "$T/b.json"
expect_eq "$(j "$T/b.json" 'd["status"], [b["code"] for b in d["blockers"]]')" "('blocked', ['compiler_missing', 'gpu_unavailable', 'npu_unavailable'])" "each missing prerequisite is a blocker"
expect_err "blocked: compiler 'no-such-cc' is required but was not found in PATH" "blockers are named on stderr"

# Fake vendor tools.
cat > "$BIN/nvidia-smi" <<'SH'
#!/bin/sh
if [ "$*" = "-q" ]; then
	printf '\n==============NVSMI LOG==============\n\nTimestamp                                 : Tue Dec  2 04:00:00 2026\n'
	printf 'Driver Version                            : 550.54.15\nCUDA Version                              : 12.4\n\nAttached GPUs                             : 2\n'
	exit 0
fi
case "$*" in *--query-gpu=*) ;; *) exit 9 ;; esac
echo "0, GPU-aaaa, NVIDIA H200, 550.54.15, 143771, Enabled, Default, 1980, 345, 31, 0, 1"
echo "1, GPU-bbbb, NVIDIA H200, 550.54.15, 143771, Enabled, Default, 1980, [N/A], 30, 5, 2"
SH
cat > "$BIN/npu-smi" <<'SH'
#!/bin/sh
[ "$*" = "info -l" ] || exit 9
printf '        Total Count                    : 2\n\n'
printf '        NPU ID                         : 0\n        Product Name                   : Ascend910B3\n'
printf '        NPU ID                         : 1\n        Product Name                   : Ascend910B3\n'
SH
chmod +x "$BIN/nvidia-smi" "$BIN/npu-smi"
tc_path env-check --require-gpu --require-npu
expect_rc 0 "GPUs and NPUs found: ready"
printf '%s\n' "$out" > "$T/g.json"
expect_eq "$(j "$T/g.json" 'd["gpus"]["count"], d["gpus"]["devices"][0]["name"], d["gpus"]["devices"][0]["memory_total"], d["gpus"]["devices"][1]["clocks_sm"]')" "(2, 'NVIDIA H200', 143771, None)" "nvidia-smi's devices are parsed"
expect_eq "$(j "$T/g.json" 'd["gpus"]["cuda_version"], d["gpus"]["devices"][0]["driver_version"]')" "('12.4', '550.54.15')" "the driver and the CUDA version it supports are recorded"
expect_eq "$(j "$T/g.json" 'd["npus"]["count"], [x["product_name"] for x in d["npus"]["devices"]], d["npus"]["devices"][1]["npu_id"]')" "(2, ['Ascend910B3', 'Ascend910B3'], 1)" "npu-smi's devices are parsed"

tc_path env-check --require-gpu --require-npu
printf '%s\n' "$out" > "$T/g2.json"
expect_eq "$(j "$T/g.json" 'd["fingerprint"]')" "$(j "$T/g2.json" 'd["fingerprint"]')" "the fingerprint is stable across runs"
sed -i 's/550.54.15/560.00.01/g' "$BIN/nvidia-smi"
tc_path env-check
printf '%s\n' "$out" > "$T/g3.json"
check "a driver change changes the fingerprint" test "$(j "$T/g.json" 'd["fingerprint"]')" != "$(j "$T/g3.json" 'd["fingerprint"]')"
sed -i 's/^CUDA Version  /CUDA UMD Version/; s/12\.4/13.0/' "$BIN/nvidia-smi"
tc_path env-check
printf '%s\n' "$out" > "$T/g4.json"
expect_eq "$(j "$T/g4.json" 'd["gpus"]["cuda_version"]')" "13.0" "newer drivers' 'CUDA UMD Version' is read too"

printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' > "$BIN/nvidia-smi"
tc_path env-check --require-gpu
expect_rc 1 "a failing nvidia-smi blocks a GPU requirement"
expect_err "NVIDIA-SMI has failed" "the driver tool's error is reported"
printf '#!/bin/sh\n/bin/sleep 30\n' > "$BIN/npu-smi"
tc_path env-check --probe-timeout-seconds 0.3 --require-npu
expect_rc 1 "a hanging npu-smi is bounded by the probe timeout"
expect_err "an NPU is required but none was found (npu-smi failed)" "the hanging probe becomes the NPU blocker"

expect_eq "$(j "$T/r.json" 'd["gpus"]["cuda_version"]')" "None" "no GPU: no CUDA version"

# Compilers.
printf '#!/bin/sh\necho "fakecc version 9.9"\n' > "$BIN/fakecc"
chmod +x "$BIN/fakecc"
tc_path env-check --require-compiler fakecc
expect_rc 0 "a present required compiler is fine"
printf '%s\n' "$out" > "$T/c.json"
expect_eq "$(j "$T/c.json" '[(c["version"], c["required"]) for c in d["compilers"] if c["name"] == "fakecc"]')" "[('fakecc version 9.9', True)]" "the compiler version is recorded"
cat > "$BIN/nvcc" <<'SH'
#!/bin/sh
printf 'nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\nBuilt on Wed_Aug_20_01:58:59_PM_PDT_2025\n'
printf 'Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n'
SH
printf '#!/bin/sh\necho "odd compiler"\necho "no version here"\n' > "$BIN/oddcc"
chmod +x "$BIN/nvcc" "$BIN/oddcc"
tc_path env-check --compiler oddcc
printf '%s\n' "$out" > "$T/n.json"
expect_eq "$(j "$T/n.json" '[c["version"] for c in d["compilers"] if c["name"] in ("nvcc", "oddcc")]')" "['Cuda compilation tools, release 13.0, V13.0.88', 'odd compiler']" "nvcc's version is its release line; without a version number the first line"
rm -f "$BIN/nvcc" "$BIN/oddcc"

# CPU governors from a sysroot.
rm -f "$BIN/nvidia-smi" "$BIN/npu-smi"
S=$T/sys
mkdir -p "$S/proc" "$S/sys/devices/system/cpu/cpu0/cpufreq" "$S/sys/devices/system/cpu/cpu1/cpufreq"
printf 'processor\t: 0\nmodel name\t: Test CPU\n\nprocessor\t: 1\nmodel name\t: Test CPU\n' > "$S/proc/cpuinfo"
printf '0-1\n' > "$S/sys/devices/system/cpu/online"
echo performance > "$S/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
echo powersave > "$S/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"
echo 800000 > "$S/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq"
echo 3500000 > "$S/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
printf 'MemTotal:       1024 kB\nMemAvailable:    512 kB\n' > "$S/proc/meminfo"
echo "3.00 1.00 0.50 2/100 1" > "$S/proc/loadavg"
tc_path env-check --sysroot "$S"
expect_rc 0 "a mixed governor is a warning, not a blocker"
printf '%s\n' "$out" > "$T/s.json"
expect_eq "$(j "$T/s.json" 'd["cpu"]["model"], d["cpu"]["logical_cpus"], d["cpu"]["governors"], d["cpu"]["frequency"]')" "('Test CPU', 2, {'performance': 1, 'powersave': 1}, {'max_mhz': 3500, 'min_mhz': 800})" "CPU model, count, governors and range"
expect_eq "$(j "$T/s.json" 'sorted(w["code"] for w in d["warnings"])')" "['cpu_governor_not_performance', 'system_busy']" "governor and load warnings"
tc_path env-check --sysroot "$S" --require-governor performance
expect_rc 1 "a required governor blocks when a CPU differs"
expect_err "governor 'performance' is required but some CPUs use 'powersave'" "the governor blocker names both"

# --out writes the evidence once.
tc_path env-check --out "$T/ev/env.json"
expect_rc 0 "--out succeeds"
check "--out writes the report" test "$(j "$T/ev/env.json" 'd["status"]')" = ready
tc_path env-check --out "$T/ev/env.json"
expect_rc 1 "--out never overwrites evidence"
expect_err "File exists" "the existing file is named"

# The reference-named tool.
TUNECTL=$TUNECTL_BIN PATH=$P "$TUNECTL_SRC/share/tools/check_environment.py" --require-compiler no-such-cc >/dev/null 2>&1
rc=$?
expect_rc 1 "check_environment.py runs env-check with the reference's tool name"
if command -v python3 >/dev/null; then
	TUNECTL=$TUNECTL_BIN python3 "$TUNECTL_SRC/share/tools/check_environment.py" --help > "$T/help.txt" 2>&1
	rc=$?
	expect_rc 0 "python3 check_environment.py works as the reference's workers call it"
	check "python3 check_environment.py reaches env-check" grep -q "usage: tunectl env-check" "$T/help.txt"
fi
TUNECTL=/nonexistent PATH=/usr/bin:/bin "$TUNECTL_SRC/share/tools/derived_family_lifecycle.py" --help > "$T/np.txt" 2>&1
rc=$?
expect_rc 69 "an unimplemented reference tool fails with 69"
check "the unimplemented tool says so" grep -q "not implemented by tunectl" "$T/np.txt"

finish
