# pypto_fixtures.sh - what the PyPTO orchestration tests share (source it
# after lib.sh): the example operator's workers (the optimizer is the
# stub of tests/fixtures/pypto/), the script host, and two helpers.  Exits
# with a SKIP when python3 is missing (the example operator is Python).
#
#   jq_ FILE EXPR    print EXPR over the JSON document d of FILE
#   sha FILE         its SHA-256
if ! command -v python3 >/dev/null 2>&1; then
	echo "ok 1 # SKIP python3 is not installed (the example operator is Python)"
	echo "1..1"
	exit 0
fi

EX=$TUNECTL_SRC/examples/pypto-op
HOST=$T/host.json
printf '["%s"]\n' "$TUNECTL_SRC/examples/hosts/script/host.sh" >"$HOST"
mkdir -p "$T/workers"
for r in planner mathematician architect coder verifier; do
	ln -s "$EX/workers/$r" "$T/workers/$r"
done
ln -s "$TUNECTL_SRC/tests/fixtures/pypto/stub_optimizer" "$T/workers/optimizer"
export TUNECTL=$TUNECTL_BIN TUNECTL_WORKERS=$T/workers TUNECTL_PYPTO_EXAMPLE=$EX
export PYTHONPATH=$EX/shim${PYTHONPATH:+:$PYTHONPATH}
export PYPTO_STUB_LOG=$T/stub.log

jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
