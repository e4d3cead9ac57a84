#!/usr/bin/env python3
"""Checks a marketplace's license endpoints from outside, the way a device encrypts (spec §3.1)
and with an independent crypto library (Python's `cryptography`): the certificates from the
configuration file's URLs, a license for a public app, refusals, a renewal, garbage envelopes.

    scripts/license-check.py BASE_URL PUBLIC_APP_ID PUBLIC_VERSION_ID

Requests use Souk's development format (docs/licensing.md); run it against `souk serve --demo`.
`Marketplace` is also imported by Tests/selling-e2e/selling_check.py (licenses with a bearer token).
"""
import base64, json, os, sys, urllib.request, urllib.error
from cryptography import x509
from cryptography.hazmat.primitives import hashes, padding as sympadding
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def get(url):
    with urllib.request.urlopen(url) as response:
        return response.read()


def post(url, body, headers=None):
    """(status, JSON answer or raw bytes of an error)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode() if not isinstance(body, bytes) else body,
                                     headers={"Content-Type": "application/json", **(headers or {})}, method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Marketplace:
    """A device's view of a marketplace's licensing: its certificates, sealed requests, verified answers."""

    def __init__(self, base):
        self.base = base
        self.config = json.loads(get(base + "/.well-known/marketplace-kit"))["license"]
        self.encryption = x509.load_der_x509_certificate(get(self.config["encryptionCertificateURL"])).public_key()
        self.signing_der = get(self.config["signingCertificateURL"])
        self.signing = x509.load_der_x509_certificate(self.signing_der).public_key()
        assert self.encryption.key_size == 3072, self.encryption.key_size
        self.request_id = 0

    def seal(self, plaintext):
        key, iv = os.urandom(16), os.urandom(16)
        padder = sympadding.PKCS7(128).padder()
        data = padder.update(plaintext) + padder.finalize()
        encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        ciphertext = encryptor.update(data) + encryptor.finalize()
        sealed_key = self.encryption.encrypt(key + iv, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
        assert len(sealed_key) == 384
        return base64.b64encode(ciphertext).decode(), base64.b64encode(sealed_key).decode()

    def licenses(self, blob):
        """The verified payload of a signed license answer."""
        header, payload, signature = base64.b64decode(blob).decode().split(".")
        head = json.loads(b64url(header))
        assert head["alg"] == "ES256" and base64.b64decode(head["x5c"][0]) == self.signing_der, head
        raw = b64url(signature)
        self.signing.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                            (header + "." + payload).encode(), ec.ECDSA(hashes.SHA256()))
        return json.loads(b64url(payload))

    def asset(self, app, version):
        """An asset of the version being licensed: a key blob belongs to exactly one (app, version, asset)."""
        return json.loads(get(f"{self.base}/packages/{app}/{version}/manifest.json"))["variants"][0]["publicId"]

    def license(self, device, apps, token=None):
        """`apps`: {appleItemId: appleVersionId}. (status, answer)."""
        self.request_id += 1
        request, key = self.seal(json.dumps({"requestId": self.request_id, "deviceId": device, "action": "create",
                                             "appleItemIds": list(apps)}).encode())
        by_id = {app: ({"appleVersionID": version, "assetPublicId": self.asset(app, version)} if version else {"appleVersionId": "1"})
                 for app, version in apps.items()}
        return post(self.config["dynamicLicenseURL"], {"licenseRequest": request, "licenseKey": key, "appsById": by_id},
                    {"Authorization": f"Bearer {token}"} if token else None)

    def renew(self, device, license_ids, token=None):
        self.request_id += 1
        request, key = self.seal(json.dumps({"requestId": self.request_id, "deviceId": device, "action": "renew",
                                             "licenseIds": [str(i) for i in license_ids]}).encode())
        return post(self.config["licenseRenewalURL"], {"renewalRequest": request, "licenseKey": key},
                    {"Authorization": f"Bearer {token}"} if token else None)


def main(base, app, version):
    market = Marketplace(base)
    device = os.urandom(8).hex()
    status, answer = market.license(device, {app: version, "999": None})
    assert status == 200, (status, answer)
    assert answer["unlicensedApps"] == ["999"], answer
    granted = market.licenses(answer["license"])["licenses"]
    assert [entry["appleItemId"] for entry in granted] == [app] and granted[0]["deviceId"] == device, granted
    license_id = int(granted[0]["licenseId"])
    assert 0 < license_id < 2 ** 63

    status, answer = market.renew(device, [license_id, 42])
    assert status == 200 and answer["ineligibleLicenses"] == ["42"], (status, answer)
    assert [int(entry["licenseId"]) for entry in market.licenses(answer["license"])["licenses"]] == [license_id]

    request, _ = market.seal(b"{}")
    for garbage in [b"not json", {"licenseRequest": "AAAA", "licenseKey": "AAAA", "appsById": {app: {}}},
                    {"licenseRequest": request, "licenseKey": base64.b64encode(os.urandom(384)).decode(), "appsById": {app: {}}}]:
        status, _ = post(market.config["dynamicLicenseURL"], garbage)
        assert status == 400, (garbage, status)
    print("license check OK: certificates, license, refusal, renewal, garbage")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
