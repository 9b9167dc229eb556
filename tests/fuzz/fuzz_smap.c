/*
 * fuzz_smap.c - libFuzzer target for the source_scope_map_v2 loader of
 * "tunectl analyze smap validate" and "analyze fusion --source-scope-map"
 * (src/analysis/smap.c).
 *
 * Input: up to eight parts separated by FZ_SEP: the map (map.json), then
 * files a1.json ... a7.json beside it that its provenance may name, so a
 * mutated map reaches the artifact, snapshot, DAG and range checks.
 * Invariants: the loader answers a status or one non-empty message,
 * never both; "exact" only for a map whose protocol is
 * source_scope_map_v2 and whose content fingerprint verifies, and
 * "diagnostic_only" only for one without that protocol.
 */
#include "fuzz_common.h"
#include "tunectl/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *smap_root;

/* the map's content fingerprint, recomputed as the loader defines it */
static bool
smap_fingerprint_ok(const tc_json *m)
{
	tc_json *copy = tc_json_clone(m), *prov, *fp;
	char hex[65];
	bool ok;

	prov = tc_json_get(copy, "provenance");
	FZ_REQUIRE(tc_json_is(prov, TC_JSON_OBJECT));
	fp = tc_json_object_take(prov, "source_scope_map_content_fingerprint");
	ok = fp != NULL && tc_json_is(fp, TC_JSON_STRING) &&
	    tc_json_digest(copy, hex, NULL) == 0 &&
	    strcmp(hex, fp->u.str.ptr) == 0;
	tc_json_free(fp);
	tc_json_free(copy);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[FZ_MAX_PARTS];
	size_t lens[FZ_MAX_PARTS], n, i;
	tc_error err = TC_ERROR_INIT;
	char *path, *status;
	tc_json *m;

	if (smap_root == NULL)
		smap_root = fz_mkroot("smap");
	fz_reset_root(smap_root);
	n = fz_split(data, size, parts, lens, 8);
	fz_write(smap_root, "map.json", n > 0 ? parts[0] : "", n > 0 ?
	    lens[0] : 0);
	for (i = 1; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "a%zu.json", i);
		fz_write(smap_root, name, parts[i], lens[i]);
	}
	path = tc_xasprintf("%s/map.json", smap_root);
	status = tc_source_scope_map_validate(path, "rev", NULL, NULL, NULL,
	    &err);
	FZ_REQUIRE((status == NULL) != (tc_error_msg(&err)[0] == '\0'));
	if (status != NULL) {
		const char *p;

		m = fz_parse(n > 0 ? parts[0] : "", n > 0 ? lens[0] : 0);
		FZ_REQUIRE(m != NULL);
		p = tc_json_is(m, TC_JSON_OBJECT) ? tc_json_get_string(m,
		    "protocol") : NULL;
		if (strcmp(status, "exact") == 0) {
			FZ_REQUIRE(p != NULL &&
			    strcmp(p, "source_scope_map_v2") == 0);
			FZ_REQUIRE(smap_fingerprint_ok(m));
		} else {
			FZ_REQUIRE(strcmp(status, "diagnostic_only") == 0);
			FZ_REQUIRE(p == NULL ||
			    strcmp(p, "source_scope_map_v2") != 0);
		}
		tc_json_free(m);
	}
	free(status);
	free(path);
	tc_error_clear(&err);
	return 0;
}
