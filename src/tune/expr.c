/*
 * expr.c - the constraints of a workload spec's option space: a small
 * expression language over the parameters (the kind Kernel Tuner takes as
 * "block_x * unroll <= 256"), compiled once to a tree by recursive
 * descent and evaluated at every point of the option matrix.
 *
 * Values are numbers (doubles) or strings.  Arithmetic and ordering take
 * numbers; == and != compare two numbers or two strings; and / or / not
 * take numbers (non-zero is true), and comparisons give 1 or 0.  A
 * constraint holds when its value is a non-zero number.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tune_internal.h"

enum node_kind { N_NUM, N_STR, N_VAR, N_NEG, N_NOT, N_BIN };

enum op {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_AND, OP_OR
};

struct tc_tune_expr {
	enum node_kind kind;
	enum op op;
	double num;
	char *str;
	size_t var;
	struct tc_tune_expr *a, *b;
};

struct parser {
	const char *s;
	size_t pos;
	const char *const *names;
	size_t nnames;
	unsigned depth;
	tc_error *err;
};

bool
tc_tune_is_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return !((len == 3 && memcmp(s, "and", 3) == 0) ||
	    (len == 2 && memcmp(s, "or", 2) == 0) ||
	    (len == 3 && memcmp(s, "not", 3) == 0));
}

void
tc_tune_expr_free(tc_tune_expr *e)
{
	if (e == NULL)
		return;
	tc_tune_expr_free(e->a);
	tc_tune_expr_free(e->b);
	free(e->str);
	free(e);
}

static tc_tune_expr *
node(enum node_kind kind)
{
	tc_tune_expr *e = tc_xcalloc(1, sizeof(*e));

	e->kind = kind;
	return e;
}

static void
skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

/* Consume word (an operator) when it comes next; a keyword must not run
 * on into a name. */
static bool
accept(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	skip_space(p);
	if (strncmp(p->s + p->pos, word, n) != 0)
		return false;
	if (isalpha((unsigned char)word[0]) &&
	    (isalnum((unsigned char)p->s[p->pos + n]) || p->s[p->pos + n] == '_'))
		return false;
	p->pos += n;
	return true;
}

static tc_tune_expr *parse_or(struct parser *p);

static tc_tune_expr *
fail(struct parser *p, const char *what)
{
	if (p->s[p->pos] == '\0')
		tc_error_set(p->err, "%s at the end", what);
	else
		tc_error_set(p->err, "%s at column %zu", what, p->pos + 1);
	return NULL;
}

static tc_tune_expr *
parse_string(struct parser *p)
{
	char quote = p->s[p->pos];
	size_t start = ++p->pos;
	tc_tune_expr *e;

	while (p->s[p->pos] != '\0' && p->s[p->pos] != quote)
		p->pos++;
	if (p->s[p->pos] == '\0')
		return fail(p, "unterminated string");
	e = node(N_STR);
	e->str = tc_xstrndup(p->s + start, p->pos - start);
	p->pos++;
	return e;
}

static tc_tune_expr *
parse_name(struct parser *p)
{
	size_t start = p->pos, i;

	while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
		p->pos++;
	for (i = 0; i < p->nnames; i++)
		if (strlen(p->names[i]) == p->pos - start &&
		    memcmp(p->names[i], p->s + start, p->pos - start) == 0) {
			tc_tune_expr *e = node(N_VAR);

			e->var = i;
			return e;
		}
	tc_error_set(p->err, "'%.*s' is no parameter of the option space",
	    (int)(p->pos - start), p->s + start);
	return NULL;
}

static tc_tune_expr *
parse_primary(struct parser *p)
{
	char c;

	skip_space(p);
	c = p->s[p->pos];
	if (c == '(') {
		tc_tune_expr *e;

		p->pos++;
		if ((e = parse_or(p)) == NULL)
			return NULL;
		if (!accept(p, ")")) {
			tc_tune_expr_free(e);
			return fail(p, "')' expected");
		}
		return e;
	}
	if (c == '\'' || c == '"')
		return parse_string(p);
	if (isdigit((unsigned char)c) || c == '.') {
		char *end;
		double v = strtod(p->s + p->pos, &end);
		tc_tune_expr *e;

		if (end == p->s + p->pos || !isfinite(v))
			return fail(p, "a number expected");
		p->pos = (size_t)(end - p->s);
		e = node(N_NUM);
		e->num = v;
		return e;
	}
	if (isalpha((unsigned char)c) || c == '_')
		return parse_name(p);
	return fail(p, "a value expected");
}

/* Unary minus, not, and the depth check every level passes through. */
static tc_tune_expr *
parse_unary(struct parser *p)
{
	tc_tune_expr *e, *inner;
	enum node_kind kind;

	if (++p->depth > TC_TUNE_EXPR_MAX_DEPTH)
		return fail(p, "nested too deeply");
	if (accept(p, "-"))
		kind = N_NEG;
	else if (accept(p, "not") || accept(p, "!"))
		kind = N_NOT;
	else {
		e = parse_primary(p);
		p->depth--;
		return e;
	}
	if ((inner = parse_unary(p)) == NULL)
		return NULL;
	p->depth--;
	e = node(kind);
	e->a = inner;
	return e;
}

struct level {
	const char *word;
	enum op op;
};

static const struct level mul_ops[] = {
	{ "*", OP_MUL }, { "/", OP_DIV }, { "%", OP_MOD }, { NULL, 0 }
};
static const struct level add_ops[] = {
	{ "+", OP_ADD }, { "-", OP_SUB }, { NULL, 0 }
};
/* Two-character operators first. */
static const struct level cmp_ops[] = {
	{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
	{ "<", OP_LT }, { ">", OP_GT }, { NULL, 0 }
};
static const struct level and_ops[] = {
	{ "and", OP_AND }, { "&&", OP_AND }, { NULL, 0 }
};
static const struct level or_ops[] = {
	{ "or", OP_OR }, { "||", OP_OR }, { NULL, 0 }
};

/* One left-associative level: operand (op operand)*. */
static tc_tune_expr *
parse_level(struct parser *p, const struct level *ops,
    tc_tune_expr *(*operand)(struct parser *))
{
	tc_tune_expr *e = operand(p);

	while (e != NULL) {
		const struct level *l;
		tc_tune_expr *rhs, *bin;

		for (l = ops; l->word != NULL; l++)
			if (accept(p, l->word))
				break;
		if (l->word == NULL)
			break;
		if ((rhs = operand(p)) == NULL) {
			tc_tune_expr_free(e);
			return NULL;
		}
		bin = node(N_BIN);
		bin->op = l->op;
		bin->a = e;
		bin->b = rhs;
		e = bin;
	}
	return e;
}

static tc_tune_expr *
parse_mul(struct parser *p)
{
	return parse_level(p, mul_ops, parse_unary);
}

static tc_tune_expr *
parse_add(struct parser *p)
{
	return parse_level(p, add_ops, parse_mul);
}

/* Comparisons do not chain: "a < b < c" is refused, not guessed. */
static tc_tune_expr *
parse_cmp(struct parser *p)
{
	tc_tune_expr *e = parse_level(p, cmp_ops, parse_add);

	if (e != NULL && e->kind == N_BIN && e->op >= OP_EQ && e->op <= OP_GE &&
	    e->a->kind == N_BIN && e->a->op >= OP_EQ && e->a->op <= OP_GE) {
		tc_tune_expr_free(e);
		tc_error_set(p->err, "comparisons do not chain (write "
		    "'a < b and b < c')");
		return NULL;
	}
	return e;
}

static tc_tune_expr *
parse_and(struct parser *p)
{
	return parse_level(p, and_ops, parse_cmp);
}

static tc_tune_expr *
parse_or(struct parser *p)
{
	tc_tune_expr *e;

	if (++p->depth > TC_TUNE_EXPR_MAX_DEPTH)
		return fail(p, "nested too deeply");
	e = parse_level(p, or_ops, parse_and);
	p->depth--;
	return e;
}

tc_tune_expr *
tc_tune_expr_compile(const char *text, const char *const *names, size_t n,
    tc_error *err)
{
	struct parser p = { text, 0, names, n, 0, err };
	tc_tune_expr *e;

	if (strlen(text) > TC_TUNE_EXPR_MAX_LEN) {
		tc_error_set(err, "longer than %d characters",
		    TC_TUNE_EXPR_MAX_LEN);
		return NULL;
	}
	if ((e = parse_or(&p)) == NULL)
		return NULL;
	skip_space(&p);
	if (text[p.pos] != '\0') {
		tc_tune_expr_free(e);
		return fail(&p, "unexpected text");
	}
	return e;
}

/* ---- evaluation ------------------------------------------------------- */

struct val {
	bool is_num;
	double num;
	const char *str;
};

static int
eval(const tc_tune_expr *e, const tc_tune_value *vals, struct val *out,
    tc_error *err);

static int
need_num(const struct val *v, const char *what, tc_error *err)
{
	if (v->is_num)
		return 0;
	tc_error_set(err, "%s needs a number, got the string '%s'", what,
	    v->str);
	return -1;
}

static const char *const op_word[] = {
	"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"
};

static int
eval_bin(const tc_tune_expr *e, const struct val *a, const struct val *b,
    struct val *out, tc_error *err)
{
	const char *w = op_word[e->op];

	out->is_num = true;
	if ((e->op == OP_EQ || e->op == OP_NE) && !a->is_num && !b->is_num) {
		out->num = (strcmp(a->str, b->str) == 0) == (e->op == OP_EQ);
		return 0;
	}
	if ((e->op == OP_EQ || e->op == OP_NE) && a->is_num != b->is_num) {
		out->num = e->op == OP_NE;
		return 0;
	}
	if (need_num(a, w, err) != 0 || need_num(b, w, err) != 0)
		return -1;
	switch (e->op) {
	case OP_ADD: out->num = a->num + b->num; break;
	case OP_SUB: out->num = a->num - b->num; break;
	case OP_MUL: out->num = a->num * b->num; break;
	case OP_DIV:
	case OP_MOD:
		if (b->num == 0) {
			tc_error_set(err, "division by zero (%s)", w);
			return -1;
		}
		out->num = e->op == OP_DIV ? a->num / b->num :
		    fmod(a->num, b->num);
		break;
	case OP_EQ: out->num = a->num == b->num; break;
	case OP_NE: out->num = a->num != b->num; break;
	case OP_LT: out->num = a->num < b->num; break;
	case OP_LE: out->num = a->num <= b->num; break;
	case OP_GT: out->num = a->num > b->num; break;
	case OP_GE: out->num = a->num >= b->num; break;
	case OP_AND: out->num = a->num != 0 && b->num != 0; break;
	case OP_OR: out->num = a->num != 0 || b->num != 0; break;
	}
	return 0;
}

static int
eval(const tc_tune_expr *e, const tc_tune_value *vals, struct val *out,
    tc_error *err)
{
	struct val a, b;

	switch (e->kind) {
	case N_NUM:
		out->is_num = true;
		out->num = e->num;
		return 0;
	case N_STR:
		out->is_num = false;
		out->str = e->str;
		return 0;
	case N_VAR:
		out->is_num = vals[e->var].is_num;
		out->num = vals[e->var].num;
		out->str = vals[e->var].text;
		return 0;
	case N_NEG:
	case N_NOT:
		if (eval(e->a, vals, &a, err) != 0 ||
		    need_num(&a, e->kind == N_NEG ? "-" : "not", err) != 0)
			return -1;
		out->is_num = true;
		out->num = e->kind == N_NEG ? -a.num : (double)(a.num == 0);
		return 0;
	case N_BIN:
		if (eval(e->a, vals, &a, err) != 0 ||
		    eval(e->b, vals, &b, err) != 0)
			return -1;
		return eval_bin(e, &a, &b, out, err);
	}
	return -1;
}

int
tc_tune_expr_eval(const tc_tune_expr *e, const tc_tune_value *vals, bool *ok,
    tc_error *err)
{
	struct val v;

	if (eval(e, vals, &v, err) != 0)
		return -1;
	if (!v.is_num) {
		tc_error_set(err, "the constraint is the string '%s', not a "
		    "condition", v.str);
		return -1;
	}
	*ok = v.num != 0;
	return 0;
}
