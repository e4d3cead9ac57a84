import Foundation

/// How a metric series groups its days.
public enum MetricInterval: String, Sendable, CaseIterable {
    case day, week, month

    /// The first day of the interval holding `day`: itself, its week's Monday, its month's first.
    public func start(of day: MetricDay) -> MetricDay {
        switch self {
        case .day: day
        // Day 0 (1970-01-01) was a Thursday: three days after a Monday.
        case .week: day.adding(days: -((day.ordinal + 3) % 7 + 7) % 7)
        case .month: MetricDay(containing: day.month.start)
        }
    }
}

/// One point of a series: the interval's first and last day (clipped to the range asked for) and
/// its value in the reporting currency (money) or as a count.
public struct MetricPoint: Sendable, Equatable {
    public var start: MetricDay
    public var end: MetricDay
    public var value: Int64
    public var breakdown: [String: Int64]?
    /// Payments whose price is unknown, left out of a money value.
    public var priceUnknown: Int64?

    public init(start: MetricDay, end: MetricDay, value: Int64, breakdown: [String: Int64]? = nil, priceUnknown: Int64? = nil) {
        self.start = start
        self.end = end
        self.value = value
        self.breakdown = breakdown
        self.priceUnknown = priceUnknown
    }
}

/// A metric over a range of days, by day, week or month (docs/metrics.md, "The API"), from the
/// rollup's rows: a level (MRR, active subscriptions and trials) is its value on the interval's
/// last day; a flow (revenue, refunds, net revenue, new subscribers, trials, churn, reactivations)
/// is the sum of its days, each day converted at its own rates and rounded. Missing rates of any
/// day are named, never guessed.
public enum MetricSeries {
    /// Whether the metric is a level rather than a flow.
    public static func isLevel(_ metric: MetricName) -> Bool {
        metric == .mrr || metric == .activeSubscriptions || metric == .activeTrials
    }

    /// The rollup metrics `metric` is computed from.
    public static func sources(of metric: MetricName) -> [MetricName] {
        metric == .netRevenue ? [.revenue, .refunds] : [metric]
    }

    public static func points(_ metric: MetricName, rows: [MetricRollupRow], from: MetricDay, to: MetricDay, interval: MetricInterval,
                              converter: CurrencyConverter) -> Result<[MetricPoint], MissingRates> {
        let byDay = Dictionary(grouping: rows, by: \.day)
        var missing = MissingRates()
        var daily: [MetricDay: ReportedMetric] = [:]
        var day = from
        while day <= to {
            var metrics = DayMetrics(day: day, rows: byDay[day] ?? [])
            // Only the money the metric is made of needs a rate.
            if metric != .mrr { metrics.mrr = [:] }
            if metric != .revenue && metric != .netRevenue { metrics.revenue = [:] }
            if metric != .refunds && metric != .netRevenue { metrics.refunds = [:] }
            switch metrics.reported(with: converter) {
            case .success(let reported): daily[day] = reported.first { $0.metric == metric }
            case .failure(let lacking): missing.merge(lacking.rates)
            }
            day = day.adding(days: 1)
        }
        guard missing.isEmpty else { return .failure(missing) }
        var points: [MetricPoint] = []
        var start = from
        while start <= to {
            var end = start
            while end < to, interval.start(of: end.adding(days: 1)) == interval.start(of: start) { end = end.adding(days: 1) }
            var point = MetricPoint(start: start, end: end, value: 0)
            if isLevel(metric) {
                point.value = daily[end]?.value ?? 0
                point.priceUnknown = daily[end]?.priceUnknown
            } else {
                var day = start
                while day <= end {
                    if let reported = daily[day] {
                        point.value += reported.value
                        if let unknown = reported.priceUnknown { point.priceUnknown = (point.priceUnknown ?? 0) + unknown }
                        if let breakdown = reported.breakdown {
                            point.breakdown = (point.breakdown ?? [:]).merging(breakdown, uniquingKeysWith: +)
                        }
                    }
                    day = day.adding(days: 1)
                }
            }
            if metric == .churned, point.breakdown == nil {
                point.breakdown = Dictionary(uniqueKeysWithValues: ChurnReason.allCases.map { ($0.rawValue, Int64(0)) })
            }
            points.append(point)
            start = end.adding(days: 1)
        }
        return .success(points)
    }
}
