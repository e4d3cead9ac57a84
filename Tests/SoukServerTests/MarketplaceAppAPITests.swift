import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
@testable import SoukApp
import SoukCore
@testable import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The marketplace app's JSON API (docs/api.md), through the real application on both databases:
/// `CheckoutTests.prepare`'s apps — 1 "Notes Pro" (2.99 USD, versions 101 for iOS 17.0 and 102 for
/// 17.4), 2 "Weather Now" (included with `member`, whose plan is `member.monthly`), 3 taken down,
/// 4 "Note Taker" (free, iOS 18.0, Productivity) — sold by the development processor.
@Suite struct MarketplaceAppAPITests {
    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (any TestClientProtocol, SoukRuntime, String) async throws -> Void) async throws {
        try await ServerFixture.withRuntime(backend, configure: CheckoutTests.development, prepare: { runtime, paths in
            try await CheckoutTests.prepare(runtime, paths)
            for (id, name, developer, category) in [(UInt64(1), "Notes Pro", "Acme", nil), (2, "Weather Now", "Sky Ltd", "weather"),
                                                    (4, "Note Taker", "Acme", "productivity")] as [(UInt64, String, String, String?)] {
                let app = try #require(try await AppModel.find(appleItemId: id, on: runtime.database.db))
                app.name = name
                app.developerName = developer
                app.category = category
                try await app.save(on: runtime.database.db)
            }
            try await runtime.catalog.setFeatured(appleItemId: 2, order: 1)
        }) { client, runtime in
            try await runtime.catalogIndex.refresh()
            try await body(client, runtime, try await CheckoutTests.token(runtime))
        }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, token: String? = nil, etag: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let etag { headers[.ifNoneMatch] = etag }
        return try await client.execute(uri: uri, method: .get, headers: headers)
    }

    static func install(_ client: any TestClientProtocol, _ id: String, _ body: String, token: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/api/v1/apps/\(id)/install", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func ids(_ response: TestResponse) throws -> [String] {
        try #require(try CheckoutTests.json(response)["apps"] as? [[String: Any]]).compactMap { $0["appleItemId"] as? String }
    }

    static func access(_ response: TestResponse) throws -> [String: String] {
        var found: [String: String] = [:]
        for app in try #require(try CheckoutTests.json(response)["apps"] as? [[String: Any]]) {
            let access = try #require(app["access"] as? [String: Any])
            found[app["appleItemId"] as? String ?? ""] = [access["action"] as? String, access["why"] as? String].compactMap { $0 }.joined(separator: "/")
        }
        return found
    }

    @Test(arguments: TestBackend.available)
    func listsPageRankAndFilterAsTheStorefrontWithETags(_ backend: TestBackend) async throws {
        try await Self.with(backend) { client, _, _ in
            let all = try await Self.get(client, "/api/v1/apps")
            #expect(all.status == .ok)
            #expect(try Self.ids(all) == ["4", "1", "2"])  // by name; the taken-down app is not listed
            #expect(all.headers[.cacheControl] == "public, max-age=60" && all.headers[.vary] == "Authorization")
            let body = try CheckoutTests.json(all)
            #expect(body["next"] is NSNull)
            let first = try #require((body["apps"] as? [[String: Any]])?.first { $0["appleItemId"] as? String == "1" })
            #expect(first["name"] as? String == "Notes Pro" && first["developer"] as? String == "Acme" && first["access"] == nil)
            #expect(first["url"] as? String == "https://souk.test/apps/1")
            #expect((first["price"] as? [String: Any])?["label"] as? String == "2.99 USD, 2.79 EUR")
            #expect((first["latestVersion"] as? [String: Any])?["appleVersionId"] as? String == "102")
            #expect(((first["compatibility"] as? [[String: Any]])?.first?["text"] as? String) == "Requires iOS 17.4 or later")
            let included = try #require((body["apps"] as? [[String: Any]])?.first { $0["appleItemId"] as? String == "2" })
            #expect((included["price"] as? [String: Any])?["label"] as? String == "Included with Member")

            // The same bytes again: 304.
            let etag = try #require(all.headers[.eTag])
            #expect(try await Self.get(client, "/api/v1/apps", etag: etag).status == .notModified)

            // Pages follow `next`.
            let page1 = try await Self.get(client, "/api/v1/apps?pageSize=2")
            #expect(try Self.ids(page1) == ["4", "1"])
            let next = try #require(try CheckoutTests.json(page1)["next"] as? String)
            #expect(next == "https://souk.test/api/v1/apps?page=2&pageSize=2")
            let page2 = try await Self.get(client, String(next.dropFirst("https://souk.test".count)))
            #expect(try Self.ids(page2) == ["2"] && (try CheckoutTests.json(page2)["next"] is NSNull))

            // Search ranks as the storefront's; a category filters.
            #expect(try Self.ids(try await Self.get(client, "/api/v1/apps?query=note")) == ["4", "1"])
            #expect(try Self.ids(try await Self.get(client, "/api/v1/apps?query=acme")) == ["4", "1"])
            #expect(try Self.ids(try await Self.get(client, "/api/v1/apps?category=productivity")) == ["4"])
            #expect(try Self.ids(try await Self.get(client, "/api/v1/apps?query=note&category=weather")) == [])
            for bad in ["pageSize=101", "pageSize=0", "page=0", "page=x", "category=nope", "platform=iOS"] {
                #expect(try await Self.get(client, "/api/v1/apps?\(bad)").status == .badRequest, "\(bad)")
            }

            let categories = try #require(try CheckoutTests.json(try await Self.get(client, "/api/v1/categories"))["categories"] as? [[String: Any]])
            #expect(categories.map { $0["slug"] as? String } == ["productivity", "weather"])
            #expect(categories.first?["count"] as? Int == 1)
            #expect(try Self.ids(try await Self.get(client, "/api/v1/featured")) == ["2"])

            // One app: the page's facts.
            let detail = try CheckoutTests.json(try await Self.get(client, "/api/v1/apps/1"))
            #expect((detail["versions"] as? [[String: Any]])?.map { $0["appleVersionId"] as? String } == ["102", "101"])
            #expect((detail["size"] as? Int ?? 0) > 0)
            #expect(detail["inAppProducts"] as? [Any] != nil && detail["description"] is String)
            for gone in ["3", "99", "x"] { #expect(try await Self.get(client, "/api/v1/apps/\(gone)").status == .notFound) }
        }
    }

    @Test(arguments: TestBackend.available)
    func withATokenEachAppSaysWhatThisPersonMayDo(_ backend: TestBackend) async throws {
        try await Self.with(backend) { client, _, token in
            let mine = try await Self.get(client, "/api/v1/apps", token: token)
            #expect(mine.headers[.cacheControl] == "private, no-cache" && mine.headers[.vary] == "Authorization")
            #expect(try Self.access(mine) == ["1": "buy/purchase-required", "2": "subscribe/purchase-required", "4": "install"])
            #expect(mine.headers[.eTag] != (try await Self.get(client, "/api/v1/apps")).headers[.eTag])
            // On a device that cannot run it.
            let old = try await Self.get(client, "/api/v1/apps?platform=iOS&osVersion=17.4", token: token)
            #expect(try Self.access(old)["4"] == "unavailable/incompatible-device")
            #expect(try await Self.get(client, "/api/v1/apps", token: "sat_not-a-token").status == .forbidden)

            // Bought: install; installed on this device (a restore recorded it): open; an older version installed: update.
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .created)
            #expect(try Self.access(try await Self.get(client, "/api/v1/apps", token: token))["1"] == "install")
            _ = try await AppDataTests.post(client, "restore", #"{"apps": [{"appleItemId": "1"}], "platform": "iOS", "osVersion": "17.4"}"#, token: token)
            #expect(try Self.access(try await Self.get(client, "/api/v1/apps", token: token))["1"] == "open")
            let older = try CheckoutTests.json(try await Self.get(client, "/api/v1/apps/1?installedVersionId=101&platform=iOS&osVersion=17.4", token: token))
            #expect((older["access"] as? [String: Any])?["action"] as? String == "update")
        }
    }

    @Test(arguments: TestBackend.available)
    func installAnswersInstallMetadataAndASignedToken(_ backend: TestBackend) async throws {
        try await Self.with(backend) { client, _, token in
            let device = #"{"platform": "iOS", "osVersion": "17.4", "installedVersionId": null}"#
            #expect(try await Self.install(client, "4", device, token: nil).status == .unauthorized)
            #expect(try await Self.install(client, "4", #"{"platform": "iOS"}"#, token: token).status == .badRequest)
            #expect(try await Self.install(client, "4", #"{"platform": "iOS", "osVersion": "seventeen"}"#, token: token).status == .badRequest)
            for gone in ["3", "99"] { #expect(try await Self.install(client, gone, device, token: token).status == .notFound) }

            // Too old a device: 409 naming the minimum.
            let incompatible = try await Self.install(client, "4", device, token: token)
            #expect(incompatible.status == .conflict)
            let problem = try CheckoutTests.json(incompatible)
            #expect(problem["type"] as? String == "urn:souk:problem:incompatible-device")
            #expect(problem["minimumOS"] as? [String: String] == ["platform": "ios", "version": "18.0"])

            // Not paid: the restore's 402, with the checkout to make (the app, or the plan that includes it).
            let unpaid = try await Self.install(client, "1", device, token: token)
            #expect(unpaid.status.code == 402)
            let refusal = try CheckoutTests.json(unpaid)
            #expect(refusal["type"] as? String == "urn:souk:problem:purchase-required" && refusal["purchaseURL"] as? String == "https://souk.test/apps/1")
            let checkout = try #require(refusal["checkout"] as? [String: Any])
            #expect(checkout["method"] as? String == "POST" && checkout["url"] as? String == "https://souk.test/api/v1/checkout")
            #expect(checkout["body"] as? [String: String] == ["appleItemId": "1"])
            let plan = try CheckoutTests.json(try await Self.install(client, "2", device, token: token))
            #expect((plan["checkout"] as? [String: Any])?["body"] as? [String: String] == ["productId": "member.monthly"])

            // Paid: InstallMetadata and a token for the newest version this device runs.
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .created)
            let answer = try await Self.install(client, "1", device, token: token)
            #expect(answer.status == .ok && answer.headers[.cacheControl] == "no-store")
            let metadata = try CheckoutTests.json(answer)
            #expect(metadata["account"] as? String == "ada@example.com" && metadata["appleItemId"] as? String == "1")
            #expect(metadata["appleVersionId"] as? String == "102" && metadata["isUpdate"] as? Bool == false)
            #expect(metadata["alternativeDistributionPackage"] as? String == "https://souk.test/packages/1/102/")
            #expect(metadata["appShareURL"] as? String == "https://souk.test/apps/1")
            let jwks = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
            let claims = try await keys.verify(try #require(metadata["installVerificationToken"] as? String), as: InstallVerificationClaims.self)
            #expect(claims.bid == "org.example.one" && claims.vid == "102" && claims.iss == "6446000000")
            #expect(claims.dtype == .download)  // the account's first install of the app

            // An update: the newer version, `download`; an older device gets the version it runs.
            let update = try CheckoutTests.json(try await Self.install(client, "1", #"{"platform": "iOS", "osVersion": "17.4", "installedVersionId": "101"}"#,
                                                                       token: token))
            #expect(update["isUpdate"] as? Bool == true && update["appleVersionId"] as? String == "102")
            let current = try CheckoutTests.json(try await Self.install(client, "1", #"{"platform": "iOS", "osVersion": "17.4", "installedVersionId": 102}"#,
                                                                        token: token))
            #expect(current["isUpdate"] as? Bool == false && current["appleVersionId"] as? String == "102")
            let older = try CheckoutTests.json(try await Self.install(client, "1", #"{"platform": "iOS", "osVersion": "17.0"}"#, token: token))
            #expect(older["appleVersionId"] as? String == "101")
        }
    }

    @Test(arguments: TestBackend.available)
    func accountKeepsItsFieldsAndAddsDevicesPurchasesMembershipsAndEntitlements(_ backend: TestBackend) async throws {
        try await Self.with(backend) { client, runtime, token in
            #expect(try await CheckoutTests.buy(client, #"{"appleItemId": "1"}"#, token: token).status == .created)
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            _ = try await EntitlementGrantStore(purchases: runtime.purchases)
                .grant(account: try account.requireID(), catalog: CheckoutTests.marketplace, entitlement: "member", until: Date() + 86_400)
            let response = try await Self.get(client, "/api/v1/account", token: token)
            #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
            let body = try CheckoutTests.json(response)
            #expect(body["email"] as? String == "ada@example.com" && body["clientId"] as? String == "iphone" && body["scope"] is String)
            #expect(body["id"] as? String == (try account.requireID()).uuidString.lowercased())
            #expect((body["devices"] as? [[String: Any]])?.map { $0["clientId"] as? String } == ["iphone"])
            let purchases = try #require(body["purchases"] as? [[String: Any]])
            #expect(purchases.map { $0["appleItemId"] as? String } == ["1"] && purchases.first?["amount"] as? Int == 299)
            #expect(body["memberships"] as? [Any] != nil)
            let entitlements = try #require(body["entitlements"] as? [[String: Any]])
            #expect(entitlements.map { $0["id"] as? String } == ["member"] && entitlements.first?["source"] as? String == "grant")
            // The included app now opens for this person.
            #expect(try Self.access(try await Self.get(client, "/api/v1/apps", token: token))["2"] == "install")
        }
    }
}
