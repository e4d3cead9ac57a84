import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

@Suite struct TokenStoreTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    /// A token request whose own parameters are well formed (what the token endpoint passes on).
    static func redemption(_ code: String, clientId: String, redirectURI: String? = nil, verifier: String = verifier) throws -> AuthorizationCodeRequest {
        try AuthorizationCodeRequest.parse(code: code, clientId: clientId, codeVerifier: verifier, redirectURI: redirectURI).get()
    }

    func setUp(_ store: StoreFixture, clock: TestClock) async throws -> (TokenStore, UUID) {
        let account = try await store.catalog.createAccount(email: "ada@example.com", passwordHash: "x")
        return (TokenStore(database: store.database, now: { clock.now }), try account.requireID())
    }

    @Test(arguments: TestBackend.available)
    func aCodeWorksOnceAndItsReplayRevokesWhatItIssued(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            let code = try await tokens.issueCode(accountID: accountID, clientId: "device-1", redirectURI: "app-distribution-oauth://",
                                                  challenge: Self.challenge, method: .s256)
            let pair = try await tokens.redeemCode(Self.redemption(code, clientId: "device-1")).get()
            #expect(pair.expiresIn == 86_400)
            #expect(try await tokens.authenticate(accessToken: pair.accessToken).get().accountID == accountID)

            let replay = try await tokens.redeemCode(Self.redemption(code, clientId: "device-1"))
            #expect(replay == .failure(OAuthError(.invalidGrant, "The authorization code is invalid, expired or already used.")))
            #expect(try await tokens.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
            #expect(try await tokens.refresh(pair.refreshToken, clientId: "device-1").isFailure)
        }
    }

    @Test(arguments: TestBackend.available)
    func aCodeIsBoundToItsClientVerifierAndLifetime(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            func code() async throws -> String {
                try await tokens.issueCode(accountID: accountID, clientId: "device-1", redirectURI: "app-distribution-oauth://",
                                           challenge: Self.challenge, method: .s256)
            }
            #expect(try await tokens.redeemCode(Self.redemption(code(), clientId: "device-2")).isFailure)
            #expect(try await tokens.redeemCode(Self.redemption(code(), clientId: "device-1", verifier: String(repeating: "x", count: 43))).isFailure)
            #expect(try await tokens.redeemCode(Self.redemption(code(), clientId: "device-1", redirectURI: "https://evil.example/")).isFailure)
            // A failed rule after the claim leaves the code used: a thief gets one try.
            let stolen = try await code()
            #expect(try await tokens.redeemCode(Self.redemption(stolen, clientId: "device-2")).isFailure)
            #expect(try await tokens.redeemCode(Self.redemption(stolen, clientId: "device-1")).isFailure)
            let late = try await code()
            clock.advance(61)
            #expect(try await tokens.redeemCode(Self.redemption(late, clientId: "device-1")).isFailure)
            #expect(try await tokens.redeemCode(Self.redemption("sac_made-up", clientId: "device-1")).isFailure)
            #expect(try await tokens.redeemCode(Self.redemption(code(), clientId: "device-1", redirectURI: "app-distribution-oauth://")).isSuccess)
        }
    }

    @Test(arguments: TestBackend.available)
    func refreshRotatesAndARetryWithinGraceGetsTheSamePair(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            let grant = try await tokens.issueInstallGrant(accountID: accountID)
            let first = try await tokens.exchange(subjectToken: grant, clientId: "device-1").get()

            let second = try await tokens.refresh(first.refreshToken, clientId: "device-1").get()
            #expect(second.refreshToken != first.refreshToken)
            clock.advance(5)
            let retry = try await tokens.refresh(first.refreshToken, clientId: "device-1").get()
            #expect(retry == second)
            #expect(try await tokens.authenticate(accessToken: second.accessToken).isSuccess)

            // The new refresh token works as usual; the first, reused after the grace, signs the family out.
            let third = try await tokens.refresh(second.refreshToken, clientId: "device-1").get()
            clock.advance(120)
            #expect(try await tokens.refresh(first.refreshToken, clientId: "device-1").isFailure)
            #expect(try await tokens.authenticate(accessToken: third.accessToken) == .failure(.revoked))
            #expect(try await tokens.refresh(third.refreshToken, clientId: "device-1").isFailure)
        }
    }

    @Test(arguments: TestBackend.available)
    func installGrantsAreSingleUseShortLivedAndClientBound(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            let grant = try await tokens.issueInstallGrant(accountID: accountID)
            let pair = try await tokens.exchange(subjectToken: grant, clientId: "device-1").get()
            #expect(try await tokens.authenticate(accessToken: pair.accessToken).get().clientId == "device-1")
            #expect(try await tokens.exchange(subjectToken: grant, clientId: "device-1").isFailure)
            #expect(try await tokens.refresh(pair.refreshToken, clientId: "device-2").isFailure)

            let stale = try await tokens.issueInstallGrant(accountID: accountID)
            clock.advance(601)
            #expect(try await tokens.exchange(subjectToken: stale, clientId: "device-1").isFailure)
        }
    }

    @Test(arguments: TestBackend.available)
    func revocationExpiryAndDisabledAccountsEndAccess(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            let a = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: accountID), clientId: "d1").get()
            let b = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: accountID), clientId: "d2").get()
            try await tokens.revoke(token: a.refreshToken)
            #expect(try await tokens.authenticate(accessToken: a.accessToken) == .failure(.revoked))
            #expect(try await tokens.authenticate(accessToken: b.accessToken).isSuccess)
            try await tokens.revoke(token: "sat_unknown")  // ignored

            clock.advance(86_401)
            #expect(try await tokens.authenticate(accessToken: b.accessToken) == .failure(.expired))
            let c = try await tokens.refresh(b.refreshToken, clientId: "d2").get()
            let account = try #require(try await store.catalog.account(id: accountID))
            account.disabled = true
            try await account.save(on: store.database.db)
            #expect(try await tokens.authenticate(accessToken: c.accessToken) == .failure(.accountDisabled))
            #expect(try await tokens.authenticate(accessToken: "sat_nope") == .failure(.unknown))
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentRedemptionsOfOneCodeYieldOnePair(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let (tokens, accountID) = try await setUp(store, clock: clock)
            let code = try await tokens.issueCode(accountID: accountID, clientId: "d", redirectURI: "app-distribution-oauth://",
                                                  challenge: Self.challenge, method: .s256)
            let redemption = try Self.redemption(code, clientId: "d")
            async let first = tokens.redeemCode(redemption)
            async let second = tokens.redeemCode(redemption)
            let results = try await [first, second]
            #expect(results.filter(\.isSuccess).count == 1)
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
    var isFailure: Bool { !isSuccess }
}
