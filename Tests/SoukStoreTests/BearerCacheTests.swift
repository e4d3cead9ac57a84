import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct BearerCacheTests {
    static func tokens(_ store: StoreFixture) async throws -> (TokenStore, UUID, TokenPair) {
        let account = try await store.catalog.createAccount(email: "ada@example.com", passwordHash: "x")
        let tokens = TokenStore(database: store.database)
        let accountID = try account.requireID()
        let pair = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: accountID), clientId: "d1").get()
        return (tokens, accountID, pair)
    }

    @Test(arguments: TestBackend.available)
    func answersFromMemoryWithinItsLifetime(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .seconds(3600))
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().accountID == accountID)
            #expect(try await cache.authenticate(accessToken: "sat_unknown") == .failure(.unknown))
            #expect(cache.count == 2)
            // Revoked in the database: this process still holds the answer it read (for its lifetime)…
            try await tokens.revoke(token: pair.accessToken)
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().accountID == accountID)
            // …unless it forgets it (this process revoked it), or asks again after the lifetime.
            cache.forget(accessToken: pair.accessToken)
            #expect(try await cache.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
        }
    }

    @Test(arguments: TestBackend.available)
    func aRevocationIsSeenOnceTheLifetimeRanOut(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .milliseconds(100))
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().accountID == accountID)
            try await tokens.revoke(token: pair.accessToken)
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await cache.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
        }
    }

    @Test(arguments: TestBackend.available)
    func holdsAValidTokenPastTheCheckIntervalUntilTheAuthRevisionMoves(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .milliseconds(100))
            _ = try await cache.authenticate(accessToken: "sat_first_check")  // the first check sets the baseline
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().scope == "all")
            // A write the triggers ignore (as last_used_at is): the held answer outlives several checks.
            let before = try await tokens.authRevision()
            try await store.database.sql.raw("UPDATE oauth_tokens SET scope = 'changed', last_used_at = NULL").run()
            #expect(try await tokens.authRevision() == before)
            try await Task.sleep(for: .milliseconds(250))
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().scope == "all")
            // A revocation moves the revision, whoever writes it: seen within the interval.
            try await store.database.sql.raw("UPDATE oauth_tokens SET revoked_at = CURRENT_TIMESTAMP").run()
            #expect(try await tokens.authRevision() > before)
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await cache.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
            _ = accountID
        }
    }

    @Test(arguments: TestBackend.available)
    func aDisabledOrSandboxedAccountIsSeenWithinTheInterval(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .milliseconds(100))
            _ = try await cache.authenticate(accessToken: "sat_first_check")
            #expect(try await cache.account(accessToken: pair.accessToken).get().sandbox == false)
            try await store.database.sql.raw("UPDATE accounts SET sandbox = \(bind: true) WHERE id = \(bind: accountID)").run()
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await cache.account(accessToken: pair.accessToken).get().sandbox)
            try await store.database.sql.raw("UPDATE accounts SET disabled = \(bind: true) WHERE id = \(bind: accountID)").run()
            try await Task.sleep(for: .milliseconds(150))
            #expect(try await cache.account(accessToken: pair.accessToken) == .failure(.accountDisabled))
        }
    }

    @Test(arguments: TestBackend.available)
    func aZeroLifetimeAsksEveryTime(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, _, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .zero)
            #expect(try await cache.authenticate(accessToken: pair.accessToken).isSuccess)
            try await tokens.revoke(token: pair.accessToken)
            #expect(try await cache.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
            #expect(cache.count == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func answersTheAccountsEmailAndSandboxFlag(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let tester = AccountModel(email: "Tester@Example.com", passwordHash: "x")
            tester.sandbox = true
            try await tester.create(on: store.database.db)
            let testerPair = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: tester.requireID()),
                                                       clientId: "d2").get()
            let cache = BearerCache(tokens: tokens, lifetime: .seconds(3600))
            let ada = try await cache.account(accessToken: pair.accessToken).get()
            #expect(ada.bearer.accountID == accountID)
            #expect(ada.email == "ada@example.com")
            #expect(!ada.sandbox)
            let sandbox = try await cache.account(accessToken: testerPair.accessToken).get()
            #expect(sandbox.email == "tester@example.com")
            #expect(sandbox.sandbox)
            #expect(try await cache.account(accessToken: "sat_nope") == .failure(.unknown))
        }
    }

    @Test(arguments: TestBackend.available)
    func aFullCacheEvictsTheLeastRecentlyUsedTokensAndKeepsTheOneInUse(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let (tokens, accountID, pair) = try await Self.tokens(store)
            let cache = BearerCache(tokens: tokens, lifetime: .seconds(3600), capacity: 10)
            #expect(try await cache.authenticate(accessToken: pair.accessToken).get().accountID == accountID)
            for n in 0..<25 {
                #expect(try await cache.authenticate(accessToken: "sat_unknown_\(n)") == .failure(.unknown))
                #expect(cache.count <= 10)
                // Used between every stranger: never evicted (a cache that empties when full read it again).
                #expect(try await cache.authenticate(accessToken: pair.accessToken).get().accountID == accountID)
            }
            #expect(cache.statistics == CacheStatistics(entries: 10, capacity: 10, hits: 25, misses: 26, evictions: 16))
            // Forgetting still works in a full cache: the revocation is seen at once.
            try await tokens.revoke(token: pair.accessToken)
            cache.forget(accessToken: pair.accessToken)
            #expect(try await cache.authenticate(accessToken: pair.accessToken) == .failure(.revoked))
            #expect(cache.count == 10)
        }
    }
}
