import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct WebAccountTests {
    /// Signs in on the website; returns the session cookie (`souk_session=…`).
    static func webSignIn(_ client: any TestClientProtocol, email: String = "ada@example.com",
                          password: String = OAuthTests.password) async throws -> String? {
        let page = try await client.execute(uri: "/signin", method: .get)
        let (cookie, fields) = try OAuthTests.signInForm(page)
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        let response = try await client.execute(uri: "/signin", method: .post, headers: headers, body: OAuthTests.form([
            "csrf_token": fields["csrf_token"] ?? "", "email": email, "password": password,
        ]))
        guard response.status == .seeOther, let setCookie = response.headers[.setCookie] else { return nil }
        return String(setCookie.split(separator: ";")[0])
    }

    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf_token" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test(arguments: TestBackend.available)
    func aSignedInPersonContinuesWithOneTapAndManagesDevices(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: OAuthTests.prepareAccount) { client in
            #expect(try await Self.webSignIn(client, password: "wrong password") == nil)
            let session = try #require(try await Self.webSignIn(client))

            // The authorization page offers "Continue as …" to the signed-in person.
            let page = try await client.execute(uri: OAuthTests.authorizeURI(clientId: "iphone-1"), method: .get, headers: [.cookie: session])
            let html = String(buffer: page.body)
            #expect(html.contains("Continue as ada@example.com"))
            var fields = try OAuthTests.hiddenFields(page)
            #expect(fields["continue"] == "1")
            var headers = OAuthTests.formHeaders
            headers[.cookie] = session
            let redirect = try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: OAuthTests.form(fields))
            #expect(redirect.status == .found)
            let code = try #require(URLComponents(string: redirect.headers[.location] ?? "")?.queryItems?.first { $0.name == "code" }?.value)
            let tokens = try OAuthTests.json(try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders,
                body: OAuthTests.form(["grant_type": "authorization_code", "code": code, "code_verifier": OAuthTests.verifier,
                                       "client_id": "iphone-1"])))
            let access = try #require(tokens["access_token"] as? String)

            // Without the session's CSRF token the one-tap form is refused.
            fields["csrf_token"] = "scs_forged"
            #expect(try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers,
                                             body: OAuthTests.form(fields)).status == .forbidden)

            // The account page lists the device and signs it out.
            let account = try await client.execute(uri: "/account", method: .get, headers: [.cookie: session])
            let accountHTML = String(buffer: account.body)
            #expect(accountHTML.contains("iphone-1"))
            let csrf = try #require(Self.csrf(in: accountHTML))
            #expect(try await client.execute(uri: "/account/devices/sign-out", method: .post, headers: headers,
                                             body: OAuthTests.form(["client_id": "iphone-1"])).status == .forbidden)
            let signedOut = try await client.execute(uri: "/account/devices/sign-out", method: .post, headers: headers,
                                                     body: OAuthTests.form(["client_id": "iphone-1", "csrf_token": csrf]))
            #expect(signedOut.status == .seeOther)
            #expect(try await client.execute(uri: "/api/v1/account", method: .get,
                                             headers: [.authorization: "Bearer \(access)"]).status == .forbidden)
            #expect(!String(buffer: try await client.execute(uri: "/account", method: .get, headers: [.cookie: session]).body)
                .contains("iphone-1"))

            // Signing out ends the session.
            let out = try await client.execute(uri: "/signout", method: .post, headers: headers, body: OAuthTests.form(["csrf_token": csrf]))
            #expect(out.status == .seeOther)
            let after = try await client.execute(uri: "/account", method: .get, headers: [.cookie: session])
            #expect(after.status == .seeOther)
            #expect(after.headers[.location] == "/signin")
        }
    }

    @Test func signUpIsClosedUnlessTheOperatorOpensIt() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let status = try await client.execute(uri: "/signup", method: .get).status
            #expect(status == .notFound)
        }
        try await ServerFixture.with(.sqlite, configure: { $0.signUpEnabled = true }) { client in
            let page = try await client.execute(uri: "/signup", method: .get)
            #expect(page.status == .ok)
            let (cookie, fields) = try OAuthTests.signInForm(page)
            var headers = OAuthTests.formHeaders
            headers[.cookie] = cookie
            let created = try await client.execute(uri: "/signup", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "New@Example.com", "password": "long enough password",
            ]))
            #expect(created.status == .seeOther)
            #expect(created.headers[.setCookie]?.hasPrefix("souk_session=") == true)
            #expect(created.headers[.setCookie]?.contains("HttpOnly") == true)
            #expect(created.headers[.setCookie]?.contains("Secure") == true)
            #expect(try await Self.webSignIn(client, email: "new@example.com", password: "long enough password") != nil)

            let again = try await client.execute(uri: "/signup", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "new@example.com", "password": "another password",
            ]))
            #expect(again.status == .badRequest)
            let weak = try await client.execute(uri: "/signup", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "other@example.com", "password": "short",
            ]))
            #expect(weak.status == .badRequest)
            #expect(String(buffer: weak.body).contains("needs at least 8 characters"))
            // Bcrypt reads 72 bytes at most: a longer password is refused, not silently cut.
            let tooLong = try await client.execute(uri: "/signup", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "long@example.com", "password": String(repeating: "é", count: 37),
            ]))
            #expect(tooLong.status == .badRequest)
            #expect(String(buffer: tooLong.body).contains("at most 72 bytes"))
            let session = try await Self.webSignIn(client, email: "long@example.com", password: String(repeating: "é", count: 37))
            #expect(session == nil)  // no account was created
            let notAnAddress = try await client.execute(uri: "/signup", method: .post, headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": "not an address", "password": "long enough password",
            ]))
            #expect(notAnAddress.status == .badRequest)
            #expect(String(buffer: notAnAddress.body).contains("not an email address"))
        }
    }

    @Test func signedOutVisitorsAreSentToSignIn() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: "/account", method: .get)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/signin")
            let forged = try await client.execute(uri: "/account", method: .get, headers: [.cookie: "souk_session=sss_forged"])
            #expect(forged.status == .seeOther)
        }
    }
}
