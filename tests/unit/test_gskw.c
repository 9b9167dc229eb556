/*
 * test_gskw.c - the GPU workload's host side, without a GPU: scope
 * strategies and their launch counts, the config and the command line,
 * which GPU each rank gets, the rank log, profile and device list
 * formats, and a whole rank run on the simulated device
 * (tests/fixtures/gpu-sim/gskw_sim.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/json.h"
#include "../../examples/gpu-workload/gskw.h"

/* ---- helpers ------------------------------------------------------------ */

static char *
temp_dir(void)
{
	char tmpl[] = "/tmp/tc-gskw-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return tc_xstrdup(tmpl);
}

static void
remove_tree(char *dir)
{
	char *cmd = tc_xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* Load a config given as text; returns load's status, message in err. */
static int
load_text(const char *text, struct gskw_config *c, char *err, size_t errlen)
{
	char *dir = temp_dir();
	char *path = tc_xasprintf("%s/config.json", dir);
	int rc;

	assert_int_equal(tc_write_atomic(path, text, strlen(text), 0, NULL), 0);
	rc = gskw_config_load(path, c, err, errlen);
	free(path);
	remove_tree(dir);
	return rc;
}

static char *
slurp(const char *path)
{
	char *text = tc_read_file(path, 0, NULL, NULL);

	assert_non_null(text);
	return text;
}

static bool
starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int
count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');

		if (starts_with(p, prefix))
			n++;
		p = nl != NULL ? nl + 1 : NULL;
	}
	return n;
}

/* ---- plans -------------------------------------------------------------- */

static void
strategies_change_the_launches_per_layer(void **state)
{
	static const struct { const char *name; int launches, streams2; } want[] = {
		{ "none", 6, 12 }, { "cuda_graph_layer", 1, 1 },
		{ "automatic_aot", 4, 8 }, { "semantic_segment", 3, 6 },
		{ "per_block", 2, 4 }, { "broad_decode", 1, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum gskw_scope s;
		struct gskw_plan p;

		assert_int_equal(gskw_scope_parse(want[i].name, &s), 0);
		assert_string_equal(gskw_scope_name(s), want[i].name);
		p = gskw_make_plan(s);
		assert_int_equal(gskw_launches_per_layer(&p, 0), want[i].launches);
		assert_int_equal(gskw_launches_per_layer(&p, 1), want[i].streams2);
	}
}

static void
every_plan_covers_the_six_kernels_in_order(void **state)
{
	(void)state;
	for (int s = 0; s < GS_COUNT; s++) {
		struct gskw_plan p = gskw_make_plan((enum gskw_scope)s);
		int next = 0;

		for (int g = 0; g < p.ngroups; g++) {
			assert_int_equal(p.first[g], next);
			assert_true(p.last[g] >= p.first[g]);
			next = p.last[g] + 1;
		}
		assert_int_equal(next, GK_COUNT);
	}
	assert_int_equal(gskw_make_plan(GS_GRAPH_LAYER).mode, GM_GRAPH);
	assert_int_equal(gskw_make_plan(GS_GRAPH_LAYER).ngroups, 6);
	assert_int_equal(gskw_make_plan(GS_BROAD).mode, GM_LAUNCH);
}

static void
unknown_strategy_names_are_refused(void **state)
{
	enum gskw_scope s = GS_BROAD;

	(void)state;
	assert_int_equal(gskw_scope_parse("graph", &s), -1);
	assert_int_equal(gskw_scope_parse("", &s), -1);
	assert_int_equal(s, GS_BROAD);
}

/* ---- config ------------------------------------------------------------- */

static void
an_empty_config_gives_the_defaults(void **state)
{
	struct gskw_config c, d;
	char err[256] = "";

	(void)state;
	assert_int_equal(load_text("{}", &c, err, sizeof(err)), 0);
	gskw_config_defaults(&d);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_int_equal(c.block_size, 128);
	assert_int_equal(c.tile_size, 32);
	assert_int_equal(c.unroll, 1);
	assert_int_equal(c.scope, GS_NONE);
}

static void
every_knob_is_read(void **state)
{
	struct gskw_config c;
	char err[256] = "";

	(void)state;
	assert_int_equal(load_text(
	    "{\"workload\": {\"layers\": 3, \"hidden\": 512, \"batch\": 4, "
	    "\"steps\": 7, \"ranks\": 2, \"seed\": 9},"
	    " \"scope\": {\"strategy\": \"cuda_graph_layer\"},"
	    " \"model_config\": {\"custom_params\": {"
	    "\"super_kernel_optimize_options\": {\"block_size\": 256, "
	    "\"tile_size\": 128, \"unroll\": 4}, \"super_kernel_debug_options\": {}}},"
	    " \"experiments\": {\"multistream\": true, \"source_range\": "
	    "{\"fast_softmax\": true}}}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.layers, 3);
	assert_int_equal(c.hidden, 512);
	assert_int_equal(c.batch, 4);
	assert_int_equal(c.steps, 7);
	assert_int_equal(c.ranks, 2);
	assert_int_equal(c.seed, 9);
	assert_int_equal(c.scope, GS_GRAPH_LAYER);
	assert_int_equal(c.block_size, 256);
	assert_int_equal(c.tile_size, 128);
	assert_int_equal(c.unroll, 4);
	assert_true(c.multistream);
	assert_true(c.fast_softmax);
}

static void
bad_configs_are_refused_with_the_reason(void **state)
{
	static const struct { const char *doc, *msg; } bad[] = {
		{ "[]", "config must be a mapping" },
		{ "{\"workload\": 3}", "config workload must be a mapping" },
		{ "{\"workload\": {\"layers\": 0}}",
		  "config workload.layers must be an integer in [1, 256]" },
		{ "{\"workload\": {\"hidden\": \"256\"}}",
		  "config workload.hidden must be an integer" },
		{ "{\"workload\": {\"ranks\": true}}",
		  "config workload.ranks must be an integer" },
		{ "{\"scope\": {\"strategy\": \"fused\"}}",
		  "unknown scope.strategy 'fused'" },
		{ "{\"scope\": {\"strategy\": 1}}",
		  "config scope.strategy must be a string" },
		{ "{\"model_config\": {\"custom_params\": {"
		  "\"super_kernel_optimize_options\": {\"loop_order\": \"ikj\"}}}}",
		  "super_kernel_optimize_options.loop_order is not an option of "
		  "the GPU workload" },
		{ "{\"model_config\": {\"custom_params\": {"
		  "\"super_kernel_optimize_options\": {\"block_size\": 100}}}}",
		  "block_size must be a multiple of 32" },
		{ "{\"model_config\": {\"custom_params\": {"
		  "\"super_kernel_optimize_options\": {\"unroll\": 2}}}}",
		  "unroll must be 1 or 4, not 2" },
		{ "{\"workload\": {\"hidden\": 64}, \"model_config\": {"
		  "\"custom_params\": {\"super_kernel_optimize_options\": "
		  "{\"tile_size\": 128}}}}",
		  "tile_size 128 exceeds workload.hidden 64" },
		{ "{\"experiments\": {\"multistream\": 1}}",
		  "config experiments.multistream must be true or false" },
		{ "{\"experiments\": {\"source_range\": {\"fast_softmax\": \"y\"}}}",
		  "experiments.source_range.fast_softmax must be true or false" },
		{ "{\"workload\": ", "Expecting value" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gskw_config c;
		char err[512] = "";

		assert_int_equal(load_text(bad[i].doc, &c, err, sizeof(err)), -1);
		if (strstr(err, bad[i].msg) == NULL)
			fail_msg("config %s: got '%s', want '%s'", bad[i].doc, err,
			    bad[i].msg);
	}
}

static void
a_missing_config_file_is_named(void **state)
{
	struct gskw_config c;
	char err[512] = "";

	(void)state;
	assert_int_equal(gskw_config_load("/nonexistent/gskw.json", &c, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/gskw.json"));
	assert_non_null(strstr(err, "No such file"));
}

/* ---- command line ------------------------------------------------------- */

static void
the_command_line_is_parsed(void **state)
{
	const char *ok1[] = { "gskw", "--config", "c.json", "--log-dir", "L",
		"--archive-config", "--profile-out", "p.json", "--msprof-out", "M",
		NULL };
	const char *ok2[] = { "gskw", "--config", "c.json", NULL };
	const char *list[] = { "gskw", "--list-devices", NULL };
	struct gskw_args a;
	char err[256] = "";

	(void)state;
	assert_int_equal(gskw_args_parse(10, (char **)ok1, "RUN", &a, err, sizeof(err)), 0);
	assert_string_equal(a.msprof_out, "M");
	assert_string_equal(a.config, "c.json");
	assert_string_equal(a.log_dir, "L");
	assert_string_equal(a.profile_out, "p.json");
	assert_true(a.archive_config);
	assert_false(a.list_devices);
	assert_int_equal(gskw_args_parse(3, (char **)ok2, "RUN", &a, err, sizeof(err)), 0);
	assert_string_equal(a.log_dir, "RUN");
	assert_null(a.profile_out);
	assert_null(a.msprof_out);
	assert_int_equal(gskw_args_parse(2, (char **)list, NULL, &a, err, sizeof(err)), 0);
	assert_true(a.list_devices);
}

static void
bad_command_lines_say_what_is_wrong(void **state)
{
	static const struct { int argc; const char *argv[4]; const char *msg; } bad[] = {
		{ 1, { "gskw" }, "--config is required" },
		{ 3, { "gskw", "--config", "c" }, "no log directory" },
		{ 2, { "gskw", "--config" }, "--config needs a value" },
		{ 2, { "gskw", "--frobnicate" }, "unknown argument '--frobnicate'" },
		{ 4, { "gskw", "--list-devices", "--config", "c" },
		  "--list-devices takes no other option" },
		{ 4, { "gskw", "--list-devices", "--msprof-out", "M" },
		  "--list-devices takes no other option" },
		{ 4, { "gskw", "--config", "c", "--msprof-out" },
		  "--msprof-out needs a value" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gskw_args a;
		char err[256] = "";

		assert_int_equal(gskw_args_parse(bad[i].argc, (char **)bad[i].argv,
		    NULL, &a, err, sizeof(err)), -1);
		assert_non_null(strstr(err, bad[i].msg));
	}
}

/* ---- GPUs per rank ------------------------------------------------------ */

static void
ranks_take_the_leased_gpus_first(void **state)
{
	int ids[GSKW_MAX_GPUS];
	char err[256] = "";

	(void)state;
	assert_int_equal(gskw_rank_devices("1,3", "0", 2, ids, err, sizeof(err)), 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 3);
	assert_int_equal(gskw_rank_devices(NULL, " 2 , 5 ", 1, ids, err,
	    sizeof(err)), 2);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 5);
	assert_int_equal(gskw_rank_devices(NULL, NULL, 3, ids, err, sizeof(err)), 3);
	assert_int_equal(ids[2], 2);
}

static void
ranks_refuse_gpus_they_cannot_own(void **state)
{
	int ids[GSKW_MAX_GPUS];
	char err[256] = "";

	(void)state;
	assert_int_equal(gskw_rank_devices("0", NULL, 2, ids, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "2 ranks need 2 GPUs, one each, but the "
	    "device lease holds 1 (0)"));
	assert_int_equal(gskw_rank_devices(NULL, "GPU-8f2e", 1, ids, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "CUDA_VISIBLE_DEVICES 'GPU-8f2e' does not "
	    "list GPU indices"));
	assert_int_equal(gskw_rank_devices(NULL, "", 1, ids, err, sizeof(err)), -1);
	assert_int_equal(gskw_rank_devices("0,0", NULL, 1, ids, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "SUPERKERNEL_DEVICE_IDS '0,0'"));
	assert_int_equal(gskw_rank_devices(NULL, "1,", 1, ids, err, sizeof(err)), -1);
	assert_int_equal(gskw_rank_devices(NULL, "-1", 1, ids, err, sizeof(err)), -1);
}

static void
cuda_ordinals_map_to_physical_indices(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(gskw_physical_index(NULL, 3, err, sizeof(err)), 3);
	assert_int_equal(gskw_physical_index("4,6", 1, err, sizeof(err)), 6);
	assert_int_equal(gskw_physical_index("4,6", 2, err, sizeof(err)), -1);
	assert_int_equal(gskw_physical_index("MIG-1/2/3", 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MIG"));
}

/* ---- what the workload writes ------------------------------------------- */

static void
rank_log_lines_are_what_the_gates_read(void **state)
{
	struct gskw_config c;
	struct gskw_gpu gpu = { 0, "NVIDIA H200", "00000000:19:00.0", 9, 0, 139.8 };
	struct gskw_probe v;
	struct gskw_step st = { 0.23456, 48 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	double ms = 0, wall = 0;
	int step = -1, rank = -1, launches = -1;

	(void)state;
	gskw_config_defaults(&c);
	c.scope = GS_AOT;
	c.multistream = 1;
	memset(&v, 0, sizeof(v));
	v.driver_version = 13000;
	v.runtime_version = 12040;
	gskw_log_header(f, "cudaEventElapsedTime", "how", 1, 3, &gpu, &v, &c);
	gskw_log_step(f, 5, 1, &st, 0.5);
	fclose(f);
	assert_true(starts_with(text, "Timing clock: cudaEventElapsedTime\n"
	    "# decode: how; "));
	assert_non_null(strstr(text, "rank 1 on GPU 3 (NVIDIA H200, sm_90, 139.8 "
	    "GiB, PCI 00000000:19:00.0); CUDA driver 13.0, runtime 12.4; scope "
	    "automatic_aot, 8 launches per layer, block 128, tile 32, unroll 1, "
	    "two streams\n"));
	assert_int_equal(sscanf(strstr(text, "\nstep ") + 1, "step %d rank %d "
	    "Inference time (decode): %lf ms wall %lf ms launches %d", &step,
	    &rank, &ms, &wall, &launches), 5);
	assert_int_equal(step, 5);
	assert_int_equal(rank, 1);
	assert_true(ms == 0.2346);
	assert_int_equal(launches, 48);
	free(text);
}

static void
a_graph_profile_is_one_group_of_six_kernels(void **state)
{
	char *dir = temp_dir();
	char *path = tc_xasprintf("%s/p.json", dir);
	struct gskw_config c;
	struct gskw_plan p = gskw_make_plan(GS_GRAPH_LAYER);
	double ms[GK_COUNT] = { 1.5 };
	char err[256] = "";
	tc_json *doc;
	const tc_json *groups;

	(void)state;
	gskw_config_defaults(&c);
	c.scope = GS_GRAPH_LAYER;
	assert_int_equal(gskw_write_profile(path, "cudaEventElapsedTime", &c, &p,
	    ms, 2.0, err, sizeof(err)), 0);
	doc = tc_json_parse_file(path, NULL);
	assert_non_null(doc);
	assert_string_equal(tc_json_get_string(doc, "schema_version"),
	    "skw-kernel-profile-v1");
	assert_string_equal(tc_json_get_string(doc, "clock"), "cudaEventElapsedTime");
	assert_string_equal(tc_json_get_string(doc, "launch_mode"),
	    "cuda_graph_per_layer");
	groups = tc_json_get(doc, "groups");
	assert_int_equal(groups->u.arr.len, 1);
	assert_int_equal(tc_json_get(groups->u.arr.items[0], "kernels")->u.arr.len, 6);
	tc_json_free(doc);
	free(path);
	remove_tree(dir);
}

/* The msprof shape: each group a launch, a graph its layer's SuperKernel. */
static void
msprof_names_each_launch_and_a_graph_as_one_superkernel(void **state)
{
	struct gskw_config c;
	struct gskw_plan aot = gskw_make_plan(GS_AOT);
	struct gskw_plan graph = gskw_make_plan(GS_GRAPH_LAYER);
	struct msp_shape s;
	char err[256] = "";

	(void)state;
	gskw_config_defaults(&c);
	c.multistream = 1;
	assert_int_equal(gskw_trace_shape(&c, &aot, &s, err, sizeof(err)), 0);
	assert_int_equal(s.ngroups, 4);
	assert_int_equal(s.nstreams, 2);
	assert_int_equal(s.copies, 0);
	assert_int_equal(s.child_steps, 0);
	assert_int_equal(s.last[3], GK_RESIDUAL);
	assert_string_equal(s.kernel_names[GK_NORM], "layernorm");
	assert_int_equal(gskw_trace_shape(&c, &graph, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cuda_graph_layer graph over two streams"));
	c.multistream = 0;
	assert_int_equal(gskw_trace_shape(&c, &graph, &s, err, sizeof(err)), 0);
	assert_int_equal(s.ngroups, 1);
	assert_int_equal(s.first[0], GK_MATMUL);
	assert_int_equal(s.last[0], GK_RESIDUAL);
	assert_int_equal(s.nstreams, 1);
	c.multistream = 1;
	c.batch = 1;		/* nothing to split: one stream */
	assert_int_equal(gskw_trace_shape(&c, &aot, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nstreams, 1);
}

static void
a_fused_profile_has_a_group_per_launch(void **state)
{
	char *dir = temp_dir();
	char *path = tc_xasprintf("%s/p.json", dir);
	struct gskw_config c;
	struct gskw_plan p = gskw_make_plan(GS_BLOCK);
	double ms[GK_COUNT] = { 1.0, 2.0 };
	char err[256] = "";
	tc_json *doc;
	const tc_json *groups;
	double v = 0;

	(void)state;
	gskw_config_defaults(&c);
	assert_int_equal(gskw_write_profile(path, "x", &c, &p, ms, 0.0, err,
	    sizeof(err)), 0);
	doc = tc_json_parse_file(path, NULL);
	groups = tc_json_get(doc, "groups");
	assert_int_equal(groups->u.arr.len, 2);
	assert_int_equal(tc_json_get(groups->u.arr.items[0], "kernels")->u.arr.len, 1);
	assert_int_equal(tc_json_get(groups->u.arr.items[1], "kernels")->u.arr.len, 5);
	assert_true(tc_json_number(tc_json_get(groups->u.arr.items[1], "total_ms"), &v));
	assert_true(v == 2.0);
	tc_json_free(doc);
	free(path);
	assert_int_equal(gskw_write_profile("/nonexistent/dir/p.json", "x", &c, &p,
	    ms, 0.0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	remove_tree(dir);
}

/* Print the device list of a probe into a string; returns the status. */
static int
devices_json(const struct gskw_probe *probe, const char *visible, tc_json **doc)
{
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = gskw_print_devices(f, probe, visible, err, sizeof(err));

	fclose(f);
	*doc = tc_json_parse(text, len, NULL);
	assert_non_null(*doc);
	free(text);
	return rc;
}

static void
the_device_list_names_physical_indices_and_versions(void **state)
{
	struct gskw_probe probe;
	tc_json *doc;
	const tc_json *devs;
	int64_t idx;

	(void)state;
	memset(&probe, 0, sizeof(probe));
	probe.count = 2;
	probe.driver_version = 13000;
	probe.runtime_version = 13000;
	snprintf(probe.gpus[0].name, sizeof(probe.gpus[0].name), "NVIDIA H200");
	probe.gpus[1].ordinal = 1;
	assert_int_equal(devices_json(&probe, "2,5", &doc), 0);
	assert_string_equal(tc_json_get_string(doc, "cuda_driver_version"), "13.0");
	assert_string_equal(tc_json_get_string(doc, "clock"), "simulated");
	assert_true(tc_json_is(tc_json_get(doc, "error"), TC_JSON_NULL));
	devs = tc_json_get(doc, "devices");
	assert_int_equal(devs->u.arr.len, 2);
	assert_true(tc_json_int64(tc_json_get(devs->u.arr.items[1], "index"), &idx));
	assert_int_equal(idx, 5);
	assert_string_equal(tc_json_get_string(devs->u.arr.items[0], "name"),
	    "NVIDIA H200");
	tc_json_free(doc);

	assert_int_equal(devices_json(&probe, "GPU-1,GPU-2", &doc), -1);
	assert_int_equal(tc_json_get(doc, "devices")->u.arr.len, 0);
	assert_non_null(strstr(tc_json_get_string(doc, "error"), "UUIDs"));
	tc_json_free(doc);

	probe.count = 0;
	snprintf(probe.error, sizeof(probe.error), "cudaGetDeviceCount: no device");
	assert_int_equal(devices_json(&probe, NULL, &doc), 0);
	assert_string_equal(tc_json_get_string(doc, "error"),
	    "cudaGetDeviceCount: no device");
	tc_json_free(doc);
}

/* ---- a whole rank on the simulated device ------------------------------- */

struct env_guard {
	char *visible, *order;
};

static void
env_save(struct env_guard *g)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES"), *o = getenv("CUDA_DEVICE_ORDER");

	g->visible = v != NULL ? tc_xstrdup(v) : NULL;
	g->order = o != NULL ? tc_xstrdup(o) : NULL;
}

static void
env_restore(struct env_guard *g)
{
	if (g->visible != NULL)
		setenv("CUDA_VISIBLE_DEVICES", g->visible, 1);
	else
		unsetenv("CUDA_VISIBLE_DEVICES");
	if (g->order != NULL)
		setenv("CUDA_DEVICE_ORDER", g->order, 1);
	else
		unsetenv("CUDA_DEVICE_ORDER");
	free(g->visible);
	free(g->order);
	unsetenv("GSKW_SIM_GPUS");
	unsetenv("GSKW_SIM_FAIL_STEP");
}

static void
a_rank_runs_on_its_gpu_alone_and_logs_every_step(void **state)
{
	char *dir = temp_dir();
	char *log_path = tc_xasprintf("%s/log_1.log", dir);
	char *profile = tc_xasprintf("%s/profile.json", dir);
	struct env_guard g;
	struct gskw_config c;
	char *text;

	(void)state;
	env_save(&g);
	setenv("GSKW_SIM_GPUS", "4", 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
	gskw_config_defaults(&c);
	c.steps = 9;
	c.scope = GS_SEGMENT;
	assert_int_equal(gskw_rank_main(&c, 1, 3, dir, profile, NULL), 0);
	assert_string_equal(getenv("CUDA_VISIBLE_DEVICES"), "3");
	assert_string_equal(getenv("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
	text = slurp(log_path);
	assert_true(starts_with(text, "Timing clock: simulated\n"));
	assert_non_null(strstr(text, "rank 1 on GPU 3 (Simulated GPU 3, sm_90"));
	assert_int_equal(count_lines_starting(text, "step "), 9);
	assert_non_null(strstr(text, "launches 24\n"));
	assert_int_equal(count_lines_starting(text, "checksum "), 1);
	/* only rank 0 profiles */
	assert_false(tc_path_exists(profile));
	free(text);
	env_restore(&g);
	free(log_path);
	free(profile);
	remove_tree(dir);
}

static void
rank_zero_writes_the_profile(void **state)
{
	char *dir = temp_dir();
	char *profile = tc_xasprintf("%s/profile.json", dir);
	struct env_guard g;
	struct gskw_config c;
	tc_json *doc;

	(void)state;
	env_save(&g);
	setenv("GSKW_SIM_GPUS", "1", 1);
	gskw_config_defaults(&c);
	c.steps = 3;
	c.scope = GS_AOT;
	assert_int_equal(gskw_rank_main(&c, 0, 0, dir, profile, NULL), 0);
	doc = tc_json_parse_file(profile, NULL);
	assert_non_null(doc);
	assert_int_equal(tc_json_get(doc, "groups")->u.arr.len, 4);
	assert_string_equal(tc_json_get_string(doc, "clock"), "simulated");
	tc_json_free(doc);
	env_restore(&g);
	free(profile);
	remove_tree(dir);
}

/* Rank 0 of an msprof run writes one row per launch and stream. */
static void
rank_zero_writes_msprof_files(void **state)
{
	char *dir = temp_dir();
	char *out = tc_xasprintf("%s/msprof", dir);
	char *kd = tc_xasprintf("%s/kernel_details.csv", out);
	char *fused = tc_xasprintf("%s/device_0/model_1/sk_fused_nodes.log", out);
	struct env_guard g;
	struct gskw_config c;
	char *text;

	(void)state;
	env_save(&g);
	setenv("GSKW_SIM_GPUS", "1", 1);
	gskw_config_defaults(&c);
	c.steps = 3;
	c.layers = 2;
	c.scope = GS_SEGMENT;
	c.multistream = 1;
	assert_int_equal(gskw_rank_main(&c, 0, 0, dir, NULL, out), 0);
	text = slurp(kd);
	/* header + 3 steps x 2 layers x 3 groups x 2 streams */
	assert_int_equal(count_lines_starting(text, "Step Id,"), 1);
	assert_int_equal(count_lines_starting(text, "1,0,1,"), 12);
	assert_int_equal(count_lines_starting(text, "3,0,1,"), 12);
	assert_non_null(strstr(text, ",sk_6_decoder.layer.1_start_softmax_1_end_residual_1,"
	    "SuperKernel,static,AI_VECTOR_CORE,"));
	free(text);
	assert_true(tc_path_exists(fused));
	/* only rank 0 writes them */
	free(out);
	out = tc_xasprintf("%s/msprof-1", dir);
	assert_int_equal(gskw_rank_main(&c, 1, 0, dir, NULL, out), 0);
	assert_false(tc_path_exists(out));
	env_restore(&g);
	free(kd);
	free(fused);
	free(out);
	remove_tree(dir);
}

static void
a_rank_without_its_gpu_or_with_a_failing_step_fails(void **state)
{
	char *dir = temp_dir();
	char *log_path = tc_xasprintf("%s/log_0.log", dir);
	struct env_guard g;
	struct gskw_config c;
	char *text;

	(void)state;
	env_save(&g);
	gskw_config_defaults(&c);
	c.steps = 6;
	setenv("GSKW_SIM_GPUS", "1", 1);
	assert_int_equal(gskw_rank_main(&c, 0, 2, dir, NULL, NULL), 1);
	assert_false(tc_path_exists(log_path));
	setenv("GSKW_SIM_FAIL_STEP", "2", 1);
	assert_int_equal(gskw_rank_main(&c, 0, 0, dir, NULL, NULL), 1);
	text = slurp(log_path);
	assert_int_equal(count_lines_starting(text, "step "), 2);
	assert_int_equal(count_lines_starting(text, "checksum "), 0);
	free(text);
	env_restore(&g);
	free(log_path);
	remove_tree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strategies_change_the_launches_per_layer),
		cmocka_unit_test(every_plan_covers_the_six_kernels_in_order),
		cmocka_unit_test(unknown_strategy_names_are_refused),
		cmocka_unit_test(an_empty_config_gives_the_defaults),
		cmocka_unit_test(every_knob_is_read),
		cmocka_unit_test(bad_configs_are_refused_with_the_reason),
		cmocka_unit_test(a_missing_config_file_is_named),
		cmocka_unit_test(the_command_line_is_parsed),
		cmocka_unit_test(bad_command_lines_say_what_is_wrong),
		cmocka_unit_test(ranks_take_the_leased_gpus_first),
		cmocka_unit_test(ranks_refuse_gpus_they_cannot_own),
		cmocka_unit_test(cuda_ordinals_map_to_physical_indices),
		cmocka_unit_test(rank_log_lines_are_what_the_gates_read),
		cmocka_unit_test(a_graph_profile_is_one_group_of_six_kernels),
		cmocka_unit_test(msprof_names_each_launch_and_a_graph_as_one_superkernel),
		cmocka_unit_test(a_fused_profile_has_a_group_per_launch),
		cmocka_unit_test(the_device_list_names_physical_indices_and_versions),
		cmocka_unit_test(a_rank_runs_on_its_gpu_alone_and_logs_every_step),
		cmocka_unit_test(rank_zero_writes_the_profile),
		cmocka_unit_test(rank_zero_writes_msprof_files),
		cmocka_unit_test(a_rank_without_its_gpu_or_with_a_failing_step_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
