/*
 * analysis_internal.h - what the files of src/analysis share: Python
 * values the analyzer needs (an optional number, the text rules of its
 * names), the rows it keeps from kernel_details.csv, the fused-node groups
 * of sk_meta, robust statistics and the overlap analysis.
 *
 * Every number is an IEEE double, as the reference's are; a number that
 * Python would hold as None is an an_num with ok false.  Python ints made
 * from doubles (int(float(text))) keep the truncated double.
 */
#ifndef TUNECTL_ANALYSIS_INTERNAL_H
#define TUNECTL_ANALYSIS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "tunectl/analysis.h"
#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

/* A number or None. */
typedef struct an_num {
	bool ok;
	double v;
} an_num;

#define AN_NONE ((an_num){ false, 0.0 })
#define AN_NUM(x) ((an_num){ true, (x) })

/* ---- Python's text and number rules (names.c) -------------------------- */

/* float(text.strip()) unless the text is empty or "N/A"; None for text
 * float() refuses and for results that are not finite. */
an_num tc_analysis__to_float(const char *s, size_t n);
/* int() of that: the value truncated toward zero. */
an_num tc_analysis__to_int(const char *s, size_t n);
/* A Python int (held as a truncated double) as a JSON integer. */
tc_json *tc_analysis__json_int(double v);
/* An an_num as a JSON float, or null. */
tc_json *tc_analysis__json_float(an_num x);
/* An an_num holding an int as a JSON integer, or null. */
tc_json *tc_analysis__json_intnum(an_num x);

/* s decoded as UTF-8 with errors="replace" (each maximal ill-formed
 * subpart becomes U+FFFD), NUL-terminated; malloc'd. */
char *tc_analysis__utf8_replace(const char *s, size_t n, size_t *outlen);
/* str.strip() copy of s[0..n), malloc'd, never NULL. */
char *tc_analysis__strip_dup(const char *s, size_t n);

/* The reference's operator of a launch name: static_kernel_<Op>_, the
 * text after an aclnn prefix up to "_", else the text before the first
 * "_".  NULL for an empty name (None); "" is possible.  malloc'd. */
char *tc_analysis__op_from_function(const char *name);

/* The core family of a profiler row or fused node. */
enum an_family {
	AN_CUBE, AN_VECTOR, AN_MIX, AN_COMMUNICATION, AN_OTHER, AN_NFAMILY
};
extern const char *const tc_analysis__family_names[AN_NFAMILY];
enum an_family tc_analysis__core_family(const char *accelerator_core,
    const char *op_type, const char *name, const char *kernel_type);

/* An SK launch name sk_<n>_<scope>_start_<fn>_end_<fn>, split. */
struct an_boundary {
	char *scope;		/* stripped */
	char *start_function, *end_function;
	char *start_op, *end_op;	/* may be NULL (None) */
};
/* Parse name; false (nothing allocated) when it does not have that form. */
bool tc_analysis__parse_sk_name(const char *name, struct an_boundary *b);
void tc_analysis__boundary_free(struct an_boundary *b);
/* The boundary object of the analysis (five fields). */
tc_json *tc_analysis__boundary_json(const struct an_boundary *b);
/* The n of a name starting sk_<n>_; None otherwise. */
an_num tc_analysis__raw_sk_id(const char *name);
/* The same id as JSON, exact at any size as the reference's int() of the
 * digits (raw_sk_id of the document), or null. */
tc_json *tc_analysis__raw_sk_id_json(const char *name);

/* str.splitlines(): call fn for each line of text[0..n). */
void tc_analysis__splitlines(const char *text, size_t n,
    void (*fn)(void *ctx, const char *line, size_t len), void *ctx);
/* Skip Python regex \s* at s[*i..n). */
void tc_analysis__skip_space(const char *s, size_t n, size_t *i);

/* ---- kernel_details.csv (kernel_details.c) ---------------------------- */

/* One accepted row (start and duration valid).  Strings are stripped,
 * never NULL. */
struct an_row {
	size_t index;		/* data row number, from 0 */
	size_t line;		/* physical line where the record starts */
	const char *step_id;
	const char *discriminator[4];	/* occurrence, iteration, request,
					 * batch */
	an_num device_id;
	const char *model_id;
	an_num task_id, stream_id;
	const char *name, *type, *op_state, *accelerator_core;
	double start, duration;
	an_num end;		/* None when start + duration overflows */
	an_num aic_scalar_time, aiv_scalar_time;
	an_num aic_scalar_ratio, aiv_scalar_ratio;
	bool partial;		/* only name, type, model, task, start,
				 * duration and end are set (see wants) */
};

/* One rejected row: its model, name and reason. */
struct an_rejected {
	size_t index, line;
	const char *model_id, *name, *reason;
};

struct an_csv_sink {
	void *ctx;
	/* optional: false when a row (name, type, model, task, start,
	 * duration and end read so far) is needed no further; the row then
	 * reaches row() with partial set */
	bool (*wants)(void *ctx, const struct an_row *row);
	/* the strings of row are valid during the call only */
	int (*row)(void *ctx, const struct an_row *row, tc_error *err);
	int (*rejected)(void *ctx, const struct an_rejected *rej,
	    tc_error *err);
};

/* ---- what one run has hashed (digests.c) --------------------------------- */

#define AN_DIGESTS_MAX	8

struct an_file_digest {
	struct stat st;		/* the file as it was hashed */
	char hex[65];
};
struct an_digests {
	struct an_file_digest d[AN_DIGESTS_MAX];
	size_t n;
};
/* The SHA-256 noted for the file st describes (same device, inode,
 * size, mtime and ctime) into hex; false when none is (or m is NULL). */
bool tc_analysis__digest_known(const struct an_digests *m,
    const struct stat *st, char hex[65]);
/* Note hex for the file open on fd, described by before (its stat as
 * the hash began), when fd still is that file; m NULL: nothing. */
void tc_analysis__digest_note(struct an_digests *m, const struct stat *before,
    int fd, const char hex[65]);
/* tc_sha256_file() of path, through m (NULL: always hashed). */
int tc_analysis__file_digest(struct an_digests *m, const char *path,
    char hex[65], tc_error *err);

/* The kernel_details.csv of path (the file itself, or the only one
 * under the directory), malloc'd, as Python spells it; NULL with err. */
char *tc_analysis__find_kernel_details(const char *path, tc_error *err);
/* Read csv_path row by row into sink; hex gets the SHA-256 of its
 * bytes (hashed as read, unless memo knows them; then noted there).
 * Errors name the file and line. */
int tc_analysis__kernel_details_read(const char *csv_path, const struct an_csv_sink *sink,
    struct an_digests *memo, char hex[65], tc_error *err);

/* ---- files under a directory (walk.c) --------------------------------- */

struct an_paths {
	char **items;
	size_t len;
};
/* Path(root).rglob(pattern) sorted as pathlib sorts: pattern is an exact
 * name, or with one '*' a prefix and suffix.  Symlinked directories are
 * not entered; an exact name must exist (links followed). */
int tc_analysis__rglob(const char *root, const char *pattern, struct an_paths *out,
    tc_error *err);
void tc_analysis__paths_free(struct an_paths *p);
/* The non-empty components of a path. */
struct an_parts {
	char **p;
	size_t n;
};
void tc_analysis__path_split(const char *path, struct an_parts *out);
void tc_analysis__parts_free(struct an_parts *x);
/* str(Path(p)): "//" collapsed, "." components and trailing "/" dropped. */
char *tc_analysis__py_path(const char *p);

/* ---- sk_meta fused groups (sk_meta.c) ---------------------------------- */

struct an_node {
	int64_t node_id, stream_id;
	char *func_name, *kernel_type;
	char *op_type;		/* may be NULL (None) */
	enum an_family family;
};

struct an_group {
	char *function;
	char *model_id;		/* NULL: no model_<n> directory */
	int64_t scope_id, node_count;
	struct an_node *nodes;
	size_t nnodes;
	bool has_signature;
	struct an_boundary sig;	/* scope, start_op, end_op matter */
};

struct an_groups {
	struct an_group *items;
	size_t len;
};
/* The groups of one sk_fused_nodes.log text (bytes decoded with
 * errors="replace"), appended to out; model_id may be NULL. */
void tc_analysis__fused_log_parse(const char *raw, size_t len,
    const char *model_id, struct an_groups *out);
int tc_analysis__sk_meta_load(const char *root, struct an_groups *out, tc_error *err);
void tc_analysis__groups_free(struct an_groups *g);

/* ---- statistics (stats.c) ---------------------------------------------- */

struct an_stats {
	size_t count;
	an_num p50, p90, mad;
	double min, max;
	an_num mean;
	bool has_mean;
};
/* Finite doubles in ascending order as Python's sorted() leaves them:
 * stable, 0.0 and -0.0 equal (a radix sort). */
void tc_analysis__sort_finite(double *v, size_t n);
/* _robust_stats / _stats of v[0..n) (finite values kept, in order for the
 * mean); false when none is left (the object is None). */
bool tc_analysis__robust_stats(const double *v, size_t n, bool with_mean,
    struct an_stats *out);
tc_json *tc_analysis__stats_json(const struct an_stats *s);

/* Finite-or-None arithmetic of the reference. */
an_num tc_analysis__fin(double x);
an_num tc_analysis__sum2(an_num a, an_num b);
an_num tc_analysis__diff(an_num a, an_num b);
an_num tc_analysis__ratio(an_num num, an_num den);
an_num tc_analysis__pct(an_num num, an_num den);

struct an_classification {
	const char *classification;
	const char *classification_zh;
	an_num noise_pct, improvement_us, improvement_pct;
	tc_json *errors;	/* list of strings, owned */
};
void tc_analysis__classify(const struct an_stats *baseline,
    const struct an_stats *candidate, const struct tc_analysis_thresholds *t,
    const tc_json *evidence_errors, struct an_classification *out);

/* One timed event for the interval and overlap analyses. */
struct an_event {
	an_num stream;
	enum an_family family;
	double start;
	an_num end;
};
/* _core_overlap_analysis(rows, limit) as its JSON object. */
tc_json *tc_analysis__core_overlap(const struct an_event *ev, size_t n, size_t limit);
/* Length of the union of [start, end) (touching intervals merge); None
 * when some end is None or a sum overflows. */
an_num tc_analysis__interval_union(const struct an_event *ev, size_t n);

/* Counter.most_common(limit) of a list of names as [{"name","count"}];
 * a NULL name counts as None. */
struct an_counter {
	char **names;
	size_t *counts;
	size_t len, cap;
};
void tc_analysis__counter_add(struct an_counter *c, const char *name);
tc_json *tc_analysis__counter_json(const struct an_counter *c, size_t limit);
void tc_analysis__counter_free(struct an_counter *c);

/* ---- JSON inputs (inputs.c) -------------------------------------------- */

/* _load_json_artifact: a JSON object read with errors="replace"; errors
 * "<path>: cannot read <label>: ...", "<path>: invalid <label> JSON: ...",
 * "<path>: <label> must be a JSON object". */
tc_json *tc_analysis__load_json_artifact(const char *path, const char *label,
    tc_error *err);

struct tc_analysis__fingerprints {
	char baseline_config[65], candidate_config[65];
	char baseline_workload[65], candidate_workload[65];
	char baseline_control[65], candidate_control[65];
	bool workload_match, control_match;
	tc_json *declared_change_set;	/* a copy */
	tc_json *evidence_errors;	/* list of codes */
};
int tc_analysis__fingerprints(const tc_json *baseline_config,
    const tc_json *candidate_config, const tc_json *baseline_workload,
    const tc_json *candidate_workload, const tc_json *declared_change_set,
    struct tc_analysis__fingerprints *out, tc_error *err);
void tc_analysis__fingerprints_free(struct tc_analysis__fingerprints *f);

/* A collection manifest's workload: normalize_workload(w) == w, else
 * the reference's message. */
int tc_analysis__workload_normalized(const tc_json *w, tc_error *err);
/* normalize_workload(w) into *out (the caller's). */
int tc_analysis__workload_normalized_copy(const tc_json *w, tc_json **out,
    tc_error *err);

/* ---- collection manifests (collection.c) -------------------------------- */

/* validate_manifest_set for roles[i] -> paths[i]: the summary (with
 * set_fingerprint), and with manifests_out the parsed manifests (the
 * caller's); NULL with the reference's message.  Recorded files memo
 * knows (unchanged) are not hashed again. */
tc_json *tc_analysis__collection_validate_set(const char *const *roles,
    const char *const *paths, size_t n, tc_json **manifests_out,
    const struct an_digests *memo, tc_error *err);

/* The lenient read of --source-scope-map as a task-range layer map:
 * -1 with the reference's message when it is malformed. */
int tc_analysis__layer_map_check(const char *path, tc_error *err);

struct an_dcci {
	const char *state;	/* enabled, disabled, conflict, unknown */
	const char *source[3], *state_of[3];
	size_t n;
};
int tc_analysis__dcci_state(const tc_json *environment, const tc_json *candidate_config,
    struct an_dcci *out, tc_error *err);

/* ---- the SK child trace (sk_prof.c) ------------------------------------ */

/* summarize_sk_child_profile(path); its "paths" as Python spells them. */
tc_json *tc_analysis__sk_prof_summary(const char *path, tc_error *err);

/* ---- CSV records (csv.c) --------------------------------------------------- */

/*
 * One record: its fields, NUL-terminated, in text.  The storage belongs
 * to the reader and is reused from record to record, so a callback
 * copies whatever it keeps; it may rewrite a field in place (to strip
 * it, say).
 */
struct an_csv_rec {
	char **f;
	size_t n, cap;
	tc_buf text;		/* the fields' bytes, each NUL-terminated */
	size_t *off;		/* field i starts at text.data + off[i] */
	size_t start;		/* where the field being read starts */
};

/* Called with each non-empty record, numbered from 1 as csv.reader
 * counts them; non-zero stops the read and is returned. */
typedef int (*an_csv_fn)(void *ctx, const struct an_csv_rec *rec,
    size_t recno, tc_error *err);

/*
 * Every record of the text t[0..n) (a UTF-8 BOM skipped), or of the
 * file at path, read a piece at a time (its open and read errors are
 * Python's OSError messages; memory holds a piece and the longest line
 * or record, not the file).  Both give the same records and the same
 * first error.
 */
int tc_analysis__csv_text_each(const char *t, size_t n, an_csv_fn fn,
    void *ctx, tc_error *err);
int tc_analysis__csv_file_each(const char *path, an_csv_fn fn, void *ctx,
    tc_error *err);
/* The file read as text that must be strict UTF-8 without a BOM, as
 * Python decodes it whole before csv.reader sees a line: -2 (err
 * untouched) when it is not, even past a record that failed (whose
 * error, -1, comes only once the rest is known to be UTF-8). */
int tc_analysis__csv_file_each_strict(const char *path, an_csv_fn fn,
    void *ctx, tc_error *err);
/* The same reading piece bytes at a time (1 MiB above; tests use a
 * few), refusing a line or a record of more than max bytes (1 GiB above,
 * the whole-file limit of tc_read_file) with "record is too long: 'PATH'
 * (more than N bytes)"; strict as tc_analysis__csv_file_each_strict. */
int tc_analysis__csv_file_each_sized(const char *path, size_t piece,
    size_t max, bool strict, an_csv_fn fn, void *ctx, tc_error *err);

/* ---- string maps (map.c) ------------------------------------------------- */

/* A hash map from strings to size_t, keys copied. */
struct an_map {
	char **keys;
	size_t *vals;
	size_t cap, len;
};
/* The value slot of key, created as 0 when absent (*created says so). */
size_t *tc_analysis__map_slot(struct an_map *m, const char *key, bool *created);
/* The value slot of key, or NULL. */
size_t *tc_analysis__map_find(const struct an_map *m, const char *key);
void tc_analysis__map_free(struct an_map *m);

/*
 * A line of CSV text s[0..len) read whole when it is plain: no quote and
 * no CR.  Its commas' offsets go to at[0..] (at most max of them) and
 * their number is returned; -1 when the line is not plain or has more
 * commas than max (the caller then reads it byte by byte).
 */
#define AN_PLAIN_COMMAS	256
long tc_analysis__csv_plain_commas(const char *s, size_t len, uint32_t *at,
    size_t max);

/* A hash map from pairs of 64-bit numbers to size_t. */
struct an_nmap {
	uint64_t *ka, *kb;
	size_t *vals;
	unsigned char *used;
	size_t cap, len;
};
size_t *tc_analysis__nmap_slot(struct an_nmap *m, uint64_t a, uint64_t b,
    bool *created);
size_t *tc_analysis__nmap_find(const struct an_nmap *m, uint64_t a,
    uint64_t b);
void tc_analysis__nmap_free(struct an_nmap *m);
/* A number as a key: equal keys for equal numbers (0.0 and -0.0 too). */
uint64_t tc_analysis__num_key(double v);

/* ---- the analysis (fusion.c) --------------------------------------------- */

/* _mapping_coverage of per_sk_decisions: one entry per (device, model,
 * raw SK id), its child count bucket, confidence and mapping blockers. */
tc_json *tc_analysis__mapping_coverage(const tc_json *decisions);

/* ---- the origin graph (graph.c) ------------------------------------------ */

/* canonical_op: the operator token of a launch name or node type
 * ("MatMulV2_1" -> "MatMulV2", "UNKNOWN" for none).  malloc'd. */
char *tc_analysis__canonical_op(const char *text);
/* canonical_core_family: AI_CORE, AI_VECTOR_CORE, CONTROL, COMMUNICATION
 * or UNKNOWN. */
const char *tc_analysis__canonical_core_family(const char *text);
/* One node of an origin graph.  key "sk:n%06d" counts every node (control
 * nodes too) stream by stream; stream_key "sk:s%06d" is its stream's rank
 * in the natural order of streamIdxInGraph. */
struct an_gnode {
	char key[32], stream_key[32];
	size_t stream, pos;		/* stream rank, ordinal in it */
	int64_t node_id;
	bool has_node_id;
	char *kind;			/* nodeType upper-cased */
	char *op;			/* canonical_op */
	const char *family;		/* canonical_core_family */
	char *func_name;		/* KERNEL nodes; may be NULL */
	char *kernel_type;		/* KERNEL nodes' kernelType; may be NULL */
	bool topology_only, has_event;
	int64_t event;
};
int tc_analysis__graph_nodes(const tc_json *origin, struct an_gnode **out,
    size_t *n, size_t *nstreams, tc_error *err);
void tc_analysis__gnodes_free(struct an_gnode *v, size_t n);

/* fused_meta.c: one SK group of the candidate's fused metadata, as the
 * structural association reads it. */
struct an_fgroup {
	bool has_device, has_model, has_sk;
	int64_t device, model, sk;
	char *name;			/* "" when the header did not parse */
	bool has_boundary;
	char *scope, *start_op, *end_op;	/* canonical ops */
	size_t *node, nnode;		/* children: graph node indices */
	size_t *kernel, nkernel;	/* the kernel children among them */
	const char **blockers;		/* metadata_*, static strings */
	size_t nblockers;
	char fingerprint[65];		/* SHA-256 of its log */
};
struct an_fgroups {
	struct an_fgroup *v;
	size_t n;
};
/* Appends the groups of one fused log (rel: its path in the capture) read
 * against the origin graph's nodes of graph_device/graph_model; -1 with
 * err when the log is not UTF-8. */
int tc_analysis__fused_meta_parse(const char *raw, size_t len, const char *rel,
    const struct an_gnode *gn, size_t nn, int64_t graph_device,
    const char *graph_model, struct an_fgroups *out, tc_error *err);
/* After every log: what one failure spreads, duplicates, the order. */
void tc_analysis__fused_meta_finish(struct an_fgroups *g);
void tc_analysis__fgroups_free(struct an_fgroups *g);
/* Splits an SK name as the structural loader does (names.c). */
bool tc_analysis__sk_name_parts(const char *name, int64_t *sk, char **scope,
    char **start, char **end);
/* ASCII canonical JSON (sorted keys, compact).  malloc'd. */
char *tc_analysis__ascii_cj(const tc_json *v);
/* One structural edge between stream positions. */
struct an_sedge {
	size_t src, sp, dst, dp;
	const char *kind;
};
/* The smallest serialization of the streams (labels: cj of each stream's
 * label list lab) over their canonical orders, symmetric streams
 * included; NULL with err past the search's bound.  malloc'd. */
char *tc_analysis__canonical_streams(const char *const *labels,
    tc_json *const *lab, size_t ns, const struct an_sedge *edges, size_t ne,
    tc_error *err);
/* The canonical fingerprint of an sk_graph_origin document (the
 * projection's profile_origin_graph_fingerprint). */
int tc_analysis__graph_fingerprint(const tc_json *origin, char hex[65],
    tc_error *err);

/* ---- scope sentinels (sentinel.c) ----------------------------------------- */

/* The kind of a sentinel function name (0 scope_kernel_begin, 1
 * placeholder_kernel, 2 scope_kernel_end; *tag its number) or -1. */
int tc_analysis__sentinel_match(const char *func_name, const char **tag);
/* Insert s into a sorted list of strings unless it is there (order
 * by cmp). */
void tc_analysis__list_insert_sorted(tc_json *list, const char *s,
    int (*cmp)(const char *, const char *));
/* A projected operator of a sentinel row (sk_..._dav). */
bool tc_analysis__sentinel_op(const char *op);
/* _sentinel_chain_proposal of a graph's nodes: status (not_present,
 * proposed, rejected), node_keys, function_names, stream_role(s), tags,
 * occurrence_count, signature, blockers. */
tc_json *tc_analysis__sentinel_proposal(const struct an_gnode *nodes,
    size_t n);
/* The 14-key scope_sentinel_exclusion_v2 object of a proposal. */
tc_json *tc_analysis__sentinel_evidence(const tc_json *proposal);
/* The capture's sk_graph_updated documents of the model: how many, and
 * the sentinel funcNames any of them keeps (added to visible, sorted). */
int tc_analysis__sentinel_updated_graphs(const char *root,
    const tc_json *manifest, int64_t model, int64_t *checked,
    tc_json *visible, tc_error *err);

/* ---- the kernel projection (projection.c) -------------------------------- */

/* A candidate SK row as the projection reads it (texts stripped). */
struct an_sk_row {
	int64_t device, model, sk, step;
	char *start_text, *dur_text;	/* side by side in a chunk of texts */
	bool owns_text;			/* start_text begins its chunk */
};
/* The SK rows of a candidate kernel_details.csv (malloc'd array). */
int tc_analysis__candidate_sk_rows(const char *csv_path,
    struct an_sk_row **out, size_t *n, tc_error *err);
void tc_analysis__sk_rows_free(struct an_sk_row *rows, size_t n);
/* One baseline occurrence of a projection mapping: in a required step,
 * its projected children's span, summed duration and covered union. */
struct an_bocc {
	int64_t step;
	double interval_us, duration_sum_us, union_us;
};
/*
 * One mapping of a trace: its tree (an item of the trace's "mappings")
 * holds null placeholders for the per-step occurrences, which are kept
 * here as records (and written in their place by the trace's writer).
 */
struct an_tmap {
	const tc_json *m;
	const tc_json *bocc_ph, *cocc_ph;	/* the placeholders in m */
	struct an_bocc *bocc;
	size_t nbocc;
	int64_t *first_streams;	/* the first baseline occurrence's
				 * children's streams, in child order */
	size_t nfirst;
	const struct an_sk_row **cocc;	/* the candidate occurrences: rows
					 * of the caller's array */
	size_t ncocc;
};
/* A kernel_projection_trace_v2 document and its mappings' records. */
struct an_trace {
	tc_json *doc;
	struct an_tmap *maps;	/* in the order of doc's "mappings" */
	size_t nmaps;
};
/* The SK-off kernel_details.csv's rows, read once for every (device,
 * model) a projection asks for (projection.c); never NULL: a file that
 * could not be read fails each projection with its error. */
struct an_baseline;
struct an_baseline *tc_analysis__baseline_read(const char *csv_path);
void tc_analysis__baseline_free(struct an_baseline *b);
/* The rows kept (those with a Stream ID of digits), or SIZE_MAX when the
 * file could not be read. */
size_t tc_analysis__baseline_count(const struct an_baseline *b);
/* That read as a job: on a second thread from now (thread, and one can
 * start), else when joined.  Join hands over the rows of csv_path (read
 * there if the thread was reading another path), or, csv_path NULL,
 * stops the thread and hands over whatever it read, to be freed.  A job
 * is joined exactly once. */
struct an_baseline_job;
struct an_baseline_job *tc_analysis__baseline_start(const char *csv_path,
    bool thread);
struct an_baseline *tc_analysis__baseline_join(struct an_baseline_job *j,
    const char *csv_path);
/* The trace of (device, model) into *out: manifest is the candidate
 * profile's collection manifest, root its directory, bhex the SHA-256
 * of the baseline's file, rows the candidate's SK rows (out->maps point
 * into them); -1 with err when the projection cannot be built. */
int tc_analysis__projection_trace(const struct an_baseline *base,
    const char *bhex, const tc_json *manifest, const char *root,
    int64_t device, int64_t model, const struct an_sk_row *rows, size_t n,
    struct an_trace *out, tc_error *err);
void tc_analysis__trace_free(struct an_trace *t);

/* ---- the structural association (structural.c) ------------------------ */

/* One candidate binding occurrence: its step and parent interval
 * [start, end) in whole nanoseconds (as text where beyond int64). */
struct an_bind_occ {
	int64_t step;
	int64_t ns[2];
	char *ns_text[2];	/* NULL unless ns does not hold the value */
};

/* A plain decimal's text (digits, at most one point, one digit at
 * least): how a profiler writes a time, a finite non-negative Decimal. */
struct an_plain {
	size_t digits;		/* all of them */
	size_t sig;		/* from the first nonzero one on */
	size_t frac;		/* after the point */
	uint64_t v;		/* their value, when sig <= 19 */
};
/* Whether s is such a text, described in *p. */
bool tc_analysis__plain_decimal(const char *s, struct an_plain *p);

/*
 * A candidate occurrence's parent interval in nanoseconds from its start
 * and duration texts: int(start * 1000) and int((start +
 * Decimal(repr(float(duration)))) * 1000) in Decimal's 28-digit context
 * (ns_text[i] the digits, malloc'd, where ns[i] cannot hold them, else
 * NULL).  _exact always takes the decimal arithmetic; the other first
 * tries 128-bit integers, which give the same for a profiler's times.
 */
void tc_analysis__interval_ns(const char *start, const char *dur,
    int64_t ns[2], char *ns_text[2]);
void tc_analysis__interval_ns_exact(const char *start, const char *dur,
    int64_t ns[2], char *ns_text[2]);

/*
 * For tests: a baseline occurrence's interval, summed duration and union
 * (out[0..2]) from its n >= 1 children's start and duration texts
 * (finite non-negative decimals), by the projection's decimal
 * arithmetic (exact) or as the projection takes them (128-bit integers
 * where they hold the times); 1 when the integers did, else 0.
 */
int tc_analysis__occurrence_times(const char *const *start,
    const char *const *dur, size_t n, bool exact, double out[3]);

/* One fused SK's binding: the mapping of its (device, model, sk id). */
struct an_binding {
	int64_t device, model, sk;
	bool valid;			/* the mapping is exact */
	const tc_json *mapping;		/* in its trace */
	const struct an_tmap *tm;	/* its records */
	const char *status;		/* bound or blocked */
	int64_t child_count;		/* its candidate binding's: the
					 * mapping's, 0 without occurrences */
	char occurrence_fp[65];		/* graph_occurrence_fingerprint */
	const char *mapping_fp;		/* its trace's mapping_fingerprint */
	tc_json *evidence_fps;		/* its occurrences' evidence_fingerprints */
	struct an_bind_occ *occ;	/* one per candidate occurrence */
	size_t nocc;
};

struct an_structural {
	struct an_trace *traces;
	size_t ntraces;
	struct an_binding *b;
	size_t nb;
	tc_json *native_pid;		/* the producer's, or NULL */
	/* the analysis' objects, keyed "device:D/model:M[/sk:S]";
	 * occurrences is a null placeholder that
	 * tc_analysis__occurrences_hook() writes (occ_ph stays its identity
	 * once the report owns it) */
	tc_json *mapping_fps, *exclusions, *occurrences, *summary;
	const tc_json *occ_ph;
	tc_json *graph_fps, *stream_roles, *proofs;
	/* what every SK of a trace repeats (its stream_role_mapping and
	 * alternative_solution_count_by_step) is the trace's own tree, not
	 * a copy per SK: the objects above hold null placeholders, sorted
	 * here by address, that the hook writes as the trace's value */
	struct an_shared { const tc_json *ph, *value; } *shared;
	size_t nshared;
};
/* Project every (device, model) of the candidate's SK rows onto the
 * rows of baseline_csv (bhex its SHA-256), which job reads (joined once
 * the candidate's rows are read; structural owns it). */
int tc_analysis__structural(struct an_baseline_job *job,
    const char *baseline_csv, const char *bhex, const tc_json *manifest,
    const char *manifest_path, const char *candidate_csv,
    struct an_structural *out, tc_error *err);
void tc_analysis__structural_free(struct an_structural *s);
/* The binding of a candidate SK (model as its text), or NULL. */
const struct an_binding *tc_analysis__binding(const struct an_structural *s,
    an_num device, const char *model, an_num raw_sk_id);
/* The original object of a bound SK (NULL unless valid); iv gets its
 * interval statistics, ds its duration-sum ones. */
tc_json *tc_analysis__binding_original(const struct an_binding *b,
    struct an_stats *iv, struct an_stats *ds);
/* tc_analysis_markdown() of a report whose binding occurrences are st's
 * records (its placeholder), or, st NULL, the report's own array. */
char *tc_analysis__markdown(const tc_json *report,
    const struct an_structural *st, tc_error *err);
/* The value a placeholder of s stands for (NULL: not one of s's). */
const tc_json *tc_analysis__shared_value(const struct an_structural *s,
    const tc_json *ph);
/* The hook (tc_json_write_hook) that writes the occurrences of
 * candidate_binding_evidence in place of s->occ_ph, and the shared
 * values in place of their placeholders; ctx is s. */
bool tc_analysis__occurrences_hook(void *ctx, const tc_json *ph,
    tc_json_emitter *e);

/* ---- source_scope_map_v2 bundles (smap.c) ------------------------------ */

/* What the bundle must be bound to: --source-revision, the SHA-256 of the
 * two collection manifests and --source-root (each NULL when not given);
 * require_current: an exact map needs all three (the analysis). */
struct an_smap_expect {
	const char *source_revision;
	const char *candidate_manifest_sha256, *baseline_manifest_sha256;
	const char *source_root;
	bool require_current;
};
/* mapping: the source_scope_mapping object; lookup: the exact source
 * ranges by sk_occurrence_fingerprint (empty unless exact). */
struct an_smap {
	tc_json *mapping, *lookup;
};
/* Load --source-scope-map (path NULL: not requested; no v2 protocol: the
 * legacy diagnostic map), validating a v2 bundle fail-closed: -1 with the
 * reference's message when any check fails. */
int tc_analysis__smap_load(const char *path, const struct an_smap_expect *x,
    struct an_smap *out, tc_error *err);
void tc_analysis__smap_free(struct an_smap *s);
/* resolve_evidence_path(root, value, label): a safe relative path under
 * the resolved root, never a link, never outside it.  malloc'd. */
char *tc_analysis__smap_resolve(const char *root, const tc_json *value,
    const char *label, tc_error *err);
/* validate_marker_only_calibration: the bridge rebuilt from the stable
 * and calibration manifests and snapshot roots equals value. */
int tc_analysis__marker_bridge_check(const tc_json *value,
    const tc_json *stable, const tc_json *calibration,
    const char *stable_root, const char *calibration_root, tc_error *err);
/* The reference's load_json(path, label): UTF-8, JSON, no NaN ("LABEL is
 * invalid JSON: ...", "LABEL contains invalid constant NaN"). */
tc_json *tc_analysis__smap_load_json(const char *path, const char *label,
    tc_error *err);
/* The lookup entry that makes a structurally exact binding a
 * source_scope_map / exact mapping, or NULL. */
const tc_json *tc_analysis__smap_exact_entry(const struct an_smap *s,
    const struct an_binding *b, const tc_json *device_id, const char *model,
    const tc_json *identity);

/* The reference's require_text and require_sha256 (smap.c): the string,
 * or NULL with "LABEL must be a non-empty trimmed string" / "... must be
 * a lowercase SHA-256 hex digest". */
const char *tc_analysis__smap_text(const tc_json *v, const char *label,
    tc_error *err);
const char *tc_analysis__smap_sha256(const tc_json *v, const char *label,
    tc_error *err);
/* require_object and require_list ("LABEL must be an object" / "... a
 * list"), and Python's == with a missing member read as None. */
const tc_json *tc_analysis__smap_object(const tc_json *v, const char *label,
    tc_error *err);
const tc_json *tc_analysis__smap_list(const tc_json *v, const char *label,
    tc_error *err);
bool tc_analysis__smap_same(const tc_json *a, const tc_json *b);
/* build_sk_source_map (smap_skmap.c): the sk_source_map_v1 rebuilt from
 * the calibration projection, the source manifest, the block instance
 * inventory, the original fused inventory, the unit assignments and, for
 * stable_source, the calibration source manifest (else NULL); NULL with
 * the reference's message. */
tc_json *tc_analysis__skmap_build(const tc_json *projection,
    const tc_json *source, const tc_json *blocks, const tc_json *fused,
    const tc_json *assignments, const tc_json *calibration_source,
    tc_error *err);
/* project_graphs (smap_project.c): the source_calibration_projection_v2
 * of two normalized business graphs with the runtime validation list
 * (NULL or empty: none), the evidence catalog (NULL: {}) and the
 * collection fingerprints (NULL or "": the graphs'); NULL with the
 * reference's message. */
tc_json *tc_analysis__project_graphs(const tc_json *original,
    const tc_json *calibration, const tc_json *runtime, const tc_json *catalog,
    const tc_json *original_fp, const tc_json *calibration_fp, tc_error *err);
/* The work the correspondence search may spend before it gives up
 * (smap_project.c, 10^10 units); tests lower it. */
extern unsigned long long tc_analysis__search_work_max;
/* source_calibration_projection_v2's protocol_versions object. */
tc_json *tc_analysis__projection_versions(void);

/* ---- small JSON helpers (names.c) -------------------------------------- */

/* Append s to a list unless it is already there (dict.fromkeys order). */
void tc_analysis__list_add_unique(tc_json *list, const char *s);
bool tc_analysis__list_has(const tc_json *list, const char *s);
/* SHA-256 of the ASCII canonical JSON; -1 with err for NaN and the like. */
int tc_analysis__ascii_digest(const tc_json *v, char hex[65], tc_error *err);
/* Where v holds a non-finite float, err says so as artifact_contract.py's
 * JSON check does ("$.a.b[0] must contain only standard JSON values",
 * the location cut to 96 code points); 0, or -1 when v holds none. */
int tc_analysis__nonstandard_error(const tc_json *v, tc_error *err);

#endif
