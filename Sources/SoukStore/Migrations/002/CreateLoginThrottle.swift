import FluentKit

struct CreateLoginThrottle: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("login_throttle")
            .field("key", .string, .identifier(auto: false))
            .field("failures", .int, .required)
            .field("window_start", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("login_throttle").delete()
    }
}
