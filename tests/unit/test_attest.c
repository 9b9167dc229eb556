/*
 * test_attest.c - the signing primitives of attestations: RFC 4648
 * base64, the DSSE pre-authentication encoding, Ed25519 against the
 * RFC 8032 test vector, key files (PKCS#8 versions 0 and 1, SPKI), and
 * envelopes that fail to open when a byte of the payload or signature
 * changes or another key is used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tunectl/attest.h"
#include "tunectl/fileio.h"
#include "tunectl/sha256.h"
#include "unit_fixture.h"

static char tmpdir[4096];

static void
base64_follows_rfc_4648(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob",
	    "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v",
	    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	size_t i, n;

	(void)state;
	for (i = 0; i < 7; i++) {
		tc_buf b = TC_BUF_INIT;
		unsigned char *back;

		tc_base64_encode(&b, plain[i], strlen(plain[i]));
		assert_string_equal(tc_buf_cstr(&b), coded[i]);
		back = tc_base64_decode(coded[i], strlen(coded[i]), &n);
		assert_non_null(back);
		assert_int_equal(n, strlen(plain[i]));
		assert_memory_equal(back, plain[i], n);
		free(back);
		tc_buf_free(&b);
	}
}

static void
base64_refuses_malformed_text(void **state)
{
	static const char *const bad[] = { "Zg=", "Z===", "Zg==Zg==", "Zm9v!A==",
	    "Zm 9", "=Zm9" };
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(tc_base64_decode(bad[i], strlen(bad[i]), &n));
}

static void
pae_is_the_dsse_v1_encoding(void **state)
{
	tc_buf b = TC_BUF_INIT;

	(void)state;
	tc_dsse_pae(&b, "http://example.com/HelloWorld", "hello world", 11);
	assert_string_equal(tc_buf_cstr(&b),
	    "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
	tc_buf_free(&b);
}

static unsigned char
hexval(char c)
{
	return (unsigned char)(c <= '9' ? c - '0' : c - 'a' + 10);
}

static void
unhex(const char *hex, unsigned char *out)
{
	size_t i;

	for (i = 0; hex[2 * i] != '\0'; i++)
		out[i] = (unsigned char)(hexval(hex[2 * i]) << 4 |
		    hexval(hex[2 * i + 1]));
}

#define RFC8032_SEED \
	"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
#define RFC8032_PUBLIC \
	"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
/* RFC 8032 section 7.1, test 1: the signature of the empty message */
#define RFC8032_SIG \
	"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155" \
	"5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"

/* der (hex) as a PEM file named name, lines ending in eol. */
static char *
pem_file(const char *name, const char *label, const char *hex,
    const char *eol)
{
	unsigned char der[128];
	size_t len = strlen(hex) / 2;
	tc_buf pem = TC_BUF_INIT;
	char *path = tc_xasprintf("%s/%s", tmpdir, name);

	assert_true(len <= sizeof(der));
	unhex(hex, der);
	tc_buf_printf(&pem, "-----BEGIN %s-----%s", label, eol);
	tc_base64_encode(&pem, der, len);
	tc_buf_printf(&pem, "%s-----END %s-----%s", eol, label, eol);
	assert_int_equal(tc_write_atomic(path, pem.data, pem.len, 0, NULL), 0);
	tc_buf_free(&pem);
	return path;
}

/* RFC 8032 section 7.1, test 1, as a PKCS#8 PEM file. */
static char *
rfc8032_key_file(void)
{
	return pem_file("rfc8032.pem", "PRIVATE KEY",
	    "302e020100300506032b657004220420" RFC8032_SEED, "\n");
}

static void
ed25519_signature_matches_rfc_8032(void **state)
{
	static const char want[] = RFC8032_SIG;
	unsigned char expected[64], sig[64];
	char *path = rfc8032_key_file();
	tc_error err = TC_ERROR_INIT;
	tc_key *k = tc_key_load_private(path, &err);

	(void)state;
	assert_non_null(k);
	assert_int_equal(tc_key_sign(k, "", 0, sig, &err), 0);
	unhex(want, expected);
	assert_memory_equal(sig, expected, 64);
	assert_true(tc_key_verify(k, "", 0, sig, 64));
	sig[0] ^= 1;
	assert_false(tc_key_verify(k, "", 0, sig, 64));
	tc_key_free(k);
	free(path);
}

static void
keygen_writes_a_private_and_a_public_pem(void **state)
{
	char *priv = tc_xasprintf("%s/k1", tmpdir);
	char *pub = tc_xasprintf("%s/k1.pub", tmpdir);
	tc_error err = TC_ERROR_INIT;
	char id1[65], id2[65];
	struct stat st;
	tc_key *k;

	(void)state;
	assert_int_equal(tc_keygen(priv, id1, &err), 0);
	assert_int_equal(stat(priv, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	k = tc_key_load_public(pub, &err);
	assert_non_null(k);
	tc_key_id(k, id2);
	assert_string_equal(id1, id2);
	tc_key_free(k);
	/* a public key is not a private one, and keygen never overwrites */
	assert_null(tc_key_load_private(pub, &err));
	assert_non_null(strstr(tc_error_msg(&err), "not an Ed25519 private key"));
	assert_int_not_equal(tc_keygen(priv, NULL, &err), 0);
	assert_non_null(strstr(tc_error_msg(&err), "File exists"));
	tc_error_clear(&err);
	free(priv);
	free(pub);
}

static void
envelope_opens_only_untouched_with_the_signers_key(void **state)
{
	char *p1 = tc_xasprintf("%s/e1", tmpdir), *p2 = tc_xasprintf("%s/e2", tmpdir);
	char *pub1 = tc_xasprintf("%s.pub", p1), *pub2 = tc_xasprintf("%s.pub", p2);
	tc_error err = TC_ERROR_INIT;
	tc_key *signer, *mine, *other;
	tc_json *env, *bad;
	char *body;
	size_t len;

	(void)state;
	assert_int_equal(tc_keygen(p1, NULL, &err), 0);
	assert_int_equal(tc_keygen(p2, NULL, &err), 0);
	signer = tc_key_load_private(p1, &err);
	mine = tc_key_load_public(pub1, &err);
	other = tc_key_load_public(pub2, &err);
	env = tc_dsse_sign(signer, TC_DSSE_PAYLOAD_TYPE, "{\"a\":1}", 7, &err);
	assert_non_null(env);
	body = tc_dsse_open(env, mine, TC_DSSE_PAYLOAD_TYPE, &len, &err);
	assert_non_null(body);
	assert_int_equal(len, 7);
	assert_string_equal(body, "{\"a\":1}");
	free(body);
	assert_null(tc_dsse_open(env, other, TC_DSSE_PAYLOAD_TYPE, &len, &err));
	assert_null(tc_dsse_open(env, mine, "text/plain", &len, &err));
	assert_non_null(strstr(tc_error_msg(&err), "payloadType"));
	bad = tc_json_clone(env);
	/* base64 of {"a":2} instead of {"a":1} */
	tc_json_object_set_string(bad, "payload", "eyJhIjoyfQ==");
	assert_null(tc_dsse_open(bad, mine, TC_DSSE_PAYLOAD_TYPE, &len, &err));
	assert_non_null(strstr(tc_error_msg(&err), "does not verify"));
	tc_json_free(bad);
	tc_json_free(env);
	tc_error_clear(&err);
	tc_key_free(signer);
	tc_key_free(mine);
	tc_key_free(other);
	free(p1);
	free(p2);
	free(pub1);
	free(pub2);
}

/* CRLF lines are read as OpenSSL reads them; RFC 5958's OneAsymmetricKey
 * (version 1, the public key beside the seed) is refused as OpenSSL 3.0
 * refuses it; the public key file of RFC 8410 gives the key id of its
 * DER; an X25519 key is not an Ed25519 one. */
static void
key_files_in_their_other_forms(void **state)
{
	char *crlf = pem_file("crlf.pem", "PRIVATE KEY",
	    "302e020100300506032b657004220420" RFC8032_SEED, "\r\n");
	char *v2 = pem_file("v2.pem", "PRIVATE KEY",
	    "3051020101300506032b657004220420" RFC8032_SEED "812100"
	    RFC8032_PUBLIC, "\n");
	char *pub = pem_file("pub.pem", "PUBLIC KEY",
	    "302a300506032b6570032100" RFC8032_PUBLIC, "\r\n");
	char *x25519 = pem_file("x25519.pem", "PUBLIC KEY",
	    "302a300506032b656e032100" RFC8032_PUBLIC, "\n");
	unsigned char expected[64], sig[64], der[44];
	tc_error err = TC_ERROR_INIT;
	char id[65], want_id[65];
	tc_key *k;

	(void)state;
	k = tc_key_load_private(crlf, &err);
	assert_non_null(k);
	assert_int_equal(tc_key_sign(k, "", 0, sig, &err), 0);
	unhex(RFC8032_SIG, expected);
	assert_memory_equal(sig, expected, 64);
	tc_key_free(k);
	assert_null(tc_key_load_private(v2, &err));
	assert_non_null(strstr(tc_error_msg(&err), "not an Ed25519 private key"));
	tc_error_clear(&err);
	k = tc_key_load_public(pub, &err);
	assert_non_null(k);
	assert_true(tc_key_verify(k, "", 0, expected, 64));
	assert_false(tc_key_verify(k, "", 0, expected, 63));
	unhex("302a300506032b6570032100" RFC8032_PUBLIC, der);
	tc_sha256_hex(der, sizeof(der), want_id);
	tc_key_id(k, id);
	assert_string_equal(id, want_id);
	tc_key_free(k);
	assert_null(tc_key_load_public(x25519, &err));
	assert_non_null(strstr(tc_error_msg(&err), "not an Ed25519 public key"));
	tc_error_clear(&err);
	free(crlf);
	free(v2);
	free(pub);
	free(x25519);
}

/* Bits past the last whole byte are ignored, as OpenSSL's and Python's
 * decoders ignore them ("Zh==" is "f"). */
static void
base64_ignores_bits_past_the_last_byte(void **state)
{
	unsigned char *back;
	size_t n;

	(void)state;
	back = tc_base64_decode("Zh==", 4, &n);
	assert_non_null(back);
	assert_int_equal(n, 1);
	assert_int_equal(back[0], 'f');
	free(back);
}

static int
setup(void **state)
{
	(void)state;
	unit_tmpdir_into(tmpdir, sizeof(tmpdir), "attest");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return unit_rmtree(tmpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(base64_follows_rfc_4648),
		cmocka_unit_test(base64_refuses_malformed_text),
		cmocka_unit_test(base64_ignores_bits_past_the_last_byte),
		cmocka_unit_test(pae_is_the_dsse_v1_encoding),
		cmocka_unit_test(ed25519_signature_matches_rfc_8032),
		cmocka_unit_test(keygen_writes_a_private_and_a_public_pem),
		cmocka_unit_test(envelope_opens_only_untouched_with_the_signers_key),
		cmocka_unit_test(key_files_in_their_other_forms),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
