import FluentKit

struct CreateInstallGrant: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("install_grants")
            .id()
            .field("grant_hash", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("apple_item_id", .int64)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("created_at", .datetime)
            .unique(on: "grant_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("install_grants").delete()
    }
}
