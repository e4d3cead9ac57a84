import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
import SoukIntegrations
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Buying an app, on both databases: `POST /api/v1/checkout` through the
/// development processor (no money moves) and through Stripe (a local fake that speaks its wire
/// format and signs its webhooks): the order, the same order while open, the webhook that pays it
/// (replayed, unpaid, forged), delayed payment methods, expired sessions, full and partial refunds,
/// an outage — each checked against the license answer.
@Suite struct CheckoutTests {
    static let device = "a1b2c3d4e5f60718"
    static let marketplace = CommerceCatalog(
        app: AppPricing.marketplaceApp, entitlements: [EntitlementDefinition(id: "member", title: "Member")],
        products: [ProductDefinition(id: "member.monthly", type: .autoRenewable, group: "membership", level: 1, period: ISODuration(months: 1),
                                     prices: [Price(currency: "USD", amount: 499)], entitlements: ["member"])])

    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AppDataTests.prepare(runtime, paths)
        _ = try await runtime.commerceCatalogs.apply(Self.marketplace)
        try await runtime.catalog.setPricing(appleItemId: 1, prices: [Price(currency: "USD", amount: 299), Price(currency: "EUR", amount: 279)],
                                             requiresEntitlement: nil)
        try await runtime.catalog.setPricing(appleItemId: 2, prices: nil, requiresEntitlement: .some("member"))
    }

    /// The development processor, chosen explicitly (the default, `none`, sells nothing).
    static let development: @Sendable (inout SoukConfig) -> Void = { $0.commerce.paymentProcessor = "development" }

    static func token(_ runtime: SoukRuntime) async throws -> String {
        let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
        let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
        return try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get().accessToken
    }

    static func buy(_ client: any TestClientProtocol, _ body: String, token: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/api/v1/checkout", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    /// Not an outage (no 5xx): without `stripeWebhookSecret` the endpoint is not there; Stripe retries.
    @Test func withoutASecretTheStripeWebhookIsNotThere() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: "/webhooks/stripe", method: .post, headers: [.init("Stripe-Signature")!: "t=1,v1=00"],
                                                    body: ByteBuffer(string: "{}"))
            #expect(response.status == .notFound)
            #expect(String(buffer: response.body).contains("not configured on this server"))
            // Unsigned is refused as it would be by a configured server.
            let unsigned = try await client.execute(uri: "/webhooks/stripe", method: .post, body: ByteBuffer(string: "{}"))
            #expect(unsigned.status == .badRequest && String(buffer: unsigned.body).contains("no Stripe-Signature header"))
        }
    }

    @Test(arguments: TestBackend.available)
    func theDevelopmentProcessorSellsWithoutMoney(backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: Self.development, prepare: Self.prepare) { client, runtime in
            try await runtime.catalogIndex.refresh()
            let token = try await Self.token(runtime)
            let licensing = try await LicenseClient.make(client)
            #expect(try await Self.buy(client, #"{"appleItemId": "1"}"#, token: nil).status == .unauthorized)
            #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
            let bought = try await Self.buy(client, #"{"appleItemId": "1", "currency": "eur"}"#, token: token)
            #expect(bought.status == .created)
            let order = try Self.json(bought)
            #expect((order["url"] as? String)?.hasPrefix("https://souk.test/apps/1?order=") == true)
            let licensed = try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102)], token: token))
            #expect(licensed.licenses.count == 1)
            let stored = try #require(try await MarketplaceOrderStore(database: runtime.database).orders(
                account: try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()).first)
            #expect(stored.status == .paid && stored.price == Price(currency: "EUR", amount: 279) && stored.amountPaid == 279)
            #expect(stored.processor == "development" && stored.environment == .production)
            // Owned, free, included, unknown, and what cannot be bought yet.
            let again = try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token)
            #expect(again.status == .conflict)
            #expect(try Self.json(again)["type"] as? String == "urn:souk:problem:already-owned")
            #expect(try await Self.buy(client, #"{"appleItemId": "4"}"#, token: token).status == .conflict)
            #expect(try await Self.buy(client, #"{"appleItemId": "2"}"#, token: token).status == .unprocessableContent)
            #expect(try await Self.buy(client, #"{"appleItemId": "77"}"#, token: token).status == .notFound)
            // A membership plan (development processor: no money): its apps open at once, and again is 409.
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: token).status.code == 402)
            let joined = try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token)
            #expect(joined.status == .created)
            #expect(try Self.json(joined)["url"] as? String == "https://souk.test/account")
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
            let held = try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token)
            #expect(held.status == .conflict)
            #expect(try Self.json(held)["accountURL"] as? String == "https://souk.test/account")
            #expect(try await Self.buy(client, #"{"productId": "member.yearly"}"#, token: token).status == .notFound)
            #expect(try await Self.buy(client, #"{"productId": "member.monthly", "appleItemId": "1"}"#, token: token).status == .badRequest)
            let receipts = try await client.execute(uri: "/api/v1/purchases", method: .get, headers: [.authorization: "Bearer \(token)"])
            let kinds = try #require(try JSONSerialization.jsonObject(with: Data(buffer: receipts.body)) as? [[String: Any]]).map { $0["kind"] as? String }
            #expect(kinds.filter { $0 == "purchase" }.count == 2)
            #expect(try await Self.buy(client, #"{}"#, token: token).status == .badRequest)
            // Bad input: a clear 400, and no order written for it.
            #expect(try await Self.buy(client, "not json", token: token).status == .badRequest)
            #expect(try await Self.buy(client, #"{"appleItemId": "one"}"#, token: token).status == .badRequest)
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            #expect(try await MarketplaceOrderStore(database: runtime.database).orders(account: account).count == 1)
        }
    }

    /// The server with Stripe as its processor, against a fake Stripe on a local port.
    static func withStripe(_ backend: TestBackend, faults: StoreFaults = StoreFaults(),
                           _ body: @escaping @Sendable (any TestClientProtocol, SoukRuntime, FakeStripe, String) async throws -> Void) async throws {
        let stripe = FakeStripe()
        try await FakeStoreServer.run(faults: faults, routes: { stripe.routes($0) }) { stripeURL in
            try await ServerFixture.withRuntime(backend, configure: { config in
                config.commerce.paymentProcessor = "stripe"
                config.commerce.stripeBaseURL = stripeURL
                config.commerce.stripeSecretKey = stripe.secretKey
                config.commerce.stripeWebhookSecret = stripe.webhookSecret
                config.commerce.stores.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 2,
                                                                requestTimeout: .seconds(60))
            }, prepare: Self.prepare) { client, runtime in
                try await runtime.catalogIndex.refresh()
                try await body(client, runtime, stripe, stripeURL)
            }
        }
    }

    /// Sends a webhook as Stripe signs it.
    static func deliver(_ client: any TestClientProtocol, _ stripe: FakeStripe, _ payload: [UInt8]) async throws -> TestResponse {
        try await client.execute(uri: "/webhooks/stripe", method: .post,
                                 headers: [.contentType: "application/json", HTTPField.Name("Stripe-Signature")!: stripe.signatureHeader(payload)],
                                 body: ByteBuffer(bytes: payload))
    }

    /// A checkout started: its order id and the Checkout Session's id.
    static func checkout(_ client: any TestClientProtocol, _ body: String, token: String, stripeURL: String) async throws -> (order: String, session: String) {
        let started = try await Self.buy(client, body, token: token)
        #expect(started.status == .created)
        let json = try Self.json(started)
        let url = try #require(json["url"] as? String)
        #expect(url.hasPrefix(stripeURL + "/pay/"))
        return (try #require(json["orderId"] as? String), String(url.dropFirst((stripeURL + "/pay/").count)))
    }

    /// The session as `checkout.session.expired` carries it (the fake never expires one by itself).
    static func expired(_ stripe: FakeStripe, _ session: String) throws -> [UInt8] {
        let open = try #require(stripe.session(session)).compactText()
        let text = open.replacingOccurrences(of: #""status":"open""#, with: #""status":"expired""#)
        #expect(text != open)
        return stripe.event(type: "checkout.session.expired", object: try JSONValue.parse(Array(text.utf8)))
    }

    static func receipts(_ client: any TestClientProtocol, token: String) async throws -> [[String: Any]] {
        let answer = try await client.execute(uri: "/api/v1/purchases", method: .get, headers: [.authorization: "Bearer \(token)"])
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [[String: Any]])
    }

    @Test(arguments: TestBackend.available)
    func stripeCheckoutIsPaidBySignedWebhooksOnly(backend: TestBackend) async throws {
        let faults = StoreFaults()
        try await Self.withStripe(backend, faults: faults) { client, runtime, stripe, stripeURL in
            try await Self.stripeFlow(client, token: try await Self.token(runtime), stripe: stripe, faults: faults, stripeURL: stripeURL)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDelayedPaymentPaysOnlyWhenItSucceeds(backend: TestBackend) async throws {
        try await Self.withStripe(backend) { client, runtime, stripe, stripeURL in
            let token = try await Self.token(runtime)
            let licensing = try await LicenseClient.make(client)
            // SEPA debit: completed unpaid grants nothing; async_payment_succeeded pays it (once).
            let (orderId, session) = try await Self.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            let completed = try stripe.complete(session, paid: true)
            let unpaid = try JSONValue.parse(Array(completed.compactText()
                .replacingOccurrences(of: #""payment_status":"paid""#, with: #""payment_status":"unpaid""#).utf8))
            #expect(try await Self.deliver(client, stripe, stripe.event(type: "checkout.session.completed", object: unpaid)).status == .ok)
            #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
            let succeeded = stripe.event(type: "checkout.session.async_payment_succeeded", object: completed)
            #expect(try await Self.deliver(client, stripe, succeeded).status == .ok)
            #expect(try await Self.deliver(client, stripe, succeeded).status == .ok)  // a replay changes nothing
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102)], token: token)).licenses.count == 1)
            let orderUUID = try #require(UUID(uuidString: orderId))
            let order = try #require(try await MarketplaceOrderStore(database: runtime.database).order(orderUUID))
            #expect(order.status == .paid && order.amountPaid == 299)
            #expect(try await Self.receipts(client, token: token).map { $0["kind"] as? String } == ["purchase"])
            // A plan paid the same way starts with async_payment_succeeded.
            let plan = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            let planSucceeded = stripe.event(type: "checkout.session.async_payment_succeeded", object: try stripe.complete(plan.session, paid: true))
            #expect(try await Self.deliver(client, stripe, planSucceeded).status == .ok)
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
            #expect(try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token).status == .conflict)
        }
    }

    /// Stripe does not order its events, and since API version basil a charge names no invoice.
    @Test(arguments: TestBackend.available)
    func aPlanInvoiceBeforeItsSessionStartsThePlanAndARefundFindsTheInvoiceByItsPayment(backend: TestBackend) async throws {
        try await Self.withStripe(backend) { client, runtime, stripe, stripeURL in
            let token = try await Self.token(runtime)
            let licensing = try await LicenseClient.make(client)
            let plan = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            let completed = stripe.event(type: "checkout.session.completed", object: try stripe.complete(plan.session, paid: true))
            let subscription = try #require(stripe.subscriptionId(forSession: plan.session))
            let first = try stripe.invoicePaid(subscription: subscription)
            // The first invoice arrives before the session: it starts the plan and its charge is a purchase.
            #expect(try await Self.deliver(client, stripe, first).status == .ok)
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
            #expect(try await Self.deliver(client, stripe, completed).status == .ok)
            #expect(try await Self.deliver(client, stripe, first).status == .ok)
            let renewal = try stripe.invoicePaid(subscription: subscription)
            #expect(try await Self.deliver(client, stripe, renewal).status == .ok)
            func kinds() async throws -> [String] {
                try await Self.receipts(client, token: token).compactMap { $0["kind"] as? String }.sorted()
            }
            #expect(try await kinds() == ["purchase", "renewal"])
            // The renewal's invoice refunded: the charge names only its PaymentIntent.
            let invoiceId = try #require((try JSONValue.parse(renewal))["data"]?["object"]?["id"]?.stringValue)
            let refund = try stripe.refund(invoice: invoiceId)
            #expect(try await Self.deliver(client, stripe, refund).status == .ok)
            #expect(try await Self.deliver(client, stripe, refund).status == .ok)
            #expect(try await kinds() == ["purchase", "refund", "renewal"])
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: token).status.code == 402)
        }
    }

    /// A signed event whose object lacks what Souk reads is a 400 naming the field, never a 500.
    @Test(arguments: TestBackend.available)
    func aSignedEventSoukCannotReadIsRefusedNotAFailure(backend: TestBackend) async throws {
        try await Self.withStripe(backend) { client, _, stripe, _ in
            let event = stripe.event(type: "checkout.session.completed", object: .object([JSONMember("object", .string("checkout.session"))]))
            let response = try await Self.deliver(client, stripe, event)
            #expect(response.status == .badRequest)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(String(buffer: response.body).contains("id"))
        }
    }

    @Test(arguments: TestBackend.available)
    func aFailedOrExpiredCheckoutMakesWayForANewOneAndALatePaymentStillCounts(backend: TestBackend) async throws {
        try await Self.withStripe(backend) { client, runtime, stripe, stripeURL in
            let token = try await Self.token(runtime)
            let licensing = try await LicenseClient.make(client)
            let orders = MarketplaceOrderStore(database: runtime.database)
            func status(_ id: String) async throws -> MarketplaceOrder.Status? { try await orders.order(try #require(UUID(uuidString: id)))?.status }
            // The delayed payment failed: the order fails, and the next checkout is a new order and session.
            let first = try await Self.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            let failed = stripe.event(type: "checkout.session.async_payment_failed", object: try stripe.complete(first.session, paid: false))
            #expect(try await Self.deliver(client, stripe, failed).status == .ok)
            #expect(try await status(first.order) == .failed)
            let second = try await Self.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            #expect(second.order != first.order && second.session != first.session && stripe.sessionCount == 2)
            #expect(try await Self.deliver(client, stripe, failed).status == .ok)  // a replay changes nothing
            #expect(try Self.json(try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token))["orderId"] as? String == second.order)
            // The session expired: the order is cancelled, and the next checkout is new again.
            let expired = try Self.expired(stripe, second.session)
            #expect(try await Self.deliver(client, stripe, expired).status == .ok)
            #expect(try await status(second.order) == .cancelled)
            let third = try await Self.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            #expect(third.order != second.order && third.session != second.session && stripe.sessionCount == 3)
            #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
            #expect(try await Self.receipts(client, token: token).isEmpty)
            // Stripe says the cancelled order's money was taken after all: it is paid (beside the open third).
            let late = stripe.event(type: "checkout.session.completed", object: try stripe.complete(second.session, paid: true))
            #expect(try await Self.deliver(client, stripe, late).status == .ok)
            #expect(try await status(second.order) == .paid)
            #expect(try await status(third.order) == .open)
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102)], token: token)).licenses.count == 1)
            #expect(try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .conflict)
            // A paid order is never changed by these events.
            #expect(try await Self.deliver(client, stripe, expired).status == .ok)
            #expect(try await Self.deliver(client, stripe, stripe.event(type: "checkout.session.async_payment_failed",
                                                                        object: try #require(stripe.session(second.session)))).status == .ok)
            #expect(try await status(second.order) == .paid)
            #expect(try await Self.receipts(client, token: token).map { $0["kind"] as? String } == ["purchase"])
            // A plan: a failed or expired checkout removes the pending subscription; the next one is a new session.
            let plan = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            let planFailed = stripe.event(type: "checkout.session.async_payment_failed", object: try stripe.complete(plan.session, paid: false))
            #expect(try await Self.deliver(client, stripe, planFailed).status == .ok)
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
            #expect(try await plans.subscriptions(account: account).isEmpty)
            let plan2 = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            #expect(plan2.order != plan.order && plan2.session != plan.session && stripe.sessionCount == 5)
            #expect(try await Self.deliver(client, stripe, try Self.expired(stripe, plan2.session)).status == .ok)
            #expect(try await plans.subscriptions(account: account).isEmpty)
            let plan3 = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            #expect(plan3.session != plan2.session && stripe.sessionCount == 6)
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: token).status.code == 402)
            // A started plan is never removed by a stale event of its session.
            let paidPlan = stripe.event(type: "checkout.session.completed", object: try stripe.complete(plan3.session, paid: true))
            #expect(try await Self.deliver(client, stripe, paidPlan).status == .ok)
            #expect(try await Self.deliver(client, stripe, stripe.event(type: "checkout.session.expired",
                                                                        object: try #require(stripe.session(plan3.session)))).status == .ok)
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPartialRefundKeepsTheAppAndListsItsAmount(backend: TestBackend) async throws {
        try await Self.withStripe(backend) { client, runtime, stripe, stripeURL in
            let token = try await Self.token(runtime)
            let licensing = try await LicenseClient.make(client)
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let orders = MarketplaceOrderStore(database: runtime.database)
            let bought = try await Self.checkout(client, #"{"appleItemId": "1"}"#, token: token, stripeURL: stripeURL)
            #expect(try await Self.deliver(client, stripe, stripe.event(type: "checkout.session.completed",
                                                                        object: try stripe.complete(bought.session, paid: true))).status == .ok)
            func refunds() async throws -> [Int?] {
                try await Self.receipts(client, token: token).filter { $0["kind"] as? String == "refund" && $0["appleItemId"] != nil }
                    .map { $0["amount"] as? Int }
            }
            // 1.00 back: the app stays, the receipts say -100; a replay changes nothing.
            let partial = try stripe.refund(session: bought.session, amount: 100)
            #expect(try await Self.deliver(client, stripe, partial).status == .ok)
            #expect(try await Self.deliver(client, stripe, partial).status == .ok)
            #expect(try await orders.owns(account: account, appleItemId: 1))
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102)], token: token)).licenses.count == 1)
            #expect(try await refunds() == [-100])
            #expect(Set(try await Self.receipts(client, token: token).compactMap { $0["amount"] as? Int }) == [299, -100])
            // 0.50 more: the total (150) is kept, never a sum; the older event arriving late changes nothing.
            #expect(try await Self.deliver(client, stripe, try stripe.refund(session: bought.session, amount: 50)).status == .ok)
            #expect(try await Self.deliver(client, stripe, partial).status == .ok)
            #expect(try await refunds() == [-150])
            #expect(try await orders.owns(account: account, appleItemId: 1))
            // The rest: the app goes, the one refund entry says the whole amount.
            let full = try stripe.refund(session: bought.session)
            #expect(try await Self.deliver(client, stripe, full).status == .ok)
            #expect(try await Self.deliver(client, stripe, full).status == .ok)
            #expect(!(try await orders.owns(account: account, appleItemId: 1)))
            #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
            #expect(try await refunds() == [-299])
            // A plan's invoice refunded in part: a negative entry, the plan runs on; in full: it ends.
            let plan = try await Self.checkout(client, #"{"productId": "member.monthly"}"#, token: token, stripeURL: stripeURL)
            #expect(try await Self.deliver(client, stripe, stripe.event(type: "checkout.session.completed",
                                                                        object: try stripe.complete(plan.session, paid: true))).status == .ok)
            let subscription = try #require(stripe.subscriptionId(forSession: plan.session))
            let invoicePaid = try stripe.invoicePaid(subscription: subscription)
            #expect(try await Self.deliver(client, stripe, invoicePaid).status == .ok)
            let invoiceObject = (try JSONSerialization.jsonObject(with: Data(invoicePaid)) as? [String: Any]).flatMap { $0["data"] as? [String: Any] }?["object"]
            let invoiceId = try #require((invoiceObject as? [String: Any])?["id"] as? String)
            func planRefund(_ amount: Int, full: Bool) throws -> [UInt8] {
                stripe.event(type: "charge.refunded", object: try JSONValue.parse(Array(#"{"id": "ch_plan", "object": "charge", "amount": 499, "amount_refunded": \#(amount), "currency": "usd", "refunded": \#(full), "invoice": "\#(invoiceId)"}"#.utf8)))
            }
            func planRefunds() async throws -> [Int?] {
                try await Self.receipts(client, token: token).filter { $0["kind"] as? String == "refund" && $0["productId"] != nil }.map { $0["amount"] as? Int }
            }
            #expect(try await Self.deliver(client, stripe, try planRefund(200, full: false)).status == .ok)
            #expect(try await Self.deliver(client, stripe, try planRefund(200, full: false)).status == .ok)
            #expect(try await planRefunds() == [-200])
            #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
            #expect(try await Self.deliver(client, stripe, try planRefund(499, full: true)).status == .ok)
            #expect(try await Self.deliver(client, stripe, try planRefund(200, full: false)).status == .ok)
            #expect(try await planRefunds() == [-499])
            #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: token).status.code == 402)
        }
    }

    static func stripeFlow(_ client: any TestClientProtocol, token: String, stripe: FakeStripe, faults: StoreFaults, stripeURL: String) async throws {
        let licensing = try await LicenseClient.make(client)
        let first = try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token)
        #expect(first.status == .created)
        let order = try Self.json(first)
        let url = try #require(order["url"] as? String)
        #expect(url.hasPrefix(stripeURL + "/pay/"))
        let session = String(url.dropFirst((stripeURL + "/pay/").count))
        // Asking again while it is open: the same order, no second session.
        #expect(try Self.json(try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token))["orderId"] as? String == order["orderId"] as? String)
        #expect(stripe.sessionCount == 1)
        #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)

        func deliver(_ payload: [UInt8], secret: String? = nil) async throws -> TestResponse {
            try await client.execute(uri: "/webhooks/stripe", method: .post,
                                     headers: [.contentType: "application/json",
                                               HTTPField.Name("Stripe-Signature")!: stripe.signatureHeader(payload, secret: secret)],
                                     body: ByteBuffer(bytes: payload))
        }
        // Completed but unpaid: nothing granted. A forged signature: refused.
        let completed = try stripe.complete(session, paid: true)
        let unpaidText = completed.compactText().replacingOccurrences(of: #""payment_status":"paid""#, with: #""payment_status":"unpaid""#)
        #expect(unpaidText != completed.compactText())
        let unpaid = stripe.event(type: "checkout.session.completed", object: try JSONValue.parse(Array(unpaidText.utf8)))
        #expect(try await deliver(unpaid).status == .ok)
        #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
        let paid = stripe.event(type: "checkout.session.completed", object: completed)
        #expect(try await deliver(paid, secret: "whsec_forged_0000000000").status == .badRequest)
        #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
        #expect(try await deliver(paid).status == .ok)
        #expect(try await deliver(paid).status == .ok)  // a replay changes nothing
        #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(1, 102)], token: token)).licenses.count == 1)
        // Refunded: the app goes (a new license is refused; a running one at its next renewal).
        #expect(try await deliver(try stripe.refund(session: session)).status == .ok)
        #expect(try await licensing.request(device: Self.device, apps: [(1, 102)], token: token).status.code == 402)
        // The person's receipts: the purchase as charged, the refund as its own negative entry.
        let receipts = try await client.execute(uri: "/api/v1/purchases", method: .get, headers: [.authorization: "Bearer \(token)"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(buffer: receipts.body)) as? [[String: Any]])
        #expect(entries.map { $0["kind"] as? String } == ["refund", "purchase"])
        #expect(entries.map { $0["amount"] as? Int } == [-299, 299] && entries.allSatisfy { $0["appleItemId"] as? String == "1" })
        #expect(entries.allSatisfy { $0["currency"] as? String == "USD" && $0["environment"] as? String == "Production" && $0["date"] is String })
        #expect(try await client.execute(uri: "/api/v1/purchases", method: .get).status == .unauthorized)
        // A membership plan through Stripe: pending (opens nothing) until the paid session, renewed by invoices, ended by Stripe.
        let plan = try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token)
        #expect(plan.status == .created)
        let planJSON = try Self.json(plan)
        let planURL = try #require(planJSON["url"] as? String)
        #expect(planURL.hasPrefix(stripeURL + "/pay/"))
        #expect(try Self.json(try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token))["orderId"] as? String
                == planJSON["orderId"] as? String)
        #expect(stripe.sessionCount == 2)
        #expect(try await licensing.request(device: Self.device, apps: [(2, 201)], token: token).status.code == 402)
        let planSession = String(planURL.dropFirst((stripeURL + "/pay/").count))
        let completedPlan = stripe.event(type: "checkout.session.completed", object: try stripe.complete(planSession, paid: true))
        #expect(try await deliver(completedPlan).status == .ok)
        #expect(try await licensing.licenses(in: try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)).licenses.count == 1)
        let subscription = try #require(stripe.subscriptionId(forSession: planSession))
        let invoicePaid = try stripe.invoicePaid(subscription: subscription)
        #expect(try await deliver(invoicePaid).status == .ok)
        #expect(try await deliver(invoicePaid).status == .ok)  // replayed: charged once
        let invoiceObject = (try JSONSerialization.jsonObject(with: Data(invoicePaid)) as? [String: Any]).flatMap { $0["data"] as? [String: Any] }?["object"]
        let invoiceId = try #require((invoiceObject as? [String: Any])?["id"] as? String)
        let planReceipts = try #require(try JSONSerialization.jsonObject(with: Data(buffer: try await client.execute(
            uri: "/api/v1/purchases", method: .get, headers: [.authorization: "Bearer \(token)"]).body)) as? [[String: Any]])
            .filter { $0["productId"] as? String == "member.monthly" }
        #expect(planReceipts.count == 1 && (planReceipts.first?["amount"] as? Int).map { $0 > 0 } == true)
        #expect(try await deliver(try stripe.invoicePaymentFailed(subscription: subscription)).status == .ok)
        #expect(try await deliver(try stripe.subscriptionDeleted(subscription)).status == .ok)
        let lapsed = try await licensing.request(device: Self.device, apps: [(2, 201)], token: token)
        #expect(lapsed.status.code == 402)
        #expect(try Self.json(lapsed)["type"] as? String == "urn:souk:problem:subscription-expired")
        // The plan's invoice refunded: a refund entry, negative.
        let refund = stripe.event(type: "charge.refunded", object: try JSONValue.parse(Array(#"{"id": "ch_plan", "object": "charge", "amount": 499, "amount_refunded": 499, "currency": "usd", "refunded": true, "invoice": "\#(invoiceId)"}"#.utf8)))
        #expect(try await deliver(refund).status == .ok)
        let afterRefund = try #require(try JSONSerialization.jsonObject(with: Data(buffer: try await client.execute(
            uri: "/api/v1/purchases", method: .get, headers: [.authorization: "Bearer \(token)"]).body)) as? [[String: Any]])
            .filter { $0["productId"] as? String == "member.monthly" }
        #expect(afterRefund.contains { $0["kind"] as? String == "refund" && $0["amount"] as? Int == -499 })
        // Stripe down while a new checkout starts: 503, never a verdict.
        faults.down(status: 503)
        let down = try await Self.buy(client, #"{"appleItemId": "1"}"#, token: token)
        #expect(down.status == .serviceUnavailable)
        faults.recover()
    }
}
