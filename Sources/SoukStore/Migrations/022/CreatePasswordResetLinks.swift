import FluentKit

/// Password reset links made in the console (docs/web.md, "Reset links"): one row per link, only the
/// SHA-256 of its token kept, valid until `expires_at`, used at most once (`used_at`).
struct CreatePasswordResetLinks: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("password_reset_links")
            .id()
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("password_reset_links").delete()
    }
}
