/*
 * spec_freeze.c - the SPEC.md freeze of the state wrapper: complete_stage(1)
 * records the SHA-256 of SPEC.md as artifact_hashes.spec_md, and every
 * complete_stage(N >= 3) refuses when SPEC.md changed or disappeared
 * (docs/spec/pypto.md "State transition wrapper" step 6).  The digest is of the
 * file read as UTF-8 text, as the reference (Node, readFileSync "utf8")
 * computes it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_state.h"
#include "tunectl/sha256.h"

/* WHATWG UTF-8 decode (one U+FFFD per maximal subpart), re-encoded. */
static void
utf8_sanitize(tc_buf *out, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		char enc[4];
		uint32_t cp;

		i += tc_utf8_decode(s + i, n - i, &cp, TC_UTF8_REPLACE);
		tc_buf_add(out, enc, tc_utf8_encode(enc, cp));
	}
}

int
tc_pypto_spec_hash(const char *spec_path, char hex[65], tc_error *err)
{
	struct stat st;
	size_t len;
	char *raw;
	tc_buf clean = TC_BUF_INIT;

	if (stat(spec_path, &st) != 0)
		return 0;	/* fs.existsSync(): false, also for a dangling link */
	if ((raw = tc_read_file(spec_path, 0, &len, err)) == NULL)
		return -1;
	utf8_sanitize(&clean, raw, len);
	tc_sha256_hex(clean.data != NULL ? clean.data : "", clean.len, hex);
	tc_buf_free(&clean);
	free(raw);
	return 1;
}

/* savedHash.slice(0, 12) */
static char *
prefix12(const char *s)
{
	size_t i = 0, chars = 0;

	while (s[i] != '\0' && chars < 12) {
		i++;
		while (s[i] != '\0' && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		chars++;
	}
	return tc_xstrndup(s, i);
}

int
tc_pypto_spec_freeze(tc_json *state, const char *op_dir, double stage,
    tc_error *err)
{
	char *spec = tc_path_join(op_dir, "SPEC.md");
	char hex[65];
	int rc = 0, have;

	if (stage == 1) {
		tc_json *hashes = tc_json_get(state, "artifact_hashes");

		if ((have = tc_pypto_spec_hash(spec, hex, err)) < 0) {
			rc = -1;
		} else if (have == 0) {
			tc_error_set(err, "cannot complete Stage 1: %s does not "
			    "exist. SPEC.md is Stage 1's deliverable and the "
			    "artifact the freeze is taken over; completing "
			    "without it would leave the freeze unarmed for the "
			    "rest of the run.", spec);
			rc = -1;
		} else {
			if (hashes == NULL || hashes->type == TC_JSON_NULL) {
				hashes = tc_json_new_object();
				tc_json_object_set(state, "artifact_hashes",
				    hashes);
			}
			if (hashes->type != TC_JSON_OBJECT) {
				tc_error_set(err, "invalid orchestrator state file "
				    "content: artifact_hashes must be an object");
				rc = -1;
			} else {
				tc_json_object_set_string(hashes, "spec_md", hex);
			}
		}
	} else if (stage >= 3) {
		const char *saved = tc_json_get_string(tc_json_get(state,
		    "artifact_hashes"), "spec_md");

		if (saved != NULL) {
			char *sp = prefix12(saved);

			if ((have = tc_pypto_spec_hash(spec, hex, err)) < 0) {
				rc = -1;
			} else if (have == 0) {
				tc_error_set(err, "SPEC.md freeze violation: %s no "
				    "longer exists. It was recorded at Stage 1 "
				    "(hash=%s\xe2\x80\xa6) and the freeze is taken "
				    "over that file; deleting or renaming it is a "
				    "spec change. To legitimately revise the spec, "
				    "call rollback_to_stage(target_stage=1, "
				    "reason=...).", spec, sp);
				rc = -1;
			} else if (strcmp(hex, saved) != 0) {
				tc_error_set(err, "SPEC.md freeze violation: SPEC.md "
				    "was modified after Stage 1 completion. current "
				    "hash=%.12s\xe2\x80\xa6 recorded hash=%s"
				    "\xe2\x80\xa6. To legitimately revise the spec, "
				    "call rollback_to_stage(target_stage=1, "
				    "reason=...).", hex, sp);
				rc = -1;
			}
			free(sp);
		}
	}
	free(spec);
	return rc;
}
