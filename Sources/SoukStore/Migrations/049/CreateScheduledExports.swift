import FluentKit

/// The days the scheduled exports wrote, per organisation and app (docs/metrics.md, "Exports"): a
/// row is made for each day due before it is tried, `written_at` is set once its files are in the
/// bucket, and a failure keeps the row with its attempts and last error, so a restart neither
/// skips nor repeats a day and the next run tries a failed day again.
struct CreateScheduledExports: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("scheduled_exports")
            .id()
            .field("developer_id", .string, .required)
            .field("app", .string, .required)
            // A UTC day, YYYY-MM-DD (sorts as text).
            .field("day", .string, .required)
            .field("attempts", .int, .required)
            .field("last_error", .string)
            .field("last_attempt_at", .datetime)
            .field("written_at", .datetime)
            .field("purchases", .int)
            .field("events", .int)
            .field("created_at", .datetime, .required)
            .unique(on: "developer_id", "app", "day")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("scheduled_exports").delete()
    }
}
