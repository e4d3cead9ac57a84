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

/// Password reset links from the console (docs/web.md, "Reset links"): shown once to the staff
/// member, the person's sessions, tokens and old password end at once, the link sets a password
/// the person chooses, once, within 24 hours.
@Suite struct PasswordResetLinkTests {
    /// Asks for a reset link for ada as sam (support); returns the link's path.
    static func makeLink(_ client: any TestClientProtocol, _ runtime: SoukRuntime) async throws -> String {
        let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
        let adaId = try await AdminConsoleTests.id(runtime, "ada@example.com")
        let answer = try await AdminConsoleTests.post(client, "/admin/people/\(adaId)/reset-password", session: sam)
        #expect(answer.status == .ok)
        let html = String(buffer: answer.body)
        let start = try #require(html.range(of: #"<code id="reset-link">https://souk.test"#))
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }

    /// Opens the link's form; returns its CSRF cookie and hidden fields.
    static func openForm(_ client: any TestClientProtocol, _ path: String) async throws -> (String, [String: String]) {
        let page = try await client.execute(uri: path, method: .get)
        #expect(page.status == .ok)
        #expect(String(buffer: page.body).contains("Choose a new password"))
        return try OAuthTests.signInForm(page)
    }

    static func choose(_ client: any TestClientProtocol, _ path: String, cookie: String, csrf: String, _ password: String,
                       confirm: String? = nil) async throws -> TestResponse {
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        return try await client.execute(uri: path, method: .post, headers: headers, body: OAuthTests.form([
            "csrf_token": csrf, "new_password": password, "confirm_password": confirm ?? password,
        ]))
    }

    @Test(arguments: TestBackend.available)
    func aLinkEndsSessionsAndTheOldPasswordAndSetsTheChosenOneOnce(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let adaSession = try #require(try await WebAccountTests.webSignIn(client, email: "ada@example.com"))
            let token = try await CheckoutTests.token(runtime)
            #expect(try await AccountPagesTests.valid(runtime, token))

            let path = try await Self.makeLink(client, runtime)
            #expect(path.hasPrefix("/reset/spr_"))
            // At once: browser signed out, device token revoked, the old password refused.
            #expect(try await client.execute(uri: "/account", method: .get, headers: [.cookie: adaSession]).status == .seeOther)
            #expect(try await !AccountPagesTests.valid(runtime, token))
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com") == nil)
            // Only the token's hash is stored; the audit entry has no link.
            let stored = try await runtime.database.sql.raw("SELECT token_hash FROM password_reset_links").all()
            #expect(try stored.map { try $0.decode(column: "token_hash", as: String.self) } == [OpaqueToken.hash(String(path.dropFirst(7)))])
            let entry = try #require(try await AuditLog(database: runtime.database).list(action: "account.reset-password").first)
            #expect(entry.actor == "sam@example.com")
            #expect(entry.after?.contains("spr_") == false)

            // The form: its CSRF token, the password rules, then the chosen password.
            let (cookie, fields) = try await Self.openForm(client, path)
            let csrf = try #require(fields["csrf_token"])
            #expect(try await Self.choose(client, path, cookie: cookie, csrf: "scs_forged", "a chosen password").status == .forbidden)
            #expect(try await Self.choose(client, path, cookie: "", csrf: csrf, "a chosen password").status == .forbidden)
            #expect(try await Self.choose(client, path, cookie: cookie, csrf: csrf, "a chosen password", confirm: "another").status == .badRequest)
            #expect(try await Self.choose(client, path, cookie: cookie, csrf: csrf, "short").status == .badRequest)
            let set = try await Self.choose(client, path, cookie: cookie, csrf: csrf, "a chosen password")
            #expect(set.status == .seeOther)
            #expect(set.headers[.location] == "/signin?reset=done")
            #expect(String(buffer: try await client.execute(uri: "/signin?reset=done", method: .get).body).contains("Your new password is set"))
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com", password: "a chosen password") != nil)

            // Used once: the page and the form now say the link does not work, and nothing changes.
            let again = try await client.execute(uri: path, method: .get)
            #expect(again.status == .notFound)
            #expect(String(buffer: again.body).contains("This link does not work"))
            #expect(try await Self.choose(client, path, cookie: cookie, csrf: csrf, "a third password").status == .notFound)
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com", password: "a chosen password") != nil)
            #expect(try await client.execute(uri: "/reset/spr_madeup", method: .get).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func aLinkExpiresAfter24HoursAndANewerOneReplacesIt(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: AdminConsoleTests.prepare) { client, runtime in
            let first = try await Self.makeLink(client, runtime)
            let second = try await Self.makeLink(client, runtime)
            // The newer link replaces the older one.
            #expect(try await client.execute(uri: first, method: .get).status == .notFound)
            clock.advance(24 * 3600 - 1)
            let (cookie, fields) = try await Self.openForm(client, second)
            clock.advance(1)
            #expect(try await client.execute(uri: second, method: .get).status == .notFound)
            let late = try await Self.choose(client, second, cookie: cookie, csrf: fields["csrf_token"] ?? "", "a chosen password")
            #expect(late.status == .notFound)
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com", password: "a chosen password") == nil)
            // A day after it expired, the cleanup sweep removes the row.
            let swept = try await Cleanup(database: runtime.database, now: { clock.now + Cleanup.tokenGrace + 1 }).run()
            #expect(swept.first { $0.name == "password reset links" }?.removed == 1)
        }
    }
}
