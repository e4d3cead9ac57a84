"""Souk's Apple verdicts against Apple's own library, verdict for verdict.

A corpus of StoreKit 2 signed transactions — signed here with Apple-shaped chains made by Python's
`cryptography` (applechain.py), plus genuine Apple-signed samples from public code
(Tests/SoukIntegrationsTests/Fixtures/apple-real-signed-data.json) — goes through Apple's
`app-store-server-library` (SignedDataVerifier, online checks off: judged at signedDate) and through
`souk apple verify-transaction`. Both must answer the same status (OK, VERIFICATION_FAILURE,
INVALID_CHAIN_LENGTH, INVALID_CERTIFICATE, INVALID_APP_IDENTIFIER, INVALID_ENVIRONMENT), and the
status each case is built to produce, so a case cannot pass with both sides wrong.
Run by scripts/apple-verdicts.sh (SOUK_BIN = the souk binary)."""

import base64
import datetime as dt
import json
import os
import pathlib
import subprocess

import pytest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

import applechain
from applechain import UTC, Chain, b64url, ms, transaction

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOUK = os.environ.get("SOUK_BIN", str(ROOT / ".build/debug/souk"))
APPLE_ROOT = (ROOT / "certs/AppleRootCA-G3.cer").read_bytes()
REAL = json.loads((ROOT / "Tests/SoukIntegrationsTests/Fixtures/apple-real-signed-data.json").read_text())
APP = "com.example.reader"
APP_APPLE_ID = 1234567890


def apple_verdict(jws, bundle_id, environment, roots):
    verifier = SignedDataVerifier([APPLE_ROOT] + roots, False, Environment(environment), bundle_id,
                                  APP_APPLE_ID if environment == "Production" else None)
    try:
        decoded = verifier.verify_and_decode_signed_transaction(jws)
    except VerificationException as error:
        return error.status.name, None
    return "OK", decoded.transactionId


def souk_verdict(jws, bundle_id, environment, roots, tmp_path):
    arguments = [SOUK, "apple", "verify-transaction", "--bundle-id", bundle_id, "--environment", environment]
    for index, root in enumerate(roots):
        path = tmp_path / f"root-{index}.cer"
        path.write_bytes(root)
        arguments += ["--root", str(path)]
    done = subprocess.run(arguments, input=jws.encode(), capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr.decode()
    verdict = json.loads(done.stdout)
    assert verdict["valid"] == (done.returncode == 0)
    return verdict["status"], (verdict.get("transaction") or {}).get("transactionId"), verdict.get("reason")


def made_corpus():
    """(name, jws, bundle id, environment, extra roots, the status the case is built to produce)."""
    chain = Chain()
    other = Chain()
    signed_2022 = dt.datetime(2022, 6, 1, tzinfo=UTC)
    expired_leaf = Chain(leaf_from=dt.datetime(2021, 1, 1, tzinfo=UTC), leaf_to=dt.datetime(2023, 1, 1, tzinfo=UTC))
    late_leaf = Chain(leaf_from=dt.datetime(2024, 1, 1, tzinfo=UTC))
    roots = [chain.root_der]
    good = transaction()
    corpus = [
        ("valid production", chain.sign(good), APP, "Production", roots, "OK"),
        ("valid sandbox", chain.sign(transaction(environment="Sandbox")), APP, "Sandbox", roots, "OK"),
        ("sandbox data, production verifier", chain.sign(transaction(environment="Sandbox")), APP, "Production", roots, "INVALID_ENVIRONMENT"),
        ("production data, sandbox verifier", chain.sign(good), APP, "Sandbox", roots, "INVALID_ENVIRONMENT"),
        ("Xcode environment, full chain", chain.sign(transaction(environment="Xcode")), APP, "Production", roots, "INVALID_ENVIRONMENT"),
        ("LocalTesting environment", chain.sign(transaction(environment="LocalTesting")), APP, "Sandbox", roots, "INVALID_ENVIRONMENT"),
        ("Xcode one-certificate chain", chain.sign(transaction(environment="Xcode"), x5c=[chain.der(chain.leaf)]), APP, "Production", roots, "INVALID_CHAIN_LENGTH"),
        ("no environment field", chain.sign(transaction(environment=None)), APP, "Production", roots, "INVALID_ENVIRONMENT"),
        ("another app", chain.sign(transaction(bundle_id="com.example.other")), APP, "Production", roots, "INVALID_APP_IDENTIFIER"),
        ("alg ES384", chain.sign(good, alg="ES384"), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("alg none", chain.sign(good, alg="none"), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("two-certificate x5c", chain.sign(good, x5c=chain.x5c[:2]), APP, "Production", roots, "INVALID_CHAIN_LENGTH"),
        ("four-certificate x5c", chain.sign(good, x5c=chain.x5c + [chain.root_der]), APP, "Production", roots, "INVALID_CHAIN_LENGTH"),
        ("empty x5c", chain.sign(good, x5c=[]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("root not configured", other.sign(good), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("only Apple's root configured", chain.sign(good), APP, "Production", [], "VERIFICATION_FAILURE"),
        ("configured root named in x5c, intermediate from elsewhere",
         other.sign(good, x5c=[other.der(other.leaf), other.der(other.intermediate), chain.root_der]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("intermediate of another chain",
         chain.sign(good, x5c=[chain.der(chain.leaf), other.der(other.intermediate), other.root_der]), APP, "Production", roots + [other.root_der], "VERIFICATION_FAILURE"),
        ("leaf issued by the root directly",
         chain.sign(good, key=chain.root_key, x5c=[chain.root_der, chain.root_der, chain.root_der]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("intermediate without its OID", Chain(intermediate_oid=False).sign(good), APP, "Production", None, "VERIFICATION_FAILURE"),
        ("leaf without its OID", Chain(leaf_oid=False).sign(good), APP, "Production", None, "VERIFICATION_FAILURE"),
        ("intermediate that is not a CA", Chain(intermediate_ca=False).sign(good), APP, "Production", None, "VERIFICATION_FAILURE"),
        ("leaf expired at signedDate", expired_leaf.sign(transaction(signed=dt.datetime(2024, 3, 1, tzinfo=UTC))), APP, "Production", [expired_leaf.root_der], "VERIFICATION_FAILURE"),
        ("leaf expired today, valid at signedDate", expired_leaf.sign(transaction(signed=signed_2022)), APP, "Production", [expired_leaf.root_der], "OK"),
        ("leaf not yet valid at signedDate", late_leaf.sign(transaction(signed=signed_2022)), APP, "Production", [late_leaf.root_der], "VERIFICATION_FAILURE"),
        ("signedDate in the leaf's last second",
         expired_leaf.sign(transaction(signed=dt.datetime(2023, 1, 1, 0, 0, 0, 999000, tzinfo=UTC))), APP, "Production", [expired_leaf.root_der], "OK"),
        ("signedDate one second after the leaf",
         expired_leaf.sign(transaction(signed=dt.datetime(2023, 1, 1, 0, 0, 1, tzinfo=UTC))), APP, "Production", [expired_leaf.root_der], "VERIFICATION_FAILURE"),
        ("signed by another key", chain.sign(good, key=other.leaf_key), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("unknown enum values and fields",
         chain.sign(transaction(type="Future Product Type", inAppOwnershipType="SOMETHING_NEW", transactionReason="GIFT",
                                offerType=9, revocationType="SOMETHING", brandNewField={"a": 1})), APP, "Production", roots, "OK"),
    ]
    genuine = chain.sign(good).split(".")
    forged = chain.sign(transaction(product_id="com.example.reader.everything")).split(".")
    corpus += [
        ("payload swapped after signing", ".".join([genuine[0], forged[1], genuine[2]]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("two segments", ".".join(genuine[:2]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("four segments", ".".join(genuine + ["e30"]), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("not a JWS", "not a jws", APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("header without x5c",
         b64url(b'{"alg":"ES256"}') + "." + genuine[1] + "." + genuine[2], APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("certificate that is not DER",
         chain.sign(good, x5c=[b"not a certificate", chain.der(chain.intermediate), chain.root_der]), APP, "Production", roots, "INVALID_CERTIFICATE"),
    ]
    far = ms(dt.datetime(2100, 1, 1, tzinfo=UTC)) // 1000
    corpus += [
        ("x5c is a string of three characters", chain.sign(good, header_extra={"x5c": "abc"}), APP, "Production", roots, "INVALID_CERTIFICATE"),
        ("x5c is a string of four characters", chain.sign(good, header_extra={"x5c": "abcd"}), APP, "Production", roots, "INVALID_CHAIN_LENGTH"),
        ("x5c holds numbers", chain.sign(good, header_extra={"x5c": [1, 2, 3]}), APP, "Production", roots, "INVALID_CERTIFICATE"),
        ("x5c is a number", chain.sign(good, header_extra={"x5c": 7}), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("kid is a number", chain.sign(good, header_extra={"kid": 5}), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("kid is a string", chain.sign(good, header_extra={"kid": "apple"}), APP, "Production", roots, "OK"),
        ("critical extension", chain.sign(good, header_extra={"crit": ["exp"], "exp": 1}), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("exp has passed", chain.sign(transaction(exp=1000)), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("exp in 2100", chain.sign(transaction(exp=far)), APP, "Production", roots, "OK"),
        ("nbf in 2100", chain.sign(transaction(nbf=far)), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("iat in 2100", chain.sign(transaction(iat=far)), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("iat not a number", chain.sign(transaction(iat="yesterday")), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("an audience", chain.sign(transaction(aud="someone")), APP, "Production", roots, "VERIFICATION_FAILURE"),
        ("sub not a string", chain.sign(transaction(sub=5)), APP, "Production", roots, "VERIFICATION_FAILURE"),
    ]
    corpus += [
        ("no signedDate: judged now", chain.sign(transaction(signedDate=None)), APP, "Production", roots, "OK"),
        ("no signedDate, leaf expired today", expired_leaf.sign(transaction(signedDate=None)), APP, "Production", [expired_leaf.root_der], "VERIFICATION_FAILURE"),
        ("receiptCreationDate instead of signedDate",
         expired_leaf.sign(transaction(signedDate=None, receiptCreationDate=ms(signed_2022))), APP, "Production", [expired_leaf.root_der], "OK"),
        ("signedDate that is not a number", chain.sign(transaction(signedDate="yesterday")), APP, "Production", roots, "VERIFICATION_FAILURE"),
    ]
    # Apple's Python library converts field types (cattrs) instead of refusing them.
    corpus += [
        ("quantity as a string", chain.sign(transaction(quantity="1")), APP, "Production", roots, "OK"),
        ("transactionId as a number", chain.sign(transaction(transactionId=2000000912345678)), APP, "Production", roots, "OK"),
        ("price as a float", chain.sign(transaction(price=4.99)), APP, "Production", roots, "OK"),
        ("isUpgraded as a string", chain.sign(transaction(isUpgraded="yes")), APP, "Production", roots, "OK"),
        ("signedDate as a string", chain.sign(transaction(signedDate=str(ms(signed_2022)))), APP, "Production", roots, "OK"),
        ("bundleId as a number", chain.sign(transaction(bundleId=5)), APP, "Production", roots, "INVALID_APP_IDENTIFIER"),
        ("environment as a boolean", chain.sign(transaction(environment=True)), APP, "Production", roots, "INVALID_ENVIRONMENT"),
    ]
    # Chains made per case carry their own root unless the case names the roots.
    return [(name, jws, app, env, case_roots, status) for name, jws, app, env, case_roots, status in corpus]


def _roots_for(case_roots, jws):
    if case_roots is not None:
        return case_roots
    header = json.loads(base64.urlsafe_b64decode(jws.split(".")[0] + "=="))
    return [base64.b64decode(header["x5c"][2])]


CORPUS = made_corpus()


@pytest.mark.parametrize("case", CORPUS, ids=[case[0] for case in CORPUS])
def test_souk_and_apple_agree_on_made_chains(case, tmp_path):
    name, jws, bundle_id, environment, case_roots, built_for = case
    roots = _roots_for(case_roots, jws)
    apple_status, apple_id = apple_verdict(jws, bundle_id, environment, roots)
    souk_status, souk_id, reason = souk_verdict(jws, bundle_id, environment, roots, tmp_path)
    assert apple_status == built_for, f"{name}: Apple's library says {apple_status}, the case was built for {built_for}"
    assert souk_status == apple_status, f"{name}: Souk says {souk_status} ({reason}), Apple's library {apple_status}"
    assert souk_id == apple_id


REAL_CASES = [(sample, environment) for sample in REAL["transactions"] for environment in ("Production", "Sandbox")]


@pytest.mark.parametrize("case", REAL_CASES, ids=[f"{s['name']}-{e}" for s, e in REAL_CASES])
def test_souk_and_apple_agree_on_real_apple_signed_data(case, tmp_path):
    sample, environment = case
    apple_status, apple_id = apple_verdict(sample["jws"], sample["bundleId"], environment, [])
    souk_status, souk_id, reason = souk_verdict(sample["jws"], sample["bundleId"], environment, [], tmp_path)
    assert apple_status == sample["expected"][environment]
    assert souk_status == apple_status, f"{sample['name']}: Souk says {souk_status} ({reason}), Apple's library {apple_status}"
    assert souk_id == apple_id


def test_the_corpus_covers_every_status():
    statuses = {case[5] for case in CORPUS}
    assert statuses == {"OK", "VERIFICATION_FAILURE", "INVALID_CHAIN_LENGTH", "INVALID_CERTIFICATE",
                        "INVALID_APP_IDENTIFIER", "INVALID_ENVIRONMENT"}
    assert applechain.INTERMEDIATE_OID.dotted_string == "1.2.840.113635.100.6.2.1"
    assert ms(dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)) == 1000
