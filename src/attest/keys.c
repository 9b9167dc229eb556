/*
 * keys.c - Ed25519 keys through OpenSSL's EVP API: generating a pair into
 * PEM files (PKCS#8 private key, mode 0600; SubjectPublicKeyInfo public
 * key), loading them, the key id, and signing / verifying raw messages.
 */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "tunectl/attest.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"

struct tc_key {
	EVP_PKEY *pkey;
	bool has_private;
};

void
tc_key_free(tc_key *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

void
tc_key_id(const tc_key *k, char keyid[65])
{
	unsigned char *der = NULL;
	int len = i2d_PUBKEY(k->pkey, &der);

	if (len <= 0) {
		memset(keyid, '0', 64);
		keyid[64] = '\0';
		return;
	}
	tc_sha256_hex(der, (size_t)len, keyid);
	OPENSSL_free(der);
}

/* The PEM text a write function puts into a memory BIO. */
static char *
pem_text(EVP_PKEY *pkey, bool private_key, size_t *len)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *copy = NULL;
	long n;
	int ok;

	if (bio == NULL)
		return NULL;
	ok = private_key ?
	    PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) :
	    PEM_write_bio_PUBKEY(bio, pkey);
	if (ok == 1 && (n = BIO_get_mem_data(bio, &data)) > 0) {
		copy = tc_xmalloc((size_t)n + 1);
		memcpy(copy, data, (size_t)n);
		copy[n] = '\0';
		*len = (size_t)n;
	}
	BIO_free(bio);
	return copy;
}

int
tc_keygen(const char *path, char keyid[65], tc_error *err)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	char *pub_path = tc_xasprintf("%s.pub", path);
	char *priv = NULL, *pub = NULL;
	size_t priv_len = 0, pub_len = 0;
	int rc = -1;

	if (pkey == NULL) {
		tc_error_set(err, "cannot generate an Ed25519 key (OpenSSL)");
		goto out;
	}
	if (tc_path_exists(pub_path)) {
		tc_error_os(err, EEXIST, pub_path);
		goto out;
	}
	priv = pem_text(pkey, true, &priv_len);
	pub = pem_text(pkey, false, &pub_len);
	if (priv == NULL || pub == NULL) {
		tc_error_set(err, "cannot encode the Ed25519 key (OpenSSL)");
		goto out;
	}
	if (tc_write_atomic(path, priv, priv_len, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_PRIVATE | TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (tc_write_atomic(pub_path, pub, pub_len, TC_WRITE_EXCLUSIVE |
	    TC_WRITE_MKDIRS, err) != 0)
		goto out;
	if (keyid != NULL) {
		tc_key k = { pkey, true };

		tc_key_id(&k, keyid);
	}
	rc = 0;
out:
	if (priv != NULL) {
		OPENSSL_cleanse(priv, priv_len);
		free(priv);
	}
	free(pub);
	free(pub_path);
	EVP_PKEY_free(pkey);
	return rc;
}

static tc_key *
load(const char *path, bool private_key, tc_error *err)
{
	size_t len;
	char *text = tc_read_file(path, 1 << 20, &len, err);
	BIO *bio;
	EVP_PKEY *pkey;
	tc_key *k;

	if (text == NULL)
		return NULL;
	bio = BIO_new_mem_buf(text, (int)len);
	pkey = bio == NULL ? NULL : private_key ?
	    PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) :
	    PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	OPENSSL_cleanse(text, len);
	free(text);
	if (pkey == NULL || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_ED25519) {
		tc_error_set(err, "%s is not an Ed25519 %s key in PEM form", path,
		    private_key ? "private" : "public");
		EVP_PKEY_free(pkey);
		return NULL;
	}
	k = tc_xcalloc(1, sizeof(*k));
	k->pkey = pkey;
	k->has_private = private_key;
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
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t sig_len = 64;
	int ok;

	ok = ctx != NULL && k->has_private &&
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &sig_len, msg, len) == 1 && sig_len == 64;
	EVP_MD_CTX_free(ctx);
	if (!ok) {
		tc_error_set(err, "cannot sign with the Ed25519 key (OpenSSL)");
		return -1;
	}
	return 0;
}

bool
tc_key_verify(const tc_key *k, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool ok;

	ok = ctx != NULL &&
	    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	return ok;
}
