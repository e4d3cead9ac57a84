import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import SoukCore
import Synchronization

/// An in-memory Stripe for Checkout: `POST /v1/checkout/sessions` (form-encoded, `Authorization:
/// Bearer <secret key>`, `Idempotency-Key`), `GET /v1/checkout/sessions/:id`, and `GET /pay/:id`
/// where a session's `url` points. Errors in Stripe's shape (`{"error": {"type", "code", "message",
/// "param"}}`): 401 for a missing or wrong key, 400 for a missing, unknown or inconsistent parameter
/// and for an idempotency key reused with other parameters, 404 for an unknown session.
///
/// It reads the form body and signs its webhooks by its own code (not the client's), so a test
/// through it checks the client against the format rather than against itself. Webhook objects have
/// the shapes of API version 2025-03-31 (basil): an invoice names its subscription under
/// `parent.subscription_details`, a subscription's period is on its items.
///
/// Test controls play the person and Stripe's billing: `complete`, `refund`, `invoicePaid`,
/// `invoicePaymentFailed`, `subscriptionUpdated`, `subscriptionDeleted`; each returns what a webhook
/// would carry, to be signed and sent with `deliver` (or `signatureHeader` for in-process tests).
public final class FakeStripe: Sendable {
    public let secretKey: String
    public let webhookSecret: String
    let now: @Sendable () -> Date
    let state = Mutex(State())

    struct State {
        var sessions: [String: Session] = [:]
        var subscriptions: [String: Subscription] = [:]
        var idempotent: [String: (request: [String], answer: JSONValue)] = [:]
        /// Paid invoices: the PaymentIntent that paid each, what it charged and what was refunded.
        var invoiceCharges: [String: (paymentIntent: String, amount: Int, currency: String, refunded: Int)] = [:]
        /// `POST /v1/refunds` by idempotency key: the refund's id and what it asked for.
        var refunds: [String: (id: String, paymentIntent: String, amount: Int?)] = [:]
    }

    public init(secretKey: String = "sk_test_fake_0123456789", webhookSecret: String = "whsec_fake_0123456789",
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
        self.now = now
    }

    // MARK: Routes

    public func routes(_ router: Router<BasicRequestContext>) {
        router.post("/v1/checkout/sessions") { request, _ in
            if let refusal = self.authenticate(request) { return refusal }
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let pairs = Self.decodeForm(String(buffer: body))
            let key = request.headers[HTTPField.Name("Idempotency-Key")!]
            return self.create(pairs: pairs, idempotencyKey: key, authority: request.head.authority ?? "127.0.0.1")
        }
        router.get("/v1/checkout/sessions/:id") { request, context in
            if let refusal = self.authenticate(request) { return refusal }
            let id = context.parameters.get("id") ?? ""
            guard let session = self.state.withLock({ $0.sessions[id] }) else {
                return Self.refuse(404, code: "resource_missing", param: "id", "No such checkout.session: '\(id)'")
            }
            return Self.answer(session.json)
        }
        // Subscription updates: only `cancel_at_period_end`, what Souk sends (the account page).
        router.post("/v1/subscriptions/:id") { request, context in
            if let refusal = self.authenticate(request) { return refusal }
            var request = request
            let pairs = Self.decodeForm(String(buffer: try await request.collectBody(upTo: 1 << 20)))
            let id = context.parameters.get("id") ?? ""
            guard let value = pairs.first(where: { $0.0 == "cancel_at_period_end" })?.1, ["true", "false"].contains(value) else {
                return Self.refuse(400, code: "parameter_missing", param: "cancel_at_period_end", "Send cancel_at_period_end=true|false.")
            }
            let found = self.state.withLock { state -> Bool in
                guard state.subscriptions[id] != nil else { return false }
                state.subscriptions[id]?.cancelAtPeriodEnd = value == "true"
                return true
            }
            guard found else { return Self.refuse(404, code: "resource_missing", param: "id", "No such subscription: '\(id)'") }
            return Self.answer(.object([JSONMember("id", .string(id)), JSONMember("object", .string("subscription")),
                                        JSONMember("cancel_at_period_end", .bool(value == "true"))]))
        }
        router.post("/v1/refunds") { request, _ in
            if let refusal = self.authenticate(request) { return refusal }
            var request = request
            let pairs = Self.decodeForm(String(buffer: try await request.collectBody(upTo: 1 << 20)))
            guard let intent = pairs.first(where: { $0.0 == "payment_intent" })?.1 else {
                return Self.refuse(400, code: "parameter_missing", param: "payment_intent", "Send payment_intent.")
            }
            let amount = pairs.first(where: { $0.0 == "amount" }).flatMap { Int($0.1) }
            let key = request.headers[HTTPField.Name("Idempotency-Key")!] ?? UUID().uuidString
            enum Outcome { case created(String), missing, alreadyRefunded }
            // A refund is answered here; its `charge.refunded` event is what a test then sends (`refund(session:)`).
            let outcome = self.state.withLock { state -> Outcome in
                if let earlier = state.refunds[key] { return .created(earlier.id) }
                // A Checkout Session's payment, or an invoice's (a plan's charge).
                if let session = state.sessions.values.first(where: { $0.paymentIntent == intent }) {
                    guard session.amountRefunded < session.amountTotal else { return .alreadyRefunded }
                } else if let paid = state.invoiceCharges.values.first(where: { $0.paymentIntent == intent }) {
                    guard paid.refunded < paid.amount else { return .alreadyRefunded }
                } else {
                    return .missing
                }
                let id = Self.newId("re")
                state.refunds[key] = (id, intent, amount)
                return .created(id)
            }
            switch outcome {
            case .created(let id):
                return Self.answer(.object([JSONMember("id", .string(id)), JSONMember("object", .string("refund")),
                                            JSONMember("payment_intent", .string(intent)), JSONMember("status", .string("succeeded"))]))
            case .missing:
                return Self.refuse(404, code: "resource_missing", param: "payment_intent", "No such payment_intent: '\(intent)'")
            case .alreadyRefunded:
                return Self.refuse(400, code: "charge_already_refunded", param: nil, "Charge has already been refunded.")
            }
        }
        router.get("/pay/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let session = self.state.withLock({ $0.sessions[id] }), session.status == "open" else {
                return Self.page(.notFound, "<p>This checkout is no longer open.</p>")
            }
            return Self.page(.ok, "<title>Fake Stripe Checkout</title><h1>Pay \(session.amountTotal) \(session.currency)</h1><p>\(id)</p>")
        }
    }

    func authenticate(_ request: Request) -> Response? {
        guard let authorization = request.headers[.authorization] else {
            return Self.refuse(401, type: "invalid_request_error",
                               "You did not provide an API key. You need to provide your API key in the Authorization header, "
                                   + "using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
        }
        var given = ""
        if authorization.hasPrefix("Bearer ") {
            given = String(authorization.dropFirst(7))
        } else if authorization.hasPrefix("Basic "), let data = Data(base64Encoded: String(authorization.dropFirst(6))) {
            given = String(decoding: data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        guard given == secretKey else {
            return Self.refuse(401, type: "invalid_request_error", "Invalid API Key provided: \(given.prefix(8))****\(given.suffix(4))")
        }
        return nil
    }

    // MARK: Creating sessions

    func create(pairs: [(String, String)], idempotencyKey: String?, authority: String) -> Response {
        let fingerprint = pairs.map { "\($0.0)=\($0.1)" }.sorted()
        if let idempotencyKey {
            guard idempotencyKey.count <= 255 else {
                return Self.refuse(400, param: "Idempotency-Key", "Idempotency keys can be no longer than 255 characters.")
            }
            if let earlier = state.withLock({ $0.idempotent[idempotencyKey] }) {
                guard earlier.request == fingerprint else {
                    return Self.refuse(400, type: "idempotency_error",
                                       "Keys for idempotent requests can only be used with the same parameters they were first used with. "
                                           + "Try using a key other than '\(idempotencyKey)' if you meant to execute a different request.")
                }
                var response = Self.answer(earlier.answer)
                response.headers[HTTPField.Name("Idempotent-Replayed")!] = "true"
                return response
            }
        }
        let session: Session
        do { session = try Session(form: try FormTree(pairs), id: Self.newId("cs_test"), base: "http://\(authority)", created: now()) } catch {
            return Self.refuse(400, code: error.code, param: error.param, error.message)
        }
        let answer = session.json
        state.withLock { state in
            state.sessions[session.id] = session
            if let idempotencyKey { state.idempotent[idempotencyKey] = (fingerprint, answer) }
        }
        return Self.answer(answer)
    }

    // MARK: Test controls

    /// The session as Stripe would return it now.
    public func session(_ id: String) -> JSONValue? { state.withLock { $0.sessions[id]?.json } }

    /// How many sessions exist (idempotent replays create none).
    public var sessionCount: Int { state.withLock { $0.sessions.count } }
    /// The refunds asked for through `POST /v1/refunds` (one per idempotency key).
    public var refundRequests: [(id: String, paymentIntent: String, amount: Int?)] { state.withLock { Array($0.refunds.values) } }

    /// The person finishes Checkout: the session becomes `complete` with `payment_status` `paid`
    /// (or `unpaid`, as with a delayed payment method), gets a customer, and a PaymentIntent
    /// (`mode=payment`) or an active subscription (`mode=subscription`, when paid). Returns the
    /// session, for `event(type: "checkout.session.completed", object:)`.
    @discardableResult
    public func complete(_ sessionId: String, paid: Bool = true) throws -> JSONValue {
        let at = now()
        return try state.withLock { state in
            guard var session = state.sessions[sessionId] else { throw FakeStoreError("no Checkout Session \(sessionId)") }
            guard session.status == "open" else { throw FakeStoreError("Checkout Session \(sessionId) is \(session.status), not open") }
            session.status = "complete"
            session.paymentStatus = paid ? "paid" : "unpaid"
            session.customer = Self.newId("cus")
            if session.mode == "payment" {
                session.paymentIntent = Self.newId("pi")
                if paid { session.charge = Self.newId("ch") }
            } else if paid, let line = session.lines.first, let interval = line.interval {
                let subscription = Subscription(id: Self.newId("sub"), customer: session.customer!, currency: session.currency,
                                                amount: session.amountTotal, interval: interval, intervalCount: line.intervalCount,
                                                periodStart: at, metadata: session.subscriptionMetadata)
                state.subscriptions[subscription.id] = subscription
                session.subscription = subscription.id
            }
            state.sessions[sessionId] = session
            return session.json
        }
    }

    /// The subscription a completed session created.
    public func subscriptionId(forSession sessionId: String) -> String? { state.withLock { $0.sessions[sessionId]?.subscription } }

    /// Stripe's event around `object`: `{"id": "evt_…", "object": "event", "type", "created",
    /// "livemode": false, "data": {"object"}}`, as compact JSON (the bytes to sign and send).
    public func event(type: String, object: JSONValue, previousAttributes: JSONValue? = nil) -> [UInt8] {
        var data = [JSONMember("object", object)]
        if let previousAttributes { data.append(JSONMember("previous_attributes", previousAttributes)) }
        let event = JSONValue.object([
            JSONMember("id", .string(Self.newId("evt"))), JSONMember("object", .string("event")),
            JSONMember("api_version", .string("2025-03-31.basil")), JSONMember("created", Self.unix(now())),
            JSONMember("data", .object(data)), JSONMember("livemode", .bool(false)), JSONMember("pending_webhooks", .number("1")),
            JSONMember("request", .object([JSONMember("id", .null), JSONMember("idempotency_key", .null)])),
            JSONMember("type", .string(type)),
        ])
        return Array(event.compactText().utf8)
    }

    /// `charge.refunded` for a paid `mode=payment` session: `amount` more refunded (nil: the rest).
    public func refund(session sessionId: String, amount: Int? = nil) throws -> [UInt8] {
        let charge = try state.withLock { state in
            guard var session = state.sessions[sessionId], let charge = session.charge else {
                throw FakeStoreError("Checkout Session \(sessionId) has no charge to refund")
            }
            session.amountRefunded = min(session.amountTotal, session.amountRefunded + (amount ?? session.amountTotal - session.amountRefunded))
            state.sessions[sessionId] = session
            return JSONValue.object([
                JSONMember("id", .string(charge)), JSONMember("object", .string("charge")), JSONMember("amount", Self.number(session.amountTotal)),
                JSONMember("amount_captured", Self.number(session.amountTotal)), JSONMember("amount_refunded", Self.number(session.amountRefunded)),
                JSONMember("currency", .string(session.currency)), JSONMember("customer", Self.optional(session.customer)),
                JSONMember("metadata", .object([])), JSONMember("paid", .bool(true)),
                JSONMember("payment_intent", Self.optional(session.paymentIntent)),
                JSONMember("refunded", .bool(session.amountRefunded == session.amountTotal)), JSONMember("status", .string("succeeded")),
            ])
        }
        return event(type: "charge.refunded", object: charge)
    }

    /// `charge.refunded` for a paid invoice, as API version basil sends it: the charge names the
    /// PaymentIntent that paid the invoice, not the invoice. `amount` more refunded (nil: the rest).
    public func refund(invoice invoiceId: String, amount: Int? = nil) throws -> [UInt8] {
        let charge = try state.withLock { state in
            guard var paid = state.invoiceCharges[invoiceId] else { throw FakeStoreError("invoice \(invoiceId) was not paid") }
            paid.refunded = min(paid.amount, paid.refunded + (amount ?? paid.amount - paid.refunded))
            state.invoiceCharges[invoiceId] = paid
            return JSONValue.object([
                JSONMember("id", .string(Self.newId("ch"))), JSONMember("object", .string("charge")), JSONMember("amount", Self.number(paid.amount)),
                JSONMember("amount_refunded", Self.number(paid.refunded)), JSONMember("currency", .string(paid.currency)),
                JSONMember("metadata", .object([])), JSONMember("paid", .bool(true)), JSONMember("payment_intent", .string(paid.paymentIntent)),
                JSONMember("refunded", .bool(paid.refunded == paid.amount)), JSONMember("status", .string("succeeded")),
            ])
        }
        return event(type: "charge.refunded", object: charge)
    }

    /// `invoice.paid`: the subscription's first invoice (`subscription_create`, the current period),
    /// then a renewal (`subscription_cycle`) that moves the subscription to its next period.
    public func invoicePaid(subscription subscriptionId: String) throws -> [UInt8] {
        let invoice = try state.withLock { state in
            guard var subscription = state.subscriptions[subscriptionId] else { throw FakeStoreError("no subscription \(subscriptionId)") }
            let previous = (subscription.periodStart, subscription.periodEnd)
            let reason = subscription.invoices == 0 ? "subscription_create" : "subscription_cycle"
            if subscription.invoices > 0 {
                subscription.periodStart = subscription.periodEnd
                subscription.periodEnd = subscription.end(after: subscription.periodStart)
            }
            subscription.invoices += 1
            subscription.status = "active"
            state.subscriptions[subscriptionId] = subscription
            let paymentIntent = Self.newId("pi")
            let invoice = subscription.invoice(paid: true, reason: reason, usagePeriod: reason == "subscription_create" ? nil : previous,
                                               period: (subscription.periodStart, subscription.periodEnd), paymentIntent: paymentIntent)
            if let id = invoice["id"]?.stringValue {
                state.invoiceCharges[id] = (paymentIntent, subscription.amount, subscription.currency, 0)
            }
            return invoice
        }
        return event(type: "invoice.paid", object: invoice)
    }

    /// `invoice.payment_failed` for the subscription's next period; the subscription becomes `past_due`
    /// and keeps its current period.
    public func invoicePaymentFailed(subscription subscriptionId: String) throws -> [UInt8] {
        let invoice = try state.withLock { state in
            guard var subscription = state.subscriptions[subscriptionId] else { throw FakeStoreError("no subscription \(subscriptionId)") }
            subscription.status = "past_due"
            state.subscriptions[subscriptionId] = subscription
            let next = (subscription.periodEnd, subscription.end(after: subscription.periodEnd))
            return subscription.invoice(paid: false, reason: "subscription_cycle", usagePeriod: (subscription.periodStart, subscription.periodEnd),
                                        period: next)
        }
        return event(type: "invoice.payment_failed", object: invoice)
    }

    /// Whether the subscription is set to end with its period (the account page's Cancel renewal).
    public func cancelsAtPeriodEnd(_ subscriptionId: String) -> Bool? {
        state.withLock { $0.subscriptions[subscriptionId]?.cancelAtPeriodEnd }
    }

    /// `customer.subscription.updated` after changing the status and/or `cancel_at_period_end`.
    public func subscriptionUpdated(_ subscriptionId: String, status: String? = nil, cancelAtPeriodEnd: Bool? = nil) throws -> [UInt8] {
        let (object, previous) = try state.withLock { state in
            guard var subscription = state.subscriptions[subscriptionId] else { throw FakeStoreError("no subscription \(subscriptionId)") }
            var previous: [JSONMember] = []
            if let status, status != subscription.status {
                previous.append(JSONMember("status", .string(subscription.status)))
                subscription.status = status
            }
            if let cancelAtPeriodEnd, cancelAtPeriodEnd != subscription.cancelAtPeriodEnd {
                previous.append(JSONMember("cancel_at_period_end", .bool(subscription.cancelAtPeriodEnd)))
                subscription.cancelAtPeriodEnd = cancelAtPeriodEnd
            }
            state.subscriptions[subscriptionId] = subscription
            return (subscription.json, JSONValue.object(previous))
        }
        return event(type: "customer.subscription.updated", object: object, previousAttributes: previous)
    }

    /// `customer.subscription.deleted`: the subscription has ended (`canceled`).
    public func subscriptionDeleted(_ subscriptionId: String) throws -> [UInt8] {
        let at = now()
        let object = try state.withLock { state in
            guard var subscription = state.subscriptions[subscriptionId] else { throw FakeStoreError("no subscription \(subscriptionId)") }
            subscription.status = "canceled"
            subscription.endedAt = at
            state.subscriptions[subscriptionId] = subscription
            return subscription.json
        }
        return event(type: "customer.subscription.deleted", object: object)
    }

    // MARK: Webhooks

    /// `Stripe-Signature` for `payload` at `timestamp` (default: now) under `secret` (default: the
    /// fake's webhook secret).
    public func signatureHeader(_ payload: [UInt8], secret: String? = nil, timestamp: Date? = nil) -> String {
        let t = Int64((timestamp ?? now()).timeIntervalSince1970.rounded(.down))
        var mac = HMAC<SHA256>(key: SymmetricKey(data: Array((secret ?? webhookSecret).utf8)))
        mac.update(data: Array("\(t).".utf8))
        mac.update(data: payload)
        let hex = mac.finalize().map { String(format: "%02x", $0) }.joined()
        return "t=\(t),v1=\(hex)"
    }

    /// POSTs `payload` to `url` as Stripe delivers a webhook (JSON, signed); returns the receiver's
    /// status and body.
    public func deliver(_ payload: [UInt8], to url: String, secret: String? = nil, timestamp: Date? = nil) async throws -> (status: Int, body: [UInt8]) {
        guard let target = URL(string: url) else { throw FakeStoreError("not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.httpBody = Data(payload)
        request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.setValue("Stripe/1.0 (+https://stripe.com/docs/webhooks)", forHTTPHeaderField: "User-Agent")
        request.setValue(signatureHeader(payload, secret: secret, timestamp: timestamp), forHTTPHeaderField: "Stripe-Signature")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, Array(data))
    }

    // MARK: Wire helpers

    /// `application/x-www-form-urlencoded` pairs: `+` is a space, `%XX` a byte.
    static func decodeForm(_ body: String) -> [(String, String)] {
        body.split(separator: "&").map { part in
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (decode(pair[0]), pair.count > 1 ? decode(pair[1]) : "")
        }
    }

    static func refuse(_ status: Int, type: String = "invalid_request_error", code: String? = nil, param: String? = nil, _ message: String) -> Response {
        var error = [JSONMember("message", .string(message)), JSONMember("type", .string(type))]
        if let code { error.insert(JSONMember("code", .string(code)), at: 0) }
        if let param { error.append(JSONMember("param", .string(param))) }
        return answer(.object([JSONMember("error", .object(error))]), status: status)
    }

    static func page(_ status: HTTPResponse.Status, _ html: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: "<!doctype html>" + html)))
    }

    static func answer(_ json: JSONValue, status: Int = 200) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: json.compactText())))
    }

    static func newId(_ prefix: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return prefix + "_" + String((0..<24).map { _ in alphabet.randomElement()! })
    }

    static func number(_ value: Int) -> JSONValue { .number(String(value)) }
    static func unix(_ date: Date) -> JSONValue { .number(String(Int64(date.timeIntervalSince1970.rounded(.down)))) }
    static func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
    static func metadata(_ map: [String: String]) -> JSONValue {
        .object(map.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })
    }
}

// MARK: - The fake's objects

extension FakeStripe {
    /// A parameter Stripe would refuse (400 `invalid_request_error`).
    struct Refusal: Error {
        var code: String?
        var param: String?
        var message: String

        static func missing(_ param: String) -> Refusal { Refusal(code: "parameter_missing", param: param, message: "Missing required param: \(param).") }
        static func unknown(_ param: String) -> Refusal {
            Refusal(code: "parameter_unknown", param: param, message: "Received unknown parameter: \(param)")
        }
        static func invalid(_ param: String, _ message: String) -> Refusal { Refusal(code: "parameter_invalid", param: param, message: message) }
    }

    /// The form's bracketed keys as a tree: `line_items[0][price_data][currency]` is
    /// `line_items` → `0` → `price_data` → `currency`.
    indirect enum FormTree {
        case value(String)
        case map([String: FormTree])

        init(_ pairs: [(String, String)]) throws(Refusal) {
            var root = FormTree.map([:])
            for (key, value) in pairs {
                try root.insert(value, at: try Self.path(key), key: key)
            }
            self = root
        }

        static func path(_ key: String) throws(Refusal) -> [String] {
            guard let open = key.firstIndex(of: "[") else { return [key] }
            var path = [String(key[..<open])]
            var rest = key[open...]
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { throw .invalid(key, "Invalid parameter name: \(key)") }
                path.append(String(rest[rest.index(after: rest.startIndex)..<close]))
                rest = rest[rest.index(after: close)...]
            }
            guard !path.contains(where: \.isEmpty) else { throw .invalid(key, "Invalid array or hash parameter: \(key)") }
            return path
        }

        mutating func insert(_ value: String, at path: [String], key: String) throws(Refusal) {
            guard case .map(var children) = self else { throw .invalid(key, "Invalid hash: \(key) is given both a value and keys") }
            if path.count == 1 {
                guard children[path[0]] == nil else { throw .invalid(key, "\(key) is given twice") }
                children[path[0]] = .value(value)
            } else {
                var child = children[path[0]] ?? .map([:])
                try child.insert(value, at: Array(path.dropFirst()), key: key)
                children[path[0]] = child
            }
            self = .map(children)
        }

        subscript(_ key: String) -> FormTree? {
            guard case .map(let children) = self else { return nil }
            return children[key]
        }

        var text: String? {
            if case .value(let text) = self { return text }
            return nil
        }

        /// Refuses keys other than `allowed` (Stripe refuses unknown parameters).
        func keys(allowed: Set<String>, at param: String) throws(Refusal) -> [String: FormTree] {
            guard case .map(let children) = self else { throw .invalid(param, "Invalid object: \(param) must be a hash") }
            for key in children.keys.sorted() where !allowed.contains(key) { throw .unknown(param.isEmpty ? key : "\(param)[\(key)]") }
            return children
        }

        func string(_ key: String, at param: String, required: Bool = false) throws(Refusal) -> String? {
            let name = param.isEmpty ? key : "\(param)[\(key)]"
            guard let child = self[key] else {
                if required { throw .missing(name) }
                return nil
            }
            guard let text = child.text else { throw .invalid(name, "Invalid string: \(name) must be a string") }
            return text
        }

        func integer(_ key: String, at param: String, minimum: Int, required: Bool = false) throws(Refusal) -> Int? {
            let name = param.isEmpty ? key : "\(param)[\(key)]"
            guard let text = try string(key, at: param, required: required) else { return nil }
            guard let number = Int(text), number >= minimum else { throw .invalid(name, "Invalid integer: \(text)") }
            return number
        }

        /// Stripe's metadata limits: 50 keys, keys up to 40 characters, values up to 500.
        func metadata(at param: String) throws(Refusal) -> [String: String] {
            guard let tree = self["metadata"] else { return [:] }
            let name = param.isEmpty ? "metadata" : "\(param)[metadata]"
            guard case .map(let children) = tree else { throw .invalid(name, "Invalid object: metadata must be a hash") }
            guard children.count <= 50 else { throw .invalid(name, "Metadata can have at most 50 keys.") }
            var result: [String: String] = [:]
            for (key, value) in children {
                guard let text = value.text, key.count <= 40, text.count <= 500 else {
                    throw .invalid("\(name)[\(key)]", "Metadata keys are at most 40 characters and values at most 500 characters.")
                }
                result[key] = text
            }
            return result
        }
    }

    struct Line {
        var name: String
        var unitAmount: Int
        var quantity: Int
        var interval: String?
        var intervalCount: Int
    }

    struct Session {
        var id: String
        var mode: String
        var currency: String
        var lines: [Line]
        var successURL: String?
        var cancelURL: String?
        var clientReferenceId: String?
        var customerEmail: String?
        var metadata: [String: String]
        var subscriptionMetadata: [String: String]
        var paymentIntentMetadata: [String: String]
        var created: Date
        var base: String
        var status = "open"
        var paymentStatus = "unpaid"
        var customer: String?
        var subscription: String?
        var paymentIntent: String?
        var charge: String?
        var amountRefunded = 0

        var amountTotal: Int { lines.reduce(0) { $0 + $1.unitAmount * $1.quantity } }

        init(form: FormTree, id: String, base: String, created: Date) throws(Refusal) {
            let top = try form.keys(allowed: ["mode", "line_items", "success_url", "cancel_url", "client_reference_id", "customer_email",
                                              "metadata", "subscription_data", "payment_intent_data", "expires_at", "locale"], at: "")
            guard let mode = try form.string("mode", at: "", required: true) else { throw .missing("mode") }
            guard ["payment", "subscription"].contains(mode) else {
                throw .invalid("mode", "Invalid mode: must be one of payment or subscription (setup is not faked)")
            }
            if mode == "payment", top["subscription_data"] != nil {
                throw Refusal(param: "subscription_data", message: "You can not pass `subscription_data` in `payment` mode.")
            }
            if mode == "subscription", top["payment_intent_data"] != nil {
                throw Refusal(param: "payment_intent_data", message: "You can not pass `payment_intent_data` in `subscription` mode.")
            }
            guard let items = top["line_items"] else { throw .missing("line_items") }
            guard case .map(let indexed) = items, !indexed.isEmpty else { throw .invalid("line_items", "Invalid array: line_items") }
            var lines: [Line] = []
            var currencies = Set<String>()
            for index in 0..<indexed.count {
                let param = "line_items[\(index)]"
                guard let item = indexed[String(index)] else { throw .invalid("line_items", "Invalid array: line_items must be indexed from 0") }
                _ = try item.keys(allowed: ["price_data", "quantity"], at: param)
                guard let price = item["price_data"] else { throw .missing("\(param)[price_data]") }
                let priceParam = "\(param)[price_data]"
                _ = try price.keys(allowed: ["currency", "product_data", "unit_amount", "recurring"], at: priceParam)
                guard let currency = try price.string("currency", at: priceParam, required: true)?.lowercased(),
                      currency.count == 3, currency.allSatisfy({ $0 >= "a" && $0 <= "z" }) else {
                    throw .invalid("\(priceParam)[currency]", "Invalid currency: must be a three-letter ISO code")
                }
                currencies.insert(currency)
                guard let product = price["product_data"] else { throw .missing("\(priceParam)[product_data]") }
                _ = try product.keys(allowed: ["name", "description", "metadata"], at: "\(priceParam)[product_data]")
                guard let name = try product.string("name", at: "\(priceParam)[product_data]", required: true), !name.isEmpty else {
                    throw .missing("\(priceParam)[product_data][name]")
                }
                let unitAmount = try price.integer("unit_amount", at: priceParam, minimum: 0, required: true) ?? 0
                var interval: String?
                var intervalCount = 1
                if let recurring = price["recurring"] {
                    let recurringParam = "\(priceParam)[recurring]"
                    _ = try recurring.keys(allowed: ["interval", "interval_count"], at: recurringParam)
                    interval = try recurring.string("interval", at: recurringParam, required: true)
                    guard ["day", "week", "month", "year"].contains(interval ?? "") else {
                        throw .invalid("\(recurringParam)[interval]", "Invalid interval: must be one of day, week, month, or year")
                    }
                    intervalCount = try recurring.integer("interval_count", at: recurringParam, minimum: 1) ?? 1
                }
                let quantity = try item.integer("quantity", at: param, minimum: 1, required: true) ?? 1
                lines.append(Line(name: name, unitAmount: unitAmount, quantity: quantity, interval: interval, intervalCount: intervalCount))
            }
            guard currencies.count == 1, let currency = currencies.first else {
                throw .invalid("line_items", "All line items of a Checkout Session must have the same currency.")
            }
            if mode == "subscription", !lines.contains(where: { $0.interval != nil }) {
                throw Refusal(param: "line_items", message: "You must provide at least one recurring price in `subscription` mode when using prices.")
            }
            if mode == "payment", lines.contains(where: { $0.interval != nil }) {
                throw Refusal(param: "line_items", message: "You specified `payment` mode but passed a recurring price. "
                                  + "Either switch to `subscription` mode or use only one-time prices.")
            }
            for key in ["success_url", "cancel_url"] {
                if let url = try form.string(key, at: ""), URL(string: url)?.scheme.map({ ["http", "https"].contains($0) }) != true {
                    throw .invalid(key, "Not a valid URL")
                }
            }
            let email = try form.string("customer_email", at: "")
            if let email, !email.contains("@") { throw .invalid("customer_email", "Invalid email address: \(email)") }
            let subscriptionData = top["subscription_data"]
            let paymentIntentData = top["payment_intent_data"]
            _ = try subscriptionData?.keys(allowed: ["metadata", "description", "trial_period_days"], at: "subscription_data")
            _ = try paymentIntentData?.keys(allowed: ["metadata", "description", "receipt_email"], at: "payment_intent_data")
            self.id = id
            self.mode = mode
            self.currency = currency
            self.lines = lines
            self.successURL = try form.string("success_url", at: "")
            self.cancelURL = try form.string("cancel_url", at: "")
            self.clientReferenceId = try form.string("client_reference_id", at: "")
            self.customerEmail = email
            self.metadata = try form.metadata(at: "")
            self.subscriptionMetadata = try subscriptionData?.metadata(at: "subscription_data") ?? [:]
            self.paymentIntentMetadata = try paymentIntentData?.metadata(at: "payment_intent_data") ?? [:]
            self.created = created
            self.base = base
        }

        var json: JSONValue {
            .object([
                JSONMember("id", .string(id)), JSONMember("object", .string("checkout.session")),
                JSONMember("amount_subtotal", FakeStripe.number(amountTotal)), JSONMember("amount_total", FakeStripe.number(amountTotal)),
                JSONMember("cancel_url", FakeStripe.optional(cancelURL)), JSONMember("client_reference_id", FakeStripe.optional(clientReferenceId)),
                JSONMember("created", FakeStripe.unix(created)), JSONMember("currency", .string(currency)),
                JSONMember("customer", FakeStripe.optional(customer)),
                JSONMember("customer_details", status == "complete"
                           ? .object([JSONMember("email", FakeStripe.optional(customerEmail))]) : .null),
                JSONMember("customer_email", FakeStripe.optional(customerEmail)),
                JSONMember("expires_at", FakeStripe.unix(created + 86_400)), JSONMember("livemode", .bool(false)),
                JSONMember("metadata", FakeStripe.metadata(metadata)), JSONMember("mode", .string(mode)),
                JSONMember("payment_intent", FakeStripe.optional(paymentIntent)), JSONMember("payment_status", .string(paymentStatus)),
                JSONMember("status", .string(status)), JSONMember("subscription", FakeStripe.optional(subscription)),
                JSONMember("success_url", FakeStripe.optional(successURL)),
                // Stripe clears the URL once the session is no longer open.
                JSONMember("url", status == "open" ? .string("\(base)/pay/\(id)") : .null),
            ])
        }
    }

    struct Subscription {
        var id: String
        var customer: String
        var currency: String
        var amount: Int
        var interval: String
        var intervalCount: Int
        var periodStart: Date
        var periodEnd: Date
        var metadata: [String: String]
        var itemId = FakeStripe.newId("si")
        var status = "active"
        var cancelAtPeriodEnd = false
        var endedAt: Date?
        var invoices = 0

        init(id: String, customer: String, currency: String, amount: Int, interval: String, intervalCount: Int, periodStart: Date,
             metadata: [String: String]) {
            self.id = id
            self.customer = customer
            self.currency = currency
            self.amount = amount
            self.interval = interval
            self.intervalCount = intervalCount
            self.periodStart = periodStart
            self.periodEnd = periodStart
            self.metadata = metadata
            self.periodEnd = end(after: periodStart)
        }

        /// One billing interval after `start`, on the UTC calendar.
        func end(after start: Date) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let component: Calendar.Component = switch interval {
            case "day": .day
            case "week": .weekOfYear
            case "year": .year
            default: .month
            }
            return calendar.date(byAdding: component, value: intervalCount, to: start) ?? start
        }

        var json: JSONValue {
            .object([
                JSONMember("id", .string(id)), JSONMember("object", .string("subscription")),
                JSONMember("cancel_at_period_end", .bool(cancelAtPeriodEnd)),
                JSONMember("canceled_at", endedAt.map(FakeStripe.unix) ?? .null), JSONMember("currency", .string(currency)),
                JSONMember("customer", .string(customer)), JSONMember("ended_at", endedAt.map(FakeStripe.unix) ?? .null),
                JSONMember("items", .object([
                    JSONMember("object", .string("list")),
                    JSONMember("data", .array([.object([
                        JSONMember("id", .string(itemId)), JSONMember("object", .string("subscription_item")),
                        JSONMember("current_period_end", FakeStripe.unix(periodEnd)),
                        JSONMember("current_period_start", FakeStripe.unix(periodStart)),
                        JSONMember("price", .object([
                            JSONMember("currency", .string(currency)), JSONMember("unit_amount", FakeStripe.number(amount)),
                            JSONMember("recurring", .object([JSONMember("interval", .string(interval)),
                                                             JSONMember("interval_count", FakeStripe.number(intervalCount))])),
                        ])),
                        JSONMember("quantity", .number("1")),
                    ])])),
                    JSONMember("has_more", .bool(false)),
                ])),
                JSONMember("livemode", .bool(false)), JSONMember("metadata", FakeStripe.metadata(metadata)),
                JSONMember("status", .string(status)),
            ])
        }

        /// An invoice for `period` (its line's period). The invoice's own `period_start`/`period_end`
        /// are the period just ended, as Stripe's are for a renewal: a reader must use the line's period.
        func invoice(paid: Bool, reason: String, usagePeriod: (Date, Date)?, period: (Date, Date), paymentIntent: String? = nil) -> JSONValue {
            let usage = usagePeriod ?? (period.0, period.0)
            let payments: [JSONValue] = paymentIntent.map { intent in
                [.object([JSONMember("object", .string("invoice_payment")), JSONMember("status", .string("paid")),
                          JSONMember("payment", .object([JSONMember("payment_intent", .string(intent)), JSONMember("type", .string("payment_intent"))]))])]
            } ?? []
            return .object([
                JSONMember("id", .string(FakeStripe.newId("in"))), JSONMember("object", .string("invoice")),
                JSONMember("amount_due", FakeStripe.number(amount)), JSONMember("amount_paid", FakeStripe.number(paid ? amount : 0)),
                JSONMember("amount_remaining", FakeStripe.number(paid ? 0 : amount)), JSONMember("attempt_count", .number("1")),
                JSONMember("billing_reason", .string(reason)), JSONMember("currency", .string(currency)),
                JSONMember("customer", .string(customer)),
                JSONMember("lines", .object([
                    JSONMember("object", .string("list")),
                    JSONMember("data", .array([.object([
                        JSONMember("id", .string(FakeStripe.newId("il"))), JSONMember("object", .string("line_item")),
                        JSONMember("amount", FakeStripe.number(amount)), JSONMember("currency", .string(currency)),
                        JSONMember("period", .object([JSONMember("end", FakeStripe.unix(period.1)), JSONMember("start", FakeStripe.unix(period.0))])),
                    ])])),
                    JSONMember("has_more", .bool(false)),
                ])),
                JSONMember("livemode", .bool(false)),
                JSONMember("parent", .object([
                    JSONMember("quote_details", .null),
                    JSONMember("subscription_details", .object([
                        JSONMember("metadata", FakeStripe.metadata(metadata)), JSONMember("subscription", .string(id)),
                    ])),
                    JSONMember("type", .string("subscription_details")),
                ])),
                JSONMember("payments", .object([JSONMember("data", .array(payments)), JSONMember("object", .string("list"))])),
                JSONMember("period_end", FakeStripe.unix(usage.1)), JSONMember("period_start", FakeStripe.unix(usage.0)),
                JSONMember("status", .string(paid ? "paid" : "open")),
            ])
        }
    }
}
