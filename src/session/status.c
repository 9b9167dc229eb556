/*
 * status.c - the human summary behind "tunectl status": every step with
 * its state and outcome, whether the session verifies, the next legal
 * step and the commands that move it forward.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/evidence.h"
#include "tunectl/path.h"
#include "tunectl/session.h"

/* Document text for a terminal: control characters escaped, so that a
 * hostile session_id cannot move the cursor or clear the screen. */
static char *
printable(const char *s)
{
	tc_buf b = TC_BUF_INIT;

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			tc_buf_printf(&b, "\\x%02x", c);
		else
			tc_buf_putc(&b, (char)c);
	}
	return tc_buf_detach(&b, NULL);
}

static void
describe_steps(const tc_session *s, const tc_json *next, tc_buf *out)
{
	size_t i;

	tc_buf_printf(out, "\n  %-2s %-28s %-28s %-8s %s\n", "#", "step",
	    "phase", "state", "outcome");
	for (i = 0; i < tc_session_step_count(s); i++) {
		const tc_json *step = tc_session_step_at(s, i);
		const char *outcome = tc_step_outcome(step);

		tc_buf_printf(out, "%s %-2zu %-28s %-28s %-8s %s\n",
		    step == next ? ">" : " ", i + 1, tc_step_id(step),
		    tc_step_phase(step)->name,
		    tc_step_is_sealed(step) ? "sealed" : "pending",
		    outcome != NULL ? outcome : "-");
	}
}

static void
describe_next(const tc_session *s, const tc_json *next, const char *program,
    const char *quoted, tc_buf *out)
{
	const tc_phase *phase;
	const char *branch;

	if (next == NULL) {
		tc_buf_printf(out, "\nNo step is pending: the session is %s.\n",
		    s->status);
		char *root = printable(s->artifact_root);

		tc_buf_printf(out, "Final report: %s/FINAL_E2E_REPORT.md\n",
		    root);
		free(root);
		tc_buf_printf(out, "Check it with:\n  %s verify --session %s\n",
		    program, quoted);
		return;
	}
	phase = tc_step_phase(next);
	branch = tc_step_branch(next);
	tc_buf_printf(out, "\nNext step: %s (phase %s", tc_step_id(next),
	    phase->name);
	if (branch != NULL)
		tc_buf_printf(out, ", optional branch %s", branch);
	tc_buf_printf(out, ")\n  agent %s, skill %s\n", phase->agent_id,
	    phase->skill);
	tc_buf_printf(out, "\nWhat to run next:\n"
	    "  %s dispatch --session %s --output TASK.json\n"
	    "  give TASK.json to a fresh %s worker; it writes a %s\n"
	    "  %s seal --session %s --result RESULT.json\n"
	    "  %s verify --session %s\n",
	    program, quoted, phase->agent_id, TC_RESULT_SCHEMA, program, quoted,
	    program, quoted);
}

/* Files planted in the scenes of pending steps, and what to do. */
static void
describe_planted(const tc_session *s, const char *program, const char *quoted,
    tc_buf *out)
{
	tc_json *planted = tc_planted_files(s);
	size_t i;

	if (planted->u.arr.len == 0) {
		tc_json_free(planted);
		return;
	}
	tc_buf_puts(out, "\nPlanted files (in the scene of a step that is not "
	    "sealed; tunectl did not write them):\n");
	for (i = 0; i < planted->u.arr.len; i++) {
		char *p = printable(tc_json_get_string(planted->u.arr.items[i],
		    "path"));
		char *id = printable(tc_json_get_string(planted->u.arr.items[i],
		    "step_id"));

		tc_buf_printf(out, "  - %s (step %s is pending)\n", p, id);
		free(id);
		free(p);
	}
	tc_buf_printf(out, "Sealing such a step is refused while they are there "
	    "(%s).  If one is the step's genuine result, seal it with\n"
	    "  %s seal --session %s --result <that file>\n"
	    "otherwise move them aside (kept under quarantine/, recorded in "
	    "the sidecar):\n  %s quarantine --session %s\n",
	    tc_session_policy(s) == TC_POLICY_STRICT ?
	    "strict run-next moves them itself" :
	    "the reference's answer: \"current step is already sealed\"",
	    program, quoted, program, quoted);
	tc_json_free(planted);
}

/* A strict session's policy record outside the artifact root: where it
 * is and that it says strict, or why there is none.  Nothing for a
 * reference session (its output stays the reference's). */
static void
describe_policy_record(const tc_session *s, const char *session_path,
    tc_buf *out)
{
	char *line, *p;

	tc_policy_record_note(session_path, tc_session_policy(s), &line);
	if (line == NULL)
		return;
	p = printable(line);
	tc_buf_printf(out, "  %s\n", p);
	free(p);
	free(line);
}

/* The path as a shell word: bare when it only has safe characters. */
static char *
shell_quote(const char *s)
{
	tc_buf b = TC_BUF_INIT;
	const char *p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789/._-+=:,@%") == strlen(s))
		return tc_xstrdup(s);
	tc_buf_putc(&b, '\'');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			tc_buf_puts(&b, "'\\''");
		else
			tc_buf_putc(&b, *p);
	}
	tc_buf_putc(&b, '\'');
	return tc_buf_detach(&b, NULL);
}

int
tc_session_describe(const char *session_path, const char *program,
    tc_buf *out, tc_error *err)
{
	tc_session *s;
	tc_json *errors, *next, *unbound, *unbound_steps;
	char *quoted, *id, *root;
	bool valid;

	if (tc_session_load(session_path, 0, &s, err) != 0)
		return -1;
	quoted = shell_quote(s->path);
	id = printable(s->session_id);
	root = printable(s->artifact_root);
	next = tc_session_next_step(s, NULL);
	tc_buf_printf(out, "Session %s: %s\n", id, s->status);
	tc_buf_printf(out, "  entrypoint %s, optional mode %s, evidence policy "
	    "%s\n", s->entrypoint, s->optional_mode,
	    tc_policy_name(tc_session_policy(s)));
	tc_buf_printf(out, "  artifact root %s\n", root);
	describe_policy_record(s, session_path, out);
	describe_steps(s, next, out);

	errors = tc_json_new_array();
	valid = tc_verify_loaded(s, TC_VERIFY_ALL, errors) == 0;
	/* what is unbound, and which steps bind nothing: one pass */
	unbound = tc_session_unbound_all(s, &unbound_steps);
	if (valid) {
		char *note = tc_unbound_note_of(s, unbound_steps);

		tc_buf_puts(out, "\nIntegrity: verified (every sealed result "
		    "matches its digest, every bound artifact is unchanged)\n");
		if (note != NULL) {
			char *p = printable(note);

			tc_buf_printf(out, "  %s\n", p);
			free(p);
		}
		free(note);
	} else {
		size_t i;

		tc_buf_puts(out, "\nIntegrity: NOT valid\n");
		for (i = 0; i < errors->u.arr.len; i++) {
			char *e = printable(tc_json_string(errors->u.arr.items[i]));

			tc_buf_printf(out, "  - %s\n", e);
			free(e);
		}
		tc_buf_printf(out, "Resume refuses this session until it is "
		    "repaired:\n  %s verify --all --session %s\n", program,
		    quoted);
	}
	tc_json_free(errors);
	errors = unbound;
	tc_json_free(unbound_steps);
	if (errors->u.arr.len > 0) {
		size_t i;

		tc_buf_puts(out, "Not bound (a later change to these goes "
		    "unnoticed):\n");
		for (i = 0; i < errors->u.arr.len; i++) {
			char *e = printable(tc_json_string(errors->u.arr.items[i]));

			tc_buf_printf(out, "  - %s\n", e);
			free(e);
		}
	}
	describe_planted(s, program, quoted, out);
	describe_next(s, next, program, quoted, out);
	tc_json_free(errors);
	free(quoted);
	free(id);
	free(root);
	tc_session_free(s);
	return 0;
}
