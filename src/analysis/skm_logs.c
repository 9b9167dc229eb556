/*
 * skm_logs.c - reading TorchAir's SuperKernel metadata for "tunectl
 * analyze sk-meta": the three logs under a root (sk_fused_nodes.log,
 * sk_fusion_fail_reasons.log, sk_scope_split.log), each line matched
 * against the grammars of the reference's analyze_sk_meta.py, into the
 * JSON records its summary is built from (fused groups, fusion-failure
 * records, scope breaks), plus the model and file counts.
 *
 * The grammars are regular expressions in the reference; each matcher
 * here says which one it is and finds the same (leftmost, then lazy or
 * greedy as written) match.  Numbers are decimal digit runs; a run too
 * long for int64 saturates instead of growing without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "skm_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/text.h"

static const char *const log_names[SKM_NLOGS] = {
	"sk_fused_nodes.log", "sk_fusion_fail_reasons.log", "sk_scope_split.log"
};

const char *
tc_analysis__skm_log_name(int kind)
{
	return log_names[kind];
}

/* ---- small text helpers ------------------------------------------------ */

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Whether a non-ASCII code point is a word character of Python's \b
 * (str.isalnum() or "_"): letters and digits of every script are; the
 * replacement character, spaces, unprintables and the common punctuation
 * and symbol blocks are not (a close approximation of Unicode's
 * categories, exact for text TorchAir writes). */
static bool
wide_is_word(uint32_t cp)
{
	if (cp == 0xFFFD || tc_py_isspace(cp) || !tc_py_isprintable(cp))
		return false;
	if ((cp >= 0xA1 && cp <= 0xBF && cp != 0xAA && cp != 0xB2 &&
	    cp != 0xB3 && cp != 0xB5 && cp != 0xB9 && cp != 0xBA &&
	    cp != 0xBC && cp != 0xBD && cp != 0xBE) || cp == 0xD7 ||
	    cp == 0xF7)
		return false;
	return !((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 &&
	    cp <= 0x303F) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
	    (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20));
}

/* A word character of Python's \b at byte i (the code point starting
 * there), or, with before, the code point ending just before i. */
static bool
word_at(const char *s, size_t n, size_t i, bool before)
{
	unsigned char c;
	uint32_t cp;

	if (before) {
		if (i == 0)
			return false;
		i--;
		while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80 &&
		    ((unsigned char)s[i - 1] & 0x80) != 0)
			i--;
	}
	if (i >= n)
		return false;
	c = (unsigned char)s[i];
	if (c < 0x80)
		return c == '_' || (c >= '0' && c <= '9') ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	if (tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_WTF8) == 0)
		return false;
	return wide_is_word(cp);
}

static bool
is_word(const char *s, size_t n, size_t i)
{
	return word_at(s, n, i, false);
}

/* The character before byte i is a word character. */
static bool
word_before(const char *s, size_t n, size_t i)
{
	return word_at(s, n, i, true);
}

/* The digits at s[*i..n) as a saturating int64; false when none. */
static bool
take_int(const char *s, size_t n, size_t *i, int64_t *v)
{
	size_t st = *i;
	int64_t x = 0;

	while (*i < n && is_digit(s[*i])) {
		int d = s[*i] - '0';

		x = x > (INT64_MAX - d) / 10 ? INT64_MAX : x * 10 + d;
		(*i)++;
	}
	*v = x;
	return *i > st;
}

static bool
take_lit(const char *s, size_t n, size_t *i, const char *lit)
{
	size_t l = strlen(lit);

	if (l > n - *i || memcmp(s + *i, lit, l) != 0)
		return false;
	*i += l;
	return true;
}

/* The first occurrence of lit in s[from..n), as an index, or n. */
static size_t
index_of(const char *s, size_t n, size_t from, const char *lit)
{
	size_t l = strlen(lit), i;

	for (i = from; l <= n && i + l <= n; i++)
		if (memcmp(s + i, lit, l) == 0)
			return i;
	return n;
}

static char *
dup_span(const char *s, size_t a, size_t b)
{
	return tc_xstrndup(s + a, b - a);
}

static tc_json *
stripped_string(const char *s, size_t a, size_t b)
{
	size_t st, en;

	tc_py_strip(s + a, b - a, &st, &en);
	return tc_json_new_stringn(s + a + st, en - st);
}

/* ---- reason tokens and classification --------------------------------- */

static const char *const reason_tokens[] = {
	"NOT_IN_SCOPE", "IN_UNFUSIBLE_SCOPE", "EXCEED_CORE_MAX",
	"EXCEED_SCOPE_MAX", "OP_UNSUPPORT", "DYNAMIC_TASK_UNSUPPORT",
	"SIMT_OP_UNSUPPORT", "UNFUSIBLE_NODE", "DEADLOCK_DETECTED",
	"SYNCALL_OP_DROP", "DEBUG_PER_OP_MAX_CORE", "RESOURCE_INSUFFICIENT",
	"EXTERNAL_DEPEND", "EXIST_DEADLOCK", "ISOLATED_EVENT",
	"KERNEL_ATTR_GET_FAILED", "NO_TARGET_NODE", "UNRECOVERABLE_FAIL",
	"SUCCESS", NULL
};

/* The word-bounded reason token starting at s[i], or NULL. */
static const char *
token_at(const char *s, size_t n, size_t i)
{
	size_t k;

	if (word_before(s, n, i))
		return NULL;
	for (k = 0; reason_tokens[k] != NULL; k++) {
		size_t l = strlen(reason_tokens[k]);

		if (l <= n - i && memcmp(s + i, reason_tokens[k], l) == 0 &&
		    !is_word(s, n, i + l))
			return reason_tokens[k];
	}
	return NULL;
}

void
tc_analysis__skm_count_tokens(const char *s, size_t n, struct an_map *counts)
{
	size_t i = 0;

	while (i < n) {
		const char *t = token_at(s, n, i);

		if (t == NULL) {
			i++;
			continue;
		}
		(*tc_analysis__map_slot(counts, t, NULL))++;
		i += strlen(t);
	}
}

static bool
contains_nocase(const char *s, size_t n, const char *phrase)
{
	size_t l = strlen(phrase), i, k;

	for (i = 0; l <= n && i + l <= n; i++) {
		for (k = 0; k < l; k++) {
			char a = s[i + k], b = phrase[k];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (k == l)
			return true;
	}
	return false;
}

const char *
tc_analysis__skm_classify(const char *s, size_t n)
{
	static const char *const phrases[][2] = {
		{ "there exists unfusible node in scope", "UNFUSIBLE_NODE" },
		{ "there exists deadlock in scope", "DEADLOCK_DETECTED" },
		{ "core count of syncall", "SYNCALL_OP_DROP" },
		{ "per-op debug mode", "DEBUG_PER_OP_MAX_CORE" },
		{ "does not support the operation of fusing SuperKernel",
		    "OP_UNSUPPORT" },
		{ "refresh task information at runtime",
		    "DYNAMIC_TASK_UNSUPPORT" },
		{ "actively marked that this operator is not fused",
		    "IN_UNFUSIBLE_SCOPE" },
		{ "not within user-marked", "NOT_IN_SCOPE" },
		{ "Insufficient resources", "RESOURCE_INSUFFICIENT" },
		{ "deadlock", "EXIST_DEADLOCK" },
		{ "external dependency", "EXTERNAL_DEPEND" },
		{ "Exceeded maximum scope", "EXCEED_SCOPE_MAX" },
		{ "SIMT", "SIMT_OP_UNSUPPORT" },
	};
	size_t i;

	if (n == 0)
		return "UNKNOWN";
	for (i = 0; i < n; i++) {
		const char *t = token_at(s, n, i);

		if (t != NULL)
			return t;
	}
	for (i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
		if (contains_nocase(s, n, phrases[i][0]))
			return phrases[i][1];
	return "UNKNOWN";
}

/* ---- layer names ------------------------------------------------------ */

/* Pattern A, (?:decoder\.layer|layers?|blocks?)\.?[_-]?(\d+), or with
 * only_b pattern B, layer[_-](\d+), matched at s[i]: the end of the
 * match in *end and the number in *layer. */
static bool
layer_at(const char *s, size_t n, size_t i, bool only_b, size_t *end,
    int64_t *layer)
{
	static const char *const heads[] = { "decoder.layer", "layers", "layer",
	    "blocks", "block", NULL };
	size_t h, dot, dash;

	if (only_b) {
		size_t j = i;

		if (!take_lit(s, n, &j, "layer") || j >= n ||
		    (s[j] != '_' && s[j] != '-'))
			return false;
		j++;
		if (!take_int(s, n, &j, layer))
			return false;
		*end = j;
		return true;
	}
	for (h = 0; heads[h] != NULL; h++) {
		size_t j = i;

		if (!take_lit(s, n, &j, heads[h]))
			continue;
		/* the optional parts, greedy first */
		for (dot = (j < n && s[j] == '.') ? 2 : 1; dot-- > 0;) {
			size_t k = j + dot;

			for (dash = (k < n && (s[k] == '_' || s[k] == '-')) ?
			    2 : 1; dash-- > 0;) {
				size_t m = k + dash;

				if (take_int(s, n, &m, layer)) {
					*end = m;
					return true;
				}
			}
		}
	}
	return false;
}

/* The first match of A, else of B, in s[0..n): its end and number. */
static bool
layer_search(const char *s, size_t n, size_t *end, int64_t *layer)
{
	int pass;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (layer_at(s, n, i, pass == 1, end, layer))
				return true;
	return false;
}

static bool
is_segment_strip(char c)
{
	return c == '.' || c == '_' || c == '-' || c == '/';
}

/* The segment of the text after a layer match: stripped of space and of
 * ._-/ at both ends, then its part before the first of ._/- (stripped);
 * false when that is empty. */
static bool
segment_of(const char *s, size_t n, size_t *a, size_t *b)
{
	size_t st, en, cut;

	tc_py_strip(s, n, &st, &en);
	while (st < en && is_segment_strip(s[st]))
		st++;
	while (en > st && is_segment_strip(s[en - 1]))
		en--;
	tc_py_strip(s + st, en - st, a, b);
	st += *a;
	en = st + (*b - *a);
	for (cut = st; cut < en && !is_segment_strip(s[cut]); cut++)
		;
	tc_py_strip(s + st, cut - st, a, b);
	*a += st;
	*b += st;
	return *b > *a;
}

void
tc_analysis__skm_dimensions(const tc_json *names, tc_json *into)
{
	tc_json *segments = tc_json_new_array();
	bool have_layer = false;
	int64_t layer = 0;
	size_t i;

	for (i = 0; i < names->u.arr.len; i++) {
		const tc_json *v = names->u.arr.items[i];
		const char *s = v->u.str.ptr;
		size_t st, en, end, a, b;
		int64_t l;

		tc_py_strip(s, v->u.str.len, &st, &en);
		if (st == en || !layer_search(s + st, en - st, &end, &l))
			continue;
		if (!have_layer) {
			have_layer = true;
			layer = l;
		}
		if (segment_of(s + st + end, en - st - end, &a, &b)) {
			char *seg = dup_span(s + st + end, a, b);

			tc_analysis__list_add_unique(segments, seg);
			free(seg);
		}
	}
	tc_analysis__sort_strings(segments);
	if (have_layer)
		tc_json_object_set_int(into, "layer", layer);
	else
		tc_json_object_set_null(into, "layer");
	tc_json_object_set(into, "segments", segments);
}

/* ---- node lines --------------------------------------------------------- */

/* A match of nodeId:(\d+),\s*streamId:(\d+).*?KernelInfos\{funcName:
 * ([^,}]+),\s*kernelType:([^,}]+) that starts exactly at s[at]. */
struct node_match {
	int64_t node_id, stream_id;
	size_t func_a, func_b, kind_a, kind_b;
};

static size_t
field_end(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] != ',' && s[i] != '}')
		i++;
	return i;
}

static bool
node_at(const char *s, size_t n, size_t at, struct node_match *m)
{
	static const char infos[] = "KernelInfos{funcName:";
	size_t i = at, k;

	if (!take_lit(s, n, &i, "nodeId:") || !take_int(s, n, &i, &m->node_id) ||
	    !take_lit(s, n, &i, ","))
		return false;
	tc_analysis__skip_space(s, n, &i);
	if (!take_lit(s, n, &i, "streamId:") || !take_int(s, n, &i, &m->stream_id))
		return false;
	for (k = index_of(s, n, i, infos); k < n;
	    k = index_of(s, n, k + 1, infos)) {
		size_t f = k + sizeof(infos) - 1, j;

		m->func_a = f;
		m->func_b = field_end(s, n, f);
		if (m->func_b == f || m->func_b >= n || s[m->func_b] != ',')
			continue;
		j = m->func_b + 1;
		tc_analysis__skip_space(s, n, &j);
		if (!take_lit(s, n, &j, "kernelType:"))
			continue;
		m->kind_a = j;
		m->kind_b = field_end(s, n, j);
		if (m->kind_b > j)
			return true;
	}
	return false;
}

/* \bNAME:(\d+) anywhere in the line, as an int or null. */
static tc_json *
runtime_int(const char *s, size_t n, const char *name)
{
	size_t i, l = strlen(name);
	int64_t v;

	for (i = index_of(s, n, 0, name); i < n; i = index_of(s, n, i + 1, name)) {
		size_t j = i + l;

		if (word_before(s, n, i))
			continue;
		if (take_lit(s, n, &j, ":") && take_int(s, n, &j, &v))
			return tc_json_new_int(v);
	}
	return tc_json_new_null();
}

/* \btaskRatio:\[(\d+),(\d+)\] anywhere in the line, or null. */
static tc_json *
runtime_ratio(const char *s, size_t n)
{
	size_t i;
	int64_t c, v;

	for (i = index_of(s, n, 0, "taskRatio:["); i < n;
	    i = index_of(s, n, i + 1, "taskRatio:[")) {
		size_t j = i + 11;

		if (word_before(s, n, i))
			continue;
		if (take_int(s, n, &j, &c) && take_lit(s, n, &j, ",") &&
		    take_int(s, n, &j, &v) && take_lit(s, n, &j, "]")) {
			tc_json *r = tc_json_new_array();

			tc_json_array_push(r, tc_json_new_int(c));
			tc_json_array_push(r, tc_json_new_int(v));
			return r;
		}
	}
	return tc_json_new_null();
}

/* The node object of a matched line. */
static tc_json *
node_json(const char *s, size_t n, const struct node_match *m)
{
	static const char *const fields[][2] = {
		{ "num_blocks", "numBlocks" }, { "cube_num", "cubeNum" },
		{ "vector_num", "vecNum" }, { "schedule_mode", "isScheModeOn" },
		{ "mix_split", "needMixKernelSplit" },
		{ "resolved_num", "resolvedNum" },
	};
	tc_json *o = tc_json_new_object();
	char *func = dup_span(s, m->func_a, m->func_b);
	char *op = tc_analysis__op_from_function(func);
	size_t i;

	tc_json_object_set_int(o, "node_id", m->node_id);
	tc_json_object_set_int(o, "stream_id", m->stream_id);
	tc_json_object_set(o, "func_name", tc_json_new_stringn(s + m->func_a,
	    m->func_b - m->func_a));
	tc_json_object_set_string_or_null(o, "op_type", op);
	tc_json_object_set(o, "kernel_type", tc_json_new_stringn(s + m->kind_a,
	    m->kind_b - m->kind_a));
	tc_json_object_set_bool(o, "static_kernel_symbol",
	    strncmp(func, "static_kernel_", 14) == 0);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		tc_json_object_set(o, fields[i][0], runtime_int(s, n,
		    fields[i][1]));
	tc_json_object_set(o, "task_ratio", runtime_ratio(s, n));
	free(op);
	free(func);
	return o;
}

/* The fused-node grammar: its leftmost match in the line. */
static bool
match_fused_node(const char *s, size_t n, struct node_match *m)
{
	size_t i;

	for (i = index_of(s, n, 0, "nodeId:"); i < n;
	    i = index_of(s, n, i + 1, "nodeId:"))
		if (node_at(s, n, i, m))
			return true;
	return false;
}

/* The fail grammar, Node \[<node>.*?\}: reason: (.*)$: the reason is
 * s[*reason..n). */
static bool
match_fail(const char *s, size_t n, struct node_match *m, size_t *reason)
{
	static const char tail[] = "}: reason: ";
	size_t i;

	for (i = index_of(s, n, 0, "Node ["); i < n;
	    i = index_of(s, n, i + 1, "Node [")) {
		size_t t;

		if (!node_at(s, n, i + 6, m))
			continue;
		if ((t = index_of(s, n, m->kind_b, tail)) < n) {
			*reason = t + sizeof(tail) - 1;
			return true;
		}
	}
	return false;
}

/* The fused header, SK Function:\s*(.*?),\s*scope id:\s*(\d+),\s*Node
 * Count:\s*(\d+): the name is s[*na..*nb). */
static bool
match_header(const char *s, size_t n, size_t *na, size_t *nb, int64_t *scope,
    int64_t *count)
{
	size_t p, c;

	for (p = index_of(s, n, 0, "SK Function:"); p < n;
	    p = index_of(s, n, p + 1, "SK Function:")) {
		size_t i = p + 12;

		tc_analysis__skip_space(s, n, &i);
		for (c = index_of(s, n, i, ","); c < n;
		    c = index_of(s, n, c + 1, ",")) {
			size_t j = c + 1;

			tc_analysis__skip_space(s, n, &j);
			if (!take_lit(s, n, &j, "scope id:"))
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!take_int(s, n, &j, scope) || !take_lit(s, n, &j, ","))
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!take_lit(s, n, &j, "Node Count:"))
				continue;
			tc_analysis__skip_space(s, n, &j);
			if (!take_int(s, n, &j, count))
				continue;
			*na = i;
			*nb = c;
			return true;
		}
	}
	return false;
}

/* Scope \d+ \(scopeId=(\d+)\): (\d+) nodes, (\d+) streams.*
 * scopeNames=\[([^\]]*)\]: the names are s[*la..*lb). */
static bool
match_scope(const char *s, size_t n, int64_t v[3], size_t *la, size_t *lb)
{
	static const char key[] = "scopeNames=[";
	size_t p;

	for (p = index_of(s, n, 0, "Scope "); p < n;
	    p = index_of(s, n, p + 1, "Scope ")) {
		size_t i = p + 6, k, close;
		int64_t skip;

		if (!take_int(s, n, &i, &skip) || !take_lit(s, n, &i, " (scopeId=") ||
		    !take_int(s, n, &i, &v[0]) || !take_lit(s, n, &i, "): ") ||
		    !take_int(s, n, &i, &v[1]) || !take_lit(s, n, &i, " nodes, ") ||
		    !take_int(s, n, &i, &v[2]) || !take_lit(s, n, &i, " streams"))
			continue;
		/* .* is greedy: the last scopeNames=[ with a ] after it;
		 * close is the nearest ] at or after k */
		for (k = n, close = n; k-- > i;) {
			if (s[k] == ']')
				close = k;
			if (close < n && n - k >= sizeof(key) - 1 &&
			    memcmp(s + k, key, sizeof(key) - 1) == 0) {
				*la = k + sizeof(key) - 1;
				*lb = close;
				return true;
			}
		}
	}
	return false;
}

/* BreakInfo: breakReason=(.*?), triggerNode=(\d+), triggerStream=(\d+),
 * fusionFailReason=(.*?), detail="(.*)": spans in sp[0..3] (break
 * reason, fail reason, detail) and the two numbers. */
static bool
match_break(const char *s, size_t n, size_t sp[6], int64_t *node,
    int64_t *stream)
{
	static const char head[] = "BreakInfo: breakReason=";
	size_t p, c;

	for (p = index_of(s, n, 0, head); p < n; p = index_of(s, n, p + 1, head)) {
		size_t a = p + sizeof(head) - 1;

		for (c = index_of(s, n, a, ", triggerNode="); c < n;
		    c = index_of(s, n, c + 1, ", triggerNode=")) {
			size_t j = c + 14, d, q;

			if (!take_int(s, n, &j, node) ||
			    !take_lit(s, n, &j, ", triggerStream=") ||
			    !take_int(s, n, &j, stream) ||
			    !take_lit(s, n, &j, ", fusionFailReason="))
				continue;
			d = index_of(s, n, j, ", detail=\"");
			if (d == n)
				continue;
			/* (.*)" is greedy: up to the last quote */
			for (q = n; q > d + 10 && s[q - 1] != '"'; q--)
				;
			if (q <= d + 10)
				continue;
			sp[0] = a;
			sp[1] = c;
			sp[2] = j;
			sp[3] = d;
			sp[4] = d + 10;
			sp[5] = q - 1;
			return true;
		}
	}
	return false;
}

/* ---- the three logs ------------------------------------------------------ */

struct file_ctx {
	struct tc_skm_logs *out;
	int kind;
	const char *path;	/* the record path */
	const char *model_id;	/* NULL: null */
	tc_json *group;		/* the open fused group of this file */
};

static void
fused_line(struct file_ctx *c, const char *s, size_t n)
{
	struct node_match m;
	size_t na, nb;
	int64_t scope, count;

	if (match_header(s, n, &na, &nb, &scope, &count)) {
		tc_json *g = tc_json_new_object();
		char *name = dup_span(s, na, nb);
		struct an_boundary b;

		tc_json_object_set(g, "function", tc_json_new_stringn(s + na,
		    nb - na));
		tc_json_object_set_string_or_null(g, "model_id", c->model_id);
		tc_json_object_set_int(g, "scope_id", scope);
		tc_json_object_set_int(g, "node_count", count);
		if (tc_analysis__parse_sk_name(name, &b)) {
			tc_json_object_set(g, "boundary",
			    tc_analysis__boundary_json(&b));
			tc_analysis__boundary_free(&b);
		} else {
			tc_json_object_set_null(g, "boundary");
		}
		tc_json_object_set(g, "nodes", tc_json_new_array());
		tc_json_object_set_string(g, "path", c->path);
		tc_json_array_push(c->out->groups, g);
		c->group = g;
		free(name);
		return;
	}
	if (c->group != NULL && match_fused_node(s, n, &m))
		tc_json_array_push(tc_json_get(c->group, "nodes"),
		    node_json(s, n, &m));
}

static void
fail_line(struct file_ctx *c, const char *s, size_t n)
{
	struct node_match m;
	size_t r, st, en;
	tc_json *o;

	if (!match_fail(s, n, &m, &r))
		return;
	o = node_json(s, n, &m);
	tc_py_strip(s + r, n - r, &st, &en);
	tc_json_object_set_string(o, "reason",
	    tc_analysis__skm_classify(s + r + st, en - st));
	tc_json_object_set(o, "detail", tc_json_new_stringn(s + r + st,
	    en - st));
	tc_json_object_set_string(o, "path", c->path);
	tc_json_array_push(c->out->failures, o);
}

static void
split_line(struct file_ctx *c, const char *s, size_t n)
{
	struct tc_skm_logs *out = c->out;
	int64_t v[3], node, stream;
	size_t la, lb, sp[6], st, en;
	tc_json *o;

	if (match_scope(s, n, v, &la, &lb)) {
		tc_json *names = tc_json_new_array();
		size_t a = la, b;

		for (;;) {
			for (b = a; b < lb && s[b] != ','; b++)
				;
			tc_py_strip(s + a, b - a, &st, &en);
			if (en > st)
				tc_json_array_push(names, tc_json_new_stringn(s + a +
				    st, en - st));
			if (b >= lb)
				break;
			a = b + 1;
		}
		tc_json_free(out->scope);
		out->scope = tc_json_new_object();
		tc_json_object_set_int(out->scope, "scope_id", v[0]);
		tc_json_object_set_int(out->scope, "node_count", v[1]);
		tc_json_object_set_int(out->scope, "stream_count", v[2]);
		tc_json_object_set_string(out->scope, "path", c->path);
		tc_analysis__skm_dimensions(names, out->scope);
		tc_json_object_set(out->scope, "scope_names", names);
		return;
	}
	if (out->scope == NULL || !match_break(s, n, sp, &node, &stream))
		return;
	o = tc_json_clone(out->scope);
	tc_json_object_set_int(o, "trigger_node", node);
	tc_json_object_set_int(o, "trigger_stream", stream);
	tc_json_object_set_string(o, "break_reason",
	    tc_analysis__skm_classify(s + sp[0], sp[1] - sp[0]));
	tc_json_object_set(o, "break_detail", stripped_string(s, sp[0], sp[1]));
	tc_py_strip(s + sp[2], sp[3] - sp[2], &st, &en);
	tc_json_object_set_string(o, "fusion_fail_reason",
	    tc_analysis__skm_classify(s + sp[2] + st, en - st));
	tc_json_object_set(o, "fusion_fail_detail", tc_json_new_stringn(s +
	    sp[2] + st, en - st));
	tc_json_object_set(o, "detail", tc_json_new_stringn(s + sp[4],
	    sp[5] - sp[4]));
	tc_json_array_push(out->raw_breaks, o);
}

static void
on_line(void *vctx, const char *s, size_t n)
{
	struct file_ctx *c = vctx;

	if (c->kind == SKM_FUSED)
		fused_line(c, s, n);
	else if (c->kind == SKM_FAIL)
		fail_line(c, s, n);
	else
		split_line(c, s, n);
}

/* The derived fields of a fused group, once its nodes are read. */
static void
decorate_group(tc_json *g)
{
	const tc_json *b = tc_json_get(g, "boundary");
	const tc_json *nodes = tc_json_get(g, "nodes");
	const char *scope = tc_json_is(b, TC_JSON_OBJECT) ?
	    tc_json_get_string(b, "scope") : NULL;
	tc_json *names = tc_json_new_array();
	size_t i, known = 0, on = 0, parsed = nodes->u.arr.len;
	int64_t declared = tc_analysis__skm_int(g, "node_count");
	bool mismatch = declared < 0 || (uint64_t)declared != parsed;

	if (scope != NULL && scope[0] != '\0')
		tc_json_array_push(names, tc_json_new_string(scope));
	tc_analysis__skm_dimensions(names, g);
	tc_json_free(names);
	for (i = 0; i < parsed; i++) {
		const tc_json *mode = tc_json_get(nodes->u.arr.items[i],
		    "schedule_mode");
		int64_t v;

		if (tc_json_int64(mode, &v)) {
			known++;
			on += v != 0;
		}
	}
	tc_json_object_set_string(g, "control_core_mode", known == 0 ?
	    "unknown" : on > 0 ? "enabled" : "disabled");
	tc_json_object_set_int(g, "parsed_node_count", (int64_t)parsed);
	tc_json_object_set_bool(g, "node_count_mismatch", mismatch);
	tc_json_object_set_int(g, "declared_child_count", declared);
	tc_json_object_set_bool(g, "count_reliable", !mismatch);
	tc_json_object_set_int(g, "trusted_child_count", mismatch ?
	    (int64_t)parsed : declared);
}

/* The key a scope break is deduplicated on. */
static char *
break_key(const tc_json *b)
{
	static const char *const keys[] = { "path", "scope_id", "node_count",
	    "stream_count", "scope_names", "trigger_node", "trigger_stream",
	    "break_reason", "fusion_fail_reason", "detail", NULL };
	tc_json *k = tc_json_new_array();
	char *text;
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		tc_json_array_push(k, tc_json_clone(tc_json_get(b, keys[i])));
	text = tc_json_canonical(k, NULL, NULL);
	tc_json_free(k);
	return text;
}

static void
dedup_breaks(struct tc_skm_logs *out)
{
	struct an_map seen = { NULL, NULL, 0, 0 };
	size_t i;

	for (i = 0; i < out->raw_breaks->u.arr.len; i++) {
		const tc_json *b = out->raw_breaks->u.arr.items[i];
		char *key = break_key(b);
		bool created = false;

		tc_analysis__map_slot(&seen, key, &created);
		if (created)
			tc_json_array_push(out->breaks, tc_json_clone(b));
		free(key);
	}
	tc_analysis__map_free(&seen);
}

/* model_<digits>[_...] of the nearest directory above the resolved log
 * (up to root), as a string; NULL for none. */
static char *
model_id_of(const char *resolved, const char *root)
{
	char *p = tc_xstrdup(resolved), *slash, *id = NULL;

	while ((slash = strrchr(p, '/')) != NULL && slash != p) {
		const char *name;
		size_t i = 6;

		*slash = '\0';
		name = strrchr(p, '/') + 1;
		if (strncmp(name, "model_", 6) == 0 && is_digit(name[i])) {
			while (is_digit(name[i]))
				i++;
			if (name[i] == '\0' || name[i] == '_') {
				id = tc_xstrndup(name + 6, i - 6);
				break;
			}
		}
		if (strcmp(p, root) == 0)
			break;
	}
	free(p);
	return id;
}

/* Count the nearest directory named model_* above path (up to root). */
static void
note_model_dir(const char *path, const char *root, struct an_map *dirs)
{
	char *p = tc_xstrdup(path), *slash;

	while ((slash = strrchr(p, '/')) != NULL && slash != p) {
		*slash = '\0';
		if (strncmp(strrchr(p, '/') + 1, "model_", 6) == 0) {
			tc_analysis__map_slot(dirs, p, NULL);
			break;
		}
		if (strcmp(p, root) == 0)
			break;
	}
	free(p);
}

static int
kind_of(const char *path)
{
	const char *base = strrchr(path, '/');
	int k;

	base = base != NULL ? base + 1 : path;
	for (k = 0; k < SKM_NLOGS; k++)
		if (strcmp(base, log_names[k]) == 0)
			return k;
	return -1;
}

static int
read_log(struct tc_skm_logs *out, const char *path, const char *root,
    int kind, tc_error *err)
{
	tc_error rerr = TC_ERROR_INIT;
	struct file_ctx c = { out, kind, NULL, NULL, NULL };
	char *raw, *text, *resolved, *rel, *model;
	size_t len, tlen;

	if ((raw = tc_read_file(path, 0, &len, &rerr)) == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return -1;
	}
	if ((resolved = tc_path_resolve(path, &rerr)) == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		free(raw);
		return -1;
	}
	text = tc_analysis__utf8_replace(raw, len, &tlen);
	free(raw);
	rel = tc_path_is_within(resolved, root) ?
	    tc_path_relative_to(resolved, root) : NULL;
	c.path = rel != NULL ? rel : tc_path_basename(resolved);
	model = kind == SKM_FUSED ? model_id_of(resolved, root) : NULL;
	c.model_id = model;
	tc_analysis__splitlines(text, tlen, on_line, &c);
	tc_analysis__skm_count_tokens(text, tlen, &out->tokens);
	free(model);
	free(rel);
	free(resolved);
	free(text);
	return 0;
}

int
tc_analysis__skm_load(const char *root, struct tc_skm_logs *out, tc_error *err)
{
	tc_error rerr = TC_ERROR_INIT;
	struct an_paths logs;
	struct an_map dirs = { NULL, NULL, 0, 0 };
	char *root_res;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->groups = tc_json_new_array();
	out->failures = tc_json_new_array();
	out->raw_breaks = tc_json_new_array();
	out->breaks = tc_json_new_array();
	if ((root_res = tc_path_resolve(root, &rerr)) == NULL) {
		tc_error_set(err, "%s", tc_error_msg(&rerr));
		tc_error_clear(&rerr);
		return -1;
	}
	tc_analysis__rglob(root_res, "*.log", &logs, err);
	for (i = 0; i < logs.len && rc == 0; i++) {
		int kind = kind_of(logs.items[i]);

		if (kind < 0)
			continue;
		out->files[kind]++;
		note_model_dir(logs.items[i], root_res, &dirs);
		rc = read_log(out, logs.items[i], root_res, kind, err);
	}
	out->model_count = dirs.len;
	tc_analysis__map_free(&dirs);
	tc_analysis__paths_free(&logs);
	free(root_res);
	if (rc != 0)
		return -1;
	for (i = 0; i < out->groups->u.arr.len; i++)
		decorate_group(out->groups->u.arr.items[i]);
	dedup_breaks(out);
	return 0;
}

void
tc_analysis__skm_free(struct tc_skm_logs *l)
{
	tc_json_free(l->groups);
	tc_json_free(l->failures);
	tc_json_free(l->raw_breaks);
	tc_json_free(l->breaks);
	tc_json_free(l->scope);
	tc_analysis__map_free(&l->tokens);
	memset(l, 0, sizeof(*l));
}
