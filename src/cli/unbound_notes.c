/*
 * unbound_notes.c - what verify and attest say on stderr about evidence a
 * session does not bind: the sealed steps with no manifest (a reference
 * session whose sidecar is gone) and every manifest entry that is unbound
 * or was missing when it was sealed (sessions sealed by earlier tunectl
 * versions), so that nothing is left out of a verdict or a signature
 * silently (issue 34).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tunectl/evidence.h"

void
tc_cli_note_unbound(const tc_session *s, const char *cmd)
{
	tc_json *ids, *notes = tc_session_unbound_all(s, &ids);
	char *note = tc_unbound_note_of(s, ids);
	size_t i;

	if (note != NULL)
		fprintf(stderr, "tunectl %s: %s\n", cmd, note);
	free(note);
	for (i = 0; i < notes->u.arr.len; i++)
		fprintf(stderr, "tunectl: %s: not bound: %s\n", cmd,
		    tc_json_string(notes->u.arr.items[i]));
	tc_json_free(notes);
	tc_json_free(ids);
}
