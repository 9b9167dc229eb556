#!/usr/bin/env bash
# test_spec_refs.sh - comments cite the rules in docs/spec/, and every
# citation resolves: no "§" section number of a document outside the
# repository is left in src/ or include/, and each `docs/spec/FILE.md
# "Heading"` names a file and a heading that exist (docs/spec/README.md,
# "Citing a rule").
. "$(dirname "$0")/lib.sh"

# sections ROOT: the "§" citations left in ROOT/src and ROOT/include.
sections() {
	(cd "$1" && grep -rn '§' src include 2>/dev/null)
}

# citations ROOT: the number of docs/spec citations under ROOT on the
# first line, then one line per citation that does not resolve.  Comment
# leaders are stripped and lines joined, so a citation wrapped over two
# comment lines is read whole.
cat >"$T/citations.py" <<'PY'
import os, re, sys
os.chdir(sys.argv[1])
ROOTS = ["src", "include", "tests", "examples", "scripts", "bench", "share",
         "docs"]
TEXT = (".c", ".h", ".sh", ".py", ".md", ".1")
CITE = re.compile(r'docs/spec/([A-Za-z0-9_-]+\.md)'
                  r'((?:(?:\s+|\s*,\s*|\s+and\s+)"[^"\n]+")*)')
HEAD = re.compile(r'"([^"\n]+)"')
LEAD = re.compile(r'^\s*(?:/\*+|\*+(?!/)|//|#+)?\s?')

headings = {}
def heads(name):
    if name not in headings:
        path = os.path.join("docs/spec", name)
        hs = None
        if os.path.isfile(path):
            hs = set()
            fence = False
            for line in open(path, encoding="utf-8"):
                if line.startswith("```"):
                    fence = not fence
                m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m and not fence:
                    hs.add(m.group(1))
        headings[name] = hs
    return headings[name]

n = 0
bad = []
for root in ROOTS:
    for dp, dns, fns in os.walk(root):
        dns[:] = sorted(d for d in dns if not d.startswith("."))
        for fn in sorted(fns):
            path = os.path.join(dp, fn)
            if (not fn.endswith(TEXT) or os.path.islink(path)
                    or fn == "test_spec_refs.sh"):   # its own examples
                continue
            try:
                lines = open(path, encoding="utf-8").read().split("\n")
            except (UnicodeDecodeError, OSError):
                continue
            joined = " ".join(LEAD.sub("", l, count=1) for l in lines)
            for m in CITE.finditer(joined):
                n += 1
                hs = heads(m.group(1))
                if hs is None:
                    bad.append(f"{path}: no file docs/spec/{m.group(1)}")
                    continue
                for h in HEAD.findall(m.group(2)):
                    if h not in hs:
                        bad.append(f'{path}: docs/spec/{m.group(1)} has no '
                                   f'heading "{h}"')
print(n)
for b in bad:
    print(b)
PY
citations() {
	python3 "$T/citations.py" "$1"
}

# ---- the tree ---------------------------------------------------------------
left=$(sections "$TUNECTL_SRC")
if [ -z "$left" ]; then
	ok "no comment in src/ or include/ cites a section of an outside document"
else
	not_ok "no comment in src/ or include/ cites a section of an outside document" \
	    "$(printf '%s\n' "$left" | head -5)" \
	    "cite docs/spec/<file>.md \"<heading>\" instead"
fi

report=$(citations "$TUNECTL_SRC")
count=$(printf '%s\n' "$report" | head -1)
problems=$(printf '%s\n' "$report" | tail -n +2)
check "the tree cites docs/spec/ ($count citations)" \
    test "${count:-0}" -gt 100
if [ -z "$problems" ]; then
	ok "every docs/spec citation names an existing file and heading"
else
	not_ok "every docs/spec citation names an existing file and heading" \
	    "$(printf '%s\n' "$problems" | head -10)"
fi

# ---- the checks see what they must refuse -----------------------------------
F=$T/fake
mkdir -p "$F/docs/spec" "$F/src" "$F/include"
printf '# T\n\n## Real heading\n\n## Other heading\n' >"$F/docs/spec/t.md"
cat >"$F/src/a.c" <<'C'
/* fine (docs/spec/t.md "Real heading", "Other heading") and a
 * wrapped one (docs/spec/t.md
 * "Real heading"); broken: docs/spec/t.md "Real heading",
 * "Fake heading", and docs/spec/none.md. */
C
report=$(citations "$F")
expect_eq "$report" '4
src/a.c: docs/spec/t.md has no heading "Fake heading"
src/a.c: no file docs/spec/none.md' \
    "a wrapped citation resolves; a missing heading or file is reported"
check "a tree without section numbers passes" test -z "$(sections "$F")"
printf '/* see \302\2479.2 */\n' >"$F/include/b.h"
check "a section number in include/ is found" test -n "$(sections "$F")"

finish
