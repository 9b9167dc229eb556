/*
 * fuzz_evidence_import.c - libFuzzer target for a derived session's
 * evidence import (docs/spec/controller.md "Imported file checks",
 * "Evidence-import manifest", "Imported ledger checks"): the manifest a derived
 * session binds (tc_evidence_import_validate: digest, schema, authorization,
 * the parent session, the BASE handoff and every imported artifact
 * re-validated), and the content checks of the imported profiling analysis,
 * source scope map and ledger.
 *
 * Fixture: a completed parent with import evidence and a child derived
 * from it (mode both, all three artifacts).  Input parts, each an RFC 7386
 * merge patch over the fixture's document (so digests that exist only at
 * run time are kept): 0 the evidence-import manifest (the child's
 * evidence_import.sha256 is set to the patched manifest's digest), 1 the
 * profiling analysis, 2 the source scope map, 3 the imported ledger.  In
 * parts 1 and 2 the content fingerprint is recomputed unless the patch
 * sets it.  A part that is not JSON is written as raw bytes instead.
 *
 * Invariants: every refusal has a message; an empty patch keeps the
 * fixture valid; lineage and deep verify answer with a boolean "valid".
 */
#include "fuzz_common.h"
#include "tunectl/derive.h"
#include "tunectl/session.h"
#include "../unit/test_derive_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dfx *imp_fx;
static tc_json *imp_child, *imp_manifest;
static tc_json *imp_analysis, *imp_smap, *imp_ledger;
static char *imp_manifest_path;

static void
imp_cleanup(void)
{
	dfx_free(imp_fx);
	tc_json_free(imp_child);
	tc_json_free(imp_manifest);
	tc_json_free(imp_analysis);
	tc_json_free(imp_smap);
	tc_json_free(imp_ledger);
	free(imp_manifest_path);
}

static void
imp_init(void)
{
	tc_error err = TC_ERROR_INIT;
	struct tc_derive_args args;
	tc_session *child;

	imp_fx = dfx_new();
	dfx_parent(imp_fx, "none", NULL);
	atexit(imp_cleanup);
	args = dfx_args(imp_fx, "both");
	child = tc_derive_session(&args, &err);
	if (child == NULL) {
		fprintf(stderr, "fuzz_evidence_import: %s\n", tc_error_msg(&err));
		abort();
	}
	imp_child = tc_json_clone(child->doc);
	tc_session_free(child);
	imp_manifest_path = tc_xasprintf("%s/%s", imp_fx->croot,
	    TC_EVIDENCE_IMPORT_PATH);
	imp_manifest = tc_json_parse_file(imp_manifest_path, &err);
	imp_analysis = fz_parse(DFX_ANALYSIS, strlen(DFX_ANALYSIS));
	imp_smap = fz_parse(DFX_SMAP, strlen(DFX_SMAP));
	imp_ledger = fz_parse(DFX_LEDGER, strlen(DFX_LEDGER));
	FZ_REQUIRE(imp_manifest != NULL && imp_analysis != NULL &&
	    imp_smap != NULL && imp_ledger != NULL);
}

/* The document a part stands for: a patched copy of base, or NULL when
 * the part is not JSON. */
static tc_json *
imp_doc(const char *part, size_t len, const tc_json *base, bool *patched_fp,
    const char *fp_key)
{
	tc_json *patch = fz_parse(part, len), *doc;

	if (patch == NULL)
		return NULL;
	doc = fz_merge_patch(base, patch);
	*patched_fp = tc_json_is(patch, TC_JSON_OBJECT) &&
	    tc_json_get(patch, fp_key) != NULL;
	tc_json_free(patch);
	return doc;
}

/* Parent artifact roots outside the fixture would read arbitrary host
 * files (devices included); they are not this target's subject. */
static bool
imp_parent_in_fixture(const tc_json *manifest)
{
	const tc_json *root = tc_json_get(tc_json_get(manifest, "parent"),
	    "artifact_root");
	const char *s = tc_json_string(root);

	return s == NULL || strncmp(s, imp_fx->dir, strlen(imp_fx->dir)) == 0;
}

static void
imp_manifest_check(const char *part, size_t len, bool empty)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *manifest, *doc, *ref, *v;
	bool unused;
	char hex[65];
	int rc;

	doc = tc_json_clone(imp_child);
	ref = tc_json_get(doc, "evidence_import");
	manifest = imp_doc(part, len, imp_manifest, &unused, "");
	if (manifest == NULL) {
		fz_write(imp_fx->croot, TC_EVIDENCE_IMPORT_PATH, part, len);
	} else if (!imp_parent_in_fixture(manifest)) {
		tc_json_free(manifest);
		tc_json_free(doc);
		return;
	} else {
		char *text = tc_json_pretty(manifest, &len, &err);

		tc_error_clear(&err);
		if (text == NULL) {
			tc_json_free(manifest);
			tc_json_free(doc);
			return;
		}
		fz_write(imp_fx->croot, TC_EVIDENCE_IMPORT_PATH, text, len);
		free(text);
		if (tc_json_digest(manifest, hex, &err) == 0)
			tc_json_object_set_string(ref, "sha256", hex);
		tc_error_clear(&err);
		tc_json_free(manifest);
	}
	rc = fz_status(tc_evidence_import_validate(doc, &err), &err);
	if (empty)
		FZ_REQUIRE(rc == 0);
	if (rc == 0) {
		fz_write_json(imp_fx->croot, "auto-tune-session.json", doc);
		v = tc_session_lineage(imp_fx->csession);
		FZ_REQUIRE(tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL));
		tc_json_free(v);
		v = tc_verify_session_deep(imp_fx->csession, TC_VERIFY_ALL);
		FZ_REQUIRE(tc_json_is(tc_json_get(v, "valid"), TC_JSON_BOOL));
		tc_json_free(v);
	}
	tc_json_free(doc);
}

static void
imp_content_checks(const char *const *parts, const size_t *lens, size_t n)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *analysis, *smap, *ledger;
	bool set_fp = false;
	char hex[65];

	analysis = n > 1 ? imp_doc(parts[1], lens[1], imp_analysis, &set_fp,
	    "analysis_content_fingerprint") : tc_json_clone(imp_analysis);
	if (analysis == NULL)
		return;
	if (!set_fp && tc_json_is(analysis, TC_JSON_OBJECT) &&
	    tc_import_analysis_fingerprint(analysis, hex, &err) == 0)
		tc_json_object_set_string(analysis,
		    "analysis_content_fingerprint", hex);
	tc_error_clear(&err);
	if (fz_status(tc_import_check_analysis(analysis, &err), &err) != 0) {
		tc_json_free(analysis);
		return;
	}
	set_fp = false;
	smap = n > 2 ? imp_doc(parts[2], lens[2], imp_smap, &set_fp,
	    "provenance") : tc_json_clone(imp_smap);
	if (smap != NULL) {
		if (!set_fp && tc_json_is(tc_json_get(smap, "provenance"),
		    TC_JSON_OBJECT) &&
		    tc_import_source_map_fingerprint(smap, hex, &err) == 0)
			tc_json_object_set_string(tc_json_get(smap,
			    "provenance"),
			    "source_scope_map_content_fingerprint", hex);
		tc_error_clear(&err);
		(void)fz_status(tc_import_check_source_map(smap, analysis,
		    &err), &err);
		tc_json_free(smap);
	}
	ledger = n > 3 ? imp_doc(parts[3], lens[3], imp_ledger, &set_fp, "") :
	    tc_json_clone(imp_ledger);
	if (ledger != NULL) {
		(void)fz_status(tc_import_check_ledger(ledger, analysis, &err),
		    &err);
		tc_json_free(ledger);
	}
	tc_json_free(analysis);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[4];
	size_t lens[4], n;

	if (imp_fx == NULL)
		imp_init();
	n = fz_split(data, size, parts, lens, 4);
	{
		tc_json *p0 = fz_parse(parts[0], lens[0]);
		bool empty = tc_json_is(p0, TC_JSON_OBJECT) &&
		    p0->u.obj.len == 0;

		tc_json_free(p0);
		imp_manifest_check(parts[0], lens[0], empty);
	}
	imp_content_checks(parts, lens, n);
	return 0;
}
