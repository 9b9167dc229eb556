/*
 * derive_files.c - the helpers of derive_internal.h: reading imported files
 * once (bytes, digest, parse), artifact roles, declared artifacts.
 */
#include <stdlib.h>
#include <string.h>

#include "derive_internal.h"
#include "tunectl/derive.h"
#include "tunectl/path.h"
#include "tunectl/sha256.h"

const char *const tc_derive__role_names[DER_ROLE_COUNT] = {
	"profiling_analysis", "ledger", "source_scope_map"
};

const char *const tc_derive__role_labels[DER_ROLE_COUNT] = {
	"profiling analysis", "experiment ledger", "source scope map"
};

int
tc_derive__file_read(struct der_file *f, const char *path, tc_error *err)
{
	f->bytes = tc_json_read_path(path, &f->len, err);
	if (f->bytes == NULL)
		return -1;
	tc_sha256_hex(f->bytes, f->len, f->sha256);
	return 0;
}

void
tc_derive__file_free(struct der_file *f)
{
	free(f->bytes);
	f->bytes = NULL;
	f->len = 0;
}

tc_json *
tc_derive__file_parse(const struct der_file *f, const char *label, bool want_object,
    tc_error *err)
{
	tc_json *v = tc_json_parse_text(f->bytes, f->len, err);

	if (v == NULL) {
		tc_error_prefix(err, "%s cannot be read: ", label);
		return NULL;
	}
	if (want_object && !tc_json_is(v, TC_JSON_OBJECT)) {
		tc_json_free(v);
		tc_error_set(err, "%s must be a JSON object", label);
		return NULL;
	}
	return v;
}

int
tc_derive__role_of(const char *name, size_t len)
{
	int i;

	for (i = 0; i < DER_ROLE_COUNT; i++)
		if (strlen(tc_derive__role_names[i]) == len &&
		    memcmp(tc_derive__role_names[i], name, len) == 0)
			return i;
	return -1;
}

bool
tc_derive__mode_needs_source_map(const char *mode)
{
	return strcmp(mode, "source-range") == 0 || strcmp(mode, "both") == 0;
}

static bool
list_contains(const tc_json *list, const tc_json *path)
{
	size_t i;

	if (!tc_json_is(list, TC_JSON_ARRAY))
		return false;
	for (i = 0; i < list->u.arr.len; i++)
		if (tc_json_is(list->u.arr.items[i], TC_JSON_STRING) &&
		    tc_json_equal(list->u.arr.items[i], path))
			return true;
	return false;
}

bool
tc_derive__result_declares(const tc_json *result, const tc_json *path)
{
	if (!tc_json_is(path, TC_JSON_STRING))
		return false;
	return list_contains(tc_json_get(result, "consumed_artifacts"), path) ||
	    list_contains(tc_json_get(result, "produced_artifacts"), path);
}

bool
tc_derive__roots_overlap(const char *a, const char *b)
{
	return tc_path_is_within(a, b) || tc_path_is_within(b, a);
}

int
tc_derive__check_contents(tc_json *const docs[DER_ROLE_COUNT], const char *mode,
    tc_error *err)
{
	if (tc_import_check_analysis(docs[DER_ANALYSIS], err) != 0)
		return -1;
	if (tc_import_check_ledger(docs[DER_LEDGER], docs[DER_ANALYSIS],
	    err) != 0)
		return -1;
	if (tc_derive__mode_needs_source_map(mode) &&
	    tc_import_check_source_map(docs[DER_SOURCE_MAP],
	    docs[DER_ANALYSIS], err) != 0)
		return -1;
	return 0;
}
