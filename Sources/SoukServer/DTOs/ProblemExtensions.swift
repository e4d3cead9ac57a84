import Foundation

/// The checkout request that buys what a `402` refuses, so that the marketplace app's
/// `confirmInstall` can make it without knowing Souk's pricing rules: `POST <url>` with `body`
/// and the same bearer token (docs/selling.md, "Buying an app: checkout").
struct ProblemCheckout: Codable, Sendable, Equatable {
    var method = "POST"
    var url: String
    var body: Body

    /// An app (`appleItemId`) or the membership plan that includes it (`productId`).
    struct Body: Codable, Sendable, Equatable {
        var appleItemId: String?
        var productId: String?
    }
}

/// What an app needs of the device (an incompatible device's `409`): the platform the request named
/// and the lowest OS version any offered version of the app runs on there; no `version` when no
/// version runs on that platform at all.
struct ProblemMinimumOS: Codable, Sendable, Equatable {
    var platform: String
    var version: String?
}
