import FluentKit
import SQLKit

/// The daily metrics rollup (docs/metrics.md, "The daily rollup"): `metric_rollups` holds one row
/// per app, store, product, environment, UTC day, metric and currency — money in minor units of the
/// currency it was paid in, exact (`value` is decimal text: a P3M price ÷ 3 keeps its fraction),
/// counts with an empty currency, churn's reasons as JSON in `breakdown`. The API and the exports
/// read it; only the rollup job writes it. `metric_rollup_positions` remembers, per app, the last
/// day computed and up to when changes to its records were taken in. `purchases_updated_at` lets the
/// job find the purchases changed since its last pass without reading them all.
struct CreateMetricRollups: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("metric_rollups")
            .field("app", .string, .required)
            .field("store", .string, .required)
            .field("product", .string, .required)
            // production | sandbox
            .field("environment", .string, .required)
            // YYYY-MM-DD (UTC), so text order is day order
            .field("day", .string, .required)
            .field("metric", .string, .required)
            .field("currency", .string, .required)
            .field("value", .string, .required)
            .field("breakdown", .string)
            .unique(on: "app", "environment", "store", "product", "metric", "day", "currency")
            .create()
        try await database.schema("metric_rollup_positions")
            .field("app", .string, .required)
            .field("through_day", .string, .required)
            .field("changes_seen_at", .datetime, .required)
            .unique(on: "app")
            .create()
        try await (database as! any SQLDatabase).raw("CREATE INDEX purchases_updated_at ON purchases (updated_at)").run()
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("DROP INDEX purchases_updated_at").run()
        try await database.schema("metric_rollup_positions").delete()
        try await database.schema("metric_rollups").delete()
    }
}
