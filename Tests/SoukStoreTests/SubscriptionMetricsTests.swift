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
