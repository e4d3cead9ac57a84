import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct InstallLinkTests {
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await OAuthTests.prepareAccount(runtime, paths)
        try await runtime.importSample(in: paths.folder)
        let marketplace = try await runtime.catalog.marketplace(defaultKeyId: runtime.keys.installVerificationKeyId)
        marketplace.appleItemId = 6_446_000_000
        try await runtime.catalog.updateMarketplace(marketplace)
    }

    static func items(_ link: InstallLink) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: link.url)?.queryItems ?? [] { items[item.name] = item.value }
        return items
    }

    @Test(arguments: TestBackend.available)
    func aLinkCarriesAVerifiableTokenAndASingleUseGrant(_ backend: TestBackend) async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in
            try await Self.prepare(runtime, paths)
            box.value = runtime
        }) { client in
            let runtime = box.value!
            let link = try await InstallLinks(runtime: runtime).make(appleItemId: 6_500_000_001, email: "ADA@example.com")
            #expect(link.url.hasPrefix("marketplace-kit://install?alternativeDistributionPackage=https%3A%2F%2Fsouk.test%2Fpackages%2F"))
            let items = Self.items(link)
            #expect(items["alternativeDistributionPackage"] == "https://souk.test/packages/6500000001/9000000001/")
            #expect(items["account"] == "ada@example.com")
            #expect(items["appShareURL"] == "https://souk.test/apps/6500000001")

            // The token verifies against the published JWKS and says what Apple expects.
            let jwks = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
            let claims = try await keys.verify(try #require(items["installVerificationToken"]), as: InstallVerificationClaims.self)
            #expect(claims.iss == "6446000000")
            #expect(claims.aud == "AppleDownloadVerification-v1")
            #expect(claims.bid == "org.example.sample")
            #expect(claims.iid == "6500000001")
            #expect(claims.vid == "9000000001")
            #expect(claims.exp - claims.iat == 1200)
            #expect(claims.dtype == .download)
            #expect(UUID(uuidString: claims.nonce) != nil)

            // The grant is exchanged once for tokens bound to the device; that records nothing yet (spec §0).
            let body = OAuthTests.form([
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "client_id": "web-iphone",
                "subject_token": try #require(items["token"]),
                "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
                "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
            ])
            let exchanged = try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: body)
            #expect(exchanged.status == .ok)
            let access = try #require(try OAuthTests.json(exchanged)["access_token"] as? String)
            let me = try OAuthTests.json(try await client.execute(uri: "/api/v1/account", method: .get,
                                                                  headers: [.authorization: "Bearer \(access)"]))
            #expect(me["clientId"] as? String == "web-iphone")
            let again = try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: body)
            #expect(try OAuthTests.json(again)["error"] as? String == "invalid_grant")
            let afterExchange = try await InstallLinks(runtime: runtime).make(appleItemId: 6_500_000_001, email: "ada@example.com")
            #expect(try await keys.verify(try #require(Self.items(afterExchange)["installVerificationToken"]),
                                          as: InstallVerificationClaims.self).dtype == .download)

            // The restore that follows (exchange → license → restore) is still the first install: download.
            let restored = try AppDataTests.json(try await AppDataTests.post(client, "restore",
                #"{"apps": [{"appleItemId": "6500000001", "appleVersionId": "9000000001"}], "platform": "iOS", "osVersion": "17.4"}"#,
                token: access))
            let restoreToken = try #require((restored["restores"] as? [[String: Any]])?.first?["installVerificationToken"] as? String)
            #expect(try await keys.verify(restoreToken, as: InstallVerificationClaims.self).dtype == .download)

            // Once that install happened, the next link for the same account and app is a redownload, with a fresh nonce.
            let second = try await InstallLinks(runtime: runtime).make(appleItemId: 6_500_000_001, email: "ada@example.com")
            let secondClaims = try await keys.verify(try #require(Self.items(second)["installVerificationToken"]), as: InstallVerificationClaims.self)
            #expect(secondClaims.dtype == .redownload)
            #expect(secondClaims.nonce != claims.nonce)
        }
    }

    @Test func linksAreRefusedForUnavailableAppsUnknownAccountsAndAnUnsetMarketplace() async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            try await OAuthTests.prepareAccount(runtime, paths)
            try await runtime.importSample(in: paths.folder)
            box.value = runtime
        }) { _ in
            let links = InstallLinks(runtime: box.value!)
            await #expect(throws: CatalogError.self) { try await links.make(appleItemId: 6_500_000_001, email: "ada@example.com") }
            let marketplace = try await box.value!.catalog.marketplace(defaultKeyId: "k")
            marketplace.appleItemId = 1
            try await box.value!.catalog.updateMarketplace(marketplace)
            await #expect(throws: CatalogError.self) { try await links.make(appleItemId: 6_500_000_001, email: "nobody@example.com") }
            await #expect(throws: CatalogError.self) { try await links.make(appleItemId: 6_500_000_999, email: "ada@example.com") }
            try await box.value!.catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown)
            await #expect(throws: CatalogError.self) { try await links.make(appleItemId: 6_500_000_001, email: "ada@example.com") }
        }
    }
}

@Suite struct DeveloperTokenTests {
    @Test func aDeveloperTokenIsAnES256JWTForAppStoreConnect() async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            try await InstallLinkTests.prepare(runtime, paths)
            box.value = runtime
        }) { client in
            let token = try await box.value!.developerRelationshipToken(developerId: "ABC123-dev")
            let header = try #require(Data(base64Encoded: Self.padded(String(token.split(separator: ".")[0]))))
            #expect(String(decoding: header, as: UTF8.self).contains(#""alg":"ES256""#))
            let jwks = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
            let claims = try await JWTKeyCollection().add(jwksJSON: jwks).verify(token, as: DeveloperRelationshipClaims.self)
            #expect(claims.iss == "6446000000")
            #expect(claims.aud == "appstoreconnect-v1")
            #expect(claims.pid == "ABC123-dev")
            #expect(claims.exp - claims.iat < 7 * 86_400)
        }
    }

    static func padded(_ base64url: String) -> String {
        let base = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return base + String(repeating: "=", count: (4 - base.count % 4) % 4)
    }
}
