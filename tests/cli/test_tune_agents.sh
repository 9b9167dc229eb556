#!/usr/bin/env bash
# tunectl tune --host claude|codex|opencode: each phase goes to a fresh
# agent through the host adapter of examples/hosts; `tunectl prompt` tells
# the agent of a tune session to run the phase's generic worker with
# `tunectl tune SPEC --task T --result R`.  The agents are the stand-ins of
# tests/fixtures/agents (on PATH), which record how they were started and
# run the command their prompt names; the session, its gates and verify
# are real.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { skip "no python3"; finish; }
cd "$T"
mkdir ex
export FAKE_AGENT_LOG="$T/agents.log"
jf() { /usr/bin/python3 -c "import json,sys; print(eval(sys.argv[2]))" "$@"; }
cp "$TUNECTL_SRC/tests/fixtures/workloads/tune_slow_fast.yaml" ex/tune.yaml

# Without the agent's CLI the adapter says so; the session stops at intake,
# nothing of it sealed, and resumes with the CLI installed.
PATH_NO_AGENT=
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do	# a real claude CLI must not answer here
	[ -x "$d/claude" ] || PATH_NO_AGENT=${PATH_NO_AGENT:+$PATH_NO_AGENT:}$d
done
PATH=$PATH_NO_AGENT tc tune ex/tune.yaml --host claude --session-dir s
expect_rc 1 "no claude on PATH: tune stops"
expect_err "claude host: the 'claude' CLI is not on PATH" "with the adapter's reason"
expect_err "continue with: tunectl tune ex/tune.yaml --resume --session-dir" "and how to resume"
R=$(cd s/latest && pwd -P)
expect_eq "$("$TUNECTL_BIN" json get "$R/auto-tune-session.json" /steps/0/state)" pending \
	"intake stays pending"

export PATH="$TUNECTL_SRC/tests/fixtures/agents:$PATH_NO_AGENT"
tc tune ex/tune.yaml --host claude --session-dir s --resume
expect_rc 0 "--host claude: the session resumes and completes"
expect_err "final clean E2E: beneficial" "beneficial"
expect_err "for fast n=2" "with the fast variant at n=2"
tc verify --session "$R/auto-tune-session.json"
expect_rc 0 "--host claude: tunectl verify"
check "the session verifies" grep -q '"valid": true' <<< "$out"
expect_eq "$(jf "$FAKE_AGENT_LOG" "len(open(sys.argv[1]).readlines())")" 7 "one fresh agent per phase"
expect_eq "$(jf "$FAKE_AGENT_LOG" "sorted(set(__import__('json').loads(l)['argv0'] for l in open(sys.argv[1])))")" \
	"['claude']" "every one a claude"
P=$(jf "$FAKE_AGENT_LOG" "__import__('json').loads(open(sys.argv[1]).readlines()[2])['prompt']")
check "the prompt is the phase prompt (the skill, the validation command)" \
	grep -q "skill:    superkernel-stage-a-scope-selection" <<< "$P"
check "and names the spec" grep -q "This session tunes the program of a workload spec" <<< "$P"
check "and the command that does the phase" \
	grep -Eq "^ +'[^']*tunectl' tune '$T/ex/tune.yaml' --task '[^']*/phase-task.json' --result '[^']*'$" <<< "$P"
check "the adapter granted the agent exactly tunectl" \
	grep -q "Bash($(readlink -f "$TUNECTL_BIN") \*)" "$FAKE_AGENT_LOG"
check "the skills were installed for claude" test -d "$R/.claude/skills"

for host in codex opencode; do
	: > "$FAKE_AGENT_LOG"
	tc tune ex/tune.yaml --host $host --session-dir s-$host
	expect_rc 0 "--host $host: the session completes"
	expect_err "final clean E2E: beneficial" "--host $host: beneficial"
	H=$(cd s-$host/latest && pwd -P)
	tc verify --session "$H/auto-tune-session.json"
	expect_rc 0 "--host $host: tunectl verify"
	expect_eq "$(jf "$FAKE_AGENT_LOG" "sorted(set(__import__('json').loads(l)['argv0'] for l in open(sys.argv[1])))")" \
		"['$host']" "--host $host: each phase went to $host"
	expect_eq "$("$TUNECTL_BIN" json get "$H/tune/run.json" /host)" $host "the run record names the host"
	[ $host = codex ] && expect_eq "$(jf "$FAKE_AGENT_LOG" "__import__('json').loads(open(sys.argv[1]).readline())['args'][-2:]")" \
		"['--add-dir', '$(cd s-codex && pwd -P)/leases']" "codex may also write the leases beside the artifact root"
done

# The worker's door refuses a task of another spec's session.
sed -e 's/^name: slow-fast/name: other/' ex/tune.yaml > ex/other.yaml
TASK=$(ls "$R"/dispatches/*/phase-task.json | head -1)
tc tune ex/other.yaml --task "$TASK" --result "$T/r.json"
expect_rc 1 "--task of a session that tunes another spec is refused"
expect_err "tunes a spec with sha256" "in words"
check "and no result is written" test ! -e "$T/r.json"
tc tune ex/tune.yaml --task "$TASK"
expect_rc 2 "--task without --result is a usage error"
finish
