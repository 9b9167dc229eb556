/*
 * projection.c - the kernel projection (kernel_projection_trace_v2) of one
 * (device, model): the fused children of the candidate's origin graph
 * mapped, step by step, onto the rows of the SK-off kernel_details.csv.
 *
 * The origin graph's kernel nodes (control nodes dropped) form one token
 * sequence per stream; every baseline step must hold the same number of
 * streams, each with a sequence equal to exactly one source stream's, so
 * that the stream roles have one injective assignment.  A fused child is
 * then the baseline row at its kernel ordinal in the assigned stream.
 * Start times and durations stay exact decimals until the per-occurrence
 * interval, duration sum and union are taken.
 *
 * The result is the trace document, fingerprinted (mapping_fingerprint)
 * over everything it holds; the caller owns it.  The per-step occurrences
 * of each mapping (one object per SK and step, with one per child: most
 * of a trace) are never built as a tree: the tree holds null
 * placeholders and the records beside it are written in their place
 * while the fingerprint is taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "tunectl/decimal.h"
#include "tunectl/fileio.h"
#include "tunectl/heap.h"
#include "tunectl/path.h"
#include "tunectl/text.h"

static long
column(const struct an_csv_rec *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (strcmp(h->f[i], name) == 0)
			return (long)i;
	return -1;
}

/* The stripped text of column c (absent: "None", as DictReader's
 * restval str()s). malloc'd. */
static char *
cell(const struct an_csv_rec *r, long c)
{
	if (c < 0 || (size_t)c >= r->n)
		return tc_xstrdup("None");
	return tc_analysis__strip_dup(r->f[c], strlen(r->f[c]));
}

/* The same text without a copy: field c is stripped in place (which
 * cell() and a second cell_view() then see unchanged), or the literal
 * "None".  Valid until the record's callback returns. */
static const char *
cell_view(const struct an_csv_rec *r, long c)
{
	char *s;
	size_t n, a, e;

	if (c < 0 || (size_t)c >= r->n)
		return "None";
	s = r->f[c];
	n = strlen(s);
	/* printable ASCII at both ends: nothing to strip */
	if (n > 0 && s[0] > ' ' && s[0] < 0x7f && s[n - 1] > ' ' &&
	    s[n - 1] < 0x7f)
		return s;
	tc_py_strip(s, n, &a, &e);
	s[e] = '\0';
	return s + a;
}

/* The candidate rows' texts are kept in chunks of this size. */
#define TEXT_CHUNK	((size_t)64 * 1024)

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * All digits, and an int64: the projection keys rows by int64 ids, so a
 * longer id (which would saturate or overflow) cannot name a device,
 * model, step or SK of a graph and its row is not kept.
 */
static bool
int64_digits(const char *s)
{
	if (!all_digits(s))
		return false;
	errno = 0;
	(void)strtoll(s, NULL, 10);
	return errno == 0;
}

bool
tc_analysis__plain_decimal(const char *s, struct an_plain *p)
{
	bool point = false;

	memset(p, 0, sizeof(*p));
	for (; *s != '\0'; s++) {
		if (*s >= '0' && *s <= '9') {
			if (p->sig > 0 || *s != '0')
				p->sig++;
			p->digits++;
			p->frac += point;
			if (p->sig <= 19)
				p->v = p->v * 10 + (uint64_t)(*s - '0');
		} else if (*s == '.' && !point) {
			point = true;
		} else {
			return false;
		}
	}
	return p->digits > 0;
}

/* A finite, non-negative (positive) decimal. */
static bool
decimal_of(const char *s, bool positive, tc_dec *out)
{
	bool nonzero;

	if (!tc_dec_parse(out, s, strlen(s)))
		return false;
	nonzero = !tc_dec_is_zero(out);
	/* not below zero; above it when positive */
	return !(out->sign && nonzero) && (!positive || nonzero);
}

/* Whether s is what decimal_of() accepts, its value not needed: a plain
 * text is checked without a parse (scratch: for any other). */
static bool
decimal_ok(const char *s, bool positive, tc_dec *scratch)
{
	struct an_plain pd;

	if (tc_analysis__plain_decimal(s, &pd))
		return !positive || pd.sig > 0;
	return decimal_of(s, positive, scratch);
}

/* ---- tokens ------------------------------------------------------------- */

/* projection_op(name, core): the operator a graph node and a profiler
 * row share.  malloc'd. */
static char *
projection_op(const char *name, const char *core)
{
	char *op, *us;

	if (strcmp(tc_analysis__canonical_core_family(core),
	    "COMMUNICATION") == 0)
		return tc_xstrdup("COMMUNICATION");
	op = tc_analysis__canonical_op(name);
	if (strncasecmp(op, "aclnn", 5) == 0 && (us = strrchr(op, '_')) !=
	    NULL)
		memmove(op, us + 1, strlen(us + 1) + 1);
	return op;
}

static const char *
projection_core(const char *core, const char *op)
{
	const char *f = tc_analysis__canonical_core_family(core);

	if (strcmp(f, "UNKNOWN") == 0 && op != NULL)
		f = tc_analysis__canonical_core_family(op);
	return f;
}

/* ---- the baseline rows of one device and model --------------------------- */

/*
 * An exact time of a row without an allocation of its own: the
 * coefficient in one limb (msprof writes a few digits after the point),
 * or, past one limb, a whole decimal on the heap.  ptime_dec() lends a
 * read-only tc_dec of it, for reading only (never set or cleared).
 */
struct ptime {
	union {
		mp_limb_t limb;
		tc_dec *big;
	} u;
	int32_t exp;
	unsigned char sign;
	bool big;
};

static void
ptime_set(struct ptime *t, const tc_dec *d)
{
	t->big = mpz_size(d->coef) > 1 || d->exp < INT32_MIN ||
	    d->exp > INT32_MAX;
	if (t->big) {
		t->u.big = tc_xmalloc(sizeof(*t->u.big));
		tc_dec_init(t->u.big);
		tc_dec_set(t->u.big, d);
		return;
	}
	t->u.limb = mpz_getlimbn(d->coef, 0);
	t->exp = (int32_t)d->exp;
	t->sign = (unsigned char)d->sign;
}

static const tc_dec *
ptime_dec(const struct ptime *t, tc_dec *view)
{
	if (t->big)
		return t->u.big;
	view->sign = t->sign;
	view->exp = t->exp;
	mpz_roinit_n(view->coef, &t->u.limb, t->u.limb != 0 ? 1 : 0);
	return view;
}

/* Numeric order of two times; the rows' times are never below zero, so
 * one-limb coefficients of one exponent compare as they are. */
static int
ptime_cmp(const struct ptime *a, const struct ptime *b)
{
	tc_dec va, vb;

	if (!a->big && !b->big && a->exp == b->exp)
		return a->u.limb < b->u.limb ? -1 : a->u.limb > b->u.limb;
	return tc_dec_cmp(ptime_dec(a, &va), ptime_dec(b, &vb));
}

static void
ptime_clear(struct ptime *t)
{
	if (t->big) {
		tc_dec_clear(t->u.big);
		free(t->u.big);
		t->big = false;
	}
}

/*
 * A plain decimal of up to 19 digits ("0012.50", ".5", "5.") as a time:
 * what the decimal module reads, the same value with the same exponent
 * (1250 scaled by 10^-2); false for any other spelling.
 */
static bool
plain_time(struct ptime *t, const char *s)
{
	struct an_plain pd;

	if (!tc_analysis__plain_decimal(s, &pd) || pd.digits > 19)
		return false;
	t->big = false;
	t->u.limb = pd.v;
	t->exp = -(int32_t)pd.frac;
	t->sign = 0;
	return true;
}

/* A candidate time's text (checked as the rows were read) as a time. */
static void
text_ptime(struct ptime *t, const char *s)
{
	tc_dec d;

	if (plain_time(t, s))
		return;
	tc_dec_init(&d);
	(void)tc_dec_parse(&d, s, strlen(s));
	ptime_set(t, &d);
	tc_dec_clear(&d);
}

struct pname;

/* What keeps a row out of every projection of its device and model. */
enum { ROW_OK, ROW_BAD_STEP, ROW_BAD_START, ROW_BAD_DURATION };

/* 80 bytes on LP64: a million-row profile keeps a million of these. */
struct prow {
	size_t source_row;
	int64_t step, stream, task;
	const struct pname *pn;	/* name, op and core family, kept once */
	struct ptime start, dur;
	bool has_task;
	unsigned char bad;	/* ROW_*: the fields past it are unset */
	uint32_t dm;		/* its (device, model) texts: an_baseline.dm */
};

/* A kernel's name, as rows give it, and what it projects to: a profile
 * repeats a few hundred names a million times, so each is kept once. */
struct pname {
	char *name, *op;
	const char *core;
	uint32_t id;		/* its index in an_baseline.names */
};

/*
 * The baseline's rows as every projection reads them: the rows of every
 * (device, model) at once, so that the file is read once however many
 * pairs the candidate holds (and can be read on a second thread while
 * the analysis reads its profiles).  A row that would fail the
 * projection of its pair is kept with the reason, which fails only that
 * pair's; a file that cannot be read fails them all.
 */
struct an_baseline {
	int rc;			/* reading failed: err says why */
	tc_error err;
	atomic_bool cancel;	/* the read's result is not wanted: stop */
	long col[10];
	bool header_seen;
	struct prow *rows;
	size_t n, cap;
	size_t rows_hint;	/* rows the file's size allows at most about */
	struct an_map name_of;	/* core "\x1f" name -> index in names */
	struct pname **names;	/* each allocated once: rows point at them */
	size_t nnames, names_cap;
	struct an_map dm_of;	/* device and model texts -> index in dm */
	char **dm;		/* the Device_id text, NUL, the Model ID text */
	size_t ndm, dm_cap;
	uint32_t last_dm;	/* the pair of the row before */
	tc_buf key;		/* scratch */
	tc_dec num;		/* scratch: a time as read */
};

/* The interned name, op and core family of a (name, core) cell pair. */
static const struct pname *
pbase_name(struct an_baseline *b, const char *name, const char *core)
{
	struct pname *pn;
	size_t *slot;
	bool created;

	tc_buf_reset(&b->key);
	tc_buf_puts(&b->key, core);
	tc_buf_putc(&b->key, '\x1f');
	tc_buf_puts(&b->key, name);
	slot = tc_analysis__map_slot(&b->name_of, tc_buf_cstr(&b->key),
	    &created);
	if (!created)
		return b->names[*slot];
	if (b->nnames == b->names_cap) {
		b->names_cap = b->names_cap ? 2 * b->names_cap : 64;
		b->names = tc_xrealloc(b->names,
		    b->names_cap * sizeof(*b->names));
	}
	pn = b->names[b->nnames] = tc_xmalloc(sizeof(*pn));
	pn->name = tc_xstrdup(name);
	pn->op = projection_op(name, core);
	pn->core = projection_core(core, name);
	if (b->nnames == UINT32_MAX)
		abort();	/* four billion names: rows would not fit */
	pn->id = (uint32_t)b->nnames;
	*slot = b->nnames++;
	return pn;
}

/* Whether a kept pair (device text, NUL, model text) is dev and model. */
static bool
dm_is(const char *pair, const char *dev, const char *model)
{
	return strcmp(pair, dev) == 0 &&
	    strcmp(pair + strlen(pair) + 1, model) == 0;
}

/* The index of a row's (device, model) texts, kept once. */
static uint32_t
pbase_dm(struct an_baseline *b, const char *dev, const char *model)
{
	size_t dl = strlen(dev), ml = strlen(model), *slot;
	bool created;

	/* rows mostly repeat the pair of the row before */
	if (b->ndm > 0 && dm_is(b->dm[b->last_dm], dev, model))
		return b->last_dm;
	/* the device's length first: texts may hold any byte */
	tc_buf_reset(&b->key);
	tc_buf_printf(&b->key, "%zu:", dl);
	tc_buf_add(&b->key, dev, dl);
	tc_buf_add(&b->key, model, ml);
	slot = tc_analysis__map_slot(&b->dm_of, tc_buf_cstr(&b->key),
	    &created);
	if (!created)
		return b->last_dm = (uint32_t)*slot;
	if (b->ndm == UINT32_MAX)
		abort();	/* four billion pairs: rows would not fit */
	if (b->ndm == b->dm_cap) {
		b->dm_cap = b->dm_cap ? 2 * b->dm_cap : 8;
		b->dm = tc_xrealloc(b->dm, b->dm_cap * sizeof(*b->dm));
	}
	b->dm[b->ndm] = tc_xmalloc(dl + ml + 2);
	memcpy(b->dm[b->ndm], dev, dl + 1);
	memcpy(b->dm[b->ndm] + dl + 1, model, ml + 1);
	*slot = b->ndm++;
	return b->last_dm = (uint32_t)*slot;
}

enum {
	C_STEP, C_DEVICE, C_MODEL, C_TASK, C_STREAM, C_NAME, C_TYPE, C_CORE,
	C_START, C_DUR
};
static const char *const base_cols[10] = {
	"Step Id", "Device_id", "Model ID", "Task ID", "Stream ID", "Name",
	"Type", "Accelerator Core", "Start Time(us)", "Duration(us)"
};

/* decimal_of() into a time (num: scratch); false leaves t unset. */
static bool
time_of(struct ptime *t, const char *s, bool positive, tc_dec *num)
{
	/* a plain decimal is never below zero */
	if (plain_time(t, s))
		return !positive || t->u.limb != 0;
	if (!decimal_of(s, positive, num))
		return false;
	ptime_set(t, num);
	return true;
}

static int
base_record(void *vctx, const struct an_csv_rec *rec, size_t recno,
    tc_error *err)
{
	struct an_baseline *b = vctx;
	const char *dev, *model, *stream, *step, *task, *name, *core, *start;
	const char *dur;
	struct prow *r;
	size_t i;

	if (!b->header_seen) {
		b->header_seen = true;
		for (i = 0; i < 10; i++)
			if ((b->col[i] = column(rec, base_cols[i])) < 0) {
				tc_error_set(err, "baseline kernel_details headers "
				    "are incomplete");
				return -1;
			}
		return 0;
	}
	if (recno % 4096 == 0 &&
	    atomic_load_explicit(&b->cancel, memory_order_relaxed)) {
		tc_error_set(err, "the baseline's read was cancelled");
		return -1;
	}
	dev = cell_view(rec, b->col[C_DEVICE]);
	model = cell_view(rec, b->col[C_MODEL]);
	stream = cell_view(rec, b->col[C_STREAM]);
	if (!all_digits(stream))
		return 0;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : b->rows_hint > 256 ?
		    b->rows_hint : 256;
		b->rows = tc_xrealloc(b->rows, b->cap * sizeof(*b->rows));
		if (b->n == 0)
			tc_heap_hint(b->rows, b->cap * sizeof(*b->rows));
	}
	r = &b->rows[b->n];
	memset(r, 0, sizeof(*r));
	b->n++;
	r->source_row = recno;
	r->dm = pbase_dm(b, dev, model);
	step = cell_view(rec, b->col[C_STEP]);
	if (!all_digits(step)) {
		r->bad = ROW_BAD_STEP;
		return 0;
	}
	task = cell_view(rec, b->col[C_TASK]);
	name = cell_view(rec, b->col[C_NAME]);
	core = cell_view(rec, b->col[C_CORE]);
	start = cell_view(rec, b->col[C_START]);
	dur = cell_view(rec, b->col[C_DUR]);
	r->step = strtoll(step, NULL, 10);
	r->stream = strtoll(stream, NULL, 10);
	r->has_task = all_digits(task);
	r->task = r->has_task ? strtoll(task, NULL, 10) : 0;
	r->pn = pbase_name(b, name, core);
	if (!time_of(&r->start, start, false, &b->num)) {
		r->bad = ROW_BAD_START;
		return 0;
	}
	if (!time_of(&r->dur, dur, true, &b->num)) {
		r->bad = ROW_BAD_DURATION;
		return 0;
	}
	return 0;
}

/* The rows of (dev, model) into *out (n of them), or -1 with err: the
 * file could not be read, or one of these rows fails the projection
 * (the first, as a read of this pair alone would stop there). */
static int
pbase_pair(const struct an_baseline *b, const char *dev, const char *model,
    struct prow ***out, size_t *n, tc_error *err)
{
	static const char *const why[] = { NULL, "has invalid Step Id",
	    "start is not a finite decimal",
	    "duration is not a finite decimal" };
	size_t i, k = b->ndm;

	*out = NULL;
	*n = 0;
	if (b->rc != 0) {
		tc_error_set(err, "%s", tc_error_msg(&b->err));
		return -1;
	}
	if (!b->header_seen) {
		tc_error_set(err, "baseline kernel_details headers are "
		    "incomplete");
		return -1;
	}
	for (i = 0; i < b->ndm && k == b->ndm; i++)
		if (dm_is(b->dm[i], dev, model))
			k = i;
	*out = tc_xmalloc((b->n + 1) * sizeof(**out));
	for (i = 0; i < b->n && k < b->ndm; i++) {
		struct prow *r = &b->rows[i];

		if (r->dm != k)
			continue;
		if (r->bad != ROW_OK) {
			tc_error_set(err, "baseline row %zu %s", r->source_row,
			    why[r->bad]);
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
		(*out)[(*n)++] = r;
	}
	return 0;
}

void
tc_analysis__baseline_free(struct an_baseline *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++) {
		ptime_clear(&b->rows[i].start);
		ptime_clear(&b->rows[i].dur);
	}
	free(b->rows);
	tc_dec_clear(&b->num);
	for (i = 0; i < b->nnames; i++) {
		free(b->names[i]->name);
		free(b->names[i]->op);
		free(b->names[i]);
	}
	free(b->names);
	tc_analysis__map_free(&b->name_of);
	for (i = 0; i < b->ndm; i++)
		free(b->dm[i]);
	free(b->dm);
	tc_analysis__map_free(&b->dm_of);
	tc_buf_free(&b->key);
	tc_error_clear(&b->err);
	free(b);
}

static int read_csv(const char *path, bool strict, an_csv_fn fn, void *ctx,
    tc_error *err);

size_t
tc_analysis__baseline_count(const struct an_baseline *b)
{
	return b->rc != 0 ? SIZE_MAX : b->n;
}

static struct an_baseline *
baseline_new(void)
{
	struct an_baseline *b = tc_xcalloc(1, sizeof(*b));

	tc_dec_init(&b->num);
	atomic_init(&b->cancel, false);
	return b;
}

/*
 * Room for the rows at once: a profile's rows are rarely shorter than
 * 64 bytes, so its size over 64 is about as many as it can hold; the
 * array is then filled without being copied as it grows, and the pages
 * of what is not filled are never touched.
 */
static void
baseline_hint(struct an_baseline *b, const char *csv_path)
{
	struct stat st;

	if (stat(csv_path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0 && (uint64_t)st.st_size / 64 < SIZE_MAX /
	    sizeof(*b->rows) / 2)
		b->rows_hint = (size_t)st.st_size / 64;
}

struct an_baseline *
tc_analysis__baseline_read(const char *csv_path)
{
	struct an_baseline *b = baseline_new();

	baseline_hint(b, csv_path);
	b->rc = read_csv(csv_path, false, base_record, b, &b->err);
	return b;
}

/* ---- the baseline read on a second thread ----------------------------- */

struct an_baseline_job {
	char *path;
	pthread_t thread;
	bool started;
	struct an_baseline *base;	/* the thread's until joined */
};

static void *
baseline_main(void *arg)
{
	struct an_baseline_job *j = arg;

	baseline_hint(j->base, j->path);
	j->base->rc = read_csv(j->path, false, base_record, j->base,
	    &j->base->err);
	return NULL;
}

struct an_baseline_job *
tc_analysis__baseline_start(const char *csv_path, bool thread)
{
	struct an_baseline_job *j = tc_xcalloc(1, sizeof(*j));

	j->path = tc_xstrdup(csv_path);
	j->base = baseline_new();
	j->started = thread &&
	    pthread_create(&j->thread, NULL, baseline_main, j) == 0;
	return j;
}

struct an_baseline *
tc_analysis__baseline_join(struct an_baseline_job *j, const char *csv_path)
{
	struct an_baseline *b = j->base;

	if (csv_path == NULL)
		atomic_store_explicit(&b->cancel, true, memory_order_relaxed);
	if (j->started)
		pthread_join(j->thread, NULL);
	if (csv_path != NULL && (!j->started ||
	    strcmp(j->path, csv_path) != 0)) {
		/* not started (read here), or read for another file */
		tc_analysis__baseline_free(b);
		b = tc_analysis__baseline_read(csv_path);
	}
	free(j->path);
	free(j);
	return b;
}

/* rows sorted by (step, stream, start, task (none last), source row) */
static int
cmp_prow(const void *a, const void *b)
{
	const struct prow *x = *(const struct prow *const *)a;
	const struct prow *y = *(const struct prow *const *)b;
	int c;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if ((c = ptime_cmp(&x->start, &y->start)) != 0)
		return c;
	if (x->has_task != y->has_task)
		return x->has_task ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->source_row < y->source_row ? -1 :
	    x->source_row > y->source_row;
}

/* One baseline stream of one step: its rows in order. */
struct bstream {
	int64_t step, stream;
	struct prow **rows;
	size_t n;
};

/* ---- the candidate's SK rows ----------------------------------------------- */

struct pcand {
	long col[12];
	size_t ncols;		/* the header's fields */
	bool header_seen;
	struct an_sk_row *rows;	/* room for one more than n */
	size_t n, cap;
	/* the rows' texts, in chunks (each owned by its first row) */
	char *chunk;
	size_t chunk_used, chunk_size;
};

/* Room for len bytes of row r's texts: in the current chunk, or in a
 * new one that r then owns. */
static char *
pcand_text(struct pcand *c, struct an_sk_row *r, size_t len)
{
	char *t;

	r->owns_text = false;
	if (c->chunk == NULL || c->chunk_size - c->chunk_used < len) {
		c->chunk_size = len > TEXT_CHUNK ? len : TEXT_CHUNK;
		c->chunk = tc_xmalloc(c->chunk_size);
		c->chunk_used = 0;
		r->owns_text = true;
	}
	t = c->chunk + c->chunk_used;
	c->chunk_used += len;
	return t;
}

/* A field _identity() accepts: present and not blank once stripped (a
 * cell_view, or NULL). */
static const char *
identity_cell(const struct an_csv_rec *r, long c)
{
	const char *v;

	if (c < 0 || (size_t)c >= r->n)
		return NULL;
	v = cell_view(r, c);
	return *v == '\0' ? NULL : v;
}

/*
 * One record of the candidate's kernel_details.csv, read as the
 * reference's structural loader reads it: every header it needs, no
 * duplicate header, no row longer than the header, a Name and Type on
 * every row, and on each SK row (Type SuperKernel or a name starting
 * sk_) a well-formed SK name, finite timings (start >= 0, duration > 0),
 * an Accelerator Core and non-negative integer ids and block counts.
 * Anything else fails the whole association.
 */
static int
cand_record(void *vctx, const struct an_csv_rec *rec, size_t recno,
    tc_error *err)
{
	static const char *const cols[12] = { "Step Id", "Device_id",
	    "Model ID", "Name", "Type", "Start Time(us)", "Duration(us)",
	    "Task ID", "Stream ID", "Accelerator Core", "Block Num",
	    "Mix Block Num" };
	struct pcand *c = vctx;
	const char *f[12] = { 0 };
	an_num sk;
	size_t i, j;
	tc_dec d;
	bool ok = true;

	(void)recno;
	if (!c->header_seen) {
		c->header_seen = true;
		c->ncols = rec->n;
		for (i = 0; i < rec->n; i++)
			for (j = i + 1; j < rec->n; j++)
				if (strcmp(rec->f[i], rec->f[j]) == 0) {
					tc_error_set(err, "candidate "
					    "kernel_details has duplicate "
					    "headers");
					return -1;
				}
		for (i = 0; i < 12; i++)
			if ((c->col[i] = column(rec, cols[i])) < 0) {
				tc_error_set(err, "candidate kernel_details "
				    "headers are incomplete");
				return -1;
			}
		return 0;
	}
	if (rec->n > c->ncols) {
		tc_error_set(err, "candidate kernel_details row has extra "
		    "columns");
		return -1;
	}
	f[3] = identity_cell(rec, c->col[3]);
	f[4] = identity_cell(rec, c->col[4]);
	if (f[3] == NULL || f[4] == NULL) {
		tc_error_set(err, "candidate kernel_details row lacks a Name "
		    "or Type");
		return -1;
	}
	if (strcmp(f[4], "SuperKernel") != 0 && strncmp(f[3], "sk_", 3) != 0)
		return 0;
	for (i = 0; i < 12; i++)
		if (i != 3 && i != 4)
			f[i] = identity_cell(rec, c->col[i]);
	tc_dec_init(&d);
	for (i = 0; i < 12 && ok; i++)
		ok = f[i] != NULL;
	ok = ok && decimal_ok(f[5], false, &d) && decimal_ok(f[6], true, &d) &&
	    tc_analysis__sk_name_parts(f[3], NULL, NULL, NULL, NULL);
	for (i = 0; i < 12 && ok; i++)
		if (i != 3 && i != 4 && i != 5 && i != 6 && i != 9)
			ok = all_digits(f[i]);
	sk = ok ? tc_analysis__raw_sk_id(f[3]) : AN_NONE;
	if (!ok) {
		tc_error_set(err, "candidate kernel_details has an invalid "
		    "SuperKernel row");
	} else if (sk.ok && sk.v < 9223372036854775808.0 &&
	    int64_digits(f[0]) && int64_digits(f[1]) && int64_digits(f[2])) {
		struct an_sk_row *r;

		if (c->n + 1 >= c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->rows = tc_xrealloc(c->rows,
			    c->cap * sizeof(*c->rows));
		}
		r = &c->rows[c->n++];
		r->step = strtoll(f[0], NULL, 10);
		r->device = strtoll(f[1], NULL, 10);
		r->model = strtoll(f[2], NULL, 10);
		r->sk = (int64_t)sk.v;
		{
			/* both texts side by side in the rows' chunks */
			size_t ls = strlen(f[5]), ld = strlen(f[6]);

			r->start_text = pcand_text(c, r, ls + ld + 2);
			memcpy(r->start_text, f[5], ls + 1);
			r->dur_text = r->start_text + ls + 1;
			memcpy(r->dur_text, f[6], ld + 1);
		}
	}
	tc_dec_clear(&d);
	return ok ? 0 : -1;
}

/*
 * Each record of the CSV at path, read a piece at a time.  strict:
 * decoded as the structural loader decodes the candidate's profile,
 * strict UTF-8 with no BOM, which comes before any record's error.
 */
static int
read_csv(const char *path, bool strict, an_csv_fn fn, void *ctx, tc_error *err)
{
	int rc;

	if (!strict)
		return tc_analysis__csv_file_each(path, fn, ctx, err);
	if ((rc = tc_analysis__csv_file_each_strict(path, fn, ctx, err)) == -2)
		tc_error_set(err, "candidate kernel_details must be UTF-8 CSV "
		    "with a Step Id header");
	return rc == 0 ? 0 : -1;
}

int
tc_analysis__candidate_sk_rows(const char *csv_path,
    struct an_sk_row **out, size_t *n, tc_error *err)
{
	struct pcand c = { 0 };

	*out = NULL;
	*n = 0;
	if (read_csv(csv_path, true, cand_record, &c, err) != 0) {
		tc_analysis__sk_rows_free(c.rows, c.n);
		return -1;
	}
	if (c.rows == NULL)
		c.rows = tc_xmalloc(sizeof(*c.rows));
	/* the array keeps a zeroed entry past the last row */
	memset(&c.rows[c.n], 0, sizeof(*c.rows));
	*out = c.rows;
	*n = c.n;
	return 0;
}

void
tc_analysis__sk_rows_free(struct an_sk_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].owns_text)
			free(rows[i].start_text);	/* its chunk */
	free(rows);
}

/* ---- the projection -------------------------------------------------------- */

static double
dec_double(const tc_dec *d)
{
	return tc_dec_to_double(d);
}

/* A source stream: its kernel nodes (indexes into the graph's nodes). */
struct sstream {
	const char *key;
	size_t *nodes, n;
	size_t ncand;
	int64_t *cand;
};

struct tok {
	char *op;
	const char *core;
};

static bool
seq_equal(const struct tok *src, size_t n, struct prow **rows, size_t m)
{
	size_t i;

	if (n != m)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(src[i].op, rows[i]->pn->op) != 0 ||
		    strcmp(src[i].core, rows[i]->pn->core) != 0)
			return false;
	return true;
}

/*
 * The assignment search can take exponential time on hostile graphs (many
 * streams sharing one short list of candidates: a pigeonhole the search
 * proves empty branch by branch; the reference never returns).  The
 * steps of one device and model share this many visits; once they are
 * spent, uniqueness is unproven and every step still to search is blocked
 * as ambiguous.  Real captures have a handful of streams and visit a few
 * dozen per step, so 10^5 steps fit many times over.
 */
#define SEARCH_VISITS_MAX 20000000ULL

struct solve {
	struct sstream **order;	/* by (candidate count, key) */
	size_t n;
	int64_t *cur, *first;
	size_t solutions;
	unsigned long long visits;
};

static void
search(struct solve *s, size_t k)
{
	size_t i, j;

	if (s->solutions >= 2 || ++s->visits > SEARCH_VISITS_MAX)
		return;
	if (k == s->n) {
		if (s->solutions++ == 0)
			memcpy(s->first, s->cur, s->n * sizeof(*s->cur));
		return;
	}
	for (i = 0; i < s->order[k]->ncand && s->solutions < 2 &&
	    s->visits <= SEARCH_VISITS_MAX; i++) {
		int64_t b = s->order[k]->cand[i];

		for (j = 0; j < k && s->cur[j] != b; j++)
			;
		if (j < k)
			continue;
		s->cur[k] = b;
		search(s, k + 1);
	}
}

static int
cmp_sorder(const void *a, const void *b)
{
	const struct sstream *x = *(struct sstream *const *)a;
	const struct sstream *y = *(struct sstream *const *)b;

	if (x->ncand != y->ncand)
		return x->ncand < y->ncand ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct pgroup {
	int64_t sk;
	const struct an_fgroup *g;
};

static void
list_add_sorted_unique(tc_json *list, const char *s)
{
	tc_analysis__list_insert_sorted(list, s, strcmp);
}

/* Exact decimal sum/union helpers on (start, end) pairs. */
struct span {
	tc_dec a, b;
};

static int
cmp_span(const void *x, const void *y)
{
	const struct span *p = x, *q = y;
	int c = tc_dec_cmp(&p->a, &q->a);

	return c != 0 ? c : tc_dec_cmp(&p->b, &q->b);
}

static double
union_length(struct span *sp, size_t n)
{
	tc_dec total, s, e, t;
	size_t i;
	double r;

	qsort(sp, n, sizeof(*sp), cmp_span);
	tc_dec_init(&total);
	tc_dec_init(&s);
	tc_dec_init(&e);
	tc_dec_init(&t);
	tc_dec_set(&s, &sp[0].a);
	tc_dec_set(&e, &sp[0].b);
	for (i = 1; i < n; i++) {
		if (tc_dec_cmp(&sp[i].a, &e) > 0) {
			tc_dec_sub(&t, &e, &s);
			tc_dec_add(&total, &total, &t);
			tc_dec_set(&s, &sp[i].a);
			tc_dec_set(&e, &sp[i].b);
		} else if (tc_dec_cmp(&sp[i].b, &e) > 0) {
			tc_dec_set(&e, &sp[i].b);
		}
	}
	tc_dec_add(&total, &total, &e);
	tc_dec_sub(&total, &total, &s);
	r = dec_double(&total);
	tc_dec_clear(&total);
	tc_dec_clear(&s);
	tc_dec_clear(&e);
	tc_dec_clear(&t);
	return r;
}

/*
 * One baseline occurrence's times from its nm (>= 1) mapped children:
 * the span from the first start to the last end, the summed durations
 * and the length of the union of the children's intervals, each exact
 * in decimal and then rounded to a double.
 */
static void
step_times_exact(struct prow *const *mapped, size_t nm, struct an_bocc *o)
{
	struct span *sp = tc_xcalloc(nm + 1, sizeof(*sp));
	tc_dec lo, hi, sum;
	size_t i;

	tc_dec_init(&lo);
	tc_dec_init(&hi);
	tc_dec_init(&sum);
	for (i = 0; i < nm; i++) {
		tc_dec vs, vd;
		const tc_dec *st = ptime_dec(&mapped[i]->start, &vs);
		const tc_dec *du = ptime_dec(&mapped[i]->dur, &vd);

		tc_dec_init(&sp[i].a);
		tc_dec_init(&sp[i].b);
		tc_dec_set(&sp[i].a, st);
		tc_dec_add(&sp[i].b, st, du);
		if (i == 0 || tc_dec_cmp(&sp[i].a, &lo) < 0)
			tc_dec_set(&lo, &sp[i].a);
		if (i == 0 || tc_dec_cmp(&sp[i].b, &hi) > 0)
			tc_dec_set(&hi, &sp[i].b);
		tc_dec_add(&sum, &sum, du);
	}
	tc_dec_sub(&hi, &hi, &lo);
	o->interval_us = dec_double(&hi);
	o->duration_sum_us = dec_double(&sum);
	o->union_us = union_length(sp, nm);
	for (i = 0; i < nm; i++) {
		tc_dec_clear(&sp[i].a);
		tc_dec_clear(&sp[i].b);
	}
	tc_dec_clear(&lo);
	tc_dec_clear(&hi);
	tc_dec_clear(&sum);
	free(sp);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* How many children step_times_small() takes. */
#define SMALL_CHILDREN	16

/* v * 10^exp as a double, when one division rounds it correctly: v and
 * 10^-exp exact doubles (v below 2^53, -exp at most 22). */
static bool
u128_double(u128 v, int32_t exp, double *out)
{
	static const double p10[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
	    1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
	    1e18, 1e19, 1e20, 1e21, 1e22 };

	if (v >= (u128)1 << 53 || exp > 0 || exp < -22)
		return false;
	*out = (double)(uint64_t)v / p10[-exp];
	return true;
}

/*
 * step_times_exact() in 128-bit integers, for what a profiler writes:
 * up to SMALL_CHILDREN children whose times are one-limb decimals below
 * 2^60 with exponents within 18 of each other (every value then below
 * 2^124, so no sum overflows), and results that u128_double() rounds
 * exactly.  False, with o untouched, for anything else.
 */
static bool
step_times_small(struct prow *const *mapped, size_t nm, struct an_bocc *o)
{
	static const uint64_t p10[19] = { 1ull, 10ull, 100ull, 1000ull,
	    10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	    1000000000ull, 10000000000ull, 100000000000ull,
	    1000000000000ull, 10000000000000ull, 100000000000000ull,
	    1000000000000000ull, 10000000000000000ull,
	    100000000000000000ull, 1000000000000000000ull };
	u128 a[SMALL_CHILDREN], b[SMALL_CHILDREN], lo = 0, hi = 0, sum = 0;
	u128 total;
	u128 s, e;
	int32_t emin = INT32_MAX, emax = INT32_MIN;
	double iv, ds, un;
	size_t i, j;

	if (nm == 0 || nm > SMALL_CHILDREN)
		return false;
	for (i = 0; i < nm; i++) {
		const struct ptime *t[2] = { &mapped[i]->start,
		    &mapped[i]->dur };

		for (j = 0; j < 2; j++) {
			if (t[j]->big || t[j]->sign || t[j]->u.limb >>
			    60 != 0)
				return false;
			emin = t[j]->exp < emin ? t[j]->exp : emin;
			emax = t[j]->exp > emax ? t[j]->exp : emax;
		}
	}
	if ((int64_t)emax - emin > 18)
		return false;
	for (i = 0; i < nm; i++) {
		const struct ptime *st = &mapped[i]->start;
		const struct ptime *du = &mapped[i]->dur;
		u128 d = (u128)du->u.limb * p10[du->exp - emin];

		a[i] = (u128)st->u.limb * p10[st->exp - emin];
		b[i] = a[i] + d;
		sum += d;
		if (i == 0 || a[i] < lo)
			lo = a[i];
		if (i == 0 || b[i] > hi)
			hi = b[i];
	}
	/* the union: the spans by (start, end), merged as they overlap */
	for (i = 1; i < nm; i++) {
		u128 x = a[i], y = b[i];

		for (j = i; j > 0 && (a[j - 1] > x || (a[j - 1] == x &&
		    b[j - 1] > y)); j--) {
			a[j] = a[j - 1];
			b[j] = b[j - 1];
		}
		a[j] = x;
		b[j] = y;
	}
	total = 0;
	s = a[0];
	e = b[0];
	for (i = 1; i < nm; i++) {
		if (a[i] > e) {
			total += e - s;
			s = a[i];
			e = b[i];
		} else if (b[i] > e) {
			e = b[i];
		}
	}
	total += e - s;
	if (!u128_double(hi - lo, emin, &iv) || !u128_double(sum, emin, &ds) ||
	    !u128_double(total, emin, &un))
		return false;
	o->interval_us = iv;
	o->duration_sum_us = ds;
	o->union_us = un;
	return true;
}
#endif

static void
step_times(struct prow *const *mapped, size_t nm, struct an_bocc *o)
{
#ifdef __SIZEOF_INT128__
	if (step_times_small(mapped, nm, o))
		return;
#endif
	step_times_exact(mapped, nm, o);
}

int
tc_analysis__occurrence_times(const char *const *start,
    const char *const *dur, size_t n, bool exact, double out[3])
{
	struct prow *rows = tc_xcalloc(n + 1, sizeof(*rows));
	struct prow **mapped = tc_xcalloc(n + 1, sizeof(*mapped));
	struct an_bocc o;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		text_ptime(&rows[i].start, start[i]);
		text_ptime(&rows[i].dur, dur[i]);
		mapped[i] = &rows[i];
	}
	memset(&o, 0, sizeof(o));
	if (exact) {
		step_times_exact(mapped, n, &o);
	} else {
#ifdef __SIZEOF_INT128__
		rc = step_times_small(mapped, n, &o) ? 1 : 0;
#endif
		if (rc == 0)
			step_times_exact(mapped, n, &o);
	}
	out[0] = o.interval_us;
	out[1] = o.duration_sum_us;
	out[2] = o.union_us;
	for (i = 0; i < n; i++) {
		ptime_clear(&rows[i].start);
		ptime_clear(&rows[i].dur);
	}
	free(rows);
	free(mapped);
	return rc;
}

struct proj {
	const struct an_gnode *nodes;
	size_t nn;
	struct sstream *ss;
	size_t nss;
	struct tok **toks;		/* per source stream */
	size_t *loc_stream, *loc_ord;	/* per node; nss when not projected */
	struct bstream *bs;
	size_t nbs;
	int64_t *steps;			/* the required steps, ascending */
	size_t nsteps;
	size_t *lo, *hi;		/* per step: its streams in bs */
	int64_t **assign;		/* per step: baseline stream per source
					 * stream, NULL when unassigned */
	struct cocc *co;		/* the candidate's SK rows of this
					 * device and model, by (sk, step,
					 * start, row) */
	size_t nco;
	unsigned long long visits;	/* the search's, over all steps */
};

/* A candidate SK row of the projected device and model. */
struct cocc {
	const struct an_sk_row *r;
	size_t index;
	struct ptime start;
};

static int
cmp_cocc(const void *a, const void *b)
{
	const struct cocc *x = a, *y = b;
	int c;

	if (x->r->sk != y->r->sk)
		return x->r->sk < y->r->sk ? -1 : 1;
	if (x->r->step != y->r->step)
		return x->r->step < y->r->step ? -1 : 1;
	if ((c = ptime_cmp(&x->start, &y->start)) != 0)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* A distinct SK id and where it was first met (sort_cocc). */
struct sk_first {
	int64_t sk;
	size_t k;
};

static int
cmp_sk_first(const void *a, const void *b)
{
	const struct sk_first *x = a, *y = b;

	return x->sk < y->sk ? -1 : x->sk > y->sk;
}

/*
 * p->co in cmp_cocc's order.  A profile lists each step's SKs in turn:
 * the occurrences are grouped by SK id with a stable counting sort over
 * the distinct ids (file order kept within each), and a group is sorted
 * by (step, start, row) only when it is not in that order already.
 */
static void
sort_cocc(struct proj *p)
{
	struct an_nmap of = { 0 };
	struct sk_first *ids = NULL;
	size_t nid = 0, i, g, *kind, *rank, *at;
	struct cocc *out;

	if (p->nco < 2)
		return;
	kind = tc_xmalloc(p->nco * sizeof(*kind));
	for (i = 0; i < p->nco; i++) {
		bool created;
		size_t *slot = tc_analysis__nmap_slot(&of,
		    (uint64_t)p->co[i].r->sk, 0, &created);

		if (created) {
			ids = tc_xrealloc(ids, (nid + 1) * sizeof(*ids));
			ids[nid].sk = p->co[i].r->sk;
			ids[nid].k = nid;
			*slot = nid++;
		}
		kind[i] = *slot;
	}
	tc_analysis__nmap_free(&of);
	qsort(ids, nid, sizeof(*ids), cmp_sk_first);
	rank = tc_xmalloc(nid * sizeof(*rank));
	at = tc_xcalloc(nid + 1, sizeof(*at));
	for (g = 0; g < nid; g++)
		rank[ids[g].k] = g;
	for (i = 0; i < p->nco; i++)
		at[rank[kind[i]] + 1]++;
	for (g = 0; g < nid; g++)
		at[g + 1] += at[g];
	out = tc_xcalloc(p->nco + 1, sizeof(*out));
	for (i = 0; i < p->nco; i++)
		out[at[rank[kind[i]]]++] = p->co[i];
	/* at[g] is now where group g + 1 begins */
	for (g = 0; g < nid; g++) {
		size_t lo = g == 0 ? 0 : at[g - 1], hi = at[g];

		for (i = lo + 1; i < hi && cmp_cocc(&out[i - 1], &out[i]) < 0;
		    i++)
			;
		if (i < hi)
			qsort(out + lo, hi - lo, sizeof(*out), cmp_cocc);
	}
	free(p->co);
	p->co = out;
	free(kind);
	free(rank);
	free(at);
	free(ids);
}

/* The SK-off stream of required step k, or NULL. */
static struct bstream *
find_bstream(const struct proj *p, size_t k, int64_t stream)
{
	size_t lo = p->lo[k], hi = p->hi[k];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->bs[mid].stream < stream)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->hi[k] && p->bs[lo].stream == stream ? &p->bs[lo] :
	    NULL;
}

/* Whether step is a required one. */
static bool
required_step(const struct proj *p, int64_t step)
{
	return bsearch(&step, p->steps, p->nsteps, sizeof(*p->steps),
	    cmp_i64) != NULL;
}

/* Align one step; its blocker or NULL, *solutions set. */
static const char *
align_step(struct proj *p, size_t si, size_t *solutions)
{
	size_t i, j, nstreams = p->hi[si] - p->lo[si];
	struct solve s;
	const char *blocker = NULL;

	*solutions = 0;
	if (nstreams == 0)
		return "kernel_projection_step_missing";
	if (nstreams != p->nss)
		return "kernel_projection_stream_count_mismatch";
	for (i = 0; i < p->nss; i++) {
		struct sstream *x = &p->ss[i];

		free(x->cand);
		x->cand = NULL;
		x->ncand = 0;
		for (j = p->lo[si]; j < p->hi[si]; j++) {
			if (!seq_equal(p->toks[i], x->n, p->bs[j].rows,
			    p->bs[j].n))
				continue;
			x->cand = tc_xrealloc(x->cand, (x->ncand + 1) *
			    sizeof(*x->cand));
			x->cand[x->ncand++] = p->bs[j].stream;
		}
		if (x->ncand > 1)
			qsort(x->cand, x->ncand, sizeof(*x->cand), cmp_i64);
		if (x->ncand == 0)
			blocker = "kernel_projection_stream_unmapped";
	}
	if (blocker != NULL)
		return blocker;
	s.n = p->nss;
	s.order = tc_xmalloc((s.n + 1) * sizeof(*s.order));
	for (i = 0; i < s.n; i++)
		s.order[i] = &p->ss[i];
	qsort(s.order, s.n, sizeof(*s.order), cmp_sorder);
	s.cur = tc_xcalloc(s.n + 1, sizeof(*s.cur));
	s.first = tc_xcalloc(s.n + 1, sizeof(*s.first));
	s.solutions = 0;
	s.visits = p->visits;
	search(&s, 0);
	p->visits = s.visits;
	*solutions = s.solutions;
	if (s.visits > SEARCH_VISITS_MAX) {
		blocker = "kernel_projection_stream_assignment_ambiguous";
	} else if (s.solutions == 0) {
		blocker = "kernel_projection_injective_assignment_missing";
	} else if (s.solutions > 1) {
		blocker = "kernel_projection_stream_assignment_ambiguous";
	} else {
		p->assign[si] = tc_xcalloc(p->nss + 1, sizeof(int64_t));
		for (i = 0; i < s.n; i++)
			p->assign[si][s.order[i] - p->ss] = s.first[i];
	}
	free(s.order);
	free(s.cur);
	free(s.first);
	return blocker;
}

/*
 * What the trace's writer needs of one mapping beside its tree: the
 * baseline rows each occurrence projected (nkid per occurrence, in the
 * order of the children) and the graph nodes they stand for.
 */
struct kids {
	const size_t *node;		/* the group's kernel nodes */
	size_t nkid;
	struct prow **rows;		/* nbocc * nkid */
};

/* n zeros appended to out */
static void
put_zeros(tc_buf *out, size_t n)
{
	tc_buf_grow(out, n);
	memset(out->data + out->len, '0', n);
	out->len += n;
	out->data[out->len] = '\0';
}

/* format(Decimal, "f"): the coefficient's nd digits placed by the
 * exponent, after the sign. */
static void
plain_digits(tc_buf *out, bool neg, const char *digits, size_t nd, long exp)
{
	size_t frac;

	if (neg)
		tc_buf_putc(out, '-');
	if (exp >= 0) {
		tc_buf_add(out, digits, nd);
		put_zeros(out, (size_t)exp);
	} else if (nd > (frac = 0 - (size_t)exp)) {
		tc_buf_add(out, digits, nd - frac);
		tc_buf_putc(out, '.');
		tc_buf_add(out, digits + nd - frac, frac);
	} else {
		tc_buf_add(out, "0.", 2);
		put_zeros(out, frac - nd);
		tc_buf_add(out, digits, nd);
	}
}

/* format(Decimal, "f") of d appended to out: plain notation. */
static void
dec_plain(tc_buf *out, const tc_dec *d)
{
	char *digits = mpz_get_str(NULL, 10, d->coef);

	plain_digits(out, d->sign != 0, digits, strlen(digits), d->exp);
	free(digits);
}

/* The same of a time, its one-limb coefficient's digits made here. */
static void
ptime_plain(tc_buf *out, const struct ptime *t)
{
	char digits[24], *d = digits + sizeof(digits);
	uint64_t u = t->u.limb;

	if (t->big) {
		dec_plain(out, t->u.big);
		return;
	}
	do {
		*--d = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	plain_digits(out, t->sign != 0, d, (size_t)(digits + sizeof(digits) - d),
	    t->exp);
}

/* What materialize_steps() finds for one fused group, for
 * materialize_record() to put in its mapping. */
struct mat {
	tc_json *blk, *keys, *ops;
};

/*
 * The per-step occurrences of one fused group (materialize_group) into
 * *tm's records (and *kd, for the trace's fingerprint only), and what
 * blocks it into mt.  Reads p and the rows only, so that two threads may
 * materialize two groups at once.
 */
static void
materialize_steps(const struct proj *p, const struct an_fgroup *g,
    int64_t sk, const tc_json *alignment_blockers, struct an_tmap *tm,
    struct kids *kd, struct mat *mt)
{
	tc_json *blk = tc_json_new_array();
	tc_json *keys = tc_json_new_array(), *ops = tc_json_new_array();
	const size_t *child_node = g->kernel;
	size_t i, k;

	memset(tm, 0, sizeof(*tm));
	memset(kd, 0, sizeof(*kd));
	kd->node = child_node;
	kd->nkid = g->nkernel;
	for (i = 0; i < g->nkernel; i++) {
		tc_json_array_push(keys, tc_json_new_string(
		    p->nodes[child_node[i]].key));
		tc_json_array_push(ops, tc_json_new_string(
		    p->nodes[child_node[i]].op));
	}
	if (alignment_blockers != NULL) {
		for (i = 0; i < alignment_blockers->u.arr.len; i++)
			list_add_sorted_unique(blk, tc_json_string(
			    alignment_blockers->u.arr.items[i]));
		goto done;
	}
	for (i = 0; i < g->nblockers; i++)
		list_add_sorted_unique(blk, g->blockers[i]);
	if (g->nkernel == 0)
		list_add_sorted_unique(blk, "metadata_kernel_nodes_missing");
	{
		/* this SK's rows in the required steps, by (step, start) */
		size_t lo = 0, hi = p->nco;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->co[mid].r->sk < sk)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < p->nco && p->co[hi].r->sk == sk; hi++)
			;
		tm->cocc = tc_xmalloc((hi - lo + 1) * sizeof(*tm->cocc));
		for (; lo < hi; lo++)
			if (required_step(p, p->co[lo].r->step))
				tm->cocc[tm->ncocc++] = p->co[lo].r;
	}
	{
		bool domain = tm->ncocc == p->nsteps;

		for (i = 0; domain && i < tm->ncocc; i++)
			if (tm->cocc[i]->step != p->steps[i])
				domain = false;
		if (!domain)
			list_add_sorted_unique(blk,
			    "candidate_projection_occurrence_domain_mismatch");
	}
	for (i = 0; i < g->nkernel; i++)
		if (p->loc_stream[child_node[i]] >= p->nss)
			list_add_sorted_unique(blk,
			    "metadata_origin_node_not_in_kernel_projection");
	if (blk->u.arr.len == 0) {
		tm->bocc = tc_xcalloc(p->nsteps + 1, sizeof(*tm->bocc));
		kd->rows = tc_xcalloc(p->nsteps * g->nkernel + 1,
		    sizeof(*kd->rows));
	}
	for (k = 0; blk->u.arr.len == 0 && k < p->nsteps; k++) {
		struct prow **mapped = kd->rows + k * g->nkernel;
		struct an_bocc *o;
		size_t nm = 0;

		for (i = 0; i < g->nkernel; i++) {
			size_t nd = child_node[i], st = p->loc_stream[nd];
			size_t ord = p->loc_ord[nd];
			struct bstream *b = find_bstream(p, k,
			    p->assign[k][st]);
			const struct tok *t = &p->toks[st][ord];

			if (b == NULL || ord >= b->n) {
				list_add_sorted_unique(blk,
				    "baseline_projection_ordinal_missing");
				break;
			}
			if (strcmp(b->rows[ord]->pn->op, t->op) != 0 ||
			    strcmp(b->rows[ord]->pn->core, t->core) != 0) {
				list_add_sorted_unique(blk,
				    "baseline_projection_child_mismatch");
				break;
			}
			mapped[nm++] = b->rows[ord];
		}
		if (blk->u.arr.len > 0)
			break;
		o = &tm->bocc[tm->nbocc++];
		o->step = p->steps[k];
		step_times(mapped, nm, o);
		if (k == 0) {
			tm->first_streams = tc_xcalloc(nm + 1,
			    sizeof(*tm->first_streams));
			for (i = 0; i < nm; i++)
				tm->first_streams[i] = mapped[i]->stream;
			tm->nfirst = nm;
		}
	}
done:
	mt->blk = blk;
	mt->keys = keys;
	mt->ops = ops;
}

/* The mapping tree of a materialized group, with null placeholders for
 * its per-step occurrences; its blockers counted in counts. */
static void
materialize_record(const struct proj *p, const struct an_fgroup *g,
    int64_t sk, int64_t device, int64_t model, tc_json *counts,
    struct an_tmap *tm, struct mat *mt)
{
	tc_json *m = tc_json_new_object(), *blk = mt->blk;
	size_t i;
	bool exact;

	exact = blk->u.arr.len == 0 && tm->nbocc == p->nsteps;
	for (i = 0; i < blk->u.arr.len; i++) {
		const char *b = tc_json_string(blk->u.arr.items[i]);
		const tc_json *have = tc_json_get(counts, b);
		int64_t v = 0;

		if (have != NULL)
			tc_json_int64(have, &v);
		tc_json_object_set_int(counts, b, v + 1);
	}
	tc_json_object_set_string(m, "status", exact ? "exact" : "blocked");
	tc_json_object_set_string(m, "mapping_method",
	    "kernel_projection_structural");
	tc_json_object_set_string(m, "mapping_confidence",
	    exact ? "exact_projected_trace" : "diagnostic_only");
	tc_json_object_set(m, "mapping_blockers", blk);
	tc_json_object_set_int(m, "device_id", device);
	tc_json_object_set_int(m, "model_id", model);
	tc_json_object_set_int(m, "sk_id", sk);
	tc_json_object_set_string(m, "name", g->name);
	tc_json_object_set_string_or_null(m, "candidate_source_scope",
	    g->has_boundary ? g->scope : NULL);
	tc_json_object_set_int(m, "child_count", (int64_t)g->nkernel);
	tc_json_object_set(m, "ordered_child_node_keys", mt->keys);
	tc_json_object_set(m, "ordered_child_ops", mt->ops);
	tc_json_object_set_null(m, "candidate_occurrences");
	tc_json_object_set_null(m, "baseline_occurrences");
	tc_json_object_set_string(m, "metadata_fingerprint", g->fingerprint);
	tm->m = m;
	tm->cocc_ph = tc_json_get(m, "candidate_occurrences");
	tm->bocc_ph = tc_json_get(m, "baseline_occurrences");
}

/* The groups of a projection materialized, the odd ones on a second
 * thread when there are several (all here if it cannot start). */
struct mat_job {
	const struct proj *p;
	const struct pgroup *pg;
	size_t npg;
	const tc_json *alignment_blockers;
	struct an_tmap *maps;
	struct kids *kids;
	struct mat *mats;
};

static void
materialize_from(const struct mat_job *j, size_t first, size_t step)
{
	size_t i;

	for (i = first; i < j->npg; i += step)
		materialize_steps(j->p, j->pg[i].g, j->pg[i].sk,
		    j->alignment_blockers, &j->maps[i], &j->kids[i],
		    &j->mats[i]);
}

static void *
materialize_main(void *arg)
{
	materialize_from(arg, 1, 2);
	return NULL;
}

static void
materialize_all(const struct proj *p, const struct pgroup *pg, size_t npg,
    const tc_json *alignment_blockers, struct an_tmap *maps,
    struct kids *kids, struct mat *mats)
{
	struct mat_job j = { p, pg, npg, alignment_blockers, maps, kids,
	    mats };
	pthread_t t;

	if (npg < 2 || pthread_create(&t, NULL, materialize_main, &j) != 0) {
		materialize_from(&j, 0, 1);
		return;
	}
	materialize_from(&j, 0, 2);
	pthread_join(t, NULL);
}

/*
 * The parts of a baseline child's text that repeat, in the trace's form
 * (ASCII, compact): by kernel name (an_baseline.names) and by graph
 * node.  A million children are then copied together from them and from
 * their own numbers (child_text) instead of written key by key; any
 * other form, or a number the parts cannot take, goes through the
 * emitter as before.
 */
struct part {
	size_t off, len;
};

struct child_parts {
	tc_buf t;
	struct part *head;	/* {"baseline_name":N,"baseline_source_row": */
	struct part *core;	/* ,"core_family":C,"duration_us": */
	struct part *op;	/* "op" */
	struct part *node;	/* ,"kernel_ordinal":K,"origin_node_key":"key",
				 * "projected_op": */
	struct part *role;	/* ,"source_stream_role":R,"start_us":" */
	size_t nnames, nnodes;
};

/* The trace's writer: its mappings' occurrences from their records. */
struct trace_writer {
	const struct proj *p;
	const struct an_tmap *maps;
	const struct kids *kids;
	size_t n, next;		/* the mapping whose placeholders come next */
	const struct child_parts *parts;	/* NULL: key by key */
};

/* One mapping's baseline occurrences, written as items (in batches on
 * two threads for the digest): read-only but for the scratch text. */
struct bocc_items {
	const struct proj *p;
	const struct an_tmap *tm;
	const struct kids *kd;
	const struct child_parts *parts;
};

static void
part_string(tc_buf *t, const char *s)
{
	tc_json *v = tc_json_new_string(s);
	tc_error err = TC_ERROR_INIT;

	/* ASCII: every string has a text (lone surrogates escaped) */
	if (tc_json_write(t, v, TC_JSON_ASCII, &err) != 0)
		abort();
	tc_json_free(v);
}

static struct part
part_end(const tc_buf *t, size_t from)
{
	struct part sp = { from, t->len - from };

	return sp;
}

static void
child_parts_init(struct child_parts *cp, const struct an_baseline *base,
    const struct proj *p)
{
	size_t i, at;

	memset(cp, 0, sizeof(*cp));
	cp->nnames = base->nnames;
	cp->nnodes = p->nn;
	cp->head = tc_xcalloc(cp->nnames + 1, sizeof(*cp->head));
	cp->core = tc_xcalloc(cp->nnames + 1, sizeof(*cp->core));
	cp->op = tc_xcalloc(cp->nnames + 1, sizeof(*cp->op));
	cp->node = tc_xcalloc(cp->nnodes + 1, sizeof(*cp->node));
	cp->role = tc_xcalloc(cp->nnodes + 1, sizeof(*cp->role));
	for (i = 0; i < cp->nnames; i++) {
		const struct pname *pn = base->names[i];

		at = cp->t.len;
		tc_buf_puts(&cp->t, "{\"baseline_name\":");
		part_string(&cp->t, pn->name);
		tc_buf_puts(&cp->t, ",\"baseline_source_row\":");
		cp->head[i] = part_end(&cp->t, at);
		at = cp->t.len;
		tc_buf_puts(&cp->t, ",\"core_family\":");
		part_string(&cp->t, pn->core);
		tc_buf_puts(&cp->t, ",\"duration_us\":");
		cp->core[i] = part_end(&cp->t, at);
		at = cp->t.len;
		part_string(&cp->t, pn->op);
		cp->op[i] = part_end(&cp->t, at);
	}
	for (i = 0; i < cp->nnodes; i++) {
		at = cp->t.len;
		tc_buf_printf(&cp->t, ",\"kernel_ordinal\":%zu,"
		    "\"origin_node_key\":", p->loc_ord[i]);
		part_string(&cp->t, p->nodes[i].key);
		tc_buf_puts(&cp->t, ",\"projected_op\":");
		cp->node[i] = part_end(&cp->t, at);
		at = cp->t.len;
		tc_buf_puts(&cp->t, ",\"source_stream_role\":");
		/* a node without a stream has no child rows */
		if (p->loc_stream[i] < p->nss)
			part_string(&cp->t, p->ss[p->loc_stream[i]].key);
		else
			tc_buf_puts(&cp->t, "null");
		tc_buf_puts(&cp->t, ",\"start_us\":\"");
		cp->role[i] = part_end(&cp->t, at);
	}
}

static void
child_parts_free(struct child_parts *cp)
{
	tc_buf_free(&cp->t);
	free(cp->head);
	free(cp->core);
	free(cp->op);
	free(cp->node);
	free(cp->role);
}

/* a string literal's bytes, without its NUL */
#define put_lit(out, lit)	tc_buf_add(out, lit, sizeof(lit) - 1)

static inline void
put_part(tc_buf *out, const struct child_parts *cp, struct part sp)
{
	tc_buf_add(out, cp->t.data + sp.off, sp.len);
}

/* A finite float as the writers put it; false for another. */
static bool
put_float(tc_buf *out, double v)
{
	if (!isfinite(v))
		return false;
	tc_json_format_double(out, v);
	return true;
}

/* float(t) as the writers put it: from the time's own digits where
 * they are its text (up to 15 of them), else through the double; false
 * when that is not finite. */
static bool
put_time_float(tc_buf *out, const struct ptime *t)
{
	tc_dec view;

	if (!t->big && t->sign == 0 &&
	    tc_json_format_decimal(out, t->u.limb, t->exp))
		return true;
	return put_float(out, dec_double(ptime_dec(t, &view)));
}

/* Copy n bytes to d; the byte after them. */
static inline char *
put_at(char *d, const void *s, size_t n)
{
	memcpy(d, s, n);
	return d + n;
}

#define put_lit_at(d, lit)	put_at(d, lit, sizeof(lit) - 1)

/* The decimal digits of v at d (at most 20 bytes); the byte after. */
static inline char *
int_at(char *d, int64_t v)
{
	char tmp[24], *t = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--t = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--t = '-';
	return put_at(d, t, (size_t)(tmp + sizeof(tmp) - t));
}

static void
put_int(tc_buf *out, int64_t v)
{
	tc_buf_grow(out, 21);
	out->len = (size_t)(int_at(out->data + out->len, v) - out->data);
}

/*
 * Occurrence k of a mapping as its text, from the parts; false where a
 * float is not finite (the emitter reports it).  Each child's room is
 * reserved once and its constant parts, literals and integers written
 * straight into it; only its two times go through the buffer's writers.
 */
static bool
child_text(const struct bocc_items *b, size_t k, tc_buf *out)
{
	const struct child_parts *cp = b->parts;
	const struct kids *kd = b->kd;
	const struct an_bocc *o = &b->tm->bocc[k];
	const char *t = cp->t.data;
	size_t i;
	char *d;

	tc_buf_reset(out);
	put_lit(out, "{\"children\":[");
	for (i = 0; i < kd->nkid; i++) {
		const struct prow *r = kd->rows[k * kd->nkid + i];
		size_t nd = kd->node[i], id = r->pn->id;
		struct part ph = cp->head[id], pc = cp->core[id];
		struct part pn = cp->node[nd], po = cp->op[id];
		struct part pr = cp->role[nd];

		/* the parts, three integers, the literals and a comma */
		tc_buf_grow(out, ph.len + pc.len + 3 * 21 + 64);
		d = out->data + out->len;
		if (i > 0)
			*d++ = ',';
		d = put_at(d, t + ph.off, ph.len);
		d = int_at(d, (int64_t)r->source_row);
		d = put_lit_at(d, ",\"baseline_stream_id\":");
		d = int_at(d, r->stream);
		d = put_lit_at(d, ",\"baseline_task_id\":");
		d = r->has_task ? int_at(d, r->task) : put_lit_at(d, "null");
		d = put_at(d, t + pc.off, pc.len);
		out->len = (size_t)(d - out->data);
		if (!put_time_float(out, &r->dur))
			return false;
		tc_buf_grow(out, pn.len + po.len + pr.len);
		d = out->data + out->len;
		d = put_at(d, t + pn.off, pn.len);
		d = put_at(d, t + po.off, po.len);
		d = put_at(d, t + pr.off, pr.len);
		out->len = (size_t)(d - out->data);
		ptime_plain(out, &r->start);
		put_lit(out, "\"}");
	}
	put_lit(out, "],\"duration_sum_us\":");
	if (!put_float(out, o->duration_sum_us))
		return false;
	put_lit(out, ",\"interval_us\":");
	if (!put_float(out, o->interval_us))
		return false;
	put_lit(out, ",\"step_id\":");
	put_int(out, o->step);
	put_lit(out, ",\"union_duration_us\":");
	if (!put_float(out, o->union_us))
		return false;
	tc_buf_putc(out, '}');
	return true;
}

static void
bocc_item(void *ctx, size_t k, tc_json_emitter *e, tc_buf *text)
{
	const struct bocc_items *b = ctx;
	const struct proj *p = b->p;
	const struct an_tmap *tm = b->tm;
	const struct kids *kd = b->kd;
	const struct an_bocc *o = &tm->bocc[k];
	size_t i;
	tc_dec view;

	if (b->parts != NULL && child_text(b, k, text)) {
		tc_json_emit_text(e, text->data, text->len);
		return;
	}
	tc_json_emit_object_begin(e);
	tc_json_emit_key(e, "children");
	tc_json_emit_array_begin(e);
	for (i = 0; i < kd->nkid; i++) {
		const struct prow *r = kd->rows[k * kd->nkid + i];
		size_t nd = kd->node[i];

		tc_json_emit_object_begin(e);
		tc_json_emit_key(e, "baseline_name");
		tc_json_emit_string(e, r->pn->name);
		tc_json_emit_key(e, "baseline_source_row");
		tc_json_emit_int(e, (int64_t)r->source_row);
		tc_json_emit_key(e, "baseline_stream_id");
		tc_json_emit_int(e, r->stream);
		tc_json_emit_key(e, "baseline_task_id");
		if (r->has_task)
			tc_json_emit_int(e, r->task);
		else
			tc_json_emit_null(e);
		tc_json_emit_key(e, "core_family");
		tc_json_emit_string(e, r->pn->core);
		tc_json_emit_key(e, "duration_us");
		tc_json_emit_float(e, dec_double(ptime_dec(&r->dur,
		    &view)));
		tc_json_emit_key(e, "kernel_ordinal");
		tc_json_emit_int(e, (int64_t)p->loc_ord[nd]);
		tc_json_emit_key(e, "origin_node_key");
		tc_json_emit_string(e, p->nodes[nd].key);
		tc_json_emit_key(e, "projected_op");
		tc_json_emit_string(e, r->pn->op);
		tc_json_emit_key(e, "source_stream_role");
		tc_json_emit_string(e, p->ss[p->loc_stream[nd]].key);
		tc_json_emit_key(e, "start_us");
		tc_buf_reset(text);
		ptime_plain(text, &r->start);
		tc_json_emit_string(e, tc_buf_cstr(text));
		tc_json_emit_object_end(e);
	}
	tc_json_emit_array_end(e);
	tc_json_emit_key(e, "duration_sum_us");
	tc_json_emit_float(e, o->duration_sum_us);
	tc_json_emit_key(e, "interval_us");
	tc_json_emit_float(e, o->interval_us);
	tc_json_emit_key(e, "step_id");
	tc_json_emit_int(e, o->step);
	tc_json_emit_key(e, "union_duration_us");
	tc_json_emit_float(e, o->union_us);
	tc_json_emit_object_end(e);
}

static void
emit_bocc(struct trace_writer *w, const struct an_tmap *tm,
    const struct kids *kd, tc_json_emitter *e)
{
	struct bocc_items b = { w->p, tm, kd,
	    tc_json_emit_flags(e) == (TC_JSON_ASCII | TC_JSON_NO_NAN) ?
	    w->parts : NULL };

	tc_json_emit_items(e, tm->nbocc, bocc_item, &b);
}

/* One candidate occurrence: {"duration_us", "start_us", "step_id"}, as
 * text where the form is the trace's (child_text). */
static void
cocc_item(void *ctx, size_t i, tc_json_emitter *e, tc_buf *text)
{
	const struct an_sk_row *r = ((const struct an_tmap *)ctx)->cocc[i];
	struct ptime start, dur;
	tc_dec view;

	text_ptime(&dur, r->dur_text);
	text_ptime(&start, r->start_text);
	tc_buf_reset(text);
	put_lit(text, "{\"duration_us\":");
	if (tc_json_emit_flags(e) == (TC_JSON_ASCII | TC_JSON_NO_NAN) &&
	    put_time_float(text, &dur)) {
		put_lit(text, ",\"start_us\":\"");
		ptime_plain(text, &start);
		put_lit(text, "\",\"step_id\":");
		put_int(text, r->step);
		tc_buf_putc(text, '}');
		tc_json_emit_text(e, text->data, text->len);
	} else {
		tc_json_emit_object_begin(e);
		tc_json_emit_key(e, "duration_us");
		tc_json_emit_float(e, dec_double(ptime_dec(&dur, &view)));
		tc_json_emit_key(e, "start_us");
		tc_buf_reset(text);
		ptime_plain(text, &start);
		tc_json_emit_string(e, tc_buf_cstr(text));
		tc_json_emit_key(e, "step_id");
		tc_json_emit_int(e, r->step);
		tc_json_emit_object_end(e);
	}
	ptime_clear(&dur);
	ptime_clear(&start);
}

static bool
trace_hook(void *ctx, const tc_json *ph, tc_json_emitter *e)
{
	struct trace_writer *w = ctx;
	size_t i;

	/* the mappings go out in order, each baseline before candidate */
	for (i = 0; i < w->n; i++) {
		size_t j = (w->next + i) % w->n;
		const struct an_tmap *tm = &w->maps[j];

		if (ph == tm->bocc_ph) {
			emit_bocc(w, tm, &w->kids[j], e);
			w->next = j;
			return true;
		}
		if (ph == tm->cocc_ph) {
			tc_json_emit_items(e, tm->ncocc, cocc_item,
			    (void *)tm);
			w->next = (j + 1) % w->n;
			return true;
		}
	}
	return false;
}

/*
 * The fused groups of the logs beside the graph (same directory), read
 * strictly against the graph's nodes (fused_meta.c), kept for (device,
 * model).  -1 with err when a log cannot be read or none is left.
 */
static int
fused_groups(const char *root, const tc_json *manifest, const char *graph_rel,
    const tc_json *graph, const struct an_gnode *nodes, size_t nn,
    int64_t device, int64_t model, struct an_fgroups *out, tc_error *err)
{
	const tc_json *recs = tc_json_get(tc_json_get(manifest, "files"),
	    "sk_fused_nodes");
	const tc_json *mid = tc_json_get(graph, "modelId");
	char *gdir = tc_path_dirname(graph_rel), *model_text;
	struct an_fgroups all = { 0 };
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (mid != NULL && mid->type == TC_JSON_STRING)
		model_text = tc_analysis__strip_dup(tc_json_string(mid),
		    strlen(tc_json_string(mid)));
	else
		model_text = mid != NULL ? tc_analysis__ascii_cj(mid) :
		    tc_xstrdup("");
	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len && rc == 0; i++) {
		const char *rel = tc_json_get_string(recs->u.arr.items[i], "path");
		char *dir, *path;
		size_t len;
		char *raw;

		if (rel == NULL)
			continue;
		dir = tc_path_dirname(rel);
		if (strcmp(dir, gdir) != 0) {
			free(dir);
			continue;
		}
		free(dir);
		if ((path = tc_path_under_root(root, rel, "sk_fused_nodes",
		    err)) == NULL) {
			rc = -1;
			break;
		}
		raw = tc_read_file(path, TC_READ_MAX_BYTES, &len, err);
		free(path);
		if (raw == NULL) {
			rc = -1;
			break;
		}
		rc = tc_analysis__fused_meta_parse(raw, len, rel, nodes, nn,
		    device, model_text, &all, err);
		free(raw);
	}
	free(gdir);
	free(model_text);
	if (rc == 0) {
		tc_analysis__fused_meta_finish(&all);
		out->v = tc_xcalloc(all.n + 1, sizeof(*out->v));
		for (i = 0; i < all.n; i++) {
			if (all.v[i].has_device && all.v[i].device == device &&
			    all.v[i].has_model && all.v[i].model == model) {
				out->v[out->n++] = all.v[i];
				memset(&all.v[i], 0, sizeof(all.v[i]));
			}
		}
		for (i = 0; i < out->n; i++)
			if (!out->v[i].has_sk && out->n > 1) {
				/* the reference cannot order them (None < int) */
				tc_error_set(err, "profile fused metadata group "
				    "without an SK id");
				rc = -1;
			}
		if (rc == 0 && out->n == 0) {
			tc_error_set(err, "profile fused metadata groups are "
			    "missing");
			rc = -1;
		}
	}
	tc_analysis__fgroups_free(&all);
	return rc;
}

/* The origin graph of (device, model) among the manifest's; *rel gets its
 * record path (borrowed). */
static tc_json *
origin_graph(const char *root, const tc_json *manifest, int64_t device,
    int64_t model, const char **rel, tc_error *err)
{
	const tc_json *recs = tc_json_get(tc_json_get(manifest, "files"),
	    "sk_graph_origin");
	tc_json *found = NULL;
	size_t i, n = 0;
	char want[32];

	snprintf(want, sizeof(want), "%lld", (long long)model);
	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len; i++) {
		const char *r = tc_json_get_string(recs->u.arr.items[i], "path");
		char *path;
		tc_json *g;
		const char *mid;
		int64_t dev;
		size_t l;

		if (r == NULL)
			continue;
		if ((path = tc_path_under_root(root, r, "sk_graph_origin",
		    err)) == NULL)
			goto fail;
		g = tc_json_parse_file(path, err);
		free(path);
		if (g == NULL)
			goto fail;
		mid = tc_json_get_string(g, "modelId");
		l = mid ? strcspn(mid, "_") : 0;
		if (tc_json_int64(tc_json_get(g, "deviceId"), &dev) &&
		    dev == device && mid != NULL && strlen(want) == l &&
		    strncmp(mid, want, l) == 0) {
			n++;
			tc_json_free(found);
			found = g;
			*rel = r;
		} else {
			tc_json_free(g);
		}
	}
	if (n != 1) {
		tc_error_set(err, "profile origin graph identity is ambiguous");
		goto fail;
	}
	return found;
fail:
	tc_json_free(found);
	return NULL;
}

/* ---- source streams and their alignment ----------------------------------- */

/* The kernel nodes of the graph (control nodes and the excluded ones
 * dropped) as one token sequence per stream (source_kernel_projection). */
static int
build_sources(struct proj *p, const bool *excluded, tc_error *err)
{
	size_t i, j;

	p->loc_stream = tc_xcalloc(p->nn + 1, sizeof(size_t));
	p->loc_ord = tc_xcalloc(p->nn + 1, sizeof(size_t));
	for (i = 0; i < p->nn; i++) {
		const struct an_gnode *nd = &p->nodes[i];
		struct sstream *s = NULL;

		p->loc_stream[i] = SIZE_MAX;
		if (nd->topology_only || excluded[i])
			continue;
		for (j = 0; j < p->nss; j++)
			if (strcmp(p->ss[j].key, nd->stream_key) == 0)
				s = &p->ss[j];
		if (s == NULL) {
			p->ss = tc_xrealloc(p->ss, (p->nss + 1) *
			    sizeof(*p->ss));
			p->toks = tc_xrealloc(p->toks, (p->nss + 1) *
			    sizeof(*p->toks));
			p->toks[p->nss] = NULL;
			s = &p->ss[p->nss++];
			memset(s, 0, sizeof(*s));
			s->key = nd->stream_key;
		}
		j = (size_t)(s - p->ss);
		p->toks[j] = tc_xrealloc(p->toks[j], (s->n + 1) *
		    sizeof(**p->toks));
		p->toks[j][s->n].op = projection_op(nd->op, nd->family);
		p->toks[j][s->n].core = projection_core(nd->family, nd->op);
		s->nodes = tc_xrealloc(s->nodes, (s->n + 1) * sizeof(size_t));
		s->nodes[s->n] = i;
		p->loc_stream[i] = j;
		p->loc_ord[i] = s->n++;
	}
	for (i = 0; i < p->nn; i++)
		if (p->loc_stream[i] == SIZE_MAX)
			p->loc_stream[i] = p->nss;
	if (p->nss == 0) {
		tc_error_set(err, "source graph kernel projection is empty");
		return -1;
	}
	return 0;
}

/* Forget the source streams and the step assignments. */
static void
free_sources(struct proj *p)
{
	size_t i, j;

	for (i = 0; i < p->nss; i++) {
		for (j = 0; p->toks != NULL && j < p->ss[i].n; j++)
			free(p->toks[i][j].op);
		if (p->toks != NULL)
			free(p->toks[i]);
		free(p->ss[i].nodes);
		free(p->ss[i].cand);
	}
	free(p->toks);
	free(p->ss);
	for (i = 0; p->assign != NULL && i < p->nsteps; i++)
		free(p->assign[i]);
	free(p->assign);
	free(p->loc_stream);
	free(p->loc_ord);
	p->toks = NULL;
	p->ss = NULL;
	p->nss = 0;
	p->assign = NULL;
	p->loc_stream = p->loc_ord = NULL;
}

/* align_projection_steps: every required step's assignment, the sorted
 * blockers and the alternative solutions by step */
static void
align_all(struct proj *p, tc_json *blockers, tc_json *alts)
{
	size_t i, j;

	p->assign = tc_xcalloc(p->nsteps + 1, sizeof(*p->assign));
	for (i = 0; i < p->nsteps; i++) {
		size_t sol;
		const char *b = align_step(p, i, &sol);
		char key[32];

		if (b != NULL && strcmp(b, "kernel_projection_step_missing") ==
		    0) {
			list_add_sorted_unique(blockers, b);
			continue;
		}
		snprintf(key, sizeof(key), "%lld", (long long)p->steps[i]);
		tc_json_object_set_int(alts, key, sol > 0 ? (int64_t)sol - 1 :
		    0);
		if (b != NULL)
			list_add_sorted_unique(blockers, b);
	}
	if (blockers->u.arr.len == 0) {
		/* every source stream keeps one signature across steps: the
		 * assigned SK-off stream of each step has the source's */
		for (j = 0; j < p->nss; j++)
			for (i = 0; i < p->nsteps; i++) {
				struct bstream *b = find_bstream(p, i,
				    p->assign[i][j]);

				if (b == NULL || !seq_equal(p->toks[j],
				    p->ss[j].n, b->rows, b->n))
					list_add_sorted_unique(blockers,
					    "kernel_projection_step_inconsistent");
			}
	}
}

/* ---- the scope sentinel gates (guarded_sentinel_exclusion) --------------- */

/* The proposals of every origin graph of the model (any device): how
 * many, and whether each proposes the same chain as this one. */
static int
origin_consistency(const char *root, const tc_json *manifest, int64_t model,
    const tc_json *proposal, int64_t *count, bool *consistent, tc_error *err)
{
	const tc_json *recs = tc_json_get(tc_json_get(manifest, "files"),
	    "sk_graph_origin");
	char want[32];
	size_t i;

	*count = 0;
	*consistent = true;
	snprintf(want, sizeof(want), "%lld", (long long)model);
	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len; i++) {
		const char *r = tc_json_get_string(recs->u.arr.items[i], "path");
		struct an_gnode *nodes = NULL;
		size_t nn = 0, l;
		const char *mid;
		char *path;
		tc_json *g, *other;

		if (r == NULL)
			continue;
		if ((path = tc_path_under_root(root, r, "sk_graph_origin",
		    err)) == NULL)
			return -1;
		g = tc_json_parse_file(path, err);
		free(path);
		if (g == NULL)
			return -1;
		mid = tc_json_get_string(g, "modelId");
		l = mid ? strcspn(mid, "_") : 0;
		if (mid == NULL || strlen(want) != l || strncmp(mid, want, l) !=
		    0) {
			tc_json_free(g);
			continue;
		}
		if (tc_analysis__graph_nodes(g, &nodes, &nn, NULL, err) != 0) {
			tc_json_free(g);
			return -1;
		}
		other = tc_analysis__sentinel_proposal(nodes, nn);
		(*count)++;
		if (strcmp(tc_json_get_string(other, "status"), "proposed") !=
		    0 || !tc_json_equal(tc_json_get(other, "signature"),
		    tc_json_get(proposal, "signature")))
			*consistent = false;
		tc_json_free(other);
		tc_analysis__gnodes_free(nodes, nn);
		tc_json_free(g);
	}
	if (*count == 0)
		*consistent = false;
	return 0;
}

struct cmarkers {
	long col[5];		/* Step Id, Device_id, Model ID, Name, core */
	bool header_seen;
	const char *model;
	const struct proj *p;
	int64_t checked;
	tc_json *visible;
};

static int
cmarker_record(void *vctx, const struct an_csv_rec *rec, size_t recno,
    tc_error *err)
{
	static const char *const cols[5] = { "Step Id", "Device_id",
	    "Model ID", "Name", "Accelerator Core" };
	struct cmarkers *c = vctx;
	char *step, *model, *name, *core, *op;
	size_t i;

	(void)recno;
	if (!c->header_seen) {
		c->header_seen = true;
		for (i = 0; i < 5; i++)
			if ((c->col[i] = column(rec, cols[i])) < 0 && i < 4) {
				tc_error_set(err, "candidate kernel_details "
				    "headers are incomplete");
				return -1;
			}
		return 0;
	}
	step = cell(rec, c->col[0]);
	model = cell(rec, c->col[2]);
	if (strcmp(model, c->model) == 0 && all_digits(step) &&
	    required_step(c->p, strtoll(step, NULL, 10))) {
		c->checked++;
		name = cell(rec, c->col[3]);
		core = c->col[4] >= 0 ? cell(rec, c->col[4]) : NULL;
		op = projection_op(name, core);
		if (tc_analysis__sentinel_op(op))
			list_add_sorted_unique(c->visible, name);
		free(op);
		free(core);
		free(name);
	}
	free(step);
	free(model);
	return 0;
}

/* _candidate_profiler_marker_evidence: the candidate's rows of the model
 * in the required steps, and the sentinel names among them */
static int
candidate_markers(const struct proj *p, const char *root,
    const tc_json *manifest, const char *model, struct cmarkers *c,
    tc_error *err)
{
	const tc_json *recs = tc_json_get(tc_json_get(manifest, "files"),
	    "kernel_details");
	size_t i;

	c->checked = 0;
	c->model = model;
	c->p = p;
	for (i = 0; recs != NULL && recs->type == TC_JSON_ARRAY &&
	    i < recs->u.arr.len; i++) {
		const char *rel = tc_json_get_string(recs->u.arr.items[i],
		    "path");
		char *path, *text;
		size_t len;
		int rc;

		if (rel == NULL)
			continue;
		if ((path = tc_path_under_root(root, rel, "kernel_details",
		    err)) == NULL)
			return -1;
		text = tc_read_file(path, TC_READ_MAX_BYTES, &len, err);
		free(path);
		if (text == NULL)
			return -1;
		if (!tc_utf8_valid(text, len)) {
			free(text);
			tc_error_set(err, "candidate kernel_details must be "
			    "UTF-8 CSV");
			return -1;
		}
		c->header_seen = false;
		rc = tc_analysis__csv_text_each(text, len, cmarker_record, c,
		    err);
		free(text);
		if (rc != 0)
			return -1;
		if (!c->header_seen) {
			tc_error_set(err, "candidate kernel_details headers are "
			    "incomplete");
			return -1;
		}
	}
	return 0;
}

static void
gate(tc_json *gates, tc_json *blockers, const char *name, bool ok,
    const char *blocker)
{
	tc_json_object_set_bool(gates, name, ok);
	if (!ok)
		list_add_sorted_unique(blockers, blocker);
}

/*
 * guarded_sentinel_exclusion: a proposed chain is excluded only when
 * every witness agrees it is no business kernel (every origin graph of
 * the model proposes the same chain, no fused group names it, neither
 * profiler shows it (a calibration capture, marker_namespace in its
 * config, may show it in the candidate's), no updated graph keeps it) and
 * the graph without it projects: the same stream and kernel counts as
 * every SK-off step, one assignment per step with no alternative, the
 * same in every step, every fused child on its row.  Sets excluded[] and
 * the evidence (status accepted or rejected, gates, blockers).
 */
static int
sentinel_gates(struct proj *p, const char *root, const tc_json *manifest,
    int64_t model, struct prow *const *rows, size_t nrows,
    const struct pgroup *pg, size_t npg, const tc_json *proposal,
    tc_json *ev, bool *excluded, tc_error *err)
{
	const tc_json *keys = tc_json_get(proposal, "node_keys");
	tc_json *gates = tc_json_new_object(), *blk = tc_json_new_array();
	tc_json *visible = tc_json_new_array(), *ablk, *alts;
	struct cmarkers cm;
	const tc_json *cfg;
	const char *ns;
	char model_text[32];
	int64_t norigin, nupdated;
	bool consistent, ok, unique, identical;
	size_t i, j, k;
	int rc = -1;

	memset(&cm, 0, sizeof(cm));
	cm.visible = tc_json_new_array();
	snprintf(model_text, sizeof(model_text), "%lld", (long long)model);
	for (i = 0; i < p->nn; i++)
		for (j = 0; j < keys->u.arr.len; j++)
			if (strcmp(p->nodes[i].key,
			    tc_json_string(keys->u.arr.items[j])) == 0)
				excluded[i] = true;
	tc_json_object_set_bool(gates, "complete_occurrence_partition", true);
	if (origin_consistency(root, manifest, model, proposal, &norigin,
	    &consistent, err) != 0)
		goto done;
	tc_json_object_set_int(ev, "origin_graph_count", norigin);
	gate(gates, blk, "all_origin_graphs_consistent", consistent,
	    "scope_sentinel_origin_graph_inconsistent");
	ok = true;
	for (i = 0; i < npg; i++)
		for (j = 0; j < pg[i].g->nnode; j++)
			if (excluded[pg[i].g->node[j]])
				ok = false;
	gate(gates, blk, "absent_from_fused_children", ok,
	    "scope_sentinel_referenced_by_fused_group");
	ok = true;
	for (i = 0; i < nrows; i++)
		if (required_step(p, rows[i]->step) &&
		    tc_analysis__sentinel_op(rows[i]->pn->op))
			ok = false;
	gate(gates, blk, "absent_from_baseline_profiler", ok,
	    "scope_sentinel_visible_in_baseline_profiler");
	if (candidate_markers(p, root, manifest, model_text, &cm, err) != 0)
		goto done;
	tc_json_object_set_int(ev, "candidate_profiler_rows_checked",
	    cm.checked);
	cfg = tc_json_get(manifest, "config");
	ns = cfg != NULL && cfg->type == TC_JSON_OBJECT ?
	    tc_json_get_string(cfg, "marker_namespace") : NULL;
	if (ns != NULL && tc_text_has_content(ns, strlen(ns))) {
		char *t = tc_py_strip_dup(ns);	/* stripped */

		tc_json_object_set_string(ev, "marker_namespace", t);
		free(t);
		tc_json_object_set_string(ev, "candidate_profiler_policy",
		    "calibration_visibility_allowed");
		gate(gates, blk, "calibration_profiler_marker_policy",
		    cm.checked > 0,
		    "scope_sentinel_candidate_profiler_evidence_missing");
	} else {
		tc_json_object_set_null(ev, "marker_namespace");
		tc_json_object_set_string(ev, "candidate_profiler_policy",
		    "production_absence_required");
		gate(gates, blk, "absent_from_candidate_profiler",
		    cm.visible->u.arr.len == 0,
		    "scope_sentinel_visible_in_candidate_profiler");
	}
	if (tc_analysis__sentinel_updated_graphs(root, manifest, model,
	    &nupdated, visible, err) != 0)
		goto done;
	tc_json_object_set_int(ev, "updated_graph_count", nupdated);
	gate(gates, blk, "absent_from_all_updated_graphs", nupdated ==
	    norigin && visible->u.arr.len == 0,
	    "scope_sentinel_updated_graph_evidence_incomplete");
	/* the graph without the chain */
	if (build_sources(p, excluded, err) != 0)
		goto done;
	{
		size_t total = 0, nstep;

		for (j = 0; j < p->nss; j++)
			total += p->ss[j].n;
		ok = true;
		for (i = 0; i < p->nsteps; i++) {
			nstep = 0;
			for (k = p->lo[i]; k < p->hi[i]; k++)
				nstep += p->bs[k].n;
			if (p->lo[i] == p->hi[i] ||
			    p->hi[i] - p->lo[i] != p->nss || nstep != total)
				ok = false;
		}
	}
	gate(gates, blk, "post_exclusion_counts_match", ok,
	    "scope_sentinel_post_exclusion_count_mismatch");
	ablk = tc_json_new_array();
	alts = tc_json_new_object();
	align_all(p, ablk, alts);
	unique = ablk->u.arr.len == 0;
	for (i = 0; unique && i < p->nsteps; i++) {
		char key[32];
		int64_t v;

		snprintf(key, sizeof(key), "%lld", (long long)p->steps[i]);
		if (!tc_json_int64(tc_json_get(alts, key), &v) || v != 0)
			unique = false;
	}
	tc_json_free(ablk);
	tc_json_free(alts);
	gate(gates, blk, "unique_full_sequence_assignment", unique,
	    "scope_sentinel_post_exclusion_mapping_not_unique");
	identical = unique;
	for (i = 1; identical && i < p->nsteps; i++)
		if (p->assign[i] == NULL || p->assign[0] == NULL ||
		    memcmp(p->assign[i], p->assign[0], p->nss *
		    sizeof(int64_t)) != 0)
			identical = false;
	gate(gates, blk, "assignment_identical_across_steps", identical,
	    "scope_sentinel_step_assignment_inconsistent");
	ok = unique;
	for (i = 0; ok && i < npg; i++)
		for (j = 0; ok && j < pg[i].g->nkernel; j++) {
			size_t nd = pg[i].g->kernel[j], s2;

			if ((s2 = p->loc_stream[nd]) >= p->nss) {
				ok = false;
				break;
			}
			for (k = 0; ok && k < p->nsteps; k++) {
				struct bstream *b = find_bstream(p, k,
				    p->assign[k][s2]);
				size_t ord = p->loc_ord[nd];

				if (b == NULL || ord >= b->n ||
				    strcmp(b->rows[ord]->pn->op,
				    p->toks[s2][ord].op) != 0 ||
				    strcmp(b->rows[ord]->pn->core,
				    p->toks[s2][ord].core) != 0)
					ok = false;
			}
		}
	gate(gates, blk, "all_fused_children_project_exactly", ok,
	    "scope_sentinel_fused_child_projection_failed");
	free_sources(p);
	tc_json_object_set(ev, "gates", gates);
	gates = NULL;
	if (blk->u.arr.len > 0) {
		tc_json_object_set_string(ev, "status", "rejected");
		memset(excluded, 0, p->nn * sizeof(*excluded));
	} else {
		tc_json_object_set_string(ev, "status", "accepted");
		tc_json_object_set(ev, "excluded_node_keys",
		    tc_json_clone(keys));
	}
	tc_json_object_set(ev, "blockers", blk);
	blk = NULL;
	rc = 0;
done:
	if (rc != 0)
		free_sources(p);
	tc_json_free(gates);
	tc_json_free(blk);
	tc_json_free(visible);
	tc_json_free(cm.visible);
	return rc;
}

void
tc_analysis__trace_free(struct an_trace *t)
{
	size_t i;

	for (i = 0; i < t->nmaps; i++) {
		free(t->maps[i].bocc);
		free(t->maps[i].first_streams);
		free(t->maps[i].cocc);
	}
	free(t->maps);
	tc_json_free(t->doc);
	memset(t, 0, sizeof(*t));
}

int
tc_analysis__projection_trace(const struct an_baseline *base, const char *bhex,
    const tc_json *manifest, const char *root, int64_t device, int64_t model,
    const struct an_sk_row *crows, size_t ncr, struct an_trace *out,
    tc_error *err)
{
	struct an_gnode *nodes = NULL;
	struct an_fgroups groups = { 0 };
	struct proj p;
	struct pgroup *pg = NULL;
	size_t npg = 0, nbase = 0, i, j, nn = 0;
	tc_json *graph = NULL, *trace = NULL, *blockers, *alts, *mappings;
	tc_json *counts, *sum, *rps, *srm, *ev;
	const char *graph_rel = NULL;
	char gfp[65], dev_text[32], model_text[32];
	struct prow **sorted = NULL;
	int64_t exact = 0;
	tc_json *proposal = NULL, *exclusion = NULL;
	bool *excluded = NULL;
	struct kids *kids = NULL;
	struct mat *mats;
	struct an_trace tr;
	int rc = -1;

	memset(&tr, 0, sizeof(tr));
	memset(&p, 0, sizeof(p));
	snprintf(dev_text, sizeof(dev_text), "%lld", (long long)device);
	snprintf(model_text, sizeof(model_text), "%lld", (long long)model);
	if ((graph = origin_graph(root, manifest, device, model, &graph_rel,
	    err)) == NULL)
		return -1;
	if (tc_analysis__graph_fingerprint(graph, gfp, err) != 0 ||
	    tc_analysis__graph_nodes(graph, &nodes, &nn, NULL, err) != 0)
		goto done;
	if (fused_groups(root, manifest, graph_rel, graph, nodes, nn, device,
	    model, &groups, err) != 0)
		goto done;
	/* in the order of the groups (device, model, SK id, name, log) */
	pg = tc_xcalloc(groups.n + 1, sizeof(*pg));
	for (i = 0; i < groups.n; i++) {
		pg[npg].sk = groups.v[i].sk;
		pg[npg++].g = &groups.v[i];
	}
	/* this pair's rows, in file order */
	if (pbase_pair(base, dev_text, model_text, &sorted, &nbase, err) != 0)
		goto done;
	if (nbase == 0) {
		tc_error_set(err, "baseline kernel projection is empty");
		goto done;
	}
	/* the candidate's rows of this device and model; required steps */
	p.co = tc_xcalloc(ncr + 1, sizeof(*p.co));
	p.steps = tc_xcalloc(ncr + 1, sizeof(*p.steps));
	for (i = 0; i < ncr; i++) {
		struct cocc *c;

		if (crows[i].device != device || crows[i].model != model)
			continue;
		c = &p.co[p.nco++];
		c->r = &crows[i];
		c->index = i;
		text_ptime(&c->start, crows[i].start_text);
		p.steps[p.nsteps++] = crows[i].step;
	}
	sort_cocc(&p);
	for (i = 1; i < p.nsteps && p.steps[i - 1] <= p.steps[i]; i++)
		;
	if (i < p.nsteps)
		qsort(p.steps, p.nsteps, sizeof(*p.steps), cmp_i64);
	for (i = j = 0; i < p.nsteps; i++)
		if (j == 0 || p.steps[j - 1] != p.steps[i])
			p.steps[j++] = p.steps[i];
	p.nsteps = j;
	if (p.nsteps < 3) {
		tc_error_set(err, "candidate kernel projection has fewer than "
		    "three steps");
		goto done;
	}
	/* baseline streams per step (a profile of one stream per step is
	 * in this order already: the check costs one pass) */
	for (i = 1; i < nbase && cmp_prow(&sorted[i - 1], &sorted[i]) < 0; i++)
		;
	if (i < nbase)
		qsort(sorted, nbase, sizeof(*sorted), cmp_prow);
	for (i = 0; i < nbase; i++) {
		struct bstream *b;

		if (p.nbs == 0 || p.bs[p.nbs - 1].step != sorted[i]->step ||
		    p.bs[p.nbs - 1].stream != sorted[i]->stream) {
			p.bs = tc_xrealloc(p.bs, (p.nbs + 1) * sizeof(*p.bs));
			memset(&p.bs[p.nbs], 0, sizeof(*p.bs));
			p.bs[p.nbs].step = sorted[i]->step;
			p.bs[p.nbs].stream = sorted[i]->stream;
			p.bs[p.nbs].rows = &sorted[i];
			p.nbs++;
		}
		b = &p.bs[p.nbs - 1];
		b->n++;
	}
	/* each required step's streams: a range of bs, both ascending */
	p.lo = tc_xcalloc(p.nsteps + 1, sizeof(*p.lo));
	p.hi = tc_xcalloc(p.nsteps + 1, sizeof(*p.hi));
	for (i = j = 0; i < p.nsteps; i++) {
		while (j < p.nbs && p.bs[j].step < p.steps[i])
			j++;
		p.lo[i] = j;
		while (j < p.nbs && p.bs[j].step == p.steps[i])
			j++;
		p.hi[i] = j;
	}
	p.nodes = nodes;
	p.nn = nn;
	/* scope sentinels: excluded only when every gate holds */
	excluded = tc_xcalloc(nn + 1, sizeof(*excluded));
	proposal = tc_analysis__sentinel_proposal(nodes, nn);
	exclusion = tc_analysis__sentinel_evidence(proposal);
	if (strcmp(tc_json_get_string(proposal, "status"), "proposed") == 0 &&
	    sentinel_gates(&p, root, manifest, model, sorted, nbase, pg, npg,
	    proposal, exclusion, excluded, err) != 0)
		goto done;
	if (build_sources(&p, excluded, err) != 0)
		goto done;
	/* align every step */
	blockers = tc_json_new_array();
	alts = tc_json_new_object();
	align_all(&p, blockers, alts);
	mappings = tc_json_new_array();
	counts = tc_json_new_object();
	tr.maps = tc_xcalloc(npg + 1, sizeof(*tr.maps));
	kids = tc_xcalloc(npg + 1, sizeof(*kids));
	mats = tc_xcalloc(npg + 1, sizeof(*mats));
	materialize_all(&p, pg, npg, blockers->u.arr.len ? blockers : NULL,
	    tr.maps, kids, mats);
	for (i = 0; i < npg; i++) {
		struct an_tmap *tm = &tr.maps[tr.nmaps++];

		materialize_record(&p, pg[i].g, pg[i].sk, device, model, counts,
		    tm, &mats[i]);
		if (strcmp(tc_json_get_string(tm->m, "status"), "exact") == 0)
			exact++;
		tc_json_array_push(mappings, (tc_json *)tm->m);
	}
	free(mats);
	trace = tc_json_new_object();
	tc_json_object_set_string(trace, "schema_version", "2.0");
	tc_json_object_set_string(trace, "protocol",
	    "kernel_projection_trace_v2");
	tc_json_object_set_string(trace, "mapping_method",
	    "kernel_projection_structural");
	tc_json_object_set_string(trace, "status",
	    exact == (int64_t)npg ? "exact" : "partial");
	{
		tc_json *id = tc_json_new_object(), *steps = tc_json_new_array();

		tc_json_object_set_int(id, "device_id", device);
		tc_json_object_set_int(id, "model_id", model);
		tc_json_object_set(trace, "identity", id);
		for (i = 0; i < p.nsteps; i++)
			tc_json_array_push(steps, tc_json_new_int(p.steps[i]));
		tc_json_object_set(trace, "steps", steps);
	}
	sum = tc_json_new_object();
	{
		size_t total = 0;

		for (j = 0; j < p.nss; j++)
			total += p.ss[j].n;
		tc_json_object_set_int(sum, "source_kernel_nodes",
		    (int64_t)total);
	}
	tc_json_object_set_int(sum, "source_kernel_streams", (int64_t)p.nss);
	rps = tc_json_new_object();
	for (i = 0; i < p.nsteps; i++) {
		size_t rows = 0, k;
		char key[32];

		if (p.lo[i] == p.hi[i])
			continue;
		for (k = p.lo[i]; k < p.hi[i]; k++)
			rows += p.bs[k].n;
		snprintf(key, sizeof(key), "%lld", (long long)p.steps[i]);
		tc_json_object_set_int(rps, key, (int64_t)rows);
	}
	tc_json_object_set(sum, "baseline_rows_per_step", rps);
	tc_json_object_set_int(sum, "total_sk_ids", (int64_t)npg);
	tc_json_object_set_int(sum, "exact_sk_ids", exact);
	tc_json_object_set_int(sum, "blocked_sk_ids", (int64_t)npg - exact);
	tc_json_object_set(sum, "coverage_pct", tc_json_new_float(
	    (double)(int64_t)(100.0 * (double)exact / (double)npg * 1e4 +
	    0.5) / 1e4));
	tc_json_object_set(sum, "blocker_counts", counts);
	tc_json_object_set(trace, "summary", sum);
	srm = tc_json_new_object();
	for (i = 0; i < p.nsteps; i++) {
		tc_json *one;
		char key[32];

		if (p.assign[i] == NULL)
			continue;
		one = tc_json_new_object();
		for (j = 0; j < p.nss; j++)
			tc_json_object_set_int(one, p.ss[j].key, p.assign[i][j]);
		snprintf(key, sizeof(key), "%lld", (long long)p.steps[i]);
		tc_json_object_set(srm, key, one);
	}
	tc_json_object_set(trace, "stream_role_mapping", srm);
	tc_json_object_set(trace, "alternative_solution_count_by_step", alts);
	tc_json_object_set(trace, "projection_exclusions", exclusion);
	exclusion = NULL;
	ev = tc_json_new_object();
	tc_json_object_set_string(ev, "baseline_kernel_details_sha256", bhex);
	tc_json_object_set(ev, "profile_manifest_fingerprint",
	    tc_json_clone(tc_json_get(manifest, "manifest_fingerprint")));
	tc_json_object_set_string(ev, "profile_origin_graph_fingerprint", gfp);
	tc_json_object_set(trace, "evidence", ev);
	tc_json_object_set(trace, "mappings", mappings);
	tc_json_free(blockers);
	tr.doc = trace;
	{
		struct trace_writer w = { &p, tr.maps, kids, tr.nmaps, 0,
		    NULL };
		struct child_parts parts;
		char hex[65];
		int drc;

		child_parts_init(&parts, base, &p);
		w.parts = &parts;
		drc = tc_json_digest_hook(trace, TC_JSON_ASCII |
		    TC_JSON_NO_NAN, trace_hook, &w, hex, err);
		child_parts_free(&parts);
		if (drc != 0)
			goto done;
		tc_json_object_set_string(trace, "mapping_fingerprint", hex);
	}
	*out = tr;
	memset(&tr, 0, sizeof(tr));
	rc = 0;
done:
	for (i = 0; kids != NULL && i < npg; i++)
		free(kids[i].rows);
	free(kids);
	tc_analysis__trace_free(&tr);
	free_sources(&p);
	tc_json_free(proposal);
	tc_json_free(exclusion);
	free(excluded);
	for (i = 0; i < p.nco; i++)
		ptime_clear(&p.co[i].start);
	free(p.co);
	free(p.lo);
	free(p.hi);
	free(p.steps);
	free(p.bs);
	free(sorted);
	free(pg);
	tc_analysis__fgroups_free(&groups);
	tc_analysis__gnodes_free(nodes, nn);
	tc_json_free(graph);
	return rc;
}
