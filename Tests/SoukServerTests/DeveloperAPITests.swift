import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The developer API (docs/developers.md) through the real `buildApplication`, on both databases:
/// each route's happy path, and what keys, scopes and other organisations' ids are answered.
@Suite struct DeveloperAPITests {
    typealias World = DeveloperAPIWorld

    @Test(arguments: TestBackend.available)
    func anUploadedVersionWaitsInReviewAndTheSameUploadAgainChangesNothing(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let path = "apps/\(World.acmeItem)/versions/9100000001/package"
            let zip = try world.packageZip(version: 9_100_000_001)
            let first = try await client.developer(.put, path, key: world.acmeKey, body: zip, contentType: "application/zip")
            #expect(first.status == .created, "\(first.text)")
            #expect(first.object["reviewState"] as? String == "in_review")
            #expect(first.object["appleVersionId"] as? String == "9100000001")
            let version = try await AppVersionModel.find(appleVersionId: 9_100_000_001, on: runtime.database.db)
            #expect(version?.reviewState == .inReview)
            let again = try await client.developer(.put, path, key: world.acmeKey, body: zip, contentType: "application/zip")
            #expect(again.status == .created && again.text == first.text)
            let imports = try await AuditLog(database: runtime.database).list(action: "package.import")
            #expect(imports.map(\.actor) == ["apikey:" + world.acmeKeyID.uuidString.lowercased()])
            #expect(imports.first?.target == "app:\(World.acmeItem)")

            let versions = try await client.developer(.get, "apps/\(World.acmeItem)/versions", key: world.acmeKey)
            let listed = versions.object["versions"] as? [[String: Any]] ?? []
            #expect(versions.status == .ok && listed.count == 1 && listed.first?["reviewState"] as? String == "in_review")
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutReviewAnUploadedVersionIsReleasedAtOnce(backend: TestBackend) async throws {
        try await World.with(backend, configure: { $0.reviewNewVersions = false }) { client, _, world in
            let answer = try await client.developer(.put, "apps/\(World.acmeItem)/versions/9100000002/package", key: world.acmeKey,
                                                    body: try world.packageZip(version: 9_100_000_002), contentType: "application/zip")
            #expect(answer.status == .created && answer.object["reviewState"] as? String == "released")
        }
    }

    @Test(arguments: TestBackend.available)
    func aPackageOfAnotherVersionOrNoZipIsRefusedNamingTheField(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let other = try await client.developer(.put, "apps/\(World.acmeItem)/versions/9100000009/package", key: world.acmeKey,
                                                   body: try world.packageZip(version: 9_100_000_003), contentType: "application/zip")
            #expect(other.status == .unprocessableContent && other.object["field"] as? String == "appleVersionId", "\(other.text)")
            let junk = try await client.developer(.put, "apps/\(World.acmeItem)/versions/9100000003/package", key: world.acmeKey,
                                                  body: ByteBuffer(string: "not a zip"), contentType: "application/zip")
            #expect(junk.status == .unprocessableContent && junk.object["field"] != nil, "\(junk.text)")
            #expect(try await AppVersionModel.find(appleVersionId: 9_100_000_003, on: runtime.database.db) == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func appsListsOnlyTheOrganisationsAppsAndCatalogs(backend: TestBackend) async throws {
        try await World.with(backend) { client, _, world in
            let answer = try await client.developer(.get, "apps", key: world.acmeKey)
            #expect(answer.status == .ok)
            let apps = (answer.object["apps"] as? [[String: Any]] ?? []).compactMap { $0["appleItemId"] as? String }
            #expect(apps == [String(World.acmeItem), String(World.acmeNotesItem)])
            #expect(answer.object["catalogs"] as? [String] == [World.acmeApp])
        }
    }

    @Test(arguments: TestBackend.available)
    func aCatalogIsReadDryRunAppliedAndCreatedForTheirOwnApp(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let read = try await client.developer(.get, "catalogs/\(World.acmeApp)", key: world.acmeKey)
            #expect(read.status == .ok && read.text.contains("reader.monthly"))
            let smaller = World.catalogFile(World.acmeApp).replacingOccurrences(of: "\"title\": {\"en-US\": \"30-day pass\"}", with: "\"title\": {\"en-US\": \"Month pass\"}")
            let before = try await runtime.commerceCatalogs.store.revision(app: World.acmeApp)
            let dry = try await client.developer(.put, "catalogs/\(World.acmeApp)?dryRun=true", key: world.acmeKey, json: smaller)
            #expect(dry.status == .ok && dry.object["dryRun"] as? Bool == true && dry.object["applied"] as? Bool == false, "\(dry.text)")
            #expect(!(dry.object["changes"] as? [String] ?? []).isEmpty)
            #expect(try await runtime.commerceCatalogs.store.revision(app: World.acmeApp) == before)
            let applied = try await client.developer(.put, "catalogs/\(World.acmeApp)", key: world.acmeKey, json: smaller)
            #expect(applied.status == .ok && applied.object["applied"] as? Bool == true)
            #expect(try await runtime.commerceCatalogs.store.revision(app: World.acmeApp) == before.map { $0 + 1 })
            let again = try await client.developer(.put, "catalogs/\(World.acmeApp)", key: world.acmeKey, json: smaller)
            #expect(again.status == .ok && again.object["applied"] as? Bool == false && (again.object["changes"] as? [String])?.isEmpty == true)
            #expect(try await AuditLog(database: runtime.database).list(action: "catalog.apply").first?.actor == "apikey:" + world.acmeKeyID.uuidString.lowercased())

            let broken = try await client.developer(.put, "catalogs/\(World.acmeApp)", key: world.acmeKey,
                                                    json: smaller.replacingOccurrences(of: "\"amount\": 499}", with: "\"amount\": -1}"))
            #expect(broken.status == .unprocessableContent && (broken.object["field"] as? String)?.hasPrefix("products[0]") == true, "\(broken.text)")
            let wrongApp = try await client.developer(.put, "catalogs/\(World.acmeNotesApp)", key: world.acmeKey, json: smaller)
            #expect(wrongApp.status == .unprocessableContent && wrongApp.object["field"] as? String == "app")

            // A new catalog for one of their own apps is theirs; for anybody else's bundle id there is nothing.
            let created = try await client.developer(.put, "catalogs/\(World.acmeNotesApp)", key: world.acmeKey, json: World.catalogFile(World.acmeNotesApp))
            #expect(created.status == .ok && created.object["applied"] as? Bool == true, "\(created.text)")
            #expect(try await DeveloperDirectory(database: runtime.database).owner(catalog: World.acmeNotesApp) == "acme")
            let foreign = try await client.developer(.put, "catalogs/org.nobody.app", key: world.acmeKey, json: World.catalogFile("org.nobody.app"))
            #expect(foreign.status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func purchasesAndEventsComeInPagesWithBuyersByAccountToken(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let state = try #require(try await runtime.commerceCatalogs.state(app: World.acmeApp))
            for transaction in ["7001", "7002", "7003"] {
                let product = try #require(state.product("reader.coins.100"))
                let claim = PurchaseClaim(store: .appleStore, app: World.acmeApp, storeProductId: product.skus[.appleStore] ?? "",
                                          transactionId: transaction, receipt: "jws-\(transaction)")
                let verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction,
                                                storeProductId: product.skus[.appleStore] ?? "", type: product.type, purchaseDate: Date(),
                                                expiresDate: nil, revocationDate: nil, quantity: 1, environment: .production,
                                                app: World.acmeApp, signedDate: Date())
                _ = try await runtime.purchases.record(PurchaseIntake(account: world.buyer, product: product, claim: claim), verified: verified,
                                                       environment: .production, policy: .transfer, catalog: state)
            }
            let first = try await client.developer(.get, "catalogs/\(World.acmeApp)/purchases?limit=2", key: world.acmeKey)
            #expect(first.status == .ok, "\(first.text)")
            let items = first.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 2 && items.allSatisfy { $0["accountToken"] as? String == world.acmeToken.uuidString.lowercased() })
            #expect(!first.text.contains(World.buyerEmail) && !first.text.contains(world.buyer.uuidString.lowercased()))
            let cursor = try #require(first.object["nextCursor"] as? String)
            let second = try await client.developer(.get, "catalogs/\(World.acmeApp)/purchases?limit=2&cursor=\(cursor)", key: world.acmeKey)
            #expect((second.object["items"] as? [[String: Any]])?.count == 1 && second.object["nextCursor"] is NSNull, "\(second.text)")
            #expect(try await client.developer(.get, "catalogs/\(World.acmeApp)/purchases?limit=0", key: world.acmeKey).status == .badRequest)
            #expect(try await client.developer(.get, "catalogs/\(World.acmeApp)/purchases?cursor=nonsense", key: world.acmeKey).status == .badRequest)

            let events = try await client.developer(.get, "catalogs/\(World.acmeApp)/events", key: world.acmeKey)
            let eventItems = events.object["items"] as? [[String: Any]] ?? []
            #expect(events.status == .ok && eventItems.count == 3 && events.object["nextCursor"] is NSNull, "\(events.text)")
            #expect(eventItems.allSatisfy { $0["accountToken"] as? String == world.acmeToken.uuidString.lowercased() })
            #expect(!events.text.contains(World.buyerEmail))
        }
    }

    @Test(arguments: TestBackend.available)
    func aGrantIsMadeByAccountTokenAndRevoked(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let path = "catalogs/\(World.acmeApp)/grants"
            let made = try await client.developer(.post, path, key: world.acmeKey,
                                                  json: #"{"accountToken": "\#(world.acmeToken)", "entitlement": "book.1", "until": "2099-01-01"}"#)
            #expect(made.status == .created && made.object["accountToken"] as? String == world.acmeToken.uuidString.lowercased(), "\(made.text)")
            let id = try #require((made.object["id"] as? String).flatMap(UUID.init(uuidString:)))
            #expect(try await EntitlementGrantStore(purchases: runtime.purchases).grant(id)?.accountId == world.buyer)

            let unknownToken = try await client.developer(.post, path, key: world.acmeKey, json: #"{"accountToken": "\#(UUID())", "entitlement": "book.1"}"#)
            #expect(unknownToken.status == .unprocessableContent && unknownToken.object["field"] as? String == "accountToken")
            // Beta's token for the same person is not a token of Acme's app.
            let otherAppsToken = try await client.developer(.post, path, key: world.acmeKey, json: #"{"accountToken": "\#(world.betaToken)", "entitlement": "book.1"}"#)
            #expect(otherAppsToken.status == .unprocessableContent && otherAppsToken.object["field"] as? String == "accountToken")
            let unknownEntitlement = try await client.developer(.post, path, key: world.acmeKey, json: #"{"accountToken": "\#(world.acmeToken)", "entitlement": "gold"}"#)
            #expect(unknownEntitlement.status == .unprocessableContent && unknownEntitlement.object["field"] as? String == "entitlement")

            #expect(try await client.developer(.delete, "grants/\(id)", key: world.acmeKey).status == .noContent)
            #expect(try await EntitlementGrantStore(purchases: runtime.purchases).grant(id)?.revokedAt != nil)
            #expect(try await client.developer(.delete, "grants/\(id)", key: world.acmeKey).status == .noContent)
            #expect(try await AuditLog(database: runtime.database).list(action: "entitlement.revoke").count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func webhooksAreAddedListedAndRemoved(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let path = "catalogs/\(World.acmeApp)/webhooks"
            let added = try await client.developer(.post, path, key: world.acmeKey, json: #"{"url": "https://hooks.acme.test/souk", "secret": "acme-secret-0123456789"}"#)
            #expect(added.status == .created && !added.text.contains("acme-secret"), "\(added.text)")
            let short = try await client.developer(.post, path, key: world.acmeKey, json: #"{"url": "https://hooks.acme.test/two", "secret": "short"}"#)
            #expect(short.status == .unprocessableContent && short.object["field"] as? String == "secret")
            let listed = try await client.developer(.get, path, key: world.acmeKey)
            #expect((listed.object["webhooks"] as? [[String: Any]])?.compactMap { $0["url"] as? String } == ["https://hooks.acme.test/souk"])
            let id = try #require(added.object["id"] as? String)
            #expect(try await client.developer(.delete, "webhooks/\(id)", key: world.acmeKey).status == .noContent)
            #expect(try await WebhookStore(database: runtime.database).endpoints(app: World.acmeApp).isEmpty)
            #expect(try await client.developer(.delete, "webhooks/\(id)", key: world.acmeKey).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func aMissingUnknownOrRevokedKeyIs401AndAKeyWithoutTheScope403(backend: TestBackend) async throws {
        try await World.with(backend) { client, _, world in
            let none = try await client.developer(.get, "apps", key: nil)
            #expect(none.status == .unauthorized && none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(none.headers[.contentType] == "application/problem+json")
            for key in ["sk_" + String(repeating: "x", count: 40), world.revokedKey, "sat_not-a-developer-key"] {
                let refused = try await client.developer(.get, "apps", key: key)
                #expect(refused.status == .unauthorized && refused.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
            }
            // Without a package read, an upload without the scope is refused.
            let upload = try await client.developer(.put, "apps/\(World.acmeItem)/versions/9100000004/package", key: world.metricsOnlyKey,
                                                    body: ByteBuffer(string: "zip"), contentType: "application/zip")
            #expect(upload.status == .forbidden && upload.object["type"] as? String == "urn:souk:problem:missing-scope")
            let scoped: [(HTTPRequest.Method, String, String?)] = [
                (.put, "catalogs/\(World.acmeApp)", World.catalogFile(World.acmeApp)),
                (.get, "catalogs/\(World.acmeApp)/purchases", nil), (.get, "catalogs/\(World.acmeApp)/events", nil),
                (.post, "catalogs/\(World.acmeApp)/grants", #"{"accountToken": "\#(world.acmeToken)", "entitlement": "premium"}"#),
                (.get, "catalogs/\(World.acmeApp)/webhooks", nil),
                (.post, "catalogs/\(World.acmeApp)/webhooks", #"{"url": "https://hooks.acme.test/x", "secret": "acme-secret-0123456789"}"#),
            ]
            for (method, path, json) in scoped {
                let answer = try await client.developer(method, path, key: world.metricsOnlyKey, json: json)
                #expect(answer.status == .forbidden, "\(method) \(path): \(answer.status)")
            }
            // Reading the organisation's own apps and catalogs needs no particular scope.
            #expect(try await client.developer(.get, "apps", key: world.metricsOnlyKey).status == .ok)
            #expect(try await client.developer(.get, "catalogs/\(World.acmeApp)", key: world.metricsOnlyKey).status == .ok)
        }
    }

    /// Every developer route, given another organisation's app, catalog, grant or webhook id,
    /// answers 404 as for an id that does not exist. A route added later belongs in this table.
    @Test(arguments: TestBackend.available)
    func everyRouteAnswers404ForAnotherOrganisationsIds(backend: TestBackend) async throws {
        try await World.with(backend) { client, runtime, world in
            let beta = World.betaApp
            let routes: [(HTTPRequest.Method, String, String?, ByteBuffer?)] = [
                (.put, "apps/\(World.betaItem)/versions/9100000005/package", nil,
                 try world.packageZip(item: World.betaItem, version: 9_100_000_005, bundle: beta)),
                (.get, "apps/\(World.betaItem)/versions", nil, nil),
                (.get, "catalogs/\(beta)", nil, nil),
                (.put, "catalogs/\(beta)", World.catalogFile(beta), nil),
                (.put, "catalogs/\(beta)?dryRun=true", World.catalogFile(beta), nil),
                (.get, "catalogs/\(beta)/purchases", nil, nil),
                (.get, "catalogs/\(beta)/events", nil, nil),
                (.post, "catalogs/\(beta)/grants", #"{"accountToken": "\#(world.betaToken)", "entitlement": "premium"}"#, nil),
                (.delete, "grants/\(world.betaGrant)", nil, nil),
                (.get, "catalogs/\(beta)/webhooks", nil, nil),
                (.post, "catalogs/\(beta)/webhooks", #"{"url": "https://hooks.acme.test/steal", "secret": "acme-secret-0123456789"}"#, nil),
                (.delete, "webhooks/\(world.betaWebhook)", nil, nil),
            ]
            for (method, path, json, body) in routes {
                let answer = try await client.developer(method, path, key: world.acmeKey, json: json, body: body,
                                                        contentType: body == nil ? nil : "application/zip")
                #expect(answer.status == .notFound, "\(method) \(path) answered \(answer.status): \(answer.text)")
                // Beta's own key reaches the same route (the 404 is about whose it is, not a broken route).
                if method == .get {
                    #expect(try await client.developer(method, path, key: world.betaKey).status == .ok, "\(path) with Beta's key")
                }
            }
            // Nothing of Beta's changed.
            #expect(try await AppVersionModel.find(appleVersionId: 9_100_000_005, on: runtime.database.db) == nil)
            #expect(try await EntitlementGrantStore(purchases: runtime.purchases).grant(world.betaGrant)?.revokedAt == nil)
            #expect(try await WebhookStore(database: runtime.database).endpoints(app: beta).map(\.id) == [world.betaWebhook])
            #expect(try await AuditLog(database: runtime.database).list(actor: "apikey:" + world.acmeKeyID.uuidString.lowercased()).isEmpty)
        }
    }
}
