/*
 * heap.h - how a command's heap is laid out: set up once at start, and
 * grown for huge pages only once a large document is read.
 */
#ifndef TUNECTL_HEAP_H
#define TUNECTL_HEAP_H

#include <stddef.h>

/* A document at least this large is about to be read (the threshold of
 * tc_heap_expect). */
#define TC_HEAP_LARGE	((size_t)512 << 10)

/* At start, before any allocation of note: freed memory stays in the
 * heap for the next document (no mmap per large buffer, no trim). */
void tc_heap_init(void);

/* A reader is about to hold a document of bytes: from TC_HEAP_LARGE on,
 * the first call grows the heap by 32 MiB, untouched, marked for
 * transparent huge pages; smaller sizes and later calls do nothing. */
void tc_heap_expect(size_t bytes);

/* This thread is about to hold some bytes (of many arrays, each below
 * the mmap threshold): the heap grows by that much at once (at most
 * 1 GiB), untouched and marked for transparent huge pages, and is
 * trimmed only above it. */
void tc_heap_reserve(size_t bytes);

/* An array of n bytes at p is about to be filled: the whole 2 MiB
 * pages inside it are marked for transparent huge pages (one fault each
 * instead of 512).  Only for arrays of many megabytes, untouched yet. */
void tc_heap_hint(void *p, size_t n);

#endif
