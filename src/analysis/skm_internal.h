/*
 * skm_internal.h - what the files of "tunectl analyze sk-meta" share:
 * the records read from the SuperKernel metadata logs (skm_logs.c) and
 * the small counting and sorting tools the summary (skm_summary.c) and
 * the plan are built with.
 *
 * Records are JSON objects shaped as the summary prints them, so the
 * summary copies them as they are.
 */
#ifndef TUNECTL_SKM_INTERNAL_H
#define TUNECTL_SKM_INTERNAL_H

#include "analysis_internal.h"

enum { SKM_FUSED, SKM_FAIL, SKM_SPLIT, SKM_NLOGS };

/* The log file name of a kind: "sk_fused_nodes.log", ... */
const char *tc_analysis__skm_log_name(int kind);

struct tc_skm_logs {
	tc_json *groups;	/* fused groups, decorated */
	tc_json *failures;	/* fusion-failure records */
	tc_json *raw_breaks;	/* scope breaks as read */
	tc_json *breaks;	/* the same, deduplicated */
	tc_json *scope;		/* the current scope while reading */
	struct an_map tokens;	/* reason token -> occurrences, every log */
	size_t model_count;
	size_t files[SKM_NLOGS];
};

/* Read every log under root (a missing root has none); -1 with err when
 * a log cannot be read. */
int tc_analysis__skm_load(const char *root, struct tc_skm_logs *out,
    tc_error *err);
void tc_analysis__skm_free(struct tc_skm_logs *l);

/* The reason of a text: its first word-bounded reason token, else the
 * reason of the first known phrase in it, else "UNKNOWN". */
const char *tc_analysis__skm_classify(const char *s, size_t n);
/* Add the word-bounded reason tokens of s[0..n) to counts. */
void tc_analysis__skm_count_tokens(const char *s, size_t n,
    struct an_map *counts);
/* Set "layer" and "segments" of into from a list of scope names. */
void tc_analysis__skm_dimensions(const tc_json *names, tc_json *into);

/* An integer member (0 when absent or not an integer). */
int64_t tc_analysis__skm_int(const tc_json *o, const char *key);
/* Sort a list of strings in code point order. */
void tc_analysis__sort_strings(tc_json *list);

#endif
