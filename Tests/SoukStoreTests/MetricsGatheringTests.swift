import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// Metrics from Souk's own records, on both databases: purchases written through the intake and
/// lifecycle paths become the periods the definitions take (docs/metrics.md), the rollup job
/// stores each day's numbers, a late refund recomputes its day, and a rebuild is idempotent.
@Suite struct MetricsGatheringTests {
    typealias Base = PurchaseStoreTests
    static let app = Base.app
    static let start = Base.start
    static let day: TimeInterval = 86_400
    static var first: MetricDay { MetricDay(containing: start) }

    /// Alice: a free week's trial, then a paid month (4.99 EUR). Bob: a paid month (9.99 USD)
    /// refunded on day 10 (`refund: true`), and a yearly plan whose store said no price. Sandbox
    /// noise: a paid month for Bob in sandbox.
    static func history(_ c: Base.Context, clock: TestClock, refund: Bool) async throws {
        var trial = c.verified("reader.monthly", transaction: "800", expires: start + 7 * day)
        trial.lifecycle = StoreLifecycle(state: .active, willRenew: true, periodType: .trial)
        _ = try await c.record(c.intake("reader.monthly", transaction: "800"), trial)
        var paid = c.verified("reader.monthly", transaction: "900", expires: start + 30 * day)
        paid.price = 9990
        paid.currency = "USD"
        paid.lifecycle = StoreLifecycle(state: .active, willRenew: true, periodType: .normal)
        _ = try await c.record(c.intake("reader.monthly", transaction: "900", account: c.bob), paid)
        var yearly = c.verified("reader.yearly", transaction: "950", purchased: start + day, expires: start + 366 * day)
        yearly.lifecycle = StoreLifecycle(state: .active, willRenew: true, periodType: .normal)
        _ = try await c.record(c.intake("reader.yearly", transaction: "950", account: c.bob), yearly)
        var sandbox = c.verified("reader.monthly", transaction: "990", expires: start + 30 * day, environment: .sandbox)
        sandbox.price = 1000
        sandbox.currency = "USD"
        _ = try await c.record(c.intake("reader.monthly", transaction: "990", account: c.bob), sandbox)
        // The renewal after the trial, as the store notifies it.
        var renewal = c.verified("reader.monthly", transaction: "801", original: "800", purchased: start + 7 * day,
                                 expires: start + 37 * day, signed: start + 7 * day)
        renewal.price = 4990
        renewal.currency = "EUR"
        renewal.lifecycle = StoreLifecycle(state: .active, willRenew: true, periodType: .normal)
        _ = try await c.store.apply(renewal, app: app, source: .notification, catalog: c.catalog)
        if refund { try await refundBob(c) }
    }

    static func refundBob(_ c: Base.Context) async throws {
        var refunded = c.verified("reader.monthly", transaction: "900", expires: start + 30 * day, revoked: start + 10 * day,
                                  signed: start + 10 * day)
        refunded.lifecycle = StoreLifecycle(state: .revoked, willRenew: false, periodType: .normal)
        _ = try await c.store.apply(refunded, app: app, source: .notification, catalog: c.catalog)
    }

    static func day(_ n: Int) -> MetricDay { first.adding(days: n) }

    @Test(arguments: TestBackend.available)
    func recordsBecomeThePeriodsTheDefinitionsCount(backend: TestBackend) async throws {
        let clock = TestClock(Self.start)
        try await Base.with(backend, now: { clock.now }) { c in
            try await Self.history(c, clock: clock, refund: true)
            let periods = try await MetricPeriodGatherer(database: c.fixture.database).periods(app: Self.app)
            #expect(periods.count == 5)
            let metrics = SubscriptionMetrics(periods: periods)

            let d0 = metrics.day(Self.day(0))
            #expect(d0.activeSubscriptions == 2 && d0.activeTrials == 1 && d0.trialStarts == 1 && d0.newSubscribers == 1)
            #expect(d0.mrr == ["USD": 999] && d0.revenue == ["USD": 999] && d0.priceUnknown.isEmpty)
            // The yearly plan without a price: active, named in MRR and revenue, never counted as zero.
            let d1 = metrics.day(Self.day(1))
            #expect(d1.activeSubscriptions == 3 && d1.revenue.isEmpty && d1.priceUnknown == [.revenue: 1, .mrr: 1])
            // The trial converts into a paid month on day 7.
            let d7 = metrics.day(Self.day(7))
            #expect(d7.trialConversions == 1 && d7.newSubscribers == 1 && d7.revenue == ["EUR": 499] && d7.activeTrials == 0)
            #expect(d7.mrr == ["USD": 999, "EUR": 499])
            // Bob's month refunded in full on day 10: a refund and a churn by refund.
            let d10 = metrics.day(Self.day(10))
            #expect(d10.refunds == ["USD": 999] && d10.churned == [.refund: 1] && d10.activeSubscriptions == 2)
            // Sandbox is apart.
            let sandbox = SubscriptionMetrics(periods: periods, sandbox: true).day(Self.day(0))
            #expect(sandbox.activeSubscriptions == 1 && sandbox.revenue == ["USD": 100])
        }
    }

    /// Google Play states no period start: intake records a renewal with the subscription's start,
    /// and the gatherer dates a paid production period one billing period before its expiry, so
    /// the renewal's revenue falls on the day it renewed and its period follows the first.
    @Test(arguments: TestBackend.available)
    func aGoogleRenewalBeginsOneBillingPeriodBeforeItsExpiry(backend: TestBackend) async throws {
        let clock = TestClock(Self.start)
        try await Base.with(backend, now: { clock.now }) { c in
            let month = ISODuration(months: 1)
            let renewed = month.added(to: Self.start), secondEnd = month.added(to: renewed)
            func google(_ transaction: String, expires: Date) -> VerifiedPurchase {
                var purchase = c.verified("reader.monthly", transaction: transaction, original: "GPA.1", purchased: Self.start, expires: expires)
                purchase.store = .googlePlay
                purchase.storeProductId = "monthly"
                purchase.price = 4990
                purchase.currency = "USD"
                purchase.lifecycle = StoreLifecycle(state: .active, willRenew: true, periodType: .normal)
                return purchase
            }
            let claim = PurchaseClaim(store: .googlePlay, app: Self.app, storeProductId: "monthly", transactionId: "GPA.1", receipt: "token-1")
            _ = try await c.record(PurchaseIntake(account: c.alice, product: c.product("reader.monthly"), claim: claim, event: nil),
                                   google("GPA.1", expires: renewed))
            _ = try await c.store.apply(google("GPA.1..0", expires: secondEnd), app: Self.app, source: .notification, catalog: c.catalog)

            let periods = try await MetricPeriodGatherer(database: c.fixture.database).periods(app: Self.app)
                .sorted { $0.start < $1.start }
            #expect(periods.map(\.start) == [Self.start, renewed])
            #expect(periods.map(\.end) == [renewed, secondEnd])
            let metrics = SubscriptionMetrics(periods: periods)
            let renewalDay = MetricDay(containing: renewed)
            #expect(metrics.day(Self.day(0)).revenue == ["USD": 499])
            #expect(metrics.day(renewalDay).revenue == ["USD": 499])
            #expect(metrics.day(renewalDay).activeSubscriptions == 1 && metrics.day(renewalDay).mrr == ["USD": 499])
        }
    }

    @Test(arguments: TestBackend.available)
    func theRollupHoldsEachDayAndALateRefundRecomputesItsDay(backend: TestBackend) async throws {
        let clock = TestClock(Self.start)
        try await Base.with(backend, now: { clock.now }) { c in
            try await Self.history(c, clock: clock, refund: false)
            clock.advance(20 * Self.day)
            let job = MetricRollupJob(database: c.fixture.database, now: { clock.now })
            let rollups = MetricRollupStore(database: c.fixture.database)
            let firstPass = try await job.catchUp()
            #expect(firstPass.map(\.app) == [Self.app] && firstPass.first?.days == 21)
            func stored(_ n: Int) async throws -> DayMetrics {
                DayMetrics(day: Self.day(n), rows: try await rollups.rows(app: Self.app, sandbox: false, from: Self.day(n), to: Self.day(n)))
            }
            #expect(try await stored(7).trialConversions == 1)
            #expect(try await stored(10).refunds.isEmpty)
            #expect(try await stored(1).priceUnknown == [.revenue: 1, .mrr: 1])
            // Nothing changed: the next pass leaves every app alone.
            #expect(try await job.catchUp().isEmpty)

            // The store tells of a refund dated day 10, ten days late.
            clock.advance(60)
            try await Self.refundBob(c)
            clock.advance(60)
            let late = try await job.catchUp()
            #expect(late.first.map { $0.from <= Self.day(10) } == true)
            let d10 = try await stored(10)
            #expect(d10.refunds == ["USD": 999] && d10.churned == [.refund: 1])
            let periods = try await MetricPeriodGatherer(database: c.fixture.database).periods(app: Self.app)
            let metrics = SubscriptionMetrics(periods: periods)
            for n in 0...20 { #expect(try await stored(n) == metrics.day(Self.day(n)), "day \(n)") }
            // By store and by product too.
            let yearly = try await rollups.rows(app: Self.app, sandbox: false, product: "reader.yearly", metrics: [.activeSubscriptions],
                                                from: Self.day(5), to: Self.day(5))
            #expect(yearly.map(\.value) == [1])
        }
    }

    @Test(arguments: TestBackend.available)
    func aRebuildIsIdempotent(backend: TestBackend) async throws {
        let clock = TestClock(Self.start)
        try await Base.with(backend, now: { clock.now }) { c in
            try await Self.history(c, clock: clock, refund: true)
            clock.advance(15 * Self.day)
            let job = MetricRollupJob(database: c.fixture.database, now: { clock.now })
            func all() async throws -> [MetricRollupRow] {
                let sql = c.fixture.database.sql
                let count = try await sql.raw("SELECT COUNT(*) AS n FROM metric_rollups").first()!.decode(column: "n", as: Int.self)
                let rows = try await MetricRollupStore(database: c.fixture.database)
                    .rows(app: Self.app, sandbox: false, from: Self.day(-5), to: Self.day(30))
                #expect(count >= rows.count)
                return rows
            }
            try await job.rebuild(app: Self.app)
            let once = try await all()
            try await job.rebuild(app: Self.app)
            #expect(try await all() == once)
            try await job.rebuild(app: Self.app, from: Self.day(8))
            #expect(try await all() == once)
            try await job.rebuild()
            #expect(try await all() == once && !once.isEmpty)
        }
    }
}
