import FluentKit

struct CreateMarketplace: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("marketplace")
            .id()
            .field("name", .string, .required)
            .field("apple_item_id", .int64, .required)
            .field("install_verification_key_id", .string, .required)
            .field("updated_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("marketplace").delete()
    }
}
