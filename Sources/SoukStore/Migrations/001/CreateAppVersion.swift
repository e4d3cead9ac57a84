import FluentKit

struct CreateAppVersion: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("app_versions")
            .id()
            .field("app_id", .uuid, .required, .references("apps", "id", onDelete: .cascade))
            .field("apple_version_id", .int64, .required)
            .field("bundle_version", .string, .required)
            .field("short_version_string", .string, .required)
            .field("platforms", .array(of: .string), .required)
            .field("minimum_os", .dictionary(of: .string), .required)
            .field("required_capabilities", .array(of: .string), .required)
            .field("release_date", .datetime, .required)
            .field("manifest_sha256", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "apple_version_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("app_versions").delete()
    }
}
