import FluentKit

/// The console's catalog reviews: the digest (SHA-256) of each catalog text an operator reviewed,
/// with the revision it was reviewed against, so the apply step applies exactly that text
/// (docs/web.md, "Catalog edits").
struct CreateCatalogReviews: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("catalog_reviews")
            .id()
            .field("app", .string, .required)
            .field("account_id", .uuid, .required, .references("accounts", "id", onDelete: .cascade))
            .field("revision", .int64, .required)
            .field("digest", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("catalog_reviews").delete()
    }
}
