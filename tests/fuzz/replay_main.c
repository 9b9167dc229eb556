/*
 * replay_main.c - a plain main() for a fuzz target, for compilers without
 * libFuzzer: feed every file named on the command line (directories are
 * walked one level deep, files in name order) to LLVMFuzzerTestOneInput
 * once.  scripts/fuzz.sh --replay links each target with it; a crash or
 * abort is the finding, exactly as under libFuzzer.
 *
 *   replay-fuzz_session tests/fuzz/corpus/fuzz_session [FILE...]
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static void
replay_file(const char *path)
{
	tc_error err = TC_ERROR_INIT;
	size_t len;
	char *data = tc_read_file(path, 16u << 20, &len, &err);

	if (data == NULL) {
		fprintf(stderr, "replay: %s\n", tc_error_msg(&err));
		exit(2);
	}
	(void)LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	replayed++;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;

	if (d == NULL) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		names = tc_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = tc_xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (tc_is_regular_file(names[i]))
			replay_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;	/* libFuzzer flags */
		if (tc_is_directory(argv[i]))
			replay_dir(argv[i]);
		else
			replay_file(argv[i]);
	}
	printf("replayed %zu inputs\n", replayed);
	return 0;
}
