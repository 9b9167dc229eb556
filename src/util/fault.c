/*
 * fault.c - crash-consistency fault injection (TUNECTL_FAULT_POINT /
 * TUNECTL_FAULT_COUNT), a test hook: it exists only in test builds
 * (TUNECTL_TEST_HOOKS, the library the unit tests link and
 * build/tunectl-test, which the crash tests drive).  The production
 * library reads no fault variable and never raises a signal here.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/fileio.h"

#ifdef TUNECTL_TEST_HOOKS

void
tc_fault_point(const char *name)
{
	static bool loaded;
	static const char *point;
	static unsigned long target, crossings;

	if (!loaded) {
		const char *count = getenv("TUNECTL_FAULT_COUNT");
		char *end;

		loaded = true;
		point = getenv("TUNECTL_FAULT_POINT");
		target = 1;
		if (count != NULL && *count != '\0') {
			unsigned long n = strtoul(count, &end, 10);

			if (*end == '\0' && n > 0)
				target = n;
		}
	}
	if (point == NULL || strcmp(point, name) != 0)
		return;
	if (++crossings == target)
		raise(SIGKILL);
}

#else

void
tc_fault_point(const char *name)
{
	(void)name;
}

#endif
