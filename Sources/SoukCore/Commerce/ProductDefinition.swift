import Foundation

/// One app's product catalog as the catalog file states it (`souk catalog apply`, docs/commerce.md).
public struct CommerceCatalog: Sendable, Equatable {
    /// The app's bundle id / package name: the `<app>` of `/commerce/<app>/…`.
    public var app: String
    /// Whether a production account may present sandbox purchases (App Review buys in sandbox
    /// against production servers); they are recorded as sandbox.
    public var allowSandbox: Bool
    public var entitlements: [EntitlementDefinition]
    /// In catalog order: the order of `products_v1.json` and of the feed.
    public var products: [ProductDefinition]
    /// Each store's credentials for the app (the file's `stores`). nil: the file does not say, so
    /// applying it keeps the stores already set (`souk stores set`).
    public var stores: CommerceStoreSettings?

    public init(app: String, allowSandbox: Bool = false, entitlements: [EntitlementDefinition] = [], products: [ProductDefinition] = [],
                stores: CommerceStoreSettings? = nil) {
        self.app = app
        self.allowSandbox = allowSandbox
        self.entitlements = entitlements
        self.products = products
        self.stores = stores
    }
}

/// An access level the app checks ("premium"); products grant entitlements.
public struct EntitlementDefinition: Sendable, Hashable, Codable {
    public var id: String
    public var title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// One product of a catalog (spec §1).
public struct ProductDefinition: Sendable, Equatable {
    /// Letters, digits, `-`, `.`, `_`, at most 100 characters; never reused, even after retirement.
    public var id: String
    public var type: ProductType
    /// Subscription group and level (auto-renewable only; level 1 is the highest, as in App Store Connect).
    public var group: String?
    public var level: Int?
    /// Renewal period of an auto-renewable subscription.
    public var period: ISODuration?
    /// Length of a non-renewing subscription.
    public var duration: ISODuration?
    /// Localized by locale identifier (`en-US`).
    public var title: [String: String]
    public var description: [String: String]
    public var prices: [Price]
    public var introductoryOffer: IntroductoryOffer?
    public var familyShareable: Bool
    /// The product's id in each store where it is sold.
    public var skus: [CommerceStore: String]
    /// Entitlement ids this product grants.
    public var entitlements: [String]
    public var promoted: Promotion?
    /// Promotional offers Souk signs (auto-renewable only), in file order.
    public var offers: [SubscriptionOffer]

    public init(id: String, type: ProductType, group: String? = nil, level: Int? = nil, period: ISODuration? = nil,
                duration: ISODuration? = nil, title: [String: String] = [:], description: [String: String] = [:],
                prices: [Price] = [], introductoryOffer: IntroductoryOffer? = nil, familyShareable: Bool = false,
                skus: [CommerceStore: String] = [:], entitlements: [String] = [], promoted: Promotion? = nil,
                offers: [SubscriptionOffer] = []) {
        self.offers = offers
        self.id = id
        self.type = type
        self.group = group
        self.level = level
        self.period = period
        self.duration = duration
        self.title = title
        self.description = description
        self.prices = prices
        self.introductoryOffer = introductoryOffer
        self.familyShareable = familyShareable
        self.skus = skus
        self.entitlements = entitlements
        self.promoted = promoted
    }
}

/// A promoted in-app purchase (StoreKit's “In-App Purchasing” guide): shown on the app's product page, at most 20 per app.
public struct Promotion: Sendable, Hashable, Codable {
    public var order: Int
    public var visible: Bool

    public init(order: Int, visible: Bool) {
        self.order = order
        self.visible = visible
    }
}

/// An introductory offer of an auto-renewable subscription.
public struct IntroductoryOffer: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        case freeTrial = "free-trial"
        case payAsYouGo = "pay-as-you-go"
        case payUpFront = "pay-up-front"
    }

    public var mode: Mode
    /// Length of one offer period.
    public var period: ISODuration
    /// How many periods the offer lasts (pay-as-you-go); 1 otherwise.
    public var periods: Int
    /// What each period costs (empty for a free trial).
    public var prices: [Price]

    public init(mode: Mode, period: ISODuration, periods: Int = 1, prices: [Price] = []) {
        self.mode = mode
        self.period = period
        self.periods = periods
        self.prices = prices
    }
}
