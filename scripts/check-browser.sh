#!/bin/sh
# check-browser.sh - `make check-browser`: render the HTML report of a
# finished demo session in headless Chromium and fail when the page is blank
# or the result table or a chart is missing after rendering.
set -eu
TUNECTL=${1:-build/tunectl}
work=$(mktemp -d "${TMPDIR:-/tmp}/tunectl-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT
SKW_SIMULATED_TIMING=1 "$TUNECTL" demo --artifact-root "$work/demo" --profile quick \
    --optional-mode both --quiet 2>"$work/demo.log" || { cat "$work/demo.log" >&2; exit 1; }
report=$(readlink -f "$work/demo/latest")/report.html
browser=$(command -v chromium || command -v chromium-browser)
flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,2400"
# shellcheck disable=SC2086
"$browser" $flags --dump-dom "file://$report" >"$work/dom.html" 2>/dev/null
# shellcheck disable=SC2086
"$browser" $flags --screenshot="$work/shot.png" "file://$report" >/dev/null 2>&1
python3 - "$work/dom.html" "$work/shot.png" <<'PY'
import re, struct, sys, zlib
dom = open(sys.argv[1], encoding="utf-8").read()
for chart in ("s0", "stage_a", "stage_o", "final"):
    m = re.search(r'data-chart="%s" data-points="(\d+)"' % chart, dom)
    if not m or int(m.group(1)) == 0:
        sys.exit("check-browser: chart %s missing from the rendered page" % chart)
if '<section id="result"><h2>Result</h2><table class="result">' not in dom:
    sys.exit("check-browser: the result table is missing from the rendered page")
png = open(sys.argv[2], "rb").read()
if png[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("check-browser: no screenshot")
w, h, depth, ctype = struct.unpack(">IIBB", png[16:26])
data, pos = b"", 8
while pos < len(png):
    n, kind = struct.unpack(">I4s", png[pos:pos + 8])
    if kind == b"IDAT":
        data += png[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(data)
# Count distinct pixel values on a sample of rows: a blank page has one.
bpp = {2: 3, 6: 4}.get(ctype, 1)
stride = w * bpp + 1
colours = set()
for row in range(0, h, max(1, h // 200)):
    line = raw[row * stride + 1:(row + 1) * stride]
    colours.update(line[i:i + bpp] for i in range(0, len(line), bpp * 7))
if len(colours) < 8:
    sys.exit("check-browser: the screenshot is blank (%d colours)" % len(colours))
print("check-browser: report rendered, the result table and 4 charts with data, %dx%d screenshot, %d colours sampled"
      % (w, h, len(colours)))
PY
