/*
 * keyfile.c - the files of Ed25519 keys: the DER encodings of RFC 8410
 * (a PKCS#8 PrivateKeyInfo holding the 32-byte seed, a
 * SubjectPublicKeyInfo holding the 32-byte public key) in PEM armor,
 * written byte for byte as OpenSSL writes them (64 base64 characters a
 * line) and read as OpenSSL reads them (text around the block ignored,
 * the first block of the wanted label taken).
 *
 * Why not OpenSSL's PEM and EVP readers: they pull libcrypto's whole
 * ASN.1, provider and encoder machinery into the static program, whose
 * ~16,600 relocations every command paid at start (docs/hardening.md,
 * "The binary").  The two encodings are fixed byte strings but for the
 * key bytes, so they are built and checked here; the cryptography is
 * libsodium's (keys.c).
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/attest.h"
#include "attest_internal.h"

/* SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier { id-Ed25519
 * (1.3.101.112), parameters absent }, BIT STRING { 0 unused bits, key } } */
static const unsigned char spki_prefix[] = {
	0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
};
/* PrivateKeyInfo: SEQUENCE { INTEGER 0, AlgorithmIdentifier,
 * OCTET STRING { OCTET STRING seed } }.  RFC 5958's version 1 (the
 * public key beside the seed) is refused, as OpenSSL 3.0 refuses it. */
static const unsigned char pkcs8_prefix[] = {
	0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
	0x04, 0x22, 0x04, 0x20
};

/* The 32 key bytes after prefix in der, which must be exactly that. */
static int
after_prefix(const unsigned char *der, size_t len,
    const unsigned char *prefix, size_t n, unsigned char key[32])
{
	if (len != n + 32 || memcmp(der, prefix, n) != 0)
		return -1;
	memcpy(key, der + n, 32);
	return 0;
}

void
tc_keyfile_spki(const unsigned char pk[32], unsigned char der[44])
{
	memcpy(der, spki_prefix, sizeof(spki_prefix));
	memcpy(der + sizeof(spki_prefix), pk, 32);
}

void
tc_keyfile_pkcs8(const unsigned char seed[32], unsigned char der[48])
{
	memcpy(der, pkcs8_prefix, sizeof(pkcs8_prefix));
	memcpy(der + sizeof(pkcs8_prefix), seed, 32);
}

int
tc_keyfile_parse_spki(const unsigned char *der, size_t len,
    unsigned char pk[32])
{
	return after_prefix(der, len, spki_prefix, sizeof(spki_prefix), pk);
}

int
tc_keyfile_parse_pkcs8(const unsigned char *der, size_t len,
    unsigned char seed[32])
{
	return after_prefix(der, len, pkcs8_prefix, sizeof(pkcs8_prefix), seed);
}

void
tc_keyfile_pem(tc_buf *out, const char *label, const unsigned char *der,
    size_t len)
{
	tc_buf b64 = TC_BUF_INIT;
	size_t i;

	tc_base64_encode(&b64, der, len);
	tc_buf_printf(out, "-----BEGIN %s-----\n", label);
	for (i = 0; i < b64.len; i += 64) {
		tc_buf_add(out, b64.data + i, b64.len - i < 64 ? b64.len - i : 64);
		tc_buf_putc(out, '\n');
	}
	tc_buf_printf(out, "-----END %s-----\n", label);
	tc_buf_free(&b64);
}

/* The line at *p (within end) without its "\n", "\r\n" or trailing
 * blanks; *p moves to the next line. */
static size_t
next_line(const char **p, const char *end, const char **line)
{
	const char *q = *p, *nl = memchr(q, '\n', (size_t)(end - q));
	size_t n;

	*line = q;
	*p = nl == NULL ? end : nl + 1;
	n = (size_t)((nl == NULL ? end : nl) - q);
	while (n > 0 && (q[n - 1] == '\r' || q[n - 1] == ' ' ||
	    q[n - 1] == '\t'))
		n--;
	return n;
}

static bool
is_marker(const char *line, size_t n, const char *what, const char *label)
{
	size_t w = strlen(what), l = strlen(label);

	return n == 5 + w + l + 5 && memcmp(line, "-----", 5) == 0 &&
	    memcmp(line + 5, what, w) == 0 && memcmp(line + 5 + w, label, l) == 0 &&
	    memcmp(line + 5 + w + l, "-----", 5) == 0;
}

unsigned char *
tc_keyfile_unpem(const char *text, size_t len, const char *label,
    size_t *der_len)
{
	const char *p = text, *end = text + len, *line;
	tc_buf b64 = TC_BUF_INIT;
	unsigned char *der = NULL;
	bool inside = false;
	size_t n;

	while (p < end) {
		n = next_line(&p, end, &line);
		if (!inside) {
			inside = is_marker(line, n, "BEGIN ", label);
			continue;
		}
		if (is_marker(line, n, "END ", label)) {
			der = tc_base64_decode(b64.data == NULL ? "" : b64.data,
			    b64.len, der_len);
			break;
		}
		/* a header ("Proc-Type: ...") marks an encrypted key */
		if (memchr(line, ':', n) != NULL)
			break;
		tc_buf_add(&b64, line, n);
	}
	tc_buf_free(&b64);
	return der;
}
