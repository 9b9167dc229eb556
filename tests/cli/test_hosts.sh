#!/usr/bin/env bash
# The agent host adapters of examples/hosts/: each installs the skills where
# its agent looks for them, builds the child prompt with `tunectl prompt`
# (naming the installed SKILL.md) and starts one fresh non-interactive agent
# run with exactly the permissions a worker needs.  The agent CLIs are stood
# in for by tests/fixtures/agents/ (on PATH), which record how they were
# called and do the phase's work.  When the real CLIs are installed (on PATH,
# or in TUNECTL_AGENT_CLI_DIR, e.g. after `npm install --prefix DIR
# @anthropic-ai/claude-code @openai/codex opencode-ai`), the second part runs
# them far enough to check the adapters' arguments; no model is called.
. "$(dirname "$0")/lib.sh"

# Find the real CLIs before the stand-ins shadow them.
real_cli() {	# real_cli NAME: the real CLI's path, or nothing
	if [ -n "${TUNECTL_AGENT_CLI_DIR:-}" ] && [ -x "$TUNECTL_AGENT_CLI_DIR/$1" ]; then
		echo "$TUNECTL_AGENT_CLI_DIR/$1"
	else
		command -v "$1" 2>/dev/null || true
	fi
}
REAL_CLAUDE=$(real_cli claude)
REAL_CODEX=$(real_cli codex)
REAL_OPENCODE=$(real_cli opencode)

STANDINS=$TUNECTL_SRC/tests/fixtures/agents
export PATH="$STANDINS:$PATH"
export TUNECTL="$TUNECTL_BIN"
export FAKE_AGENT_LOG="$T/agents.log"
PROGRAM=$(readlink -f "$TUNECTL_BIN")
cd "$TUNECTL_SRC"
rec_get() { /usr/bin/python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])" "$FAKE_AGENT_LOG" "$1"; }
args_of() { /usr/bin/python3 -c "import json,sys; print(json.dumps(json.loads(open(sys.argv[1]).readline())['args']))" "$FAKE_AGENT_LOG"; }

for host in claude codex opencode; do
	case $host in
	claude) sub=.claude/skills ;;
	codex) sub=.agents/skills ;;
	opencode) sub=.opencode/skills ;;
	esac
	A="$T/$host"
	tc init --session "$A/auto-tune-session.json" --artifact-root "$A" --session-id "s-$host" --optional-mode none
	A=$(readlink -f "$A")
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
	check "the $host host installed the skills into $sub before the first attempt" \
	    diff -r "$TUNECTL_SRC/share/skills" "$A/$sub"
	check "the $host prompt names the installed SKILL.md" \
	    grep -qF "$A/$sub/superkernel-intake-preparation/SKILL.md" <<<"$rec"
	case $host in
	claude) want="[\"-p\", \"--output-format\", \"text\", \"--permission-mode\", \"acceptEdits\", \"--add-dir\", \"$A\", \"--allowedTools\", \"Bash($PROGRAM *)\"]" ;;
	codex) want="[\"exec\", \"--skip-git-repo-check\", \"-C\", \"$A\", \"--sandbox\", \"workspace-write\"]" ;;
	opencode) want="[\"run\", \"--agent\", \"build\", \"--dir\", \"$A\"]" ;;
	esac
	expect_eq "$(args_of)" "$want" "the $host CLI is called with the documented arguments"
	cp "$FAKE_AGENT_LOG" "$T/$host.record"
done
expect_eq "$(FAKE_AGENT_LOG=$T/claude.record rec_get cwd)" "$T/claude" "the claude agent works in the artifact root"
expect_eq "$(FAKE_AGENT_LOG=$T/opencode.record rec_get env_opencode_config)" \
    "{\"permission\": {\"external_directory\": {\"$(dirname "$PROGRAM")/*\": \"allow\"}}}" \
    "the opencode agent may run the tunectl program and nothing else outside its directory"

# A second attempt leaves the installed skills as they are.
A="$T/claude"
before=$(find "$A/.claude" -type f -newer "$A/auto-tune-session.json" | wc -l)
tc run-next --session "$A/auto-tune-session.json" --runner-command-json "examples/hosts/claude/runner.json"
expect_rc 0 "the claude host runs the next phase"
check "the second attempt rewrote no installed skill file" \
    test "$(find "$A/.claude" -type f -newer "$A/dispatches/intake-preparation-attempt-001/dispatch-receipt.json" | wc -l)" -eq 0

# A support run goes through the same adapters; its prompt names the role's skill.
: >"$FAKE_AGENT_LOG"
A="$T/sup"
tc init --session "$A/s.json" --artifact-root "$A" --session-id s-sup --optional-mode none
for _ in 1 2 3; do tc run-next --session "$A/s.json" --runner-command-json "examples/hosts/codex/runner.json"; done
cat >"$T/support-agent" <<'SA'
#!/usr/bin/python3
import json, os, re, sys
prompt = sys.argv[-1]
open(os.environ["FAKE_AGENT_LOG"], "a").write(json.dumps({"args": sys.argv[1:-1], "prompt": prompt}) + "\n")
task = json.load(open(re.search(r"Support task file: (\S+)", prompt).group(1)))
result = re.search(r"to this path \(and nowhere else\):\n\s+(\S+)", prompt).group(1)
json.dump({"schema_version": "tunectl-support-result-v1", "session_id": task["session_id"],
           "agent_id": task["role"]["agent_id"], "status": "succeeded", "summary": "ok",
           "produced_artifacts": [], "findings": [], "blockers": []}, open(result, "w"))
SA
chmod +x "$T/support-agent"
mkdir -p "$T/sa-bin"
ln -s "$T/support-agent" "$T/sa-bin/codex"
PATH="$T/sa-bin:$PATH" tc support run --session "$A/s.json" --role sk-failure-isolation-analyst \
    --runner-command-json examples/hosts/codex/runner.json
expect_rc 0 "a support run through the codex adapter passes its tree check"
check "the support prompt names the installed skill of the role" \
    grep -qF "$(readlink -f "$A")/.agents/skills/superkernel-sk-failure-isolation/SKILL.md" "$FAKE_AGENT_LOG"

# A missing agent CLI fails the attempt with a clear message; the step stays pending.
A="$T/missing"
tc init --session "$A/s.json" --artifact-root "$A" --session-id missing --optional-mode none
PATH=/usr/bin:/bin tc run-next --session "$A/s.json" --runner-command-json "examples/hosts/claude/runner.json"
expect_rc 1 "a host whose agent CLI is missing fails the attempt"
check "the host says the claude CLI is missing" grep -q "the 'claude' CLI is not on PATH" "$A/dispatches/intake-preparation-attempt-001/runner.stderr.log"

# ---- the real CLIs ---------------------------------------------------------------
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }
realenv() {	# a clean home, no credentials, the real CLI first on PATH
	env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u CODEX_API_KEY HOME="$T/home" \
	    CODEX_HOME="$T/home/.codex" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 PATH="$1:/usr/bin:/bin" "${@:2}"
}
mkdir -p "$T/home/.codex" "$T/nogit"

if [ -n "$REAL_CLAUDE" ]; then
	A="$T/real-claude"
	tc init --session "$A/s.json" --artifact-root "$A" --session-id real-claude --optional-mode none
	realenv "$(dirname "$REAL_CLAUDE")" "$TUNECTL_BIN" run-next --session "$A/s.json" \
	    --runner-command-json "$TUNECTL_SRC/examples/hosts/claude/runner.json" --timeout-seconds 120 >/dev/null 2>&1
	logs=$(cat "$A"/dispatches/intake-preparation-attempt-001/runner.std*.log)
	check "the real claude ($("$REAL_CLAUDE" --version 2>/dev/null | head -1)) accepts every adapter argument and stops at the login" \
	    grep -q "Not logged in" <<<"$logs"
	check "the real claude reports no argument error" bash -c '! grep -qE "^error:|unknown option|is invalid" <<<"$1"' _ "$logs"
else
	skip "the real claude CLI is not installed"
	skip "the real claude CLI is not installed"
fi

if [ -n "$REAL_CODEX" ]; then
	read -r -a cargs < <(FAKE_AGENT_LOG=$T/codex.record /usr/bin/python3 -c \
	    "import json,sys; print(' '.join(json.loads(open(sys.argv[1]).readline())['args']))" "$T/codex.record")
	(cd "$T/nogit" && realenv "$(dirname "$REAL_CODEX")" timeout 60 codex "${cargs[@]}" --help >/dev/null 2>"$T/codex-help.err")
	rc=$?
	err=$(cat "$T/codex-help.err")
	expect_rc 0 "the real codex ($("$REAL_CODEX" --version 2>/dev/null)) parses the adapter's exact arguments"
	(cd "$T/nogit" && realenv "$(dirname "$REAL_CODEX")" timeout 60 codex exec --sandbox workspace-write "hello" \
	    </dev/null >"$T/codex-nogit.out" 2>&1)
	check "without --skip-git-repo-check the real codex refuses a directory outside git" \
	    grep -q "Not inside a trusted directory and --skip-git-repo-check was not specified" "$T/codex-nogit.out"
	A="$T/real-codex"
	tc init --session "$A/s.json" --artifact-root "$A" --session-id real-codex --optional-mode none
	A=$(readlink -f "$A")
	realenv "$(dirname "$REAL_CODEX")" "$TUNECTL_BIN" run-next --session "$A/s.json" \
	    --runner-command-json "$TUNECTL_SRC/examples/hosts/codex/runner.json" --timeout-seconds 30 \
	    --grace-seconds 2 >/dev/null 2>&1
	logs=$(cat "$A"/dispatches/intake-preparation-attempt-001/runner.std*.log)
	check "the adapter's real codex run starts in the artifact root with the workspace-write sandbox" \
	    bash -c 'grep -qF "workdir: $2" <<<"$1" && grep -q "sandbox: workspace-write" <<<"$1"' _ "$logs" "$A"
	check "the adapter's real codex run is not refused for the missing git repository" \
	    bash -c '! grep -q "Not inside a trusted directory" <<<"$1"' _ "$logs"
else
	for _ in 1 2 3 4; do skip "the real codex CLI is not installed"; done
fi

if [ -n "$REAL_OPENCODE" ]; then
	help=$(cd "$T/nogit" && realenv "$(dirname "$REAL_OPENCODE")" timeout 60 opencode run --help 2>&1)
	check "the real opencode ($("$REAL_OPENCODE" --version 2>/dev/null)) run takes --agent and --dir" \
	    bash -c 'grep -q -- "--agent" <<<"$1" && grep -q -- "--dir" <<<"$1"' _ "$help"
	agents=$(cd "$T/nogit" && realenv "$(dirname "$REAL_OPENCODE")" timeout 60 opencode agent list 2>&1)
	check "the adapter's agent build is a primary agent of the real opencode" grep -q "^build (primary)" <<<"$agents"
	check "the workflow's general agent is a subagent (so opencode run cannot use it)" grep -q "^general (subagent)" <<<"$agents"
	A=$(readlink -f "$T/opencode")
	skills=$(cd "$A" && realenv "$(dirname "$REAL_OPENCODE")" timeout 60 opencode debug skill 2>&1)
	check "the real opencode finds the installed skills in the artifact root" \
	    grep -qF "\"location\": \"$A/.opencode/skills/superkernel-intake-preparation/SKILL.md\"" <<<"$skills"
else
	for _ in 1 2 3 4; do skip "the real opencode CLI is not installed"; done
fi

finish
