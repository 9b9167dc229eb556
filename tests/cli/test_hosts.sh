#!/usr/bin/env bash
# The agent host adapters of examples/hosts/: each builds the child prompt
# with `tunectl prompt` and starts one fresh non-interactive agent run.  The
# agent CLIs are stood in for by tests/fixtures/agents/ (on PATH), which
# record how they were called and do the phase's work.
. "$(dirname "$0")/lib.sh"

export PATH="$TUNECTL_SRC/tests/fixtures/agents:$PATH"
export TUNECTL="$TUNECTL_BIN"
export FAKE_AGENT_LOG="$T/agents.log"
cd "$TUNECTL_SRC"

for host in claude codex opencode; do
	A="$T/$host"
	tc init --session "$A/auto-tune-session.json" --artifact-root "$A" --session-id "s-$host" --optional-mode none
	: >"$FAKE_AGENT_LOG"
	tc run-next --session "$A/auto-tune-session.json" --runner-command-json "examples/hosts/$host/runner.json"
	expect_rc 0 "the $host host runs a phase to a sealed result"
	expect_eq "$(/usr/bin/python3 -c "import json;print(json.load(open('$A/auto-tune-session.json'))['steps'][0]['state'])")" \
	    "sealed" "the $host host's result is sealed"
	rec=$(cat "$FAKE_AGENT_LOG")
	check "the $host host starts the $host CLI once" test "$(wc -l <"$FAKE_AGENT_LOG")" -eq 1
	check "the $host prompt names the task path" grep -q "Phase task file: $A/dispatches/intake-preparation-attempt-001/phase-task.json" <<<"$rec"
	check "the $host prompt names agent, phase and skill" grep -q 'agent_id: sk-intake-preparation.*' <<<"$rec"
	check "the $host prompt says to load and follow the skill" grep -q 'Load and follow the skill `superkernel-intake-preparation`' <<<"$rec"
	check "the $host prompt gives the validation command" grep -q "execute-phase --task" <<<"$rec"
	check "the $host prompt names the result schema" grep -q "superkernel-auto-tune-phase-result-v1" <<<"$rec"
	check "the $host prompt states the boundary" grep -q "you own this phase only" <<<"$rec"
	check "the $host agent gets no terminal on stdin" grep -q '"stdin_is_tty": false' <<<"$rec"
done
# Each CLI is called the documented, non-interactive way.
for host in claude codex opencode; do
	A="$T/shape-$host"
	tc init --session "$A/s.json" --artifact-root "$A" --session-id "x-$host" --optional-mode none
	: >"$FAKE_AGENT_LOG"
	tc run-next --session "$A/s.json" --runner-command-json "examples/hosts/$host/runner.json"
	case $host in
	claude) want='"args": ["-p", "--permission-mode", "acceptEdits", "--output-format", "text"]' ;;
	codex) want='"args": ["exec", "--sandbox", "workspace-write"]' ;;
	opencode) want='"args": ["run"]' ;;
	esac
	check "the $host CLI is called as documented" grep -qF "$want" "$FAKE_AGENT_LOG"
done

# A missing agent CLI fails the attempt with a clear message; the step stays pending.
A="$T/missing"
tc init --session "$A/s.json" --artifact-root "$A" --session-id missing --optional-mode none
PATH=/usr/bin:/bin tc run-next --session "$A/s.json" --runner-command-json "examples/hosts/claude/runner.json"
expect_rc 1 "a host whose agent CLI is missing fails the attempt"
check "the host says the claude CLI is missing" grep -q "the 'claude' CLI is not on PATH" "$A/dispatches/intake-preparation-attempt-001/runner.stderr.log"

finish
