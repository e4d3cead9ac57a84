import Foundation
import SoukCore

/// Computes the daily rollup (docs/metrics.md, "The daily rollup"): for an app, every day from a
/// first day through today, in both environments, for every scope `MetricScope.rolledUp` names (all
/// stores, products and countries together, each store, each product, each known country alone); the days from the first changed one on are replaced in one
/// transaction. `catchUp` is one pass of the background job: each app whose records changed since
/// its last pass is recomputed from the first day the change can alter (a late refund of an old
/// purchase recomputes that purchase's days and every day after them, which depend on them), and
/// every other app from the last day it computed (today's numbers grow until the day ends). Each
/// computation also replaces the app's whole cohort table (`metric_cohorts`).
public struct MetricRollupJob: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    /// How far back a pass looks for changes before the last pass's start: writers on other
    /// processes stamp `updated_at` with their own clocks.
    public static let clockMargin: TimeInterval = 120

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// What a computation wrote: the app, from which day, how many days and rows.
    public struct Written: Sendable, Equatable {
        public var app: String
        public var from: MetricDay
        public var days: Int
        public var rows: Int
    }

    /// Recomputes `app` (every app when nil) from `from` (its first day when nil) through today,
    /// whatever changed; returns when done.
    @discardableResult
    public func rebuild(app: String? = nil, from: MetricDay? = nil) async throws -> [Written] {
        var apps = [String]()
        if let app { apps = [app] } else { apps = try await MetricPeriodGatherer(database: database).apps() }
        var written: [Written] = []
        for app in apps { written.append(try await compute(app: app, from: from)) }
        return written
    }

    /// One pass of the background job (see the type's comment); returns what it recomputed. An
    /// app whose records did not change and whose rollup reaches today is left alone: a day's
    /// numbers depend only on the records, never on when they are computed.
    @discardableResult
    public func catchUp() async throws -> [Written] {
        let gatherer = MetricPeriodGatherer(database: database), store = MetricRollupStore(database: database)
        let today = MetricDay(containing: now())
        var positions: [String: MetricRollupPosition] = [:]
        let apps = try await gatherer.apps()
        for app in apps { positions[app] = try await store.position(app: app) }
        let since = positions.values.map(\.changesSeenAt).min()
        var changed: [String: MetricDay] = [:]
        if let since { changed = try await store.changes(since: since) }
        var written: [Written] = []
        for app in apps {
            guard let position = positions[app] else {
                written.append(try await compute(app: app, from: nil))
                continue
            }
            let from = changed[app].map { min($0, position.throughDay) } ?? position.throughDay
            if changed[app] == nil, position.throughDay >= today { continue }
            written.append(try await compute(app: app, from: from))
        }
        return written
    }

    func compute(app: String, from: MetricDay?) async throws -> Written {
        let started = now()
        let today = MetricDay(containing: started)
        let periods = try await MetricPeriodGatherer(database: database).periods(app: app)
        let first = periods.map { MetricDay(containing: $0.start) }.min() ?? today
        let start = min(max(from ?? first, first), today)
        var rows: [MetricRollupRow] = [], cohorts: [MetricCohortRow] = []
        for sandbox in [false, true] {
            let chosen = periods.filter { $0.sandbox == sandbox }
            guard !chosen.isEmpty else { continue }
            for (scope, some) in MetricScope.rolledUp(chosen) {
                let metrics = SubscriptionMetrics(periods: some, sandbox: sandbox)
                if scope == .all {
                    // Every cohort, whatever day changed: a change to any period can move an account's
                    // first paid month or its activity at any month's end after it.
                    cohorts += metrics.cohorts(from: first.month, to: today.month, through: today)
                        .map { MetricCohortRow(app: app, sandbox: sandbox, cell: $0) }
                }
                for day in metrics.days(from: start, through: today) {
                    rows += day.rollupRows(app: app, scope: scope, sandbox: sandbox)
                }
            }
        }
        let position = MetricRollupPosition(throughDay: today, changesSeenAt: started.addingTimeInterval(-Self.clockMargin))
        try await MetricRollupStore(database: database)
            .replace(app: app, from: start, with: rows, cohorts: cohorts, position: position)
        return Written(app: app, from: start, days: today.ordinal - start.ordinal + 1, rows: rows.count)
    }
}
