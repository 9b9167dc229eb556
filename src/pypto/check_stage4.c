/*
 * check_stage4.c - the 15 stage4-check items that open every stage5-check
 * (docs/spec/pypto.md "Stage 4 check gates"), rerun on the final code.  The
 * mechanical part of each item is decided here: the Python source is read with
 * Python's own ast module (imports, @pl.jit kernels, the wrapper's kernel
 * calls and their loops, test functions, signatures), the final test is
 * run now, and the delivery unit is imported from an empty directory.
 * The part that is a judgement comes from the verifier's review item of
 * the same number; without it the item is incomplete, never passed.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_internal.h"
#include "compare_internal.h"
#include "pypto_internal.h"
#include "stage5_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/proc.h"
#include "tunectl/pypto_compare.h"

#define IMPORT "import_violation"
#define CHEAT "cheating"

/* Facts of the final test, read with Python's ast (argv: runner,
 * golden_cpu, op).  Prints one JSON object. */
static const char facts_source[] =
"import ast, json, sys\n"
"runner, golden_cpu, op = sys.argv[1], sys.argv[2], sys.argv[3]\n"
"with open(runner, 'rb') as f:\n"
"    src = f.read().decode('utf-8')\n"
"tree = ast.parse(src, runner)\n"
"def dotted(d):\n"
"    if isinstance(d, ast.Call):\n"
"        d = d.func\n"
"    parts = []\n"
"    while isinstance(d, ast.Attribute):\n"
"        parts.append(d.attr)\n"
"        d = d.value\n"
"    if isinstance(d, ast.Name):\n"
"        parts.append(d.id)\n"
"    return '.'.join(reversed(parts))\n"
"pro = frontend_import = nonpro = frontend_jit = False\n"
"for node in ast.walk(tree):\n"
"    if isinstance(node, ast.Import):\n"
"        for a in node.names:\n"
"            if a.name == 'pypto_pro.language' and a.asname == 'pl':\n"
"                pro = True\n"
"            if a.name == 'pypto.frontend' or a.name.startswith('pypto.frontend.'):\n"
"                frontend_import = True\n"
"            if a.name == 'pypto' or a.name.startswith('pypto.'):\n"
"                nonpro = True\n"
"    elif isinstance(node, ast.ImportFrom):\n"
"        mod = node.module or ''\n"
"        if mod == 'pypto.frontend' or mod.startswith('pypto.frontend.'):\n"
"            frontend_import = True\n"
"        if mod == 'pypto' or mod.startswith('pypto.'):\n"
"            nonpro = True\n"
"funcs = {n.name: n for n in tree.body\n"
"         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}\n"
"jit = []\n"
"for node in ast.walk(tree):\n"
"    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):\n"
"        for d in node.decorator_list:\n"
"            n = dotted(d)\n"
"            if n in ('pl.jit', 'pypto_pro.language.jit'):\n"
"                jit.append(node.name)\n"
"            if n.startswith('pypto.frontend') and n.endswith('jit'):\n"
"                frontend_jit = True\n"
"kernel = jit[0] if len(jit) == 1 else None\n"
"LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.comprehension,\n"
"         ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)\n"
"def calls(fn, name):\n"
"    found = [0, False]\n"
"    def visit(node, loop):\n"
"        if isinstance(node, ast.Call) and dotted(node.func) == name:\n"
"            found[0] += 1\n"
"            found[1] = found[1] or loop\n"
"        for ch in ast.iter_child_nodes(node):\n"
"            visit(ch, loop or isinstance(node, LOOPS))\n"
"    for stmt in fn.body:\n"
"        visit(stmt, False)\n"
"    return found\n"
"def defaults_of(fn):\n"
"    a = fn.args\n"
"    pos = a.posonlyargs + a.args\n"
"    out = [p.arg for p in pos[len(pos) - len(a.defaults):]] if a.defaults else []\n"
"    out += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]\n"
"    return out\n"
"w = funcs.get(op + '_wrapper')\n"
"wrapper = None\n"
"if w is not None:\n"
"    c = calls(w, kernel) if kernel else [0, False]\n"
"    wrapper = {'kernel_calls': c[0], 'call_in_loop': c[1],\n"
"               'defaults': defaults_of(w),\n"
"               'params': [p.arg for p in w.args.posonlyargs + w.args.args + w.args.kwonlyargs]}\n"
"tests = []\n"
"direct = []\n"
"for name, fn in funcs.items():\n"
"    if name.startswith('test_'):\n"
"        a = fn.args\n"
"        req = len(a.posonlyargs + a.args) - len(a.defaults)\n"
"        req += sum(1 for d in a.kw_defaults if d is None)\n"
"        tests.append({'name': name, 'required_args': req})\n"
"        if kernel and calls(fn, kernel)[0] > 0:\n"
"            direct.append(name)\n"
"gcpu = None\n"
"gcpu_error = None\n"
"try:\n"
"    with open(golden_cpu, 'rb') as f:\n"
"        gt = ast.parse(f.read().decode('utf-8'), golden_cpu)\n"
"    for n in gt.body:\n"
"        if isinstance(n, ast.FunctionDef) and n.name == op + '_golden_cpu':\n"
"            gcpu = defaults_of(n)\n"
"    if gcpu is None:\n"
"        gcpu_error = 'no def ' + op + '_golden_cpu('\n"
"except Exception as e:\n"
"    gcpu_error = str(e)\n"
"print(json.dumps({'pro_import': pro, 'frontend_import': frontend_import,\n"
"    'frontend_jit': frontend_jit, 'nonpro_pypto_import': nonpro,\n"
"    'jit_kernels': jit, 'wrapper': wrapper, 'tests': tests,\n"
"    'tests_calling_kernel': direct,\n"
"    'assert_precision': '_assert_precision' in funcs,\n"
"    'assert_close': 'assert_close' in src,\n"
"    'atol_override': 'atol_override' in src,\n"
"    'golden_cpu_referenced': (op + '_golden_cpu') in src,\n"
"    'get_device': '_get_device(' in src,\n"
"    'golden_cpu_defaults': gcpu, 'golden_cpu_error': gcpu_error}))\n";

/* Import the delivery unit (test_<op>.py + <op>_golden.py) from an empty
 * directory (argv: dir, module file). */
static const char import_source[] =
"import importlib.util, os, sys\n"
"os.chdir(sys.argv[1])\n"
"sys.path.insert(0, sys.argv[1])\n"
"spec = importlib.util.spec_from_file_location('delivery_unit', sys.argv[2])\n"
"module = importlib.util.module_from_spec(spec)\n"
"sys.modules['delivery_unit'] = module\n"
"spec.loader.exec_module(module)\n"
"print('IMPORTED')\n";

struct s4 {
	const tc_pypto_s4_in *in;
	const char *op;
	char *runner;
	tc_json *facts;
	char *facts_error;
};

static int
run_python(const char *interp, char *const *args, double timeout,
    char **out, char **errt, int *code, tc_error *err)
{
	tc_pypto__capture how;
	char **argv;
	size_t n = 0, i;
	int rc;

	while (args[n] != NULL)
		n++;
	argv = tc_xcalloc(n + 2, sizeof(*argv));
	argv[0] = (char *)interp;
	for (i = 0; i < n; i++)
		argv[i + 1] = args[i];
	memset(&how, 0, sizeof(how));
	how.argv = argv;
	how.timeout_s = timeout > 0 ? timeout : 600;
	how.temp_prefix = "tunectl-s4";
	how.limit = 1 << 24;
	rc = tc_pypto__run_captured(&how, out, errt, code, err);
	if (rc == 0) {
		/* unreadable output reads as none */
		if (*out == NULL)
			*out = tc_xstrdup("");
		if (*errt == NULL)
			*errt = tc_xstrdup("");
	}
	free(argv);
	return rc;
}

static void
read_facts(struct s4 *s)
{
	char *golden_cpu = tc_xasprintf("%s/%s_golden_cpu.py", s->in->op_dir,
	    s->op);
	char *args[] = { (char *)"-c", (char *)facts_source, s->runner,
	    golden_cpu, (char *)s->op, NULL };
	char *out = NULL, *errt = NULL;
	int code = 0;
	tc_error err = TC_ERROR_INIT;

	if (run_python(s->in->interpreter, args, s->in->timeout_s, &out, &errt,
	    &code, &err) != 0) {
		s->facts_error = tc_xstrdup(tc_error_msg(&err));
	} else if (code != 0 || (s->facts = tc_json_parse(out, strlen(out),
	    &err)) == NULL) {
		char *t = tc_pypto_tail(errt, 600);

		s->facts_error = tc_xasprintf("the final test cannot be read as "
		    "Python: %s", t);
		free(t);
	}
	tc_error_clear(&err);
	free(out);
	free(errt);
	free(golden_cpu);
}

static bool
fact(const struct s4 *s, const char *key)
{
	return tc_json_truthy(tc_json_get(s->facts, key));
}

static void
no_facts(const struct s4 *s, tc_pypto_gate *g)
{
	tc_pypto_gate_fail(g, "runtime_failure", "%s", s->facts_error);
}

static void
gate_import(struct s4 *s, tc_pypto_gate *g)
{
	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (!fact(s, "pro_import"))
		tc_pypto_gate_fail(g, IMPORT, "test_%s.py lacks 'import "
		    "pypto_pro.language as pl'", s->op);
	if (fact(s, "frontend_jit") || fact(s, "frontend_import"))
		tc_pypto_gate_fail(g, IMPORT, "test_%s.py uses the pypto frontend "
		    "(@pypto.frontend.jit / import pypto.frontend)", s->op);
	if (!g->failed)
		tc_pypto_gate_note(g, "imports pypto_pro.language as pl, no pypto "
		    "frontend");
}

static void
gate_file(struct s4 *s, tc_pypto_gate *g)
{
	char *want = tc_xasprintf("%s/test_%s.py", s->in->op_dir, s->op);

	if (!tc_is_regular_file_nofollow(want))
		tc_pypto_gate_fail(g, "missing_file", "test_%s.py does not exist",
		    s->op);
	else
		tc_pypto_gate_note(g, "test_%s.py exists", s->op);
	free(want);
}

static void
gate_device(struct s4 *s, tc_pypto_gate *g)
{
	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (!fact(s, "get_device"))
		tc_pypto_gate_fail(g, "other", "the tests do not obtain the device "
		    "from %s_golden._get_device()", s->op);
	else
		tc_pypto_gate_note(g, "the device comes from _get_device()");
	tc_pypto_gate_review(g, s->in->answers, "S4.3");
}

static void
gate_precision_standard(struct s4 *s, tc_pypto_gate *g)
{
	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (fact(s, "assert_close"))
		tc_pypto_gate_fail(g, "precision_failure", "assert_close is used "
		    "(scheme-A mixed tolerance through _assert_precision only)");
	if (!fact(s, "assert_precision"))
		tc_pypto_gate_fail(g, "precision_failure", "no _assert_precision");
	if (fact(s, "atol_override"))
		tc_pypto_gate_fail(g, "precision_failure", "atol_override is used");
	if (!fact(s, "golden_cpu_referenced"))
		tc_pypto_gate_fail(g, "precision_failure", "the tests do not compare "
		    "against %s_golden_cpu (CPU FP32)", s->op);
	if (!g->failed)
		tc_pypto_gate_note(g, "_assert_precision against %s_golden_cpu, no "
		    "assert_close, no atol_override", s->op);
	tc_pypto_gate_review(g, s->in->answers, "S4.4");
}

static void
gate_no_cheating(struct s4 *s, tc_pypto_gate *g)
{
	const tc_json *jit = tc_json_get(s->facts, "jit_kernels");
	const tc_json *w = tc_json_get(s->facts, "wrapper");

	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (!tc_json_is(jit, TC_JSON_ARRAY) || jit->u.arr.len != 1)
		tc_pypto_gate_fail(g, CHEAT, "exactly one @pl.jit kernel is "
		    "required; found %zu", tc_json_is(jit, TC_JSON_ARRAY) ?
		    jit->u.arr.len : (size_t)0);
	if (!tc_json_is(w, TC_JSON_OBJECT))
		tc_pypto_gate_fail(g, CHEAT, "no %s_wrapper to launch the kernel",
		    s->op);
	else if (tc_js_number(tc_json_get(w, "kernel_calls")) != 1)
		tc_pypto_gate_fail(g, CHEAT, "the wrapper calls the kernel %g times "
		    "(exactly once)", tc_js_number(tc_json_get(w, "kernel_calls")));
	else if (tc_json_truthy(tc_json_get(w, "call_in_loop")))
		tc_pypto_gate_fail(g, CHEAT, "the wrapper launches the kernel inside "
		    "a host loop");
	if (fact(s, "nonpro_pypto_import"))
		tc_pypto_gate_fail(g, CHEAT, "a non-Pro 'import pypto' evades the "
		    "import gate");
	if (!g->failed)
		tc_pypto_gate_note(g, "one @pl.jit kernel, launched once by the "
		    "wrapper, not in a loop, no non-Pro pypto import");
	tc_pypto_gate_review(g, s->in->answers, "S4.5");
}

static void
gate_runs(struct s4 *s, tc_pypto_gate *g, bool precision)
{
	const tc_json *r = s->in->final_run;
	const char *problem = tc_json_get_string(r, "problem");
	int64_t code = -1;

	if (r == NULL) {
		tc_pypto_gate_fail(g, "runtime_failure", "the final test could not "
		    "be started");
		return;
	}
	(void)tc_json_int64(tc_json_get(r, "exit_code"), &code);
	if (!precision) {
		if (code != 0)
			tc_pypto_gate_fail(g, problem != NULL && strstr(problem,
			    "precision") != NULL ? "precision_failure" :
			    "runtime_failure", "python test_%s.py exited %lld",
			    s->op, (long long)code);
		else
			tc_pypto_gate_note(g, "python test_%s.py exited 0", s->op);
		return;
	}
	if (code == 0 && problem != NULL)
		tc_pypto_gate_fail(g, "precision_failure", "%s", problem);
	else if (code != 0)
		tc_pypto_gate_fail(g, "precision_failure", "no precision verdict: "
		    "the run exited %lld", (long long)code);
	else
		tc_pypto_gate_note(g, "PASS with matched_ratio= and "
		    "max_abs_error=, no Traceback/Error/Exception");
}

static void
gate_generalization(struct s4 *s, tc_pypto_gate *g)
{
	const tc_json *tests = tc_json_get(s->facts, "tests");
	size_t n = tc_json_is(tests, TC_JSON_ARRAY) ? tests->u.arr.len : 0;

	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (n < 4)
		tc_pypto_gate_fail(g, "incomplete_structure", "%zu def test_ "
		    "functions; at least 4 are required", n);
	else
		tc_pypto_gate_note(g, "%zu test functions", n);
	tc_pypto_gate_review(g, s->in->answers, "S4.10");
}

static void
gate_entry(struct s4 *s, tc_pypto_gate *g)
{
	const tc_json *w = tc_json_get(s->facts, "wrapper");
	const tc_json *direct = tc_json_get(s->facts, "tests_calling_kernel");
	const tc_json *gd = tc_json_get(s->facts, "golden_cpu_defaults");
	size_t i;

	if (s->facts == NULL) {
		no_facts(s, g);
		return;
	}
	if (!tc_json_is(w, TC_JSON_OBJECT)) {
		tc_pypto_gate_fail(g, "signature_mismatch", "def %s_wrapper( does "
		    "not exist", s->op);
		return;
	}
	if (tc_json_is(direct, TC_JSON_ARRAY) && direct->u.arr.len > 0)
		tc_pypto_gate_fail(g, CHEAT, "test %s calls the kernel instead of "
		    "%s_wrapper", tc_json_string(direct->u.arr.items[0]), s->op);
	if (!tc_json_is(gd, TC_JSON_ARRAY)) {
		tc_pypto_gate_missing(g, "optimizer", "restore a readable "
		    "<op>_golden_cpu.py", "the optional-parameter check needs "
		    "cases.yaml or %s_golden_cpu.py: %s", s->op,
		    tc_json_get_string(s->facts, "golden_cpu_error") ?
		    tc_json_get_string(s->facts, "golden_cpu_error") : "unreadable");
	} else {
		for (i = 0; i < gd->u.arr.len; i++)
			if (!tc_pj_array_has_string(tc_json_get(w, "defaults"),
			    tc_json_string(gd->u.arr.items[i])))
				tc_pypto_gate_fail(g, "signature_mismatch", "parameter "
				    "%s has a default in %s_golden_cpu but not in "
				    "%s_wrapper", tc_json_string(gd->u.arr.items[i]),
				    s->op, s->op);
	}
	if (!g->failed)
		tc_pypto_gate_note(g, "%s_wrapper exists; tests call it; optional "
		    "parameters keep the golden's defaults", s->op);
	tc_pypto_gate_review(g, s->in->answers, "S4.12");
}

static int
rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void
gate_delivery(struct s4 *s, tc_pypto_gate *g)
{
	tc_error err = TC_ERROR_INIT;
	char *dir = tc_make_temp_dir("tunectl-delivery", &err);
	char *files[2], *out = NULL, *errt = NULL, *dst;
	int code = 0, k;

	if (dir == NULL) {
		tc_error_clear(&err);
		tc_pypto_gate_fail(g, "delivery_import_unsafe", "cannot make a "
		    "temporary directory");
		return;
	}
	files[0] = tc_xasprintf("test_%s.py", s->op);
	files[1] = tc_xasprintf("%s_golden.py", s->op);
	for (k = 0; k < 2; k++) {
		char *src = tc_path_join(s->in->op_dir, files[k]);
		size_t len;
		char *data = tc_read_file(src, 0, &len, &err);

		dst = tc_path_join(dir, files[k]);
		if (data == NULL || tc_write_atomic(dst, data, len, 0, &err) != 0)
			tc_pypto_gate_fail(g, "delivery_import_unsafe", "%s cannot be "
			    "copied: %s", files[k], tc_error_msg(&err));
		tc_error_clear(&err);
		free(data);
		free(src);
		free(dst);
	}
	if (!g->failed) {
		char *mod = tc_path_join(dir, files[0]);
		char *args[] = { (char *)"-c", (char *)import_source, dir, mod,
		    NULL };

		if (run_python(s->in->interpreter, args, s->in->timeout_s, &out,
		    &errt, &code, &err) != 0 || code != 0 ||
		    strstr(out, "IMPORTED") == NULL) {
			char *t = tc_pypto_tail(errt != NULL ? errt :
			    tc_error_msg(&err), 600);

			tc_pypto_gate_fail(g, "delivery_import_unsafe", "test_%s.py "
			    "with %s_golden.py alone does not import (exit %d): %s",
			    s->op, s->op, code, t);
			free(t);
		} else {
			tc_pypto_gate_note(g, "test_%s.py + %s_golden.py import from "
			    "an empty directory", s->op, s->op);
		}
		free(mod);
	}
	tc_error_clear(&err);
	free(out);
	free(errt);
	free(files[0]);
	free(files[1]);
	nftw(dir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void
gate_knowledge(struct s4 *s, tc_pypto_gate *g)
{
	tc_json *sel = tc_pypto_kb_selection_files(s->in->op_dir);
	size_t i;

	for (i = 0; i < sel->u.arr.len; i++) {
		const char *rel = tc_json_string(sel->u.arr.items[i]);
		char *dir = tc_path_dirname(rel);
		char *urel = strcmp(dir, ".") == 0 ? tc_xstrdup("KB_USAGE.json") :
		    tc_xasprintf("%s/KB_USAGE.json", dir);
		char *p = tc_path_join(s->in->op_dir, urel);
		tc_error err = TC_ERROR_INIT;
		tc_json *u = tc_pj_load_object(p, urel, &err);

		if (u == NULL)
			tc_pypto_gate_fail(g, "kb_usage_invalid", "%s: %s", urel,
			    tc_error_msg(&err));
		else if (!tc_json_is(tc_json_get(u, "invariants"), TC_JSON_ARRAY))
			tc_pypto_gate_fail(g, "kb_usage_invalid", "%s has no "
			    "invariants list", urel);
		else if (tc_json_get(u, "verified") != NULL)
			tc_pypto_gate_fail(g, "kb_usage_invalid", "%s claims "
			    "'verified': only the verifier verifies", urel);
		else
			tc_pypto_gate_note(g, "%s: %zu usage invariant(s)", urel,
			    tc_json_get(u, "invariants")->u.arr.len);
		tc_json_free(u);
		tc_error_clear(&err);
		free(p);
		free(urel);
		free(dir);
	}
	tc_json_free(sel);
	tc_pypto_gate_review(g, s->in->answers, "S4.14");
}

void
tc_pypto_stage4_gates(const tc_pypto_s4_in *in, tc_pypto_gate *g)
{
	struct s4 s;
	tc_error err = TC_ERROR_INIT;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.op = tc_path_basename(in->op_dir);
	s.runner = tc_xasprintf("%s/test_%s.py", in->op_dir, s.op);
	if (tc_is_regular_file_nofollow(s.runner))
		read_facts(&s);
	else
		s.facts_error = tc_xasprintf("test_%s.py does not exist", s.op);
	tc_error_clear(&err);
	gate_import(&s, &g[0]);
	gate_file(&s, &g[1]);
	gate_device(&s, &g[2]);
	gate_precision_standard(&s, &g[3]);
	gate_no_cheating(&s, &g[4]);
	tc_pypto_gate_review(&g[5], in->answers, "S4.6");
	tc_pypto_gate_review(&g[6], in->answers, "S4.7");
	gate_runs(&s, &g[7], false);
	gate_runs(&s, &g[8], true);
	gate_generalization(&s, &g[9]);
	tc_pypto_gate_review(&g[10], in->answers, "S4.11");
	gate_entry(&s, &g[11]);
	gate_delivery(&s, &g[12]);
	gate_knowledge(&s, &g[13]);
	tc_pypto_gate_review(&g[14], in->answers, "S4.15");
	tc_json_free(s.facts);
	free(s.facts_error);
	free(s.runner);
}
