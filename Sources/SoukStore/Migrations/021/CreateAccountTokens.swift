import FluentKit

/// Each person's stable account token per app (`GET /commerce/<app>/account-token`): apps pass it as
/// StoreKit's `appAccountToken` and Play Billing's `obfuscatedAccountId`, so a verified purchase
/// says which Souk account bought it (docs/commerce.md, "Account tokens").
struct CreateAccountTokens: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("account_tokens")
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("app", .string, .required)
            .field("token", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "account_id", "app")
            .unique(on: "app", "token")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("account_tokens").delete()
    }
}
