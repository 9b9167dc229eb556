/*
 * fuzz_support.c - libFuzzer target for the two documents support
 * delegation reads from workers: a SKILL.md's front matter (a skills
 * directory may be anyone's, TUNECTL_SKILLS_DIR) and a support result
 * (tc_support_result_validate, what "support run" accepts).
 *
 * Fixture: an artifact root holding one support attempt's output
 * directory with one file, support/sk-fusion-performance-analyst-attempt-001/
 * output/report.json, and a support task naming that attempt.  Input:
 * part 0 the bytes of a SKILL.md; part 1 (optional) a support result.
 *
 * Invariants: the front matter either parses to a valid skill name and a
 * description of 1-1024 characters, or fails with a message and no
 * output; a support result is accepted only with this session and role,
 * a known status, and produced artifacts that are existing regular files
 * inside the output directory; a refusal always has a message.
 */
#include "fuzz_common.h"
#include "tunectl/skills.h"
#include "tunectl/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SUP_OUTPUT "support/sk-fusion-performance-analyst-attempt-001/output"

static const char *sup_root;
static tc_json *sup_task;

static void
sup_cleanup(void)
{
	tc_json_free(sup_task);
}

static void
sup_init(void)
{
	char *text;

	sup_root = fz_mkroot("support");
	fz_write_str(sup_root, SUP_OUTPUT "/report.json", "{}\n");
	fz_write_str(sup_root, "notes.txt", "outside the output directory\n");
	text = tc_xasprintf("{\"schema_version\": \"tunectl-support-task-v1\", "
	    "\"session_id\": \"sup-fuzz\", \"artifact_root\": \"%s\", "
	    "\"role\": {\"agent_id\": \"sk-fusion-performance-analyst\", "
	    "\"skill\": \"superkernel-fusion-performance-analysis\", "
	    "\"read_only\": true}, \"attempt\": {\"output_dir\": \"" SUP_OUTPUT
	    "\"}}", sup_root);
	sup_task = fz_parse(text, strlen(text));
	FZ_REQUIRE(sup_task != NULL);
	free(text);
	atexit(sup_cleanup);
}

static void
sup_front_matter(const char *text, size_t len)
{
	char *name = NULL, *desc = NULL;
	tc_error err = TC_ERROR_INIT;

	if (tc_skill_front_matter(text, len, &name, &desc, &err) == 0) {
		FZ_REQUIRE(name != NULL && desc != NULL);
		FZ_REQUIRE(tc_skill_name_valid(name));
		FZ_REQUIRE(desc[0] != '\0' &&
		    strlen(desc) <= TC_SKILL_DESCRIPTION_MAX);
		FZ_NOTE("skill %s\n", name);
	} else {
		FZ_REQUIRE(name == NULL && desc == NULL);
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	}
	free(name);
	free(desc);
	tc_error_clear(&err);
}

static void
sup_result(const char *text, size_t len)
{
	tc_json *result = fz_parse(text, len);
	tc_error err = TC_ERROR_INIT;
	const tc_json *produced;
	size_t i;

	if (result == NULL)
		return;
	if (tc_support_result_validate(result, sup_task, &err) == 0) {
		const char *status = tc_json_get_string(result, "status");

		FZ_REQUIRE(tc_json_equal(tc_json_get(result, "session_id"),
		    tc_json_get(sup_task, "session_id")));
		FZ_REQUIRE(status != NULL && (strcmp(status, "succeeded") == 0 ||
		    strcmp(status, "blocked") == 0 || strcmp(status, "failed") == 0));
		produced = tc_json_get(result, "produced_artifacts");
		for (i = 0; i < produced->u.arr.len; i++) {
			const char *rel = tc_json_string(produced->u.arr.items[i]);
			char *path = tc_xasprintf("%s/%s", sup_root, rel);

			FZ_REQUIRE(strncmp(rel, SUP_OUTPUT "/",
			    strlen(SUP_OUTPUT) + 1) == 0);
			FZ_REQUIRE(tc_is_regular_file_nofollow(path));
			free(path);
		}
		FZ_NOTE("support result accepted\n");
	} else {
		FZ_REQUIRE(tc_error_msg(&err)[0] != '\0');
	}
	tc_error_clear(&err);
	tc_json_free(result);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *parts[FZ_MAX_PARTS];
	size_t lens[FZ_MAX_PARTS], n;

	if (sup_task == NULL)
		sup_init();
	n = fz_split(data, size, parts, lens, 2);
	sup_front_matter(parts[0], lens[0]);
	if (n > 1)
		sup_result(parts[1], lens[1]);
	return 0;
}
