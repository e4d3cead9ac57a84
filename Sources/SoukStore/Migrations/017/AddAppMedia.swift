import FluentKit

/// What the storefront shows of an app beyond its name — its category (a slug of the
/// fixed list in `AppCategory`), what's new, its media (`AppMedia` as JSON: the icon and the
/// screenshots per device family, each a content-addressed blob with resized variants) and its
/// place among the home page's featured apps (`featured_order`, nil: not featured). An update of
/// `apps` moves the catalog revision (004's triggers), so every process sees it.
struct AddAppMedia: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apps").field("category", .string).update()
        try await database.schema("apps").field("whats_new", .string).update()
        try await database.schema("apps").field("media", .string).update()
        try await database.schema("apps").field("featured_order", .int).update()
    }

    func revert(on database: any Database) async throws {
        for field in ["featured_order", "media", "whats_new", "category"] {
            try await database.schema("apps").deleteField(.string(field)).update()
        }
    }
}
