import FluentKit
import SQLKit

/// The daily rollup keeps a country's numbers too (docs/metrics.md, "Filters"): `metric_rollups`
/// gets `country` (ISO 3166-1 alpha-2, or `*` for every period, which every existing row is) and a
/// unique key that includes it. SQLite cannot drop a table's unique constraint, so on both databases
/// the table is made anew under its name, its rows copied with country `*`, and the old one dropped.
struct UpdateMetricRollupsAddCountry: AsyncMigration {
    static let columns = "app, store, product, environment, day, metric, currency, value, breakdown"

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("ALTER TABLE metric_rollups RENAME TO metric_rollups_048").run()
        try await Self.table(on: database, country: true)
        try await sql.raw("""
            INSERT INTO metric_rollups (\(unsafeRaw: Self.columns), country) SELECT \(unsafeRaw: Self.columns), '*' FROM metric_rollups_048
            """).run()
        try await sql.raw("DROP TABLE metric_rollups_048").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("ALTER TABLE metric_rollups RENAME TO metric_rollups_050").run()
        try await Self.table(on: database, country: false)
        try await sql.raw("""
            INSERT INTO metric_rollups (\(unsafeRaw: Self.columns)) SELECT \(unsafeRaw: Self.columns) FROM metric_rollups_050 WHERE country = '*'
            """).run()
        try await sql.raw("DROP TABLE metric_rollups_050").run()
    }

    /// The table as migration 048 made it, with `country` in the row and its key when asked.
    static func table(on database: any Database, country: Bool) async throws {
        var schema = database.schema("metric_rollups")
            .field("app", .string, .required)
            .field("store", .string, .required)
            .field("product", .string, .required)
        if country { schema = schema.field("country", .string, .required) }
        schema = schema
            .field("environment", .string, .required)
            .field("day", .string, .required)
            .field("metric", .string, .required)
            .field("currency", .string, .required)
            .field("value", .string, .required)
            .field("breakdown", .string)
        schema = country
            ? schema.unique(on: "app", "environment", "store", "product", "country", "metric", "day", "currency", name: "metric_rollups_scope")
            : schema.unique(on: "app", "environment", "store", "product", "metric", "day", "currency")
        try await schema.create()
    }
}
