import FluentKit

struct CreateInstall: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("installs")
            .id()
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("apple_item_id", .int64, .required)
            .field("client_id", .string)
            .field("created_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("installs").delete()
    }
}
