/*
 * test_ledger_fixture.h - the experiment-result fixtures of the reference's
 * ExperimentLedgerTest (docs/spec/ledger.md "Reference tests"), rebuilt in C,
 * plus JSON-pointer mutation helpers.  Header-only (static functions) so
 * that it is included by the ledger tests and linked into nothing else.
 */
#ifndef TEST_LEDGER_FIXTURE_H
#define TEST_LEDGER_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/json.h"
#include "tunectl/ledger.h"

/* ---- JSON helpers -------------------------------------------------------- */

static __attribute__((unused)) tc_json *
fx_parse(const char *text)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *v = tc_json_parse(text, strlen(text), &err);

	if (v == NULL) {
		fprintf(stderr, "fixture JSON does not parse: %s\n%s\n",
		    tc_error_msg(&err), text);
		abort();
	}
	return v;
}

/* Split "/a/b/c" into the parent pointer "/a/b" and last token "c". */
static __attribute__((unused)) tc_json *
fx_parent(tc_json *root, const char *ptr, char *last, size_t lastsz)
{
	const char *slash = strrchr(ptr, '/');
	char parent[512];
	tc_json *p;
	size_t i, j;

	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - ptr), ptr);
	for (i = 0, j = 0; slash[1 + i] != '\0' && j + 1 < lastsz; i++) {
		if (slash[1 + i] == '~' && slash[2 + i] == '1') {
			last[j++] = '/';
			i++;
		} else if (slash[1 + i] == '~' && slash[2 + i] == '0') {
			last[j++] = '~';
			i++;
		} else {
			last[j++] = slash[1 + i];
		}
	}
	last[j] = '\0';
	p = tc_json_pointer(root, parent, NULL);
	if (p == NULL) {
		fprintf(stderr, "fixture pointer has no parent: %s\n", ptr);
		abort();
	}
	return p;
}

/* Set the value at ptr (JSON text); "-" appends to an array. */
static __attribute__((unused)) void
fx_set(tc_json *root, const char *ptr, const char *json)
{
	char last[256];
	tc_json *p = fx_parent(root, ptr, last, sizeof(last));
	tc_json *v = fx_parse(json);

	if (p->type == TC_JSON_OBJECT) {
		tc_json_object_set(p, last, v);
	} else if (strcmp(last, "-") == 0) {
		tc_json_array_push(p, v);
	} else {
		size_t i = (size_t)strtoul(last, NULL, 10);

		tc_json_free(p->u.arr.items[i]);
		p->u.arr.items[i] = v;
	}
}

/* Set to a copy of the value at src. */
static __attribute__((unused)) void
fx_copy(tc_json *root, const char *dst, const char *src)
{
	tc_json *v = tc_json_pointer(root, src, NULL);
	char *text;

	if (v == NULL)
		abort();
	{
		size_t len;

		text = tc_json_canonical(v, &len, NULL);
	}
	fx_set(root, dst, text);
	free(text);
}

static __attribute__((unused)) void
fx_del(tc_json *root, const char *ptr)
{
	char last[256];
	tc_json *p = fx_parent(root, ptr, last, sizeof(last));

	if (p->type == TC_JSON_OBJECT) {
		tc_json_object_remove(p, last);
	} else {
		size_t i = (size_t)strtoul(last, NULL, 10);

		tc_json_free(p->u.arr.items[i]);
		memmove(p->u.arr.items + i, p->u.arr.items + i + 1,
		    (p->u.arr.len - i - 1) * sizeof(*p->u.arr.items));
		p->u.arr.len--;
	}
}

/* ---- fixtures -------------------------------------------------------------- */

struct fx_exp {
	const char *id;		/* experiment id and round prefix */
	const char *child;	/* child_agent_id */
	const char *agent[3];	/* analysis agents of BASE, P1, FINAL */
	const char *workload;
	const char *baseline_profile, *baseline_fp;
};

static __attribute__((unused)) const struct fx_exp FX_S3 = {
	"S3", "agent-7", { "prof-agent-1", "prof-agent-2", "prof-agent-3" },
	"workload-fp", "profiles/frozen-baseline.json", "baseline-profile-fp"
};
static __attribute__((unused)) const struct fx_exp FX_S4 = {
	"S4", "agent-8", { "prof-agent-41", "prof-agent-42", "prof-agent-43" },
	"workload-fp", "profiles/frozen-baseline.json", "baseline-profile-fp"
};

static __attribute__((unused)) void
fx_set_str(tc_json *o, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static __attribute__((unused)) void
fx_set_str(tc_json *o, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tc_json_object_set_string(o, key, buf);
}

/* _round(id, kind, candidate_fp, range_ids) */
static __attribute__((unused)) tc_json *
fx_round(const struct fx_exp *e, const char *id, const char *kind,
    const char *cfp, const char *ranges_json)
{
	tc_json *r = fx_parse("{\"scope_kind\": \"manual\", "
	    "\"source_revision\": \"source-sha\", "
	    "\"baseline_config_fingerprint\": \"baseline-config-fp\", "
	    "\"control_fingerprint\": \"control-fp\", "
	    "\"declared_change_set\": {\"allowed_json_pointers\": "
	    "[\"/superkernel/enabled\", \"/superkernel/scope\"], "
	    "\"only_change_zh\": \"只启用 SuperKernel 并应用本轮范围。\"}, "
	    "\"lifecycle\": {\"compat\": \"passed\", \"correctness\": \"passed\", "
	    "\"replay\": \"passed\", \"profiling\": \"passed\"}}");
	tc_json *arts = tc_json_new_object();

	tc_json_object_set_string(r, "round_id", id);
	tc_json_object_set_string(r, "round_kind", kind);
	tc_json_object_set_string(r, "child_agent_id", e->child);
	tc_json_object_set_string(r, "candidate_config_fingerprint", cfp);
	tc_json_object_set_string(r, "workload_fingerprint", e->workload);
	tc_json_object_set_string(r, "baseline_profile", e->baseline_profile);
	tc_json_object_set_string(r, "baseline_profile_fingerprint",
	    e->baseline_fp);
	fx_set_str(r, "candidate_profile", "%s/profiles/candidate.json", id);
	fx_set_str(r, "candidate_profile_fingerprint", "%s-candidate-profile-fp",
	    id);
	fx_set_str(arts, "round_evidence", "%s/round-evidence.json", id);
	fx_set_str(arts, "round_report", "%s/round-report.json", id);
	tc_json_object_set(r, "artifacts", arts);
	if (ranges_json != NULL)
		tc_json_object_set(r, "performance_decision_range_ids",
		    fx_parse(ranges_json));
	if (strcmp(kind, "performance_prune") == 0 || strcmp(kind, "final") == 0)
		tc_json_object_set(r, "declared_option_changes",
		    tc_json_new_array());
	return r;
}

static __attribute__((unused)) char *
fx_analysis_path(const char *round_id)
{
	return tc_xasprintf("%s/profiling-analysis/profiling-analysis-result.json",
	    round_id);
}

/* _decision(round, range, classification, action, status[, verified]) */
static __attribute__((unused)) tc_json *
fx_decision(const tc_json *round, const char *range, const char *cls,
    const char *action, const char *status, const char *verified_in)
{
	static const char *const copied[] = {
		"source_revision", "baseline_config_fingerprint",
		"candidate_config_fingerprint", "control_fingerprint",
		"workload_fingerprint", "baseline_profile",
		"baseline_profile_fingerprint", "candidate_profile",
		"candidate_profile_fingerprint", "declared_change_set", NULL
	};
	const char *rid = tc_json_get_string(round, "round_id");
	tc_json *d = tc_json_new_object(), *b = tc_json_new_object();
	char *p;
	size_t i;

	tc_json_object_set_string(d, "round_id", rid);
	tc_json_object_set_string(d, "range_id", range);
	fx_set_str(d, "sk_id", "sk-%s", range);
	fx_set_str(d, "source_scope", "model.%s", range);
	tc_json_object_set_string(d, "mapping_method", "source_scope_map");
	tc_json_object_set_string(d, "mapping_confidence", "exact");
	fx_set_str(b, "start_op", "%s-start", range);
	fx_set_str(b, "end_op", "%s-end", range);
	tc_json_object_set_string(b, "source_file", "model.py");
	tc_json_object_set_int(b, "start_offset", 100);
	tc_json_object_set_int(b, "end_offset", 200);
	tc_json_object_set(d, "boundary", b);
	tc_json_object_set_string(d, "classification", cls);
	tc_json_object_set_string(d, "action", action);
	tc_json_object_set_string(d, "status", status);
	for (i = 0; copied[i] != NULL; i++)
		tc_json_object_set(d, copied[i],
		    tc_json_clone(tc_json_get(round, copied[i])));
	p = fx_analysis_path(rid);
	tc_json_object_set_string(d, "source_profiling_analysis_result", p);
	free(p);
	if (verified_in != NULL) {
		tc_json_object_set_string(d, "verified_in_round_id", verified_in);
		p = fx_analysis_path(verified_in);
		tc_json_object_set_string(d, "profiling_analysis_result", p);
		free(p);
	}
	return d;
}

/* _result(): BASE / P1 / FINAL with the four reference decisions. */
static __attribute__((unused)) tc_json *
fx_result_for(const struct fx_exp *e)
{
	char base[64], p1[64], fin[64];
	tc_json *r = tc_json_new_object(), *rounds = tc_json_new_array();
	tc_json *agents = tc_json_new_object(), *results = tc_json_new_object();
	tc_json *dec = tc_json_new_array(), *unres = tc_json_new_array();
	tc_json *rb, *rp, *rf;
	const char *ids[3];
	size_t i;

	snprintf(base, sizeof(base), "%s-BASE", e->id);
	snprintf(p1, sizeof(p1), "%s-P1", e->id);
	snprintf(fin, sizeof(fin), "%s-FINAL", e->id);
	ids[0] = base;
	ids[1] = p1;
	ids[2] = fin;
	rb = fx_round(e, base, "base", "candidate-base-fp",
	    "[\"range-beneficial\", \"range-neutral\", \"range-unknown\"]");
	rp = fx_round(e, p1, "performance_prune", "candidate-pruned-fp",
	    "[\"range-neutral\"]");
	rf = fx_round(e, fin, "final", "candidate-final-fp",
	    "[\"range-beneficial\"]");
	tc_json_object_set(rf, "retained_range_ids",
	    fx_parse("[\"range-beneficial\"]"));
	tc_json_array_push(dec, fx_decision(rb, "range-beneficial", "beneficial",
	    "keep", "applied", NULL));
	tc_json_array_push(dec, fx_decision(rb, "range-neutral", "neutral",
	    "prune", "verified", p1));
	tc_json_array_push(dec, fx_decision(rf, "range-beneficial", "beneficial",
	    "keep", "applied", NULL));
	tc_json_array_push(unres, fx_decision(rb, "range-unknown",
	    "insufficient_evidence", "reprofile", "proposed", NULL));
	tc_json_array_push(rounds, rb);
	tc_json_array_push(rounds, rp);
	tc_json_array_push(rounds, rf);
	for (i = 0; i < 3; i++) {
		char *p = fx_analysis_path(ids[i]);

		tc_json_object_set_string(agents, ids[i], e->agent[i]);
		tc_json_object_set_string(results, ids[i], p);
		free(p);
	}
	tc_json_object_set_string(r, "experiment_id", e->id);
	tc_json_object_set_string(r, "parent_experiment_id", e->id);
	tc_json_object_set_string(r, "child_agent_id", e->child);
	tc_json_object_set_string(r, "baseline_revision", "baseline-sha");
	tc_json_object_set_string(r, "source_revision", "source-sha");
	tc_json_object_set_string(r, "baseline_config_fingerprint",
	    "baseline-config-fp");
	tc_json_object_set_string(r, "control_fingerprint", "control-fp");
	tc_json_object_set_string(r, "workload_fingerprint", e->workload);
	tc_json_object_set(r, "rounds", rounds);
	tc_json_object_set(r, "profiling_analysis_agent_ids", agents);
	tc_json_object_set(r, "profiling_analysis_result", results);
	tc_json_object_set(r, "performance_scope_decisions", dec);
	tc_json_object_set(r, "unresolved_performance_ranges", unres);
	tc_json_object_set(r, "inherited_exclusions_for_next_agents",
	    tc_json_new_array());
	tc_json_object_set(r, "lifecycle", tc_json_new_object());
	tc_json_object_set(r, "blockers", tc_json_new_array());
	tc_json_object_set_string(r, "next_agent_guidance_zh",
	    "后续实验沿用已验证的性能范围结论。");
	return r;
}

static __attribute__((unused)) tc_json *
fx_result(void)
{
	return fx_result_for(&FX_S3);
}

/* _automatic_result(): one automatic_aot round S1, no decisions. */
static __attribute__((unused)) tc_json *
fx_automatic_result(void)
{
	static const struct fx_exp e = {
		"S1", "agent-1", { "prof-agent-auto", NULL, NULL },
		"workload-fp", "profiles/frozen-baseline.json",
		"baseline-profile-fp"
	};
	tc_json *r = fx_result_for(&FX_S3);
	tc_json *round = fx_round(&e, "S1", "automatic_aot", "candidate-auto-fp",
	    NULL);
	tc_json *rounds = tc_json_new_array();
	char *p = fx_analysis_path("S1");

	tc_json_object_set_string(round, "scope_kind", "automatic_aot");
	tc_json_array_push(rounds, round);
	tc_json_object_set(r, "rounds", rounds);
	tc_json_object_set_string(r, "experiment_id", "S1");
	tc_json_object_set_string(r, "parent_experiment_id", "S1");
	tc_json_object_set_string(r, "child_agent_id", "agent-1");
	tc_json_object_set(r, "profiling_analysis_agent_ids",
	    fx_parse("{\"S1\": \"prof-agent-auto\"}"));
	tc_json_object_set(r, "profiling_analysis_result", tc_json_new_object());
	tc_json_object_set_string(tc_json_get(r, "profiling_analysis_result"),
	    "S1", p);
	tc_json_object_set(r, "performance_scope_decisions", tc_json_new_array());
	tc_json_object_set(r, "unresolved_performance_ranges",
	    tc_json_new_array());
	free(p);
	return r;
}

/* _legacy_v1_ledger(id): one non-performance experiment and one
 * verified exclusion. */
static __attribute__((unused)) tc_json *
fx_legacy_v1_ledger(const char *id)
{
	char text[2048];

	snprintf(text, sizeof(text),
	    "{\"schema_version\": 1, \"experiments\": {\"%s\": {"
	    "\"experiment_id\": \"%s\", \"status\": \"completed\", "
	    "\"artifacts\": {\"metadata\": \"%s/sk-meta.json\", "
	    "\"round_report\": \"%s/round-report.json\"}, "
	    "\"nested\": {\"metadata\": {\"files\": [\"%s/meta/a.json\"]}}}}, "
	    "\"verified_exclusions\": [{\"experiment_id\": \"%s\", "
	    "\"scope\": \"decoder.layer.1\", "
	    "\"source_evidence\": \"%s/source-map.json\"}]}",
	    id, id, id, id, id, id, id);
	return fx_parse(text);
}

/* Set a round field and the same field of every decision it sources. */
static __attribute__((unused)) void
fx_set_binding(tc_json *doc, size_t round, const char *field,
    const char *json)
{
	static const char *const lists[] = {
		"performance_scope_decisions", "unresolved_performance_ranges"
	};
	const tc_json *r = tc_json_get(doc, "rounds")->u.arr.items[round];
	const char *rid = tc_json_get_string(r, "round_id");
	char ptr[256];
	size_t l, i;

	snprintf(ptr, sizeof(ptr), "/rounds/%zu/%s", round, field);
	fx_set(doc, ptr, json);
	for (l = 0; l < 2; l++) {
		const tc_json *list = tc_json_get(doc, lists[l]);

		for (i = 0; i < list->u.arr.len; i++) {
			if (strcmp(tc_json_get_string(list->u.arr.items[i],
			    "round_id"), rid) != 0)
				continue;
			snprintf(ptr, sizeof(ptr), "/%s/%zu/%s", lists[l], i, field);
			fx_set(doc, ptr, json);
		}
	}
}

/* v is the JSON integer with this decimal text. */
static __attribute__((unused)) bool
fx_int_is(const tc_json *v, const char *text)
{
	return tc_json_is(v, TC_JSON_INT) && strcmp(v->u.int_text, text) == 0;
}

/* ---- assertions helpers ------------------------------------------------- */

/* true when some error equals msg exactly. */
static __attribute__((unused)) bool
fx_has(const tc_json *errors, const char *msg)
{
	size_t i;

	for (i = 0; i < errors->u.arr.len; i++)
		if (strcmp(tc_json_string(errors->u.arr.items[i]), msg) == 0)
			return true;
	return false;
}

/* true when some error contains needle. */
static __attribute__((unused)) bool
fx_mentions(const tc_json *errors, const char *needle)
{
	size_t i;

	for (i = 0; i < errors->u.arr.len; i++)
		if (strstr(tc_json_string(errors->u.arr.items[i]), needle) != NULL)
			return true;
	return false;
}

static __attribute__((unused)) void
fx_dump(const tc_json *errors)
{
	size_t i;

	for (i = 0; i < errors->u.arr.len; i++)
		fprintf(stderr, "#   error: %s\n",
		    tc_json_string(errors->u.arr.items[i]));
}

#endif
