import FluentKit

/// App Store Connect notifications (a durable queue, one row per event id), the packages they
/// brought in, and withdrawn versions.
struct CreateAppStoreConnectEvent: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("asc_events")
            .id()
            .field("event_id", .string, .required)
            .field("type", .string, .required)
            .field("payload", .string, .required)
            .field("state", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_error", .string)
            .field("received_at", .datetime, .required)
            .field("processed_at", .datetime)
            .unique(on: "event_id")
            .create()
        try await database.schema("asc_packages")
            .id()
            .field("package_id", .string, .required)
            .field("package_version_id", .string, .required)
            .field("apple_item_id", .int64, .required)
            .field("apple_version_id", .int64, .required)
            .field("created_at", .datetime)
            .unique(on: "package_version_id")
            .create()
        try await database.schema("app_versions")
            .field("withdrawn_at", .datetime)
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("app_versions").deleteField("withdrawn_at").update()
        try await database.schema("asc_packages").delete()
        try await database.schema("asc_events").delete()
    }
}
