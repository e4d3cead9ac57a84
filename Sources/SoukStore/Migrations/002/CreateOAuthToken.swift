import FluentKit

struct CreateOAuthToken: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("oauth_tokens")
            .id()
            .field("token_hash", .string, .required)
            .field("kind", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("client_id", .string, .required)
            .field("scope", .string, .required)
            .field("family_id", .uuid, .required)
            .field("code_id", .uuid)
            .field("expires_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .field("rotated_at", .datetime)
            .field("rotation_sealed", .string)
            .field("last_used_at", .datetime)
            .field("created_at", .datetime)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("oauth_tokens").delete()
    }
}
