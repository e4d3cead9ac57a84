import FluentKit

/// When the person behind a token signed in (`oauth_tokens.auth_time`), so an ID token issued on a
/// refresh says the original authentication time, as OpenID Connect Core 1.0 §12.2 requires. NULL
/// for tokens not issued from a sign-in (install-link exchanges) and for tokens issued before.
struct UpdateOAuthTokensAddAuthTime: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("oauth_tokens").field("auth_time", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("oauth_tokens").deleteField("auth_time").update()
    }
}
