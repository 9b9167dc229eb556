/*
 * csv.c - the CSV records of a kernel_details.csv, as Python's csv.reader
 * reads them in its default dialect: from a whole text, or from a file a
 * piece at a time so that a million-row profile is never held whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/heap.h"
#include "tunectl/path.h"
#include "tunectl/text.h"


/* Eight copies of byte c. */
#define BYTES8(c)	((uint64_t)(c) * 0x0101010101010101ull)

/* 0x80 in each byte of x that is zero, 0 in every other byte. */
static inline uint64_t
zero_bytes(uint64_t x)
{
	const uint64_t low7 = BYTES8(0x7f);

	return ~(((x & low7) + low7) | x | low7);
}

long
tc_analysis__csv_plain_commas(const char *s, size_t len, uint32_t *at,
    size_t max)
{
	size_t i = 0, n = 0;

	if (len > UINT32_MAX)
		return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= len; i += 8) {
		uint64_t x, commas;

		memcpy(&x, s + i, sizeof(x));
		if ((zero_bytes(x ^ BYTES8('"')) |
		    zero_bytes(x ^ BYTES8('\r'))) != 0)
			return -1;
		for (commas = zero_bytes(x ^ BYTES8(',')); commas != 0;
		    commas &= commas - 1) {
			if (n == max)
				return -1;
			at[n++] = (uint32_t)(i + (size_t)__builtin_ctzll(
			    commas) / 8);
		}
	}
#endif
	for (; i < len; i++) {
		if (s[i] == '"' || s[i] == '\r')
			return -1;
		if (s[i] == ',') {
			if (n == max)
				return -1;
			at[n++] = (uint32_t)i;
		}
	}
	return (long)n;
}

/* Count the field that starts at r->start (its NUL is the caller's). */
static void
rec_add(struct an_csv_rec *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->f = tc_xrealloc(r->f, r->cap * sizeof(*r->f));
		r->off = tc_xrealloc(r->off, r->cap * sizeof(*r->off));
	}
	r->off[r->n++] = r->start;
}

/* End the field being read (its bytes are already in text). */
static void
rec_push(struct an_csv_rec *r)
{
	rec_add(r);
	tc_buf_putc(&r->text, '\0');
	r->start = r->text.len;
}

/*
 * A line with no quote, CR or LF, read whole at the start of a record:
 * every comma ends a field, as the state machine would end it; the last
 * field stays open (its bytes in text) for the line end to push.
 */
static bool
rec_split(struct an_csv_rec *r, const char *s, size_t len)
{
	uint32_t at[AN_PLAIN_COMMAS];
	long nc = tc_analysis__csv_plain_commas(s, len, at, AN_PLAIN_COMMAS);
	size_t base = r->text.len;
	long k;

	if (nc < 0)
		return false;
	tc_buf_add(&r->text, s, len);
	for (k = 0; k < nc; k++) {
		rec_add(r);
		r->text.data[base + at[k]] = '\0';
		r->start = base + at[k] + 1;
	}
	return true;
}

/* Point f at the fields once the record is complete (text no longer
 * moves). */
static void
rec_seal(struct an_csv_rec *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		r->f[i] = r->text.data + r->off[i];
}

static void
rec_clear(struct an_csv_rec *r)
{
	r->n = 0;
	r->start = 0;
	tc_buf_reset(&r->text);
}

/* Where a CSV read stands between two pieces of its text. */
struct csv_reader {
	struct an_csv_rec rec;	/* the record being read */
	size_t recno;		/* records handed over so far */
	bool quoted, in_field;
};

/*
 * Read the records of t[0..n), numbered from 1 as csv.reader counts them
 * (empty records skipped).  Fields may be quoted ("" inside a quoted
 * field is one quote); records end at LF, CRLF or CR outside quotes.
 * Runs of plain bytes (up to the next quote inside quotes, or the next
 * comma or line end outside) are copied at once, and so is a whole line
 * without quotes or CRs, split on its commas in place.
 *
 * The text may come in pieces: every piece but the last ends with an LF
 * (so that no quote or CR waits for the byte after it, and a quoted field
 * may go on into the next piece); last ends the final record.
 */
static int
csv_feed(struct csv_reader *p, const char *t, size_t n, bool last, an_csv_fn fn,
    void *ctx, tc_error *err)
{
	struct an_csv_rec *rec = &p->rec;
	size_t i, j;
	int rc = 0;

	for (i = 0; rc == 0 && (i < n || (last && i == n)); i++) {
		char c = i < n ? t[i] : '\n';

		if (p->quoted) {
			if (i == n) {
				p->quoted = false;
			} else if (c == '"') {
				if (i + 1 < n && t[i + 1] == '"') {
					tc_buf_putc(&rec->text, '"');
					i++;
				} else {
					p->quoted = false;
				}
				continue;
			} else {
				const char *q = memchr(t + i, '"', n - i);

				j = q != NULL ? (size_t)(q - t) : n;
				tc_buf_add(&rec->text, t + i, j - i);
				i = j - 1;
				continue;
			}
		}
		if (!p->in_field && rec->n == 0 && i < n) {
			const char *nl = memchr(t + i, '\n', n - i);

			j = nl != NULL ? (size_t)(nl - t) : n;
			if (j > i && rec_split(rec, t + i, j - i)) {
				p->in_field = rec->text.len > rec->start;
				i = j - 1;
				continue;
			}
		}
		if (c == '"' && !p->in_field) {
			p->quoted = true;
			p->in_field = true;
			continue;
		}
		if (c == ',') {
			rec_push(rec);
			p->in_field = false;
			continue;
		}
		if (c == '\n' || c == '\r') {
			if (p->in_field || rec->n > 0)
				rec_push(rec);
			if (c == '\r' && i + 1 < n && t[i + 1] == '\n')
				i++;
			if (rec->n > 0) {
				p->recno++;
				rec_seal(rec);
				rc = fn(ctx, rec, p->recno, err);
			}
			rec_clear(rec);
			p->in_field = false;
			continue;
		}
		/* inside a field a quote is a plain byte */
		for (j = i + 1; j < n && t[j] != ',' && t[j] != '\n' &&
		    t[j] != '\r'; j++)
			;
		tc_buf_add(&rec->text, t + i, j - i);
		i = j - 1;
		p->in_field = true;
	}
	return rc;
}

static void
csv_reader_free(struct csv_reader *p)
{
	free(p->rec.f);
	free(p->rec.off);
	tc_buf_free(&p->rec.text);
}

static bool
has_bom(const char *t, size_t n)
{
	return n >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0;
}

int
tc_analysis__csv_text_each(const char *t, size_t n, an_csv_fn fn, void *ctx, tc_error *err)
{
	struct csv_reader p;
	size_t skip = has_bom(t, n) ? 3 : 0;
	int rc;

	memset(&p, 0, sizeof(p));
	rc = csv_feed(&p, t + skip, n - skip, true, fn, ctx, err);
	csv_reader_free(&p);
	return rc;
}

/* How much of a CSV file is read at a time. */
#define CSV_PIECE	((size_t)1 << 20)

/* A record, or a line, of more than max bytes. */
static int
too_long(const char *path, size_t max, tc_error *err)
{
	tc_buf q = TC_BUF_INIT;

	tc_path_repr(&q, path);
	tc_error_set(err, "record is too long: %s (more than %zu bytes)",
	    tc_buf_cstr(&q), max);
	tc_buf_free(&q);
	return -1;
}

/*
 * The file is read a piece at a time, each piece cut after its last LF
 * and the rest kept for the next.
 */
int
tc_analysis__csv_file_each_sized(const char *path, size_t piece, size_t max,
    bool strict, an_csv_fn fn, void *ctx, tc_error *err)
{
	struct csv_reader p;
	struct stat st;
	tc_error rec_err = TC_ERROR_INIT;
	char *buf;
	size_t cap = piece > 0 ? piece : 1, len = 0, take;
	bool first = true, eof = false, stopped = false;
	int fd, rc = 0;

	if ((fd = tc_open_regular_stat_at(AT_FDCWD, path, 0, &st)) < 0) {
		tc_error_os(err, errno, path);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	buf = tc_xmalloc(cap);
	while (rc == 0 && !eof) {
		ssize_t got;
		const char *nl;

		if (len == cap) {	/* a line longer than the buffer */
			if (cap >= max) {
				rc = too_long(path, max, err);
				break;
			}
			cap *= 2;
			buf = tc_xrealloc(buf, cap);
		}
		if ((got = read(fd, buf + len, cap - len)) < 0) {
			if (tc_read_retry(fd, true))
				continue;
			tc_error_os(err, errno, path);
			rc = -1;
			break;
		}
		if (got == 0)
			eof = true;
		len += (size_t)got;
		if (first) {
			if (len < 3 && !eof)
				continue;
			first = false;
			if (has_bom(buf, len)) {
				if (strict) {
					rc = -2;
					break;
				}
				memmove(buf, buf + 3, len - 3);
				len -= 3;
			}
		}
		/* the whole rest at the end, else up to the last LF */
		if (eof)
			take = len;
		else if ((nl = memrchr(buf, '\n', len)) != NULL)
			take = (size_t)(nl - buf) + 1;
		else
			continue;
		/* strict: no record counts before the text is known to be
		 * UTF-8; an LF never ends a piece inside a character */
		if (strict && !tc_utf8_valid(buf, take)) {
			rc = -2;
			break;
		}
		if (!stopped) {
			rc = csv_feed(&p, buf, take, eof, fn, ctx, err);
			if (rc == 0 && !eof && p.rec.text.len > max)
				rc = too_long(path, max, err);	/* a quote left open */
			if (rc != 0 && strict && !eof) {
				/* the rest of the text may still not be UTF-8,
				 * which comes first: read on, records aside */
				tc_error_set(&rec_err, "%s", tc_error_msg(err));
				stopped = true;
				rc = 0;
			}
		}
		len -= take;
		memmove(buf, buf + take, len);
	}
	if (rc == 0 && stopped) {
		tc_error_set(err, "%s", tc_error_msg(&rec_err));
		rc = -1;
	} else if (rc == -2) {
		tc_error_clear(err);	/* a record's, superseded */
	}
	tc_error_clear(&rec_err);
	close(fd);
	free(buf);
	csv_reader_free(&p);
	return rc;
}

int
tc_analysis__csv_file_each(const char *path, an_csv_fn fn, void *ctx,
    tc_error *err)
{
	return tc_analysis__csv_file_each_sized(path, CSV_PIECE,
	    TC_READ_MAX_BYTES, false, fn, ctx, err);
}

int
tc_analysis__csv_file_each_strict(const char *path, an_csv_fn fn, void *ctx,
    tc_error *err)
{
	return tc_analysis__csv_file_each_sized(path, CSV_PIECE,
	    TC_READ_MAX_BYTES, true, fn, ctx, err);
}
