/*
 * final_internal.h - helpers shared by the Final-step ledger checks
 * (final_*.c) and the report renderer; not part of the public API.
 */
#ifndef TUNECTL_FINAL_INTERNAL_H
#define TUNECTL_FINAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/canon.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

/* Python (b - c) / b, computed exactly for integers where Python would be
 * exact (int64 range, quotient operands within 2**53). */
double tc_final_pct_change(const tc_json *b, const tc_json *c);

/* A JSON integer (not bool) > 0, any size. */
bool tc_final_positive_int(const tc_json *v);

/* The string of a canonical-string value or NULL. */
const char *tc_final_str(const tc_json *v);

#endif
