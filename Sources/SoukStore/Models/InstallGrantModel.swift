import FluentKit
import Foundation

/// A single-use grant that Souk puts in a `marketplace-kit://` install link (`token=`), redeemed by
/// the device through RFC 8693 token exchange (`install_grants`).
public final class InstallGrantModel: Model, @unchecked Sendable {
    public static let schema = "install_grants"

    @ID(key: .id) public var id: UUID?
    @Field(key: "grant_hash") public var grantHash: String
    @Parent(key: "account_id") public var account: AccountModel
    /// The app the install link is for.
    @OptionalField(key: "apple_item_id") var appleItemIdColumn: Int64?
    @Field(key: "expires_at") public var expiresAt: Date
    @OptionalField(key: "used_at") public var usedAt: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}
