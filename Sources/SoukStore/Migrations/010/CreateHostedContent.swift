import FluentKit

/// Hosted content packages, several versions per in-app product. `sha256` is the
/// served zip's digest and also its name in the blob store (content-addressed), so it is stored
/// once. A version of a product never changes: `(app, product_id, content_version)` is unique.
struct CreateHostedContent: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("hosted_content")
            .id()
            .field("app", .string, .required)
            .field("product_id", .string, .required)
            // As the package's ContentInfo.plist wrote it (integers separated by dots).
            .field("content_version", .string, .required)
            .field("size", .int64, .required)
            .field("sha256", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "app", "product_id", "content_version")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("hosted_content").delete()
    }
}
