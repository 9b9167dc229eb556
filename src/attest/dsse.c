/*
 * dsse.c - the DSSE v1 envelope: base64, the pre-authentication encoding
 * PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * signing a payload into an envelope and opening one with a public key.
 */
#include <stdlib.h>
#include <string.h>

#include "tunectl/attest.h"

void
tc_dsse_pae(tc_buf *out, const char *type, const void *body, size_t len)
{
	tc_buf_printf(out, "DSSEv1 %zu %s %zu ", strlen(type), type, len);
	tc_buf_add(out, body, len);
}

static const char b64_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
tc_base64_encode(tc_buf *out, const void *data, size_t len)
{
	const unsigned char *in = data;
	char *o;
	size_t i;

	tc_buf_grow(out, 4 * ((len + 2) / 3) + 1);
	o = out->data + out->len;
	for (i = 0; i + 2 < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 |
		    in[i + 2];

		*o++ = b64_digits[v >> 18];
		*o++ = b64_digits[v >> 12 & 63];
		*o++ = b64_digits[v >> 6 & 63];
		*o++ = b64_digits[v & 63];
	}
	if (i < len) {
		unsigned v = (unsigned)in[i] << 16 |
		    (i + 1 < len ? (unsigned)in[i + 1] << 8 : 0);

		*o++ = b64_digits[v >> 18];
		*o++ = b64_digits[v >> 12 & 63];
		*o++ = i + 1 < len ? b64_digits[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
}

static unsigned
b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (unsigned)(c - 'A');
	if (c >= 'a' && c <= 'z')
		return (unsigned)(c - 'a' + 26);
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0' + 52);
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return 64;
}

/* Bits past the last whole byte (as in "Zh==") are ignored, as every
 * common decoder (OpenSSL's, Python's, Go's) ignores them. */
unsigned char *
tc_base64_decode(const char *text, size_t len, size_t *out_len)
{
	unsigned char *out, *o;
	size_t i, pad = 0;

	if (len % 4 != 0 || len > (size_t)1 << 30)
		return NULL;
	for (i = 0; i < len; i++) {
		if (text[i] == '=' && i >= len - 2) {
			pad++;
			continue;
		}
		if (pad > 0 || b64_value(text[i]) == 64)
			return NULL;
	}
	o = out = tc_xmalloc(len / 4 * 3 + 1);
	for (i = 0; i < len; i += 4) {
		unsigned v = 0;

		for (unsigned j = 0; j < 4; j++)
			v = v << 6 | (text[i + j] == '=' ? 0 : b64_value(text[i + j]));
		*o++ = (unsigned char)(v >> 16);
		*o++ = (unsigned char)(v >> 8);
		*o++ = (unsigned char)v;
	}
	*out_len = (size_t)(o - out) - pad;
	return out;
}

tc_json *
tc_dsse_sign(const tc_key *k, const char *type, const void *payload,
    size_t len, tc_error *err)
{
	tc_buf pae = TC_BUF_INIT, b64 = TC_BUF_INIT;
	unsigned char sig[64];
	char keyid[65];
	tc_json *env, *sigs, *one;

	tc_dsse_pae(&pae, type, payload, len);
	if (tc_key_sign(k, pae.data, pae.len, sig, err) != 0) {
		tc_buf_free(&pae);
		return NULL;
	}
	tc_buf_free(&pae);
	tc_key_id(k, keyid);
	env = tc_json_new_object();
	tc_base64_encode(&b64, payload, len);
	tc_json_object_set(env, "payload", tc_json_new_stringn(b64.data, b64.len));
	tc_json_object_set_string(env, "payloadType", type);
	tc_buf_reset(&b64);
	tc_base64_encode(&b64, sig, sizeof(sig));
	one = tc_json_new_object();
	tc_json_object_set_string(one, "keyid", keyid);
	tc_json_object_set(one, "sig", tc_json_new_stringn(b64.data, b64.len));
	sigs = tc_json_new_array();
	tc_json_array_push(sigs, one);
	tc_json_object_set(env, "signatures", sigs);
	tc_buf_free(&b64);
	return env;
}

char *
tc_dsse_open(const tc_json *envelope, const tc_key *k, const char *type,
    size_t *len, tc_error *err)
{
	const tc_json *payload = tc_json_get(envelope, "payload");
	const tc_json *sigs = tc_json_get(envelope, "signatures");
	tc_buf pae = TC_BUF_INIT;
	unsigned char *body;
	size_t body_len, i;
	bool ok = false;

	if (!tc_json_is(envelope, TC_JSON_OBJECT) ||
	    !tc_json_is(payload, TC_JSON_STRING) ||
	    !tc_json_is(sigs, TC_JSON_ARRAY)) {
		tc_error_set(err, "attestation is not a DSSE envelope");
		return NULL;
	}
	if (!tc_json_is(tc_json_get(envelope, "payloadType"), TC_JSON_STRING) ||
	    strcmp(tc_json_get_string(envelope, "payloadType"), type) != 0) {
		tc_error_set(err, "attestation payloadType is not %s", type);
		return NULL;
	}
	/* Before any work: an envelope from the artifact root may carry
	 * thousands of bogus signatures, each a pass over the payload. */
	if (sigs->u.arr.len > TC_DSSE_MAX_SIGNATURES) {
		tc_error_set(err, "attestation has %zu signatures; at most %d "
		    "are checked", sigs->u.arr.len, TC_DSSE_MAX_SIGNATURES);
		return NULL;
	}
	body = tc_base64_decode(payload->u.str.ptr, payload->u.str.len,
	    &body_len);
	if (body == NULL) {
		tc_error_set(err, "attestation payload is not base64");
		return NULL;
	}
	/* the signed bytes are the same for every signature: built once */
	tc_dsse_pae(&pae, type, body, body_len);
	for (i = 0; i < sigs->u.arr.len && !ok; i++) {
		const tc_json *s = tc_json_get(sigs->u.arr.items[i], "sig");
		unsigned char *sig;
		size_t sig_len;

		if (!tc_json_is(s, TC_JSON_STRING) ||
		    (sig = tc_base64_decode(s->u.str.ptr, s->u.str.len,
		    &sig_len)) == NULL)
			continue;
		ok = tc_key_verify(k, pae.data, pae.len, sig, sig_len);
		free(sig);
	}
	tc_buf_free(&pae);
	if (!ok) {
		tc_error_set(err, "attestation signature does not verify with "
		    "the given public key");
		free(body);
		return NULL;
	}
	body = tc_xrealloc(body, body_len + 1);
	body[body_len] = '\0';
	*len = body_len;
	return (char *)body;
}
