import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `GooglePushTokenVerifier` against a fake JWKS, with tokens signed as Pub/Sub's OIDC tokens are.
@Suite struct GooglePlayPushTokenTests {
    static let audience = "https://souk.example.com/commerce/com.example.game/google/rtdn"
    static let pusher = "rtdn-push@example-project.iam.gserviceaccount.com"

    static func withCerts(_ body: @escaping @Sendable (FakeGooglePlay, GooglePushTokenVerifier, StoreFaults, TestClock) async throws -> Void) async throws {
        let clock = TestClock()
        let fake = try FakeGooglePlay(packageName: "com.example.game", now: { clock.now })
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            let http = StoreHTTPClient(retry: StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 2, requestTimeout: .seconds(60)))
            let verifier = GooglePushTokenVerifier(certsURL: base + "/oauth2/v3/certs", http: http, now: { clock.now })
            try await body(fake, verifier, faults, clock)
        }
    }

    @Test func validTokenIsAcceptedWithOrWithoutBearerPrefix() async throws {
        try await Self.withCerts { fake, verifier, faults, _ in
            let token = try await fake.pushToken(audience: Self.audience, email: Self.pusher)
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: Self.pusher))
            #expect(await verifier.verify(authorization: "Bearer " + token, audience: Self.audience, email: Self.pusher))
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: nil))
            let plainIssuer = try await fake.pushToken(audience: Self.audience, email: Self.pusher, issuer: "accounts.google.com")
            #expect(await verifier.verify(authorization: plainIssuer, audience: Self.audience, email: Self.pusher))
            // Keys cached (max-age): one fetch for four checks — two requests at most, since under a full
            // parallel test run the HTTP client may repeat a request whose answer it lost (see docs/development.md).
            #expect((1...2).contains(faults.requests(matching: "/oauth2/v3/certs").count))
        }
    }

    @Test func wrongAudienceExpiredWrongEmailAndForgedAreRefused() async throws {
        try await Self.withCerts { fake, verifier, _, clock in
            func reason(_ token: String?, email: String? = Self.pusher) async -> String? {
                do { try await verifier.check(authorization: token, audience: Self.audience, email: email); return nil } catch {
                    return error.description
                }
            }
            let otherAudience = try await fake.pushToken(audience: "https://elsewhere.example.com/push", email: Self.pusher)
            #expect(await reason(otherAudience)?.contains("audience") == true)
            #expect(await verifier.verify(authorization: otherAudience, audience: Self.audience, email: Self.pusher) == false)
            let old = try await fake.pushToken(audience: Self.audience, email: Self.pusher, issuedAt: clock.now - 7200)
            #expect(await reason(old)?.contains("expired") == true)
            let stranger = try await fake.pushToken(audience: Self.audience, email: "someone@else.iam.gserviceaccount.com")
            #expect(await reason(stranger)?.contains("service account") == true)
            let unverified = try await fake.pushToken(audience: Self.audience, email: Self.pusher, emailVerified: false)
            #expect(await reason(unverified)?.contains("not verified") == true)
            let issuer = try await fake.pushToken(audience: Self.audience, email: Self.pusher, issuer: "https://evil.example.com")
            #expect(await reason(issuer)?.contains("issuer") == true)
            let forged = try await fake.pushToken(audience: Self.audience, email: Self.pusher, foreignKey: true)
            #expect(await reason(forged)?.contains("signature") == true)
            #expect(await reason(nil)?.contains("no bearer token") == true)
            #expect(await reason("not-a-jwt")?.contains("not a JWT") == true)
            let valid = try await fake.pushToken(audience: Self.audience, email: Self.pusher)
            let parts = valid.split(separator: ".").map(String.init)
            let tampered = parts[0] + "." + parts[1].dropLast(2) + "AA." + parts[2]
            #expect(await verifier.verify(authorization: tampered, audience: Self.audience, email: Self.pusher) == false)
            #expect(await verifier.verify(authorization: valid, audience: Self.audience, email: Self.pusher))
        }
    }

    @Test func keysAreRefetchedAfterMaxAgeAndUnreachableCertsFailClosed() async throws {
        try await Self.withCerts { fake, verifier, faults, clock in
            let token = try await fake.pushToken(audience: Self.audience, email: Self.pusher, lifetime: 100_000)
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: Self.pusher))
            let first = faults.requests(matching: "/oauth2/v3/certs").count
            clock.advance(19_008 + 1)
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: Self.pusher))
            #expect(faults.requests(matching: "/oauth2/v3/certs").count > first)  // refetched after max-age
            // Google's keys down: the cached ones still verify what they signed.
            faults.down(status: 503)
            clock.advance(19_008 + 1)
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: Self.pusher))
        }
        try await Self.withCerts { fake, verifier, faults, _ in
            faults.down(status: 503)
            let token = try await fake.pushToken(audience: Self.audience, email: Self.pusher)
            #expect(await verifier.verify(authorization: token, audience: Self.audience, email: Self.pusher) == false)
        }
    }
}
