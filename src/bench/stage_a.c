/*
 * stage_a.c - the Stage-A option controls of --selection-only
 * (docs/spec/gates.md "Stage-A option controls"): the archived config.yaml of
 * every run directory of every candidate must define
 * model_config.custom_params.super_kernel_optimize_options and
 * super_kernel_debug_options as explicitly empty mappings.  The same check
 * validates candidate configs before they run (tc_stage_a_configs_check,
 * "gate stage-a-options").
 *
 * YAML is read with libyaml's loader and interpreted the way PyYAML's
 * safe_load would for these checks: duplicate keys keep the last value,
 * "<<" merge keys are honoured, an empty document is null, a second
 * document is an error, and tags outside the YAML 1.1 core set are
 * refused ("could not determine a constructor").  Error texts of invalid
 * YAML follow PyYAML's layout but are libyaml's wording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "tunectl/bench.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "bench_internal.h"

static const char *const fields[2] = {
	"super_kernel_optimize_options", "super_kernel_debug_options"
};

static const char *const known_tags[] = {
	"tag:yaml.org,2002:null", "tag:yaml.org,2002:bool",
	"tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
	"tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp",
	"tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs",
	"tag:yaml.org,2002:set", "tag:yaml.org,2002:str",
	"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map",
	"tag:yaml.org,2002:value", "tag:yaml.org,2002:merge", NULL
};

static void
mark_text(tc_buf *b, const yaml_mark_t *m)
{
	tc_buf_printf(b, "  in \"<byte string>\", line %zu, column %zu",
	    (size_t)m->line + 1, (size_t)m->column + 1);
}

static void
parser_error(tc_buf *b, const yaml_parser_t *p)
{
	if (p->context != NULL) {
		tc_buf_puts(b, p->context);
		tc_buf_putc(b, '\n');
		mark_text(b, &p->context_mark);
		tc_buf_putc(b, '\n');
	}
	tc_buf_puts(b, p->problem != NULL ? p->problem : "invalid YAML");
	if (p->problem != NULL) {
		tc_buf_putc(b, '\n');
		mark_text(b, &p->problem_mark);
	}
}

/* A tag PyYAML's SafeLoader has a constructor for (NULL: implicit). */
static bool
known_tag(const yaml_char_t *tag)
{
	if (tag == NULL)
		return true;
	for (const char *const *t = known_tags; *t != NULL; t++)
		if (strcmp((const char *)tag, *t) == 0)
			return true;
	return false;
}

static const char *
check_tags(yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++)
		if (n->tag != NULL && !known_tag(n->tag) &&
		    /* libyaml fills in the default tags itself */
		    strcmp((const char *)n->tag, YAML_DEFAULT_SCALAR_TAG) != 0 &&
		    strcmp((const char *)n->tag, YAML_DEFAULT_SEQUENCE_TAG) != 0 &&
		    strcmp((const char *)n->tag, YAML_DEFAULT_MAPPING_TAG) != 0)
			return (const char *)n->tag;
	return NULL;
}

static bool
is_mapping(const yaml_node_t *n)
{
	/* !!set is a mapping node that constructs a Python set */
	return n != NULL && n->type == YAML_MAPPING_NODE &&
	    (n->tag == NULL || strcmp((const char *)n->tag,
	    "tag:yaml.org,2002:set") != 0);
}

static bool
scalar_is(const yaml_node_t *n, const char *s)
{
	return n != NULL && n->type == YAML_SCALAR_NODE &&
	    n->data.scalar.length == strlen(s) &&
	    memcmp(n->data.scalar.value, s, n->data.scalar.length) == 0;
}

static bool
is_merge_key(const yaml_node_t *k)
{
	return scalar_is(k, "<<") && k->data.scalar.style ==
	    YAML_PLAIN_SCALAR_STYLE;
}

/* mapping[key] with PyYAML semantics (last duplicate wins, explicit keys
 * before merged ones); *found says whether the key exists at all. */
static yaml_node_t *
map_get(yaml_document_t *doc, const yaml_node_t *map, const char *key,
    bool *found, int depth)
{
	yaml_node_pair_t *p;
	yaml_node_t *res = NULL;

	*found = false;
	if (depth > 64)
		return NULL;
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (!is_merge_key(k) && scalar_is(k, key)) {
			*found = true;
			res = yaml_document_get_node(doc, p->value);
		}
	}
	if (*found)
		return res;
	/* merged mappings: earlier sources take precedence */
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (!is_merge_key(k) || v == NULL)
			continue;
		if (v->type == YAML_MAPPING_NODE) {
			res = map_get(doc, v, key, found, depth + 1);
			if (*found)
				return res;
		} else if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			    it < v->data.sequence.items.top; it++) {
				yaml_node_t *m = yaml_document_get_node(doc, *it);

				if (m != NULL && m->type == YAML_MAPPING_NODE) {
					res = map_get(doc, m, key, found, depth + 1);
					if (*found)
						return res;
				}
			}
		}
	}
	return NULL;
}

static bool
map_is_empty(yaml_document_t *doc, const yaml_node_t *map, int depth)
{
	if (depth > 64)
		return false;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (!is_merge_key(k))
			return false;
		if (v != NULL && v->type == YAML_MAPPING_NODE &&
		    !map_is_empty(doc, v, depth + 1))
			return false;
		if (v != NULL && v->type == YAML_SEQUENCE_NODE)
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			    it < v->data.sequence.items.top; it++) {
				yaml_node_t *m = yaml_document_get_node(doc, *it);

				if (m != NULL && m->type == YAML_MAPPING_NODE &&
				    !map_is_empty(doc, m, depth + 1))
					return false;
			}
	}
	return true;
}

/* Validate one config.yaml; returns 0 or -1 with the reference message. */
static int
check_config(const char *path, const char *bytes, size_t len, tc_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root, *mc, *cp;
	const char *badtag;
	bool found;
	int rc = -1;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)bytes, len);
	if (!yaml_parser_load(&parser, &doc)) {
		tc_buf b = TC_BUF_INIT;

		parser_error(&b, &parser);
		tc_error_set(err, "Stage-A config is not valid YAML: %s: %s",
		    path, b.data);
		tc_buf_free(&b);
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (root != NULL) {
		/* safe_load: exactly one document */
		if (!yaml_parser_load(&parser, &extra)) {
			tc_buf b = TC_BUF_INIT;

			parser_error(&b, &parser);
			tc_error_set(err, "Stage-A config is not valid YAML: %s: "
			    "%s", path, b.data);
			tc_buf_free(&b);
			goto out;
		}
		if (yaml_document_get_root_node(&extra) != NULL) {
			yaml_document_delete(&extra);
			tc_error_set(err, "Stage-A config is not valid YAML: %s: "
			    "expected a single document in the stream", path);
			goto out;
		}
		yaml_document_delete(&extra);
	}
	if ((badtag = check_tags(&doc)) != NULL) {
		tc_error_set(err, "Stage-A config is not valid YAML: %s: could "
		    "not determine a constructor for the tag '%s'", path, badtag);
		goto out;
	}
	if (!is_mapping(root)) {
		tc_error_set(err, "Stage-A config must be a YAML mapping: %s",
		    path);
		goto out;
	}
	mc = map_get(&doc, root, "model_config", &found, 0);
	if (!is_mapping(mc)) {
		tc_error_set(err, "Stage-A config model_config must be a "
		    "mapping: %s", path);
		goto out;
	}
	cp = map_get(&doc, mc, "custom_params", &found, 0);
	if (!is_mapping(cp)) {
		tc_error_set(err, "Stage-A config model_config.custom_params "
		    "must be a mapping: %s", path);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		yaml_node_t *v = map_get(&doc, cp, fields[i], &found, 0);

		if (!found) {
			tc_error_set(err, "Stage-A config must explicitly define "
			    "%s: {}: %s", fields[i], path);
			goto out;
		}
		if (!is_mapping(v) || !map_is_empty(&doc, v, 0)) {
			tc_error_set(err, "Stage-A config %s must be an explicitly "
			    "empty mapping: %s", fields[i], path);
			goto out;
		}
	}
	rc = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static tc_json *
field_names(void)
{
	tc_json *a = tc_json_new_array();

	tc_json_array_push(a, tc_json_new_string(fields[0]));
	tc_json_array_push(a, tc_json_new_string(fields[1]));
	return a;
}

/* The record of one config that passes, or NULL with the reference
 * message (a missing file is the caller's to report). */
static tc_json *
config_record(const char *path, tc_error *err)
{
	char hex[TC_SHA256_HEX_LEN + 1];
	tc_error rerr = TC_ERROR_INIT;
	size_t len;
	char *bytes;
	tc_json *rc;

	if ((bytes = tc_bench_read_all(path, &len, &rerr)) == NULL) {
		tc_error_set(err, "Stage-A config cannot be read: %s: %s", path,
		    tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return NULL;
	}
	if (check_config(path, bytes, len, err) != 0) {
		free(bytes);
		return NULL;
	}
	tc_sha256_hex(bytes, len, hex);
	free(bytes);
	rc = tc_json_new_object();
	tc_json_object_set_string(rc, "path", path);
	tc_json_object_set_string(rc, "sha256", hex);
	tc_json_object_set(rc, "required_empty_fields", field_names());
	tc_json_object_set_bool(rc, "explicitly_empty", true);
	return rc;
}

static tc_json *
candidate_controls(const char *dir, tc_error *err)
{
	char *norm = tc_path_normalize(dir);
	size_t nruns;
	char **runs = tc_bench_list_runs(norm, &nruns);
	tc_json *o = NULL, *configs;

	if (nruns == 0) {
		tc_error_set(err, "%s: no run-* directories found", norm);
		free(norm);
		return NULL;
	}
	configs = tc_json_new_array();
	for (size_t i = 0; i < nruns; i++) {
		char *path = tc_bench_join(runs[i], "config.yaml");
		tc_json *rc;

		if (!tc_is_regular_file(path)) {
			tc_error_set(err, "Stage-A clean run must archive "
			    "config.yaml: %s", runs[i]);
			free(path);
			goto fail;
		}
		rc = config_record(path, err);
		free(path);
		if (rc == NULL)
			goto fail;
		tc_json_array_push(configs, rc);
	}
	o = tc_json_new_object();
	tc_json_object_set_string(o, "candidate_path", norm);
	tc_json_object_set_int(o, "run_count", (int64_t)nruns);
	tc_json_object_set(o, "run_configs", configs);
	tc_json_object_set_bool(o, "explicitly_empty", true);
	configs = NULL;
fail:
	tc_json_free(configs);
	tc_bench_free_list(runs, nruns);
	free(norm);
	return o;
}

tc_json *
tc_stage_a_configs_check(const char *const *paths, size_t n)
{
	tc_json *out = tc_json_new_object(), *list = tc_json_new_array();
	bool all = true;

	for (size_t i = 0; i < n; i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *rc = config_record(paths[i], &err);

		if (rc == NULL) {
			rc = tc_json_new_object();
			tc_json_object_set_string(rc, "path", paths[i]);
			tc_json_object_set_bool(rc, "explicitly_empty", false);
			tc_json_object_set_string(rc, "error",
			    tc_error_msg(&err));
			all = false;
		}
		tc_error_clear(&err);
		tc_json_array_push(list, rc);
	}
	tc_json_object_set_string(out, "policy", "explicit_empty_option_maps");
	tc_json_object_set(out, "required_empty_fields", field_names());
	tc_json_object_set(out, "configs", list);
	tc_json_object_set_bool(out, "all_explicitly_empty", all);
	return out;
}

tc_json *
tc_stage_a_controls(const tc_name_path *cands, size_t n, tc_error *err)
{
	tc_json *out = tc_json_new_object(), *map = tc_json_new_object();

	for (size_t i = 0; i < n; i++) {
		tc_json *c = candidate_controls(cands[i].value, err);

		if (c == NULL) {
			tc_json_free(map);
			tc_json_free(out);
			return NULL;
		}
		tc_json_object_set(map, cands[i].name, c);
	}
	tc_json_object_set_string(out, "policy", "explicit_empty_option_maps");
	tc_json_object_set(out, "required_empty_fields", field_names());
	tc_json_object_set(out, "candidates", map);
	tc_json_object_set_bool(out, "all_explicitly_empty", true);
	return out;
}
