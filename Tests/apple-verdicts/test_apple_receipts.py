"""Souk's reading of StoreKit 1 app receipts against Apple's own library.

A corpus of app receipts — made here with `cryptography` (receipts.py, signed by applechain.py's
Apple-shaped chains), plus genuine App Store receipts from public code
(Tests/SoukIntegrationsTests/Fixtures/apple-real-app-receipts.json) — goes through Apple's
`app-store-server-library` (ReceiptUtility.extract_transaction_id_from_app_receipt, which reads
without verifying) and through `souk apple verify-receipt`. Both must take the same transaction id
(or none, or both fail to read the receipt), and Souk's verdict on the signature must be the one
each case is built for: Apple's Python library does not verify receipts, Souk does.
Run by scripts/apple-verdicts.sh (SOUK_BIN = the souk binary)."""

import base64
import datetime as dt
import json
import os
import pathlib
import subprocess

import pytest
from appstoreserverlibrary.receipt_utility import ReceiptUtility
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs7

import receipts
from applechain import UTC, Chain
from receipts import in_app, payload, sign

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOUK = os.environ.get("SOUK_BIN", str(ROOT / ".build/debug/souk"))
REAL = json.loads((ROOT / "Tests/SoukIntegrationsTests/Fixtures/apple-real-app-receipts.json").read_text())
APP = "com.example.reader"
UNREADABLE = "UNREADABLE"


def apple_transaction_id(receipt: str):
    try:
        return ReceiptUtility().extract_transaction_id_from_app_receipt(receipt)
    except ValueError:
        return UNREADABLE


def souk_verdict(receipt: str, bundle_id: str, roots, tmp_path):
    arguments = [SOUK, "apple", "verify-receipt", "--bundle-id", bundle_id]
    for index, root in enumerate(roots):
        path = tmp_path / f"root-{index}.cer"
        path.write_bytes(root)
        arguments += ["--root", str(path)]
    done = subprocess.run(arguments, input=receipt.encode(), capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr.decode()
    verdict = json.loads(done.stdout)
    assert verdict["valid"] == (done.returncode == 0)
    return verdict


def made_corpus():
    """(name, base64 receipt, bundle id, roots, Souk's verdict the case is built for: a reason or "valid")."""
    chain, stranger = Chain(), Chain()
    roots = [chain.root_der]
    one = [in_app("com.example.reader.book", "2000000000000001", "2000000000000001")]
    two = [in_app("com.example.reader.book", "2000000000000011", "2000000000000010"),
           in_app("com.example.reader.monthly", "2000000000000012", "2000000000000012")]
    only_original = [in_app("com.example.reader.book", None, "2000000000000021")]
    good = sign(chain, payload(in_apps=one))
    b64 = lambda der: base64.b64encode(der).decode()
    corpus = [
        ("one in-app purchase", b64(good), APP, roots, "valid"),
        ("no signed attributes", b64(sign(chain, payload(in_apps=one), attributes=False)), APP, roots, "valid"),
        ("two in-app purchases: the first is taken", b64(sign(chain, payload(in_apps=two))), APP, roots, "valid"),
        ("an original transaction id only", b64(sign(chain, payload(in_apps=only_original))), APP, roots, "valid"),
        ("no in-app purchase", b64(sign(chain, payload())), APP, roots, "valid"),
        ("sandbox receipt", b64(sign(chain, payload(receipt_type="ProductionSandbox", in_apps=one))), APP, roots, "valid"),
        ("Xcode receipt type", b64(sign(chain, payload(receipt_type="Xcode", in_apps=one))), APP, roots, "wrong-environment"),
        ("another app's receipt", b64(sign(chain, payload("com.example.other", in_apps=one))), APP, roots, "wrong-app"),
        ("signed by a chain not trusted", b64(sign(stranger, payload(in_apps=one))), APP, roots, "untrusted-chain"),
        ("only Apple's roots trusted", b64(good), APP, [], "untrusted-chain"),
        ("leaf without Apple's OID", b64(sign(Chain(leaf_oid=False), payload(in_apps=one))), APP, None, "missing-leaf-oid"),
        ("leaf expired before the receipt was made",
         b64(sign(Chain(leaf_from=dt.datetime(2020, 1, 1, tzinfo=UTC), leaf_to=dt.datetime(2024, 1, 1, tzinfo=UTC)), payload(in_apps=one))),
         APP, None, "certificate-not-valid"),
        ("truncated", b64(good[: len(good) // 2]), APP, roots, "malformed-receipt"),
        ("garbage bytes", b64(bytes(range(7, 256)) * 2), APP, roots, "malformed-receipt"),
        ("a SEQUENCE that is not PKCS#7", b64(receipts.tlv(0x30, receipts.integer(5))), APP, roots, "malformed-receipt"),
        ("not base64", "this is not a receipt", APP, roots, "malformed-receipt"),
    ]
    # A payload changed after signing: both read it alike, only Souk sees the signature fail.
    forged = good.replace(b"com.example.reader.book", b"com.example.reader.bool")
    corpus.append(("payload changed after signing", b64(forged), APP, roots, "invalid-signature"))
    return corpus


def _roots_for(case_roots, receipt):
    if case_roots is not None:
        return case_roots
    # Chains made per case: trust their own root (the container's self-issued certificate).
    certificates = pkcs7.load_der_pkcs7_certificates(base64.b64decode(receipt))
    return [c.public_bytes(serialization.Encoding.DER) for c in certificates if c.subject == c.issuer]


CORPUS = made_corpus()


@pytest.mark.parametrize("case", CORPUS, ids=[case[0] for case in CORPUS])
def test_souk_and_apple_take_the_same_transaction_id(case, tmp_path):
    name, receipt, bundle_id, case_roots, built_for = case
    apple_id = apple_transaction_id(receipt)
    verdict = souk_verdict(receipt, bundle_id, _roots_for(case_roots, receipt), tmp_path)
    souk_id = verdict.get("transactionId") if verdict["parsed"] else UNREADABLE
    assert souk_id == apple_id, f"{name}: Souk takes {souk_id}, Apple's ReceiptUtility {apple_id}"
    souk_says = "valid" if verdict["valid"] else verdict["reason"]
    assert souk_says == built_for, f"{name}: Souk says {souk_says} ({verdict.get('detail')}), the case was built for {built_for}"


@pytest.mark.parametrize("sample", REAL["receipts"], ids=[s["name"] for s in REAL["receipts"]])
def test_genuine_app_store_receipts(sample, tmp_path):
    assert apple_transaction_id(sample["receipt"]) == sample["transactionId"]
    verdict = souk_verdict(sample["receipt"], sample["bundleId"], [], tmp_path)
    assert verdict["valid"], verdict
    assert verdict["transactionId"] == sample["transactionId"]
    assert verdict["receiptType"] == sample["receiptType"]


def test_the_corpus_reaches_every_outcome():
    ids = {apple_transaction_id(case[1]) for case in CORPUS}
    assert {None, UNREADABLE, "2000000000000001", "2000000000000011", "2000000000000021"} <= ids
