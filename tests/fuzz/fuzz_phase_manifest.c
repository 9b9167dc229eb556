/*
 * fuzz_phase_manifest.c - libFuzzer target for phase manifests
 * ("superkernel-phase-manifest-v1",
 * docs/spec/controller.md "Phase manifest loading"): the loader against the
 * shipped tools directory (share/tools) and the tool plan execute-phase prints
 * for a current task.
 *
 * Input: the bytes of the manifest file.
 *
 * Invariants: every refusal has a message; a manifest that loads names
 * only bare file names (no '/', not "." or "..") that exist as regular
 * files in the tools directory, so a manifest can never make
 * execute-phase run a program outside it.
 */
#include "fuzz_common.h"
#include "tunectl/phase.h"
#include "tunectl/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *pm_root;
static char *pm_path, *pm_tools;
static tc_json *pm_task;

static void
pm_init(void)
{
	tc_error err = TC_ERROR_INIT;
	char *session;
	tc_json *doc;

	pm_root = fz_mkroot("phase");
	pm_path = tc_xasprintf("%s/phase.json", pm_root);
	pm_tools = tc_xasprintf("%s/share/tools", fz_src());
	session = tc_xasprintf("%s/auto-tune-session.json", pm_root);
	doc = tc_session_init(session, pm_root, "session-20260905-a", "none",
	    &err);
	FZ_REQUIRE(doc != NULL);
	tc_json_free(doc);
	pm_task = tc_dispatch_task_for(session, NULL, &err);
	FZ_REQUIRE(pm_task != NULL);
	free(session);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tc_error err = TC_ERROR_INIT;
	tc_phase_manifest *m = NULL;
	size_t i;

	if (pm_root == NULL)
		pm_init();
	fz_write(pm_root, "phase.json", data, size);
	if (fz_status(tc_phase_manifest_load(pm_path, pm_tools, &m, &err),
	    &err) != 0)
		return 0;
	FZ_REQUIRE(m->ntools > 0);
	for (i = 0; i < m->ntools; i++) {
		char *tool = tc_xasprintf("%s/%s", m->tools_dir, m->tools[i]);

		FZ_REQUIRE(strchr(m->tools[i], '/') == NULL);
		FZ_REQUIRE(strcmp(m->tools[i], ".") != 0 &&
		    strcmp(m->tools[i], "..") != 0 && m->tools[i][0] != '\0');
		FZ_REQUIRE(tc_is_regular_file(tool));
		free(tool);
	}
	tc_json_free(tc_phase_plan(m, pm_task));
	tc_phase_manifest_free(m);
	return 0;
}
