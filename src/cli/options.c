/*
 * options.c - argparse-style option parsing shared by every command.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunectl/buf.h"

static int
vusage_error(const struct tc_command *cmd, const char *fmt, va_list ap)
{
	const char *prog = tc_cli_ref_prog(cmd);

	tc_cli_print_help(cmd, stderr, false);
	if (prog != NULL)
		fprintf(stderr, "%s: error: ", prog);
	else
		fprintf(stderr, "tunectl %s: error: ", cmd->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return TC_EXIT_USAGE;
}

int
tc_usage_error(const struct tc_command *cmd, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vusage_error(cmd, fmt, ap);
	va_end(ap);
	return rc;
}

static void
strlist_push(struct tc_strlist *l, const char *s)
{
	l->items = tc_xrealloc(l->items, (l->len + 1) * sizeof(*l->items));
	l->items[l->len++] = s;
}

void
tc_strlist_free(struct tc_strlist *l)
{
	free(l->items);
	l->items = NULL;
	l->len = 0;
}

void
tc_parse_result_free(struct tc_parse_result *res)
{
	tc_strlist_free(&res->positional);
}

static const struct tc_option *
find_option(const struct tc_option *opts, const char *name, size_t len)
{
	const struct tc_option *o;

	for (o = opts; o != NULL && o->name != NULL; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/* argparse's choices=: "invalid choice: 'x' (choose from 'a', 'b')". */
static int
store_choice(const struct tc_command *cmd, const struct tc_option *o,
    const char *value)
{
	const struct tc_opt_choice *c = o->dest;
	tc_buf list = TC_BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; c->choices[i] != NULL; i++) {
		if (strcmp(value, c->choices[i]) == 0) {
			*c->value = value;
			return 0;
		}
	}
	for (i = 0; c->choices[i] != NULL; i++)
		tc_buf_printf(&list, "%s'%s'", i > 0 ? ", " : "",
		    c->choices[i]);
	rc = tc_usage_error(cmd, "argument %s: invalid choice: '%s' (choose "
	    "from %s)", o->name, value, tc_buf_cstr(&list));
	tc_buf_free(&list);
	return rc;
}

static int
store_value(const struct tc_command *cmd, const struct tc_option *o,
    const char *value)
{
	char *end;

	switch (o->kind) {
	case TC_OPT_STRING:
		*(const char **)o->dest = value;
		break;
	case TC_OPT_LIST:
		strlist_push(o->dest, value);
		break;
	case TC_OPT_INT: {
		long v;

		errno = 0;
		v = strtol(value, &end, 10);
		if (errno != 0 || end == value || *end != '\0')
			return tc_usage_error(cmd, "argument %s: invalid int "
			    "value: '%s'", o->name, value);
		*(long *)o->dest = v;
		break;
	}
	case TC_OPT_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(value, &end);
		if (errno != 0 || end == value || *end != '\0' || isnan(v))
			return tc_usage_error(cmd, "argument %s: invalid float "
			    "value: '%s'", o->name, value);
		*(double *)o->dest = v;
		break;
	}
	case TC_OPT_PYFLOAT: {
		double v;

		v = strtod(value, &end);
		if (end == value || *end != '\0' || value[0] == ' ' ||
		    strpbrk(value, "xX(") != NULL)
			return tc_usage_error(cmd, "argument %s: invalid float "
			    "value: '%s'", o->name, value);
		*(double *)o->dest = v;
		break;
	}
	case TC_OPT_CHOICE:
		return store_choice(cmd, o, value);
	case TC_OPT_FLAG:
		break;
	}
	return 0;
}

/* argparse collects every argument it cannot place and names them all
 * in one "unrecognized arguments" error, after the required-option check. */
static void
extras_push(tc_buf *extras, const char *arg)
{
	if (extras->len > 0)
		tc_buf_putc(extras, ' ');
	tc_buf_puts(extras, arg);
}

static int
parse_fail(const struct tc_option *opts, struct tc_parse_result *res,
    tc_buf *extras, int rc)
{
	/* a failed parse leaves the caller nothing to release */
	for (; opts != NULL && opts->name != NULL; opts++)
		if (opts->kind == TC_OPT_LIST)
			tc_strlist_free(opts->dest);
	if (res != NULL)
		tc_parse_result_free(res);
	tc_buf_free(extras);
	return rc;
}

static int
opts_parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res,
    const char *one_positional)
{
	const struct tc_option *o;
	bool seen[64] = { false };
	tc_buf extras = TC_BUF_INIT;
	size_t nopts = 0;
	int i, rc;

	if (res != NULL) {
		memset(res, 0, sizeof(*res));
		res->one_positional = one_positional;
	}
	while (opts != NULL && opts[nopts].name != NULL)
		nopts++;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *value;
		size_t namelen;

		if (strcmp(arg, "--") == 0) {
			if (res == NULL) {
				for (; i < argc; i++)
					extras_push(&extras, argv[i]);
				break;
			}
			res->saw_dashdash = true;
			res->dashdash_index = res->positional.len;
			for (i++; i < argc; i++)
				strlist_push(&res->positional, argv[i]);
			break;
		}
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			tc_cli_print_help(cmd, stdout, true);
			return parse_fail(opts, res, &extras, -1);
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			if (res == NULL || (res->one_positional != NULL &&
			    res->positional.len > 0))
				extras_push(&extras, arg);
			else
				strlist_push(&res->positional, arg);
			continue;
		}
		eq = strchr(arg, '=');
		namelen = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
		if ((o = find_option(opts, arg, namelen)) == NULL) {
			extras_push(&extras, arg);
			continue;
		}
		if ((size_t)(o - opts) < sizeof(seen) / sizeof(seen[0]))
			seen[o - opts] = true;
		if (o->seen != NULL)
			*o->seen = true;
		if (o->kind == TC_OPT_FLAG) {
			if (eq != NULL)
				return parse_fail(opts, res, &extras, tc_usage_error(cmd,
				    "argument %s: ignored explicit argument "
				    "'%s'", o->name, eq + 1));
			*(bool *)o->dest = true;
			continue;
		}
		if (eq != NULL) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			return parse_fail(opts, res, &extras, tc_usage_error(cmd,
			    "argument %s: expected one argument", o->name));
		}
		if ((rc = store_value(cmd, o, value)) != 0)
			return parse_fail(opts, res, &extras, rc);
	}
	/* argparse lists every missing required option in one message. */
	{
		tc_buf missing = TC_BUF_INIT;
		size_t k;

		for (k = 0; k < nopts && k < sizeof(seen) / sizeof(seen[0]); k++) {
			if (!opts[k].required || seen[k])
				continue;
			if (missing.len > 0)
				tc_buf_puts(&missing, ", ");
			tc_buf_puts(&missing, opts[k].name);
		}
		if (res != NULL && res->one_positional != NULL &&
		    res->positional.len == 0) {
			if (missing.len > 0)
				tc_buf_puts(&missing, ", ");
			tc_buf_puts(&missing, res->one_positional);
		}
		if (missing.len > 0) {
			rc = tc_usage_error(cmd, "the following arguments are "
			    "required: %s", missing.data);
			tc_buf_free(&missing);
			return parse_fail(opts, res, &extras, rc);
		}
	}
	if (extras.len > 0 && tc_cli_ref_prog(cmd) != NULL &&
	    cmd->ref_top_usage != NULL) {
		fputs(cmd->ref_top_usage, stderr);
		fprintf(stderr, "%.*s: error: unrecognized arguments: %s\n",
		    (int)strcspn(cmd->ref_prog, " "), cmd->ref_prog,
		    extras.data);
		return parse_fail(opts, res, &extras, TC_EXIT_USAGE);
	}
	if (extras.len > 0)
		return parse_fail(opts, res, &extras, tc_usage_error(cmd,
		    "unrecognized arguments: %s", extras.data));
	tc_buf_free(&extras);
	return 0;
}

int
tc_opts_parse(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res)
{
	return opts_parse(cmd, argc, argv, opts, res, NULL);
}

int
tc_opts_parse_one(const struct tc_command *cmd, int argc, char **argv,
    const struct tc_option *opts, struct tc_parse_result *res,
    const char *name)
{
	return opts_parse(cmd, argc, argv, opts, res, name);
}
