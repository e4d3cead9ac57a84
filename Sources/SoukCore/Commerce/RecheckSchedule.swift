import Foundation

/// When reconciliation asks a store about a subscription again: the moments its
/// state may change without a notification reaching Souk — the expiry, the end of a grace period,
/// a Roku recovery — and, while a store keeps a subscription in limbo (billing retry, paused) or
/// still calls it active after its expiry, at a slow steady pace. nil: never again (one-time
/// purchases, and ended subscriptions: what revives one is a new purchase Souk hears of).
public enum RecheckSchedule {
    /// How long after its expiry a subscription the store still calls active is asked about again.
    public static let lagging: TimeInterval = 3600
    /// The pace while the store retries a payment or the person paused.
    public static let limbo: TimeInterval = 86_400
    /// A check just after the moment: stores settle renewals a little after the expiry.
    public static let settle: TimeInterval = 60

    public static func next(type: ProductType, state: SubscriptionState?, expiresDate: Date?, graceExpiresDate: Date?,
                            revoked: Bool, recheckAt: Date?, now: Date) -> Date? {
        guard type == .autoRenewable, !revoked else { return nil }
        if let recheckAt, recheckAt > now { return recheckAt }
        switch state {
        case .revoked?, .expired?:
            return nil
        case .billingRetry?, .paused?:
            return now.addingTimeInterval(limbo)
        case .gracePeriod?:
            if let grace = graceExpiresDate, grace > now { return grace.addingTimeInterval(settle) }
            return now.addingTimeInterval(lagging)
        case .active?, .cancelled?, nil:
            if let expiresDate, expiresDate > now { return expiresDate.addingTimeInterval(settle) }
            // Past its expiry and not said to be over: ask again until the store says how it ended.
            return now.addingTimeInterval(lagging)
        }
    }

    /// The wait after `failures` re-checks in a row that got no answer: one retry step, doubling, at most a day.
    public static func backOff(failures: Int, base: TimeInterval) -> TimeInterval {
        min(limbo, base * pow(2, Double(max(0, failures - 1))))
    }
}
