/*
 * check_gate.c - one gate of stage5-check: its evidence lines, its first
 * failure (a frozen-contract block outranks any other category), the
 * evidence that is missing with who supplies it, and the verifier's
 * review answer for an item of the gate.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "pypto_internal.h"
#include "orch_internal.h"

void
tc_pypto_gate_init(tc_pypto_gate *g, const char *id, const char *title)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	g->title = title;
	g->evidence = tc_json_new_array();
	g->missing = tc_json_new_array();
}

void
tc_pypto_gate_note(tc_pypto_gate *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tc_pj_push_vfmt(g->evidence, fmt, ap);
	va_end(ap);
}

void
tc_pypto_gate_fail(tc_pypto_gate *g, const char *category, const char *fmt,
    ...)
{
	va_list ap;
	tc_error e = TC_ERROR_INIT;
	tc_buf b = TC_BUF_INIT;
	const char *c = tc_pypto_category_static(category);

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	tc_buf_printf(&b, "FAIL: %s", tc_error_msg(&e));
	tc_json_array_push(g->evidence, tc_json_new_string(tc_buf_cstr(&b)));
	tc_buf_free(&b);
	tc_error_clear(&e);
	if (!g->failed || strcmp(c, "stage5_contract_blocked") == 0)
		g->category = c;
	g->failed = true;
}

void
tc_pypto_gate_missing(tc_pypto_gate *g, const char *owner, const char *how,
    const char *fmt, ...)
{
	va_list ap;
	tc_error e = TC_ERROR_INIT;
	tc_json *m = tc_json_new_object();

	va_start(ap, fmt);
	tc_error_vset(&e, fmt, ap);
	va_end(ap);
	tc_json_object_set_string(m, "what", tc_error_msg(&e));
	tc_json_object_set_string(m, "owner", owner);
	tc_json_object_set_string(m, "how", how);
	tc_json_array_push(g->missing, m);
	tc_error_clear(&e);
}

void
tc_pypto_gate_review(tc_pypto_gate *g, const tc_json *answers, const char *id)
{
	const tc_json *a = tc_json_get(answers, id);
	const char *v = tc_json_get_string(a, "verdict");
	const char *basis = tc_json_get_string(a, "basis");

	if (v == NULL) {
		tc_pypto_gate_missing(g, "verifier", "tunectl pypto review template",
		    "review item %s is not answered by the verifier", id);
		return;
	}
	if (strcmp(v, "fail") == 0)
		tc_pypto_gate_fail(g, tc_json_get_string(a, "failure_category"),
		    "review %s: %s", id, basis);
	else
		tc_pypto_gate_note(g, "review %s: pass (%s)", id, basis);
}
