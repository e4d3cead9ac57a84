import FluentKit

/// What OpenID Connect carries from the authorization request to the ID token (docs/oauth.md,
/// "OpenID Connect"): the client's `nonce`, echoed in the ID token, and `auth_time`, when the person
/// proved who they are (a password typed now, or the website session they continued). NULL for
/// codes issued before.
struct UpdateOAuthCodesAddNonceAndAuthTime: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        try await database.schema("oauth_codes").field("nonce", .string).update()
        try await database.schema("oauth_codes").field("auth_time", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("oauth_codes").deleteField("auth_time").update()
        try await database.schema("oauth_codes").deleteField("nonce").update()
    }
}
