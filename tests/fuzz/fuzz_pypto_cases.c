/*
 * fuzz_pypto_cases.c - libFuzzer target for the PyPTO-Pro Stage 5 case
 * manifest (PERFORMANCE_CASES.json, docs/spec/pypto.md "Case manifest") and the
 * documents joined with it: the Golden contract (GOLDEN_PERF_REPORT.json,
 * docs/spec/pypto.md "Golden reference"), the source record's re-validation,
 * the optimization_target rules, the shape/dtype canonical forms, the frozen
 * experiment contract (docs/perf/frozen_contract.json) and the fenced JSON
 * blocks of PERFORMANCE_REPORT.md.
 *
 * Input: part 0 the manifest bytes (written to <op>/PERFORMANCE_CASES.json);
 * part 1 (optional) GOLDEN_PERF_REPORT.json, in which the placeholders
 * @MANIFEST@, @MSHA@ and @MSIZE@ (the manifest's path, SHA-256 and size)
 * and @GOLDEN@, @GSHA@ and @GSIZE@ (the golden source demo_golden.py) are
 * replaced first, so a seed can bind the run-time files; part 2
 * (optional) the frozen contract; part 3 (optional) Markdown searched for
 * "json stage5-evidence" and "json machine-contract" blocks.
 *
 * Invariants: every refusal has a message; a manifest that loads has at
 * least one case, each with an id, shape and dtype, and a source record
 * that re-validates.
 */
#include "fuzz_common.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PC_GOLDEN_SRC "def demo_golden(x):\n    return x\n"

static const char *pc_root;
static char *pc_op, *pc_manifest, *pc_golden_src;
static char pc_gsha[65];

static void
pc_init(void)
{
	pc_root = fz_mkroot("pypto-cases");
	pc_op = tc_xasprintf("%s/custom/op", pc_root);
	pc_manifest = tc_xasprintf("%s/PERFORMANCE_CASES.json", pc_op);
	pc_golden_src = tc_xasprintf("%s/demo_golden.py", pc_op);
	tc_sha256_hex(PC_GOLDEN_SRC, strlen(PC_GOLDEN_SRC), pc_gsha);
}

static void
pc_golden(const char *text, size_t len, const char *manifest,
    size_t manifest_len)
{
	char msha[65], msize[32], gsize[32];
	const char *pairs[] = {
		"@MANIFEST@", pc_manifest, "@MSHA@", msha, "@MSIZE@", msize,
		"@GOLDEN@", pc_golden_src, "@GSHA@", pc_gsha, "@GSIZE@", gsize,
		NULL
	};
	size_t out_len;
	char *out;

	tc_sha256_hex(manifest, manifest_len, msha);
	snprintf(msize, sizeof(msize), "%zu", manifest_len);
	snprintf(gsize, sizeof(gsize), "%zu", strlen(PC_GOLDEN_SRC));
	out = fz_subst(text, len, pairs, &out_len);
	fz_write(pc_op, "GOLDEN_PERF_REPORT.json", out, out_len);
	free(out);
}

static void
pc_loaded(const tc_pypto_manifest *m)
{
	tc_error err = TC_ERROR_INIT;
	char *msg;
	size_t i;

	FZ_REQUIRE(m->n > 0);
	FZ_NOTE("manifest: %zu cases, golden %s\n", m->n, tc_json_get_string(
	    tc_json_get(m->source, "golden_diagnostic"), "status"));
	for (i = 0; i < m->n; i++) {
		FZ_REQUIRE(m->cases[i].id != NULL && m->cases[i].shape != NULL &&
		    m->cases[i].dtype != NULL);
		tc_json_free(tc_pypto_canonical_shape(m->cases[i].shape));
		tc_json_free(tc_pypto_canonical_dtype(m->cases[i].dtype));
	}
	msg = tc_pypto_case_source_error(m->source);
	if (msg != NULL) {
		fprintf(stderr, "source record does not re-validate: %s\n", msg);
		abort();
	}
	(void)fz_status(tc_pypto_manifest_check_target(m, &err), &err);
}

static void
pc_markdown(const char *text, size_t len)
{
	static const char *const infos[] = {
		"json stage5-evidence", "json machine-contract"
	};
	tc_error err = TC_ERROR_INIT;
	char *md = fz_strndup(text, len);
	size_t i;

	for (i = 0; i < 2; i++)
		tc_json_free(fz_result(tc_pypto_fenced_json(md, infos[i], &err),
		    &err));
	free(md);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[4];
	size_t lens[4], n;
	tc_error err = TC_ERROR_INIT;
	tc_pypto_manifest m;
	tc_pypto_golden g;
	tc_json *contract = NULL;

	if (pc_root == NULL)
		pc_init();
	fz_reset_root(pc_root);
	n = fz_split(data, size, parts, lens, 4);
	fz_write(pc_op, "PERFORMANCE_CASES.json", parts[0], lens[0]);
	fz_write_str(pc_op, "demo_golden.py", PC_GOLDEN_SRC);
	if (n > 1)
		pc_golden(parts[1], lens[1], parts[0], lens[0]);
	if (n > 2)
		fz_write(pc_op, "docs/perf/frozen_contract.json", parts[2],
		    lens[2]);

	memset(&m, 0, sizeof(m));
	if (fz_status(tc_pypto_manifest_load(pc_manifest, &m, &err), &err) == 0)
		pc_loaded(&m);
	tc_pypto_manifest_free(&m);
	memset(&m, 0, sizeof(m));
	if (fz_status(tc_pypto_manifest_resolve(pc_op, pc_manifest, &m, &err),
	    &err) == 0)
		pc_loaded(&m);
	tc_pypto_manifest_free(&m);
	memset(&g, 0, sizeof(g));
	if (tc_pypto_golden_load(pc_op, &g, &err) < 0)
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	tc_error_clear(&err);
	tc_pypto_golden_free(&g);
	if (tc_pypto_contract_load(pc_op, &contract, &err) < 0)
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	tc_error_clear(&err);
	tc_json_free(contract);
	if (n > 3)
		pc_markdown(parts[3], lens[3]);
	return 0;
}
