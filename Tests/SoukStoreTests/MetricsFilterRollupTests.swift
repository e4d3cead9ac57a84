import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The rollup's filters on both databases (docs/metrics.md, "Filters"): the history of
/// `MetricsGatheringTests` with Alice's purchases made in Germany and Bob's monthly one in the US
/// (his yearly plan of unknown country); every scope the rollup keeps holds, for every day, what the
/// definitions compute over that scope's periods.
@Suite struct MetricsFilterRollupTests {
    typealias Base = PurchaseStoreTests
    typealias G = MetricsGatheringTests

    @Test(arguments: TestBackend.available)
    func eachScopeOfTheRollupIsTheDefinitionsOverItsPeriods(backend: TestBackend) async throws {
        let clock = TestClock(G.start)
        try await Base.with(backend, now: { clock.now }) { c in
            var german = c.verified("reader.monthly", transaction: "700", purchased: G.start + G.day, expires: G.start + 31 * G.day)
            german.price = 2990
            german.currency = "USD"
            german.country = "DE"
            _ = try await c.record(c.intake("reader.monthly", transaction: "700"), german)
            try await G.history(c, clock: clock, refund: true)
            // What the stores said of the history's other purchases (the intake keeps it as `german` shows).
            for (transaction, country) in [("800", "DE"), ("801", "DE"), ("900", "US"), ("990", "US")] {
                try await c.fixture.database.sql.raw("""
                    UPDATE purchases SET country = \(bind: country) WHERE transaction_id = \(bind: transaction)
                    """).run()
            }
            clock.advance(20 * G.day)
            try await MetricRollupJob(database: c.fixture.database, now: { clock.now }).rebuild(app: G.app)
            let rollups = MetricRollupStore(database: c.fixture.database)
            let periods = try await MetricPeriodGatherer(database: c.fixture.database).periods(app: G.app)
            #expect(periods.filter { $0.country == "DE" }.count == 3 && periods.filter { $0.country == nil }.count == 1)

            let scopes = [MetricScope.all] + [MetricScope(store: "apple_store"), MetricScope(product: "reader.monthly"),
                                              MetricScope(product: "reader.yearly"), MetricScope(country: "DE"), MetricScope(country: "US"),
                                              MetricScope(country: "FR")].compactMap { $0 }
            for scope in scopes {
                for sandbox in [false, true] {
                    let metrics = SubscriptionMetrics(periods: periods.filter(scope.contains), sandbox: sandbox)
                    let rows = try await rollups.rows(app: G.app, sandbox: sandbox, store: scope.store, product: scope.product,
                                                      country: scope.country, from: G.day(0), to: G.day(20))
                    for n in 0...20 {
                        #expect(DayMetrics(day: G.day(n), rows: rows) == metrics.day(G.day(n)), "\(scope), sandbox \(sandbox), day \(n)")
                    }
                }
            }
            // Germany on day 1: Alice's trial and the month bought there; the US: Bob's month; the yearly plan in neither.
            let day1 = { (country: String) in
                DayMetrics(day: G.day(1), rows: try await rollups.rows(app: G.app, sandbox: false, country: country, from: G.day(1), to: G.day(1)))
            }
            let de = try await day1("DE"), us = try await day1("US")
            #expect(de.activeSubscriptions == 2 && de.activeTrials == 1 && de.revenue == ["USD": 299] && de.priceUnknown.isEmpty)
            #expect(us.activeSubscriptions == 1 && us.mrr == ["USD": 999] && us.priceUnknown.isEmpty)
            let choices = try await rollups.dimensions(app: G.app, sandbox: false)
            #expect(choices.products == ["reader.monthly", "reader.yearly"] && choices.countries == ["DE", "US"])
        }
    }

    /// The country a store stated is recorded at intake, as the price is; a later statement fills an
    /// unknown one and never changes a known one.
    @Test(arguments: TestBackend.available)
    func intakeRecordsTheCountryTheStoreStated(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            func country(_ payment: UUID) async throws -> String? {
                try await c.fixture.database.sql.raw("SELECT country FROM purchases WHERE id = \(bind: payment)").first()?
                    .decode(column: "country", as: String?.self)
            }
            var stated = c.verified("reader.monthly", transaction: "720", expires: Base.start.addingTimeInterval(30 * 86_400))
            stated.country = "JP"
            let payment = try #require(try await c.record(c.intake("reader.monthly", transaction: "720"), stated).paymentId)
            #expect(try await country(payment) == "JP")
            var unstated = c.verified("reader.monthly", transaction: "721", expires: Base.start.addingTimeInterval(30 * 86_400))
            let other = try #require(try await c.record(c.intake("reader.monthly", transaction: "721"), unstated).paymentId)
            #expect(try await country(other) == nil)
            unstated.signedDate = Base.start.addingTimeInterval(10)
            unstated.country = "FR"
            _ = try await c.record(c.intake("reader.monthly", transaction: "721"), unstated)
            #expect(try await country(other) == "FR")
            stated.signedDate = Base.start.addingTimeInterval(10)
            stated.country = "US"
            _ = try await c.record(c.intake("reader.monthly", transaction: "720"), stated)
            #expect(try await country(payment) == "JP")
        }
    }
}
