/*
 * tunectl.h - the whole public interface of libtunectl in one include,
 * and the library's version.
 *
 *   #include <tunectl/tunectl.h>
 *   cc prog.c $(pkg-config --cflags --libs tunectl)
 *
 * TUNECTL_VERSION_MAJOR, _MINOR, _PATCH and TUNECTL_VERSION_STRING come
 * from <tunectl/version.h>, which the build makes from the VERSION file.
 * Every header of include/tunectl/ is listed here (tests/cli/test_install.sh
 * checks that none is missing).
 */
#ifndef TUNECTL_TUNECTL_H
#define TUNECTL_TUNECTL_H

#include "tunectl/version.h"

#include "tunectl/attempt.h"
#include "tunectl/analysis.h"
#include "tunectl/attest.h"
#include "tunectl/bench.h"
#include "tunectl/buf.h"
#include "tunectl/canon.h"
#include "tunectl/decimal.h"
#include "tunectl/derive.h"
#include "tunectl/envcheck.h"
#include "tunectl/error.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"
#include "tunectl/final.h"
#include "tunectl/finder.h"
#include "tunectl/heap.h"
#include "tunectl/host.h"
#include "tunectl/html.h"
#include "tunectl/json.h"
#include "tunectl/lease.h"
#include "tunectl/ledger.h"
#include "tunectl/lock.h"
#include "tunectl/own_reports.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"
#include "tunectl/phases.h"
#include "tunectl/proc.h"
#include "tunectl/pypto.h"
#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_orch.h"
#include "tunectl/pypto_select.h"
#include "tunectl/pypto_stage5.h"
#include "tunectl/pypto_state.h"
#include "tunectl/refusal.h"
#include "tunectl/report.h"
#include "tunectl/round_report.h"
#include "tunectl/session.h"
#include "tunectl/session_reports.h"
#include "tunectl/sha256.h"
#include "tunectl/skills.h"
#include "tunectl/slurm.h"
#include "tunectl/stats.h"
#include "tunectl/support.h"
#include "tunectl/text.h"
#include "tunectl/timeutil.h"
#include "tunectl/tune.h"

#endif
