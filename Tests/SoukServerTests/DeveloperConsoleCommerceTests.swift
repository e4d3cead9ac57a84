import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The developer console's promotional grants (by account token) and purchases list (buyers by
/// account token, never email), only of the organisation's own catalogs, on both databases.
@Suite struct DeveloperConsoleCommerceTests {
    typealias T = DeveloperConsoleTests

    @Test(arguments: TestBackend.available)
    func aMemberGrantsAndRevokesByAccountTokenAndSeesBuyersByToken(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: T.prepare) { client, runtime in
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let ada = try await runtime.catalog.requireAccount(email: "ada@example.com").requireID()
            let tokens = AccountTokenStore(database: runtime.database)
            let token = try await tokens.token(account: ada, app: T.acmeCatalog).uuidString.lowercased()
            let grants = "/developer/catalog/\(T.acmeCatalog)/grants"

            // A bad token, entitlement or date is a 400 that grants nothing.
            for fields in [["accountToken": UUID().uuidString, "entitlement": "premium", "reason": "press"],
                           ["accountToken": token, "entitlement": "gold", "reason": "press"],
                           ["accountToken": token, "entitlement": "premium", "reason": "press", "until": "soon"],
                           ["accountToken": token, "entitlement": "premium", "reason": ""]] {
                #expect(try await T.post(client, grants, session: mia, fields).status == .badRequest, "\(fields)")
            }
            let granted = try await T.post(client, grants, session: mia, ["accountToken": token.uppercased(), "entitlement": "premium",
                                                                        "reason": "Press review", "until": "2099-01-01"])
            #expect(granted.headers[.location] == grants + "?done=granted")
            let store = EntitlementGrantStore(purchases: runtime.purchases)
            let grant = try #require(try await store.list(app: T.acmeCatalog).first)
            #expect(grant.accountId == ada && grant.entitlementId == "premium" && grant.reason == "Press review")

            // The list names the person by token, never by email.
            let page = String(buffer: try await T.get(client, grants, session: mia).body)
            #expect(page.contains(token) && !page.contains("ada@example.com") && page.contains("Press review"))

            // The other organisation can neither see nor revoke it; the member can.
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            #expect(try await T.get(client, grants, session: riva).status == .notFound)
            #expect(try await T.post(client, grants, session: riva, ["accountToken": token, "entitlement": "premium", "reason": "x"]).status == .notFound)
            #expect(try await T.post(client, "/developer/grants/\(grant.id.uuidString.lowercased())/revoke", session: riva).status == .notFound)
            #expect(try await store.grant(grant.id)?.revokedAt == nil)
            let revoked = try await T.post(client, "/developer/grants/\(grant.id.uuidString.lowercased())/revoke", session: mia)
            #expect(revoked.headers[.location] == grants + "?done=revoked")
            #expect(try await store.grant(grant.id)?.revokedAt != nil)

            // A purchase of the app: its buyer by account token, never by email.
            let catalog = try #require(try await runtime.commerceCatalogs.state(app: T.acmeCatalog))
            let product = try #require(catalog.product("reader.pass.30d"))
            let sku = try #require(product.skus[.appleStore])
            let claim = PurchaseClaim(store: .appleStore, app: T.acmeCatalog, storeProductId: sku, transactionId: "3000000009", receipt: "-")
            let verified = VerifiedPurchase(store: .appleStore, transactionId: "3000000009", originalTransactionId: "3000000009",
                                            storeProductId: sku, type: product.type, purchaseDate: Date().addingTimeInterval(-60),
                                            quantity: 1, environment: .production, app: T.acmeCatalog, signedDate: Date())
            _ = try await runtime.purchases.record(PurchaseIntake(account: ada, product: product, claim: claim), verified: verified,
                                                   environment: .production, policy: .transfer, catalog: catalog)
            let purchases = try await T.get(client, "/developer/catalog/\(T.acmeCatalog)/purchases", session: mia)
            #expect(purchases.status == .ok)
            let list = String(buffer: purchases.body)
            #expect(list.contains("reader.pass.30d") && list.contains(token) && !list.contains("ada@example.com"))
            #expect(try await T.get(client, "/developer/catalog/\(T.acmeCatalog)/purchases", session: riva).status == .notFound)
            #expect(try await T.get(client, "/developer/catalog/\(T.rivalCatalog)/purchases", session: mia).status == .notFound)

            let actions = try await AuditLog(database: runtime.database).list().filter { $0.actor == "mia@example.com" }.map(\.action)
            #expect(Set(actions) == ["entitlement.grant", "entitlement.revoke"])
        }
    }
}
