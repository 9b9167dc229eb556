/*
 * tune_internal.h - what the spec reader, the planner and the build
 * cache share inside src/tune/: the constraint expressions (expr.c) and
 * the digest of a build input (build.c).
 */
#ifndef TUNECTL_TUNE_INTERNAL_H
#define TUNECTL_TUNE_INTERNAL_H

#include "tunectl/tune.h"

/* Limits of one constraint: its text and how deep it nests. */
#define TC_TUNE_EXPR_MAX_LEN 1000
#define TC_TUNE_EXPR_MAX_DEPTH 32

/*
 * Compile a constraint over the parameters names[0..n-1]: numbers,
 * 'strings' or "strings", parameter names, + - * / %, == != < <= > >=,
 * and / or / not (&& || ! too), parentheses.  NULL with the reason in err
 * (no file or line: the caller adds them).
 */
tc_tune_expr *tc_tune_expr_compile(const char *text, const char *const *names,
    size_t n, tc_error *err);

/* Evaluate e with vals[i] the value of names[i]: *ok is whether the point
 * satisfies it.  -1 with err set on a type error or a division by zero. */
int tc_tune_expr_eval(const tc_tune_expr *e, const tc_tune_value *vals,
    bool *ok, tc_error *err);

void tc_tune_expr_free(tc_tune_expr *e);

/* The SHA-256 of build input i of s (resolved under the spec's
 * directory); -1 with "SPEC: build.inputs 'PATH': why" (build.c). */
int tc_tune_input_digest(const tc_tune_spec *s, size_t i, char hex[65],
    tc_error *err);

/* Whether s is a parameter name: [A-Za-z_][A-Za-z0-9_]*, not and/or/not. */
bool tc_tune_is_name(const char *s, size_t len);

#endif
