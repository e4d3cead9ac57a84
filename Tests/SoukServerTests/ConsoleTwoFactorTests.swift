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

/// `consoleRequiresTwoFactor` (default on): until a support or operator account turns two-factor
/// sign-in on, the console shows it only the enrolment page.
@Suite struct ConsoleTwoFactorTests {
    @Test func theConsoleRequiresTwoFactorUnlessTurnedOff() async throws {
        #expect(try await SoukConfig.load(flags: [:], environment: [:]).consoleRequiresTwoFactor)
        #expect(try await !SoukConfig.load(flags: [:], environment: ["SOUK_CONSOLE_REQUIRES_TWO_FACTOR": "false"]).consoleRequiresTwoFactor)
        await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: ["SOUK_CONSOLE_REQUIRES_TWO_FACTOR": "sometimes"])
        }
        #expect(SoukConfig.settings.contains { $0.key == "consoleRequiresTwoFactor" && $0.env == "SOUK_CONSOLE_REQUIRES_TWO_FACTOR" })
    }

    @Test(arguments: TestBackend.available)
    func untilEnrolledStaffSeeOnlyTheEnrolmentPage(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: { $0.consoleRequiresTwoFactor = true },
                                            prepare: AdminConsoleTests.prepare) { client, runtime in
            let adaId = try await AdminConsoleTests.id(runtime, "ada@example.com")
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            for session in [sam, olive] {
                for path in ["/admin", "/admin/people", "/admin/people/\(adaId)", "/admin/audit", "/admin/apps"] {
                    let held = try await AdminConsoleTests.get(client, path, session: session)
                    #expect(held.status == .seeOther, "\(path)")
                    #expect(held.headers[.location] == "/admin/security", "\(path)")
                }
                let reset = try await AdminConsoleTests.post(client, "/admin/people/\(adaId)/reset-password", session: session)
                #expect(reset.headers[.location] == "/admin/security")
            }
            #expect(try await WebAccountTests.webSignIn(client, email: "ada@example.com") != nil)
            #expect(try await AuditLog(database: runtime.database).list().isEmpty)

            // The enrolment page opens, with no way into the rest of the console.
            let enrolment = try await AdminConsoleTests.get(client, "/admin/security", session: olive)
            #expect(enrolment.status == .ok)
            let html = String(buffer: enrolment.body)
            #expect(html.contains("Your role needs two-factor sign-in"))
            #expect(!html.contains(#"href="/admin/people""#))
            let uriStart = try #require(html.range(of: "otpauth://totp/"))
            let uri = String(html[uriStart.lowerBound...].prefix { $0 != "<" }).replacingOccurrences(of: "&amp;", with: "&")
            let base32 = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
            let secret = try #require(Base32.decode(base32))

            // Enrolled, the console opens (this session gave its code while enrolling).
            let confirmed = try await AdminConsoleTests.post(client, "/admin/security/confirm", session: olive,
                                                             ["code": TOTP.code(secret: secret, at: Date())])
            #expect(confirmed.status == .ok)
            #expect(try await AdminConsoleTests.get(client, "/admin/people", session: olive).status == .ok)
            #expect(try await AdminConsoleTests.get(client, "/admin", session: sam).headers[.location] == "/admin/security")
            // A customer still gets the console's refusal, not the enrolment page.
            let ada = try #require(try await WebAccountTests.webSignIn(client, email: "ada@example.com"))
            #expect(try await AdminConsoleTests.get(client, "/admin", session: ada).status == .forbidden)
        }
    }
}
