import Crypto
import Foundation
import Synchronization

/// The account behind a bearer token, with what the commerce paths ask of it.
public struct BearerAccount: Sendable, Equatable {
    public var bearer: TokenStore.Bearer
    public var email: String
    /// A sandbox account sees and presents only sandbox purchases.
    public var sandbox: Bool

    public init(bearer: TokenStore.Bearer, email: String, sandbox: Bool) {
        self.bearer = bearer
        self.email = email
        self.sandbox = sandbox
    }
}

/// Access token → account (`BearerAccount`), held in memory so that a hot path (the entitlement
/// check) costs no database round trip per request.
///
/// A valid token is held until it expires (at most `longestHold`). Revocations are learned from
/// `auth_revision`, a counter that database triggers move when a token is revoked or deleted or an
/// account is disabled, re-addressed, made sandbox or deleted (`CreateAuthRevision`), whoever
/// writes: at most once per `lifetime` (`SOUK_CATALOG_REFRESH_MS`, one second by default) a request
/// reads it, and when it moved every held answer is forgotten. At most `capacity` tokens are held
/// (`SOUK_TOKEN_CACHE_ENTRIES`): when full, the least recently used one makes room (`SegmentedLRU`). So a revoked token, or a disabled
/// account, is still accepted for at most `lifetime` by a process that held it. Refusals are held
/// for a random time between half the lifetime and all of it; `.zero` holds nothing. A token read
/// before the first check, or while a check forgot everything, is held only that briefly too.
/// Tokens are held by their SHA-256, never as such. A held answer does not move the token's
/// `last_used_at` (it moves when the token is read again, at most once a minute anyway). When the
/// counter cannot be read, requests fail (503) rather than trust what is held.
public final class BearerCache: Sendable {
    private struct Entry {
        var outcome: Result<BearerAccount, TokenStore.BearerFailure>
        var expires: ContinuousClock.Instant
    }

    private struct State {
        var entries: SegmentedLRU<SHA256.Digest, Entry>
        /// The last `auth_revision` read; nil before the first check.
        var revision: Int64?
        var nextCheck: ContinuousClock.Instant?
        /// Moves each time everything held is forgotten.
        var generation = 0
    }

    public let tokens: TokenStore
    let lifetime: Duration
    let capacity: Int
    let longestHold: Duration
    private let state: Mutex<State>

    public init(tokens: TokenStore, lifetime: Duration = .seconds(1), capacity: Int = 100_000, longestHold: Duration = .seconds(3600)) {
        self.tokens = tokens
        self.lifetime = lifetime
        self.capacity = capacity
        self.longestHold = longestHold
        self.state = Mutex(State(entries: SegmentedLRU(capacity: capacity)))
    }

    /// `TokenStore.authenticate(accessToken:)`, answered from memory when it is held.
    public func authenticate(accessToken: String) async throws -> Result<TokenStore.Bearer, TokenStore.BearerFailure> {
        try await account(accessToken: accessToken).map(\.bearer)
    }

    /// The token's account with its email and sandbox flag, answered from memory when it is held
    /// (a miss costs one indexed query, the token joined with its account).
    public func account(accessToken: String) async throws -> Result<BearerAccount, TokenStore.BearerFailure> {
        guard lifetime > .zero else { return try await load(accessToken).outcome }
        try await checkRevisionIfDue()
        let key = SHA256.hash(data: Array(accessToken.utf8))
        let now = ContinuousClock.now
        let (held, generation, checked) = state.withLock { state in
            (state.entries.value(forKey: key) { $0.expires > now }, state.generation, state.revision != nil)
        }
        if let held { return held.outcome }
        let (outcome, validFor) = try await load(accessToken)
        state.withLock { state in
            // Spread over the second half of the lifetime, so refusals first seen together are not
            // all read again at the same instant (a burst of queries that showed as p99 latency).
            var hold = lifetime * Double.random(in: 0.5...1.0)
            if case .success = outcome, checked, state.generation == generation, let validFor {
                hold = min(longestHold, validFor)
            }
            state.entries.insert(Entry(outcome: outcome, expires: now + hold), forKey: key)
        }
        return outcome
    }

    /// Reads `auth_revision` when a check is due and forgets everything held when it moved.
    private func checkRevisionIfDue() async throws {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let next = state.nextCheck, next > now { return false }
            state.nextCheck = now + lifetime
            return true
        }
        guard due else { return }
        let revision: Int64
        do {
            revision = try await tokens.authRevision()
        } catch {
            state.withLock { $0.nextCheck = nil }
            throw error
        }
        state.withLock { state in
            if let seen = state.revision, seen != revision {
                state.entries.removeAll()
                state.generation += 1
            }
            state.revision = revision
        }
    }

    /// The answer for a token, and for how long a valid one stays valid.
    private func load(_ accessToken: String) async throws -> (outcome: Result<BearerAccount, TokenStore.BearerFailure>, validFor: Duration?) {
        switch try await tokens.authenticateAccount(accessToken: accessToken) {
        case .failure(let failure):
            return (.failure(failure), nil)
        case .success(let found):
            let seconds = max(0, found.expiresAt.timeIntervalSince(tokens.now()))
            return (.success(BearerAccount(bearer: found.bearer, email: found.email, sandbox: found.sandbox)), .seconds(seconds))
        }
    }

    /// Forgets a token at once (this process revoked it).
    public func forget(accessToken: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: SHA256.hash(data: Array(accessToken.utf8))) }
    }

    /// How many tokens are held now (at most `capacity`).
    public var count: Int { state.withLock { $0.entries.count } }

    /// Tokens held, hits, misses and evictions so far (a token answered from memory is a hit).
    public var statistics: CacheStatistics { state.withLock { $0.entries.statistics } }
}
