/*
 * module_yaml.c - the two facts the orchestrator reads from
 * module_interfaces.yaml after a stage3-check PASS (is_fusion and
 * module_count, for plan_stage4), with libyaml.  Scalars are read the way
 * PyYAML resolves them: true/True/TRUE/yes/on are true, decimal integers
 * are integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "stage5_internal.h"

static yaml_node_t *
map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k != NULL && k->type == YAML_SCALAR_NODE &&
		    strlen(key) == k->data.scalar.length &&
		    memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* PyYAML's bool words: lower case, Capitalised or UPPER case only. */
static bool
yaml_word(const char *s, const char *word)
{
	size_t i, n = strlen(word);
	bool cap = true, upper = true;

	if (strlen(s) != n)
		return false;
	if (strcmp(s, word) == 0)
		return true;
	for (i = 0; i < n; i++) {
		char u = (char)(word[i] - 'a' + 'A');

		if (s[i] != u)
			upper = false;
		if (s[i] != (i == 0 ? u : word[i]))
			cap = false;
	}
	return cap || upper;
}

static int
scalar_bool(const yaml_node_t *n, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	const char *s;
	size_t i;

	if (n == NULL || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	s = (const char *)n->data.scalar.value;
	for (i = 0; yes[i] != NULL; i++)
		if (yaml_word(s, yes[i])) {
			*out = true;
			return 0;
		}
	for (i = 0; no[i] != NULL; i++)
		if (yaml_word(s, no[i])) {
			*out = false;
			return 0;
		}
	return -1;
}

static int
scalar_int(const yaml_node_t *n, long *out)
{
	const char *s;
	char *end;
	long v;

	if (n == NULL || n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	s = (const char *)n->data.scalar.value;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
tc_pypto_module_interfaces(const char *op_dir, bool *is_fusion,
    long *module_count, tc_error *err)
{
	char *path = tc_path_join(op_dir, "module_interfaces.yaml");
	size_t len;
	char *text = tc_read_file(path, 1 << 22, &len, err);
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int rc = -1;

	if (text == NULL) {
		tc_error_prefix(err, "module_interfaces.yaml: ");
		free(path);
		return -1;
	}
	free(path);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		tc_error_set(err, "module_interfaces.yaml is not valid YAML: %s "
		    "(line %zu)", parser.problem != NULL ? parser.problem : "?",
		    parser.problem_mark.line + 1);
		yaml_parser_delete(&parser);
		free(text);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || root->type != YAML_MAPPING_NODE) {
		tc_error_set(err, "module_interfaces.yaml must be a mapping");
		goto out;
	}
	if (scalar_bool(map_get(&doc, root, "is_fusion"), is_fusion) != 0) {
		tc_error_set(err, "module_interfaces.yaml: is_fusion must be a "
		    "boolean");
		goto out;
	}
	if (scalar_int(map_get(&doc, root, "module_count"), module_count) != 0 ||
	    *module_count < 1) {
		tc_error_set(err, "module_interfaces.yaml: module_count must be an "
		    "integer >= 1");
		goto out;
	}
	if (*is_fusion && *module_count < 2) {
		tc_error_set(err, "module_interfaces.yaml: is_fusion (cube + "
		    "vector) implies at least 2 modules, module_count is %ld",
		    *module_count);
		goto out;
	}
	rc = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	return rc;
}
