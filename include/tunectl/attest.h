/*
 * attest.h - signed sessions: Ed25519 keys (libsodium; PEM files byte
 * for byte as OpenSSL writes them), the DSSE envelope (v1: base64
 * payload, PAE signing) around an in-toto Statement v1 whose subjects
 * are every sealed file of a session and every artifact its manifests
 * bind, each with its SHA-256.
 *
 * Both formats are the public specifications', so a standard reader can
 * check an attestation without tunectl:
 *   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 * (LEN as ASCII decimal), signed with the private key, verified with
 * `openssl pkeyutl -verify -pubin -inkey KEY.pub -rawin`.
 */
#ifndef TUNECTL_ATTEST_H
#define TUNECTL_ATTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "tunectl/buf.h"
#include "tunectl/error.h"
#include "tunectl/json.h"

#define TC_DSSE_PAYLOAD_TYPE	"application/vnd.in-toto+json"
#define TC_INTOTO_STATEMENT	"https://in-toto.io/Statement/v1"
#define TC_ATTEST_PREDICATE	"urn:tunectl:predicate:verified-session:v1"
/* attest's default output: <artifact root>.attestation.dsse.json, the
 * root's sibling, outside the directory workers write. */
#define TC_ATTEST_DEFAULT_SUFFIX	".attestation.dsse.json"
/* The most signatures verify --attestation reads; an envelope with more
 * is refused before any is checked. */
#define TC_DSSE_MAX_SIGNATURES	16

/* ---- keys (keys.c) ------------------------------------------------------ */

/*
 * A new Ed25519 key pair: the private key (PKCS#8 PEM, mode 0600) at
 * path and the public key (SubjectPublicKeyInfo PEM) at path.pub.
 * Neither file may exist yet.  keyid (optional) receives the key id.
 */
int tc_keygen(const char *path, char keyid[65], tc_error *err);

/* The key id: lowercase hex SHA-256 of the public key's DER
 * SubjectPublicKeyInfo. */
typedef struct tc_key tc_key;	/* an Ed25519 key, private or public */

tc_key *tc_key_load_private(const char *path, tc_error *err);
tc_key *tc_key_load_public(const char *path, tc_error *err);
void tc_key_free(tc_key *k);
void tc_key_id(const tc_key *k, char keyid[65]);

/* Ed25519 signature of msg (64 bytes into sig). */
int tc_key_sign(const tc_key *k, const void *msg, size_t len,
    unsigned char sig[64], tc_error *err);
/* true when sig is k's signature of msg. */
bool tc_key_verify(const tc_key *k, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len);

/* ---- DSSE (dsse.c) ------------------------------------------------------ */

/* PAE(type, body) appended to out. */
void tc_dsse_pae(tc_buf *out, const char *type, const void *body,
    size_t len);
/* Standard base64 with padding. */
void tc_base64_encode(tc_buf *out, const void *data, size_t len);
/* Decode standard base64 (padding required); NULL on bad input. */
unsigned char *tc_base64_decode(const char *text, size_t len,
    size_t *out_len);

/* An envelope of payload signed with k:
 * {"payload", "payloadType", "signatures": [{"keyid", "sig"}]}. */
tc_json *tc_dsse_sign(const tc_key *k, const char *type, const void *payload,
    size_t len, tc_error *err);
/* Check an envelope against a public key: the payload type, and one
 * signature that k made over PAE (built once; an envelope with more than
 * TC_DSSE_MAX_SIGNATURES signatures is refused before any is checked).
 * Returns the decoded payload (malloc'd, *len set) or NULL with err
 * set. */
char *tc_dsse_open(const tc_json *envelope, const tc_key *k,
    const char *type, size_t *len, tc_error *err);

/* ---- session attestations (statement.c) --------------------------------- */

/*
 * The in-toto Statement of a session that verifies: subjects (sorted by
 * name) are the session file, every sealed result, PHASE_REPORT.md,
 * artifact manifest and dispatch receipt, FINAL_E2E_REPORT.md, the
 * evidence import of a derived session, and every file its manifests
 * bind (a directory contributes each file under it); names are paths
 * relative to the artifact root (absolute when outside it).  The
 * predicate names the session, its status, policy and fingerprint.
 */
tc_json *tc_attest_statement(const char *session_path, tc_error *err);

/* Sign the statement with the private key at key_path and write the
 * envelope (pretty JSON) to output, or, when output is NULL, beside the
 * artifact root: <artifact_root>.attestation.dsse.json (outside the root,
 * which workers can write; refused when that would still be inside it, as
 * for the root "/").  *written (optional) receives the path written. */
int tc_attest_session(const char *session_path, const char *key_path,
    const char *output, char **written, tc_error *err);

/*
 * Check an attestation of a session: the envelope's signature with the
 * public key at pubkey_path, the statement's type and session, every
 * subject's digest now ("attestation subject changed: <name>"), and that
 * the session has no sealed file the statement does not cover.  On
 * success *subjects (optional) gets the number of subjects and keyid the
 * key id.
 */
int tc_attest_check(const char *session_path, const char *attestation_path,
    const char *pubkey_path, size_t *subjects, char keyid[65],
    tc_error *err);

#endif
