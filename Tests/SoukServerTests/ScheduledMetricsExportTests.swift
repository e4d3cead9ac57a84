import Foundation
import Prometheus
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The scheduled exports' metrics files (docs/metrics.md, "Scheduled exports to a bucket") on both
/// databases: beside the purchases and events of each day, the day's metrics and the cohort table of
/// an organisation's in-app catalogs, from the rollup (brought up to the day when the job has not
/// reached it); a missing exchange rate fails the day, naming it, until it is set.
@Suite struct ScheduledMetricsExportTests {
    typealias World = DeveloperAPIWorld

    /// Rates for the history's euros and yen (`RawExportTests.history`).
    static func setRates(_ runtime: SoukRuntime, at now: Date) async throws {
        let rates = ExchangeRateStore(database: runtime.database), since = MetricDay("2026-01-01")!
        _ = try await rates.set(ExchangeRate(currency: "EUR", perUSDScaled: 92_000_000, from: since), by: "test", at: now)
        _ = try await rates.set(ExchangeRate(currency: "JPY", perUSDScaled: 15_000_000_000, from: since), by: "test", at: now)
    }

    @Test(arguments: TestBackend.available)
    func theMetricsAndCohortsOfAnOrganisationsCatalogsAreWrittenBesideItsDay(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            let day = MetricDay("2026-11-10")!
            _ = try await RawExportTests.history(runtime, world, count: 4)
            let clock = TestClock(day.adding(days: 1).start.addingTimeInterval(3600))
            let bucket = FakeObjectStore()
            try await bucket.run { endpoint in
                let registry = PrometheusCollectorRegistry()
                func key(_ developer: String, _ app: String, _ file: String) -> String {
                    "souk-exports/exports/\(developer)/\(day)/\(app)/\(file)"
                }
                // Acme's reader sold for euros and yen that day, and the operator has set no rates yet: its day waits, named.
                let first = try #require(try await ScheduledExportTests.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(first.failed.map(\.app) == [World.acmeApp] && first.failed.first?.lastError?.contains("JPY on 2026-11-10") == true, "\(first)")
                #expect(bucket.objects[key("beta", World.betaApp, "metrics.jsonl")] != nil)
                #expect(bucket.objects[key("beta", World.betaApp, "cohorts.jsonl")] != nil)
                // Acme's notes is an app without an in-app catalog: no metrics of its own.
                #expect(bucket.objects[key("acme", World.acmeNotesApp, "purchases.csv")] != nil)
                #expect(bucket.objects[key("acme", World.acmeNotesApp, "metrics.jsonl")] == nil)

                try await Self.setRates(runtime, at: clock.now)
                let second = try #require(try await ScheduledExportTests.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(second.written.map(\.app) == [World.acmeApp] && second.failed.isEmpty)
                // The day's lines as `souk export metrics` writes them, and the cohort table as the rollup holds it.
                let exports = MetricsExports(ownership: DeveloperOperations(runtime: runtime).ownership, database: runtime.database)
                let metrics = try await exports.metrics(actor: .currentCLIUser, app: World.acmeApp, from: day, to: day, format: .jsonl, currency: "USD")
                #expect(metrics.count == MetricName.allCases.count)
                #expect(bucket.objects[key("acme", World.acmeApp, "metrics.jsonl")] == metrics.map { $0 + "\n" }.joined())
                #expect(metrics.contains { $0.hasPrefix(#"{"date":"2026-11-10","app":"org.acme.reader","metric":"revenue","value":"#) })
                let cohorts = try await exports.cohorts(actor: .currentCLIUser, app: World.acmeApp, from: StatementMonth("2000-01")!,
                                                        to: day.month, format: .jsonl)
                #expect(bucket.objects[key("acme", World.acmeApp, "cohorts.jsonl")] == cohorts.map { $0 + "\n" }.joined())
                // The rollup was brought up to the day by the export itself.
                #expect(try await MetricRollupStore(database: runtime.database).position(app: World.acmeApp).map { $0.throughDay >= day } == true)
                // Written once: a third run writes nothing.
                let third = try #require(try await ScheduledExportTests.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(third.written.isEmpty && third.failed.isEmpty)
            }
        }
    }
}
