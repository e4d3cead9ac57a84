import Foundation
import SQLKit
import SoukCore

/// How far an app's rollup was computed: through which day, and up to when changes to its records
/// were taken in.
public struct MetricRollupPosition: Sendable, Equatable {
    public var throughDay: MetricDay
    public var changesSeenAt: Date
}

/// The `metric_rollups` table (docs/metrics.md, "The daily rollup") and each app's position.
public struct MetricRollupStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// Replaces the app's rows of `from` and every later day with `rows`, its cohort table with
    /// `cohorts`, and records its position, in one transaction: a reader sees the old days or the
    /// new ones, never half.
    public func replace(app: String, from: MetricDay, with rows: [MetricRollupRow], cohorts: [MetricCohortRow],
                        position: MetricRollupPosition) async throws {
        try await database.transaction { db in
            let sql = db as! any SQLDatabase
            try await Self.replaceCohorts(app: app, with: cohorts, on: sql)
            try await sql.raw("DELETE FROM metric_rollups WHERE app = \(bind: app) AND day >= \(bind: from.description)").run()
            for batch in stride(from: 0, to: rows.count, by: 100).map({ Array(rows[$0..<min($0 + 100, rows.count)]) }) {
                var insert = sql.insert(into: "metric_rollups")
                    .columns("app", "store", "product", "country", "environment", "day", "metric", "currency", "value", "breakdown")
                for row in batch {
                    insert = insert.values(SQLBind(row.app), SQLBind(row.store), SQLBind(row.product), SQLBind(row.country),
                                           SQLBind(row.sandbox ? CommerceEnvironment.sandbox.rawValue : CommerceEnvironment.production.rawValue),
                                           SQLBind(row.day.description), SQLBind(row.metric.rawValue), SQLBind(row.currency),
                                           SQLBind(Self.text(row.value)), SQLBind(try row.breakdown.map(Self.json)))
                }
                try await insert.run()
            }
            try await sql.raw("""
                INSERT INTO metric_rollup_positions (app, through_day, changes_seen_at)
                VALUES (\(bind: app), \(bind: position.throughDay.description), \(bind: position.changesSeenAt))
                ON CONFLICT (app) DO UPDATE SET through_day = excluded.through_day, changes_seen_at = excluded.changes_seen_at
                """).run()
        }
    }

    /// The rows of one app, environment and scope (`"*"`: every store, product or country) from
    /// `from` through `to`, for `metrics` (every metric when empty).
    public func rows(app: String, sandbox: Bool, store: String = MetricRollupRow.all, product: String = MetricRollupRow.all,
                     country: String = MetricRollupRow.all, metrics: [MetricName] = [], from: MetricDay,
                     to: MetricDay) async throws -> [MetricRollupRow] {
        var query = database.sql.select()
            .columns("app", "store", "product", "country", "environment", "day", "metric", "currency", "value", "breakdown")
            .from("metric_rollups")
            .where("app", .equal, app)
            .where("environment", .equal, sandbox ? CommerceEnvironment.sandbox.rawValue : CommerceEnvironment.production.rawValue)
            .where("store", .equal, store).where("product", .equal, product).where("country", .equal, country)
            .where("day", .greaterThanOrEqual, from.description).where("day", .lessThanOrEqual, to.description)
        if !metrics.isEmpty { query = query.where("metric", .in, metrics.map(\.rawValue)) }
        return try await query.orderBy("day").orderBy("metric").orderBy("currency").all().compactMap { row in
            guard let day = MetricDay(try row.decode(column: "day", as: String.self)),
                  let metric = MetricName(rawValue: try row.decode(column: "metric", as: String.self)),
                  let value = Decimal(string: try row.decode(column: "value", as: String.self), locale: Locale(identifier: "en_US_POSIX")) else {
                return nil
            }
            let breakdown = try row.decode(column: "breakdown", as: String?.self)
                .flatMap { try? JSONDecoder().decode([String: Int64].self, from: Data($0.utf8)) }
            return MetricRollupRow(app: try row.decode(column: "app", as: String.self), store: try row.decode(column: "store", as: String.self),
                                   product: try row.decode(column: "product", as: String.self),
                                   country: try row.decode(column: "country", as: String.self),
                                   sandbox: try row.decode(column: "environment", as: String.self) == CommerceEnvironment.sandbox.rawValue,
                                   day: day, metric: metric, currency: try row.decode(column: "currency", as: String.self), value: value,
                                   breakdown: breakdown)
        }
    }

    /// The products and the countries that have rows of their own in the app's rollup (of one
    /// environment), sorted: what a filter of the app's metrics can choose.
    public func dimensions(app: String, sandbox: Bool) async throws -> (products: [String], countries: [String]) {
        let environment = sandbox ? CommerceEnvironment.sandbox.rawValue : CommerceEnvironment.production.rawValue
        let products = try await database.sql.raw("""
            SELECT DISTINCT product AS value FROM metric_rollups WHERE app = \(bind: app) AND environment = \(bind: environment)
            AND store = '*' AND product <> '*'
            """).all().map { try $0.decode(column: "value", as: String.self) }
        let countries = try await database.sql.raw("""
            SELECT DISTINCT country AS value FROM metric_rollups WHERE app = \(bind: app) AND environment = \(bind: environment)
            AND store = '*' AND product = '*' AND country <> '*'
            """).all().map { try $0.decode(column: "value", as: String.self) }
        return (products.sorted(), countries.sorted())
    }

    public func position(app: String) async throws -> MetricRollupPosition? {
        guard let row = try await database.sql.raw("""
            SELECT through_day, changes_seen_at FROM metric_rollup_positions WHERE app = \(bind: app)
            """).first(), let day = MetricDay(try row.decode(column: "through_day", as: String.self)) else { return nil }
        return MetricRollupPosition(throughDay: day, changesSeenAt: try row.decode(column: "changes_seen_at", as: Date.self))
    }

    /// Every app whose records changed after `since`, with the first day a change can alter: the
    /// start of each changed purchase, order or plan (a later refund or expiry changes only days
    /// from then on, so this never misses one).
    public func changes(since: Date) async throws -> [String: MetricDay] {
        let rows = try await database.sql.raw("""
            SELECT app, MIN(purchase_date) AS first FROM purchases
            WHERE updated_at > \(bind: since) AND status = 'granted' AND purchase_date IS NOT NULL GROUP BY app
            UNION ALL SELECT a.bundle_id AS app, MIN(o.paid_at) AS first FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            WHERE o.updated_at > \(bind: since) AND o.paid_at IS NOT NULL GROUP BY a.bundle_id
            UNION ALL SELECT CAST(\(bind: AppPricing.marketplaceApp) AS TEXT) AS app, MIN(started_at) AS first FROM marketplace_subscriptions
            WHERE updated_at > \(bind: since)
            """).all()
        var changed: [String: MetricDay] = [:]
        for row in rows {
            guard let first = try row.decode(column: "first", as: Date?.self) else { continue }
            let app = try row.decode(column: "app", as: String.self), day = MetricDay(containing: first)
            changed[app] = min(changed[app] ?? day, day)
        }
        return changed
    }

    static func text(_ value: Decimal) -> String {
        NSDecimalNumber(decimal: value).description(withLocale: Locale(identifier: "en_US_POSIX"))
    }

    static func json(_ breakdown: [String: Int64]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(breakdown), as: UTF8.self)
    }
}
