/*
 * main.c - tunectl's entry point: global options, then the command named
 * by argv[1] through the command table (commands.c).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli.h"
#include "tunectl/analysis.h"
#include "tunectl/bench.h"
#include "tunectl/report.h"

#if defined(__SANITIZE_ADDRESS__)
#define TC_UNDER_ASAN	1
#else
#define TC_UNDER_ASAN	0
#endif

/*
 * A command lives milliseconds and reads documents of up to a few
 * megabytes one after another, and on the virtual machines it runs on a
 * fresh page costs about 10 us to fault in: verify of a 10 MB session
 * spent a third of its time faulting.  So freed memory stays in the heap
 * for the next document (glibc would map each large buffer afresh and
 * unmap it on free), and the heap is grown once by 32 MiB, untouched and
 * marked for transparent huge pages: one fault then maps 2 MiB (verify of
 * 10 MB: 1 900 faults -> about 250).  A small command faults at most one
 * such page, at no cost bench/controller.sh can see.  glibc's own
 * glibc.malloc.hugetlb=1 tunable does the same, but only from the
 * environment; where the kernel gives no huge pages nothing changes.
 */
static void
set_up_heap(void)
{
	const size_t huge = (size_t)2 << 20, span = (size_t)32 << 20;
	uintptr_t from, to;
	char *p;

	mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
	/* AddressSanitizer's allocator has no heap of this kind */
	if (TC_UNDER_ASAN || (p = malloc(span)) == NULL)
		return;
	from = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
	to = ((uintptr_t)p + span) & ~(uintptr_t)(huge - 1);
	free(p);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* The gates' replay check recomputes a replay report with the analysis
 * layer's validator (bench cannot call it). */
static tc_json *
recompute_replay(const char *path, const char *expected)
{
	return tc_sk_meta_validate_replay(path, expected, NULL, NULL);
}

int
main(int argc, char **argv)
{
	const struct tc_command *c;

	set_up_heap();
	/* The session layer writes reports through the report layer above
	 * it; it is told how here. */
	tc_report_register();
	tc_replay_set_recompute(recompute_replay);
	if (argc < 2) {
		tc_cli_overview(stderr);
		return TC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return tc_cli_run(&cmd_version_entry, argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		tc_cli_overview(stdout);
		return TC_EXIT_OK;
	}
	if ((c = tc_command_find(tc_commands, argv[1])) == NULL)
		return tc_cli_unknown_command(argv[1]);
	return tc_cli_run(c, argc - 1, argv + 1);
}
