import Foundation
import SoukStore
import SoukTestSupport
import Testing

/// `CatalogStore.setMedia` / `setFeatured` on both databases: images stored with their variants,
/// screenshots replaced per family, the icon kept in `icon_sha256`, and featured apps in order.
@Suite struct AppMediaStoreTests {
    static func png(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (200, 40, 90, 255)) throws -> Data {
        try PNG.encode(RGBAImage(width: width, height: height, fill: fill))
    }

    @Test(arguments: TestBackend.available)
    func mediaIsStoredWithVariantsAndReplacedPerFamily(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            try await store.catalog.createApp(AppModel(appleItemId: 7, bundleId: "org.example.media", name: "Media"))
            let iphone = try Self.png(width: 700, height: 1400)
            let ipad = try Self.png(width: 400, height: 300, fill: (1, 2, 3, 255))
            var app = try await store.catalog.setMedia(
                appleItemId: 7, icon: Self.png(width: 200, height: 200), screenshots: [.iphone: [iphone, iphone], .ipad: [ipad]],
                subtitle: "Sub", category: .healthFitness, description: "Long", whatsNew: "New", blobs: store.blobs)
            let media = try #require(app.media)
            let icon = try #require(media.icon)
            #expect(icon.width == 200 && icon.variants.map(\.width) == [64, 128])
            #expect(app.iconSHA256 == icon.sha256)
            #expect(media.screenshots(for: .iphone).count == 2)
            #expect(media.screenshots(for: .iphone)[0].variants.map { [$0.width, $0.height] } == [[300, 600], [600, 1200]])
            #expect(media.screenshots(for: .ipad)[0].variants.map(\.width) == [300])
            #expect(app.subtitle == "Sub" && app.appDescription == "Long" && app.whatsNew == "New")
            #expect(app.appCategory == .healthFitness && app.appCategory?.displayName == "Health & Fitness")
            for name in media.blobNames {
                #expect(store.blobs.contains(name))
                #expect(try await store.catalog.isMediaBlob(name))
                #expect(try PNG.decode(Data(contentsOf: URL(fileURLWithPath: store.blobs.path(for: name)))).width > 0)
            }
            #expect(try await !store.catalog.isMediaBlob(String(repeating: "a", count: 64)))

            // New iPad screenshots replace only the iPad list; everything else is kept.
            app = try await store.catalog.setMedia(appleItemId: 7, screenshots: [.ipad: [ipad, ipad, ipad]], blobs: store.blobs)
            #expect(app.media?.icon == icon)
            #expect(app.media?.screenshots(for: .iphone) == media.screenshots(for: .iphone))
            #expect(app.media?.screenshots(for: .ipad).count == 3)
            #expect(app.subtitle == "Sub" && app.appCategory == .healthFitness)

            await #expect(throws: CatalogError.invalid("icon must be square, it is 20×10")) {
                try await store.catalog.setMedia(appleItemId: 7, icon: Self.png(width: 20, height: 10), blobs: store.blobs)
            }
            await #expect(throws: CatalogError.invalid("iphone screenshot 1: not a PNG file")) {
                try await store.catalog.setMedia(appleItemId: 7, screenshots: [.iphone: [Data("nope".utf8)]], blobs: store.blobs)
            }
            await #expect(throws: CatalogError.self) {
                try await store.catalog.setMedia(appleItemId: 8, subtitle: "x", blobs: store.blobs)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func featuredAppsComeInTheirOrder(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            for (id, name) in [(1, "One"), (2, "Two"), (3, "Three")] {
                try await store.catalog.createApp(AppModel(appleItemId: UInt64(id), bundleId: "org.example.\(id)", name: name))
            }
            try await store.catalog.setFeatured(appleItemId: 3, order: 1)
            try await store.catalog.setFeatured(appleItemId: 1, order: 2)
            try await store.catalog.setFeatured(appleItemId: 2, order: 5)
            #expect(try await store.catalog.featuredApps().map(\.appleItemId) == [3, 1, 2])
            try await store.catalog.setFeatured(appleItemId: 1, order: nil)
            try await store.catalog.setAvailability(appleItemId: 2, to: .takenDown)
            #expect(try await store.catalog.featuredApps().map(\.appleItemId) == [3])
            await #expect(throws: CatalogError.notFound("no app with AppleItemID 9")) {
                try await store.catalog.setFeatured(appleItemId: 9, order: 1)
            }
        }
    }

    @Test func imagesNameTheirVariantsForPages() {
        let image = AppMedia.Image(sha256: "c", width: 1024, height: 1024, variants: [
            AppMedia.Variant(width: 64, height: 64, sha256: "a"), AppMedia.Variant(width: 128, height: 128, sha256: "b"),
        ])
        #expect(image.srcset() == "/media/a.png 64w, /media/b.png 128w, /media/c.png 1024w")
        #expect(image.srcset(base: "https://x/media/") == "https://x/media/a.png 64w, https://x/media/b.png 128w, https://x/media/c.png 1024w")
        #expect(image.url(for: 60) == "/media/a.png")
        #expect(image.url(for: 100) == "/media/b.png")
        #expect(image.url(for: 2000) == "/media/c.png")
        #expect(image.url() == "/media/c.png")
        #expect(AppCategory(slug: "photo-video")?.displayName == "Photo & Video")
        #expect(AppCategory(slug: "social") == nil)
        #expect(AppCategory.allCases.count == 24)
    }
}
