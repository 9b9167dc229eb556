/*
 * text_internal.h - what the text module's files (utf8.c, pystr.c,
 * pyrepr.c, printable.c) share; not part of the public API.
 */
#ifndef TUNECTL_TEXT_INTERNAL_H
#define TUNECTL_TEXT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tunectl/text.h"

/* printable.c (generated): sorted, disjoint [lo, hi] code point ranges
 * that str.isprintable() accepts beyond ASCII. */
extern const uint32_t tc_text__printable[][2];
extern const size_t tc_text__printable_len;

#endif
