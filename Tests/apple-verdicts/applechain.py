"""An Apple-shaped signing chain made with Python's `cryptography`, independent of Souk's Swift
test chain: root, intermediate with OID 1.2.840.113635.100.6.2.1, leaf with
1.2.840.113635.100.6.11.1, P-256, and StoreKit 2 style JWS (ES256, x5c = leaf, intermediate, root).
Knobs make the negative cases. Certificates follow what OpenSSL's X509_STRICT (used by Apple's
Python library) requires, so a well-formed chain is valid for Apple's library."""

import base64
import datetime as dt
import json

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

INTERMEDIATE_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")
LEAF_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
UTC = dt.timezone.utc
DEFAULT_FROM = dt.datetime(2020, 1, 1, tzinfo=UTC)
DEFAULT_TO = dt.datetime(2040, 1, 1, tzinfo=UTC)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _name(common_name: str) -> x509.Name:
    return x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Apple Verdicts Test"),
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    ])


def _certificate(subject, subject_key, issuer, issuer_key, *, ca, path_length=None, oid=None,
                 not_before=DEFAULT_FROM, not_after=DEFAULT_TO, self_signed=False):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(subject_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=path_length), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=not ca, content_commitment=False, key_encipherment=False, data_encipherment=False,
            key_agreement=False, key_cert_sign=ca, crl_sign=ca, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
    )
    if not self_signed:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if oid is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(oid, b"\x05\x00"), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


class Chain:
    """A fresh chain. Options: intermediate_oid, leaf_oid, intermediate_ca, leaf_from, leaf_to."""

    def __init__(self, *, intermediate_oid=True, leaf_oid=True, intermediate_ca=True,
                 leaf_from=DEFAULT_FROM, leaf_to=DEFAULT_TO):
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.intermediate_key = ec.generate_private_key(ec.SECP256R1())
        self.leaf_key = ec.generate_private_key(ec.SECP256R1())
        root_name = _name("Apple Verdicts Test Root CA - G3")
        intermediate_name = _name("Apple Verdicts Test WWDR CA")
        self.root = _certificate(root_name, self.root_key, root_name, self.root_key, ca=True, self_signed=True)
        self.intermediate = _certificate(
            intermediate_name, self.intermediate_key, root_name, self.root_key, ca=intermediate_ca,
            path_length=0 if intermediate_ca else None, oid=INTERMEDIATE_OID if intermediate_oid else None)
        self.leaf = _certificate(
            _name("Apple Verdicts Test Receipt Signing"), self.leaf_key, intermediate_name, self.intermediate_key,
            ca=False, oid=LEAF_OID if leaf_oid else None, not_before=leaf_from, not_after=leaf_to)

    def der(self, certificate) -> bytes:
        return certificate.public_bytes(serialization.Encoding.DER)

    @property
    def root_der(self) -> bytes:
        return self.der(self.root)

    @property
    def x5c(self):
        return [self.der(self.leaf), self.der(self.intermediate), self.der(self.root)]

    def sign(self, payload, *, alg="ES256", x5c=None, key=None, header_extra=None) -> str:
        """A compact JWS: header {alg, x5c} (+ header_extra, which may replace either), payload
        (dict → JSON, or raw bytes), ES256 raw r||s."""
        header = {"alg": alg, "x5c": [base64.b64encode(c).decode() for c in (self.x5c if x5c is None else x5c)]}
        if header_extra:
            header.update(header_extra)
        body = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
        signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + b64url(body)
        r, s = decode_dss_signature((key or self.leaf_key).sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def ms(moment: dt.datetime) -> int:
    return int(moment.timestamp() * 1000)


def transaction(bundle_id="com.example.reader", product_id="com.example.reader.monthly", *, environment="Production",
                signed=dt.datetime(2025, 6, 1, tzinfo=UTC), transaction_id="2000000912345678", **extra) -> dict:
    """A StoreKit 2 transaction payload under Apple's field names."""
    payload = {
        "transactionId": transaction_id, "originalTransactionId": transaction_id,
        "webOrderLineItemId": "2000000098765432", "bundleId": bundle_id, "productId": product_id,
        "subscriptionGroupIdentifier": "21000000", "purchaseDate": ms(signed), "originalPurchaseDate": ms(signed),
        "expiresDate": ms(signed + dt.timedelta(days=30)), "quantity": 1, "type": "Auto-Renewable Subscription",
        "inAppOwnershipType": "PURCHASED", "signedDate": ms(signed), "environment": environment,
        "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441", "price": 4990,
        "currency": "USD", "appTransactionId": "704289572311258389",
    }
    payload.update(extra)
    return {k: v for k, v in payload.items() if v is not None}
