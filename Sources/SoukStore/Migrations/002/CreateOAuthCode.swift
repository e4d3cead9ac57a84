import FluentKit

struct CreateOAuthCode: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("oauth_codes")
            .id()
            .field("code_hash", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("client_id", .string, .required)
            .field("redirect_uri", .string, .required)
            .field("code_challenge", .string, .required)
            .field("code_challenge_method", .string, .required)
            .field("scope", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("created_at", .datetime)
            .unique(on: "code_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("oauth_codes").delete()
    }
}
