"""A fake of the parts of Stripe Souk uses, speaking Stripe's documented wire format — written from
Stripe's API reference, independent of Souk's Swift fake (Sources/SoukTestSupport/Fakes):

- `POST /v1/checkout/sessions`: form-encoded with bracketed keys, `Authorization: Bearer sk_…`,
  `Idempotency-Key` (the same key with the same parameters answers the same session, with
  `Idempotent-Replayed: true`; with other parameters a 400 `idempotency_error`), inline
  `line_items[][price_data]`, `mode` `payment` or `subscription` (which needs `recurring[interval]`
  and refuses `payment_intent_data`, as `payment` refuses `subscription_data`);
- `GET /v1/checkout/sessions/<id>`;
- webhooks, as Stripe sends them: an event object (`evt_…`, `data.object`) POSTed to the endpoint
  with `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload" keyed by the whole whsec_ secret>`,
  the objects in API version 2025-03-31 ("basil") shape: an invoice names its subscription under
  `parent.subscription_details` and its payment under `payments`, a subscription's period is on its
  items, a charge has no `invoice`.

`/_control/…` (JSON) plays the person and Stripe's back office: `pay` a session (paid, unpaid for a
delayed method, with tax), `async` (succeeded/failed), `expire`, `renew` a subscription (paid or
failed), `cancel` it (at period end, or now), `refund` a charge (all or part), `replay` an event
(signed again, as Stripe's retries are), `send` a raw event with a bad or an old signature,
`down` (every API call answers that status), `state` (sessions, requests seen, deliveries).
Run: `fakestripe.py PORTFILE SECRETS.json` (secrets: `stripe_key`, `webhook_secret`).
"""
import hashlib, hmac, json, os, secrets, sys, threading, time, urllib.parse, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {
    "sessions": {},        # id → session object
    "idempotency": {},     # key → (parameters, session id)
    "subscriptions": {},   # id → subscription object
    "invoices": {},        # id → invoice object
    "charges": {},         # id → charge object
    "events": {},          # id → event object
    "deliveries": [],      # {"event", "type", "status"}
    "requests": [],        # {"method", "path", "idempotency_key", "form"} (no secret)
    "down": None,          # a status every API call answers, or None
    "webhook_url": None,
}
PERIOD_SECONDS = {"day": 86400, "week": 7 * 86400, "month": 30 * 86400, "year": 365 * 86400}


def new_id(prefix):
    return f"{prefix}_test_{secrets.token_hex(12)}"


def parse_form(body):
    """Stripe's bracket encoding (`a[b][0][c]=v`) → nested dicts and lists, as Stripe reads it."""
    root = {}
    for key, value in urllib.parse.parse_qsl(body.decode(), keep_blank_values=True, strict_parsing=True):
        parts = key.replace("]", "").split("[")
        node = root
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {})
    return lists(root)


def safe_form(body):
    try:
        return parse_form(body)
    except ValueError:
        return None


def lists(node):
    """Dicts whose keys are 0, 1, 2… become lists."""
    if not isinstance(node, dict):
        return node
    node = {key: lists(value) for key, value in node.items()}
    if node and all(key.isdigit() for key in node):
        return [node[key] for key in sorted(node, key=int)]
    return node


def error(status, message, kind="invalid_request_error", param=None, code=None):
    body = {"type": kind, "message": message}
    if param:
        body["param"] = param
    if code:
        body["code"] = code
    return status, {"error": body}


def create_session(form, base):
    mode = form.get("mode")
    if mode not in ("payment", "subscription", "setup"):
        return error(400, "Invalid mode: must be one of payment, setup, or subscription", param="mode")
    if mode == "subscription" and "payment_intent_data" in form:
        return error(400, "You can not pass `payment_intent_data` in `subscription` mode.", param="payment_intent_data")
    if mode == "payment" and "subscription_data" in form:
        return error(400, "You can not pass `subscription_data` in `payment` mode.", param="subscription_data")
    if not form.get("success_url"):
        return error(400, "Missing required param: success_url.", param="success_url")
    items = form.get("line_items")
    if not isinstance(items, list) or not items:
        return error(400, "Missing required param: line_items.", param="line_items")
    total, currency = 0, None
    for index, item in enumerate(items):
        price = item.get("price_data") or {}
        try:
            amount, quantity = int(price.get("unit_amount", "")), int(item.get("quantity", ""))
        except ValueError:
            return error(400, "Invalid integer", param=f"line_items[{index}][price_data][unit_amount]")
        if amount < 0 or quantity < 1 or not price.get("currency") or not (price.get("product_data") or {}).get("name"):
            return error(400, "Invalid price_data", param=f"line_items[{index}][price_data]")
        if price["currency"] != price["currency"].lower() and len(price["currency"]) != 3:
            return error(400, "Invalid currency", param=f"line_items[{index}][price_data][currency]")
        recurring = price.get("recurring")
        if mode == "subscription" and (not recurring or recurring.get("interval") not in PERIOD_SECONDS):
            return error(400, "`recurring[interval]` is required in subscription mode.", param=f"line_items[{index}][price_data][recurring]")
        if mode == "payment" and recurring:
            return error(400, "You must use subscription mode for recurring prices.", param=f"line_items[{index}][price_data][recurring]")
        if currency not in (None, price["currency"].lower()):
            return error(400, "All line items must have the same currency.")
        currency = price["currency"].lower()
        total += amount * quantity
    session_id = new_id("cs")
    now = int(time.time())
    return 200, {
        "id": session_id, "object": "checkout.session", "mode": mode, "status": "open", "payment_status": "unpaid",
        "url": f"{base}/c/pay/{session_id}", "amount_subtotal": total, "amount_total": total, "currency": currency,
        "client_reference_id": form.get("client_reference_id"), "customer": None, "customer_email": form.get("customer_email"),
        "metadata": form.get("metadata") or {}, "payment_intent": None, "subscription": None, "invoice": None,
        "success_url": form["success_url"], "cancel_url": form.get("cancel_url"), "created": now, "expires_at": now + 86400,
        "livemode": False,
        "_line_items": items, "_subscription_metadata": (form.get("subscription_data") or {}).get("metadata") or {},
    }


def public(obj):
    return {key: value for key, value in obj.items() if not key.startswith("_")}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    secrets = {}

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Request-Id", "req_" + secrets.token_hex(7))
        for name, value in headers:
            self.send_header(name, value)
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

    def route(self, method):
        path = urllib.parse.urlsplit(self.path).path
        body = self.body()
        if path.startswith("/_control/"):
            status, answer = control(path[len("/_control/"):], json.loads(body or b"{}"), self.secrets)
            return self.answer(status, answer)
        if path.startswith("/c/pay/"):  # the hosted page a buyer would see
            return self.answer(200, {"page": "Stripe Checkout (fake)", "session": path.rsplit("/", 1)[1]})
        with LOCK:
            down = STATE["down"]
            STATE["requests"].append({"method": method, "path": path, "idempotency_key": self.headers.get("Idempotency-Key"),
                                      "form": safe_form(body) if method == "POST" and body else None, "answered": down or 200})
        if down:
            return self.answer(*error(down, "Stripe is unavailable (fake outage).", kind="api_error"))
        if self.headers.get("Authorization") != f"Bearer {self.secrets['stripe_key']}":
            return self.answer(*error(401, "Invalid API Key provided: sk_****"))
        if method == "POST" and path == "/v1/checkout/sessions":
            if "application/x-www-form-urlencoded" not in (self.headers.get("Content-Type") or ""):
                return self.answer(*error(400, "Stripe takes form-encoded bodies."))
            try:
                form = parse_form(body)
            except ValueError:
                return self.answer(*error(400, "Invalid form body."))
            key = self.headers.get("Idempotency-Key")
            with LOCK:
                if key and key in STATE["idempotency"]:
                    parameters, session_id = STATE["idempotency"][key]
                    if parameters != form:
                        return self.answer(*error(400, "Keys for idempotent requests can only be used with the same parameters "
                                                  "they were first used with.", kind="idempotency_error"))
                    return self.answer(200, public(STATE["sessions"][session_id]), headers=[("Idempotent-Replayed", "true")])
                status, session = create_session(form, f"http://127.0.0.1:{self.server.server_port}")
                if status == 200:
                    STATE["sessions"][session["id"]] = session
                    if key:
                        STATE["idempotency"][key] = (form, session["id"])
                    session = public(session)
            return self.answer(status, session)
        if method == "GET" and path.startswith("/v1/checkout/sessions/"):
            with LOCK:
                session = STATE["sessions"].get(path.rsplit("/", 1)[1])
            if session is None:
                return self.answer(*error(404, "No such checkout.session", code="resource_missing"))
            return self.answer(200, public(session))
        return self.answer(*error(404, f"Unrecognized request URL ({method}: {path})."))


# MARK: Webhooks

def signature(secret, timestamp, payload):
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()


def deliver(event, secret, header=None):
    """POSTs the event as Stripe does; returns Souk's status (0: no answer)."""
    payload = json.dumps(event).encode()
    timestamp = int(time.time())
    header = header or f"t={timestamp},v1={signature(secret, timestamp, payload)}"
    request = urllib.request.Request(STATE["webhook_url"], data=payload, method="POST", headers={
        "Content-Type": "application/json; charset=utf-8", "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        "Stripe-Signature": header})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            status = response.status
    except urllib.error.HTTPError as failure:
        status = failure.code
    except OSError:
        status = 0
    with LOCK:
        STATE["deliveries"].append({"event": event["id"], "type": event["type"], "status": status})
    return status


def event(kind, obj):
    made = {"id": new_id("evt"), "object": "event", "api_version": "2025-03-31.basil", "created": int(time.time()),
            "data": {"object": public(obj)}, "livemode": False, "pending_webhooks": 1,
            "request": {"id": None, "idempotency_key": None}, "type": kind}
    STATE["events"][made["id"]] = made
    return made


def charge_for(amount, currency, payment_intent, metadata=None):
    charge = {"id": new_id("ch"), "object": "charge", "amount": amount, "amount_captured": amount, "amount_refunded": 0,
              "currency": currency, "paid": True, "refunded": False, "captured": True, "status": "succeeded",
              "payment_intent": payment_intent, "metadata": metadata or {}, "created": int(time.time())}
    STATE["charges"][charge["id"]] = charge
    return charge


def invoice_for(subscription, reason, paid, amount):
    items = subscription["items"]["data"][0]
    payment_intent = new_id("pi")
    invoice = {"id": new_id("in"), "object": "invoice", "customer": subscription["customer"], "currency": subscription["currency"],
               "amount_due": amount, "amount_paid": amount if paid else 0, "amount_remaining": 0 if paid else amount,
               "status": "paid" if paid else "open", "billing_reason": reason, "attempt_count": 1,
               "lines": {"object": "list", "has_more": False, "data": [{
                   "object": "line_item", "amount": amount, "currency": subscription["currency"],
                   "period": {"start": items["current_period_start"], "end": items["current_period_end"]}}]},
               "parent": {"type": "subscription_details", "quote_details": None,
                          "subscription_details": {"subscription": subscription["id"], "metadata": subscription["metadata"]}},
               "payments": {"object": "list", "data": [{"object": "invoice_payment", "status": "paid" if paid else "open",
                                                         "payment": {"type": "payment_intent", "payment_intent": payment_intent}}]},
               "created": int(time.time())}
    STATE["invoices"][invoice["id"]] = invoice
    if paid:
        invoice["_charge"] = charge_for(amount, subscription["currency"], payment_intent)["id"]
    return invoice


def control(what, body, keys):
    secret = keys["webhook_secret"]
    sent = []

    def send(kind, obj):
        made = event(kind, obj)
        sent.append({"id": made["id"], "type": kind, "status": deliver(made, secret)})

    with LOCK:
        sessions = STATE["sessions"]
    if what == "config":
        with LOCK:
            STATE["webhook_url"] = body.get("webhook_url", STATE["webhook_url"])
            STATE["down"] = body.get("down")
        return 200, {}
    if what == "state":
        with LOCK:
            return 200, {"sessions": [public(s) | {"line_items": s["_line_items"]} for s in sessions.values()],
                         "requests": STATE["requests"], "deliveries": STATE["deliveries"],
                         "subscriptions": list(STATE["subscriptions"].values()),
                         "invoices": [public(i) for i in STATE["invoices"].values()]}
    if what in ("pay", "async", "expire"):
        session = sessions.get(body.get("session"))
        if session is None:
            return 404, {"error": "no such session"}
        if what == "expire":
            if session["status"] != "open":
                return 409, {"error": "only an open session expires"}
            session["status"] = "expired"
            send("checkout.session.expired", session)
            return 200, {"sent": sent}
        if what == "pay":
            if session["status"] != "open":
                return 409, {"error": "session is " + session["status"]}
            tax = int(body.get("tax", 0))
            session["amount_total"] = session["amount_subtotal"] + tax
            session["status"] = "complete"
            session["customer"] = session["customer"] or new_id("cus")
            delayed = body.get("payment_status") == "unpaid"
            session["payment_status"] = "unpaid" if delayed else "paid"
            if session["mode"] == "payment":
                session["payment_intent"] = new_id("pi")
                if not delayed:
                    session["_charge"] = charge_for(session["amount_total"], session["currency"], session["payment_intent"],
                                                    session["metadata"])["id"]
                send("checkout.session.completed", session)
                return 200, {"sent": sent, "session": public(session)}
            recurring = session["_line_items"][0]["price_data"]["recurring"]
            seconds = PERIOD_SECONDS[recurring["interval"]] * int(recurring.get("interval_count", 1))
            start = int(time.time())
            subscription = {"id": new_id("sub"), "object": "subscription", "customer": session["customer"], "status": "active",
                            "cancel_at_period_end": False, "currency": session["currency"], "metadata": session["_subscription_metadata"],
                            "items": {"object": "list", "data": [{"object": "subscription_item", "current_period_start": start,
                                                                   "current_period_end": start + seconds}]},
                            "_seconds": seconds, "_amount": session["amount_total"]}
            STATE["subscriptions"][subscription["id"]] = subscription
            session["subscription"] = subscription["id"]
            invoice = invoice_for(subscription, "subscription_create", True, session["amount_total"])
            session["invoice"] = invoice["id"]
            # Stripe does not order its events: the invoice may come before the session.
            if body.get("invoice_first"):
                send("invoice.paid", invoice)
                send("checkout.session.completed", session)
            else:
                send("checkout.session.completed", session)
                send("invoice.paid", invoice)
            return 200, {"sent": sent, "session": public(session), "subscription": subscription["id"], "invoice": invoice["id"]}
        # async
        if session["status"] != "complete" or session["payment_status"] != "unpaid":
            return 409, {"error": "no delayed payment is waiting"}
        if body.get("outcome") == "succeeded":
            session["payment_status"] = "paid"
            session["_charge"] = charge_for(session["amount_total"], session["currency"], session["payment_intent"], session["metadata"])["id"]
            send("checkout.session.async_payment_succeeded", session)
        else:
            send("checkout.session.async_payment_failed", session)
        return 200, {"sent": sent}
    if what in ("renew", "cancel"):
        subscription = STATE["subscriptions"].get(body.get("subscription"))
        if subscription is None:
            return 404, {"error": "no such subscription"}
        items = subscription["items"]["data"][0]
        if what == "renew":
            paid = not body.get("fail")
            if paid:
                items["current_period_start"] = items["current_period_end"]
                items["current_period_end"] += subscription["_seconds"]
                subscription["status"] = "active"
            else:
                subscription["status"] = "past_due"
            invoice = invoice_for(subscription, "subscription_cycle", paid, subscription["_amount"])
            send("invoice.paid" if paid else "invoice.payment_failed", invoice)
            if not paid:
                send("customer.subscription.updated", subscription)
            return 200, {"sent": sent, "invoice": invoice["id"]}
        if body.get("at_period_end"):
            subscription["cancel_at_period_end"] = True
            send("customer.subscription.updated", subscription)
        else:
            subscription["status"] = "canceled"
            send("customer.subscription.deleted", subscription)
        return 200, {"sent": sent}
    if what == "refund":
        if body.get("session"):
            charge_id = sessions[body["session"]].get("_charge")
        else:
            charge_id = STATE["invoices"][body["invoice"]].get("_charge")
        charge = STATE["charges"].get(charge_id)
        if charge is None:
            return 404, {"error": "nothing was charged"}
        amount = int(body.get("amount", charge["amount"] - charge["amount_refunded"]))
        if amount <= 0 or charge["amount_refunded"] + amount > charge["amount"]:
            return 400, {"error": "refund exceeds the charge"}
        charge["amount_refunded"] += amount
        charge["refunded"] = charge["amount_refunded"] == charge["amount"]
        send("charge.refunded", charge)
        return 200, {"sent": sent, "charge": public(charge)}
    if what == "replay":
        made = STATE["events"].get(body.get("event"))
        if made is None:
            return 404, {"error": "no such event"}
        return 200, {"status": deliver(made, secret)}
    if what == "send":  # a raw event under a wrong or old signature
        payload_event = event(body["type"], body["object"])
        payload = json.dumps(payload_event).encode()
        timestamp = int(time.time()) - int(body.get("age", 0))
        key = secret if body.get("signature") != "wrong-secret" else "whsec_" + secrets.token_hex(16)
        digest = signature(key, timestamp, payload)
        if body.get("signature") == "tampered":
            payload_event["data"]["object"]["amount_total"] = 1
        return 200, {"status": deliver(payload_event, secret, header=f"t={timestamp},v1={digest}")}
    return 404, {"error": f"unknown control {what}"}


def main():
    port_file, secrets_file = sys.argv[1], sys.argv[2]
    Handler.secrets = json.load(open(secrets_file))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_port))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
