/*
 * phase_report.c - PHASE_REPORT.md (docs/spec/reports.md "Phase report"),
 * written beside every sealed phase result: identity bullets, the conclusion,
 * the next-step guidance and, when there are any, one JSON line per blocker.
 */
#include <stdlib.h>

#include "tunectl/report.h"

/* A member as Python's f-string shows it (validated results hold
 * strings here). */
static void
put_field(tc_buf *out, const tc_json *obj, const char *key)
{
	tc_json_str(out, tc_json_get(obj, key));
}

char *
tc_report_phase_md(const tc_json *result, const tc_json *step, tc_error *err)
{
	const tc_json *blockers = tc_json_get(result, "blockers");
	tc_buf out = TC_BUF_INIT;
	size_t i;

	tc_buf_puts(&out, "# ");
	put_field(&out, step, "phase");
	tc_buf_puts(&out, " 阶段报告\n\n- Session: `");
	put_field(&out, result, "session_id");
	tc_buf_puts(&out, "`\n- Step: `");
	put_field(&out, step, "step_id");
	tc_buf_puts(&out, "`\n- Agent: `");
	put_field(&out, step, "agent_id");
	tc_buf_puts(&out, "`\n- Status: `");
	put_field(&out, result, "status");
	tc_buf_puts(&out, "`\n\n## 结论\n\n");
	put_field(&out, result, "summary_zh");
	tc_buf_puts(&out, "\n\n## 下一步\n\n");
	put_field(&out, result, "next_step_guidance_zh");
	tc_buf_putc(&out, '\n');
	if (tc_json_is(blockers, TC_JSON_ARRAY) && blockers->u.arr.len > 0) {
		tc_buf_puts(&out, "\n## 阻塞项\n\n");
		for (i = 0; i < blockers->u.arr.len; i++) {
			tc_buf_puts(&out, "- ");
			if (tc_report_json_inline(&out, blockers->u.arr.items[i],
			    err) != 0) {
				tc_buf_free(&out);
				return NULL;
			}
			tc_buf_putc(&out, '\n');
		}
	}
	return tc_buf_detach(&out, NULL);
}
