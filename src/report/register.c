/*
 * register.c - hands the session layer its report renderers: the phase
 * report and the Chinese Final report a session writes while sealing and
 * resuming and re-renders while verifying (tunectl/session_reports.h).
 */
#include "tunectl/report.h"
#include "tunectl/session_reports.h"

static char *
final_md(const tc_json *session, tc_error *err)
{
	return tc_report_final_md(session, NULL, TC_REPORT_ZH, err);
}

static char *
final_md_from(const tc_json *session, const tc_json *result,
    const tc_json *ledger, tc_error *err)
{
	return tc_report_final_md_from(session, result, ledger, TC_REPORT_ZH,
	    err);
}

static int
write_final(const tc_json *session, tc_error *err)
{
	return tc_report_write_final(session, NULL, NULL, TC_REPORT_ZH, NULL,
	    err);
}

void
tc_report_register(void)
{
	static const struct tc_session_renderers r = {
		tc_report_phase_md, final_md, final_md_from, write_final
	};

	tc_session_set_renderers(&r);
}
