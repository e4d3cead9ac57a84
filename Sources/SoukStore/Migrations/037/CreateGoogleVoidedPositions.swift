import FluentKit

/// How far Souk has read each app's Google Play voided purchases (`purchases.voidedpurchases.list`),
/// so a restarted or another process resumes there: the latest `voidedTimeMillis` seen
/// (`high_water_millis`), and, while a listing is paged, the next page's token with the start
/// time it belongs to.
struct CreateGoogleVoidedPositions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("google_voided_positions")
            .field("app", .string, .identifier(auto: false))
            .field("high_water_millis", .int64)
            .field("page_token", .string)
            .field("page_start_millis", .int64)
            .field("polled_at", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("google_voided_positions").delete()
    }
}
