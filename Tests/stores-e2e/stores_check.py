#!/usr/bin/env python3
"""Every store, every change, checked from outside against a running `souk serve` whose store base
URLs point at `fakestores.py` (Google, Amazon, Roku and webhook receivers, written from the stores'
documentation) — the way an operator configures it and apps and stores use it:

- the operator applies a catalog with a `stores` block (secrets by file), adds a webhook endpoint,
  and never sees a secret in any output;
- Amazon: a purchase without `userId` is a 400; with it, verified at RVS; an RVS outage during intake
  answers 202 and ends in one grant once RVS is back;
- Roku: a subscription in recovery (entitled, expiry past) keeps access;
- Amazon Real-Time Notifications over SNS: the subscription confirmed at its SubscribeURL, a signed
  notification read again at RVS (once, however often SNS delivers it), a forged one a 403;
- Roku push notifications: acknowledged with the partner API key only for a transaction Roku confirms;
- Google: the service account's JWT bearer grant, subscriptionsv2, the acknowledgement made by
  Souk's worker, RTDN (a wrong token is a 401; a renewal fetched again; a voided purchase revoked);
- Apple: App Store Server Notifications V2 signed by an Apple-shaped chain made here (DID_RENEW,
  REFUND, a replay, a tampered payload);
- webhooks: every delivery signed `Souk-Signature: t=…,v1=HMAC-SHA256("t.body")`, a failed delivery
  retried under the same event id, no event delivered twice once accepted;
- the customer endpoint and `souk purchases events`.

    stores_check.py prepare WORK
    stores_check.py check BASE WORK SOUK FAKES_URL
Run by scripts/e2e-stores.sh.
"""
import base64, datetime as dt, hashlib, hmac, importlib.util, json, os, secrets, sys, time, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("commerce_check", os.path.join(HERE, "..", "..", "scripts", "commerce-check.py"))
cc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cc)
applechain = cc.applechain
request, expect, fail, souk, sign_in = cc.request, cc.expect, cc.fail, cc.souk, cc.sign_in

APP = "org.souk.check.stores"
APP_APPLE_ID = 1234567890
PACKAGE = "org.souk.check.stores.android"
UTC = dt.timezone.utc
WEBHOOK_SECRET = "whsec-" + "e2e-webhook-secret-0123456789"


def ms(moment):
    return int(moment.timestamp() * 1000)


def now():
    return dt.datetime.now(UTC)


def eventually(check, message, seconds=15.0):
    deadline = time.time() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.time() > deadline:
            fail(message)
        time.sleep(0.25)


def catalog(work):
    return {
        "app": APP,
        "entitlements": [{"id": "premium", "title": "Premium"}],
        "stores": {
            "apple_store": {"bundleId": APP, "appAppleId": APP_APPLE_ID},
            "google_play": {"packageName": PACKAGE, "serviceAccountPath": os.path.join(work, "google-service-account.json"),
                            "rtdnTokenPath": os.path.join(work, "rtdn-token")},
            "amazon": {"sharedSecretPath": os.path.join(work, "amazon-secret")},
            "roku": {"partnerApiKeyEnv": "SOUK_E2E_ROKU_KEY"},
        },
        "products": [
            {"id": "stores.monthly", "type": "auto-renewable", "group": "plans", "level": 1, "period": "P1M",
             "title": {"en-US": "Monthly"}, "description": {"en-US": "Everything, monthly"},
             "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["premium"],
             "skus": {"apple_store": f"{APP}.monthly", "google_play": "monthly", "amazon": "stores.monthly.term",
                      "roku": "stores-monthly"}},
            {"id": "stores.book", "type": "non-consumable", "title": {"en-US": "A book"}, "description": {"en-US": "One book"},
             "prices": [{"currency": "USD", "amount": 299}],
             "skus": {"apple_store": f"{APP}.book", "google_play": "book", "amazon": "stores.book", "roku": "stores-book"}},
        ],
    }


def prepare(work):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    os.makedirs(work, exist_ok=True)
    cc.prepare(os.path.join(work, "chain"))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    with open(os.path.join(work, "google-service-account.json"), "w") as handle:
        json.dump({"type": "service_account", "project_id": "souk-e2e", "private_key_id": secrets.token_hex(20),
                   "private_key": pem, "client_email": "souk-e2e@souk-e2e.iam.gserviceaccount.com",
                   # Never trusted: the token URL is Souk's setting.
                   "token_uri": "https://token.invalid/token"}, handle)
    with open(os.path.join(work, "google-public.pem"), "wb") as handle:
        handle.write(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    values = {"amazon": "amz-secret-" + secrets.token_hex(12), "roku": "roku-key-" + secrets.token_hex(12),
              "rtdn": "rtdn-" + secrets.token_hex(12), "package": PACKAGE}
    for name, value in (("amazon-secret", values["amazon"]), ("rtdn-token", values["rtdn"])):
        with open(os.path.join(work, name), "w") as handle:
            handle.write(value + "\n")
    with open(os.path.join(work, "secrets.json"), "w") as handle:
        json.dump(values, handle)
    with open(os.path.join(work, "catalog.json"), "w") as handle:
        json.dump(catalog(work), handle)


# MARK: Talking to the fakes and to Souk

class Fakes:
    def __init__(self, url):
        self.url = url

    def control(self, what, body=None):
        status, _, answer = request("POST", f"{self.url}/_control/{what}", body or {})
        expect(status == 200, f"fake control {what}: {status} {answer!r}")
        return json.loads(answer or b"{}")

    def state(self):
        return self.control("state")


def cloud_event(store, product_id, sku, transaction_id, receipt=None, user_id=None, platform=None):
    transaction = {"storeProductId": sku, "transactionId": transaction_id}
    if receipt is not None:
        transaction["receipt"] = receipt
    if user_id is not None:
        transaction["userId"] = user_id
    return {"specversion": "1.0", "type": "com.applicaster.payment.validate", "source": f"stores-check://{APP}",
            "id": str(uuid.uuid4()), "time": now().isoformat(), "datacontenttype": "application/json",
            "data": {"transaction": transaction, "productId": product_id, "store": store,
                     "platform": platform or {"google_play": "android", "amazon": "amazon_fire_tv", "roku": "roku"}.get(store, "ios")}}


def post_event(base, token, event):
    headers, body = cc.encode(event, "structured")
    headers["Authorization"] = f"Bearer {token}"
    return request("POST", f"{base}/commerce/{APP}/transactions", body, headers)


def entitled(base, token, name):
    return request("GET", f"{base}/commerce/{APP}/entitlement/{name}", headers={"Authorization": f"Bearer {token}"})[0] == 200


def hooks(fakes, name="dev"):
    return fakes.state()["hooks"].get(name, [])


def accepted_events(fakes):
    """The events the receiver answered 2xx to, by id (the first accepted copy)."""
    seen = {}
    for delivery in hooks(fakes):
        event = json.loads(delivery["body"])
        seen.setdefault(event["id"], event)
    return seen


def verify_signature(delivery):
    header = {k.lower(): v for k, v in delivery["headers"].items()}.get("souk-signature", "")
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    expect("t" in parts and "v1" in parts, f"Souk-Signature header: {header!r}")
    expected = hmac.new(WEBHOOK_SECRET.encode(), f"{parts['t']}.{delivery['body']}".encode(), hashlib.sha256).hexdigest()
    expect(hmac.compare_digest(expected, parts["v1"]), "a webhook signature does not verify")
    expect(abs(int(parts["t"]) - time.time()) < 600, "the signature's timestamp is not current")


def notification(chain, kind, subtype, transaction_jws, renewal_jws=None, status=None, uuid_=None):
    data = {"environment": "Production", "appAppleId": APP_APPLE_ID, "bundleId": APP, "bundleVersion": "1",
            "signedTransactionInfo": transaction_jws}
    if renewal_jws:
        data["signedRenewalInfo"] = renewal_jws
    if status is not None:
        data["status"] = status
    payload = {"notificationType": kind, "notificationUUID": uuid_ or str(uuid.uuid4()), "data": data, "version": "2.0",
               "signedDate": ms(now())}
    if subtype:
        payload["subtype"] = subtype
    return chain.sign(payload)


def apple_transaction(chain, transaction_id, original, expires, purchased):
    payload = applechain.transaction(APP, f"{APP}.monthly", environment="Production", signed=now(), transaction_id=transaction_id,
                                     type="Auto-Renewable Subscription", expiresDate=ms(expires))
    payload.update(originalTransactionId=original, purchaseDate=ms(purchased), subscriptionGroupIdentifier="plans")
    return chain.sign(payload)


def apple_renewal(chain, original, auto_renew=1):
    return chain.sign({"originalTransactionId": original, "autoRenewProductId": f"{APP}.monthly", "productId": f"{APP}.monthly",
                       "autoRenewStatus": auto_renew, "environment": "Production", "signedDate": ms(now()),
                       "recentSubscriptionStartDate": ms(now() - dt.timedelta(days=30))})


def google_subscription(token, order, expires, state="SUBSCRIPTION_STATE_ACTIVE", acknowledged=False, linked=None):
    answer = {"_token": token, "kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US",
              "startTime": (now() - dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
              "subscriptionState": state, "latestOrderId": order,
              "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" if acknowledged else "ACKNOWLEDGEMENT_STATE_PENDING",
              "lineItems": [{"productId": "monthly", "expiryTime": expires.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                             "autoRenewingPlan": {"autoRenewEnabled": state == "SUBSCRIPTION_STATE_ACTIVE"},
                             "offerDetails": {"basePlanId": "monthly", "offerTags": []}}]}
    if linked:
        answer["linkedPurchaseToken"] = linked
    return answer


def rtdn(base, token, message_id, notification):
    envelope = {"message": {"data": base64.b64encode(json.dumps(notification).encode()).decode(), "messageId": message_id,
                            "publishTime": now().isoformat()}, "subscription": "projects/souk-e2e/subscriptions/souk-rtdn"}
    url = f"{base}/commerce/{APP}/google/rtdn" + (f"?token={token}" if token is not None else "")
    return request("POST", url, envelope)


def check(base, work, souk_bin, fakes_url):
    fakes = Fakes(fakes_url)
    values = json.load(open(os.path.join(work, "secrets.json")))
    chain = cc.load_chain(os.path.join(work, "chain"))
    catalog_path = os.path.join(work, "catalog.json")

    # The operator: the catalog with its stores block, a webhook endpoint; no secret in any output.
    outputs = [souk(souk_bin, "catalog", "apply", catalog_path).stdout,
               souk(souk_bin, "catalog", "show", APP).stdout,
               souk(souk_bin, "webhooks", "add", "--app", APP, "--url", f"{fakes_url}/hooks/dev", "--secret", WEBHOOK_SECRET).stdout,
               souk(souk_bin, "webhooks", "list", "--app", APP).stdout,
               souk(souk_bin, "stores", "status", "--app", APP).stdout]
    shown = json.loads(outputs[1])
    expect(shown["stores"]["amazon"] == {"sharedSecretPath": os.path.join(work, "amazon-secret")}, f"catalog show stores: {shown.get('stores')}")
    fakes.control("hook-failures", {"name": "dev", "count": 1})
    for email in ("buyer@example.com", "second@example.com"):
        souk(souk_bin, "accounts", "create", "--email", email, "--password", "stores check password")
    buyer = sign_in(base, "buyer@example.com", "stores check password")
    second = sign_in(base, "second@example.com", "stores check password")

    # Amazon: userId is mandatory; a subscription verified at RVS.
    renewal = now() + dt.timedelta(days=30)
    fakes.control("amazon/receipt", {"receiptId": "amzn-receipt-1", "_userId": "amzn-user-1", "productId": "stores.monthly",
                                     "productType": "SUBSCRIPTION", "purchaseDate": ms(now()), "renewalDate": ms(renewal),
                                     "cancelDate": None, "autoRenewing": True, "quantity": 1, "termSku": "stores.monthly.term",
                                     "term": "1 Month", "testTransaction": False, "betaProduct": False})
    status, _, body = post_event(base, buyer, cloud_event("amazon", "stores.monthly", "stores.monthly.term", "amzn-receipt-1"))
    expect(status == 400, f"Amazon without userId must be a 400: {status} {body!r}")
    status, _, body = post_event(base, buyer, cloud_event("amazon", "stores.monthly", "stores.monthly.term", "amzn-receipt-1",
                                                          user_id="amzn-user-1"))
    expect(status == 201, f"Amazon purchase: {status} {body!r}")
    expect(entitled(base, buyer, "premium"), "the Amazon subscription entitles")

    # Amazon is down during an intake: 202, then one grant once RVS is back.
    fakes.control("amazon/receipt", {"receiptId": "amzn-receipt-2", "_userId": "amzn-user-1", "productId": "stores.book",
                                     "productType": "ENTITLED", "purchaseDate": ms(now()), "cancelDate": None, "quantity": 1,
                                     "testTransaction": False})
    fakes.control("down", {"store": "amazon", "status": 503})
    event = cloud_event("amazon", "stores.book", "stores.book", "amzn-receipt-2", user_id="amzn-user-1")
    status, headers, body = post_event(base, buyer, event)
    expect(status == 202 and headers.get("Location"), f"Amazon down: 202 + Location expected, got {status} {body!r}")
    pending = json.loads(body)["data"]["id"]
    expect(not entitled(base, buyer, "stores.book"), "nothing is granted while the store is down")
    fakes.control("down", {"store": "amazon", "status": None})
    eventually(lambda: entitled(base, buyer, "stores.book"), "the pending Amazon purchase is granted once RVS answers")
    status, _, body = post_event(base, buyer, event)
    expect(status == 201 and json.loads(body)["data"]["id"] == pending, f"the same event answers the same payment: {status} {body!r}")

    # Roku: entitled with an expiry in the past is a subscription in recovery: access kept.
    past = ms(now() - dt.timedelta(days=2))
    fakes.control("roku/transaction", {"transactionId": "roku-tx-1", "productId": "stores-monthly", "isEntitled": True,
                                       "cancelled": False, "purchaseStatus": "Active", "purchaseDate": f"/Date({past - 86_400_000 * 28}+0000)/",
                                       "expirationDate": f"/Date({past}+0000)/", "amount": 4.99, "currency": "USD", "quantity": 1,
                                       "rokuCustomerId": "roku-customer-1"})
    status, _, body = post_event(base, second, cloud_event("roku", "stores.monthly", "stores-monthly", "roku-tx-1"))
    expect(status == 201, f"Roku purchase in recovery: {status} {body!r}")
    expect(entitled(base, second, "premium"), "a Roku subscription in recovery keeps access")
    # A Roku transaction id proves nothing of possession: another account naming it takes nothing.
    status, _, body = post_event(base, buyer, cloud_event("roku", "stores.monthly", "stores-monthly", "roku-tx-1"))
    expect(status == 422 and "owned-by-another-account" in str(body), f"a Roku id claimed by another account: {status} {body!r}")
    expect(entitled(base, second, "premium"), "the Roku purchase stays with its buyer")

    # Amazon Real-Time Notifications over SNS, signed by the fake's SNS key (its certificate URL is allowed by
    # SOUK_AMAZON_SNS_CERT_URL_PATTERN): the confirmation, a renewal read again at RVS, a forgery refused.
    def sns_post(message):
        return request("POST", f"{base}/commerce/{APP}/amazon/notifications", json.dumps(message).encode(),
                       {"Content-Type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": message["Type"]})

    confirmation = fakes.control("sns/sign", {"Type": "SubscriptionConfirmation",
                                              "Message": "You have chosen to subscribe to the topic. To confirm it, visit the SubscribeURL."})
    status, _, body = sns_post(confirmation)
    expect(status == 200 and confirmation["Token"] in fakes.state()["sns_confirmed"], f"SNS confirmation: {status} {body!r}")
    fakes.control("amazon/receipt", {"receiptId": "amzn-receipt-1", "_userId": "amzn-user-1", "productId": "stores.monthly",
                                     "productType": "SUBSCRIPTION", "purchaseDate": ms(now()), "renewalDate": ms(now() + dt.timedelta(days=60)),
                                     "cancelDate": None, "autoRenewing": True, "quantity": 1, "termSku": "stores.monthly.term",
                                     "term": "1 Month", "testTransaction": False, "betaProduct": False})
    rtn = json.dumps({"appPackageName": PACKAGE, "notificationType": "SUBSCRIPTION_RENEWED", "appUserId": "amzn-user-1",
                      "receiptId": "amzn-receipt-1", "relatedReceipts": {}, "timestamp": ms(now()), "betaProductTransaction": False})
    signed = fakes.control("sns/sign", {"Type": "Notification", "Message": rtn, "_version": "2"})
    before = sum(1 for entry in fakes.state()["log"] if entry[0] == "amazon")
    for _ in range(2):  # SNS delivers at least once: the second copy is not read again
        status, _, body = sns_post(signed)
        expect(status == 200, f"Amazon notification: {status} {body!r}")
    # Once (an HTTP client may repeat a request whose answer it lost, hence at most one more).
    read = sum(1 for entry in fakes.state()["log"] if entry[0] == "amazon") - before
    expect(1 <= read <= 2, f"the receipt is read again at RVS once, not {read} times")
    status, _, body = sns_post(dict(signed, Message=rtn.replace("RENEWED", "CANCELLED")))
    expect(status == 403, f"a forged SNS message must be a 403: {status} {body!r}")
    listed = souk(souk_bin, "stores", "notifications", "--app", APP, "--store", "amazon").stdout
    expect("SUBSCRIPTION_RENEWED" in listed and "SubscriptionConfirmation" in listed and "processed" in listed,
           f"souk stores notifications --store amazon: {listed}")
    expect(entitled(base, buyer, "premium"), "the renewed Amazon subscription still entitles")

    # Roku push notifications: unauthenticated, so the key is given only for what Roku confirms.
    response_key = secrets.token_hex(16)
    push = {"transactionType": "Cancellation", "transactionId": "roku-tx-1", "productCode": "stores-monthly",
            "customerId": "roku-customer-1", "eventDate": f"/Date({ms(now())}+0000)/", "responseKey": response_key}
    status, headers, body = request("POST", f"{base}/commerce/{APP}/roku/notifications", push)
    expect(status == 200 and headers.get("ApiKey") == values["roku"] and body.decode() == response_key,
           f"Roku acknowledgement: {status} {body!r}")
    status, headers, body = request("POST", f"{base}/commerce/{APP}/roku/notifications",
                                    dict(push, transactionId="roku-tx-fishing", responseKey=secrets.token_hex(16)))
    expect(status == 400 and headers.get("ApiKey") is None and values["roku"] not in body.decode(),
           f"an unconfirmed Roku notification must be a 400 without the key: {status} {body!r}")

    # Google: a subscription through the service account, acknowledged by Souk's worker.
    token1 = "google-token-" + secrets.token_hex(16)
    fakes.control("google/subscription", google_subscription(token1, "GPA.1111-2222-3333-44444", now() + dt.timedelta(days=30)))
    receipt = json.dumps({"orderId": "GPA.1111-2222-3333-44444", "packageName": PACKAGE, "productId": "monthly",
                          "purchaseToken": token1, "purchaseState": 0, "acknowledged": False})
    google_account = "third@example.com"
    souk(souk_bin, "accounts", "create", "--email", google_account, "--password", "stores check password")
    third = sign_in(base, google_account, "stores check password")
    status, _, body = post_event(base, third, cloud_event("google_play", "stores.monthly", "monthly", "GPA.1111-2222-3333-44444", receipt))
    expect(status == 201, f"Google purchase: {status} {body!r}")
    expect(entitled(base, third, "premium"), "the Google subscription entitles")
    eventually(lambda: fakes.state()["google_subscriptions"][token1]["acknowledgementState"] == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
               "Souk acknowledges the Google purchase")
    # Google has it before Souk's worker writes it down: wait for what Souk recorded too.
    eventually(lambda: "acknowledged" in souk(souk_bin, "purchases", "list", "--account", google_account, "--app", APP).stdout,
               "Souk records the acknowledgement")
    expect(fakes.state()["token_calls"] >= 1, "the service account's token came from Souk's token URL")

    # RTDN: the shared token, a renewal fetched again, a voided purchase revoked.
    renewal_note = {"version": "1.0", "packageName": PACKAGE, "eventTimeMillis": str(ms(now())),
                    "subscriptionNotification": {"version": "1.0", "notificationType": 2, "purchaseToken": token1,
                                                 "subscriptionId": "monthly"}}
    expect(rtdn(base, None, "m-0", renewal_note)[0] == 401, "RTDN without the token must be a 401")
    expect(rtdn(base, "wrong", "m-0", renewal_note)[0] == 401, "RTDN with a wrong token must be a 401")
    fakes.control("google/subscription", google_subscription(token1, "GPA.1111-2222-3333-44444..0", now() + dt.timedelta(days=60),
                                                             acknowledged=True))
    for _ in range(2):  # Pub/Sub delivers at least once: the second copy is ignored
        status, _, body = rtdn(base, values["rtdn"], "m-1", renewal_note)
        expect(status in (200, 204), f"RTDN renewal: {status} {body!r}")
    eventually(lambda: any(e["type"] == "renewal" and e["data"].get("store") == "google_play" for e in accepted_events(fakes).values()),
               "the Google renewal reaches the webhook")
    voided = {"version": "1.0", "packageName": PACKAGE, "eventTimeMillis": str(ms(now())),
              "voidedPurchaseNotification": {"purchaseToken": token1, "orderId": "GPA.1111-2222-3333-44444..0", "productType": 1,
                                             "refundType": 1}}
    status, _, body = rtdn(base, values["rtdn"], "m-2", voided)
    expect(status in (200, 204), f"RTDN voided: {status} {body!r}")
    eventually(lambda: not entitled(base, third, "premium"), "a voided Google purchase ends access")

    # Google one-time products: read through purchases.productsv2, refunded by the operator at Google
    # (`souk purchases refund`: orders.refund with revoke=true), and voided by Google with no RTDN at all
    # (found by the voided-purchases listing of `souk stores reconcile`).
    def google_book(token, order):
        fakes.control("google/product", {"_token": token, "_productId": "book", "_purchaseOptionId": "buy", "_offerId": "launch",
                                         "kind": "androidpublisher#productPurchase", "purchaseTimeMillis": str(ms(now())),
                                         "purchaseState": 0, "consumptionState": 0, "orderId": order, "acknowledgementState": 0,
                                         "quantity": 1, "regionCode": "US"})
        status, _, body = post_event(base, third, cloud_event("google_play", "stores.book", "book", order, token))
        expect(status == 201, f"Google one-time purchase: {status} {body!r}")
        return json.loads(body)["data"]["id"]

    def books_revoked():
        status, _, body = request("GET", f"{base}/commerce/{APP}/customer", headers={"Authorization": f"Bearer {third}"})
        books = [p for p in json.loads(body)["purchases"] if p["productId"] == "stores.book"]
        return [p["revokedAt"] is not None for p in books]

    refund_payment = google_book("google-book-" + secrets.token_hex(16), "GPA.5555-0000-0000-00001")
    refunded = souk(souk_bin, "purchases", "refund", "--id", refund_payment).stdout
    expect("access ended" in refunded, f"souk purchases refund: {refunded}")
    expect(fakes.state()["google_refunds"] == [["GPA.5555-0000-0000-00001", True]], "orders.refund with revoke=true, once")
    voided_token = "google-book-" + secrets.token_hex(16)
    google_book(voided_token, "GPA.5555-0000-0000-00002")
    expect(books_revoked() == [True, False], f"one book refunded, one kept: {books_revoked()}")
    fakes.control("google/void", {"token": voided_token})
    reconciled = souk(souk_bin, "stores", "reconcile", "--app", APP).stdout
    expect("Google Play voided purchases" in reconciled, f"souk stores reconcile lists the voided purchases: {reconciled}")
    expect(books_revoked() == [True, True], f"a purchase Google voided without RTDN is revoked: {books_revoked()}")
    outputs += [refunded, reconciled]

    # Apple: a subscription, then notifications V2.
    apple_account = "fourth@example.com"
    souk(souk_bin, "accounts", "create", "--email", apple_account, "--password", "stores check password")
    fourth = sign_in(base, apple_account, "stores check password")
    original = "4000000000000001"
    first = apple_transaction(chain, original, original, now() + dt.timedelta(days=30), now())
    status, _, body = post_event(base, fourth, cloud_event("apple_store", "stores.monthly", f"{APP}.monthly", original, first))
    expect(status == 201, f"Apple purchase: {status} {body!r}")
    renewed = apple_transaction(chain, "4000000000000002", original, now() + dt.timedelta(days=60), now())
    note = notification(chain, "DID_RENEW", None, renewed, apple_renewal(chain, original), status=1)
    for _ in range(2):  # a replay under the same notificationUUID changes nothing
        status, _, body = request("POST", f"{base}/commerce/{APP}/apple/notifications", {"signedPayload": note})
        expect(status == 200, f"DID_RENEW: {status} {body!r}")
    tampered = note[:-8] + ("AAAAAAAA" if not note.endswith("AAAAAAAA") else "BBBBBBBB")
    status, _, _ = request("POST", f"{base}/commerce/{APP}/apple/notifications", {"signedPayload": tampered})
    expect(400 <= status < 500, f"a tampered notification must be a 4xx: {status}")
    eventually(lambda: any(e["type"] == "renewal" and e["data"].get("transactionId") == "4000000000000002"
                           for e in accepted_events(fakes).values()), "the Apple renewal reaches the webhook")
    refunded = apple_transaction(chain, "4000000000000002", original, now() + dt.timedelta(days=60), now())
    payload = json.loads(base64.urlsafe_b64decode(refunded.split(".")[1] + "=="))
    payload.update(revocationDate=ms(now()), revocationReason=0)
    refund = notification(chain, "REFUND", None, chain.sign(payload), status=5)
    expect(request("POST", f"{base}/commerce/{APP}/apple/notifications", {"signedPayload": refund})[0] == 200, "REFUND accepted")
    eventually(lambda: not entitled(base, fourth, "premium"), "a refunded Apple subscription ends access")

    # Webhooks: signed, the failed first delivery retried under the same id, nothing accepted twice.
    events = eventually(lambda: (lambda got: got if {"initial_purchase", "renewal", "refund"} <= {e["type"] for e in got.values()}
                                 else None)(accepted_events(fakes)), "initial_purchase, renewal and refund events delivered")
    deliveries = hooks(fakes)
    for delivery in deliveries:
        verify_signature(delivery)
    first_id = json.loads(deliveries[0]["body"])["id"]
    expect(sum(1 for d in deliveries if json.loads(d["body"])["id"] == first_id) >= 2, "the delivery answered 500 was retried")
    ids = [json.loads(d["body"])["id"] for d in deliveries[1:]]
    retried_once = ids.count(first_id) == 1
    expect(retried_once and len(ids) == len(set(ids)), f"an accepted event was delivered twice: {ids}")
    for event in events.values():
        expect(set(event) == {"id", "type", "environment", "app", "account", "occurredAt", "data"}, f"webhook event shape: {event}")
        expect(event["environment"] == "Production" and event["app"] == APP and "email" in event["account"], f"webhook event: {event}")

    # The customer endpoint and the readable trail.
    status, _, body = request("GET", f"{base}/commerce/{APP}/customer", headers={"Authorization": f"Bearer {buyer}"})
    customer = json.loads(body)
    expect(status == 200 and set(customer) >= {"account", "entitlements", "purchases"}, f"customer: {status} {body!r}")
    premium = [e for e in customer["entitlements"] if e["id"] == "premium"]
    expect(premium and premium[0]["store"] == "amazon" and premium[0]["productId"] == "stores.monthly"
           and {"expiresAt", "willRenew", "periodType"} <= set(premium[0]), f"customer entitlements: {customer['entitlements']}")
    expect(len(customer["purchases"]) == 2, f"customer purchases: {customer['purchases']}")
    trail = souk(souk_bin, "purchases", "events", "--account", "third@example.com", "--app", APP).stdout
    expect("initial_purchase" in trail and "renewal" in trail and "refund" in trail and "notification" in trail,
           f"souk purchases events: {trail}")
    outputs += [trail, souk(souk_bin, "stores", "status").stdout, souk(souk_bin, "purchases", "list", "--app", APP).stdout,
                souk(souk_bin, "webhooks", "deliveries", "--app", APP).stdout]
    for text in outputs:
        for name in ("amazon", "roku", "rtdn"):
            expect(values[name] not in text, f"a {name} secret appears in CLI output")
        expect(WEBHOOK_SECRET not in text and token1 not in text, "a webhook secret or purchase token appears in CLI output")
    print(f"stores-check: OK ({len(events)} webhook events, {len(deliveries)} deliveries)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["prepare"]:
        prepare(sys.argv[2])
    elif sys.argv[1:2] == ["check"]:
        check(*sys.argv[2:6])
    else:
        fail(__doc__)
