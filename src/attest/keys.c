/*
 * keys.c - Ed25519 keys through libsodium: generating a pair into PEM
 * files (PKCS#8 private key, mode 0600; SubjectPublicKeyInfo public key;
 * the same bytes OpenSSL writes, keyfile.c), loading them, the key id,
 * and signing / verifying raw messages (RFC 8032: the signature of a
 * message with a key is the same from libsodium and from OpenSSL).
 */
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/attest.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"
#include "attest_internal.h"

struct tc_key {
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sk[crypto_sign_SECRETKEYBYTES];	/* seed || pk */
	bool has_private;
};

/* libsodium picks its implementations and its random source once; only
 * the commands that touch keys pay for it. */
static bool
sodium_ready(tc_error *err)
{
	if (sodium_init() < 0) {
		tc_error_set(err, "cannot initialise libsodium");
		return false;
	}
	return true;
}

void
tc_key_free(tc_key *k)
{
	if (k == NULL)
		return;
	sodium_memzero(k, sizeof(*k));
	free(k);
}

void
tc_key_id(const tc_key *k, char keyid[65])
{
	unsigned char der[44];

	tc_keyfile_spki(k->pk, der);
	tc_sha256_hex(der, sizeof(der), keyid);
}

int
tc_keygen(const char *path, char keyid[65], tc_error *err)
{
	char *pub_path = tc_xasprintf("%s.pub", path);
	tc_buf priv = TC_BUF_INIT, pub = TC_BUF_INIT;
	tc_key *k = tc_xcalloc(1, sizeof(*k));
	unsigned char der[48];
	int rc = -1;

	if (!sodium_ready(err))
		goto out;
	if (tc_path_exists(pub_path)) {
		tc_error_os(err, EEXIST, pub_path);
		goto out;
	}
	if (crypto_sign_keypair(k->pk, k->sk) != 0) {
		tc_error_set(err, "cannot generate an Ed25519 key (libsodium)");
		goto out;
	}
	k->has_private = true;
	tc_keyfile_pkcs8(k->sk, der);
	tc_keyfile_pem(&priv, TC_PEM_PRIVATE_KEY, der, sizeof(der));
	tc_keyfile_spki(k->pk, der);
	tc_keyfile_pem(&pub, TC_PEM_PUBLIC_KEY, der, 44);
	if (tc_write_atomic(path, priv.data, priv.len, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_PRIVATE | TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (tc_write_atomic(pub_path, pub.data, pub.len, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (keyid != NULL)
		tc_key_id(k, keyid);
	rc = 0;
out:
	sodium_memzero(der, sizeof(der));
	if (priv.data != NULL)
		sodium_memzero(priv.data, priv.len);
	tc_buf_free(&priv);
	tc_buf_free(&pub);
	tc_key_free(k);
	free(pub_path);
	return rc;
}

/* The key in der (a PKCS#8 or SPKI), or -1. */
static int
from_der(tc_key *k, const unsigned char *der, size_t len, bool private_key)
{
	unsigned char seed[32];
	int rc = -1;

	if (!private_key)
		return tc_keyfile_parse_spki(der, len, k->pk);
	if (tc_keyfile_parse_pkcs8(der, len, seed) == 0 &&
	    crypto_sign_seed_keypair(k->pk, k->sk, seed) == 0)
		rc = 0;
	sodium_memzero(seed, sizeof(seed));
	return rc;
}

static tc_key *
load(const char *path, bool private_key, tc_error *err)
{
	size_t len, der_len = 0;
	char *text;
	unsigned char *der;
	tc_key *k;

	if (!sodium_ready(err))
		return NULL;
	if ((text = tc_read_file(path, 1 << 20, &len, err)) == NULL)
		return NULL;
	der = tc_keyfile_unpem(text, len, private_key ? TC_PEM_PRIVATE_KEY :
	    TC_PEM_PUBLIC_KEY, &der_len);
	sodium_memzero(text, len);
	free(text);
	k = tc_xcalloc(1, sizeof(*k));
	k->has_private = private_key;
	if (der == NULL || from_der(k, der, der_len, private_key) != 0) {
		tc_error_set(err, "%s is not an Ed25519 %s key in PEM form", path,
		    private_key ? "private" : "public");
		tc_key_free(k);
		k = NULL;
	}
	if (der != NULL) {
		sodium_memzero(der, der_len);
		free(der);
	}
	return k;
}

tc_key *
tc_key_load_private(const char *path, tc_error *err)
{
	return load(path, true, err);
}

tc_key *
tc_key_load_public(const char *path, tc_error *err)
{
	return load(path, false, err);
}

int
tc_key_sign(const tc_key *k, const void *msg, size_t len,
    unsigned char sig[64], tc_error *err)
{
	if (!k->has_private ||
	    crypto_sign_detached(sig, NULL, msg, len, k->sk) != 0) {
		tc_error_set(err, "cannot sign with the Ed25519 key (libsodium)");
		return -1;
	}
	return 0;
}

bool
tc_key_verify(const tc_key *k, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len)
{
	return sig_len == crypto_sign_BYTES &&
	    crypto_sign_verify_detached(sig, msg, len, k->pk) == 0;
}
