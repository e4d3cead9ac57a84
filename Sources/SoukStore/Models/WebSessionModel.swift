import FluentKit
import Foundation
import SoukCore

/// A signed-in browser (`web_sessions`): the cookie holds a random token, the table its SHA-256.
public final class WebSessionModel: Model, @unchecked Sendable {
    public static let schema = "web_sessions"

    @ID(key: .id) public var id: UUID?
    @Field(key: "token_hash") public var tokenHash: String
    @Parent(key: "account_id") public var account: AccountModel
    /// The per-session CSRF token every form of the signed-in pages carries.
    @Field(key: "csrf_token") public var csrfToken: String
    @Field(key: "expires_at") public var expiresAt: Date
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}
