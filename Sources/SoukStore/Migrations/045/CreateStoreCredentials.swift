import FluentKit
import SQLKit

/// Store credentials uploaded through the consoles or `souk stores credentials set`, sealed at rest
/// (docs/developers.md, "Store credentials"): one row per catalog app, store and kind, holding the
/// AES-GCM box (never the secret), the id of the sealing key it was sealed under, a hint that may
/// be shown, and who set it when. Replacing is an upsert on (app, store, kind).
struct CreateStoreCredentials: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("store_credentials")
            .field("app", .string, .required)
            .field("store", .string, .required)
            .field("kind", .string, .required)
            .field("sealed", .string, .required)
            .field("key_id", .string, .required)
            .field("hint", .string, .required)
            .field("set_by", .string, .required)
            .field("set_at", .datetime, .required)
            .unique(on: "app", "store", "kind")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("store_credentials").delete()
    }
}
