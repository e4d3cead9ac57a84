import FluentKit

/// Counts per UTC day for the console's dashboard (license requests, failures, licenses
/// issued), added to in memory and written every few seconds (`DailyCounts`).
struct CreateDailyCounts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("daily_counts")
            .field("day", .string, .required)
            .field("name", .string, .required)
            .field("count", .int64, .required)
            .unique(on: "day", "name")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("daily_counts").delete()
    }
}
