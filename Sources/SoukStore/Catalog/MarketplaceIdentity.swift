import FluentKit
import Foundation

/// The marketplace's own identity as a value: its name, its AppleItemID (0 until set) and the key
/// id of its install verification signing key (`MarketplaceModel`, which stays inside SoukStore).
public struct MarketplaceIdentity: Sendable, Equatable {
    public var name: String
    /// The marketplace's AppleItemID (the `iss` of its install verification tokens); 0 until set.
    public var appleItemId: UInt64
    /// The key id App Store Connect gave the install verification signing key (`kid`).
    public var installVerificationKeyId: String

    init(_ model: MarketplaceModel) {
        name = model.name
        appleItemId = model.appleItemId
        installVerificationKeyId = model.installVerificationKeyId
    }
}

extension CatalogStore {
    /// The marketplace identity, created with defaults on first use (`marketplace(defaultKeyId:)`).
    public func marketplaceIdentity(defaultKeyId: String) async throws -> MarketplaceIdentity {
        MarketplaceIdentity(try await marketplace(defaultKeyId: defaultKeyId))
    }

    /// Changes the marketplace's name and/or AppleItemID (nil: kept); returns the identity after.
    @discardableResult
    public func setMarketplace(name: String? = nil, appleItemId: UInt64? = nil, defaultKeyId: String) async throws -> MarketplaceIdentity {
        let marketplace = try await marketplace(defaultKeyId: defaultKeyId)
        if let name { marketplace.name = name }
        if let appleItemId { marketplace.appleItemId = appleItemId }
        try await updateMarketplace(marketplace)
        return MarketplaceIdentity(marketplace)
    }
}
