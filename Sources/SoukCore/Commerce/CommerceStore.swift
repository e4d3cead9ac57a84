import Foundation

/// The four stores a purchase can come from (Zapp's payment-provider API's `store` and `external_sku` keys).
public enum CommerceStore: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case appleStore = "apple_store"
    case googlePlay = "google_play"
    case amazon
    case roku

    /// The store a platform buys through (Zapp's payment-provider API's `platform`): `ios`, `tvos` → Apple;
    /// `android` → Google Play; `amazon_fire_tv` → Amazon; `roku` → Roku.
    public init?(platform: String) {
        switch platform.lowercased() {
        case "ios", "tvos": self = .appleStore
        case "android": self = .googlePlay
        case "amazon_fire_tv": self = .amazon
        case "roku": self = .roku
        default: return nil
        }
    }

    public static func < (a: CommerceStore, b: CommerceStore) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Where a purchase was made. Every purchase carries one; sandbox data never mixes with production.
/// Apple's `Xcode` and `LocalTesting` environments are not Apple-signed and are never accepted.
public enum CommerceEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}

/// The four product types (docs/commerce.md, "Catalog"; StoreKit's “In-App Purchasing” guide).
public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
    case consumable
    case nonConsumable = "non-consumable"
    case autoRenewable = "auto-renewable"
    case nonRenewing = "non-renewing"

    /// Apple's spelling in a signed transaction's `type`.
    public init?(appleType: String) {
        switch appleType {
        case "Consumable": self = .consumable
        case "Non-Consumable": self = .nonConsumable
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: return nil
        }
    }

    public var isSubscription: Bool { self == .autoRenewable || self == .nonRenewing }
}

/// What to do when a store transaction that one account owns is presented by another (spec §2).
public enum TransferPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Move the purchase to the account presenting it (the default).
    case transfer
    /// Move it only when the current owner has no active subscription in the app.
    case transferIfInactive = "transfer-if-inactive"
    /// Leave it with its first owner; the other account is refused.
    case keep
}
