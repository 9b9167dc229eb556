/*
 * fuzz_fused_meta.c - libFuzzer target for the strict fused-log parser of
 * the structural projection (src/analysis/fused_meta.c), read against the
 * origin graph of the recorded structural case
 * (tests/fixtures/analysis/in/held-out/struct/graph, device 0, model 7).
 *
 * Input: one sk_fused_nodes.log, optionally followed by FZ_SEP and the
 * log's path in the capture (default "device_0/model_7_1/..."; the path
 * decides the device and model the groups belong to).  Invariants: the
 * parser refuses only non-UTF-8 text, with a message; otherwise it gives
 * at least one group, each with the log's SHA-256 as its fingerprint,
 * children that are graph nodes, kernel children among them in the same
 * order and never topology-only, a group without blockers fully
 * identified; after finishing, blockers and groups are sorted, and a
 * second parse of the same log gives the same groups.
 */
#include "fuzz_common.h"
#include "tunectl/sha256.h"
#include "tunectl/text.h"
#include "../../src/analysis/analysis_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct an_gnode *fm_nodes;
static size_t fm_nn;
static bool fm_loaded;

static void
fm_load_graph(void)
{
	tc_error err = TC_ERROR_INIT;
	char *path;
	tc_json *g;

	if (fm_loaded)
		return;
	fm_loaded = true;
	path = tc_xasprintf("%s/tests/fixtures/analysis/in/held-out/struct/"
	    "graph/sk_graph_origin.json", fz_src());
	g = tc_json_parse_file(path, &err);
	FZ_REQUIRE(g != NULL);
	FZ_REQUIRE(tc_analysis__graph_nodes(g, &fm_nodes, &fm_nn, NULL,
	    &err) == 0);
	tc_json_free(g);
	free(path);
}

static void
fm_check_group(const struct an_fgroup *g, const char *hex)
{
	size_t i, k = 0;

	FZ_REQUIRE(g->name != NULL);
	FZ_REQUIRE(strcmp(g->fingerprint, hex) == 0);
	FZ_REQUIRE(g->nkernel <= g->nnode);
	for (i = 0; i < g->nnode; i++) {
		FZ_REQUIRE(g->node[i] < fm_nn);
		if (k < g->nkernel && g->kernel[k] == g->node[i])
			k++;
	}
	FZ_REQUIRE(k == g->nkernel);	/* kernels: a subsequence */
	for (i = 0; i < g->nkernel; i++)
		FZ_REQUIRE(!fm_nodes[g->kernel[i]].topology_only);
	for (i = 1; i < g->nblockers; i++)
		FZ_REQUIRE(strcmp(g->blockers[i - 1], g->blockers[i]) <= 0);
	for (i = 0; i < g->nblockers; i++)
		FZ_REQUIRE(strncmp(g->blockers[i], "metadata_", 9) == 0);
	if (g->nblockers == 0) {
		FZ_REQUIRE(g->has_device && g->has_model && g->has_sk);
		FZ_REQUIRE(g->nkernel > 0);
	}
	if (g->has_boundary)
		FZ_REQUIRE(g->scope != NULL && g->start_op != NULL &&
		    g->end_op != NULL);
}

static bool
fm_same(const struct an_fgroup *a, const struct an_fgroup *b)
{
	size_t i;

	if (a->has_device != b->has_device || a->device != b->device ||
	    a->has_model != b->has_model || a->model != b->model ||
	    a->has_sk != b->has_sk || a->sk != b->sk ||
	    strcmp(a->name, b->name) != 0 || a->nnode != b->nnode ||
	    a->nkernel != b->nkernel || a->nblockers != b->nblockers)
		return false;
	for (i = 0; i < a->nnode; i++)
		if (a->node[i] != b->node[i])
			return false;
	for (i = 0; i < a->nblockers; i++)
		if (strcmp(a->blockers[i], b->blockers[i]) != 0)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct an_fgroups g = { NULL, 0 }, again = { NULL, 0 };
	tc_error err = TC_ERROR_INIT;
	const char *parts[2];
	size_t lens[2], n, i;
	char hex[65], *rel;
	int rc;

	fm_load_graph();
	n = fz_split(data, size, parts, lens, 2);
	rel = n > 1 ? fz_strndup(parts[1], lens[1]) :
	    tc_xstrdup("device_0/model_7_1/sk_fused_nodes.log");
	if (n > 1 && strlen(rel) != lens[1]) {
		free(rel);
		return 0;
	}
	rc = tc_analysis__fused_meta_parse(parts[0], lens[0], rel, fm_nodes,
	    fm_nn, 0, "7", &g, &err);
	FZ_REQUIRE(rc == 0 || rc == -1);
	if (fz_status(rc, &err) != 0) {
		FZ_REQUIRE(!tc_utf8_valid(parts[0], lens[0]));
		FZ_REQUIRE(g.n == 0);
		free(rel);
		return 0;
	}
	FZ_REQUIRE(g.n > 0);
	tc_analysis__fused_meta_finish(&g);
	tc_sha256_hex(parts[0], lens[0], hex);
	for (i = 0; i < g.n; i++)
		fm_check_group(&g.v[i], hex);
	FZ_REQUIRE(tc_analysis__fused_meta_parse(parts[0], lens[0], rel,
	    fm_nodes, fm_nn, 0, "7", &again, &err) == 0);
	tc_analysis__fused_meta_finish(&again);
	FZ_REQUIRE(again.n == g.n);
	for (i = 0; i < g.n; i++)
		FZ_REQUIRE(fm_same(&g.v[i], &again.v[i]));
	tc_analysis__fgroups_free(&again);
	tc_analysis__fgroups_free(&g);
	free(rel);
	return 0;
}
