/*
 * report_register.c - linked into every unit-test binary: registers the
 * report renderers before main(), as the tunectl CLI does first thing,
 * so that tests sealing, resuming or verifying sessions write the same
 * reports the CLI writes.
 */
#include "tunectl/report.h"

static void register_reports(void) __attribute__((constructor));

static void
register_reports(void)
{
	tc_report_register();
}
