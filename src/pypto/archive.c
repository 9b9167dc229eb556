/*
 * archive.c - the round archive of a formal compare
 * (<op>/docs/perf/round_NNN/, docs/spec/pypto.md "Archive layout"): the round
 * reservation, the per-repeat evidence (timing CSV, collection.log,
 * evidence_status.json, summary.txt) and measurement.json; plus the
 * strict CSV reader the verifier uses to read the evidence back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_internal.h"
#include "pypto_internal.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/pypto_compare.h"
#include "tunectl/text.h"

char *
tc_pypto_reserve_dir(const char *op_dir, const char *parent,
    const char *prefix, tc_error *err)
{
	char *perf = tc_path_join(op_dir, parent);
	int i;

	if (tc_mkdirs(perf, err) != 0) {
		free(perf);
		return NULL;
	}
	for (i = 1; i < 100000; i++) {
		char *cand = tc_xasprintf("%s/%s_%03d", perf, prefix, i);

		if (mkdir(cand, 0777) == 0) {
			free(perf);
			return cand;
		}
		if (errno != EEXIST) {
			tc_error_os(err, errno, cand);
			free(cand);
			free(perf);
			return NULL;
		}
		free(cand);
	}
	tc_error_set(err, "no free %s directory under %s", prefix, perf);
	free(perf);
	return NULL;
}

char *
tc_pypto_reserve_round(const char *op_dir, tc_error *err)
{
	return tc_pypto_reserve_dir(op_dir, "docs/perf", "round", err);
}

static void
csv_field(tc_buf *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		tc_buf_puts(out, s);
		return;
	}
	tc_buf_putc(out, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"')
			tc_buf_putc(out, '"');
		tc_buf_putc(out, *s);
	}
	tc_buf_putc(out, '"');
}

char *
tc_pypto_timing_csv(const tc_pypto_row *rows, size_t n, const char *case_id,
    size_t repeat, const char *collection_id, const char *timing_source)
{
	tc_buf b = TC_BUF_INIT;
	size_t i;

	tc_buf_puts(&b, "Op Name,Task Duration(us),Case,Repeat,Collection ID,"
	    "Timing Source\r\n");
	for (i = 0; i < n; i++) {
		tc_buf num = TC_BUF_INIT;
		char rep[24];

		csv_field(&b, rows[i].op_name);
		tc_buf_putc(&b, ',');
		tc_json_format_double(&num, rows[i].duration_us);
		tc_buf_puts(&b, tc_buf_cstr(&num));
		tc_buf_free(&num);
		tc_buf_putc(&b, ',');
		csv_field(&b, case_id);
		snprintf(rep, sizeof(rep), ",%zu,", repeat);
		tc_buf_puts(&b, rep);
		csv_field(&b, collection_id);
		tc_buf_putc(&b, ',');
		csv_field(&b, timing_source);
		tc_buf_puts(&b, "\r\n");
	}
	return tc_buf_detach(&b, NULL);
}

int
tc_pypto_csv_read(const char *path, tc_json **header, tc_json **rows,
    tc_error *err)
{
	size_t len, i = 0;
	char *text = tc_read_file(path, 64u << 20, &len, err);
	tc_json *all, *row;
	tc_buf field = TC_BUF_INIT;

	if (text == NULL)
		return -1;
	if (!tc_utf8_valid(text, len)) {
		tc_error_set(err, "'utf-8' codec can't decode %s", path);
		free(text);
		return -1;
	}
	all = tc_json_new_array();
	row = NULL;
	while (i < len) {
		bool quoted = false;

		if (row == NULL)
			row = tc_json_new_array();
		tc_buf_reset(&field);
		if (text[i] == '"') {
			quoted = true;
			i++;
			for (;;) {
				if (i >= len) {
					tc_error_set(err, "unexpected end of data "
					    "in %s", path);
					goto fail;
				}
				if (text[i] == '"') {
					if (i + 1 < len && text[i + 1] == '"') {
						tc_buf_putc(&field, '"');
						i += 2;
						continue;
					}
					i++;
					break;
				}
				tc_buf_putc(&field, text[i++]);
			}
		} else {
			while (i < len && text[i] != ',' && text[i] != '\r' &&
			    text[i] != '\n') {
				if (text[i] == '"') {
					tc_error_set(err, "unexpected quote in an "
					    "unquoted field of %s", path);
					goto fail;
				}
				tc_buf_putc(&field, text[i++]);
			}
		}
		tc_json_array_push(row, tc_json_new_stringn(
		    field.data != NULL ? field.data : "", field.len));
		if (i < len && text[i] == ',') {
			i++;
			if (i == len)
				tc_json_array_push(row, tc_json_new_string(""));
			continue;
		}
		if (quoted && i < len && text[i] != '\r' && text[i] != '\n') {
			tc_error_set(err, "',' expected after '\"' in %s", path);
			goto fail;
		}
		if (i < len && text[i] == '\r')
			i++;
		if (i < len && text[i] == '\n')
			i++;
		tc_json_array_push(all, row);
		row = NULL;
	}
	if (row != NULL)
		tc_json_array_push(all, row);
	tc_buf_free(&field);
	free(text);
	if (all->u.arr.len == 0) {
		tc_json_free(all);
		tc_error_set(err, "empty CSV: %s", path);
		return -1;
	}
	*header = tc_json_clone(all->u.arr.items[0]);
	*rows = tc_json_new_array();
	for (i = 1; i < all->u.arr.len; i++)
		tc_json_array_push(*rows, tc_json_clone(all->u.arr.items[i]));
	tc_json_free(all);
	return 0;
fail:
	tc_json_free(row);
	tc_json_free(all);
	tc_buf_free(&field);
	free(text);
	return -1;
}

tc_json *
tc_pypto_repeat_diagnosis(tc_error *err)
{
	/* The timing CSV carries no op_summary metric columns, so the merged
	 * row has neither core times nor ratios. */
	tc_json *merged = tc_json_new_object();
	tc_json *d = tc_pypto_bound_route(merged, err);

	tc_json_free(merged);
	return d;
}

static char *
collection_log(const tc_pypto_run *r)
{
	tc_buf b = TC_BUF_INIT;
	tc_json *argv = tc_json_new_array();
	tc_error err = TC_ERROR_INIT;
	char *j;
	size_t i;

	for (i = 0; r->argv != NULL && r->argv[i] != NULL; i++)
		tc_json_array_push(argv, tc_json_new_string(r->argv[i]));
	j = tc_json_canonical(argv, NULL, &err);
	tc_buf_printf(&b, "command_argv=%s\nreturncode=%d\n--- stdout ---\n%s\n"
	    "--- stderr ---\n%s", j != NULL ? j : "[]", r->exit_code,
	    r->out != NULL ? r->out : "", r->err != NULL ? r->err : "");
	free(j);
	tc_error_clear(&err);
	tc_json_free(argv);
	return tc_buf_detach(&b, NULL);
}

static char *
summary_text(const char *op_name, const char *case_id, size_t repeat,
    double duration, const char *source, const tc_json *diag,
    const char *repeat_dir)
{
	tc_buf b = TC_BUF_INIT, d = TC_BUF_INIT;

	tc_json_format_double(&d, duration);
	tc_buf_printf(&b, "=== Stage 5 repeat summary (%s) ===\n", source);
	tc_buf_printf(&b, "Op: %s\n", op_name);
	tc_buf_printf(&b, "Case: %s | Repeat: %zu | Task Duration: %sus\n",
	    case_id, repeat, tc_buf_cstr(&d));
	tc_buf_printf(&b, "Timing method: %s\n", tc_pypto_timing_method(source));
	tc_buf_puts(&b, "\n--- Bound routing (ratio-derived; NOT terminal "
	    "Roofline proof) ---\n");
	tc_buf_printf(&b, "  primary_core=%s | routing_label=%s | "
	    "scalar_route_triggered=None\n",
	    tc_json_get_string(diag, "primary_core") != NULL ?
	    tc_json_get_string(diag, "primary_core") : "unknown",
	    tc_json_get_string(diag, "routing_label"));
	tc_buf_puts(&b, "  pipeline_overlap=unverified: op_summary ratios have "
	    "no event ordering; use timeline/dependency evidence before "
	    "claiming overlap.\n");
	tc_buf_puts(&b, "\n--- NPU-only evidence ---\n  seven aic-metric "
	    "op_summary CSVs, per-core cycles and the instruction timeline are "
	    "not collected by this timing source (no NPU profiler).\n");
	tc_buf_printf(&b, "\n--- Raw data ---\n  %s/%s\n", repeat_dir,
	    TC_PYPTO_TIMING_CSV);
	tc_buf_free(&d);
	return tc_buf_detach(&b, NULL);
}

static int
write_text(const char *dir, const char *name, const char *text, tc_error *err)
{
	char *p = tc_path_join(dir, name);
	int rc = tc_write_atomic(p, text, strlen(text), TC_WRITE_EXCLUSIVE, err);

	free(p);
	return rc;
}

static int
write_doc(const char *dir, const char *name, const tc_json *doc, tc_error *err)
{
	char *p = tc_path_join(dir, name);
	int rc = tc_write_json(p, doc, TC_WRITE_EXCLUSIVE, err);

	free(p);
	return rc;
}

tc_json *
tc_pypto_archive_case(const char *round_dir, const char *collection_id,
    const char *op_name, const char *timing_source, const char *case_id,
    tc_pypto_repeat *reps, size_t n, tc_error *err)
{
	char *name = tc_pypto_case_dir_name(case_id);
	char *case_dir = tc_path_join(round_dir, name);
	tc_json *samples = tc_json_new_array(), *names = tc_json_new_array();
	tc_json *files = tc_json_new_array(), *dirs = tc_json_new_array();
	tc_json *diags = tc_json_new_array(), *m = NULL;
	double *vals = tc_xcalloc(n + 1, sizeof(*vals));
	size_t i;

	free(name);
	if (mkdir(case_dir, 0777) != 0) {
		tc_error_os(err, errno, case_dir);
		goto out;
	}
	for (i = 0; i < n; i++) {
		char *rep = tc_xasprintf("%s/repeat_%03zu", case_dir, i + 1);
		char *csv, *log, *sum;
		tc_json *diag, *status;
		int rc;

		if (mkdir(rep, 0777) != 0) {
			tc_error_os(err, errno, rep);
			free(rep);
			goto out;
		}
		if ((diag = tc_pypto_repeat_diagnosis(err)) == NULL) {
			free(rep);
			goto out;
		}
		csv = tc_pypto_timing_csv(reps[i].rows, reps[i].n_rows, case_id,
		    i + 1, collection_id, timing_source);
		log = collection_log(&reps[i].run);
		sum = summary_text(op_name, case_id, i + 1, reps[i].duration_us,
		    timing_source, diag, rep);
		status = tc_json_new_object();
		tc_json_object_set_string(status, "collection_id", collection_id);
		tc_json_object_set_string(status, "case", case_id);
		tc_json_object_set_string(status, "target_op_name", op_name);
		tc_json_object_set_string(status, "timing_source", timing_source);
		tc_json_object_set_string(status, "seven_metric_status",
		    "not_collected:no_npu_profiler");
		tc_json_object_set_string(status, "per_core_status",
		    "unavailable:no_aicore_db");
		tc_json_object_set_bool(status, "per_core_claim_allowed", false);
		tc_json_object_set(status, "bound_diagnosis", tc_json_clone(diag));
		rc = write_text(rep, TC_PYPTO_TIMING_CSV, csv, err) != 0 ||
		    write_text(rep, "collection.log", log, err) != 0 ||
		    write_text(rep, "summary.txt", sum, err) != 0 ||
		    write_doc(rep, "evidence_status.json", status, err) != 0;
		free(csv);
		free(log);
		free(sum);
		tc_json_free(status);
		if (rc) {
			tc_json_free(diag);
			free(rep);
			goto out;
		}
		vals[i] = reps[i].duration_us;
		tc_json_array_push(samples, tc_json_new_float(reps[i].duration_us));
		tc_json_array_push(names, tc_json_new_string(op_name));
		{
			char *f = tc_path_join(rep, TC_PYPTO_TIMING_CSV);

			tc_json_array_push(files, tc_json_new_string(f));
			free(f);
		}
		tc_json_array_push(dirs, tc_json_new_string(rep));
		tc_json_array_push(diags, diag);
		free(rep);
	}
	m = tc_json_new_object();
	tc_json_object_set_string(m, "collection_id", collection_id);
	tc_json_object_set_string(m, "target_op_name", op_name);
	tc_json_object_set_string(m, "case", case_id);
	tc_json_object_set(m, "duration_samples_us", samples);
	tc_json_object_set(m, "selected_op_names", names);
	tc_json_object_set_string(m, "timing_source_metric", timing_source);
	tc_json_object_set(m, "timing_source_files", files);
	tc_json_object_set(m, "aggregate_us",
	    tc_json_new_float(tc_pypto_aggregate(vals, n)));
	tc_json_object_set_string(m, "aggregation_method",
	    tc_pypto_aggregation_method(n));
	tc_json_object_set(m, "repeat_evidence_dirs", dirs);
	tc_json_object_set(m, "repeat_bound_diagnoses", diags);
	samples = names = files = dirs = diags = NULL;
	if (write_doc(case_dir, "measurement.json", m, err) != 0) {
		tc_json_free(m);
		m = NULL;
	}
out:
	tc_json_free(samples);
	tc_json_free(names);
	tc_json_free(files);
	tc_json_free(dirs);
	tc_json_free(diags);
	free(vals);
	free(case_dir);
	return m;
}
