/*
 * test_derive_fixture.h - a completed parent session with import evidence
 * for the derived-session unit tests (the reference tests'
 * completed_parent_with_import_evidence,
 * docs/spec/controller.md "Acceptance cases"), built through the library: init,
 * then one seal per step.
 *
 * Layout under a temp dir D:
 *   D/parent-artifacts/auto-tune-session.json   id "parent-session"
 *   D/parent-artifacts/evidence/profiling-analysis.json
 *   D/parent-artifacts/evidence/experiment-ledger.json
 *   D/parent-artifacts/evidence/source-scope-map.json
 *   D/child/                                   where children go
 * The content fingerprints below were computed with Python's json module
 * (the reference's flags), not with tunectl.
 */
#ifndef TEST_DERIVE_FIXTURE_H
#define TEST_DERIVE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_session_fixture.h"
#include "tunectl/derive.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/session.h"

/* U+007F and an astral character: ensure_ascii=True writes them as
 * \u007f and \ud83d\ude00, so the fingerprint pins that form. */
#define DFX_ANALYSIS_BODY \
	"\"schema_version\": \"1.2\", \"experiment_id\": \"Sbest\", " \
	"\"round_id\": \"Sbest-BASE\", \"candidate_name\": \"Sbest\", " \
	"\"source_revision\": \"revision-abc\", " \
	"\"summary_zh\": \"BASE 独立分析：融合瓶颈在 Vector\\u007f\\ud83d\\ude00。\", " \
	"\"source_scope_mapping\": {\"protocol\": \"source_scope_map_v2\", " \
	"\"status\": \"exact\"}, \"hotspots\": [{\"op\": \"matmul\", " \
	"\"share\": 0.42, \"count\": 12345678901234567890}]"
#define DFX_ANALYSIS_FP \
	"199f3f59c50047a5eb91166ff94de61e95e7838e9515639304f4ce789691a1d9"
/* The same document digested with ensure_ascii=False (must differ). */
#define DFX_ANALYSIS_FP_UNICODE \
	"4cfcdab323dfb36adcb486027d1bcae5acd9345a443e84cf9c139364d995cb51"
#define DFX_ANALYSIS \
	"{" DFX_ANALYSIS_BODY ", \"analysis_content_fingerprint\": \"" \
	DFX_ANALYSIS_FP "\"}"

#define DFX_SMAP_FP \
	"02b920a3a691368d5afbde52d507a93cf8f70ecb6b5d63d025c4b5a20fdde5f6"
#define DFX_SMAP \
	"{\"protocol\": \"source_scope_map_v2\", \"schema_version\": \"2.0\", " \
	"\"provenance\": {\"stable_marker_revision\": \"revision-abc\", " \
	"\"note_zh\": \"稳定标记\", \"source_scope_map_content_fingerprint\": \"" \
	DFX_SMAP_FP "\"}, \"source_ranges\": [{\"relation\": \"exact_cover\", " \
	"\"file\": \"model.py\", \"start_line\": 10, \"end_line\": 42}]}"

#define DFX_LEDGER \
	"{\"schema_version\": 2, \"experiments\": {\"Sbest\": " \
	"{\"source_revision\": \"revision-abc\", \"rounds\": " \
	"[{\"round_id\": \"Sbest-BASE\"}], \"blockers\": []}}}"

#define DFX_FINAL_LEDGER \
	"{\"schema_version\": 2, \"experiments\": {}, \"final_e2e\": " \
	"{\"classification\": \"beneficial\", \"candidate_id\": \"Sbest\", " \
	"\"scope_strategy\": \"explicit_candidates\", \"option_config\": " \
	"{\"auto_op_parallel\": true}, \"evidence_artifacts\": [], " \
	"\"reason_zh\": \"依据最终 clean E2E 结算。\", \"baseline\": " \
	"{\"median_ms\": 10.0, \"sample_count\": 5}, \"candidate\": " \
	"{\"median_ms\": 9.0, \"sample_count\": 5}, \"improvement_pct\": 10.0}}"

#define DFX_ANALYSIS_REL "evidence/profiling-analysis.json"
#define DFX_LEDGER_REL "evidence/experiment-ledger.json"
#define DFX_SMAP_REL "evidence/source-scope-map.json"

struct dfx {
	char *dir;
	char *proot, *psession;
	char *analysis, *ledger, *smap;
	char *croot, *csession;
};

static inline char *
dfx_path(const struct dfx *f, const char *rel)
{
	return tc_xasprintf("%s/%s", f->proot, rel);
}

static inline const char *
dfx_default_status(const tc_json *step)
{
	const char *phase = tc_json_get_string(step, "phase");
	const char *branch = tc_json_get_string(step, "optional_branch");

	if (strcmp(phase, "intake_preparation") == 0 ||
	    strcmp(phase, "s0_baseline") == 0 ||
	    strcmp(phase, "base_profile_source_mapping") == 0)
		return "succeeded";
	if (strcmp(phase, "stage_a_scope_selection") == 0 ||
	    strcmp(phase, "final_e2e_report") == 0)
		return "accepted";
	if (strcmp(phase, "optional_experiments") == 0)
		return branch == NULL || strcmp(branch, "none") == 0 ?
		    "not_requested" : "no_gain";
	return "no_gain";
}

/* The status a "step=status" override list gives step, or the default. */
static inline const char *
dfx_status(const tc_json *step, const char *const *overrides)
{
	const char *id = tc_json_get_string(step, "step_id");
	size_t n = strlen(id);

	for (; overrides != NULL && *overrides != NULL; overrides++)
		if (strncmp(*overrides, id, n) == 0 && (*overrides)[n] == '=')
			return *overrides + n + 1;
	return dfx_default_status(step);
}

static inline tc_json *
dfx_result(const struct dfx *f, const tc_json *step, const char *status)
{
	tc_json *r = fx_result(step, status);
	const char *phase = tc_json_get_string(step, "phase");

	tc_json_object_set_string(r, "session_id", "parent-session");
	if (strcmp(phase, "base_profile_source_mapping") == 0) {
		tc_json *p = tc_json_get(r, "produced_artifacts");

		tc_json_array_push(p, tc_json_new_string(DFX_ANALYSIS_REL));
		tc_json_array_push(p, tc_json_new_string(DFX_LEDGER_REL));
		tc_json_array_push(p, tc_json_new_string(DFX_SMAP_REL));
	}
	if (strcmp(phase, "final_e2e_report") == 0) {
		tc_json *d = tc_json_get(r, "details_zh");
		char *ledger = dfx_path(f, "ledger.json");
		size_t i;

		for (i = 0; i < TC_FINAL_DETAIL_KEY_COUNT; i++)
			tc_json_object_set_string(d, tc_final_detail_keys[i],
			    "已结算。");
		tc_json_object_set_string(r, "ledger_path", "ledger.json");
		fx_write(ledger, DFX_FINAL_LEDGER);
		free(ledger);
	}
	return r;
}

/* A completed parent of this mode; overrides "step=status" (NULL ends). */
static inline void
dfx_parent(struct dfx *f, const char *mode, const char *const *overrides)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	char *evidence;
	int i;

	doc = tc_session_init(f->psession, f->proot, "parent-session", mode,
	    &err);
	if (doc == NULL) {
		fprintf(stderr, "init: %s\n", tc_error_msg(&err));
		abort();
	}
	tc_json_free(doc);
	evidence = dfx_path(f, "evidence");
	if (mkdir(evidence, 0755) != 0)
		abort();
	free(evidence);
	fx_write(f->analysis, DFX_ANALYSIS);
	fx_write(f->ledger, DFX_LEDGER);
	fx_write(f->smap, DFX_SMAP);
	for (i = 0; i < 16; i++) {
		tc_session *s;
		tc_json *step, *r;

		if (tc_session_load(f->psession, 0, &s, &err) != 0) {
			fprintf(stderr, "load: %s\n", tc_error_msg(&err));
			abort();
		}
		if ((step = tc_session_next_step(s, NULL)) == NULL) {
			tc_session_free(s);
			return;
		}
		r = dfx_result(f, step, dfx_status(step, overrides));
		tc_session_free(s);
		if (tc_seal_handoff(f->psession, r, 0, NULL, &err) != 0) {
			fprintf(stderr, "seal: %s\n", tc_error_msg(&err));
			abort();
		}
		tc_json_free(r);
	}
	abort();
}

static inline struct dfx *
dfx_new(void)
{
	struct dfx *f = tc_xcalloc(1, sizeof(*f));

	f->dir = fx_tmpdir();
	f->proot = tc_xasprintf("%s/parent-artifacts", f->dir);
	f->psession = tc_xasprintf("%s/auto-tune-session.json", f->proot);
	f->analysis = dfx_path(f, DFX_ANALYSIS_REL);
	f->ledger = dfx_path(f, DFX_LEDGER_REL);
	f->smap = dfx_path(f, DFX_SMAP_REL);
	f->croot = tc_xasprintf("%s/child", f->dir);
	f->csession = tc_xasprintf("%s/auto-tune-session.json", f->croot);
	return f;
}

static inline void
dfx_free(struct dfx *f)
{
	free(f->proot);
	free(f->psession);
	free(f->analysis);
	free(f->ledger);
	free(f->smap);
	free(f->croot);
	free(f->csession);
	fx_rmtree(f->dir);
	free(f);
}

/* The derivation request the reference tests make (approval true, all
 * three evidence files). */
static inline struct tc_derive_args
dfx_args(const struct dfx *f, const char *mode)
{
	struct tc_derive_args a;

	memset(&a, 0, sizeof(a));
	a.parent_session = f->psession;
	a.session = f->csession;
	a.artifact_root = f->croot;
	a.session_id = "derived-session";
	a.optional_mode = mode;
	a.profiling_analysis = f->analysis;
	a.ledger = f->ledger;
	a.source_scope_map = f->smap;
	a.approved = true;
	return a;
}

#endif
