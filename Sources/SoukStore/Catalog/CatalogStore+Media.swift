import FluentKit
import Foundation
import SQLKit
import SoukCore

/// App media and storefront metadata (`souk apps media`, `souk apps feature`, the console).
extension CatalogStore {
    /// Most screenshots kept per device family (the App Store's limit).
    public static let maxScreenshotsPerFamily = 10

    /// Sets an app's storefront media and text; every nil or empty argument keeps what is there.
    /// `icon` (a square PNG) replaces the icon and `icon_sha256` (so `/apps/<id>/icon` serves it too);
    /// each family named in `screenshots` gets exactly that list. Images are decoded, checked and
    /// stored with their resized variants before anything changes; the row is then written with one
    /// conditional UPDATE on the media it was computed from (retried when another change won).
    @discardableResult
    public func setMedia(appleItemId: UInt64, icon: Data? = nil, screenshots: [AppMedia.Family: [Data]] = [:],
                         subtitle: String? = nil, category: AppCategory? = nil, description: String? = nil,
                         whatsNew: String? = nil, blobs: BlobStore) async throws -> AppRecord {
        _ = try await app(appleItemId: appleItemId)
        for (family, list) in screenshots where list.count > Self.maxScreenshotsPerFamily {
            throw CatalogError.invalid("at most \(Self.maxScreenshotsPerFamily) \(family.rawValue) screenshots, got \(list.count)")
        }
        let storedIcon: AppMedia.Image? = try await icon.asyncMap { png in
            try await blocking {
                let image = try Self.decode(png, what: "icon")
                guard image.width == image.height else {
                    throw CatalogError.invalid("icon must be square, it is \(image.width)×\(image.height)")
                }
                return try AppMedia.Image.store(image, variantWidths: AppMedia.iconVariantWidths, blobs: blobs)
            }
        }
        var storedScreenshots: [AppMedia.Family: [AppMedia.Image]] = [:]
        for (family, list) in screenshots {
            storedScreenshots[family] = try await blocking {
                try list.enumerated().map { index, png in
                    try AppMedia.Image.store(Self.decode(png, what: "\(family.rawValue) screenshot \(index + 1)"),
                                             variantWidths: AppMedia.screenshotVariantWidths, blobs: blobs)
                }
            }
        }
        let images = [storedIcon].compactMap { $0 } + storedScreenshots.values.joined()
        for digest in images.flatMap({ [$0.sha256] + $0.variants.map(\.sha256) }) { try await blobs.publish(digest) }
        for _ in 0..<5 {
            let app = try await app(appleItemId: appleItemId)
            var media = app.media ?? AppMedia()
            if let storedIcon { media.icon = storedIcon }
            for family in AppMedia.Family.allCases {
                guard let images = storedScreenshots[family] else { continue }
                media.screenshots = media.screenshots.filter { $0.family != family } + images.map { AppMedia.Screenshot(family: family, image: $0) }
            }
            var update = database.sql.update("apps")
                .set("media", to: media.encoded())
                .set("updated_at", to: Date())
            if let storedIcon { update = update.set("icon_sha256", to: storedIcon.sha256) }
            if let subtitle { update = update.set("subtitle", to: subtitle) }
            if let category { update = update.set("category", to: category.slug) }
            if let description { update = update.set("description", to: description) }
            if let whatsNew { update = update.set("whats_new", to: whatsNew) }
            update = update.where("id", .equal, try app.requireID())
            if let old = app.mediaJSON {
                update = update.where("media", .equal, old)
            } else {
                update = update.where("media", .is, SQLLiteral.null)
            }
            if try await !update.returning("id").all().isEmpty {
                return try await appRecord(appleItemId: appleItemId)
            }
        }
        throw CatalogError.invalid("app \(appleItemId)'s media kept changing meanwhile; try again")
    }

    /// Puts an app among the home page's featured apps at `order` (lowest first), or takes it off
    /// with nil. One UPDATE; fails with `CatalogError.notFound` for an unknown app.
    public func setFeatured(appleItemId: UInt64, order: Int?) async throws {
        let rows = try await database.sql.update("apps")
            .set("featured_order", to: order)
            .set("updated_at", to: Date())
            .where("apple_item_id", .equal, AppleIDColumn.store(appleItemId))
            .returning("id").all()
        guard !rows.isEmpty else { throw CatalogError.notFound("no app with AppleItemID \(appleItemId)") }
    }

    /// The featured apps that can be installed, by their order (then name).
    public func featuredApps() async throws -> [AppModel] {
        try await AppModel.query(on: database.db)
            .filter(\.$featuredOrder != nil)
            .filter(\.$availabilityRaw == Availability.available.rawValue)
            .sort(\.$featuredOrder).sort(\.$name)
            .all()
    }

    /// Whether some app's media names the blob `sha256` (an original or a variant) — the only blobs
    /// `/media/` serves, so a package's files cannot be fetched there.
    public func isMediaBlob(_ sha256: String) async throws -> Bool {
        guard Digest.isSHA256Hex(sha256) else { return false }
        // A lower-case hex digest has no LIKE wildcards in it.
        return try await !database.sql.raw("""
            SELECT 1 AS found FROM apps WHERE media LIKE \(bind: "%\"\(sha256)\"%") LIMIT 1
            """).all().isEmpty
    }

    static func decode(_ png: Data, what: String) throws -> RGBAImage {
        do {
            return try PNG.decode(png)
        } catch {
            throw CatalogError.invalid("\(what): \(error)")
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
