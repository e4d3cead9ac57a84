import FluentKit
import Foundation

/// One device authorization request (`device_authorizations`, RFC 8628): its device code and user
/// code stored only as SHA-256, its state, and the account that approved or denied it.
public final class DeviceAuthorizationModel: Model, @unchecked Sendable {
    public static let schema = "device_authorizations"

    public enum Status: String, Sendable { case pending, approved, denied, redeemed }

    @ID(key: .id) public var id: UUID?
    @Field(key: "device_code_hash") public var deviceCodeHash: String
    @Field(key: "user_code_hash") public var userCodeHash: String
    @Field(key: "client_id") public var clientId: String
    @Field(key: "scope") public var scope: String
    @Field(key: "status") public var statusRaw: String
    @OptionalParent(key: "account_id") public var account: AccountModel?
    @Field(key: "interval_seconds") public var intervalSeconds: Int
    @Field(key: "polls") public var polls: Int
    @OptionalField(key: "last_polled_at") public var lastPolledAt: Date?
    @Field(key: "created_at") public var createdAt: Date
    @Field(key: "expires_at") public var expiresAt: Date
    @OptionalField(key: "decided_at") public var decidedAt: Date?

    public init() {}

    public var status: Status? { Status(rawValue: statusRaw) }
}
