/*
 * cmd_json.c - "tunectl json canonical|digest|pretty [FILE|-]": read one
 * JSON document the way the reference reads files (CPython's json
 * language and messages) and print its canonical form, the SHA-256 of the
 * canonical form, or the indent=2 form.
 *
 * Hidden testing aids: --lines treats every input line as a document of
 * its own (json.loads of the line) and prints one result per line, or
 * "!" + the error message, so the differential tests feed thousands of
 * documents through one process; --tree takes the tc_json tree path
 * instead of the one-pass tc_json_reformat().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tunectl/json.h"
#include "tunectl/sha256.h"

enum mode { MODE_CANONICAL, MODE_DIGEST, MODE_PRETTY };

/*
 * Append the result for one document to out: the canonical or pretty text,
 * or the digest line.  The one-pass tc_json_reformat() does the work; with
 * tree (a hidden testing aid) the document goes through tc_json_parse*()
 * and tc_json_write() instead, so tests can hold both paths to Python.
 */
static int
render(tc_buf *out, const char *text, size_t len, enum mode mode,
    unsigned flags, bool tree, tc_error *err)
{
	size_t start = out->len;
	char hex[65];
	int rc;

	if (mode == MODE_PRETTY)
		flags |= TC_JSON_INDENT;
	if (tree) {
		tc_json *v = (flags & TC_JSON_TEXT_POSITIONS) ?
		    tc_json_parse_text(text, len, err) :
		    tc_json_parse(text, len, err);

		rc = v != NULL ? tc_json_write(out, v,
		    flags & ~(unsigned)TC_JSON_TEXT_POSITIONS, err) : -1;
		tc_json_free(v);
	} else {
		rc = tc_json_reformat(text, len, flags, out, err);
	}
	if (rc != 0)
		return -1;
	if (mode == MODE_DIGEST) {
		tc_sha256_hex(out->data + start, out->len - start, hex);
		out->len = start;
		tc_buf_add(out, hex, 64);
	}
	if (mode != MODE_CANONICAL)
		tc_buf_putc(out, '\n');
	return 0;
}

static int
write_out(const tc_buf *out)
{
	if (out->len > 0 && fwrite(out->data, 1, out->len, stdout) != out->len)
		return tc_die("write error on standard output");
	if (fflush(stdout) != 0)
		return tc_die("write error on standard output");
	return TC_EXIT_OK;
}

static int
run_lines(const char *text, size_t len, enum mode mode, unsigned flags,
    bool tree)
{
	tc_buf out = TC_BUF_INIT;
	const char *p = text, *end = text + len;
	bool failed = false;
	int rc;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		tc_error err = TC_ERROR_INIT;

		if (render(&out, p, n, mode, flags, tree, &err) != 0) {
			tc_buf_putc(&out, '!');
			tc_buf_puts(&out, tc_error_msg(&err));
			tc_buf_putc(&out, '\n');
			failed = true;
		} else if (mode == MODE_CANONICAL) {
			tc_buf_putc(&out, '\n');
		}
		tc_error_clear(&err);
		p += n + (nl != NULL);
	}
	rc = write_out(&out);
	tc_buf_free(&out);
	return rc != TC_EXIT_OK ? rc : failed ? TC_EXIT_FAIL : TC_EXIT_OK;
}

static int
json_render(const struct tc_command *cmd, enum mode mode, int argc, char **argv)
{
	bool ascii = false, no_nan = false, lines = false, tree = false;
	const struct tc_option opts[] = {
		{ "--ascii", TC_OPT_FLAG, &ascii, false, NULL },
		{ "--no-nan", TC_OPT_FLAG, &no_nan, false, NULL },
		{ "--lines", TC_OPT_FLAG, &lines, false, NULL },
		{ "--tree", TC_OPT_FLAG, &tree, false, NULL },
		{ NULL, TC_OPT_FLAG, NULL, false, NULL }
	};
	struct tc_parse_result res;
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;
	const char *file = "-", *label;
	unsigned flags;
	char *text;
	size_t len;
	int rc;

	rc = tc_opts_parse(cmd, argc, argv, opts, &res);
	if (rc < 0)
		return TC_EXIT_OK;
	if (rc != 0)
		return rc;
	if (res.positional.len > 1) {
		rc = tc_usage_error(cmd, "unrecognized arguments: %s",
		    res.positional.items[1]);
		tc_parse_result_free(&res);
		return rc;
	}
	if (res.positional.len == 1)
		file = res.positional.items[0];
	tc_parse_result_free(&res);
	flags = (ascii ? TC_JSON_ASCII : 0) | (no_nan ? TC_JSON_NO_NAN : 0);

	if (strcmp(file, "-") == 0) {
		label = "<stdin>";
		text = tc_json_read_fd(STDIN_FILENO, &len, &err);
	} else {
		label = file;
		text = tc_json_read_path(file, &len, &err);
	}
	if (text == NULL) {
		/* OS errors name the path already ("[Errno 2] ...: 'x'"). */
		if (strncmp(tc_error_msg(&err), "[Errno ", 7) == 0)
			rc = tc_die("%s", tc_error_msg(&err));
		else
			rc = tc_die("%s: %s", label, tc_error_msg(&err));
		tc_error_clear(&err);
		return rc;
	}
	if (lines) {
		rc = run_lines(text, len, mode, flags, tree);
		free(text);
		return rc;
	}
	if (render(&out, text, len, mode, flags | TC_JSON_TEXT_POSITIONS, tree,
	    &err) != 0)
		rc = tc_die("%s: %s", label, tc_error_msg(&err));
	else
		rc = write_out(&out);
	free(text);
	tc_buf_free(&out);
	tc_error_clear(&err);
	return rc;
}

static int
json_canonical(const struct tc_command *cmd, int argc, char **argv)
{
	return json_render(cmd, MODE_CANONICAL, argc, argv);
}

static int
json_digest(const struct tc_command *cmd, int argc, char **argv)
{
	return json_render(cmd, MODE_DIGEST, argc, argv);
}

static int
json_pretty(const struct tc_command *cmd, int argc, char **argv)
{
	return json_render(cmd, MODE_PRETTY, argc, argv);
}

static const struct tc_command json_canonical_entry = {
	.name = "json canonical",
	.summary = "the canonical form",
	.run = json_canonical,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command json_digest_entry = {
	.name = "json digest",
	.summary = "the SHA-256 of the canonical form",
	.run = json_digest,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command json_pretty_entry = {
	.name = "json pretty",
	.summary = "indent 2",
	.run = json_pretty,
	.flags = TC_CMD_PARENT_USAGE,
};

static const struct tc_command *const json_subs[] = {
	&json_canonical_entry, &json_digest_entry, &json_pretty_entry,
	&cmd_json_get_entry, NULL
};

const struct tc_command cmd_json_entry = {
	.name = "json",
	.summary = "canonical JSON, digests and pretty printing",
	.usage = "usage: tunectl json canonical [--ascii] [--no-nan] [FILE|-]\n"
	    "       tunectl json digest [--ascii] [--no-nan] [FILE|-]\n"
	    "       tunectl json pretty [FILE|-]\n"
	    "       tunectl json get FILE POINTER\n",
	.subs = json_subs,
};
