"""Souk's promotional offer signatures against Apple's own creators, case by case.

For each case, `souk apple sign-offer` (the signer behind POST /commerce/<app>/offers/signature)
and Apple's app-store-server-library sign the same offer with the same key:
- StoreKit 2: with Apple's nonce and clock pinned to Souk's, `PromotionalOfferV2SignatureCreator`
  makes the same header and claims, byte for byte (the JWS's first two segments), and both ES256
  signatures verify with the key's public half;
- StoreKit 1: Souk's DER signature verifies over the very bytes `PromotionalOfferSignatureCreator`
  signs (captured from its key), and Apple's signature over them verifies too; a signature over
  another username does not (so the check is not vacuous).
Run by scripts/apple-verdicts.sh (SOUK_BIN = the souk binary)."""

import base64
import datetime as dt
import json
import os
import pathlib
import subprocess
import types
import uuid

import pytest
from appstoreserverlibrary import jws_signature_creator
from appstoreserverlibrary.jws_signature_creator import PromotionalOfferV2SignatureCreator
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.hashes import SHA256

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOUK = os.environ.get("SOUK_BIN", str(ROOT / ".build/debug/souk"))
BUNDLE = "com.example.reader"
KEY_ID = "OFFER12345"
ISSUER = "57246542-96fe-1a63-e053-0824d011072a"

CASES = [
    # (product, offer, application username, transaction id, nonce as given, timestamp in ms)
    ("com.example.reader.monthly", "winback50", "", None, "5d1a4a7e-2c3b-4f6a-9e8d-1b2c3d4e5f60", 1790000000987),
    ("com.example.reader.monthly", "winback50", "Alice-Token", "2000000123456789", "5D1A4A7E-2C3B-4F6A-9E8D-1B2C3D4E5F60", 1790000000000),
    ("com.example.reader.yearly", "first.month_1", "7F0E5F0B-8C1D-4E2A-9B3C-0D1E2F3A4B5C", "0", str(uuid.uuid4()), 1700000000001),
    ("reader-yearly", "Offer-ÉTÉ", "ÀLICE Üser", None, str(uuid.uuid4()), 1800000000999),
]


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = tmp_path_factory.mktemp("offer") / "SubscriptionKey_OFFER12345.p8"
    path.write_bytes(pem)
    return private, pem, path


def souk_sign(path, product, offer, username, transaction_id, nonce, timestamp):
    arguments = [SOUK, "apple", "sign-offer", "--bundle-id", BUNDLE, "--key-id", KEY_ID, "--issuer-id", ISSUER, "--key-path", str(path),
                 "--product-id", product, "--offer-id", offer, "--application-username", username, "--nonce", nonce,
                 "--timestamp", str(timestamp)]
    if transaction_id is not None:
        arguments += ["--transaction-id", transaction_id]
    done = subprocess.run(arguments, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    signed = json.loads(done.stdout)
    assert set(signed) == {"signatureV2", "keyIdentifier", "nonce", "timestamp", "signature"}
    assert signed["keyIdentifier"] == KEY_ID and signed["nonce"] == nonce.lower() and signed["timestamp"] == timestamp
    return signed


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_es256(public, jws):
    header, payload, signature = jws.split(".")
    raw = b64url_decode(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{payload}".encode(), ec.ECDSA(SHA256()))


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1]}-{case[3]}")
def test_storekit2_jws_is_apples_byte_for_byte(case, key, monkeypatch):
    private, pem, path = key
    product, offer, username, transaction_id, nonce, timestamp = case
    signed = souk_sign(path, product, offer, username, transaction_id, nonce, timestamp)
    # Apple's creator with its nonce and clock pinned to what Souk used.
    monkeypatch.setattr(jws_signature_creator.uuid, "uuid4", lambda: uuid.UUID(nonce))
    instant = dt.datetime.fromtimestamp(timestamp / 1000, dt.timezone.utc)
    clock = types.SimpleNamespace(datetime=types.SimpleNamespace(now=lambda tz=None: instant), timezone=dt.timezone)
    monkeypatch.setattr(jws_signature_creator, "datetime", clock)
    apple = PromotionalOfferV2SignatureCreator(pem, KEY_ID, ISSUER, BUNDLE).create_signature(product, offer, transaction_id)
    souk_parts, apple_parts = signed["signatureV2"].split("."), apple.split(".")
    assert b64url_decode(souk_parts[0]) == b64url_decode(apple_parts[0])
    assert b64url_decode(souk_parts[1]) == b64url_decode(apple_parts[1])
    assert souk_parts[:2] == apple_parts[:2]
    claims = json.loads(b64url_decode(souk_parts[1]))
    assert claims["aud"] == "promotional-offer" and claims["nonce"] == nonce.lower() and claims["iat"] == timestamp // 1000
    assert ("transactionId" in claims) == (transaction_id is not None)
    verify_es256(private.public_key(), signed["signatureV2"])
    verify_es256(private.public_key(), apple)


class Recorder:
    """Apple's signing key, recording the bytes it is asked to sign."""

    def __init__(self, key):
        self.key, self.signed = key, []

    def sign(self, data, algorithm):
        self.signed.append(data)
        return self.key.sign(data, algorithm)


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{case[1]}-{case[2] or 'none'}")
def test_storekit1_signature_verifies_over_apples_payload(case, key):
    private, pem, path = key
    product, offer, username, _, nonce, timestamp = case
    signed = souk_sign(path, product, offer, username, None, nonce, timestamp)
    creator = PromotionalOfferSignatureCreator(pem, KEY_ID, BUNDLE)
    creator._signing_key = recorder = Recorder(creator._signing_key)
    apple_signature = creator.create_signature(product, offer, username, uuid.UUID(nonce), timestamp)
    [payload] = recorder.signed
    public = private.public_key()
    public.verify(base64.b64decode(signed["signature"], validate=True), payload, ec.ECDSA(SHA256()))
    public.verify(base64.b64decode(apple_signature), payload, ec.ECDSA(SHA256()))
    other = creator.create_signature(product, offer, username + "x", uuid.UUID(nonce), timestamp)
    with pytest.raises(InvalidSignature):
        public.verify(base64.b64decode(signed["signature"]), recorder.signed[-1], ec.ECDSA(SHA256()))
    assert other
