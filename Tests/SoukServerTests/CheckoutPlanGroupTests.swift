import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// One live or pending membership plan per account and plan group, through `POST
/// /api/v1/checkout` on both databases: many checkouts of a plan at once start one (the others
/// answer `409` with the account page, or — Stripe — the same open checkout once it is recorded),
/// through the development processor and through Stripe; a plan in billing retry is held.
@Suite struct CheckoutPlanGroupTests {
    static let parallel = 16

    /// `count` checkouts of `body` at once; their answers' statuses and bodies.
    static func checkouts(_ client: any TestClientProtocol, _ body: String, token: String,
                          count: Int = parallel) async throws -> [(status: HTTPResponse.Status, json: [String: Any])] {
        try await withThrowingTaskGroup(of: (HTTPResponse.Status, Data).self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await CheckoutTests.buy(client, body, token: token)
                    return (response.status, Data(buffer: response.body))
                }
            }
            var answers: [(status: HTTPResponse.Status, json: [String: Any])] = []
            for try await (status, data) in group {
                answers.append((status, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]))
            }
            return answers
        }
    }

    static func expectOneStarted(_ answers: [(status: HTTPResponse.Status, json: [String: Any])]) {
        #expect(answers.filter { $0.status == .created }.count == 1)
        let refused = answers.filter { $0.status != .created }
        #expect(refused.count == answers.count - 1)
        #expect(refused.allSatisfy { $0.status == .conflict && $0.json["type"] as? String == "urn:souk:problem:already-owned"
                                     && $0.json["accountURL"] as? String == "https://souk.test/account" })
    }

    @Test(arguments: TestBackend.available)
    func manyCheckoutsOfAPlanAtOnceStartOne(backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: CheckoutTests.prepare) { client, runtime in
            let token = try await CheckoutTests.token(runtime)
            Self.expectOneStarted(try await Self.checkouts(client, #"{"productId": "member.monthly"}"#, token: token))
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            #expect(try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: ada).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func manyStripeCheckoutsOfAPlanAtOnceMakeOneSession(backend: TestBackend) async throws {
        try await CheckoutTests.withStripe(backend) { client, runtime, stripe, stripeURL in
            let token = try await CheckoutTests.token(runtime)
            let answers = try await Self.checkouts(client, #"{"productId": "member.monthly"}"#, token: token)
            // One checkout: those that came once its session was recorded answer it again, the others 409.
            let created = answers.filter { $0.status == .created }
            #expect(!created.isEmpty && Set(created.map { $0.json["orderId"] as? String }).count == 1)
            #expect(answers.filter { $0.status == .conflict }.count == answers.count - created.count)
            #expect(stripe.sessionCount == 1)
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let plans = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: ada)
            #expect(plans.count == 1 && plans.first?.pending == true)
            // Once its session is recorded, asking again answers the same checkout.
            let started = try #require(created.first?.json)
            let again = try CheckoutTests.json(try await CheckoutTests.buy(client, #"{"productId": "member.monthly"}"#, token: token))
            #expect(again["orderId"] as? String == started["orderId"] as? String && (again["url"] as? String)?.hasPrefix(stripeURL) == true)
        }
    }

    /// A plan whose renewal failed is in billing retry: it opens nothing, and it is still held.
    /// A yearly plan: its sandbox period (and billing retry) lasts an hour, where a monthly plan's five
    /// minutes could pass between two steps of a test on a loaded machine and end the retry early.
    @Test(arguments: TestBackend.available)
    func aPlanInBillingRetryIsHeld(backend: TestBackend) async throws {
        var catalog = CheckoutTests.marketplace
        catalog.products.append(ProductDefinition(id: "member.yearly", type: .autoRenewable, group: "membership", level: 1,
                                                  period: ISODuration(years: 1), prices: [Price(currency: "USD", amount: 4999)],
                                                  entitlements: ["member"]))
        let yearly = catalog
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: { runtime, paths in
            try await CheckoutTests.prepare(runtime, paths)
            _ = try await runtime.commerceCatalogs.apply(yearly)
        }) { client, runtime in
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            account.sandbox = true  // Apple's accelerated sandbox schedule: a year is an hour
            try await account.save(on: runtime.database.db)
            let token = try await CheckoutTests.token(runtime)
            #expect(try await CheckoutTests.buy(client, #"{"productId": "member.yearly"}"#, token: token).status == .created)
            let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
            let ada = try account.requireID()
            #expect(try await plans.sandbox(.failRenewal(grace: false), account: ada, productId: "member.yearly"))
            _ = try await plans.advanceSandbox(minutes: 61)
            #expect(try await plans.subscriptions(account: ada).first?.state == .billingRetry)
            let again = try await CheckoutTests.buy(client, #"{"productId": "member.yearly"}"#, token: token)
            #expect(again.status == .conflict)
            #expect(try CheckoutTests.json(again)["accountURL"] as? String == "https://souk.test/account")
            #expect(try await plans.subscriptions(account: ada).count == 1)
        }
    }
}
