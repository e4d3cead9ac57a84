import FluentKit

/// Device authorization requests (RFC 8628, docs/oauth.md "TVs"): the SHA-256 of the device code
/// and of the user code, the asking client, the state (`pending`, `approved`, `denied`,
/// `redeemed`), the approving account, and the polling interval with the last poll, so every
/// process answers `slow_down` alike.
struct CreateDeviceAuthorizations: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("device_authorizations")
            .id()
            .field("device_code_hash", .string, .required)
            .field("user_code_hash", .string, .required)
            .field("client_id", .string, .required)
            .field("scope", .string, .required)
            .field("status", .string, .required)
            .field("account_id", .uuid, .references("accounts", "id", onDelete: .cascade))
            .field("interval_seconds", .int, .required)
            .field("polls", .int, .required)
            .field("last_polled_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("decided_at", .datetime)
            .unique(on: "device_code_hash")
            .unique(on: "user_code_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("device_authorizations").delete()
    }
}
