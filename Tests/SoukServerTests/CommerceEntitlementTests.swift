import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `GET entitlements`, `entitlement/<id>`, `user-purchases`, consumables (`POST consume`, `GET
/// balances`) and the operator's revocation, after purchases signed by an Apple-shaped test chain.
@Suite struct CommerceEntitlementTests {
    typealias F = CommercePurchaseFixture

    @Test(arguments: TestBackend.available)
    func theYearlyPlanOpensWhatTheMonthlyOpensAndEntitlementIdsAnswerToo(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            #expect(try await f.entitlements(f.alice).isEmpty)
            #expect(try await f.buy("reader.yearly", as: f.alice).status == .created)
            #expect(try await f.entitlements(f.alice) == ["reader.book.1", "reader.monthly", "reader.pass.30d", "reader.yearly"])
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            #expect(try await f.isEntitled(f.alice, to: "book.1"))
            #expect(try await f.isEntitled(f.alice, to: "reader.coins.100") == false)
            #expect(try await f.isEntitled(f.alice, to: "no.such.thing") == false)
            #expect(try await f.entitlements(f.bob).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRetiredProductsBuyersStayEntitled(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            #expect(try await f.buy("reader.monthly", as: f.alice).status == .created)
            var smaller = CommerceCatalogSamples.reader
            smaller.products.removeAll { $0.id == "reader.monthly" }
            _ = try await f.runtime.commerceCatalogs.apply(smaller)
            #expect(try await f.isEntitled(f.alice, to: "reader.monthly"))
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            #expect(try await f.entitlements(f.alice) == ["reader.monthly", "reader.pass.30d"])
            // Still bought by a retired SKU's transaction? It is recorded too (buyers of old app versions).
            #expect(try await f.buy("reader.monthly", as: f.bob).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "reader.monthly"))
        }
    }

    @Test(arguments: TestBackend.available)
    func userPurchasesListsActivePurchasesWithTheirDates(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let bought = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
            let monthly = f.transaction("reader.monthly", purchased: bought, expires: bought.addingTimeInterval(30 * 86_400))
            #expect(try await f.buy("reader.monthly", as: f.alice, monthly).status == .created)
            #expect(try await f.buy("reader.coins.100", as: f.alice).status == .created)
            let response = try await f.get("user-purchases", as: f.alice)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd+applicaster.pipes2+json")
            let feed = try F.json(response, as: Feed.self)
            #expect(feed.id == "customer-\(f.alice.account.uuidString.lowercased())-active-purchases")
            #expect(feed.type["value"] == "active-purchases")
            #expect(feed.title == "Customer Purchases")
            #expect(feed.entry.count == 1)
            #expect(feed.entry.first?.id == "reader.monthly")
            #expect(feed.entry.first?.title == "Monthly")
            #expect(feed.entry.first?.type["value"] == "subscription")
            #expect(feed.entry.first?.extensions["started_at"] == RFC3339.format(bought))
            #expect(feed.entry.first?.extensions["expires_at"] == RFC3339.format(bought.addingTimeInterval(30 * 86_400)))
        }
    }

    struct Feed: Decodable {
        struct Entry: Decodable {
            var id: String
            var title: String
            var type: [String: String]
            var extensions: [String: String]
        }

        var id: String
        var type: [String: String]
        var title: String
        var entry: [Entry]
    }

    @Test(arguments: TestBackend.available)
    func aSecondNonRenewingPassExtendsTheFirst(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let first = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 20 * 86_400).rounded(.down))
            let second = first.addingTimeInterval(86_400)
            #expect(try await f.buy("reader.pass.30d", as: f.alice, f.transaction("reader.pass.30d", purchased: first)).status == .created)
            #expect(try await f.buy("reader.pass.30d", as: f.alice, f.transaction("reader.pass.30d", purchased: second)).status == .created)
            let feed = try F.json(try await f.get("user-purchases", as: f.alice), as: Feed.self)
            let ends = feed.entry.compactMap { $0.extensions["expires_at"] }.sorted()
            // The second runs from the end of the first: 60 days from the first purchase.
            #expect(ends == [RFC3339.format(first.addingTimeInterval(30 * 86_400)), RFC3339.format(first.addingTimeInterval(60 * 86_400))])
            #expect(try await f.isEntitled(f.alice, to: "reader.pass.30d"))
            // A pass bought 40 days ago alone would have ended.
            let old = f.transaction("reader.pass.30d", purchased: Date().addingTimeInterval(-40 * 86_400))
            #expect(try await f.buy("reader.pass.30d", as: f.bob, old).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "reader.pass.30d") == false)
        }
    }

    @Test(arguments: TestBackend.available)
    func consumablesAreBalancesThatNeverGoBelowZero(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            #expect(try await f.buy("reader.coins.100", as: f.alice, f.transaction("reader.coins.100", quantity: 3)).status == .created)
            #expect(try await f.entitlements(f.alice).isEmpty)
            let used = try await f.postJSON("consume", ["productId": "reader.coins.100", "quantity": 2], as: f.alice)
            #expect(used.status == .ok)
            #expect(try F.json(used, as: [String: AnyCodable].self) == ["productId": .string("reader.coins.100"), "environment": .string("Production"),
                                                                         "balance": .int(1)])
            let refused = try await f.postJSON("consume", ["productId": "reader.coins.100", "quantity": 2], as: f.alice)
            #expect(refused.status == .conflict)
            #expect(try F.problemType(refused) == "urn:souk:problem:insufficient-balance")
            #expect(try await f.postJSON("consume", ["productId": "reader.monthly"], as: f.alice).status == .unprocessableContent)
            // Bad input: a clear 400, and the balance is untouched.
            #expect(try await f.postJSON("consume", ["productId": "reader.coins.100", "quantity": 0], as: f.alice).status == .badRequest)
            #expect(try await f.postJSON("consume", ["productId": "reader.coins.100", "quantity": -5], as: f.alice).status == .badRequest)
            #expect(try await f.postJSON("consume", ["quantity": 1], as: f.alice).status == .badRequest)
            let garbage = try await f.client.execute(uri: "/commerce/\(F.app)/consume", method: .post,
                                                     headers: [.authorization: "Bearer \(f.alice.token)", .contentType: "application/json"],
                                                     body: ByteBuffer(string: "{not json"))
            #expect(garbage.status == .badRequest)
            #expect(garbage.headers[.contentType] == "application/problem+json")
            let balances = try F.json(try await f.get("balances", as: f.alice), as: [String: [[String: AnyCodable]]].self)
            #expect(balances["balances"] == [["productId": .string("reader.coins.100"), "environment": .string("Production"), "balance": .int(1)]])
            #expect(try F.json(try await f.get("balances", as: f.bob), as: [String: [[String: AnyCodable]]].self)["balances"] == [])
        }
    }

    @Test(arguments: TestBackend.available)
    func anOperatorRevocationEndsAccessAtOnce(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let payment = try F.paymentId(try await f.buy("reader.yearly", as: f.alice))
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            let paymentId = try #require(UUID(uuidString: payment))
            #expect(try await f.runtime.purchases.revoke(paymentId)?.revokedAt != nil)
            #expect(try await f.isEntitled(f.alice, to: "premium") == false)
            #expect(try await f.entitlements(f.alice).isEmpty)
        }
    }
}
