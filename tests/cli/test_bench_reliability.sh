#!/usr/bin/env bash
# test_bench_reliability.sh - bench/demo_reliability.sh's regression
# session (--regression-baseline) without a real session: a stand-in for
# tunectl (TUNECTL) records the spec it is given and fails.  The copy of
# the spec must sit beside the original (so that {spec_dir} paths and
# build inputs resolve), name the regression baseline, be removed after
# the run (kept under --out), and a session that did not finish must
# not be reported as a refusal.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
mkdir "$T/ex"
cat > "$T/ex/spec.yaml" <<'YAML'
version: 1
name: stand-in
baseline:
  variant: S0
  params: {n: 1}
YAML
cat > "$T/tunectl" <<EOS
#!/bin/sh
# the spec, and the baseline variant it names
echo "\$2 \$(sed -n 's/^  variant: //p' "\$2")" >> "$T/calls"
exit 1
EOS
chmod +x "$T/tunectl"
TUNECTL=$T/tunectl "$TUNECTL_SRC/bench/demo_reliability.sh" --runs 1 --spec "$T/ex/spec.yaml" \
    --regression-baseline S2 --out "$T/out" > "$T/log" 2>&1
check "the script completes" test $? -eq 0
check "the series ran the spec itself" grep -qx "$T/ex/spec.yaml S0" "$T/calls"
check "the regression session ran a hidden copy beside the spec, baseline S2" \
    grep -Eq "^$T/ex/\.regression-S2\.[A-Za-z0-9]+ S2\$" "$T/calls"
check "the copy is removed after the run" test -z "$(ls -A "$T/ex" | grep regression)"
check "and kept under --out" grep -q '^  variant: S2$' "$T/out/regression/spec.yaml"
check "a session that did not finish has no verdict" \
    grep -q "regression session (baseline S2, every candidate slower): no_session, no session, phases run 0 of 0; NO VERDICT: the session did not finish (exit 1, see $T/out/regression/run.log)" "$T/log"
check "and is not reported as a refusal" bash -c '! grep -q "refused, as it must be" "$1"' _ "$T/log"
finish
