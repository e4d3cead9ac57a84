import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct OAuthTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let password = "correct horse battery"

    static func authorizeURI(clientId: String = "D4C1C937-0001", hint: String = "ada@example.com", state: String = "EE01F1C6",
                             redirect: String = "app-distribution-oauth://", challenge: String = challenge,
                             method: String = "S256", responseType: String = "code") -> String {
        var components = URLComponents(string: "/oauth/authorize")!
        components.queryItems = [
            .init(name: "login_hint", value: hint), .init(name: "client_id", value: clientId),
            .init(name: "code_challenge_method", value: method), .init(name: "response_type", value: responseType),
            .init(name: "code_challenge", value: challenge), .init(name: "state", value: state),
            .init(name: "redirect_uri", value: redirect),
        ]
        return components.string!.replacingOccurrences(of: "+", with: "%2B")
    }

    static func prepareAccount(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await runtime.catalog.createAccount(email: "ada@example.com", passwordHash: try PasswordHashing.hash(password))
    }

    static func form(_ items: [String: String]) -> ByteBuffer {
        ByteBuffer(string: items.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&"))
    }

    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// Reads the sign-in page: the CSRF cookie and the hidden fields to post back.
    static func signInForm(_ response: TestResponse) throws -> (cookie: String, fields: [String: String]) {
        try signInForm(headers: response.headers, body: response.body)
    }

    static func signInForm(headers: HTTPFields, body: ByteBuffer) throws -> (cookie: String, fields: [String: String]) {
        let setCookie = try #require(headers[.setCookie])
        return (String(setCookie.split(separator: ";")[0]), try hiddenFields(html: String(buffer: body)))
    }

    /// The hidden inputs of a page's form, unescaped.
    static func hiddenFields(_ response: TestResponse) throws -> [String: String] {
        try hiddenFields(html: String(buffer: response.body))
    }

    static func hiddenFields(html: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        for match in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            let name = String(html[Range(match.range(at: 1), in: html)!])
            let value = String(html[Range(match.range(at: 2), in: html)!])
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            fields[name] = value
        }
        return fields
    }

    /// Runs the browser part of the login and returns the redirect's query items.
    static func signIn(_ client: any TestClientProtocol, password: String = password, clientId: String = "D4C1C937-0001") async throws -> (TestResponse, [String: String]) {
        let page = try await client.execute(uri: authorizeURI(clientId: clientId), method: .get)
        #expect(page.status == .ok)
        var (cookie, fields) = try signInForm(page)
        fields["email"] = "Ada@Example.com"
        fields["password"] = password
        var headers = formHeaders
        headers[.cookie] = cookie
        let response = try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: form(fields))
        var items: [String: String] = [:]
        if let location = response.headers[.location], let query = URLComponents(string: location)?.queryItems {
            for item in query { items[item.name] = item.value }
        }
        return (response, items)
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test func metadataFollowsRFC8414() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let metadata = try Self.json(response)
            #expect(metadata["issuer"] as? String == "https://souk.test")
            #expect(metadata["authorization_endpoint"] as? String == "https://souk.test/oauth/authorize")
            #expect(metadata["token_endpoint"] as? String == "https://souk.test/oauth/token")
            #expect(metadata["revocation_endpoint"] as? String == "https://souk.test/oauth/revoke")
            #expect(metadata["jwks_uri"] as? String == "https://souk.test/.well-known/jwks.json")
            #expect(metadata["response_types_supported"] as? [String] == ["code"])
            #expect(Set(metadata["grant_types_supported"] as? [String] ?? []) ==
                    ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange",
                     "urn:ietf:params:oauth:grant-type:device_code"])
            #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256", "plain"])
            #expect(metadata["token_endpoint_auth_methods_supported"] as? [String] == ["none"])
            let jwks = try Self.json(try await client.execute(uri: "/.well-known/jwks.json", method: .get))
            let key = try #require((jwks["keys"] as? [[String: Any]])?.first)
            #expect(key["kty"] as? String == "EC")
            #expect((key["x"] as? String)?.count == 43)
        }
    }

    @Test(arguments: TestBackend.available)
    func theWholeFlowFromSignInPageToBearerAndRevocation(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepareAccount) { client in
            let (redirect, items) = try await Self.signIn(client)
            #expect(redirect.status == .found)
            #expect(redirect.headers[.location]?.hasPrefix("app-distribution-oauth:?") == true)
            #expect(items["state"] == "EE01F1C6")
            let code = try #require(items["code"])

            let tokenResponse = try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form([
                "grant_type": "authorization_code", "code": code, "code_verifier": Self.verifier, "client_id": "D4C1C937-0001",
            ]))
            #expect(tokenResponse.status == .ok)
            #expect(tokenResponse.headers[.cacheControl] == "no-store")
            let tokens = try Self.json(tokenResponse)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["issued_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
            #expect(tokens["expires_in"] as? Int == 86_400)
            #expect(tokens["scope"] as? String == "all")
            let access = try #require(tokens["access_token"] as? String)
            #expect(tokens["refresh_token"] is String)

            let me = try await client.execute(uri: "/api/v1/account", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(me.status == .ok)
            #expect(try Self.json(me)["email"] as? String == "ada@example.com")

            let anonymous = try await client.execute(uri: "/api/v1/account", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try await client.execute(uri: "/api/v1/account", method: .get,
                                             headers: [.authorization: "Bearer sat_forged"]).status == .forbidden)

            let revoked = try await client.execute(uri: "/oauth/revoke", method: .post, headers: Self.formHeaders,
                                                   body: Self.form(["token": access]))
            #expect(revoked.status == .ok)
            let after = try await client.execute(uri: "/api/v1/account", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(after.status == .forbidden)
            #expect(after.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
        }
    }

    @Test func aReplayedCodeFailsAndRevokesItsTokens() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepareAccount) { client in
            let code = try #require(try await Self.signIn(client).1["code"])
            let body = ["grant_type": "authorization_code", "code": code, "code_verifier": Self.verifier, "client_id": "D4C1C937-0001"]
            let first = try Self.json(try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form(body)))
            let access = try #require(first["access_token"] as? String)
            let replay = try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form(body))
            #expect(replay.status == .badRequest)
            #expect(try Self.json(replay)["error"] as? String == "invalid_grant")
            #expect(try await client.execute(uri: "/api/v1/account", method: .get,
                                             headers: [.authorization: "Bearer \(access)"]).status == .forbidden)
        }
    }

    @Test func theTokenEndpointAnswersRFC6749Errors() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepareAccount) { client in
            func error(_ body: String, type: String = "application/x-www-form-urlencoded") async throws -> (HTTPResponse.Status, String?) {
                let response = try await client.execute(uri: "/oauth/token", method: .post, headers: [.contentType: type],
                                                        body: ByteBuffer(string: body))
                #expect(response.headers[.cacheControl] == "no-store")
                return (response.status, try Self.json(response)["error"] as? String)
            }
            #expect(try await error(#"{"grant_type":"authorization_code"}"#, type: "application/json") == (.badRequest, "invalid_request"))
            #expect(try await error("grant_type=password&client_id=x") == (.badRequest, "unsupported_grant_type"))
            #expect(try await error("grant_type=authorization_code&code=x") == (.badRequest, "invalid_request"))
            #expect(try await error("grant_type=authorization_code&client_id=a&client_id=b&code=x") == (.badRequest, "invalid_request"))
            // A parameter the endpoint does not read is ignored, repeated or not (RFC 6749 §3.1): the grant is judged.
            #expect(try await error("grant_type=authorization_code&client_id=a&code=sac_nope&code_verifier=\(Self.verifier)&x=1&x=2") == (.badRequest, "invalid_grant"))
            let revokeIgnoring = try await client.execute(uri: "/oauth/revoke", method: .post, headers: Self.formHeaders,
                                                          body: ByteBuffer(string: "token=sat_nope&NULL=l&NULL=null"))
            #expect(revokeIgnoring.status == .ok)
            let revokeTwice = try await client.execute(uri: "/oauth/revoke", method: .post, headers: Self.formHeaders,
                                                       body: ByteBuffer(string: "token=a&token=b"))
            #expect(revokeTwice.status == .badRequest)
            #expect(try await error("grant_type=authorization_code&client_id=a&code=sac_nope&code_verifier=\(Self.verifier)") == (.badRequest, "invalid_grant"))
            #expect(try await error("grant_type=refresh_token&client_id=a&refresh_token=srt_nope") == (.badRequest, "invalid_grant"))
            let revokeWithoutToken = try await client.execute(uri: "/oauth/revoke", method: .post, headers: Self.formHeaders,
                                                              body: ByteBuffer(string: "token_type_hint=access_token"))
            #expect(revokeWithoutToken.status == .badRequest)
            #expect(try Self.json(revokeWithoutToken)["error"] as? String == "invalid_request")
            #expect(try await error("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&client_id=a&subject_token=sig_nope&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token") == (.badRequest, "invalid_grant"))

            // A code bound to one client, presented by another or with the wrong verifier.
            let code = try #require(try await Self.signIn(client).1["code"])
            #expect(try await error("grant_type=authorization_code&client_id=other&code=\(code)&code_verifier=\(Self.verifier)") == (.badRequest, "invalid_grant"))
            let second = try #require(try await Self.signIn(client).1["code"])
            #expect(try await error("grant_type=authorization_code&client_id=D4C1C937-0001&code=\(second)&code_verifier=\(String(repeating: "a", count: 43))") == (.badRequest, "invalid_grant"))
        }
    }

    @Test func refreshSurvivesARetryAndRotates() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepareAccount) { client in
            let code = try #require(try await Self.signIn(client).1["code"])
            let first = try Self.json(try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form([
                "grant_type": "authorization_code", "code": code, "code_verifier": Self.verifier, "client_id": "D4C1C937-0001",
            ])))
            let refresh = try #require(first["refresh_token"] as? String)
            let body = Self.form(["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "D4C1C937-0001"])
            let rotated = try Self.json(try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: body))
            let retried = try Self.json(try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: body))
            #expect(rotated["refresh_token"] as? String != refresh)
            #expect(rotated["access_token"] as? String == retried["access_token"] as? String)
            #expect(rotated["refresh_token"] as? String == retried["refresh_token"] as? String)
        }
    }

    @Test func badAuthorizationRequestsNeverRedirectToAStranger() async throws {
        try await ServerFixture.with(.sqlite) { client in
            for uri in [Self.authorizeURI(redirect: "https://evil.example/cb"), Self.authorizeURI(clientId: ""),
                        Self.authorizeURI(redirect: "app-distribution-oauth://evil")] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.headers[.location] == nil)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
            for (uri, error) in [(Self.authorizeURI(responseType: "token"), "unsupported_response_type"),
                                 (Self.authorizeURI(challenge: "short"), "invalid_request"),
                                 (Self.authorizeURI(method: "S512"), "invalid_request")] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .found)
                let location = try #require(response.headers[.location])
                #expect(location.hasPrefix("app-distribution-oauth:?"))
                let items = URLComponents(string: location)?.queryItems ?? []
                #expect(items.first { $0.name == "error" }?.value == error)
                #expect(items.first { $0.name == "state" }?.value == "EE01F1C6")
            }
        }
    }

    @Test func hostileLoginHintsAreEscaped() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let hint = #""><script>alert('x')</script><img src=x onerror=alert(1)>"#
            let response = try await client.execute(uri: Self.authorizeURI(hint: hint), method: .get)
            let html = String(buffer: response.body)
            #expect(response.status == .ok)
            #expect(!html.contains("<script>"))
            #expect(!html.contains("<img"))
            #expect(html.contains("&lt;script&gt;"))
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
        }
    }

    @Test func aPostWithoutTheCSRFCookieIsRefused() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepareAccount) { client in
            let page = try await client.execute(uri: Self.authorizeURI(), method: .get)
            var fields = try Self.signInForm(page).fields
            fields["email"] = "ada@example.com"
            fields["password"] = Self.password
            let response = try await client.execute(uri: "/oauth/authorize", method: .post, headers: Self.formHeaders, body: Self.form(fields))
            #expect(response.status == .forbidden)
            #expect(response.headers[.location] == nil)
        }
    }

    @Test func aTokenRequestThatCouldNeverSucceedDoesNotBurnTheCode() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepareAccount) { client in
            let code = try #require(try await Self.signIn(client).1["code"])
            for body in [["grant_type": "authorization_code", "code": code, "client_id": "D4C1C937-0001"],
                         ["grant_type": "authorization_code", "code": code, "client_id": "D4C1C937-0001", "code_verifier": "short"]] {
                let refused = try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form(body))
                #expect(refused.status == .badRequest)
                #expect(try Self.json(refused)["error"] as? String == "invalid_request")
            }
            let redeemed = try await client.execute(uri: "/oauth/token", method: .post, headers: Self.formHeaders, body: Self.form([
                "grant_type": "authorization_code", "code": code, "code_verifier": Self.verifier, "client_id": "D4C1C937-0001",
            ]))
            #expect(redeemed.status == .ok)
            #expect(Set(try Self.json(redeemed).keys) == ["access_token", "token_type", "issued_token_type", "expires_in", "refresh_token", "scope"])
        }
    }

    @Test func plainPKCECanBeSwitchedOff() async throws {
        try await ServerFixture.with(.sqlite, configure: { $0.allowPlainPKCE = false }) { client in
            let metadata = try Self.json(try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get))
            #expect(metadata["code_challenge_methods_supported"] as? [String] == ["S256"])
            let plain = try await client.execute(uri: Self.authorizeURI(challenge: Self.verifier, method: "plain"), method: .get)
            #expect(plain.status == .found)
            #expect(plain.headers[.location]?.contains("error=invalid_request") == true)
            #expect(try await client.execute(uri: Self.authorizeURI(), method: .get).status == .ok)
        }
    }
}
