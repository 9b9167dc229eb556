/*
 * kernel_details.c - reading msprof's kernel_details.csv as the reference
 * reads it: Python's csv module (excel dialect, not strict) under
 * csv.DictReader, the text decoded as UTF-8 with errors="replace" (a BOM
 * stays part of the first column's name), and each row reduced to the
 * fields the analysis uses.  A row whose start or duration is missing,
 * "N/A", not a number or not finite, or whose duration is not positive,
 * is rejected with the reference's reason instead of read.
 *
 * The file is read once, in blocks, and never held whole: each row goes
 * to the caller's sink while its SHA-256 (the profile fingerprint) is
 * computed from the same bytes.  A line that holds no quote and no
 * carriage return (what msprof writes) is split on its commas in the
 * block itself, each field NUL-terminated in place; any other line goes
 * through the csv module's state machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"

#define FIELD_LIMIT 131072	/* csv.field_size_limit() */
#define BLOCK (1u << 20)

enum col {
	C_NAME, C_TYPE, C_MODEL, C_TASK, C_START, C_DURATION, C_STEP,
	C_OCC_A, C_OCC_B, C_ITER_A, C_ITER_B, C_REQ_A, C_REQ_B,
	C_BATCH_A, C_BATCH_B, C_DEVICE, C_STREAM, C_OPSTATE, C_ACCEL,
	C_AIC_T, C_AIV_T, C_AIC_R, C_AIV_R, NCOL
};

static const char *const col_names[NCOL] = {
	"Name", "Type", "Model ID", "Task ID", "Start Time(us)",
	"Duration(us)", "Step Id", "Occurrence Id", "Occurrence ID",
	"Iteration Id", "Iteration ID", "Request Id", "Request ID",
	"Batch Id", "Batch ID", "Device_id", "Stream ID", "OP State",
	"Accelerator Core", "aic_scalar_time(us)", "aiv_scalar_time(us)",
	"aic_scalar_ratio", "aiv_scalar_ratio"
};

enum state {
	START_RECORD, START_FIELD, IN_FIELD, IN_QUOTED_FIELD,
	QUOTE_IN_QUOTED_FIELD, EAT_CRNL
};

struct reader {
	const char *path;
	const struct an_csv_sink *sink;
	enum state state;
	tc_buf rec;		/* the bytes of the record's fields */
	const char *base;	/* rec's bytes, or the line split in place */
	size_t *off, *len;	/* field i is base[off[i] .. off[i] + len[i]),
				 * NUL-terminated */
	size_t nf, cap;
	size_t field_start, field_chars;
	size_t line;		/* lines read so far */
	size_t rec_line;	/* line where the current record started */
	bool header_done;
	long jmax[NCOL];	/* last header column of each name, or -1 */
	size_t index;		/* data rows seen */
	tc_buf val[NCOL];	/* decoded values of the current row */
	tc_error *err;
	int rc;
};

static void
add_field(struct reader *r, size_t off, size_t len)
{
	if (r->nf == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->off = tc_xrealloc(r->off, r->cap * sizeof(*r->off));
		r->len = tc_xrealloc(r->len, r->cap * sizeof(*r->len));
	}
	r->off[r->nf] = off;
	r->len[r->nf] = len;
	r->nf++;
}

static void
save_field(struct reader *r)
{
	add_field(r, r->field_start, r->rec.len - r->field_start);
	tc_buf_putc(&r->rec, '\0');
	r->field_start = r->rec.len;
	r->field_chars = 0;
}

static int
add_char(struct reader *r, unsigned char c)
{
	if ((c & 0xc0) != 0x80 && ++r->field_chars > FIELD_LIMIT) {
		tc_error_set(r->err, "%s: line %zu: field larger than field "
		    "limit (%d)", r->path, r->line + 1, FIELD_LIMIT);
		return -1;
	}
	tc_buf_putc(&r->rec, (char)c);
	return 0;
}

static bool
ascii(const char *s, size_t n)
{
	unsigned char acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		acc |= (unsigned char)s[i];
	return acc < 0x80;
}

/* The bytes of field i, NUL-terminated. */
static const char *
field(const struct reader *r, size_t i)
{
	return r->base + r->off[i];
}

/* add_char for a run of bytes that cannot end or quote the field */
static int
add_run(struct reader *r, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 &&
		    ++r->field_chars > FIELD_LIMIT) {
			tc_error_set(r->err, "%s: line %zu: field larger than "
			    "field limit (%d)", r->path, r->line + 1,
			    FIELD_LIMIT);
			return -1;
		}
	tc_buf_add(&r->rec, s, n);
	return 0;
}

/* The value of column c in the current row (None: NULL), decoded with
 * errors="replace" into the column's buffer. */
static const char *
value(struct reader *r, enum col c, size_t *n)
{
	long j = r->jmax[c];
	const char *f;
	size_t len;

	if (j < 0 || (size_t)j >= r->nf)
		return NULL;
	f = field(r, (size_t)j);
	len = r->len[j];
	tc_buf_reset(&r->val[c]);
	if (ascii(f, len)) {
		tc_buf_add(&r->val[c], f, len);
	} else {
		char *d = tc_analysis__utf8_replace(f, len, &len);

		tc_buf_add(&r->val[c], d, len);
		free(d);
	}
	*n = len;
	return tc_buf_cstr(&r->val[c]);
}

/* A byte that is neither space to str.strip() nor part of a non-ASCII
 * character. */
static bool
plain(char c)
{
	return c > 0x20 && c < 0x7f;
}

/* (value or "").strip(): the field itself when it is ASCII with nothing
 * to strip, else in the column's buffer. */
static const char *
text(struct reader *r, enum col c)
{
	long j = r->jmax[c];
	size_t n = 0, a, e;
	const char *v;

	if (j >= 0 && (size_t)j < r->nf) {
		v = field(r, (size_t)j);
		n = r->len[j];
		if (ascii(v, n) && (n == 0 || (plain(v[0]) && plain(v[n - 1]))))
			return v;
	}
	v = value(r, c, &n);

	if (v == NULL) {
		tc_buf_reset(&r->val[c]);
		return tc_buf_cstr(&r->val[c]);
	}
	if (n == 0 || (plain(v[0]) && plain(v[n - 1])))
		return v;
	tc_py_strip(v, n, &a, &e);
	if (a > 0)
		memmove(r->val[c].data, r->val[c].data + a, e - a);
	r->val[c].len = e - a;
	r->val[c].data[e - a] = '\0';
	return r->val[c].data;
}

/* str(row.get(a) or row.get(b) or "").strip() */
static const char *
text_either(struct reader *r, enum col a, enum col b)
{
	long j = r->jmax[a];

	if (j < 0 || (size_t)j >= r->nf || r->len[j] == 0)
		return text(r, b);
	return text(r, a);
}

static an_num
number(struct reader *r, enum col c, bool integer)
{
	long j = r->jmax[c];
	const char *f;
	size_t n;

	if (j < 0 || (size_t)j >= r->nf)
		return AN_NONE;
	f = field(r, (size_t)j);
	n = r->len[j];
	if (!ascii(f, n))
		f = value(r, c, &n);
	return integer ? tc_analysis__to_int(f, n) : tc_analysis__to_float(f, n);
}

static int
header(struct reader *r)
{
	size_t i;
	int c;

	for (c = 0; c < NCOL; c++)
		r->jmax[c] = -1;
	for (i = 0; i < r->nf; i++) {
		size_t len;
		char *h = tc_analysis__utf8_replace(field(r, i), r->len[i],
		    &len);

		for (c = 0; c < NCOL; c++)
			if (strlen(col_names[c]) == len &&
			    memcmp(h, col_names[c], len) == 0)
				r->jmax[c] = (long)i;
		free(h);
	}
	r->header_done = true;
	return 0;
}

static int
row(struct reader *r)
{
	struct an_row w;
	an_num start, duration;
	const char *reason = NULL;

	memset(&w, 0, sizeof(w));
	w.index = r->index++;
	w.line = r->rec_line;
	start = number(r, C_START, false);
	duration = number(r, C_DURATION, false);
	if (!start.ok)
		reason = "invalid_or_missing_start";
	else if (!duration.ok)
		reason = "invalid_or_missing_duration";
	else if (duration.v <= 0)
		reason = "non_positive_duration";
	if (reason != NULL) {
		struct an_rejected rej;

		rej.index = w.index;
		rej.line = w.line;
		rej.model_id = text(r, C_MODEL);
		rej.name = text(r, C_NAME);
		rej.reason = reason;
		return r->sink->rejected != NULL ?
		    r->sink->rejected(r->sink->ctx, &rej, r->err) : 0;
	}
	w.start = start.v;
	w.duration = duration.v;
	w.end = tc_analysis__sum2(start, duration);
	w.name = text(r, C_NAME);
	w.type = text(r, C_TYPE);
	w.model_id = text(r, C_MODEL);
	w.task_id = number(r, C_TASK, true);
	if (r->sink->wants != NULL && !r->sink->wants(r->sink->ctx, &w)) {
		/* the sink needs no more of this row than it has seen */
		w.partial = true;
		return r->sink->row(r->sink->ctx, &w, r->err);
	}
	w.step_id = text(r, C_STEP);
	w.discriminator[0] = text_either(r, C_OCC_A, C_OCC_B);
	w.discriminator[1] = text_either(r, C_ITER_A, C_ITER_B);
	w.discriminator[2] = text_either(r, C_REQ_A, C_REQ_B);
	w.discriminator[3] = text_either(r, C_BATCH_A, C_BATCH_B);
	w.device_id = number(r, C_DEVICE, true);
	w.stream_id = number(r, C_STREAM, true);
	w.op_state = text(r, C_OPSTATE);
	w.accelerator_core = text(r, C_ACCEL);
	w.aic_scalar_time = number(r, C_AIC_T, false);
	w.aiv_scalar_time = number(r, C_AIV_T, false);
	w.aic_scalar_ratio = number(r, C_AIC_R, false);
	w.aiv_scalar_ratio = number(r, C_AIV_R, false);
	return r->sink->row != NULL ? r->sink->row(r->sink->ctx, &w, r->err) :
	    0;
}

/* A record is complete: DictReader skips empty ones, takes the first as
 * the header and hands on the others. */
static int
end_record(struct reader *r)
{
	int rc = 0;

	r->base = r->rec.data;
	if (r->nf > 0)
		rc = r->header_done ? row(r) : header(r);
	tc_buf_reset(&r->rec);
	r->nf = 0;
	r->field_start = 0;
	r->field_chars = 0;
	return rc;
}

/* One character (c >= 0) or the end of a line (c < 0), as the csv
 * module's parse_process_char. */
static int
process(struct reader *r, int c)
{
	bool nl = c == '\n' || c == '\r';

	switch (r->state) {
	case START_RECORD:
		r->rec_line = r->line + 1;
		if (c < 0)
			return 0;
		if (nl) {
			r->state = EAT_CRNL;
			return 0;
		}
		r->state = START_FIELD;
		/* FALLTHROUGH */
	case START_FIELD:
		if (nl || c < 0) {
			save_field(r);
			r->state = c < 0 ? START_RECORD : EAT_CRNL;
		} else if (c == '"') {
			r->state = IN_QUOTED_FIELD;
		} else if (c == ',') {
			save_field(r);
		} else {
			r->state = IN_FIELD;
			return add_char(r, (unsigned char)c);
		}
		return 0;
	case IN_FIELD:
		if (nl || c < 0) {
			save_field(r);
			r->state = c < 0 ? START_RECORD : EAT_CRNL;
		} else if (c == ',') {
			save_field(r);
			r->state = START_FIELD;
		} else {
			return add_char(r, (unsigned char)c);
		}
		return 0;
	case IN_QUOTED_FIELD:
		if (c < 0)
			return 0;
		if (c == '"') {
			r->state = QUOTE_IN_QUOTED_FIELD;
			return 0;
		}
		return add_char(r, (unsigned char)c);
	case QUOTE_IN_QUOTED_FIELD:
		if (c == '"') {
			r->state = IN_QUOTED_FIELD;
			return add_char(r, '"');
		}
		if (c == ',') {
			save_field(r);
			r->state = START_FIELD;
		} else if (nl || c < 0) {
			save_field(r);
			r->state = c < 0 ? START_RECORD : EAT_CRNL;
		} else {
			r->state = IN_FIELD;
			return add_char(r, (unsigned char)c);
		}
		return 0;
	case EAT_CRNL:
		if (c < 0)
			r->state = START_RECORD;
		return 0;
	}
	return 0;
}

/*
 * The line s[0..len) (its '\n' at s[len]) read at the start of a record:
 * with no quote and no carriage return, the csv module's fields are the
 * text between its commas, and no field can pass the field limit.  Split
 * in place; false leaves the line to the state machine.
 */
static bool
split_line(struct reader *r, char *s, size_t len, int *rc)
{
	uint32_t at[AN_PLAIN_COMMAS];
	long nc, k;
	char *p = s;

	if (len == 0 || len >= FIELD_LIMIT || (nc =
	    tc_analysis__csv_plain_commas(s, len, at, AN_PLAIN_COMMAS)) < 0)
		return false;
	r->rec_line = r->line + 1;
	for (k = 0; k < nc; k++) {
		add_field(r, (size_t)(p - s), (size_t)(s + at[k] - p));
		s[at[k]] = '\0';
		p = s + at[k] + 1;
	}
	add_field(r, (size_t)(p - s), (size_t)(s + len - p));
	s[len] = '\0';
	r->base = s;
	r->line++;
	*rc = r->header_done ? row(r) : header(r);
	r->nf = 0;
	return true;
}

/* The end of a physical line: csv's EOL, then the record if complete. */
static int
end_line(struct reader *r)
{
	if (process(r, -1) != 0)
		return -1;
	r->line++;
	if (r->state == START_RECORD)
		return end_record(r);
	return 0;
}

int
tc_analysis__kernel_details_read(const char *csv_path, const struct an_csv_sink *sink,
    struct an_digests *memo, char hex[65], tc_error *err)
{
	struct reader r;
	FILE *fp;
	char *block;
	size_t n, i, line_bytes = 0, nl;
	bool cr = false;
	tc_sha256 *sha = NULL;
	struct stat st;
	bool stat_ok;
	int rc = 0, c;

	memset(&r, 0, sizeof(r));
	r.path = csv_path;
	r.sink = sink;
	r.err = err;
	for (c = 0; c < NCOL; c++)
		tc_buf_init(&r.val[c]);
	tc_buf_init(&r.rec);
	if ((fp = fopen(csv_path, "rb")) == NULL) {
		tc_error_os(err, errno, csv_path);
		return -1;
	}
	stat_ok = fstat(fileno(fp), &st) == 0;
	if (!stat_ok || !tc_analysis__digest_known(memo, &st, hex))
		sha = tc_sha256_new();
	block = tc_xmalloc(BLOCK);
	while (rc == 0 && (n = fread(block, 1, BLOCK, fp)) > 0) {
		if (sha != NULL)
			tc_sha256_update(sha, block, n);
		nl = SIZE_MAX;	/* the next '\n' from i on (n: none) */
		for (i = 0; i < n && rc == 0; i++) {
			unsigned char b = (unsigned char)block[i];

			if (cr) {
				cr = false;
				if (b == '\n') {
					rc = process(&r, '\n');
					if (rc == 0)
						rc = end_line(&r);
					line_bytes = 0;
					continue;
				}
				if ((rc = end_line(&r)) != 0)
					break;
				line_bytes = 0;
			}
			if (r.state == START_RECORD && nl != n) {
				char *e;

				if (nl == SIZE_MAX || nl < i) {
					e = memchr(block + i, '\n', n - i);
					nl = e != NULL ? (size_t)(e - block) : n;
				}
				if (nl < n && split_line(&r, block + i, nl - i,
				    &rc)) {
					i = nl;
					continue;
				}
			}
			if (r.state == IN_FIELD || r.state == IN_QUOTED_FIELD) {
				/* a run that only extends the field */
				size_t j = i;

				while (j < n && block[j] != '\n' &&
				    block[j] != '\r' && block[j] != '"' &&
				    (block[j] != ',' || r.state != IN_FIELD))
					j++;
				if (j > i) {
					if ((rc = add_run(&r, block + i, j - i))
					    != 0)
						break;
					line_bytes += j - i;
					i = j - 1;
					continue;
				}
			}
			line_bytes++;
			if ((rc = process(&r, b)) != 0)
				break;
			if (b == '\n') {
				rc = end_line(&r);
				line_bytes = 0;
			} else if (b == '\r') {
				cr = true;
			}
		}
	}
	if (rc == 0 && ferror(fp)) {
		tc_error_os(err, errno ? errno : EIO, csv_path);
		rc = -1;
	}
	if (rc == 0 && (cr || line_bytes > 0))
		rc = end_line(&r);
	if (rc == 0 && r.state == IN_QUOTED_FIELD) {
		/* a quoted field open at the end of the file ends there */
		save_field(&r);
		rc = end_record(&r);
	}
	if (sha != NULL) {
		tc_sha256_final_hex(sha, hex);
		/* the whole file went through the hash */
		if (rc == 0 && stat_ok && feof(fp))
			tc_analysis__digest_note(memo, &st, fileno(fp), hex);
	}
	fclose(fp);
	free(block);
	for (c = 0; c < NCOL; c++)
		tc_buf_free(&r.val[c]);
	tc_buf_free(&r.rec);
	free(r.off);
	free(r.len);
	return rc;
}

char *
tc_analysis__find_kernel_details(const char *path, tc_error *err)
{
	struct an_paths found;
	struct stat st;
	char *shown = tc_analysis__py_path(path), *p;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return shown;
	tc_analysis__rglob(path, "kernel_details.csv", &found, err);
	if (found.len == 0)
		tc_error_set(err, "%s: no kernel_details.csv found", shown);
	else if (found.len > 1)
		tc_error_set(err, "%s: found multiple kernel_details.csv "
		    "files; pass one exact file", shown);
	free(shown);
	if (found.len != 1) {
		tc_analysis__paths_free(&found);
		return NULL;
	}
	p = found.items[0];
	found.items[0] = NULL;
	tc_analysis__paths_free(&found);
	return p;
}
