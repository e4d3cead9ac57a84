import Foundation

/// Why a subscription that was active the day before is not active on a day (docs/metrics.md, "Churn").
public enum ChurnReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Auto-renew had been turned off before the period ended.
    case voluntary
    /// The period ended in billing retry, past its grace period.
    case billing
    /// A refund (or a revocation) ended it.
    case refund
    /// The store said nothing of why (it ran out while Souk still knew it as renewing).
    case other
}

/// One app's metrics of one UTC day, before conversion: money per currency (MRR exact, for one
/// rounding after conversion), counts as integers.
public struct DayMetrics: Sendable, Equatable {
    public var day: MetricDay
    public var activeSubscriptions = 0
    public var activeTrials = 0
    /// Monthly recurring revenue per currency, in minor units, exact (a P3M price ÷ 3 is kept whole).
    public var mrr: [String: Decimal] = [:]
    public var revenue: [String: Int64] = [:]
    public var refunds: [String: Int64] = [:]
    public var newSubscribers = 0
    public var trialStarts = 0
    public var trialConversions = 0
    public var churned: [ChurnReason: Int] = [:]
    public var reactivations = 0
    /// How many payments of a money metric (`mrr`, `revenue`, `refunds`) have no known price: they
    /// are left out of the amount and named instead (docs/metrics.md, "Prices").
    public var priceUnknown: [MetricName: Int] = [:]

    public init(day: MetricDay) {
        self.day = day
    }

    /// Every subscription that churned on the day, whatever the reason.
    public var churnedTotal: Int { churned.values.reduce(0, +) }
}

/// The names of the metrics, as the API, the exports and the rollup table spell them.
public enum MetricName: String, Sendable, Hashable, Codable, CaseIterable {
    case mrr
    case activeSubscriptions = "active_subscriptions"
    case activeTrials = "active_trials"
    case revenue
    case refunds
    case netRevenue = "net_revenue"
    case newSubscribers = "new_subscribers"
    case trialStarts = "trial_starts"
    case trialConversions = "trial_conversions"
    case churned
    case reactivations

    /// Whether the metric is money (minor units of the reporting currency) rather than a count.
    public var isMoney: Bool { self == .mrr || self == .revenue || self == .refunds || self == .netRevenue }
}

/// One metric of one day in the reporting currency (money rounded half away from zero to minor
/// units), with the churn's reasons.
public struct ReportedMetric: Sendable, Equatable {
    public var day: MetricDay
    public var metric: MetricName
    public var value: Int64
    public var currency: String?
    public var breakdown: [String: Int64]?
    /// Payments left out of a money metric because their price is unknown (nil: none).
    public var priceUnknown: Int64?

    public init(day: MetricDay, metric: MetricName, value: Int64, currency: String?, breakdown: [String: Int64]?) {
        self.day = day
        self.metric = metric
        self.value = value
        self.currency = currency
        self.breakdown = breakdown
    }
}

extension DayMetrics {
    /// The day's metrics in the converter's reporting currency, at the rates in force on the day; a
    /// missing rate is named, never guessed. Net revenue is revenue − refunds after rounding each,
    /// so the three always add up.
    public func reported(with converter: CurrencyConverter) -> Result<[ReportedMetric], MissingRates> {
        var missing = MissingRates()
        func total<V>(_ amounts: [String: V], _ exact: (V) -> Decimal) -> Int64 {
            var sum = Decimal(0)
            for (currency, amount) in amounts.sorted(by: { $0.key < $1.key }) {
                switch converter.convert(1, currency, on: day) {
                case .success(let one): sum += exact(amount) * one
                case .failure(let lacking): missing.merge(lacking.rates)
                }
            }
            return CurrencyConverter.rounded(sum)
        }
        let mrr = total(self.mrr) { $0 }, revenue = total(self.revenue) { Decimal($0) }, refunds = total(self.refunds) { Decimal($0) }
        guard missing.isEmpty else { return .failure(missing) }
        let currency = converter.reportingCurrency
        func count(_ metric: MetricName, _ value: Int) -> ReportedMetric {
            ReportedMetric(day: day, metric: metric, value: Int64(value), currency: nil, breakdown: nil)
        }
        func money(_ metric: MetricName, _ value: Int64) -> ReportedMetric {
            var reported = ReportedMetric(day: day, metric: metric, value: value, currency: currency, breakdown: nil)
            let unknown = metric == .netRevenue ? (priceUnknown[.revenue] ?? 0) + (priceUnknown[.refunds] ?? 0) : priceUnknown[metric] ?? 0
            if unknown > 0 { reported.priceUnknown = Int64(unknown) }
            return reported
        }
        var churn = count(.churned, churnedTotal)
        churn.breakdown = Dictionary(uniqueKeysWithValues: ChurnReason.allCases.map { ($0.rawValue, Int64(churned[$0] ?? 0)) })
        return .success([
            money(.mrr, mrr), count(.activeSubscriptions, activeSubscriptions), count(.activeTrials, activeTrials),
            money(.revenue, revenue), money(.refunds, refunds), money(.netRevenue, revenue - refunds),
            count(.newSubscribers, newSubscribers), count(.trialStarts, trialStarts), count(.trialConversions, trialConversions),
            churn, count(.reactivations, reactivations),
        ])
    }
}
