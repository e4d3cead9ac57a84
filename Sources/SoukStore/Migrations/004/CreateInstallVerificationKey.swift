import FluentKit

/// The install verification signing keys (public halves and file names; private keys stay in the
/// keys folder, never in the database).
struct CreateInstallVerificationKey: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("install_verification_keys")
            .id()
            .field("kid", .string, .required)
            .field("owner_apple_item_id", .int64, .required)
            .field("key_file", .string, .required)
            .field("public_key_pem", .string, .required)
            .field("created_at", .datetime)
            .field("retired_at", .datetime)
            .unique(on: "kid")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("install_verification_keys").delete()
    }
}
