/*
 * test_ledger_messages.c - every structural validation message of an
 * experiment result (docs/spec/ledger.md "Structural validation",
 * "Artifact-path scanning"), one table row each: a valid base document, a
 * mutation, the exact message the validation must report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_ledger_fixture.h"

enum base { S3, AUTO };

struct op {
	char kind;		/* 's' set, 'd' delete, 'c' copy from val */
	const char *ptr;
	const char *val;
};

struct row {
	enum base base;
	struct op ops[5];
	const char *expected;
};

#define SET(p, v) { 's', p, v }
#define DEL(p) { 'd', p, NULL }
#define CPY(p, src) { 'c', p, src }

/* An AOT decision on S1 (valid as a proposed beneficial keep). */
#define AOT_DECISION \
	"{\"round_id\": \"S1\", \"range_id\": \"range-a\", \"sk_id\": \"sk-a\", " \
	"\"source_scope\": \"model.a\", \"mapping_method\": \"source_scope_map\", " \
	"\"mapping_confidence\": \"exact\", \"boundary\": {\"start_op\": \"a\", " \
	"\"end_op\": \"b\", \"source_file\": \"model.py\", \"start_offset\": 1, " \
	"\"end_offset\": 9}, \"classification\": \"beneficial\", \"action\": " \
	"\"keep\", \"status\": \"proposed\", \"source_revision\": \"source-sha\", " \
	"\"baseline_config_fingerprint\": \"baseline-config-fp\", " \
	"\"candidate_config_fingerprint\": \"candidate-auto-fp\", " \
	"\"control_fingerprint\": \"control-fp\", \"workload_fingerprint\": " \
	"\"workload-fp\", \"baseline_profile\": \"profiles/frozen-baseline.json\", " \
	"\"baseline_profile_fingerprint\": \"baseline-profile-fp\", " \
	"\"candidate_profile\": \"S1/profiles/candidate.json\", " \
	"\"candidate_profile_fingerprint\": \"S1-candidate-profile-fp\", " \
	"\"declared_change_set\": {\"allowed_json_pointers\": " \
	"[\"/superkernel/enabled\", \"/superkernel/scope\"], \"only_change_zh\": " \
	"\"只启用 SuperKernel 并应用本轮范围。\"}, " \
	"\"source_profiling_analysis_result\": " \
	"\"S1/profiling-analysis/profiling-analysis-result.json\"}"

#define PSD "/performance_scope_decisions"
#define URR "/unresolved_performance_ranges"
#define D0 "performance_scope_decisions[0]"
#define D1 "performance_scope_decisions[1]"

static const struct row rows[] = {
	/* S2: the JSON value scan short-circuits everything else. */
	{ S3, { SET("/lifecycle/x", "1e999"), DEL("/blockers") },
	  "experiment result.lifecycle.x must contain finite JSON numbers" },
	/* S3 */
	{ S3, { DEL("/blockers"), DEL("/lifecycle") },
	  "missing fields: blockers, lifecycle" },
	/* S4, S5 */
	{ S3, { SET("/experiment_id", "\"  \"") },
	  "experiment_id must be a non-empty string" },
	{ S3, { SET("/experiment_id", "\" S3\""),
	    SET("/parent_experiment_id", "\" S3\"") },
	  "experiment_id must not contain surrounding whitespace" },
	{ S3, { SET("/child_agent_id", "5") },
	  "child_agent_id must be a non-empty string" },
	{ S3, { SET("/child_agent_id", "\"agent-7 \"") },
	  "child_agent_id must not contain surrounding whitespace" },
	/* S6, S7, S8, S9 */
	{ S3, { SET("/parent_experiment_id", "\"S3 \"") },
	  "parent_experiment_id must not contain surrounding whitespace" },
	{ S3, { SET("/parent_experiment_id", "\"S4\"") },
	  "parent_experiment_id must equal experiment_id" },
	{ S3, { SET("/next_agent_guidance_zh", "\"keep going\"") },
	  "next_agent_guidance_zh must contain Chinese guidance" },
	{ S3, { SET("/baseline_revision", "\"\"") },
	  "baseline_revision must be a non-empty string" },
	{ S3, { SET("/workload_fingerprint", "null") },
	  "workload_fingerprint must be a non-empty string" },
	/* S10-S14 */
	{ S3, { SET("/blockers", "{}") }, "blockers must be a list" },
	{ S3, { SET("/inherited_exclusions_for_next_agents", "\"x\"") },
	  "inherited_exclusions_for_next_agents must be a list" },
	{ S3, { SET("/single_child_exclusions", "{}") },
	  "single_child_exclusions legacy evidence must be a list" },
	{ S3, { SET("/lifecycle", "[]") }, "lifecycle must be an object" },
	{ S3, { SET("/promotion_mode", "null") }, "promotion_mode is invalid" },
	{ S3, { SET("/rounds", "[]") }, "rounds must be a non-empty list" },
	/* R1-R5 */
	{ S3, { SET("/rounds/-", "5") }, "rounds[3] must be an object" },
	{ S3, { SET("/rounds/0/round_id", "\"\"") },
	  "rounds[0].round_id must be a non-empty string" },
	{ S3, { SET("/rounds/0/round_id", "\" S3-BASE\"") },
	  "rounds[0].round_id must not contain surrounding whitespace" },
	{ S3, { SET("/rounds/1/round_id", "\"S3-BASE\"") },
	  "duplicate round_id: S3-BASE" },
	{ S3, { SET("/rounds/2/child_agent_id", "\"agent-8\"") },
	  "rounds[2].child_agent_id must match parent child_agent_id" },
	{ S3, { SET("/rounds/0/child_agent_id", "\" agent-7\"") },
	  "rounds[0].child_agent_id must not contain surrounding whitespace" },
	{ S3, { SET("/rounds/1/round_kind", "\"legacy\"") },
	  "rounds[1].round_kind is invalid" },
	{ S3, { SET("/rounds/0/scope_kind", "\"auto\"") },
	  "rounds[0].scope_kind is invalid" },
	{ S3, { SET("/rounds/0/scope_kind", "\"automatic_aot\"") },
	  "rounds[0] base round requires manual scope_kind" },
	{ AUTO, { SET("/rounds/0/scope_kind", "\"manual\"") },
	  "rounds[0] automatic_aot round requires automatic_aot scope_kind" },
	/* R7 and the profiling binding B1-B3 */
	{ S3, { SET("/rounds/2/lifecycle", "\"passed\"") },
	  "rounds[2].lifecycle must be an object" },
	{ S3, { SET("/rounds/0/lifecycle/correctness", "\"failed\"") },
	  "rounds[0].lifecycle.correctness must be passed before profiling" },
	{ S3, { SET("/rounds/0/candidate_profile", "\"/tmp/candidate.json\"") },
	  "rounds[0].candidate_profile must be a relative artifact path" },
	{ S3, { SET("/rounds/1/baseline_profile", "\"../frozen.json\"") },
	  "rounds[1].baseline_profile must be a relative artifact path" },
	{ S3, { SET("/rounds/0/baseline_profile_fingerprint", "\" fp\"") },
	  "rounds[0].baseline_profile_fingerprint must be a non-empty canonical "
	  "string" },
	{ S3, { SET("/rounds/2/candidate_profile_fingerprint", "7") },
	  "rounds[2].candidate_profile_fingerprint must be a non-empty "
	  "canonical string" },
	{ S3, { SET("/rounds/0/declared_change_set", "{}") },
	  "rounds[0].declared_change_set must be a non-empty object" },
	{ S3, { SET("/rounds/0/declared_change_set/allowed_json_pointers",
	    "\"/a\"") },
	  "rounds[0].declared_change_set.allowed_json_pointers must be a list" },
	{ S3, { SET("/rounds/0/declared_change_set/allowed_json_pointers",
	    "[\"superkernel/enabled\"]") },
	  "rounds[0].declared_change_set.allowed_json_pointers must contain "
	  "absolute RFC6901 pointers" },
	{ S3, { SET("/rounds/0/declared_change_set/allowed_json_pointers",
	    "[\"/a~2b\"]") },
	  "rounds[0].declared_change_set.allowed_json_pointers must contain "
	  "absolute RFC6901 pointers" },
	{ S3, { SET("/rounds/0/declared_change_set/allowed_json_pointers",
	    "[\"/a\", \"/a\"]") },
	  "rounds[0].declared_change_set.allowed_json_pointers must not "
	  "contain duplicates" },
	{ S3, { SET("/rounds/0/declared_change_set/only_change_zh",
	    "\"enable only\"") },
	  "rounds[0].declared_change_set.only_change_zh must contain non-empty "
	  "Chinese text" },
	/* R8-R11 */
	{ S3, { SET("/rounds/1/candidate_config_fingerprint", "\"\"") },
	  "rounds[1].candidate_config_fingerprint must be a non-empty string" },
	{ S3, { SET("/rounds/1/control_fingerprint", "\"other-control\"") },
	  "rounds[1].control_fingerprint must match the experiment" },
	{ S3, { SET("/rounds/1/performance_decision_range_ids", "\"x\"") },
	  "rounds[1].performance_decision_range_ids must be a list" },
	{ S3, { SET("/rounds/1/performance_decision_range_ids", "[\" \"]") },
	  "rounds[1].performance_decision_range_ids must contain non-empty "
	  "strings" },
	{ S3, { SET("/rounds/1/performance_decision_range_ids",
	    "[\"range-neutral\", \"range-neutral\"]") },
	  "rounds[1].performance_decision_range_ids must not contain duplicate "
	  "range IDs" },
	{ S3, { SET("/rounds/0/artifacts", "[]") },
	  "rounds[0].artifacts must be an object" },
	{ S3, { SET("/rounds/0/artifacts/round_report", "\"../report.json\"") },
	  "rounds[0].artifacts.round_report must be a relative path" },
	{ S3, { DEL("/rounds/2/artifacts/round_evidence") },
	  "rounds[2].artifacts.round_evidence must be a relative path" },
	/* P2 profile registries */
	{ S3, { SET("/rounds/1/candidate_profile",
	    "\"S3-BASE/profiles/candidate.json\"") },
	  "candidate_profile must be unique across profiling rounds" },
	{ S3, { SET("/rounds/1/candidate_profile_fingerprint",
	    "\"S3-BASE-candidate-profile-fp\"") },
	  "candidate_profile_fingerprint must be unique across profiling rounds" },
	{ S3, { SET("/rounds/1/baseline_profile_fingerprint", "\"other-fp\"") },
	  "baseline profile path must map to exactly one content fingerprint" },
	{ S3, { SET("/rounds/1/baseline_profile", "\"profiles/other.json\"") },
	  "baseline profile fingerprint must map to exactly one artifact path" },
	{ S3, { SET("/rounds/1/baseline_profile",
	    "\"S3-BASE/profiles/candidate.json\"") },
	  "baseline and candidate profile paths must be disjoint: "
	  "S3-BASE/profiles/candidate.json" },
	{ S3, { SET("/rounds/0/candidate_profile_fingerprint",
	    "\"baseline-profile-fp\"") },
	  "baseline and candidate profile fingerprints must be disjoint: "
	  "baseline-profile-fp" },
	/* O1-O6 */
	{ S3, { SET("/rounds/0/round_kind", "\"performance_prune\"") },
	  "optimization rounds must start with exactly one base or "
	  "automatic_aot round" },
	{ S3, { SET("/rounds/1/scope_kind", "\"automatic_aot\"") },
	  "optimization descendants must preserve the starter scope_kind" },
	{ S3, { SET("/rounds/1/round_kind", "\"final\""),
	    SET("/rounds/2/round_kind", "\"performance_prune\"") },
	  "optimization round transition order must be base/automatic_aot -> "
	  "prune -> final" },
	{ S3, { SET("/rounds/1/round_kind", "\"final\"") },
	  "optimization rounds may contain at most one final round" },
	{ S3, { SET("/rounds/1/round_kind", "\"final\""),
	    SET("/rounds/2/round_kind", "\"performance_prune\"") },
	  "final must be the last optimization round" },
	{ S3, { DEL("/rounds/2"), DEL(PSD "/2"),
	    DEL("/profiling_analysis_agent_ids/S3-FINAL"),
	    DEL("/profiling_analysis_result/S3-FINAL") },
	  "successful manual experiment requires a fresh final round; "
	  "automatic-optimized experiment has the same requirement; missing "
	  "final is only allowed for a terminal incomplete round with explicit "
	  "non-empty blockers" },
	/* M1-M7 */
	{ S3, { SET("/profiling_analysis_agent_ids", "[]") },
	  "profiling_analysis_agent_ids must be an object" },
	{ S3, { SET("/profiling_analysis_result", "\"x\"") },
	  "profiling_analysis_result must be an object" },
	{ S3, { DEL("/profiling_analysis_agent_ids/S3-P1") },
	  "profiling_analysis_agent_ids missing profiling rounds: S3-P1" },
	{ S3, { DEL("/profiling_analysis_result/S3-P1"),
	    DEL("/profiling_analysis_result/S3-BASE") },
	  "profiling_analysis_result missing profiling rounds: S3-BASE, S3-P1" },
	{ S3, { SET("/profiling_analysis_result/S3-X", "\"S3-X/a.json\"") },
	  "profiling_analysis_result has unknown rounds: S3-X" },
	{ S3, { SET("/profiling_analysis_agent_ids/S3-P1", "\"\"") },
	  "profiling_analysis_agent_ids.S3-P1 must be a non-empty string" },
	{ S3, { SET("/profiling_analysis_agent_ids/S3-P1", "\" prof-agent-2\"") },
	  "profiling_analysis_agent_ids.S3-P1 must not contain surrounding "
	  "whitespace" },
	{ S3, { SET("/profiling_analysis_agent_ids/S3-P1", "\"agent-7 \"") },
	  "profiling_analysis_agent_ids.S3-P1 must differ from child_agent_id" },
	{ S3, { SET("/profiling_analysis_agent_ids/S3-P1", "\"prof-agent-1\"") },
	  "profiling analysis Agent IDs must be unique across rounds" },
	{ S3, { SET("/profiling_analysis_result/S3-P1",
	    "\"/tmp/analysis.json\"") },
	  "profiling_analysis_result.S3-P1 must be a relative artifact path" },
	{ S3, { SET("/profiling_analysis_result/S3-FINAL",
	    "\"S3-BASE/profiling-analysis/profiling-analysis-result.json\"") },
	  "profiling analysis result paths must be unique across rounds" },
	{ S3, { SET("/profiling_analysis_result/S3-FINAL",
	    "\"S3-P1/profiles/candidate.json\"") },
	  "profiling analysis result and profile paths must be disjoint: "
	  "S3-P1/profiles/candidate.json" },
	/* C1 */
	{ S3, { SET("/rounds/0/lifecycle/profiling", "\"not_run\"") },
	  "rounds[0] optimization round cannot be followed by S3-P1 unless "
	  "correctness and profiling passed" },
	/* D0-D8 */
	{ S3, { SET(URR, "{}") }, "unresolved_performance_ranges must be a list" },
	{ S3, { SET(PSD, "null") }, "performance_scope_decisions must be a list" },
	{ S3, { SET(PSD "/-", "7") }, "performance_scope_decisions[3] must be an "
	  "object" },
	{ S3, { SET(PSD "/0/sk_id", "\"\"") },
	  D0 ".sk_id must be a non-empty string" },
	{ S3, { SET(PSD "/0/source_scope", "\"model.x \"") },
	  D0 ".source_scope must not contain surrounding whitespace" },
	{ S3, { SET(PSD "/0/mapping_method", "\"raw_ids\"") },
	  D0 ".mapping_method must preserve a producer mapping method" },
	{ S3, { SET(PSD "/0/mapping_confidence", "\"certain\"") },
	  D0 ".mapping_confidence is invalid" },
	{ S3, { SET(PSD "/0/mapping_method", "\"sk_meta_node_ids\"") },
	  D0 " mapping method/confidence pair is unsupported" },
	{ S3, { SET(PSD "/0/mapping_reliable", "true") },
	  D0 ".mapping_reliable is consumer-reported and must be omitted" },
	{ S3, { SET(PSD "/0/boundary", "[]") },
	  D0 ".boundary must be an object" },
	{ S3, { DEL(PSD "/0/boundary/start_op") },
	  D0 ".boundary.start_op must be a non-empty string" },
	{ S3, { SET(PSD "/0/boundary/end_op", "\" \"") },
	  D0 ".boundary.end_op must be a non-empty string" },
	{ S3, { SET(PSD "/0/classification", "\"great\"") },
	  D0 ".classification is invalid" },
	{ S3, { SET(PSD "/0/action", "\"hold\"") }, D0 ".action is invalid" },
	{ S3, { SET(PSD "/0/status", "\"done\"") }, D0 ".status is invalid" },
	/* D9-D11 */
	{ S3, { SET(PSD "/0/action", "\"prune\"") },
	  D0 " classification/action/status tuple ('beneficial', 'prune', "
	  "'applied') is invalid for performance_scope_decisions" },
	{ S3, { DEL(PSD "/0/status") },
	  D0 " classification/action/status tuple ('beneficial', 'keep', None) "
	  "is invalid for performance_scope_decisions" },
	{ S3, { SET(URR "/0/status", "\"blocked\"") },
	  "unresolved_performance_ranges[0] classification/action/status tuple "
	  "('insufficient_evidence', 'reprofile', 'blocked') is invalid for "
	  "unresolved_performance_ranges" },
	{ S3, { SET(PSD "/0/status", "\"proposed\""),
	    SET(PSD "/0/mapping_confidence", "\"diagnostic_only\"") },
	  D0 " proposed measured classification requires performance-exact "
	  "mapping evidence" },
	{ S3, { SET(PSD "/0/mapping_confidence", "\"diagnostic_only\"") },
	  D0 " non-exact mapping must remain insufficient_evidence" },
	/* D12-D18 */
	{ S3, { SET(PSD "/0/round_id", "\"S3-NONE\"") },
	  D0 ".round_id must reference a declared round" },
	{ S3, { SET(PSD "/0/workload_fingerprint", "\"\"") },
	  D0 ".workload_fingerprint must be a non-empty string" },
	{ S3, { SET(PSD "/0/candidate_config_fingerprint",
	    "\"candidate-final-fp\"") },
	  D0 ".candidate_config_fingerprint must match its declared round" },
	{ S3, { SET(PSD "/0/candidate_profile_fingerprint", "\"other-fp\"") },
	  D0 ".candidate_profile_fingerprint must match its source round" },
	{ S3, { SET(PSD "/0/declared_change_set/allowed_json_pointers",
	    "[\"/superkernel/enabled\"]") },
	  D0 ".declared_change_set must match its source round" },
	{ S3, { SET(PSD "/0/candidate_profile", "\"/abs/candidate.json\"") },
	  D0 ".candidate_profile must be a relative artifact path" },
	{ S3, { SET("/rounds/0/lifecycle/profiling", "\"not_run\"") },
	  D0 " source round must have profiling passed" },
	{ S3, { SET("/profiling_analysis_agent_ids/S3-BASE", "5") },
	  D0 " source round must have a profiling analysis Agent" },
	{ S3, { SET("/profiling_analysis_result/S3-BASE", "\"/abs.json\"") },
	  D0 " source round must have a profiling analysis result" },
	{ S3, { SET(PSD "/0/source_profiling_analysis_result",
	    "\"S3-BASE/other.json\"") },
	  D0 ".source_profiling_analysis_result must match its source round" },
	{ S3, { DEL(PSD "/0/source_profiling_analysis_result") },
	  D0 ".source_profiling_analysis_result must match its source round" },
	/* D19-D21 */
	{ S3, { SET(PSD "/1/boundary/end_offset", "50") },
	  D1 " effective prune requires source-actionable neutral/regressed "
	  "mapping" },
	{ S3, { SET(PSD "/0/boundary/start_offset", "-1") },
	  D0 " effective keep requires source-actionable beneficial mapping" },
	{ S3, { SET(PSD "/0/boundary/source_file", "\"../model.py\"") },
	  D0 " effective keep requires source-actionable beneficial mapping" },
	{ S3, { SET(PSD "/0/boundary/start_offset", "100.0") },
	  D0 " effective keep requires source-actionable beneficial mapping" },
	{ AUTO, { SET(PSD "/-", AOT_DECISION), SET(PSD "/0/status",
	    "\"verified\""), SET(PSD "/0/verified_in_round_id", "\"S1\"") },
	  D0 " automatic_aot may only retain proposed carry-forward, "
	  "source-actionable later-verified, or blocked unresolved evidence" },
	/* D22, D23 */
	{ S3, { SET(PSD "/1/verified_in_round_id", "\"S3-NONE\"") },
	  D1 ".verified_in_round_id must reference a profiling-passed round" },
	{ S3, { SET(PSD "/1/profiling_analysis_result", "\"S3-P1/other.json\"") },
	  D1 ".profiling_analysis_result must reference fresh verification "
	  "profiling" },
	{ S3, { SET(PSD "/1/verified_in_round_id", "\"S3-BASE\""),
	    CPY(PSD "/1/profiling_analysis_result",
	    "/profiling_analysis_result/S3-BASE") },
	  D1 ".verified_in_round_id must be strictly later than its source "
	  "round" },
	{ S3, { SET(PSD "/1/verified_in_round_id", "\"S3-FINAL\""),
	    CPY(PSD "/1/profiling_analysis_result",
	    "/profiling_analysis_result/S3-FINAL") },
	  D1 ".verified_in_round_id must reference a later performance_prune "
	  "round" },
	{ S3, { SET(PSD "/1/range_id", "\"range-other\""),
	    SET("/rounds/0/performance_decision_range_ids",
	    "[\"range-beneficial\", \"range-other\", \"range-unknown\"]") },
	  D1 " verified prune range must be referenced by its performance_prune "
	  "verification round" },
	/* D25 */
	{ S3, { CPY(PSD "/-", PSD "/0") },
	  "performance_scope_decisions contains duplicate round/range identity" },
	{ S3, { CPY(URR "/-", URR "/0"), SET(URR "/1/range_id",
	    "\"range-beneficial\"") },
	  "unresolved_performance_ranges contains a conflicting round/range "
	  "identity already recorded in performance_scope_decisions" },
	/* W1-W6 */
	{ S3, { SET("/promotion_mode", "\"whole_scope\"") },
	  "whole_scope promotion requires exactly one unchanged base or "
	  "automatic_aot round" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\""),
	    SET("/rounds/0/lifecycle/profiling", "\"not_run\""),
	    SET("/profiling_analysis_agent_ids", "{}"),
	    SET("/profiling_analysis_result", "{}") },
	  "whole_scope promotion requires correctness-passed fresh profiling" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\"") },
	  "whole_scope promotion requires complete per-SK decisions" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\""),
	    SET(URR "/-", AOT_DECISION),
	    SET(URR "/0/classification", "\"insufficient_evidence\""),
	    SET(URR "/0/action", "\"block\""), SET(URR "/0/status", "\"blocked\"") },
	  "whole_scope promotion must not contain insufficient_evidence" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\""),
	    SET(URR "/-", AOT_DECISION),
	    SET(URR "/0/classification", "\"insufficient_evidence\""),
	    SET(URR "/0/action", "\"block\""), SET(URR "/0/status", "\"blocked\""),
	    },
	  "whole_scope promotion decisions must cover the full profiled "
	  "inventory" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\""),
	    SET(URR "/-", AOT_DECISION),
	    SET(URR "/0/mapping_confidence", "\"diagnostic_only\""),
	    SET(URR "/0/classification", "\"insufficient_evidence\""),
	    SET(URR "/0/action", "\"block\"") },
	  "whole_scope promotion requires performance-exact mapping for every "
	  "SK" },
	/* K1-K4 */
	{ S3, { SET("/rounds/1/declared_option_changes", "[\"x\"]") },
	  "rounds[1] performance_prune forbids option changes after Sbest-BASE; "
	  "declared_option_changes must be empty" },
	{ S3, { DEL("/rounds/2/declared_option_changes") },
	  "rounds[2] final forbids option changes after Sbest-BASE; "
	  "declared_option_changes must be empty" },
	{ S3, { SET("/rounds/1/declared_change_set/allowed_json_pointers",
	    "[\"/superkernel/Options~1x\"]") },
	  "rounds[1].declared_change_set.allowed_json_pointers must not target "
	  "options after Sbest-BASE" },
	{ S3, { SET("/rounds/0/performance_decision_range_ids",
	    "[\"range-beneficial\", \"range-neutral\"]") },
	  "rounds[0] base references must match its decisions" },
	{ S3, { SET("/rounds/1/candidate_config_fingerprint",
	    "\"candidate-base-fp\"") },
	  "rounds[1] performance_prune candidate fingerprint must change" },
	{ S3, { SET("/rounds/1/performance_decision_range_ids",
	    "[\"range-beneficial\"]") },
	  "rounds[1] performance_prune must reference exact reliable "
	  "neutral/regressed decisions" },
	{ S3, { SET("/rounds/1/performance_decision_range_ids", "[]") },
	  "rounds[1] performance_prune must reference exact reliable "
	  "neutral/regressed decisions" },
	{ S3, { CPY(URR "/-", URR "/0"), SET(URR "/1/round_id", "\"S3-P1\""),
	    SET(URR "/1/range_id", "\"range-neutral\"") },
	  "rounds[1] performance_prune removed range must not have same-round "
	  "performance evidence: range-neutral" },
	{ S3, { SET("/rounds/2/retained_range_ids", "\"range-beneficial\"") },
	  "rounds[2].retained_range_ids must be a list" },
	{ S3, { SET("/rounds/2/retained_range_ids",
	    "[\"range-beneficial\", \"range-beneficial\"]") },
	  "rounds[2].retained_range_ids must not contain duplicate range IDs" },
	{ S3, { SET("/rounds/2/retained_range_ids",
	    "[\"range-beneficial\", \"range-x\"]") },
	  "rounds[2] final must reference all retained ranges" },
	{ S3, { SET("/rounds/2/performance_decision_range_ids", "[]") },
	  "rounds[2] final decision references must match final ranges" },
	{ S3, { SET("/rounds/2/lifecycle/profiling", "\"not_run\""),
	    DEL("/profiling_analysis_agent_ids/S3-FINAL"),
	    DEL("/profiling_analysis_result/S3-FINAL") },
	  "rounds[2] final requires fresh profiling analysis" },
	{ S3, { DEL(PSD "/2") },
	  "rounds[2] final decisions must match final ranges" },
	{ S3, { DEL(PSD "/2") },
	  "rounds[2] final range range-beneficial requires exactly one fresh "
	  "applied keep decision" },
	{ S3, { CPY(URR "/-", URR "/0"), SET(URR "/1/round_id", "\"S3-FINAL\""),
	    SET(URR "/1/range_id", "\"range-beneficial\""),
	    CPY(URR "/1/candidate_config_fingerprint",
	    "/rounds/2/candidate_config_fingerprint") },
	  "rounds[2] final range range-beneficial must not contain unresolved, "
	  "regressed, or blocked outcomes" },
	/* A1, A2 */
	{ S3, { SET("/rounds/0/artifacts/metadata",
	    "\"S3-BASE/round-report.json\"") },
	  "artifact path S3-BASE/round-report.json has conflicting roles: "
	  "metadata, round_report" },
	{ S3, { SET("/rounds/1/artifacts/round_report",
	    "\"S3-BASE/round-report.json\"") },
	  "round report/evidence artifact paths must be unique across rounds "
	  "and roles" },
	{ S3, { SET("/rounds/0/artifacts/metadata", "[\"ok/meta.json\", "
	    "{\"verify\": [{\"path_value\": \"/tmp/x.json\"}]}]") },
	  "rounds[0].artifacts.metadata[1].verify[0].path_value must be a "
	  "relative artifact path" },
	{ S3, { SET("/profiling_analysis_result/S3-P1", "\" S3-P1/a.json\"") },
	  "profiling_analysis_result.S3-P1 must be a relative artifact path" },
	/* The reference's TypeError for unhashable values (docs/spec/ledger.md
	 * "The validation wrapper"). */
	{ S3, { SET(PSD "/0/mapping_method", "[\"source_scope_map\"]") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'list'" },
	{ S3, { SET(PSD "/0/mapping_confidence", "{\"exact\": true}") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'dict'" },
	{ S3, { SET("/rounds/1/round_kind", "[\"performance_prune\"]") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'list'" },
	{ S3, { SET("/rounds/2/round_id", "{}") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'dict'" },
	{ AUTO, { SET(PSD "/-", AOT_DECISION), SET(PSD "/0/action", "[]") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'list'" },
	{ AUTO, { SET("/promotion_mode", "\"whole_scope\""),
	    SET("/rounds/0/round_id", "[]") },
	  "experiment result contains invalid JSON value types: TypeError: "
	  "unhashable type: 'list'" },
};

static tc_json *
apply(const struct row *r)
{
	tc_json *doc = r->base == S3 ? fx_result() : fx_automatic_result();
	size_t i;

	for (i = 0; i < 5 && r->ops[i].kind != 0; i++) {
		if (r->ops[i].kind == 's')
			fx_set(doc, r->ops[i].ptr, r->ops[i].val);
		else if (r->ops[i].kind == 'd')
			fx_del(doc, r->ops[i].ptr);
		else
			fx_copy(doc, r->ops[i].ptr, r->ops[i].val);
	}
	return doc;
}

static void
test_each_mutation_reports_its_reference_message(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		tc_json *doc = apply(&rows[i]);
		tc_json *errors = tc_experiment_structural_errors(doc);

		if (!fx_has(errors, rows[i].expected)) {
			fprintf(stderr, "# row %zu: missing \"%s\"\n", i,
			    rows[i].expected);
			fx_dump(errors);
			failed++;
		}
		tc_json_free(errors);
		tc_json_free(doc);
	}
	assert_int_equal(failed, 0);
}

static void
test_the_bases_of_the_table_are_valid(void **state)
{
	tc_json *docs[2] = { fx_result(), fx_automatic_result() };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		tc_json *errors = tc_experiment_structural_errors(docs[i]);

		fx_dump(errors);
		assert_int_equal(errors->u.arr.len, 0);
		tc_json_free(errors);
		tc_json_free(docs[i]);
	}
}

static void
test_non_object_result_is_refused_alone(void **state)
{
	tc_json *doc = fx_parse("[]");
	tc_json *errors = tc_experiment_structural_errors(doc);

	(void)state;
	assert_int_equal(errors->u.arr.len, 1);
	assert_true(fx_has(errors, "experiment result must be an object"));
	tc_json_free(errors);
	tc_json_free(doc);
}

static void
test_non_finite_numbers_short_circuit_other_checks(void **state)
{
	tc_json *doc = fx_result();
	tc_json *errors;

	(void)state;
	fx_set(doc, "/blockers", "[1e999, -1e999]");
	fx_del(doc, "/rounds");
	errors = tc_experiment_structural_errors(doc);
	assert_int_equal(errors->u.arr.len, 2);
	assert_true(fx_has(errors, "experiment result.blockers[0] must contain "
	    "finite JSON numbers"));
	assert_true(fx_has(errors, "experiment result.blockers[1] must contain "
	    "finite JSON numbers"));
	tc_json_free(errors);
	tc_json_free(doc);
}

static void
test_type_errors_replace_every_other_error(void **state)
{
	tc_json *doc = fx_result();
	tc_json *errors;

	(void)state;
	fx_set(doc, "/experiment_id", "\"\"");
	fx_set(doc, "/performance_scope_decisions/1/mapping_method", "[]");
	errors = tc_experiment_structural_errors(doc);
	assert_int_equal(errors->u.arr.len, 1);
	tc_json_free(errors);
	tc_json_free(doc);
}

static void
test_messages_keep_the_reference_order(void **state)
{
	tc_json *doc = fx_result();
	tc_json *errors;

	(void)state;
	fx_set(doc, "/experiment_id", "\"\"");
	fx_set(doc, "/rounds/0/round_kind", "\"x\"");
	fx_set(doc, "/blockers", "7");
	errors = tc_experiment_structural_errors(doc);
	assert_true(errors->u.arr.len >= 3);
	assert_string_equal(tc_json_string(errors->u.arr.items[0]),
	    "experiment_id must be a non-empty string");
	assert_string_equal(tc_json_string(errors->u.arr.items[1]),
	    "parent_experiment_id must equal experiment_id");
	assert_string_equal(tc_json_string(errors->u.arr.items[2]),
	    "blockers must be a list");
	assert_string_equal(tc_json_string(errors->u.arr.items[3]),
	    "rounds[0].round_kind is invalid");
	tc_json_free(errors);
	tc_json_free(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_bases_of_the_table_are_valid),
		cmocka_unit_test(test_each_mutation_reports_its_reference_message),
		cmocka_unit_test(test_non_object_result_is_refused_alone),
		cmocka_unit_test(test_non_finite_numbers_short_circuit_other_checks),
		cmocka_unit_test(test_type_errors_replace_every_other_error),
		cmocka_unit_test(test_messages_keep_the_reference_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
