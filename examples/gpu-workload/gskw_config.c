/*
 * gskw_config.c - the GPU workload's configuration and command line.
 *
 * A config is the JSON document the tuning session writes (also valid
 * YAML, so Stage A can archive it as config.yaml):
 *
 *   workload          layers, hidden, batch, steps, ranks, seed
 *   scope.strategy    none | cuda_graph_layer | automatic_aot |
 *                     semantic_segment | per_block | broad_decode
 *   model_config.custom_params.super_kernel_optimize_options
 *                     block_size (threads per block, a multiple of 32),
 *                     tile_size (matmul K tile in shared memory, <= hidden),
 *                     unroll (1 or 4)
 *   experiments       multistream (bool), source_range.fast_softmax (bool)
 *
 * Values outside their range, unknown strategies and unknown options are
 * refused with a message naming them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/json.h"
#include "gskw.h"

static const char *const known_options[] = { "block_size", "tile_size", "unroll" };
#define NOPTIONS (sizeof(known_options) / sizeof(known_options[0]))

int
gskw_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* obj.key as an int in [lo, hi] into *out (unchanged when absent). */
static int
get_int(const tc_json *obj, const char *where, const char *key, int lo,
    int hi, int *out, char *err, size_t errlen)
{
	const tc_json *j = tc_json_get(obj, key);
	int64_t v;

	if (j == NULL)
		return 0;
	if (tc_json_is(j, TC_JSON_BOOL) || !tc_json_int64(j, &v) || v < lo ||
	    v > hi)
		return gskw_errf(err, errlen, "config %s.%s must be an integer in "
		    "[%d, %d]", where, key, lo, hi);
	*out = (int)v;
	return 0;
}

static int
get_bool(const tc_json *obj, const char *where, const char *key, int *out,
    char *err, size_t errlen)
{
	const tc_json *j = tc_json_get(obj, key);

	if (j == NULL)
		return 0;
	if (!tc_json_is(j, TC_JSON_BOOL))
		return gskw_errf(err, errlen, "config %s.%s must be true or false",
		    where, key);
	*out = j->u.b;
	return 0;
}

/* An object or absent (NULL); anything else is an error. */
static int
get_object(const tc_json *obj, const char *key, const tc_json **out,
    char *err, size_t errlen)
{
	const tc_json *j = tc_json_get(obj, key);

	*out = NULL;
	if (j == NULL || tc_json_is(j, TC_JSON_NULL))
		return 0;
	if (!tc_json_is(j, TC_JSON_OBJECT))
		return gskw_errf(err, errlen, "config %s must be a mapping", key);
	*out = j;
	return 0;
}

void
gskw_config_defaults(struct gskw_config *c)
{
	memset(c, 0, sizeof(*c));
	c->layers = 8;
	c->hidden = 256;
	c->batch = 8;
	c->steps = 100;
	c->ranks = 1;
	c->seed = 42;
	c->scope = GS_NONE;
	c->block_size = 128;
	c->tile_size = 32;
	c->unroll = 1;
}

static int
read_workload(const tc_json *wl, struct gskw_config *c, char *err,
    size_t errlen)
{
	int seed = (int)c->seed;

	if (get_int(wl, "workload", "layers", 1, 256, &c->layers, err, errlen) ||
	    get_int(wl, "workload", "hidden", 32, 8192, &c->hidden, err, errlen) ||
	    get_int(wl, "workload", "batch", 1, 4096, &c->batch, err, errlen) ||
	    get_int(wl, "workload", "steps", 1, 1000000, &c->steps, err, errlen) ||
	    get_int(wl, "workload", "ranks", 1, GSKW_MAX_GPUS, &c->ranks, err,
	    errlen) ||
	    get_int(wl, "workload", "seed", 0, 1 << 30, &seed, err, errlen))
		return -1;
	c->seed = (unsigned)seed;
	return 0;
}

static int
read_options(const tc_json *opts, struct gskw_config *c, char *err,
    size_t errlen)
{
	const char *where = "super_kernel_optimize_options";

	for (size_t i = 0; opts != NULL && i < opts->u.obj.len; i++) {
		const char *key = opts->u.obj.members[i].key;
		size_t k;

		for (k = 0; k < NOPTIONS; k++)
			if (strcmp(key, known_options[k]) == 0)
				break;
		if (k == NOPTIONS)
			return gskw_errf(err, errlen, "config %s.%s is not an option "
			    "of the GPU workload (block_size, tile_size, unroll)",
			    where, key);
	}
	if (get_int(opts, where, "block_size", 32, 1024, &c->block_size, err,
	    errlen) ||
	    get_int(opts, where, "tile_size", 1, 8192, &c->tile_size, err,
	    errlen) ||
	    get_int(opts, where, "unroll", 1, 4, &c->unroll, err, errlen))
		return -1;
	if (c->block_size % 32 != 0)
		return gskw_errf(err, errlen, "config %s.block_size must be a "
		    "multiple of 32 (a whole number of warps), not %d", where,
		    c->block_size);
	if (c->unroll != 1 && c->unroll != 4)
		return gskw_errf(err, errlen, "config %s.unroll must be 1 or 4, not "
		    "%d", where, c->unroll);
	if (c->tile_size > c->hidden)
		return gskw_errf(err, errlen, "config %s.tile_size %d exceeds "
		    "workload.hidden %d", where, c->tile_size, c->hidden);
	return 0;
}

static int
read_config(const tc_json *doc, struct gskw_config *c, char *err,
    size_t errlen)
{
	const tc_json *wl, *scope, *mc, *cp, *opts, *exp, *sr;
	const char *s;

	if (!tc_json_is(doc, TC_JSON_OBJECT))
		return gskw_errf(err, errlen, "config must be a mapping");
	if (get_object(doc, "workload", &wl, err, errlen) ||
	    read_workload(wl, c, err, errlen) ||
	    get_object(doc, "scope", &scope, err, errlen))
		return -1;
	if (tc_json_get(scope, "strategy") != NULL) {
		if ((s = tc_json_get_string(scope, "strategy")) == NULL)
			return gskw_errf(err, errlen, "config scope.strategy must be "
			    "a string");
		if (gskw_scope_parse(s, &c->scope) != 0)
			return gskw_errf(err, errlen, "unknown scope.strategy '%s' "
			    "(none, cuda_graph_layer, automatic_aot, "
			    "semantic_segment, per_block, broad_decode)", s);
	}
	if (get_object(doc, "model_config", &mc, err, errlen) ||
	    get_object(mc, "custom_params", &cp, err, errlen) ||
	    get_object(cp, "super_kernel_optimize_options", &opts, err,
	    errlen) || read_options(opts, c, err, errlen) ||
	    get_object(doc, "experiments", &exp, err, errlen) ||
	    get_bool(exp, "experiments", "multistream", &c->multistream, err,
	    errlen) || get_object(exp, "source_range", &sr, err, errlen) ||
	    get_bool(sr, "experiments.source_range", "fast_softmax",
	    &c->fast_softmax, err, errlen))
		return -1;
	return 0;
}

int
gskw_config_load(const char *path, struct gskw_config *c, char *err,
    size_t errlen)
{
	tc_error e = TC_ERROR_INIT;
	tc_json *doc = tc_json_parse_file(path, &e);
	int rc;

	gskw_config_defaults(c);
	if (doc == NULL) {
		gskw_errf(err, errlen, "%s: %s", path, tc_error_msg(&e));
		tc_error_clear(&e);
		return -1;
	}
	rc = read_config(doc, c, err, errlen);
	tc_json_free(doc);
	return rc;
}

int
gskw_args_parse(int argc, char **argv, const char *run_dir,
    struct gskw_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->log_dir = run_dir;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int has_value = i + 1 < argc;

		if (strcmp(o, "--config") == 0 && has_value)
			a->config = argv[++i];
		else if (strcmp(o, "--log-dir") == 0 && has_value)
			a->log_dir = argv[++i];
		else if (strcmp(o, "--profile-out") == 0 && has_value)
			a->profile_out = argv[++i];
		else if (strcmp(o, "--msprof-out") == 0 && has_value)
			a->msprof_out = argv[++i];
		else if (strcmp(o, "--archive-config") == 0)
			a->archive_config = 1;
		else if (strcmp(o, "--list-devices") == 0)
			a->list_devices = 1;
		else if (strcmp(o, "--config") == 0 || strcmp(o, "--log-dir") == 0 ||
		    strcmp(o, "--profile-out") == 0 ||
		    strcmp(o, "--msprof-out") == 0)
			return gskw_errf(err, errlen, "%s needs a value", o);
		else
			return gskw_errf(err, errlen, "unknown argument '%s'", o);
	}
	if (a->list_devices)
		return a->config != NULL || a->profile_out != NULL ||
		    a->msprof_out != NULL || a->archive_config ? gskw_errf(err, errlen, "--list-devices "
		    "takes no other option") : 0;
	if (a->config == NULL)
		return gskw_errf(err, errlen, "--config is required");
	if (a->log_dir == NULL)
		return gskw_errf(err, errlen, "no log directory: give --log-dir or "
		    "run under tunectl bench run ($TUNECTL_RUN_DIR)");
	return 0;
}
