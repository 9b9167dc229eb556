/*
 * spec.c - the workload spec reader: tune.yaml (version 1) read with
 * libyaml into a tc_tune_spec, every key known, every type checked, every
 * template's names bound, the baseline inside the constraints.  A spec is
 * accepted whole or refused with one message naming the file and the line
 * of the node at fault (libyaml's start marks, 1-based here).
 *
 * Before the document is built, one pass over libyaml's events refuses
 * what a spec never needs and a hostile file could use: aliases (whose
 * expansion can be exponential), more than one document, and more than
 * TC_TUNE_MAX_NODES nodes.  libyaml does not report duplicate keys; the
 * mapping reader below does.
 */
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"
#include "tune_internal.h"

const char *const tc_tune_builtins[] = {
	"spec_dir", "build_dir", "run_dir", "variant", NULL
};

/* Which built-in names a template may use. */
enum {
	B_SPEC_DIR = 1 << 0, B_BUILD_DIR = 1 << 1, B_RUN_DIR = 1 << 2,
	B_VARIANT = 1 << 3, B_ALL = 15
};

struct rd {
	const char *name;
	yaml_document_t *doc;
	tc_error *err;
	tc_tune_spec *spec;
};

/* "NAME:LINE: message"; returns -1. */
static int __attribute__((format(printf, 3, 4)))
bad(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_error_vset(r->err, fmt, ap);
	va_end(ap);
	if (n != NULL)
		tc_error_prefix(r->err, "%s:%zu: ", r->name,
		    n->start_mark.line + 1);
	else
		tc_error_prefix(r->err, "%s: ", r->name);
	return -1;
}

/* A node the document refers to: libyaml's loader only writes ids of
 * nodes it made, so a missing one is a broken library, not bad input. */
static yaml_node_t *
child(struct rd *r, int id)
{
	yaml_node_t *n = yaml_document_get_node(r->doc, id);

	if (n == NULL)
		abort();
	return n;
}

static const char *
scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ?
	    (const char *)n->data.scalar.value : NULL;
}

static bool
plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A plain scalar YAML resolves to null: "", "~", null, Null, NULL. */
static bool
is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s != NULL && plain(n) && (s[0] == '\0' || strcmp(s, "~") == 0 ||
	    strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	    strcmp(s, "NULL") == 0);
}

/* ---- mappings with known keys ----------------------------------------- */

struct field {
	const char *key;
	yaml_node_t *value;	/* set by read_mapping */
	yaml_node_t *key_node;
};

static void
known_keys(tc_buf *b, const struct field *f)
{
	for (; f->key != NULL; f++) {
		if (b->len > 0)
			tc_buf_puts(b, ", ");
		tc_buf_puts(b, f->key);
	}
}

/* Fill fields from mapping n; an unknown or repeated key is refused. */
static int
read_mapping(struct rd *r, yaml_node_t *n, const char *where,
    struct field *fields)
{
	yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE)
		return bad(r, n, "%s must be a mapping", where);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = child(r, p->key);
		const char *key = scalar(k);
		struct field *f;

		if (key == NULL)
			return bad(r, k, "%s: a key must be a string", where);
		for (f = fields; f->key != NULL; f++)
			if (strcmp(f->key, key) == 0)
				break;
		if (f->key == NULL) {
			tc_buf b = TC_BUF_INIT;
			int rc;

			known_keys(&b, fields);
			rc = bad(r, k, "unknown key '%s' in %s (known: %s)",
			    key, where, tc_buf_cstr(&b));
			tc_buf_free(&b);
			return rc;
		}
		if (f->value != NULL)
			return bad(r, k, "duplicate key '%s' in %s (first at "
			    "line %zu)", key, where,
			    f->key_node->start_mark.line + 1);
		f->key_node = k;
		f->value = child(r, p->value);
	}
	return 0;
}

static yaml_node_t *
field(const struct field *fields, const char *key)
{
	for (; fields->key != NULL; fields++)
		if (strcmp(fields->key, key) == 0)
			return fields->value;
	return NULL;
}

/* A mapping whose keys are names the user chooses (parameters): each key
 * a string, none twice.  Calls fn on every pair. */
static int
read_named(struct rd *r, yaml_node_t *n, const char *where,
    int (*fn)(struct rd *, yaml_node_t *, yaml_node_t *, const char *, void *),
    void *ctx)
{
	yaml_node_pair_t *p, *q;

	if (n->type != YAML_MAPPING_NODE)
		return bad(r, n, "%s must be a mapping", where);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = child(r, p->key);
		const char *key = scalar(k);

		if (key == NULL)
			return bad(r, k, "%s: a key must be a string", where);
		for (q = n->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = child(r, q->key);

			if (strcmp(scalar(k2), key) == 0)
				return bad(r, k, "duplicate key '%s' in %s "
				    "(first at line %zu)", key, where,
				    k2->start_mark.line + 1);
		}
		if (fn(r, k, child(r, p->value), key, ctx) != 0)
			return -1;
	}
	return 0;
}

/* ---- scalars ------------------------------------------------------------ */

static int
get_string(struct rd *r, yaml_node_t *n, const char *where, char **out)
{
	const char *s = scalar(n);

	if (s == NULL || is_null(n))
		return bad(r, n, "%s must be a string", where);
	if (s[0] == '\0')
		return bad(r, n, "%s must not be empty", where);
	if (strlen(s) != n->data.scalar.length)
		return bad(r, n, "%s must not contain a NUL character", where);
	free(*out);
	*out = tc_xstrdup(s);
	return 0;
}

/* A plain scalar that is a finite decimal number (YAML int or float). */
static bool
number_of(const yaml_node_t *n, double *out)
{
	const char *s = scalar(n);
	char *end;

	if (s == NULL || !plain(n) || s[0] == '\0' ||
	    strspn(s, "0123456789+-.eE") != strlen(s))
		return false;
	*out = strtod(s, &end);
	return *end == '\0' && isfinite(*out);
}

static int
get_number(struct rd *r, yaml_node_t *n, const char *where, double lo,
    double hi, double *out)
{
	double v;

	if (!number_of(n, &v))
		return bad(r, n, "%s must be a number, got %s%s%s", where,
		    scalar(n) != NULL ? "'" : "a ",
		    scalar(n) != NULL ? scalar(n) :
		    n->type == YAML_MAPPING_NODE ? "mapping" : "sequence",
		    scalar(n) != NULL ? "'" : "");
	if (v < lo || v > hi)
		return bad(r, n, "%s must be between %g and %g, got %s", where,
		    lo, hi, scalar(n));
	*out = v;
	return 0;
}

static int
get_int(struct rd *r, yaml_node_t *n, const char *where, long lo, long hi,
    long *out)
{
	const char *s = scalar(n);
	double v;

	if (s == NULL || !plain(n) || s[strspn(s, "0123456789-+")] != '\0' ||
	    !number_of(n, &v) || v != floor(v))
		return bad(r, n, "%s must be an integer, got %s%s%s", where,
		    s != NULL ? "'" : "a ", s != NULL ? s :
		    n->type == YAML_MAPPING_NODE ? "mapping" : "sequence",
		    s != NULL ? "'" : "");
	if (v < (double)lo || v > (double)hi)
		return bad(r, n, "%s must be between %ld and %ld, got %s",
		    where, lo, hi, s);
	*out = (long)v;
	return 0;
}

/* One of choices (NULL-terminated); *out is its index. */
static int
get_choice(struct rd *r, yaml_node_t *n, const char *where,
    const char *const *choices, int *out)
{
	const char *s = scalar(n);
	tc_buf b = TC_BUF_INIT;
	int i, rc;

	for (i = 0; s != NULL && choices[i] != NULL; i++)
		if (strcmp(s, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	for (i = 0; choices[i] != NULL; i++)
		tc_buf_printf(&b, "%s%s", i > 0 ? ", " : "", choices[i]);
	rc = bad(r, n, "%s must be one of %s, got '%s'", where,
	    tc_buf_cstr(&b), s != NULL ? s : "(not a string)");
	tc_buf_free(&b);
	return rc;
}

/* One of choices, kept as a copy in *dst (the old one freed) when n is
 * given (n NULL: *dst stays). */
static int
set_choice(struct rd *r, yaml_node_t *n, const char *where,
    const char *const *choices, char **dst)
{
	int i;

	if (n == NULL)
		return 0;
	if (get_choice(r, n, where, choices, &i) != 0)
		return -1;
	free(*dst);
	*dst = tc_xstrdup(choices[i]);
	return 0;
}

/* A parameter value: a non-empty scalar, numeric when YAML reads a plain
 * number. */
static int
get_value(struct rd *r, yaml_node_t *n, const char *where, tc_tune_value *out)
{
	const char *s = scalar(n);

	if (s == NULL || is_null(n))
		return bad(r, n, "%s must be a number or a string", where);
	if (strlen(s) != n->data.scalar.length)
		return bad(r, n, "%s must not contain a NUL character", where);
	out->text = tc_xstrdup(s);
	out->is_num = number_of(n, &out->num);
	return 0;
}

/* ---- the sections ------------------------------------------------------- */

/* {command, timeout, estimate_seconds} as the section allows. */
static int
read_command(struct rd *r, yaml_node_t *n, const char *where,
    bool has_estimate, tc_tune_command *c)
{
	struct field f[] = {
		{ "command", NULL, NULL }, { "timeout", NULL, NULL },
		{ has_estimate ? "estimate_seconds" : NULL, NULL, NULL },
		{ NULL, NULL, NULL }
	};
	char *path;
	int rc = 0;

	if (read_mapping(r, n, where, f) != 0)
		return -1;
	if (field(f, "command") == NULL)
		return bad(r, n, "%s has no 'command'", where);
	c->line = (unsigned)field(f, "command")->start_mark.line + 1;
	path = tc_xasprintf("%s.command", where);
	rc = get_string(r, field(f, "command"), path, &c->command);
	free(path);
	if (rc == 0 && field(f, "timeout") != NULL) {
		path = tc_xasprintf("%s.timeout", where);
		rc = get_number(r, field(f, "timeout"), path, 0.001, 86400,
		    &c->timeout_s);
		free(path);
	}
	if (rc == 0 && has_estimate && field(f, "estimate_seconds") != NULL) {
		path = tc_xasprintf("%s.estimate_seconds", where);
		rc = get_number(r, field(f, "estimate_seconds"), path, 0.000001,
		    86400, &c->estimate_s);
		free(path);
	}
	return rc;
}

static int
read_build(struct rd *r, yaml_node_t *n)
{
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "command", NULL, NULL }, { "inputs", NULL, NULL },
		{ "timeout", NULL, NULL }, { "estimate_seconds", NULL, NULL },
		{ NULL, NULL, NULL }
	};
	yaml_node_t *in;
	yaml_node_item_t *it;

	if (read_mapping(r, n, "build", f) != 0)
		return -1;
	/* read_command reads the same keys but inputs: a copy without it */
	if (field(f, "command") == NULL)
		return bad(r, n, "build has no 'command'");
	s->build.line = (unsigned)field(f, "command")->start_mark.line + 1;
	if (get_string(r, field(f, "command"), "build.command",
	    &s->build.command) != 0 ||
	    (field(f, "timeout") != NULL && get_number(r, field(f, "timeout"),
	    "build.timeout", 0.001, 86400, &s->build.timeout_s) != 0) ||
	    (field(f, "estimate_seconds") != NULL && get_number(r,
	    field(f, "estimate_seconds"), "build.estimate_seconds", 0.000001,
	    86400, &s->build.estimate_s) != 0))
		return -1;
	if ((in = field(f, "inputs")) == NULL)
		return 0;
	if (in->type != YAML_SEQUENCE_NODE)
		return bad(r, in, "build.inputs must be a list of files");
	for (it = in->data.sequence.items.start;
	    it < in->data.sequence.items.top; it++) {
		yaml_node_t *item = child(r, *it);
		char *path = NULL;

		if (get_string(r, item, "build.inputs[]", &path) != 0)
			return -1;
		if (!tc_path_is_relative_artifact(path)) {
			bad(r, item, "build.inputs: '%s' must be a path "
			    "relative to the spec's directory, without '..'",
			    path);
			free(path);
			return -1;
		}
		s->build_inputs = tc_xrealloc(s->build_inputs,
		    (s->nbuild_inputs + 1) * sizeof(char *));
		s->build_inputs[s->nbuild_inputs++] = path;
	}
	return 0;
}

static int
read_check(struct rd *r, yaml_node_t *n)
{
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "command", NULL, NULL }, { "expected_output", NULL, NULL },
		{ "timeout", NULL, NULL }, { NULL, NULL, NULL }
	};

	if (read_mapping(r, n, "check", f) != 0)
		return -1;
	if (field(f, "command") == NULL && field(f, "expected_output") == NULL)
		return bad(r, n, "check needs a 'command' or an "
		    "'expected_output'");
	if (field(f, "command") != NULL) {
		s->check.line = (unsigned)field(f, "command")->start_mark.line
		    + 1;
		if (get_string(r, field(f, "command"), "check.command",
		    &s->check.command) != 0)
			return -1;
	}
	if (field(f, "expected_output") != NULL && get_string(r,
	    field(f, "expected_output"), "check.expected_output",
	    &s->check_expected) != 0)
		return -1;
	if (field(f, "timeout") != NULL && get_number(r, field(f, "timeout"),
	    "check.timeout", 0.001, 86400, &s->check.timeout_s) != 0)
		return -1;
	return 0;
}

static int
read_metric(struct rd *r, yaml_node_t *n)
{
	static const char *const froms[] = {
		"stdout", "stderr", "file", "rank-log", NULL
	};
	static const char *const dirs[] = { "lower", "higher", NULL };
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "from", NULL, NULL }, { "regex", NULL, NULL },
		{ "file", NULL, NULL }, { "pointer", NULL, NULL },
		{ "unit", NULL, NULL }, { "direction", NULL, NULL },
		{ NULL, NULL, NULL }
	};
	int from, dir;
	bool text;

	if (read_mapping(r, n, "metric", f) != 0)
		return -1;
	if (field(f, "from") == NULL)
		return bad(r, n, "metric has no 'from' (one of stdout, stderr, "
		    "file, rank-log)");
	if (get_choice(r, field(f, "from"), "metric.from", froms, &from) != 0)
		return -1;
	s->metric.from = (enum tc_tune_metric_from)from;
	text = from == TC_TUNE_FROM_STDOUT || from == TC_TUNE_FROM_STDERR;
	if (text != (field(f, "regex") != NULL))
		return bad(r, text ? n : field(f, "regex"), text ?
		    "metric from %s needs a 'regex'" : "metric.regex is only "
		    "for from: stdout or stderr, not %s", froms[from]);
	if ((from == TC_TUNE_FROM_FILE) != (field(f, "file") != NULL) ||
	    (from == TC_TUNE_FROM_FILE) != (field(f, "pointer") != NULL))
		return bad(r, from == TC_TUNE_FROM_FILE ? n : field(f, "file") !=
		    NULL ? field(f, "file") : field(f, "pointer"),
		    from == TC_TUNE_FROM_FILE ? "metric from file needs a "
		    "'file' and a 'pointer'" : "metric.file and metric.pointer "
		    "are only for from: file");
	if (text) {
		regex_t re;
		int rc;

		if (get_string(r, field(f, "regex"), "metric.regex",
		    &s->metric.regex) != 0)
			return -1;
		if ((rc = regcomp(&re, s->metric.regex, REG_EXTENDED |
		    REG_NEWLINE)) != 0) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			return bad(r, field(f, "regex"), "metric.regex is not a "
			    "POSIX extended regular expression: %s", msg);
		}
		regfree(&re);
	}
	if (from == TC_TUNE_FROM_FILE) {
		if (get_string(r, field(f, "file"), "metric.file",
		    &s->metric.file) != 0)
			return -1;
		if (!tc_path_is_relative_artifact(s->metric.file))
			return bad(r, field(f, "file"), "metric.file '%s' must "
			    "be relative to the run directory, without '..'",
			    s->metric.file);
		if (scalar(field(f, "pointer")) == NULL)
			return bad(r, field(f, "pointer"), "metric.pointer must "
			    "be a JSON pointer");
		s->metric.pointer = tc_xstrdup(scalar(field(f, "pointer")));
		if (s->metric.pointer[0] != '\0' && s->metric.pointer[0] != '/')
			return bad(r, field(f, "pointer"), "metric.pointer '%s' "
			    "must be a JSON pointer: empty or starting with '/'",
			    s->metric.pointer);
	}
	if (field(f, "unit") == NULL)
		return bad(r, n, "metric has no 'unit' (ms, s, GFLOP/s, ...)");
	if (get_string(r, field(f, "unit"), "metric.unit", &s->metric.unit) != 0)
		return -1;
	if (from == TC_TUNE_FROM_RANK_LOG && strcmp(s->metric.unit, "ms") != 0)
		return bad(r, field(f, "unit"), "metric from rank-log is in ms, "
		    "not %s", s->metric.unit);
	if (field(f, "direction") == NULL)
		return bad(r, n, "metric has no 'direction' (lower or higher "
		    "is better)");
	if (get_choice(r, field(f, "direction"), "metric.direction", dirs,
	    &dir) != 0)
		return -1;
	s->metric.higher_is_better = dir == 1;
	if (from == TC_TUNE_FROM_RANK_LOG && dir == 1)
		return bad(r, field(f, "direction"), "metric from rank-log is a "
		    "time in ms, where lower is better: direction higher is for "
		    "a figure read by regex or from a file");
	return 0;
}

/* One parameter a variant or the baseline sets. */
struct bindings {
	tc_tune_binding **items;
	size_t *n;
	const char *where;
};

static int
one_binding(struct rd *r, yaml_node_t *k, yaml_node_t *v, const char *key,
    void *ctx)
{
	struct bindings *b = ctx;
	tc_tune_binding *nb;
	char *where;
	int rc;

	if (!tc_tune_is_name(key, strlen(key)))
		return bad(r, k, "%s: '%s' is not a parameter name (letters, "
		    "digits and '_', not starting with a digit)", b->where, key);
	*b->items = tc_xrealloc(*b->items, (*b->n + 1) * sizeof(**b->items));
	nb = &(*b->items)[*b->n];
	memset(nb, 0, sizeof(*nb));
	nb->name = tc_xstrdup(key);
	(*b->n)++;
	where = tc_xasprintf("%s.%s", b->where, key);
	rc = get_value(r, v, where, &nb->value);
	free(where);
	return rc;
}

static bool
variant_name_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '.' && strlen(s) <= 64 &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") == strlen(s);
}

static int
read_variants(struct rd *r, yaml_node_t *n)
{
	tc_tune_spec *s = r->spec;
	yaml_node_item_t *it;

	if (n->type != YAML_SEQUENCE_NODE)
		return bad(r, n, "variants must be a list");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	    it++) {
		yaml_node_t *item = child(r, *it);
		struct field f[] = {
			{ "name", NULL, NULL }, { "params", NULL, NULL },
			{ NULL, NULL, NULL }
		};
		tc_tune_variant *v;
		struct bindings b;
		size_t i;

		if (read_mapping(r, item, "a variant", f) != 0)
			return -1;
		s->variants = tc_xrealloc(s->variants, (s->nvariants + 1) *
		    sizeof(*s->variants));
		v = &s->variants[s->nvariants++];
		memset(v, 0, sizeof(*v));
		v->line = (unsigned)item->start_mark.line + 1;
		if (field(f, "name") == NULL)
			return bad(r, item, "a variant has no 'name'");
		if (get_string(r, field(f, "name"), "variants[].name",
		    &v->name) != 0)
			return -1;
		if (!variant_name_ok(v->name))
			return bad(r, field(f, "name"), "variant name '%s' must "
			    "be 1-64 letters, digits, '_', '.' or '-' (it names "
			    "a directory)", v->name);
		for (i = 0; i + 1 < s->nvariants; i++)
			if (strcmp(s->variants[i].name, v->name) == 0)
				return bad(r, field(f, "name"), "duplicate "
				    "variant '%s' (first at line %u)", v->name,
				    s->variants[i].line);
		if (field(f, "params") == NULL)
			continue;
		b.items = &v->params;
		b.n = &v->nparams;
		b.where = "variant params";
		if (read_named(r, field(f, "params"), "variant params",
		    one_binding, &b) != 0)
			return -1;
	}
	if (s->nvariants == 0)
		return bad(r, n, "variants must not be empty (leave it out "
		    "when there is nothing to screen)");
	return 0;
}

static int
one_param(struct rd *r, yaml_node_t *k, yaml_node_t *v, const char *key,
    void *ctx)
{
	tc_tune_spec *s = r->spec;
	tc_tune_param *p;
	yaml_node_item_t *it;
	size_t i;

	(void)ctx;
	if (!tc_tune_is_name(key, strlen(key)))
		return bad(r, k, "options.parameters: '%s' is not a parameter "
		    "name (letters, digits and '_', not starting with a digit)",
		    key);
	s->params = tc_xrealloc(s->params, (s->nparams + 1) *
	    sizeof(*s->params));
	p = &s->params[s->nparams++];
	memset(p, 0, sizeof(*p));
	p->name = tc_xstrdup(key);
	p->line = (unsigned)k->start_mark.line + 1;
	if (v->type != YAML_SEQUENCE_NODE ||
	    v->data.sequence.items.start == v->data.sequence.items.top)
		return bad(r, v, "options.parameters.%s must be a non-empty "
		    "list of values", key);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *item = child(r, *it);
		tc_tune_value val;
		char *where = tc_xasprintf("options.parameters.%s[]", key);
		int rc = get_value(r, item, where, &val);

		free(where);
		if (rc != 0)
			return -1;
		for (i = 0; i < p->nvalues; i++)
			if (strcmp(p->values[i].text, val.text) == 0) {
				free(val.text);
				return bad(r, item, "options.parameters.%s "
				    "lists %s twice", key, p->values[i].text);
			}
		p->values = tc_xrealloc(p->values, (p->nvalues + 1) *
		    sizeof(*p->values));
		p->values[p->nvalues++] = val;
	}
	return 0;
}

static const char *const *
param_names(const tc_tune_spec *s)
{
	const char **names = tc_xcalloc(s->nparams + 1, sizeof(char *));
	size_t i;

	for (i = 0; i < s->nparams; i++)
		names[i] = s->params[i].name;
	return names;
}

static int
read_options(struct rd *r, yaml_node_t *n)
{
	static const char *const searches[] = {
		"one-at-a-time", "exhaustive", NULL
	};
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "parameters", NULL, NULL }, { "constraints", NULL, NULL },
		{ "search", NULL, NULL }, { NULL, NULL, NULL }
	};
	yaml_node_t *cn;
	yaml_node_item_t *it;
	const char *const *names;
	int search = 0;

	if (read_mapping(r, n, "options", f) != 0)
		return -1;
	if (field(f, "parameters") == NULL)
		return bad(r, n, "options has no 'parameters'");
	if (read_named(r, field(f, "parameters"), "options.parameters",
	    one_param, NULL) != 0)
		return -1;
	if (s->nparams == 0)
		return bad(r, field(f, "parameters"), "options.parameters must "
		    "not be empty");
	if (field(f, "search") != NULL && get_choice(r, field(f, "search"),
	    "options.search", searches, &search) != 0)
		return -1;
	s->search = (enum tc_tune_search)search;
	if (field(f, "search") != NULL)
		s->search_line = (unsigned)field(f, "search")->start_mark.line +
		    1;
	if ((cn = field(f, "constraints")) == NULL)
		return 0;
	if (cn->type != YAML_SEQUENCE_NODE)
		return bad(r, cn, "options.constraints must be a list of "
		    "conditions");
	names = param_names(s);
	for (it = cn->data.sequence.items.start;
	    it < cn->data.sequence.items.top; it++) {
		yaml_node_t *item = child(r, *it);
		tc_tune_constraint *c;

		s->constraints = tc_xrealloc(s->constraints,
		    (s->nconstraints + 1) * sizeof(*s->constraints));
		c = &s->constraints[s->nconstraints++];
		memset(c, 0, sizeof(*c));
		c->line = (unsigned)item->start_mark.line + 1;
		if (get_string(r, item, "options.constraints[]", &c->text) != 0)
			break;
		if ((c->expr = tc_tune_expr_compile(c->text, names, s->nparams,
		    r->err)) == NULL) {
			tc_error_prefix(r->err, "%s:%u: constraint '%s': ",
			    r->name, c->line, c->text);
			break;
		}
	}
	free((void *)names);
	return it < cn->data.sequence.items.top ? -1 : 0;
}

static int
read_baseline(struct rd *r, yaml_node_t *n)
{
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "variant", NULL, NULL }, { "params", NULL, NULL },
		{ NULL, NULL, NULL }
	};
	struct bindings b;
	tc_tune_binding *given = NULL;
	size_t ngiven = 0, i, j;
	int rc = -1;

	if (read_mapping(r, n, "baseline", f) != 0)
		return -1;
	if (field(f, "variant") != NULL) {
		if (s->nvariants == 0)
			return bad(r, field(f, "variant"), "baseline.variant "
			    "names a variant, but the spec has no variants");
		if (get_string(r, field(f, "variant"), "baseline.variant",
		    &s->baseline_variant) != 0)
			return -1;
		for (i = 0; i < s->nvariants; i++)
			if (strcmp(s->variants[i].name, s->baseline_variant) == 0)
				break;
		if (i == s->nvariants)
			return bad(r, field(f, "variant"), "baseline.variant "
			    "'%s' is not one of the variants",
			    s->baseline_variant);
	}
	if (field(f, "params") == NULL)
		return 0;
	b.items = &given;
	b.n = &ngiven;
	b.where = "baseline.params";
	if (read_named(r, field(f, "params"), "baseline.params", one_binding,
	    &b) != 0)
		goto out;
	for (i = 0; i < ngiven; i++) {
		for (j = 0; j < s->nparams; j++)
			if (strcmp(s->params[j].name, given[i].name) == 0)
				break;
		if (j == s->nparams) {
			bad(r, field(f, "params"), "baseline.params.%s is no "
			    "parameter of options.parameters", given[i].name);
			goto out;
		}
		free(s->baseline[j].value.text);
		s->baseline[j].value = given[i].value;
		given[i].value.text = NULL;
	}
	rc = 0;
out:
	for (i = 0; i < ngiven; i++) {
		free(given[i].name);
		free(given[i].value.text);
	}
	free(given);
	return rc;
}

static int
read_stability(struct rd *r, yaml_node_t *n, tc_tune_gate *g)
{
	static const char *const rules[] = { "spread", "relative", NULL };
	struct field f[] = {
		{ "rule", NULL, NULL }, { "max_spread_pct", NULL, NULL },
		{ "series_attempts", NULL, NULL },
		{ "screen_remeasure_spread_pct", NULL, NULL },
		{ NULL, NULL, NULL }
	};

	if (read_mapping(r, n, "gate.stability", f) != 0)
		return -1;
	if (set_choice(r, field(f, "rule"), "gate.stability.rule", rules,
	    &g->stability_rule) != 0)
		return -1;
	if (field(f, "max_spread_pct") != NULL && get_number(r,
	    field(f, "max_spread_pct"), "gate.stability.max_spread_pct", 0.001,
	    100, &g->max_spread_pct) != 0)
		return -1;
	if (field(f, "series_attempts") != NULL && get_int(r,
	    field(f, "series_attempts"), "gate.stability.series_attempts", 1, 10,
	    &g->series_attempts) != 0)
		return -1;
	if (field(f, "screen_remeasure_spread_pct") != NULL && get_number(r,
	    field(f, "screen_remeasure_spread_pct"),
	    "gate.stability.screen_remeasure_spread_pct", 0.001, 100,
	    &g->screen_remeasure_spread_pct) != 0)
		return -1;
	return 0;
}

static int
read_gate(struct rd *r, yaml_node_t *n)
{
	static const char *const decide[] = { "mean", "ci", NULL };
	static const char *const orders[] = { "interleaved", "sequential",
		NULL };
	tc_tune_gate *g = &r->spec->gate;
	struct field f[] = {
		{ "runs", NULL, NULL }, { "warmup_runs", NULL, NULL },
		{ "warmup_samples", NULL, NULL }, { "stability", NULL, NULL },
		{ "min_improvement_pct", NULL, NULL },
		{ "allow_p90_regression_pct", NULL, NULL },
		{ "allow_stddev_regression_pct", NULL, NULL },
		{ "decide_by", NULL, NULL }, { "order", NULL, NULL },
		{ NULL, NULL, NULL }
	};

	if (read_mapping(r, n, "gate", f) != 0)
		return -1;
	if ((field(f, "runs") != NULL && get_int(r, field(f, "runs"),
	    "gate.runs", 3, 100, &g->runs) != 0) ||
	    (field(f, "warmup_runs") != NULL && get_int(r,
	    field(f, "warmup_runs"), "gate.warmup_runs", 0, 100,
	    &g->warmup_runs) != 0) ||
	    (field(f, "warmup_samples") != NULL && get_int(r,
	    field(f, "warmup_samples"), "gate.warmup_samples", 0, 1000000,
	    &g->warmup_samples) != 0) ||
	    (field(f, "stability") != NULL && read_stability(r,
	    field(f, "stability"), g) != 0) ||
	    (field(f, "min_improvement_pct") != NULL && get_number(r,
	    field(f, "min_improvement_pct"), "gate.min_improvement_pct", 0, 1000,
	    &g->min_improvement_pct) != 0) ||
	    (field(f, "allow_p90_regression_pct") != NULL && get_number(r,
	    field(f, "allow_p90_regression_pct"),
	    "gate.allow_p90_regression_pct", 0, 1000,
	    &g->allow_p90_regression_pct) != 0) ||
	    (field(f, "allow_stddev_regression_pct") != NULL && get_number(r,
	    field(f, "allow_stddev_regression_pct"),
	    "gate.allow_stddev_regression_pct", 0, 1000,
	    &g->allow_stddev_regression_pct) != 0))
		return -1;
	if (set_choice(r, field(f, "decide_by"), "gate.decide_by", decide,
	    &g->decide_by) != 0)
		return -1;
	return set_choice(r, field(f, "order"), "gate.order", orders,
	    &g->order);
}

/* ---- templates ---------------------------------------------------------- */

/* Whether name is bound for variant v (NULL: no variants). */
static bool
bound(const tc_tune_spec *s, const tc_tune_variant *v, const char *name)
{
	size_t i;

	for (i = 0; i < s->nparams; i++)
		if (strcmp(s->params[i].name, name) == 0)
			return true;
	for (i = 0; v != NULL && i < v->nparams; i++)
		if (strcmp(v->params[i].name, name) == 0)
			return true;
	return false;
}

static bool
bound_by_a_variant(const tc_tune_spec *s, const char *name)
{
	size_t v;

	for (v = 0; v < s->nvariants; v++)
		if (bound(s, &s->variants[v], name))
			return true;
	return false;
}

static int
builtin_bit(const char *name)
{
	int i;

	for (i = 0; tc_tune_builtins[i] != NULL; i++)
		if (strcmp(tc_tune_builtins[i], name) == 0)
			return 1 << i;
	return 0;
}

/* Every "{name}" of c's template: a built-in it may use, or a parameter
 * bound in every variant. */
static int
check_template(struct rd *r, const tc_tune_command *c, const char *where,
    int builtins, bool params)
{
	const tc_tune_spec *s = r->spec;
	const char *t = c->command, *p;
	char msg_line[32];

	if (t == NULL)
		return 0;
	snprintf(msg_line, sizeof(msg_line), "%u", c->line);
	for (p = t; *p != '\0'; p++) {
		const char *end;
		char *name;
		size_t v;
		int bit;

		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			p++;
			continue;
		}
		if (*p == '}' || (*p == '{' && ((end = strchr(p, '}')) == NULL ||
		    !tc_tune_is_name(p + 1, (size_t)(end - p - 1))))) {
			tc_error_set(r->err, "%s:%s: %s: '%c' at offset %zu is not "
			    "a {name} (write '%c%c' for a literal brace)", r->name,
			    msg_line, where, *p, (size_t)(p - t), *p, *p);
			return -1;
		}
		if (*p != '{')
			continue;
		end = strchr(p, '}');
		name = tc_xstrndup(p + 1, (size_t)(end - p - 1));
		p = end;
		if ((bit = builtin_bit(name)) != 0) {
			if (!(builtins & bit)) {
				tc_error_set(r->err, "%s:%s: %s names {%s}, which "
				    "is not known when it runs", r->name,
				    msg_line, where, name);
				free(name);
				return -1;
			}
			free(name);
			continue;
		}
		if (!params) {
			tc_error_set(r->err, "%s:%s: %s names {%s}: it runs once "
			    "for every variant, before any, and may name only "
			    "{spec_dir}", r->name, msg_line, where, name);
			free(name);
			return -1;
		}
		for (v = 0; v < (s->nvariants > 0 ? s->nvariants : 1); v++) {
			const tc_tune_variant *var = s->nvariants > 0 ?
			    &s->variants[v] : NULL;

			if (bound(s, var, name))
				continue;
			if (var != NULL && bound_by_a_variant(s, name))
				tc_error_set(r->err, "%s:%s: %s names {%s}, which "
				    "variant '%s' (line %u) does not set",
				    r->name, msg_line, where, name, var->name,
				    var->line);
			else
				tc_error_set(r->err, "%s:%s: %s names {%s}, which "
				    "is no parameter (options.parameters, a "
				    "variant's params) and not built in "
				    "(spec_dir, build_dir, run_dir, variant; "
				    "write '{{' and '}}' for literal braces)",
				    r->name, msg_line, where, name);
			free(name);
			return -1;
		}
		free(name);
	}
	return 0;
}

/* Names are one namespace: a variant's parameter is not also an option
 * parameter or a built-in. */
static int
check_names(struct rd *r)
{
	const tc_tune_spec *s = r->spec;
	size_t v, i, j;

	for (i = 0; i < s->nparams; i++)
		if (builtin_bit(s->params[i].name) != 0) {
			tc_error_set(r->err, "%s:%u: options.parameters.%s is a "
			    "built-in name", r->name, s->params[i].line,
			    s->params[i].name);
			return -1;
		}
	for (v = 0; v < s->nvariants; v++)
		for (i = 0; i < s->variants[v].nparams; i++) {
			const char *name = s->variants[v].params[i].name;
			bool clash = builtin_bit(name) != 0;

			for (j = 0; j < s->nparams && !clash; j++)
				clash = strcmp(s->params[j].name, name) == 0;
			if (clash) {
				tc_error_set(r->err, "%s:%u: variant '%s' sets "
				    "%s, which is %s", r->name,
				    s->variants[v].line, s->variants[v].name,
				    name, builtin_bit(name) != 0 ? "a built-in "
				    "name" : "an option parameter (Stage O tunes "
				    "it; a variant may not fix it)");
				return -1;
			}
		}
	return 0;
}

static int
check_templates(struct rd *r)
{
	tc_tune_spec *s = r->spec;

	return check_names(r) != 0 ||
	    check_template(r, &s->setup, "setup.command", B_SPEC_DIR, false) ||
	    check_template(r, &s->build, "build.command",
	    B_SPEC_DIR | B_BUILD_DIR | B_VARIANT, true) ||
	    check_template(r, &s->run, "run.command", B_ALL, true) ||
	    check_template(r, &s->check, "check.command", B_ALL, true) ||
	    check_template(r, &s->profile, "profile.command", B_ALL, true) ?
	    -1 : 0;
}

/* The baseline inside the constraints. */
static int
check_baseline(struct rd *r)
{
	const tc_tune_spec *s = r->spec;
	tc_tune_value *vals = tc_xcalloc(s->nparams + 1, sizeof(*vals));
	size_t i;
	int rc = 0;

	for (i = 0; i < s->nparams; i++)
		vals[i] = s->baseline[i].value;
	for (i = 0; i < s->nconstraints && rc == 0; i++) {
		bool ok;

		if (tc_tune_expr_eval(s->constraints[i].expr, vals, &ok,
		    r->err) != 0) {
			tc_error_prefix(r->err, "%s:%u: constraint '%s' at the "
			    "baseline: ", r->name, s->constraints[i].line,
			    s->constraints[i].text);
			rc = -1;
		} else if (!ok) {
			tc_error_set(r->err, "%s:%u: the baseline breaks the "
			    "constraint '%s'", r->name, s->constraints[i].line,
			    s->constraints[i].text);
			rc = -1;
		}
	}
	free(vals);
	return rc;
}

/* ---- the document -------------------------------------------------------- */

/* Refuse aliases, more than one document and too many nodes before the
 * document is built. */
static int
prescan(const char *text, size_t len, const char *name, tc_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t nodes = 0, docs = 0;
	int rc = 0;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			tc_error_set(err, "%s:%zu: not valid YAML: %s%s%s", name,
			    parser.problem_mark.line + 1,
			    parser.problem != NULL ? parser.problem : "?",
			    parser.context != NULL ? " " : "",
			    parser.context != NULL ? parser.context : "");
			rc = -1;
			break;
		}
		if (ev.type == YAML_ALIAS_EVENT) {
			tc_error_set(err, "%s:%zu: aliases (*%s) are not allowed "
			    "in a spec", name, ev.start_mark.line + 1,
			    (const char *)ev.data.alias.anchor);
			rc = -1;
		} else if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			tc_error_set(err, "%s:%zu: a spec is one YAML document",
			    name, ev.start_mark.line + 1);
			rc = -1;
		} else if ((ev.type == YAML_SCALAR_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) &&
		    ++nodes > TC_TUNE_MAX_NODES) {
			tc_error_set(err, "%s:%zu: more than %d YAML nodes: too "
			    "large for a spec", name, ev.start_mark.line + 1,
			    TC_TUNE_MAX_NODES);
			rc = -1;
		}
		if (ev.type == YAML_STREAM_END_EVENT || rc != 0) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

static void
set_defaults(tc_tune_spec *s)
{
	s->ranks = 1;
	s->gate.runs = 5;
	s->gate.warmup_runs = 1;
	s->gate.warmup_samples = 0;
	s->gate.stability_rule = tc_xstrdup("spread");
	s->gate.max_spread_pct = 5.0;
	s->gate.series_attempts = 3;
	s->gate.min_improvement_pct = 2.0;
	s->gate.decide_by = tc_xstrdup("mean");
	/* Baseline and candidate runs alternate, so that a neighbour that
	 * starts mid-comparison slows both sides alike. */
	s->gate.order = tc_xstrdup("interleaved");
}

/* Baseline values default to each parameter's first value. */
static void
default_baseline(tc_tune_spec *s)
{
	size_t i;

	s->baseline = tc_xcalloc(s->nparams + 1, sizeof(*s->baseline));
	for (i = 0; i < s->nparams; i++) {
		s->baseline[i].name = tc_xstrdup(s->params[i].name);
		s->baseline[i].value.text =
		    tc_xstrdup(s->params[i].values[0].text);
		s->baseline[i].value.is_num = s->params[i].values[0].is_num;
		s->baseline[i].value.num = s->params[i].values[0].num;
	}
}

/* Timeouts a section leaves out. */
static void
default_timeouts(tc_tune_spec *s)
{
	if (s->setup.timeout_s == 0)
		s->setup.timeout_s = 600;
	if (s->build.timeout_s == 0)
		s->build.timeout_s = 600;
	if (s->check.timeout_s == 0)
		s->check.timeout_s = s->run.timeout_s;
	if (s->profile.timeout_s == 0)
		s->profile.timeout_s = s->run.timeout_s;
}

static int
read_top(struct rd *r, yaml_node_t *root)
{
	tc_tune_spec *s = r->spec;
	struct field f[] = {
		{ "version", NULL, NULL }, { "name", NULL, NULL },
		{ "description", NULL, NULL }, { "setup", NULL, NULL },
		{ "build", NULL, NULL }, { "run", NULL, NULL },
		{ "check", NULL, NULL }, { "metric", NULL, NULL },
		{ "ranks", NULL, NULL }, { "variants", NULL, NULL },
		{ "options", NULL, NULL }, { "baseline", NULL, NULL },
		{ "profile", NULL, NULL }, { "gate", NULL, NULL },
		{ NULL, NULL, NULL }
	};
	long version;

	if (read_mapping(r, root, "the spec", f) != 0)
		return -1;
	if (field(f, "version") == NULL)
		return bad(r, root, "the spec has no 'version' (write "
		    "'version: 1')");
	if (get_int(r, field(f, "version"), "version", 0, 1000000,
	    &version) != 0)
		return -1;
	if (version != TC_TUNE_SPEC_VERSION)
		return bad(r, field(f, "version"), "version %ld is not known "
		    "(this tunectl reads version %d)", version,
		    TC_TUNE_SPEC_VERSION);
	if (field(f, "name") == NULL)
		return bad(r, root, "the spec has no 'name'");
	if (get_string(r, field(f, "name"), "name", &s->name) != 0)
		return -1;
	if (!variant_name_ok(s->name))
		return bad(r, field(f, "name"), "name '%s' must be 1-64 letters, "
		    "digits, '_', '.' or '-'", s->name);
	if (field(f, "run") == NULL)
		return bad(r, root, "the spec has no 'run' (the command that "
		    "runs the program once)");
	if (field(f, "metric") == NULL)
		return bad(r, root, "the spec has no 'metric' (how a run's "
		    "figure is read)");
	if ((field(f, "description") != NULL && get_string(r,
	    field(f, "description"), "description", &s->description) != 0) ||
	    (field(f, "setup") != NULL && read_command(r, field(f, "setup"),
	    "setup", false, &s->setup) != 0) ||
	    (field(f, "build") != NULL && read_build(r, field(f, "build")) != 0) ||
	    read_command(r, field(f, "run"), "run", true, &s->run) != 0 ||
	    (field(f, "check") != NULL && read_check(r, field(f, "check")) != 0) ||
	    read_metric(r, field(f, "metric")) != 0 ||
	    (field(f, "ranks") != NULL && get_int(r, field(f, "ranks"), "ranks",
	    1, 1024, &s->ranks) != 0) ||
	    (field(f, "variants") != NULL && read_variants(r,
	    field(f, "variants")) != 0) ||
	    (field(f, "options") != NULL && read_options(r,
	    field(f, "options")) != 0) ||
	    (field(f, "profile") != NULL && read_command(r, field(f, "profile"),
	    "profile", false, &s->profile) != 0) ||
	    (field(f, "gate") != NULL && read_gate(r, field(f, "gate")) != 0))
		return -1;
	if (s->run.timeout_s == 0)
		return bad(r, field(f, "run"), "run has no 'timeout' (seconds "
		    "one run may take before it is killed)");
	if (s->ranks != 1 && s->metric.from != TC_TUNE_FROM_RANK_LOG)
		return bad(r, field(f, "ranks"), "ranks is %ld, but a metric "
		    "read from %s comes from one process: use from: rank-log",
		    s->ranks, s->metric.from == TC_TUNE_FROM_FILE ? "a file" :
		    s->metric.from == TC_TUNE_FROM_STDOUT ? "stdout" : "stderr");
	default_baseline(s);
	if (field(f, "baseline") != NULL &&
	    read_baseline(r, field(f, "baseline")) != 0)
		return -1;
	if (s->nvariants > 0 && s->baseline_variant == NULL)
		s->baseline_variant = tc_xstrdup(s->variants[0].name);
	default_timeouts(s);
	return check_templates(r) != 0 || check_baseline(r) != 0 ? -1 : 0;
}

int
tc_tune_spec_parse(const char *text, size_t len, const char *name,
    const char *dir, tc_tune_spec **out, tc_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct rd r;
	tc_tune_spec *s;
	int rc;

	*out = NULL;
	if (len > TC_TUNE_MAX_BYTES) {
		tc_error_set(err, "%s: larger than %u bytes: too large for a "
		    "spec", name, TC_TUNE_MAX_BYTES);
		return -1;
	}
	if (prescan(text, len, name, err) != 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		tc_error_set(err, "%s:%zu: not valid YAML: %s", name,
		    parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "?");
		yaml_parser_delete(&parser);
		return -1;
	}
	s = tc_xcalloc(1, sizeof(*s));
	s->path = tc_xstrdup(name);
	s->dir = tc_xstrdup(dir);
	tc_sha256_hex(text, len, s->sha256);
	set_defaults(s);
	r.name = name;
	r.doc = &doc;
	r.err = err;
	r.spec = s;
	if ((root = yaml_document_get_root_node(&doc)) == NULL) {
		tc_error_set(err, "%s: the spec is empty (start with "
		    "'version: 1')", name);
		rc = -1;
	} else {
		rc = read_top(&r, root);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc != 0) {
		tc_tune_spec_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int
tc_tune_spec_load(const char *path, tc_tune_spec **out, tc_error *err)
{
	size_t len;
	char *text, *dir, *abs;
	int rc;

	*out = NULL;
	if ((text = tc_read_file(path, TC_TUNE_MAX_BYTES, &len, err)) == NULL) {
		tc_error_prefix(err, "cannot read the spec: ");
		return -1;
	}
	if ((abs = tc_path_resolve(path, err)) == NULL) {
		free(text);
		return -1;
	}
	dir = tc_path_dirname(abs);
	rc = tc_tune_spec_parse(text, len, path, dir, out, err);
	free(dir);
	free(abs);
	free(text);
	return rc;
}

static void
command_free(tc_tune_command *c)
{
	free(c->command);
}

void
tc_tune_spec_free(tc_tune_spec *s)
{
	size_t i, j;

	if (s == NULL)
		return;
	free(s->path);
	free(s->dir);
	free(s->name);
	free(s->description);
	command_free(&s->setup);
	command_free(&s->build);
	command_free(&s->run);
	command_free(&s->check);
	command_free(&s->profile);
	for (i = 0; i < s->nbuild_inputs; i++)
		free(s->build_inputs[i]);
	free(s->build_inputs);
	free(s->check_expected);
	free(s->metric.regex);
	free(s->metric.file);
	free(s->metric.pointer);
	free(s->metric.unit);
	for (i = 0; i < s->nvariants; i++) {
		for (j = 0; j < s->variants[i].nparams; j++) {
			free(s->variants[i].params[j].name);
			free(s->variants[i].params[j].value.text);
		}
		free(s->variants[i].params);
		free(s->variants[i].name);
	}
	free(s->variants);
	for (i = 0; i < s->nparams; i++) {
		for (j = 0; j < s->params[i].nvalues; j++)
			free(s->params[i].values[j].text);
		free(s->params[i].values);
		free(s->params[i].name);
	}
	free(s->params);
	for (i = 0; i < s->nconstraints; i++) {
		free(s->constraints[i].text);
		tc_tune_expr_free(s->constraints[i].expr);
	}
	free(s->constraints);
	if (s->baseline != NULL)
		for (i = 0; i < s->nparams; i++) {
			free(s->baseline[i].name);
			free(s->baseline[i].value.text);
		}
	free(s->baseline);
	free(s->baseline_variant);
	free(s->gate.stability_rule);
	free(s->gate.decide_by);
	free(s->gate.order);
	free(s);
}
