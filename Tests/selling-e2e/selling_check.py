#!/usr/bin/env python3
"""The marketplace sells, checked from outside against a running `souk serve` whose
Stripe base URL points at `fakestripe.py` — the way an operator sets it up and a device, a buyer
and Stripe use it:

- the operator prices an app per currency, includes another with a membership of the
  marketplace's own catalog, and imports hosted content (a folder and a zip, XML and binary plist);
- not paid: `402` problems (`purchase-required`, `subscription-expired`, `purchaseURL`) on
  license, restore and updates when every app is refused, and the refused app listed
  (`unlicensedApps`, `failures` with code 402) beside the others otherwise;
- `POST /api/v1/checkout`: its refusals (401, 400, 404, 409 `already-owned`, 422 `not-for-sale`);
  a Stripe outage (503, nothing charged) then the same idempotency key; a session form-encoded
  as Stripe documents it; a failed delayed payment (nothing granted, a new order after); a paid
  session with tax seen by the next license request at once; replayed, forged and stale webhooks;
  a partial then a full refund; `souk links install` and `souk-device install` of the bought app;
- a membership through Stripe: events out of order, a renewal (replayed), a failed renewal, a
  refunded invoice ending it (`subscription-expired`);
- the sandbox: a sandbox account buys through the development processor, a membership renews on
  Apple's compressed clock (`souk sandbox advance`) 12 times and stops, a grace period, a refund,
  `souk sandbox clear` (refused for a production account);
- hosted content: the manifest and zips for an account that bought the product in the App Store,
  an interrupted download resumed with `Range`/`If-Range` and its SHA-256 checked, `souk-device
  content download` paused and resumed, and `403` for an account that did not buy it;
- `GET /api/v1/purchases`: purchases, renewals and refunds as charged.

    selling_check.py prepare WORK
    selling_check.py check BASE WORK SOUK SOUK_DEVICE FAKE_STRIPE_URL
Run by scripts/e2e-selling.sh.
"""
import base64, datetime as dt, hashlib, importlib.util, json, os, plistlib, secrets, shutil, socket, subprocess, sys, time, urllib.parse, uuid, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", "..", path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cc = load("commerce_check", "scripts/commerce-check.py")
lc = load("license_check", "scripts/license-check.py")
cc.NAME = "selling-check"
request, expect, fail, souk, sign_in = cc.request, cc.expect, cc.fail, cc.souk, cc.sign_in

NOTES, WEATHER, STUDIO = "6446000001", "6446000002", "6446000003"   # apps of `souk demo seed`
LATEST = {NOTES: "8000000102", WEATHER: "8000000202", STUDIO: "8000000302"}
OLDER = {NOTES: "8000000101", WEATHER: "8000000201", STUDIO: "8000000301"}
WEATHER_BUNDLE = "org.souk.demo.weather"
PASSWORD = "selling check password"
UTC = dt.timezone.utc


def eventually(check, message, seconds=10.0):
    deadline = time.time() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.time() > deadline:
            fail(message)
        time.sleep(0.2)


# MARK: Preparing the operator's files

def marketplace_catalog():
    return {"app": "marketplace", "entitlements": [{"id": "club", "title": "Club"}],
            "products": [{"id": "club.monthly", "type": "auto-renewable", "group": "club", "level": 1, "period": "P1M",
                          "title": {"en-US": "Club"}, "description": {"en-US": "Every club app"},
                          "prices": [{"currency": "USD", "amount": 399}], "entitlements": ["club"]}]}


def weather_catalog():
    return {"app": WEATHER_BUNDLE, "entitlements": [{"id": "maps", "title": "Maps"}],
            "products": [{"id": "weather.maps", "type": "non-consumable", "title": {"en-US": "Maps"},
                          "description": {"en-US": "Offline maps"}, "prices": [{"currency": "USD", "amount": 99}],
                          "entitlements": ["maps"], "skus": {"apple_store": f"{WEATHER_BUNDLE}.maps"}}]}


def content_folder(root, version, product, binary_plist):
    os.makedirs(os.path.join(root, "Contents", "maps"), exist_ok=True)
    info = {"ContentVersion": version, "IAPProductIdentifier": product}
    with open(os.path.join(root, "ContentInfo.plist"), "wb") as handle:
        plistlib.dump(info, handle, fmt=plistlib.FMT_BINARY if binary_plist else plistlib.FMT_XML)
    with open(os.path.join(root, "Contents", "maps", "world.bin"), "wb") as handle:
        handle.write(os.urandom(3 * 1024 * 1024 + 12345))   # incompressible: the zip is as large
    with open(os.path.join(root, "Contents", "readme.txt"), "w") as handle:
        handle.write(f"Offline maps {version}\n")


def prepare(work):
    os.makedirs(work, exist_ok=True)
    cc.prepare(os.path.join(work, "chain"))
    with open(os.path.join(work, "secrets.json"), "w") as handle:
        json.dump({"stripe_key": "sk_test_" + secrets.token_hex(24),
                   "webhook_secret": "whsec_" + base64.b64encode(os.urandom(24)).decode()}, handle)
    for name, body in (("marketplace.json", marketplace_catalog()), ("weather.json", weather_catalog())):
        with open(os.path.join(work, name), "w") as handle:
            json.dump(body, handle)
    # 1.0 as a folder with an XML plist naming the catalog id; 1.1 as a Finder-style zip (one wrapping
    # folder, __MACOSX/) with a binary plist naming the App Store product id, as Xcode writes it.
    content_folder(os.path.join(work, "maps-1.0"), "1.0", "weather.maps", binary_plist=False)
    staging = os.path.join(work, "maps-1.1-staging", "Maps")
    content_folder(staging, "1.1", f"{WEATHER_BUNDLE}.maps", binary_plist=True)
    with zipfile.ZipFile(os.path.join(work, "maps-1.1.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
        for folder, _, files in os.walk(staging):
            for name in files:
                path = os.path.join(folder, name)
                archive.write(path, os.path.join("Maps", os.path.relpath(path, staging)))
        archive.writestr("__MACOSX/Maps/._ContentInfo.plist", b"\0\5\26\7")
    shutil.rmtree(os.path.join(work, "maps-1.1-staging"))


# MARK: Talking to Souk and to the fake

class Stripe:
    def __init__(self, url):
        self.url = url

    def control(self, what, body=None, ok=True):
        status, _, answer = request("POST", f"{self.url}/_control/{what}", body or {})
        if ok:
            expect(status == 200, f"fake Stripe {what}: {status} {answer[:300]!r}")
        return json.loads(answer or b"{}")

    def sent(self, what, body):
        """Runs a control that sends webhooks; every one of them must have been accepted by Souk."""
        answer = self.control(what, body)
        for delivery in answer.get("sent", []):
            expect(delivery["status"] == 200, f"Souk answered {delivery['status']} to Stripe's {delivery['type']}")
        return answer

    def session(self, url):
        session_id = url.rsplit("/", 1)[1]
        found = [s for s in self.control("state")["sessions"] if s["id"] == session_id]
        expect(len(found) == 1, f"the fake has no session {session_id}")
        return found[0]


class Person:
    def __init__(self, base, email, token):
        self.base, self.email, self.token = base, email, token
        self.auth = {"Authorization": f"Bearer {token}"}
        self.device = secrets.token_hex(8)

    def call(self, method, path, body=None, headers=None):
        status, answer_headers, answer = request(method, self.base + path, body, {**self.auth, **(headers or {})})
        try:
            parsed = json.loads(answer) if answer else None
        except ValueError:
            parsed = answer
        return status, answer_headers, parsed

    def checkout(self, **body):
        status, _, answer = self.call("POST", "/api/v1/checkout", body)
        return status, answer

    def purchases(self):
        status, _, answer = self.call("GET", "/api/v1/purchases")
        expect(status == 200 and isinstance(answer, list), f"purchases: {status} {answer}")
        return answer

    def apps_request(self, kind, apps):
        return self.call("POST", f"/marketplace-kit/v1/{kind}",
                         {"apps": [{"appleItemId": app, "appleVersionId": version} for app, version in apps.items()],
                          "platform": "iOS", "osVersion": "18.0"})


def problem(status, answer, code, kind, where):
    """A 402 (or other) problem whose type ends in `kind`, with a purchaseURL for 402s."""
    if isinstance(answer, bytes):
        answer = json.loads(answer)
    expect(status == code, f"{where}: expected {code}, got {status} {answer}")
    expect(str(answer.get("type", "")).endswith(kind), f"{where}: expected a {kind} problem, got {answer}")
    expect(answer.get("status") == code, f"{where}: the problem's status is {answer.get('status')}")
    if code == 402:
        expect(str(answer.get("purchaseURL", "")).startswith("http"), f"{where}: purchaseURL {answer.get('purchaseURL')}")
    return answer


class Licensing:
    def __init__(self, base):
        self.market = lc.Marketplace(base)

    def license(self, person, apps):
        status, answer = self.market.license(person.device, apps, person.token)
        return status, (json.loads(answer) if isinstance(answer, bytes) else answer)

    def licensed(self, person, app):
        """The license id a 200 answer grants for `app`."""
        status, answer = self.license(person, {app: LATEST[app]})
        expect(status == 200, f"{person.email} license for {app}: {status} {answer}")
        granted = self.market.licenses(answer["license"])["licenses"]
        expect([entry["appleItemId"] for entry in granted] == [app], f"license payload: {granted}")
        return int(granted[0]["licenseId"])

    def refused(self, person, app, kind):
        status, answer = self.license(person, {app: LATEST[app]})
        answer = problem(status, answer, 402, kind, f"{person.email} license for {app}")
        expect(answer["purchaseURL"].endswith(f"/apps/{app}"), f"purchaseURL names the app's page: {answer}")

    def renewal(self, person, license_id):
        status, answer = self.market.renew(person.device, [license_id], person.token)
        expect(status == 200, f"renewal: {status} {answer}")
        return answer


def entries(purchases, kind, **match):
    return [p for p in purchases if p["kind"] == kind and all(p.get(k) == v for k, v in match.items())]


# MARK: The check

def not_paid(people, licensing):
    buyer = people["buyer"]
    # License: the paid app alone is a 402; beside an app the account may have, it is listed.
    licensing.refused(buyer, WEATHER, "purchase-required")
    status, answer = licensing.license(buyer, {WEATHER: LATEST[WEATHER], STUDIO: LATEST[STUDIO]})
    expect(status == 200 and answer["unlicensedApps"] == [WEATHER], f"license of a paid and a free app: {status} {answer}")
    licensing.refused(buyer, NOTES, "purchase-required")   # included with a membership it never had
    # Restore and updates: the same rule.
    for kind, versions in (("restore", LATEST), ("updates", OLDER)):
        status, headers, answer = buyer.apps_request(kind, {WEATHER: versions[WEATHER]})
        problem(status, answer, 402, "purchase-required", f"{kind} of a paid app")
        expect(headers.get("Content-Type", "").startswith("application/problem+json"), f"{kind}: {headers.get('Content-Type')}")
        status, _, answer = buyer.apps_request(kind, {WEATHER: versions[WEATHER], STUDIO: versions[STUDIO]})
        expect(status == 200, f"{kind} of a paid and a free app: {status} {answer}")
        failures = answer.get("failures", [])
        expect(len(failures) == 1 and failures[0]["appleItemId"] == WEATHER and failures[0]["failure"]["code"] == 402
               and failures[0]["failure"]["purchaseURL"].endswith(f"/apps/{WEATHER}") and failures[0]["failure"].get("description"),
               f"{kind}: the paid app as a 402 failure: {failures}")
        offered = answer.get("restores" if kind == "restore" else "updates", [])
        expect([item["appleItemId"] for item in offered] == [STUDIO], f"{kind}: the free app is still answered: {offered}")
    print("selling: 402 on license, restore and updates; refused apps listed beside the others")


def checkout_refusals(base, people):
    buyer = people["buyer"]
    status, _, _ = request("POST", f"{base}/api/v1/checkout", {"appleItemId": WEATHER})
    expect(status == 401, f"checkout without a token: {status}")
    status, _, _ = request("POST", f"{base}/api/v1/checkout", b"{not json", dict(buyer.auth))
    expect(status == 400, f"checkout of garbage: {status}")
    expect(buyer.checkout(appleItemId=WEATHER, productId="club.monthly")[0] == 400, "checkout of two things")
    expect(buyer.checkout(appleItemId="9999999999")[0] == 404, "checkout of an unknown app")
    expect(buyer.checkout(productId="no.such.plan")[0] == 404, "checkout of an unknown plan")
    problem(*buyer.checkout(appleItemId=STUDIO), 409, "already-owned", "checkout of a free app")
    problem(*buyer.checkout(appleItemId=NOTES), 422, "not-for-sale", "checkout of a membership-only app")
    print("selling: checkout refusals 401, 400, 404, 409 already-owned, 422 not-for-sale")


def stripe_app(base, souk_bin, device_bin, work, people, licensing, stripe):
    buyer = people["buyer"]
    seen_before = len(stripe.control("state")["requests"])   # the fake may have served an earlier run
    # An outage is not a verdict: 503, nothing charged; then the same checkout is made with the same key.
    stripe.control("config", {"down": 503})
    problem(*buyer.checkout(appleItemId=WEATHER, currency="EUR"), 503, "processor-unavailable", "checkout during a Stripe outage")
    stripe.control("config", {"down": None})
    status, first = buyer.checkout(appleItemId=WEATHER, currency="EUR")
    expect(status == 201 and first["url"].startswith(stripe.url + "/c/pay/cs_"), f"checkout: {status} {first}")
    status, again = buyer.checkout(appleItemId=WEATHER, currency="EUR")
    expect(status == 201 and again == first, f"asking again answers the same order: {again} vs {first}")
    creations = [r for r in stripe.control("state")["requests"][seen_before:] if r["path"] == "/v1/checkout/sessions"]
    keys = {r["idempotency_key"] for r in creations}
    expect(len(creations) >= 2 and creations[-1]["answered"] == 200 and len(keys) == 1 and None not in keys,
           f"the failed (retried) and the successful creations share one idempotency key: {[(r['idempotency_key'], r['answered']) for r in creations]}")
    form = creations[-1]["form"]
    item = form["line_items"][0]
    expect(form["mode"] == "payment" and item["price_data"]["currency"] == "eur" and item["price_data"]["unit_amount"] == "189"
           and item["quantity"] == "1" and form["metadata"]["souk_order"] == first["orderId"]
           and form["client_reference_id"] == first["orderId"], f"the session's form: {form}")
    licensing.refused(buyer, WEATHER, "purchase-required")   # an open order opens nothing

    # A delayed payment method that fails: nothing is granted; a new checkout is a new order.
    stripe.sent("pay", {"session": first["url"].rsplit("/", 1)[1], "payment_status": "unpaid"})
    licensing.refused(buyer, WEATHER, "purchase-required")
    stripe.sent("async", {"session": first["url"].rsplit("/", 1)[1], "outcome": "failed"})
    status, second = buyer.checkout(appleItemId=WEATHER, currency="EUR")
    expect(status == 201 and second["orderId"] != first["orderId"] and second["url"] != first["url"],
           f"after a failed payment a new order: {second} vs {first}")

    # Paid, with tax: the next license request sees it at once (the webhook was answered before).
    paid = stripe.sent("pay", {"session": second["url"].rsplit("/", 1)[1], "tax": 38})
    license_id = licensing.licensed(buyer, WEATHER)
    completed = [s for s in paid["sent"] if s["type"] == "checkout.session.completed"][0]
    expect(stripe.control("replay", {"event": completed["id"]})["status"] == 200, "a replayed webhook is acknowledged")
    session = paid["session"]
    for how in ({"signature": "wrong-secret"}, {"age": 400}, {"signature": "tampered"}):
        answer = stripe.control("send", {"type": "checkout.session.completed", "object": session, **how})
        expect(answer["status"] == 400, f"a forged or stale webhook {how}: {answer}")
    bought = entries(buyer.purchases(), "purchase", appleItemId=WEATHER)
    expect(len(bought) == 1 and bought[0]["amount"] == 189 + 38 and bought[0]["currency"] == "EUR"
           and bought[0]["environment"] == "Production", f"one purchase, as charged (tax included): {bought}")
    problem(*buyer.checkout(appleItemId=WEATHER), 409, "already-owned", "checkout of a bought app")

    # Installed from a link the operator makes, by a device.
    link = souk(souk_bin, "links", "install", "--account", buyer.email, "--apple-item-id", WEATHER).stdout
    link = next(word for word in link.split() if word.startswith("marketplace-kit://"))
    run = subprocess.run([device_bin, "install", "--state", os.path.join(work, "device-buyer"), link],
                         capture_output=True, text=True, timeout=120)
    expect(run.returncode == 0 and f"installed {WEATHER}" in run.stdout + run.stderr, f"souk-device install: {run.stdout}{run.stderr}")

    # Refunds: a partial one keeps the app; the rest takes it at the next renewal.
    stripe.sent("refund", {"session": session["id"], "amount": 50})
    expect(licensing.renewal(buyer, license_id)["ineligibleLicenses"] == [], "a partial refund keeps the app")
    refunds = entries(buyer.purchases(), "refund", appleItemId=WEATHER)
    expect([r["amount"] for r in refunds] == [-50], f"the partial refund listed: {refunds}")
    stripe.sent("refund", {"session": session["id"]})
    expect(licensing.renewal(buyer, license_id)["ineligibleLicenses"] == [str(license_id)], "a refunded app is not renewed")
    licensing.refused(buyer, WEATHER, "purchase-required")
    refunds = entries(buyer.purchases(), "refund", appleItemId=WEATHER)
    expect(sum(r["amount"] for r in refunds) == -(189 + 38), f"refunded in full: {refunds}")
    print("selling: Stripe app checkout: outage, idempotency, failed and paid payments, replays and forgeries, install, refunds")


def stripe_plan(people, licensing, stripe):
    buyer = people["buyer"]
    status, plan = buyer.checkout(productId="club.monthly")
    expect(status == 201 and plan["url"].startswith(stripe.url + "/c/pay/cs_"), f"plan checkout: {status} {plan}")
    expect(buyer.checkout(productId="club.monthly") == (201, plan), "asking again answers the same plan checkout")
    form = stripe.session(plan["url"])
    expect(form["mode"] == "subscription" and form["line_items"][0]["price_data"]["recurring"]["interval"] == "month",
           f"a subscription session by the month: {form}")
    licensing.refused(buyer, NOTES, "purchase-required")   # pending: opens nothing
    started = stripe.sent("pay", {"session": form["id"], "invoice_first": True})   # Stripe does not order events
    licensing.licensed(buyer, NOTES)
    problem(*buyer.checkout(productId="club.monthly"), 409, "already-owned", "checkout of a running plan")
    renewed = stripe.sent("renew", {"subscription": started["subscription"]})
    stripe.control("replay", {"event": renewed["sent"][0]["id"]})
    purchases = buyer.purchases()
    expect(len(entries(purchases, "purchase", productId="club.monthly")) == 1
           and [r["amount"] for r in entries(purchases, "renewal", productId="club.monthly")] == [399],
           f"the plan's purchase and one renewal: {purchases}")
    stripe.sent("renew", {"subscription": started["subscription"], "fail": True})
    licensing.licensed(buyer, NOTES)   # billing retry: access ends with the paid period, not before
    stripe.sent("refund", {"invoice": renewed["invoice"]})
    licensing.refused(buyer, NOTES, "subscription-expired")
    expect([r["amount"] for r in entries(buyer.purchases(), "refund", productId="club.monthly")] == [-399],
           "the refunded invoice listed")
    stripe.sent("cancel", {"subscription": started["subscription"]})
    licensing.refused(buyer, NOTES, "subscription-expired")
    print("selling: Stripe membership: pending, events out of order, renewal replayed, failed renewal, refund, end")


def sandbox(souk_bin, people, licensing, stripe):
    tester, buyer = people["tester"], people["buyer"]
    sessions_before = len(stripe.control("state")["sessions"])
    status, order = tester.checkout(appleItemId=WEATHER)
    expect(status == 201 and f"/apps/{WEATHER}" in order["url"], f"a sandbox checkout goes to the app's page: {status} {order}")
    license_id = licensing.licensed(tester, WEATHER)
    status, _ = tester.checkout(productId="club.monthly")
    expect(status == 201, f"sandbox plan: {status}")
    licensing.licensed(tester, NOTES)
    expect(len(stripe.control("state")["sessions"]) == sessions_before, "sandbox accounts never reach Stripe")

    def renewals():
        return len(entries(tester.purchases(), "renewal", productId="club.monthly"))

    souk(souk_bin, "sandbox", "advance", "--minutes", "31")   # a month is five minutes: six renewals
    eventually(lambda: renewals() == 6, f"six renewals after 31 sandbox minutes (saw {renewals()})")
    licensing.licensed(tester, NOTES)
    souk(souk_bin, "sandbox", "advance", "--minutes", "40")   # past the twelfth
    eventually(lambda: renewals() == 12, f"twelve renewals (saw {renewals()})")
    eventually(lambda: licensing.license(tester, {NOTES: LATEST[NOTES]})[0] == 402, "the plan stops after 12 renewals")
    licensing.refused(tester, NOTES, "subscription-expired")
    souk(souk_bin, "sandbox", "advance", "--minutes", "60")
    time.sleep(2.5)
    expect(renewals() == 12, f"never a 13th renewal (saw {renewals()})")
    purchases = tester.purchases()
    expect(all(p["environment"] == "Sandbox" for p in purchases) and
           [p["amount"] for p in entries(purchases, "renewal")] == [399] * 12, f"sandbox receipts: {purchases}")

    # A failed renewal with a grace period: access kept for one period, then it lapses.
    status, _ = tester.checkout(productId="club.monthly")
    expect(status == 201, f"subscribing again: {status}")
    souk(souk_bin, "sandbox", "fail-renewal", "--account", tester.email, "--product", "club.monthly", "--grace")
    souk(souk_bin, "sandbox", "advance", "--minutes", "6")
    time.sleep(2.5)
    licensing.licensed(tester, NOTES)
    souk(souk_bin, "sandbox", "advance", "--minutes", "6")
    eventually(lambda: licensing.license(tester, {NOTES: LATEST[NOTES]})[0] == 402, "the grace period ends")
    licensing.refused(tester, NOTES, "subscription-expired")

    # A refund of the sandbox app: gone at the next renewal.
    souk(souk_bin, "sandbox", "refund", "--account", tester.email, "--apple-item-id", WEATHER)
    expect(licensing.renewal(tester, license_id)["ineligibleLicenses"] == [str(license_id)], "a refunded sandbox app is not renewed")
    expect(entries(tester.purchases(), "refund", appleItemId=WEATHER), "the sandbox refund is listed")

    # Clearing: refused for a production account (untouched), done for the sandbox one.
    before = buyer.purchases()
    run = souk(souk_bin, "sandbox", "clear", "--account", buyer.email, ok=False)
    expect(run.returncode != 0 and buyer.purchases() == before, f"clear of a production account: {run.returncode} {run.stderr}")
    souk(souk_bin, "sandbox", "clear", "--account", tester.email)
    expect(tester.purchases() == [], "a cleared sandbox account has no history")
    print("selling: sandbox: development checkout, 12 compressed renewals then stop, grace period, refund, clear")


def hosted_content(base, souk_bin, device_bin, work, people):
    buyer, other = people["buyer"], people["other"]
    # The buyer buys the maps in the App Store (a StoreKit 2 transaction signed by a test chain).
    chain = cc.load_chain(os.path.join(work, "chain"))
    now = dt.datetime.now(UTC)
    transaction_id = str(2000000000000000 + secrets.randbelow(10 ** 12))
    jws = chain.sign(cc.applechain.transaction(WEATHER_BUNDLE, f"{WEATHER_BUNDLE}.maps", environment="Production", signed=now,
                                               transaction_id=transaction_id, type="Non-Consumable", expiresDate=None,
                                               subscriptionGroupIdentifier=None))
    event = {"specversion": "1.0", "type": "com.applicaster.payment.validate", "source": f"weather://{WEATHER_BUNDLE}",
             "id": str(uuid.uuid4()), "time": now.isoformat(), "datacontenttype": "application/json",
             "data": {"transaction": {"storeProductId": f"{WEATHER_BUNDLE}.maps", "transactionId": transaction_id, "receipt": jws},
                      "productId": "weather.maps", "store": "apple_store", "platform": "ios"}}
    headers, body = cc.encode(event, "structured")
    status, _, answer = request("POST", f"{base}/commerce/{WEATHER_BUNDLE}/transactions", body, {**headers, **buyer.auth})
    expect(status == 201, f"the maps bought in the App Store: {status} {answer[:300]!r}")

    prefix = f"/commerce/{WEATHER_BUNDLE}/content/weather.maps"
    status, _, _ = request("GET", base + prefix + "/manifest.json")
    expect(status == 401, f"content without a token: {status}")
    for path in ("/manifest.json", "", "/1.0"):
        status, _, answer = other.call("GET", prefix + path)
        problem(status, answer, 403, "not-entitled", f"content{path} for an account that did not buy it")
    status, _, manifest = buyer.call("GET", prefix + "/manifest.json")
    expect(status == 200 and [v["contentVersion"] for v in manifest["versions"]] == ["1.1", "1.0"], f"manifest: {status} {manifest}")
    newest = manifest["versions"][0]

    # An interrupted download: the connection drops after 1 MiB; the rest comes with Range + If-Range.
    url = urllib.parse.urlsplit(base)
    connection = socket.create_connection((url.hostname, url.port))
    connection.sendall(f"GET {prefix} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {buyer.token}\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received or len(received.split(b"\r\n\r\n", 1)[1]) < 1024 * 1024:
        chunk = connection.recv(65536)
        expect(chunk, "the download ended early")
        received += chunk
    connection.close()
    head, partial = received.split(b"\r\n\r\n", 1)
    partial = partial[:1024 * 1024]
    lines = head.decode().split("\r\n")
    expect(lines[0].startswith("HTTP/1.1 200"), f"the download: {lines[0]}")
    fields = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in lines[1:]}
    etag = fields["etag"]
    expect(int(fields["content-length"]) == newest["size"] and etag.strip('"') == newest["sha256"], f"download headers: {fields}")
    status, headers, rest = request("GET", base + prefix, None, {**buyer.auth, "Range": f"bytes={len(partial)}-", "If-Range": etag})
    expect(status == 206 and headers["Content-Range"] == f"bytes {len(partial)}-{newest['size'] - 1}/{newest['size']}",
           f"the resumed download: {status} {headers.get('Content-Range')}")
    expect(hashlib.sha256(partial + rest).hexdigest() == newest["sha256"], "the resumed zip's SHA-256 is the manifest's")
    status, headers, _ = request("GET", base + prefix, None, {**buyer.auth, "Range": "bytes=0-", "If-Range": '"' + "0" * 64 + '"'})
    expect(status == 200, f"a resume against another version's ETag gets the whole file: {status}")

    # souk-device: paused after 700 kB, resumed, digest checked.
    state, out = os.path.join(work, "content-device"), os.path.join(work, "content-out")
    run = subprocess.run([device_bin, "content", "download", base + prefix + "/1.0", "--token", buyer.token, "--state", state,
                          "--out", out, "--stop-after-bytes", "700000"], capture_output=True, text=True, timeout=120)
    expect("paused" in (run.stdout + run.stderr).lower(), f"souk-device paused: {run.returncode} {run.stdout}{run.stderr}")
    run = subprocess.run([device_bin, "content", "download", base + prefix + "/1.0", "--token", buyer.token, "--state", state,
                          "--out", out], capture_output=True, text=True, timeout=120)
    expect(run.returncode == 0 and "finished" in (run.stdout + run.stderr).lower(), f"souk-device resumed: {run.returncode} {run.stdout}{run.stderr}")
    zips = [name for name in os.listdir(out) if name.endswith(".zip")]
    expect(len(zips) == 1, f"one zip out: {zips}")
    with open(os.path.join(out, zips[0]), "rb") as handle:
        expect(hashlib.sha256(handle.read()).hexdigest() == manifest["versions"][1]["sha256"], "souk-device's zip is version 1.0")
    run = subprocess.run([device_bin, "content", "download", base + prefix, "--token", other.token, "--state",
                          os.path.join(work, "content-other"), "--out", os.path.join(work, "content-other-out")],
                         capture_output=True, text=True, timeout=120)
    expect(run.returncode != 0, f"souk-device for an account that did not buy it fails: {run.stdout}{run.stderr}")
    print("selling: hosted content: 401/403, manifest, interrupted download resumed, souk-device paused and resumed")


def check(base, work, souk_bin, device_bin, stripe_url):
    stripe = Stripe(stripe_url)
    stripe.control("config", {"webhook_url": base + "/webhooks/stripe"})
    souk(souk_bin, "catalog", "apply", os.path.join(work, "marketplace.json"))
    souk(souk_bin, "catalog", "apply", os.path.join(work, "weather.json"))
    souk(souk_bin, "apps", "set-price", "--apple-item-id", WEATHER, "--amount", "199", "--currency", "USD", "--amount", "189", "--currency", "EUR")
    souk(souk_bin, "apps", "set-price", "--apple-item-id", NOTES, "--requires-entitlement", "club")
    for package in ("maps-1.0", "maps-1.1.zip"):
        souk(souk_bin, "content", "import", os.path.join(work, package), "--app", WEATHER_BUNDLE)
    people = {}
    for name in ("buyer", "other", "tester"):
        email = f"{name}-{secrets.token_hex(3)}@selling.example"
        souk(souk_bin, "accounts", "create", "--email", email, "--password", PASSWORD, *(["--sandbox"] if name == "tester" else []))
        people[name] = Person(base, email, sign_in(base, email, PASSWORD))
    licensing = Licensing(base)
    not_paid(people, licensing)
    checkout_refusals(base, people)
    stripe_app(base, souk_bin, device_bin, work, people, licensing, stripe)
    stripe_plan(people, licensing, stripe)
    sandbox(souk_bin, people, licensing, stripe)
    hosted_content(base, souk_bin, device_bin, work, people)
    print("selling check: OK")


if __name__ == "__main__":
    if sys.argv[1:2] == ["prepare"]:
        prepare(sys.argv[2])
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 7:
        check(*sys.argv[2:7])
    else:
        fail(__doc__)
