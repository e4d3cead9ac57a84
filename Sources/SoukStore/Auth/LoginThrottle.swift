import Foundation
import SQLKit
import SoukCore

/// Counts sign-in attempts per key (an account's email, a client address) in the database, so every
/// Souk process sees the same counts. An attempt is *claimed* before the password is checked, in one
/// statement that both decides and counts (`INSERT … ON CONFLICT … DO UPDATE … WHERE … RETURNING`),
/// so parallel requests can never get more attempts than the rule allows (SoukCore's `SignInThrottleRule`).
public struct LoginThrottle: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// Whether an attempt may go ahead.
    public enum Claim: Sendable, Equatable {
        /// Counted; `attempts` is the count in the current window including this one.
        case allowed(attempts: Int)
        /// Not counted; the next attempt may come in `retryAfter` seconds.
        case refused(retryAfter: Int)
    }

    /// Counts one attempt against `rule` if the rule lets one through now.
    public func claim(_ rule: SignInThrottleRule) async throws -> Claim {
        let current = now()
        let ends = current.addingTimeInterval(rule.window)
        let expired: SQLQueryString = "(login_throttle.window_ends_at IS NULL OR login_throttle.window_ends_at <= \(bind: current))"
        let attempts: SQLQueryString = "login_throttle.failures + 1"
        let windowEnds: SQLQueryString
        let nextAttempt: SQLQueryString
        switch rule.backoff {
        case .untilWindowEnds:
            // The attempt that uses the last free one closes the key until the window ends.
            windowEnds = "CASE WHEN \(expired) THEN \(bind: ends) ELSE login_throttle.window_ends_at END"
            nextAttempt = """
                CASE WHEN \(expired) THEN \(bind: rule.freeAttempts <= 1 ? ends : current)
                     WHEN \(attempts) >= \(literal: rule.freeAttempts) THEN login_throttle.window_ends_at
                     ELSE \(bind: current) END
                """
        case .doubling(let cap):
            windowEnds = "\(bind: ends)"
            let steps = rule.growingDelays.map { step -> SQLQueryString in
                "WHEN \(attempts) = \(literal: step.attempts) THEN \(bind: current.addingTimeInterval(step.delay)) "
            }.joined()
            nextAttempt = """
                CASE WHEN \(expired) THEN \(bind: current.addingTimeInterval(rule.delay(afterAttempts: 1)))
                     WHEN \(attempts) < \(literal: rule.freeAttempts) THEN \(bind: current)
                     \(steps)ELSE \(bind: current.addingTimeInterval(cap)) END
                """
        }
        let firstNext = rule.backoff == .untilWindowEnds && rule.freeAttempts <= 1 ? ends : current.addingTimeInterval(rule.delay(afterAttempts: 1))
        let row = try await database.sql.raw("""
            INSERT INTO login_throttle (key, failures, window_start, window_ends_at, next_attempt_at)
            VALUES (\(bind: rule.key), 1, \(bind: current), \(bind: ends), \(bind: firstNext))
            ON CONFLICT (key) DO UPDATE SET
              failures = CASE WHEN \(expired) THEN 1 ELSE \(attempts) END,
              window_start = CASE WHEN \(expired) THEN \(bind: current) ELSE login_throttle.window_start END,
              window_ends_at = \(windowEnds),
              next_attempt_at = \(nextAttempt)
            WHERE \(expired) OR login_throttle.next_attempt_at IS NULL OR login_throttle.next_attempt_at <= \(bind: current)
            RETURNING failures
            """).first()
        if let row { return .allowed(attempts: try row.decode(column: "failures", as: Int.self)) }
        return .refused(retryAfter: try await retryAfter(key: rule.key, at: current))
    }

    /// Gives back one attempt (a successful sign-in, or one refused by another rule), reopening the
    /// key when it falls below the rule's free attempts.
    public func release(_ rule: SignInThrottleRule) async throws {
        let current = now()
        try await database.sql.raw("""
            UPDATE login_throttle SET failures = failures - 1,
              next_attempt_at = CASE WHEN failures - 1 < \(literal: rule.freeAttempts) THEN \(bind: current) ELSE next_attempt_at END
            WHERE key = \(bind: rule.key) AND failures > 0
            """).run()
    }

    /// Forgets a key's attempts (after a successful sign-in).
    public func reset(key: String) async throws {
        try await database.sql.raw("DELETE FROM login_throttle WHERE key = \(bind: key)").run()
    }

    /// Seconds until the key takes attempts again (at least 1: the answer is a `Retry-After`).
    private func retryAfter(key: String, at current: Date) async throws -> Int {
        let row = try await database.sql.raw("SELECT next_attempt_at FROM login_throttle WHERE key = \(bind: key)").first()
        guard let next = try row?.decode(column: "next_attempt_at", as: Date?.self) else { return 1 }
        return max(1, Int(next.timeIntervalSince(current).rounded(.up)))
    }
}
