/*
 * manifest.c - loading a phase manifest (_load_manifest,
 * docs/spec/controller.md "Phase manifest loading"): the schema id, the
 * required fields, the runtime tool names, and that every tool exists in the
 * tools directory.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/buf.h"
#include "tunectl/fileio.h"
#include "tunectl/path.h"
#include "tunectl/phase.h"

void
tc_phase_manifest_free(tc_phase_manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->ntools; i++)
		free(m->tools[i]);
	free(m->tools);
	free(m->path);
	free(m->tools_dir);
	tc_json_free(m->doc);
	free(m);
}

/* A bare file name: no directory part, not "." or "..", no NUL. */
static bool
bare_name(const tc_json *v)
{
	const char *s = tc_json_string(v);

	return s != NULL && v->u.str.len > 0 &&
	    strlen(s) == v->u.str.len && strchr(s, '/') == NULL &&
	    strcmp(s, ".") != 0 && strcmp(s, "..") != 0 &&
	    !tc_json_has_surrogate(s, v->u.str.len);
}

int
tc_phase_manifest_load(const char *path, const char *tools_dir,
    tc_phase_manifest **out, tc_error *err)
{
	static const char *const required[] = {
		"phase", "agent_id", "skill", "runtime_tools"
	};
	tc_phase_manifest *m;
	tc_json *tools;
	tc_buf missing = TC_BUF_INIT;
	size_t i;

	*out = NULL;
	m = tc_xcalloc(1, sizeof(*m));
	if ((m->doc = tc_json_parse_file(path, err)) == NULL)
		goto fail;
	if (!tc_json_is(m->doc, TC_JSON_OBJECT) ||
	    tc_json_get_string(m->doc, "schema_version") == NULL ||
	    strcmp(tc_json_get_string(m->doc, "schema_version"),
	    TC_PHASE_MANIFEST_SCHEMA) != 0) {
		tc_error_set(err, "phase manifest schema_version is invalid");
		goto fail;
	}
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (tc_json_get(m->doc, required[i]) == NULL) {
			tc_error_set(err, "phase manifest is missing required "
			    "fields");
			goto fail;
		}
	}
	tools = tc_json_get(m->doc, "runtime_tools");
	if (!tc_json_is(tools, TC_JSON_ARRAY) || tools->u.arr.len == 0)
		goto bad_tools;
	for (i = 0; i < tools->u.arr.len; i++)
		if (!bare_name(tools->u.arr.items[i]))
			goto bad_tools;
	m->phase = tc_json_get(m->doc, "phase");
	m->agent_id = tc_json_get(m->doc, "agent_id");
	m->skill = tc_json_get(m->doc, "skill");
	if ((m->path = tc_path_resolve(path, err)) == NULL ||
	    (m->tools_dir = tc_path_resolve(tools_dir, err)) == NULL)
		goto fail;
	m->ntools = tools->u.arr.len;
	m->tools = tc_xcalloc(m->ntools, sizeof(*m->tools));
	for (i = 0; i < m->ntools; i++) {
		const char *name = tc_json_string(tools->u.arr.items[i]);
		char *file = tc_xasprintf("%s/%s", m->tools_dir, name);

		m->tools[i] = tc_xstrdup(name);
		if (!tc_is_regular_file(file))
			tc_buf_printf(&missing, "%s%s", missing.len > 0 ?
			    ", " : "", name);
		free(file);
	}
	if (missing.len > 0) {
		tc_error_set(err, "phase manifest references missing runtime "
		    "tools: %s", missing.data);
		tc_buf_free(&missing);
		goto fail;
	}
	*out = m;
	return 0;
bad_tools:
	tc_error_set(err, "phase manifest runtime_tools is invalid");
fail:
	tc_phase_manifest_free(m);
	return -1;
}
