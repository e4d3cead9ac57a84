import Foundation
import SoukCore
import SoukTestSupport
import Testing

/// The metrics' definitions (docs/metrics.md) over the known history of `MetricsHistory`.
@Suite struct SubscriptionMetricsTests {
    static func reported(_ metrics: SubscriptionMetrics, _ day: String) throws -> [MetricName: ReportedMetric] {
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: MetricsHistory.rates)
        let values = try metrics.day(MetricDay(day)!).reported(with: converter).get()
        return Dictionary(uniqueKeysWithValues: values.map { ($0.metric, $0) })
    }

    @Test func everyMetricHasItsExactValueOnTheChosenDays() throws {
        let metrics = SubscriptionMetrics(periods: MetricsHistory.periods)
        for (day, expected) in MetricsHistory.expected.sorted(by: { $0.key < $1.key }) {
            let values = try Self.reported(metrics, day)
            for (metric, value) in expected {
                #expect(values[metric]?.value == value, "\(metric.rawValue) on \(day)")
                #expect((values[metric]?.currency == "USD") == metric.isMoney)
            }
        }
        for (day, reason) in MetricsHistory.churnReasons {
            let churn = try #require(try Self.reported(metrics, day)[.churned])
            #expect(churn.breakdown?[reason.rawValue] == 1 && churn.value == 1, "\(day)")
        }
    }

    @Test func theSameHistoryInAnotherOrderGivesTheSameNumbers() {
        let first = SubscriptionMetrics(periods: MetricsHistory.periods)
        let second = SubscriptionMetrics(periods: MetricsHistory.reordered)
        #expect(MetricsHistory.reordered != MetricsHistory.periods)
        var day = MetricDay("2026-09-28")!
        while day <= MetricDay("2026-12-31")! {
            #expect(first.day(day) == second.day(day), "\(day)")
            day = day.adding(days: 1)
        }
        let (from, to) = (StatementMonth("2026-10")!, StatementMonth("2026-12")!)
        #expect(first.cohorts(from: from, to: to) == second.cohorts(from: from, to: to))
    }

    /// `days(from:through:)` (the rollup's sweep) gives exactly `day(_:)`'s numbers for every day:
    /// on the known history in both orders and environments, and on generated histories of
    /// renewals, trials, retries, refunds, gaps and one-time purchases.
    @Test func theSweepOverManyDaysEqualsEachDayAlone() {
        let (first, last) = (MetricDay("2026-09-01")!, MetricDay("2027-01-31")!)
        var histories = [MetricsHistory.periods, MetricsHistory.reordered]
        for seed in 1...6 { histories.append(Self.generated(seed: UInt64(seed), around: first.start)) }
        for (index, periods) in histories.enumerated() {
            for sandbox in [false, true] {
                let metrics = SubscriptionMetrics(periods: periods, sandbox: sandbox)
                let swept = metrics.days(from: first, through: last)
                #expect(swept.count == last.ordinal - first.ordinal + 1)
                for (offset, day) in swept.enumerated() {
                    let alone = metrics.day(first.adding(days: offset))
                    #expect(day == alone, "history \(index), sandbox \(sandbox), \(alone.day)")
                }
            }
        }
        #expect(SubscriptionMetrics(periods: MetricsHistory.periods).days(from: last, through: first).isEmpty)
    }

    /// A deterministic pseudo-random history: 40 accounts, each with one or two subscriptions of
    /// consecutive or gapped monthly periods (some trials, retries with grace, refunds, auto-renew
    /// turned off) and a one-time purchase now and then.
    static func generated(seed: UInt64, around origin: Date) -> [MetricPeriod] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let day: TimeInterval = 86_400
        var periods: [MetricPeriod] = []
        for account in 0..<40 {
            for subscription in 0..<(1 + next(2)) {
                var start = origin.addingTimeInterval(Double(next(90)) * day + Double(next(86_400)))
                for index in 0..<(1 + next(5)) {
                    let trial = index == 0 && next(3) == 0
                    let length = Double(trial ? 7 : 30) * day
                    var period = MetricPeriod(subscription: "s\(account)-\(subscription)", account: "a\(account)", app: "app",
                                              store: next(2) == 0 ? "apple_store" : "google_play", product: "monthly",
                                              sandbox: next(10) == 0, start: start, end: start.addingTimeInterval(length), isTrial: trial,
                                              price: trial ? 0 : 499, currency: next(4) == 0 ? "EUR" : "USD", billingPeriod: "P1M")
                    if next(6) == 0 {
                        period.endedInBillingRetry = true
                        period.graceUntil = start.addingTimeInterval(length + Double(next(16)) * day)
                    }
                    if next(7) == 0 { period.autoRenewOffAt = start.addingTimeInterval(length / 2) }
                    if !trial, next(9) == 0 {
                        period.refund = .init(at: start.addingTimeInterval(Double(next(60)) * day), amount: next(2) == 0 ? 499 : 200,
                                              endsAccess: next(2) == 0)
                    }
                    if next(12) == 0 { period.priceKnown = false }
                    periods.append(period)
                    start = start.addingTimeInterval(length + (next(5) == 0 ? Double(next(40)) * day : 0))
                }
            }
            if next(3) == 0 {
                var once = MetricPeriod(subscription: "o\(account)", account: "a\(account)", app: "app", store: "apple_store",
                                        product: "book", kind: .oneTime, start: origin.addingTimeInterval(Double(next(120)) * day),
                                        end: nil, price: 999, currency: "USD", billingPeriod: nil)
                if next(3) == 0 { once.refund = .init(at: once.start.addingTimeInterval(Double(next(100)) * day), amount: 999, endsAccess: true) }
                periods.append(once)
            }
        }
        return periods
    }

    @Test func sandboxIsCountedOnlyWhenAskedFor() throws {
        let sandbox = SubscriptionMetrics(periods: MetricsHistory.periods, sandbox: true)
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: [])
        #expect(sandbox.day(MetricDay("2026-11-02")!).activeTrials == 1)
        #expect(sandbox.day(MetricDay("2026-11-04")!).trialConversions == 1)
        let tenth = try sandbox.day(MetricDay("2026-11-10")!).reported(with: converter).get()
        #expect(tenth.first { $0.metric == .revenue }?.value == 5000)
        #expect(tenth.first { $0.metric == .activeSubscriptions }?.value == 1)
    }

    @Test func aMissingRateIsNamed() {
        let metrics = SubscriptionMetrics(periods: MetricsHistory.periods)
        let converter = CurrencyConverter(reportingCurrency: "USD", rates: [])
        guard case .failure(let missing) = metrics.day(MetricDay("2026-11-10")!).reported(with: converter) else {
            Issue.record("reported without an EUR rate")
            return
        }
        #expect(missing.rates == [MissingRate(currency: "EUR", day: MetricDay("2026-11-10")!)])
    }

    @Test func cohortsShareTheirAccountsStillActiveAtEachMonthsEnd() {
        let cells = SubscriptionMetrics(periods: MetricsHistory.periods)
            .cohorts(from: StatementMonth("2026-10")!, to: StatementMonth("2026-11")!)
        #expect(cells.map { "\($0.cohort) \($0.month) \($0.active)/\($0.accounts) \($0.share)" }
                == ["2026-10 0 5/5 1.0", "2026-10 1 4/5 0.8", "2026-11 0 1/2 0.5"])
    }

    @Test func pricesAreNormalisedToAMonth() {
        func monthly(_ price: Int64, _ period: String) -> Decimal? {
            MetricPeriod(subscription: "s", account: "a", app: "x", store: "apple_store", product: "p", start: Date(), end: Date(),
                         price: price, currency: "USD", billingPeriod: period).monthlyPrice
        }
        #expect(monthly(300, "P1W") == 1300)
        #expect(monthly(999, "P1M") == 999)
        #expect(monthly(1000, "P2M") == 500)
        #expect(monthly(900, "P3M") == 300)
        #expect(monthly(600, "P6M") == 100)
        #expect(monthly(12000, "P1Y") == 1000)
        #expect(monthly(100, "month") == nil)
    }
}
