#!/usr/bin/env bash
# test_attest.sh - signed sessions: keygen writes an Ed25519 pair (PEM),
# attest signs an in-toto Statement v1 in a DSSE envelope whose subjects
# are every sealed file and bound artifact, a standard reader (python3 +
# `openssl pkeyutl -rawin`) verifies it without tunectl, and verify
# --attestation fails naming the first mismatch: one flipped byte in any
# subject, in the signature or in the payload.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/controller_fixtures.sh"

# ---- keygen ---------------------------------------------------------------------
tc keygen --out "$T/keys/signer"
expect_rc 0 "keygen writes a key pair"
check "the private key is PKCS#8 PEM" grep -q "BEGIN PRIVATE KEY" "$T/keys/signer"
check "the public key is SubjectPublicKeyInfo PEM" grep -q "BEGIN PUBLIC KEY" "$T/keys/signer.pub"
check "the private key is readable by its owner only" test "$(stat -c %a "$T/keys/signer")" = 600
check "openssl reads it as an Ed25519 key" bash -c "openssl pkey -in '$T/keys/signer' -noout -text | grep -q ED25519"
keyid=$(openssl pkey -pubin -in "$T/keys/signer.pub" -outform DER | sha256sum | cut -d' ' -f1)
expect_out "\"keyid\": \"$keyid\"" "the key id is the SHA-256 of the DER public key"
before=$(sha_file "$T/keys/signer")
tc keygen --out "$T/keys/signer"
expect_rc 1 "keygen never replaces a key"
expect_out "File exists" "and says why"
check "the existing key is untouched" test "$(sha_file "$T/keys/signer")" = "$before"
tc keygen --out "$T/keys/other"
tc keygen
expect_rc 2 "keygen needs --out"

# ---- a completed session with bound artifacts ------------------------------------------
ctl_init "$T/s" none
mkdir -p "$R/s0/runset/run-1"
echo 'Inference time (decode): 10.0 ms' >"$R/s0/runset/run-1/log_0.log"
ctl_seal
ctl_seal "" 'result["produced_artifacts"] = ["s0/runset"]'
ctl_advance_to_final
tc attest --session "$S" --key "$T/keys/signer" --output "$T/active.dsse.json"
expect_rc 0 "an active session that verifies can be attested"
ctl_seal not_run
tc verify --session "$S" --attestation "$T/active.dsse.json" --pubkey "$T/keys/signer.pub"
expect_rc 1 "an attestation made before the Final was sealed no longer verifies"
# the first changed subject in name order: the sidecar (an absolute
# path) when there is one, else the session file
expect_out "attestation subject changed: $(sidecar_of "$S")" "the session's sidecar changed"
flip_char() {
	python3 - "$1" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x01
open(p, "wb").write(bytes(b))
PY
}
cp "$R/phases/intake-preparation/PHASE_REPORT.md" "$T/report.bak"
flip_char "$R/phases/intake-preparation/PHASE_REPORT.md"
tc attest --session "$S" --key "$T/keys/signer"
expect_rc 1 "a session that does not verify is not attested"
expect_out "session does not verify: phase report differs" "attest says why"
cp "$T/report.bak" "$R/phases/intake-preparation/PHASE_REPORT.md"

tc attest --session "$S" --key "$T/keys/signer"
expect_rc 0 "attest signs a verified session"
A="$R.attestation.dsse.json"
expect_out "\"attestation\": \"$A\"" "by default beside the root, outside it: <artifact-root>.attestation.dsse.json"
check "nothing is written into the artifact root" test ! -e "$R/attestation.dsse.json"
expect_out "\"keyid\": \"$keyid\"" "naming the key"

# ---- a standard reader: DSSE PAE + openssl ------------------------------------------------
python3 - "$A" "$T" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
assert env["payloadType"] == "application/vnd.in-toto+json", env["payloadType"]
body = base64.b64decode(env["payload"], validate=True)
t = env["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)
open(sys.argv[2] + "/pae.bin", "wb").write(pae)
open(sys.argv[2] + "/sig.bin", "wb").write(base64.b64decode(env["signatures"][0]["sig"]))
st = json.loads(body)
open(sys.argv[2] + "/statement.json", "w").write(json.dumps(st))
PY
check "openssl verifies the DSSE signature over the PAE" \
    bash -c "openssl pkeyutl -verify -pubin -inkey '$T/keys/signer.pub' -rawin -in '$T/pae.bin' -sigfile '$T/sig.bin' >/dev/null"
check "openssl rejects it with another key" bash -c \
    "! openssl pkeyutl -verify -pubin -inkey '$T/keys/other.pub' -rawin -in '$T/pae.bin' -sigfile '$T/sig.bin' >/dev/null 2>&1"
check "openssl makes the same signature over the PAE (Ed25519 is deterministic)" bash -c \
    "openssl pkeyutl -sign -inkey '$T/keys/signer' -rawin -in '$T/pae.bin' | cmp -s - '$T/sig.bin'"

# ---- key files: the bytes openssl writes, keys openssl makes ---------------------------
# tunectl signs with libsodium and reads and writes the PEM files itself
# (docs/hardening.md, "The binary"); openssl is the reference for both.
check "the private key file is byte for byte what openssl writes for that key" bash -c \
    "openssl pkey -in '$T/keys/signer' | cmp -s - '$T/keys/signer'"
check "the public key file is byte for byte what openssl writes for that key" bash -c \
    "openssl pkey -in '$T/keys/signer' -pubout | cmp -s - '$T/keys/signer.pub'"
openssl genpkey -algorithm ed25519 -out "$T/keys/ossl" 2>/dev/null
openssl pkey -in "$T/keys/ossl" -pubout -out "$T/keys/ossl.pub"
{ echo "a key openssl made, with a comment line before it"; cat "$T/keys/ossl"; } >"$T/keys/ossl-commented"
tc attest --session "$S" --key "$T/keys/ossl-commented" --output "$T/ossl.dsse.json"
expect_rc 0 "attest signs with a key openssl generated (text around the PEM block ignored, as openssl does)"
ossl_keyid=$(openssl pkey -pubin -in "$T/keys/ossl.pub" -outform DER | sha256sum | cut -d' ' -f1)
expect_out "\"keyid\": \"$ossl_keyid\"" "its key id is the SHA-256 of openssl's DER public key"
python3 - "$T/ossl.dsse.json" "$T/ossl" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
body = base64.b64decode(env["payload"], validate=True)
t = env["payloadType"].encode()
open(sys.argv[2] + ".pae", "wb").write(b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))
open(sys.argv[2] + ".sig", "wb").write(base64.b64decode(env["signatures"][0]["sig"]))
PY
check "the signature is the one openssl makes with that key" bash -c \
    "openssl pkeyutl -sign -inkey '$T/keys/ossl' -rawin -in '$T/ossl.pae' | cmp -s - '$T/ossl.sig'"
tc verify --session "$S" --attestation "$T/ossl.dsse.json" --pubkey "$T/keys/ossl.pub"
expect_rc 0 "verify --attestation reads openssl's public key file"
openssl pkey -in "$T/keys/ossl" -out "$T/keys/ossl-enc" -aes256 -passout pass:secret 2>/dev/null
tc attest --session "$S" --key "$T/keys/ossl-enc" --output "$T/enc.dsse.json"
expect_rc 1 "an encrypted private key is refused"
expect_out "is not an Ed25519 private key in PEM form" "naming what it is not"
openssl genpkey -algorithm x25519 -out "$T/keys/x25519" 2>/dev/null
tc attest --session "$S" --key "$T/keys/x25519" --output "$T/x.dsse.json"
expect_rc 1 "an X25519 key is refused"
check "and nothing is written" test ! -e "$T/x.dsse.json"
check "the payload is an in-toto Statement v1" test \
    "$(jpy "$T/statement.json" 'd["_type"]')" = "https://in-toto.io/Statement/v1"
check "every subject's sha256 is the file's (sha256sum)" python3 - "$T/statement.json" "$R" <<'PY'
import hashlib, json, os, sys
st = json.load(open(sys.argv[1]))
for s in st["subject"]:
    p = s["name"] if s["name"].startswith("/") else os.path.join(sys.argv[2], s["name"])
    if hashlib.sha256(open(p, "rb").read()).hexdigest() != s["digest"]["sha256"]:
        sys.exit("subject %s differs" % s["name"])
PY
names=$(jpy "$T/statement.json" '" ".join(s["name"] for s in d["subject"])')
for want in auto-tune-session.json phases/s0-baseline/phase-result.json \
    phases/s0-baseline/PHASE_REPORT.md "$(sidecar_of "$S")" \
    s0/runset/run-1/log_0.log FINAL_E2E_REPORT.md ledger.json; do
	check "the statement covers $want" bash -c "[[ ' $names ' == *' $want '* ]]"
done

# ---- verify --attestation -------------------------------------------------------------------
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/signer.pub"
expect_rc 0 "verify checks the attestation"
expect_out '"subjects": ' "and reports the subjects it checked"
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/other.pub"
expect_rc 1 "another public key does not verify it"
expect_out "attestation signature does not verify with the given public key" "verify says so"
tc verify --session "$S" --attestation "$A"
expect_rc 2 "--attestation needs --pubkey"

cp "$A" "$T/a.bak"
for subject in s0/runset/run-1/log_0.log ledger.json phases/intake-preparation/phase-result.json \
    auto-tune-session.json; do
	cp "$R/$subject" "$T/subject.bak"
	flip_char "$R/$subject"
	tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/signer.pub"
	expect_rc 1 "one flipped byte in $subject fails"
	expect_out "attestation subject changed: $subject" "verify names $subject"
	cp "$T/subject.bak" "$R/$subject"
done
python3 - "$A" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
sig[10] ^= 0x01
env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
open(sys.argv[1], "w").write(json.dumps(env))
PY
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/signer.pub"
expect_rc 1 "one flipped bit in the signature fails"
expect_out "attestation signature does not verify" "verify names the signature"
cp "$T/a.bak" "$A"
python3 - "$A" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
st = json.loads(base64.b64decode(env["payload"]))
st["subject"][0]["digest"]["sha256"] = "0" * 64
env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
open(sys.argv[1], "w").write(json.dumps(env))
PY
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/signer.pub"
expect_rc 1 "a payload edited after signing fails"
expect_out "attestation signature does not verify" "the signature covers the payload"
cp "$T/a.bak" "$A"
tc verify --session "$S" --attestation "$A" --pubkey "$T/keys/signer.pub"
expect_rc 0 "the restored attestation verifies again"
tc attest --session "$S" --key "$T/keys/signer.pub"
expect_rc 1 "a public key cannot sign"
expect_out "is not an Ed25519 private key in PEM form" "attest says so"
tc attest --session "$S" --key "$T/keys/signer" --output "$T/out/att.json"
expect_rc 0 "--output chooses the envelope's file"
check "the envelope is written there" test -f "$T/out/att.json"

finish
