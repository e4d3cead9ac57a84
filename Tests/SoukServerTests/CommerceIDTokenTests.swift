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

/// The commerce API takes a Souk ID token wherever it takes an access token (docs/commerce.md,
/// "Credentials"): as Bearer, `?id_token=`, `?access_token=` and in `ctx`, within its lifetime,
/// signed by the marketplace key, for an account that is still there.
@Suite struct CommerceIDTokenTests {
    static let app = CommerceCatalogSamples.readerApp

    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await OAuthTests.prepareAccount(runtime, paths)
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
    }

    static func get(_ client: any TestClientProtocol, _ path: String, bearer: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: "/commerce/\(app)/\(path)", method: .get, headers: headers)
    }

    static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// True for 200; false for the 401 of docs/commerce.md.
    static func accepted(_ response: TestResponse) -> Bool {
        if response.status == .ok { return true }
        #expect(response.status == .unauthorized)
        #expect(String(buffer: response.body) == #"{"status":401,"statusText":"Unauthorized"}"#)
        #expect(response.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
        return false
    }

    static func claims(_ runtime: SoukRuntime, issuer: String = "https://souk.test", issuedAt: Date) async throws -> IDTokenClaims {
        IDTokenClaims(issuer: issuer, accountID: try await OpenIDConnectTests.accountID(runtime), clientId: "tv",
                      issuedAt: issuedAt, lifetime: 3600, authTime: issuedAt, nonce: nil, accessToken: nil, email: nil)
    }

    @Test(arguments: TestBackend.available)
    func anIDTokenWorksAsBearerQueryAndContext(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: Self.prepare) { client, runtime in
            let tokens = try await OpenIDConnectTests.signIn(client, scope: "openid email", nonce: nil)
            let idToken = try #require(tokens["id_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)

            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: idToken)))
            #expect(Self.accepted(try await Self.get(client, "user-purchases?id_token=\(idToken)")))
            #expect(Self.accepted(try await Self.get(client, "entitlements?access_token=\(idToken)")))
            for key in ["id_token", "access_token"] {
                let context = Data(try JSONSerialization.data(withJSONObject: [key: idToken, "platform": "android"])).base64EncodedString()
                #expect(Self.accepted(try await Self.get(client, "entitlements?ctx=\(Self.escaped(context))")))
            }
            // The same person as the access token.
            let byID = try await Self.get(client, "account-token", bearer: idToken)
            let byAccess = try await Self.get(client, "account-token", bearer: access)
            #expect(byID.status == .ok)
            #expect(String(buffer: byID.body) == String(buffer: byAccess.body))

            // Revoking the access token does not revoke the ID token: it lives until `exp`.
            _ = try await client.execute(uri: "/oauth/revoke", method: .post, headers: OAuthTests.formHeaders,
                                         body: OAuthTests.form(["token": access]))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: access)))
            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: idToken)))

            clock.advance(3599)
            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: idToken)))
            clock.advance(2)
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: idToken)))
        }
    }

    @Test(arguments: TestBackend.available)
    func forgedOrForeignTokensAndGoneAccountsAreRefused(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: Self.prepare) { client, runtime in
            let keys = runtime.installVerificationKeys
            let good = try await keys.signWithMarketplaceKey(try await Self.claims(runtime, issuedAt: clock.now))
            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: good)))

            // A flipped signature byte.
            var parts = good.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[5] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: parts.joined(separator: "."))))
            // The marketplace's key, another issuer.
            let foreign = try await keys.signWithMarketplaceKey(try await Self.claims(runtime, issuer: "https://other.test", issuedAt: clock.now))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: foreign)))
            // Issued more than a minute in the future, or longer than an hour.
            let early = try await keys.signWithMarketplaceKey(try await Self.claims(runtime, issuedAt: clock.now.addingTimeInterval(120)))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: early)))
            // Another key under the marketplace key's id.
            let kid = try #require(try await keys.activeKeys()[InstallVerificationKeyRecord.marketplaceOwner]?.kid)
            let impostor = JWTKeyCollection()
            await impostor.add(ecdsa: ES256PrivateKey(), kid: JWKIdentifier(string: kid))
            let forged = try await impostor.sign(try await Self.claims(runtime, issuedAt: clock.now), kid: JWKIdentifier(string: kid))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: forged)))
            // An app's own key (web distribution) is published in the JWKS but never signs ID tokens.
            let appKey = try await keys.rotate(owner: 6_500_000_001, kid: nil)
            let appSigned = JWTKeyCollection()
            await appSigned.add(ecdsa: try ES256PrivateKey(pem: String(contentsOfFile: runtime.config.keysDir + "/" + appKey.keyFile, encoding: .utf8)),
                                kid: JWKIdentifier(string: appKey.kid))
            let byApp = try await appSigned.sign(try await Self.claims(runtime, issuedAt: clock.now), kid: JWKIdentifier(string: appKey.kid))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: byApp)))

            // A rotated marketplace key: ID tokens of the old key still verify, and those of the new
            // one at once (before this process's one-second key cache would have noticed).
            let rotated = try await keys.rotate(owner: InstallVerificationKeyRecord.marketplaceOwner, kid: nil)
            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: good)))
            let newKey = JWTKeyCollection()
            await newKey.add(ecdsa: try ES256PrivateKey(pem: String(contentsOfFile: runtime.config.keysDir + "/" + rotated.keyFile, encoding: .utf8)),
                             kid: JWKIdentifier(string: rotated.kid))
            let freshToken = try await newKey.sign(try await Self.claims(runtime, issuedAt: clock.now), kid: JWKIdentifier(string: rotated.kid))
            #expect(Self.accepted(try await Self.get(client, "entitlements", bearer: freshToken)))

            // A disabled account's ID tokens stop working at once.
            #expect(try await PeopleDirectory(database: runtime.database).setDisabled(true, account: try await OpenIDConnectTests.accountID(runtime)))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: good)))
            #expect(!Self.accepted(try await Self.get(client, "entitlements", bearer: freshToken)))
        }
    }
}
