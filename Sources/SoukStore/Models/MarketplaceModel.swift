import FluentKit
import Foundation

/// The marketplace's own identity (`marketplace`, a single row).
public final class MarketplaceModel: Model, @unchecked Sendable {
    public static let schema = "marketplace"

    @ID(key: .id) public var id: UUID?
    @Field(key: "name") public var name: String
    /// The marketplace's AppleItemID (the `iss` of its install verification tokens); 0 until set.
    @Field(key: "apple_item_id") var appleItemIdColumn: Int64
    /// The key id App Store Connect gave the install verification signing key (`kid`).
    @Field(key: "install_verification_key_id") public var installVerificationKeyId: String
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    public init(name: String, appleItemId: UInt64, installVerificationKeyId: String) {
        self.name = name
        self.appleItemIdColumn = AppleIDColumn.store(appleItemId)
        self.installVerificationKeyId = installVerificationKeyId
    }

    public var appleItemId: UInt64 {
        get { AppleIDColumn.load(appleItemIdColumn) }
        set { appleItemIdColumn = AppleIDColumn.store(newValue) }
    }

    public static func current(on db: any Database) async throws -> MarketplaceModel? {
        try await MarketplaceModel.query(on: db).first()
    }
}
