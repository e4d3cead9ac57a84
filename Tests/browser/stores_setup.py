#!/usr/bin/env python3
"""The stores of the browser tests' console forms (test_console_stores.py), made by
scripts/browser-tests.sh before it starts Souk:

    stores_setup.py prepare WORK APPLE_DIR APP

writes in WORK the Google service account, `secrets.json` and the RTDN token of
Tests/stores-e2e/stores_check.py (for `fakestores.py`), and `catalog.json`: APP with an
auto-renewable subscription on the App Store and Google Play and a one-time product on Google Play;
its `stores` block names the App Store Server API fake's In-App Purchase key (APPLE_DIR, written
by `souk-store-fakes`) and the Google service account.
"""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def prepare(work, apple_dir, app):
    spec = importlib.util.spec_from_file_location("stores_check", os.path.join(HERE, "..", "stores-e2e", "stores_check.py"))
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    check.prepare(work)
    with open(os.path.join(apple_dir, "apple.json")) as handle:
        apple = json.load(handle)
    catalog = {
        "app": app,
        "entitlements": [{"id": "premium", "title": "Premium"}],
        "stores": {
            "apple_store": {"bundleId": app, "appAppleId": 1234567891, "keyId": apple["keyId"], "issuerId": apple["issuerId"],
                            "privateKeyPath": os.path.join(apple_dir, "apple-key.p8")},
            "google_play": {"packageName": check.PACKAGE, "serviceAccountPath": os.path.join(work, "google-service-account.json"),
                            "rtdnTokenPath": os.path.join(work, "rtdn-token")},
        },
        "products": [
            {"id": "stores.monthly", "type": "auto-renewable", "group": "plans", "level": 1, "period": "P1M",
             "title": {"en-US": "Monthly"}, "description": {"en-US": "Everything, monthly"},
             "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["premium"],
             "skus": {"apple_store": f"{app}.monthly", "google_play": "monthly"}},
            {"id": "stores.book", "type": "non-consumable", "title": {"en-US": "A book"}, "description": {"en-US": "One book"},
             "prices": [{"currency": "USD", "amount": 299}], "skus": {"google_play": "book"}},
        ],
    }
    with open(os.path.join(work, "catalog.json"), "w") as handle:
        json.dump(catalog, handle)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "prepare":
        sys.exit("usage: stores_setup.py prepare WORK APPLE_DIR APP")
    prepare(*sys.argv[2:])
