import FluentKit

/// Sign-in throttling counts attempts before the password check and answers with a growing delay:
/// when the count is forgotten (`window_ends_at`) and when the next attempt may come (`next_attempt_at`).
/// Rows written before have neither and count as expired.
struct UpdateLoginThrottleAddBackoff: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite alters a table one column at a time.
        try await database.schema("login_throttle").field("window_ends_at", .datetime).update()
        try await database.schema("login_throttle").field("next_attempt_at", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("login_throttle").deleteField("next_attempt_at").update()
        try await database.schema("login_throttle").deleteField("window_ends_at").update()
    }
}
