"""Schemathesis hooks for scripts/openapi-check.sh: sign webhook bodies like App Store Connect and Stripe do.

Both webhooks authenticate with an HMAC of the raw body, which no static credential can give. The
run's config (Tests/openapi/schemathesis.toml) sets those two credentials to the marker
`sign-me`; just before a request goes out, this hook replaces the marker with the real signature
of the exact bytes about to be sent, using the secrets the server under test was started with.
A request whose header is anything else (schemathesis's own missing- and invalid-auth probes)
is sent as it is, so those still get their 4xx.
"""
import hashlib, hmac, os, time

import requests
import schemathesis
from schemathesis.transport.requests import REQUESTS_TRANSPORT

MARKER = "sign-me"


def _wire_body(case):
    prepared = requests.Request(**{k: v for k, v in REQUESTS_TRANSPORT.serialize_case(case).items()
                                   if k in ("method", "url", "headers", "params", "data", "json", "files")}).prepare()
    body = prepared.body or b""
    return body.encode() if isinstance(body, str) else body


def _header(case, name):
    for key, value in (case.headers or {}).items():
        if key.lower() == name.lower():
            return key, value
    return None, None


@schemathesis.hook
def before_call(context, case, kwargs):
    path = case.operation.path
    if path == "/webhooks/app-store-connect":
        key, value = _header(case, "x-apple-signature")
        if value == MARKER:
            secret = os.environ["SOUK_ASC_WEBHOOK_SECRET"].encode()
            case.headers[key] = "hmacsha256=" + hmac.new(secret, _wire_body(case), hashlib.sha256).hexdigest()
    elif path == "/webhooks/stripe":
        key, value = _header(case, "Stripe-Signature")
        if value == MARKER:
            secret = os.environ["SOUK_STRIPE_WEBHOOK_SECRET"].encode()
            t = int(time.time())
            case.headers[key] = f"t={t},v1=" + hmac.new(secret, f"{t}.".encode() + _wire_body(case), hashlib.sha256).hexdigest()
