#!/usr/bin/env bash
# json.sh - canonical-JSON digest throughput, tunectl against CPython, and
# SHA-256 of a large file, tunectl against openssl.  Prints numbers and
# ratios; asserts nothing (a digest mismatch is reported, and exits 1).
#
#   1. A seeded ~50 MB document of realistic records (ASCII and CJK/emoji
#      strings, escapes, ints up to 10^12, short decimals, random and
#      extreme doubles, nested objects and arrays, insertion-ordered keys).
#      Python: read bytes + decode + json.loads + json.dumps(sort_keys=True,
#      separators=(",", ":"), ensure_ascii=False) + encode + sha256, timed
#      inside the interpreter (start-up excluded).  tunectl: the whole
#      `tunectl json digest FILE` process (start-up, read, parse, write,
#      hash, exit).  Best of RUNS (default 3) for each.
#   2. `tunectl sha256` against `openssl dgst -sha256` on a 1 GiB file in
#      /tmp (deleted afterwards), best of RUNS.  Skipped when either is
#      missing.  JSON_BENCH_MB / SHA_BENCH_MB change the sizes.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TC=$PWD/$BUILD/tunectl
PY=/usr/bin/python3
RUNS=${RUNS:-3}
MB=${JSON_BENCH_MB:-50}
SHA_MB=${SHA_BENCH_MB:-1024}
D=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-bench-json.XXXXXX")
trap 'rm -rf "$D"' EXIT

"$PY" - "$D/doc.json" "$MB" <<'EOF'
import json, random, struct, sys
rnd = random.Random(12345)
target = int(float(sys.argv[2]) * 1_000_000)
words = ["alpha", "beta", "gamma", "delta", "kernel", "tile", "fusion", "latency",
         "throughput", "pipeline", "成功", "失败", "μs", "Größe", "naïve", "😀",
         "schedule", "phase", "option", "candidate"]
def rstr():
    s = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 6)))
    if rnd.random() < 0.05:
        s += "\n\t\"quoted\" \\ path/to/x"
    return s
def rfloat():
    r = rnd.random()
    if r < 0.4: return round(rnd.uniform(0, 1000), rnd.randint(1, 4))
    if r < 0.7: return rnd.random()
    if r < 0.85: return rnd.uniform(-1e6, 1e6)
    if r < 0.95: return rnd.lognormvariate(0, 20)
    d = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
    return d if d == d and abs(d) != float("inf") else 0.5
def record(i):
    return {"id": i, "name": rstr(), "op": rnd.choice(words) + "_" + str(rnd.randint(0, 999)),
            "latency_us": rfloat(), "samples": [rfloat() for _ in range(rnd.randint(0, 8))],
            "counts": [rnd.randint(-10**6, 10**12) for _ in range(rnd.randint(0, 5))],
            "ok": rnd.random() < 0.8, "note": None if rnd.random() < 0.5 else rstr(),
            "meta": {"stage": rnd.randint(0, 5), "tags": [rnd.choice(words) for _ in range(3)],
                     "hash": "%064x" % rnd.getrandbits(256)}}
parts, size, i = [], 40, 0
while size < target:
    t = json.dumps(record(i), ensure_ascii=False)
    parts.append(t)
    size += len(t.encode()) + 2
    i += 1
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write('{"schema": 1, "records": [' + ",\n".join(parts) + "]}")
EOF
size=$(stat -c %s "$D/doc.json")

# Python, in-process timing: prints "<seconds> <digest>"
py_out=$("$PY" - "$D/doc.json" "$RUNS" <<'EOF'
import hashlib, json, sys, time
best, digest = None, None
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    v = json.loads(data.decode("utf-8"))
    s = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(s.encode("utf-8")).hexdigest()
    t = time.perf_counter() - t0
    best = t if best is None else min(best, t)
    del v, s, data
print("%.6f %s" % (best, digest))
EOF
)
py_s=${py_out% *}
py_digest=${py_out#* }

# best wall-clock seconds of RUNS runs of a command (stdout discarded)
best_of() {
	"$PY" - "$RUNS" "$@" <<'EOF'
import subprocess, sys, time
best = None
for _ in range(int(sys.argv[1])):
    t0 = time.perf_counter()
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter() - t0
    best = t if best is None else min(best, t)
print("%.6f" % best)
EOF
}

tc_digest=$("$TC" json digest "$D/doc.json")
tc_s=$(best_of "$TC" json digest "$D/doc.json")

awk -v size="$size" -v py="$py_s" -v tc="$tc_s" 'BEGIN {
	mb = size / 1e6
	printf "canonical digest of a %.1f MB JSON document (best of runs):\n", mb
	printf "  %-58s %7.3f s %8.1f MB/s\n", "python3 loads+dumps(sort_keys)+sha256 (in-process)", py, mb / py
	printf "  %-58s %7.3f s %8.1f MB/s\n", "tunectl json digest (whole process)", tc, mb / tc
	printf "  ratio tunectl/python: %.1fx (target >= 5x)\n", py / tc
}'
if [ "$tc_digest" != "$py_digest" ]; then
	echo "  DIGEST MISMATCH: tunectl $tc_digest python $py_digest"
	exit 1
fi
echo "  digests agree: $tc_digest"

# SHA-256 of a large file
if ! command -v openssl >/dev/null 2>&1; then
	echo "sha256: openssl not found; skipped"
	exit 0
fi
if ! "$TC" sha256 "$D/doc.json" >/dev/null 2>&1; then
	echo "sha256: 'tunectl sha256' is not available; skipped"
	exit 0
fi
big=$(mktemp "/tmp/tunectl-bench-sha.XXXXXX")
trap 'rm -rf "$D" "$big"' EXIT
head -c "$((SHA_MB * 1024 * 1024))" /dev/urandom >"$big"
tc_sum=$("$TC" sha256 "$big" | cut -d' ' -f1)
os_sum=$(openssl dgst -sha256 "$big" | sed 's/.*= //')
tc_sha_s=$(best_of "$TC" sha256 "$big")
os_sha_s=$(best_of openssl dgst -sha256 "$big")
awk -v mib="$SHA_MB" -v os="$os_sha_s" -v tc="$tc_sha_s" 'BEGIN {
	mb = mib * 1048576 / 1e6
	printf "sha256 of a %d MiB file (best of runs, page cache warm):\n", mib
	printf "  %-58s %7.3f s %8.1f MB/s\n", "openssl dgst -sha256", os, mb / os
	printf "  %-58s %7.3f s %8.1f MB/s\n", "tunectl sha256", tc, mb / tc
	printf "  ratio tunectl/openssl: %.2fx\n", os / tc
}'
rm -f "$big"
if [ "$tc_sum" != "$os_sum" ]; then
	echo "  DIGEST MISMATCH: tunectl $tc_sum openssl $os_sum"
	exit 1
fi
echo "  digests agree"
