"""StoreKit 1 app receipts made with Python's `cryptography`, in the format Apple documents
("Validating receipts on the device"): a SET of ReceiptAttribute SEQUENCE {type INTEGER,
version INTEGER, value OCTET STRING}, in-app purchases (type 17) a SET again, signed as PKCS#7
signedData by an applechain.Chain's leaf. Independent of Souk's Swift AppleTestReceipt."""

import datetime as dt

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.serialization import pkcs7


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _length(len(content)) + content


def integer(value: int) -> bytes:
    body = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True)
    return tlv(0x02, body)


def utf8(text: str) -> bytes:
    return tlv(0x0C, text.encode())


def ia5_date(moment: dt.datetime) -> bytes:
    return tlv(0x16, moment.strftime("%Y-%m-%dT%H:%M:%SZ").encode())


def attribute_set(attributes) -> bytes:
    """A SET of (type, value DER) in the given order (Apple does not sort it)."""
    return tlv(0x31, b"".join(tlv(0x30, integer(kind) + integer(1) + tlv(0x04, value)) for kind, value in attributes))


def in_app(product_id, transaction_id=None, original_transaction_id=None, *,
           purchased=dt.datetime(2025, 6, 1, tzinfo=dt.timezone.utc)) -> bytes:
    fields = [(1701, integer(1)), (1702, utf8(product_id))]
    if transaction_id is not None:
        fields.append((1703, utf8(transaction_id)))
    fields.append((1704, ia5_date(purchased)))
    if original_transaction_id is not None:
        fields.append((1705, utf8(original_transaction_id)))
    return attribute_set(fields)


def payload(bundle_id="com.example.reader", *, receipt_type="Production", in_apps=(),
            created=dt.datetime(2025, 6, 2, tzinfo=dt.timezone.utc)) -> bytes:
    attributes = [(0, utf8(receipt_type)), (2, utf8(bundle_id)), (3, utf8("2.0")), (12, ia5_date(created))]
    attributes += [(17, entry) for entry in in_apps]
    attributes += [(19, utf8("1.0"))]
    return attribute_set(attributes)


def sign(chain, content: bytes, *, attributes=True) -> bytes:
    """PKCS#7 signedData (DER) over `content`, by the chain's leaf, carrying intermediate and root."""
    builder = (pkcs7.PKCS7SignatureBuilder().set_data(content)
               .add_signer(chain.leaf, chain.leaf_key, hashes.SHA256())
               .add_certificate(chain.intermediate).add_certificate(chain.root))
    options = [pkcs7.PKCS7Options.Binary] + ([] if attributes else [pkcs7.PKCS7Options.NoAttributes])
    return builder.sign(serialization.Encoding.DER, options)
