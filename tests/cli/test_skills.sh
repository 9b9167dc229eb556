#!/usr/bin/env bash
# tunectl skills list | show | install, and the SKILL.md path every prompt
# names: the skills ship in share/skills, are found from the binary (source
# tree, installed prefix) or TUNECTL_SKILLS_DIR, install into each agent
# host's layout, and a prompt never names a skill file that does not exist.
. "$(dirname "$0")/lib.sh"

SKILLS=$TUNECTL_SRC/share/skills
jq_() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
jqs() { printf '%s' "$out" | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

PHASE_SKILLS="superkernel-intake-preparation superkernel-s0-baseline superkernel-stage-a-scope-selection
superkernel-stage-o-option-tuning superkernel-base-profile-source-mapping superkernel-optional-experiments
superkernel-final-e2e-report"

# ---- list -------------------------------------------------------------------
tc skills list
expect_rc 0 "skills list exits 0 when every skill is there"
expect_eq "$(jqs "len(d['skills']), d['missing']")" "(14, [])" "fourteen skills ship and none is missing"
expect_eq "$(jqs "sorted(set(s['kind'] for s in d['skills']))")" "['contract', 'entrypoint', 'phase', 'support']" \
    "the skills are phase, entrypoint, support and contract skills"
expect_eq "$(jqs "len([s for s in d['skills'] if s['kind']=='phase'])")" "7" "seven phase skills"
expect_eq "$(jqs "sorted(s['role'] for s in d['skills'] if s['kind']=='support')")" \
    "['sk-failure-isolation-analyst', 'sk-fusion-performance-analyst', 'sk-multistream-tuning-executor', 'sk-prof-timeline-analyst', 'sk-source-range-experiment-executor']" \
    "the five support roles each have a skill"
expect_eq "$(jqs "d['skills_dir']")" "$SKILLS" "the source tree's build finds share/skills"
expect_eq "$(jqs "all(s['path'] == '$SKILLS/' + s['name'] + '/SKILL.md' for s in d['skills'])")" "True" \
    "every skill's path is its absolute SKILL.md"

# Each phase skill is named by its phase manifest and states the shared contents.
for skill in $PHASE_SKILLS; do
	f=$SKILLS/$skill/SKILL.md
	check "$skill: a phase manifest names it" grep -rqF "\"skill\": \"$skill\"" "$TUNECTL_SRC/share/phases"
	check "$skill: it validates the task with execute-phase first" grep -q 'execute-phase --task <TASK> --phase' "$f"
	check "$skill: it lists its statuses, blockers and what is forbidden" \
	    bash -c 'grep -q "^## Statuses" "$1" && grep -q "^## Forbidden" "$1"' _ "$f"
	check "$skill: it has one example phase-result.json" test "$(grep -c '^## Example phase-result.json' "$f")" = 1
	check "$skill: its Forbidden section states the four disciplines" /usr/bin/python3 - "$f" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = re.search(r"^## Forbidden\n(.*?)^## ", text, re.S | re.M).group(1)
sys.exit(0 if all(k in section for k in ("no hand edits", 'spoken "done"', "no reused worker", "no stand-in")) else 1)
PY
done
for doc in transition-rules evidence-gates option-rules disciplines intake-checklist; do
	check "the controller contract has $doc.md" test -s "$SKILLS/superkernel-controller-contract/$doc.md"
done
check "the transition rules are the eight rules" test "$(grep -cE '^[1-8]\. \*\*' "$SKILLS/superkernel-controller-contract/transition-rules.md")" = 8
check "the disciplines are four" test "$(grep -cE '^[1-4]\. \*\*' "$SKILLS/superkernel-controller-contract/disciplines.md")" = 4
# Every relative link between skills resolves (they are installed together).
check "every relative link in the skills resolves" /usr/bin/python3 - "$SKILLS" <<'PY'
import os, re, sys
root = sys.argv[1]
bad = []
for dirpath, _, files in os.walk(root):
    for f in files:
        if f.endswith(".md"):
            text = open(os.path.join(dirpath, f), encoding="utf-8").read()
            for target in re.findall(r"\]\(([^)#]+\.md)\)", text):
                if not os.path.exists(os.path.normpath(os.path.join(dirpath, target))):
                    bad.append("%s -> %s" % (os.path.join(dirpath, f), target))
sys.exit("\n".join(bad) if bad else 0)
PY

# ---- show -------------------------------------------------------------------
tc skills show superkernel-s0-baseline
expect_rc 0 "skills show prints a skill"
check "skills show prints the SKILL.md byte for byte" cmp -s <(printf '%s\n' "$out") "$SKILLS/superkernel-s0-baseline/SKILL.md"
tc skills show superkernel-s0-baseline --path
expect_eq "$out" "$SKILLS/superkernel-s0-baseline/SKILL.md" "skills show --path prints the absolute path"
tc skills show superkernel-nothing
expect_rc 1 "skills show of an unknown skill fails"
expect_err "skill superkernel-nothing is not in $SKILLS" "the failure names the skill and the directory"
tc skills show ../etc
expect_rc 1 "skills show refuses a name that is not a skill name"
tc skills show
expect_rc 2 "skills show without a name is a usage error"

# ---- where tunectl looks ---------------------------------------------------------
# An installed layout: PREFIX/bin/tunectl finds PREFIX/share/tunectl/skills.
P=$T/prefix
mkdir -p "$P/bin" "$P/share/tunectl"
cp "$TUNECTL_BIN" "$P/bin/tunectl"
cp -R "$TUNECTL_SRC/share/." "$P/share/tunectl/"
out=$("$P/bin/tunectl" skills list 2>/dev/null)
expect_eq "$(jqs "d['skills_dir'], len(d['skills'])")" "('$P/share/tunectl/skills', 14)" \
    "an installed tunectl finds PREFIX/share/tunectl/skills"
# TUNECTL_SKILLS_DIR overrides the search; a missing skill is reported.
mkdir -p "$T/custom"
cp -R "$SKILLS/superkernel-s0-baseline" "$T/custom/"
TUNECTL_SKILLS_DIR=$T/custom tc skills list
expect_rc 1 "a skills directory that lacks tunectl's skills makes list exit 1"
expect_eq "$(jqs "[s['name'] for s in d['skills']], len(d['missing'])")" "(['superkernel-s0-baseline'], 13)" \
    "TUNECTL_SKILLS_DIR is used as is and the missing skills are listed"
mkdir -p "$T/custom/broken"
printf -- '---\nname: other-name\ndescription: x\n---\n' >"$T/custom/broken/SKILL.md"
TUNECTL_SKILLS_DIR=$T/custom tc skills list
expect_rc 1 "a skill whose front matter names another skill is an error"
expect_err "front matter names skill other-name, not broken" "the error names the skill and the file"
rm -rf "$T/custom/broken"

# ---- install -------------------------------------------------------------------
for host in claude codex opencode; do
	case $host in
	claude) sub=.claude/skills ;;
	codex) sub=.agents/skills ;;
	opencode) sub=.opencode/skills ;;
	esac
	D=$T/proj-$host
	mkdir -p "$D"
	tc skills install --host "$host" --dir "$D"
	expect_rc 0 "skills install --host $host exits 0"
	expect_eq "$(jqs "d['skills_dir'], len(d['installed']), sorted(set(i['state'] for i in d['installed']))")" \
	    "('$D/$sub', 14, ['installed'])" "the $host layout is $sub/<name>/ for all fourteen skills"
	check "the $host copy of every skill is byte-identical, reference files included" \
	    diff -r "$SKILLS" "$D/$sub"
	tc skills install --host "$host" --dir "$D"
	expect_eq "$(jqs "sorted(set(i['state'] for i in d['installed']))")" "['unchanged']" \
	    "installing again into the $host layout changes nothing"
done
echo "stale" >"$T/proj-claude/.claude/skills/superkernel-s0-baseline/SKILL.md"
tc skills install --host claude --dir "$T/proj-claude" --skill superkernel-s0-baseline
expect_eq "$(jqs "[(i['name'], i['state']) for i in d['installed']]")" "[('superkernel-s0-baseline', 'updated')]" \
    "--skill installs one skill and an edited copy is updated"
check "the updated copy is the shipped one again" cmp -s "$SKILLS/superkernel-s0-baseline/SKILL.md" \
    "$T/proj-claude/.claude/skills/superkernel-s0-baseline/SKILL.md"
mkdir -p "$T/proj-link" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/proj-link/.claude"
tc skills install --host claude --dir "$T/proj-link"
expect_rc 1 "installing through a symbolic link is refused"
expect_err "refusing to install skills through a symbolic link: $T/proj-link/.claude" "the refusal names the link"
check "nothing was written through the link" test -z "$(ls -A "$T/elsewhere")"
tc skills install --host gemini --dir "$T/proj-link"
expect_rc 2 "an unknown host is a usage error"
tc skills install --host claude --dir "$T/no-such-dir/sub"
expect_rc 0 "installing into a missing directory creates it"
check "the missing directory and its parents were created with the skills" \
    test -f "$T/no-such-dir/sub/.claude/skills/superkernel-s0-baseline/SKILL.md"
: > "$T/a-file"
tc skills install --host claude --dir "$T/a-file"
expect_rc 1 "installing into a file that is not a directory fails"
expect_err "install directory is not a directory: $T/a-file" "the error names the file"

# ---- prompt names an existing SKILL.md --------------------------------------------
A=$T/a
tc init --session "$A/s.json" --artifact-root "$A" --session-id p-1 --optional-mode none
tc dispatch --session "$A/s.json" --output "$T/task.json"
for host in claude codex opencode generic; do
	tc prompt --task "$T/task.json" --host "$host"
	path=$(printf '%s\n' "$out" | sed -n 's/^ *\(\/.*\/SKILL\.md\)$/\1/p' | head -1)
	check "the $host prompt names an existing SKILL.md" test -f "$path"
	expect_eq "$path" "$SKILLS/superkernel-intake-preparation/SKILL.md" "the $host prompt names the step's skill"
done
TUNECTL_SKILLS_DIR=$T/proj-claude/.claude/skills tc prompt --task "$T/task.json" --host claude
check "with TUNECTL_SKILLS_DIR the prompt names the installed copy" \
    grep -qF "$T/proj-claude/.claude/skills/superkernel-intake-preparation/SKILL.md" <<<"$out"
TUNECTL_SKILLS_DIR=$T/custom tc prompt --task "$T/task.json"
expect_rc 1 "a prompt for a skill that is not installed fails"
expect_err "skill superkernel-intake-preparation is not in $T/custom" "the failure names the missing skill"

finish
