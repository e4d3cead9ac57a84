import FluentKit
import Foundation
import SoukCore

/// An install verification signing key (`install_verification_keys`). The owner is the marketplace
/// (AppleItemID 0 here) or, in web-distribution mode, one app that signs its own tokens. The
/// private key lives in the keys folder under `keyFile`; only the public key is stored here so that
/// every process publishes the same JWKS.
public final class InstallVerificationKeyModel: Model, @unchecked Sendable {
    public static let schema = "install_verification_keys"

    @ID(key: .id) public var id: UUID?
    @Field(key: "kid") public var kid: String
    @Field(key: "owner_apple_item_id") var ownerColumn: Int64
    @Field(key: "key_file") public var keyFile: String
    @Field(key: "public_key_pem") public var publicKeyPEM: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @OptionalField(key: "retired_at") public var retiredAt: Date?

    public init() {}

    public var owner: UInt64 { AppleIDColumn.load(ownerColumn) }
}
