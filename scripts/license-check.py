#!/usr/bin/env python3
"""Checks a marketplace's license endpoints from outside, the way a device encrypts (spec §3.1)
and with an independent crypto library (Python's `cryptography`): the certificates from the
configuration file's URLs, a license for a public app, refusals, a renewal, garbage envelopes.

    scripts/license-check.py BASE_URL PUBLIC_APP_ID PUBLIC_VERSION_ID

Requests use Souk's development format (docs/licensing.md); run it against `souk serve --demo`.
"""
import base64, json, os, sys, urllib.request, urllib.error
from cryptography import x509
from cryptography.hazmat.primitives import hashes, padding as sympadding
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

base, app, version = sys.argv[1], sys.argv[2], sys.argv[3]

def get(url):
    with urllib.request.urlopen(url) as response:
        return response.read()

def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode() if not isinstance(body, bytes) else body,
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()

config = json.loads(get(base + "/.well-known/marketplace-kit"))["license"]
encryption = x509.load_der_x509_certificate(get(config["encryptionCertificateURL"])).public_key()
signing_der = get(config["signingCertificateURL"])
signing = x509.load_der_x509_certificate(signing_der).public_key()
assert encryption.key_size == 3072, encryption.key_size

def seal(plaintext):
    key, iv = os.urandom(16), os.urandom(16)
    padder = sympadding.PKCS7(128).padder()
    data = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(data) + encryptor.finalize()
    sealed_key = encryption.encrypt(key + iv, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    assert len(sealed_key) == 384
    return base64.b64encode(ciphertext).decode(), base64.b64encode(sealed_key).decode()

def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

def licenses(blob):
    header, payload, signature = base64.b64decode(blob).decode().split(".")
    head = json.loads(b64url(header))
    assert head["alg"] == "ES256" and base64.b64decode(head["x5c"][0]) == signing_der, head
    raw = b64url(signature)
    signing.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                   (header + "." + payload).encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(b64url(payload))

device = os.urandom(8).hex()
# An asset of the version being licensed: a key blob belongs to exactly one (app, version, asset).
asset = json.loads(get(f"{base}/packages/{app}/{version}/manifest.json"))["variants"][0]["publicId"]
request, key = seal(json.dumps({"requestId": 1, "deviceId": device, "action": "create", "appleItemIds": [app, "999"]}).encode())
status, answer = post(config["dynamicLicenseURL"], {"licenseRequest": request, "licenseKey": key,
                      "appsById": {app: {"appleVersionID": version, "assetPublicId": asset}, "999": {"appleVersionId": "1"}}})
assert status == 200, (status, answer)
assert answer["unlicensedApps"] == ["999"], answer
granted = licenses(answer["license"])["licenses"]
assert [entry["appleItemId"] for entry in granted] == [app] and granted[0]["deviceId"] == device, granted
license_id = int(granted[0]["licenseId"])
assert 0 < license_id < 2 ** 63

request, key = seal(json.dumps({"requestId": 2, "deviceId": device, "action": "renew", "licenseIds": [str(license_id), "42"]}).encode())
status, answer = post(config["licenseRenewalURL"], {"renewalRequest": request, "licenseKey": key})
assert status == 200 and answer["ineligibleLicenses"] == ["42"], (status, answer)
assert [int(entry["licenseId"]) for entry in licenses(answer["license"])["licenses"]] == [license_id]

for garbage in [b"not json", {"licenseRequest": "AAAA", "licenseKey": "AAAA", "appsById": {app: {}}},
                {"licenseRequest": request, "licenseKey": base64.b64encode(os.urandom(384)).decode(), "appsById": {app: {}}}]:
    status, _ = post(config["dynamicLicenseURL"], garbage)
    assert status == 400, (garbage, status)
print("license check OK: certificates, license, refusal, renewal, garbage")
