import FluentKit

struct CreatePackageFile: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("package_files")
            .id()
            .field("version_id", .uuid, .required, .references("app_versions", "id", onDelete: .cascade))
            .field("path", .string, .required)
            .field("blob_sha256", .string, .required)
            .field("size", .int64, .required)
            .field("content_type", .string, .required)
            .field("public_id", .string)
            .unique(on: "version_id", "path")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("package_files").delete()
    }
}
