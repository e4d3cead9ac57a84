import FluentKit

/// Registered OAuth clients (docs/oauth.md, "Registered clients"): one row per client, its exact
/// redirect URIs as a JSON array, and the commerce app its tokens are bound to (nil: none).
struct CreateOAuthClients: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("oauth_clients")
            .id()
            .field("client_id", .string, .required)
            .field("name", .string, .required)
            .field("kind", .string, .required)
            .field("redirect_uris", .string, .required)
            .field("app", .string)
            .field("created_at", .datetime, .required)
            .unique(on: "client_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("oauth_clients").delete()
    }
}
