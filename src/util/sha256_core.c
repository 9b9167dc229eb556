/*
 * sha256_core.c - SHA-256 (FIPS 180-4) without libcrypto: the block
 * compression in portable C and, on x86-64, with the SHA extensions
 * (SHA-NI), chosen per block from what glibc found when the program
 * started (<sys/platform/x86.h>).
 *
 * Why not libcrypto's: linking its SHA-256 links its CPU probe, which
 * libcrypto runs from the program's .init section before main, in every
 * command, hashing or not: about ten CPUID instructions, each a trap to
 * the hypervisor in a virtual machine (9 us of an empty static-PIE main,
 * docs/hardening.md).  glibc has made its own probe by then; asking it
 * costs nothing.  With the extensions this is as fast as libcrypto's
 * SHA-NI code (the same instructions); without them the portable code
 * is about half libcrypto's AVX2 speed.
 */
#include <string.h>

#include "sha256_core.h"

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>) && __has_include(<immintrin.h>)
#define HAVE_SHAEXT 1
#include <immintrin.h>
#include <sys/platform/x86.h>
#endif
#endif

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t
ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t
load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void
blocks_portable(uint32_t h[8], const unsigned char *p, size_t n)
{
	for (; n > 0; n--, p += 64) {
		uint32_t w[64], a, b, c, d, e, f, g, hh;
		unsigned t;

		for (t = 0; t < 16; t++)
			w[t] = load_be32(p + 4 * t);
		for (t = 16; t < 64; t++) {
			uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^
			    (w[t - 15] >> 3);
			uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^
			    (w[t - 2] >> 10);

			w[t] = w[t - 16] + s0 + w[t - 7] + s1;
		}
		a = h[0]; b = h[1]; c = h[2]; d = h[3];
		e = h[4]; f = h[5]; g = h[6]; hh = h[7];
		for (t = 0; t < 64; t++) {
			uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
			    ((e & f) ^ (~e & g)) + K[t] + w[t];
			uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
			    ((a & b) ^ (a & c) ^ (b & c));

			hh = g; g = f; f = e; e = d + t1;
			d = c; c = b; b = a; a = t1 + t2;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d;
		h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
	}
}

#ifdef HAVE_SHAEXT
/*
 * The SHA extensions keep the state as two vectors, ABEF and CDGH (A in
 * the top lane); SHA256RNDS2 runs two rounds on them with two message
 * words plus constants in the low lanes.  The message schedule is kept
 * as four vectors of four words, W[4k..4k+3] in g[k % 4]: for k >= 4,
 * SHA256MSG1 adds sigma0 of the words 15 back to those 16 back, the
 * words 7 back are added as they stand, and SHA256MSG2 adds sigma1 of
 * the words 2 back (lane by lane, its own results included).
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void
blocks_shaext(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
	    0x0405060700010203LL);
	__m128i abef, cdgh, dcba, hgfe, t;

	dcba = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
	hgfe = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
	t = _mm_shuffle_epi32(dcba, 0xB1);		/* C D A B */
	hgfe = _mm_shuffle_epi32(hgfe, 0x1B);		/* E F G H */
	abef = _mm_alignr_epi8(t, hgfe, 8);		/* A B E F */
	cdgh = _mm_blend_epi16(hgfe, t, 0xF0);		/* C D G H */
	for (; n > 0; n--, p += 64) {
		__m128i abef0 = abef, cdgh0 = cdgh, g[4], w;
		unsigned k;

#pragma GCC unroll 16
		for (k = 0; k < 16; k++) {
			if (k < 4) {
				g[k] = _mm_shuffle_epi8(_mm_loadu_si128(
				    (const __m128i *)(const void *)(p + 16 * k)),
				    bswap);
			} else {
				w = _mm_sha256msg1_epu32(g[k & 3],
				    g[(k + 1) & 3]);
				w = _mm_add_epi32(w, _mm_alignr_epi8(
				    g[(k + 3) & 3], g[(k + 2) & 3], 4));
				g[k & 3] = _mm_sha256msg2_epu32(w,
				    g[(k + 3) & 3]);
			}
			w = _mm_add_epi32(g[k & 3], _mm_loadu_si128(
			    (const __m128i *)(const void *)&K[4 * k]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, w);
			abef = _mm_sha256rnds2_epu32(abef, cdgh,
			    _mm_shuffle_epi32(w, 0x0E));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	t = _mm_shuffle_epi32(abef, 0x1B);		/* F E B A */
	cdgh = _mm_shuffle_epi32(cdgh, 0xB1);		/* D C H G */
	dcba = _mm_blend_epi16(t, cdgh, 0xF0);		/* D C B A */
	hgfe = _mm_alignr_epi8(cdgh, t, 8);		/* H G F E */
	_mm_storeu_si128((__m128i *)(void *)&h[0], dcba);
	_mm_storeu_si128((__m128i *)(void *)&h[4], hgfe);
}
#endif

#ifdef TUNECTL_TEST_HOOKS
static bool force_portable;

void
tc_sha256_core_force_portable(bool on)
{
	force_portable = on;
}
#endif

bool
tc_sha256_core_uses_shaext(void)
{
#ifdef TUNECTL_TEST_HOOKS
	if (force_portable)
		return false;
#endif
#ifdef HAVE_SHAEXT
	return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSSE3) &&
	    CPU_FEATURE_ACTIVE(SSE4_1);
#else
	return false;
#endif
}

static void
blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
#ifdef HAVE_SHAEXT
	if (tc_sha256_core_uses_shaext()) {
		blocks_shaext(h, p, n);
		return;
	}
#endif
	blocks_portable(h, p, n);
}

void
tc_sha256_core_init(struct tc_sha256_core *c)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, iv, sizeof(iv));
	c->total = 0;
	c->fill = 0;
}

void
tc_sha256_core_update(struct tc_sha256_core *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->total += len;
	if (c->fill > 0) {
		size_t take = 64 - c->fill < len ? 64 - c->fill : len;

		memcpy(c->buf + c->fill, p, take);
		c->fill += take;
		p += take;
		len -= take;
		if (c->fill < 64)
			return;
		blocks(c->h, c->buf, 1);
		c->fill = 0;
	}
	if (len >= 64) {
		blocks(c->h, p, len / 64);
		p += len - len % 64;
		len %= 64;
	}
	memcpy(c->buf, p, len);
	c->fill = len;
}

void
tc_sha256_core_final(struct tc_sha256_core *c,
    unsigned char md[TC_SHA256_DIGEST_LEN])
{
	uint64_t bits = c->total * 8;
	unsigned i;

	c->buf[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->buf + c->fill, 0, 64 - c->fill);
		blocks(c->h, c->buf, 1);
		c->fill = 0;
	}
	memset(c->buf + c->fill, 0, 56 - c->fill);
	for (i = 0; i < 8; i++)
		c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks(c->h, c->buf, 1);
	for (i = 0; i < 8; i++) {
		md[4 * i] = (unsigned char)(c->h[i] >> 24);
		md[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		md[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		md[4 * i + 3] = (unsigned char)c->h[i];
	}
}
