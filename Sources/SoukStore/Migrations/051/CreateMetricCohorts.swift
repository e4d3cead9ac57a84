import FluentKit

/// The cohort table of the daily rollup (docs/metrics.md, "Cohorts in the rollup"): per app and
/// environment, one row per cohort (the UTC month of its accounts' first paid period, `YYYY-MM`)
/// and months since (`k`): how many accounts the cohort has and how many of them had an active
/// subscription at the end of month cohort + k. Only the rollup job writes it, in the same
/// transaction as the app's daily rows.
struct CreateMetricCohorts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("metric_cohorts")
            .field("app", .string, .required)
            // Production | Sandbox (`CommerceEnvironment`)
            .field("environment", .string, .required)
            // YYYY-MM (UTC), so text order is month order
            .field("cohort", .string, .required)
            .field("k", .int, .required)
            .field("accounts", .int, .required)
            .field("active", .int, .required)
            .unique(on: "app", "environment", "cohort", "k")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("metric_cohorts").delete()
    }
}
