import Foundation

/// One app as the marketplace app's JSON API shows it (`/api/v1/apps…`, docs/api.md): what the
/// storefront's card and page show. Lists carry the card's facts; `GET /api/v1/apps/<id>` adds the
/// page's (`description` … `inAppProducts`). `access` is there only with a bearer token.
struct APIApp: Encodable, Sendable {
    var appleItemId: String
    var name: String
    var subtitle: String
    var developer: String
    var category: APICategory?
    /// The app's page (its `appShareURL`).
    var url: String
    var icon: APIImage?
    var screenshots: APIScreenshots
    var price: APIPrice
    /// The newest offered version's requirements, one entry per platform.
    var compatibility: [APIRequirement]
    var latestVersion: APIVersion?
    var access: APIAccess?
    var description: String?
    var whatsNew: String?
    /// Bytes of the newest version's largest variant (what a device downloads at most).
    var size: Int64?
    /// Every offered version, newest first.
    var versions: [APIVersion]?
    var inAppProducts: [APIProduct]?
}

/// A category: its slug (the `category` filter), its English name, and how many apps it has.
struct APICategory: Encodable, Sendable {
    var slug: String
    var name: String
    var count: Int?
    /// `GET /api/v1/apps?category=<slug>`.
    var apps: String?
}

/// An image: the original and every smaller copy (`variants`, narrowest first).
struct APIImage: Encodable, Sendable {
    var url: String
    var width: Int?
    var height: Int?
    var variants: [Variant]

    struct Variant: Encodable, Sendable {
        var url: String
        var width: Int
    }
}

/// Screenshots per device family, in the developer's order.
struct APIScreenshots: Encodable, Sendable {
    var iphone: [APIImage]
    var ipad: [APIImage]
}

/// What an app costs: `free`, one-time prices (integer minor units), and the membership that
/// includes it; `label` is the storefront's wording ("Free", "2.99 USD", "Included with Membership").
struct APIPrice: Encodable, Sendable {
    var free: Bool
    var label: String
    var prices: [APIAmount]
    var includedWith: APIMembership?
}

struct APIAmount: Encodable, Sendable {
    var currency: String
    var amount: Int
    var formatted: String
}

/// The marketplace entitlement that includes an app, with its title from the marketplace catalog.
struct APIMembership: Encodable, Sendable {
    var entitlement: String
    var title: String
}

/// "Requires iOS 17.4 or later".
struct APIRequirement: Encodable, Sendable {
    var platform: String
    var minimumOSVersion: String?
    var text: String
}

struct APIVersion: Encodable, Sendable {
    var appleVersionId: String
    var shortVersionString: String
    var bundleVersion: String
    var releaseDate: String
    var compatibility: [APIRequirement]
}

/// What the person behind the bearer token may do with the app (`AppAction`), why, in words.
struct APIAccess: Encodable, Sendable {
    var action: String
    var why: String?
    var detail: String?
}

/// An in-app product on sale, from the app's commerce catalog.
struct APIProduct: Encodable, Sendable {
    var id: String
    var type: String
    var title: String
    var prices: [APIAmount]
    /// ISO 8601 (`P1M`), for subscriptions.
    var period: String?
}

/// A page of apps: `next` is the URL of the following page, `null` on the last.
struct APIAppList: Encodable, Sendable {
    var apps: [APIApp]
    var next: String?

    enum CodingKeys: String, CodingKey { case apps, next }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(apps, forKey: .apps)
        try container.encode(next, forKey: .next)  // `null`, not absent: the end is said
    }
}
