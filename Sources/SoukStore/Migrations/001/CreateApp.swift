import FluentKit

struct CreateApp: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apps")
            .id()
            .field("apple_item_id", .int64, .required)
            .field("bundle_id", .string, .required)
            .field("name", .string, .required)
            .field("subtitle", .string, .required)
            .field("description", .string, .required)
            .field("developer_name", .string, .required)
            .field("icon_sha256", .string)
            .field("access", .string, .required)
            .field("availability", .string, .required)
            .field("takedown_reason", .string)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "apple_item_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("apps").delete()
    }
}
