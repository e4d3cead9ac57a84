import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Registered clients sign in with the authorization code flow and PKCE (S256 only) to one of
/// their exact redirect URIs; MarketplaceKit's unregistered flow keeps working for any client_id.
@Suite struct RegisteredClientTests {
    /// Signs Ada in on the sign-in page of `authorizeURI`; the response to the form.
    static func signIn(_ client: any TestClientProtocol, authorizeURI: String) async throws -> TestResponse {
        let page = try await client.execute(uri: authorizeURI, method: .get)
        #expect(page.status == .ok)
        var (cookie, fields) = try OAuthTests.signInForm(page)
        fields["email"] = "ada@example.com"
        fields["password"] = OAuthTests.password
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        return try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: OAuthTests.form(fields))
    }

    static func redeem(_ client: any TestClientProtocol, code: String, clientId: String, redirectURI: String) async throws -> TestResponse {
        try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: OAuthTests.form([
            "grant_type": "authorization_code", "code": code, "code_verifier": OAuthTests.verifier, "client_id": clientId,
            "redirect_uri": redirectURI,
        ]))
    }

    static func query(_ location: String?) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: location ?? "")?.queryItems ?? [] { items[item.name] = item.value }
        return items
    }

    @Test(arguments: TestBackend.available)
    func aNativeClientSignsInToItsOwnRedirectURIs(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: OAuthTests.prepareAccount) { client, runtime in
            let native = try await DeviceAuthorizationTests.register(
                runtime, kind: .native, name: "Reader for Android",
                redirectURIs: ["com.example.reader:/oauth/callback?from=souk", "http://127.0.0.1/callback", "https://reader.example.com/cb"])
            for (presented, prefix) in [("com.example.reader:/oauth/callback?from=souk", "com.example.reader:/oauth/callback?from=souk&code="),
                                        ("http://127.0.0.1:51004/callback", "http://127.0.0.1:51004/callback?code="),
                                        ("https://reader.example.com/cb", "https://reader.example.com/cb?code=")] {
                let uri = OAuthTests.authorizeURI(clientId: native, redirect: presented)
                let page = try await client.execute(uri: uri, method: .get)
                // The page's policy lets the form's answer go to the client, and only there.
                let policy = try #require(page.headers[.contentSecurityPolicy])
                #expect(policy.contains("form-action 'self' \(RedirectURIRule.formActionSource(presented));"))
                #expect(!policy.contains("app-distribution-oauth:"))
                let response = try await Self.signIn(client, authorizeURI: uri)
                #expect(response.status == .found)
                let location = try #require(response.headers[.location])
                #expect(location.hasPrefix(prefix))
                let items = Self.query(location)
                #expect(items["state"] == "EE01F1C6")
                let code = try #require(items["code"])
                let tokens = try await Self.redeem(client, code: code, clientId: native, redirectURI: presented)
                #expect(tokens.status == .ok)
                #expect(try OAuthTests.json(tokens)["access_token"] is String)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func unregisteredRedirectsPlainPKCEAndTVsAreRefused(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: OAuthTests.prepareAccount) { client, runtime in
            let web = try await DeviceAuthorizationTests.register(runtime, kind: .web, name: "Reader web", redirectURIs: ["https://reader.example.com/cb"])
            let tv = try await DeviceAuthorizationTests.register(runtime)
            // Not exactly a registered URI (another path, a prefix, a loopback port for a web client, MarketplaceKit's scheme): a page, no redirect.
            for presented in ["https://reader.example.com/cb/evil", "https://reader.example.com/c", "https://evil.example.com/cb",
                              "app-distribution-oauth://"] {
                let page = try await client.execute(uri: OAuthTests.authorizeURI(clientId: web, redirect: presented), method: .get)
                #expect(page.status == .badRequest)
                #expect(page.headers[.location] == nil)
            }
            let tvPage = try await client.execute(uri: OAuthTests.authorizeURI(clientId: tv, redirect: "https://reader.example.com/cb"), method: .get)
            #expect(tvPage.status == .badRequest)
            // plain PKCE goes back to the client as an error, even where MarketplaceKit's devices may use it.
            let plain = try await client.execute(uri: OAuthTests.authorizeURI(clientId: web, redirect: "https://reader.example.com/cb",
                                                                              challenge: OAuthTests.verifier, method: "plain"), method: .get)
            #expect(plain.status == .found)
            let items = Self.query(plain.headers[.location])
            #expect(plain.headers[.location]?.hasPrefix("https://reader.example.com/cb?error=invalid_request") == true)
            #expect(items["state"] == "EE01F1C6")
        }
    }

    @Test(arguments: TestBackend.available)
    func marketplaceKitsUnregisteredFlowStillWorksForAnyClientId(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: OAuthTests.prepareAccount) { client, runtime in
            _ = try await DeviceAuthorizationTests.register(runtime, kind: .native, name: "Other", redirectURIs: ["com.example.other:/cb"])
            let (redirect, items) = try await OAuthTests.signIn(client, clientId: "any-device-\(UUID().uuidString)")
            #expect(redirect.status == .found)
            #expect(redirect.headers[.location]?.hasPrefix("app-distribution-oauth:?") == true)
            #expect(items["code"] != nil)
        }
    }
}
