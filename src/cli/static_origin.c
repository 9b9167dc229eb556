/*
 * static_origin.c - spares every command of the static PIE glibc's
 * readlink("/proc/self/exe") at start.
 *
 * A statically linked glibc (2.36, Debian bookworm) works out the
 * program's own directory before main (_dl_non_dynamic_init calls
 * _dl_get_origin), only so that a later dlopen can expand "$ORIGIN" in
 * the main program's library search path.  tunectl has no such path and
 * loads no library by it; the lookup walks /proc/self for a process that
 * has just started, which procfs builds afresh each time: about 20 us of
 * a command that /bin/true finishes in 0.5-0.8 ms (docs/hardening.md, "The
 * binary").  glibc takes its _dl_get_origin from its own archive member
 * only when the program defines none; this one answers what glibc's does
 * when the link cannot be read, (char *) -1: origin unknown, "$ORIGIN"
 * unexpanded.  A dynamic build links it too and nothing calls it (the
 * loader keeps its own).
 */

/* glibc's declaration (elf/dl-origin.c, internal, not in a header). */
const char *_dl_get_origin(void);

const char *
_dl_get_origin(void)
{
	return (const char *)-1;
}
