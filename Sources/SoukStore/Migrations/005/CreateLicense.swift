import FluentKit

/// Licenses issued to devices (App License Delivery), the variant key blobs the SDK needs, and an
/// optional device limit per account.
struct CreateLicense: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("licenses")
            .field("license_id", .int64, .identifier(auto: false))
            .field("account_id", .uuid, .references("accounts", "id", onDelete: .setNull))
            .field("apple_item_id", .int64, .required)
            .field("apple_version_id", .int64, .required)
            .field("device_id", .string, .required)
            .field("issued_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("renewals", .int, .required)
            .field("revoked_at", .datetime)
            .field("revoked_reason", .string)
            .create()
        try await database.schema("package_key_blobs")
            .id()
            .field("asset_public_id", .string, .required)
            .field("apple_item_id", .int64, .required)
            .field("apple_version_id", .int64, .required)
            .field("key_blob", .string, .required)
            .unique(on: "asset_public_id")
            .create()
        try await database.schema("accounts")
            .field("device_limit", .int)
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("accounts").deleteField("device_limit").update()
        try await database.schema("package_key_blobs").delete()
        try await database.schema("licenses").delete()
    }
}
