import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The rollup's cohort table (`metric_cohorts`, docs/metrics.md "Cohorts in the rollup") on both
/// databases: written with the days, equal to the definition computed from the records, a month
/// not ended counted as of the day computed, and a late change recomputing the cells it alters.
@Suite struct MetricCohortRollupTests {
    typealias History = MetricsGatheringTests
    static let day: TimeInterval = 86_400
    static let app = History.app

    static func lines(_ cells: [CohortCell]) -> [String] { CohortRetentionTests.lines(cells) }

    @Test(arguments: TestBackend.available)
    func theRollupsCohortsAreTheDefinitionsAndALateChangeRecomputesThem(backend: TestBackend) async throws {
        let clock = TestClock(History.start)
        try await PurchaseStoreTests.with(backend, now: { clock.now }) { c in
            // Alice's first paid month begins 2027-01-22 (after her trial), Bob's 2027-01-15: January's cohort of two.
            try await History.history(c, clock: clock, refund: false)
            clock.advance(20 * Self.day)
            let job = MetricRollupJob(database: c.fixture.database, now: { clock.now })
            let rollups = MetricRollupStore(database: c.fixture.database)
            let (first, last) = (StatementMonth("2000-01")!, StatementMonth("2030-12")!)
            func stored(sandbox: Bool = false) async throws -> [CohortCell] {
                try await rollups.cohorts(app: Self.app, sandbox: sandbox, from: first, to: last)
            }
            func direct(sandbox: Bool = false) async throws -> [CohortCell] {
                let periods = try await MetricPeriodGatherer(database: c.fixture.database).periods(app: Self.app)
                let today = MetricDay(containing: clock.now)
                return SubscriptionMetrics(periods: periods, sandbox: sandbox).cohorts(from: first, to: today.month, through: today)
            }
            try await job.catchUp()
            // On 2027-02-04 February has not ended: both are active that day.
            #expect(Self.lines(try await stored()) == ["2027-01 0 2/2 1.0", "2027-01 1 2/2 1.0"])
            #expect(try await stored() == (try await direct()))
            #expect(Self.lines(try await stored(sandbox: true)) == ["2027-01 0 1/1 1.0", "2027-01 1 1/1 1.0"])
            #expect(try await stored(sandbox: true) == (try await direct(sandbox: true)))

            // Nothing changed, March 2: the pass carries the app on, and February's cell is its end's
            // (Alice's month ran out on 02-21; Bob's yearly plan goes on).
            clock.advance(26 * Self.day)
            try await job.catchUp()
            #expect(Self.lines(try await stored()) == ["2027-01 0 2/2 1.0", "2027-01 1 1/2 0.5", "2027-01 2 1/2 0.5"])
            #expect(try await stored() == (try await direct()))

            // The store tells, late, that Alice's paid month was refunded on 2027-01-27: January's end changes.
            clock.advance(60)
            var refunded = c.verified("reader.monthly", transaction: "801", original: "800", purchased: History.start + 7 * Self.day,
                                      expires: History.start + 37 * Self.day, revoked: History.start + 12 * Self.day,
                                      signed: History.start + 12 * Self.day)
            refunded.lifecycle = StoreLifecycle(state: .revoked, willRenew: false, periodType: .normal)
            _ = try await c.store.apply(refunded, app: Self.app, source: .notification, catalog: c.catalog)
            clock.advance(60)
            #expect(try await job.catchUp().map(\.app) == [Self.app])
            #expect(Self.lines(try await stored()) == ["2027-01 0 1/2 0.5", "2027-01 1 1/2 0.5", "2027-01 2 1/2 0.5"])
            #expect(try await stored() == (try await direct()))
            // A range of cohorts and months: only the cells counted up to its last month.
            let january = StatementMonth("2027-01")!
            #expect(Self.lines(try await rollups.cohorts(app: Self.app, sandbox: false, from: january, to: january.adding(months: 1)))
                    == ["2027-01 0 1/2 0.5", "2027-01 1 1/2 0.5"])
            // A rebuild writes the same cells.
            let before = try await stored()
            try await job.rebuild(app: Self.app)
            #expect(try await stored() == before)
        }
    }
}
