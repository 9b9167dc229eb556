/*
 * test_tune_spec.c - the workload spec reader and planner (src/tune/):
 * a spec that is read whole, with its defaults; every refusal of the
 * reader, each naming the file and the line at fault; the constraint
 * language; template expansion; and the counts of a plan (the matrix
 * after the constraints, Stage O's trials, builds, runs, the estimate).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/tune.h"

#define V "version: 1\n"
#define N "name: t\n"
#define RUN "run: {command: 'prog {b}', timeout: 5}\n"
#define MET "metric: {from: stdout, regex: 't=([0-9.]+)', unit: ms, " \
	"direction: lower}\n"
#define OPT "options: {parameters: {b: [1, 2]}}\n"
/* The smallest valid spec, one key a line (lines 1-5). */
#define MIN V N RUN MET OPT

static tc_tune_spec *
parse_ok(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = NULL;

	if (tc_tune_spec_parse(text, strlen(text), "t.yaml", "/nonexistent",
	    &s, &err) != 0)
		fail_msg("refused: %s\n--- spec:\n%s", tc_error_msg(&err), text);
	tc_error_clear(&err);
	return s;
}

static void
minimal_spec_is_read_with_its_defaults(void **state)
{
	tc_tune_spec *s = parse_ok(MIN);

	(void)state;
	assert_string_equal(s->name, "t");
	assert_string_equal(s->run.command, "prog {b}");
	assert_true(s->run.timeout_s == 5);
	assert_int_equal(s->run.line, 3);
	assert_int_equal(s->metric.from, TC_TUNE_FROM_STDOUT);
	assert_false(s->metric.higher_is_better);
	assert_int_equal(s->ranks, 1);
	assert_int_equal(s->gate.runs, 5);
	assert_int_equal(s->gate.warmup_runs, 1);
	assert_string_equal(s->gate.stability_rule, "spread");
	assert_true(s->gate.max_spread_pct == 5.0);
	assert_int_equal(s->gate.series_attempts, 3);
	assert_true(s->gate.min_improvement_pct == 2.0);
	assert_string_equal(s->gate.decide_by, "mean");
	assert_string_equal(s->gate.order, "interleaved");
	assert_null(s->baseline_variant);
	/* the baseline defaults to each parameter's first value */
	assert_string_equal(s->baseline[0].value.text, "1");
	assert_true(s->baseline[0].value.is_num);
	assert_true(s->check.timeout_s == 5);
	assert_int_equal(strlen(s->sha256), 64);
	tc_tune_spec_free(s);
}

static void
values_keep_their_text_and_numbers(void **state)
{
	tc_tune_spec *s = parse_ok(V N RUN MET
	    "options: {parameters: {b: [8, 2.5, '16', fast, 1e3]}}\n");

	(void)state;
	assert_int_equal(s->params[0].nvalues, 5);
	assert_true(s->params[0].values[0].is_num);
	assert_true(s->params[0].values[1].is_num &&
	    s->params[0].values[1].num == 2.5);
	assert_false(s->params[0].values[2].is_num);	/* quoted: a string */
	assert_false(s->params[0].values[3].is_num);
	assert_true(s->params[0].values[4].num == 1000);
	tc_tune_spec_free(s);
}

/* Every refusal: the spec, and what the message must contain (the file
 * and line first). */
struct bad_case {
	const char *what, *text, *want;
};

static const struct bad_case bad_cases[] = {
	{ "invalid YAML", V "name: [t\n", "t.yaml:3: not valid YAML" },
	{ "an alias", V "name: &x t\nn2: *x\n",
	  "t.yaml:3: aliases (*x) are not allowed" },
	{ "two documents", MIN "---\n" MIN,
	  "t.yaml:6: a spec is one YAML document" },
	{ "an empty file", "", "t.yaml: the spec is empty" },
	{ "a list at the top", "- 1\n", "t.yaml:1: the spec must be a mapping" },
	{ "a complex key", "? [a]\n: 1\n", "t.yaml:1: the spec: a key must be "
	  "a string" },
	{ "an unknown key", MIN "timeout: 5\n",
	  "t.yaml:6: unknown key 'timeout' in the spec (known: version, name," },
	{ "an unknown nested key", V N "run: {command: x, timout: 5}\n" MET,
	  "t.yaml:3: unknown key 'timout' in run (known: command, timeout, "
	  "estimate_seconds)" },
	{ "a duplicate key", MIN "name: u\n",
	  "t.yaml:6: duplicate key 'name' in the spec (first at line 2)" },
	{ "a duplicate nested key", V N "run:\n  command: x\n  timeout: 5\n"
	  "  timeout: 6\n" MET, "t.yaml:6: duplicate key 'timeout' in run "
	  "(first at line 5)" },
	{ "no version", N RUN MET, "t.yaml:1: the spec has no 'version'" },
	{ "a version that is text", "version: one\n" N RUN MET,
	  "t.yaml:1: version must be an integer, got 'one'" },
	{ "version 2", "version: 2\n" N RUN MET,
	  "t.yaml:1: version 2 is not known (this tunectl reads version 1)" },
	{ "no name", V RUN MET, "t.yaml:1: the spec has no 'name'" },
	{ "a name with a slash", V "name: a/b\n" RUN MET,
	  "t.yaml:2: name 'a/b' must be 1-64 letters" },
	{ "a name that is a mapping", V "name: {a: 1}\n" RUN MET,
	  "t.yaml:2: name must be a string" },
	{ "a null name", V "name:\n" RUN MET, "t.yaml:2: name must be a string" },
	{ "no run", V N MET, "t.yaml:1: the spec has no 'run'" },
	{ "no metric", V N RUN, "t.yaml:1: the spec has no 'metric'" },
	{ "a description that is a list", MIN "description: [a]\n",
	  "t.yaml:6: description must be a string" },
	{ "run is a string", V N "run: prog\n" MET,
	  "t.yaml:3: run must be a mapping" },
	{ "run without a command", V N "run: {timeout: 5}\n" MET,
	  "t.yaml:3: run has no 'command'" },
	{ "an empty command", V N "run: {command: '', timeout: 5}\n" MET,
	  "t.yaml:3: run.command must not be empty" },
	{ "run without a timeout", V N "run: {command: x}\n" MET,
	  "t.yaml:3: run has no 'timeout'" },
	{ "a negative timeout", V N "run: {command: x, timeout: -1}\n" MET,
	  "t.yaml:3: run.timeout must be between 0.001 and 86400, got -1" },
	{ "a timeout that is text", V N "run: {command: x, timeout: 5s}\n" MET,
	  "t.yaml:3: run.timeout must be a number, got '5s'" },
	{ "a quoted timeout", V N "run: {command: x, timeout: '5'}\n" MET,
	  "t.yaml:3: run.timeout must be a number, got '5'" },
	{ "a timeout that is a list", V N "run: {command: x, timeout: [5]}\n"
	  MET, "t.yaml:3: run.timeout must be a number, got a sequence" },
	{ "an estimate of 0", V N "run: {command: x, timeout: 5, "
	  "estimate_seconds: 0}\n" MET, "t.yaml:3: run.estimate_seconds must "
	  "be between" },
	{ "a setup with an estimate", MIN "setup: {command: x, "
	  "estimate_seconds: 1}\n", "t.yaml:6: unknown key 'estimate_seconds' "
	  "in setup" },
	{ "a build without a command", MIN "build: {inputs: [a.c]}\n",
	  "t.yaml:6: build has no 'command'" },
	{ "build inputs that are a string", MIN "build: {command: cc, inputs: "
	  "a.c}\n", "t.yaml:6: build.inputs must be a list of files" },
	{ "a build input with ..", MIN "build: {command: cc, inputs: "
	  "[../a.c]}\n", "t.yaml:6: build.inputs: '../a.c' must be a path "
	  "relative to the spec's directory" },
	{ "an absolute build input", MIN "build: {command: cc, inputs: "
	  "[/etc/passwd]}\n", "t.yaml:6: build.inputs: '/etc/passwd' must be" },
	{ "a build timeout that is text", MIN "build: {command: cc, timeout: "
	  "x}\n", "t.yaml:6: build.timeout must be a number" },
	{ "an empty check", MIN "check: {timeout: 5}\n",
	  "t.yaml:6: check needs a 'command' or an 'expected_output'" },
	{ "a check command that is null", MIN "check: {command: null}\n",
	  "t.yaml:6: check.command must be a string" },
	{ "a check timeout of 0", MIN "check: {command: x, timeout: 0}\n",
	  "t.yaml:6: check.timeout must be between" },
	{ "an expected output that is a list", MIN "check: {expected_output: "
	  "[ok]}\n", "t.yaml:6: check.expected_output must be a string" },
	{ "a metric without from", V N RUN "metric: {unit: ms}\n",
	  "t.yaml:4: metric has no 'from'" },
	{ "a metric from nowhere", V N RUN "metric: {from: stdin}\n",
	  "t.yaml:4: metric.from must be one of stdout, stderr, file, "
	  "rank-log, got 'stdin'" },
	{ "stdout without a regex", V N RUN "metric: {from: stdout, unit: ms, "
	  "direction: lower}\n", "t.yaml:4: metric from stdout needs a 'regex'" },
	{ "a regex on the rank log", V N RUN "metric: {from: rank-log, regex: "
	  "x}\n", "t.yaml:4: metric.regex is only for from: stdout or stderr, "
	  "not rank-log" },
	{ "a file without a pointer", V N RUN "metric: {from: file, file: "
	  "r.json}\n", "t.yaml:4: metric from file needs a 'file' and a "
	  "'pointer'" },
	{ "a file for stdout", V N RUN "metric: {from: stdout, regex: x, file: "
	  "r.json}\n", "t.yaml:4: metric.file and metric.pointer are only for "
	  "from: file" },
	{ "a bad regex", V N RUN "metric: {from: stderr, regex: 'a(b'}\n",
	  "t.yaml:4: metric.regex is not a POSIX extended regular expression" },
	{ "a metric file outside the run", V N RUN "metric: {from: file, file: "
	  "../r.json, pointer: /t}\n", "t.yaml:4: metric.file '../r.json' must "
	  "be relative to the run directory" },
	{ "a pointer without a slash", V N RUN "metric: {from: file, file: "
	  "r.json, pointer: t}\n", "t.yaml:4: metric.pointer 't' must be a JSON "
	  "pointer" },
	{ "a pointer that is a list", V N RUN "metric: {from: file, file: "
	  "r.json, pointer: [t]}\n", "t.yaml:4: metric.pointer must be a JSON "
	  "pointer" },
	{ "no unit", V N RUN "metric: {from: rank-log}\n",
	  "t.yaml:4: metric has no 'unit'" },
	{ "the rank log in seconds", V N RUN "metric: {from: rank-log, unit: "
	  "s}\n", "t.yaml:4: metric from rank-log is in ms, not s" },
	{ "no direction", V N RUN "metric: {from: rank-log, unit: ms}\n",
	  "t.yaml:4: metric has no 'direction'" },
	{ "a direction of faster", V N RUN "metric: {from: rank-log, unit: ms, "
	  "direction: faster}\n", "t.yaml:4: metric.direction must be one of "
	  "lower, higher, got 'faster'" },
	{ "ranks of 0", MIN "ranks: 0\n",
	  "t.yaml:6: ranks must be between 1 and 1024, got 0" },
	{ "ranks of 2.5", MIN "ranks: 2.5\n",
	  "t.yaml:6: ranks must be an integer, got '2.5'" },
	{ "ranks 2 from stdout", MIN "ranks: 2\n",
	  "t.yaml:6: ranks is 2, but a metric read from stdout comes from one "
	  "process" },
	{ "variants that are a mapping", MIN "variants: {a: 1}\n",
	  "t.yaml:6: variants must be a list" },
	{ "no variants", MIN "variants: []\n",
	  "t.yaml:6: variants must not be empty" },
	{ "a variant that is a string", MIN "variants: [O2]\n",
	  "t.yaml:6: a variant must be a mapping" },
	{ "a variant without a name", MIN "variants:\n  - params: {f: 1}\n",
	  "t.yaml:7: a variant has no 'name'" },
	{ "a variant named with a space", MIN "variants:\n  - name: a b\n",
	  "t.yaml:7: variant name 'a b' must be 1-64 letters" },
	{ "a variant named ..", MIN "variants:\n  - name: ..\n",
	  "t.yaml:7: variant name '..' must be" },
	{ "two variants of one name", MIN "variants:\n  - name: a\n"
	  "  - name: a\n", "t.yaml:8: duplicate variant 'a' (first at line 7)" },
	{ "variant params that are a list", MIN "variants:\n  - {name: a, "
	  "params: [1]}\n", "t.yaml:7: variant params must be a mapping" },
	{ "a variant parameter named 1x", MIN "variants:\n  - {name: a, "
	  "params: {1x: 1}}\n", "t.yaml:7: variant params: '1x' is not a "
	  "parameter name" },
	{ "a variant parameter twice", MIN "variants:\n  - name: a\n"
	  "    params:\n      f: 1\n      f: 2\n", "t.yaml:10: duplicate key "
	  "'f' in variant params (first at line 9)" },
	{ "a variant parameter without a value", MIN "variants:\n  - {name: a, "
	  "params: {f: }}\n", "t.yaml:7: variant params.f must be a number or "
	  "a string" },
	{ "a variant fixing an option", MIN "variants:\n  - {name: a, params: "
	  "{b: 1}}\n", "t.yaml:7: variant 'a' sets b, which is an option "
	  "parameter" },
	{ "a variant setting a built-in", MIN "variants:\n  - {name: a, "
	  "params: {run_dir: x}}\n", "t.yaml:7: variant 'a' sets run_dir, which "
	  "is a built-in name" },
	{ "options that are a list", V N RUN MET "options: [b]\n",
	  "t.yaml:5: options must be a mapping" },
	{ "options without parameters", V N RUN MET "options: {search: "
	  "exhaustive}\n", "t.yaml:5: options has no 'parameters'" },
	{ "no parameters", V N RUN MET "options: {parameters: {}}\n",
	  "t.yaml:5: options.parameters must not be empty" },
	{ "a parameter named and", V N RUN MET "options: {parameters: {and: "
	  "[1]}}\n", "t.yaml:5: options.parameters: 'and' is not a parameter "
	  "name" },
	{ "a parameter with one value not in a list", V N RUN MET "options: "
	  "{parameters: {b: 1}}\n", "t.yaml:5: options.parameters.b must be a "
	  "non-empty list of values" },
	{ "a parameter without values", V N RUN MET "options: {parameters: "
	  "{b: []}}\n", "t.yaml:5: options.parameters.b must be a non-empty "
	  "list" },
	{ "a value listed twice", V N RUN MET "options: {parameters: {b: [1, "
	  "2, 1]}}\n", "t.yaml:5: options.parameters.b lists 1 twice" },
	{ "a value that is a mapping", V N RUN MET "options: {parameters: {b: "
	  "[{x: 1}]}}\n", "t.yaml:5: options.parameters.b[] must be a number "
	  "or a string" },
	{ "a parameter twice", V N RUN MET "options:\n  parameters:\n"
	  "    b: [1]\n    b: [2]\n", "t.yaml:8: duplicate key 'b' in "
	  "options.parameters (first at line 7)" },
	{ "a parameter named like a built-in", V N
	  "run: {command: x, timeout: 5}\n" MET "options: {parameters: "
	  "{variant: [a]}}\n", "t.yaml:5: options.parameters.variant is a "
	  "built-in name" },
	{ "a search of random", V N RUN MET "options: {parameters: {b: [1]}, "
	  "search: random}\n", "t.yaml:5: options.search must be one of "
	  "one-at-a-time, exhaustive, got 'random'" },
	{ "constraints that are a string", V N RUN MET "options: {parameters: "
	  "{b: [1]}, constraints: 'b > 0'}\n", "t.yaml:5: options.constraints "
	  "must be a list" },
	{ "a constraint naming no parameter", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints:\n    - c > 0\n",
	  "t.yaml:8: constraint 'c > 0': 'c' is no parameter of the option "
	  "space" },
	{ "a constraint that does not parse", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['b >']\n",
	  "t.yaml:7: constraint 'b >': a value expected at the end" },
	{ "a constraint with trailing text", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['b > 1 1']\n",
	  "t.yaml:7: constraint 'b > 1 1': unexpected text at column 7" },
	{ "a single = in a constraint", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['b = 1']\n",
	  "unexpected text at column 3" },
	{ "a chained comparison", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['0 < b < 4']\n",
	  "t.yaml:7: constraint '0 < b < 4': comparisons do not chain" },
	{ "an unclosed parenthesis", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['(b > 0']\n",
	  "')' expected at the end" },
	{ "an unterminated string", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: [\"b == 'x\"]\n",
	  "unterminated string" },
	{ "a constraint nested too deeply", V N RUN MET "options:\n"
	  "  parameters: {b: [1]}\n  constraints: ['((((((((((((((((((((((((("
	  "((((((((((b)))))))))))))))))))))))))))))))))))'] \n",
	  "nested too deeply" },
	{ "a baseline variant without variants", MIN "baseline: {variant: "
	  "O2}\n", "t.yaml:6: baseline.variant names a variant, but the spec "
	  "has no variants" },
	{ "a baseline variant that is not one", MIN "variants: [{name: O2}]\n"
	  "baseline: {variant: O3}\n", "t.yaml:7: baseline.variant 'O3' is not "
	  "one of the variants" },
	{ "a baseline parameter that is not one", MIN "baseline: {params: "
	  "{c: 1}}\n", "t.yaml:6: baseline.params.c is no parameter of "
	  "options.parameters" },
	{ "baseline params that are a list", MIN "baseline: {params: [1]}\n",
	  "t.yaml:6: baseline.params must be a mapping" },
	{ "a baseline outside the constraints", V N RUN MET "options:\n"
	  "  parameters: {b: [1, 2]}\n  constraints: ['b > 1']\n",
	  "t.yaml:7: the baseline breaks the constraint 'b > 1'" },
	{ "a constraint adding a string", V N RUN MET "options:\n"
	  "  parameters: {b: [x]}\n  constraints: ['b + 1 > 0']\n",
	  "t.yaml:7: constraint 'b + 1 > 0' at the baseline: + needs a number, "
	  "got the string 'x'" },
	{ "a constraint dividing by zero", V N RUN MET "options:\n"
	  "  parameters: {b: [0]}\n  constraints: ['4 / b > 0']\n",
	  "division by zero (/)" },
	{ "a constraint that is a string", V N RUN MET "options:\n"
	  "  parameters: {b: [0]}\n  constraints: ['\"yes\"']\n",
	  "the constraint is the string 'yes', not a condition" },
	{ "runs of 2", MIN "gate: {runs: 2}\n",
	  "t.yaml:6: gate.runs must be between 3 and 100, got 2" },
	{ "warm-up runs of -1", MIN "gate: {warmup_runs: -1}\n",
	  "t.yaml:6: gate.warmup_runs must be between 0 and 100, got -1" },
	{ "warm-up samples that are text", MIN "gate: {warmup_samples: few}\n",
	  "t.yaml:6: gate.warmup_samples must be an integer, got 'few'" },
	{ "a stability that is a number", MIN "gate: {stability: 5}\n",
	  "t.yaml:6: gate.stability must be a mapping" },
	{ "a stability rule of luck", MIN "gate: {stability: {rule: luck}}\n",
	  "t.yaml:6: gate.stability.rule must be one of spread, relative, got 'luck'" },
	{ "a spread limit of 0", MIN "gate: {stability: {max_spread_pct: 0}}\n",
	  "t.yaml:6: gate.stability.max_spread_pct must be between" },
	{ "eleven series attempts", MIN "gate: {stability: {series_attempts: "
	  "11}}\n", "t.yaml:6: gate.stability.series_attempts must be between "
	  "1 and 10, got 11" },
	{ "an improvement that is text", MIN "gate: {min_improvement_pct: "
	  "lots}\n", "t.yaml:6: gate.min_improvement_pct must be a number" },
	{ "a negative p90 allowance", MIN "gate: {allow_p90_regression_pct: "
	  "-1}\n", "t.yaml:6: gate.allow_p90_regression_pct must be between" },
	{ "a stddev allowance that is a list", MIN "gate: "
	  "{allow_stddev_regression_pct: [1]}\n",
	  "t.yaml:6: gate.allow_stddev_regression_pct must be a number, got a "
	  "sequence" },
	{ "decide by vote", MIN "gate: {decide_by: vote}\n",
	  "t.yaml:6: gate.decide_by must be one of mean, ci, got 'vote'" },
	{ "order round-robin", MIN "gate: {order: round-robin}\n",
	  "t.yaml:6: gate.order must be one of interleaved, sequential, got "
	  "'round-robin'" },
	{ "order as a list", MIN "gate: {order: [interleaved]}\n",
	  "t.yaml:6: gate.order must be one of interleaved, sequential, got "
	  "'(not a string)'" },
	{ "an unknown gate key", MIN "gate: {warmup: 1}\n",
	  "t.yaml:6: unknown key 'warmup' in gate" },
	{ "a template naming a missing parameter", V N
	  "run: {command: 'prog {blok}', timeout: 5}\n" MET OPT,
	  "t.yaml:3: run.command names {blok}, which is no parameter" },
	{ "a template naming a parameter one variant lacks", V N
	  "run: {command: 'prog {b} {flags}', timeout: 5}\n" MET OPT
	  "variants:\n  - {name: a, params: {flags: -O2}}\n  - {name: c}\n",
	  "t.yaml:3: run.command names {flags}, which variant 'c' (line 8) does "
	  "not set" },
	{ "an unbalanced brace", V N "run: {command: 'prog {b', timeout: 5}\n"
	  MET OPT, "t.yaml:3: run.command: '{' at offset 5 is not a {name} "
	  "(write '{{' for a literal brace)" },
	{ "a lone closing brace", V N "run: {command: 'prog }', timeout: 5}\n"
	  MET OPT, "t.yaml:3: run.command: '}' at offset 5 is not a {name}" },
	{ "a brace around no name", V N "run: {command: 'awk x{ }', "
	  "timeout: 5}\n" MET OPT, "'{' at offset 5 is not a {name}" },
	{ "an awk program in single braces", V N "run: {command: 'awk "
	  "{print}', timeout: 5}\n" MET OPT, "t.yaml:3: run.command names "
	  "{print}, which is no parameter (options.parameters, a variant's "
	  "params) and not built in (spec_dir, build_dir, run_dir, variant; "
	  "write '{{' and '}}' for literal braces)" },
	{ "a setup naming a parameter", MIN "setup: {command: 'make {b}'}\n",
	  "t.yaml:6: setup.command names {b}: it runs once for every variant, "
	  "before any, and may name only {spec_dir}" },
	{ "a setup naming the run directory", MIN "setup: {command: "
	  "'make {run_dir}'}\n", "t.yaml:6: setup.command names {run_dir}, "
	  "which is not known when it runs" },
	{ "a build naming the run directory", MIN "build: {command: "
	  "'cc -o {run_dir}/x'}\n", "t.yaml:6: build.command names {run_dir}, "
	  "which is not known when it runs" },
	{ "a check naming a missing parameter", MIN "check: {command: "
	  "'cmp {c}'}\n", "t.yaml:6: check.command names {c}, which is no "
	  "parameter" },
	{ "a profile naming a missing parameter", MIN "profile: {command: "
	  "'perf stat {c}'}\n", "t.yaml:6: profile.command names {c}" },
};

static void
every_bad_spec_is_refused_naming_its_line(void **state)
{
	size_t i, failed = 0;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		tc_error err = TC_ERROR_INIT;
		tc_tune_spec *s = NULL;
		int rc = tc_tune_spec_parse(c->text, strlen(c->text), "t.yaml",
		    "/nonexistent", &s, &err);

		if (rc == 0 || s != NULL ||
		    strstr(tc_error_msg(&err), c->want) == NULL) {
			print_error("%s: rc %d, message: %s\n  wanted: %s\n",
			    c->what, rc, tc_error_msg(&err), c->want);
			failed++;
		}
		tc_tune_spec_free(s);
		tc_error_clear(&err);
	}
	assert_int_equal(failed, 0);
}

static void
a_nul_in_a_string_is_refused(void **state)
{
	static const char text[] = V N "run: {command: \"a\\0b\", timeout: 5}\n"
	    MET;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;

	(void)state;
	assert_int_equal(tc_tune_spec_parse(text, sizeof(text) - 1, "t.yaml",
	    "/", &s, &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml:3: run.command must "
	    "not contain a NUL character"));
	tc_error_clear(&err);
}

static void
huge_specs_are_refused_before_they_are_read(void **state)
{
	tc_buf b = TC_BUF_INIT;
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;
	size_t i;

	(void)state;
	/* more bytes than a spec may have */
	tc_buf_puts(&b, MIN "description: '");
	while (b.len <= TC_TUNE_MAX_BYTES)
		tc_buf_puts(&b, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	tc_buf_puts(&b, "'\n");
	assert_int_equal(tc_tune_spec_parse(b.data, b.len, "t.yaml", "/", &s,
	    &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml: larger than "
	    "1048576 bytes"));
	tc_error_clear(&err);
	/* more nodes than a spec may have, in few bytes */
	tc_buf_reset(&b);
	tc_buf_puts(&b, MIN "description: [");
	for (i = 0; i <= TC_TUNE_MAX_NODES; i++)
		tc_buf_puts(&b, "1,");
	tc_buf_puts(&b, "1]\n");
	assert_int_equal(tc_tune_spec_parse(b.data, b.len, "t.yaml", "/", &s,
	    &err), -1);
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml:6: more than 20000 "
	    "YAML nodes"));
	tc_error_clear(&err);
	tc_buf_free(&b);
}

static void
a_missing_file_names_the_file(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;

	(void)state;
	assert_int_equal(tc_tune_spec_load("/nonexistent/tune.yaml", &s, &err),
	    -1);
	assert_non_null(strstr(tc_error_msg(&err), "cannot read the spec: "
	    "[Errno 2] No such file or directory: '/nonexistent/tune.yaml'"));
	tc_error_clear(&err);
}

static const char *
lookup_b(const char *name, void *ctx)
{
	(void)ctx;
	return strcmp(name, "b") == 0 ? "16" : NULL;
}

static void
templates_expand_names_and_keep_literal_braces(void **state)
{
	char *s = tc_tune_expand("awk '{{print $1}}' -v b={b} {build_dir}/x",
	    lookup_b, NULL);

	(void)state;
	assert_string_equal(s, "awk '{print $1}' -v b=16 {build_dir}/x");
	free(s);
	/* a name closes at its own brace: "{b}}}" is the value and a "}" */
	s = tc_tune_expand("{{\"b\": {b}}}", lookup_b, NULL);
	assert_string_equal(s, "{\"b\": 16}");
	free(s);
	/* the literal braces pass the reader's checks */
	tc_tune_spec_free(parse_ok(V N "run: {command: \"awk '{{print}}' {b}\", "
	    "timeout: 5}\n" MET OPT));
}

static tc_json *
plan_of(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = parse_ok(text);
	tc_json *plan = tc_tune_plan(s, &err);

	if (plan == NULL)
		fail_msg("no plan: %s", tc_error_msg(&err));
	tc_tune_spec_free(s);
	return plan;
}

static int64_t
plan_int(const tc_json *plan, const char *pointer)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_pointer(plan, pointer, &err);
	int64_t n = -1;

	if (v == NULL || !tc_json_int64(v, &n))
		fail_msg("%s: not an integer in the plan", pointer);
	tc_error_clear(&err);
	return n;
}

#define SPACE V N \
	"run: {command: 'p {b} {u} {f}', timeout: 10, estimate_seconds: 2}\n" \
	MET "options:\n  parameters:\n    b: [8, 16, 32, 64]\n" \
	"    u: [1, 2, 4]\n  constraints: ['b * u <= 64', 'u != 2 or b > 8']\n" \
	"baseline: {variant: a, params: {b: 16, u: 1}}\n" \
	"variants:\n  - {name: a, params: {f: -O2}}\n  - {name: c, params: " \
	"{f: -O3}}\n  - {name: d, params: {f: -Os}}\n" \
	"build: {command: 'cc {f}', estimate_seconds: 3, timeout: 30}\n"

static void
plan_counts_the_matrix_trials_builds_and_runs(void **state)
{
	tc_json *plan = plan_of(SPACE);

	(void)state;
	/* 12 points; b*u<=64 drops 32x4, 64x2, 64x4; u!=2 or b>8 drops 8x2 */
	assert_int_equal(plan_int(plan, "/options/points"), 12);
	assert_int_equal(plan_int(plan, "/options/points_allowed"), 8);
	/* one at a time from b=16 u=1: b in 8, 32, 64; u in 2, 4 */
	assert_int_equal(tc_json_get(tc_json_get(plan, "options"), "trials")->
	    u.arr.len, 5);
	/* one build per variant: the options do not enter the build */
	assert_int_equal(plan_int(plan, "/totals/builds"), 3);
	/* per series 1 warm-up + 5; intake 1; S0 1 series; gate.order
	 * interleaved: A 2 + a new baseline; O 1 + 5 trials, each with the
	 * incumbent beside it; final the winner and the baseline: 17 series,
	 * 102 runs + 1 probe */
	assert_int_equal(plan_int(plan, "/totals/runs"), 103);
	/* every series measured up to 3 times */
	assert_int_equal(plan_int(plan, "/totals/runs_at_most"),
	    103 + 17 * 2 * 6);
	assert_int_equal(plan_int(plan, "/phases/2/series"), 3);
	assert_int_equal(plan_int(plan, "/phases/3/series"), 11);
	assert_int_equal(plan_int(plan, "/phases/5/series"), 2);
	{
		double sec;

		assert_true(tc_json_number(tc_json_get(tc_json_get(plan,
		    "estimate"), "seconds"), &sec));
		assert_true(sec == 103 * 2 + 3 * 3);
	}
	tc_json_free(plan);
}

static void
sequential_order_measures_each_candidate_against_the_frozen_series(
    void **state)
{
	tc_json *plan = plan_of(SPACE "gate: {order: sequential}\n");
	tc_buf b = TC_BUF_INIT;

	(void)state;
	/* A 2; O 1 + 5; final 1 (the winner, against the frozen S0): 10
	 * series, 60 runs + 1 probe */
	assert_int_equal(plan_int(plan, "/totals/runs"), 61);
	assert_int_equal(plan_int(plan, "/totals/runs_at_most"), 61 + 10 * 2 * 6);
	assert_int_equal(plan_int(plan, "/phases/2/series"), 2);
	assert_string_equal(tc_json_get_string(tc_json_get(plan,
	    "gate_policy"), "order"), "sequential");
	tc_tune_plan_text(plan, &b);
	assert_non_null(strstr(b.data, "runs sequential"));
	tc_buf_free(&b);
	tc_json_free(plan);
}

static void
exhaustive_search_tries_every_allowed_point(void **state)
{
	tc_json *plan = plan_of(V N RUN MET "options:\n  parameters:\n"
	    "    b: [1, 2, 3]\n    c: [x, y]\n  search: exhaustive\n"
	    "  constraints: [\"c == 'x' or b > 1\"]\n"
	    "check: {expected_output: ok}\n");

	(void)state;
	assert_int_equal(plan_int(plan, "/options/points_allowed"), 5);
	/* every allowed point but the baseline (b=1, c=x) */
	assert_int_equal(tc_json_get(tc_json_get(plan, "options"), "trials")->
	    u.arr.len, 4);
	/* a check run per timed configuration: 4 trials + the probe's */
	assert_int_equal(plan_int(plan, "/totals/check_runs"), 5);
	assert_int_equal(plan_int(plan, "/totals/builds"), 0);
	assert_true(tc_json_is(tc_json_get(tc_json_get(plan, "estimate"),
	    "seconds"), TC_JSON_NULL));
	tc_json_free(plan);
}

static void
a_build_keyed_by_an_option_is_counted_per_value(void **state)
{
	tc_json *plan = plan_of(V N RUN MET "options: {parameters: {b: [1, 2, "
	    "3]}}\nbuild: {command: 'cc -DB={b} -o {build_dir}/p'}\n");

	(void)state;
	assert_int_equal(plan_int(plan, "/totals/builds"), 3);
	tc_json_free(plan);
}

static void
a_spec_with_nothing_to_tune_plans_the_baseline_only(void **state)
{
	tc_json *plan = plan_of(V N "run: {command: prog, timeout: 5}\n" MET);
	tc_buf b = TC_BUF_INIT;

	(void)state;
	assert_int_equal(plan_int(plan, "/options/points"), 0);
	assert_int_equal(plan_int(plan, "/phases/2/series"), 0);
	assert_int_equal(plan_int(plan, "/phases/3/series"), 0);
	/* intake's probe, S0, Final's winner and baseline: 1 + 3 x 6 */
	assert_int_equal(plan_int(plan, "/totals/runs"), 19);
	tc_tune_plan_text(plan, &b);
	assert_non_null(strstr(b.data, "runs interleaved: baseline and "
	    "candidates alternate (A B A B ...)"));
	assert_non_null(strstr(b.data, "Stage A screens 0 variant(s)"));
	assert_non_null(strstr(b.data, "check     none asked"));
	tc_buf_free(&b);
	tc_json_free(plan);
}

static void
plan_refuses_a_constraint_failing_at_another_point(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = parse_ok(V N RUN MET "options:\n  parameters:\n"
	    "    b: [1, 0]\n  constraints: ['8 % b == 0']\n");

	(void)state;
	assert_null(tc_tune_plan(s, &err));
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml:8: constraint "
	    "'8 % b == 0' at b=0: division by zero (%)"));
	tc_error_clear(&err);
	tc_tune_spec_free(s);
}

static void
plan_refuses_a_space_too_large(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = parse_ok(V N RUN MET "options:\n  parameters:\n"
	    "    a: [0,1,2,3,4,5,6,7,8,9]\n    b: [0,1,2,3,4,5,6,7,8,9]\n"
	    "    c: [0,1,2,3,4,5,6,7,8,9]\n    d: [0,1,2,3,4,5,6,7,8,9]\n"
	    "    e: [0,1,2,3,4,5,6,7,8,9]\n    f: [0,1]\n");

	(void)state;
	assert_null(tc_tune_plan(s, &err));
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml:7: the option space "
	    "has 200000 points, more than 100000"));
	tc_error_clear(&err);
	tc_tune_spec_free(s);
}

static void
plan_refuses_a_missing_build_input(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s = parse_ok(MIN "build: {command: cc, inputs: [no.c]}\n");

	(void)state;
	free(s->dir);
	s->dir = tc_xstrdup("/tmp");
	assert_null(tc_tune_plan(s, &err));
	assert_non_null(strstr(tc_error_msg(&err), "t.yaml: build.inputs "
	    "'no.c': "));
	tc_error_clear(&err);
	tc_tune_spec_free(s);
}

static void
the_dgemm_example_is_a_valid_spec(void **state)
{
	tc_error err = TC_ERROR_INIT;
	tc_tune_spec *s;
	tc_json *plan;
	char *path = tc_xasprintf("%s/examples/dgemm/tune.yaml",
	    getenv("TUNECTL_SRC") != NULL ? getenv("TUNECTL_SRC") : ".");

	(void)state;
	if (tc_tune_spec_load(path, &s, &err) != 0)
		fail_msg("%s", tc_error_msg(&err));
	assert_int_equal(s->nvariants, 3);
	assert_string_equal(s->baseline_variant, "O2");
	assert_non_null(plan = tc_tune_plan(s, &err));
	tc_json_free(plan);
	tc_tune_spec_free(s);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_spec_is_read_with_its_defaults),
		cmocka_unit_test(values_keep_their_text_and_numbers),
		cmocka_unit_test(every_bad_spec_is_refused_naming_its_line),
		cmocka_unit_test(a_nul_in_a_string_is_refused),
		cmocka_unit_test(huge_specs_are_refused_before_they_are_read),
		cmocka_unit_test(a_missing_file_names_the_file),
		cmocka_unit_test(templates_expand_names_and_keep_literal_braces),
		cmocka_unit_test(plan_counts_the_matrix_trials_builds_and_runs),
		cmocka_unit_test(
		    sequential_order_measures_each_candidate_against_the_frozen_series),
		cmocka_unit_test(exhaustive_search_tries_every_allowed_point),
		cmocka_unit_test(a_build_keyed_by_an_option_is_counted_per_value),
		cmocka_unit_test(a_spec_with_nothing_to_tune_plans_the_baseline_only),
		cmocka_unit_test(plan_refuses_a_constraint_failing_at_another_point),
		cmocka_unit_test(plan_refuses_a_space_too_large),
		cmocka_unit_test(plan_refuses_a_missing_build_input),
		cmocka_unit_test(the_dgemm_example_is_a_valid_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
