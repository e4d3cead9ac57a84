import FluentKit
import SQLKit

/// Each app's store settings (`commerce_apps.stores`, the catalog file's `stores`
/// object as JSON: references to secrets, never the secrets) and what each store last said about
/// the operator's own setup (`store_status`, `souk stores status`).
///
/// (008's `CreateStoreOperations` shipped empty; migrations are only appended, so this is where
/// the settings landed.)
struct AddStoreSettings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("commerce_apps").field("stores", .string).update()
        try await database.schema("store_status")
            .field("app", .string, .required)
            .field("store", .string, .required)
            // StoreFault kind and its sentence (no secret, token or URL), when the store last failed.
            .field("last_error_kind", .string)
            .field("last_error", .string)
            .field("last_error_at", .datetime)
            // When the store last gave an answer (a verdict, an acknowledgement, a re-check).
            .field("last_ok_at", .datetime)
            .unique(on: "app", "store")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("store_status").delete()
        try await database.schema("commerce_apps").deleteField("stores").update()
    }
}
