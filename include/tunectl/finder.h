/*
 * finder.h - where a fixed text first occurs in a stream that arrives in
 * pieces of any size (a match may straddle pieces).
 */
#ifndef TUNECTL_FINDER_H
#define TUNECTL_FINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest text a finder looks for. */
#define TC_FINDER_MAX	64

typedef struct tc_finder {
	char pat[TC_FINDER_MAX];
	size_t plen;
	char tail[TC_FINDER_MAX];	/* the last plen - 1 bytes fed */
	size_t ntail;
	uint64_t fed;			/* bytes fed so far */
	int64_t at;			/* the first match's offset, or -1 */
} tc_finder;

/* Look for pat (1 to TC_FINDER_MAX bytes; anything else aborts). */
void tc_finder_init(tc_finder *f, const char *pat, size_t plen);
/* The next piece of the stream; true once the text has been found
 * (f->at: where its first byte is in the stream). */
bool tc_finder_feed(tc_finder *f, const char *data, size_t len);

#endif
