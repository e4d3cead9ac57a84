import Foundation
import SQLKit

/// Counts failed sign-ins per key (an account's email, a client address) in the database, so every
/// Souk process sees the same counts. A key over its limit is refused until its window ends.
public struct LoginThrottle: Sendable {
    let database: SoukDatabase
    public let window: TimeInterval
    let now: @Sendable () -> Date

    /// A key and how many failures it may have per window.
    public struct Rule: Sendable {
        public var key: String
        public var limit: Int
        public init(key: String, limit: Int) {
            self.key = key
            self.limit = limit
        }
    }

    public init(database: SoukDatabase, window: TimeInterval = 15 * 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.window = window
        self.now = now
    }

    /// Seconds until the first blocked key frees up, or nil when none is blocked.
    public func retryAfter(_ rules: [Rule]) async throws -> Int? {
        let windowStart = now().addingTimeInterval(-window)
        var longest: Int?
        for rule in rules {
            let row = try await database.sql.raw("""
                SELECT failures, window_start FROM login_throttle WHERE key = \(bind: rule.key)
                """).first()
            guard let row, let failures = try? row.decode(column: "failures", as: Int.self),
                  let started = try? row.decode(column: "window_start", as: Date.self),
                  started > windowStart, failures >= rule.limit else { continue }
            let seconds = max(1, Int(started.addingTimeInterval(window).timeIntervalSince(now()).rounded(.up)))
            longest = max(longest ?? 0, seconds)
        }
        return longest
    }

    /// Counts one failure against each key (a new window starts when the old one is over).
    public func recordFailure(keys: [String]) async throws {
        let current = now()
        let expired = current.addingTimeInterval(-window)
        for key in keys {
            try await database.sql.raw("""
                INSERT INTO login_throttle (key, failures, window_start) VALUES (\(bind: key), 1, \(bind: current))
                ON CONFLICT (key) DO UPDATE SET
                  failures = CASE WHEN login_throttle.window_start <= \(bind: expired) THEN 1 ELSE login_throttle.failures + 1 END,
                  window_start = CASE WHEN login_throttle.window_start <= \(bind: expired) THEN \(bind: current) ELSE login_throttle.window_start END
                """).run()
        }
    }

    /// Forgets a key's failures (after a successful sign-in).
    public func reset(key: String) async throws {
        try await database.sql.raw("DELETE FROM login_throttle WHERE key = \(bind: key)").run()
    }
}
