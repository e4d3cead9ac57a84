import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// OpenID Connect from the outside: discovery, ID tokens checked against the published JWKS with
/// plain P-256 (not Souk's own code), the UserInfo endpoint, and refreshes.
@Suite struct OpenIDConnectTests {
    static let clientId = "tv.example.reader"

    /// `plusForSpace`: spaces as `+`, as HTML forms and most OAuth libraries encode a query.
    static func authorizeURI(scope: String?, nonce: String?, plusForSpace: Bool = false) -> String {
        var components = URLComponents(string: "/oauth/authorize")!
        components.queryItems = [
            .init(name: "client_id", value: clientId), .init(name: "redirect_uri", value: "app-distribution-oauth://"),
            .init(name: "response_type", value: "code"), .init(name: "code_challenge", value: OAuthTests.challenge),
            .init(name: "code_challenge_method", value: "S256"), .init(name: "state", value: "s1"),
        ] + (scope.map { [URLQueryItem(name: "scope", value: $0)] } ?? []) + (nonce.map { [URLQueryItem(name: "nonce", value: $0)] } ?? [])
        let uri = components.string!.replacingOccurrences(of: "+", with: "%2B")
        return plusForSpace ? uri.replacingOccurrences(of: "%20", with: "+") : uri
    }

    /// Signs in with the password through the sign-in page and redeems the code: the token response.
    static func signIn(_ client: any TestClientProtocol, scope: String?, nonce: String?,
                       plusForSpace: Bool = false) async throws -> [String: Any] {
        let page = try await client.execute(uri: authorizeURI(scope: scope, nonce: nonce, plusForSpace: plusForSpace), method: .get)
        #expect(page.status == .ok)
        var (cookie, fields) = try OAuthTests.signInForm(page)
        fields["email"] = "ada@example.com"
        fields["password"] = OAuthTests.password
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        let redirect = try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: OAuthTests.form(fields))
        #expect(redirect.status == .found)
        let query = URLComponents(string: try #require(redirect.headers[.location]))?.queryItems ?? []
        let code = try #require(query.first { $0.name == "code" }?.value)
        let response = try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: OAuthTests.form([
            "grant_type": "authorization_code", "code": code, "code_verifier": OAuthTests.verifier, "client_id": clientId,
        ]))
        #expect(response.status == .ok)
        return try OAuthTests.json(response)
    }

    static func refresh(_ client: any TestClientProtocol, _ refreshToken: String) async throws -> [String: Any] {
        let response = try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: OAuthTests.form([
            "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientId,
        ]))
        #expect(response.status == .ok)
        return try OAuthTests.json(response)
    }

    /// The claims of `token` when its ES256 signature verifies against a key of the served JWKS.
    static func verifiedClaims(_ token: String, client: any TestClientProtocol) async throws -> [String: Any] {
        let parts = token.split(separator: ".").map { Base64URL.decode(String($0)) ?? Data() }
        try #require(parts.count == 3)
        let header = try #require(try JSONSerialization.jsonObject(with: parts[0]) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        let jwks = try OAuthTests.json(try await client.execute(uri: "/.well-known/jwks.json", method: .get))
        let key = try #require((jwks["keys"] as? [[String: String]])?.first { $0["kid"] == header["kid"] as? String })
        let raw = (Base64URL.decode(key["x"] ?? "") ?? Data()) + (Base64URL.decode(key["y"] ?? "") ?? Data())
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: raw)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: parts[2])
        let signingInput = token.split(separator: ".").prefix(2).joined(separator: ".")
        #expect(publicKey.isValidSignature(signature, for: Data(signingInput.utf8)))
        return try #require(try JSONSerialization.jsonObject(with: parts[1]) as? [String: Any])
    }

    static func accountID(_ runtime: SoukRuntime) async throws -> UUID {
        try #require(try await runtime.catalog.account(email: "ada@example.com")).requireID()
    }

    @Test(arguments: TestBackend.available)
    func discoveryNamesTheProviderAndItsEndpoints(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend) { client in
            let response = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let document = try OAuthTests.json(response)
            #expect(document["issuer"] as? String == "https://souk.test")
            #expect(document["authorization_endpoint"] as? String == "https://souk.test/oauth/authorize")
            #expect(document["token_endpoint"] as? String == "https://souk.test/oauth/token")
            #expect(document["userinfo_endpoint"] as? String == "https://souk.test/oauth/userinfo")
            #expect(document["jwks_uri"] as? String == "https://souk.test/.well-known/jwks.json")
            #expect(document["response_types_supported"] as? [String] == ["code"])
            #expect(document["subject_types_supported"] as? [String] == ["public"])
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
            #expect(Set(document["scopes_supported"] as? [String] ?? []).isSuperset(of: ["openid", "email"]))
            #expect(document["request_uri_parameter_supported"] as? Bool == false)
            // The OAuth metadata's own fields, the same in both documents.
            let oauth = try OAuthTests.json(try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get))
            #expect(Set(oauth.keys).isSubset(of: Set(document.keys)))
            #expect(document["grant_types_supported"] as? [String] == oauth["grant_types_supported"] as? [String])
        }
    }

    @Test(arguments: TestBackend.available)
    func openidEmailAnswersAnIDTokenSignedWithTheMarketplaceKey(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: OAuthTests.prepareAccount) { client, runtime in
            let before = Int(Date().timeIntervalSince1970)
            let tokens = try await Self.signIn(client, scope: "openid email", nonce: "n-0S6_WzA2Mj")
            #expect(tokens["scope"] as? String == "openid email")
            // The same scope form-encoded (`openid+email`) is the same scope.
            let plus = try await Self.signIn(client, scope: "openid email", nonce: nil, plusForSpace: true)
            #expect(plus["scope"] as? String == "openid email" && plus["id_token"] is String)
            let access = try #require(tokens["access_token"] as? String)
            let claims = try await Self.verifiedClaims(try #require(tokens["id_token"] as? String), client: client)
            let sub = try await Self.accountID(runtime).uuidString.lowercased()
            #expect(claims["iss"] as? String == "https://souk.test")
            #expect(claims["aud"] as? String == Self.clientId)
            #expect(claims["sub"] as? String == sub)
            #expect(claims["email"] as? String == "ada@example.com")
            #expect(claims["email_verified"] as? Bool == false)
            #expect(claims["nonce"] as? String == "n-0S6_WzA2Mj")
            #expect(claims["at_hash"] as? String == IDTokenClaims.atHash(access))
            let iat = try #require(claims["iat"] as? Int), exp = try #require(claims["exp"] as? Int)
            let authTime = try #require(claims["auth_time"] as? Int)
            #expect(exp - iat == 3600)
            #expect(authTime >= before - 1 && authTime <= iat + 1)

            let info = try await client.execute(uri: "/oauth/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(info.status == .ok)
            #expect(info.headers[.cacheControl] == "no-store")
            let userInfo = try OAuthTests.json(info)
            #expect(userInfo["sub"] as? String == sub)
            #expect(userInfo["email"] as? String == "ada@example.com")
            let posted = try await client.execute(uri: "/oauth/userinfo", method: .post, headers: [.authorization: "Bearer \(access)"])
            #expect(try OAuthTests.json(posted)["sub"] as? String == sub)

            // A refresh answers a new ID token: same person and sign-in time, no nonce (Core 1.0 §12.2).
            let refreshed = try await Self.refresh(client, try #require(tokens["refresh_token"] as? String))
            let again = try await Self.verifiedClaims(try #require(refreshed["id_token"] as? String), client: client)
            #expect(again["sub"] as? String == sub)
            #expect(again["auth_time"] as? Int == authTime)
            #expect(again["nonce"] == nil)
            #expect(again["at_hash"] as? String == IDTokenClaims.atHash(try #require(refreshed["access_token"] as? String)))
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutOpenIDThereIsNoIDTokenAndUserInfoRefuses(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: OAuthTests.prepareAccount) { client in
            let plain = try await Self.signIn(client, scope: nil, nonce: nil)
            #expect(plain["scope"] as? String == "all")
            #expect(plain["id_token"] == nil)
            let access = try #require(plain["access_token"] as? String)
            let refused = try await client.execute(uri: "/oauth/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(refused.status == .forbidden)
            #expect(refused.headers[.wwwAuthenticate]?.contains("error=\"insufficient_scope\"") == true)
            let refreshed = try await Self.refresh(client, try #require(plain["refresh_token"] as? String))
            #expect(refreshed["id_token"] == nil)

            let anonymous = try await client.execute(uri: "/oauth/userinfo", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] == "Bearer realm=\"https://souk.test\"")
            let forged = try await client.execute(uri: "/oauth/userinfo", method: .get, headers: [.authorization: "Bearer sat_forged"])
            #expect(forged.status == .unauthorized)
            #expect(forged.headers[.wwwAuthenticate] == "Bearer realm=\"https://souk.test\", error=\"invalid_token\"")
            #expect(forged.headers[.contentType] == "application/problem+json")

            // `openid` alone: an ID token and UserInfo without the email.
            let openid = try await Self.signIn(client, scope: "openid", nonce: nil)
            let claims = try await Self.verifiedClaims(try #require(openid["id_token"] as? String), client: client)
            #expect(claims["email"] == nil)
            #expect(claims["nonce"] == nil)
            // The ID token is not an access token.
            let idToken = try #require(openid["id_token"] as? String)
            #expect(try await client.execute(uri: "/oauth/userinfo", method: .get,
                                             headers: [.authorization: "Bearer \(idToken)"]).status == .unauthorized)
            let info = try OAuthTests.json(try await client.execute(uri: "/oauth/userinfo", method: .get,
                                                                    headers: [.authorization: "Bearer \(try #require(openid["access_token"] as? String))"]))
            #expect(info["sub"] as? String == claims["sub"] as? String)
            #expect(info["email"] == nil)
        }
    }

    @Test func aNonceTooLongGoesBackToTheClientAsInvalidRequest() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: Self.authorizeURI(scope: "openid", nonce: String(repeating: "n", count: 513)), method: .get)
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            #expect(location.contains("error=invalid_request"))
            #expect(location.contains("state=s1"))
        }
    }
}
