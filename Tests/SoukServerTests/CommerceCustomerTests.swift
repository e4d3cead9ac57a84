import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `GET /commerce/<app>/customer` after purchases signed by an Apple-shaped test chain and
/// promotional grants; and grants in `GET entitlements`, `entitlement/<id>`.
@Suite struct CommerceCustomerTests {
    typealias F = CommercePurchaseFixture

    static let entitlementKeys: Set<String> = ["id", "productId", "store", "environment", "startedAt", "expiresAt", "willRenew", "periodType",
                                               "paymentId"]
    static let purchaseKeys: Set<String> = ["paymentId", "productId", "store", "type", "subscription", "status", "active", "environment",
                                            "purchaseDate", "expiresDate", "revokedAt", "willRenew", "periodType", "subscriptionState",
                                            "quantity"]

    /// The document as JSON objects (so a `null` is seen as present, unlike a decoded optional).
    static func customer(_ f: F, _ person: F.Person, headers: HTTPFields = [:]) async throws -> (TestResponse, [String: Any]) {
        var headers = headers
        headers[.authorization] = "Bearer \(person.token)"
        let response = try await f.client.execute(uri: "/commerce/\(F.app)/customer", method: .get, headers: headers)
        guard response.status == .ok else { return (response, [:]) }
        let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
        return (response, try #require(object))
    }

    static func grants(_ f: F) -> EntitlementGrantStore { EntitlementGrantStore(purchases: f.runtime.purchases) }

    static func catalog(_ f: F) async throws -> CommerceCatalog {
        try #require(try await f.runtime.commerceCatalogs.state(app: F.app)).catalog
    }

    /// Sets what the store said of a purchase's lifecycle (the reconciliation's columns).
    static func setLifecycle(_ f: F, payment: String, willRenew: Bool?, periodType: String?, state: String?) async throws {
        try await f.runtime.database.sql.raw("""
            UPDATE purchases SET will_renew = \(bind: willRenew), period_type = \(bind: periodType), subscription_state = \(bind: state)
            WHERE id = \(bind: try #require(UUID(uuidString: payment)))
            """).run()
    }

    @Test(arguments: TestBackend.available)
    func theDocumentCarriesEveryFieldWithNullsForEntitlementsGrantsAndPurchases(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let bought = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
            let expires = bought.addingTimeInterval(30 * 86_400)
            let monthly = try F.paymentId(try await f.buy("reader.monthly", as: f.alice,
                                                          f.transaction("reader.monthly", purchased: bought, expires: expires)))
            let coins = try F.paymentId(try await f.buy("reader.coins.100", as: f.alice,
                                                        f.transaction("reader.coins.100", purchased: bought, quantity: 2)))
            try await Self.setLifecycle(f, payment: monthly, willRenew: true, periodType: "trial", state: "active")
            try await Self.setLifecycle(f, payment: coins, willRenew: nil, periodType: nil, state: nil)
            let until = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 7 * 86_400).rounded(.down))
            let grant = try await Self.grants(f).grant(account: f.alice.account, catalog: try await Self.catalog(f), entitlement: "book.1",
                                                       until: until, reason: "press")

            let (response, document) = try await Self.customer(f, f.alice)
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "private, no-store")
            #expect(response.headers[.contentType] == "application/json")
            #expect(Set(document.keys) == ["account", "entitlements", "purchases"])
            let account = try #require(document["account"] as? [String: Any])
            #expect(account["id"] as? String == f.alice.account.uuidString.lowercased())
            #expect(account["email"] as? String == "alice@example.com")
            #expect(account["sandbox"] as? Bool == false)
            let token = try await f.runtime.accountTokens.token(account: f.alice.account, app: F.app)
            #expect(account["accountToken"] as? String == token.uuidString.lowercased())
            #expect(account.count == 4)

            let entitlements = try #require(document["entitlements"] as? [[String: Any]])
            #expect(entitlements.map { $0["id"] as? String } == ["book.1", "premium"])
            #expect(entitlements.allSatisfy { Set($0.keys) == Self.entitlementKeys })
            let book = entitlements[0]
            #expect(book["productId"] is NSNull)
            #expect(book["store"] as? String == "promotional")
            #expect(book["environment"] as? String == "Production")
            #expect(book["startedAt"] as? String == RFC3339.format(grant.startsAt))
            #expect(book["expiresAt"] as? String == RFC3339.format(until))
            #expect(book["willRenew"] as? Bool == false)
            #expect(book["periodType"] as? String == "promotional")
            #expect(book["paymentId"] as? String == grant.id.uuidString.lowercased())
            let premium = entitlements[1]
            #expect(premium["productId"] as? String == "reader.monthly")
            #expect(premium["store"] as? String == "apple_store")
            #expect(premium["environment"] as? String == "Production")
            #expect(premium["startedAt"] as? String == RFC3339.format(bought))
            #expect(premium["expiresAt"] as? String == RFC3339.format(expires))
            #expect(premium["willRenew"] as? Bool == true)
            #expect(premium["periodType"] as? String == "trial")
            #expect(premium["paymentId"] as? String == monthly)

            let purchases = try #require(document["purchases"] as? [[String: Any]])
            #expect(purchases.count == 2)
            #expect(purchases.allSatisfy { Set($0.keys) == Self.purchaseKeys })
            let subscription = purchases[0]
            #expect(subscription["paymentId"] as? String == monthly)
            #expect(subscription["productId"] as? String == "reader.monthly")
            #expect(subscription["store"] as? String == "apple_store")
            #expect(subscription["type"] as? String == "auto-renewable")
            #expect(subscription["subscription"] as? Bool == true)
            #expect(subscription["status"] as? String == "granted")
            #expect(subscription["active"] as? Bool == true)
            #expect(subscription["environment"] as? String == "Production")
            #expect(subscription["purchaseDate"] as? String == RFC3339.format(bought))
            #expect(subscription["expiresDate"] as? String == RFC3339.format(expires))
            #expect(subscription["revokedAt"] is NSNull)
            #expect(subscription["willRenew"] as? Bool == true)
            #expect(subscription["periodType"] as? String == "trial")
            #expect(subscription["subscriptionState"] as? String == "active")
            #expect(subscription["quantity"] as? Int == 1)
            let consumable = purchases[1]
            #expect(consumable["paymentId"] as? String == coins)
            #expect(consumable["productId"] as? String == "reader.coins.100")
            #expect(consumable["type"] as? String == "consumable")
            #expect(consumable["subscription"] as? Bool == false)
            #expect(consumable["status"] as? String == "granted")
            #expect(consumable["active"] as? Bool == false)
            #expect(consumable["purchaseDate"] as? String == RFC3339.format(bought))
            #expect(consumable["expiresDate"] is NSNull)
            #expect(consumable["revokedAt"] is NSNull)
            #expect(consumable["willRenew"] is NSNull)
            #expect(consumable["periodType"] is NSNull)
            #expect(consumable["subscriptionState"] is NSNull)
            #expect(consumable["quantity"] as? Int == 2)

            // A refund shows on the purchase and closes what it opened.
            try await f.runtime.purchases.revoke(try #require(UUID(uuidString: monthly)))
            let (_, after) = try await Self.customer(f, f.alice)
            #expect((after["entitlements"] as? [[String: Any]])?.map { $0["id"] as? String } == ["book.1"])
            let refunded = try #require((after["purchases"] as? [[String: Any]])?.first)
            #expect(refunded["revokedAt"] is String)
            #expect(refunded["active"] as? Bool == false)
        }
    }

    @Test(arguments: TestBackend.available)
    func aSandboxAccountSeesOnlySandboxAndNoOneSeesAnotherAccountsData(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            #expect(try await f.buy("reader.yearly", as: f.bob).status == .created)
            _ = try await Self.grants(f).grant(account: f.bob.account, catalog: try await Self.catalog(f), entitlement: "book.1", until: nil)
            let sandbox = try F.paymentId(try await f.buy("reader.monthly", as: f.sam, f.transaction("reader.monthly", environment: "Sandbox")))
            // A Production purchase the account holds (recorded before it became a sandbox account): never shown to it.
            let catalog = try #require(try await f.runtime.commerceCatalogs.state(app: F.app))
            let product = try #require(catalog.product("reader.pass.30d"))
            let sku = try #require(product.skus[.appleStore])
            let claim = PurchaseClaim(store: .appleStore, app: F.app, storeProductId: sku, transactionId: "3000000001", receipt: "-")
            let verified = VerifiedPurchase(store: .appleStore, transactionId: "3000000001", originalTransactionId: "3000000001",
                                            storeProductId: sku, type: product.type, purchaseDate: Date().addingTimeInterval(-60),
                                            quantity: 1, environment: .production, app: F.app, signedDate: Date())
            _ = try await f.runtime.purchases.record(PurchaseIntake(account: f.sam.account, product: product, claim: claim), verified: verified,
                                                     environment: .production, policy: .transfer, catalog: catalog)
            _ = try await Self.grants(f).grant(account: f.sam.account, catalog: catalog.catalog, entitlement: "book.1", until: nil)

            let (response, document) = try await Self.customer(f, f.sam)
            #expect(response.status == .ok)
            #expect((document["account"] as? [String: Any])?["sandbox"] as? Bool == true)
            let purchases = try #require(document["purchases"] as? [[String: Any]])
            #expect(purchases.map { $0["paymentId"] as? String } == [sandbox])
            #expect(purchases.first?["environment"] as? String == "Sandbox")
            let entitlements = try #require(document["entitlements"] as? [[String: Any]])
            #expect(entitlements.map { $0["id"] as? String } == ["book.1", "premium"])
            #expect(entitlements.allSatisfy { $0["environment"] as? String == "Sandbox" })

            // Alice has nothing: nothing of Bob's or Sam's appears.
            let (_, alice) = try await Self.customer(f, f.alice)
            #expect((alice["entitlements"] as? [[String: Any]])?.isEmpty == true)
            #expect((alice["purchases"] as? [[String: Any]])?.isEmpty == true)
            #expect((alice["account"] as? [String: Any])?["email"] as? String == "alice@example.com")
            let (_, bob) = try await Self.customer(f, f.bob)
            #expect((bob["purchases"] as? [[String: Any]])?.map { $0["productId"] as? String } == ["reader.yearly"])
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutATokenTheAnswerIs401AndAnUnknownAppIs404(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let anonymous = try await f.get("customer", as: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(String(buffer: anonymous.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer realm=") == true)
            let forged = try await f.get("customer", as: nil, token: "not-a-token")
            #expect(forged.status == .unauthorized)
            #expect(forged.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
            let unknown = try await f.client.execute(uri: "/commerce/com.example.unknown/customer", method: .get,
                                                     headers: [.authorization: "Bearer \(f.alice.token)"])
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
        }
    }

    @Test(arguments: TestBackend.available)
    func anUnchangedDocumentAnswers304ToItsETagAndAChangeMovesIt(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let (first, _) = try await Self.customer(f, f.alice)
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            let (unchanged, _) = try await Self.customer(f, f.alice, headers: [.ifNoneMatch: etag])
            #expect(unchanged.status == .notModified)
            #expect(unchanged.body.readableBytes == 0)
            #expect(unchanged.headers[.eTag] == etag)
            // Another person's document is not the same document.
            let (bob, _) = try await Self.customer(f, f.bob, headers: [.ifNoneMatch: etag])
            #expect(bob.status == .ok)
            _ = try await Self.grants(f).grant(account: f.alice.account, catalog: try await Self.catalog(f), entitlement: "premium", until: nil)
            let (changed, document) = try await Self.customer(f, f.alice, headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != etag)
            #expect((document["entitlements"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func aGrantAnswersInEveryEntitlementAnswerUntilRevoked(backend: TestBackend) async throws {
        try await F.with(backend) { (f: F) async throws in
            let grant = try await Self.grants(f).grant(account: f.bob.account, catalog: try await Self.catalog(f), entitlement: "premium",
                                                       until: Date().addingTimeInterval(86_400))
            // The entitlement, and every product whose entitlements it covers (the yearly also needs book.1).
            #expect(try await f.entitlements(f.bob) == ["reader.monthly", "reader.pass.30d"])
            #expect(try await f.isEntitled(f.bob, to: "premium"))
            #expect(try await f.isEntitled(f.bob, to: "reader.monthly"))
            #expect(try await f.isEntitled(f.bob, to: "reader.yearly") == false)
            #expect(try await f.isEntitled(f.alice, to: "premium") == false)
            // A grant is no purchase: user-purchases lists purchases only.
            let feed = try await f.get("user-purchases", as: f.bob)
            #expect(feed.status == .ok)
            #expect(String(buffer: feed.body).contains("\"entry\":[]"))
            // With book.1 too, the yearly opens.
            _ = try await Self.grants(f).grant(account: f.bob.account, catalog: try await Self.catalog(f), entitlement: "book.1", until: nil)
            #expect(try await f.entitlements(f.bob) == ["reader.book.1", "reader.monthly", "reader.pass.30d", "reader.yearly"])
            try await Self.grants(f).revoke(grant.id)
            #expect(try await f.entitlements(f.bob) == ["reader.book.1"])
            #expect(try await f.isEntitled(f.bob, to: "premium") == false)
        }
    }
}
