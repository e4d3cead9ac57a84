import Foundation

/// Apple's accelerated sandbox clock for subscriptions (docs/selling.md, "Membership plans and the sandbox"): a period renews
/// in minutes, at most `maxRenewals` times after the initial purchase, then stops renewing. Pure:
/// the sandbox clock (`souk sandbox advance`) is passed in as `now`, never read here.
public enum SandboxSchedule {
    /// Renewals after the initial purchase before a sandbox subscription stops renewing.
    public static let maxRenewals = 12

    /// The compressed length of `period` (Apple's table: 1 week → 3 min, 1 month → 5 min,
    /// 2 months → 10 min, 3 months → 15 min, 6 months → 30 min, 1 year → 1 h). A period outside the
    /// table keeps the table's rate of its unit: a week is 3 minutes, a month 5 minutes, a year an
    /// hour, a day 3/7 of a minute (never under 10 seconds).
    public static func compressed(_ period: ISODuration) -> TimeInterval {
        let minutes = Double(period.years) * 60 + Double(period.months) * 5 + Double(period.weeks) * 3 + Double(period.days) * 3 / 7
        return max(10, minutes * 60)
    }

    /// Where a sandbox subscription bought at `start` stands at sandbox time `now`.
    public struct Position: Sendable, Equatable {
        /// Renewals so far (0: still in the initial period).
        public var renewals: Int
        public var periodStart: Date
        public var periodEnd: Date
        /// The last renewal has run out: the subscription stopped renewing and expired at `periodEnd`.
        public var expired: Bool
        /// Whether another renewal will come after this period.
        public var willRenew: Bool
    }

    /// The period `now` falls in (renewals counted from `start`, each `compressed(period)` long),
    /// capped at `maxRenewals`.
    public static func position(start: Date, period: ISODuration, now: Date, maxRenewals: Int = maxRenewals) -> Position {
        let length = compressed(period)
        let elapsed = max(0, now.timeIntervalSince(start))
        let index = min(Int((elapsed / length).rounded(.down)), maxRenewals)
        let periodStart = start.addingTimeInterval(Double(index) * length)
        let periodEnd = periodStart.addingTimeInterval(length)
        return Position(renewals: index, periodStart: periodStart, periodEnd: periodEnd, expired: now >= periodEnd,
                        willRenew: index < maxRenewals)
    }
}
