import FluentKit

/// In-app commerce catalogs: one row per app with its revision, its entitlements, and
/// its products — on sale (in order) or retired (`retired_at`), never deleted, so that an id is
/// never reused and a retired product's buyers keep their entitlements. A product's definition is
/// kept as the catalog file's JSON of that product; the columns hold what queries need.
struct CreateCommerceCatalog: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("commerce_apps")
            .id()
            .field("app", .string, .required)
            .field("allow_sandbox", .bool, .required)
            .field("revision", .int64, .required)
            .field("modified_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "app")
            .create()
        try await database.schema("commerce_entitlements")
            .id()
            .field("app", .string, .required)
            .field("entitlement_id", .string, .required)
            .field("title", .string, .required)
            .field("position", .int, .required)
            .foreignKey("app", references: "commerce_apps", "app", onDelete: .cascade)
            .unique(on: "app", "entitlement_id")
            .create()
        try await database.schema("commerce_products")
            .id()
            .field("app", .string, .required)
            .field("product_id", .string, .required)
            .field("type", .string, .required)
            .field("definition", .string, .required)
            .field("position", .int, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("retired_at", .datetime)
            .foreignKey("app", references: "commerce_apps", "app", onDelete: .cascade)
            .unique(on: "app", "product_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("commerce_products").delete()
        try await database.schema("commerce_entitlements").delete()
        try await database.schema("commerce_apps").delete()
    }
}
