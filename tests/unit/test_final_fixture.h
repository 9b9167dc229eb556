/*
 * test_final_fixture.h - shared fixtures of the Final-step and report
 * unit tests (test_final_*.c, test_report_*.c): a throw-away artifact
 * root, files written into it, and the documents of the reference's
 * acceptance fixtures (docs/spec/controller.md "Acceptance cases"): a "none"
 * session advanced to a sealed Final, the Final result, the schema 2 ledger and
 * report_summary().
 *
 * Header-only (static inline) so that each test binary stays one file.
 */
#ifndef TEST_FINAL_FIXTURE_H
#define TEST_FINAL_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "unit_fixture.h"
#include "tunectl/json.h"

/* A fresh, symlink-resolved directory (the controller stores resolved
 * artifact roots). */
static inline char *
fx_mkroot(void)
{
	return unit_tmpdir("final");
}

static inline void
fx_rmrf(char *root)
{
	(void)unit_rmtree(root);
	free(root);
}

static inline void
fx_mkdirs_for(const char *path)
{
	char *copy = tc_xstrdup(path), *p;

	for (p = copy + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		(void)mkdir(copy, 0777);
		*p = '/';
	}
	free(copy);
}

/* Write text to <root>/<rel>, creating parents. */
static inline void
fx_write(const char *root, const char *rel, const char *text)
{
	char *path = tc_xasprintf("%s/%s", root, rel);
	FILE *fp;

	fx_mkdirs_for(path);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
	free(path);
}

/* The whole file (malloc'd), or NULL when it cannot be read. */
static inline char *
fx_read(const char *path)
{
	FILE *fp = fopen(path, "rb");
	tc_buf b = TC_BUF_INIT;
	char chunk[4096];
	size_t n;

	if (fp == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		tc_buf_add(&b, chunk, n);
	fclose(fp);
	return tc_buf_detach(&b, NULL);
}

static inline tc_json *
fx_parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL)
		fail_msg("fixture JSON does not parse: %s: %s",
		    tc_error_msg(&err), text);
	return v;
}

/* printf into a fresh JSON document. */
static inline tc_json *
fx_parsef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline tc_json *
fx_parsef(const char *fmt, ...)
{
	va_list ap;
	tc_json *v;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	text = tc_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	v = fx_parse(text);
	free(text);
	return v;
}

/* Replace (or add) obj[key] with the JSON text value. */
static inline void
fx_set(tc_json *obj, const char *key, const char *json_text)
{
	tc_json_object_set(obj, key, fx_parse(json_text));
}

/* Assert that err holds exactly msg. */
#define fx_assert_error(err, msg) do {					\
	if (strcmp(tc_error_msg(err), (msg)) != 0)			\
		fail_msg("error: expected \"%s\", got \"%s\"", (msg),	\
		    tc_error_msg(err));					\
} while (0)

/* ---- the reference's acceptance fixtures ------------------------------- */

#define FX_FINAL_E2E_NOT_RUN						\
	"{\"classification\": \"not_run\", \"candidate_id\": \"Sbest\","	\
	" \"scope_strategy\": \"explicit_candidates\","			\
	" \"option_config\": {\"auto_op_parallel\": true},"		\
	" \"evidence_artifacts\": [],"					\
	" \"reason_zh\": \"依据最终 clean E2E 结算。\"}"

#define FX_FINAL_E2E_BENEFICIAL						\
	"{\"classification\": \"beneficial\", \"candidate_id\": \"Sbest\","	\
	" \"scope_strategy\": \"explicit_candidates\","			\
	" \"option_config\": {\"auto_op_parallel\": true},"		\
	" \"evidence_artifacts\": [],"					\
	" \"reason_zh\": \"依据最终 clean E2E 结算。\","			\
	" \"baseline\": {\"median_ms\": 10.0, \"sample_count\": 5},"	\
	" \"candidate\": {\"median_ms\": 9.0, \"sample_count\": 5},"	\
	" \"improvement_pct\": 10.0}"

/* The experiment the reference's Final fixture ledger carries. */
#define FX_EXPERIMENTS							\
	"{\"Sbest\": {\"source_revision\": \"revision-abc\","		\
	" \"baseline_config_fingerprint\": \"config-123\","		\
	" \"rounds\": [{\"round_id\": \"Sbest-BASE\","			\
	" \"declared_option_changes\": [{\"pointer\": \"/auto_op_parallel\"}],"	\
	" \"lifecycle\": {\"correctness\": \"passed\", \"clean\": \"passed\","	\
	" \"profiling\": \"passed\"}}],"				\
	" \"performance_scope_decisions\": [{\"classification\": \"beneficial\"},"	\
	" {\"classification\": \"neutral\"}], \"blockers\": []}}"

/* report_summary() of the reference's tests. */
#define FX_SUMMARY							\
	"{\"schema_version\": \"superkernel-report-summary-v1\","	\
	" \"baseline\": {\"metric\": \"TP worst-rank mean\", \"value_ms\": 10.0,"	\
	" \"run_count\": 5, \"reason_zh\": \"五次基线稳定。\","		\
	" \"evidence_artifacts\": [\"evidence.json\"]},"		\
	" \"stages\": [{\"stage\": \"stage_a\", \"kind\": \"screening\","	\
	" \"candidate_id\": \"S1\", \"metric\": \"TP worst-rank mean\","	\
	" \"baseline_ms\": 10.0, \"candidate_ms\": 11.0, \"run_count\": 3,"	\
	" \"eligible\": false, \"selector_rank\": 1, \"status\": \"no_gain\","	\
	" \"reason_zh\": \"收益未达标。\","				\
	" \"gates_zh\": \"阈值 1%；P90 不通过；stddev 不通过\","		\
	" \"evidence_artifacts\": [\"evidence.json\"]}],"		\
	" \"fallback\": {\"candidate_id\": \"S0\", \"scope_strategy\": \"SK-off\","	\
	" \"reason_zh\": \"已验证并恢复 SK-off。\","			\
	" \"evidence_artifacts\": [\"evidence.json\"]}}"

/* A schema 2 ledger with the given final_e2e and experiments. */
static inline tc_json *
fx_ledger(const char *final_e2e, const char *experiments)
{
	return fx_parsef("{\"schema_version\": 2, \"experiments\": %s,"
	    " \"final_e2e\": %s}", experiments, final_e2e);
}

/* The Final phase result with all seven details. */
static inline tc_json *
fx_final_result(const char *status)
{
	return fx_parsef("{\"schema_version\": "
	    "\"superkernel-auto-tune-phase-result-v1\","
	    " \"session_id\": \"session-20260905-a\","
	    " \"step_id\": \"final-e2e-report\", \"phase\": \"final_e2e_report\","
	    " \"agent_id\": \"sk-final-e2e-report\", \"status\": \"%s\","
	    " \"summary_zh\": \"final_e2e_report 阶段已结算。\","
	    " \"input_fingerprints\": {\"control\": \"%s\"},"
	    " \"consumed_artifacts\": [], \"produced_artifacts\": [],"
	    " \"decisions\": [], \"blockers\": [],"
	    " \"next_step_guidance_zh\": \"交由控制 Agent 校验并调度下一阶段。\","
	    " \"details_zh\": {\"environment\": \"已结算。\", \"s0\": \"已结算。\","
	    " \"stage_a\": \"已结算。\", \"stage_o\": \"已结算。\","
	    " \"base_profile_source_mapping\": \"已结算。\","
	    " \"optional_experiments\": \"已结算。\", \"final_e2e\": \"已结算。\"},"
	    " \"ledger_path\": \"ledger.json\"}", status,
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

/* One sealed step of the canonical "none" schedule. */
static inline void
fx_step(tc_buf *b, const char *id, const char *phase, const char *agent,
    const char *skill, const char *branch, const char *outcome)
{
	if (b->len > 1)
		tc_buf_puts(b, ", ");
	tc_buf_printf(b, "{\"step_id\": \"%s\", \"phase\": \"%s\","
	    " \"agent_id\": \"%s\", \"skill\": \"%s\", \"optional_branch\": %s,"
	    " \"derived_family_rebase\": false", id, phase, agent, skill, branch);
	if (outcome == NULL) {
		tc_buf_puts(b, ", \"state\": \"pending\"}");
		return;
	}
	tc_buf_printf(b, ", \"state\": \"sealed\","
	    " \"result_path\": \"phases/%s/phase-result.json\","
	    " \"result_sha256\": \"%s\", \"outcome_status\": \"%s\","
	    " \"sealed_at\": \"2026-09-05T01:02:03+00:00\"}", id,
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
	    outcome);
}

/*
 * A completed "none" session under root: every step sealed with the
 * fixture's default statuses and the Final with final_status (NULL:
 * Final still pending, session active).
 */
static inline tc_json *
fx_session(const char *root, const char *final_status)
{
	tc_buf b = TC_BUF_INIT;
	tc_json *doc;
	char *text;

	tc_buf_putc(&b, '[');
	fx_step(&b, "intake-preparation", "intake_preparation",
	    "sk-intake-preparation", "superkernel-intake-preparation", "null",
	    "succeeded");
	fx_step(&b, "s0-baseline", "s0_baseline", "sk-s0-baseline",
	    "superkernel-s0-baseline", "null", "succeeded");
	fx_step(&b, "stage-a-scope-selection", "stage_a_scope_selection",
	    "sk-stage-a-scope-selection", "superkernel-stage-a-scope-selection",
	    "null", "accepted");
	fx_step(&b, "stage-o-option-tuning", "stage_o_option_tuning",
	    "sk-stage-o-option-tuning", "superkernel-stage-o-option-tuning",
	    "null", "no_gain");
	fx_step(&b, "base-profile-source-mapping", "base_profile_source_mapping",
	    "sk-base-profile-source-mapping",
	    "superkernel-base-profile-source-mapping", "null", "succeeded");
	fx_step(&b, "optional-experiments", "optional_experiments",
	    "sk-optional-experiments", "superkernel-optional-experiments",
	    "\"none\"", "not_requested");
	fx_step(&b, "final-e2e-report", "final_e2e_report",
	    "sk-final-e2e-report", "superkernel-final-e2e-report", "null",
	    final_status);
	tc_buf_putc(&b, ']');
	text = tc_xasprintf("{\"schema_version\": "
	    "\"superkernel-auto-tune-session-v1\","
	    " \"session_id\": \"session-20260905-a\", \"artifact_root\": \"%s\","
	    " \"optional_mode\": \"none\", \"entrypoint\": \"full\","
	    " \"status\": \"%s\", \"created_at\": \"2026-09-05T01:02:03+00:00\","
	    " \"steps\": %s}", root,
	    final_status != NULL ? "completed" : "active", tc_buf_cstr(&b));
	doc = fx_parse(text);
	free(text);
	tc_buf_free(&b);
	return doc;
}

/* Write a JSON document to <root>/<rel> (pretty). */
static inline void
fx_write_json(const char *root, const char *rel, const tc_json *v)
{
	tc_error err = TC_ERROR_INIT;
	char *text = tc_json_pretty(v, NULL, &err);

	assert_non_null(text);
	fx_write(root, rel, text);
	free(text);
}

/*
 * Lay out a sealed Final on disk: evidence.json, ledger.json (with
 * summary unless NULL) and the Final phase-result.json.  Returns the
 * session document (caller frees).
 */
static inline tc_json *
fx_final_on_disk(const char *root, const char *status, tc_json *ledger,
    const char *summary)
{
	tc_json *result = fx_final_result(status);
	tc_json *session = fx_session(root, status);

	fx_write(root, "evidence.json", "{}\n");
	if (summary != NULL)
		fx_set(ledger, "report_summary", summary);
	fx_write_json(root, "ledger.json", ledger);
	fx_write_json(root, "phases/final-e2e-report/phase-result.json", result);
	tc_json_free(result);
	tc_json_free(ledger);
	return session;
}

#endif
