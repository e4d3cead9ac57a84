#!/usr/bin/env python3
"""Checks Souk's in-app commerce from outside, against a running `souk serve`, the way an app and
its developer use it: the operator CLI applies a catalog (twice, and broken), the app reads
`products_v1.json` with conditional requests and the Pipes2 feed, signs in through the OAuth
sign-in form (HTTP only), reports Apple purchases signed by an Apple-shaped chain made here with
Python's `cryptography` (independent of Souk's Swift test chain) as CloudEvents in both modes (built
with the CloudEvents SDK when it is installed), and
checks entitlements through purchase, duplicate, refund, revocation, restore and transfer.

    scripts/commerce-check.py prepare WORK        # makes the chain; WORK/root.der is the extra root
    scripts/commerce-check.py check BASE WORK SOUK [OTHER_BASE]

`souk` runs with the caller's environment (SOUK_DATA_DIR / SOUK_DATABASE_URL); OTHER_BASE is a
second process on the same PostgreSQL database, which must see every change within a second or two.
Run by scripts/e2e-commerce.sh.
"""
import base64, datetime as dt, html.parser, http.cookiejar, json, os, secrets, hashlib
import subprocess, sys, time, urllib.error, urllib.parse, urllib.request, uuid, warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "apple-verdicts"))
import applechain  # noqa: E402

APP = "org.souk.check.reader"
UTC = dt.timezone.utc
NAME = "commerce-check"   # the checks that import this module name themselves here


def fail(message):
    print(f"{NAME}: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


# MARK: HTTP

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def request(method, url, body=None, headers=None, opener=None):
    """(status, headers, body bytes); never raises for an HTTP status."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None and not req.has_header("Content-type"):
        req.add_header("Content-Type", "application/json")
    try:
        with (opener or urllib.request.build_opener(NoRedirect)).open(req, timeout=20) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class FormReader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}
        self.action = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value", "")


def sign_in(base, email, password):
    """The device sign-in over plain HTTP: authorize → the form → the redirect → the token."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    client_id = "commerce-check-" + secrets.token_hex(4)
    state = secrets.token_urlsafe(8)
    query = urllib.parse.urlencode({"client_id": client_id, "response_type": "code", "redirect_uri": "app-distribution-oauth://",
                                    "code_challenge": challenge, "code_challenge_method": "S256", "state": state})
    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    status, _, page = request("GET", f"{base}/oauth/authorize?{query}", opener=opener)
    expect(status == 200, f"authorize page: {status}")
    form = FormReader()
    form.feed(page.decode())
    fields = dict(form.fields, email=email, password=password)
    action = urllib.parse.urljoin(f"{base}/oauth/authorize", form.action or "/oauth/authorize")
    status, headers, _ = request("POST", action, urllib.parse.urlencode(fields).encode(),
                                 {"Content-Type": "application/x-www-form-urlencoded"}, opener=opener)
    location = headers.get("Location", "")
    expect(status in (302, 303) and location.startswith("app-distribution-oauth:"), f"sign-in redirect: {status} {location}")
    answer = dict(urllib.parse.parse_qsl(location.split("?", 1)[1]))
    expect(answer.get("state") == state, "state")
    status, _, body = request("POST", f"{base}/oauth/token", urllib.parse.urlencode({
        "grant_type": "authorization_code", "code": answer["code"], "code_verifier": verifier, "client_id": client_id,
        "redirect_uri": "app-distribution-oauth://"}).encode(), {"Content-Type": "application/x-www-form-urlencoded"})
    expect(status == 200, f"token endpoint: {status} {body[:200]}")
    return json.loads(body)["access_token"]


# MARK: The operator CLI

def souk(bin_path, *args, ok=True):
    run = subprocess.run([bin_path, *args], capture_output=True, text=True, timeout=120)
    if ok and run.returncode != 0:
        fail(f"souk {' '.join(args)} exited {run.returncode}: {run.stderr.strip()[-400:]}")
    return run


# MARK: Purchases

def cloud_event(product_id, sku, jws, transaction_id, event_id=None):
    return {"specversion": "1.0", "type": "com.applicaster.payment.validate",
            "source": f"reader://{APP}/versions/1.0", "id": event_id or str(uuid.uuid4()),
            "subject": f"Purchased product id {sku} product name: {product_id}",
            "time": dt.datetime.now(UTC).isoformat(), "datacontenttype": "application/json",
            "data": {"transaction": {"storeProductId": sku, "transactionId": transaction_id, "receipt": jws},
                     "productId": product_id, "store": "apple_store", "platform": "ios"}}


try:  # The CloudEvents SDK builds the requests when it is installed (.ci/run installs it): 2.x, then 1.x.
    try:
        from cloudevents.v1.http import CloudEvent as SDKEvent
        from cloudevents.v1.conversion import to_binary as sdk_binary, to_structured as sdk_structured
    except ImportError:
        from cloudevents.http import CloudEvent as SDKEvent
        from cloudevents.conversion import to_binary as sdk_binary, to_structured as sdk_structured
except ImportError:
    SDKEvent = None


def encode(event, mode):
    """(headers, body) of `event` in CloudEvents HTTP `mode` (structured or binary)."""
    if SDKEvent is not None:
        with warnings.catch_warnings():  # 2.x deprecates the 1.x API it still ships
            warnings.simplefilter("ignore")
            sdk_event = SDKEvent({key: value for key, value in event.items() if key != "data"}, event["data"])
            headers, body = (sdk_structured if mode == "structured" else sdk_binary)(sdk_event)
        return dict(headers), body
    if mode == "structured":
        return {"Content-Type": "application/cloudevents+json"}, json.dumps(event).encode()
    headers = {f"ce-{key}": str(value) for key, value in event.items() if key not in ("data", "datacontenttype")}
    headers["Content-Type"] = event.get("datacontenttype", "application/json")
    return headers, json.dumps(event["data"]).encode()


def post_event(base, token, event, mode):
    headers, body = encode(event, mode)
    headers["Authorization"] = f"Bearer {token}"
    return request("POST", f"{base}/commerce/{APP}/transactions", body, headers)


def post_structured(base, token, event):
    return post_event(base, token, event, "structured")


def post_binary(base, token, event):
    return post_event(base, token, event, "binary")


def signed(chain, sku, transaction_id, product_type="Auto-Renewable Subscription", days=30, **extra):
    now = dt.datetime.now(UTC)
    payload = applechain.transaction(APP, sku, environment="Production", signed=now, transaction_id=transaction_id,
                                     type=product_type, expiresDate=applechain.ms(now + dt.timedelta(days=days)) if days else None,
                                     **extra)
    return chain.sign(payload)


def entitled(base, token, product_or_entitlement):
    status, _, body = request("GET", f"{base}/commerce/{APP}/entitlement/{product_or_entitlement}",
                              headers={"Authorization": f"Bearer {token}"})
    return status, json.loads(body or b"{}")


def eventually(check, message, seconds=4.0):
    deadline = time.time() + seconds
    while True:
        if check():
            return
        if time.time() > deadline:
            fail(message)
        time.sleep(0.2)


CATALOG = {
    "app": APP,
    "entitlements": [{"id": "premium", "title": "Premium"}],
    "products": [
        {"id": "reader.monthly", "type": "auto-renewable", "group": "plans", "level": 2, "period": "P1M",
         "title": {"en-US": "Monthly"}, "description": {"en-US": "Every book, every month"},
         "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["premium"],
         "skus": {"apple_store": f"{APP}.monthly", "google_play": "monthly", "amazon": "reader.monthly.term", "roku": "reader-monthly"},
         "promoted": {"order": 1, "visible": True}},
        {"id": "reader.yearly", "type": "auto-renewable", "group": "plans", "level": 1, "period": "P1Y",
         "title": {"en-US": "Yearly"}, "description": {"en-US": "Every book, every year"},
         "prices": [{"currency": "USD", "amount": 4999}], "entitlements": ["premium"],
         "skus": {"apple_store": f"{APP}.yearly", "google_play": "yearly"}},
        {"id": "reader.book.1", "type": "non-consumable", "title": {"en-US": "Book one"}, "description": {"en-US": "A book"},
         "prices": [{"currency": "USD", "amount": 299}], "skus": {"apple_store": f"{APP}.book1"}},
    ],
}


def check(base, work, souk_bin, other=None):
    chain = load_chain(os.path.join(os.path.dirname(work.rstrip("/")), "chain"))
    os.makedirs(work, exist_ok=True)
    catalog_path = os.path.join(work, "catalog.json")
    with open(catalog_path, "w") as handle:
        json.dump(CATALOG, handle)

    # The catalog: applied, applied again (no change), broken (named path, nothing applied).
    souk(souk_bin, "catalog", "apply", catalog_path)
    again = souk(souk_bin, "catalog", "apply", catalog_path)
    expect("no change" in again.stdout.lower(), f"a second identical apply must say no change: {again.stdout!r}")
    broken = json.loads(json.dumps(CATALOG))
    broken["products"][1]["period"] = "P5X"
    with open(os.path.join(work, "broken.json"), "w") as handle:
        json.dump(broken, handle)
    refused = souk(souk_bin, "catalog", "apply", os.path.join(work, "broken.json"), ok=False)
    expect(refused.returncode != 0 and "products[1].period" in refused.stdout + refused.stderr,
           f"a broken file must name products[1].period: {refused.stdout} {refused.stderr}")
    shown = json.loads(souk(souk_bin, "catalog", "show", APP).stdout)
    expect([p["id"] for p in shown["products"]] == ["reader.monthly", "reader.yearly", "reader.book.1"], f"catalog show: {shown}")

    # The product-id list, with conditional requests, and the feed.
    eventually(lambda: request("GET", f"{base}/commerce/{APP}/products_v1.json")[0] == 200, "products_v1.json after apply")
    status, headers, body = request("GET", f"{base}/commerce/{APP}/products_v1.json")
    expect(status == 200 and json.loads(body) == [f"{APP}.monthly", f"{APP}.yearly", f"{APP}.book1"], f"products_v1: {status} {body!r}")
    etag, modified = headers.get("ETag"), headers.get("Last-Modified")
    expect(etag and modified, "products_v1.json needs ETag and Last-Modified")
    expect(request("GET", f"{base}/commerce/{APP}/products_v1.json", headers={"If-None-Match": etag})[0] == 304, "If-None-Match → 304")
    expect(request("GET", f"{base}/commerce/{APP}/products_v1.json", headers={"If-Modified-Since": modified})[0] == 304, "If-Modified-Since → 304")
    status, headers, body = request("GET", f"{base}/commerce/{APP}/products?platform=android")
    feed = json.loads(body)
    expect(status == 200 and headers.get("Content-Type", "").startswith("application/vnd+applicaster.pipes2+json"), f"feed: {status} {headers}")
    expect([e["extensions"]["external_sku"] for e in feed["entry"]] == [{"google_play": "monthly"}, {"google_play": "yearly"}],
           f"feed filtered to Google Play: {feed}")

    # Two people sign in; without a token the seed's 401.
    for email in ("buyer@example.com", "second@example.com"):
        souk(souk_bin, "accounts", "create", "--email", email, "--password", "commerce check password")
    buyer = sign_in(base, "buyer@example.com", "commerce check password")
    second = sign_in(base, "second@example.com", "commerce check password")
    status, _, body = request("GET", f"{base}/commerce/{APP}/entitlement/premium")
    expect(status == 401 and json.loads(body) == {"statusText": "Unauthorized", "status": 401}, f"no token: {status} {body!r}")

    # A purchase, structured mode → 201; the same event again → the same payment; entitled.
    monthly = f"{APP}.monthly"
    jws = signed(chain, monthly, "3000000000000001")
    event = cloud_event("reader.monthly", monthly, jws, "3000000000000001")
    status, headers, body = post_structured(base, buyer, event)
    expect(status == 201, f"structured purchase: {status} {body!r}")
    payment = json.loads(body)["data"]
    expect(payment["type"] == "payment" and payment["id"], f"payment body: {payment}")
    status, _, body = post_structured(base, buyer, event)
    expect(status == 201 and json.loads(body)["data"]["id"] == payment["id"], f"duplicate event: {status} {body!r}")
    for name in ("premium", "reader.monthly", "reader.yearly"):
        status, body = entitled(base, buyer, name)
        expect(status == 200 and body == {"type": "entitlement", "id": name}, f"entitled to {name}: {status} {body}")
    if other:
        eventually(lambda: entitled(other, buyer, "premium")[0] == 200, "the second process sees the purchase")

    # Binary mode, a non-consumable; a refunded one is recorded (201) and grants nothing.
    book = f"{APP}.book1"
    status, _, body = post_binary(base, buyer, cloud_event("reader.book.1", book, signed(chain, book, "3000000000000002",
                                                           "Non-Consumable", days=0), "3000000000000002"))
    expect(status == 201, f"binary purchase: {status} {body!r}")
    expect(entitled(base, buyer, "reader.book.1")[0] == 200, "entitled to the book")
    refunded = signed(chain, book, "3000000000000003", "Non-Consumable", days=0,
                      revocationDate=applechain.ms(dt.datetime.now(UTC)), revocationReason=0)
    status, _, body = post_structured(base, second, cloud_event("reader.book.1", book, refunded, "3000000000000003"))
    expect(status == 201, f"refunded purchase is recorded: {status} {body!r}")
    expect(entitled(base, second, "reader.book.1")[0] == 401, "a refunded purchase grants nothing")

    # Wrong SKU → 422 problem; a bad signature → 422; a malformed event → 400.
    status, headers, body = post_structured(base, buyer, cloud_event("reader.monthly", book, jws, "3000000000000001"))
    expect(status == 422 and headers.get("Content-Type", "").startswith("application/problem+json"), f"wrong SKU: {status} {body!r}")
    tampered = jws[:-6] + ("AAAAAA" if not jws.endswith("AAAAAA") else "BBBBBB")
    status, _, body = post_structured(base, buyer, cloud_event("reader.monthly", monthly, tampered, "3000000000000001"))
    expect(status == 422, f"bad signature: {status} {body!r}")
    status, _, body = request("POST", f"{base}/commerce/{APP}/transactions", b'{"specversion": "1.0"}',
                              {"Content-Type": "application/cloudevents+json", "Authorization": f"Bearer {buyer}"})
    expect(status == 400, f"malformed event: {status} {body!r}")

    # The operator sees the purchase and revokes it: access ends at once.
    listed = souk(souk_bin, "purchases", "list", "--app", APP).stdout
    expect("3000000000000001" in listed and payment["id"] in listed and "Production" in listed, f"purchases list: {listed}")
    souk(souk_bin, "purchases", "revoke", "--id", payment["id"])
    eventually(lambda: entitled(base, buyer, "premium")[0] == 401, "a revoked purchase still entitles")

    # Restore on the second account: the buyer's book moves there (transfer policy, the default).
    book_jws = signed(chain, book, "3000000000000002", "Non-Consumable", days=0)
    status, _, body = request("POST", f"{base}/commerce/{APP}/restore", {"signedTransactions": [book_jws]},
                              {"Authorization": f"Bearer {second}"})
    expect(status == 200 and {"type": "entitlement", "id": "reader.book.1"} in json.loads(body), f"restore: {status} {body!r}")
    expect(entitled(base, second, "reader.book.1")[0] == 200, "restored to the second account")
    eventually(lambda: entitled(base, buyer, "reader.book.1")[0] == 401, "the book left the first account")
    print("commerce-check: OK" + (" (two processes)" if other else "") + (", events built with the CloudEvents SDK" if SDKEvent else ""))


CHAIN_FILES = ("leaf.der", "intermediate.der", "root.der")


def prepare(work):
    """Makes the chain; its certificates and the leaf key are written to WORK for `check`."""
    from cryptography.hazmat.primitives import serialization
    os.makedirs(work, exist_ok=True)
    chain = applechain.Chain()
    for name, der in zip(CHAIN_FILES, chain.x5c):
        with open(os.path.join(work, name), "wb") as handle:
            handle.write(der)
    with open(os.path.join(work, "leaf.key"), "wb") as handle:
        handle.write(chain.leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()))


def load_chain(work):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    chain = applechain.Chain.__new__(applechain.Chain)
    chain.leaf, chain.intermediate, chain.root = (x509.load_der_x509_certificate(open(os.path.join(work, name), "rb").read())
                                                  for name in CHAIN_FILES)
    chain.leaf_key = serialization.load_pem_private_key(open(os.path.join(work, "leaf.key"), "rb").read(), None)
    return chain


if __name__ == "__main__":
    if sys.argv[1:2] == ["prepare"]:
        prepare(sys.argv[2])
    elif sys.argv[1:2] == ["check"]:
        check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        fail(__doc__)
