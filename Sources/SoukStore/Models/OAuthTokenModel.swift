import FluentKit
import Foundation

/// An issued access or refresh token, stored only as its SHA-256 (`oauth_tokens`).
///
/// Tokens issued from one authorization code, token exchange or refresh chain share a `familyId`,
/// so a replayed code or a reused refresh token revokes the whole family at once.
public final class OAuthTokenModel: Model, @unchecked Sendable {
    public static let schema = "oauth_tokens"

    public enum Kind: String, Sendable { case access, refresh }

    @ID(key: .id) public var id: UUID?
    @Field(key: "token_hash") public var tokenHash: String
    @Field(key: "kind") public var kindRaw: String
    @Parent(key: "account_id") public var account: AccountModel
    @Field(key: "client_id") public var clientId: String
    @Field(key: "scope") public var scope: String
    @Field(key: "family_id") public var familyId: UUID
    @OptionalField(key: "code_id") public var codeId: UUID?
    @Field(key: "expires_at") public var expiresAt: Date
    @OptionalField(key: "revoked_at") public var revokedAt: Date?
    /// Set when a refresh token was exchanged for a new pair.
    @OptionalField(key: "rotated_at") public var rotatedAt: Date?
    /// The new pair, sealed with a key derived from this refresh token, for retries within the grace window.
    @OptionalField(key: "rotation_sealed") public var rotationSealed: String?
    @OptionalField(key: "last_used_at") public var lastUsedAt: Date?
    /// When the person signed in (OpenID Connect's `auth_time`); nil when not from a sign-in.
    @OptionalField(key: "auth_time") public var authTime: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(tokenHash: String, kind: Kind, accountID: UUID, clientId: String, scope: String, familyId: UUID,
         codeId: UUID?, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.kindRaw = kind.rawValue
        self.$account.id = accountID
        self.clientId = clientId
        self.scope = scope
        self.familyId = familyId
        self.codeId = codeId
        self.expiresAt = expiresAt
    }

    public var kind: Kind? { Kind(rawValue: kindRaw) }
}
