/*
 * policy.c - the evidence policy of a session: "reference" (the default,
 * absent key) or "strict", recorded as the session's "evidence_policy"
 * (a key the reference controller ignores) by init --evidence-policy.
 */
#include <string.h>

#include "session_internal.h"
#include "tunectl/evidence.h"

const char *
tc_policy_name(tc_policy p)
{
	return p == TC_POLICY_STRICT ? "strict" : "reference";
}

int
tc_policy_parse(const char *name, tc_policy *out)
{
	if (name != NULL && strcmp(name, "reference") == 0) {
		*out = TC_POLICY_REFERENCE;
		return 0;
	}
	if (name != NULL && strcmp(name, "strict") == 0) {
		*out = TC_POLICY_STRICT;
		return 0;
	}
	return -1;
}

int
tc_policy_of_doc(const tc_json *doc, tc_policy *out, tc_error *err)
{
	const tc_json *v = tc_json_get(doc, "evidence_policy");

	*out = TC_POLICY_REFERENCE;
	if (v == NULL)
		return 0;
	if (sess_str_is(v, "reference"))
		return 0;
	if (sess_str_is(v, "strict")) {
		*out = TC_POLICY_STRICT;
		return 0;
	}
	tc_error_set(err, "session evidence_policy is invalid");
	return -1;
}

tc_policy
tc_session_policy(const tc_session *s)
{
	tc_policy p;

	if (tc_policy_of_doc(s->doc, &p, NULL) != 0)
		return TC_POLICY_REFERENCE;
	return p;
}
