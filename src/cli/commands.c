/*
 * commands.c - the command table: one line per command.  Keep it sorted
 * by name; "tunectl help" lists the commands in this order.
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"

const struct tc_command tc_commands[] = {
	{ "attest", "sign an in-toto attestation (DSSE, Ed25519) of a verified session",
	  "usage: tunectl attest --session PATH --key KEY [--output FILE]\n", cmd_attest },
	{ "bench", "measure a workload: clean repeated runs and interleaved A/B run sets",
	  "usage: tunectl bench run --runs N --out RUNSET_DIR [--ranks R] [--warmup-samples W]\n"
	  "                         [--metric-regex RE] [--timeout-seconds T] -- CMD [ARGS...]\n"
	  "       tunectl bench ab --runs N --out-a DIR --out-b DIR [same options] -- A... --- B...\n"
	  "Run 'tunectl bench SUBCOMMAND --help' for details.\n", cmd_bench },
	{ "demo", "tune the demo workload through all seven phases, end to end",
	  "usage: tunectl demo [--artifact-root DIR] [--optional-mode {none,multistream,source-range,both}]\n"
	  "                    [--workload {cpu,gpu}] [--profile {standard,quick}] [--resume] [--no-html]\n"
	  "                    [--quiet]\n"
	  "       tunectl demo --pipeline pypto [--artifact-root DIR]\n", cmd_demo },
	{ "derive-session", "start a derived optional-experiment session from a completed parent's BASE/SMAP evidence", "usage: tunectl derive-session --parent-session PATH --session PATH --artifact-root PATH --session-id ID\n                              --profiling-analysis PATH --ledger PATH [--source-scope-map PATH]\n                              [--approve-imported-evidence] --optional-mode {multistream,source-range,both}\n", cmd_derive_session },
	{ "dispatch", "write the phase task of the next step",
	  "usage: tunectl dispatch --session PATH --output PATH\n", cmd_dispatch },
	{ "env-check", "record the machine facts a tuning session freezes; report missing prerequisites",
	  "usage: tunectl env-check [--require-gpu] [--require-npu] [--require-compiler NAME ...]\n"
	  "                         [--compiler NAME ...] [--require-governor NAME] [--probe-timeout-seconds T]\n"
	  "                         [--sysroot DIR] [--out FILE]\n", cmd_env_check },
	{ "execute-phase", "validate a phase task; print its tool plan or run one tool under a lease",
	  "usage: tunectl execute-phase --task PATH (--manifest PATH | --phase NAME) [--tool NAME\n"
	  "                             --lease-root DIR --device-id N [--device-id N ...]\n"
	  "                             [--timeout-seconds T] [--manifest-out PATH]] [--] [ARGS...]\n", cmd_execute_phase },
	{ "gate", "the measurement gates of analyze_performance.py (S0, screening, promotion, option trial)",
	  "usage: tunectl gate analyze --baseline DIR [analyze_performance.py flags] [extensions]\n"
	  "       tunectl gate stability --baseline DIR [--warmup N] [--expected-ranks N] [--json-out FILE]\n"
	  "       tunectl gate promote|screen|option-trial --baseline DIR [analyze flags]\n"
	  "       tunectl gate option-matrix FILE [--json-out FILE]\n"
	  "       tunectl gate stage-a-options CONFIG... [--json-out FILE]\n"
	  "Run 'tunectl gate SUBCOMMAND --help' for the flags.\n", cmd_gate },
	{ "help", "show help for tunectl or one command",
	  "usage: tunectl help [COMMAND]\n", cmd_help },
	{ "init", "create a new auto-tune session",
	  "usage: tunectl init --session PATH --artifact-root PATH --session-id ID --optional-mode {both,multistream,none,source-range}\n"
	  "                    [--evidence-policy {reference,strict}]\n", cmd_init },
	{ "json", "canonical JSON, digests and pretty printing",
	  "usage: tunectl json canonical [--ascii] [--no-nan] [FILE|-]\n"
	  "       tunectl json digest [--ascii] [--no-nan] [FILE|-]\n"
	  "       tunectl json pretty [FILE|-]\n"
	  "       tunectl json get FILE POINTER\n", cmd_json },
	{ "lease", "run a command under shared device leases; show who holds them",
	  "usage: tunectl lease run --lease-root DIR --device-id N [--device-id N ...] --timeout-seconds T\n"
	  "                         [--lease-timeout-seconds L] --cwd DIR --manifest-out PATH\n"
	  "                         [--environment-json FILE] [--command-id ID] [--] COMMAND [ARGS...]\n"
	  "       tunectl lease status --lease-root DIR\n"
	  "       tunectl lease run --via slurm [--partition P] [--gres NAME:COUNT] [--slurm-arg=ARG ...]\n"
	  "                         --lease-root DIR --timeout-seconds T ... [--] COMMAND [ARGS...]\n"
	  "       tunectl lease status --via slurm [--partition P]\n", cmd_lease },
	{ "keygen", "write an Ed25519 key pair for signing attestations (KEY, KEY.pub)",
	  "usage: tunectl keygen --out KEY\n", cmd_keygen },
	{ "ledger", "the schema 2 experiment ledger (experiment_ledger.py) and final_e2e", "usage: tunectl ledger validate RESULT.json\n       tunectl ledger merge --ledger LEDGER.json --result RESULT.json --output OUT.json\n       tunectl ledger migrate --ledger LEDGER.json --output OUT.json\n       tunectl ledger final-e2e --ledger LEDGER.json ... (see 'tunectl ledger final-e2e --help')\n", cmd_ledger },
	{ "lineage", "print the chain of sessions a derived session imports from (JSON)", "usage: tunectl lineage --session PATH\n", cmd_lineage },
	{ "next", "print the only legal next step (or null)",
	  "usage: tunectl next --session PATH\n", cmd_next },
	{ "prompt", "print the prompt a fresh phase worker is given",
	  "usage: tunectl prompt --task PATH [--result PATH] [--host {claude,codex,opencode,generic}]\n", cmd_prompt },
	{ "pypto", "PyPTO-Pro five-stage pipeline: dispatch to workers, state machine, Stage 5 contract",
	  "usage: tunectl pypto state|dispatch|accept|run-next|run|check ... (the orchestrator)\n"
	  "       tunectl pypto inputs|boundary|handoff|discover|cases|compare|items|experiment ...\n"
	  "       tunectl pypto select|timeline|review|report ... (run 'tunectl pypto help')\n", cmd_pypto },
	{ "render-final-report", "re-render FINAL_E2E_REPORT.md of a completed Final step",
	  "usage: tunectl render-final-report --session PATH [--output PATH] [--summary PATH] [--lang {zh,en}]\n", cmd_render_final_report },
	{ "render-round-report", "render round-report JSON into Chinese Markdown (render_round_report.py)", "usage: tunectl render-round-report JSON [JSON ...] [--markdown-out FILE] [--title TEXT] [--top-sk INT] [--top-non-fusion INT]\n\nRender SuperKernel round-report JSON into Chinese Markdown.\n  JSON                  round-report.child-ge-5.json or sk-meta-summary.json\n  --markdown-out FILE   write Markdown to this path\n  --title TEXT          (default: SuperKernel 单轮融合报告)\n  --top-sk INT          (default: 20)\n  --top-non-fusion INT  (default: 20)\n", cmd_render_round_report },
	{ "report", "write the self-contained HTML report of a session",
	  "usage: tunectl report html --session PATH [--output PATH]\n", cmd_report },
	{ "resume", "verify a session and name the step to continue with",
	  "usage: tunectl resume --session PATH\n", cmd_resume },
	{ "run", "run every remaining step through an agent host until the session completes",
	  "usage: tunectl run --session PATH --runner-command-json PATH [--timeout-seconds T]\n"
	  "                   [--grace-seconds G] [--max-attempts N] [--quiet]\n", cmd_run },
	{ "run-next", "dispatch the next step to a fresh agent host and seal its result",
	  "usage: tunectl run-next --session PATH --runner-command-json PATH [--timeout-seconds T]\n"
	  "                        [--grace-seconds G]\n", cmd_run_next },
	{ "seal", "seal the next step's phase result into the session",
	  "usage: tunectl seal --session PATH --result PATH\n", cmd_seal },
	{ "sha256", "SHA-256 of files, like sha256sum",
	  "usage: tunectl sha256 FILE...\n"
	  "       tunectl sha256 --tree DIR...\n", cmd_sha256 },
	{ "skills", "the skills tunectl ships for its workers: list, show, install for an agent host",
	  "usage: tunectl skills list\n"
	  "       tunectl skills show NAME [--path]\n"
	  "       tunectl skills install --host {claude,codex,opencode} --dir DIR [--skill NAME ...]\n", cmd_skills },
	{ "source-range-from-smap", "derive a source-range session from a completed parent's BASE/SMAP evidence", "usage: tunectl source-range-from-smap --parent-session PATH --session PATH --artifact-root PATH\n                                      --session-id ID --profiling-analysis PATH --ledger PATH\n                                      --source-scope-map PATH [--approve-imported-evidence]\n", cmd_source_range_from_smap },
	{ "status", "human summary of a session and what to run next",
	  "usage: tunectl status --session PATH\n", cmd_status },
	{ "support", "hand a support role (analyst or executor) to a fresh worker for the current phase",
	  "usage: tunectl support dispatch --session PATH --role ROLE --output PATH [--request PATH]\n"
	  "       tunectl support run --session PATH --role ROLE [--runner-command-json PATH]\n"
	  "                           [--request PATH] [--timeout-seconds T] [--grace-seconds G]\n"
	  "       tunectl support roles\n", cmd_support },
	{ "verify", "check every sealed handoff of a session",
	  "usage: tunectl verify --session PATH [--all] [--deep] [--attestation FILE --pubkey KEY.pub]\n", cmd_verify },
	{ "version", "print the version",
	  "usage: tunectl version\n", cmd_version },
	{ NULL, NULL, NULL, NULL }
};

const struct tc_command *
tc_command_find(const char *name)
{
	const struct tc_command *c;

	for (c = tc_commands; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
