import Foundation
import SoukCore
import SoukStore

/// Maps what the storefront holds in memory (`StorefrontApp`, `CatalogApp`) to the API's `APIApp`:
/// no query per app. The marketplace catalog names the memberships that include apps.
struct APIAppBuilder: Sendable {
    let publicURL: String
    let marketplace: CommerceCatalogState?

    /// The card's facts: a list entry.
    func summary(_ listed: StorefrontApp, indexed: CatalogApp?) -> APIApp {
        let media = AppMedia.decode(listed.mediaJSON)
        return APIApp(
            appleItemId: String(listed.appleItemId), name: listed.name, subtitle: listed.subtitle, developer: listed.developer,
            category: listed.category.flatMap(AppCategory.init(slug:)).map { APICategory(slug: $0.slug, name: $0.displayName) },
            url: "\(publicURL)/apps/\(listed.appleItemId)", icon: icon(listed.appleItemId, iconSHA256: listed.iconSHA256, media: media),
            screenshots: screenshots(media), price: price(listed.pricing),
            compatibility: indexed?.versions.first.map(requirements) ?? [],
            latestVersion: indexed?.versions.first.map(version))
    }

    /// The page's facts: the card's, and the description, what's new, the download size, every
    /// offered version and the in-app products.
    func detail(_ app: AppRecord, indexed: CatalogApp?, size: Int64?, products: [ProductDefinition]) -> APIApp {
        let listed = StorefrontApp(appleItemId: app.appleItemId, name: app.name, subtitle: app.subtitle, developer: app.developerName,
                                   category: app.category, iconSHA256: app.iconSHA256, mediaJSON: app.mediaJSON, pricing: app.pricing)
        var result = summary(listed, indexed: indexed)
        result.description = app.appDescription
        result.whatsNew = app.whatsNew ?? ""
        result.size = size
        result.versions = indexed?.versions.map(version) ?? []
        result.inAppProducts = products.map { product in
            APIProduct(id: product.id, type: product.type.rawValue,
                       title: product.title["en-US"] ?? product.title["en"] ?? product.title.sorted { $0.key < $1.key }.first?.value ?? product.id,
                       prices: product.prices.map(amount), period: product.period?.description)
        }
        return result
    }

    func price(_ pricing: AppPricing) -> APIPrice {
        let membership = pricing.requiresEntitlement.map { id in
            APIMembership(entitlement: id, title: marketplace?.catalog.entitlements.first { $0.id == id }?.title ?? id)
        }
        let paid = pricing.prices.map(\.formatted).joined(separator: ", ")
        let label = switch (paid.isEmpty, membership) {
        case (true, nil): "Free"
        case (true, let membership?): "Included with \(membership.title)"
        case (false, nil): paid
        case (false, let membership?): "\(paid) or included with \(membership.title)"
        }
        return APIPrice(free: pricing.isFree, label: label, prices: pricing.prices.map(amount), includedWith: membership)
    }

    func amount(_ price: Price) -> APIAmount {
        APIAmount(currency: price.currency, amount: price.amount, formatted: price.formatted)
    }

    func version(_ version: CatalogVersion) -> APIVersion {
        APIVersion(appleVersionId: String(version.appleVersionId), shortVersionString: version.shortVersionString,
                   bundleVersion: version.bundleVersion, releaseDate: RFC3339.format(version.releaseDate), compatibility: requirements(version))
    }

    func requirements(_ version: CatalogVersion) -> [APIRequirement] {
        version.platforms.sorted { $0.rawValue < $1.rawValue }.map { platform in
            let minimum = version.minimumOS[platform]?.description
            let name = AppPagesController<SoukRequestContext>.platformName(platform.rawValue)
            return APIRequirement(platform: platform.rawValue, minimumOSVersion: minimum,
                                  text: minimum.map { "Requires \(name) \($0) or later" } ?? "Runs on \(name)")
        }
    }

    func icon(_ appleItemId: UInt64, iconSHA256: String?, media: AppMedia?) -> APIImage? {
        if let icon = media?.icon { return image(icon) }
        return iconSHA256 == nil ? nil : APIImage(url: "\(publicURL)/apps/\(appleItemId)/icon", variants: [])
    }

    func screenshots(_ media: AppMedia?) -> APIScreenshots {
        APIScreenshots(iphone: media?.screenshots(for: .iphone).map(image) ?? [], ipad: media?.screenshots(for: .ipad).map(image) ?? [])
    }

    func image(_ image: AppMedia.Image) -> APIImage {
        let base = "\(publicURL)/media/"
        return APIImage(url: image.url(base: base), width: image.width, height: image.height,
                        variants: image.sizes.filter { $0.width < image.width }.map { .init(url: "\(base)\($0.sha256).png", width: $0.width) })
    }
}
