"""Souk's verdicts on signed app transactions (StoreKit's AppTransaction) against Apple's own library.

App transactions signed here with applechain.py's Apple-shaped chains go through Apple's
`SignedDataVerifier.verify_and_decode_app_transaction` (online checks off) and through
`souk apple verify-app-transaction` (what `POST /commerce/<app>/app-transaction` runs). Both must
give the same status, the one each case is built for, and the same originalApplicationVersion.
Run by scripts/apple-verdicts.sh (SOUK_BIN = the souk binary)."""

import datetime as dt
import json
import os
import pathlib
import subprocess

import pytest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

from applechain import UTC, Chain, ms

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOUK = os.environ.get("SOUK_BIN", str(ROOT / ".build/debug/souk"))
APPLE_ROOT = (ROOT / "certs/AppleRootCA-G3.cer").read_bytes()
APP = "com.example.reader"
APP_APPLE_ID = 1234567890


def app_transaction(receipt_type="Production", *, bundle_id=APP, app_apple_id=APP_APPLE_ID,
                    created=dt.datetime(2025, 6, 1, tzinfo=UTC), **extra):
    payload = {"receiptType": receipt_type, "appAppleId": app_apple_id, "bundleId": bundle_id, "applicationVersion": "3.1",
               "versionExternalIdentifier": 867530900, "receiptCreationDate": ms(created),
               "originalPurchaseDate": ms(dt.datetime(2020, 1, 1, tzinfo=UTC)), "originalApplicationVersion": "1.0",
               "appTransactionId": "704289572311258389", "originalPlatform": "iOS"}
    payload.update(extra)
    return {k: v for k, v in payload.items() if v is not None}


def apple_verdict(jws, environment, roots):
    verifier = SignedDataVerifier([APPLE_ROOT] + roots, False, Environment(environment), APP,
                                  APP_APPLE_ID if environment == "Production" else None)
    try:
        return "OK", verifier.verify_and_decode_app_transaction(jws).originalApplicationVersion
    except VerificationException as error:
        return error.status.name, None


def souk_verdict(jws, environment, roots, tmp_path):
    arguments = [SOUK, "apple", "verify-app-transaction", "--bundle-id", APP, "--environment", environment]
    if environment == "Production":
        arguments += ["--app-apple-id", str(APP_APPLE_ID)]
    for index, root in enumerate(roots):
        path = tmp_path / f"root-{index}.cer"
        path.write_bytes(root)
        arguments += ["--root", str(path)]
    done = subprocess.run(arguments, input=jws.encode(), capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr.decode()
    verdict = json.loads(done.stdout)
    return verdict["status"], (verdict.get("appTransaction") or {}).get("originalApplicationVersion"), verdict.get("reason")


def made_corpus():
    chain, stranger = Chain(), Chain()
    expired = Chain(leaf_from=dt.datetime(2021, 1, 1, tzinfo=UTC), leaf_to=dt.datetime(2023, 1, 1, tzinfo=UTC))
    roots = [chain.root_der]
    return [
        ("production", chain.sign(app_transaction()), "Production", roots, "OK"),
        ("sandbox", chain.sign(app_transaction("Sandbox", app_apple_id=None)), "Sandbox", roots, "OK"),
        ("sandbox data, production verifier", chain.sign(app_transaction("Sandbox")), "Production", roots, "INVALID_ENVIRONMENT"),
        ("Xcode", chain.sign(app_transaction("Xcode")), "Sandbox", roots, "INVALID_ENVIRONMENT"),
        ("another app", chain.sign(app_transaction(bundle_id="com.example.other")), "Production", roots, "INVALID_APP_IDENTIFIER"),
        ("another appAppleId in production", chain.sign(app_transaction(app_apple_id=42)), "Production", roots, "INVALID_APP_IDENTIFIER"),
        ("untrusted chain", stranger.sign(app_transaction()), "Production", roots, "VERIFICATION_FAILURE"),
        ("another key", chain.sign(app_transaction(), key=stranger.leaf_key), "Production", roots, "VERIFICATION_FAILURE"),
        ("two-certificate x5c", chain.sign(app_transaction(), x5c=chain.x5c[:2]), "Production", roots, "INVALID_CHAIN_LENGTH"),
        ("leaf expired before receiptCreationDate", expired.sign(app_transaction()), "Production", [expired.root_der], "VERIFICATION_FAILURE"),
        ("leaf valid at receiptCreationDate", expired.sign(app_transaction(created=dt.datetime(2022, 6, 1, tzinfo=UTC))),
         "Production", [expired.root_der], "OK"),
        ("not a JWS", "not a jws", "Production", roots, "VERIFICATION_FAILURE"),
    ]


CORPUS = made_corpus()


@pytest.mark.parametrize("case", CORPUS, ids=[case[0] for case in CORPUS])
def test_souk_and_apple_agree_on_app_transactions(case, tmp_path):
    name, jws, environment, roots, built_for = case
    apple_status, apple_version = apple_verdict(jws, environment, roots)
    souk_status, souk_version, reason = souk_verdict(jws, environment, roots, tmp_path)
    assert apple_status == built_for, f"{name}: Apple's library says {apple_status}, the case was built for {built_for}"
    assert souk_status == apple_status, f"{name}: Souk says {souk_status} ({reason}), Apple's library {apple_status}"
    assert souk_version == apple_version
