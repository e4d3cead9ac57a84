"""Fakes of the stores Souk talks to, in one HTTP server, speaking their documented wire formats —
written from the stores' documentation, independent of Souk's Swift fakes:

- Google: the OAuth token endpoint (JWT bearer grant, RS256 assertion checked against the service
  account's public key), Android Publisher v3 `purchases.products.get`, `purchases.productsv2`
  (`ProductPurchaseV2`), `purchases.subscriptionsv2.get`, `:acknowledge` and `:consume`,
  `purchases.voidedpurchases.list` (paged by token), `orders.refund` and
  `purchases.subscriptionsv2.revoke`;
- Amazon RVS (`/version/1.0/verifyReceiptId/…` and the `/sandbox` path), with its 400/496/497/498 codes;
- Roku Pay `validate-transaction`;
- Amazon SNS as an HTTP subscription sees it (AWS's "Verifying the signatures of Amazon SNS messages"):
  a signing certificate at `/SimpleNotificationService-<id>.pem`, messages signed with SignatureVersion 1
  (SHA1withRSA) or 2 (SHA256withRSA) on request (`/_control/sns/sign`), and the `SubscribeURL`
  (`/sns/?Action=ConfirmSubscription&TopicArn=…&Token=…`) answered with SNS's XML;
- webhook receivers (`POST /hooks/<name>`), which record what they receive and can fail on request.

`/_control/…` lets the check stage purchases, outages (`down`) and receiver failures, and read what
each store and receiver saw. Run: `fakestores.py PORTFILE SERVICE_ACCOUNT_PUBLIC_KEY.pem SECRETS.json`.
"""
import base64, json, secrets, sys, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

LOCK = threading.Lock()
STATE = {
    "google_products": {},       # token → products.get answer (+ "_productId")
    "google_subscriptions": {},  # token → subscriptionsv2 answer
    "google_voided": [],         # VoidedPurchase entries, oldest first
    "google_page_tokens": {},    # voided list page token → offset
    "google_refunds": [],        # [orderId, revoke] of each orders.refund
    "google_revocations": [],    # revocationContext member of each subscriptionsv2.revoke
    "amazon": {},                # receiptId → RVS answer (+ "_userId")
    "roku": {},                  # transactionId → validate-transaction answer
    "sns_confirmed": [],         # Tokens confirmed at the SubscribeURL
    "down": {},                  # store → status code every request of it answers
    "hooks": {},                 # name → [{"headers", "body"}]
    "hook_failures": {},         # name → how many of the next deliveries answer 500
    "log": [],                   # [store, method, path without secrets]
    "tokens": set(),             # Google access tokens issued
    "token_calls": 0,
}


SNS_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
SNS_CERT_PATH = "/SimpleNotificationService-7506a1e35b36ef5a444dd1a8e7cc3ed8.pem"
SNS_TOPIC = "arn:aws:sns:us-east-1:033616359524:LT0XA"


def sns_certificate():
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sns.amazonaws.com")])
    start = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=1)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(SNS_KEY.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(start + dt.timedelta(days=365))
            .sign(SNS_KEY, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))


SNS_CERT = sns_certificate()


def sns_sign(fields, base, version="1"):
    """Signs an SNS message as SNS does: "Key\nValue\n" over the type's fields, RSA PKCS#1 v1.5."""
    fields = dict(fields)
    fields.setdefault("MessageId", secrets.token_hex(16))
    fields.setdefault("TopicArn", SNS_TOPIC)
    fields.setdefault("Timestamp", rfc3339(int(time.time() * 1000)))
    if fields["Type"] == "SubscriptionConfirmation":
        fields.setdefault("Token", secrets.token_hex(32))
        fields.setdefault("SubscribeURL", f"{base}/sns/?Action=ConfirmSubscription&TopicArn={SNS_TOPIC}&Token={fields['Token']}")
        keys = ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    else:
        keys = ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    text = "".join(f"{key}\n{fields[key]}\n" for key in keys if key in fields)
    digest = hashes.SHA256() if version == "2" else hashes.SHA1()
    fields["SignatureVersion"] = version
    fields["Signature"] = base64.b64encode(SNS_KEY.sign(text.encode(), padding.PKCS1v15(), digest)).decode()
    fields["SigningCertURL"] = base + SNS_CERT_PATH
    return fields


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rfc3339(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + ".%03dZ" % (ms % 1000)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    public_key = None
    secrets = {}

    def log_message(self, *args):
        pass

    def answer(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def store_of(self, path):
        if path.startswith("/androidpublisher/") or path == "/token":
            return "google"
        if "/verifyReceiptId/" in path:
            return "amazon"
        if path.startswith("/listen/"):
            return "roku"
        if path == SNS_CERT_PATH or path.startswith("/sns/"):
            return "sns"
        return None

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        # Path parameters are split before they are decoded, as a web server does: an escaped "/"
        # (%2F) stays inside its segment.
        segments = [urllib.parse.unquote(part) for part in url.path.split("/")]
        body = self.body()
        if path.startswith("/_control/"):
            return self.control(method, path[len("/_control/"):], body)
        if path.startswith("/hooks/"):
            return self.hook(path[len("/hooks/"):], body)
        store = self.store_of(path)
        with LOCK:
            STATE["log"].append([store, method, self.redacted(path)])
            down = STATE["down"].get(store)
        if down:
            return self.answer(down, {"error": "staged outage"})
        if store == "google":
            return self.google(method, path, body, urllib.parse.parse_qs(url.query))
        if store == "amazon":
            return self.amazon(segments)
        if store == "roku":
            return self.roku(segments)
        if store == "sns":
            return self.sns(path, dict(urllib.parse.parse_qsl(url.query)))
        self.answer(404, {"error": "no such path"})

    def redacted(self, path):
        for secret in self.secrets.values():
            path = path.replace(secret, "<secret>")
        return path

    # MARK: Google

    def google(self, method, path, body, query=None):
        if path == "/token":
            form = dict(urllib.parse.parse_qsl(body.decode()))
            if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
                return self.answer(400, {"error": "unsupported_grant_type"})
            try:
                header, claims, signature = form["assertion"].split(".")
                self.public_key.verify(b64url_decode(signature), f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
                claims = json.loads(b64url_decode(claims))
            except Exception:
                return self.answer(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
            host = self.headers.get("Host")
            if json.loads(b64url_decode(header)).get("alg") != "RS256" or claims.get("aud") != f"http://{host}/token" \
                    or "androidpublisher" not in claims.get("scope", "") or claims.get("exp", 0) < time.time():
                return self.answer(400, {"error": "invalid_grant", "error_description": "bad claims"})
            token = "ya29." + secrets.token_urlsafe(24)
            with LOCK:
                STATE["tokens"].add(token)
                STATE["token_calls"] += 1
            return self.answer(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})
        bearer = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        with LOCK:
            if bearer not in STATE["tokens"]:
                return self.answer(401, {"error": {"code": 401, "message": "Request had invalid authentication credentials."}})
        parts = path.split("/")
        # /androidpublisher/v3/applications/{pkg}/purchases/{kind}/… or …/{pkg}/orders/{orderId}:refund
        package, kind = parts[4], parts[6] if parts[5] == "purchases" else parts[5]
        if package != self.secrets.get("package"):
            return self.answer(404, {"error": {"code": 404, "message": "No application was found for the given package name."}})
        if parts[5] == "orders":
            return self.google_refund(parts[6], (query or {}).get("revoke", ["false"])[0] == "true")
        if kind == "voidedpurchases":
            return self.google_voided(query or {})
        if kind == "productsv2":
            return self.google_product_v2(parts[-1])
        if kind == "subscriptionsv2" and parts[-1].endswith(":revoke"):
            return self.google_revoke(parts[-1].split(":", 1)[0], body)
        action = None
        if ":" in parts[-1]:
            parts[-1], action = parts[-1].split(":", 1)
        token = parts[-1]
        with LOCK:
            if kind == "subscriptionsv2":
                purchase = STATE["google_subscriptions"].get(token)
            elif kind == "subscriptions":
                purchase = STATE["google_subscriptions"].get(token)
            else:
                purchase = STATE["google_products"].get(token)
                if purchase and purchase["_productId"] != parts[7]:
                    purchase = None
            if purchase is None:
                return self.answer(404 if kind != "subscriptionsv2" else 400,
                                   {"error": {"code": 400, "message": "The purchase token is no longer valid."}})
            if action == "acknowledge":
                if kind == "subscriptions":
                    purchase["acknowledgementState"] = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
                else:
                    purchase["acknowledgementState"] = 1
                return self.answer(200, {})
            if action == "consume":
                purchase["consumptionState"] = 1
                return self.answer(200, {})
            return self.answer(200, {k: v for k, v in purchase.items() if not k.startswith("_")})

    def google_void(self, token, order_id, subscription=False):
        # Called with LOCK held. Voided by the developer (voidedSource 1), reason "other" (0).
        STATE["google_voided"].append({"kind": "androidpublisher#voidedPurchase", "purchaseToken": token, "orderId": order_id,
                                       "purchaseTimeMillis": str(int(time.time() * 1000) - 60000),
                                       "voidedTimeMillis": str(int(time.time() * 1000)), "voidedSource": 1, "voidedReason": 0,
                                       "_subscription": subscription})

    def google_voided(self, query):
        # purchases.voidedpurchases.list: startTime (at most 30 days back), token, maxResults, type (1: with subscriptions),
        # includeQuantityBasedPartialRefund; oldest first, paged by tokenPagination.nextPageToken.
        first = lambda name, default=None: query.get(name, [default])[0]
        now_ms = int(time.time() * 1000)
        start = int(first("startTime", now_ms - 30 * 86400000))
        with LOCK:
            offset = 0
            if first("token"):
                if first("token") not in STATE["google_page_tokens"]:
                    return self.answer(400, {"error": {"code": 400, "message": "Invalid page token.", "status": "INVALID_ARGUMENT"}})
                offset = STATE["google_page_tokens"][first("token")]
            elif start < now_ms - 30 * 86400000 - 60000:
                return self.answer(400, {"error": {"code": 400, "message": "startTime is too old.", "status": "INVALID_ARGUMENT"}})
            size = min(int(first("maxResults", 1000)), STATE.get("google_voided_page", 1000))
            matching = [v for v in STATE["google_voided"] if int(v["voidedTimeMillis"]) >= start
                        and (first("type", "0") == "1" or not v["_subscription"])
                        and (first("includeQuantityBasedPartialRefund") == "true" or "voidedQuantity" not in v)]
            page = [{k: v for k, v in entry.items() if not k.startswith("_")} for entry in matching[offset:offset + size]]
            answer = {"pageInfo": {"totalResults": len(matching), "resultPerPage": size, "startIndex": offset}, "voidedPurchases": page}
            if offset + len(page) < len(matching):
                token = "page-" + secrets.token_hex(8)
                STATE["google_page_tokens"][token] = offset + len(page)
                answer["tokenPagination"] = {"nextPageToken": token}
        return self.answer(200, answer)

    def google_refund(self, order_and_action, revoke):
        # orders.refund: POST …/orders/{orderId}:refund?revoke=true, an empty answer.
        order_id, _, action = order_and_action.partition(":")
        with LOCK:
            found = [(t, p) for t, p in STATE["google_products"].items() if p.get("orderId") == order_id]
            if action != "refund" or not found:
                return self.answer(404, {"error": {"code": 404, "message": "Order not found.", "status": "NOT_FOUND"}})
            token, purchase = found[0]
            if purchase["purchaseState"] != 0:
                return self.answer(400, {"error": {"code": 400, "message": "The order is already refunded.", "status": "FAILED_PRECONDITION"}})
            STATE["google_refunds"].append([order_id, revoke])
            if revoke:
                purchase["purchaseState"] = 1
            self.google_void(token, order_id)
        return self.answer(200, {})

    def google_revoke(self, token, body):
        # purchases.subscriptionsv2.revoke: {"revocationContext": {"fullRefund": {}} | {"proratedRefund": {}}}.
        context = (json.loads(body or b"{}").get("revocationContext") or {})
        if len(context) != 1 or next(iter(context)) not in ("fullRefund", "proratedRefund", "itemBasedRefund"):
            return self.answer(400, {"error": {"code": 400, "message": "Invalid revocationContext.", "status": "INVALID_ARGUMENT"}})
        with LOCK:
            purchase = STATE["google_subscriptions"].get(token)
            if purchase is None:
                return self.answer(404, {"error": {"code": 404, "message": "Not found.", "status": "NOT_FOUND"}})
            purchase["subscriptionState"] = "SUBSCRIPTION_STATE_EXPIRED"
            for item in purchase["lineItems"]:
                item["expiryTime"] = rfc3339(int(time.time() * 1000))
            STATE["google_revocations"].append(next(iter(context)))
            self.google_void(token, purchase.get("latestOrderId"), subscription=True)
        return self.answer(200, {})

    def google_product_v2(self, token):
        # purchases.productsv2: the one-time purchase as ProductPurchaseV2.
        with LOCK:
            purchase = STATE["google_products"].get(token)
            if purchase is None:
                return self.answer(404, {"error": {"code": 404, "message": "Not found.", "status": "NOT_FOUND"}})
            offer = {"quantity": purchase.get("quantity", 1), "refundableQuantity": 0 if purchase["purchaseState"] == 1 else purchase.get("quantity", 1),
                     "consumptionState": "CONSUMPTION_STATE_CONSUMED" if purchase.get("consumptionState") == 1
                     else "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"}
            for name in ("purchaseOptionId", "offerId"):
                if purchase.get("_" + name):
                    offer[name] = purchase["_" + name]
            answer = {"kind": "androidpublisher#productPurchaseV2", "regionCode": purchase.get("regionCode", "US"),
                      "orderId": purchase.get("orderId"),
                      "purchaseStateContext": {"purchaseState": {0: "PURCHASED", 1: "CANCELLED", 2: "PENDING"}[purchase["purchaseState"]]},
                      "purchaseCompletionTime": rfc3339(int(purchase["purchaseTimeMillis"])),
                      "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" if purchase.get("acknowledgementState") == 1
                      else "ACKNOWLEDGEMENT_STATE_PENDING",
                      "productLineItem": [{"productId": purchase["_productId"], "productOfferDetails": offer}]}
        return self.answer(200, answer)

    # MARK: Amazon

    def amazon(self, parts):
        sandbox = parts[1] == "sandbox"
        if sandbox:
            parts = parts[1:]
        # /version/1.0/verifyReceiptId/developer/{secret}/user/{userId}/receiptId/{receiptId}
        secret, user, receipt_id = parts[5], parts[7], parts[9]
        if secret != self.secrets.get("amazon"):
            return self.answer(496, {"message": "Invalid developer secret"})
        with LOCK:
            receipt = STATE["amazon"].get(receipt_id)
        if receipt is None or receipt.get("_sandbox", False) != sandbox:
            return self.answer(400, {"message": "Invalid transaction"})
        if receipt["_userId"] != user:
            return self.answer(497, {"message": "Invalid user"})
        return self.answer(200, {k: v for k, v in receipt.items() if not k.startswith("_")})

    # MARK: Roku

    def roku(self, parts):
        key, transaction_id = parts[-2], parts[-1]
        # Roku's JSON form: "status" is a number (0 success, 1 failure), "errorMessage" is "" on
        # success, and the original transaction id is spelt "OriginalTransactionId".
        if key != self.secrets.get("roku"):
            return self.answer(200, {"status": 1, "errorMessage": "Invalid partner API key.", "errorCode": None, "errorDetails": None})
        with LOCK:
            transaction = STATE["roku"].get(transaction_id)
        if transaction is None:
            return self.answer(200, {"status": 1, "errorMessage": "Invalid transaction ID.", "errorCode": None, "errorDetails": None})
        answer = dict(transaction, status=0, errorMessage="", errorCode=None, errorDetails=None)
        if "originalTransactionId" in answer:
            answer["OriginalTransactionId"] = answer.pop("originalTransactionId")
        return self.answer(200, answer)

    # MARK: Amazon SNS

    def sns(self, path, query):
        if path == SNS_CERT_PATH:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-x509-ca-cert")
            self.send_header("Content-Length", str(len(SNS_CERT)))
            self.end_headers()
            return self.wfile.write(SNS_CERT)
        if query.get("Action") != "ConfirmSubscription" or not query.get("Token"):
            return self.answer(400, {"error": "not a ConfirmSubscription"})
        with LOCK:
            STATE["sns_confirmed"].append(query["Token"])
        xml = (f'<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><ConfirmSubscriptionResult>'
               f'<SubscriptionArn>{query.get("TopicArn")}:2bcfbf39</SubscriptionArn></ConfirmSubscriptionResult>'
               f'<ResponseMetadata><RequestId>075ecce8-8dac-11e1-bf80-f781d96e9307</RequestId></ResponseMetadata>'
               f'</ConfirmSubscriptionResponse>').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(xml)))
        self.end_headers()
        self.wfile.write(xml)

    # MARK: Webhook receivers

    def hook(self, name, body):
        with LOCK:
            STATE["hooks"].setdefault(name, []).append({"headers": dict(self.headers.items()), "body": body.decode()})
            failures = STATE["hook_failures"].get(name, 0)
            if failures:
                STATE["hook_failures"][name] = failures - 1
        self.answer(500 if failures else 204)

    # MARK: Control

    def control(self, method, what, body):
        data = json.loads(body or b"{}")
        with LOCK:
            if what == "google/subscription":
                STATE["google_subscriptions"][data.pop("_token")] = data
            elif what == "google/product":
                STATE["google_products"][data.pop("_token")] = data
            elif what == "google/void":
                # Google voids a one-time purchase on its own (a chargeback): cancelled and listed, no RTDN.
                purchase = STATE["google_products"][data["token"]]
                purchase["purchaseState"] = 1
                self.google_void(data["token"], purchase.get("orderId"))
            elif what == "google/voided-page-size":
                STATE["google_voided_page"] = data["size"]
            elif what == "amazon/receipt":
                STATE["amazon"][data["receiptId"]] = data
            elif what == "roku/transaction":
                STATE["roku"][data["transactionId"]] = data
            elif what == "sns/sign":
                version = data.pop("_version", "1")
                return self.answer(200, sns_sign(data, f"http://{self.headers.get('Host')}", version))
            elif what == "down":
                STATE["down"][data["store"]] = data.get("status")
            elif what == "hook-failures":
                STATE["hook_failures"][data["name"]] = data["count"]
            elif what == "state":
                answer = {key: value for key, value in STATE.items() if key != "tokens"}
                return self.answer(200, answer)
            else:
                return self.answer(404, {"error": what})
        self.answer(200, {})


def main(port_file, public_key_path, secrets_path):
    Handler.public_key = serialization.load_pem_public_key(open(public_key_path, "rb").read())
    Handler.secrets = json.load(open(secrets_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:4])
