import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `GoogleServiceAccount` and `GoogleAccessTokens` against the fake token endpoint, which checks the
/// assertion as Google does.
@Suite struct GooglePlayAccessTokenTests {
    static let email = "souk-verifier@example-project.iam.gserviceaccount.com"

    static func http() -> StoreHTTPClient {
        StoreHTTPClient(retry: StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 2, requestTimeout: .seconds(60)))
    }

    @Test func keyFileProblemsAreNotConfiguredWithoutQuotingTheKey() throws {
        let fake = try FakeGooglePlay(packageName: "com.example.game")
        let good = try GoogleServiceAccount.parse(Array(try fake.makeServiceAccount(email: Self.email).utf8))
        #expect(good.clientEmail == Self.email && good.privateKeyId?.isEmpty == false)
        let cases = [
            "not json",
            #"{"type":"authorized_user","client_email":"a@b","private_key":"x"}"#,
            #"{"type":"service_account","private_key":"x"}"#,
            #"{"type":"service_account","client_email":"a@b"}"#,
            #"{"type":"service_account","client_email":"a@b","private_key":"-----BEGIN PRIVATE KEY-----\nSECRETSTUFF\n-----END PRIVATE KEY-----"}"#,
        ]
        for text in cases {
            #expect(throws: StoreFault.self) { try GoogleServiceAccount.parse(Array(text.utf8)) }
            do { _ = try GoogleServiceAccount.parse(Array(text.utf8)) } catch {
                #expect(error.kind == .notConfigured && !error.detail.contains("SECRETSTUFF"))
            }
        }
    }

    @Test func tokenIsCachedUntilExpiresInMinusTheMargin() async throws {
        let clock = TestClock()
        let fake = try FakeGooglePlay(packageName: "com.example.game", now: { clock.now })
        fake.setTokenLifetime(1000)
        let account = try GoogleServiceAccount.parse(Array(try fake.makeServiceAccount(email: Self.email).utf8))
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            let tokens = GoogleAccessTokens(tokenURL: base + "/token", http: Self.http(), now: { clock.now })
            let first = try await tokens.token(for: account)
            #expect(first.hasPrefix("ya29.fake-"))
            clock.advance(699)
            #expect(try await tokens.token(for: account) == first)
            clock.advance(2)  // 1000 − 300 s margin passed
            let second = try await tokens.token(for: account)
            #expect(second != first && fake.tokensIssued == 2)
            await tokens.invalidate(account)
            #expect(try await tokens.token(for: account) != second)
            #expect(faults.requests(matching: "/token").count == 3)
        }
    }

    @Test func unknownKeyAndWrongAudienceAreRefusedAsCredentials() async throws {
        let fake = try FakeGooglePlay(packageName: "com.example.game")
        let stranger = try FakeGooglePlay(packageName: "com.example.game")
        let unknown = try GoogleServiceAccount.parse(Array(try stranger.makeServiceAccount(email: Self.email).utf8))
        let known = try GoogleServiceAccount.parse(Array(try fake.makeServiceAccount(email: Self.email).utf8))
        try await FakeStoreServer.run(routes: fake.routes) { base in
            let tokens = GoogleAccessTokens(tokenURL: base + "/token", http: Self.http())
            let forged = await #expect(throws: StoreFault.self) { try await tokens.token(for: unknown) }
            #expect(forged?.kind == .credentials && forged?.detail.contains("invalid_grant") == true)
            // The assertion's aud must be the URL the token endpoint is reached at.
            let elsewhere = GoogleAccessTokens(tokenURL: base + "/token?audience=mismatch", http: Self.http())
            let audience = await #expect(throws: StoreFault.self) { try await elsewhere.token(for: known) }
            #expect(audience?.kind == .credentials)
            let token = try await tokens.token(for: known)
            #expect(token.hasPrefix("ya29.fake-"))
            #expect(fake.tokensIssued == 1)
        }
    }
}
