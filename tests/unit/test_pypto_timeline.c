/*
 * test_pypto_timeline.c - the target window of the supplemental
 * instruction timeline (tc_pypto_timeline_window): which runner lines are
 * events, clipping to the window, pipe classes, and the same-lane overlap
 * (raw event pairs and the deduplicated overlap).  The example operator's
 * CPU shim reports no events, so this is where the arithmetic is pinned.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tunectl/pypto_stage5.h"

#define EV(lane, instr, s, d) \
	"PYPTO_PERF_EVENT {\"lane\": \"" lane "\", \"instruction\": \"" instr \
	"\", \"start_offset_us\": " #s ", \"duration_us\": " #d "}\n"

static int64_t
int_at(const tc_json *o, const char *key)
{
	int64_t v = -1;

	assert_true(tc_json_int64(tc_json_get(o, key), &v));
	return v;
}

static double
num_at(const tc_json *o, const char *key)
{
	double v = NAN;

	assert_true(tc_json_number(tc_json_get(o, key), &v));
	return v;
}

static void
events_are_clipped_classed_and_overlap_is_deduplicated(void **st)
{
	const char *out =
	    "warm-up done\n"
	    "PYPTO_PERF_TASK {\"op_name\": \"k\", \"duration_us\": 20}\n"
	    EV("aiv0", "MTE2", 0, 10)
	    EV("aiv0", "VEC_ADD", 5, 10)
	    EV("aiv0", "VEC_MUL", 8, 4)
	    "note: PYPTO_PERF_EVENT in the middle of a line is no event\r\n"
	    EV("aiv1", "MTE3", -5, 10)
	    EV("aiv1", "SCALAR", 2, 1)
	    EV("aiv1", "WAIT_FLAG", 30, 5)
	    EV("aiv1", "FOO", 0, 3)
	    EV("aiv2", "VEC_EXP", 15, 10);
	tc_error err = TC_ERROR_INIT;
	tc_json *w = tc_pypto_timeline_window(out, 20.0, &err);
	const tc_json *evs, *lanes, *pc, *ov, *raw, *dedup, *e;

	(void)st;
	assert_non_null(w);
	evs = tc_json_get(w, "events");
	/* WAIT_FLAG starts after the window ends: dropped. */
	assert_int_equal(evs->u.arr.len, 7);
	e = evs->u.arr.items[3];	/* MTE3 from -5: clipped to [0, 5] */
	assert_string_equal(tc_json_get_string(e, "instruction"), "MTE3");
	assert_string_equal(tc_json_get_string(e, "pipe_class"), "movement");
	assert_true(num_at(e, "start_offset_us") == 0.0);
	assert_true(num_at(e, "duration_us") == 5.0);
	e = evs->u.arr.items[6];	/* VEC_EXP from 15: clipped to [15, 20] */
	assert_true(num_at(e, "start_offset_us") == 15.0);
	assert_true(num_at(e, "duration_us") == 5.0);
	assert_string_equal(tc_json_get_string(evs->u.arr.items[5],
	    "pipe_class"), "unknown");

	lanes = tc_json_get(w, "monitored_lanes");
	assert_int_equal(lanes->u.arr.len, 3);
	assert_string_equal(tc_json_get_string(lanes->u.arr.items[1], "lane"),
	    "aiv1");

	pc = tc_json_get(w, "pipe_event_counts");
	assert_int_equal(int_at(pc, "movement"), 2);
	assert_int_equal(int_at(pc, "compute"), 3);
	assert_int_equal(int_at(pc, "scalar"), 1);
	assert_int_equal(int_at(pc, "unknown"), 1);
	assert_null(tc_json_get(pc, "wait"));
	assert_int_equal(int_at(tc_json_get(w, "instruction_event_counts"),
	    "VEC_MUL"), 1);

	ov = tc_json_get(w, "same_lane_pipe_interval_overlap");
	raw = tc_json_get(ov, "raw_event_pair_counts");
	dedup = tc_json_get(ov, "pair_overlap_us");
	/* aiv0: MTE2 [0,10] meets VEC_ADD [5,15] and VEC_MUL [8,12]: two
	 * pairs, but the compute union [5,15] covers only 5 us of it. */
	assert_int_equal(int_at(raw, "movement+compute"), 2);
	assert_true(num_at(dedup, "movement+compute") == 5.0);
	/* aiv1: MTE3 [0,5] and SCALAR [2,3]; FOO (unknown) never counts, and
	 * aiv2's compute has no partner on its own lane. */
	assert_int_equal(int_at(raw, "movement+scalar"), 1);
	assert_true(num_at(dedup, "movement+scalar") == 1.0);
	assert_null(tc_json_get(raw, "compute+scalar"));
	assert_int_equal(tc_json_get(ov, "lanes")->u.arr.len, 3);
	tc_json_free(w);
	tc_error_clear(&err);
}

static void
no_events_leave_the_overlap_empty(void **st)
{
	tc_error err = TC_ERROR_INIT;
	tc_json *w = tc_pypto_timeline_window(
	    "PYPTO_PERF_TASK {\"op_name\": \"k\", \"duration_us\": 9}\n", 9.0,
	    &err);

	(void)st;
	assert_non_null(w);
	assert_int_equal(tc_json_get(w, "events")->u.arr.len, 0);
	assert_int_equal(tc_json_get(w, "monitored_lanes")->u.arr.len, 0);
	assert_int_equal(tc_json_get(tc_json_get(w,
	    "same_lane_pipe_interval_overlap"), "raw_event_pair_counts")->u.obj.len,
	    0);
	tc_json_free(w);
	tc_error_clear(&err);
}

static void
malformed_event_lines_are_refused(void **st)
{
	static const char *const bad[] = {
		"PYPTO_PERF_EVENT {\"instruction\": \"VEC\", \"start_offset_us\": 0, "
		    "\"duration_us\": 1}\n",
		EV("aiv0", "VEC", 0, -1),
		"PYPTO_PERF_EVENT {\"lane\": \"a\", \"instruction\": \"VEC\", "
		    "\"start_offset_us\": \"0\", \"duration_us\": 1}\n",
		"PYPTO_PERF_EVENT [1, 2]\n",
		"PYPTO_PERF_EVENT {\"lane\": \n",
	};
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tc_error err = TC_ERROR_INIT;
		tc_json *w = tc_pypto_timeline_window(bad[i], 10.0, &err);

		assert_null(w);
		assert_non_null(strstr(tc_error_msg(&err),
		    "malformed timeline event: "));
		if (i < 4)
			assert_non_null(strstr(tc_error_msg(&err), "a PYPTO_PERF_EVENT "
			    "line needs lane, instruction, start_offset_us and a "
			    "non-negative duration_us"));
		tc_error_clear(&err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(events_are_clipped_classed_and_overlap_is_deduplicated),
		cmocka_unit_test(no_events_leave_the_overlap_empty),
		cmocka_unit_test(malformed_event_lines_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
