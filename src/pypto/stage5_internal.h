/*
 * stage5_internal.h - the Stage 5 contract pieces src/pypto/ shares: the
 * operator directory walk, the frozen inputs, the updatable set and the
 * selected KB obligations (stage5_files.c).
 */
#ifndef TUNECTL_PYPTO_STAGE5_INTERNAL_H
#define TUNECTL_PYPTO_STAGE5_INTERNAL_H

#include <stdbool.h>

#include "tunectl/error.h"
#include "tunectl/json.h"
#include "tunectl/pypto_orch.h"

/* Paths (relative to the op dir) never compared: .orchestrator/, the
 * state file and its lock, __pycache__/ and *.pyc. */
bool tc_pypto_path_excluded(const char *rel);
/* Paths Stage 5 may change (docs/spec/pypto.md "Stage 5 inputs and boundary").
 */
bool tc_pypto_path_updatable(const char *rel, const char *op_name);

/* Every entry of the op dir except the excluded ones, sorted by path:
 * [{path, type: file|symlink|fifo|socket|device, sha256, size_bytes,
 * target}]. */
tc_json *tc_pypto_op_files(const char *op_dir, tc_error *err);

/* The KB_SELECTION.json files: "KB_SELECTION.json" (flat, class ".") and
 * "<class>/KB_SELECTION.json" (split), as relative paths. */
tc_json *tc_pypto_kb_selection_files(const char *op_dir);

/* The frozen inputs with their digests: [{name, role, class_id?, sha256
 * (null when missing), size_bytes, missing?}]. */
tc_json *tc_pypto_frozen_inputs(const char *op_dir);

/* The obligations of DESIGN_BINDINGS.json: [{class_id, selection_field,
 * reference, req_id, status, invariant}]. */
tc_json *tc_pypto_kb_obligations(const char *op_dir, tc_error *err);

/* is_fusion and module_count of module_interfaces.yaml (module_yaml.c). */
int tc_pypto_module_interfaces(const char *op_dir, bool *is_fusion,
    long *module_count, tc_error *err);

#endif
