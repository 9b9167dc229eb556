/*
 * sk_prof.c - the SK child trace (--sk-prof): one sk_prof_device_*.json
 * file, or every one under a directory, read as trace events ("ts" with
 * "dur" or a B/E/X phase, anywhere in the document outside "args"), and
 * summarised as the analysis's diagnostic-only sk_child_profile: event and
 * stream counts, the interval of the complete events, their core families
 * and the multi-stream overlap between them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis_internal.h"
#include "tunectl/fileio.h"

struct child {
	char *name, *type;
	an_num task_id, stream_id;
	enum an_family family;
	double start, duration;
	an_num end;
};

struct summary {
	struct child *rows;
	size_t n;
	char **range_ids;
	size_t nranges;
	size_t scoped;
};

/* _to_float(value) of a JSON value. */
static an_num
json_float(const tc_json *v)
{
	if (v == NULL)
		return AN_NONE;
	switch (v->type) {
	case TC_JSON_INT:
		return tc_analysis__fin(strtod(v->u.int_text, NULL));
	case TC_JSON_FLOAT:
		return tc_analysis__fin(v->u.f);
	case TC_JSON_STRING:
		return tc_analysis__to_float(v->u.str.ptr, v->u.str.len);
	default:
		return AN_NONE;
	}
}

static an_num
json_int(const tc_json *v)
{
	an_num x = json_float(v);

	if (x.ok)
		x.v = trunc(x.v) + 0.0;
	return x;
}

/* str(a or b or c or fallback) */
static char *
str_first(const tc_json *a, const tc_json *b, const tc_json *c,
    const char *fallback)
{
	const tc_json *v = tc_json_truthy(a) ? a : tc_json_truthy(b) ? b :
	    tc_json_truthy(c) ? c : NULL;
	tc_buf out = TC_BUF_INIT;

	if (v == NULL)
		return tc_xstrdup(fallback);
	tc_json_str(&out, v);
	tc_buf_grow(&out, 0);
	return tc_buf_detach(&out, NULL);
}

static void
add_range(struct summary *s, const char *id)
{
	size_t i;

	s->scoped++;
	for (i = 0; i < s->nranges; i++)
		if (strcmp(s->range_ids[i], id) == 0)
			return;
	s->range_ids = tc_xrealloc(s->range_ids, (s->nranges + 1) *
	    sizeof(*s->range_ids));
	s->range_ids[s->nranges++] = tc_xstrdup(id);
}

static void
take_event(struct summary *s, const tc_json *event, const tc_json *file_range)
{
	const tc_json *ph = tc_json_get(event, "ph"), *args, *range;
	tc_json empty = { 0 };
	struct child c;
	an_num start, dur;
	char *name;

	if (ph != NULL && ph->type != TC_JSON_NULL &&
	    !(ph->type == TC_JSON_STRING && strcmp(ph->u.str.ptr, "X") == 0))
		return;
	start = json_float(tc_json_get(event, "ts"));
	dur = json_float(tc_json_get(event, "dur"));
	if (!start.ok || !dur.ok || dur.v <= 0)
		return;
	args = tc_json_get(event, "args");
	if (args == NULL || args->type != TC_JSON_OBJECT) {
		empty.type = TC_JSON_OBJECT;
		args = &empty;
	}
	memset(&c, 0, sizeof(c));
	name = str_first(tc_json_get(event, "name"), tc_json_get(args, "name"),
	    NULL, "");
	c.name = tc_analysis__strip_dup(name, strlen(name));
	free(name);
	{
		char *kt = str_first(tc_json_get(args, "kernelType"),
		    tc_json_get(args, "kernel_type"),
		    tc_json_get(args, "Accelerator Core"), "");

		c.family = tc_analysis__core_family("", "", c.name, kt);
		free(kt);
	}
	{
		const tc_json *sid = tc_json_get(args, "streamId");

		c.stream_id = sid != NULL && sid->type != TC_JSON_NULL ?
		    json_int(sid) : json_int(tc_json_get(args, "stream_id"));
		if (!c.stream_id.ok)
			c.stream_id = json_int(tc_json_get(event, "tid"));
	}
	range = tc_json_get(args, "range_id");
	if (!tc_json_truthy(range))
		range = tc_json_get(event, "range_id");
	if (!tc_json_truthy(range))
		range = file_range;
	if (range != NULL && range->type == TC_JSON_STRING &&
	    range->u.str.len > 0)
		add_range(s, range->u.str.ptr);
	{
		const tc_json *node = tc_json_get(args, "nodeId");

		c.task_id = json_int(tc_json_truthy(node) ? node :
		    tc_json_get(args, "task_id"));
	}
	c.type = str_first(tc_json_get(args, "type"), NULL, NULL, "SK child");
	c.start = start.v;
	c.duration = dur.v;
	c.end = tc_analysis__sum2(start, dur);
	s->rows = tc_xrealloc(s->rows, (s->n + 1) * sizeof(*s->rows));
	s->rows[s->n++] = c;
}

static void
walk_events(struct summary *s, const tc_json *v, const tc_json *file_range)
{
	size_t i;

	if (v->type == TC_JSON_OBJECT) {
		const tc_json *ph = tc_json_get(v, "ph");

		if (tc_json_get(v, "ts") != NULL &&
		    (tc_json_get(v, "dur") != NULL || (ph != NULL &&
		    ph->type == TC_JSON_STRING && ph->u.str.len == 1 &&
		    strchr("BEX", ph->u.str.ptr[0]) != NULL)))
			take_event(s, v, file_range);
		for (i = 0; i < v->u.obj.len; i++)
			if (strcmp(v->u.obj.members[i].key, "args") != 0)
				walk_events(s, v->u.obj.members[i].value,
				    file_range);
	} else if (v->type == TC_JSON_ARRAY) {
		for (i = 0; i < v->u.arr.len; i++)
			walk_events(s, v->u.arr.items[i], file_range);
	}
}

static int
cmp_num(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted distinct known streams of the rows. */
static tc_json *
stream_ids(const struct summary *s, size_t *count)
{
	double *v = tc_xmalloc((s->n + 1) * sizeof(*v));
	size_t i, k = 0, m = 0;
	tc_json *list = tc_json_new_array();

	for (i = 0; i < s->n; i++)
		if (s->rows[i].stream_id.ok)
			v[k++] = s->rows[i].stream_id.v;
	qsort(v, k, sizeof(*v), cmp_num);
	for (i = 0; i < k; i++) {
		if (i > 0 && v[i] == v[i - 1])
			continue;
		tc_json_array_push(list, tc_analysis__json_int(v[i]));
		m++;
	}
	free(v);
	*count = m;
	return list;
}

static struct an_event *
events_of(const struct summary *s)
{
	struct an_event *ev = tc_xmalloc((s->n + 1) * sizeof(*ev));
	size_t i;

	for (i = 0; i < s->n; i++) {
		ev[i].stream = s->rows[i].stream_id;
		ev[i].family = s->rows[i].family;
		ev[i].start = s->rows[i].start;
		ev[i].end = s->rows[i].end;
	}
	return ev;
}

/* _interval_summary of the child rows (None without rows). */
static tc_json *
interval(const struct summary *s)
{
	struct an_counter types = { 0 }, fams = { 0 };
	struct an_event *ev;
	tc_json *o, *tasks, *errs;
	an_num end = AN_NUM(-INFINITY), iv, sum = AN_NUM(0), uni;
	double start = INFINITY;
	size_t i, ns;
	bool row_error = false;

	if (s->n == 0)
		return tc_json_new_null();
	tasks = tc_json_new_array();
	for (i = 0; i < s->n; i++) {
		const struct child *c = &s->rows[i];

		tc_json_array_push(tasks, tc_analysis__json_intnum(c->task_id));
		tc_analysis__counter_add(&types, c->type);
		tc_analysis__counter_add(&fams, tc_analysis__family_names[c->family]);
		if (c->start < start)
			start = c->start;
		if (!c->end.ok) {
			row_error = true;
			end = AN_NONE;
		} else if (end.ok && c->end.v > end.v) {
			end = c->end;
		}
		sum = tc_analysis__sum2(sum, AN_NUM(c->duration));
	}
	iv = tc_analysis__diff(end, AN_NUM(start));
	ev = events_of(s);
	uni = tc_analysis__interval_union(ev, s->n);
	o = tc_json_new_object();
	tc_json_object_set_int(o, "row_count", (int64_t)s->n);
	tc_json_object_set(o, "task_ids", tasks);
	tc_json_object_set(o, "op_types", tc_analysis__counter_json(&types, 12));
	tc_json_object_set(o, "core_families", tc_analysis__counter_json(&fams, 12));
	tc_json_object_set(o, "stream_ids", stream_ids(s, &ns));
	tc_json_object_set_int(o, "stream_count", (int64_t)ns);
	tc_json_object_set(o, "start_us", tc_json_new_float(start));
	tc_json_object_set(o, "end_us", tc_analysis__json_float(end));
	tc_json_object_set(o, "interval_us", tc_analysis__json_float(iv));
	tc_json_object_set(o, "duration_sum_us", tc_analysis__json_float(sum));
	tc_json_object_set(o, "union_duration_us", tc_analysis__json_float(uni));
	tc_json_object_set(o, "multi_stream_analysis",
	    tc_analysis__core_overlap(ev, s->n, 20));
	/* no scalar columns in a trace: (None or 0) + (None or 0) per row */
	tc_json_object_set_int(o, "scalar_time_us", 0);
	tc_json_object_set_null(o, "max_scalar_ratio");
	errs = tc_json_new_array();
	if (row_error || !end.ok || !iv.ok || !sum.ok || !uni.ok)
		tc_json_array_push(errs,
		    tc_json_new_string("non_finite_derived_statistics"));
	tc_json_object_set(o, "evidence_errors", errs);
	free(ev);
	tc_analysis__counter_free(&types);
	tc_analysis__counter_free(&fams);
	return o;
}

static tc_json *
build(const struct summary *s, const struct an_paths *files)
{
	tc_json *o = tc_json_new_object(), *list;
	struct an_counter fams = { 0 };
	struct an_event *ev;
	size_t i, known = 0, cv = 0, cv_known = 0, ns, *idx;

	list = tc_json_new_array();
	for (i = 0; i < files->len; i++)
		tc_json_array_push(list, tc_json_new_string(files->items[i]));
	tc_json_object_set(o, "paths", list);
	if (s->nranges > 1)
		qsort(s->range_ids, s->nranges, sizeof(*s->range_ids), cmp_str);
	list = tc_json_new_array();
	for (i = 0; i < s->nranges; i++)
		tc_json_array_push(list, tc_json_new_string(s->range_ids[i]));
	tc_json_object_set(o, "range_ids", list);
	tc_json_object_set_bool(o, "range_association_complete",
	    s->scoped == s->n && s->nranges == 1);
	tc_json_object_set_int(o, "event_count", (int64_t)s->n);
	for (i = 0; i < s->n; i++) {
		known += s->rows[i].stream_id.ok;
		if (s->rows[i].family == AN_CUBE ||
		    s->rows[i].family == AN_VECTOR) {
			cv++;
			cv_known += s->rows[i].stream_id.ok;
		}
		tc_analysis__counter_add(&fams, tc_analysis__family_names[s->rows[i].family]);
	}
	tc_json_object_set_int(o, "known_stream_event_count", (int64_t)known);
	tc_json_object_set_bool(o, "stream_identity_complete",
	    s->n > 0 && known == s->n);
	tc_json_object_set_bool(o, "cube_vector_stream_identity_complete",
	    cv > 0 && cv_known == cv);
	tc_json_object_set(o, "interval", interval(s));
	tc_json_object_set(o, "core_family_counts", tc_analysis__counter_json(&fams, 20));
	tc_json_free(stream_ids(s, &ns));
	tc_json_object_set_int(o, "stream_count", (int64_t)ns);
	ev = events_of(s);
	tc_json_object_set(o, "multi_stream_analysis",
	    tc_analysis__core_overlap(ev, s->n, 20));
	free(ev);
	/* the longest events first, ties in trace order */
	idx = tc_xmalloc((s->n + 1) * sizeof(*idx));
	for (i = 0; i < s->n; i++) {
		size_t j, x = i;

		for (j = i; j > 0 && s->rows[idx[j - 1]].duration <
		    s->rows[x].duration; j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
	list = tc_json_new_array();
	for (i = 0; i < s->n && i < 20; i++) {
		const struct child *c = &s->rows[idx[i]];
		tc_json *item = tc_json_new_object();

		tc_json_object_set_string(item, "name", c->name);
		tc_json_object_set(item, "stream_id", tc_analysis__json_intnum(c->stream_id));
		tc_json_object_set_string(item, "core_family",
		    tc_analysis__family_names[c->family]);
		tc_json_object_set(item, "duration_us",
		    tc_json_new_float(c->duration));
		tc_json_array_push(list, item);
	}
	free(idx);
	tc_json_object_set(o, "top_events_by_duration", list);
	tc_json_object_set_bool(o, "diagnostic_only", true);
	tc_analysis__counter_free(&fams);
	return o;
}

tc_json *
tc_analysis__sk_prof_summary(const char *path, tc_error *err)
{
	struct an_paths files = { NULL, 0 };
	struct summary s;
	struct stat st;
	tc_json *out = NULL;
	size_t i;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		files.items = tc_xmalloc(sizeof(*files.items));
		files.items[0] = tc_analysis__py_path(path);
		files.len = 1;
	} else {
		tc_analysis__rglob(path, "sk_prof_device_*.json", &files, err);
		if (files.len == 0) {
			char *shown = tc_analysis__py_path(path);

			tc_error_set(err, "%s: no sk_prof_device_*.json found",
			    shown);
			free(shown);
			return NULL;
		}
	}
	for (i = 0; i < files.len; i++) {
		size_t len, tlen;
		char *raw = tc_read_file(files.items[i], TC_READ_MAX_BYTES, &len,
		    err), *text;
		tc_json *doc;
		const tc_json *file_range = NULL;

		if (raw == NULL)
			goto done;
		text = tc_analysis__utf8_replace(raw, len, &tlen);
		free(raw);
		doc = tc_json_parse_text(text, tlen, err);
		free(text);
		if (doc == NULL)
			goto done;
		if (doc->type == TC_JSON_OBJECT)
			file_range = tc_json_get(doc, "range_id");
		walk_events(&s, doc, file_range);
		tc_json_free(doc);
	}
	out = build(&s, &files);
done:
	for (i = 0; i < s.n; i++) {
		free(s.rows[i].name);
		free(s.rows[i].type);
	}
	free(s.rows);
	for (i = 0; i < s.nranges; i++)
		free(s.range_ids[i]);
	free(s.range_ids);
	tc_analysis__paths_free(&files);
	return out;
}
