import Foundation

/// One period of a subscription, or one one-time payment, as metrics see it (docs/metrics.md): who
/// paid what for which span of time, and how the period ended. The store gathers these from
/// Souk's records; the rules (`SubscriptionMetrics`) see nothing else.
public struct MetricPeriod: Sendable, Hashable {
    /// What the payment bought.
    public enum Kind: String, Sendable, Hashable {
        /// A period of an auto-renewable subscription.
        case subscription
        /// A one-time purchase (counted in revenue and refunds only).
        case oneTime
    }

    /// A refund of the period: its revocation date and how much was refunded, in the period's
    /// currency (a partial refund its part). A full refund (or a revocation) ends the period at `at`.
    public struct Refund: Sendable, Hashable {
        public var at: Date
        public var amount: Int64
        public var endsAccess: Bool

        public init(at: Date, amount: Int64, endsAccess: Bool) {
            self.at = at
            self.amount = amount
            self.endsAccess = endsAccess
        }
    }

    /// The same subscription across its periods (a store's original transaction, a marketplace
    /// membership): one subscription runs one period at a time.
    public var subscription: String
    public var account: String
    public var app: String
    public var store: String
    public var product: String
    public var sandbox: Bool
    public var kind: Kind
    /// When the period starts (the transaction's purchase date).
    public var start: Date
    /// When it ends (the expiry); nil for a one-time purchase.
    public var end: Date?
    /// A free trial (Apple `offerDiscountType` `FREE_TRIAL`, Google's free-trial phase).
    public var isTrial: Bool
    /// What was paid for the period, in minor units of `currency` (0 for a trial).
    public var price: Int64
    public var currency: String
    /// The billing period, ISO 8601 (`P1M`, `P1Y`, …); nil for one-time purchases.
    public var billingPeriod: String?
    /// The store retried the payment for the next period: the subscription stays active until
    /// `graceUntil` (nil: no grace period, so it stops being active at `end`).
    public var endedInBillingRetry: Bool
    public var graceUntil: Date?
    /// When auto-renew was turned off, if it was (before `end`: a voluntary end).
    public var autoRenewOffAt: Date?
    public var refund: Refund?
    /// false: the store never said what the period cost (a purchase recorded before Souk kept
    /// prices, a store whose answer carries none). Such a period counts as a subscription, but its
    /// money is named as "price unknown" rather than counted as zero.
    public var priceKnown = true
    /// Where the buyer bought it, ISO 3166-1 alpha-2 (`CountryCode`), as the store stated it; nil
    /// where unknown (a store that does not say, the marketplace's own checkout, a purchase recorded
    /// before Souk kept it). Such a period counts everywhere except in a country's numbers.
    public var country: String?

    public init(subscription: String, account: String, app: String, store: String, product: String, sandbox: Bool = false,
                kind: Kind = .subscription, start: Date, end: Date?, isTrial: Bool = false, price: Int64, currency: String,
                billingPeriod: String?, endedInBillingRetry: Bool = false, graceUntil: Date? = nil, autoRenewOffAt: Date? = nil,
                refund: Refund? = nil) {
        self.subscription = subscription
        self.account = account
        self.app = app
        self.store = store
        self.product = product
        self.sandbox = sandbox
        self.kind = kind
        self.start = start
        self.end = end
        self.isTrial = isTrial
        self.price = price
        self.currency = currency
        self.billingPeriod = billingPeriod
        self.endedInBillingRetry = endedInBillingRetry
        self.graceUntil = graceUntil
        self.autoRenewOffAt = autoRenewOffAt
        self.refund = refund
    }

    /// The last instant the period gives an active subscription: its end, or the end of the grace
    /// period it went into; a refund that ends access ends it sooner.
    public var activeUntil: Date? {
        guard kind == .subscription, let end else { return nil }
        var until = endedInBillingRetry ? max(end, graceUntil ?? end) : end
        if let refund, refund.endsAccess { until = min(until, refund.at) }
        return until
    }

    /// Whether the period makes its subscription active on `day` (at the day's last instant): it
    /// started before the day ended and is active until the day's end or later.
    public func isActive(on day: MetricDay) -> Bool {
        guard let until = activeUntil else { return false }
        return start < day.end && until >= day.end
    }

    /// The price normalised to one month, exact: P1W × 52/12, PnM ÷ n, PnY ÷ 12n, PnD × 365/12n;
    /// nil for a period that is not one of these.
    public var monthlyPrice: Decimal? {
        guard let billingPeriod, let (count, unit) = Self.parse(billingPeriod), count > 0 else { return nil }
        let price = Decimal(price), n = Decimal(count)
        switch unit {
        case "D": return price * 365 / (12 * n)
        case "W": return price * 52 / (12 * n)
        case "M": return price / n
        case "Y": return price / (12 * n)
        default: return nil
        }
    }

    static func parse(_ period: String) -> (Int, Character)? {
        guard period.hasPrefix("P"), let unit = period.last, "DWMY".contains(unit),
              let count = Int(period.dropFirst().dropLast()) else { return nil }
        return (count, unit)
    }
}
