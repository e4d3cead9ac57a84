import Foundation
import SoukStore

/// The demo apps' storefront face: a category, texts, and an icon and screenshots drawn by
/// `DemoArt` in each app's own colours; two of them are featured on the home page.
extension DemoSeeder {
    package struct DemoStorefront {
        package var category: AppCategory
        package var subtitle: String
        package var description: String
        package var whatsNew: String
        package var art: DemoArt
        /// Screenshots per family (iPhone portrait, iPad landscape).
        package var screenshots: Int
        package var featuredOrder: Int?
    }

    package static let storefront: [UInt64: DemoStorefront] = [
        6_446_000_001: DemoStorefront(
            category: .productivity, subtitle: "Plain notes, synced",
            description: "Souk Notes keeps plain-text notes on every device you own.\n\nNo accounts to make, no formatting to fight: write, search, done. A demo app of the Souk marketplace.",
            whatsNew: "Faster search across thousands of notes, and a new list layout.",
            art: DemoArt(light: (0.99, 0.80, 0.30), dark: (0.85, 0.45, 0.05), emblem: 1), screenshots: 3, featuredOrder: nil),
        6_446_000_002: DemoStorefront(
            category: .weather, subtitle: "Forecasts without tracking",
            description: "Souk Weather shows the hour-by-hour forecast for where you are, without sending your location to anyone but the forecast service.\n\nA demo app of the Souk marketplace.",
            whatsNew: "A ten-day chart and a rain alert you can turn off.",
            art: DemoArt(light: (0.45, 0.78, 0.98), dark: (0.05, 0.35, 0.75), emblem: 0), screenshots: 2, featuredOrder: 1),
        6_446_000_003: DemoStorefront(
            category: .photoVideo, subtitle: "For members",
            description: "Souk Studio Pro edits photos and short videos with the tools of a studio.\n\nIt comes with a membership of the demo marketplace; its brushes are hosted content for its buyers.",
            whatsNew: "New brushes pack and support for the latest iPad.",
            art: DemoArt(light: (0.80, 0.55, 0.98), dark: (0.40, 0.10, 0.70), emblem: 3), screenshots: 2, featuredOrder: nil),
        6_446_000_004: DemoStorefront(
            category: .graphicsDesign, subtitle: "Draw on an endless canvas",
            description: "Souk Sketch is a paid drawing app: pencils, shapes and layers on a canvas that never ends.\n\nA demo app of the Souk marketplace, sold in US dollars and euros.",
            whatsNew: "Layers can now be grouped, and the pencil follows pressure.",
            art: DemoArt(light: (0.45, 0.90, 0.65), dark: (0.05, 0.55, 0.35), emblem: 2), screenshots: 2, featuredOrder: 2),
    ]

    /// Draws and stores one demo app's media and texts, and features it when it is meant to be.
    package func seedStorefront(appleItemId: UInt64) async throws {
        guard let face = Self.storefront[appleItemId] else { return }
        let (icon, screenshots) = try await BlockingWork.run {
            let icon = try PNG.encode(face.art.icon())
            var screenshots: [AppMedia.Family: [Data]] = [:]
            for index in 0..<face.screenshots {
                screenshots[.iphone, default: []].append(try PNG.encode(face.art.screenshot(index: index, width: 390, height: 844)))
                screenshots[.ipad, default: []].append(try PNG.encode(face.art.screenshot(index: index, width: 800, height: 600)))
            }
            return (icon, screenshots)
        }
        try await runtime.catalog.setMedia(appleItemId: appleItemId, icon: icon, screenshots: screenshots, subtitle: face.subtitle,
                                           category: face.category, description: face.description, whatsNew: face.whatsNew,
                                           blobs: runtime.blobs)
        if let order = face.featuredOrder {
            try await runtime.catalog.setFeatured(appleItemId: appleItemId, order: order)
        }
    }
}
