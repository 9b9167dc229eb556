/*
 * renderers.c - the session's table of report renderers (see
 * tunectl/session_reports.h) and the calls seal, resume, scene and the
 * report checks make through it.
 */
#include "session_internal.h"
#include "tunectl/session_reports.h"

static struct tc_session_renderers renderers;

void
tc_session_set_renderers(const struct tc_session_renderers *r)
{
	renderers = *r;
}

static void
unregistered(tc_error *err)
{
	tc_error_set(err, "session reports cannot be rendered: no report "
	    "renderer registered");
}

char *
tc_session__phase_report(const tc_json *result, const tc_json *step, tc_error *err)
{
	if (renderers.phase_md == NULL) {
		unregistered(err);
		return NULL;
	}
	return renderers.phase_md(result, step, err);
}

char *
tc_session__final_report(const tc_json *session, tc_error *err)
{
	if (renderers.final_md == NULL) {
		unregistered(err);
		return NULL;
	}
	return renderers.final_md(session, err);
}

char *
tc_session__final_report_from(const tc_json *session, const tc_json *result,
    const tc_json *ledger, tc_error *err)
{
	if (renderers.final_md_from == NULL) {
		unregistered(err);
		return NULL;
	}
	return renderers.final_md_from(session, result, ledger, err);
}

int
tc_session__write_final_report(const tc_json *session, tc_error *err)
{
	if (renderers.write_final == NULL) {
		unregistered(err);
		return -1;
	}
	return renderers.write_final(session, err);
}
