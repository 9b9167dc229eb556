#!/usr/bin/env bash
# test_json.sh - "tunectl json canonical|digest|pretty": output forms,
# options, stdin, Python's error messages with the file named, OS errors,
# usage errors, and the 41 reference vectors of json-decode-errors.jsonl
# read from files (text-mode positions).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3

printf '{"b":[1,2.5,1e400,-0,-0.0,"x\\u00e9\\ud83d\\ude00"],"a":null}' >"$T/doc.json"

tc json canonical "$T/doc.json"
expect_rc 0 "canonical exits 0"
expect_eq "$out" '{"a":null,"b":[1,2.5,Infinity,0,-0.0,"xé😀"]}' "canonical sorts keys and writes Python's forms"
check "canonical prints no trailing newline" \
    test "$("$TUNECTL_BIN" json canonical "$T/doc.json" | tail -c 1)" = "}"

tc json canonical --ascii "$T/doc.json"
expect_eq "$out" '{"a":null,"b":[1,2.5,Infinity,0,-0.0,"x\u00e9\ud83d\ude00"]}' "--ascii escapes non-ASCII with surrogate pairs"

tc json canonical --no-nan "$T/doc.json"
expect_rc 1 "--no-nan refuses Infinity"
expect_eq "$err" "tunectl: $T/doc.json: Out of range float values are not JSON compliant" "--no-nan message is Python's"
expect_eq "$out" "" "nothing is printed on failure"

tc json digest "$T/doc.json"
want=$($PY -c 'import json,hashlib,sys; print(hashlib.sha256(json.dumps(json.load(open(sys.argv[1])),sort_keys=True,separators=(",",":"),ensure_ascii=False).encode()).hexdigest())' "$T/doc.json")
expect_eq "$out" "$want" "digest is sha256 of the canonical form"
check "digest prints 64 hex digits and a newline" \
    test "$("$TUNECTL_BIN" json digest "$T/doc.json" | wc -c)" = 65

tc json digest --ascii "$T/doc.json"
want=$($PY -c 'import json,hashlib,sys; print(hashlib.sha256(json.dumps(json.load(open(sys.argv[1])),sort_keys=True,separators=(",",":"),ensure_ascii=True).encode()).hexdigest())' "$T/doc.json")
expect_eq "$out" "$want" "digest --ascii hashes the ensure_ascii form"

tc json pretty "$T/doc.json"
"$TUNECTL_BIN" json pretty "$T/doc.json" >"$T/pretty.out"
$PY -c 'import json,sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1])),sort_keys=True,indent=2,ensure_ascii=False)+"\n")' "$T/doc.json" >"$T/pretty.want"
check "pretty is indent=2 plus a newline" cmp -s "$T/pretty.out" "$T/pretty.want"

tc_in "$T/doc.json" json canonical
expect_eq "$out" '{"a":null,"b":[1,2.5,Infinity,0,-0.0,"xé😀"]}' "no FILE reads stdin"
tc_in "$T/doc.json" json digest -
expect_rc 0 "- reads stdin"

printf '{"a": 1,\r\n "b" 2}' >"$T/bad.json"
tc json canonical "$T/bad.json"
expect_rc 1 "parse error exits 1"
expect_eq "$err" "tunectl: $T/bad.json: Expecting ':' delimiter: line 2 column 6 (char 14)" \
    "parse error names the file; positions as json.load(open(f)) counts them"
tc_in "$T/bad.json" json digest
expect_eq "$err" "tunectl: <stdin>: Expecting ':' delimiter: line 2 column 6 (char 14)" "stdin errors say <stdin>"

printf '"\\ud800"' >"$T/sur.json"
tc json digest "$T/sur.json"
expect_rc 1 "a lone surrogate cannot be digested"
expect_eq "$err" "tunectl: $T/sur.json: 'utf-8' codec can't encode character '\\ud800' in position 1: surrogates not allowed" \
    "surrogate error is Python's UnicodeEncodeError"
tc json digest --ascii "$T/sur.json"
expect_rc 0 "--ascii digests lone surrogates"

printf '["\xc3\xa9", "\xff"]' >"$T/latin.json"
tc json canonical "$T/latin.json"
expect_eq "$err" "tunectl: $T/latin.json: 'utf-8' codec can't decode byte 0xff in position 8: invalid start byte" \
    "invalid UTF-8 is Python's UnicodeDecodeError"

tc json canonical "$T/missing.json"
expect_rc 1 "missing file exits 1"
expect_eq "$err" "tunectl: [Errno 2] No such file or directory: '$T/missing.json'" "missing file is Python's OSError"
tc json canonical "$T"
expect_eq "$err" "tunectl: [Errno 21] Is a directory: '$T'" "directory is Python's IsADirectoryError"

tc json
expect_rc 2 "no subcommand is a usage error"
tc json frobnicate
expect_rc 2 "unknown subcommand is a usage error"
expect_err "invalid choice: 'frobnicate'" "unknown subcommand is named"
tc json canonical --bogus "$T/doc.json"
expect_rc 2 "unknown option is a usage error"
tc json canonical "$T/doc.json" "$T/doc.json"
expect_rc 2 "two files are a usage error"
tc json --help
expect_rc 0 "--help exits 0"
expect_out "tunectl json canonical" "--help prints the usage"

# The reference vectors, each read from a file like the reference does.
vectors=${TUNECTL_SRC}/../shared/reference/json-decode-errors.jsonl
if [ -f "$vectors" ]; then
	$PY - "$vectors" "$T/vec" <<'EOF'
import json, os, sys
os.makedirs(sys.argv[2])
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    v = json.loads(line)
    text = v["input"]
    if text.startswith("<'[' * 100000"):
        text = "[" * 100000 + "]" * 100000
    with open(os.path.join(sys.argv[2], "%02d.json" % i), "wb") as f:
        f.write(text.encode("utf-8", "surrogatepass"))
    with open(os.path.join(sys.argv[2], "%02d.err" % i), "w") as f:
        f.write(v["error"])
EOF
	n=0
	bad=0
	for f in "$T"/vec/*.json; do
		n=$((n + 1))
		tc json digest "$f"
		want="tunectl: $f: $(cat "${f%.json}.err")"
		if [ "$rc" != 1 ] || [ "$err" != "$want" ]; then
			bad=$((bad + 1))
			echo "# $f: want [$want] got [$err] rc=$rc"
		fi
	done
	check "all $n reference vectors fail with the reference's message" test "$bad" = 0 -a "$n" = 41
else
	ok "reference vectors not beside the checkout # SKIP"
fi

finish
