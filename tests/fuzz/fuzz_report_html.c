/*
 * fuzz_report_html.c - libFuzzer target for the HTML report's inputs:
 * the gate reports sealed phases list among their produced artifacts,
 * the Final step's ledger, and artifact paths (issue 17, items 1 and 2).
 *
 * Fixture: a completed "none" session in which every measuring phase
 * produced a gate report under gate/ (intake produced one too, which must
 * never be drawn), S0 also a run-set directory runs/set/, and the Final
 * step names ledger.json.
 * Input: up to six parts, each the bytes of one file for this input
 * (a missing part restores the fixture's file):
 *   0 gate/s0.json       1 gate/stage-a.json   2 gate/trial.json
 *   3 gate/final.json    4 ledger.json         5 gate/intake.json
 *
 * Invariants: the report renders (the session itself is valid); the page
 * is UTF-8 without control characters; its markup is exactly what the
 * renderer writes: every tag one of a fixed set, properly nested,
 * attributes double-quoted without '<', every '&' one of the entities
 * the renderer writes, every link relative ("./"); no '>' in text.  So no
 * byte of a document ever becomes markup, whatever the document holds.
 */
#include "fuzz_common.h"
#include "tunectl/html.h"
#include "tunectl/session.h"
#include "../unit/test_derive_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HR_PARTS 6

static const char *const hr_files[HR_PARTS] = {
	"gate/s0.json", "gate/stage-a.json", "gate/trial.json",
	"gate/final.json", "ledger.json", "gate/intake.json"
};

/* What the fixture's files hold (the seeds start from the same). */
#define HR_RUNS "[10.0, 10.1, 9.9, 10.05, 9.95]"
#define HR_BASE "\"baseline\": {\"worst_rank_mean_ms\": 10.0, " \
	"\"run_worst_rank_means_ms\": " HR_RUNS "}, \"baseline_stability\": " \
	"{\"run_worst_rank_means_ms\": " HR_RUNS ", \"mean_ms\": 10.0, " \
	"\"spread_pct\": 2.0, \"stable\": true}"
#define HR_CAND(block, key) "{\"Sbest\": {\"worst_rank_mean_ms\": 9.0, " \
	"\"improvement_pct\": 10.0, \"run_worst_rank_means_ms\": " HR_RUNS \
	", \"" block "\": {\"" key "\": true}}}"

static const char *const hr_seed[HR_PARTS] = {
	"{" HR_BASE ", \"candidates\": {}, \"selection\": "
	    "{\"stage\": \"final_promotion\"}}",
	"{" HR_BASE ", \"candidates\": " HR_CAND("screening_eligibility",
	    "eligible") ", \"selection\": {\"stage\": \"candidate_screening\"}}",
	"{" HR_BASE ", \"candidates\": " HR_CAND("option_trial_evaluation",
	    "accepted") ", \"selection\": {\"stage\": \"winner_option_trial\"}}",
	"{" HR_BASE ", \"candidates\": " HR_CAND("promotion", "promoted")
	    ", \"selection\": {\"stage\": \"final_promotion\"}}",
	DFX_FINAL_LEDGER,
	"{" HR_BASE ", \"candidates\": " HR_CAND("screening_eligibility",
	    "eligible") ", \"selection\": {\"stage\": \"candidate_screening\"}}",
};

static struct dfx *hr_fx;

static void
hr_cleanup(void)
{
	dfx_free(hr_fx);
}

/* The artifacts each phase lists. */
static void
hr_produce(tc_json *result, const char *phase)
{
	tc_json *p = tc_json_get(result, "produced_artifacts");
	const char *file = strcmp(phase, "intake_preparation") == 0 ?
	    hr_files[5] : strcmp(phase, "s0_baseline") == 0 ? hr_files[0] :
	    strcmp(phase, "stage_a_scope_selection") == 0 ? hr_files[1] :
	    strcmp(phase, "stage_o_option_tuning") == 0 ? hr_files[2] :
	    strcmp(phase, "final_e2e_report") == 0 ? hr_files[3] : NULL;

	if (file != NULL)
		tc_json_array_push(p, tc_json_new_string(file));
	if (strcmp(phase, "s0_baseline") == 0)
		tc_json_array_push(p, tc_json_new_string("runs/set"));
	if (strcmp(phase, "intake_preparation") == 0)
		tc_json_array_push(p, tc_json_new_string("javascript:x.json"));
}

static void
hr_init(void)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *doc;
	size_t i;

	hr_fx = dfx_new();
	atexit(hr_cleanup);
	doc = tc_session_init(hr_fx->psession, hr_fx->proot, "parent-session",
	    "none", &err);
	FZ_REQUIRE(doc != NULL);
	tc_json_free(doc);
	fz_write_str(hr_fx->proot, DFX_ANALYSIS_REL, DFX_ANALYSIS);
	fz_write_str(hr_fx->proot, DFX_LEDGER_REL, DFX_LEDGER);
	fz_write_str(hr_fx->proot, DFX_SMAP_REL, DFX_SMAP);
	fz_write_str(hr_fx->proot, "runs/set/run-1/rank0.log", "rank0 10.0\n");
	fz_write_str(hr_fx->proot, "javascript:x.json", "{}\n");
	for (i = 0; i < HR_PARTS; i++)
		fz_write_str(hr_fx->proot, hr_files[i], hr_seed[i]);
	for (i = 0; i < 16; i++) {
		tc_session *s;
		tc_json *step, *r;

		FZ_REQUIRE(tc_session_load(hr_fx->psession, 0, &s, &err) == 0);
		if ((step = tc_session_next_step(s, NULL)) == NULL) {
			tc_session_free(s);
			return;
		}
		r = dfx_result(hr_fx, step, dfx_default_status(step));
		hr_produce(r, tc_json_get_string(step, "phase"));
		tc_session_free(s);
		if (tc_seal_handoff(hr_fx->psession, r, 0, NULL, &err) != 0) {
			fprintf(stderr, "seal: %s\n", tc_error_msg(&err));
			abort();
		}
		tc_json_free(r);
	}
	abort();
}

/* ---- the markup check --------------------------------------------------------- */

static const char *const hr_tags[] = {
	"html", "head", "meta", "title", "style", "body", "header", "h1",
	"h2", "p", "code", "b", "em", "section", "svg", "rect", "line",
	"circle", "text", "table", "thead", "tbody", "tr", "th", "td", "a",
	"footer", "details", "summary", "h3", "ul", "li", NULL
};

static const char *const hr_entities[] = {
	"&lt;", "&gt;", "&amp;", "&quot;", "&#39;", "&#8594;", NULL
};

static bool
hr_known(const char *name, size_t len)
{
	const char *const *t;

	for (t = hr_tags; *t != NULL; t++)
		if (strlen(*t) == len && memcmp(*t, name, len) == 0)
			return true;
	return false;
}

static size_t
hr_entity(const char *p, const char *end)
{
	const char *const *e;

	for (e = hr_entities; *e != NULL; e++) {
		size_t k = strlen(*e);

		if ((size_t)(end - p) >= k && memcmp(p, *e, k) == 0)
			return k;
	}
	FZ_REQUIRE(!"an '&' that is no entity the renderer writes");
	return 0;
}

static size_t
hr_name(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && ((p[n] >= 'a' && p[n] <= 'z') ||
	    (p[n] >= 'A' && p[n] <= 'Z') ||
	    (p[n] >= '0' && p[n] <= '9') || p[n] == '-' || p[n] == ':'))
		n++;
	return n;
}

/* One start tag at p ('<' seen); pushes it unless self-closing. */
static const char *
hr_start_tag(const char *p, const char *end, const char **stack,
    size_t *lens, size_t *depth)
{
	const char *name = ++p;
	size_t nlen = hr_name(p, end);

	FZ_REQUIRE(nlen > 0 && hr_known(name, nlen));
	p += nlen;
	for (;;) {
		const char *attr, *v;
		size_t alen;

		FZ_REQUIRE(p < end);
		if (*p == '>') {
			FZ_REQUIRE(*depth < 64);
			stack[*depth] = name;
			lens[(*depth)++] = nlen;
			return p + 1;
		}
		if (*p == '/') {
			FZ_REQUIRE(p + 1 < end && p[1] == '>');
			return p + 2;
		}
		FZ_REQUIRE(*p == ' ');
		attr = ++p;
		alen = hr_name(p, end);
		FZ_REQUIRE(alen > 0);
		p += alen;
		FZ_REQUIRE(end - p >= 2 && p[0] == '=' && p[1] == '"');
		v = p += 2;
		while (p < end && *p != '"') {
			FZ_REQUIRE(*p != '<' && *p != '>');
			p += *p == '&' ? hr_entity(p, end) : 1;
		}
		FZ_REQUIRE(p < end);
		if (alen == 4 && memcmp(attr, "href", 4) == 0)
			FZ_REQUIRE(p - v >= 2 && v[0] == '.' && v[1] == '/');
		p++;
	}
}

static void
hr_check_markup(const char *html, size_t len)
{
	static const char doctype[] = "<!DOCTYPE html>\n";
	const char *p = html, *end = html + len;
	const char *stack[64];
	size_t lens[64], depth = 0;

	FZ_REQUIRE(fz_utf8_valid(html, len));
	FZ_REQUIRE(len > sizeof(doctype) &&
	    memcmp(html, doctype, sizeof(doctype) - 1) == 0);
	p += sizeof(doctype) - 1;
	while (p < end) {
		unsigned char c = (unsigned char)*p;

		if (c == '<' && p + 1 < end && p[1] == '/') {
			size_t n = hr_name(p + 2, end);

			FZ_REQUIRE(depth > 0 && lens[depth - 1] == n &&
			    memcmp(stack[depth - 1], p + 2, n) == 0);
			FZ_REQUIRE(p + 2 + n < end && p[2 + n] == '>');
			depth--;
			p += 3 + n;
		} else if (c == '<') {
			p = hr_start_tag(p, end, stack, lens, &depth);
		} else if (c == '&') {
			p += hr_entity(p, end);
		} else {
			/* text: no '>', no control but the final newline */
			FZ_REQUIRE(c != '>');
			FZ_REQUIRE(c >= 0x20 || (c == '\n' && p + 1 == end));
			FZ_REQUIRE(c != 0x7f);
			FZ_REQUIRE(!(c == 0xc2 && p + 1 < end &&
			    (unsigned char)p[1] >= 0x80 &&
			    (unsigned char)p[1] <= 0x9f));
			p++;
		}
	}
	FZ_REQUIRE(depth == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[HR_PARTS];
	size_t lens[HR_PARTS], n, i;
	tc_error err = TC_ERROR_INIT;
	tc_buf out = TC_BUF_INIT;

	if (hr_fx == NULL)
		hr_init();
	n = fz_split(data, size, parts, lens, HR_PARTS);
	for (i = 0; i < HR_PARTS; i++) {
		if (i < n && lens[i] > 0)
			fz_write(hr_fx->proot, hr_files[i], parts[i], lens[i]);
		else
			fz_write_str(hr_fx->proot, hr_files[i], hr_seed[i]);
	}
	FZ_REQUIRE(tc_report_html(hr_fx->psession, &out, &err) == 0);
	FZ_NOTE("report: %zu bytes, charts: s0 %d stage_a %d stage_o %d "
	    "final %d\n", out.len,
	    strstr(tc_buf_cstr(&out), "data-chart=\"s0\"") != NULL,
	    strstr(tc_buf_cstr(&out), "data-chart=\"stage_a\"") != NULL,
	    strstr(tc_buf_cstr(&out), "data-chart=\"stage_o\"") != NULL,
	    strstr(tc_buf_cstr(&out), "data-chart=\"final\"") != NULL);
	hr_check_markup(out.data, out.len);
	tc_buf_free(&out);
	tc_error_clear(&err);
	return 0;
}
