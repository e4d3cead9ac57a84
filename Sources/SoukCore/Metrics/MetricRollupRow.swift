import Foundation

/// One row of the daily rollup (`metric_rollups`, docs/metrics.md "The daily rollup"): one metric
/// of one app's day, for all stores, products and countries (`"*"`) or one of them
/// (`MetricScope`), in one environment. Money
/// is kept per currency as it was paid, exact, before conversion (so a rate set later applies
/// without recomputing); counts have no currency. A money metric's payments without a known price
/// are a row with an empty currency whose value is how many there were.
public struct MetricRollupRow: Sendable, Equatable, Hashable {
    /// Every store or product.
    public static let all = "*"

    public var app: String
    public var store: String
    public var product: String
    /// ISO 3166-1 alpha-2, or `"*"`: every period, whether its country is known or not.
    public var country: String
    public var sandbox: Bool
    public var day: MetricDay
    public var metric: MetricName
    /// ISO 4217 for money; "" for counts and for the price-unknown count of a money metric.
    public var currency: String
    /// Minor units, exact (MRR may have a fraction: a P3M price ÷ 3), or a count.
    public var value: Decimal
    /// `churned`: every reason's count.
    public var breakdown: [String: Int64]?

    public init(app: String, store: String = all, product: String = all, country: String = all, sandbox: Bool = false, day: MetricDay,
                metric: MetricName, currency: String = "", value: Decimal, breakdown: [String: Int64]? = nil) {
        self.app = app
        self.store = store
        self.product = product
        self.country = country
        self.sandbox = sandbox
        self.day = day
        self.metric = metric
        self.currency = currency
        self.value = value
        self.breakdown = breakdown
    }
}

extension DayMetrics {
    /// The day as rollup rows (net revenue is not stored: it is revenue − refunds after conversion).
    public func rollupRows(app: String, scope: MetricScope = .all, sandbox: Bool) -> [MetricRollupRow] {
        func row(_ metric: MetricName, _ value: Decimal, currency: String = "", breakdown: [String: Int64]? = nil) -> MetricRollupRow {
            MetricRollupRow(app: app, store: scope.store, product: scope.product, country: scope.country, sandbox: sandbox, day: day,
                            metric: metric, currency: currency, value: value, breakdown: breakdown)
        }
        var rows = [
            row(.activeSubscriptions, Decimal(activeSubscriptions)), row(.activeTrials, Decimal(activeTrials)),
            row(.newSubscribers, Decimal(newSubscribers)), row(.trialStarts, Decimal(trialStarts)),
            row(.trialConversions, Decimal(trialConversions)), row(.reactivations, Decimal(reactivations)),
            row(.churned, Decimal(churnedTotal),
                breakdown: Dictionary(uniqueKeysWithValues: ChurnReason.allCases.map { ($0.rawValue, Int64(churned[$0] ?? 0)) })),
        ]
        for (currency, amount) in mrr.sorted(by: { $0.key < $1.key }) { rows.append(row(.mrr, amount, currency: currency)) }
        for (currency, amount) in revenue.sorted(by: { $0.key < $1.key }) { rows.append(row(.revenue, Decimal(amount), currency: currency)) }
        for (currency, amount) in refunds.sorted(by: { $0.key < $1.key }) { rows.append(row(.refunds, Decimal(amount), currency: currency)) }
        for (metric, count) in priceUnknown.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > 0 {
            rows.append(row(metric, Decimal(count)))
        }
        return rows
    }

    /// The day rebuilt from its rollup rows (those of one app, scope and environment).
    public init(day: MetricDay, rows: [MetricRollupRow]) {
        self.init(day: day)
        for row in rows where row.day == day {
            let count = Int(truncating: row.value as NSDecimalNumber)
            switch row.metric {
            case .activeSubscriptions: activeSubscriptions = count
            case .activeTrials: activeTrials = count
            case .newSubscribers: newSubscribers = count
            case .trialStarts: trialStarts = count
            case .trialConversions: trialConversions = count
            case .reactivations: reactivations = count
            case .churned:
                for reason in ChurnReason.allCases {
                    if let n = row.breakdown?[reason.rawValue], n > 0 { churned[reason] = Int(n) }
                }
            case .mrr, .revenue, .refunds:
                if row.currency.isEmpty {
                    priceUnknown[row.metric] = count
                } else if row.metric == .mrr {
                    mrr[row.currency] = row.value
                } else if row.metric == .revenue {
                    revenue[row.currency] = Int64(truncating: row.value as NSDecimalNumber)
                } else {
                    refunds[row.currency] = Int64(truncating: row.value as NSDecimalNumber)
                }
            case .netRevenue:
                break
            }
        }
    }
}
