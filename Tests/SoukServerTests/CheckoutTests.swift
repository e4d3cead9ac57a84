import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukIntegrations
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Buying an app (issue 13 items 3-4), on both databases: `POST /api/v1/checkout` through the
/// development processor (no money moves) and through Stripe (a local fake that speaks its wire
/// format and signs its webhooks): the order, the same order while open, the webhook that pays it
/// (replayed, unpaid, forged), a refund, an outage — each checked against the license answer.
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

    @Test(arguments: TestBackend.available)
    func theDevelopmentProcessorSellsWithoutMoney(backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
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
            #expect(try await Self.buy(client, #"{"productId": "member.monthly"}"#, token: token).status == .conflict)
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

    @Test(arguments: TestBackend.available)
    func stripeCheckoutIsPaidBySignedWebhooksOnly(backend: TestBackend) async throws {
        let stripe = FakeStripe()
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: { stripe.routes($0) }) { stripeURL in
            try await ServerFixture.withRuntime(backend, configure: { config in
                config.commerce.paymentProcessor = "stripe"
                config.commerce.stripeBaseURL = stripeURL
                config.commerce.stripeSecretKey = stripe.secretKey
                config.commerce.stripeWebhookSecret = stripe.webhookSecret
                config.commerce.stores.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 2,
                                                                requestTimeout: .seconds(2))
            }, prepare: Self.prepare) { client, runtime in
                try await runtime.catalogIndex.refresh()
                try await Self.stripeFlow(client, token: try await Self.token(runtime), stripe: stripe, faults: faults, stripeURL: stripeURL)
            }
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
