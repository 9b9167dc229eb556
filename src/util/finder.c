/*
 * finder.c - a fixed text's first occurrence in a stream given in
 * pieces: each piece is searched whole, and the bytes that straddle the
 * boundary with the piece before (the last plen - 1 of those, kept) are
 * searched joined with its start.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/finder.h"

void
tc_finder_init(tc_finder *f, const char *pat, size_t plen)
{
	if (plen == 0 || plen > TC_FINDER_MAX)
		abort();
	memset(f, 0, sizeof(*f));
	memcpy(f->pat, pat, plen);
	f->plen = plen;
	f->at = -1;
}

bool
tc_finder_feed(tc_finder *f, const char *data, size_t len)
{
	char joined[2 * TC_FINDER_MAX];
	size_t head, keep;
	const char *hit;

	if (f->at >= 0)
		return true;
	/* a match that starts in the kept tail and ends in data */
	head = len < f->plen - 1 ? len : f->plen - 1;
	if (f->ntail > 0) {
		memcpy(joined, f->tail, f->ntail);
		memcpy(joined + f->ntail, data, head);
		hit = memmem(joined, f->ntail + head, f->pat, f->plen);
		if (hit != NULL && (size_t)(hit - joined) < f->ntail) {
			f->at = (int64_t)(f->fed - f->ntail) +
			    (int64_t)(hit - joined);
			return true;
		}
	}
	if ((hit = memmem(data, len, f->pat, f->plen)) != NULL) {
		f->at = (int64_t)f->fed + (int64_t)(hit - data);
		return true;
	}
	/* keep the last plen - 1 bytes of tail + data */
	keep = f->plen - 1;
	if (len >= keep) {
		memcpy(f->tail, data + len - keep, keep);
		f->ntail = keep;
	} else {
		size_t from_tail = f->ntail + len > keep ?
		    keep - len : f->ntail;

		memmove(f->tail, f->tail + f->ntail - from_tail, from_tail);
		memcpy(f->tail + from_tail, data, len);
		f->ntail = from_tail + len;
	}
	f->fed += len;
	return false;
}
