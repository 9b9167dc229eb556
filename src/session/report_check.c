/*
 * report_check.c - the two Markdown reports are derived files, so verify
 * renders them again from the sealed evidence and compares: a
 * PHASE_REPORT.md from its sealed result, FINAL_E2E_REPORT.md from the
 * session, the Final result and its ledger.  An edited report (one
 * character is enough) is refused, naming the file.
 */
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"
#include "tunectl/fileio.h"

/* The next line of text at *pos (without its "\n"); false at the end. */
static bool
next_line(const char *text, size_t len, size_t *pos, const char **line,
    size_t *line_len)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*line = text + *pos;
	nl = memchr(*line, '\n', len - *pos);
	*line_len = nl != NULL ? (size_t)(nl - *line) : len - *pos;
	*pos += *line_len + (nl != NULL ? 1 : 0);
	return true;
}

/* Two blocker lines "- <json>": the same JSON value?  The reference
 * writes a blocker's keys in the order the worker wrote them, tunectl in
 * sorted order; the value is what must agree. */
static bool
same_blocker(const char *a, size_t alen, const char *b, size_t blen)
{
	tc_json *x, *y;
	bool same;

	if (alen < 2 || blen < 2 || memcmp(a, "- ", 2) != 0 ||
	    memcmp(b, "- ", 2) != 0)
		return false;
	x = tc_json_parse(a + 2, alen - 2, NULL);
	y = tc_json_parse(b + 2, blen - 2, NULL);
	same = x != NULL && y != NULL && tc_json_equal(x, y);
	tc_json_free(x);
	tc_json_free(y);
	return same;
}

static bool
same_bytes(const char *want, size_t want_len, const char *have,
    size_t have_len)
{
	return want_len == have_len && memcmp(want, have, want_len) == 0;
}

/* The report on disk against the one rendered now: byte for byte, but
 * the lines of the blocker section only as JSON values. */
static bool
same_phase_report(const char *want, size_t want_len, const char *have,
    size_t have_len)
{
	static const char blockers[] = "## 阻塞项";
	size_t wp = 0, hp = 0, wl, hl;
	const char *w, *h;
	bool in_blockers = false;

	if (same_bytes(want, want_len, have, have_len))
		return true;
	if (want_len == 0 || have_len == 0 || want[want_len - 1] != '\n' ||
	    have[have_len - 1] != '\n')
		return false;
	for (;;) {
		bool more_w = next_line(want, want_len, &wp, &w, &wl);
		bool more_h = next_line(have, have_len, &hp, &h, &hl);

		if (more_w != more_h)
			return false;
		if (!more_w)
			return true;
		if (in_blockers && wl > 2 && memcmp(w, "- ", 2) == 0) {
			if (!same_blocker(w, wl, h, hl))
				return false;
			continue;
		}
		if (wl != hl || memcmp(w, h, wl) != 0)
			return false;
		if (wl == sizeof(blockers) - 1 && memcmp(w, blockers, wl) == 0)
			in_blockers = true;
	}
}

/* Whether the report at path is want (owned, freed here) as same()
 * judges it: 1 or 0, or -1 with err set when want is NULL (it could not
 * be rendered) or path cannot be read. */
static int
matches_rendered(char *want, const char *path,
    bool (*same)(const char *, size_t, const char *, size_t), tc_error *err)
{
	char *have;
	size_t have_len;
	int match;

	if (want == NULL)
		return -1;
	if ((have = tc_read_file(path, 0, &have_len, err)) == NULL)
		match = -1;
	else
		match = same(want, strlen(want), have, have_len);
	free(want);
	free(have);
	return match;
}

static int
phase_report_verdict(int match, const tc_json *step, tc_error *err)
{
	if (match == 0)
		tc_error_set(err, "phase report differs from its sealed result: "
		    "%s (phases/%s/PHASE_REPORT.md)", tc_step_id(step),
		    tc_step_id(step));
	return match == 1 ? 0 : -1;
}

int
tc_check_phase_report(const tc_json *result, const tc_json *step,
    const char *report_path, tc_error *err)
{
	return phase_report_verdict(matches_rendered(tc_session__phase_report(
	    result, step, err), report_path, same_phase_report, err), step,
	    err);
}

int
tc_check_phase_report_text(const tc_json *result, const tc_json *step,
    const char *have, size_t have_len, tc_error *err)
{
	char *want = tc_session__phase_report(result, step, err);
	int match = want == NULL ? -1 :
	    same_phase_report(want, strlen(want), have, have_len);

	free(want);
	return phase_report_verdict(match, step, err);
}

int
tc_check_final_report(const tc_session *s, const tc_json *result,
    const tc_json *ledger, tc_error *err)
{
	char *path = tc_session_artifact_path(s, "FINAL_E2E_REPORT.md");
	char *want = result != NULL && ledger != NULL ?
	    tc_session__final_report_from(s->doc, result, ledger, err) :
	    tc_session__final_report(s->doc, err);
	int match = matches_rendered(want, path, same_bytes, err);

	free(path);
	if (match == 0)
		tc_error_set(err, "FINAL_E2E_REPORT.md differs from the report "
		    "rendered from the sealed evidence");
	return match == 1 ? 0 : -1;
}
