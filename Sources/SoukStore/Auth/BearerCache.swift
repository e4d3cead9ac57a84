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

/// Access token → account (`BearerAccount`), remembered for `lifetime`, so that a hot path (the entitlement check)
/// costs no database round trip per request for a token it saw within that time.
///
/// Every outcome is remembered, refusals too (an unknown token costs one query per `lifetime`,
/// not one per request), for a random time between half the lifetime and all of it. The price: a token revoked or expired, or an account disabled, is still
/// accepted for at most `lifetime` (`SOUK_CATALOG_REFRESH_MS`, one second by default) by a process
/// that saw it valid just before; `.zero` remembers nothing. Tokens are held by their SHA-256, never
/// as such. A cached answer does not move the token's `last_used_at` (it moves when the token is
/// read again, at most once a minute anyway).
public final class BearerCache: Sendable {
    private struct Entry {
        var outcome: Result<BearerAccount, TokenStore.BearerFailure>
        var expires: ContinuousClock.Instant
    }

    public let tokens: TokenStore
    let lifetime: Duration
    let capacity: Int
    private let entries = Mutex<[SHA256.Digest: Entry]>([:])

    public init(tokens: TokenStore, lifetime: Duration = .seconds(1), capacity: Int = 100_000) {
        self.tokens = tokens
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// `TokenStore.authenticate(accessToken:)`, answered from memory when it was asked within `lifetime`.
    public func authenticate(accessToken: String) async throws -> Result<TokenStore.Bearer, TokenStore.BearerFailure> {
        try await account(accessToken: accessToken).map(\.bearer)
    }

    /// The token's account with its email and sandbox flag, answered from memory when it was
    /// asked within `lifetime` (a miss costs one indexed query, the token joined with its account).
    public func account(accessToken: String) async throws -> Result<BearerAccount, TokenStore.BearerFailure> {
        guard lifetime > .zero else { return try await load(accessToken) }
        let key = SHA256.hash(data: Array(accessToken.utf8))
        let now = ContinuousClock.now
        if let held = entries.withLock({ $0[key] }), held.expires > now { return held.outcome }
        let outcome = try await load(accessToken)
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            // Spread over the second half of the lifetime, so tokens first seen together are not
            // all read again at the same instant (a burst of queries that showed as p99 latency).
            entries[key] = Entry(outcome: outcome, expires: now + lifetime * Double.random(in: 0.5...1.0))
        }
        return outcome
    }

    private func load(_ accessToken: String) async throws -> Result<BearerAccount, TokenStore.BearerFailure> {
        try await tokens.authenticateAccount(accessToken: accessToken).map {
            BearerAccount(bearer: $0.bearer, email: $0.email, sandbox: $0.sandbox)
        }
    }

    /// Forgets a token at once (this process revoked it).
    public func forget(accessToken: String) {
        _ = entries.withLock { $0.removeValue(forKey: SHA256.hash(data: Array(accessToken.utf8))) }
    }

    /// How many tokens are held now (at most `capacity`).
    public var count: Int { entries.withLock { $0.count } }
}
