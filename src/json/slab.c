/*
 * slab.c - the memory a parsed document lives in.
 *
 * A document read by tc_json_parse() is hundreds of thousands of small
 * pieces (nodes with their strings, item arrays, member arrays, keys);
 * one malloc and one free each cost as much as reading it.  The parser
 * cuts them from chunks instead, with a bump pointer.  Every tree stays
 * what json.h promises: any node can still be freed, taken out of its
 * parent, kept after the rest is freed, or edited.  That works because a
 * chunk counts the pieces cut from it that are still alive and goes back
 * to malloc when the last one is released; a piece finds its chunk by
 * rounding its address down to the chunk alignment.  A piece too big for
 * a chunk gets a chunk of its own.
 *
 * Freed chunks of the regular size are kept (up to KEEP_CHUNKS) for the
 * next document: given back to malloc, the top of the heap is trimmed
 * and the next document faults its pages in again, which cost more than
 * the allocations saved.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* Chunks are aligned to, and (apart from single big pieces) exactly,
 * this size: 64 KiB holds about a thousand nodes. */
#define CHUNK_SIZE	((size_t)64 * 1024)
#define HEADER_SIZE	((size_t)32)
/* A piece larger than this gets a chunk of its own. */
#define BIG_PIECE	(CHUNK_SIZE / 4)

/*
 * Under AddressSanitizer a chunk would hide a use of a released node, so
 * there every piece carries its size in front of it and is poisoned when
 * released, and no chunk is kept for reuse (a freed chunk goes through
 * ASan's quarantine like any other block).
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define PIECE_HEAD	((size_t)8)
#else
#define PIECE_HEAD	((size_t)0)
/* Free chunks kept for reuse: 8 MiB at most. */
#define KEEP_CHUNKS	128
#endif

struct chunk {
	size_t live;		/* pieces not yet released (+1 while current) */
	size_t size;		/* bytes, header included */
	struct chunk *next_free;
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *kept;
static size_t nkept;

/*
 * The rest of the last finished parse's chunk (with that parse's hold),
 * where the thread's next parse goes on cutting: a command reads several
 * small documents (session, sidecar, manifests), and giving each a fresh
 * chunk faulted in a fresh page (and the aligned allocation's split
 * headers) for a few hundred bytes.
 */
static _Thread_local struct tc_json__slab spare;

static struct chunk *
chunk_of(const void *p)
{
	return (struct chunk *)((uintptr_t)p & ~(uintptr_t)(CHUNK_SIZE - 1));
}

static struct chunk *
new_chunk(size_t size)
{
	struct chunk *c = NULL;

	if (size == CHUNK_SIZE) {
		pthread_mutex_lock(&kept_lock);
		if ((c = kept) != NULL) {
			kept = c->next_free;
			nkept--;
		}
		pthread_mutex_unlock(&kept_lock);
		if (c != NULL) {
			c->live = 0;
			return c;
		}
	}
	c = aligned_alloc(CHUNK_SIZE, size);

	if (c == NULL) {
		/* as tc_xmalloc does */
		fprintf(stderr, "tunectl: out of memory allocating %zu bytes\n",
		    size);
		abort();
	}
	c->live = 0;
	c->size = size;
	return c;
}

static void
drop(struct chunk *c)
{
	if (--c->live != 0)
		return;
#if defined(__SANITIZE_ADDRESS__)
	ASAN_UNPOISON_MEMORY_REGION(c, c->size);
#else
	if (c->size == CHUNK_SIZE) {
		pthread_mutex_lock(&kept_lock);
		if (nkept < KEEP_CHUNKS) {
			c->next_free = kept;
			kept = c;
			nkept++;
			c = NULL;
		}
		pthread_mutex_unlock(&kept_lock);
	}
#endif
	free(c);
}

/* The piece handed out from n bytes at p (past its size, under ASan). */
static void *
piece_start(char *p, size_t n)
{
#if defined(__SANITIZE_ADDRESS__)
	memcpy(p, &n, sizeof(n));
#else
	(void)n;
#endif
	return p + PIECE_HEAD;
}

void *
tc_json__slab_alloc(struct tc_json__slab *s, size_t n)
{
	struct chunk *c;
	char *p;

	n = ((n + 7) & ~(size_t)7) + PIECE_HEAD;
	if (n > BIG_PIECE) {
		size_t size = (HEADER_SIZE + n + CHUNK_SIZE - 1) &
		    ~(CHUNK_SIZE - 1);

		c = new_chunk(size);
		c->live = 1;
		return piece_start((char *)c + HEADER_SIZE, n);
	}
	if (s->cur == NULL && spare.cur != NULL) {
		*s = spare;	/* the hold goes with it */
		spare.cur = NULL;
	}
	if (s->cur == NULL || (size_t)(s->end - s->next) < n) {
		if (s->cur != NULL)
			drop(s->cur);
		c = new_chunk(CHUNK_SIZE);
		c->live = 1;	/* the slab's own hold, see slab_done */
		s->cur = c;
		s->next = (char *)c + HEADER_SIZE;
		s->end = (char *)c + CHUNK_SIZE;
	}
	p = s->next;
	s->next += n;
	((struct chunk *)s->cur)->live++;
	return piece_start(p, n);
}

void
tc_json__slab_release(const void *p)
{
#if defined(__SANITIZE_ADDRESS__)
	const char *head = (const char *)p - PIECE_HEAD;
	size_t n;

	memcpy(&n, head, sizeof(n));
	ASAN_POISON_MEMORY_REGION(head, n);
#endif
	drop(chunk_of(p));
}

void
tc_json__slab_done(struct tc_json__slab *s)
{
	if (s->cur != NULL && spare.cur == NULL)
		spare = *s;
	else if (s->cur != NULL)
		drop(s->cur);
	memset(s, 0, sizeof(*s));
}

tc_json *
tc_json__slab_node(struct tc_json__slab *s, tc_json_type t, const char *str,
    size_t len)
{
	bool bytes = t == TC_JSON_STRING || t == TC_JSON_INT;
	tc_json *v = tc_json__fill_inline(tc_json__slab_alloc(s,
	    sizeof(tc_json) + (bytes ? len + 1 : 0)), t, str, len);

	v->alloc = TC_JSON__SLAB_NODE;
	return v;
}
