import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// TOTP two-factor sign-in to the console (RFC 6238).
@Suite struct AdminTOTPTests {
    /// RFC 6238 Appendix B, SHA-1 rows: the ASCII secret "12345678901234567890", 8 digits.
    @Test func rfc6238AppendixBVectorsForSHA1() {
        let secret = Array("12345678901234567890".utf8)
        let vectors: [(TimeInterval, String)] = [(59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                                                 (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")]
        for (time, expected) in vectors {
            #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: time), digits: 8) == expected)
        }
        // Six digits are the last six of the same value (RFC 4226 truncation modulo 10^6).
        #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: 59)) == "287082")
        #expect(Base32.decode(Base32.encode(secret)) == secret)
        #expect(Base32.encode(secret) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        // One step of drift either way, not two.
        let at = Date(timeIntervalSince1970: 1_111_111_111)
        #expect(TOTP.matchingStep(secret: secret, candidate: TOTP.code(secret: secret, at: at.addingTimeInterval(-30)), at: at) != nil)
        #expect(TOTP.matchingStep(secret: secret, candidate: TOTP.code(secret: secret, at: at.addingTimeInterval(60)), at: at) == nil)
    }

    @Test func secretsAreSealedAtRest() throws {
        let box = TOTPSecretBox(key: .init(size: .bits256))
        let secret: [UInt8] = Array(repeating: 7, count: 20)
        let sealed = try box.seal(secret)
        #expect(!sealed.contains(Base32.encode(secret)))
        #expect(box.open(sealed) == secret)
        #expect(TOTPSecretBox(key: .init(size: .bits256)).open(sealed) == nil)
    }

    /// Signs in with the password; returns the session cookie and where the answer sent the browser.
    static func passwordStep(_ client: any TestClientProtocol, email: String) async throws -> (String, String) {
        let page = try await client.execute(uri: "/signin?next=%2Fadmin", method: .get)
        let (cookie, fields) = try OAuthTests.signInForm(page)
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        let response = try await client.execute(uri: "/signin", method: .post, headers: headers, body: OAuthTests.form([
            "csrf_token": fields["csrf_token"] ?? "", "email": email, "password": OAuthTests.password, "return": fields["return"] ?? "",
        ]))
        let session = String(try #require(response.headers[.setCookie]).split(separator: ";")[0])
        return (session, response.headers[.location] ?? "")
    }

    /// Posts a code to the sign-in's code step.
    static func codeStep(_ client: any TestClientProtocol, session: String, code: String) async throws -> TestResponse {
        let page = try await client.execute(uri: "/signin/code?next=%2Fadmin", method: .get, headers: [.cookie: session])
        var headers = OAuthTests.formHeaders
        headers[.cookie] = session
        return try await client.execute(uri: "/signin/code", method: .post, headers: headers, body: OAuthTests.form([
            "csrf_token": WebAccountTests.csrf(in: String(buffer: page.body)) ?? "", "next": "/admin", "code": code,
        ]))
    }

    @Test(arguments: TestBackend.available)
    func anOperatorEnablesTOTPAndSignsInWithACodeOnceOrARecoveryCodeOnce(_ backend: TestBackend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        try await ServerFixture.with(backend, now: { clock.now }, prepare: AdminConsoleTests.prepare) { client in
            let (first, location) = try await Self.passwordStep(client, email: "olive@example.com")
            #expect(location == "/admin")
            let security = String(buffer: try await client.execute(uri: "/admin/security", method: .get, headers: [.cookie: first]).body)
            let uriStart = try #require(security.range(of: "otpauth://totp/"))
            let uri = String(security[uriStart.lowerBound...].prefix { $0 != "<" }).replacingOccurrences(of: "&amp;", with: "&")
            #expect(uri.contains(":olive%40example.com?secret=") || uri.contains(":olive@example.com?secret="))
            let base32 = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
            #expect(security.contains(base32))
            let secret = try #require(Base32.decode(base32))

            // A wrong code changes nothing; the right one turns TOTP on and shows ten recovery codes once.
            #expect(try await AdminConsoleTests.post(client, "/admin/security/confirm", session: first, ["code": "000000"]).status == .badRequest)
            let confirmed = try await AdminConsoleTests.post(client, "/admin/security/confirm", session: first,
                                                             ["code": TOTP.code(secret: secret, at: clock.now)])
            #expect(confirmed.status == .ok)
            let codesHTML = String(buffer: confirmed.body)
            let recovery = try NSRegularExpression(pattern: "<li><code>([a-z2-7]{5}-[a-z2-7]{5})</code></li>")
                .matches(in: codesHTML, range: NSRange(codesHTML.startIndex..., in: codesHTML))
                .map { String(codesHTML[Range($0.range(at: 1), in: codesHTML)!]) }
            #expect(recovery.count == 10)
            #expect(!String(buffer: try await client.execute(uri: "/admin/security", method: .get, headers: [.cookie: first]).body)
                .contains(base32))

            // The next sign-in asks for a code; without it the console sends the session back to the code step.
            clock.advance(30)
            let (second, next) = try await Self.passwordStep(client, email: "olive@example.com")
            #expect(next == "/signin/code?next=/admin")
            let held = try await client.execute(uri: "/admin/people", method: .get, headers: [.cookie: second])
            #expect(held.headers[.location] == "/signin/code?next=/admin/people")
            let code = TOTP.code(secret: secret, at: clock.now)
            let accepted = try await Self.codeStep(client, session: second, code: code)
            #expect(accepted.headers[.location] == "/admin")
            #expect(try await client.execute(uri: "/admin", method: .get, headers: [.cookie: second]).status == .ok)

            // The same code again is refused (it was used), in another session.
            let (third, _) = try await Self.passwordStep(client, email: "olive@example.com")
            #expect(try await Self.codeStep(client, session: third, code: code).status == .unauthorized)
            #expect(try await client.execute(uri: "/admin", method: .get, headers: [.cookie: third]).status == .seeOther)
            // A recovery code signs in once.
            #expect(try await Self.codeStep(client, session: third, code: recovery[3].uppercased()).headers[.location] == "/admin")
            let (fourth, _) = try await Self.passwordStep(client, email: "olive@example.com")
            #expect(try await Self.codeStep(client, session: fourth, code: recovery[3]).status == .unauthorized)
        }
    }

    @Test(arguments: TestBackend.available)
    func codeAttemptsAreThrottledAndResetTurnsTOTPOff(_ backend: TestBackend) async throws {
        // The server's clock too: the sixth attempt waits a second after the fifth, however slow the machine.
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: AdminConsoleTests.prepare) { client, runtime in
            let account = try await runtime.catalog.requireAccount(email: "olive@example.com")
            let id = try account.requireID()
            let store = TOTPStore(database: runtime.database, keysDir: runtime.config.keysDir, now: { clock.now })
            let secret = try #require(try await store.pendingSecret(account: id))
            #expect(try await store.confirm(account: id, code: TOTP.code(secret: secret, at: clock.now))?.count == 10)
            // The sealed secret is not the secret.
            let stored = try #require(try await runtime.catalog.requireAccount(email: "olive@example.com").totpSecret)
            #expect(!stored.contains(Base32.encode(secret)))

            let (session, _) = try await Self.passwordStep(client, email: "olive@example.com")
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<7 { statuses.append(try await Self.codeStep(client, session: session, code: "123456").status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == .unauthorized })
            #expect(statuses[5] == .tooManyRequests)

            #expect(try await store.reset(account: id))
            #expect(try await store.reset(account: id) == false)
            let after = try await runtime.catalog.requireAccount(email: "olive@example.com")
            #expect(!after.totpEnabled && after.totpSecret == nil)
            #expect(try await store.unusedRecoveryCodes(account: id) == 0)
            let (plain, location) = try await Self.passwordStep(client, email: "olive@example.com")
            #expect(location == "/admin")
            #expect(try await client.execute(uri: "/admin", method: .get, headers: [.cookie: plain]).status == .ok)
        }
    }
}
