/*
 * pypto.h - the PyPTO-Pro five-stage operator pipeline and its Stage 5
 * performance contract (see docs/pypto.md and the reference digest
 * pypto-orchestration.md).  One header per concern:
 *
 *   pypto_state.h    .orchestrator_state.json: actions, freeze, lint gate
 *   pypto_cases.h    PERFORMANCE_CASES.json, Golden contract, frozen contract
 *   pypto_compare.h  the formal compare, round archive, re-verification
 *   pypto_items.h    the optimisation-item ledger
 *   pypto_select.h   best-version selection
 *   pypto_check.h    stage5-check P1-P8 (file-decidable part)
 */
#ifndef TUNECTL_PYPTO_H
#define TUNECTL_PYPTO_H

#include "tunectl/pypto_cases.h"
#include "tunectl/pypto_check.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/pypto_items.h"
#include "tunectl/pypto_select.h"
#include "tunectl/pypto_state.h"

#endif
