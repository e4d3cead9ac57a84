import Foundation

/// What the storefront shows of an app as pictures (`apps.media`, JSON): its icon and its
/// screenshots per device family. Every image — the original and each resized variant — is a PNG
/// in the content-addressed blob store, served at `/media/<sha256>.png` with an immutable cache
/// lifetime, so a page names exactly the bytes it wants.
public struct AppMedia: Codable, Sendable, Equatable {
    public var icon: Image?
    public var screenshots: [Screenshot]

    public init(icon: Image? = nil, screenshots: [Screenshot] = []) {
        self.icon = icon
        self.screenshots = screenshots
    }

    /// Widths of the icon's resized variants (only those narrower than the original are made).
    public static let iconVariantWidths = [64, 128, 256]
    /// Widths of each screenshot's resized variants.
    public static let screenshotVariantWidths = [300, 600]

    /// The device family a screenshot shows the app on.
    public enum Family: String, Codable, Sendable, CaseIterable {
        case iphone
        case ipad

        public var displayName: String {
            switch self {
            case .iphone: "iPhone"
            case .ipad: "iPad"
            }
        }
    }

    /// One screenshot of the app on a device family.
    public struct Screenshot: Codable, Sendable, Equatable {
        public var family: Family
        public var image: Image

        public init(family: Family, image: Image) {
            self.family = family
            self.image = image
        }
    }

    /// One stored image: its original and its resized variants.
    public struct Image: Codable, Sendable, Equatable {
        public var sha256: String
        public var width: Int
        public var height: Int
        /// Narrower copies, narrowest first.
        public var variants: [Variant]

        public init(sha256: String, width: Int, height: Int, variants: [Variant] = []) {
            self.sha256 = sha256
            self.width = width
            self.height = height
            self.variants = variants
        }
    }

    /// A resized copy of an image.
    public struct Variant: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var sha256: String

        public init(width: Int, height: Int, sha256: String) {
            self.width = width
            self.height = height
            self.sha256 = sha256
        }
    }

    /// The screenshots of one device family, in their order.
    public func screenshots(for family: Family) -> [Image] {
        screenshots.filter { $0.family == family }.map(\.image)
    }

    /// Every blob this media names (originals and variants).
    public var blobNames: Set<String> {
        var names = Set<String>()
        for image in [icon].compactMap({ $0 }) + screenshots.map(\.image) {
            names.insert(image.sha256)
            names.formUnion(image.variants.map(\.sha256))
        }
        return names
    }

    public static func decode(_ json: String?) -> AppMedia? {
        guard let json, let data = json.data(using: .utf8) else { return nil }
        return try? JSONDecoder().decode(AppMedia.self, from: data)
    }

    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

extension AppMedia.Image {
    /// The original and its variants as (width, sha256), narrowest first.
    public var sizes: [(width: Int, sha256: String)] {
        var sizes = variants.filter { $0.width < width }.map { (width: $0.width, sha256: $0.sha256) }
        sizes.append((width: width, sha256: sha256))
        return sizes.sorted { $0.width < $1.width }
    }

    /// The URL of the original (`<base><sha256>.png`).
    public func url(base: String = "/media/") -> String {
        "\(base)\(sha256).png"
    }

    /// The URL of the narrowest copy at least `width` pixels wide (the original when none is).
    public func url(for width: Int, base: String = "/media/") -> String {
        let pick = sizes.first { $0.width >= width } ?? sizes.last!
        return "\(base)\(pick.sha256).png"
    }

    /// An `srcset` value naming every copy by its width: "/media/a.png 64w, /media/b.png 128w".
    public func srcset(base: String = "/media/") -> String {
        sizes.map { "\(base)\($0.sha256).png \($0.width)w" }.joined(separator: ", ")
    }
}

extension AppModel {
    /// The app's media, decoded from `mediaJSON` (nil when it has none or it does not decode).
    public var media: AppMedia? {
        AppMedia.decode(mediaJSON)
    }

    /// The app's category, when its slug is on the list.
    public var appCategory: AppCategory? {
        category.flatMap(AppCategory.init(slug:))
    }
}

extension AppModel {
    /// The storefront text as the audit log keeps it (console and `souk apps media` alike).
    public var auditDetailFields: [String: String] {
        ["subtitle": subtitle, "category": category ?? "", "description": appDescription, "whats_new": whatsNew ?? ""]
    }

    /// The media as the audit log keeps it: the icon's and each family's screenshots' digests.
    public var auditMediaFields: [String: String] {
        AppMedia.auditFields(media)
    }
}

extension AppMedia {
    /// `media` as the audit log keeps it: the icon's and each family's screenshots' digests.
    static func auditFields(_ media: AppMedia?) -> [String: String] {
        let media = media ?? AppMedia()
        var fields = ["icon": media.icon?.sha256 ?? ""]
        for family in AppMedia.Family.allCases {
            fields["screenshots_\(family.rawValue)"] = media.screenshots(for: family).map(\.sha256).joined(separator: ",")
        }
        return fields
    }
}
