import FluentKit
import Foundation

/// A one-time authorization code, stored only as its SHA-256 (`oauth_codes`).
public final class OAuthCodeModel: Model, @unchecked Sendable {
    public static let schema = "oauth_codes"

    @ID(key: .id) public var id: UUID?
    @Field(key: "code_hash") public var codeHash: String
    @Parent(key: "account_id") public var account: AccountModel
    @Field(key: "client_id") public var clientId: String
    @Field(key: "redirect_uri") public var redirectURI: String
    @Field(key: "code_challenge") public var codeChallenge: String
    @Field(key: "code_challenge_method") public var codeChallengeMethod: String
    @Field(key: "scope") public var scope: String
    @Field(key: "expires_at") public var expiresAt: Date
    @OptionalField(key: "used_at") public var usedAt: Date?
    /// OpenID Connect: the authorization request's `nonce`, and when the person authenticated.
    @OptionalField(key: "nonce") public var nonce: String?
    @OptionalField(key: "auth_time") public var authTime: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}
