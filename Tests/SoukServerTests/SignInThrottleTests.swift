import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Sign-in throttling through the real routes (docs/oauth.md, "Throttling"), with the clock held
/// still: Bcrypt takes as long as the machine makes it, and no answer here may depend on that.
@Suite struct SignInThrottleTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// Runs `test` against `buildApplication` on `backend` with `clock` as the throttle's clock.
    static func server(_ backend: TestBackend, _ mode: TestingSetup = .router, clock: TestClock, trustedProxies: [String] = [],
                       _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await ServerFixture.with(backend, mode, now: { clock.now },
                                     configure: { $0.trustedProxies = trustedProxies.compactMap { IPNetwork($0) } },
                                     prepare: OAuthTests.prepareAccount, test)
    }

    /// The website's sign-in form posted with `email` and `password`; the answer's status and `Retry-After`.
    static func webSignIn(_ client: any TestClientProtocol, email: String = "ada@example.com", password: String = "wrong password",
                          forwardedFor: String? = nil) async throws -> (HTTPResponse.Status, Int?) {
        let page = try await client.execute(uri: "/signin", method: .get)
        let (cookie, fields) = try OAuthTests.signInForm(page)
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        if let forwardedFor { headers[Self.forwardedFor] = forwardedFor }
        let response = try await client.execute(uri: "/signin", method: .post, headers: headers, body: OAuthTests.form([
            "csrf_token": fields["csrf_token"] ?? "", "email": email, "password": password,
        ]))
        return (response.status, response.headers[.retryAfter].flatMap { Int($0) })
    }

    /// `webSignIn` over a connection of its own that waits up to five minutes for each answer. The
    /// `.live` test client gives up after 20 s, and a bcrypt queued behind the rest of a loaded test run
    /// can take longer; retrying a sign-in is no way out here, since every attempt counts.
    static func patientWebSignIn(port: Int?, email: String, forwardedFor: String) async throws -> (HTTPResponse.Status, Int?) {
        let client = TestClient(host: "localhost", port: try #require(port), configuration: .init(timeout: .seconds(300)))
        client.connect()
        do {
            let page = try await client.get("/signin")
            let (cookie, fields) = try OAuthTests.signInForm(headers: page.head.headerFields, body: page.body ?? ByteBuffer())
            var headers = OAuthTests.formHeaders
            headers[.cookie] = cookie
            headers[Self.forwardedFor] = forwardedFor
            let response = try await client.post("/signin", headers: headers, body: OAuthTests.form([
                "csrf_token": fields["csrf_token"] ?? "", "email": email, "password": "wrong password",
            ]))
            try await client.shutdown()
            return (response.status, response.head.headerFields[.retryAfter].flatMap { Int($0) })
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test(arguments: TestBackend.available)
    func fiftyConcurrentWrongPasswordsGetAtMostFiveVerdicts(_ backend: TestBackend) async throws {
        try await Self.server(backend, clock: TestClock()) { client in
            let page = try await client.execute(uri: OAuthTests.authorizeURI(), method: .get)
            var (cookie, fields) = try OAuthTests.signInForm(page)
            fields["email"] = "ada@example.com"
            fields["password"] = "wrong password"
            var formHeaders = OAuthTests.formHeaders
            formHeaders[.cookie] = cookie
            let headers = formHeaders
            let body = OAuthTests.form(fields)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.execute(uri: "/oauth/authorize", method: .post, headers: headers, body: body).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Each attempt is counted before its password is checked: racing requests cannot outrun the count.
            #expect(statuses.filter { $0 == .unauthorized }.count == 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 45)
        }
    }

    @Test func anAccountWaitsLongerAfterEachFailureButIsNeverLockedForLong() async throws {
        let clock = TestClock()
        try await Self.server(.sqlite, clock: clock) { client in
            for _ in 0..<5 { #expect(try await Self.webSignIn(client).0 == .unauthorized) }
            // Even the right password waits now, and an unknown account gets the same answer.
            let (status, wait) = try await Self.webSignIn(client, password: OAuthTests.password)
            #expect(status == .tooManyRequests)
            #expect(wait == 1)
            for _ in 0..<5 { _ = try await Self.webSignIn(client, email: "nobody@example.com") }
            #expect(try await Self.webSignIn(client, email: "nobody@example.com") == (.tooManyRequests, 1))

            clock.advance(1)
            #expect(try await Self.webSignIn(client).0 == .unauthorized)
            #expect(try await Self.webSignIn(client) == (.tooManyRequests, 2))
            clock.advance(2)
            #expect(try await Self.webSignIn(client).0 == .unauthorized)
            #expect(try await Self.webSignIn(client) == (.tooManyRequests, 4))
            // However many attempts a stranger makes, the owner waits at most 15 minutes after the last.
            for _ in 0..<10 {
                clock.advance(900)
                _ = try await Self.webSignIn(client)
            }
            #expect(try await Self.webSignIn(client) == (.tooManyRequests, 900))
            clock.advance(900)
            #expect(try await Self.webSignIn(client, password: OAuthTests.password).0 == .seeOther)
            // A successful sign-in forgets the failures.
            #expect(try await Self.webSignIn(client).0 == .unauthorized)
        }
    }

    @Test func behindATrustedProxyEachForwardedClientHasItsOwnAddressLimit() async throws {
        try await Self.server(.sqlite, .live, clock: TestClock(), trustedProxies: ["127.0.0.1", "::1"]) { client in
            for index in 0..<20 {
                let answer = try await Self.patientWebSignIn(port: client.port, email: "nobody\(index)@example.com", forwardedFor: "203.0.113.9")
                #expect(answer.0 == .unauthorized)
            }
            let held = try await Self.patientWebSignIn(port: client.port, email: "more@example.com", forwardedFor: "203.0.113.9")
            #expect(held == (.tooManyRequests, 900))
            // Another client behind the same proxy is not held, and a forged left part changes nothing.
            let other = try await Self.patientWebSignIn(port: client.port, email: "more@example.com", forwardedFor: "198.51.100.7")
            #expect(other.0 == .unauthorized)
            let forged = try await Self.patientWebSignIn(port: client.port, email: "more@example.com", forwardedFor: "203.0.113.9, 198.51.100.8")
            #expect(forged.0 == .unauthorized)
        }
    }

    @Test func withoutTrustedProxiesXForwardedForIsIgnored() async throws {
        try await Self.server(.sqlite, .live, clock: TestClock()) { client in
            for index in 0..<20 {
                let answer = try await Self.patientWebSignIn(port: client.port, email: "nobody\(index)@example.com", forwardedFor: "203.0.113.\(index)")
                #expect(answer.0 == .unauthorized)
            }
            // Every request came from 127.0.0.1, whatever the header said.
            let answer = try await Self.patientWebSignIn(port: client.port, email: "more@example.com", forwardedFor: "198.51.100.7")
            #expect(answer.0 == .tooManyRequests)
        }
    }
}
