/*
 * runset.c - the reference's run-set reader (docs/spec/gates.md
 * "Run-set layout", "Run-set statistics"): run-* directories, log_<rank>.log
 * rank logs, the "Inference time (decode|prefill): X ms" lines, warmup slicing,
 * and the per-rank / per-run / per-run-set statistics with the exact Decimal
 * means.
 *
 * Every post-warmup decode sample of the run set lives in one pool array
 * (runs in order, logs in order); ranks and runs hold views into it, so
 * the pooled statistics need no copies, and the exact sums of each log
 * are merged upwards instead of recomputed.  (A run holding two logs of
 * one rank, summarised only for --reference-output, is the exception:
 * see pool_remaining_ranks.)
 *
 * Logs are read into one reused buffer and scanned with memchr and word
 * compares; a numeral is converted in the pass that finds its end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunectl/bench.h"
#include "tunectl/decimal.h"
#include "tunectl/path.h"
#include "bench_internal.h"
#include "../num/stats_acc.h"

__extension__ typedef unsigned __int128 u128;

/* ---- small containers --------------------------------------------------- */

typedef struct dvec {
	double *v;
	size_t n, cap;
} dvec;

/* Room for extra more values: at least doubling, so pushes stay O(1). */
static void
dvec_reserve(dvec *d, size_t extra)
{
	size_t want = d->n + extra;

	if (want <= d->cap)
		return;
	d->cap = d->cap * 2 > want ? d->cap * 2 : want < 1024 ? 1024 : want;
	d->v = tc_xrealloc(d->v, d->cap * sizeof(*d->v));
}

static inline void
dvec_push(dvec *d, double x)
{
	if (d->n == d->cap)
		dvec_reserve(d, 1);
	d->v[d->n++] = x;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted "run-*" directories of dir (paths joined); NULL count 0 when the
 * directory cannot be listed, as pathlib's glob yields nothing then. */
char **
tc_bench_list_runs(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL;
	size_t n = 0, cap = 0;

	*count = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		char *p;

		if (strncmp(e->d_name, "run-", 4) != 0)
			continue;
		p = tc_bench_join(dir, e->d_name);
		if (!tc_is_directory(p)) {
			free(p);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			list = tc_xrealloc(list, cap * sizeof(*list));
		}
		list[n++] = p;
	}
	closedir(d);
	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_str);
	*count = n;
	return list;
}

void
tc_bench_free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* ---- rank logs ------------------------------------------------------------ */

typedef struct rank_log {
	long rank;
	char *path;
} rank_log;

/* re.search(r"log_(\d+)\.log$", name): the leftmost start whose tail is
 * digits followed by ".log" (ASCII digits only). */
static bool
match_rank(const char *name, long *rank, bool *too_big)
{
	size_t len = strlen(name);

	*too_big = false;
	for (size_t i = 0; i + 4 <= len; i++) {
		const char *p = name + i + 4, *q = p;

		if (strncmp(name + i, "log_", 4) != 0)
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == p || strcmp(q, ".log") != 0)
			continue;
		{
			long r = 0;

			while (p < q && *p == '0')
				p++;
			if (q - p > 18) {
				*too_big = true;
				return true;
			}
			for (; p < q; p++)
				r = r * 10 + (*p - '0');
			*rank = r;
		}
		return true;
	}
	return false;
}

static int
cmp_rank_log(const void *a, const void *b)
{
	const rank_log *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
list_rank_logs(const char *run_dir, rank_log **out, size_t *count,
    tc_error *err)
{
	DIR *d = opendir(run_dir);
	struct dirent *e;
	rank_log *list = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*count = 0;
	if (d == NULL)
		return TC_BENCH_OK;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		long rank = 0;
		bool too_big;

		if (len < 8 || strncmp(e->d_name, "log_", 4) != 0 ||
		    strcmp(e->d_name + len - 4, ".log") != 0)
			continue;
		if (!match_rank(e->d_name, &rank, &too_big))
			continue;
		if (too_big) {
			char *p = tc_bench_join(run_dir, e->d_name);

			tc_error_set(err, "%s: rank number too large", p);
			free(p);
			closedir(d);
			for (size_t i = 0; i < n; i++)
				free(list[i].path);
			free(list);
			return TC_BENCH_VALUE_ERROR;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			list = tc_xrealloc(list, cap * sizeof(*list));
		}
		list[n].rank = rank;
		list[n].path = tc_bench_join(run_dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_rank_log);
	*out = list;
	*count = n;
	return TC_BENCH_OK;
}

char **
tc_bench_rank_logs(const char *run_dir, size_t *count, tc_error *err)
{
	rank_log *logs;
	size_t n;
	char **paths;

	*count = 0;
	if (list_rank_logs(run_dir, &logs, &n, err) != 0)
		return NULL;
	paths = tc_xcalloc(n + 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		paths[i] = logs[i].path;
	free(logs);
	*count = n;
	return paths;
}

/* ---- reading one log -------------------------------------------------------- */

/*
 * Read a whole log into *buf (grown as needed, reused from log to log so
 * that a run set of thousands of logs costs one allocation).  Read, not
 * mapped: a log truncated by a still-running writer while mapped would
 * end the gate with SIGBUS, and copying from the page cache costs a
 * fraction of scanning the bytes.
 */
static int
read_log(const char *path, char **buf, size_t *cap, size_t *len,
    tc_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t n = 0;

	if (fd < 0) {
		tc_bench_oserror(err, errno, path);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		tc_bench_oserror(err, e, path);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		tc_bench_oserror(err, EISDIR, path);
		return -1;
	}
	/* one byte more than the size, so EOF is seen without a regrowth */
	if (S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size + 2 > *cap) {
		*cap = (size_t)st.st_size + 2;
		free(*buf);
		*buf = tc_xmalloc(*cap);
	} else if (*cap == 0) {
		*cap = 4096;
		*buf = tc_xmalloc(*cap);
	}
	for (;;) {
		ssize_t r;

		if (n + 1 == *cap) {
			*cap *= 2;
			*buf = tc_xrealloc(*buf, *cap);
		}
		r = read(fd, *buf + n, *cap - 1 - n);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			tc_bench_oserror(err, e, path);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}

char *
tc_bench_read_all(const char *path, size_t *len, tc_error *err)
{
	char *buf = NULL;
	size_t cap = 0;

	if (read_log(path, &buf, &cap, len, err) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One decode sample's exact value: fast form (coef, frac) when it has at
 * most 19 significant digits, else the text. */
typedef struct exact {
	uint64_t coef;
	int32_t frac;		/* digits after the point */
	bool slow;
	const char *text;
	size_t len;
} exact;

typedef struct evec {
	exact *v;
	size_t n, cap;
} evec;

static inline void
evec_push(evec *d, const exact *x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->v = tc_xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	d->v[d->n++] = *x;
}

static const double pow10_tab[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * Convert a "[0-9.]+" match: Decimal(text) must succeed (at most one
 * point, at least one digit), and float(Decimal) is correctly rounded.
 * Returns false for an invalid numeral.
 */
bool
tc_bench_numeral(const char *s, size_t len, double *value, uint64_t *coef,
    int32_t *frac, bool *slow)
{
	size_t i, ndig = 0, sig = 0;
	bool dot = false, overflow = false;
	uint64_t c = 0;
	int32_t f = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (dot)
				return false;
			dot = true;
			continue;
		}
		ndig++;
		if (dot)
			f++;
		if (sig == 0 && s[i] == '0')
			continue;
		if (sig >= 19) {
			overflow = true;
			continue;
		}
		c = c * 10 + (uint64_t)(s[i] - '0');
		sig++;
	}
	if (ndig == 0)
		return false;
	*slow = overflow || f > 1000000;
	*coef = c;
	*frac = f;
	if (!overflow && c < (UINT64_C(1) << 53) && f <= 22) {
		*value = (double)c / pow10_tab[f];
	} else {
		tc_dec d;

		tc_dec_init(&d);
		(void)tc_dec_parse(&d, s, len);
		*value = tc_dec_to_double(&d);
		tc_dec_clear(&d);
	}
	return true;
}

/* The timing-line head, "Inference time (": sixteen bytes, compared as
 * two words. */
#define HEAD_LEN 16

static uint64_t
load64(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static bool
is_head(const char *p)
{
	static const char head[HEAD_LEN] = "Inference time (";

	return load64(p) == load64(head) && load64(p + 8) == load64(head + 8);
}

/*
 * The leftmost head at or after p.  A log is mostly timing lines, so the
 * next one usually starts right after the newline that ended the last
 * match: that is tried before memchr for the head's first byte (a byte
 * before it that is not 'I' cannot start a match).
 */
static const char *
find_head(const char *p, const char *end)
{
	if ((size_t)(end - p) > HEAD_LEN && *p == '\n' && is_head(p + 1))
		return p + 1;
	while ((size_t)(end - p) >= HEAD_LEN) {
		const char *q = memchr(p, 'I', (size_t)(end - p) - HEAD_LEN + 1);

		if (q == NULL)
			return NULL;
		if (is_head(q))
			return q;
		p = q + 1;
	}
	return NULL;
}

/*
 * The numeral [0-9.]+ at q: its end, and in one pass its coefficient
 * and digits after the point when it has the common form (one point at
 * most, at most 19 significant digits).
 */
typedef struct numeral {
	const char *end;
	uint64_t coef;
	int32_t frac;
	bool simple;
} numeral;

static void
scan_numeral(const char *q, const char *end, numeral *n)
{
	uint64_t c = 0;
	int32_t f = 0;
	unsigned sig = 0;
	bool dot = false, simple = true;

	for (; q < end; q++) {
		unsigned d = (unsigned)(unsigned char)*q - '0';

		if (d <= 9) {
			f += dot;
			if (c != 0 || d != 0) {
				if (++sig > 19)
					simple = false;
				else
					c = c * 10 + d;
			}
		} else if (*q == '.') {
			simple = simple && !dot;
			dot = true;
		} else {
			break;
		}
	}
	n->end = q;
	n->coef = c;
	n->frac = f;
	n->simple = simple;
}

/*
 * Scan a log for the reference regex
 * "Inference time \((decode|prefill)\): ([0-9.]+) ms" (findall: left to
 * right, non-overlapping).  [0-9.]+ is greedy and cannot give back
 * characters usefully (what follows must be " ms"), so a match is found
 * by direct comparison.  A numeral is converted once " ms" follows it,
 * as Decimal(text) and float(Decimal) are: in the common form (at least
 * one digit, at most 22 after the point, a coefficient below 2^53) the
 * double is c / 10^f, correctly rounded because both operands are
 * exact; tc_bench_numeral converts (or refuses) anything else.
 */
static int
scan_log(const char *path, const char *buf, size_t len, dvec *dec,
    evec *dec_exact, dvec *pre, tc_error *err)
{
	const char *p = buf, *end = buf + len;

	while ((p = find_head(p, end)) != NULL) {
		const char *q = p + HEAD_LEN;
		bool decode;
		numeral n;
		exact x;
		double v;

		if ((size_t)(end - q) >= 9 && memcmp(q, "decode): ", 9) == 0) {
			decode = true;
			q += 9;
		} else if ((size_t)(end - q) >= 10 &&
		    memcmp(q, "prefill): ", 10) == 0) {
			decode = false;
			q += 10;
		} else {
			p++;
			continue;
		}
		scan_numeral(q, end, &n);
		if (n.end == q || (size_t)(end - n.end) < 3 ||
		    memcmp(n.end, " ms", 3) != 0) {
			p++;
			continue;
		}
		x.text = q;
		x.len = (size_t)(n.end - q);
		if (n.simple && (n.coef != 0 || memchr(q, '0', x.len) != NULL) &&
		    n.frac <= 22 && n.coef < (UINT64_C(1) << 53)) {
			x.coef = n.coef;
			x.frac = n.frac;
			x.slow = false;
			v = (double)n.coef / pow10_tab[n.frac];
		} else if (!tc_bench_numeral(q, x.len, &v, &x.coef, &x.frac,
		    &x.slow)) {
			tc_buf b = TC_BUF_INIT;

			tc_json_repr_string(&b, q, x.len);
			tc_error_set(err, "invalid decimal numeral %s in %s "
			    "(decimal.InvalidOperation)", tc_buf_cstr(&b), path);
			tc_buf_free(&b);
			return TC_BENCH_FAIL;
		}
		if (!isfinite(v)) {
			tc_error_set(err, "%s: timing value %.*s is too large "
			    "for a float", path, (int)x.len, q);
			return TC_BENCH_FAIL;
		}
		if (decode) {
			dvec_push(dec, v);
			evec_push(dec_exact, &x);
		} else {
			dvec_push(pre, v);
		}
		p = n.end + 3;
	}
	return TC_BENCH_OK;
}

size_t
tc_bench_count_samples(const char *buf, size_t len)
{
	dvec dec = { 0 }, pre = { 0 };
	evec ex = { 0 };
	tc_error err = TC_ERROR_INIT;
	size_t n;

	(void)scan_log("", buf, len, &dec, &ex, &pre, &err);
	n = dec.n + pre.n;
	free(dec.v);
	free(pre.v);
	free(ex.v);
	tc_error_clear(&err);
	return n;
}

/* str(sum(Decimal, start=Decimal("0")) / count) of x[0..n-1]. */
static char *
exact_mean(const exact *x, size_t n)
{
	tc_dec sum, cnt, q;
	char *s;
	bool fast = true;
	int32_t maxf = 0;
	u128 acc = 0;
	static const u128 limit = (u128)10000000000000000000ULL *
	    1000000000ULL;	/* 10^28 */

	for (size_t i = 0; i < n && fast; i++) {
		if (x[i].slow)
			fast = false;
		else if (x[i].frac > maxf)
			maxf = x[i].frac;
	}
	if (maxf > 28)
		fast = false;
	for (size_t i = 0; i < n && fast; i++) {
		u128 t = x[i].coef;

		for (int32_t k = x[i].frac; k < maxf; k++) {
			t *= 10;
			if (t >= limit) {
				fast = false;
				break;
			}
		}
		acc += t;
		if (acc >= limit)
			fast = false;
	}
	tc_dec_init(&sum);
	tc_dec_init(&cnt);
	tc_dec_init(&q);
	if (fast) {
		/* every partial sum is exact below 10^28: no rounding happened */
		uint64_t parts[2] = { (uint64_t)acc, (uint64_t)(acc >> 64) };

		mpz_import(sum.coef, 2, -1, sizeof(uint64_t), 0, 0, parts);
		sum.exp = -(long)maxf;
		if (n == 0)
			sum.exp = 0;
	} else {
		tc_dec v;

		tc_dec_init(&v);
		for (size_t i = 0; i < n; i++) {
			(void)tc_dec_parse(&v, x[i].text, x[i].len);
			tc_dec_add(&sum, &sum, &v);
		}
		tc_dec_clear(&v);
	}
	tc_dec_set_long(&cnt, (long)n);
	(void)tc_dec_div(&q, &sum, &cnt);
	s = tc_dec_to_string(&q);
	tc_dec_clear(&sum);
	tc_dec_clear(&cnt);
	tc_dec_clear(&q);
	return s;
}

/* ---- summarising ------------------------------------------------------------ */

/* Offsets while the pools grow; turned into pointers at the end. */
typedef struct rank_tmp {
	size_t off, n, poff, pn;
	tc_acc acc;
} rank_tmp;

typedef struct load_ctx {
	const tc_runset_opts *opts;
	dvec pool, prefill;
	dvec scratch_dec, scratch_pre;
	evec scratch_exact;
	char *buf;			/* the log being read */
	size_t buf_cap;
	bool duplicates;		/* some run held two logs of one rank */
} load_ctx;

static void
free_run(tc_run_summary *r)
{
	for (size_t i = 0; i < r->rank_count; i++) {
		free(r->ranks[i].log_path);
		free(r->ranks[i].mean_exact_ms);
	}
	free(r->ranks);
	free(r->path);
	free(r->worst_rank_mean_exact_ms);
	memset(r, 0, sizeof(*r));
}

/* Python slice start for v[W:] over n items. */
static size_t
slice_start(long w, size_t n)
{
	if (w >= 0)
		return (size_t)w < n ? (size_t)w : n;
	if ((size_t)(-(w + 1)) + 1 >= n)
		return 0;
	return n - ((size_t)(-(w + 1)) + 1);
}

typedef struct run_tmp {
	size_t off, n, poff, pn;
	size_t nlogs;
	rank_tmp *logs;		/* per log (duplicates included) */
	size_t *slot_log;	/* rank slot -> index of the log it holds */
	tc_acc acc, pacc;
} run_tmp;

static int
load_run(load_ctx *c, const char *run_dir, tc_run_summary *run, run_tmp *rt,
    tc_error *err)
{
	rank_log *logs;
	size_t nlogs, i, nr;
	int rc;

	memset(run, 0, sizeof(*run));
	memset(rt, 0, sizeof(*rt));
	if ((rc = list_rank_logs(run_dir, &logs, &nlogs, err)) != 0)
		return rc;
	/* Sorted by (rank, path), so logs of one rank are neighbours.  The
	 * reference lets the later one replace the earlier in ranks while
	 * both count and both feed the run's pooled samples: almost
	 * certainly a mistake in the run layout, so only its own reports
	 * (--reference-output) reproduce that. */
	for (i = 1; i < nlogs && !c->opts->allow_duplicate_ranks; i++) {
		if (logs[i].rank != logs[i - 1].rank)
			continue;
		tc_error_set(err, "%s: rank logs %s and %s both name rank %ld; "
		    "keep one log per rank", run_dir, logs[i - 1].path,
		    logs[i].path, logs[i].rank);
		rc = TC_BENCH_VALUE_ERROR;
		goto out;
	}
	if ((long)nlogs != c->opts->expected_ranks) {
		tc_error_set(err, "%s: expected %ld rank logs, found %zu",
		    run_dir, c->opts->expected_ranks, nlogs);
		rc = TC_BENCH_VALUE_ERROR;
		goto out;
	}
	if (nlogs == 0) {
		/* --expected-ranks 0 and no logs: the worst rank of nothing */
		tc_error_set(err, "max() arg is an empty sequence");
		rc = TC_BENCH_VALUE_ERROR;
		goto out;
	}
	run->path = tc_xstrdup(run_dir);
	run->warmup = c->opts->warmup;
	rt->off = c->pool.n;
	rt->poff = c->prefill.n;
	rt->nlogs = nlogs;
	rt->logs = tc_xcalloc(nlogs ? nlogs : 1, sizeof(*rt->logs));
	rt->slot_log = tc_xcalloc(nlogs ? nlogs : 1, sizeof(*rt->slot_log));
	tc_acc_init(&rt->acc);
	tc_acc_init(&rt->pacc);
	run->ranks = tc_xcalloc(nlogs ? nlogs : 1, sizeof(*run->ranks));
	nr = 0;
	for (i = 0; i < nlogs; i++) {
		size_t len, start, k, slot;
		rank_tmp *lt = &rt->logs[i];
		tc_rank_summary *rs;

		if (read_log(logs[i].path, &c->buf, &c->buf_cap, &len,
		    err) != 0) {
			rc = TC_BENCH_FAIL;
			goto out;
		}
		c->scratch_dec.n = c->scratch_exact.n = 0;
		lt->poff = c->prefill.n;
		rc = scan_log(logs[i].path, c->buf, len, &c->scratch_dec,
		    &c->scratch_exact, &c->prefill, err);
		if (rc != 0)
			goto out;
		lt->pn = c->prefill.n - lt->poff;
		start = slice_start(c->opts->warmup, c->scratch_dec.n);
		if (start >= c->scratch_dec.n) {
			tc_error_set(err, "%s: no decode samples remain after "
			    "warmup=%ld", logs[i].path, c->opts->warmup);
			rc = TC_BENCH_VALUE_ERROR;
			goto out;
		}
		lt->off = c->pool.n;
		lt->n = c->scratch_dec.n - start;
		dvec_reserve(&c->pool, lt->n);
		memcpy(c->pool.v + c->pool.n, c->scratch_dec.v + start,
		    lt->n * sizeof(*c->pool.v));
		c->pool.n += lt->n;
		tc_acc_init(&lt->acc);
		for (k = start; k < c->scratch_dec.n; k++)
			tc_acc_add(&lt->acc, c->scratch_dec.v[k]);
		for (k = lt->poff; k < c->prefill.n; k++)
			tc_acc_add(&rt->pacc, c->prefill.v[k]);
		tc_acc_merge(&rt->acc, &lt->acc);
		/* ranks[str(rank)] = ...: a repeated rank (the log before,
		 * in sorted order) is overwritten in place */
		slot = nr > 0 && run->ranks[nr - 1].rank == logs[i].rank ?
		    nr - 1 : nr;
		rs = &run->ranks[slot];
		if (slot == nr) {
			nr++;
			run->rank_count = nr;
		} else {
			free(rs->log_path);
			free(rs->mean_exact_ms);
			c->duplicates = true;
		}
		rs->rank = logs[i].rank;
		rs->log_path = tc_xstrdup(logs[i].path);
		rs->mean_exact_ms = exact_mean(c->scratch_exact.v + start, lt->n);
		/* views and stats are filled in once the pool stops moving */
		rt->slot_log[slot] = i;
	}
	run->rank_count = nr;
	rt->n = c->pool.n - rt->off;
	rt->pn = c->prefill.n - rt->poff;
	rc = TC_BENCH_OK;
out:
	for (i = 0; i < nlogs; i++)
		free(logs[i].path);
	free(logs);
	return rc;
}

static void
finish_run(tc_runset *rs, tc_run_summary *run, run_tmp *rt, double *scratch)
{
	const double *pool = rs->log_samples != NULL ? rs->log_samples :
	    rs->samples;
	size_t i;

	for (i = 0; i < run->rank_count; i++) {
		tc_rank_summary *r = &run->ranks[i];
		rank_tmp *lt = &rt->logs[rt->slot_log[i]];

		r->samples = pool + lt->off;
		r->prefill = rs->prefill_pool + lt->poff;
		r->prefill_count = lt->pn;
		tc_stats_from_acc(&lt->acc, r->samples, lt->n, scratch,
		    &r->decode);
	}
	run->samples = pool + rt->off;
	tc_stats_from_acc(&rt->acc, run->samples, rt->n, scratch, &run->decode);
	run->has_prefill = rt->pn > 0;
	run->prefill_samples = rs->prefill_pool + rt->poff;
	if (run->has_prefill)
		tc_stats_from_acc(&rt->pacc, run->prefill_samples, rt->pn,
		    scratch, &run->prefill);
	/* max(..., key=mean_ms): the first maximal rank wins */
	if (run->rank_count > 0) {
		size_t w = 0;

		for (i = 1; i < run->rank_count; i++)
			if (run->ranks[i].decode.mean_ms >
			    run->ranks[w].decode.mean_ms)
				w = i;
		run->worst_rank = run->ranks[w].rank;
		run->worst_rank_mean_ms = run->ranks[w].decode.mean_ms;
		run->worst_rank_mean_exact_ms =
		    tc_xstrdup(run->ranks[w].mean_exact_ms);
	}
}

/*
 * A run that held two logs of one rank pools both in its own statistics,
 * but the run set pools what its ranks kept: the reference builds it from
 * each run's ranks, where the later log replaced the earlier.  The pool
 * of every log moves to log_samples (the views point there) and samples
 * becomes the remaining ranks' samples, runs in order, ranks in order.
 */
static void
pool_remaining_ranks(tc_runset *rs, const run_tmp *rts, size_t nlog_samples)
{
	size_t m = 0;

	rs->log_samples = rs->samples;
	rs->samples = tc_xmalloc((nlog_samples ? nlog_samples : 1) *
	    sizeof(*rs->samples));
	for (size_t i = 0; i < rs->run_count; i++) {
		for (size_t k = 0; k < rs->runs[i].rank_count; k++) {
			const rank_tmp *lt = &rts[i].logs[rts[i].slot_log[k]];

			memcpy(rs->samples + m, rs->log_samples + lt->off,
			    lt->n * sizeof(*rs->samples));
			m += lt->n;
		}
	}
}

void
tc_runset_free(tc_runset *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->run_count; i++)
		free_run(&rs->runs[i]);
	free(rs->runs);
	if (rs->run_worst_rank_means_exact_ms != NULL)
		for (size_t i = 0; i < rs->run_count; i++)
			free(rs->run_worst_rank_means_exact_ms[i]);
	free(rs->run_worst_rank_means_exact_ms);
	free(rs->run_worst_rank_means_ms);
	free(rs->samples);
	free(rs->log_samples);
	free(rs->prefill_pool);
	free(rs->path);
	tc_json_free(rs->manifest);
	free(rs->manifest_error);
	free(rs);
}

int
tc_runset_load(const char *dir, const tc_runset_opts *opts, tc_runset **out,
    tc_error *err)
{
	tc_runset_opts defaults = TC_RUNSET_OPTS_INIT;
	load_ctx c;
	char **runs, *norm;
	size_t nruns, i, maxn = 0;
	run_tmp *rts = NULL;
	tc_runset *rs;
	tc_acc total;
	double *scratch;
	int rc = TC_BENCH_OK;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	memset(&c, 0, sizeof(c));
	c.opts = opts;
	norm = tc_path_normalize(dir);
	runs = tc_bench_list_runs(norm, &nruns);
	if (nruns == 0) {
		tc_error_set(err, "%s: no run-* directories found", norm);
		free(norm);
		return TC_BENCH_VALUE_ERROR;
	}
	rs = tc_xcalloc(1, sizeof(*rs));
	rs->path = norm;
	rs->runs = tc_xcalloc(nruns, sizeof(*rs->runs));
	rts = tc_xcalloc(nruns, sizeof(*rts));
	for (i = 0; i < nruns; i++) {
		rc = load_run(&c, runs[i], &rs->runs[i], &rts[i], err);
		rs->run_count = i + 1;
		if (rc != 0)
			goto out;
	}
	rs->samples = c.pool.v != NULL ? c.pool.v : tc_xmalloc(sizeof(double));
	rs->prefill_pool = c.prefill.v != NULL ? c.prefill.v :
	    tc_xmalloc(sizeof(double));
	c.pool.v = c.prefill.v = NULL;
	if (c.duplicates)
		pool_remaining_ranks(rs, rts, c.pool.n);
	for (i = 0; i < nruns; i++) {
		if (rts[i].n > maxn)
			maxn = rts[i].n;
		if (rts[i].pn > maxn)
			maxn = rts[i].pn;
	}
	scratch = tc_xmalloc((maxn ? maxn : 1) * sizeof(*scratch));
	tc_acc_init(&total);
	for (i = 0; i < nruns; i++) {
		finish_run(rs, &rs->runs[i], &rts[i], scratch);
		if (rs->log_samples == NULL) {
			tc_acc_merge(&total, &rts[i].acc);
			continue;
		}
		for (size_t k = 0; k < rs->runs[i].rank_count; k++)
			tc_acc_merge(&total,
			    &rts[i].logs[rts[i].slot_log[k]].acc);
	}
	free(scratch);
	tc_stats_from_acc(&total, rs->samples, (size_t)total.count, NULL,
	    &rs->decode);
	rs->run_worst_rank_means_ms = tc_xcalloc(nruns,
	    sizeof(*rs->run_worst_rank_means_ms));
	rs->run_worst_rank_means_exact_ms = tc_xcalloc(nruns,
	    sizeof(*rs->run_worst_rank_means_exact_ms));
	for (i = 0; i < nruns; i++) {
		rs->run_worst_rank_means_ms[i] = rs->runs[i].worst_rank_mean_ms;
		rs->run_worst_rank_means_exact_ms[i] =
		    tc_xstrdup(rs->runs[i].worst_rank_mean_exact_ms != NULL ?
		    rs->runs[i].worst_rank_mean_exact_ms : "0");
	}
	rs->median_run_worst_rank_mean_ms = tc_stat_median(
	    rs->run_worst_rank_means_ms, nruns);
	rs->worst_rank_mean_ms = tc_stat_mean(rs->run_worst_rank_means_ms,
	    nruns);
	rs->manifest = tc_bench_load_manifest(rs->path, &rs->manifest_error);
out:
	for (i = 0; i < nruns; i++) {
		free(rts[i].logs);
		free(rts[i].slot_log);
	}
	free(rts);
	free(c.pool.v);
	free(c.prefill.v);
	free(c.scratch_dec.v);
	free(c.scratch_pre.v);
	free(c.scratch_exact.v);
	free(c.buf);
	tc_bench_free_list(runs, nruns);
	if (rc != 0) {
		tc_runset_free(rs);
		return rc;
	}
	*out = rs;
	return TC_BENCH_OK;
}

int
tc_improvement_pct(const tc_runset *baseline, const tc_runset *cand,
    double *out, tc_error *err)
{
	double b = baseline->worst_rank_mean_ms;

	if (b == 0.0) {
		tc_error_set(err, "float division by zero");
		return TC_BENCH_FAIL;
	}
	*out = (b - cand->worst_rank_mean_ms) / b * 100;
	return TC_BENCH_OK;
}
