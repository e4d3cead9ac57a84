import Foundation

/// How password sign-ins are slowed down (docs/oauth.md, "Throttling"). Every attempt is counted
/// *before* the password is checked, so parallel guesses cannot outrun the count; the store claims
/// an attempt only when its rule lets one through at that moment.
public struct SignInThrottleRule: Sendable, Equatable {
    /// What happens once the free attempts are used.
    public enum Backoff: Sendable, Equatable {
        /// Nothing more until the window (fixed from its first attempt) ends.
        case untilWindowEnds
        /// Each further attempt waits 2^(n − free) seconds after the n-th, at most `cap`; the window
        /// restarts with every attempt, so the count is forgotten after `window` of quiet.
        case doubling(cap: TimeInterval)
    }

    /// The row the attempts are counted in (`account:<email>`, `address:<client>`).
    public var key: String
    /// Attempts let through at once before the backoff starts.
    public var freeAttempts: Int
    public var window: TimeInterval
    public var backoff: Backoff

    public init(key: String, freeAttempts: Int, window: TimeInterval, backoff: Backoff) {
        self.key = key
        self.freeAttempts = freeAttempts
        self.window = window
        self.backoff = backoff
    }

    /// Per account: 5 attempts, then 1 s, 2 s, 4 s … up to 15 minutes between attempts, forgotten after
    /// an hour without one. A stranger guessing at a known account holds it for at most 15 minutes
    /// after their last guess, and gets four guesses an hour.
    public static func account(email: String) -> Self {
        Self(key: "account:" + email, freeAttempts: 5, window: 3600, backoff: .doubling(cap: 900))
    }

    /// Per client address (an IPv6 client's /64): 20 attempts per 15 minutes.
    public static func address(_ client: String) -> Self {
        Self(key: "address:" + client, freeAttempts: 20, window: 900, backoff: .untilWindowEnds)
    }

    /// For `.doubling`: seconds the next attempt waits after the `attempts`-th counted one.
    public func delay(afterAttempts attempts: Int) -> TimeInterval {
        guard case .doubling(let cap) = backoff, attempts >= freeAttempts else { return 0 }
        let exponent = attempts - freeAttempts
        return exponent >= 62 ? cap : min(cap, TimeInterval(1 << exponent))
    }

    /// For `.doubling`: the attempt counts with a delay below the cap, in order; every later count
    /// waits the cap. The store turns them into one `CASE`, so the claim stays a single statement.
    public var growingDelays: [(attempts: Int, delay: TimeInterval)] {
        guard case .doubling(let cap) = backoff else { return [] }
        var result: [(attempts: Int, delay: TimeInterval)] = []
        var attempts = freeAttempts
        while delay(afterAttempts: attempts) < cap {
            result.append((attempts, delay(afterAttempts: attempts)))
            attempts += 1
        }
        return result
    }
}
