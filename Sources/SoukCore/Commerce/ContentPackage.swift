import Foundation

/// The version of a hosted content package (`ContentVersion` in its `ContentInfo.plist`, what
/// StoreKit shows as `SKDownload.contentVersion`): integers separated by dots, e.g. `1`, `1.0.2`.
///
/// Versions compare number by number, missing numbers counting as zero, so `1.10` is newer than
/// `1.9` and `1.0` is the same version as `1`. The text is kept as the developer wrote it: it is
/// what the app sees and what the download URL names.
public struct ContentVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let text: String
    public let numbers: [UInt32]

    /// At most this many numbers; more is a typo, not a version.
    public static let maxComponents = 8

    /// Parses `text`; nil unless it is 1–8 integers (no sign, no leading zero, up to 9 digits) separated by dots.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= Self.maxComponents else { return nil }
        var numbers: [UInt32] = []
        for part in parts {
            // A leading zero would make `1.01` and `1.1` two spellings of one version.
            guard !part.isEmpty, part.utf8.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  part == "0" || !part.hasPrefix("0"), let number = UInt32(part) else { return nil }
            numbers.append(number)
        }
        self.text = text
        self.numbers = numbers
    }

    public var description: String { text }

    /// The numbers without trailing zeros: equal for `1`, `1.0` and `1.0.0`.
    var significant: ArraySlice<UInt32> {
        var end = numbers.endIndex
        while end > numbers.startIndex, numbers[end - 1] == 0 { end -= 1 }
        return numbers[numbers.startIndex..<end]
    }

    public static func == (lhs: ContentVersion, rhs: ContentVersion) -> Bool { lhs.significant == rhs.significant }

    public func hash(into hasher: inout Hasher) { hasher.combine(Array(significant)) }

    public static func < (lhs: ContentVersion, rhs: ContentVersion) -> Bool {
        let count = max(lhs.numbers.count, rhs.numbers.count)
        for index in 0..<count {
            let left = index < lhs.numbers.count ? lhs.numbers[index] : 0
            let right = index < rhs.numbers.count ? rhs.numbers[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}

/// What a hosted content package's `ContentInfo.plist` says: the content's version and the in-app
/// product it belongs to (`IAPProductIdentifier`, the App Store product id Xcode writes there).
public struct ContentInfo: Sendable, Equatable {
    public var contentVersion: ContentVersion
    public var productIdentifier: String

    public init(contentVersion: ContentVersion, productIdentifier: String) {
        self.contentVersion = contentVersion
        self.productIdentifier = productIdentifier
    }

    public static let contentVersionKey = "ContentVersion"
    public static let productIdentifierKey = "IAPProductIdentifier"

    /// Reads an XML or binary property list. Errors name the key at fault.
    public static func parse(_ data: Data) -> Result<ContentInfo, PackageError> {
        let file = ContentPackageLayout.infoFile
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            return .failure(PackageError(file, "is not a property list (XML or binary)"))
        }
        guard let dictionary = object as? [String: Any] else {
            return .failure(PackageError(file, "must hold a dictionary at its root"))
        }
        guard let versionValue = dictionary[contentVersionKey] else {
            return .failure(PackageError("\(file) \(contentVersionKey)", "is missing"))
        }
        guard let versionText = versionValue as? String, let version = ContentVersion(versionText) else {
            return .failure(PackageError("\(file) \(contentVersionKey)",
                                         "must be a string of integers separated by dots, such as 1 or 1.0.2, got \(String(describing: versionValue).prefix(40))"))
        }
        guard let product = dictionary[productIdentifierKey] as? String,
              !product.isEmpty, product.utf8.count <= 255, !product.utf8.contains(where: { $0 < 0x21 || $0 == 0x2F || $0 == 0x7F }) else {
            return .failure(PackageError("\(file) \(productIdentifierKey)",
                                         "must be the in-app product's identifier: 1–255 characters, no spaces or slashes"))
        }
        return .success(ContentInfo(contentVersion: version, productIdentifier: product))
    }
}
